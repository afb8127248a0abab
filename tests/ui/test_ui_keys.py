"""What makes a key answer in one frame: the pane follows the tree in the same call (no
message round trip), tree rows are drawn once while they look the same, layouts are kept
per filter (and the next filter's is made ahead), the tree's scrollbar stays for a session
that needs it, and highlighted code replaces plain code from a worker thread.

Speed itself is never asserted here (benchmarks/app_open.py measures it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assistant_msg, call, header, pane_app, result_msg, user, workers_done, write
from helpers import message_entry as msg
from pitui.core.read.session import Session
from pitui.core.model.layout import FILTERS, layout_tree
from pitui.ui.widgets import branch_tree as tree_view
from pitui.ui.app import PituiApp
from pitui.ui.browser.screen import BrowserScreen

SRV_APP = "--srv-app--/2026-07-26T22-53-28-020Z_019fa0a1-52c6-7764-9ff2-3d86c310d892.jsonl"
SIZE = (160, 45)


@pytest.fixture
def srv_app_file(corpus_root) -> Path:
    return corpus_root / SRV_APP


def browser(app: PituiApp) -> BrowserScreen:
    b = app.browser
    assert b is not None
    return b


def rows_of(tree) -> list[int]:
    return list(tree.tree_layout.rows.entry)


async def test_the_pane_follows_the_tree_in_the_same_frame(make_app, settle, srv_app_file, monkeypatch):
    """Every paint that shows the tree's cursor shows the pane on the branch through it:
    the tree's selection is shown by the pane before the screen's next paint, never a frame
    later; a move in the branch shown is one paint, the tree's cursor and the pane together."""
    from textual.screen import Screen

    stale: list[tuple[str, int]] = []
    alone: list[str] = []  # (keys whose tree was painted without the pane)
    real = Screen._compositor_refresh  # private: a paint of the screen has no public hook in Textual
    pressing = [""]

    def spy(self):
        if isinstance(self, BrowserScreen) and self.session is not None and pressing[0]:
            tree, pane = self.branch_tree, self.pane
            dirty = self._dirty_widgets  # private: which widgets this paint draws
            if tree in dirty and pane not in dirty and pressing[0] in ("down", "up"):
                alone.append(pressing[0])
            sel = tree.selected_entry
            if sel >= 0 and (pane.session is not self.session or sel not in pane.branch
                             or pane.branch[-1] != tree.nav.leaf_below(sel)):
                stale.append((pressing[0], sel))
        return real(self)

    monkeypatch.setattr(Screen, "_compositor_refresh", spy)
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        tree, pane = b.branch_tree, b.pane
        keys = ["down", "down", "pageup", "home", "end", "up", "right_square_bracket", "left_square_bracket",
                "g", "G", "u", "U", "left_curly_bracket", "right_curly_bracket"]
        for key in keys:
            pressing[0] = key
            await pilot.press(key)
            sel = tree.selected_entry
            leaf = tree.nav.leaf_below(sel)
            assert pane.branch == b.session.path_to(leaf), key
            # private: the screen's note of the branch shown must agree, or the next move
            # would show the same branch again (no public behaviour differs, only work)
            assert b._pane_key == (id(b.session), leaf)
            await settle(pilot)
            assert pane.branch == b.session.path_to(leaf)  # nothing later changed it
        pressing[0] = ""
        assert stale == []
        assert alone == []
        # the root: the first entry the tree shows of the branch shown (the filter may hide
        # the very first, a system prompt or a setting)
        await pilot.press("g")
        await settle(pilot)
        assert tree.selected_entry == next(x for x in pane.branch if tree.nav.shown(x))
        await pilot.press("G")
        await settle(pilot)
        assert pane.branch[-1] == tree.nav.leaf_below(tree.selected_entry)


async def test_another_branch_repaints_the_header_lines_that_change(make_app, settle, srv_app_file, monkeypatch):
    """Selecting another branch gives the header a branch to count: its usage line says
    so, while its title (the session's) reads as before and is not drawn again, nor is the
    header around its lines (a repaint of every line of the screen between them)."""
    from pitui.ui.text_fit import FitLine
    from pitui.ui.widgets.header import SessionHeader

    drawn: list[str | None] = []
    real_render = FitLine.render

    def render(self):
        drawn.append(self.id)
        return real_render(self)

    monkeypatch.setattr(FitLine, "render", render)
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        tree, header = b.branch_tree, b.header
        leaf = header.branch_leaf
        other = next(kid for fork in tree.tree_layout.forks for kid in tree.tree_layout.visible_children[fork]
                     if tree.nav.leaf_below(kid) != leaf)
        title = header.query_one("#header-title", FitLine).render().plain
        refreshed: list[bool] = []
        real_refresh = SessionHeader.refresh
        monkeypatch.setattr(SessionHeader, "refresh", lambda self, *a, **k: refreshed.append(True) or
                            real_refresh(self, *a, **k))
        drawn.clear()
        tree.select_entry(other)
        await settle(pilot)
        assert header.branch_leaf == tree.nav.leaf_below(other) != leaf
        assert "header-usage" in drawn
        assert "header-title" not in drawn
        assert header.query_one("#header-title", FitLine).render().plain == title
        assert refreshed == []


async def test_tree_rows_are_drawn_once_while_they_look_the_same(make_app, settle, srv_app_file):
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = browser(app).branch_tree
        tree.move_to_row(5, center=False)
        await settle(pilot)
        top = round(tree.scroll_y)
        y = 5 - top + 3  # three rows below the cursor
        plain = tree.render_line(y)
        assert tree.render_line(y) is plain
        cursor = tree.render_line(5 - top)
        assert "›" in cursor.text
        tree.move_to_row(6, center=False)  # the old cursor row is drawn anew, without "›"
        assert "›" not in tree.render_line(5 - top).text
        assert "›" in tree.render_line(6 - top).text
        assert tree.render_line(y) is plain  # rows the move did not touch are the same
        tree.forget_summaries()
        assert tree.render_line(y) is not plain
        assert tree.render_line(y).text == plain.text


async def test_a_move_repaints_the_rows_it_changes_and_the_position_line(make_app, settle, srv_app_file,
                                                                        monkeypatch):
    """A move repaints the tree's old and new cursor rows and its bottom border line, where
    the cursor's position is shown (Textual would repaint the whole tree for a new border
    subtitle); the terminal gets the new position."""
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        tree = b.branch_tree
        tree.move_to_row(5, center=False)
        await settle(pilot)
        top = round(tree.scroll_y)
        drawn: list[int] = []
        real_line = tree.render_line

        def render_line(y):
            drawn.append(y)
            return real_line(y)

        # private: what reaches the terminal has no public hook in Textual
        sent: list = []
        real_display = app._display

        def display(screen, update):
            sent.append(update)
            return real_display(screen, update)

        monkeypatch.setattr(tree, "render_line", render_line)
        monkeypatch.setattr(app, "_display", display)
        await pilot.press("j")
        await settle(pilot)
        assert tree.cursor_row == 6
        assert sorted(set(drawn)) == [5 - top, 6 - top]
        position = f"7/{tree.row_count}"
        assert tree.border_subtitle == position
        bottom = tree.region.bottom - 1
        lines = []
        for update in sent:
            chops = getattr(update, "chops", None)
            if chops is not None and bottom < len(chops):
                lines.append("".join(strip.text for strip in chops[bottom].values() if strip is not None))
        assert any(position in line for line in lines)


async def test_full_garbage_collections_are_rare_once_the_app_runs(make_app, settle, srv_app_file):
    """A full collection walks everything the app made since it froze what it had (20-50
    ms in a big session); at Python's default one came every few keys. The app makes
    them ten times rarer (the younger generations are collected as usual)."""
    import gc

    from pitui.core import gc_policy

    before = gc.get_threshold()
    try:
        app = make_app(srv_app_file)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert gc.get_threshold() == (before[0], before[1], gc_policy.FULL_EVERY)
            assert gc_policy.FULL_EVERY >= 100  # (Python's default: 10)
    finally:
        gc.set_threshold(*before)


async def test_filter_layouts_are_kept_and_the_next_made_ahead(make_app, settle, srv_app_file, monkeypatch):
    monkeypatch.setattr(tree_view.BranchTree, "LAYOUT_IN_THREAD", 10)  # as for a big session
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        tree, s = b.branch_tree, b.session
        seen = {}
        for _ in range(len(FILTERS)):
            await pilot.press("f")
            await settle(pilot)
            assert rows_of(tree) == list(layout_tree(s, tree.mode).rows.entry), tree.mode
            seen[tree.mode] = tree.tree_layout
            nxt = FILTERS[(FILTERS.index(tree.mode) + 1) % len(FILTERS)]
            assert (nxt, frozenset()) in tree.kept_layouts()  # made ahead
        assert tree.mode == "default"
        for _ in range(len(FILTERS)):  # the second time round: each shown at once
            b.action_cycle_filter()
            assert not tree.laying_out
            assert tree.tree_layout is seen[tree.mode]
            assert rows_of(tree) == list(layout_tree(s, tree.mode).rows.entry)
            await settle(pilot)
        # folds are part of the key: a fold lays out again, and the selection stays
        fork = next(r.entry for r in tree.tree_layout.rows if r.foldable)
        tree.select_entry(fork)
        tree.action_toggle_fold()
        await settle(pilot)
        assert rows_of(tree) == list(layout_tree(s, tree.mode, frozenset({fork})).rows.entry)
        assert tree.selected_entry == fork
        assert all(k[1] == frozenset({fork}) for k in tree.kept_layouts())


async def test_the_next_filter_is_laid_out_a_moment_after_a_big_session_is_shown(
        make_app, settle, srv_app_file, monkeypatch):
    monkeypatch.setattr(tree_view.BranchTree, "LAYOUT_IN_THREAD", 10)
    monkeypatch.setattr(tree_view.BranchTree, "NEXT_FILTER_DELAY", 0.05)
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = browser(app).branch_tree
        for _ in range(40):
            if ("no-tools", frozenset()) in tree.kept_layouts():
                break
            await pilot.pause(0.05)
            await settle(pilot)
        got = tree.kept_layouts().get(("no-tools", frozenset()))
        assert got is not None
        assert list(got.rows.entry) == list(layout_tree(tree.session, "no-tools").rows.entry)
        browser(app).action_cycle_filter()  # shown at once
        assert not tree.laying_out and tree.tree_layout is got


async def test_a_layout_overtaken_by_another_filter_is_not_shown(make_app, settle, srv_app_file, monkeypatch):
    monkeypatch.setattr(tree_view.BranchTree, "LAYOUT_IN_THREAD", 10)
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        tree, s = b.branch_tree, b.session
        tree.action_cursor_up()  # the user's choice: kept through filters that hide it
        sel = tree.selected_entry
        b.action_cycle_filter()  # no-tools, in a thread
        b.action_cycle_filter()  # user-only, before no-tools is shown
        b.action_cycle_filter()  # labeled-only
        await settle(pilot)
        assert tree.mode == "labeled-only"
        assert rows_of(tree) == list(layout_tree(s, "labeled-only").rows.entry)
        b.set_filter("default")
        await settle(pilot)
        assert rows_of(tree) == list(layout_tree(s, "default").rows.entry)
        assert tree.selected_entry == sel


async def test_the_tree_scrollbar_stays_for_a_session_that_needs_it(make_app, settle, srv_app_file, monkeypatch):
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        tree = b.branch_tree
        assert tree.row_count > tree.container_size.height
        assert tree.show_vertical_scrollbar
        b.set_filter("user-only")  # fewer rows than the view
        await settle(pilot)
        assert tree.row_count <= tree.container_size.height
        assert tree.show_vertical_scrollbar  # kept: no layout of the screen, no jump in width
        b.set_filter("default")
        await settle(pilot)
        assert tree.show_vertical_scrollbar
        # another session that fits: no scrollbar
        small = Session.open(str(srv_app_file))
        small_layout = layout_tree(small, "labeled-only")
        tree.mode = "labeled-only"
        await settle(pilot)
        tree.set_session(small, small_layout)
        await settle(pilot)
        assert tree.row_count <= tree.container_size.height
        assert not tree.show_vertical_scrollbar


async def test_a_filter_change_does_not_lay_out_the_screen(make_app, settle, srv_app_file, monkeypatch):
    """The tree's rows are as wide as the room beside its scrollbar, whoever sets them (a
    resize or a new layout of rows): the first filter change once found them a column
    wider than the resize had made them and laid out the whole screen for it (a second
    frame for the scrollbars). The tree never scrolls sideways."""
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        tree = b.branch_tree
        assert tree.show_vertical_scrollbar
        assert tree.virtual_size.width == tree.scrollable_content_region.width
        screen = app.screen
        # private: a layout pass of the screen has no public hook in Textual
        layouts = []
        real = screen._refresh_layout

        def refresh_layout(*args, **kwargs):
            layouts.append(args)
            return real(*args, **kwargs)

        monkeypatch.setattr(screen, "_refresh_layout", refresh_layout)
        for mode in FILTERS[1:] + FILTERS[:1]:
            await pilot.press("f")
            await settle(pilot)
            assert tree.mode == mode
            assert tree.virtual_size.height == tree.row_count
            assert tree.virtual_size.width == tree.scrollable_content_region.width
            assert tree.max_scroll_x == 0
        assert layouts == []


async def test_highlighted_code_replaces_plain_code_from_a_worker(tmp_path):
    """Code drawn plain while its lexer is made is drawn again, highlighted, on a worker
    thread when the lexer is ready; the plain drawing stays on screen until then."""
    import threading

    from pitui.ui.pane import MessagePane

    code = "\n".join(f"actor A{k}\n  be go() => None" for k in range(4))

    entries = [
        user("u", None, 0, "read it"),
        msg("a", "u", 1, assistant_msg(call("c1", "read", path="src/actor.pony"), stop="toolUse", provider="p",
                                       model="m", usage={})),
        msg("r", "a", 2, result_msg("c1", "read", code)),
    ]
    path = tmp_path / "s.jsonl"
    s = Session.open(write(path, entries, header=header("lex", "/h")))

    draws: list[bool] = []  # on the UI thread?
    seen_at_done: list[bool] = []
    app = pane_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        pane = app.query_one(MessagePane)
        pane.async_bytes = MessagePane.ASYNC_BYTES  # as in the app
        pane.show_leaf(s, 2, 0)
        b = pane.block_of(1)

        def code_on_screen():
            strips = [pane.render_line(y) for y in range(pane.scrollable_content_region.height)]
            return [strip for strip in strips if "actor" in strip.text]

        def styles(strips):
            return {seg.style for strip in strips for seg in strip if "actor" in seg.text}

        first = code_on_screen()
        assert len(first) == 4
        # private: which lexer a draw waits for, which thread draws a block and the moment
        # a worker's drawing is handed over show nowhere; the pane's functions are wrapped
        assert pane._rendered(b).pending_lexers == {("file", "src/actor.pony")}
        drawing = pane.worker_drawing
        real_draw, real_done = pane._draw, drawing.render_done

        def draw(*a, **k):
            draws.append(threading.current_thread() is threading.main_thread())
            return real_draw(*a, **k)

        def done(b_, key, r, *rest):
            seen_at_done.append(styles(code_on_screen()) == styles(first))  # plain until this moment
            return real_done(b_, key, r, *rest)

        pane._draw, drawing.render_done = draw, done
        for _ in range(100):
            await workers_done(app)
            await pilot.pause(0.02)
            if not drawing.provisional and not pane.drawing:
                break
        assert not pane._rendered(b).pending_lexers
        again = code_on_screen()
        assert styles(again) != styles(first)  # highlighted now
        assert draws == [False]  # drawn again once, on a worker
        assert seen_at_done == [True]
        assert [x.text for x in again] == [x.text for x in first]
