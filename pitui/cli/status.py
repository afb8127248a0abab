"""``pitui status [ROOT] [--json] [--watch]``: what every agent is doing, printed (and followed)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from . import CliError, _fail, _resolve_root

if TYPE_CHECKING:
    import argparse


def _status_parser() -> argparse.ArgumentParser:
    import argparse

    from ..core.live.board import STALL_MINUTES, WINDOW_MINUTES

    parser = argparse.ArgumentParser(
        prog="pitui status", description="What every agent is doing: the sessions written lately, newest first, "
        "each working, waiting for you, failed or stalled (read from the end of its file).")
    parser.add_argument("root", nargs="?", help="sessions root, project folder or file (default: as the app)")
    parser.add_argument("--session-dir", metavar="DIR", help="a flat folder of session files")
    parser.add_argument("--json", action="store_true", help="a JSON array, one object per session (with --watch: one "
                        "JSON object per line for each change of state)")
    parser.add_argument("--watch", action="store_true", help="then print a line each time a session changes state "
                        "(until interrupted)")
    parser.add_argument("--since", type=float, default=WINDOW_MINUTES, metavar="MINUTES",
                        help=f"sessions written in the last MINUTES (default {WINDOW_MINUTES})")
    parser.add_argument("--stalled-after", type=float, default=STALL_MINUTES, metavar="MINUTES",
                        help=f"a session at work with nothing written for MINUTES is stalled (default {STALL_MINUTES})")
    return parser


def cmd_status(argv: list[str]) -> int:
    """``pitui status [ROOT] [--json] [--watch] [--since MINUTES]``: the board, printed."""
    args = _status_parser().parse_args(argv)
    import math

    for flag, value in (("--since", args.since), ("--stalled-after", args.stalled_after)):
        if not math.isfinite(value) or value <= 0:
            return _fail(str(value), f"{flag} wants a number of minutes above 0")
    try:
        root = _resolve_root(args.root, args.session_dir)
    except CliError as exc:
        return _fail(exc.path, exc.reason)
    import time

    import orjson

    from ..core.live.board import LiveBoard
    from ..core.text import json_safe

    board = LiveBoard(root, window_minutes=args.since, stall_minutes=args.stalled_after)

    def now_ms() -> float:
        return time.time() * 1000

    out = sys.stdout
    if not args.watch:
        now = now_ms()
        board.refresh(now)
        rows = board.rows(now)
        if args.json:
            out.buffer.write(json_safe(orjson.dumps([activity.to_json() for activity in rows], option=orjson.OPT_INDENT_2)) + b"\n")
        else:
            for line in status_lines(rows, now, _status_width()):
                out.write(line + "\n")
        return 0
    import threading

    from ..core.live.watch import follow
    from ..core.timeutil import ms_to_iso

    first = [True]

    def report(changes, rows) -> None:
        now = now_ms()
        if first[0]:
            first[0] = False
            if not args.json:
                for line in status_lines(rows, now, _status_width()):
                    out.write(line + "\n")
        for change in changes:
            activity = change.activity
            if args.json:
                line = {"time": ms_to_iso(now), "before": change.before, **activity.to_json()}
                out.buffer.write(json_safe(orjson.dumps(line)) + b"\n")
            else:
                out.write(watch_line(activity, now) + "\n")
        out.flush()

    follow(board, now_ms, threading.Event(), report)
    return 0


def _status_width() -> int:
    import shutil

    return shutil.get_terminal_size((120, 24)).columns if sys.stdout.isatty() else 160


def watch_line(activity, now_ms: float) -> str:
    """``pitui status --watch``'s line for a session that changed state: the local time, the
    new state, the session's id, its project and its title (control characters as stand-ins)."""
    from ..core.model.summary import shorten_home
    from ..core.text import visible
    from ..core.timeutil import local_minute

    stamp = time_of_day(now_ms)
    where = visible(shorten_home(activity.cwd) if activity.cwd else activity.project)
    doing = activity.doing(now_ms)
    return "  ".join(part for part in (local_minute(now_ms)[:11] + stamp, activity.state, visible(activity.id or activity.path), where,
                                       activity.title, doing) if part)


def time_of_day(ms: float) -> str:
    """``14:03:07``, local time."""
    import datetime

    return datetime.datetime.fromtimestamp(ms / 1000).strftime("%H:%M:%S")


def status_lines(rows, now_ms: float, width: int) -> list[str]:
    """``pitui status``'s table: state, time in it, project, title, model, cost, context
    tokens, and what it does (the tool running, why it failed), cut to ``width`` cells."""
    from ..core.model.summary import shorten_home
    from ..core.numbers import fmt_cost, fmt_duration, fmt_tokens
    from ..core.text import visible
    from ..ui.cells import cell_len, cut_end, cut_start

    if not rows:
        return ["no session was written in this window"]
    table = []
    for activity in rows:
        where = visible(shorten_home(activity.cwd) if activity.cwd else activity.project)
        table.append([activity.state, fmt_duration(activity.in_state_ms(now_ms)) or "?", cut_start(where, 24), activity.title,
                      visible(activity.model or ""), fmt_cost(activity.cost, zero="$0") if activity.cost is not None else "…",
                      fmt_tokens(activity.context_tokens) if activity.context_tokens is not None else "", activity.doing(now_ms)])
    widths = [max(cell_len(row[column]) for row in table) for column in range(8)]
    fixed = sum(widths[column] for column in (0, 1, 2, 4, 5, 6)) + 2 * 7
    title_w = max(12, min(widths[3], 48, width - fixed - 12))
    lines = []
    for row in table:
        cells = [row[0].ljust(widths[0]), row[1].rjust(widths[1]), row[2] + " " * (widths[2] - cell_len(row[2])),
                 cut_end(row[3], title_w) + " " * max(0, title_w - cell_len(cut_end(row[3], title_w))),
                 row[4].ljust(widths[4]), row[5].rjust(widths[5]), row[6].rjust(widths[6])]
        line = "  ".join(cells)
        room = width - cell_len(line) - 2
        if row[7] and room > 4:
            line += "  " + cut_end(row[7], room)
        lines.append(line.rstrip())
    return lines
