"""pitui's command line: ``main`` (the console script), the app's start (``pitui [PATH]``,
``pitui -``) and what every command shares (bad input said on one line, the root resolved,
a progress line). Each subcommand for scripts is a module of its own, imported only when
it runs: ``list`` in listing.py, ``export``, ``search``, ``check`` (and ``--secrets``),
``usage``, ``compare``, ``status`` in the module of that name."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from .. import __version__

if TYPE_CHECKING:
    import argparse


# (argparse, pathlib and the rest are imported where used: ``pitui FILE`` starts reading
# the file before anything it does not need is imported, see start_reading)

SUBCOMMANDS = ("list", "export", "search", "check", "usage", "compare", "status")
#: The module of this package each subcommand's ``cmd_<name>`` is in.
_MODULES = {"list": "listing", "export": "export", "search": "search", "check": "check", "usage": "usage",
            "compare": "compare", "status": "status"}


class CliError(Exception):
    """Bad input: reported as ``pitui: <path>: <reason>`` with exit status 2."""

    def __init__(self, path: str, reason: str):
        super().__init__(reason)
        self.path = path
        self.reason = reason


def _fail(path: str, reason: str) -> int:
    from ..core.text import visible

    sys.stderr.write(f"pitui: {visible(path)}: {visible(reason)}\n")
    return 2


def _app_parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="pitui",
        description="Browse Pi coding agent sessions in the terminal (read-only).",
        epilog="Scripts: pitui list [ROOT] [--json] | pitui export FILE --format json|markdown|html [--leaf ID] | "
        "pitui search QUERY [--json] | pitui check FILE... [--json] | pitui usage [daily|weekly|monthly|session|project|"
        "model] [--json] | pitui compare FILE LEAF_A LEAF_B [--json|--markdown] | pitui status [ROOT] [--json] [--watch]",
    )
    parser.add_argument("path", nargs="?", help="a sessions root, one project folder, one .jsonl session file or saved "
                        "event stream (pi --mode json or rpc), or - for an event stream piped in (pi -p --mode json ... | "
                        "pitui -), shown as it comes")
    parser.add_argument("--session-dir", metavar="DIR", help="a flat folder of session files (as Pi's --session-dir)")
    parser.add_argument("--demo", action="store_true", help="open the built-in demo sessions")
    parser.add_argument("--version", action="version", version=f"pitui {__version__}")
    return parser


def _resolve_root(path: str | None, session_dir: str | None):
    from ..core.store.discovery import resolve_root

    from ..core.read.lines import not_regular

    root = resolve_root(path, session_dir)
    if path is not None and not root.path.exists():
        raise CliError(path, "no such file or folder")
    if path is not None and root.kind == "file" and (why := not_regular(root.path)) is not None:
        raise CliError(path, why)  # (a FIFO would block, /dev/zero never end)
    return root


def _progress(verb: str, at_least: int):
    """A progress line on a terminal's stderr (``pitui: <verb> 12/345 sessions``) for work on
    at least ``at_least`` sessions, ended when the count reaches the total."""
    err_tty = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if err_tty and total >= at_least:
            sys.stderr.write(f"\rpitui: {verb} {done}/{total} sessions" + ("\n" if done == total else ""))
            sys.stderr.flush()

    return progress


def start_reading(argv: list[str]) -> str | None:
    """What ``pitui`` does first: no garbage collection while the app starts (the pause
    ends with the first session shown), and for ``pitui FILE`` (one argument, an existing
    file) the file's read started on another core at once, before the arguments are
    parsed or anything else is imported (:func:`open_parallel.prestart`). Returns the
    path whose read was started, in the form :func:`discovery.resolve_root` gives it
    (None when nothing was started: the app starts it later, once it has resolved the
    argument, if it is a file at all)."""
    from ..core.gc_policy import pause_gc_for_start
    from ..core.open.parallel import prestart

    pause_gc_for_start()
    if len(argv) != 1 or argv[0].startswith("-") or argv[0] in SUBCOMMANDS:
        return None
    path = os.path.expanduser(argv[0])
    # only a path that pathlib would give back unchanged, so that the app's own open of
    # the resolved path takes this read over (see open_parallel.start)
    if not path or os.path.normpath(path) != path or not os.path.isfile(path):
        return None
    prestart(path, freeze=True)  # the app keeps what it opens (see gc_paused)
    return path


def cmd_app(argv: list[str]) -> int:
    started = start_reading(argv)
    root = None
    try:
        args = _app_parser().parse_args(argv)
        if args.path == "-" and not args.demo:
            return _run_stdin(args.session_dir)
        if args.demo:
            from ..demo import DEMO_ROOT

            path, session_dir = str(DEMO_ROOT), None
        else:
            path, session_dir = args.path, args.session_dir
        try:
            root = _resolve_root(path, session_dir)
        except CliError as exc:
            return _fail(exc.path, exc.reason)
        if root.kind == "file":
            # A file that is not a session is bad input, said on one line (its header line
            # is all that is read here).
            from ..core.read.open import read_session_header
            from ..core.read.session import NotASession

            try:
                read_session_header(root.path)
            except NotASession as exc:
                file, root = root, None
                return _fail(os.fspath(file.path), exc.reason)
    finally:
        if started is not None and (root is None or root.kind != "file" or os.fspath(root.path) != started):
            from ..core.open.parallel import cancel_prestart

            cancel_prestart(started)  # (not what the app opens after all)
    if root.kind == "file" and os.fspath(root.path) != started:
        from ..core.open.parallel import prestart

        # Start reading the session on other cores now, while Textual is imported.
        prestart(root.path, freeze=True)  # the app keeps what it opens (see gc_paused)
    from ..ui.app import run_app

    return run_app(root, demo=args.demo) or 0


def _run_stdin(session_dir: str | None) -> int:
    """``pitui -``: the event stream piped in, read on a thread as it comes and shown
    followed (the sidebar lists the usual sessions). The pipe is moved off standard input
    and the terminal (``/dev/tty``) put there, where the app reads its keys."""
    import threading

    if sys.stdin is None or sys.stdin.isatty():
        return _fail("-", "standard input is a terminal: pipe an event stream in (pi -p --mode json \"…\" | pitui -)")
    try:
        tty = os.open("/dev/tty", os.O_RDWR)
    except OSError as exc:
        return _fail("-", f"no terminal to read keys from (/dev/tty: {exc.strerror or exc})")
    pipe = os.dup(0)
    os.dup2(tty, 0)
    os.close(tty)
    from ..core.read.stream import StreamSession
    from ..core.store.discovery import resolve_root

    live = StreamSession.live()
    threading.Thread(target=live.read_from, args=(pipe,), name="pitui-stdin", daemon=True).start()
    from ..ui.app import run_app

    return run_app(resolve_root(None, session_dir), live=live) or 0


def _say_notices() -> None:
    """One line on standard error for each thing that happened to pitui's caches (a
    damaged one rebuilt, a cache folder not used: see :func:`pitui.core.paths.notice`)."""
    from ..core.paths import take_notices
    from ..core.text import visible

    for line in take_notices():
        try:
            sys.stderr.write(f"pitui: {visible(line)}\n")
        except (OSError, ValueError):
            break


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in SUBCOMMANDS:
            from importlib import import_module

            cmd, rest = argv[0], argv[1:]
            command = getattr(import_module(f".{_MODULES[cmd]}", __name__), f"cmd_{cmd}")
            return command(rest)
        return cmd_app(argv)
    except BrokenPipeError:
        try:
            sys.stdout.close()
        except Exception:
            pass
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        _say_notices()
