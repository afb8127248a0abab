"""pitui's command line: the app, and ``list`` / ``export`` / ``search`` / ``check`` / ``usage`` / ``compare`` /
``status``
for scripts."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from . import __version__

if TYPE_CHECKING:
    import argparse

# (argparse, pathlib and the rest are imported where used: ``pitui FILE`` starts reading
# the file before anything it does not need is imported, see start_reading)

SUBCOMMANDS = ("list", "export", "search", "check", "usage", "compare", "status")


class CliError(Exception):
    """Bad input: reported as ``pitui: <path>: <reason>`` with exit status 2."""

    def __init__(self, path: str, reason: str):
        super().__init__(reason)
        self.path = path
        self.reason = reason


CWD_WIDTH = 40  # `pitui list`: the widest working directory column
TITLE_CELLS = 70  # `pitui list`: the widest title


def _fail(path: str, reason: str) -> int:
    from .core.text import visible

    sys.stderr.write(f"pitui: {visible(path)}: {visible(reason)}\n")
    return 2


def _app_parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog="pitui",
        description="Browse Pi coding agent sessions in the terminal (read-only).",
        epilog="Scripts: pitui list [ROOT] [--json] | pitui export FILE --format json|markdown|html [--leaf ID] | "
        "pitui search QUERY [--json] | pitui check FILE... [--json] | pitui usage [daily|weekly|monthly|session|project|"
        "model] [--json] | pitui compare FILE LEAF_A LEAF_B [--json|--markdown] | pitui status [ROOT] [--json] [--watch]",
    )
    p.add_argument("path", nargs="?", help="a sessions root, one project folder, one .jsonl session file or saved "
                   "event stream (pi --mode json or rpc), or - for an event stream piped in (pi -p --mode json ... | "
                   "pitui -), shown as it comes")
    p.add_argument("--session-dir", metavar="DIR", help="a flat folder of session files (as Pi's --session-dir)")
    p.add_argument("--demo", action="store_true", help="open the built-in demo sessions")
    p.add_argument("--version", action="version", version=f"pitui {__version__}")
    return p


def _list_parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(prog="pitui list", description="List sessions, newest first.")
    p.add_argument("root", nargs="?", help="sessions root, project folder or file (default: as the app)")
    p.add_argument("--session-dir", metavar="DIR", help="a flat folder of session files")
    p.add_argument("--json", action="store_true", help="a JSON array of Pi's SessionInfo objects (plus pitui keys)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write pitui's listing index")
    p.add_argument("--paths", action="store_true",
                   help="each session's file path instead of its id (for a root Pi does not look in)")
    return p


def _export_parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(prog="pitui export", description="Export one session (its tree, or one branch).")
    p.add_argument("file", help="a session .jsonl file")
    p.add_argument("--format", choices=("json", "markdown", "html", "session"), default="json",
                   help="session: a Pi session file of the branch alone, as Pi's /fork writes it (pi --fork OUT)")
    p.add_argument("--leaf", metavar="ID", help="the entry whose branch to export (default: the current leaf)")
    p.add_argument("-o", "--output", metavar="OUT", help="write to OUT instead of standard output")
    p.add_argument("--redact", action="store_true",
                   help="replace each likely secret (pitui check --secrets) everywhere it occurs by a placeholder "
                        "naming its kind: [REDACTED github-token 1]")
    return p


def _compare_parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog="pitui compare",
        description="Compare the branches ending at two (or more) entries of one session, from their fork on.")
    p.add_argument("file", help="a session .jsonl file")
    p.add_argument("leaves", nargs="+", metavar="LEAF", help="the entry ids the branches end at (two or more)")
    form = p.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="the comparison as JSON")
    form.add_argument("--markdown", action="store_true", help="the comparison as Markdown")
    return p


#: Hits ``pitui search`` lists per session (identical ones folded) unless ``--max-hits`` says.
HUMAN_HITS = 3


def _search_parser() -> argparse.ArgumentParser:
    import argparse

    from .core.store.search import MAX_HITS

    class Parser(argparse.ArgumentParser):
        def format_help(self) -> str:
            # (the kinds are named when help is asked for only: naming them imports the model)
            from .core.store.search import describe_kinds

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


def _check_parser() -> argparse.ArgumentParser:
    import argparse

    from .core.model.doctor import KINDS

    p = argparse.ArgumentParser(
        prog="pitui check",
        description="Say what is wrong with session files, and what Pi does with it (read-only). "
        "Exit 0 when clean, 1 with findings, 2 when a file cannot be read.",
        epilog="Kinds of finding: " + ", ".join(KINDS) + ".",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="a session .jsonl file (with --secrets, also a sessions "
                   "root or project folder: every session under it)")
    p.add_argument("--json", action="store_true", help="a JSON array, one object per file readable")
    p.add_argument("--secrets", action="store_true",
                   help="list the likely secrets instead (file:line, entry, where, kind, the first characters): exit 1 "
                        "when any is found; export --redact masks them")
    return p


def _resolve_root(path: str | None, session_dir: str | None):
    from .core.store.discovery import resolve_root

    from .core.read.lines import not_regular

    root = resolve_root(path, session_dir)
    if path is not None and not root.path.exists():
        raise CliError(path, "no such file or folder")
    if path is not None and root.kind == "file" and (why := not_regular(root.path)) is not None:
        raise CliError(path, why)  # (a FIFO would block, /dev/zero never end)
    return root


def cmd_list(argv: list[str]) -> int:
    args = _list_parser().parse_args(argv)
    from .core.store.listing import SessionIndex, list_json, list_sessions

    try:
        root = _resolve_root(args.root, args.session_dir)
    except CliError as exc:
        return _fail(exc.path, exc.reason)
    from .core.text import json_safe, visible

    index = None if args.no_cache else SessionIndex()
    if args.json:
        out = sys.stdout.buffer
        out.write(json_safe(list_json(root, index)))
        out.write(b"\n")  # (apart: the list is not copied to add it)
        return 0
    from .core.timeutil import format_age

    from .core.gc_policy import gc_paused

    # (thousands of rows that live until the command ends, and next to no garbage: left
    # out of the collections that would walk them again every few thousand rows)
    with gc_paused(freeze=True):
        infos = list_sessions(root, index)
    if not infos:
        sys.stderr.write(f"pitui: {visible(str(root.path))}: no sessions found\n")
        return 0
    import shutil
    import time

    from .ui.cells import cell_len as _cells
    from .ui.cells import cut_end as _cut_end
    from .ui.cells import cut_start as _cut_start

    def _pad(text: str, cells: int) -> str:
        return text + " " * max(0, cells - _cells(text))

    # One row per session whatever its text holds: every field from the files is shown
    # with its control characters as stand-ins (a newline in a cwd is ^J, not a row).
    # Columns: age, messages, the id `pi --session` takes (or the path, --paths), the
    # working directory, the title; widths in terminal cells (a CJK title is two a character).
    now = time.time() * 1000
    cwds = {id(i): visible(i.cwd) or "?" for i in infos if not i.error}
    width = min(max(map(_cells, cwds.values()), default=1), CWD_WIDTH)
    keys = {id(i): visible(i.path if args.paths else (i.id or "?")) for i in infos}
    key_width = max(map(_cells, keys.values()), default=1)
    # a terminal's width cuts the title; piped, a title keeps up to TITLE_CELLS
    room = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    for i in infos:
        key = _pad(keys[id(i)], key_width)
        if i.error:
            sys.stdout.write(f"{'-':>5}  {'':>5}  {key}  [{visible(i.error)}]\n")
            continue
        cwd = _pad(_cut_start(cwds[id(i)], width), width)
        head = f"{format_age(i.modified_ms, now):>5}  {i.message_count:>5}  {key}  {cwd}  "
        cells = TITLE_CELLS if room is None else max(10, min(TITLE_CELLS, room - _cells(head)))
        title = _cut_end(visible(" ".join((i.name or i.first_message).split())), cells)
        sys.stdout.write(f"{head}{title}\n")
    return 0


def cmd_export(argv: list[str]) -> int:
    args = _export_parser().parse_args(argv)
    from .core.export.json import export_json, resolve_leaf
    from .core.read.session import NotASession, Session

    try:
        session = Session.open(args.file, validate=True)
    except NotASession as exc:
        return _fail(args.file, exc.reason)
    if args.output:
        from .core.export.guard import export_refusal

        why = export_refusal(args.output, args.file, ())
        if why is not None:
            return _fail(args.output, f"not written: {why}")
    try:
        leaf = resolve_leaf(session, args.leaf)
    except KeyError:
        return _fail(args.file, f"no entry with id {args.leaf!r}")
    if args.redact:
        from .core.model.doctor import Unreadable
        from .core.secrets.redact import Redactor, redacted
        from .core.secrets.scan import scan_file

        try:
            session = redacted(session, Redactor(scan_file(args.file).secrets))
        except Unreadable as exc:
            return _fail(args.file, exc.reason)
    if args.format == "json":
        import orjson

        from .core.text import json_safe

        data = json_safe(orjson.dumps(export_json(session, args.leaf), option=orjson.OPT_INDENT_2)) + b"\n"
    elif args.format == "markdown":
        from .core.export.markdown import export_markdown

        data = export_markdown(session, leaf).encode()
    elif args.format == "session":
        from .core.export.fork import export_session
        from .core.text import json_safe

        # (json_safe: the same JSON, with what a terminal would act on escaped)
        data = json_safe(export_session(session, leaf)[1])
    else:
        from .core.export.html import export_html

        data = export_html(session, leaf).encode()
    if args.output:
        try:
            with open(args.output, "wb") as f:
                f.write(data)
        except OSError as exc:
            return _fail(args.output, f"cannot be written ({exc.strerror or exc})")
    else:
        sys.stdout.buffer.write(data)
    return 0


def cmd_compare(argv: list[str]) -> int:
    """``pitui compare FILE LEAF_A LEAF_B [--json|--markdown]``: what each branch did after
    the fork (core/model/compare.py)."""
    parser = _compare_parser()
    args = parser.parse_args(argv)
    if len(args.leaves) < 2:
        parser.error("give two or more entry ids")
    from .core.model.compare import compare_branches
    from .core.read.session import NotASession, Session

    try:
        session = Session.open(args.file)
    except NotASession as exc:
        return _fail(args.file, exc.reason)
    leaves = []
    for leaf_id in args.leaves:
        i = session.index_of.get(leaf_id)
        if i is None:
            return _fail(args.file, f"no entry with id {leaf_id!r}")
        leaves.append(i)
    comparison = compare_branches(session, leaves)
    if args.json:
        import orjson

        from .core.text import json_safe

        sys.stdout.buffer.write(json_safe(orjson.dumps(comparison.to_json(session), option=orjson.OPT_INDENT_2)) + b"\n")
    else:
        from .core.export.compare import compare_markdown, compare_text

        sys.stdout.write((compare_markdown if args.markdown else compare_text)(session, comparison))
    return 0


def cmd_check(argv: list[str]) -> int:
    """``pitui check FILE... [--json]``: each file's findings, one line each, as a linter
    prints them (``path:line: kind: message (Pi: what it does)``)."""
    args = _check_parser().parse_args(argv)
    if args.secrets:
        return _check_secrets(args.files, args.json)
    from .core.model.doctor import Unreadable, check_file
    from .core.text import json_safe, visible

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
            w = sys.stdout.write
            for f in report.findings:
                where = f"{visible(path)}:{f.line}" if f.line is not None else visible(path)
                w(f"{where}: {visible(f.text())}\n")
    if args.json:
        import orjson

        out = [r.to_json() for r in reports]
        sys.stdout.buffer.write(json_safe(orjson.dumps(out, option=orjson.OPT_INDENT_2)) + b"\n")
    return status


def _secret_files(paths: list[str]) -> list[str]:
    """The files ``check --secrets`` reads: each file named, and every session under each
    folder named (a sessions root or a project folder, as the app finds them)."""
    from .core.store.discovery import find_session_files, resolve_root

    out = []
    for path in paths:
        if os.path.isdir(path):
            out += [f.path for f in find_session_files(resolve_root(path))]
        else:
            out.append(path)
    return out


def _check_secrets(paths: list[str], as_json: bool) -> int:
    """``pitui check --secrets FILE...|ROOT``: each likely secret on a line of its own
    (``path:line: kind in where, entry ID: ghp_…``), never the whole value; on a terminal,
    how far a scan of many files is on stderr."""
    from .core.model.doctor import Unreadable
    from .core.numbers import fmt_bytes as _mb
    from .core.secrets.scan import scan_file
    from .core.text import json_safe, visible

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
    for n, (path, size) in enumerate(zip(files, sizes)):
        if tty:
            sys.stderr.write(f"\rscanning {n + 1:,}/{len(files):,} files, {done * 100 // total}% of "
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
            for f in report.secrets:
                entry = f", entry {visible(f.entry_id)}" if f.entry_id is not None else ""
                sys.stdout.write(f"{visible(path)}:{f.line}: {f.kind} in {f.where}{entry}: {visible(f.preview)}\n")
    if tty:
        found = sum(len(r.secrets) for r in reports)
        sys.stderr.write(f"\r\x1b[K{found:,} likely secret{'s' if found != 1 else ''} in {len(files):,} files "
                         f"({_mb(total)})\n")
    if as_json:
        import orjson

        out = [r.to_json() for r in reports]
        sys.stdout.buffer.write(json_safe(orjson.dumps(out, option=orjson.OPT_INDENT_2)) + b"\n")
    return status


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


def _progress(verb: str, at_least: int):
    """A progress line on a terminal's stderr (``pitui: <verb> 12/345 sessions``) for work on
    at least ``at_least`` sessions, ended when the count reaches the total."""
    err_tty = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if err_tty and total >= at_least:
            sys.stderr.write(f"\rpitui: {verb} {done}/{total} sessions" + ("\n" if done == total else ""))
            sys.stderr.flush()

    return progress


def cmd_search(argv: list[str]) -> int:
    """``pitui search QUERY [ROOT] [--session-dir DIR] [--json] [--limit N] [--max-hits N]``."""
    args = _search_parser().parse_args(argv)
    from .core.store.search import MAX_HITS, QueryError, parse_query, search
    from .core.text import json_safe, visible
    from .core.timeutil import format_age, local_minute

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


def _usage_parser() -> argparse.ArgumentParser:
    import argparse

    p = argparse.ArgumentParser(
        prog="pitui usage", description="Tokens and cost of every session, counted as @ccusage/pi counts them.")
    p.add_argument("report", nargs="?", default="daily", metavar="daily|weekly|monthly|session|project|model",
                   help="how to group (default: daily)")
    p.add_argument("root", nargs="?", help="sessions root or project folder (default: as the app)")
    p.add_argument("--session-dir", metavar="DIR", help="a flat folder of session files")
    p.add_argument("--since", metavar="DATE", help="from this day on (YYYY-MM-DD or YYYYMMDD)")
    p.add_argument("--until", metavar="DATE", help="up to this day (YYYY-MM-DD or YYYYMMDD)")
    p.add_argument("-z", "--timezone", metavar="TZ", help="the time zone of days (default: the local one)")
    p.add_argument("--project", metavar="TEXT", help="only project folders whose name holds TEXT")
    p.add_argument("-b", "--breakdown", action="store_true", help="each row's models under it")
    p.add_argument("--sort", choices=("date", "cost", "tokens"), help="session rows: newest (default), costliest "
                   "or biggest first")
    p.add_argument("--json", action="store_true", help="JSON with @ccusage/pi's fields (plus pitui's)")
    p.add_argument("--no-cache", action="store_true", help="do not read or write pitui's usage index")
    return p


def cmd_usage(argv: list[str]) -> int:
    """``pitui usage [REPORT] [ROOT] ...``: ccusage's reports, from pitui's usage index."""
    args = _usage_parser().parse_args(argv)
    from .core.store.usage import REPORTS, DayOf, load_usage, normal_date, report

    if args.report not in REPORTS:
        if args.root is not None:
            return _fail(args.report, "not a report: " + ", ".join(REPORTS))
        args.root, args.report = args.report, "daily"
    bounds = []
    for flag, value in (("--since", args.since), ("--until", args.until)):
        d = normal_date(value) if value is not None else None
        if value is not None and d is None:
            return _fail(value, f"{flag} wants a day as YYYY-MM-DD or YYYYMMDD")
        bounds.append(d)
    if args.timezone is not None:
        try:
            DayOf(args.timezone)
        except Exception:  # (zoneinfo raises several kinds for a bad name)
            return _fail(args.timezone, "not a time zone")
    try:
        root = _resolve_root(args.root, args.session_dir)
    except CliError as exc:
        return _fail(exc.path, exc.reason)
    from .core.text import json_safe, visible

    usage = load_usage(root, use_cache=not args.no_cache, progress=_progress("reading", 200))
    out = report(usage, args.report, tz=args.timezone, since=bounds[0], until=bounds[1], project=args.project,
                 sort=args.sort)
    skipped = usage.skipped()
    if skipped:
        why = "; ".join(f"{n} {visible(k)}" for k, n in sorted(skipped.items()))
        sys.stderr.write(f"pitui: {sum(skipped.values())} messages' usage not counted ({why})\n")
    if usage.unreadable:
        sys.stderr.write(f"pitui: {usage.unreadable} session files could not be read\n")
    if args.json:
        import orjson

        sys.stdout.buffer.write(json_safe(orjson.dumps(out, option=orjson.OPT_INDENT_2)) + b"\n")
        return 0
    if not out:
        sys.stderr.write(f"pitui: {visible(str(root.path))}: no usage found\n")
        return 0
    import shutil

    width = shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 80
    for line in usage_table(args.report, out, width=width, breakdown=args.breakdown, bold=sys.stdout.isatty()):
        sys.stdout.write(line + "\n")
    return 0


def _status_parser() -> argparse.ArgumentParser:
    import argparse

    from .core.live.board import STALL_MINUTES, WINDOW_MINUTES

    p = argparse.ArgumentParser(
        prog="pitui status", description="What every agent is doing: the sessions written lately, newest first, "
        "each working, waiting for you, failed or stalled (read from the end of its file).")
    p.add_argument("root", nargs="?", help="sessions root, project folder or file (default: as the app)")
    p.add_argument("--session-dir", metavar="DIR", help="a flat folder of session files")
    p.add_argument("--json", action="store_true", help="a JSON array, one object per session (with --watch: one "
                   "JSON object per line for each change of state)")
    p.add_argument("--watch", action="store_true", help="then print a line each time a session changes state "
                   "(until interrupted)")
    p.add_argument("--since", type=float, default=WINDOW_MINUTES, metavar="MINUTES",
                   help=f"sessions written in the last MINUTES (default {WINDOW_MINUTES})")
    p.add_argument("--stalled-after", type=float, default=STALL_MINUTES, metavar="MINUTES",
                   help=f"a session at work with nothing written for MINUTES is stalled (default {STALL_MINUTES})")
    return p


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

    from .core.live.board import LiveBoard
    from .core.text import json_safe

    board = LiveBoard(root, window_minutes=args.since, stall_minutes=args.stalled_after)

    def now_ms() -> float:
        return time.time() * 1000

    out = sys.stdout
    if not args.watch:
        now = now_ms()
        board.refresh(now)
        rows = board.rows(now)
        if args.json:
            out.buffer.write(json_safe(orjson.dumps([a.to_json() for a in rows], option=orjson.OPT_INDENT_2)) + b"\n")
        else:
            for line in status_lines(rows, now, _status_width()):
                out.write(line + "\n")
        return 0
    import threading

    from .core.live.watch import follow
    from .core.timeutil import ms_to_iso

    first = [True]

    def report(changes, rows) -> None:
        now = now_ms()
        if first[0]:
            first[0] = False
            if not args.json:
                for line in status_lines(rows, now, _status_width()):
                    out.write(line + "\n")
        for change in changes:
            a = change.activity
            if args.json:
                line = {"time": ms_to_iso(now), "before": change.before, **a.to_json()}
                out.buffer.write(json_safe(orjson.dumps(line)) + b"\n")
            else:
                out.write(watch_line(a, now) + "\n")
        out.flush()

    follow(board, now_ms, threading.Event(), report)
    return 0


def _status_width() -> int:
    import shutil

    return shutil.get_terminal_size((120, 24)).columns if sys.stdout.isatty() else 160


def watch_line(a, now_ms: float) -> str:
    """``pitui status --watch``'s line for a session that changed state: the local time, the
    new state, the session's id, its project and its title (control characters as stand-ins)."""
    from .core.model.summary import shorten_home
    from .core.text import visible
    from .core.timeutil import local_minute

    stamp = time_of_day(now_ms)
    where = visible(shorten_home(a.cwd) if a.cwd else a.project)
    doing = a.doing(now_ms)
    return "  ".join(x for x in (local_minute(now_ms)[:11] + stamp, a.state, visible(a.id or a.path), where,
                                 a.title, doing) if x)


def time_of_day(ms: float) -> str:
    """``14:03:07``, local time."""
    import datetime

    return datetime.datetime.fromtimestamp(ms / 1000).strftime("%H:%M:%S")


def status_lines(rows, now_ms: float, width: int) -> list[str]:
    """``pitui status``'s table: state, time in it, project, title, model, cost, context
    tokens, and what it does (the tool running, why it failed), cut to ``width`` cells."""
    from .core.model.summary import shorten_home
    from .core.numbers import fmt_cost, fmt_duration, fmt_tokens
    from .core.text import visible
    from .ui.cells import cell_len, cut_end, cut_start

    if not rows:
        return ["no session was written in this window"]
    table = []
    for a in rows:
        where = visible(shorten_home(a.cwd) if a.cwd else a.project)
        table.append([a.state, fmt_duration(a.in_state_ms(now_ms)) or "?", cut_start(where, 24), a.title,
                      visible(a.model or ""), fmt_cost(a.cost, zero="$0") if a.cost is not None else "…",
                      fmt_tokens(a.context_tokens) if a.context_tokens is not None else "", a.doing(now_ms)])
    widths = [max(cell_len(r[k]) for r in table) for k in range(8)]
    fixed = sum(widths[k] for k in (0, 1, 2, 4, 5, 6)) + 2 * 7
    title_w = max(12, min(widths[3], 48, width - fixed - 12))
    lines = []
    for r in table:
        cells = [r[0].ljust(widths[0]), r[1].rjust(widths[1]), r[2] + " " * (widths[2] - cell_len(r[2])),
                 cut_end(r[3], title_w) + " " * max(0, title_w - cell_len(cut_end(r[3], title_w))),
                 r[4].ljust(widths[4]), r[5].rjust(widths[5]), r[6].rjust(widths[6])]
        line = "  ".join(cells)
        room = width - cell_len(line) - 2
        if r[7] and room > 4:
            line += "  " + cut_end(r[7], room)
        lines.append(line.rstrip())
    return lines


def _dollars(v: float) -> str:
    """Dollars with 2 decimals, 4 below a cent (and $0.00 for nothing)."""
    if 0 < abs(v) < 0.01:
        return f"${v:,.4f}"
    return f"${v:,.2f}"


_USAGE_COLUMNS = (("inputTokens", "Input"), ("outputTokens", "Output"), ("cacheCreationTokens", "Cache write"),
                  ("cacheReadTokens", "Cache read"), ("totalTokens", "Tokens"), ("totalCost", "Cost"))
# what goes first when the width is short (the label, tokens and cost stay): the models,
# then the label is cut to 24 cells, then token columns
_USAGE_DROP = ("models", "label", "cacheCreationTokens", "inputTokens", "outputTokens", "cacheReadTokens")
_LABEL_MIN = 24


def usage_table(kind: str, data: dict, *, width: int, breakdown: bool = False, bold: bool = False) -> list[str]:
    """A usage report (:func:`pitui.core.store.usage.report`) as aligned rows that fit
    ``width`` cells: a label, token counts with thousands separated, the cost, the models;
    a totals row. Text from the files shown with its control characters as stand-ins."""
    from .core.text import visible

    rows_key, label_key, title = {
        "daily": ("daily", "date", "Date"), "weekly": ("weekly", "week", "Week of"),
        "monthly": ("monthly", "month", "Month"), "session": ("sessions", "sessionId", "Session"),
        "project": ("projects", "project", "Project"), "model": ("models", "model", "Model")}[kind]

    def label(r: dict) -> str:
        if kind == "session":
            return visible(r.get("name") or r["sessionId"]) + "  " + visible(r["projectPath"])
        return visible(str(r[label_key]).removeprefix("[pi] "))

    def models(r: dict) -> str:
        return ", ".join(visible(m.removeprefix("[pi] ")) for m in r.get("modelsUsed", ()))

    def cells(r: dict) -> dict:
        c = {k: f"{r[k]:,.0f}" for k, _ in _USAGE_COLUMNS[:-1]}
        c["totalCost"] = _dollars(r["totalCost"])
        return c

    from rich.cells import cell_len, set_cell_size

    def sub_rows(r: dict) -> list[tuple[str, dict]]:
        if not breakdown or kind == "model":
            return []
        return [("  └ " + visible(b["modelName"].removeprefix("[pi] ")), cells({
            "inputTokens": b["inputTokens"], "outputTokens": b["outputTokens"],
            "cacheCreationTokens": b["cacheCreationTokens"], "cacheReadTokens": b["cacheReadTokens"],
            "totalTokens": b["inputTokens"] + b["outputTokens"] + b["cacheCreationTokens"] + b["cacheReadTokens"],
            "totalCost": b["cost"]})) for b in r.get("modelBreakdowns", ())]

    body = [(label(r), cells(r), models(r), sub_rows(r)) for r in data[rows_key]]
    totals = data["totals"]
    total_cells = cells(totals)
    shown = [k for k, _ in _USAGE_COLUMNS]
    names = dict(_USAGE_COLUMNS)
    show_models = kind != "model"
    label_w = max([len(title), len("Total")] + [cell_len(b[0]) for b in body]
                  + [cell_len(sub[0]) for b in body for sub in b[3]])
    label_w = min(label_w, 48)

    def col_w(k: str) -> int:
        return max(len(names[k]), len(total_cells[k]), *(len(b[1][k]) for b in body),
                   *(len(sub[1][k]) for b in body for sub in b[3]))

    def fits(label_w: int) -> bool:
        used = label_w + sum(col_w(k) + 2 for k in shown)
        return used + (2 + 12 if show_models else 0) <= width

    for k in _USAGE_DROP:
        if fits(label_w):
            break
        if k == "models":
            show_models = False
        elif k == "label":
            while not fits(label_w) and label_w > _LABEL_MIN:
                label_w -= 1
        else:
            shown.remove(k)
    while not fits(label_w) and label_w > 8:
        label_w -= 1
    models_w = max(0, width - label_w - sum(col_w(k) + 2 for k in shown) - 2)

    def cut(text: str, w: int) -> str:
        return text if cell_len(text) <= w else set_cell_size(text, max(0, w - 1)) + "…"

    def line(lab: str, c: dict, mods: str) -> str:
        out = set_cell_size(cut(lab, label_w), label_w) + "".join("  " + c[k].rjust(col_w(k)) for k in shown)
        if show_models and mods:
            out += "  " + cut(mods, models_w)
        return out.rstrip()

    head = line(title, {k: names[k] for k in shown}, "Models" if show_models else "")
    out = [f"\x1b[1m{head}\x1b[0m" if bold else head, "─" * min(width, max(len(head), label_w))]
    for lab, c, mods, subs in body:
        out.append(line(lab, c, mods))
        for sub_label, sub_cells in subs:
            out.append(line(sub_label, sub_cells, ""))
    out.append("─" * min(width, max(len(head), label_w)))
    out.append(line("Total", total_cells, ""))
    return out


def start_reading(argv: list[str]) -> str | None:
    """What ``pitui`` does first: no garbage collection while the app starts (the pause
    ends with the first session shown), and for ``pitui FILE`` (one argument, an existing
    file) the file's read started on another core at once, before the arguments are
    parsed or anything else is imported (:func:`open_parallel.prestart`). Returns the
    path whose read was started, in the form :func:`discovery.resolve_root` gives it
    (None when nothing was started: the app starts it later, once it has resolved the
    argument, if it is a file at all)."""
    from .core.gc_policy import pause_gc_for_start
    from .core.open.parallel import prestart

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
            from .demo import DEMO_ROOT

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
            from .core.read.session import NotASession, Session

            try:
                Session.read_header(root.path)
            except NotASession as exc:
                file, root = root, None
                return _fail(os.fspath(file.path), exc.reason)
    finally:
        if started is not None and (root is None or root.kind != "file" or os.fspath(root.path) != started):
            from .core.open.parallel import cancel_prestart

            cancel_prestart(started)  # (not what the app opens after all)
    if root.kind == "file" and os.fspath(root.path) != started:
        from .core.open.parallel import prestart

        # Start reading the session on other cores now, while Textual is imported.
        prestart(root.path, freeze=True)  # the app keeps what it opens (see gc_paused)
    from .ui.app import run_app

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
    from .core.read.stream import StreamSession
    from .core.store.discovery import resolve_root

    live = StreamSession.live()
    threading.Thread(target=live.read_from, args=(pipe,), name="pitui-stdin", daemon=True).start()
    from .ui.app import run_app

    return run_app(resolve_root(None, session_dir), live=live) or 0


def _say_notices() -> None:
    """One line on standard error for each thing that happened to pitui's caches (a
    damaged one rebuilt, a cache folder not used: see :func:`pitui.core.paths.notice`)."""
    from .core.paths import take_notices
    from .core.text import visible

    for line in take_notices():
        try:
            sys.stderr.write(f"pitui: {visible(line)}\n")
        except (OSError, ValueError):
            break


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in SUBCOMMANDS:
            cmd, rest = argv[0], argv[1:]
            return {"list": cmd_list, "export": cmd_export, "search": cmd_search, "check": cmd_check,
                    "usage": cmd_usage, "compare": cmd_compare, "status": cmd_status}[cmd](rest)
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


if __name__ == "__main__":
    sys.exit(main())
