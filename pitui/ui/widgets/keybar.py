"""The key bar at the bottom of a screen: the keys that work where the focus is.

It shows what Textual's ``Footer`` shows, looks the same, and answers the mouse the same
way (a click presses the key, a disabled key rings the bell, each key has its tooltip),
but it is one widget drawing one line. ``Footer`` makes a widget per key and makes them
all again whenever the focus moves or a key is enabled or disabled: on a busy machine
50-250 ms of the user interface's time, on every Tab and on the first session shown.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget

__all__ = ["KeyBar", "KeyItem", "ALWAYS_SHOWN"]

#: The actions whose keys the bar shows at any width (a newcomer's way out and way in).
ALWAYS_SHOWN = frozenset({"quit", "help", "app.quit", "app.help"})


# (a NamedTuple rather than a frozen dataclass: several times quicker to make as this module
# loads, before the first screen: benchmarks/startup_budget.py)
class KeyItem(NamedTuple):
    """One key shown: where it is drawn (columns ``start``..``end``) and what it does."""

    key: str
    display: str
    description: str
    action: str
    enabled: bool
    tooltip: str
    start: int = 0
    end: int = 0


class KeyBar(Widget, can_focus=False):
    """One line of keys, docked at the bottom; the command palette's key on the right."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"keybar--key", "keybar--description", "keybar--hover", "keybar--separator"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .keybar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .keybar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .keybar--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        & > .keybar--separator {
            color: $foreground 20%;
        }
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._keys: tuple[KeyItem, ...] = ()  # left to right, the palette's last
        self._palette: KeyItem | None = None
        self._hover: int | None = None  # index in _placed of the key under the mouse
        self._placed: tuple[KeyItem, ...] = ()  # the keys drawn at the last width, placed

    @property
    def items(self) -> tuple[KeyItem, ...]:
        """The keys shown (the command palette's last), placed at the current width."""
        return self._placed

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen) -> None:
        if not self.is_attached or screen is not self.screen:
            return
        keys: list[KeyItem] = []
        seen: set[str] = set()
        active = screen.active_bindings
        for _node, binding, enabled, tooltip in active.values():
            if not binding.show or binding.action in seen:
                continue  # (as Footer: one key per action, the first bound)
            seen.add(binding.action)
            keys.append(KeyItem(binding.key, self.app.get_key_display(binding), binding.description,
                                binding.action, enabled, tooltip or ""))
        palette = None
        if self.app.ENABLE_COMMAND_PALETTE:
            got = active.get(self.app.COMMAND_PALETTE_BINDING)
            if got is not None:
                _node, binding, enabled, tooltip = got
                palette = KeyItem(binding.key, self.app.get_key_display(binding), binding.description,
                                  binding.action, enabled, binding.tooltip or binding.description)
        if tuple(keys) != self._keys or palette != self._palette:
            self._keys, self._palette = tuple(keys), palette
            self._hover = None
            self.refresh()

    # ------------------------------------------------------------------ drawing
    def _place(self, width: int) -> tuple[tuple[KeyItem, ...], bool]:
        """The keys that fit in ``width`` columns with their columns: " key description "
        from the left, the palette's "▏key description " at the right end (and whether
        it is there)."""
        placed: list[KeyItem] = []
        right = width
        pal = self._palette
        if pal is not None:
            cells = 1 + cell_len(pal.display) + (1 + cell_len(pal.description) if pal.description else 0) + 1
            right = width - cells if cells <= width else width

        def width_of(item: KeyItem) -> int:
            return cell_len(item.display) + 2 + (cell_len(item.description) + 1 if item.description else 0)

        x = 0

        def fill(keys: list[KeyItem], limit: int) -> None:
            """Place ``keys`` from ``x`` on, in order, while they end by ``limit``."""
            nonlocal x
            for item in keys:
                cells = width_of(item)
                if x + cells > limit:
                    break
                placed.append(_at(item, x, x + cells))
                x += cells

        # Quit and Help stay at any width: the room they need is kept for them, and the
        # other keys fill what is left, in order
        kept = [item for item in self._keys if item.action in ALWAYS_SHOWN]
        fill([item for item in self._keys if item.action not in ALWAYS_SHOWN], right - sum(map(width_of, kept)))
        fill(kept, right)
        if pal is not None and right < width:
            placed.append(_at(pal, right, width))
            return tuple(placed), True
        return tuple(placed), False

    def render(self) -> Text:
        width = self.size.width
        placed, with_palette = self._place(width)
        if placed != self._placed:
            self._placed = placed
            self._hover = None
        key_style = self.get_component_rich_style("keybar--key")
        desc_style = self.get_component_rich_style("keybar--description")
        hover_style = self.get_component_rich_style("keybar--hover")
        sep_style = self.get_component_rich_style("keybar--separator")
        dim = Style(dim=True)
        base = self.rich_style
        blank = Style(bgcolor=base.bgcolor)  # (what lies between keys: the bar's background alone)
        key_style, desc_style = base + key_style, base + desc_style
        text = Text(no_wrap=True, overflow="crop", end="")
        column = 0
        for index, item in enumerate(placed):
            is_palette = with_palette and index == len(placed) - 1
            if item.start > column:
                text.append(" " * (item.start - column), blank)
            ks, ds = key_style, desc_style
            if index == self._hover:
                ks, ds = ks + hover_style, ds + hover_style
            if not item.enabled:
                ks, ds = ks + dim, ds + dim
            if is_palette:
                text.append("▏", base + sep_style)
                text.append(item.display, ks)
                if item.description:
                    text.append(" " + item.description, ds)
                text.append(" ", base)
            else:
                text.append(f" {item.display} ", ks)
                if item.description:
                    text.append(f"{item.description} ", ds)
            column = item.end
        if column < width:
            text.append(" " * (width - column), blank)
        return text

    # ------------------------------------------------------------------ the mouse
    def _item_at(self, column: int) -> int | None:
        for index, item in enumerate(self._placed):
            if item.start <= column < item.end:
                return index
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        index = self._item_at(event.x)
        if index != self._hover:
            self._hover = index
            item = self._placed[index] if index is not None else None
            self.tooltip = (item.tooltip or None) if item is not None else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self._item_at(event.x)
        if index is None:
            return
        item = self._placed[index]
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()


def _at(item: KeyItem, start: int, end: int) -> KeyItem:
    return KeyItem(item.key, item.display, item.description, item.action, item.enabled, item.tooltip, start, end)
