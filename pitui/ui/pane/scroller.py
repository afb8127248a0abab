"""A line-API ScrollView over blocks that are laid out lazily.

Every block has a height: an estimate until it is rendered, then its real height. Only
blocks that come into view are rendered; their Strips are cached by (block, width,
toggle state). When a block's real height differs from its estimate the view stays put:
the first block on screen that was already measured keeps its place on screen.

A relayout (another width, a toggle) costs O(blocks) only in C: the estimates come as one
array from ``_base_heights`` and only the blocks drawn before (``_known``) are looked up
in the height cache in Python.

Three helpers the scroller owns do the rest, each in a module of its own: the drawing on
worker threads (``worker_drawing.py``: ``self.worker_drawing``), the search
(``pane_search.py``: ``self.finder``) and the cursor (``cursor.py``: ``self.pane_cursor``).
They read the scroller's layout and caches; the scroller hands them its keys and messages.
"""

from __future__ import annotations

from array import array
from typing import Any, Callable, Hashable, Iterable, NamedTuple

from textual import events
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..bindings import bindings_for
from ..messages import BlockDrawingStopped, BlockDrawn, BlockDrawnAhead, LexersMade
from ..pane_toggles import ALL_TOGGLE_DEPS, BY_NAME, DEP_OF, DRAWN_TOGGLES, PANE_TOGGLES, PaneToggle
from ..textual_internals import set_virtual_size_quietly
from .cursor import PaneCursor
from .worker_drawing import RenderCache, WorkerDrawing
from .heights import Heights
from .canvas import UNCAP, DrawStopped, Out, RenderCtx, Rendered
from .palette import DEFAULT_PALETTE, Palette, palette_from_variables
from .pane_search import PaneSearch

__all__ = ["BlockScroller"]


class StateKey(NamedTuple):
    """What a drawn block looks like depends on: the key of the render cache (and of the
    height cache). A toggle a block does not use is None in its key (``Rendered.deps``
    says which it used), so flipping it keeps that block's drawing."""

    block: Hashable  # the block: its entries and what the branch says about them
    width: int
    look: tuple  # the palette's name and the pane's generation (another session)
    #: Each of the drawn toggles (``pane_toggles.DRAWN_TOGGLES``, in their order): on or
    #: off, or None where the block did not ask for it
    toggles: tuple[bool | None, ...]
    folds: frozenset  # the folds the user flipped in it (UNCAP: drawn whole)
    query: str | None  # the search query, for a block with a hit


class KeyCommon(NamedTuple):
    """The parts of a :class:`StateKey` every block shares at a time."""

    width: int
    look: tuple  # the palette's name and the pane's generation
    toggles: tuple[bool, ...]  # each drawn toggle's state, as in StateKey.toggles


_EMPTY: frozenset = frozenset()
_MASKED: dict[tuple[tuple, int], tuple] = {}


def _masked(toggles: tuple, deps: int) -> tuple:
    """``toggles`` (a StateKey's) with None for each toggle not in ``deps`` (a drawn
    block's ``Rendered.deps``): a flip of those keeps the block's drawing."""
    deps &= ALL_TOGGLE_DEPS
    if deps == ALL_TOGGLE_DEPS:
        return toggles
    got = _MASKED.get((toggles, deps))
    if got is None:
        got = _MASKED[toggles, deps] = tuple(
            value if deps & DEP_OF[toggle.name] else None for toggle, value in zip(DRAWN_TOGGLES, toggles))
    return got


class BlockScroller(ScrollView, can_focus=True):
    """Base for the message pane and the context view. Subclasses provide the blocks."""

    COMPONENT_CLASSES = {"block-scroller--cursor"}
    DEFAULT_CSS = """
    BlockScroller {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
        & > .block-scroller--cursor { color: $accent; background: $block-cursor-blurred-background; }
    }
    """

    # t / o / h are the app's (it toggles the reactives below); the context view binds its own.
    BINDINGS = bindings_for("pane")

    #: Blocks with more Markdown than this are drawn on a worker thread. Rich draws ~150
    #: bytes of Markdown a millisecond on a slow machine (a 7.8 KB reply took 40-60 ms), so
    #: past ~4 KB a draw on the UI thread would hold a key press beyond 50 ms.
    ASYNC_BYTES: int | None = 4_096

    #: The names of the pane's toggles that are on (``pane_toggles.py``); each also has its
    #: bool attribute (``show_thinking``...) and is flipped by :meth:`flip`.
    toggles_on: reactive[frozenset[str]] = reactive(frozenset())

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None):
        super().__init__(name=name, id=id, classes=classes)
        self._blocks: list[Any] = []
        self._heights = Heights()
        self._measured = bytearray()
        self._known: set[int] = set()  # blocks drawn at some time (their heights may be cached)
        self._width = 0
        self._settling = False
        self._rcache = RenderCache()
        self._hcache: dict[tuple, int] = {}
        self._deps: dict[Hashable, int] = {}
        self._toggle_values: tuple[bool, ...] = (False,) * len(DRAWN_TOGGLES)  # (KeyCommon.toggles)
        self._inverted: dict[Hashable, frozenset] = {}
        self._palette: Palette | None = None
        self._bg: str | None | bool = False  # the widget's background, once known
        self._pending_scroll: tuple | None = None
        self.render_count = 0  # blocks rendered (for tests and benchmarks)
        self._frame_style: Any = None  # the widget's Rich style while a frame is drawn
        self._generation = 0  # bumped when what the blocks mean changes (another session)
        self.worker_drawing = WorkerDrawing(self)
        self.finder = PaneSearch(self)
        self.pane_cursor = PaneCursor(self)
        # Blocks with more Markdown than this are drawn on a worker thread (None: never).
        self.async_bytes: int | None = self.ASYNC_BYTES

    # ------------------------------------------------------------------ subclass hooks
    def _block_key(self, block: int) -> Hashable:
        raise NotImplementedError

    def _estimate(self, block: int, width: int) -> int:
        return 3

    def _base_heights(self, width: int) -> array:
        """Every block's estimated height (at least 1) for ``width`` and the toggles, as a
        new array (the layout takes it over). Subclasses with many blocks do this in bulk."""
        est = self._estimate
        return array("q", [max(1, est(block, width)) for block in range(len(self._blocks))])

    def _block_item(self, block: int) -> Any:
        """Everything needed to draw ``block``, taken on the main thread (drawing may
        happen on a worker thread while the pane moves on)."""
        return block

    def _draw_item(self, item: Any, out: Out) -> None:
        raise NotImplementedError

    def _block_cost(self, block: int) -> int:
        """Roughly how slow ``block`` is to draw (bytes of Markdown); see ``async_bytes``."""
        return 0

    def _resolve_artifact(self, path: str) -> str | None:
        return None

    def _block_entry(self, block: int, nth: int = 0) -> int | None:
        """The entry of ``block`` that holds its ``nth``-th search hit (None: not known)."""
        return None

    def _cursor_moved(self) -> None:
        """The user moved the cursor (a key, a click)."""

    # ------------------------------------------------------------------ read-only face
    # What the pane lays out and draws, for tests and tools (nothing here changes the view).
    @property
    def block_count(self) -> int:
        """How many blocks are laid out."""
        return len(self._blocks)

    def block_top(self, block: int) -> int:
        """The line of the scrolled area where ``block`` starts (``scroll_y`` there puts
        it at the top of the view)."""
        return self._heights.top(block)

    def block_height(self, block: int) -> int:
        """Block ``block``'s height in the layout: its real height once drawn, an estimate before."""
        return self._heights[block]

    @property
    def measured_count(self) -> int:
        """How many blocks have been drawn to learn their real height (the rest are estimates)."""
        return sum(self._measured)

    def block_lines(self, block: int) -> list[str]:
        """Block ``block``'s lines as the pane draws them at its width, as text (drawn now if
        not drawn yet; a placeholder while a slow block is drawn on a worker)."""
        return [strip.text for strip in self._rendered(block).strips]

    def block_actions(self, block: int) -> dict[int, tuple]:
        """What a click on a line of ``block`` does, by line: ``("fold", key)`` opens or
        closes a fold (:meth:`toggle_fold`), ``("open", path)`` opens a session file."""
        return dict(self._rendered(block).actions)

    @property
    def drawn_count(self) -> int:
        """How many drawn blocks are kept (those in view, drawn before, drawn ahead)."""
        return len(self._rcache)

    @property
    def drawing(self) -> bool:
        """Whether a block is being drawn on a worker thread (shown as a placeholder until
        it is done)."""
        return bool(self.worker_drawing.pending)

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

    def _state_key(self, block: int, common: tuple | None = None) -> StateKey:
        """What ``block`` looks like depends on: the block, the width, theme and session,
        the toggles it uses, the folds the user flipped in it, and a search hit in it."""
        if common is None:
            common = self._key_common()
        return self._key_of(self._block_key(block), common, bool(self.finder.hit_counts.get(block)))

    def _key_of(self, bkey: Hashable, common: tuple, hit: bool = False) -> StateKey:
        """:meth:`_state_key` of the block whose key is ``bkey`` (``hit``: a search hit is
        in it); also for blocks of a branch not shown yet (MessagePane.branch_ahead)."""
        width, look, toggles = common
        return StateKey(
            bkey,
            width,
            look,
            _masked(toggles, self._deps.get(bkey, ALL_TOGGLE_DEPS)),
            self._inverted.get(bkey, _EMPTY),
            self.finder.query_text if hit else None,
        )

    def _key_common(self) -> KeyCommon:
        """The parts of a :class:`StateKey` every block shares now."""
        return KeyCommon(self._width, (self.palette.name, self._generation), self._toggle_values)

    def _ctx(self, block: int | None, text_mode: bool = False) -> RenderCtx:
        inverted = self._inverted.get(self._block_key(block), frozenset()) if block is not None else frozenset()
        finder = self.finder
        query = finder.query if (text_mode or (block is not None and finder.hit_counts.get(block))) else None
        return RenderCtx(
            console=None if text_mode else self.app.console,
            palette=self.palette,
            toggles=self.toggles_on,
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
        rendered = out.result()
        if not rendered.strips:
            rendered.strips.append(Strip([]))
        return rendered

    @staticmethod
    def _refine(key: StateKey, deps: int | None) -> StateKey:
        """The state key once the block's dependencies on the toggles are known."""
        if deps is None:
            return key
        return key._replace(toggles=_masked(key.toggles, deps))

    def _store(self, block: int, key: tuple, rendered: Rendered) -> tuple:
        """Cache a rendered block under its state key (refined by what the render used)."""
        self._deps[key.block] = rendered.deps
        key = self._refine(key, rendered.deps)
        self._rcache.put(key, rendered)
        self._hcache[key] = rendered.height
        return key

    def _rendered(self, block: int) -> Rendered:
        key = self._state_key(block)
        got = self._rcache.get(key)
        if got is not None:
            self._rcache.move_to_end(key)
            return got
        if UNCAP in key.folds or (self.async_bytes is not None and self._block_cost(block) > self.async_bytes):
            return self.worker_drawing.render_later(block, key)
        rendered = self._draw(self._block_item(block), self._ctx(block), self._width)
        assert rendered is not None  # (only a drawing with should_stop can be given up)
        self.render_count += 1
        key = self._store(block, key, rendered)
        if rendered.pending_lexers:
            self.worker_drawing.await_lexers(key, rendered.pending_lexers)
        return rendered

    def _set_measured(self, block: int, height: int) -> None:
        self._heights.set(block, height)
        self._measured[block] = 1
        self._known.add(block)

    def _measure(self, block: int) -> int:
        rendered = self._rendered(block)
        self._set_measured(block, rendered.height)
        return rendered.height

    def block_text(self, block: int) -> str:
        out = Out(self._ctx(None, text_mode=True), 80)
        try:
            self._draw_item(self._block_item(block), out)
        except Exception:
            return ""
        return "\n".join(out.texts)

    # ------------------------------------------------------------------ layout
    def _set_blocks(self, blocks: list[Any]) -> None:
        self._blocks = blocks
        self._measured = bytearray(len(blocks))
        self._known = set()
        self._heights = Heights(array("q", [1]) * len(blocks))
        self.worker_drawing.placeheld.clear()
        self.finder.clear_state()

    def _relayout(self, anchor: tuple[int, int] | None = None, settle: bool = True) -> None:
        """Recompute every height (cached real ones or estimates), keep ``anchor`` (block,
        line offset) at the top of the view, and settle what is visible (unless the caller
        is about to scroll elsewhere)."""
        width = self._width
        if width <= 0:
            return
        count = len(self._blocks)
        heights = self._base_heights(width)
        measured = bytearray(count)
        hget = self._hcache.get
        common = self._key_common()
        key = self._state_key
        known = self._known
        for block in list(known):
            if block >= count:
                known.discard(block)
                continue
            height = hget(key(block, common))
            if height is not None:
                heights[block] = height
                measured[block] = 1
        self._heights.reset(heights)
        self._measured = measured
        self._update_virtual_size()
        if anchor is not None and 0 <= anchor[0] < len(self._blocks):
            block, off = anchor
            self._measure(block)
            off = min(off, self._heights[block] - 1)
            self._update_virtual_size()
            self._scroll_to_y(self._heights.top(block) + max(0, off))
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
        block = self._heights.block_at(y)
        return block, y - self._heights.top(block)

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
                todo = [block for block in range(first, last + 1) if not self._measured[block]]
                if not todo:
                    break
                anchor = next((block for block in range(first, last + 1) if self._measured[block]), first)
                screen = heights.top(anchor) - y  # where the anchor's top is on screen
                at_bottom = y > 0 and y >= self.max_scroll_y
                for block in todo:
                    self._measure(block)
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
            self.finder.match_cache.clear()
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

    # ------------------------------------------------------------------ the toggles
    def is_on(self, name: str) -> bool:
        """Whether the toggle ``name`` (``pane_toggles.py``) is on."""
        return name in self.toggles_on

    def set_toggle(self, name: str, on: bool) -> None:
        BY_NAME[name]  # (a name that is no toggle fails here)
        self.toggles_on = self.toggles_on | {name} if on else self.toggles_on - {name}

    def flip(self, name: str) -> bool:
        """Flip the toggle ``name``; returns whether it is on now."""
        on = not self.is_on(name)
        self.set_toggle(name, on)
        return on

    def action_flip_toggle(self, name: str) -> None:
        self.flip(name)

    def watch_toggles_on(self, old: frozenset[str], new: frozenset[str]) -> None:
        self._toggle_values = tuple(toggle.name in new for toggle in DRAWN_TOGGLES)
        for toggle in PANE_TOGGLES:
            if (toggle.name in old) != (toggle.name in new):
                self._toggled(toggle, toggle.name in new)

    def _toggled(self, toggle: PaneToggle, on: bool) -> None:
        """``toggle`` was flipped: forget the user's folds it overrides, and lay out the
        blocks again (those that did not ask for it keep their drawings). A toggle that
        changes which entries are blocks is the subclass's (MessagePane)."""
        if not toggle.drawn:
            return
        if toggle.forgets is not None:
            self._drop_inverted(toggle.forgets)
        self._relayout(self._top_anchor())

    def _drop_inverted(self, pred) -> None:
        """Forget the user's own folds of one kind (a global toggle overrides them)."""
        for key, keys in list(self._inverted.items()):
            keep = frozenset(key for key in keys if not pred(key.rsplit(":", 1)[-1]))
            if keep:
                self._inverted[key] = keep
            else:
                del self._inverted[key]

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
        self.pane_cursor.lines = self.pane_cursor.frame()
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
        block = heights.block_at(vy)
        if not self._measured[block]:
            self._measure(block)
            self._update_virtual_size()
            self.call_after_refresh(self._settle)
        rendered = self._rendered(block)
        line = vy - heights.top(block)
        if line >= rendered.height or line < 0:
            return Strip.blank(width, style)
        strip = rendered.strip(line)
        if self.finder.hit_counts.get(block) and line not in rendered.chrome:
            strip = self.finder.highlight(block, rendered, line, strip)
        # (both cached on the Strip: repeated frames make no new Strips)
        strip = strip.adjust_cell_length(width).apply_style(style)
        cursor = self.pane_cursor.lines if self._frame_style is not None else self.pane_cursor.frame()
        if cursor is not None and cursor[0] <= vy < cursor[1]:
            strip = self.pane_cursor.overlay(strip, vy)
        return strip

    # ------------------------------------------------------------------ folds and clicks
    def _line_at(self, vy: int) -> tuple[int, int] | None:
        if not self._blocks or vy < 0 or vy >= self._heights.total:
            return None
        block = self._heights.block_at(vy)
        return block, vy - self._heights.top(block)

    def toggle_fold(self, block: int, key: str) -> None:
        bkey = self._block_key(block)
        keys = set(self._inverted.get(bkey, frozenset()))
        keys ^= {key}
        self.worker_drawing.stop_drawing_all(bkey)  # (drawn whole again below if still wanted)
        if keys:
            self._inverted[bkey] = frozenset(keys)
        else:
            self._inverted.pop(bkey, None)
        anchor = self._top_anchor()
        self._measure(block)
        self._update_virtual_size()
        if anchor is not None and anchor[0] != block:
            self._scroll_to_y(self._heights.top(anchor[0]) + anchor[1])
        self._settle()
        self.refresh()

    def _do_action(self, block: int, action: tuple) -> None:
        if action[0] == "fold":
            self.toggle_fold(block, action[1])

    def on_click(self, event: events.Click) -> None:
        self.pane_cursor.click(event)

    def action_toggle_fold(self) -> None:
        """Open or close the fold, or follow the link, at the cursor."""
        self.pane_cursor.activate()

    # ------------------------------------------------------------------ the helpers' faces
    # The pane's cursor (cursor.py)
    @property
    def cursor_line(self) -> int | None:
        """The cursor's first line on screen (0: the pane's first line), None without blocks."""
        return self.pane_cursor.screen_line

    @property
    def cursor_action(self) -> tuple | None:
        """What Enter does at the cursor: ``("fold", key)``, ``("open", path)``, or None."""
        return self.pane_cursor.action

    def action_cursor_down(self) -> None:
        self.pane_cursor.move(1)

    def action_cursor_up(self) -> None:
        self.pane_cursor.move(-1)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.pane_cursor.style_changed()

    def on_focus(self) -> None:
        self.pane_cursor.focus_changed(True)

    def on_blur(self) -> None:
        self.pane_cursor.focus_changed(False)

    # The search (pane_search.py)
    def search(self, query: str) -> int:
        """Find ``query`` (case-insensitive) in every block (:meth:`PaneSearch.search`)."""
        return self.finder.search(query)

    def clear_search(self) -> None:
        self.finder.clear()

    def next_hit(self, backwards: bool = False) -> int | None:
        """Scroll to the next (or previous) hit; returns the entry it is in."""
        return self.finder.next_hit(backwards)

    @property
    def search_complete(self) -> bool:
        return self.finder.complete

    @property
    def search_query(self) -> str:
        return self.finder.search_query

    @property
    def hit_count(self) -> int:
        return self.finder.hit_count

    # The drawing on workers (worker_drawing.py)
    def draw_ahead(self, blocks: Iterable[int], should_stop: Callable[[], bool],
                   more: Iterable[Callable[[], Iterable[tuple]]] = ()) -> int:
        """Draw ``blocks`` ahead on a worker, into the caches (:meth:`WorkerDrawing.draw_ahead`)."""
        return self.worker_drawing.draw_ahead(blocks, should_stop, more)

    def blocks_from(self, block: int) -> list[int]:
        return self.worker_drawing.blocks_from(block)

    def blocks_beside_view(self) -> list[int]:
        return self.worker_drawing.blocks_beside_view()

    def on_lexers_made(self, message: LexersMade) -> None:
        self.worker_drawing.lexers_made(message)

    def on_block_drawing_stopped(self, message: BlockDrawingStopped) -> None:
        self.worker_drawing.block_drawing_stopped(message)

    def on_block_drawn_ahead(self, message: BlockDrawnAhead) -> None:
        self.worker_drawing.block_drawn_ahead(message)

    def on_block_drawn(self, message: BlockDrawn) -> None:
        self.worker_drawing.block_drawn(message)


def _toggle_attribute(name: str) -> property:
    def get(self: BlockScroller) -> bool:
        return name in self.toggles_on

    def put(self: BlockScroller, on: bool) -> None:
        self.set_toggle(name, bool(on))

    return property(get, put, doc=f"The toggle {name!r} is on (``pane_toggles.py``).")


# Each toggle's bool attribute (``pane.show_thinking``), read and set as the toggle.
for _toggle in PANE_TOGGLES:
    if _toggle.attr is not None:
        setattr(BlockScroller, _toggle.attr, _toggle_attribute(_toggle.name))
