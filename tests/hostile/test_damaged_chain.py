"""A damaged line in the middle of a chain cuts it, as in Pi: Pi skips the line, so what
follows is an orphan, a tree of its own, and the branch from the leaf starts there. pitui
reads message lines from their head first (for speed) and learns a line is damaged only when
it reads it whole; from then on its tree, leaf and branch must be Pi's, in the app too."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assistant, dialog_text, line, user, write
from pitui.core.model.context import context_entry_indices
from pitui.core.read.session import Session

SIZE = (160, 45)


def _damaged(obj: dict) -> str:
    """The entry's line with its body broken but its head and tail whole."""
    text = line(obj)
    cut = text.index('"content"')
    return text[:cut] + '"content":oops' + text[cut + len('"content"') + 1 :]


@pytest.fixture
def cut_file(tmp_path) -> Path:
    project = tmp_path / "--home-u-proj--"
    project.mkdir()
    return write(project / "2026-11-20T10-00-00-000Z_cut.jsonl", [
        user("u1", None, 1, "one"),
        assistant("a1", "u1", 2, text="two"),
        _damaged(user("u2", "a1", 3, "three")),
        assistant("a2", "u2", 4, text="four"),
        user("u3", "a2", 5, "five"),
        assistant("a3", "u3", 6, text="six"),
    ])


def _ids(s: Session, indices) -> list[str]:
    return [s.ids[i] for i in indices]


def test_a_damaged_line_found_late_cuts_the_chain_as_pi_does(cut_file):
    pi = Session.open(cut_file, validate=True)  # every line parsed at once, as Pi reads them
    assert _ids(pi, pi.path_to(pi.leaf)) == ["a2", "u3", "a3"]
    assert sorted(_ids(pi, pi.roots)) == ["a2", "u1"]

    s = Session.open(cut_file, validate=False)  # lines read from their head
    assert _ids(s, s.path_to(s.leaf)) == ["u1", "a1", "u2", "a2", "u3", "a3"]  # not known yet
    assert s.validate_lazy_lines() == [2]
    assert s.drop_damaged() is True
    assert s.drop_damaged() is False  # nothing more to take out
    assert _ids(s, s.path_to(s.leaf)) == ["a2", "u3", "a3"]
    assert sorted(_ids(s, s.roots)) == ["a2", "u1"]
    assert s.index_of.get("u2") is None and 2 in s.shadowed
    assert _ids(s, context_entry_indices(s)[1]) == ["a2", "u3", "a3"]
    assert any("parent u2 not found" in w.message for w in s.all_warnings)


def test_a_damaged_last_line_is_not_the_leaf(tmp_path):
    p = write(tmp_path / "s.jsonl", [user("u1", None, 1), assistant("a1", "u1", 2),
                                      _damaged(user("u2", "a1", 3, "three"))])
    s = Session.open(p, validate=False)
    assert s.ids[s.leaf] == "u2"
    s.validate_lazy_lines()
    s.drop_damaged()
    assert s.ids[s.leaf] == "a1" == Session.open(p, validate=True).ids[Session.open(p, validate=True).leaf]


async def test_the_app_shows_pis_branch_once_it_knows(make_app, settle, cut_file):
    app = make_app(cut_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        s = screen.session
        assert _ids(s, screen.pane.branch) == ["a2", "u3", "a3"]
        assert s.ids[screen.branch_tree.selected_entry] == "a3"
        await pilot.press("g")  # the root of the selection's tree: the orphan
        await settle(pilot)
        assert s.ids[screen.branch_tree.selected_entry] == "a2"


async def test_w_lists_each_problem_once_with_its_line(make_app, settle, cut_file):
    from pitui.ui.widgets.header import WarningsScreen

    app = make_app(cut_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, WarningsScreen)
        shown = dialog_text(app.screen)
        # (the findings of pitui check: what is wrong, and what Pi does with it)
        assert "    line 4  unparsable: the line is not valid JSON and is skipped (Pi: skips the line)" in shown
        assert "    line 5  missing-parent: parent u2 not found; shown as a root (orphan) (Pi: " in shown
        assert "line 4  line 4" not in shown and "line 5  line 5" not in shown
        assert "2 findings in " in shown

