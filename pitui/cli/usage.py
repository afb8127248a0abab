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

    parser = argparse.ArgumentParser(
        prog="pitui usage", description="Tokens and cost of every session, counted as @ccusage/pi counts them.")
    parser.add_argument("report", nargs="?", default="daily", metavar="daily|weekly|monthly|session|project|model",
                        help="how to group (default: daily)")
    parser.add_argument("root", nargs="?", help="sessions root or project folder (default: as the app)")
    parser.add_argument("--session-dir", metavar="DIR", help="a flat folder of session files")
    parser.add_argument("--since", metavar="DATE", help="from this day on (YYYY-MM-DD or YYYYMMDD)")
    parser.add_argument("--until", metavar="DATE", help="up to this day (YYYY-MM-DD or YYYYMMDD)")
    parser.add_argument("-z", "--timezone", metavar="TZ", help="the time zone of days (default: the local one)")
    parser.add_argument("--project", metavar="TEXT", help="only project folders whose name holds TEXT")
    parser.add_argument("-b", "--breakdown", action="store_true", help="each row's models under it")
    parser.add_argument("--sort", choices=("date", "cost", "tokens"), help="session rows: newest (default), costliest "
                        "or biggest first")
    parser.add_argument("--json", action="store_true", help="JSON with @ccusage/pi's fields (plus pitui's)")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write pitui's usage index")
    return parser


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
        date = normal_date(value) if value is not None else None
        if value is not None and date is None:
            return _fail(value, f"{flag} wants a day as YYYY-MM-DD or YYYYMMDD")
        bounds.append(date)
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
        why = "; ".join(f"{count} {visible(reason)}" for reason, count in sorted(skipped.items()))
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


def _dollars(dollars: float) -> str:
    """Dollars with 2 decimals, 4 below a cent (and $0.00 for nothing)."""
    if 0 < abs(dollars) < 0.01:
        return f"${dollars:,.4f}"
    return f"${dollars:,.2f}"


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

    def label(row: dict) -> str:
        if kind == "session":
            return visible(row.get("name") or row["sessionId"]) + "  " + visible(row["projectPath"])
        return visible(str(row[label_key]).removeprefix("[pi] "))

    def models(row: dict) -> str:
        return ", ".join(visible(model.removeprefix("[pi] ")) for model in row.get("modelsUsed", ()))

    def cells(row: dict) -> dict:
        cells = {column: f"{row[column]:,.0f}" for column, _ in _USAGE_COLUMNS[:-1]}
        cells["totalCost"] = _dollars(row["totalCost"])
        return cells

    from rich.cells import cell_len, set_cell_size

    def sub_rows(row: dict) -> list[tuple[str, dict]]:
        if not breakdown or kind == "model":
            return []
        return [("  └ " + visible(breakdown["modelName"].removeprefix("[pi] ")), cells({
            "inputTokens": breakdown["inputTokens"], "outputTokens": breakdown["outputTokens"],
            "cacheCreationTokens": breakdown["cacheCreationTokens"], "cacheReadTokens": breakdown["cacheReadTokens"],
            "totalTokens": breakdown["inputTokens"] + breakdown["outputTokens"] + breakdown["cacheCreationTokens"] + breakdown["cacheReadTokens"],
            "totalCost": breakdown["cost"]})) for breakdown in row.get("modelBreakdowns", ())]

    body = [(label(row), cells(row), models(row), sub_rows(row)) for row in data[rows_key]]
    totals = data["totals"]
    total_cells = cells(totals)
    shown = [column for column, _ in _USAGE_COLUMNS]
    names = dict(_USAGE_COLUMNS)
    show_models = kind != "model"
    label_w = max([len(title), len("Total")] + [cell_len(line[0]) for line in body]
                  + [cell_len(sub[0]) for line in body for sub in line[3]])
    label_w = min(label_w, 48)

    def col_w(column: str) -> int:
        return max(len(names[column]), len(total_cells[column]), *(len(line[1][column]) for line in body),
                   *(len(sub[1][column]) for line in body for sub in line[3]))

    def fits(label_w: int) -> bool:
        used = label_w + sum(col_w(column) + 2 for column in shown)
        return used + (2 + 12 if show_models else 0) <= width

    for key in _USAGE_DROP:
        if fits(label_w):
            break
        if key == "models":
            show_models = False
        elif key == "label":
            while not fits(label_w) and label_w > _LABEL_MIN:
                label_w -= 1
        else:
            shown.remove(key)
    while not fits(label_w) and label_w > 8:
        label_w -= 1
    models_w = max(0, width - label_w - sum(col_w(column) + 2 for column in shown) - 2)

    def cut(text: str, width: int) -> str:
        return text if cell_len(text) <= width else set_cell_size(text, max(0, width - 1)) + "…"

    def line(lab: str, cells: dict, mods: str) -> str:
        out = set_cell_size(cut(lab, label_w), label_w) + "".join("  " + cells[column].rjust(col_w(column)) for column in shown)
        if show_models and mods:
            out += "  " + cut(mods, models_w)
        return out.rstrip()

    head = line(title, {column: names[column] for column in shown}, "Models" if show_models else "")
    out = [f"\x1b[1m{head}\x1b[0m" if bold else head, "─" * min(width, max(len(head), label_w))]
    for lab, row_cells, mods, subs in body:
        out.append(line(lab, row_cells, mods))
        for sub_label, sub_cells in subs:
            out.append(line(sub_label, sub_cells, ""))
    out.append("─" * min(width, max(len(head), label_w)))
    out.append(line("Total", total_cells, ""))
    return out
