"""``pitui usage [daily|weekly|monthly|session|project|model] [ROOT] ...``: tokens and cost, as
@ccusage/pi reports them, and its tables."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from . import CliError, _fail, _progress, _resolve_root

if TYPE_CHECKING:
    import argparse


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
    from ..core.store.usage import REPORTS, DayOf, load_usage, normal_date, report

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
    from ..core.text import json_safe, visible

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
    from ..core.text import visible

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
