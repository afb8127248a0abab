"""The keys that take something out of the app: copies to the clipboard, the Markdown
export (``x``), the entry in ``$PAGER`` (``e``) and the warnings dialog. Nothing is
written into a sessions folder (``core/export/guard.py``)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from typing import TYPE_CHECKING

from textual.app import SuspendNotSupported

from ...core.export.entry import entry_text, safe_name, write_entry_file
from ...core.model.summary import shorten_home, shown_path
from ...core.store.discovery import session_argument
from ...core.read.session import FileChanged, Session
from ...core.text import visible
from ..widgets.header import WarningsBadge, WarningsScreen

if TYPE_CHECKING:
    from .screen import BrowserScreen

__all__ = ["TakeAway"]


#: Seconds: a pager back sooner printed the entry and left (``PAGER=cat``), and its output
#: would vanish under the app at once; the user gets to read it first.
PAGER_LEFT_AT_ONCE = 1.0


def wait_for_enter() -> None:
    """With the app suspended: wait for Enter on the terminal, if there is one."""
    try:
        if not sys.stdin.isatty():
            return
        sys.stdout.write("\n[pitui] Enter goes back to pitui ")
        sys.stdout.flush()
        sys.stdin.readline()
    except (OSError, ValueError, AttributeError):
        pass


def _downloads() -> str | None:
    """The user's Downloads folder, where platformdirs knows one."""
    try:
        from platformdirs import user_downloads_dir

        return user_downloads_dir()
    except Exception:  # (a platform or an environment it cannot answer for)
        return None


class TakeAway:
    """Part of :class:`BrowserScreen`: copy, export, pager, warnings."""

    # ------------------------------------------------------------------ clipboard
    def action_copy_resume(self: "BrowserScreen") -> None:
        s = self.session
        if s is None or not s.id:
            return
        shared = any(info.id == s.id and path != s.path for path, info in self.infos.items())
        text = f"pi --session {shlex.quote(session_argument(s.path, s.id, id_is_shared=shared))}"
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied: {visible(text)}", timeout=2)

    def _copy(self: "BrowserScreen", text: str, what: str) -> None:
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {what}", timeout=2)

    def action_copy_id(self: "BrowserScreen") -> None:
        s = self.session
        if s is None or not s.id:
            self.app.bell()
            return
        self._copy(s.id, f"the session id: {visible(s.id)}")

    def action_copy_path(self: "BrowserScreen") -> None:
        s = self.session
        if s is None:
            return
        self._copy(s.path, f"the path: {shown_path(s.path)}")

    def action_copy_entry(self: "BrowserScreen") -> None:
        s, sel = self.session, self.branch_tree.selected_entry
        if s is None or sel < 0:
            return
        try:
            text = entry_text(s, sel)
        except OSError as exc:
            self._cannot_read(s, exc)
            return
        lines = text.count("\n") + 1 if text else 0
        self._copy(text, f"{len(text):,} characters ({lines:,} line{'s' if lines != 1 else ''}) of entry "
                         f"{visible(s.ids[sel])}")

    # ------------------------------------------------------------------ Markdown export
    def export_leaf(self: "BrowserScreen") -> int:
        """The leaf of the branch the pane shows (the session's leaf before one is shown)."""
        s = self.session
        if s is None:
            return -1
        return self._branch_leaf if 0 <= self._branch_leaf < len(s) else s.leaf

    def default_export_path(self: "BrowserScreen") -> str:
        """Where the export dialog starts: the folder of the last export, else the Downloads
        folder, else the home folder; never silently the folder pitui was started in (a
        git checkout, say)."""
        s = self.session
        assert s is not None
        leaf = self.export_leaf()
        name = safe_name(s.name or s.id or os.path.splitext(os.path.basename(s.path))[0])
        leaf_id = safe_name(s.ids[leaf]) if leaf >= 0 else "empty"
        home = os.path.expanduser("~")
        for folder in (self.papp.settings.export_folder, _downloads(), home):
            if folder and os.path.isdir(folder):
                path = os.path.join(folder, f"{name}-{leaf_id}.md")
                if self.export_refusal(path) is None:
                    return path
        return os.path.join(home, f"{name}-{leaf_id}.md")

    def export_refusal(self: "BrowserScreen", path: str) -> str | None:
        """Why ``path`` may not be written (see :func:`pitui.core.export.guard.export_refusal`:
        in a sessions folder, or a session file by any name)."""
        from ...core.export.guard import export_refusal

        s = self.session
        return export_refusal(path, s.path if s is not None else "", [self.papp.root])

    def action_export_markdown(self: "BrowserScreen") -> None:
        s = self.session
        if s is None:
            return
        leaf = self.export_leaf()

        def chosen(path: str | None) -> None:
            if path and self.export_to(path, s, leaf) is not None:
                self._remember_export_folder(os.path.dirname(os.path.abspath(os.path.expanduser(path.strip()))))

        from ..screens.export import ExportScreen

        self.app.push_screen(ExportScreen(self.default_export_path(), self.export_refusal), chosen)

    def export_to(self: "BrowserScreen", path: str, session: Session | None = None,
                  leaf: int | None = None) -> str | None:
        """Write the branch ending at ``leaf`` to ``path``, as HTML when it ends in ``.html``
        (:func:`format_of`), else as Markdown (then copied too). Returns the path written, or
        None (refused or failed, with a notify)."""
        from ...core.export.markdown import export_markdown
        from ..screens.export import format_of

        s = session or self.session
        if s is None:
            return None
        leaf = self.export_leaf() if leaf is None else leaf
        path = os.path.abspath(os.path.expanduser(path.strip()))
        why = self.export_refusal(path)
        if why is not None:
            self.notify(f"Not exported: {why}", severity="error", timeout=5)
            return None
        html = format_of(path) == "html"
        try:
            if html:
                from ...core.export.html import export_html

                text = export_html(s, leaf)
            else:
                text = export_markdown(s, leaf)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        except Exception as exc:
            self.notify(f"Could not export to {path}: {exc}", severity="error", timeout=6)
            return None
        if html:
            self.notify(f"Exported to {shown_path(path)} (an HTML page, {len(text):,} characters)", timeout=4)
        else:
            self.app.copy_to_clipboard(text)
            self.notify(f"Exported to {shown_path(path)} (and copied, {len(text):,} characters)", timeout=4)
        return path

    def _remember_export_folder(self: "BrowserScreen", folder: str) -> None:
        """The next export's dialog starts in ``folder`` (kept in settings.json)."""
        from dataclasses import replace

        from ...core import settings as settings_file

        whole = self.papp.settings
        if whole.export_folder == folder:
            return
        whole = replace(whole, export_folder=folder)
        self.papp.settings = whole
        if settings_file.save(whole):
            self._settings_saved = whole

    # ------------------------------------------------------------------ warnings
    def action_show_warnings(self: "BrowserScreen") -> None:
        s = self.session
        if s is None:
            return

        def checked(findings: list) -> None:
            self.header.remember_findings(s.path, findings)

        self.app.push_screen(WarningsScreen(s.path, len(s.all_warnings), checked))

    def on_warnings_badge_pressed(self: "BrowserScreen", event: WarningsBadge.Pressed) -> None:
        self.action_show_warnings()

    # ------------------------------------------------------------------ $PAGER
    def action_pager(self: "BrowserScreen") -> None:
        s, sel = self.session, self.branch_tree.selected_entry
        if s is None or sel < 0:
            return
        pager = os.environ.get("PAGER", "").strip() or ("less" if shutil.which("less") else "more")
        try:
            command = shlex.split(pager)
        except ValueError as exc:  # e.g. an unclosed quote
            self.notify(f"$PAGER cannot be run ({exc}): {pager}", severity="error", timeout=6)
            return
        path = self.entry_file(s, sel)
        if path is None:
            return
        keep = False
        try:
            with self.app.suspend():
                started = time.monotonic()
                subprocess.call(command + [path])
                if time.monotonic() - started < PAGER_LEFT_AT_ONCE:
                    wait_for_enter()
        except SuspendNotSupported:
            keep = True  # (the file is what the user gets here)
            self.notify(f"Entry written to {path}", timeout=4)
            return
        except OSError as exc:
            self.notify(f"Could not run {pager!r}: {exc}", severity="error", timeout=6)
            return
        finally:
            if not keep:
                try:
                    os.unlink(path)
                except OSError:
                    pass
        self.refresh()

    def entry_file(self: "BrowserScreen", s: Session, i: int) -> str | None:
        """Entry ``i`` written to a temporary file for the pager (:func:`write_entry_file`),
        or None with a toast saying why not: the session file is gone, another file took
        its name (then it is read again), or it cannot be read."""
        try:
            return write_entry_file(s, i, self.papp.root)
        except OSError as exc:
            self._cannot_read(s, exc)
        return None

    def _cannot_read(self: "BrowserScreen", s: Session, exc: OSError) -> None:
        """Say why an entry's line could not be read back (read the file again when
        another file took its name)."""
        if isinstance(exc, FileChanged):
            self._read_again()
        elif isinstance(exc, FileNotFoundError):
            self.notify(f"The session file is gone: {shorten_home(s.path)}", severity="error", timeout=6)
        else:
            self.notify(f"Could not read the entry: {exc.strerror or exc}", severity="error", timeout=6)
