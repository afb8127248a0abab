"""The app's wiring, driven as a user drives it: each key reaches the right thing with the
right argument. Each test here fails when its wiring is broken on purpose (c opening the
context at the leaf, s the wrong branch's stats, t toggling hidden messages, the pane
marking what lies outside the context by the first compaction instead of the last, the
sidebar's projects no longer folding)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assistant, entry, header, user, write
from pitui.ui.screens.context import ContextScreen
from pitui.ui.screens.stats import StatsScreen

SIZE = (160, 45)


@pytest.fixture
def two_compactions(tmp_path) -> Path:
    """u1 a1 u2 a2 | c1 (keeps from u2) | u3 a3 | c2 (keeps from u3) | u4 a4 (thinking),
    and a fork from a1 answered by another model: u5 a5."""
    project = tmp_path / "--home-u-p--"
    project.mkdir()
    think = [{"type": "thinking", "thinking": "a private thought"}, {"type": "text", "text": "fourth answer"}]
    return write(project / "2026-11-20T10-00-00-000Z_w.jsonl", [
        user("u1", None, 1, "first question"),
        assistant("a1", "u1", 2, text="first answer"),
        user("u2", "a1", 3, "second question"),
        assistant("a2", "u2", 4, text="second answer"),
        entry("compaction", "c1", "a2", 5, summary="one", firstKeptEntryId="u2", tokensBefore=1000),
        user("u3", "c1", 6, "third question"),
        assistant("a3", "u3", 7, text="third answer"),
        entry("compaction", "c2", "a3", 8, summary="two", firstKeptEntryId="u3", tokensBefore=2000),
        user("u4", "c2", 9, "fourth question"),
        assistant("a4", "u4", 10, content=think),
        user("u5", "a1", 11, "a forked question"),
        assistant("a5", "u5", 12, text="forked answer", model="gpt-5"),
        user("u6", "a4", 13, "last question"),
    ])


async def test_c_opens_the_context_at_the_selection_and_s_the_selected_branch(make_app, settle, two_compactions):
    app = make_app(two_compactions)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        s = screen.session
        screen.branch_tree.select_entry(s.index_of["u3"])
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen) and app.screen.entry == s.index_of["u3"]
        await pilot.press("escape")
        await settle(pilot)
        screen.branch_tree.select_entry(s.index_of["u5"])  # on the fork: its leaf is a5
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen) and app.screen.leaf == s.index_of["a5"]


async def test_t_toggles_thinking_and_h_hidden_messages(make_app, settle, two_compactions):
    app = make_app(two_compactions)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.screen.pane
        before = (pane.show_thinking, pane.show_hidden)
        await pilot.press("t")
        await settle(pilot)
        assert (pane.show_thinking, pane.show_hidden) == (not before[0], before[1])
        await pilot.press("h")
        await settle(pilot)
        assert (pane.show_thinking, pane.show_hidden) == (not before[0], not before[1])


def _block_header(pane, text: str) -> str:
    """The header line of the block in view whose text holds ``text``."""
    lines = [pane.render_line(y).text for y in range(pane.size.height)]
    k = next(n for n, ln in enumerate(lines) if text in ln)
    # (a block's gutter: ▎ in the context, ┆ outside it)
    return next(ln for ln in reversed(lines[:k]) if ln[:1] in "▎┆" and ln[1:].lstrip().startswith(("user", "assistant")))


async def test_the_pane_marks_what_the_last_compaction_left_out(make_app, settle, two_compactions):
    app = make_app(two_compactions)
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        screen = app.screen
        s = screen.session
        screen.branch_tree.select_entry(s.index_of["u1"])  # the pane shows the branch from its top
        await settle(pilot)
        pane = screen.pane
        assert "outside context" in _block_header(pane, "first question")
        # kept by the first compaction, left out by the second (the last on the branch)
        assert "outside context" in _block_header(pane, "second question")
        assert "outside context" not in _block_header(pane, "third question")
        assert "outside context" not in _block_header(pane, "fourth question")


async def test_enter_on_a_project_folds_its_sessions(make_app, settle, tmp_path):
    for k, cwd in enumerate(("/home/u/alpha", "/home/u/beta")):
        folder = tmp_path / ("--" + cwd.strip("/").replace("/", "-") + "--")
        folder.mkdir()
        write(folder / f"2026-11-20T1{k}-00-00-000Z_s{k}.jsonl", [user("u1", None, 1, f"{cwd} work")],
              header=header(f"s{k}", cwd))
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        rows = app.screen.session_list

        def shown() -> str:
            return "\n".join(rows.render_line(y).text for y in range(rows.size.height))

        assert "/home/u/beta work" in shown() and "/home/u/alpha work" in shown()
        rows.focus()
        await pilot.press("home")  # the first row: the newest project
        await settle(pilot)
        first = "beta" if shown().index("beta") < shown().index("alpha") else "alpha"
        await pilot.press("enter")
        await settle(pilot)
        assert f"/home/u/{first} work" not in shown()  # folded
        assert f"/home/u/{'alpha' if first == 'beta' else 'beta'} work" in shown()
        await pilot.press("enter")
        await settle(pilot)
        assert f"/home/u/{first} work" in shown()
