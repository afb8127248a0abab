"""The focused sidebar's keys, as a user types them: every printable character goes into its
filter (``q``, ``y``, ``c``, ``/`` and ``?`` too), and the keys that are no characters
(arrows, Enter, Escape, Tab, ctrl-keys) keep their jobs; the footer shows the keys that
still work there."""

from __future__ import annotations

import string

import pytest
from textual.keys import _character_to_key

from pitui.core import settings as settings_file
from pitui.ui.widgets.keybar import KeyBar

SIZE = (160, 45)
#: Every printable ASCII character (the space too), and a few beyond ASCII.
TYPED = "".join(c for c in string.printable if c.isprintable()) + "éß漢"
TYPED_KEYS = {_character_to_key(c) for c in TYPED}


def _state(app) -> dict:
    """What a stray key could have changed: the screen, the session shown and where, the
    tree's filter and folds, the pane's toggles, the layout and its settings, the
    clipboard, the toasts, the sort and the projects folded in the sidebar."""
    b = app.screen
    sl = b.session_list
    return {
        "screens": [type(s).__name__ for s in app.screen_stack],
        "focused": b.focused.id if b.focused else None,
        "maximized": b.maximized,
        "session": b.session_path,
        "selected": b.branch_tree.selected_entry,
        "tree_mode": b.branch_tree.mode,
        "pane": (b.pane.show_thinking, b.pane.full_tool_output, b.pane.show_hidden),
        "following": b.following,
        "settings": app.settings,
        "saved": settings_file.settings_path().exists(),
        "clipboard": app.clipboard,
        "toasts": len(app._notifications),
        "sidebar": (sl.sort, sl.named_only, frozenset(sl.collapsed)),
        "search": b.search_bar.display,
    }


async def _sidebar_focused(pilot, settle):
    """The browser screen and its session list, focused, once the app has settled."""
    await settle(pilot)
    b = pilot.app.screen
    b.session_list.focus()
    await settle(pilot)
    return b, b.session_list


@pytest.mark.slow
async def test_every_printable_character_typed_into_the_focused_sidebar_is_in_its_filter(
        make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        b, sl = await _sidebar_focused(pilot, settle)
        before = _state(app)
        for ch in TYPED:
            await pilot.press(_character_to_key(ch))
        await settle(pilot)
        assert app.is_running
        assert sl.filter_text == TYPED
        assert _state(app) == before  # nothing else happened
        status = b.query_one("#sidebar-filter")
        assert str(status.render()).startswith("filter: " + TYPED[:40])
        # Backspace erases, Escape clears, and neither does anything else
        await pilot.press("backspace")
        await settle(pilot)
        assert sl.filter_text == TYPED[:-1]
        await pilot.press("escape")
        await settle(pilot)
        assert sl.filter_text == "" and _state(app) == before


@pytest.mark.slow
async def test_a_word_typed_from_an_empty_filter_is_the_filter(make_app, settle, demo_root):
    # The words of the issue: "project-07" lost its "p" (copy path), "continue" opened the
    # context screen on its "c"
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sl = app.screen.session_list
        for word in ("project-07", "continue", "quit", "/fix", "?"):
            sl.focus()
            await settle(pilot)
            await pilot.press(*[_character_to_key(c) for c in word])
            await settle(pilot)
            assert sl.filter_text == word and type(app.screen).__name__ == "BrowserScreen"
            await pilot.press("escape")
            await settle(pilot)


@pytest.mark.slow
async def test_keys_that_are_no_characters_keep_their_jobs_in_the_sidebar(make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        b, sl = await _sidebar_focused(pilot, settle)
        row = sl.cursor_row
        await pilot.press("down")
        assert sl.cursor_row > row  # arrows move
        await pilot.press("ctrl+s")  # ctrl-keys keep theirs
        await settle(pilot)
        assert sl.sort == "name"
        await pilot.press("ctrl+s")
        await pilot.press("f", "e", "e", "d", "l", "y")
        await settle(pilot)
        assert sl.filter_text == "feedly"
        opened = sl.current.key
        await pilot.press("enter")  # Enter opens the session
        await settle(pilot)
        assert b.session_path == opened and b.focused is b.branch_tree
        await pilot.press("shift+tab")  # and shift+tab comes back to the sidebar
        await settle(pilot)
        assert b.focused is sl
        await pilot.press("tab")  # Tab leaves it, and letters are keys again there
        await settle(pilot)
        assert b.focused is b.branch_tree
        await pilot.press("z")
        await settle(pilot)
        assert b.maximized is b.branch_tree and sl.filter_text == "feedly"
        await pilot.press("z")
        await settle(pilot)
        sl.focus()
        await settle(pilot)
        await pilot.press("f1")  # help from the sidebar, where "?" types
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"


async def test_the_footer_shows_the_keys_that_work_in_the_sidebar(make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bar = app.screen.query_one(KeyBar)
        tree_keys = [(k.display, k.description) for k in bar.items]
        assert ("q", "Quit") in tree_keys and ("?", "Help") in tree_keys
        app.screen.session_list.focus()
        await settle(pilot)
        keys = [(k.display, k.description) for k in bar.items]
        assert [k.key for k in bar.items if k.key in TYPED_KEYS] == []  # no key that types
        assert ("^q", "Quit") in keys and ("f1", "Help") in keys and ("^s", "Sort") in keys
