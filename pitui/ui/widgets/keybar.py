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
            w = 1 + cell_len(pal.display) + (1 + cell_len(pal.description) if pal.description else 0) + 1
            right = width - w if w <= width else width

        def width_of(k: KeyItem) -> int:
            return cell_len(k.display) + 2 + (cell_len(k.description) + 1 if k.description else 0)

        x = 0

        def fill(keys: list[KeyItem], limit: int) -> None:
            """Place ``keys`` from ``x`` on, in order, while they end by ``limit``."""
            nonlocal x
            for k in keys:
                w = width_of(k)
                if x + w > limit:
                    break
                placed.append(_at(k, x, x + w))
                x += w

        # Quit and Help stay at any width: the room they need is kept for them, and the
        # other keys fill what is left, in order
        kept = [k for k in self._keys if k.action in ALWAYS_SHOWN]
        fill([k for k in self._keys if k.action not in ALWAYS_SHOWN], right - sum(map(width_of, kept)))
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
        x = 0
        for n, k in enumerate(placed):
            is_palette = with_palette and n == len(placed) - 1
            if k.start > x:
                text.append(" " * (k.start - x), blank)
            ks, ds = key_style, desc_style
            if n == self._hover:
                ks, ds = ks + hover_style, ds + hover_style
            if not k.enabled:
                ks, ds = ks + dim, ds + dim
            if is_palette:
                text.append("▏", base + sep_style)
                text.append(k.display, ks)
                if k.description:
                    text.append(" " + k.description, ds)
                text.append(" ", base)
            else:
                text.append(f" {k.display} ", ks)
                if k.description:
                    text.append(f"{k.description} ", ds)
            x = k.end
        if x < width:
            text.append(" " * (width - x), blank)
        return text

    # ------------------------------------------------------------------ the mouse
    def _item_at(self, x: int) -> int | None:
        for n, k in enumerate(self._placed):
            if k.start <= x < k.end:
                return n
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        n = self._item_at(event.x)
        if n != self._hover:
            self._hover = n
            k = self._placed[n] if n is not None else None
            self.tooltip = (k.tooltip or None) if k is not None else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        n = self._item_at(event.x)
        if n is None:
            return
        k = self._placed[n]
        if k.enabled:
            self.app.simulate_key(k.key)
        else:
            self.app.bell()


def _at(k: KeyItem, start: int, end: int) -> KeyItem:
    return KeyItem(k.key, k.display, k.description, k.action, k.enabled, k.tooltip, start, end)
