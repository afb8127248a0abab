"""Tokens and cost per model, for the shown branch (root → leaf) and the whole session.

A modal screen: two tables (input, output, cache read, cache write, cost per model) and a
bar chart of cost per model under each, drawn with block characters and scaled to the
width. The numbers come from ``core.model.stats`` and are computed in a thread worker (about a
second on a 50k-entry session); "computing…" is shown meanwhile. Stats the caller already
has can be handed in and are shown at once.
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from ...core.numbers import fmt_cost, fmt_duration, fmt_tokens_short
from ...core.read.session import Session
from ...core.model.files import ACTIONS, files_touched
from ...core.model.stats import SUBAGENT_SUFFIX, TOOLS_KEY, Stats, Usage, branch_stats, session_stats
from ...core.model.stats import KindStats, branch_indices, kind_stats, session_indices, tool_calls
from ...core.model.summary import one_line, shown_path, text_of
from ..bindings import bindings_for
from ..text_fit import FitLine, cell_len, cut_end, cut_start, cut_words
from ..messages import StatsFailed, StatsWorkedOut, ToolStatsWorkedOut
from ...core.text import visible

__all__ = ["StatsScreen", "CostChart", "bar", "costs_aligned"]

# A bar is whole cells of █ and one cell holding the remaining eighths.
_EIGHTHS = ("", "▏", "▎", "▍", "▌", "▋", "▊", "▉")


def bar(fraction: float, width: int) -> str:
    """A horizontal bar ``fraction`` (0..1) of ``width`` cells long, to an eighth of a cell.
    Anything above zero shows at least one eighth."""
    if width <= 0 or fraction <= 0:
        return ""
    eighths = round(min(1.0, fraction) * width * 8)
    eighths = max(1, eighths)
    full, rem = divmod(eighths, 8)
    return "█" * full + _EIGHTHS[rem]


def _kind_time(stats: KindStats) -> str:
    """A kind's time: as the results say (``durationMs``), with ``~`` where some of it was
    estimated from the entries' times (Pi wrote no ``durationMs``), and how many calls it
    covers when not all; ``—`` when nothing says."""
    known = stats.timed + stats.estimated
    if not known:
        return "—"
    total = fmt_duration(stats.duration_ms + stats.estimated_ms, fine=True)
    text = f"~{total}" if stats.estimated else total
    if known < stats.calls:
        text += f" ({known} of {stats.calls})"
    return text


def _int(value: float) -> str:
    return f"{value:,.0f}"


def costs_aligned(costs: list[float]) -> list[str]:
    """Costs as ``fmt_cost`` writes them everywhere (four decimals under a dollar, cents
    from one), padded on the right so that, right-justified in a column, their decimal
    points line up: ``$3.76`` over ``$0.3705`` reads as ``$3.76  ``."""
    texts = [fmt_cost(cost, zero="$0") for cost in costs]
    places = [len(text) - text.index(".") if "." in text else 0 for text in texts]
    most = max(places, default=0)
    return [text + " " * (most - place) for text, place in zip(texts, places)]


def _label(key: str, width: int) -> str:
    """A model's row name in ``width`` cells: without its provider when it is too wide,
    then cut at its end; a subagent's keeps its mark, its model cut."""
    name = visible(key)
    if cell_len(name) <= width:
        return name
    if key != TOOLS_KEY and "/" in name:
        name = name.split("/", 1)[1]
    if name.endswith(SUBAGENT_SUFFIX) and cell_len(name) > width:
        return cut_end(name[: -len(SUBAGENT_SUFFIX)], max(1, width - len(SUBAGENT_SUFFIX))) + SUBAGENT_SUFFIX
    return cut_end(name, width)


class CostChart(Widget):
    """One row per model: its name, a bar of its cost (tokens when nothing has a cost)
    scaled to the most expensive model, and the amount with its share."""

    COMPONENT_CLASSES = {"costchart--label", "costchart--bar", "costchart--tools", "costchart--value"}

    DEFAULT_CSS = """
    CostChart {
        height: auto;
        width: 1fr;
    }
    CostChart > .costchart--label { color: $text; }
    CostChart > .costchart--bar { color: $accent; }
    CostChart > .costchart--tools { color: $secondary; }
    CostChart > .costchart--value { color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None):
        super().__init__(id=id, classes=classes)
        self._rows: list[tuple[str, Usage]] = []
        self._by_tokens = False

    def set_stats(self, stats: Stats) -> None:
        self._rows = stats.models_by_cost()
        self._by_tokens = not any(usage.cost > 0 for _, usage in self._rows)
        if self._by_tokens:
            self._rows.sort(key=lambda kv: (-kv[1].tokens, kv[0]))
        self.refresh(layout=True)

    def get_content_height(self, container, viewport, width: int) -> int:
        return max(1, len(self._rows))

    def render(self) -> Text:
        if not self._rows:
            return Text("no model usage", style=self.get_component_rich_style("costchart--value"))
        width = self.content_size.width or 80
        total = sum((usage.tokens if self._by_tokens else usage.cost) for _, usage in self._rows) or 1
        values = [(key, usage.tokens if self._by_tokens else usage.cost) for key, usage in self._rows]
        top = max(value for _, value in values) or 1
        texts = []
        amounts = [f"{fmt_tokens_short(value)} tok" for _, value in values] if self._by_tokens else \
            costs_aligned([value for _, value in values])
        for (_, value), amount in zip(values, amounts):
            texts.append(f"{amount:>9} {100 * value / total:5.1f}%")
        value_w = max(len(text) for text in texts)
        label_w = min(max(cell_len(visible(key)) for key, _ in values), 40, max(8, width // 3))
        bar_w = max(1, width - label_w - value_w - 2)
        label_style = self.get_component_rich_style("costchart--label")
        bar_style = self.get_component_rich_style("costchart--bar")
        tools_style = self.get_component_rich_style("costchart--tools")
        value_style = self.get_component_rich_style("costchart--value")
        out = Text(no_wrap=True, overflow="crop")
        for index, ((key, value), vt) in enumerate(zip(values, texts)):
            if index:
                out.append("\n")
            name = _label(key, label_w)
            bar_text = bar(value / top, bar_w)
            out.append(name + " " * (label_w - cell_len(name) + 1), label_style)
            out.append(f"{bar_text:<{bar_w}}", tools_style if key == TOOLS_KEY else bar_style)
            out.append(f" {vt:>{value_w}}", value_style)
        return out


class StatsScreen(ModalScreen):
    """``s``: tokens and cost per model for the branch ending at ``leaf`` and the session."""

    BINDINGS = bindings_for("stats")

    DEFAULT_CSS = """
    StatsScreen {
        align: center middle;
    }
    StatsScreen > #stats-box {
        width: 100%;
        height: 100%;
        border: round $primary;
        border-title-color: $text;
        border-title-style: bold;
        border-subtitle-color: $text-muted;
        background: $surface;
        padding: 0 1;
    }
    StatsScreen #stats-title {
        text-style: bold;
    }
    StatsScreen #stats-note {
        height: auto;
        color: $text-muted;
    }
    StatsScreen #stats-status {
        height: auto;
        color: $text-muted;
        padding: 1 0;
    }
    StatsScreen #stats-body {
        height: 1fr;
        background: $surface;
        scrollbar-size-vertical: 1;
    }
    StatsScreen .stats-heading {
        height: auto;
        margin-top: 1;
        text-style: bold;
        color: $accent;
    }
    StatsScreen DataTable {
        height: auto;
        max-height: 20;
        background: $surface;
        margin: 0 0 1 0;
    }
    StatsScreen CostChart {
        margin: 0 0 0 0;
    }
    """

    def __init__(
        self,
        session: Session,
        leaf: int | None = None,
        *,
        branch: Stats | None = None,
        whole: Stats | None = None,
        name: str | None = None,
        id: str | None = None,
    ):
        super().__init__(name=name, id=id)
        self.session = session
        self.leaf = session.leaf if leaf is None else leaf
        self.branch: Stats | None = branch
        self.whole: Stats | None = whole

    # ------------------------------------------------------------------ layout
    def _title(self) -> str:
        session = self.session
        if session.name:
            return one_line(session.name, 300)
        for index in session.path_to(self.leaf) if self.leaf >= 0 else []:
            if session.types[index] == "message" and session.roles[index] == "user":
                title = one_line(text_of((session.message(index) or {}).get("content")), 300)
                if title:
                    return title
        return visible(session.id) or "session"

    def compose(self) -> ComposeResult:
        session = self.session
        n_branch = len(session.path_to(self.leaf)) if self.leaf >= 0 else 0
        leaf_id = visible(session.ids[self.leaf]) if self.leaf >= 0 else "-"
        note = (f"branch: {n_branch:,} entr{'y' if n_branch == 1 else 'ies'}, root → {leaf_id} · "
                f"session: {len(session):,} entr{'y' if len(session) == 1 else 'ies'} on every branch")
        box = Vertical(id="stats-box")
        box.border_title = "Tokens and cost"
        box.border_subtitle = "s · q · Esc close"
        with box:
            title = FitLine(id="stats-title")
            yield title
            text = self._title()
            title.show(lambda width: Text(cut_words(text, width)))
            yield Static(note, id="stats-note", markup=False)
            yield Static("computing…", id="stats-status", markup=False)
            with VerticalScroll(id="stats-body"):
                one = self.one_branch
                yield Static("The session (one branch)" if one else "This branch (root → leaf)",
                             classes="stats-heading", markup=False)
                yield DataTable(id="branch-table", show_cursor=False, zebra_stripes=True, cursor_type="none")
                yield CostChart(id="branch-chart")
                # (a session of one branch: the whole session is that branch, shown once)
                yield Static("Whole session (every branch)", classes="stats-heading -whole", markup=False)
                yield DataTable(id="session-table", classes="-whole", show_cursor=False, zebra_stripes=True,
                                cursor_type="none")
                yield CostChart(id="session-chart", classes="-whole")
                yield from self._compose_tools()

    @property
    def one_branch(self) -> bool:
        """The session is one branch, the one shown (no fork, one root): its tables once."""
        session = self.session
        return self.leaf >= 0 and len(session.path_to(self.leaf)) == len(session)

    def on_mount(self) -> None:
        if self.one_branch:
            for widget in self.query(".-whole"):
                widget.display = False
        self._compute_tools(self.session, self.leaf)
        self.query_one("#stats-body").display = False
        if self.branch is not None and self.whole is not None:
            self._show(self.branch, self.whole)
        else:
            self._compute(self.session, self.leaf, self.branch, self.whole)
        self.query_one("#stats-body").focus()

    # ------------------------------------------------------------------ work
    @work(thread=True, exclusive=True, group="stats-screen", exit_on_error=False)
    def _compute(self, session: Session, leaf: int, branch: Stats | None, whole: Stats | None) -> None:
        worker = get_current_worker()
        try:
            if branch is None:
                branch = branch_stats(session, leaf) if leaf >= 0 else Stats()
            if worker.is_cancelled:
                return
            if whole is None:
                whole = session_stats(session)
        except Exception as exc:  # noqa: BLE001 - shown to the user, never fatal
            if not worker.is_cancelled:
                self.post_message(StatsFailed(f"{type(exc).__name__}: {exc}"))
            return
        if not worker.is_cancelled:
            self.post_message(StatsWorkedOut(branch, whole))

    def on_stats_failed(self, message: StatsFailed) -> None:
        self.query_one("#stats-status", Static).update(f"Could not compute the stats: {visible(message.reason)}")

    def on_stats_worked_out(self, message: StatsWorkedOut) -> None:
        self._show(message.branch, message.whole)

    def _show(self, branch: Stats, whole: Stats) -> None:
        self.branch, self.whole = branch, whole
        status = self.query_one("#stats-status", Static)
        status.display = False
        # (the room of the tables: the screen less the box's border and padding and the
        # scrollbar of the body)
        room = self.app.size.width - 5
        self._fill(self.query_one("#branch-table", DataTable), branch, room)
        self._fill(self.query_one("#session-table", DataTable), whole, room)
        self.query_one("#branch-chart", CostChart).set_stats(branch)
        self.query_one("#session-chart", CostChart).set_stats(whole)
        self.query_one("#stats-body").display = True

    @staticmethod
    def _fill(table: DataTable, stats: Stats, room: int) -> None:
        """The table of ``stats``; the model names cut so that every column fits ``room``."""
        table.clear(columns=True)
        table.add_column("Model", key="model")
        labels = ("Calls", "Input", "Output", "Cache read", "Cache write", "Cost", "Share")
        for label in labels:
            table.add_column(Text(label, justify="right"), key=label.lower())
        total = stats.total
        by_tokens = total.cost <= 0

        rows = stats.models_by_cost()
        costs = costs_aligned([usage.cost for _, usage in rows] + [total.cost])

        def row(name: str | Text, usage: Usage, cost: str, style: str = "") -> list:
            share = (usage.tokens / total.tokens if total.tokens else 0) if by_tokens else (usage.cost / total.cost)
            cells = [usage.calls, _int(usage.input), _int(usage.output), _int(usage.cache_read), _int(usage.cache_write),
                     cost, f"{100 * share:.1f}%"]
            return [name] + [Text(str(cell), justify="right", style=style) for cell in cells]

        cells = [row("", usage, cost) for (_, usage), cost in zip(rows, costs)]
        total_row = row(Text("Total", style="bold"), total, costs[-1], "bold")
        # (each column is as wide as its widest cell, and one cell of padding each side)
        numbers = sum(max(len(label), *(row_cells[index + 1].cell_len for row_cells in cells + [total_row])) + 2
                      for index, label in enumerate(labels))
        name_w = max(12, room - numbers - 2)
        for (key, usage), cell_row in zip(rows, cells):
            cell_row[0] = Text(_label(key, name_w), style="italic" if key == TOOLS_KEY else "")
            table.add_row(*cell_row, key=key)
        if not rows:
            table.add_row(Text("no model usage", style="dim"), *[""] * 7)
        table.add_row(*total_row, key="__total__")

    # ------------------------------------------------------------------ tools by kind, files touched
    def _compose_tools(self) -> ComposeResult:
        yield Static("Tool calls by kind" if self.one_branch else "Tool calls by kind, this branch",
                     classes="stats-heading", markup=False)
        yield Static("computing…", id="kinds-status", markup=False)
        yield DataTable(id="branch-kinds", show_cursor=False, zebra_stripes=True, cursor_type="none")
        yield Static("Tool calls by kind, whole session", classes="stats-heading -whole", markup=False)
        yield DataTable(id="session-kinds", classes="-whole", show_cursor=False, zebra_stripes=True,
                        cursor_type="none")
        yield Static(f"Files touched{'' if self.one_branch else ', this branch'} "
                     "(ls, grep and find: searched; failed calls left out)", classes="stats-heading", markup=False)
        yield DataTable(id="files-table", show_cursor=False, zebra_stripes=True, cursor_type="none")

    @work(thread=True, exclusive=True, group="stats-tools", exit_on_error=False)
    def _compute_tools(self, session: Session, leaf: int) -> None:
        worker = get_current_worker()
        try:
            on_branch = tool_calls(session, branch_indices(session, leaf))
            branch = kind_stats(on_branch)
            files = files_touched(on_branch, session.cwd)
            whole = kind_stats(tool_calls(session, session_indices(session), args=False)) if not worker.is_cancelled else {}
        except Exception as exc:  # noqa: BLE001 - shown to the user, never fatal
            if not worker.is_cancelled:
                self.post_message(StatsFailed(f"{type(exc).__name__}: {exc}"))
            return
        if not worker.is_cancelled:
            self.post_message(ToolStatsWorkedOut(branch, whole, files))

    def on_tool_stats_worked_out(self, message: ToolStatsWorkedOut) -> None:
        self.query_one("#kinds-status").display = False
        for table_id, kinds in (("#branch-kinds", message.branch), ("#session-kinds", message.whole)):
            table = self.query_one(table_id, DataTable)
            table.clear(columns=True)
            table.add_column("Kind", key="kind")
            table.add_column("Tools", key="tools")
            for label in ("Calls", "Errors", "Time"):
                table.add_column(Text(label, justify="right"), key=label.lower())
            for kind, stats in kinds.items():
                time = _kind_time(stats)
                # (session text as Text: a plain str cell would be read as markup)
                table.add_row(Text(visible(kind)), Text(visible(", ".join(stats.tools))),
                              *(Text(str(cell), justify="right") for cell in (stats.calls, stats.errors or "", time)), key=kind)
            if not kinds:
                table.add_row(Text("no tool calls", style="dim"), "", "", "", "")
        table = self.query_one("#files-table", DataTable)
        table.clear(columns=True)
        table.add_column("Path", key="path")
        for action in ACTIONS:
            table.add_column(Text(action.capitalize(), justify="right"), key=action)
        # (the paths cut at their start so that every action's column fits: the room of the
        # table less each column's widest cell and one cell of padding each side)
        counts = [[str(getattr(touched, action) or "") for action in ACTIONS] for touched in message.files]
        numbers = sum(max([len(action)] + [len(count_row[index]) for count_row in counts]) + 2 for index, action in enumerate(ACTIONS))
        path_w = max(12, self.app.size.width - 5 - numbers - 2)
        for touched, row in zip(message.files, counts):
            table.add_row(Text(cut_start(shown_path(touched.path), path_w)), *(Text(cell, justify="right") for cell in row))
        if not message.files:
            table.add_row(Text("no files", style="dim"), *[""] * len(ACTIONS))

    def action_close(self) -> None:
        self.workers.cancel_group(self, "stats-tools")
        self.workers.cancel_group(self, "stats-screen")
        self.dismiss()
