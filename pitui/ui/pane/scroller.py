"""A line-API ScrollView over blocks that are laid out lazily.

Every block has a height: an estimate until it is rendered, then its real height. Only
blocks that come into view are rendered; their Strips are cached by (block, width,
toggle state). When a block's real height differs from its estimate the view stays put:
the first block on screen that was already measured keeps its place on screen.

A relayout (another width, a toggle) costs O(blocks) only in C: the estimates come as one
array from ``_base_heights`` and only the blocks drawn before (``_known``) are looked up
in the height cache in Python.
"""

from __future__ import annotations

import io
import re
import threading
from array import array
from collections import OrderedDict
from typing import Any, Callable, Hashable, Iterable

from rich.console import Console
from rich.segment import Segment
from textual import events
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer
from textual.worker import get_current_worker

from ..textual_internals import set_virtual_size_quietly
from .heights import Heights
from .palette import DEFAULT_PALETTE, Palette, palette_from_variables
from .render import (DEP_OUTPUT, DEP_THINKING, UNCAP, DrawStopped, Out, RenderCtx, Rendered, lexer_ready,
                     prepare_lexers)
from ..bindings import bindings_for

__all__ = ["BlockScroller"]


class _RenderCache(OrderedDict):
    """Rendered blocks by state key, least recently used first, bounded by blocks and
    by lines; the last _RENDER_KEEP blocks used always stay (whatever is on screen)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines = 0

    def put(self, key: tuple, r: Rendered) -> None:
        old = super().pop(key, None)
        if old is not None:
            self.lines -= old.height
        self[key] = r
        self.lines += r.height
        while len(self) > _RENDER_KEEP and (len(self) > _RENDER_CACHE or self.lines > _RENDER_CACHE_LINES):
            _, gone = self.popitem(last=False)
            self.lines -= gone.height

    def pop(self, key, default=None):
        got = super().pop(key, default)
        if got is not default and got is not None:
            self.lines -= got.height
        return got

    def clear(self) -> None:
        super().clear()
        self.lines = 0

_console_local = threading.local()


def _private_console() -> Console:
    """A console for drawing on a worker thread (one per thread), set up as Textual's."""
    c = getattr(_console_local, "console", None)
    if c is None:
        c = Console(file=io.StringIO(), color_system="truecolor", force_terminal=True, legacy_windows=False,
                    emoji=False, highlight=False, markup=False, width=200, soft_wrap=False, safe_box=False)
        _console_local.console = c
    return c

_ALL_DEPS = DEP_THINKING | DEP_OUTPUT
_RENDER_CACHE = 400  # rendered blocks kept
# ... and lines: a Strip is ~30 objects the garbage collector walks on every full
# collection (and a full output may be thousands of lines)
_RENDER_CACHE_LINES = 4000
_RENDER_KEEP = 128  # more blocks than a screen can show
LEXER_DELAY = 0.15  # seconds of quiet before lexers wanted by plain-drawn code are made
_EMPTY: frozenset = frozenset()
_OUTPUT_FOLDS = frozenset({"out", "diff", "cmd", "content", "args", "json"})


class BlockScroller(ScrollView, can_focus=True):
    """Base for the message pane and the context view. Subclasses provide the blocks."""

    DEFAULT_CSS = """
    BlockScroller {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
    }
    """

    # t / o / h are the app's (it toggles the reactives below); the context view binds its own.
    BINDINGS = bindings_for("pane")

    #: Blocks with more Markdown than this are drawn on a worker thread. Rich draws ~150
    #: bytes of Markdown a millisecond on a slow machine (a 7.8 KB reply took 40-60 ms), so
    #: past ~4 KB a draw on the UI thread would hold a key press beyond 50 ms.
    ASYNC_BYTES: int | None = 4_096

    show_thinking: reactive[bool] = reactive(False)
    full_tool_output: reactive[bool] = reactive(False)
    show_hidden: reactive[bool] = reactive(False)

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None):
        super().__init__(name=name, id=id, classes=classes)
        self._blocks: list[Any] = []
        self._heights = Heights()
        self._measured = bytearray()
        self._known: set[int] = set()  # blocks drawn at some time (their heights may be cached)
        self._width = 0
        self._settling = False
        self._rcache = _RenderCache()
        self._hcache: dict[tuple, int] = {}
        self._deps: dict[Hashable, int] = {}
        self._inverted: dict[Hashable, frozenset] = {}
        self._palette: Palette | None = None
        self._bg: str | None | bool = False  # the widget's background, once known
        self._query: re.Pattern | None = None
        self._query_text = ""
        self._hit_counts: dict[int, int] = {}
        self._hits: list[tuple[int, int]] = []  # (block, k-th hit in the block)
        self._hit_pos = -1
        self._match_cache: OrderedDict[tuple, list] = OrderedDict()
        self._pending_scroll: tuple | None = None
        self.render_count = 0  # blocks rendered (for tests and benchmarks)
        self._frame_style: Any = None  # the widget's Rich style while a frame is drawn
        self._pending: set[tuple] = set()  # state keys being drawn on a worker thread
        # state keys of blocks drawn whole (UNCAP) on a worker -> set to give that drawing up
        self._stops: dict[tuple, threading.Event] = {}
        self._held: tuple[tuple, Rendered] | None = None  # the last of _drawn_capped
        self._placeheld: dict[int, tuple] = {}  # block -> state key shown as a placeholder
        self._ahead_current: tuple | None = None  # the key the drawing-ahead thread draws now
        self._provisional: dict[tuple, frozenset] = {}  # state key -> lexers its code waits for
        self._lexers_asked: set = set()  # lexers asked for (see _await_lexers)
        self._lexers_wanted: set = set()  # ... and not yet given to a worker
        self._lexer_timer: Timer | None = None
        self._generation = 0  # bumped when what the blocks mean changes (another session)
        # Blocks with more Markdown than this are drawn on a worker thread (None: never).
        self.async_bytes: int | None = self.ASYNC_BYTES

    # ------------------------------------------------------------------ subclass hooks
    def _block_key(self, b: int) -> Hashable:
        raise NotImplementedError

    def _estimate(self, b: int, width: int) -> int:
        return 3

    def _base_heights(self, width: int) -> array:
        """Every block's estimated height (at least 1) for ``width`` and the toggles, as a
        new array (the layout takes it over). Subclasses with many blocks do this in bulk."""
        est = self._estimate
        return array("q", [max(1, est(b, width)) for b in range(len(self._blocks))])

    def _block_item(self, b: int) -> Any:
        """Everything needed to draw block ``b``, taken on the main thread (drawing may
        happen on a worker thread while the pane moves on)."""
        return b

    def _draw_item(self, item: Any, out: Out) -> None:
        raise NotImplementedError

    def _block_cost(self, b: int) -> int:
        """Roughly how slow block ``b`` is to draw (bytes of Markdown); see ``async_bytes``."""
        return 0

    def _resolve_artifact(self, path: str) -> str | None:
        return None

    # ------------------------------------------------------------------ state keys
    @property
    def palette(self) -> Palette:
        if self._palette is None:
            try:
                app = self.app
                self._palette = palette_from_variables(app.get_css_variables(), app.theme, app.current_theme.dark)
            except Exception:
                self._palette = DEFAULT_PALETTE
        return self._palette

    def _state_key(self, b: int, common: tuple | None = None) -> tuple:
        """What block ``b`` looks like depends on: the block, the width, theme and session,
        the toggles it uses, the folds the user flipped in it, and a search hit in it."""
        if common is None:
            common = self._key_common()
        return self._key_of(self._block_key(b), common, bool(self._hit_counts.get(b)))

    def _key_of(self, bkey: Hashable, common: tuple, hit: bool = False) -> tuple:
        """:meth:`_state_key` of the block whose key is ``bkey`` (``hit``: a search hit is
        in it); also for blocks of a branch not shown yet (MessagePane.branch_ahead)."""
        width, pal, thinking, output = common
        deps = self._deps.get(bkey, _ALL_DEPS)
        return (
            bkey,
            width,
            pal,
            thinking if deps & DEP_THINKING else None,
            output if deps & DEP_OUTPUT else None,
            self._inverted.get(bkey, _EMPTY),
            self._query_text if hit else None,
        )

    def _key_common(self) -> tuple:
        return (self._width, (self.palette.name, self._generation), self.show_thinking, self.full_tool_output)

    def _ctx(self, b: int | None, text_mode: bool = False) -> RenderCtx:
        inverted = self._inverted.get(self._block_key(b), frozenset()) if b is not None else frozenset()
        query = self._query if (text_mode or (b is not None and self._hit_counts.get(b))) else None
        return RenderCtx(
            console=None if text_mode else self.app.console,
            palette=self.palette,
            show_thinking=self.show_thinking,
            full_output=self.full_tool_output,
            show_hidden=self.show_hidden,
            inverted=inverted,
            query=query,
            text_mode=text_mode,
            resolve_artifact=self._resolve_artifact,
            background=self._background(),
            # with drawing on workers allowed, no draw here waits for a lexer's first use
            lazy_lexers=not text_mode and self.async_bytes is not None,
        )

    def _background(self) -> str | None:
        if self._bg is False:
            bg = self.rich_style.bgcolor
            self._bg = None if bg is None or bg.triplet is None else bg.triplet.hex
        return self._bg

    # ------------------------------------------------------------------ rendering blocks
    def _draw(self, item: Any, ctx: RenderCtx, width: int) -> Rendered | None:
        """Block ``item`` drawn; None when ``ctx.should_stop`` gave the drawing up."""
        out = Out(ctx, width)
        try:
            self._draw_item(item, out)
        except DrawStopped:
            return None
        except Exception as exc:  # a renderer bug must not take the pane down
            out = Out(ctx, width)
            out.line(f"⚠ could not draw this entry: {type(exc).__name__}: {exc}", ctx.palette.error)
            out.blank()
        r = out.result()
        if not r.strips:
            r.strips.append(Strip([]))
        return r

    @staticmethod
    def _refine(key: tuple, deps: int | None) -> tuple:
        """The state key once the block's dependencies on the toggles are known."""
        if deps is None:
            return key
        return key[:3] + (
            key[3] if deps & DEP_THINKING else None,
            key[4] if deps & DEP_OUTPUT else None,
        ) + key[5:]

    def _store(self, b: int, key: tuple, r: Rendered) -> tuple:
        """Cache a rendered block under its state key (refined by what the render used)."""
        self._deps[key[0]] = r.deps
        key = self._refine(key, r.deps)
        self._rcache.put(key, r)
        self._hcache[key] = r.height
        return key

    def _rendered(self, b: int) -> Rendered:
        key = self._state_key(b)
        got = self._rcache.get(key)
        if got is not None:
            self._rcache.move_to_end(key)
            return got
        if UNCAP in key[5] or (self.async_bytes is not None and self._block_cost(b) > self.async_bytes):
            return self._render_later(b, key)
        r = self._draw(self._block_item(b), self._ctx(b), self._width)
        assert r is not None  # (only a drawing with should_stop can be given up)
        self.render_count += 1
        key = self._store(b, key, r)
        if r.pending_lexers:
            self._await_lexers(key, r.pending_lexers)
        return r

    def _await_lexers(self, key: tuple, items: frozenset) -> None:
        """Code in this render is plain until its lexers are ready; then the render is
        dropped and drawn again. The lexers are made on a worker thread once the pane has
        been quiet a moment (a thread busy with them at once would slow the drawing of
        this very frame: they share the interpreter lock)."""
        self._provisional[key] = items
        todo = items - self._lexers_asked
        if not todo:
            return
        self._lexers_asked |= todo
        self._lexers_wanted |= todo
        if self._lexer_timer is not None:
            self._lexer_timer.stop()
        self._lexer_timer = self.set_timer(LEXER_DELAY, self._make_lexers)

    def _make_lexers(self) -> None:
        self._lexer_timer = None
        todo, self._lexers_wanted = frozenset(self._lexers_wanted), set()
        if not todo:
            return

        def work() -> None:
            prepare_lexers(todo)
            try:
                self.app.call_from_thread(self._lexers_ready)
            except Exception:
                pass  # the app is closing

        self.run_worker(work, thread=True, group="pane-lexers", exit_on_error=False)

    def _lexers_ready(self) -> None:
        """Code drawn plain can be highlighted now. The blocks in view are drawn again on a
        worker thread (their plain drawing stays until then: a draw with code can take tens
        of milliseconds, and a key pressed meanwhile must not wait for it); the others are
        forgotten, to be drawn again when they are next shown."""
        done = {k for k, classes in self._provisional.items() if all(lexer_ready(c) for c in classes)}
        if not done:
            return
        for k in done:
            del self._provisional[k]
        if self._blocks and self._width > 0:
            heights = self._heights
            y = round(self.scroll_y)
            first = heights.block_at(y)
            last = heights.block_at(y + max(1, self.scrollable_content_region.height) - 1)
            common = self._key_common()
            for b in range(max(0, first), last + 1):
                key = self._state_key(b, common)
                if key in done:
                    done.discard(key)
                    self._draw_in_thread(b, key)
        if done:
            for k in done:
                self._rcache.pop(k, None)
                self._hcache.pop(k, None)
            self._relayout(self._top_anchor())  # (the blocks in view are still cached)

    def _render_later(self, b: int, key: tuple) -> Rendered:
        """A placeholder of the expected height now; the block is drawn on a worker thread
        (with a console of its own: Rich's console lock would stall the app's drawing)."""
        self._placeheld[b] = key
        self._draw_in_thread(b, key)
        p = self.palette
        if UNCAP in key[5]:
            capped = self._drawn_capped(key)
            if capped is not None:
                return capped
        h = self._hcache.get(key) or max(1, self._estimate(b, self._width))
        strips = [Strip([Segment("  ⋯ drawing this entry", p.muted)])] + [Strip([])] * (h - 1)
        return Rendered(strips, chrome=set(range(h)))

    def _drawn_capped(self, key: tuple) -> Rendered | None:
        """While a block is drawn whole: its capped drawing (if cached), the marker lines
        saying it is being drawn; their action (enter, a click) still gives it up."""
        held = self._held
        if held is not None and held[0] == key:
            return held[1]
        bkey = key[0]
        capped_key = self._refine(key[:5] + (key[5] - {UNCAP},) + key[6:], self._deps.get(bkey))
        got = self._rcache.get(capped_key)
        if got is None:
            return None
        strips = list(got.strips)
        p = self.palette
        for y, action in got.actions.items():
            if action == ("fold", UNCAP):
                strips[y] = Strip([Segment("  ⋯ drawing all of it (enter: stop)", p.muted)]).adjust_cell_length(
                    strips[y].cell_length)
        r = Rendered(strips, actions=dict(got.actions), chrome=set(got.chrome), sections=list(got.sections),
                     deps=got.deps)
        self._held = (key, r)  # (asked for again at every line drawn)
        return r

    def _draw_in_thread(self, b: int, key: tuple) -> None:
        """Draw block ``b`` (state ``key``) on a worker thread; :meth:`_render_done` takes it.
        A block drawn whole can be given up (:meth:`_stop_drawing_all`), as can any when
        the app closes: the drawing stops between pieces of its text."""
        if self._under_way(key):
            return
        self._pending.add(key)
        item, ctx, width = self._block_item(b), self._ctx(b), self._width
        ctx.console = _private_console()
        ctx.lazy_lexers = False  # a worker may wait for a lexer
        stop = None
        if UNCAP in key[5]:
            self._stop_drawing_all(key[0])  # a drawing of this block in another state
            stop = self._stops[key] = threading.Event()

        def work() -> None:
            worker = get_current_worker()
            ctx.should_stop = lambda: worker.is_cancelled or (stop is not None and stop.is_set())
            r = self._draw(item, ctx, width)
            try:
                if r is None:
                    self.app.call_from_thread(self._render_stopped, b, key, stop)
                else:
                    self.app.call_from_thread(self._render_done, b, key, r, stop)
            except Exception:
                pass  # the app is closing

        # Started once the frame being made is on screen: a thread drawing meanwhile would
        # take the interpreter lock from it half of the time.
        self.call_after_refresh(self.run_worker, work, thread=True, group="pane-render", exit_on_error=False)

    def _stop_drawing_all(self, bkey: Hashable | None = None) -> None:
        """Give up the drawings of whole blocks under way (of block key ``bkey``, or all)."""
        for key, stop in self._stops.items():
            if bkey is None or key[0] == bkey:
                stop.set()

    def _render_stopped(self, b: int, key: tuple, stop: threading.Event) -> None:
        self._held = None
        if self._stops.get(key) is not stop:
            return  # a newer drawing of this very state is under way
        del self._stops[key]
        self._pending.discard(key)
        if self._placeheld.get(b) == key:
            del self._placeheld[b]

    def _under_way(self, key: tuple) -> bool:
        """Whether a block in state ``key`` is being drawn on a worker thread already (by
        :meth:`_draw_in_thread`, or now by the drawing ahead, which hands it over to
        :meth:`_render_done` when done if the block is waited for on screen)."""
        deps = self._deps.get(key[0])
        stops = self._stops
        if any(k[0] == key[0] and self._refine(k, deps) == key and not (k in stops and stops[k].is_set())
               for k in self._pending):
            return True
        current = self._ahead_current
        return current is not None and current[0] == key[0] and self._refine(current, deps) == key

    def draw_ahead(self, blocks: Iterable[int], should_stop: Callable[[], bool],
                   more: Iterable[Callable[[], Iterable[tuple]]] = ()) -> int:
        """Draw ``blocks`` (those not drawn at the pane's width and toggles yet) one after
        another on a worker thread, into the caches only: what the next key is likely to
        show, drawn while the user reads the screen, so that key finds it drawn. Nothing
        on screen changes. ``more``: functions run on that thread after them, each giving
        further ``(block, state key, item, ctx)`` to draw (blocks of a branch not shown:
        see MessagePane). ``should_stop`` (asked on that thread before each block) ends
        it early, e.g. when a key is pressed. Returns how many blocks are to be drawn
        (not counting ``more``'s)."""
        if not self._blocks or self._width <= 0:
            return 0
        common = self._key_common()
        todo: list[tuple[int, tuple, Any, RenderCtx]] = []
        seen: set[int] = set()
        for b in blocks:
            if b in seen or not 0 <= b < len(self._blocks):
                continue
            seen.add(b)
            key = self._state_key(b, common)
            if key in self._rcache or self._under_way(key):
                continue
            ctx = self._ctx(b)
            ctx.lazy_lexers = False  # a worker may wait for a lexer
            todo.append((b, key, self._block_item(b), ctx))
        more = list(more)
        if not todo and not more:
            return 0
        width = self._width

        def work() -> None:
            console = _private_console()
            worker = get_current_worker()

            def items():
                yield from todo
                for produce in more:
                    if worker.is_cancelled or should_stop():
                        return
                    yield from produce()

            for b, key, item, ctx in items():
                if worker.is_cancelled or should_stop():
                    return
                if key in self._rcache or UNCAP in key[5]:
                    continue  # (a block drawn whole is drawn only when shown)
                ctx.console = console
                self._ahead_current = key
                try:
                    r = self._draw(item, ctx, width)
                    if r is not None:
                        self.app.call_from_thread(self._ahead_done, b, key, r)
                except Exception:
                    return  # the app is closing
                finally:
                    self._ahead_current = None

        self.run_worker(work, thread=True, group="pane-ahead", exclusive=True, exit_on_error=False)
        return len(todo)

    def blocks_from(self, b: int) -> list[int]:
        """The blocks a view scrolled to block ``b``'s top shows (by the heights known
        now: estimates for blocks not drawn yet; near the end, the last screenful)."""
        if not self._blocks or self._width <= 0 or not 0 <= b < len(self._blocks):
            return []
        heights = self._heights
        view_h = max(1, self.scrollable_content_region.height)
        top = min(heights.top(b), max(0, heights.total - view_h))
        return list(range(heights.block_at(top), heights.block_at(top + view_h - 1) + 1))

    def blocks_beside_view(self) -> list[int]:
        """The blocks a page down and a page up from the view show."""
        if not self._blocks or self._width <= 0:
            return []
        heights = self._heights
        view_h = max(1, self.scrollable_content_region.height)
        y = round(self.scroll_y)
        got: list[int] = []
        if y + view_h < heights.total:
            got += range(heights.block_at(y + view_h), heights.block_at(y + 2 * view_h - 1) + 1)
        if y > 0:
            got += range(heights.block_at(max(0, y - view_h)), heights.block_at(y - 1) + 1)
        return got

    def _ahead_done(self, b: int, key: tuple, r: Rendered) -> None:
        """A block drawn ahead: kept in the cache; if it is on screen meanwhile as a
        placeholder waiting for this very drawing, shown as a worker's drawing is."""
        want = self._placeheld.get(b)
        if want is not None and want[0] == key[0] and self._refine(want, r.deps) == self._refine(key, r.deps):
            self._render_done(b, want, r)
            return
        self.render_count += 1
        self._store(b, key, r)

    def _render_done(self, b: int, key: tuple, r: Rendered, stop: threading.Event | None = None) -> None:
        self._held = None
        if stop is not None:
            if stop.is_set():  # given up, and done meanwhile
                self._render_stopped(b, key, stop)
                return
            if self._stops.get(key) is stop:
                del self._stops[key]
        self._pending.discard(key)
        if self._placeheld.get(b) == key:
            del self._placeheld[b]
        self.render_count += 1
        key = self._store(b, key, r)
        if not (b < len(self._blocks) and self._state_key(b) == key):
            return  # the pane moved on (another width, toggle or branch); kept in the cache
        heights = self._heights
        y = round(self.scroll_y)
        at_bottom = y > 0 and y >= self.max_scroll_y and UNCAP not in key[5]
        first = heights.block_at(y)
        last = heights.block_at(y + max(1, self.scrollable_content_region.height) - 1)
        # Keep in place the first other block in view (or, if b fills the view, b's top); a
        # block drawn whole keeps its own place: its text goes on where its marker was.
        anchor = b if UNCAP in key[5] else next((x for x in range(first, last + 1) if x != b and self._measured[x]), b)
        screen = heights.top(anchor) - y
        self._set_measured(b, r.height)
        self._update_virtual_size()
        if at_bottom:
            new_y = self.max_scroll_y
        elif anchor == b:
            new_y = heights.top(b) + min(-screen, r.height - 1) if screen <= 0 else heights.top(b) - screen
        else:
            new_y = heights.top(anchor) - screen
        if new_y != y:
            self._scroll_to_y(new_y)
        self._settle()
        self.refresh()

    def _set_measured(self, b: int, height: int) -> None:
        self._heights.set(b, height)
        self._measured[b] = 1
        self._known.add(b)

    def _measure(self, b: int) -> int:
        r = self._rendered(b)
        self._set_measured(b, r.height)
        return r.height

    def block_text(self, b: int) -> str:
        out = Out(self._ctx(None, text_mode=True), 80)
        try:
            self._draw_item(self._block_item(b), out)
        except Exception:
            return ""
        return "\n".join(out.texts)

    # ------------------------------------------------------------------ layout
    def _set_blocks(self, blocks: list[Any]) -> None:
        self._blocks = blocks
        self._measured = bytearray(len(blocks))
        self._known = set()
        self._heights = Heights(array("q", [1]) * len(blocks))
        self._placeheld.clear()
        self._clear_search_state()

    def _relayout(self, anchor: tuple[int, int] | None = None, settle: bool = True) -> None:
        """Recompute every height (cached real ones or estimates), keep ``anchor`` (block,
        line offset) at the top of the view, and settle what is visible (unless the caller
        is about to scroll elsewhere)."""
        width = self._width
        if width <= 0:
            return
        n = len(self._blocks)
        heights = self._base_heights(width)
        measured = bytearray(n)
        hget = self._hcache.get
        common = self._key_common()
        key = self._state_key
        known = self._known
        for b in list(known):
            if b >= n:
                known.discard(b)
                continue
            h = hget(key(b, common))
            if h is not None:
                heights[b] = h
                measured[b] = 1
        self._heights.reset(heights)
        self._measured = measured
        self._update_virtual_size()
        if anchor is not None and 0 <= anchor[0] < len(self._blocks):
            b, off = anchor
            self._measure(b)
            off = min(off, self._heights[b] - 1)
            self._update_virtual_size()
            self._scroll_to_y(self._heights.top(b) + max(0, off))
        if settle:
            self._settle()
        self.refresh()

    def _update_virtual_size(self) -> None:
        """Set the scrollable height without a layout pass of the whole screen (the
        scrollbars are always shown, so nothing else depends on it)."""
        size = Size(self._width, self._heights.total)
        if size != self.virtual_size:
            set_virtual_size_quietly(self, size)

    def _scroll_to_y(self, y: int) -> None:
        self.scroll_to(y=max(0, y), animate=False, immediate=True)

    def _top_anchor(self) -> tuple[int, int] | None:
        if not self._blocks:
            return None
        y = round(self.scroll_y)
        b = self._heights.block_at(y)
        return b, y - self._heights.top(b)

    def _settle(self) -> None:
        """Render every block in view that has only an estimated height, keeping the view
        anchored on a block that was already measured."""
        if self._settling or not self._blocks or self._width <= 0:
            return
        self._settling = True
        try:
            view_h = max(1, self.scrollable_content_region.height)
            heights = self._heights
            for _ in range(200):
                y = round(self.scroll_y)
                first = heights.block_at(y)
                last = heights.block_at(y + view_h - 1)
                todo = [b for b in range(first, last + 1) if not self._measured[b]]
                if not todo:
                    break
                anchor = next((b for b in range(first, last + 1) if self._measured[b]), first)
                screen = heights.top(anchor) - y  # where the anchor's top is on screen
                at_bottom = y > 0 and y >= self.max_scroll_y
                for b in todo:
                    self._measure(b)
                self._update_virtual_size()
                if at_bottom:
                    new_y = self.max_scroll_y
                elif anchor == first and screen <= 0:
                    new_y = heights.top(first) + min(-screen, heights[first] - 1)
                else:
                    new_y = heights.top(anchor) - screen
                if new_y != y:
                    self._scroll_to_y(new_y)
        finally:
            self._settling = False

    # ------------------------------------------------------------------ Textual hooks
    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        if width != self._width:
            anchor = self._top_anchor() if self._width > 0 else None
            self._width = width
            self._match_cache.clear()
            if self._pending_scroll is not None:
                pending, self._pending_scroll = self._pending_scroll, None
                self._relayout()
                self._apply_pending(pending)
            else:
                self._relayout(anchor)
        else:
            self._settle()

    def _apply_pending(self, pending: tuple) -> None:
        pass

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if not self._settling:
            self._settle()
        self._scrolled()

    def _scrolled(self) -> None:
        pass

    def _watch_theme_change(self) -> None:
        self._palette = None
        self._bg = False
        self._rcache.clear()
        self._relayout(self._top_anchor())

    def on_mount(self) -> None:
        super().on_mount()
        self.watch(self.app, "theme", lambda *_: self._watch_theme_change(), init=False)

    def watch_show_thinking(self, value: bool) -> None:
        self._drop_inverted(lambda kind: kind.startswith("think"))
        self._relayout(self._top_anchor())

    def watch_full_tool_output(self, value: bool) -> None:
        self._drop_inverted(lambda kind: kind in _OUTPUT_FOLDS or kind.startswith("sub"))
        self._relayout(self._top_anchor())

    def _drop_inverted(self, pred) -> None:
        """Forget the user's own folds of one kind (a global toggle overrides them)."""
        for k, keys in list(self._inverted.items()):
            keep = frozenset(x for x in keys if not pred(x.rsplit(":", 1)[-1]))
            if keep:
                self._inverted[k] = keep
            else:
                del self._inverted[k]

    def action_toggle_thinking(self) -> None:
        self.show_thinking = not self.show_thinking

    def action_toggle_output(self) -> None:
        self.full_tool_output = not self.full_tool_output

    # Scrolling without animation: heights may change while an animation runs.
    def action_scroll_up(self) -> None:
        self.scroll_to(y=self.scroll_y - 1, animate=False)

    def action_scroll_down(self) -> None:
        self.scroll_to(y=self.scroll_y + 1, animate=False)

    def action_page_up(self) -> None:
        self.scroll_to(y=self.scroll_y - self.scrollable_content_region.height, animate=False)

    def action_page_down(self) -> None:
        self.scroll_to(y=self.scroll_y + self.scrollable_content_region.height, animate=False)

    def action_scroll_home(self) -> None:
        self.scroll_to(y=0, animate=False)

    def action_scroll_end(self) -> None:
        self.scroll_end_now()

    def scroll_end_now(self) -> None:
        """Go to the very end, rendering the last blocks so their real heights count."""
        for _ in range(10):
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
            self._settle()
            if round(self.scroll_y) >= self.max_scroll_y:
                break

    # ------------------------------------------------------------------ drawing
    def render_lines(self, crop) -> list[Strip]:
        # The widget's style is worked out once a frame, not once a line (Textual walks
        # every ancestor's styles for it).
        self._frame_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._frame_style = None

    def render_line(self, y: int) -> Strip:
        style = self._frame_style or self.rich_style
        width = self._width
        if width <= 0:  # not laid out yet: nothing is drawn at a width of 0
            return Strip.blank(self.scrollable_content_region.width, style)
        vy = y + round(self.scroll_y)
        heights = self._heights
        if not self._blocks or vy >= heights.total or vy < 0:
            return Strip.blank(width, style)
        b = heights.block_at(vy)
        if not self._measured[b]:
            self._measure(b)
            self._update_virtual_size()
            self.call_after_refresh(self._settle)
        r = self._rendered(b)
        line = vy - heights.top(b)
        if line >= r.height or line < 0:
            return Strip.blank(width, style)
        strip = r.strip(line)
        if self._hit_counts.get(b) and line not in r.chrome:
            strip = self._highlight(b, r, line, strip)
        # (both cached on the Strip: repeated frames make no new Strips)
        return strip.adjust_cell_length(width).apply_style(style)

    # ------------------------------------------------------------------ folds and clicks
    def _line_at(self, vy: int) -> tuple[int, int] | None:
        if not self._blocks or vy < 0 or vy >= self._heights.total:
            return None
        b = self._heights.block_at(vy)
        return b, vy - self._heights.top(b)

    def toggle_fold(self, b: int, key: str) -> None:
        bkey = self._block_key(b)
        keys = set(self._inverted.get(bkey, frozenset()))
        keys ^= {key}
        self._stop_drawing_all(bkey)  # (drawn whole again below if still wanted)
        if keys:
            self._inverted[bkey] = frozenset(keys)
        else:
            self._inverted.pop(bkey, None)
        anchor = self._top_anchor()
        self._measure(b)
        self._update_virtual_size()
        if anchor is not None and anchor[0] != b:
            self._scroll_to_y(self._heights.top(anchor[0]) + anchor[1])
        self._settle()
        self.refresh()

    def _do_action(self, b: int, action: tuple) -> None:
        if action[0] == "fold":
            self.toggle_fold(b, action[1])

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        hit = self._line_at(offset.y + round(self.scroll_y))
        if hit is None:
            return
        b, line = hit
        action = self._rendered(b).actions.get(line)
        if action is not None:
            event.stop()
            self._do_action(b, action)

    def action_toggle_fold(self) -> None:
        """Open or close the first fold (or link) in view."""
        y0 = round(self.scroll_y)
        for vy in range(y0, y0 + self.scrollable_content_region.height):
            hit = self._line_at(vy)
            if hit is None:
                break
            b, line = hit
            action = self._rendered(b).actions.get(line)
            if action is not None:
                self._do_action(b, action)
                return

    # ------------------------------------------------------------------ search
    def _clear_search_state(self) -> None:
        self._hit_counts = {}
        self._hits = []
        self._hit_pos = -1
        self._match_cache.clear()

    def search(self, query: str) -> int:
        """Find ``query`` (case-insensitive) in every block; highlight hits; return the count."""
        anchor = self._top_anchor()
        self._clear_search_state()
        query = query or ""
        if not query.strip():
            self._query = None
            self._query_text = ""
            self._relayout(anchor)
            return 0
        self._query = re.compile(re.escape(query), re.IGNORECASE)
        self._query_text = query
        counts = {}
        hits = []
        for b in range(len(self._blocks)):
            text = self.block_text(b)
            if not text:
                continue
            n = sum(1 for _ in self._query.finditer(text))
            if n:
                counts[b] = n
                hits.extend((b, k) for k in range(n))
        self._hit_counts = counts
        self._hits = hits
        self._relayout(anchor)
        return len(hits)

    @property
    def hit_count(self) -> int:
        return len(self._hits)

    def _block_matches(self, b: int, r: Rendered) -> list[tuple[int, int, int]]:
        key = (id(r), self._query_text)
        got = self._match_cache.get(key)
        if got is not None:
            return got
        matches = []
        if self._query is not None:
            for line, strip in enumerate(r.strips):
                if line in r.chrome:
                    continue
                text = strip.text if type(strip) is Strip else strip.plain
                for m in self._query.finditer(text):
                    if m.end() > m.start():
                        if type(strip) is not Strip:
                            strip = strip.strip()  # (a Row: made a Strip only where a hit is)
                        matches.append((line, strip.index_to_cell_position(m.start()),
                                        strip.index_to_cell_position(m.end())))
        self._match_cache[key] = matches
        while len(self._match_cache) > 200:
            self._match_cache.popitem(last=False)
        return matches

    def _highlight(self, b: int, r: Rendered, line: int, strip: Strip) -> Strip:
        matches = self._block_matches(b, r)
        spans = [(i, s, e) for i, (ln, s, e) in enumerate(matches) if ln == line]
        if not spans:
            return strip
        current = -1
        if 0 <= self._hit_pos < len(self._hits):
            hb, hk = self._hits[self._hit_pos]
            if hb == b and matches:
                current = min(hk, len(matches) - 1)
        p = self.palette
        cuts = []
        styles = []
        pos = 0
        for i, s, e in spans:
            if s < pos:
                continue
            if s > pos:
                cuts.append(s)
                styles.append(None)
            cuts.append(e)
            styles.append(p.hit_current if i == current else p.hit)
            pos = e
        if pos < strip.cell_length:
            cuts.append(strip.cell_length)
            styles.append(None)
        pieces = strip.divide(cuts)
        out = []
        for piece, style in zip(pieces, styles):
            if style is None:
                out.append(piece)
            else:
                out.append(Strip([Segment(seg.text, seg.style + style if seg.style else style)
                                  for seg in piece], piece.cell_length))
        return Strip.join(out)

    def next_hit(self, backwards: bool = False) -> int | None:
        """Scroll to the next (or previous) hit; returns the entry it is in."""
        if not self._hits:
            return None
        n = len(self._hits)
        if self._hit_pos < 0:
            # start from the view: the first hit at or after the top (or before, backwards)
            top = self._top_anchor()
            tb = top[0] if top else 0
            if backwards:
                cands = [k for k, (b, _) in enumerate(self._hits) if b <= tb]
                self._hit_pos = cands[-1] if cands else n - 1
            else:
                cands = [k for k, (b, _) in enumerate(self._hits) if b >= tb]
                self._hit_pos = cands[0] if cands else 0
        else:
            self._hit_pos = (self._hit_pos + (-1 if backwards else 1)) % n
        b, k = self._hits[self._hit_pos]
        self._scroll_to_hit(b, k)
        return self._block_entry(b, k)

    def _scroll_to_hit(self, b: int, k: int) -> None:
        r = self._rendered(b)
        self._measure(b)
        self._update_virtual_size()
        matches = self._block_matches(b, r)
        line = matches[min(k, len(matches) - 1)][0] if matches else 0
        view_h = max(1, self.scrollable_content_region.height)
        top = self._heights.top(b)
        y = top if line < view_h - 2 else top + line - view_h // 3
        self._scroll_to_y(y)
        self._settle()
        self.refresh()

    def _block_entry(self, b: int, k: int = 0) -> int | None:
        return None
