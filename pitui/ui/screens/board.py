"""Which agent needs you (``a`` from anywhere): every session written lately, newest first,
each working, waiting for you, failed or stalled, with what it does (the tool running and for
how long, why it failed), its project, title, model, cost so far and context tokens.

The rows are the live board's (``ui/agents.py``: file notifications, else polling; a write
shows within a second); the times move with the clock. Enter opens the session in the
browser, followed; ``t`` shows the tmux pane its ``pi`` runs in (``core/live/panes.py``),
or says why there is none; ``b`` and ``d`` turn the bell and the desktop notification on a
move to waiting or failed on and off (kept in ``settings.json``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ...core import settings as settings_file
from ...core.live.state import FAILED, STALLED, WAITING, WORKING
from ...core.model.summary import shorten_home
from ...core.numbers import fmt_cost, fmt_duration, fmt_tokens
from ...core.text import visible
from ..agents import MARKS
from ..bindings import bindings_for
from ..text_fit import cell_len, cut_end, cut_start
from ..widgets.keybar import KeyBar

if TYPE_CHECKING:
    from ...core.live.board import Activity
    from ..agents import AgentWatch

__all__ = ["BoardScreen"]

_STYLES = {WORKING: "green", WAITING: "bold yellow", FAILED: "bold red", STALLED: "dim"}
_DESKTOP = (None, *settings_file.DESKTOP_NOTIFICATIONS)
#: below this width the model column is left out (the title and what it does keep the room)
_MODEL_FROM = 120


class BoardScreen(Screen[str | None]):
    """The board (see the module's text); dismissed with the path of the session chosen."""

    DEFAULT_CSS = """
    BoardScreen { background: $surface; }
    BoardScreen > Vertical { height: 1fr; border: round $border; border-title-color: $text; padding: 0 1; }
    BoardScreen DataTable { height: 1fr; }
    BoardScreen #board-empty { height: auto; color: $text-muted; padding: 1 0; }
    BoardScreen #board-status { height: 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    BINDINGS = bindings_for("board")

    def __init__(self, agents: "AgentWatch") -> None:
        super().__init__()
        self.agents = agents
        self.rows: list[Activity] = list(agents.rows)
        self.now_ms = agents.now_ms
        self._paths: list[str] = []
        self._columns: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        with Vertical(id="board-box") as box:
            box.border_title = "Agents"
            yield Static("", id="board-empty", markup=False)
            yield DataTable(id="board-table", cursor_type="row", zebra_stripes=False)
            yield Static("", id="board-status", markup=False)
        yield KeyBar()

    @property
    def table(self) -> DataTable:
        return self.query_one("#board-table", DataTable)

    @property
    def current_path(self) -> str | None:
        """The path of the session under the cursor."""
        row = self.table.cursor_row
        return self._paths[row] if 0 <= row < len(self._paths) else None

    def on_mount(self) -> None:
        self.table.focus()
        self.show(self.rows, self.now_ms if self.agents.started and self.rows else self.app.clock())
        self.set_interval(1.0, self._clock_moved)

    def _clock_moved(self) -> None:
        self.show(self.rows, self.app.clock())

    # ------------------------------------------------------------------ the rows

    def show(self, rows: list["Activity"], now_ms: float) -> None:
        """The sessions on the board at ``now_ms`` (the cursor stays on its session)."""
        self.rows, self.now_ms = rows, now_ms
        if not self.is_mounted:
            return
        table = self.table
        keep = self.current_path
        wide = self.size.width >= _MODEL_FROM
        columns = ("State", "For", "Project", "Session", *(("Model",) if wide else ()), "Cost", "Context", "Doing")
        if columns != self._columns:
            table.clear(columns=True)
            for name in columns:
                table.add_column(name, key=name.lower())
            self._columns = columns
        else:
            table.clear()
        self._paths = [activity.path for activity in rows]
        texts = []
        for activity in rows:
            where = visible(shorten_home(activity.cwd) if activity.cwd else activity.project)
            texts.append((fmt_duration(activity.in_state_ms(now_ms)) or "?", where, activity.title, visible(activity.model or ""),
                          fmt_cost(activity.cost, zero="$0") if activity.cost is not None else "…",
                          fmt_tokens(activity.context_tokens) if activity.context_tokens is not None else "", activity.doing(now_ms)))
        widths = self._widths(texts, columns, wide)
        for activity, (took, where, title, model, cost, context, doing) in zip(rows, texts):
            cells = [Text(MARKS[activity.state], style=_STYLES[activity.state]), Text(took, justify="right"),
                     Text(cut_start(where, widths["project"])), Text(cut_end(title, widths["session"]))]
            if wide:
                cells.append(Text(cut_end(model, widths["model"])))
            cells += [Text(cost, justify="right"), Text(context, justify="right"),
                      Text(cut_end(doing, widths["doing"]), style="red" if activity.state == FAILED else "")]
            table.add_row(*cells, key=activity.path)
        if keep in self._paths:
            table.move_cursor(row=self._paths.index(keep), animate=False)
        self._show_counts()

    def _widths(self, texts: list[tuple], columns: tuple[str, ...], wide: bool) -> dict[str, int]:
        """The cells' widths: the short columns as wide as their texts (the project and the
        model capped), the session's title and what it does sharing the rest (the title
        first, each never less than it needs when there is room)."""
        def most(column: int, cap: int) -> int:
            return min(cap, max((cell_len(row[column]) for row in texts), default=1))

        widths = {"project": most(1, 24 if wide else 16), "model": most(3, 18) if wide else 0}
        # (a column is as wide as its heading at least: "State", "Project", "Model", "Context")
        used = (10 + max(3, most(0, 9)) + max(7, widths["project"]) + (max(5, widths["model"]) if wide else 0)
                + max(4, most(4, 12)) + 7)
        rest = max(24, self.size.width - used - 2 * len(columns) - 6)
        want_title, want_doing = most(2, 200), most(6, 200)
        title = min(want_title, max(12, rest * 11 // 20))
        doing = rest - title
        if want_doing < doing:  # (what it does is short: the title takes the room left)
            title = min(want_title, rest - want_doing)
            doing = rest - title
        widths["session"], widths["doing"] = title, max(8, doing)
        return widths

    def _show_counts(self) -> None:
        counts = {state: 0 for state in MARKS}
        for activity in self.rows:
            counts[activity.state] += 1
        said = [f"{count} {state}" for state, count in counts.items() if count]
        self.query_one("#board-box").border_title = "Agents" + (" · " + " · ".join(said) if said else "")
        minutes = (self.agents.board.window_ms // 60_000) if self.agents.board is not None else 30
        empty = self.query_one("#board-empty", Static)
        empty.display = not self.rows
        empty.update(f"No session was written in the last {minutes:g} minutes." if not self.rows else "")
        settings = self.app.settings
        desktop = settings.notify_desktop or "off"
        self.query_one("#board-status", Static).update(
            f"written in the last {minutes:g} min, newest first · on waiting or failed: a toast, "
            f"bell {'on' if settings.notify_bell else 'off'}, desktop notification {desktop}")

    # ------------------------------------------------------------------ keys

    @on(DataTable.RowSelected, "#board-table")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        path = event.row_key.value
        if path is not None:
            self.dismiss(path)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_toggle_bell(self) -> None:
        self._save(notify_bell=not self.app.settings.notify_bell)
        self.notify("Bell on waiting or failed: " + ("on" if self.app.settings.notify_bell else "off"), timeout=2)

    def action_cycle_desktop(self) -> None:
        now = self.app.settings.notify_desktop
        nxt = _DESKTOP[(_DESKTOP.index(now) + 1) % len(_DESKTOP)] if now in _DESKTOP else None
        self._save(notify_desktop=nxt)
        self.notify("Desktop notification on waiting or failed: " + (
            f"on ({'OSC 9' if nxt == 'osc9' else 'OSC 777'})" if nxt else "off"), timeout=2)

    def _save(self, **changes) -> None:
        from dataclasses import replace

        app = self.app
        app.save_settings(replace(app.settings, **changes))
        self._show_counts()

    def action_pane(self) -> None:
        path = self.current_path
        activity = next((activity for activity in self.rows if activity.path == path), None)
        if activity is None:
            self.notify("No session is chosen", timeout=2)
            return
        self._find_pane(activity.cwd, activity.title)

    @work(thread=True, exclusive=True, group="board-pane", exit_on_error=False)
    def _find_pane(self, cwd: str, title: str) -> None:
        from ...core.live.panes import find_pane, jump_to

        found = find_pane(cwd)
        if isinstance(found, str):
            self.app.call_from_thread(self.notify, f"No tmux pane for {title}: {found}", severity="warning",
                                      timeout=4)
            return
        why = jump_to(found)
        self.app.call_from_thread(self.notify, why or f"tmux pane {found.target} shown", timeout=3,
                                  severity="warning" if why else "information")
