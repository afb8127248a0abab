"""The pane's cursor, a helper of :class:`BlockScroller`: the place Enter acts on, an
entry or a fold or link inside it.

The cursor rests on *stops*: each block's header line, each tool result's first line (a
block's sections) and the first line of each fold or link (a line with an action). Up and
down go to the previous / next stop, scrolling as little as shows it; a stop more than a
page beyond the view is not jumped to: the view moves a page and the cursor with it, so
no text is skipped. A click puts the cursor on the line clicked. When the view has left
the cursor behind (scrolled past it, another branch shown), the cursor comes back on the
first fold or link in view (the last one, when the view went up), else on the first (or
last) stop in view: the next time it is drawn or used, never in between.

The cursor is kept as (block key, block, line in the block): a block's index stays while
heights around it change, and its key says when the block there is another one. It is
drawn over the lines on screen (``render_line`` calls :meth:`PaneCursor.overlay`), only while
the pane has focus: no block is drawn again for it, and a move repaints the lines it
left and reached.
"""

from __future__ import annotations

from typing import Any, Hashable

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from .canvas import Rendered

__all__ = ["PaneCursor"]

#: Drawn in the first column of the cursor's lines.
CURSOR_MARK = "▌"


def _stops(rendered: Rendered) -> list[int]:
    """The lines of a drawn block the cursor rests on, in order."""
    height = rendered.height
    actions = rendered.actions
    stops = {0}  # the header (or the note above it)
    stops.update(ln for ln, _ in rendered.sections if 0 <= ln < height)
    stops.update(ln for ln, action in actions.items() if actions.get(ln - 1) != action)
    return sorted(stops)


def _span(rendered: Rendered, line: int) -> int:
    """How many lines from ``line`` the cursor covers: a fold or link's lines, else one."""
    action = rendered.actions.get(line)
    if action is None:
        return 1
    lines = 1
    while rendered.actions.get(line + lines) == action:
        lines += 1
    return lines


class PaneCursor:
    """The cursor of ``pane`` (a :class:`BlockScroller`, whose layout it reads): see the
    module docstring. The pane hands it its keys, clicks, focus and lines to draw."""

    def __init__(self, pane: Any) -> None:
        self.pane = pane
        self._where: tuple[Hashable, int, int] | None = None  # (block key, block, line)
        self._styles: tuple[Style, Style] | None = None  # (the mark, the lines)
        self.lines: tuple[int, int] | None = None  # virtual lines drawn as the cursor now

    # ------------------------------------------------------------------ public state
    @property
    def screen_line(self) -> int | None:
        """The cursor's first line on screen (0: the pane's first line), None without blocks."""
        at = self.at()
        if at is None:
            return None
        return self.pane._heights.top(at[0]) + at[1] - round(self.pane.scroll_y)

    @property
    def action(self) -> tuple | None:
        """What Enter does at the cursor: ``("fold", key)``, ``("open", path)``, or None."""
        at = self.at()
        return None if at is None else self.pane._rendered(at[0]).actions.get(at[1])

    # ------------------------------------------------------------------ where it is
    def _view(self) -> tuple[int, int]:
        return round(self.pane.scroll_y), max(1, self.pane.scrollable_content_region.height)

    def set(self, block: int, line: int, repaint: bool = True) -> None:
        """Put the cursor there, repainting the lines it left and the lines it reached."""
        old = self.lines
        self._where = (self.pane._block_key(block), block, line)
        if not repaint:
            return
        if old is not None:
            self.pane.refresh_lines(old[0], old[1] - old[0])
        self.pane.refresh_lines(self.pane._heights.top(block) + line, _span(self.pane._rendered(block), line))

    def scroll_into_view(self) -> None:
        """Scroll as little as shows the cursor's lines (again if drawing the blocks that
        came into view moved them)."""
        for _ in range(3):
            if self._where is None:
                return
            _, block, line = self._where
            y = self.pane._heights.top(block) + line
            span = _span(self.pane._rendered(block), line)
            top, height = self._view()
            if y < top:
                self.pane._scroll_to_y(y)
            elif y + span > top + height:
                self.pane._scroll_to_y(min(y, y + span - height))
            else:
                return

    def at(self) -> tuple[int, int] | None:
        """The cursor's (block, line), brought back into view first when the view left it."""
        if not self.pane._blocks or self.pane._width <= 0:
            return None
        top, height = self._view()
        cur = self._where
        down = True
        if cur is not None:
            key, block, line = cur
            if block < len(self.pane._blocks) and self.pane._block_key(block) == key:
                if self.pane._measured[block]:
                    line = min(line, self.pane._heights[block] - 1)
                y = self.pane._heights.top(block) + line
                if top <= y < top + height:
                    return block, line
                down = y < top  # the view went down past it
        at, final = self._stop_in_view(down)
        if at is not None and final:
            # (the lines it left are out of view; drawn in a frame, the lines it reached
            # are being drawn now: a repaint asked for here would be a second frame)
            self.set(*at, repaint=self.pane._frame_style is None)
        return at

    def _stop_in_view(self, first: bool) -> tuple[tuple[int, int] | None, bool]:
        """The first (or last) fold or link in view; else the first (last) stop in view;
        else the first (last) line in view. Blocks in view not drawn yet are drawn (as
        the frame that shows them would), so that their stops count; and whether that is
        final (False while a block in view is a placeholder for a drawing on a worker)."""
        top, height = self._view()
        heights = self.pane._heights
        if heights.total <= 0:
            return None, True
        final = True
        actions: list[tuple[int, int]] = []
        stops: list[tuple[int, int]] = []
        y = top
        while y < min(top + height, heights.total):
            block = heights.block_at(y)
            if not self.pane._measured[block]:
                self.pane._measure(block)
                self.pane._update_virtual_size()
                self.pane.call_after_refresh(self.pane._settle)  # (as render_line does)
            rendered = self.pane._rendered(block)
            final = final and block not in self.pane.worker_drawing.placeheld
            btop = heights.top(block)
            for ln in _stops(rendered):
                if top <= btop + ln < top + height:
                    (actions if ln in rendered.actions else stops).append((block, ln))
            y = btop + heights[block]
        for found in (actions, stops):
            if found:
                return (found[0] if first else found[-1]), final
        y = top if first else min(top + height, heights.total) - 1
        block = heights.block_at(y)
        return (block, y - heights.top(block)), final

    def _measure_keeping_view(self, block: int) -> None:
        """Draw ``block`` (for its stops) keeping what is on screen where it is."""
        if self.pane._measured[block]:
            return
        anchor = self.pane._top_anchor()
        self.pane._measure(block)
        self.pane._update_virtual_size()
        if anchor is not None and anchor[0] > block:
            self.pane._scroll_to_y(self.pane._heights.top(anchor[0]) + anchor[1])

    def _next_stop(self, block: int, line: int, step: int) -> tuple[int, int] | None:
        """The stop after (``step`` 1) or before (-1) line ``line`` of ``block``."""
        stops = _stops(self.pane._rendered(block))
        if step > 0:
            after = [stop for stop in stops if stop > line]
            if after:
                return block, after[0]
            if block + 1 < len(self.pane._blocks):
                self._measure_keeping_view(block + 1)
                return block + 1, _stops(self.pane._rendered(block + 1))[0]
            return None
        before = [stop for stop in stops if stop < line]
        if before:
            return block, before[-1]
        if block > 0:
            self._measure_keeping_view(block - 1)
            return block - 1, _stops(self.pane._rendered(block - 1))[-1]
        return None

    # ------------------------------------------------------------------ moving it
    def move(self, step: int) -> None:
        """To the next stop (``step`` 1) or the previous one (-1); see the module docstring."""
        at = self.at()
        if at is None:
            return
        target = self._next_stop(*at, step)
        top, height = self._view()
        heights = self.pane._heights
        if target is not None:
            y = heights.top(target[0]) + target[1]
            near = y < top + 2 * height - 1 if step > 0 else y >= top - height + 1
            if near:
                self.set(*target)
                self.scroll_into_view()
                self.pane._cursor_moved()
                return
        # nothing near: a page, with the cursor on its far edge
        new_top = max(0, min(top + step * max(1, height - 1), round(self.pane.max_scroll_y)))
        if new_top != top:
            self.pane._scroll_to_y(new_top)
        top, height = self._view()
        y = min(top + height, heights.total) - 1 if step > 0 else top
        block = heights.block_at(y)
        line = y - heights.top(block)
        if self._where is not None and self._where[1:] == (block, line):
            self.pane.app.bell()  # at the very end (or start) already
            return
        self.set(block, line)
        self.pane._cursor_moved()

    def place(self, block: int, line: int) -> None:
        """Put the cursor on line ``line`` of ``block`` (the first line of a fold or
        link there): a click."""
        actions = self.pane._rendered(block).actions
        action = actions.get(line)
        while action is not None and line > 0 and actions.get(line - 1) == action:
            line -= 1
        self.set(block, line)
        self.pane._cursor_moved()

    def click(self, event: Any) -> None:
        """A click: the cursor on the line clicked, and its fold or link acted on."""
        pane = self.pane
        offset = event.get_content_offset(pane)
        if offset is None:
            return
        hit = pane._line_at(offset.y + round(pane.scroll_y))
        if hit is None:
            return
        block, line = hit
        self.place(block, line)
        action = pane._rendered(block).actions.get(line)
        if action is not None:
            event.stop()
            pane._do_action(block, action)

    def activate(self) -> None:
        """Enter: open or close the fold, or follow the link, at the cursor."""
        at = self.at()
        if at is None:
            return
        block, line = at
        action = self.pane._rendered(block).actions.get(line)
        if action is None:
            self.pane.app.bell()  # (an entry's header, or text: nothing to open there)
            return
        self.pane._do_action(block, action)

    # ------------------------------------------------------------------ drawing it
    def frame(self) -> tuple[int, int] | None:
        """The virtual lines drawn as the cursor (None: none, the pane has no focus)."""
        if not self.pane.has_focus:
            return None
        at = self.at()
        if at is None:
            return None
        block, line = at
        y = self.pane._heights.top(block) + line
        return y, y + _span(self.pane._rendered(block), line)

    def overlay(self, strip: Strip, vy: int) -> Strip:
        """Line ``vy`` (``strip``, drawn at the pane's width) as a line of the cursor."""
        styles = self._styles
        if styles is None:
            style = self.pane.get_component_rich_style("block-scroller--cursor")
            styles = self._styles = (Style(color=style.color, bgcolor=style.bgcolor, bold=True),
                                            Style(bgcolor=style.bgcolor))
        mark, under = styles
        segs = [Segment(CURSOR_MARK, mark)]
        segs.extend(Segment(text, style + under if style else under) for text, style, _ in strip.crop(1, strip.cell_length))
        return Strip(segs, strip.cell_length)

    def style_changed(self) -> None:
        self._styles = None

    def focus_changed(self, focused: bool) -> None:
        """The pane took or lost focus: the cursor's lines drawn again (as they are now,
        or as last drawn)."""
        lines = self.frame() if focused else self.lines
        if lines is not None:
            self.pane.refresh_lines(lines[0], lines[1] - lines[0])
