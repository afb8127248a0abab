"""``?``: every key, from the bindings table (remapped keys show as remapped)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..bindings import EXTRA_HELP, KEYS, NOTES, SECTIONS, bindings_for, keymap_of

__all__ = ["HelpScreen", "help_sections"]


def help_sections(app) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """``[(section, [(keys, what, binding id), ...]), ...]`` from the bindings table, with
    the app's keymap applied."""
    keymap = keymap_of(app)
    out = []
    for title in SECTIONS:
        rows = []
        for key_def in KEYS:
            if key_def.section != title:
                continue
            keys = keymap.get(key_def.id, key_def.keys)
            shown = [app.get_key_display(Binding(key.strip(), key_def.action)) for key in keys.split(",") if key.strip()]
            rows.append((" ".join(shown), key_def.what, key_def.id))
        rows.extend((keys, what, "") for keys, what in EXTRA_HELP.get(title, []))
        out.append((title, rows))
    return out


class HelpScreen(ModalScreen[None]):
    """Keys, grouped, with what each one does."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 124; max-width: 95%; height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    HelpScreen #help-title { height: 1; text-style: bold; color: $text-accent; text-wrap: nowrap; text-overflow: ellipsis; }
    HelpScreen #help-hint { height: auto; color: $text-muted; }
    """

    BINDINGS = bindings_for("help")

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("pitui: keys", id="help-title", markup=False)
            with VerticalScroll(id="help-body"):
                yield Static(self._table(), id="help-table")
                yield Static(Text(NOTES, style="italic"), id="help-notes")
            yield Static(
                "Esc, q or ? closes · mouse: click rows, the ⊟/⊞ marks fold · remap: PITUI_KEYMAP='id=key;…' (ids on the right)",
                id="help-hint",
                markup=False,
            )

    def _table(self) -> Table:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", min_width=14)
        table.add_column()
        table.add_column(style="dim")
        for title, rows in help_sections(self.app):
            table.add_row("", Text(title, style="bold underline"), "")
            for keys, what, bid in rows:
                table.add_row(keys, what, bid)
            table.add_row("", "", "")
        return table

    def action_close(self) -> None:
        self.dismiss(None)
