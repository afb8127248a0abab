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

    parser = Parser(
        prog="pitui search",
        description="Search every session's text (Pi's /resume syntax: terms, \"phrase\", re:REGEX; "
        "and pitui's kind:KIND).",
    )
    parser.add_argument("query", help='space-separated terms (all must match), "an exact phrase", or re:REGEX; '
                        "kind:KIND qualifiers may come first or among the terms")  # fmt: skip
    parser.add_argument("root", nargs="?", help="sessions root, project folder or file (default: as the app)")
    parser.add_argument("--session-dir", metavar="DIR", help="a flat folder of session files")
    parser.add_argument("--json", action="store_true", help="a JSON array, one object per session")
    parser.add_argument("--limit", type=int, metavar="N", help="at most N sessions (newest first)")
    parser.add_argument("--no-index", action="store_true",
                        help="read the session files instead of the search index (slower; writes nothing)")  # fmt: skip
    parser.add_argument("--max-hits", type=int, metavar="N",
                        help=f"hits shown per session (default {HUMAN_HITS}, the same line of the same kind shown "
                        f"once with its count; with --json {MAX_HITS}, each one; 0: all, and all counted)")  # fmt: skip
    return parser


def _highlight(line: str, spans, tty: bool) -> str:
    """``line`` with its matched ``spans`` in bold yellow, on a terminal only."""
    if not tty or not spans:
        return line
    out = []
    pos = 0
    for start, end in spans:
        out.append(line[pos:start])
        out.append("\x1b[1;33m" + line[start:end] + "\x1b[0m")
        pos = end
    out.append(line[pos:])
    return "".join(out)


def cmd_search(argv: list[str]) -> int:
    """``pitui search QUERY [ROOT] [--session-dir DIR] [--json] [--limit N] [--max-hits N]``."""
    args = _search_parser().parse_args(argv)
    from ..core.store.search import MAX_HITS, QueryError, parse_query, search
    from ..core.text import json_safe, visible
    from ..core.timeutil import format_age, local_minute

    try:
        query = parse_query(args.query)
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
    results = search(root, query, limit=None if args.limit is None else args.limit + 1, max_hits=max_hits,
                     on_progress=progress, use_index=not args.no_index, fold=not args.json)  # fmt: skip
    more = [False]
    if args.limit is not None:
        results = _at_most(results, args.limit, more)
    if args.json:
        import orjson

        out = [result.to_json() for result in results]
        sys.stdout.buffer.write(json_safe(orjson.dumps(out, option=orjson.OPT_INDENT_2)) + b"\n")
        return 0
    import time

    tty = sys.stdout.isatty()
    now = time.time() * 1000
    write = sys.stdout.write
    count = 0
    for result in results:
        if count:
            write("\n")
        count += 1
        title = visible(" ".join(result.title.split())[:80])
        plus = "" if result.hit_count_complete else "+"  # (counting stopped one past the hits kept)
        hits = f"{result.hit_count}{plus} hit" + ("" if result.hit_count == 1 and not plus else "s")
        write(f"{title}  ({visible(result.cwd) or '?'}, {format_age(result.modified_ms, now)}, {hits})\n")
        write(f"{visible(result.path)}\n")
        for hit in result.hits:
            where = f"#{hit.entry_index}" if hit.entry_index >= 0 else "header"
            times = f"  ×{hit.repeats}" if hit.repeats > 1 else ""
            write(f"  {local_minute(hit.timestamp):<16} {where:>6} {hit.kind:<11} {_highlight(hit.context, hit.spans, tty)}{times}\n")
        rest = result.hit_count - sum(hit.repeats for hit in result.hits)
        if rest > 0 or plus:
            unshown = f"{rest}{plus} more hit" + ("" if rest == 1 and not plus else "s")
            write(f"  ... {unshown} (--max-hits 0 lists {'and counts ' if plus else ''}them all)\n")
        sys.stdout.flush()
    if not count:
        sys.stderr.write(f"pitui: {visible(query.text.strip())}: no matches\n")
    elif more[0]:
        sys.stderr.write(f"pitui: more sessions match (--limit {args.limit} shows the newest {args.limit})\n")
    return 0


def _at_most(results, limit: int, more: list[bool]):
    """The first ``limit`` of ``results``; then ``more[0]`` says whether there was another."""
    for index, result in enumerate(results):
        if index == limit:
            more[0] = True
            return
        yield result
