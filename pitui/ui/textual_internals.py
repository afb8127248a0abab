"""Every use of Textual's private API, in one place.

pitui draws big sessions at key speed by steering a few of Textual's internals: setting a
scrolling widget's size without a layout of the whole screen, laying the screen out at
once, holding paints back until the screen has settled. Textual is pinned in
pyproject.toml; :data:`NAMES` lists every private name used here and
``tests/ui/test_textual_internals.py`` checks each still exists, so an upgrade that removes
one fails loudly in the tests rather than quietly in the app. Nothing outside this module
touches a private Textual name.
"""

from __future__ import annotations

from textual.app import App
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget

__all__ = ["NAMES", "missing_names", "set_virtual_size_quietly", "lay_out_now", "PaintGate",
           "begin_batch", "end_batch", "has_pending_work", "write_to_terminal"]

#: (class, name): the private methods used here; instance flags are checked on instances.
NAMES: tuple[tuple[type, str], ...] = (
    (Widget, "_scroll_update"),
    (Screen, "_refresh_layout"),
    (Screen, "_compositor_refresh"),
    (App, "_begin_batch"),
    (App, "_end_batch"),
)
#: Attributes every widget (and screen) has once constructed.
INSTANCE_NAMES = ("_layout_required", "_repaint_required", "_scroll_required", "_message_queue")
SCREEN_INSTANCE_NAMES = ("_dirty_widgets",)
APP_INSTANCE_NAMES: tuple[str, ...] = ("_driver",)  # (the keymap pitui gave is its own, PituiApp.keymap)


def missing_names(widget: Widget, screen: Screen) -> list[str]:
    """Which of the private names used here this Textual lacks (none, when pinned right)."""
    missing = [f"{cls.__name__}.{name}" for cls, name in NAMES if not callable(getattr(cls, name, None))]
    missing += [f"Widget().{name}" for name in INSTANCE_NAMES if not hasattr(widget, name)]
    missing += [f"Screen().{name}" for name in SCREEN_INSTANCE_NAMES if not hasattr(screen, name)]
    missing += [f"App().{name}" for name in APP_INSTANCE_NAMES if not hasattr(screen.app, name)]
    return missing


def write_to_terminal(app: App, text: str) -> None:
    """Write ``text`` to the terminal as it is (a desktop notification's sequence), as
    ``App.bell`` writes its BEL; nothing when headless (tests) or without a driver. The
    caller makes the text safe: nothing from a session reaches it unsanitised."""
    driver = getattr(app, "_driver", None)
    if not app.is_headless and driver is not None:
        driver.write(text)


def set_virtual_size_quietly(widget: Widget, size: Size) -> None:
    """Give ``widget`` the virtual size ``size`` with no layout pass of the screen (and no
    second frame, where ``widget.virtual_size = size`` asks for one): its scrollbars are
    brought up to date and it is repainted. For a size that no other widget's place
    depends on (each caller says why its own does not)."""
    widget.set_reactive(Widget.virtual_size, size)
    if widget.is_mounted and widget.container_size:
        widget._scroll_update(size)
    widget.refresh()


def lay_out_now(screen: Screen) -> None:
    """Textual's layout pass of ``screen``, run now rather than at the next frame, and
    batched: nothing is painted until the frame after this one's handler. Should this ever
    fail, the layout simply happens at the next frame."""
    try:
        with screen.app.batch_update():
            screen._refresh_layout()
        # (what Textual's own frame does after its layout pass)
        screen._layout_required = False
        screen._dirty_widgets.clear()
    except Exception:
        pass


def begin_batch(app: App) -> None:
    """No layout pass nor paint at Textual's frames until :func:`end_batch`."""
    app._begin_batch()


def end_batch(app: App) -> None:
    app._end_batch()


def has_pending_work(screen: Screen) -> bool:
    """Whether ``screen`` or a widget shown on it still has a layout, repaint or scroll
    to do, or a message queued: it has not settled yet."""
    if not screen._message_queue.empty():
        return True
    for widget in screen.walk_children():
        if widget.display and (widget._layout_required or widget._repaint_required or widget._scroll_required
                               or not widget._message_queue.empty()):
            return True
    return False


class PaintGate(Screen):
    """A screen that can hold its paints back: while :meth:`paint_held` says so, Textual's
    compositor refresh (the paint of the screen) does nothing. Kept for the frames it spares
    ``pitui FILE`` (the key bar alone while the file is read, the tree drawn once without
    its scrollbar), not for speed: measured in docs/architecture.md."""

    def paint_held(self) -> bool:
        return False

    def _compositor_refresh(self) -> None:
        if self.paint_held():
            return
        super()._compositor_refresh()
