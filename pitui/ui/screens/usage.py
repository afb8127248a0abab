"""What every session cost (``$`` from anywhere): spend per day, totals, by model and project,
the costliest sessions, tool calls and cache efficiency, for a period and a project filter.

The figures are the core's (:func:`pitui.core.store.usage.overview`, the same numbers as
``pitui usage``), worked out in a thread worker from the usage index (a cold one reads every
file first, the status line says so). A store where nothing changed since the screen last
showed this period shows the figures kept then at once (:mod:`pitui.core.store.usage_quick`),
and reads the usage index only when another period or filter asks for figures not kept (so
that nothing competes with the screen's first paint); where something changed, it
shows the last figures kept for that period, saying so, until the new ones come. The period keys (``1``
7 days, ``2`` 30 days, the default, ``3`` this month, ``4`` everything) and the project
filter (``/``, a part of the project folder's name) change every figure at once. Enter on a
session dismisses the screen with its path: the app opens it.

The daily spend is Textual's ``Sparkline``: one bar per day scaled to the costliest, which
is what the chart has to say; a plotting widget (``textual-plotext``) would add axes and a
dependency for a chart the labels under it already date and scale.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Input, Sparkline, Static

from ...core.numbers import fmt_cost, fmt_duration, fmt_tokens_short
from ...core.paths import default_cache_dir
from ...core.store import usage_quick
from ...core.store.discovery import SessionRoot, find_session_files
from ...core.store.usage import Overview, load_usage, overview
from ...core.text import visible
from ..bindings import bindings_for
from ..clock import Clock, system_clock
from ..text_fit import cell_len, cut_end
from ..messages import UsageFailed, UsageWorkedOut
from ..widgets.keybar import KeyBar

__all__ = ["UsageScreen", "PERIODS"]

#: the periods, by key: (name, days back from today; 0: this month; None: everything)
PERIODS = {"7": ("last 7 days", 7), "30": ("last 30 days", 30), "month": ("this month", 0), "all": ("all time", None)}
SESSIONS_SHOWN = 50


def _label(model: str) -> str:
    return model.removeprefix("[pi] ")


def _cost(dollars: float) -> str:
    return fmt_cost(dollars, zero="$0")


class UsageScreen(Screen[str | None]):
    """Usage and spending across every session under ``root`` (see the module docstring)."""

    DEFAULT_CSS = """
    UsageScreen { background: $surface; }
    UsageScreen > Vertical { height: 1fr; border: round $border; border-title-color: $text; padding: 0 1; }
    UsageScreen #usage-periods { height: 1; }
    UsageScreen #usage-project { height: 1; border: none; padding: 0 1; margin: 0; width: 1fr; max-width: 40; }
    UsageScreen #usage-project:focus { background: $boost; }
    UsageScreen #usage-period-line { width: 1fr; height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    UsageScreen #usage-totals { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    UsageScreen #usage-chart-title { height: 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    UsageScreen Sparkline { height: 4; margin: 0; }
    UsageScreen #usage-axis { height: 1; }
    UsageScreen #usage-axis > Static { width: 1fr; height: 1; color: $text-muted; text-wrap: nowrap; }
    UsageScreen #usage-axis-last { text-align: right; }
    UsageScreen #usage-tables { height: auto; max-height: 9; margin: 0; }
    UsageScreen #usage-tables > Static { width: 1fr; height: auto; max-height: 9; padding: 0 1 0 0; text-wrap: nowrap; }
    UsageScreen #usage-extras { height: 1; text-wrap: nowrap; text-overflow: ellipsis; color: $text-muted; }
    UsageScreen #usage-sessions-title { height: 1; margin: 0; color: $text-muted; }
    UsageScreen DataTable { height: 1fr; min-height: 3; }
    UsageScreen #usage-status { height: 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    BINDINGS = bindings_for("usage")

    def __init__(self, root: SessionRoot, *, clock: Clock | None = None, cache_dir: str | Path | None = None,
                 period: str = "30", titles: dict[str, str] | None = None) -> None:
        super().__init__()
        self.root = root
        self.titles = titles or {}  # a session's title as the sidebar shows it, by path
        self.clock = clock or system_clock
        self.cache_dir = cache_dir
        self.period = period
        self.project = ""
        self.figures: Overview | None = None
        self._usage = None  # the store's usage, read once (a period or filter changes only the report)
        self._digest: str | None = None  # what it was read from (usage_quick.files_digest)
        self._gen = 0
        self._paths: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="usage-box") as box:
            box.border_title = "What it cost"
            with Horizontal(id="usage-periods"):
                yield Static("", id="usage-period-line", markup=False)
                yield Input(placeholder="project filter (/)", id="usage-project")
            yield Static("", id="usage-totals", markup=False)
            yield Static("", id="usage-chart-title", markup=False)
            yield Sparkline([], id="usage-chart", summary_function=max)
            with Horizontal(id="usage-axis"):
                yield Static("", id="usage-axis-first", markup=False)
                yield Static("", id="usage-axis-last", markup=False)
            with Horizontal(id="usage-tables"):
                yield Static("", id="usage-models", markup=False)
                yield Static("", id="usage-projects", markup=False)
                yield Static("", id="usage-tools", markup=False)
            yield Static("", id="usage-extras", markup=False)
            yield Static("Costliest sessions (Enter opens)", id="usage-sessions-title", markup=False)
            yield DataTable(id="usage-sessions", cursor_type="row", zebra_stripes=False)
            yield Static("Reading the sessions' usage…", id="usage-status", markup=False)
        yield KeyBar()

    @property
    def table(self) -> DataTable:
        return self.query_one("#usage-sessions", DataTable)

    def on_mount(self) -> None:
        table = self.table
        table.add_column("Cost", key="cost")
        table.add_column("Tokens", key="tokens")
        table.add_column("Last", key="last")
        table.add_column("Project", key="project")
        table.add_column("Session", key="session")
        self._show_period()
        self.table.focus()
        self.refresh_figures()

    # ------------------------------------------------------------------ the period and filter

    def _bounds(self) -> tuple[str | None, str | None]:
        """``(since, until)`` as ``YYYYMMDD`` for the period, days in the local time zone."""
        import time

        now = time.localtime(self.clock() / 1000)
        today = date(now.tm_year, now.tm_mon, now.tm_mday)
        back = PERIODS[self.period][1]
        if back is None:
            return None, None
        start = today.replace(day=1) if back == 0 else today - timedelta(days=back - 1)
        return start.strftime("%Y%m%d"), today.strftime("%Y%m%d")

    def _show_period(self) -> None:
        line = Text()
        for number, (key, (name, _)) in enumerate(PERIODS.items(), 1):
            if number > 1:
                line.append("  ")
            line.append(f"{number} ", style="bold")
            line.append(name, style="reverse" if key == self.period else "")
        self.query_one("#usage-period-line", Static).update(line)
        box = self.query_one("#usage-box")
        where = f" · {visible(self.project)}" if self.project else ""
        box.border_title = f"What it cost · {PERIODS[self.period][0]}{where}"

    def action_period(self, key: str) -> None:
        if key in PERIODS and key != self.period:
            self.period = key
            self._show_period()
            self.refresh_figures()

    def action_filter(self) -> None:
        self.query_one("#usage-project", Input).focus()

    @on(Input.Changed, "#usage-project")
    def _project_typed(self, event: Input.Changed) -> None:
        self.project = event.value.strip()
        self._show_period()
        self.refresh_figures()

    @on(Input.Submitted, "#usage-project")
    def _project_done(self, event: Input.Submitted) -> None:
        self.table.focus()

    def action_close(self) -> None:
        if self.focused is self.query_one("#usage-project", Input):
            self.table.focus()
            return
        self.dismiss(None)

    # ------------------------------------------------------------------ the figures

    def refresh_figures(self) -> None:
        self._gen += 1
        since, until = self._bounds()
        self._work(self._gen, since, until, self.project or None)

    @work(thread=True, exclusive=True, group="usage")
    def _work(self, gen: int, since: str | None, until: str | None, project: str | None) -> None:
        try:
            cache = self.cache_dir if self.cache_dir is not None else default_cache_dir()
            period = usage_quick.period_key(str(self.root.path), since=since, until=until, project=project, tz=None,
                                            top=SESSIONS_SHOWN)
            if self._usage is None:
                files = find_session_files(self.root)
                self._digest = usage_quick.files_digest(files)
                quick = usage_quick.get(cache, usage_quick.store_key(self._digest, period), period)
                if quick is not None:  # (shown now: as they are, or until those of what changed come)
                    self.post_message(UsageWorkedOut(gen, Overview.from_json(quick.figures), quick.files,
                                                     quick.skipped, updating=not quick.exact))
                    if quick.exact:
                        return  # (the index is read when another period or filter asks for it)
                self._usage = load_usage(self.root, cache_dir=self.cache_dir, files=files)
            usage = self._usage
            figures = overview(usage, since=since, until=until, project=project, top=SESSIONS_SHOWN)
            skipped = sum(usage.skipped().values())
            if project is None:  # (a screen opens on a period without a filter: those are kept)
                usage_quick.put(cache, usage_quick.store_key(self._digest, period), period,
                                usage_quick.Quick(figures.to_json(), len(usage.files), skipped))
        except Exception as exc:  # (shown on the screen; the app goes on)
            self.post_message(UsageFailed(gen, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(UsageWorkedOut(gen, figures, len(usage.files), skipped))

    def on_usage_failed(self, message: UsageFailed) -> None:
        if message.gen == self._gen:
            self.query_one("#usage-status", Static).update(f"The usage could not be read: {visible(message.reason)}")

    def on_usage_worked_out(self, message: UsageWorkedOut) -> None:
        if message.gen != self._gen:
            return  # (a period or filter changed since)
        self.figures = figures = message.figures
        totals = figures.totals
        status = self.query_one("#usage-status", Static)
        skipped = message.skipped
        status.update(("Sessions changed since these figures: working them out again… · " if message.updating else "")
                      + f"{message.files} session files"
                      + (f" · {skipped} messages' usage not counted (bad numbers or times)" if skipped else ""))
        chart = self.query_one("#usage-chart", Sparkline)
        chart.display = bool(totals)
        if not totals:
            self.query_one("#usage-totals", Static).update("Nothing was spent in this period.")
            for wid in ("#usage-chart-title", "#usage-axis-first", "#usage-axis-last", "#usage-models",
                        "#usage-projects", "#usage-tools", "#usage-extras"):
                self.query_one(wid, Static).update("")
            self.table.clear()
            self._paths = []
            return
        ratio = totals.get("cacheHitRatio")
        self.query_one("#usage-totals", Static).update(Text.assemble(
            (_cost(totals["totalCost"]), "bold"), " spent · ",
            (fmt_tokens_short(totals["totalTokens"]), "bold"), " tokens · ",
            (str(totals["sessions"]), "bold"), " sessions",
            *((" · cache hit ", (f"{ratio:.0%}", "bold")) if ratio is not None else ())))
        self._chart(figures)
        self.query_one("#usage-models", Static).update(self._ranked(
            "By model", [(_label(model["model"]), model["totalCost"]) for model in figures.models]))
        self.query_one("#usage-projects", Static).update(self._ranked(
            "By project", [(project["project"], project["totalCost"]) for project in figures.projects]))
        self.query_one("#usage-tools", Static).update(self._tools(totals.get("tools") or {}))
        self.query_one("#usage-extras", Static).update(self._extras(totals))
        self._sessions(figures.sessions)

    def _chart(self, figures: Overview) -> None:
        values = [cost for _, cost in figures.days]
        self.query_one("#usage-chart", Sparkline).data = values
        top_day, top = max(figures.days, key=lambda day: day[1])
        title = f"Spend per day, {len(figures.days)} days · most {_cost(top)} on {top_day}"
        self.query_one("#usage-chart-title", Static).update(title)
        self.query_one("#usage-axis-first", Static).update(figures.days[0][0])
        self.query_one("#usage-axis-last", Static).update(figures.days[-1][0])

    def _ranked(self, title: str, rows: list[tuple[str, float]]) -> Text:
        out = Text.assemble((title, "bold"), "\n")
        width = max(10, (self.size.width - 8) // 3)
        for name, cost in rows[:7]:
            price = _cost(cost)
            out.append(cut_end(visible(name), max(1, width - cell_len(price) - 1)).ljust(
                max(1, width - cell_len(price) - 1)) + " " + price + "\n")
        if len(rows) > 7:
            out.append(f"… {len(rows) - 7} more\n", style="dim")
        out.rstrip()
        return out

    def _tools(self, tools: dict) -> Text:
        out = Text.assemble(("Tool calls (errors)", "bold"), "\n")
        width = max(10, (self.size.width - 8) // 3)
        items = list(tools.items())
        for kind, stats in items[:7]:
            right = f"{stats['calls']:,}" + (f" ({stats['errors']:,})" if stats["errors"] else "")
            out.append(cut_end(visible(kind), max(1, width - len(right) - 1)).ljust(max(1, width - len(right) - 1))
                       + " " + right + "\n")
        if len(items) > 7:
            out.append(f"… {len(items) - 7} more kinds\n", style="dim")
        out.rstrip()
        return out

    @staticmethod
    def _extras(totals: dict) -> Text:
        bits = [f"cache read {fmt_tokens_short(totals['cacheReadTokens'])}, "
                f"written {fmt_tokens_short(totals['cacheCreationTokens'])}"]
        if totals.get("abandonedCost"):
            bits.append(f"abandoned branches {_cost(totals['abandonedCost'])}")
        if totals.get("subagentGoneCost"):
            bits.append(f"subagents whose transcript is gone {_cost(totals['subagentGoneCost'])}")
        model_ms, tool_ms = totals.get("modelMs") or 0, totals.get("toolMs") or 0
        if model_ms or tool_ms:
            bits.append(f"model {fmt_duration(model_ms)} · tools {fmt_duration(tool_ms)}")
        return Text(" · ".join(bits))

    def _sessions(self, sessions: list[dict]) -> None:
        table = self.table
        table.clear()
        self._paths = []
        # (each session's own cost, as its header and stats screen count it: every branch,
        # tool and summary usage, subagent runs; costliest first)
        project_w = 24
        title_w = max(10, self.size.width - 4 - 9 - 8 - 12 - project_w - 2 * 5)  # (what is left of the row)
        for index, session in enumerate(sorted(sessions, key=lambda session: -session["sessionCost"])):
            title = session.get("name") or self.titles.get(session["path"]) or session["sessionId"]
            table.add_row(Text(_cost(session["sessionCost"]), justify="right"), Text(fmt_tokens_short(session["sessionTokens"]),
                                                                            justify="right"),
                          Text(session["lastActivity"]), Text(cut_end(visible(session["projectPath"]), project_w)),
                          Text(cut_end(visible(title), title_w)), key=str(index))
            self._paths.append(session["path"])

    @on(DataTable.RowSelected, "#usage-sessions")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        row_index = int(event.row_key.value) if event.row_key.value is not None else -1
        if 0 <= row_index < len(self._paths):
            self.dismiss(self._paths[row_index])
