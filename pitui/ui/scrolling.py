"""Setting a scrolling widget's virtual size without laying out the whole screen again."""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget

__all__ = ["set_virtual_size_quietly"]


def set_virtual_size_quietly(widget: Widget, size: Size) -> None:
    """Give ``widget`` the virtual size ``size`` with no layout pass of the screen (10-40 ms
    and a second frame, where ``widget.virtual_size = size`` asks for one): its scrollbars
    are brought up to date and it is repainted. For a size that no other widget's place
    depends on (each caller says why its own does not)."""
    widget.set_reactive(Widget.virtual_size, size)
    if widget.is_mounted and widget.container_size:
        widget._scroll_update(size)
    widget.refresh()
