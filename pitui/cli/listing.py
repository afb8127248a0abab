"""``pitui list [ROOT] [--json] [--paths]``: the sessions, newest first, one row each."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from . import CliError, _fail, _resolve_root

if TYPE_CHECKING:
    import argparse

CWD_WIDTH = 40  # `pitui list`: the widest working directory column
TITLE_CELLS = 70  # `pitui list`: the widest title


def _list_parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(prog="pitui list", description="List sessions, newest first.")
    parser.add_argument("root", nargs="?", help="sessions root, project folder or file (default: as the app)")
    parser.add_argument("--session-dir", metavar="DIR", help="a flat folder of session files")
    parser.add_argument("--json", action="store_true", help="a JSON array of Pi's SessionInfo objects (plus pitui keys)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write pitui's listing index")
    parser.add_argument("--paths", action="store_true",
                        help="each session's file path instead of its id (for a root Pi does not look in)")
    return parser


def cmd_list(argv: list[str]) -> int:
    args = _list_parser().parse_args(argv)
    from ..core.store.listing import SessionIndex, list_json, list_sessions

    try:
        root = _resolve_root(args.root, args.session_dir)
    except CliError as exc:
        return _fail(exc.path, exc.reason)
    from ..core.text import json_safe, visible

    index = None if args.no_cache else SessionIndex()
    if args.json:
        out = sys.stdout.buffer
        out.write(json_safe(list_json(root, index)))
        out.write(b"\n")  # (apart: the list is not copied to add it)
        return 0
    from ..core.timeutil import format_age

    from ..core.gc_policy import gc_paused

    # (thousands of rows that live until the command ends, and next to no garbage: left
    # out of the collections that would walk them again every few thousand rows)
    with gc_paused(freeze=True):
        infos = list_sessions(root, index)
    if not infos:
        sys.stderr.write(f"pitui: {visible(str(root.path))}: no sessions found\n")
        return 0
    import shutil
    import time

    from ..ui.cells import cell_len as _cells
    from ..ui.cells import cut_end as _cut_end
    from ..ui.cells import cut_start as _cut_start

    def _pad(text: str, cells: int) -> str:
        return text + " " * max(0, cells - _cells(text))

    # One row per session whatever its text holds: every field from the files is shown
    # with its control characters as stand-ins (a newline in a cwd is ^J, not a row).
    # Columns: age, messages, the id `pi --session` takes (or the path, --paths), the
    # working directory, the title; widths in terminal cells (a CJK title is two a character).
    now = time.time() * 1000
    cwds = {id(info): visible(info.cwd) or "?" for info in infos if not info.error}
    width = min(max(map(_cells, cwds.values()), default=1), CWD_WIDTH)
    keys = {id(info): visible(info.path if args.paths else (info.id or "?")) for info in infos}
    key_width = max(map(_cells, keys.values()), default=1)
    # a terminal's width cuts the title; piped, a title keeps up to TITLE_CELLS
    room = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    for info in infos:
        key = _pad(keys[id(info)], key_width)
        if info.error:
            sys.stdout.write(f"{'-':>5}  {'':>5}  {key}  [{visible(info.error)}]\n")
            continue
        cwd = _pad(_cut_start(cwds[id(info)], width), width)
        head = f"{format_age(info.modified_ms, now):>5}  {info.message_count:>5}  {key}  {cwd}  "
        cells = TITLE_CELLS if room is None else max(10, min(TITLE_CELLS, room - _cells(head)))
        title = _cut_end(visible(" ".join((info.name or info.first_message).split())), cells)
        sys.stdout.write(f"{head}{title}\n")
    return 0
