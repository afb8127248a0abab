"""Search in the pane, driven as a user drives it: `/` finds and counts, `n` `N` move with the
counter on the pane's border, and Esc (or an empty `/`) ends the search: highlights gone,
and the thinking a hit had opened folded again."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.content import Content

from helpers import assistant, user, write

SIZE = (160, 45)


@pytest.fixture
def session_file(tmp_path) -> Path:
    project = tmp_path / "--home-u-proj--"
    project.mkdir()
    return write(project / "2026-11-20T10-00-00-000Z_s.jsonl", [
        user("u1", None, 1, "find the needle"),
        assistant("a1", "u1", 2, content=[{"type": "thinking", "thinking": "secret thought: needle here"},
                                          {"type": "text", "text": "the needle is found"}]),
    ])


def _pane_text(pane) -> str:
    return "\n".join(pane.render_line(y).text for y in range(pane.size.height))


def _subtitle(app) -> str:
    """The text drawn on the pane's border (Textual gives the subtitle back as markup)."""
    sub = app.screen.query_one("#right").border_subtitle or ""
    return Content.from_markup(sub).plain if isinstance(sub, str) else sub.plain


async def _search(pilot, settle, query: str) -> None:
    await pilot.press("slash")  # (the last query comes back selected: typing replaces it)
    await pilot.press(*query) if query else await pilot.press("backspace")
    await pilot.press("enter")
    await settle(pilot)


async def test_search_counts_moves_and_clears_with_escape(make_app, settle, session_file):
    app = make_app(session_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.screen.pane
        assert "secret thought" not in _pane_text(pane)  # thinking is folded
        await _search(pilot, settle, "needle")
        assert pane.hit_count == 3
        assert _subtitle(app) == "/needle  1/3 · n N · esc clears"
        assert "secret thought: needle here" in _pane_text(pane)  # opened for its hit
        await pilot.press("n")
        await settle(pilot)
        assert _subtitle(app) == "/needle  2/3 · n N · esc clears"
        await pilot.press("N", "N")
        await settle(pilot)
        assert _subtitle(app) == "/needle  3/3 · n N · esc clears"  # backwards, wrapping
        await pilot.press("escape")
        await settle(pilot)
        assert (pane.hit_count, pane.search_query, _subtitle(app)) == (0, "", "")
        assert "secret thought" not in _pane_text(pane)  # folded again
        await pilot.press("n")  # nothing to go to
        await settle(pilot)
        assert _subtitle(app) == ""


async def test_an_empty_query_ends_the_search_and_a_miss_says_so(make_app, settle, session_file):
    app = make_app(session_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.screen.pane
        await _search(pilot, settle, "haystack")
        assert (pane.hit_count, _subtitle(app)) == (0, "/haystack  no match · esc clears")
        await _search(pilot, settle, "needle")
        assert pane.hit_count == 3
        await _search(pilot, settle, "")
        assert (pane.hit_count, pane.search_query, _subtitle(app)) == (0, "", "")


async def test_a_query_is_text_on_the_border_never_markup(make_app, settle, session_file):
    app = make_app(session_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _search(pilot, settle, "[b]x")
        assert _subtitle(app) == "/[b]x  no match · esc clears"


async def test_the_pane_cursor_goes_to_the_hit(make_app, settle, tmp_path):
    """The cursor was on the pane's last row; after `/` and Enter it is on the hit's line
    (and n moves it to the next hit's)."""
    project = tmp_path / "--home-u-proj--"
    project.mkdir()
    entries, parent = [], None
    for k in range(30):
        text = "the word zebrafish is here" if k in (3, 20) else f"message number {k}"
        entries.append(user(f"u{k}", parent, 2 * k, text) if k % 2 == 0 else
                       assistant(f"u{k}", parent, 2 * k + 1, text=text))
        parent = f"u{k}"
    app = make_app(write(project / "2026-11-20T10-00-00-000Z_s.jsonl", entries))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.screen.pane
        pane.focus()
        await pilot.press("end")
        await settle(pilot)
        await _search(pilot, settle, "zebrafish")
        assert app.screen.focused is pane and pane.hit_count == 2
        # (the first hit from the view down: the view was at the end, message 20's)
        assert _subtitle(app) == "/zebrafish  2/2 · n N · esc clears"
        assert "the word zebrafish is here" in pane.render_line(pane.cursor_line).text
        assert pane.entry_at_cursor() == app.screen.session.ids.index("u20")
        await pilot.press("n")
        await settle(pilot)
        assert _subtitle(app) == "/zebrafish  1/2 · n N · esc clears"
        assert "the word zebrafish is here" in pane.render_line(pane.cursor_line).text
        assert pane.entry_at_cursor() == app.screen.session.ids.index("u3")
