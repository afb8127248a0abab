"""``?``: every key, built from the bindings themselves (so remapped keys show as remapped)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

__all__ = ["HelpScreen", "help_sections"]

# (section title, binding ids in order)
SECTIONS: list[tuple[str, list[str]]] = [
    ("Move in the tree", ["tree.down", "tree.up", "tree.page_down", "tree.page_up", "tree.first", "tree.last",
                          "nav.root", "nav.leaf", "nav.prev_user", "nav.next_user"]),
    ("Branches", ["nav.prev_sibling", "nav.next_sibling", "nav.prev_fork", "nav.next_fork", "tree.fold",
                  "tree.filter"]),
    ("Messages", ["view.thinking", "view.tool_output", "view.hidden", "search.start", "search.next", "search.prev",
                  "view.zoom"]),
    ("Session", ["session.context", "session.stats", "session.copy", "session.pager", "session.warnings",
                 "session.back", "search.all", "session.follow", "session.export_md", "session.copy_entry",
                 "session.copy_id", "session.copy_path"]),
    ("Sidebar (when focused, typing filters)", ["sidebar.open", "sidebar.sort", "sidebar.named", "sidebar.clear"]),
    ("App", ["app.help", "app.quit"]),
]

EXTRA = {
    "App": [("tab / shift+tab", "Move between the sidebar, the tree and the message pane"),
            ("ctrl+p", "Command palette: every action, filter modes, sessions by name")],
}

NOTES = """\
[ and ] switch between the branches of the nearest fork. On the first entry of a branch they
go to its previous / next sibling; on a fork they go to the fork's branches (from the one the
pane shows); anywhere else, to the siblings of the branch you are in at the nearest fork above.
{ and } jump to the previous / next fork (an entry with several branches) on the branch the
pane shows. g and G go to the root and to the leaf of that branch; u and U to the previous /
next user message on it. The filter (f) decides which entries are rows: default, no-tools,
user-only, labeled-only, all; a hidden entry's children hang from its nearest shown ancestor.
The pane shows the branch through the selection: the one already shown while the selection
stays on it, else Pi's current branch or the newest leaf below the selection."""


def _all_bindings() -> dict[str, Binding]:
    from .app import BrowserScreen, PituiApp
    from .sidebar import SessionList
    from .tree_view import BranchTree

    out: dict[str, Binding] = {}
    for cls in (BranchTree, BrowserScreen, SessionList, PituiApp):
        for b in cls.BINDINGS:
            if isinstance(b, Binding) and b.id:
                out[b.id] = b
    return out


def help_sections(app) -> list[tuple[str, list[tuple[str, str]]]]:
    """``[(section, [(keys, what, binding id), ...]), ...]`` with the app's keymap applied."""
    bindings = _all_bindings()
    keymap = getattr(app, "_keymap", {}) or {}
    out = []
    for title, ids in SECTIONS:
        rows = []
        for bid in ids:
            b = bindings.get(bid)
            if b is None:
                continue
            keys = keymap.get(bid, b.key)
            shown = []
            for k in keys.split(","):
                k = k.strip()
                if not k:
                    continue
                shown.append(app.get_key_display(Binding(k, b.action)))
            what = b.tooltip or b.description
            rows.append((" ".join(shown), what, bid))
        rows.extend((k, w, "") for k, w in EXTRA.get(title, []))
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
    HelpScreen #help-title { height: 1; text-style: bold; color: $text-accent; }
    HelpScreen #help-hint { height: 1; color: $text-muted; }
    """

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help.close")]

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
