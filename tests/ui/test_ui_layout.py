"""The panels' layout, as a user meets it: the message pane gets the room at every
terminal size, fewer panels in a narrow terminal (the sidebar one key away, in the tree's
place), the sidebar hidden and shown with ``b``, the widths changed by keys and by
dragging the gap between two panels, the focused panel drawn apart, and all of it
remembered per size class in the settings file (``$PITUI_CONFIG_DIR``, a private folder
per test: conftest.py), a damaged one ignored."""

from __future__ import annotations

import json

import pytest

from pitui.core import settings as settings_file

SIZE = (160, 45)


def _panels(app) -> tuple[int, int, int]:
    """The widths on screen of the sidebar (0 when hidden), the tree and the right column."""
    screen = app.screen
    sidebar = screen.query_one("#sidebar")
    return (sidebar.outer_size.width if sidebar.display else 0, screen.query_one("#tree").outer_size.width,
            screen.query_one("#right").outer_size.width)


def _lines(widget) -> list[str]:
    return [widget.render_line(y).text for y in range(widget.size.height)]


def _saved(width_class: str = "wide") -> dict:
    return json.loads(settings_file.settings_path().read_text())[width_class]


async def _focus(pilot, selector: str) -> None:
    pilot.app.screen.query_one(selector).focus()
    await pilot.pause()


@pytest.mark.parametrize("size, widths", [
    ((80, 24), (0, 19, 60)),  # a tmux split: the tree and the pane, the pane 60 wide
    ((100, 30), (0, 39, 60)),
    ((120, 30), (28, 30, 60)),  # three panels from 120 columns on
    ((160, 45), (35, 53, 70)),  # the pane 70 wide, more than the tree
    ((220, 60), (44, 72, 102)),  # the tree what a row needs, the pane the rest
])
async def test_the_message_pane_gets_the_room_at_every_size(make_app, settle, demo_root, size, widths):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert _panels(app) == widths
        side, tree, pane = widths
        assert side + tree + pane + (2 if side else 1) == size[0]  # (and the gaps between them)
        assert pane >= tree and pane >= 60
        tree_rows = _lines(app.screen.query_one("#tree"))
        bash_rows = [r for r in tree_rows if "[bash: " in r]
        assert len(bash_rows) == 2
        if size[0] >= 220:
            # whole, with Pi's own "...]" at the end, not cut by the tree
            assert all(r.rstrip().endswith("...]") for r in bash_rows), bash_rows
            # a session's name past the 33 cells it had at every size
            names = _lines(app.screen.query_one("#session-list"))
            assert any("Feedly shows my posts in a random order" in r for r in names), names


@pytest.mark.slow
async def test_a_narrow_terminal_shows_the_sidebar_in_the_trees_place(make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        b = app.screen
        tree, sidebar = b.query_one("#tree"), b.query_one("#sidebar")
        first = b.session_path
        await pilot.press("b")
        await settle(pilot)
        assert sidebar.display and not tree.display and b.focused is b.session_list
        assert (sidebar.outer_size.width, b.query_one("#right").outer_size.width) == (19, 60)
        visited = set()
        for _ in range(4):
            await pilot.press("tab")
            visited.add(b.focused.id)
        assert visited == {"session-list", "pane"}  # (Tab goes to the panels shown)
        b.session_list.focus()
        await pilot.press("D", "i", "s", "c", "o", "u", "n", "t")
        await settle(pilot)
        await pilot.press("enter")  # opens the session; the tree is back, with the focus
        await settle(pilot)
        assert b.session_path != first and b.session_path.endswith(b.session_list.current.key.rsplit("/", 1)[-1])
        assert tree.display and not sidebar.display and b.focused is b.branch_tree
        assert _panels(app) == (0, 19, 60)
        await pilot.press("b", "x", "escape")  # the sessions, a letter typed and cleared
        await settle(pilot)
        assert sidebar.display and b.focused is b.session_list and b.session_list.filter_text == ""
        await pilot.press("escape")  # and Escape again: the tree is back
        await settle(pilot)
        assert tree.display and not sidebar.display and b.focused is b.branch_tree


async def test_the_layout_is_kept_per_size_class(make_app, settle, demo_root):
    # hiding the sidebar in a narrow split leaves it shown in a later wide window, and back
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b", "minus")  # hidden, the tree narrower, at 160 columns
        await settle(pilot)
        wide = _panels(app)
        assert wide[0] == 0
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert _panels(app) == (0, 19, 60)  # the narrow defaults
        await pilot.press("plus")
        await settle(pilot)
        assert _panels(app) == (0, 23, 56)
        await pilot.resize_terminal(*SIZE)
        await settle(pilot)
        assert _panels(app) == wide
        await pilot.press("b")
        await settle(pilot)
        assert _panels(app)[0] == 35
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert _panels(app) == (0, 23, 56)  # (the narrow class's own)
    assert _saved("narrow")["sidebar_hidden"] is True and _saved("narrow")["tree_share"] is not None
    assert _saved("wide")["sidebar_hidden"] is False and _saved("wide")["tree_share"] is not None


async def test_the_focused_panel_has_a_heavy_border(make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = app.screen
        panels = {"tree": b.query_one("#tree"), "session-list": b.query_one("#sidebar"),
                  "pane": b.query_one("#right")}
        assert b.focused.id == "tree"  # focus starts in the tree
        for _ in range(3):
            for name, panel in panels.items():
                kind = panel.styles.border_top[0]
                assert kind == ("heavy" if b.focused.id == name else "round"), (b.focused.id, name, kind)
            await pilot.press("tab")
            await settle(pilot)


async def test_b_hides_and_shows_the_sidebar_from_the_tree_and_the_pane(make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = _panels(app)
        for where in ("#tree", "#pane"):
            await _focus(pilot, where)
            await pilot.press("b")
            await settle(pilot)
            hidden = _panels(app)
            assert hidden[0] == 0 and hidden[2] > shown[2] and sum(hidden) == SIZE[0] - 1  # (one gap left)
            assert _saved()["sidebar_hidden"] is True
            assert app.screen.focused.id == where[1:]
            await pilot.press("b")
            await settle(pilot)
            assert _panels(app) == shown
            assert _saved()["sidebar_hidden"] is False
        await _focus(pilot, "#session-list")  # (there "b" is text for the filter)
        await pilot.press("b")
        await settle(pilot)
        assert _panels(app) == shown and app.screen.query_one("#session-list").filter_text == "b"


async def test_tab_skips_a_hidden_sidebar(make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        visited = set()
        for _ in range(6):
            await pilot.press("tab")
            visited.add(app.screen.focused.id)
        assert "session-list" in visited
        await pilot.press("b")
        await settle(pilot)
        visited = set()
        for _ in range(6):
            await pilot.press("tab")
            visited.add(app.screen.focused.id)
        assert visited == {"tree", "pane"}


async def test_keys_resize_the_sidebar_and_the_tree_and_0_resets(make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        side, tree, pane = start = _panels(app)
        await pilot.press("greater_than_sign")
        await settle(pilot)
        assert _panels(app)[0] == side + 4
        await pilot.press("less_than_sign", "less_than_sign")
        await settle(pilot)
        assert _panels(app)[0] == side - 4
        assert int(_saved()["sidebar_width"] * SIZE[0] / 100) == side - 4
        side, tree, pane = _panels(app)
        await _focus(pilot, "#pane")
        await pilot.press("plus", "plus")
        await settle(pilot)
        assert _panels(app) == (side, tree + 8, pane - 8)
        await pilot.press("minus", "minus", "minus", "minus", "minus")
        await settle(pilot)
        assert _panels(app) == (side, tree - 12, pane + 12)
        await pilot.press("0")
        await settle(pilot)
        assert _panels(app) == start
        assert _saved() == {"sidebar_hidden": False, "sidebar_width": None, "tree_share": None}
        assert _saved("narrow") == {"sidebar_hidden": True, "sidebar_width": None, "tree_share": None}


def _presses_past(cells: int) -> int:
    """Presses of a width key (4 cells each) that take a panel ``cells`` wide to the
    least width, 12, and one more (at the bound, which it must not pass)."""
    return -(-(cells - 12) // 4) + 1


@pytest.mark.slow
async def test_a_panel_is_never_made_narrower_than_12(make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*["less_than_sign"] * _presses_past(_panels(app)[0]))
        await settle(pilot)
        await pilot.press(*["minus"] * _presses_past(_panels(app)[1]))
        await settle(pilot)
        side, tree, pane = _panels(app)
        assert side == 12 and 12 <= tree <= 16
        await pilot.press(*["plus"] * _presses_past(pane))
        await settle(pilot)
        side, tree, pane = _panels(app)
        assert 12 <= pane <= 16


async def test_the_sidebar_width_keys_change_nothing_while_it_is_hidden(make_app, settle, demo_root, notes):
    """``<`` and ``>`` with the sidebar hidden say so, and neither change nor save its
    width: shown again, it is as wide as before."""
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("greater_than_sign")  # a width chosen and saved first
        await settle(pilot)
        chosen = _saved()["sidebar_width"]
        shown = _panels(app)
        await pilot.press("b")
        await settle(pilot)
        hidden = _panels(app)
        await pilot.press("greater_than_sign", "greater_than_sign", "less_than_sign")
        await settle(pilot)
        assert notes.count("The sidebar is hidden (b shows it)") == 3
        assert _panels(app) == hidden
        assert _saved() == {"sidebar_hidden": True, "sidebar_width": chosen, "tree_share": None}
        await pilot.press("b")
        await settle(pilot)
        assert _panels(app) == shown


async def test_dragging_a_gap_resizes_the_panels_and_is_remembered(make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert await pilot.mouse_down("#sidebar-splitter")
        await pilot.hover(None, offset=(45, 10))
        await pilot.hover(None, offset=(50, 12))
        await settle(pilot)
        assert _panels(app)[0] == 50  # (follows the pointer while dragged)
        assert not settings_file.settings_path().exists()  # (saved once, when the drag ends)
        await pilot.mouse_up(None, offset=(50, 12))
        await settle(pilot)
        assert _panels(app)[0] == 50
        assert int(_saved()["sidebar_width"] * SIZE[0] / 100) == 50
        # the gap between the tree and the pane: the tree ends where it is dropped
        assert await pilot.mouse_down("#tree-splitter")
        await pilot.hover(None, offset=(100, 20))
        await pilot.mouse_up(None, offset=(100, 20))
        await settle(pilot)
        side, tree, pane = _panels(app)
        assert (side, tree) == (50, 100 - 51) and screen.query_one("#tree-splitter").region.x == 100
        assert int(_saved()["tree_share"] * (SIZE[0] - 52) / 100) == 49


async def test_a_gap_shows_its_line_under_the_mouse_and_while_dragged_only(make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        gap = app.screen.query_one("#sidebar-splitter")

        def drawn() -> list[str]:  # the gap's column, row by row, as drawn now
            return ["".join(seg.text for seg in gap.render_line(y)) for y in range(gap.size.height)]

        assert set(drawn()) == {" "}  # at rest: the panels' borders show where they meet
        await pilot.hover("#sidebar-splitter")
        await settle(pilot)
        assert set(drawn()) == {"┃"}
        await pilot.hover("#tree")
        await settle(pilot)
        assert set(drawn()) == {" "}
        assert await pilot.mouse_down("#sidebar-splitter")
        await pilot.hover(None, offset=(45, 10))  # (dragged away from it: still drawn)
        await settle(pilot)
        assert set(drawn()) == {"┃"}
        await pilot.mouse_up(None, offset=(45, 10))
        await pilot.hover("#tree")
        await settle(pilot)
        assert set(drawn()) == {" "}


async def test_the_layout_is_remembered_across_runs(make_app, settle, demo_root):
    first = make_app(demo_root, demo=True)
    async with first.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("greater_than_sign", "greater_than_sign", "plus", "b")
        await settle(pilot)
        hidden = _panels(first)
        await pilot.press("b")
        await settle(pilot)
        shown = _panels(first)
        await pilot.press("b")
        await settle(pilot)
    second = make_app(demo_root, demo=True)
    async with second.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert _panels(second) == hidden
        await pilot.press("b")
        await settle(pilot)
        assert _panels(second) == shown
    # at another size the widths are the same shares of it
    third = make_app(demo_root, demo=True)
    async with third.run_test(size=(200, 45)) as pilot:
        await settle(pilot)
        assert abs(_panels(third)[0] - shown[0] * 200 / SIZE[0]) < 1


@pytest.mark.parametrize("content", [
    b"{ not json",
    b'{"sidebar_hidden": "yes", "sidebar_width": "wide", "tree_share": -1e999}',
    b"\x00" * 100,
])
async def test_a_damaged_settings_file_does_not_stop_the_app(make_app, settle, demo_root, content):
    f = settings_file.settings_path()
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(content)
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert _panels(app) == (35, 53, 70)  # the defaults
        await pilot.press("b")
        await settle(pilot)
        assert _panels(app)[0] == 0
        assert settings_file.load() == settings_file.Settings(wide=settings_file.Layout(sidebar_hidden=True))


async def test_a_settings_folder_that_cannot_be_used_is_said_once(make_app, settle, demo_root, notes, monkeypatch,
                                                                 tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("PITUI_CONFIG_DIR", str(blocker))
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        await pilot.pause(app.NOTICE_SECONDS + 0.2)
        assert _panels(app)[0] == 0  # (hidden all the same)
        said = [n for n in notes if "settings not saved" in n]
        assert len(said) == 1 and str(blocker) in said[0]


async def test_a_zoomed_panel_takes_the_screen_whatever_width_was_chosen(make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("greater_than_sign", "plus", "plus")
        await settle(pilot)
        chosen = _panels(app)
        for where in ("#tree", "#session-list", "#pane"):
            await _focus(pilot, where)
            # (z types into the sidebar's filter: there the zoom is the palette's, the same action)
            async def zoom(where=where):
                if where == "#session-list":
                    app.screen.action_zoom()
                else:
                    await pilot.press("z")

            await zoom()
            await settle(pilot)
            zoomed = app.screen.maximized
            assert zoomed is not None and zoomed.outer_size.width == SIZE[0]
            if where != "#session-list":
                await pilot.press("plus")  # (the width keys wait while zoomed)
            await zoom()
            await settle(pilot)
            assert _panels(app) == chosen
