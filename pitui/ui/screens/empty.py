"""The screen shown when there is no session at all: where pitui looked, how that folder
was chosen, and the way to the demo."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

from ...core.store.discovery import SessionRoot
from ...core.text import visible
from ..bindings import bindings_for
from ..widgets.keybar import KeyBar

__all__ = ["EmptyScreen", "demo_root"]

#: How each source of the root reads on the screen.
HOW_CHOSEN = {
    "argument": "the folder given on the command line",
    "--session-dir": "the --session-dir option",
    "$PI_CODING_AGENT_SESSION_DIR": "the PI_CODING_AGENT_SESSION_DIR environment variable",
    "$PI_CODING_AGENT_DIR": "the PI_CODING_AGENT_DIR environment variable (its sessions folder)",
    "default": "Pi's default location",
    "--demo": "the --demo option",
}


def demo_root() -> SessionRoot | None:
    """The demo sessions shipped with pitui (None if they are not installed)."""
    from ...demo import DEMO_ROOT

    root = Path(DEMO_ROOT)
    return SessionRoot(root, "tree", "--demo") if root.is_dir() else None


class EmptyScreen(Screen):
    """No sessions at all under ``root``."""

    BINDINGS = bindings_for("empty")

    def __init__(self, root: SessionRoot) -> None:
        super().__init__(id="empty")
        self.root = root

    def compose(self) -> ComposeResult:
        root = self.root
        exists = root.path.exists()
        lines = [
            f"pitui looked in   {visible(str(root.path))}",
            f"chosen by         {HOW_CHOSEN.get(root.source, root.source)}",
            f"that folder       {'exists but holds no session files (*.jsonl)' if exists else 'does not exist'}",
            "",
            "pitui reads the first of: a PATH argument, --session-dir DIR,",
            "$PI_CODING_AGENT_SESSION_DIR, $PI_CODING_AGENT_DIR/sessions, ~/.pi/agent/sessions.",
        ]
        text = Text("\n".join(lines) + "\n\n")
        text.append("To see what pitui does, run  ")
        text.append("pitui --demo", style="bold")
        text.append("\n\n")
        text.append("d", style="bold")
        text.append("  open the demo now        ")
        text.append("q", style="bold")
        text.append("  quit")
        with Vertical(id="empty-box"):
            yield Static("No Pi sessions found", id="empty-title", markup=False)
            yield Static(text, id="empty-text")
        yield KeyBar()

    def action_demo(self) -> None:
        demo = demo_root()
        if demo is None:
            self.notify("The demo sessions are not installed", severity="error")
            return
        self.app.switch_to_root(demo, demo=True)  # type: ignore[attr-defined]
