"""``pitui search QUERY [ROOT] [--json] [--limit N] [--max-hits N]``: every session's text searched, the
hits shown per session, newest session first."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from . import CliError, _fail, _progress, _resolve_root

if TYPE_CHECKING:
    import argparse


#: Hits ``pitui search`` lists per session (identical ones folded) unless ``--max-hits`` says.
HUMAN_HITS = 3


def _search_parser() -> argparse.ArgumentParser:
    import argparse

    from ..core.store.search import MAX_HITS

    class Parser(argparse.ArgumentParser):
        def format_help(self) -> str:
            # (the kinds are named when help is asked for only: naming them imports the model)
            from ..core.store.search import describe_kinds

            self.epilog = (
                "kind:KIND keeps only the tool calls of that kind, the other terms (or a re: after it) "
                "matched inside them; alone, it lists every such call: 'kind:shell_exec npm' finds the bash "
                f"calls that ran npm. {describe_kinds()}."
            )
            return super().format_help()

    p = Parser(
        prog="pitui search",
        description="Search every session's text (Pi's /resume syntax: terms, \"phrase\", re:REGEX; "
        "and pitui's kind:KIND).",
    )
    p.add_argument("query", help='space-separated terms (all must match), "an exact phrase", or re:REGEX; '
                   "kind:KIND qualifiers may come first or among the terms")  # fmt: skip
    p.add_argument("root", nargs="?", help="sessions root, project folder or file (default: as the app)")
    p.add_argument("--session-dir", metavar="DIR", help="a flat folder of session files")
    p.add_argument("--json", action="store_true", help="a JSON array, one object per session")
    p.add_argument("--limit", type=int, metavar="N", help="at most N sessions (newest first)")
    p.add_argument("--no-index", action="store_true",
                   help="read the session files instead of the search index (slower; writes nothing)")  # fmt: skip
    p.add_argument("--max-hits", type=int, metavar="N",
                   help=f"hits shown per session (default {HUMAN_HITS}, the same line of the same kind shown "
                        f"once with its count; with --json {MAX_HITS}, each one; 0: all, and all counted)")  # fmt: skip
    return p


def _highlight(line: str, spans, tty: bool) -> str:
    """``line`` with its matched ``spans`` in bold yellow, on a terminal only."""
    if not tty or not spans:
        return line
    out = []
    pos = 0
    for s, e in spans:
        out.append(line[pos:s])
        out.append("\x1b[1;33m" + line[s:e] + "\x1b[0m")
        pos = e
    out.append(line[pos:])
    return "".join(out)


def cmd_search(argv: list[str]) -> int:
    """``pitui search QUERY [ROOT] [--session-dir DIR] [--json] [--limit N] [--max-hits N]``."""
    args = _search_parser().parse_args(argv)
    from ..core.store.search import MAX_HITS, QueryError, parse_query, search
    from ..core.text import json_safe, visible
    from ..core.timeutil import format_age, local_minute

    try:
        q = parse_query(args.query)
    except QueryError as exc:
        return _fail(args.query, str(exc))
    if args.limit is not None and args.limit < 1:
        return _fail(str(args.limit), "--limit must be at least 1")
    try:
        root = _resolve_root(args.root, args.session_dir)
    except CliError as exc:
        return _fail(exc.path, exc.reason)
    progress = _progress("indexing", 20)

    # the human output folds a session's identical hits into one and lists a few of them;
    # --json keeps every hit, as it always has
    wanted = args.max_hits if args.max_hits is not None else MAX_HITS if args.json else HUMAN_HITS
    max_hits = wanted if wanted > 0 else sys.maxsize
    # one session past the limit, to say whether more match (not counted: that would cost
    # a pass over every session the limit spares)
    results = search(root, q, limit=None if args.limit is None else args.limit + 1, max_hits=max_hits,
                     on_progress=progress, use_index=not args.no_index, fold=not args.json)  # fmt: skip
    more = [False]
    if args.limit is not None:
        results = _at_most(results, args.limit, more)
    if args.json:
        import orjson

        out = [r.to_json() for r in results]
        sys.stdout.buffer.write(json_safe(orjson.dumps(out, option=orjson.OPT_INDENT_2)) + b"\n")
        return 0
    import time

    tty = sys.stdout.isatty()
    now = time.time() * 1000
    w = sys.stdout.write
    n = 0
    for r in results:
        if n:
            w("\n")
        n += 1
        title = visible(" ".join(r.title.split())[:80])
        plus = "" if r.hit_count_complete else "+"  # (counting stopped one past the hits kept)
        hits = f"{r.hit_count}{plus} hit" + ("" if r.hit_count == 1 and not plus else "s")
        w(f"{title}  ({visible(r.cwd) or '?'}, {format_age(r.modified_ms, now)}, {hits})\n")
        w(f"{visible(r.path)}\n")
        for h in r.hits:
            where = f"#{h.entry_index}" if h.entry_index >= 0 else "header"
            times = f"  ×{h.repeats}" if h.repeats > 1 else ""
            w(f"  {local_minute(h.timestamp):<16} {where:>6} {h.kind:<11} {_highlight(h.context, h.spans, tty)}{times}\n")
        rest = r.hit_count - sum(h.repeats for h in r.hits)
        if rest > 0 or plus:
            unshown = f"{rest}{plus} more hit" + ("" if rest == 1 and not plus else "s")
            w(f"  ... {unshown} (--max-hits 0 lists {'and counts ' if plus else ''}them all)\n")
        sys.stdout.flush()
    if not n:
        sys.stderr.write(f"pitui: {visible(q.text.strip())}: no matches\n")
    elif more[0]:
        sys.stderr.write(f"pitui: more sessions match (--limit {args.limit} shows the newest {args.limit})\n")
    return 0


def _at_most(results, limit: int, more: list[bool]):
    """The first ``limit`` of ``results``; then ``more[0]`` says whether there was another."""
    for k, r in enumerate(results):
        if k == limit:
            more[0] = True
            return
        yield r
