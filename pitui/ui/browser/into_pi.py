"""Back into Pi: ``r`` resumes the shown session in Pi, ``R`` forks it at the selected entry.

pitui writes no session: to resume it runs ``pi --session FILE`` in the session's working
folder, with the app suspended, and reads the session again when Pi exits (Pi has written
to it); to fork it writes the branch to the selected entry into pitui's own cache folder
(``core.export.fork``, what Pi's ``/fork`` writes) and runs ``pi --fork THAT_FILE``, so Pi
itself stores the new session. The command that runs Pi: ``core.settings.pi_command``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from typing import Any, Callable

from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ...core.export.fork import export_session
from ...core.model.parts import session_id_or_none
from ...core.model.summary import shown_path
from ...core.paths import cache_dir, write_private
from ...core.settings import pi_command
from ...core.store.discovery import find_session_by_id, resolve_root
from ...core.text import visible

__all__ = ["resume_in_pi", "fork_in_pi", "FolderGoneScreen"]

# (``screen`` below is the browser screen: its session, tree and app)


class FolderGoneScreen(ModalScreen[bool]):
    """The session's working folder is gone: fork it into the folder pitui runs in (as Pi
    1.6 offers), or not."""

    DEFAULT_CSS = """
    FolderGoneScreen { align: center middle; }
    FolderGoneScreen > Vertical { width: 72; height: auto; border: round $warning; background: $surface;
                                  padding: 0 1; }
    """
    BINDINGS = [Binding("f", "fork", "Fork here"), Binding("escape,n,q", "cancel", "Cancel")]

    def __init__(self, cwd: str, here: str) -> None:
        super().__init__()
        self.cwd, self.here = cwd, here

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"The session's folder is gone: {visible(self.cwd)}", markup=False)
            yield Static(f"f: fork it into {shown_path(self.here)} (pi --fork) · Esc: cancel", markup=False)

    def action_fork(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


def _command(screen: Any, args: list[str]) -> list[str] | None:
    """The Pi command line with ``args``, or None after saying why it cannot run (its
    command line then copied, to run by hand)."""
    try:
        argv = pi_command(screen.papp.settings) + args
    except ValueError as exc:
        screen.notify(f"The Pi command cannot be run: {exc} ($PITUI_PI_COMMAND or pi_command in settings.json)",
                      severity="error", timeout=6)
        return None
    if shutil.which(argv[0]) is None:
        line = shlex.join(argv)
        screen.app.copy_to_clipboard(line)
        screen.notify(f"Pi was not found ({visible(argv[0])}); the command is copied: {visible(line)}. "
                      "Set $PITUI_PI_COMMAND or pi_command in settings.json to run another.",
                      severity="error", timeout=8)
        return None
    return argv


def _run(screen: Any, argv: list[str], cwd: str, after: Callable[[], None]) -> None:
    """Run Pi with the app suspended, then ``after`` (the terminal is the app's again)."""
    try:
        with screen.app.suspend():
            subprocess.call(argv, cwd=cwd)
    except SuspendNotSupported:
        line = shlex.join(argv)
        screen.app.copy_to_clipboard(line)
        screen.notify(f"This terminal cannot hand itself to Pi; the command is copied: {visible(line)}", timeout=6)
        return
    except OSError as exc:
        screen.notify(f"Could not run {visible(argv[0])}: {exc}", severity="error", timeout=6)
        return
    screen.refresh()
    after()


def _session_file(session) -> str | None:
    """The session file to resume: the session's own; for a run (a saved or piped-in event
    stream) the newest session file it names that exists, else the file of the newest
    session id it names, looked for beside it and in Pi's sessions folder."""
    names = getattr(session, "session_files", None)
    if names is None:  # (a session file)
        return session.path if os.path.isfile(session.path) else None
    for name in reversed(names):
        if os.path.isfile(name):
            return name
    pi_root = str(resolve_root(None).path)
    for raw in reversed(getattr(session, "session_ids", [])):
        plain = session_id_or_none(raw)
        if plain is None:
            continue
        # (beside the stream's file, then every project folder of Pi's sessions folder)
        for near in (session.path, os.path.join(pi_root, "-", "-")):
            found = find_session_by_id(near, plain)
            if found is not None:
                return found
    return None


def resume_in_pi(screen: Any) -> None:
    """``r``: Pi resumes the shown session in its folder; back here, the session read again
    and its newest entry selected."""
    session = screen.session
    if session is None:
        screen.app.bell()
        return
    if session.headerless:
        screen.notify("Pi will not open this file (it has no session header); R forks what it holds into a "
                      "new session", severity="warning", timeout=6)
        return
    path = _session_file(session)
    if path is None:
        screen.notify("This run names no session file that can be found: nothing to resume yet",
                      severity="warning", timeout=4)
        return
    cwd = session.cwd
    if not cwd or not os.path.isdir(cwd):
        here = os.getcwd()

        def chosen(fork: bool | None) -> None:
            if fork:
                argv = _command(screen, ["--fork", path])
                if argv is not None:
                    _run(screen, argv, here, lambda: screen.relist_after_pi())

        screen.app.push_screen(FolderGoneScreen(cwd or "(none)", here), chosen)
        return
    argv = _command(screen, ["--session", path])
    if argv is None:
        return

    def after() -> None:
        screen.reopen_after_pi(path)

    _run(screen, argv, cwd, after)


def fork_in_pi(screen: Any) -> None:
    """``R``: the branch to the selected entry written into pitui's cache folder as Pi's
    ``/fork`` writes it, then ``pi --fork`` on it in the session's folder (the folder pitui
    runs in when that is gone): Pi stores the new session; back here, the sidebar lists it."""
    session, sel = screen.session, screen.branch_tree.selected_entry
    if session is None or sel < 0:
        screen.app.bell()
        return
    folder = cache_dir()
    if folder is None:
        screen.notify("pitui's cache folder cannot be used: nothing to fork from", severity="error", timeout=6)
        return
    forks = folder / "forks"
    try:
        forks.mkdir(mode=0o700, exist_ok=True)
        name, data = export_session(session, sel)
        target = forks / name
        write_private(target, data)
    except OSError as exc:
        screen.notify(f"Could not write the fork: {exc}", severity="error", timeout=6)
        return
    argv = _command(screen, ["--fork", str(target)])
    if argv is None:
        return
    cwd = session.cwd if session.cwd and os.path.isdir(session.cwd) else os.getcwd()
    _run(screen, argv, cwd, lambda: screen.relist_after_pi())
