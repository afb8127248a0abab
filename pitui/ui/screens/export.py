"""``x``: the dialog that asks where the export of the branch shown is written, and as what:
the file's ending says (``.md`` Markdown, ``.html`` a self-contained HTML page); ctrl+t
switches the ending the path has. When the session holds likely secrets it asks whether to
replace them by placeholders (ctrl+r switches)."""

from __future__ import annotations

import os
from typing import Callable

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ...core.model.summary import shown_path
from ..bindings import bindings_for

__all__ = ["ExportScreen", "format_of", "switched_format"]


class ExportScreen(ModalScreen[str | None]):
    """Where to write the export (Enter writes, Esc cancels); a path ending in ``.html`` is
    written as HTML, any other as Markdown. A file that exists is overwritten only after a
    second Enter on the same path. Dismissed with the path typed (a refused one too: the
    caller says why) or None."""

    BINDINGS = bindings_for("export")
    PROMPT = "Export the branch shown: .md Markdown, .html a web page (ctrl+t switches; Enter: write, Esc: cancel)"

    def __init__(self, default: str, refusal: Callable[[str], str | None] | None = None, *,
                 secrets: int | None = 0) -> None:
        """``secrets``: how many likely secrets the session holds (None: not known yet, its
        file too big to have been checked); when any may be there the dialog asks whether to
        replace them (:attr:`redact`, on until ctrl+r says no)."""
        super().__init__(id="export")
        self.default = default
        self.refusal = refusal
        self.secrets = secrets
        self.redact = secrets != 0
        self._confirm: str | None = None  # the existing file a second Enter overwrites

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static(self.PROMPT, id="export-title", markup=False)
            if self.secrets != 0:
                yield Static(self._redact_text(), id="export-redact", markup=False)
            yield Input(value=self.default, id="export-path")

    def _redact_text(self) -> str:
        count = self.secrets
        held = (f"The session holds {count} likely secret{'s' if count != 1 else ''} (w lists them)" if count is not None
                else "The session was not checked for secrets yet (w checks it)")
        if self.redact:
            return f"{held}: each is replaced by [REDACTED kind n] (ctrl+r: keep them)"
        return f"{held}: written as they are (ctrl+r: replace them)"

    def action_toggle_redact(self) -> None:
        """Redact the likely secrets in the export, or not (asked only when there may be any)."""
        if self.secrets == 0:
            return
        self.redact = not self.redact
        self.query_one("#export-redact", Static).update(self._redact_text())

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @on(Input.Changed, "#export-path")
    def _changed(self, event: Input.Changed) -> None:
        if self._confirm is not None and event.value.strip() != self._confirm:
            self._confirm = None
            self.query_one("#export-title", Static).update(self.PROMPT)

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        if not value:
            self.dismiss(None)
            return
        target = os.path.abspath(os.path.expanduser(value))
        refused = self.refusal is not None and self.refusal(value) is not None
        if not refused and os.path.lexists(target) and self._confirm != value:
            self._confirm = value
            self.query_one("#export-title", Static).update(
                f"{shown_path(target)} exists: Enter again to overwrite it (Esc: cancel)")
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_switch_format(self) -> None:
        """The path's ending swapped: ``.md`` and ``.html`` (added where it has neither)."""
        field = self.query_one("#export-path", Input)
        field.value = switched_format(field.value)
        field.cursor_position = len(field.value)


def switched_format(path: str) -> str:
    """``path`` with its ending switched between ``.md`` and ``.html``."""
    stem, ending = os.path.splitext(path.rstrip())
    if ending.lower() in (".html", ".htm"):
        return stem + ".md"
    if ending.lower() in (".md", ".markdown"):
        return stem + ".html"
    return path.rstrip() + ".html"


def format_of(path: str) -> str:
    """``html`` for a path ending in ``.html`` or ``.htm``, else ``markdown``."""
    return "html" if os.path.splitext(path.strip())[1].lower() in (".html", ".htm") else "markdown"
