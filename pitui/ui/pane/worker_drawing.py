"""Drawing blocks off the UI thread, a helper of the pane's :class:`BlockScroller`: a block too
costly to draw at once is drawn on a worker (a placeholder meanwhile), a block drawn whole
(UNCAP) can be given up between pieces, the blocks the next moves would show are drawn
ahead while the user reads, and code drawn plain is drawn again once its lexer is made.
Also the cache of drawn blocks."""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable, Iterable

from rich.console import Console
from rich.segment import Segment
from textual.strip import Strip
from textual.timer import Timer
from textual.worker import get_current_worker

from ..text_fit import cut_segments
from ..messages import BlockDrawingStopped, BlockDrawn, BlockDrawnAhead, LexersMade
from .code import lexer_ready, prepare_lexers
from .canvas import UNCAP, RenderCtx, Rendered

__all__ = ["WorkerDrawing", "RenderCache"]


class RenderCache(OrderedDict):
    """Rendered blocks by state key, least recently used first, bounded by blocks and
    by lines; the last _RENDER_KEEP blocks used always stay (whatever is on screen)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines = 0

    def put(self, key: tuple, rendered: Rendered) -> None:
        old = super().pop(key, None)
        if old is not None:
            self.lines -= old.height
        self[key] = rendered
        self.lines += rendered.height
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
    console = getattr(_console_local, "console", None)
    if console is None:
        console = Console(file=io.StringIO(), color_system="truecolor", force_terminal=True, legacy_windows=False,
                          emoji=False, highlight=False, markup=False, width=200, soft_wrap=False, safe_box=False)
        _console_local.console = console
    return console
_RENDER_CACHE = 400  # rendered blocks kept
# ... and lines: a Strip is ~30 objects the garbage collector walks on every full
# collection (and a full output may be thousands of lines)
_RENDER_CACHE_LINES = 4000
_RENDER_KEEP = 128  # more blocks than a screen can show
LEXER_DELAY = 0.15  # seconds of quiet before lexers wanted by plain-drawn code are made


class WorkerDrawing:
    """The drawing on worker threads of ``pane`` (a :class:`BlockScroller`, whose layout
    and caches it fills): see the module docstring. The pane hands it the blocks to draw
    and the messages its workers post."""

    def __init__(self, pane: Any) -> None:
        self.pane = pane
        self.pending: set[tuple] = set()  # state keys being drawn on a worker thread
        # state keys of blocks drawn whole (UNCAP) on a worker -> set to give that drawing up
        self.stops: dict[tuple, threading.Event] = {}
        self._held: tuple[tuple, Rendered] | None = None  # the last of _drawn_capped
        self.placeheld: dict[int, tuple] = {}  # block -> state key shown as a placeholder
        self._ahead_current: tuple | None = None  # the key the drawing-ahead thread draws now
        self._ahead_sent: set[tuple] = set()  # keys drawn ahead, their BlockDrawnAhead not handled yet
        self.provisional: dict[tuple, frozenset] = {}  # state key -> lexers its code waits for
        self._lexers_asked: set = set()  # lexers asked for (see await_lexers)
        self._lexers_wanted: set = set()  # ... and not yet given to a worker
        self._lexer_timer: Timer | None = None

    def await_lexers(self, key: tuple, items: frozenset) -> None:
        """Code in this render is plain until its lexers are ready; then the render is
        dropped and drawn again. The lexers are made on a worker thread once the pane has
        been quiet a moment (a thread busy with them at once would slow the drawing of
        this very frame: they share the interpreter lock)."""
        self.provisional[key] = items
        todo = items - self._lexers_asked
        if not todo:
            return
        self._lexers_asked |= todo
        self._lexers_wanted |= todo
        if self._lexer_timer is not None:
            self._lexer_timer.stop()
        self._lexer_timer = self.pane.set_timer(LEXER_DELAY, self._make_lexers)

    def _make_lexers(self) -> None:
        self._lexer_timer = None
        todo, self._lexers_wanted = frozenset(self._lexers_wanted), set()
        if not todo:
            return

        def work() -> None:
            prepare_lexers(todo)
            try:
                self.pane.post_message(LexersMade())
            except Exception:
                pass  # the app is closing

        self.pane.run_worker(work, thread=True, group="pane-lexers", exit_on_error=False)

    def lexers_made(self, message: LexersMade) -> None:
        self.lexers_ready()

    def lexers_ready(self) -> None:
        """Code drawn plain can be highlighted now. The blocks in view are drawn again on a
        worker thread (their plain drawing stays until then: a draw with code can take tens
        of milliseconds, and a key pressed meanwhile must not wait for it); the others are
        forgotten, to be drawn again when they are next shown."""
        done = {key for key, classes in self.provisional.items() if all(lexer_ready(lexer) for lexer in classes)}
        if not done:
            return
        for done_key in done:
            del self.provisional[done_key]
        if self.pane._blocks and self.pane._width > 0:
            heights = self.pane._heights
            y = round(self.pane.scroll_y)
            first = heights.block_at(y)
            last = heights.block_at(y + max(1, self.pane.scrollable_content_region.height) - 1)
            common = self.pane._key_common()
            for block in range(max(0, first), last + 1):
                key = self.pane._state_key(block, common)
                if key in done:
                    done.discard(key)
                    self.draw_in_thread(block, key)
        if done:
            for done_key in done:
                self.pane._rcache.pop(done_key, None)
                self.pane._hcache.pop(done_key, None)
            self.pane._relayout(self.pane._top_anchor())  # (the blocks in view are still cached)

    def render_later(self, block: int, key: tuple) -> Rendered:
        """A placeholder of the expected height now; the block is drawn on a worker thread
        (with a console of its own: Rich's console lock would stall the app's drawing)."""
        self.placeheld[block] = key
        self.draw_in_thread(block, key)
        palette = self.pane.palette
        if UNCAP in key.folds:
            capped = self._drawn_capped(key)
            if capped is not None:
                return capped
        height = self.pane._hcache.get(key) or max(1, self.pane._estimate(block, self.pane._width))
        strips = [Strip([Segment("  ⋯ drawing this entry", palette.muted)])] + [Strip([])] * (height - 1)
        return Rendered(strips, chrome=set(range(height)))

    def _drawn_capped(self, key: tuple) -> Rendered | None:
        """While a block is drawn whole: its capped drawing (if cached), the marker lines
        saying it is being drawn; their action (enter, a click) still gives it up."""
        held = self._held
        if held is not None and held[0] == key:
            return held[1]
        bkey = key.block
        capped_key = self.pane._refine(key._replace(folds=key.folds - {UNCAP}), self.pane._deps.get(bkey))
        got = self.pane._rcache.get(capped_key)
        if got is None:
            return None
        strips = list(got.strips)
        palette = self.pane.palette
        for line, action in got.actions.items():
            if action == ("fold", UNCAP):
                width = strips[line].cell_length
                strips[line] = Strip(cut_segments([Segment("  ⋯ drawing all of it (enter: stop)", palette.muted)], width)
                                     ).adjust_cell_length(width)
        rendered = Rendered(strips, actions=dict(got.actions), chrome=set(got.chrome), sections=list(got.sections),
                            deps=got.deps)
        self._held = (key, rendered)  # (asked for again at every line drawn)
        return rendered

    def draw_in_thread(self, block: int, key: tuple) -> None:
        """Draw ``block`` (state ``key``) on a worker thread; :meth:`_render_done` takes it
        (from a :class:`BlockDrawn`).
        A block drawn whole can be given up (:meth:`_stop_drawing_all`), as can any when
        the app closes: the drawing stops between pieces of its text."""
        if self._under_way(key):
            return
        self.pending.add(key)
        item, ctx, width = self.pane._block_item(block), self.pane._ctx(block), self.pane._width
        ctx.console = _private_console()
        ctx.lazy_lexers = False  # a worker may wait for a lexer
        stop = None
        if UNCAP in key.folds:
            self.stop_drawing_all(key.block)  # a drawing of this block in another state
            stop = self.stops[key] = threading.Event()

        def work() -> None:
            worker = get_current_worker()
            ctx.should_stop = lambda: worker.is_cancelled or (stop is not None and stop.is_set())
            rendered = self.pane._draw(item, ctx, width)
            try:
                if rendered is None:
                    self.pane.post_message(BlockDrawingStopped(block, key, stop))
                else:
                    self.pane.post_message(BlockDrawn(block, key, rendered, stop))
            except Exception:
                pass  # the app is closing

        # Started once the frame being made is on screen: a thread drawing meanwhile would
        # take the interpreter lock from it half of the time.
        self.pane.call_after_refresh(self.pane.run_worker, work, thread=True, group="pane-render", exit_on_error=False)

    def stop_drawing_all(self, bkey: Hashable | None = None) -> None:
        """Give up the drawings of whole blocks under way (of block key ``bkey``, or all)."""
        for key, stop in self.stops.items():
            if bkey is None or key.block == bkey:
                stop.set()

    def block_drawing_stopped(self, message: BlockDrawingStopped) -> None:
        self.render_stopped(message.b, message.key, message.stop)

    def render_stopped(self, block: int, key: tuple, stop: threading.Event) -> None:
        self._held = None
        if self.stops.get(key) is not stop:
            return  # a newer drawing of this very state is under way
        del self.stops[key]
        self.pending.discard(key)
        if self.placeheld.get(block) == key:
            del self.placeheld[block]

    def _under_way(self, key: tuple) -> bool:
        """Whether a block in state ``key`` is being drawn on a worker thread already (by
        :meth:`_draw_in_thread`, or now by the drawing ahead, which hands it over to
        :meth:`_render_done` when done if the block is waited for on screen), or was drawn
        ahead and is on its way to the cache."""
        deps = self.pane._deps.get(key.block)
        stops = self.stops
        if any(other.block == key.block and self.pane._refine(other, deps) == key and not (other in stops and stops[other].is_set())
               for other in self.pending):
            return True
        current = self._ahead_current
        if current is not None and current.block == key.block and self.pane._refine(current, deps) == key:
            return True
        # (a copy: the drawing-ahead thread adds to the set meanwhile)
        return any(other.block == key.block and self.pane._refine(other, deps) == key for other in tuple(self._ahead_sent))

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
        if not self.pane._blocks or self.pane._width <= 0:
            return 0
        common = self.pane._key_common()
        todo: list[tuple[int, tuple, Any, RenderCtx]] = []
        seen: set[int] = set()
        for block in blocks:
            if block in seen or not 0 <= block < len(self.pane._blocks):
                continue
            seen.add(block)
            key = self.pane._state_key(block, common)
            if key in self.pane._rcache or self._under_way(key):
                continue
            ctx = self.pane._ctx(block)
            ctx.lazy_lexers = False  # a worker may wait for a lexer
            todo.append((block, key, self.pane._block_item(block), ctx))
        more = list(more)
        if not todo and not more:
            return 0
        width = self.pane._width

        def work() -> None:
            console = _private_console()
            worker = get_current_worker()

            def items():
                yield from todo
                for produce in more:
                    if worker.is_cancelled or should_stop():
                        return
                    yield from produce()

            for block, key, item, ctx in items():
                if worker.is_cancelled or should_stop():
                    return
                if key in self.pane._rcache or key in self._ahead_sent or UNCAP in key.folds:
                    continue  # (a block drawn whole is drawn only when shown)
                ctx.console = console
                self._ahead_current = key
                try:
                    rendered = self.pane._draw(item, ctx, width)
                    if rendered is not None:
                        # Under way until its message is handled: a key showing the block
                        # meanwhile waits for it, not drawing it a second time.
                        self._ahead_sent.add(key)
                        self.pane.post_message(BlockDrawnAhead(block, key, rendered))
                except Exception:
                    return  # the app is closing
                finally:
                    self._ahead_current = None

        self.pane.run_worker(work, thread=True, group="pane-ahead", exclusive=True, exit_on_error=False)
        return len(todo)

    def blocks_from(self, block: int) -> list[int]:
        """The blocks a view scrolled to ``block``'s top shows (by the heights known
        now: estimates for blocks not drawn yet; near the end, the last screenful)."""
        if not self.pane._blocks or self.pane._width <= 0 or not 0 <= block < len(self.pane._blocks):
            return []
        heights = self.pane._heights
        view_h = max(1, self.pane.scrollable_content_region.height)
        top = min(heights.top(block), max(0, heights.total - view_h))
        return list(range(heights.block_at(top), heights.block_at(top + view_h - 1) + 1))

    def blocks_beside_view(self) -> list[int]:
        """The blocks a page down and a page up from the view show."""
        if not self.pane._blocks or self.pane._width <= 0:
            return []
        heights = self.pane._heights
        view_h = max(1, self.pane.scrollable_content_region.height)
        y = round(self.pane.scroll_y)
        got: list[int] = []
        if y + view_h < heights.total:
            got += range(heights.block_at(y + view_h), heights.block_at(y + 2 * view_h - 1) + 1)
        if y > 0:
            got += range(heights.block_at(max(0, y - view_h)), heights.block_at(y - 1) + 1)
        return got

    def block_drawn_ahead(self, message: BlockDrawnAhead) -> None:
        self._ahead_sent.discard(message.key)
        self.ahead_done(message.b, message.key, message.rendered)

    def ahead_done(self, block: int, key: tuple, rendered: Rendered) -> None:
        """A block drawn ahead: kept in the cache; if it is on screen meanwhile as a
        placeholder waiting for this very drawing, shown as a worker's drawing is."""
        want = self.placeheld.get(block)
        if want is not None and want.block == key.block and self.pane._refine(want, rendered.deps) == self.pane._refine(key, rendered.deps):
            self.render_done(block, want, rendered)
            return
        self.pane.render_count += 1
        self.pane._store(block, key, rendered)

    def block_drawn(self, message: BlockDrawn) -> None:
        self.render_done(message.b, message.key, message.rendered, message.stop)

    def render_done(self, block: int, key: tuple, rendered: Rendered, stop: threading.Event | None = None) -> None:
        self._held = None
        if stop is not None:
            if stop.is_set():  # given up, and done meanwhile
                self.render_stopped(block, key, stop)
                return
            if self.stops.get(key) is stop:
                del self.stops[key]
        self.pending.discard(key)
        if self.placeheld.get(block) == key:
            del self.placeheld[block]
        self.pane.render_count += 1
        key = self.pane._store(block, key, rendered)
        if not (block < len(self.pane._blocks) and self.pane._state_key(block) == key):
            return  # the pane moved on (another width, toggle or branch); kept in the cache
        heights = self.pane._heights
        y = round(self.pane.scroll_y)
        at_bottom = y > 0 and y >= self.pane.max_scroll_y and UNCAP not in key.folds
        first = heights.block_at(y)
        last = heights.block_at(y + max(1, self.pane.scrollable_content_region.height) - 1)
        # Keep in place the first other block in view (or, if b fills the view, b's top); a
        # block drawn whole, or one that starts in view (a fold opened there, at the
        # cursor), keeps its own place: its text goes on below what the user looked at.
        if UNCAP in key.folds or heights.top(block) >= y:
            anchor = block
        else:
            anchor = next((other for other in range(first, last + 1) if other != block and self.pane._measured[other]), block)
        screen = heights.top(anchor) - y
        self.pane._set_measured(block, rendered.height)
        self.pane._update_virtual_size()
        if at_bottom:
            new_y = self.pane.max_scroll_y
        elif anchor == block:
            new_y = heights.top(block) + min(-screen, rendered.height - 1) if screen <= 0 else heights.top(block) - screen
        else:
            new_y = heights.top(anchor) - screen
        if new_y != y:
            self.pane._scroll_to_y(new_y)
        self.pane._settle()
        self.pane.refresh()

