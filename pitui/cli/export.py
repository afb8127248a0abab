"""``pitui export FILE --format json|markdown|html|session [--leaf ID] [-o OUT] [--redact]``: one session
out, whole or one branch."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from . import _fail

if TYPE_CHECKING:
    import argparse


def _export_parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(prog="pitui export", description="Export one session (its tree, or one branch).")
    parser.add_argument("file", help="a session .jsonl file")
    parser.add_argument("--format", choices=("json", "markdown", "html", "session"), default="json",
                        help="session: a Pi session file of the branch alone, as Pi's /fork writes it (pi --fork OUT)")
    parser.add_argument("--leaf", metavar="ID", help="the entry whose branch to export (default: the current leaf)")
    parser.add_argument("-o", "--output", metavar="OUT", help="write to OUT instead of standard output")
    parser.add_argument("--redact", action="store_true",
                        help="replace each likely secret (pitui check --secrets) everywhere it occurs by a placeholder "
                        "naming its kind: [REDACTED github-token 1]")
    return parser


def cmd_export(argv: list[str]) -> int:
    args = _export_parser().parse_args(argv)
    from ..core.export.json import export_json, resolve_leaf
    from ..core.read.open import open_session
    from ..core.read.session import NotASession

    try:
        session = open_session(args.file, validate=True)
    except NotASession as exc:
        return _fail(args.file, exc.reason)
    if args.output:
        from ..core.export.guard import export_refusal

        why = export_refusal(args.output, args.file, ())
        if why is not None:
            return _fail(args.output, f"not written: {why}")
    try:
        leaf = resolve_leaf(session, args.leaf)
    except KeyError:
        return _fail(args.file, f"no entry with id {args.leaf!r}")
    if args.redact:
        from ..core.model.doctor import Unreadable
        from ..core.secrets.redact import Redactor, redacted
        from ..core.secrets.scan import scan_file

        try:
            session = redacted(session, Redactor(scan_file(args.file).secrets))
        except Unreadable as exc:
            return _fail(args.file, exc.reason)
    if args.format == "json":
        import orjson

        from ..core.text import json_safe

        data = json_safe(orjson.dumps(export_json(session, args.leaf), option=orjson.OPT_INDENT_2)) + b"\n"
    elif args.format == "markdown":
        from ..core.export.markdown import export_markdown

        data = export_markdown(session, leaf).encode()
    elif args.format == "session":
        from ..core.export.fork import export_session
        from ..core.text import json_safe

        # (json_safe: the same JSON, with what a terminal would act on escaped)
        data = json_safe(export_session(session, leaf)[1])
    else:
        from ..core.export.html import export_html

        data = export_html(session, leaf).encode()
    if args.output:
        try:
            with open(args.output, "wb") as handle:
                handle.write(data)
        except OSError as exc:
            return _fail(args.output, f"cannot be written ({exc.strerror or exc})")
    else:
        sys.stdout.buffer.write(data)
    return 0
