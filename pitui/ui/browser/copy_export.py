"""The keys that take something out of the app, as functions of the browser screen:
copies to the clipboard, the Markdown or HTML export (``x``), the entry in ``$PAGER``
(``e``) and the warnings dialog. Nothing is written into a sessions folder
(``core/export/guard.py``)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from typing import Any

from textual.app import SuspendNotSupported

from ...core.export.entry import entry_text, safe_name, write_entry_file
from ...core.model.summary import shorten_home, shown_path
from ...core.store.discovery import session_argument
from ...core.read.session import FileChanged, Session
from ...core.text import visible
from ..widgets.header import WarningsScreen

__all__ = ["copy_resume", "copy_id", "copy_path", "copy_entry", "export_leaf", "default_export_path",
           "export_refusal", "export_markdown", "export_to", "show_warnings", "pager", "entry_file"]


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


# (``screen`` below is the browser screen: its session, tree, header and app)


# ------------------------------------------------------------------ clipboard
def copy_resume(screen: Any) -> None:
    session = screen.session
    if session is None or not session.id:
        return
    shared = any(info.id == session.id and path != session.path for path, info in screen.infos.items())
    text = f"pi --session {shlex.quote(session_argument(session.path, session.id, id_is_shared=shared))}"
    screen.app.copy_to_clipboard(text)
    screen.notify(f"Copied: {visible(text)}", timeout=2)


def _copy(screen: Any, text: str, what: str) -> None:
    screen.app.copy_to_clipboard(text)
    screen.notify(f"Copied {what}", timeout=2)


def copy_id(screen: Any) -> None:
    session = screen.session
    if session is None or not session.id:
        screen.app.bell()
        return
    _copy(screen, session.id, f"the session id: {visible(session.id)}")


def copy_path(screen: Any) -> None:
    session = screen.session
    if session is None:
        return
    _copy(screen, session.path, f"the path: {shown_path(session.path)}")


def copy_entry(screen: Any) -> None:
    session, sel = screen.session, screen.branch_tree.selected_entry
    if session is None or sel < 0:
        return
    try:
        text = entry_text(session, sel)
    except OSError as exc:
        _cannot_read(screen, session, exc)
        return
    lines = text.count("\n") + 1 if text else 0
    _copy(screen, text, f"{len(text):,} characters ({lines:,} line{'s' if lines != 1 else ''}) of entry "
                        f"{visible(session.ids[sel])}")


# ------------------------------------------------------------------ Markdown export
def export_leaf(screen: Any) -> int:
    """The leaf of the branch the pane shows (the session's leaf before one is shown)."""
    session = screen.session
    if session is None:
        return -1
    leaf = screen.header.branch_leaf
    return leaf if 0 <= leaf < len(session) else session.leaf


def default_export_path(screen: Any) -> str:
    """Where the export dialog starts: the folder of the last export, else the Downloads
    folder, else the home folder; never silently the folder pitui was started in (a
    git checkout, say)."""
    session = screen.session
    assert session is not None
    leaf = export_leaf(screen)
    name = safe_name(session.name or session.id or os.path.splitext(os.path.basename(session.path))[0])
    leaf_id = safe_name(session.ids[leaf]) if leaf >= 0 else "empty"
    home = os.path.expanduser("~")
    for folder in (screen.app.settings.export_folder, _downloads(), home):
        if folder and os.path.isdir(folder):
            path = os.path.join(folder, f"{name}-{leaf_id}.md")
            if export_refusal(screen, path) is None:
                return path
    return os.path.join(home, f"{name}-{leaf_id}.md")


def export_refusal(screen: Any, path: str) -> str | None:
    """Why ``path`` may not be written (see :func:`pitui.core.export.guard.export_refusal`:
    in a sessions folder, or a session file by any name)."""
    from ...core.export.guard import export_refusal as refusal

    session = screen.session
    return refusal(path, session.path if session is not None else "", [screen.app.root])


def export_markdown(screen: Any) -> None:
    """``x``: the export dialog, then the branch shown written where it says."""
    session = screen.session
    if session is None:
        return
    leaf = export_leaf(screen)
    from ..screens.export import ExportScreen

    known = screen.header.known_secrets(session.path)
    dialog = ExportScreen(default_export_path(screen), lambda path: export_refusal(screen, path),
                          secrets=len(known) if known is not None else None)

    def chosen(path: str | None) -> None:
        if path and export_to(screen, path, session, leaf, redact=dialog.redact) is not None:
            _remember_export_folder(screen, os.path.dirname(os.path.abspath(os.path.expanduser(path.strip()))))

    screen.app.push_screen(dialog, chosen)


def export_to(screen: Any, path: str, session: Session | None = None, leaf: int | None = None, *,
              redact: bool = False) -> str | None:
    """Write the branch ending at ``leaf`` to ``path``, as HTML when it ends in ``.html``
    (:func:`format_of`), else as Markdown (then copied too); ``redact``: with the likely
    secrets replaced by placeholders (:mod:`pitui.core.secrets.redact`). Returns the path
    written, or None (refused or failed, with a notify)."""
    from ...core.export.markdown import export_markdown as markdown_of
    from ..screens.export import format_of

    source = session or screen.session
    if source is None:
        return None
    leaf = export_leaf(screen) if leaf is None else leaf
    path = os.path.abspath(os.path.expanduser(path.strip()))
    why = export_refusal(screen, path)
    if why is not None:
        screen.notify(f"Not exported: {why}", severity="error", timeout=5)
        return None
    if redact:
        from ...core.secrets.redact import Redactor, redacted
        from ...core.secrets.scan import scan_file

        try:
            known = screen.header.known_secrets(source.path)
            source = redacted(source, Redactor(known if known is not None else scan_file(source.path).secrets))
        except Exception as exc:  # (the file gone or unreadable now: nothing is written)
            screen.notify(f"Not exported: the session could not be read for secrets ({exc})", severity="error",
                          timeout=6)
            return None
    html = format_of(path) == "html"
    try:
        if html:
            from ...core.export.html import export_html

            text = export_html(source, leaf)
        else:
            text = markdown_of(source, leaf)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except Exception as exc:
        screen.notify(f"Could not export to {path}: {exc}", severity="error", timeout=6)
        return None
    masked = ", secrets redacted" if redact else ""
    if html:
        screen.notify(f"Exported to {shown_path(path)} (an HTML page, {len(text):,} characters{masked})", timeout=4)
    else:
        screen.app.copy_to_clipboard(text)
        screen.notify(f"Exported to {shown_path(path)} (and copied, {len(text):,} characters{masked})", timeout=4)
    return path


def _remember_export_folder(screen: Any, folder: str) -> None:
    """The next export's dialog starts in ``folder`` (kept in settings.json)."""
    from dataclasses import replace

    app = screen.app
    if app.settings.export_folder != folder:
        app.save_settings(replace(app.settings, export_folder=folder))


# ------------------------------------------------------------------ warnings
def show_warnings(screen: Any) -> None:
    """``w``: what is wrong in the file, by line, and its likely secrets; what it found
    becomes the header's badges, and Enter on a finding goes to its entry."""
    session = screen.session
    if session is None:
        return

    def checked(found) -> None:
        screen.header.remember_findings(session.path, found)

    def chosen(entry_id: str | None) -> None:
        if entry_id is not None and screen.session is session:
            screen.open_session(session.path, select_id=entry_id)

    screen.app.push_screen(WarningsScreen(session.path, len(session.all_warnings), checked), chosen)


# ------------------------------------------------------------------ $PAGER
def pager(screen: Any) -> None:
    """``e``: the selected entry's line in ``$PAGER``, with the app suspended."""
    session, sel = screen.session, screen.branch_tree.selected_entry
    if session is None or sel < 0:
        return
    program = os.environ.get("PAGER", "").strip() or ("less" if shutil.which("less") else "more")
    try:
        command = shlex.split(program)
    except ValueError as exc:  # e.g. an unclosed quote
        screen.notify(f"$PAGER cannot be run ({exc}): {program}", severity="error", timeout=6)
        return
    path = entry_file(screen, session, sel)
    if path is None:
        return
    keep = False
    try:
        with screen.app.suspend():
            started = time.monotonic()
            subprocess.call(command + [path])
            if time.monotonic() - started < PAGER_LEFT_AT_ONCE:
                wait_for_enter()
    except SuspendNotSupported:
        keep = True  # (the file is what the user gets here)
        screen.notify(f"Entry written to {path}", timeout=4)
        return
    except OSError as exc:
        screen.notify(f"Could not run {program!r}: {exc}", severity="error", timeout=6)
        return
    finally:
        if not keep:
            try:
                os.unlink(path)
            except OSError:
                pass
    screen.refresh()


def entry_file(screen: Any, session: Session, index: int) -> str | None:
    """Entry ``index`` written to a temporary file for the pager (:func:`write_entry_file`),
    or None with a toast saying why not: the session file is gone, another file took
    its name (then it is read again), or it cannot be read."""
    try:
        return write_entry_file(session, index, screen.app.root)
    except OSError as exc:
        _cannot_read(screen, session, exc)
    return None


def _cannot_read(screen: Any, session: Session, exc: OSError) -> None:
    """Say why an entry's line could not be read back (read the file again when
    another file took its name)."""
    if isinstance(exc, FileChanged):
        screen.follower.read_again()
    elif isinstance(exc, FileNotFoundError):
        screen.notify(f"The session file is gone: {shorten_home(session.path)}", severity="error", timeout=6)
    else:
        screen.notify(f"Could not read the entry: {exc.strerror or exc}", severity="error", timeout=6)
