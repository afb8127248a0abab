"""``Splitter``: the one-column gap between two panels that the mouse drags to resize them.

It holds the mouse from the press to the release (so a drag goes on over other widgets) and
says where the pointer is, in screen columns, with :class:`Splitter.Dragged`; the screen
decides what that means for the panels' widths. Only its own events come here: the rest of
the screen's mouse traffic never passes through it.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["Splitter"]


class Splitter(Widget):
    """A column between two panels: dragged, it posts :class:`Dragged`."""

    ALLOW_SELECT = False  # (a press here starts a drag, never a text selection)

    DEFAULT_CSS = """
    Splitter {
        width: 1;
        height: 1fr;
        color: $foreground 20%;
    }
    Splitter:hover, Splitter.-dragging {
        color: $accent;
    }
    """

    class Dragged(Message):
        """The pointer is at screen column ``x`` while ``splitter`` is dragged; ``done`` on
        the release."""

        def __init__(self, splitter: "Splitter", x: int, done: bool) -> None:
            super().__init__()
            self.splitter = splitter
            self.x = x
            self.done = done

        @property
        def control(self) -> "Splitter":
            return self.splitter

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._x = 0  # the pointer's last screen column in a drag
        # The one line drawn on every row, made once per look: working out its colours
        # (rich_style walks every ancestor's styles) for each of the screen's rows was
        # a part of every full repaint. Made again after a restyle or a refresh (the
        # mouse over it, a drag, a theme), as Textual's own style caches are.
        self._line: Strip | None = None

    def notify_style_update(self) -> None:
        self._line = None
        super().notify_style_update()

    def refresh(self, *regions, **kwargs) -> Splitter:
        self._line = None
        return super().refresh(*regions, **kwargs)

    def render_line(self, y: int) -> Strip:
        # a thin line, seen only under the mouse and while dragged (then in the accent
        # colour): at rest the panels' own borders show where they meet
        if self._line is None:
            glyph = "┃" if self.mouse_hover or self.has_class("-dragging") else " "
            style = self.rich_style
            color = style.color if glyph != " " else None
            self._line = Strip([Segment(glyph, Style(color=color, bgcolor=style.bgcolor))], 1)
        return self._line

    def on_mouse_down(self, event: events.MouseDown) -> None:
        event.stop()
        self._x = event.screen_x
        self.add_class("-dragging")
        self.capture_mouse()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self.has_class("-dragging") and event.screen_x != self._x:
            event.stop()
            self._x = event.screen_x
            self.post_message(self.Dragged(self, self._x, done=False))

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self.has_class("-dragging"):
            event.stop()
            self._x = event.screen_x
            self.release_mouse()

    def on_mouse_release(self, event: events.MouseRelease) -> None:
        # the drag ends: released here, or the mouse taken by something else
        if self.has_class("-dragging"):
            self.remove_class("-dragging")
            self.post_message(self.Dragged(self, self._x, done=True))

    def on_enter(self, event: events.Enter) -> None:
        self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        self.refresh()
