"""``pitui compare FILE LEAF_A LEAF_B [--json|--markdown]``: the branches of one session side by side."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from . import _fail

if TYPE_CHECKING:
    import argparse


def _compare_parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="pitui compare",
        description="Compare the branches ending at two (or more) entries of one session, from their fork on.")
    parser.add_argument("file", help="a session .jsonl file")
    parser.add_argument("leaves", nargs="+", metavar="LEAF", help="the entry ids the branches end at (two or more)")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="the comparison as JSON")
    form.add_argument("--markdown", action="store_true", help="the comparison as Markdown")
    return parser


def cmd_compare(argv: list[str]) -> int:
    """``pitui compare FILE LEAF_A LEAF_B [--json|--markdown]``: what each branch did after
    the fork (core/model/compare.py)."""
    parser = _compare_parser()
    args = parser.parse_args(argv)
    if len(args.leaves) < 2:
        parser.error("give two or more entry ids")
    from ..core.model.compare import compare_branches
    from ..core.read.open import open_session
    from ..core.read.session import NotASession

    try:
        session = open_session(args.file)
    except NotASession as exc:
        return _fail(args.file, exc.reason)
    leaves = []
    for leaf_id in args.leaves:
        index = session.index_of.get(leaf_id)
        if index is None:
            return _fail(args.file, f"no entry with id {leaf_id!r}")
        leaves.append(index)
    comparison = compare_branches(session, leaves)
    if args.json:
        import orjson

        from ..core.text import json_safe

        sys.stdout.buffer.write(json_safe(orjson.dumps(comparison.to_json(session), option=orjson.OPT_INDENT_2)) + b"\n")
    else:
        from ..core.export.compare import compare_markdown, compare_text

        sys.stdout.write((compare_markdown if args.markdown else compare_text)(session, comparison))
    return 0
