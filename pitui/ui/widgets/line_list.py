"""A scrolling list of rows with a cursor, drawn with Textual's line API.

:class:`LineList` holds what the sidebar's session list, the search results and the branch
tree share: the cursor (``cursor_row``) moved by the keys (down, up, a page, the first and
the last row) and kept in view, clicks mapped to rows, the cursor's row highlighted (focused
or not), component styles cached until the CSS changes, the virtual size kept to the rows'
lines. ``render_line`` draws only the lines on screen, so a long list costs no more.

A subclass says how many rows it has (:attr:`row_count`), draws one line of a row
(:meth:`_row_line`; the tree has its own ``render_line``, which caches drawn rows) and what
a click on a row does (:meth:`_row_clicked`). Rows are one line each unless it says
otherwise (:meth:`_row_span`, :meth:`_row_at`, :meth:`_line_count`: the sidebar's sessions
take two). Its ``BINDINGS`` come from ``bindings.py`` under its own ids; the actions they
name (``cursor_down``, ``cursor_up``, ``page_down``, ``page_up``, ``first``, ``last``) are
defined here.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Offset, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..textual_internals import set_virtual_size_quietly
from ..text_fit import cut_segments

__all__ = ["LineList", "nearest_selectable"]


def nearest_selectable(rows: Sequence[Any], row: int, direction: int) -> int | None:
    """From ``row`` on in ``direction`` (1 down, -1 up) to the first row whose
    ``selectable`` is true, else back to the nearest one before ``row`` (None: there is none):
    where the cursor of a list with rows it skips (headings, blank lines) lands."""
    while 0 <= row < len(rows) and not rows[row].selectable:
        row += direction
    if not 0 <= row < len(rows):
        row -= direction
        while 0 <= row < len(rows) and not rows[row].selectable:
            row -= direction
    return row if 0 <= row < len(rows) else None


class LineList(ScrollView, can_focus=True):
    """Rows on lines, a cursor on one row (see the module docstring)."""

    #: The component classes of the cursor's row: with the cursor active, and not.
    CURSOR_CLASSES: ClassVar[tuple[str, str]]
    #: Lines above the cursor's row brought into view with it when the list scrolls up to it.
    LINES_ABOVE_CURSOR: ClassVar[int] = 0

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.cursor_row = 0
        self._styles: dict[str, Style] = {}

    # ------------------------------------------------------------------ rows and lines
    @property
    def row_count(self) -> int:
        raise NotImplementedError

    def _row_span(self, row: int) -> tuple[int, int]:
        """The lines ``row`` is drawn on: its first, and the one after its last."""
        return row, row + 1

    def _row_at(self, line: int) -> int:
        """The row drawn on ``line`` (out of range when none is)."""
        return line

    def _line_count(self) -> int:
        """How many lines the rows take."""
        return self.row_count

    def _update_virtual_size(self) -> None:
        """The scrollable size is the rows' lines (after the rows changed)."""
        self.virtual_size = Size(self.scrollable_content_region.width, self._line_count())

    def refresh_row(self, row: int) -> None:
        """Repaint the lines of ``row`` only."""
        if 0 <= row < self.row_count:
            start, end = self._row_span(row)
            self.refresh_lines(start, end - start)

    # ------------------------------------------------------------------ the cursor
    def _cursor_target(self, row: int, direction: int) -> int | None:
        """The row the cursor lands on when sent to ``row`` moving in ``direction`` (1
        down, -1 up): ``row`` kept within the rows (None: there are none)."""
        count = self.row_count
        if not count:
            return None
        return max(0, min(row, count - 1))

    def move_to_row(self, row: int, direction: int = 1) -> None:
        """Put the cursor on ``row`` (see :meth:`_cursor_target`) and bring it into view."""
        target = self._cursor_target(row, direction)
        if target is not None:
            self._put_cursor(target)

    def _put_cursor(self, row: int, **scroll: Any) -> None:
        """Put the cursor on ``row``, scroll it into view (``scroll``: what the widget's
        :meth:`_scroll_to_cursor` takes) and repaint: only the rows the cursor left and
        reached when nothing scrolled."""
        old = self.cursor_row
        self.cursor_row = row
        top = round(self.scroll_y)
        self._scroll_to_cursor(**scroll)
        if round(self.scroll_y) == top:
            self.refresh_row(old)
            self.refresh_row(row)
        else:
            self.refresh()

    def _scroll_to_cursor(self) -> None:
        """Scroll as little as brings the cursor's row into view."""
        height = self.scrollable_content_region.height
        if not 0 <= self.cursor_row < self.row_count or height <= 0:
            return
        top = round(self.scroll_y)
        start, end = self._row_span(self.cursor_row)
        if start < top:
            self.scroll_to(y=max(0, start - self.LINES_ABOVE_CURSOR), animate=False, force=True, immediate=True)
        elif end > top + height:
            self.scroll_to(y=end - height, animate=False, force=True, immediate=True)

    def _page_step(self) -> int:
        """The rows a page up or down moves the cursor by."""
        return max(1, self.scrollable_content_region.height - 1)

    def action_cursor_down(self) -> None:
        self.move_to_row(self.cursor_row + 1, 1)

    def action_cursor_up(self) -> None:
        self.move_to_row(self.cursor_row - 1, -1)

    def action_page_down(self) -> None:
        self.move_to_row(self.cursor_row + self._page_step(), 1)

    def action_page_up(self) -> None:
        self.move_to_row(self.cursor_row - self._page_step(), -1)

    def action_first(self) -> None:
        self.move_to_row(0, 1)

    def action_last(self) -> None:
        self.move_to_row(self.row_count - 1, -1)

    # ------------------------------------------------------------------ mouse
    def on_click(self, event: events.Click) -> None:
        at = event.get_content_offset(self)
        if at is None:
            return  # on the border or a scrollbar
        row = self._row_at(at.y + round(self.scroll_y))
        if 0 <= row < self.row_count:
            self._row_clicked(row, at, event)

    def _row_clicked(self, row: int, at: Offset, event: events.Click) -> None:
        """A click on ``row``, at ``at`` in the content area."""

    # ------------------------------------------------------------------ drawing
    def on_resize(self, event: events.Resize) -> None:
        size = Size(self.scrollable_content_region.width, self._line_count())
        if size.height != self.virtual_size.height:
            self.virtual_size = size
        elif size != self.virtual_size:
            # Only the width changed, which nothing else depends on (no horizontal
            # scrolling): no second layout of the whole screen for it.
            set_virtual_size_quietly(self, size)

    def _style(self, name: str) -> Style:
        """Component styles (and ``base``, the widget's own), cached until the CSS changes."""
        got = self._styles.get(name)
        if got is None:
            got = self.rich_style if name == "base" else self.get_component_rich_style(name)
            self._styles[name] = got
        return got

    def _cursor_active(self) -> bool:
        """Whether the cursor's row is drawn as active (else as blurred)."""
        return self.has_focus

    def _cursor_style(self, active: bool) -> Style:
        return self._style(self.CURSOR_CLASSES[0] if active else self.CURSOR_CLASSES[1])

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        line = y + round(self.scroll_y)
        row = self._row_at(line)
        if not 0 <= row < self.row_count or line >= self._line_count():
            return Strip.blank(width, self._style("base"))
        segments = self._row_line(row, line - self._row_span(row)[0], width)
        return self._finish_line(segments, width, row == self.cursor_row)

    def _row_line(self, row: int, sub: int, width: int) -> list[Segment]:
        """The segments of line ``sub`` of ``row`` (:meth:`_finish_line` cuts them to ``width``)."""
        raise NotImplementedError

    def _finish_line(self, segments: list[Segment], width: int, on_cursor: bool) -> Strip:
        """``segments`` as a line ``width`` cells wide: on the cursor's background when
        ``on_cursor``, cut with "…" when longer, padded when shorter."""
        base = self._style("base")
        bg = None
        if on_cursor:
            bg = self._cursor_style(self._cursor_active()).bgcolor
            segments = [Segment(text, (style or base) + Style(bgcolor=bg)) for text, style, _ in segments]
        segments = cut_segments(segments, width)
        fill = base + Style(bgcolor=bg) if bg is not None else base
        return Strip(segments).adjust_cell_length(width, fill)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self.refresh()

    def on_focus(self) -> None:
        self.refresh_row(self.cursor_row)

    def on_blur(self) -> None:
        self.refresh_row(self.cursor_row)
