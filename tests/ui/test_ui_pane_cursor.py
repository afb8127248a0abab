"""The message pane's cursor, driven as a user drives it: up and down move it between the
entries, folds and transcript links; Enter acts where it is (not on the first fold in
view); j and k scroll; a click puts it on the line clicked; scrolled away, it comes back
into view; the tree follows it; a transcript opened from it says that Backspace goes back.

The demo's shop session has a parallel subagent run (three workers, two with transcripts)
and a chain run."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assistant, user, write
from pitui.ui.pane.cursor import CURSOR_MARK

SIZE = (160, 45)
SHOP = "--home-demo-shop--/2026-11-16T08-47-12-208Z_01a1e389-f750-7d90-8444-4099283fe1ff.jsonl"
PARALLEL = "e178d7af"  # the assistant message that ran three workers in parallel


@pytest.fixture(autouse=True)
def _home(ui_home):
    return ui_home


def lines(pane) -> list[str]:
    """The pane's lines as the screen shows them."""
    return [pane.render_line(y).text for y in range(pane.size.height)]


def cursor_rows(pane) -> list[int]:
    """The lines on screen drawn as the cursor (marked in their first column)."""
    return [y for y, text in enumerate(lines(pane)) if text.startswith(CURSOR_MARK)]


def cursor_text(pane) -> str:
    rows = cursor_rows(pane)
    assert rows, "no cursor on screen"
    return lines(pane)[rows[0]]


async def open_at(pilot, settle, entry_id: str):
    """The shop session, ``entry_id`` selected in the tree, then Tab to the pane."""
    app = pilot.app
    await settle(pilot)
    b = app.browser
    b.branch_tree.select_entry(b.session.index_of[entry_id])
    await settle(pilot)
    await pilot.press("tab")
    await settle(pilot)
    assert b.pane.has_focus
    return b, b.pane


async def press(pilot, settle, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def down_to(pilot, settle, pane, wanted, limit: int = 30) -> None:
    """Press down until the cursor's line satisfies ``wanted``."""
    for _ in range(limit):
        if wanted(cursor_text(pane)):
            return
        await press(pilot, settle, "down")
    raise AssertionError(f"never reached; the cursor is on {cursor_text(pane)!r}")


async def test_the_cursor_moves_between_folds_links_and_entries(make_app, settle, demo_root):
    app = make_app(demo_root / SHOP)
    async with app.run_test(size=SIZE) as pilot:
        b, pane = await open_at(pilot, settle, PARALLEL)
        # it starts on the first fold in view: the first worker's run, drawn as one line
        assert "▸ worker  ✓ done  anthropic/claude-haiku-4-5" in cursor_text(pane)
        assert len(cursor_rows(pane)) == 1
        seen = [cursor_text(pane)]
        for _ in range(5):
            await press(pilot, settle, "down")
            seen.append(cursor_text(pane))
        assert ["▸ worker" in s for s in seen] == [True, True, False, True, False, False]
        assert ["transcript:" in s for s in seen] == [False, False, True, False, True, False]
        assert "more lines" in seen[5]  # the output's fold
        # the next message's header is a stop too
        await press(pilot, settle, "down")
        # (its id gives way first in a narrow header: the time says which message it is)
        assert "assistant" in cursor_text(pane) and "10:08:15" in cursor_text(pane)
        # and up goes back the same way
        await press(pilot, settle, "up", "up")
        assert cursor_text(pane) == seen[4]
        # only the focused pane shows it
        await press(pilot, settle, "shift+tab")
        assert not pane.has_focus and cursor_rows(pane) == []


@pytest.mark.slow
async def test_enter_opens_the_transcript_at_the_cursor_and_says_backspace_goes_back(
        make_app, settle, demo_root, notes):
    app = make_app(demo_root / SHOP)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        b, pane = await open_at(pilot, settle, PARALLEL)
        transcripts = [y for y, text in enumerate(lines(pane)) if "transcript:" in text]
        assert len(transcripts) >= 2  # the first in view is another worker's
        await down_to(pilot, settle, pane, lambda text: "verification failed" in text)
        await press(pilot, settle, "down")
        assert cursor_rows(pane) == [transcripts[1]]
        await press(pilot, settle, "enter")
        assert b.session is not None and Path(b.session_path).name == "f8c4665c_worker_2.jsonl"
        right = b.query_one("#right")
        assert str(right.border_title) == "Messages · ⌫ back"
        assert any("⌫ goes back" in n for n in notes), notes
        await press(pilot, settle, "backspace")
        assert Path(b.session_path).name == Path(SHOP).name
        assert str(right.border_title) == "Messages"


async def test_enter_opens_or_closes_the_fold_at_the_cursor(make_app, settle, demo_root):
    app = make_app(demo_root / SHOP)
    async with app.run_test(size=SIZE) as pilot:
        b, pane = await open_at(pilot, settle, PARALLEL)
        await down_to(pilot, settle, pane, lambda text: "gpt-5-mini" in text)
        row = cursor_rows(pane)[0]
        await press(pilot, settle, "enter")
        screen = lines(pane)
        assert "▾ worker  ✓ done  openai/gpt-5-mini" in screen[row]  # this one opened
        assert any("▸ worker  ✓ done  anthropic/claude-haiku-4-5" in s for s in screen)  # not the first
        assert cursor_rows(pane) == [row]
        await press(pilot, settle, "enter")
        assert "▸ worker  ✓ done  openai/gpt-5-mini" in lines(pane)[row]


async def test_j_and_k_scroll_the_pane_and_leave_the_tree(make_app, settle, demo_root):
    app = make_app(demo_root / SHOP)
    async with app.run_test(size=SIZE) as pilot:
        b, pane = await open_at(pilot, settle, PARALLEL)
        before = [text[1:] for text in lines(pane)]  # (the first column: the cursor's mark or not)
        selected = b.branch_tree.selected_entry
        await press(pilot, settle, "j", "j")
        assert [text[1:] for text in lines(pane)][:-2] == before[2:]
        await press(pilot, settle, "k")
        assert [text[1:] for text in lines(pane)][:-1] == before[1:]
        await pilot.pause(0.3)
        await settle(pilot)
        assert b.branch_tree.selected_entry == selected  # (the same message is at the top)


async def test_a_click_places_the_cursor(make_app, settle, demo_root):
    app = make_app(demo_root / SHOP)
    async with app.run_test(size=SIZE) as pilot:
        b, pane = await open_at(pilot, settle, PARALLEL)
        screen = lines(pane)
        y = next(y for y, text in enumerate(screen) if "parallel run · 3 agents" in text)
        await pilot.click("#pane", offset=(10, y))
        await settle(pilot)
        assert cursor_rows(pane) == [y]
        await press(pilot, settle, "down")  # on to the next stop: the first worker's run
        assert "▸ worker  ✓ done  anthropic/claude-haiku-4-5" in cursor_text(pane)
        # a click on a fold opens it and leaves the cursor there
        y = next(y for y, text in enumerate(lines(pane)) if "gpt-5-mini" in text)
        await pilot.click("#pane", offset=(10, y))
        await settle(pilot)
        assert cursor_rows(pane) == [y] and "▾ worker  ✓ done  openai/gpt-5-mini" in lines(pane)[y]


async def test_scrolled_past_the_cursor_comes_back_into_view(make_app, settle, demo_root):
    app = make_app(demo_root / SHOP)
    async with app.run_test(size=SIZE) as pilot:
        b, pane = await open_at(pilot, settle, PARALLEL)
        first = cursor_text(pane)
        await press(pilot, settle, "pagedown")
        rows = cursor_rows(pane)
        assert len(rows) == 1 and cursor_text(pane) != first
        # on the first fold or link in view (the view went down)
        screen = lines(pane)
        actionable = [y for y, text in enumerate(screen) if "▸ " in text or "transcript:" in text
                      or "more lines (o)" in text or "long lines cut (o)" in text]
        assert actionable and rows[0] == actionable[0]
        await press(pilot, settle, "pageup", "pageup")
        assert len(cursor_rows(pane)) == 1


async def test_the_tree_follows_the_cursor_to_another_entry(make_app, settle, demo_root):
    app = make_app(demo_root / SHOP)
    async with app.run_test(size=SIZE) as pilot:
        b, pane = await open_at(pilot, settle, PARALLEL)
        # the next message's header (its time: the id gives way first in a narrow header)
        await down_to(pilot, settle, pane, lambda text: "assistant" in text and "10:08:15" in text)
        await pilot.pause(0.3)
        await settle(pilot)
        assert b.session.ids[b.branch_tree.selected_entry] == "9a580191"
        assert "10:08:15" in cursor_text(pane)  # the pane did not move under the cursor


def _long_answer(tmp_path) -> Path:
    """A question, an answer of 120 paragraphs (pages long), another question."""
    long = "\n\n".join(f"paragraph {k}" for k in range(120))
    project = tmp_path / "--home-u-p--"
    project.mkdir()
    return write(project / "2026-11-20T10-00-00-000Z_l.jsonl", [
        user("u1", None, 1, "first"),
        assistant("a1", "u1", 2, text=long),
        user("u2", "a1", 3, "last question"),
    ])


async def _cursor_on_the_answer(pilot, settle, app):
    """The first question selected, the pane focused, its cursor down on the answer's header."""
    await settle(pilot)
    b = app.browser
    b.branch_tree.select_entry(b.session.index_of["u1"])
    await settle(pilot)
    await press(pilot, settle, "tab")
    await down_to(pilot, settle, b.pane, lambda text: "assistant" in text)


async def test_down_across_a_long_message_moves_a_page_at_a_time(make_app, settle, tmp_path):
    app = make_app(_long_answer(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await _cursor_on_the_answer(pilot, settle, app)
        pane = app.browser.pane
        height = pane.size.height
        top = pane.scroll_y
        await press(pilot, settle, "down")
        # the next stop (u2's header) is pages away: the view moved a page, the cursor to its last line
        assert pane.scroll_y == top + height - 1
        assert cursor_rows(pane) == [height - 1]
        for _ in range(20):  # page after page, nothing skipped, to the next message
            if "user" in cursor_text(pane):
                break
            before = pane.scroll_y
            await press(pilot, settle, "down")
            assert pane.scroll_y - before <= height - 1
        assert "user" in cursor_text(pane) and "paragraph 119" in "\n".join(lines(pane))


async def test_the_tree_follows_the_pane_cursor_without_moving_the_pane(make_app, settle, tmp_path):
    """The cursor moved onto another entry: a moment later the tree selects that entry, and
    the pane stays where the user put it (it is not scrolled to bring the entry to its top;
    that scroll came late when the machine was busy, and moved a page key's view)."""
    app = make_app(_long_answer(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await _cursor_on_the_answer(pilot, settle, app)
        b = app.browser
        pane = b.pane
        top = pane.scroll_y
        pane._report_focus()  # (what the pane's short timer does after a cursor move)
        await settle(pilot)
        assert b.branch_tree.selected_entry == b.session.index_of["a1"]
        assert pane.scroll_y == top and "assistant" in cursor_text(pane)


async def test_a_fold_opened_at_the_cursor_stays_under_it_when_drawn_on_a_worker(make_app, settle, demo_root):
    """The context screen's system prompt: its text is long enough to be drawn on a worker
    thread (as the app does; the tests' app draws everything at once). The view does not
    move: the fold's line stays under the cursor, opened, the prompt's text below it."""
    from pitui.ui.screens.context import ContextView

    app = make_app(demo_root / SHOP)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await press(pilot, settle, "c")
        view = app.screen.query_one(ContextView)
        view.async_bytes = 4_096  # (BlockScroller.ASYNC_BYTES, which make_app turns off)
        await down_to(pilot, settle, view, lambda text: "▸ prompt text" in text)
        row = cursor_rows(view)
        await press(pilot, settle, "enter")
        await pilot.pause(0.2)
        await settle(pilot)
        assert cursor_rows(view) == row and "▾ prompt text" in cursor_text(view)
        assert "[preamble]" in "\n".join(lines(view)[row[0]:])


def _actionable(pane) -> list[int]:
    """The lines on screen that start a fold or a transcript link."""
    return [y for y, text in enumerate(lines(pane)) if "▸ " in text or "▾ " in text or "transcript:" in text
            or "more lines (o)" in text or "long lines cut (o)" in text]


async def test_scrolled_up_past_the_cursor_it_comes_back_on_the_last_stop_in_view(make_app, settle, demo_root):
    """The view went up, leaving the cursor below it: the cursor comes back on the last fold
    or link in view (the one nearest where it was), not the first."""
    app = make_app(demo_root / SHOP)
    async with app.run_test(size=SIZE) as pilot:
        b, pane = await open_at(pilot, settle, PARALLEL)
        await press(pilot, settle, "pagedown")
        last = _actionable(pane)[-1]
        await pilot.click("#pane", offset=(2, last))  # (the cursor on the last link in view)
        await settle(pilot)
        assert cursor_rows(pane) == [last]
        await press(pilot, settle, "k", "k", "k")  # the view up three lines: the cursor still in it
        assert cursor_rows(pane) == [last + 3]
        await press(pilot, settle, "pageup")
        in_view = _actionable(pane)
        assert len(in_view) >= 2 and cursor_rows(pane) == [in_view[-1]]


@pytest.fixture
def wrapped_folds(monkeypatch):
    """Folds and links drawn wrapped over as many lines as their text needs. No fold or
    link wraps in today's drawing (each is one line, cut at the pane's edge), but the
    cursor is made for ones that do: a fold's lines are one stop, and the cursor covers
    them all."""
    from rich.text import Text

    from pitui.ui.pane.canvas import Out

    one_line = Out.line

    def line(self, text, style=None, *, chrome=False, action=None):
        if action is None:
            return one_line(self, text, style, chrome=chrome, action=action)
        return self.wrap(text if isinstance(text, Text) else Text(text, style or ""), chrome=chrome, action=action)

    monkeypatch.setattr(Out, "line", line)


def _line_starts(pane) -> list[int]:
    """The screen lines that begin a fold or a link (a wrapped one's first line)."""
    return [y for y, text in enumerate(lines(pane)) if text[1:].lstrip().startswith(("▸ ", "▾ ", "transcript:"))]


async def test_a_wrapped_fold_or_link_is_one_stop(make_app, settle, demo_root, wrapped_folds):
    app = make_app(demo_root / SHOP)
    async with app.run_test(size=(80, 40)) as pilot:
        b, pane = await open_at(pilot, settle, PARALLEL)
        starts = _line_starts(pane)
        first = cursor_rows(pane)
        assert first[0] == starts[0] and len(first) == 2  # the first worker's run, over two lines
        assert "▸ worker  ✓ done  anthropic/claude-haiku-4-5" in lines(pane)[first[0]]
        for start in starts[1:4]:  # the next worker's run, its transcript link, the third run
            await press(pilot, settle, "down")
            rows = cursor_rows(pane)
            assert rows[0] == start and len(rows) >= 2, (start, rows)
        await press(pilot, settle, "up", "up", "up")
        assert cursor_rows(pane) == first


async def test_a_click_on_a_wrapped_folds_second_line_puts_the_cursor_on_the_fold(make_app, settle, demo_root,
                                                                                 wrapped_folds):
    app = make_app(demo_root / SHOP)
    async with app.run_test(size=(80, 40)) as pilot:
        b, pane = await open_at(pilot, settle, PARALLEL)
        fold = next(y for y in _line_starts(pane) if "openai/gpt-5-mini" in lines(pane)[y])
        await pilot.click("#pane", offset=(10, fold + 1))
        await settle(pilot)
        assert "▾ worker  ✓ done  openai/gpt-5-mini" in lines(pane)[fold]  # (the click opened it)
        assert cursor_rows(pane)[0] == fold and len(cursor_rows(pane)) == 2
