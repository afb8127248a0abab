"""``pitui check FILE... [--json] [--secrets]``: what is wrong with session files (as a linter prints
it), or the likely secrets in them."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from . import _fail

if TYPE_CHECKING:
    import argparse


def _check_parser() -> argparse.ArgumentParser:
    import argparse

    from ..core.model.doctor import KINDS

    parser = argparse.ArgumentParser(
        prog="pitui check",
        description="Say what is wrong with session files, and what Pi does with it (read-only). "
        "Exit 0 when clean, 1 with findings, 2 when a file cannot be read.",
        epilog="Kinds of finding: " + ", ".join(KINDS) + ".",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="a session .jsonl file (with --secrets, also a sessions "
                        "root or project folder: every session under it)")
    parser.add_argument("--json", action="store_true", help="a JSON array, one object per file readable")
    parser.add_argument("--secrets", action="store_true",
                        help="list the likely secrets instead (file:line, entry, where, kind, the first characters): exit 1 "
                        "when any is found; export --redact masks them")
    return parser


def cmd_check(argv: list[str]) -> int:
    """``pitui check FILE... [--json]``: each file's findings, one line each, as a linter
    prints them (``path:line: kind: message (Pi: what it does)``)."""
    args = _check_parser().parse_args(argv)
    if args.secrets:
        return _check_secrets(args.files, args.json)
    from ..core.model.doctor import Unreadable, check_file
    from ..core.text import json_safe, visible

    status = 0
    reports = []
    for path in args.files:
        try:
            report = check_file(path)
        except Unreadable as exc:
            status = max(status, _fail(path, exc.reason))
            continue
        reports.append(report)
        if report.findings:
            status = max(status, 1)
        if not args.json:
            write = sys.stdout.write
            for finding in report.findings:
                where = f"{visible(path)}:{finding.line}" if finding.line is not None else visible(path)
                write(f"{where}: {visible(finding.text())}\n")
    if args.json:
        import orjson

        out = [report.to_json() for report in reports]
        sys.stdout.buffer.write(json_safe(orjson.dumps(out, option=orjson.OPT_INDENT_2)) + b"\n")
    return status


def _secret_files(paths: list[str]) -> list[str]:
    """The files ``check --secrets`` reads: each file named, and every session under each
    folder named (a sessions root or a project folder, as the app finds them)."""
    from ..core.store.discovery import find_session_files, resolve_root

    out = []
    for path in paths:
        if os.path.isdir(path):
            out += [file.path for file in find_session_files(resolve_root(path))]
        else:
            out.append(path)
    return out


def _check_secrets(paths: list[str], as_json: bool) -> int:
    """``pitui check --secrets FILE...|ROOT``: each likely secret on a line of its own
    (``path:line: kind in where, entry ID: ghp_…``), never the whole value; on a terminal,
    how far a scan of many files is on stderr."""
    from ..core.model.doctor import Unreadable
    from ..core.numbers import fmt_bytes as _mb
    from ..core.secrets.scan import scan_file
    from ..core.text import json_safe, visible

    files = _secret_files(paths)
    sizes = []
    for path in files:
        try:
            sizes.append(os.stat(path).st_size)
        except OSError:
            sizes.append(0)
    total = sum(sizes) or 1
    tty = len(files) > 1 and sys.stderr.isatty()
    done = 0
    status = 0
    reports = []
    for index, (path, size) in enumerate(zip(files, sizes)):
        if tty:
            sys.stderr.write(f"\rscanning {index + 1:,}/{len(files):,} files, {done * 100 // total}% of "
                             f"{_mb(total)} read\x1b[K")
            sys.stderr.flush()
        try:
            report = scan_file(path)
        except Unreadable as exc:
            if tty:
                sys.stderr.write("\r\x1b[K")
            status = max(status, _fail(path, exc.reason))
            continue
        finally:
            done += size
        reports.append(report)
        if report.secrets:
            status = max(status, 1)
        if not as_json and report.secrets:
            if tty:  # (the progress line erased before the file's lines)
                sys.stderr.write("\r\x1b[K")
            for secret in report.secrets:
                entry = f", entry {visible(secret.entry_id)}" if secret.entry_id is not None else ""
                sys.stdout.write(f"{visible(path)}:{secret.line}: {secret.kind} in {secret.where}{entry}: {visible(secret.preview)}\n")
    if tty:
        found = sum(len(report.secrets) for report in reports)
        sys.stderr.write(f"\r\x1b[K{found:,} likely secret{'s' if found != 1 else ''} in {len(files):,} files "
                         f"({_mb(total)})\n")
    if as_json:
        import orjson

        out = [report.to_json() for report in reports]
        sys.stdout.buffer.write(json_safe(orjson.dumps(out, option=orjson.OPT_INDENT_2)) + b"\n")
    return status
