"""Drawing ahead: while the user reads, the app draws what the next moves would show (the
pane's blocks at the fork, user-message, root, leaf, page and sibling-branch targets, the
tree's rows around them), into the caches only. The next such key then finds a long reply
drawn: no "drawing this entry" placeholder, no second frame. Input stops the drawing ahead; a key
that needs a block being drawn ahead right then waits for that drawing, not a second one.

Speed itself is never asserted here (benchmarks/app_open.py measures it)."""

from __future__ import annotations

import threading

import pytest

from pitui.ui.widgets import branch_tree as tree_view
from pitui.ui.browser.screen import BrowserScreen
from pitui.ui.lookahead import look_ahead
from pitui.ui.pane import scroller

from helpers import assistant, user, write

SIZE = (120, 40)
PLACEHOLDER = "drawing this entry"


def long_reply(k: int) -> str:
    """Markdown well over the pane's ASYNC_BYTES (drawn on a worker when not drawn ahead)."""
    parts = [f"## Plan {k}", ""]
    for j in range(16):
        parts += [f"Step {j} of plan {k}: " + "the quick brown fox jumps over the lazy dog " * 6, ""]
    parts += ["```python"] + [f"def f{j}(x):\n    return x + {j}" for j in range(20)] + ["```", ""]
    parts += ["| a | b |", "|---|---|"] + [f"| {j} | {j * j} |" for j in range(10)]
    return "\n".join(parts)


@pytest.fixture
def forked(tmp_path):
    """u0 -> a0 (a long reply, the only fork) -> [u1a -> a1a] and [u1b -> a1b -> ... -> the
    leaf] (30 questions and answers: a0 is far above the first screen, in the tree and the pane)."""
    objs = [user("u0", None, 0, "start"), assistant("a0", "u0", 1, long_reply(0)),
            user("u1a", "a0", 2, "the other way"), assistant("a1a", "u1a", 3, "short")]
    parent, n = "a0", 4
    for k in range(1, 31):
        objs.append(user(f"u{k}b", parent, n, f"question {k}"))
        objs.append(assistant(f"a{k}b", f"u{k}b", n + 1, "\n\n".join(f"answer {k} line {j}" for j in range(8))))
        parent, n = f"a{k}b", n + 2
    return write(tmp_path / "forked.jsonl", objs)


@pytest.fixture
def ahead_app(make_app, monkeypatch, forked):
    """The app as shipped: long replies drawn on a worker, drawing ahead after a short quiet."""
    monkeypatch.setattr(scroller.BlockScroller, "ASYNC_BYTES", 4096)
    monkeypatch.setattr(BrowserScreen, "LOOKAHEAD_SECONDS", 0.05)

    def make(**kwargs):
        return make_app(forked, **kwargs)

    return make


class KeyDraws:
    """What the pane draws for a key itself: on the UI thread, or on a worker behind a
    placeholder (the drawing ahead that follows on its own thread is not counted)."""

    # private: which thread drew a block, and when, is the speed trick under test and shows
    # nowhere on screen; the pane's draw functions are wrapped to see it (GatedDraws too)
    def __init__(self, pane) -> None:
        self.drawn: list = []
        real_draw, real_later = pane._draw, pane.worker_drawing.render_later

        def draw(item, ctx, width):
            if threading.current_thread() is threading.main_thread():
                self.drawn.append(("here", item[1].key))
            return real_draw(item, ctx, width)

        def later(b, key):
            self.drawn.append(("worker", key[0]))
            return real_later(b, key)

        pane._draw, pane.worker_drawing.render_later = draw, later


class GatedDraws:
    """Drawings on worker threads, recorded; those ``hold`` picks wait for ``gate``."""

    def __init__(self, pane, hold) -> None:
        self.gate, self.entered = threading.Event(), threading.Event()
        self.drawn: list = []
        real = pane._draw

        def draw(item, ctx, width):
            if threading.current_thread() is not threading.main_thread():
                self.drawn.append(item[1].key)
                if hold(item):
                    self.entered.set()
                    self.gate.wait(5)
            return real(item, ctx, width)

        pane._draw = draw

    async def held(self, pilot) -> None:
        for _ in range(100):
            if self.entered.is_set():
                break
            await pilot.pause(0.02)
        assert self.entered.is_set()


def pane_text(pane) -> str:
    return "\n".join(pane.render_line(y).text for y in range(pane.scrollable_content_region.height))


def screen_shot(app) -> str:
    return app.export_screenshot()


def start_drawing_ahead(app) -> None:
    """What the browser does after a quiet moment."""
    look_ahead(app.browser, app.last_input_at)


def block_key(pane, entry: int):
    # private: the block's key is how the wrapped draw functions name what they drew
    return pane._block_key(pane.block_of(entry))


async def quiet(pilot, settle, seconds: float = 0.15) -> None:
    """No input for ``seconds`` (the drawing ahead starts), then every worker done."""
    await pilot.pause(seconds)
    await settle(pilot)


async def test_a_fork_key_finds_the_long_reply_drawn(ahead_app, settle):
    app = ahead_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = app.browser
        tree, pane, s = b.branch_tree, b.pane, b.session
        a0 = s.index_of["a0"]
        assert s.lengths[a0] > scroller.BlockScroller.ASYNC_BYTES
        assert pane.block_of(a0) not in pane.blocks_from(pane.block_of(pane.entry_at_top()))
        await quiet(pilot, settle)
        draws = KeyDraws(pane)
        await pilot.press("left_curly_bracket")
        assert tree.selected_entry == a0
        assert draws.drawn == []  # every block it shows was drawn ahead
        text = pane_text(pane)
        assert "Plan 0" in text and PLACEHOLDER not in text
        # the tree's rows around the fork were summarised ahead (none made on this key)
        assert all(tree.summarised(tree.tree_layout.rows[k].entry) for k in tree.rows_for(a0))


async def test_without_drawing_ahead_the_same_key_waits_for_a_worker(ahead_app, settle, monkeypatch):
    monkeypatch.setattr(BrowserScreen, "LOOKAHEAD_SECONDS", None)
    app = ahead_app()
    async with app.run_test(size=SIZE) as pilot:
        await quiet(pilot, settle)
        b = app.browser
        pane = b.pane
        a0_key = block_key(pane, b.session.index_of["a0"])
        draws = KeyDraws(pane)
        await pilot.press("left_curly_bracket")
        # the long reply is drawn on a worker, a placeholder meanwhile (the test fails
        # if drawing ahead were not what made the difference above)
        assert ("worker", a0_key) in draws.drawn
        await settle(pilot)
        text = pane_text(pane)
        assert "Plan 0" in text and PLACEHOLDER not in text


async def test_drawing_ahead_changes_nothing_on_screen(ahead_app, settle, monkeypatch):
    monkeypatch.setattr(BrowserScreen, "LOOKAHEAD_SECONDS", None)  # started by the test
    app = ahead_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = app.browser
        pane, tree = b.pane, b.branch_tree
        entries = range(len(b.session))
        before = (screen_shot(app), pane.scroll_y, pane.virtual_size, tree.scroll_y, tree.cursor_row)
        cached, summarised = pane.drawn_count, sum(map(tree.summarised, entries))
        start_drawing_ahead(app)
        await settle(pilot)
        assert pane.drawn_count > cached  # it drew blocks that are not on screen
        assert sum(map(tree.summarised, entries)) > summarised  # and summarised rows that are not
        assert (screen_shot(app), pane.scroll_y, pane.virtual_size, tree.scroll_y, tree.cursor_row) == before


async def test_the_targets_of_every_key_are_drawn(ahead_app, settle):
    """Each key's target on the branch shown (a page down from the root goes to the other
    branch's last row: a page to another branch is not drawn ahead)."""
    app = ahead_app()
    async with app.run_test(size=SIZE) as pilot:
        await quiet(pilot, settle)
        b = app.browser
        pane = b.pane
        draws = KeyDraws(pane)
        for key in ("left_curly_bracket", "G", "u", "g", "G", "pageup"):
            await quiet(pilot, settle)
            sel = b.branch_tree.selected_entry
            await pilot.press(key)
            assert b.branch_tree.selected_entry != sel or key == "G", key
            assert draws.drawn == [], key


async def test_input_stops_the_drawing_ahead(ahead_app, settle, monkeypatch):
    monkeypatch.setattr(BrowserScreen, "LOOKAHEAD_SECONDS", None)  # started by the test
    app = ahead_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = app.browser
        pane = b.pane
        draws = GatedDraws(pane, lambda item: True)  # (the first block waits for the key)
        since = app.last_input_at
        queued = pane.draw_ahead(range(pane.block_count), lambda: app.last_input_at != since)
        assert queued > 2
        await draws.held(pilot)
        await pilot.press("k")  # input: the blocks not started yet are left
        draws.gate.set()
        await settle(pilot)
        assert len(draws.drawn) == 1


async def test_a_key_waits_for_the_block_being_drawn_ahead_not_a_second_drawing(ahead_app, settle, monkeypatch):
    monkeypatch.setattr(BrowserScreen, "LOOKAHEAD_SECONDS", None)  # started by the test
    app = ahead_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = app.browser
        pane, s = b.pane, b.session
        a0_key = block_key(pane, s.index_of["a0"])
        draws = GatedDraws(pane, lambda item: item[1].key == a0_key)
        start_drawing_ahead(app)
        await draws.held(pilot)  # the long reply is being drawn ahead right now
        await pilot.press("left_curly_bracket")
        assert PLACEHOLDER in pane_text(pane)  # waited for, not drawn a second time
        assert not pane.drawing
        draws.gate.set()
        await settle(pilot)
        assert draws.drawn.count(a0_key) == 1
        text = pane_text(pane)
        assert "Plan 0" in text and PLACEHOLDER not in text
        assert not pane.worker_drawing.placeheld  # private: no block left marked as a placeholder shown


async def test_summaries_made_ahead_are_dropped_when_the_tree_forgot_them(ahead_app, settle):
    """A summary made ahead from before the entry's line was found damaged is not kept."""
    app = ahead_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.browser.branch_tree
        e = tree.tree_layout.rows[0].entry
        # private: a worker's summaries arriving after the tree forgot them is a race no
        # key can time; the worker's hand-off (_summarised, its generation) is called here
        made = tree_view._summary(tree.session, e)
        gen = tree._summaries_gen
        tree.forget_summaries([e])
        tree._summarised(tree.session, gen, {e: made})
        assert not tree.summarised(e)
        tree._summarised(tree.session, tree._summaries_gen, {e: made})
        assert tree.summarised(e) and tree.summary(e) is made


async def test_a_full_collection_due_soon_is_done_while_the_user_reads(ahead_app, settle, monkeypatch):
    import gc

    monkeypatch.setattr(BrowserScreen, "LOOKAHEAD_SECONDS", None)  # started by the test
    app = ahead_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        collected: list[tuple] = []
        from pitui.core.gc_policy import FULL_EVERY as every
        with monkeypatch.context() as m:
            m.setattr(gc, "collect", lambda *a: collected.append(a) or 0)
            m.setattr(gc, "get_count", lambda: (0, 0, every // 2 - 1))
            start_drawing_ahead(app)
            assert collected == []  # not due yet
            m.setattr(gc, "get_count", lambda: (0, 0, every // 2))
            start_drawing_ahead(app)
            assert collected == [()]  # a full collection, now
        await settle(pilot)


async def test_a_sibling_branch_is_drawn_ahead_too(ahead_app, settle):
    """At the fork, ] shows the other branch: its blocks were worked out and drawn on the
    drawing thread, with the block numbers and state keys the pane has once it shows it."""
    app = ahead_app()
    async with app.run_test(size=SIZE) as pilot:
        await quiet(pilot, settle)
        b = app.browser
        tree, pane, s = b.branch_tree, b.pane, b.session
        await pilot.press("left_curly_bracket")
        assert tree.selected_entry == s.index_of["a0"]
        await quiet(pilot, settle)
        draws = KeyDraws(pane)
        await pilot.press("right_square_bracket")  # (the branch shown is the fork's first)
        assert tree.selected_entry == s.index_of["u1a"]
        assert pane.branch[-1] == s.index_of["a1a"]  # the other branch is shown
        assert draws.drawn == []  # every block it shows was drawn ahead
        assert "the other way" in pane_text(pane)
