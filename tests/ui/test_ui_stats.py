"""The stats screen (``s``): tokens and cost per model for the branch and the session,
computed in a worker, as tables and bar charts. Snapshots in snapshots/test_ui_stats/ at
120x40; regenerate with ``--snapshot-update`` and look at every changed SVG."""

from __future__ import annotations

import threading

import pytest
from textual.app import App
from textual.widgets import DataTable, Static

from pitui.core.read.session import Session
from pitui.core.model.stats import Stats, Usage, branch_stats, session_stats
from pitui.ui.screens import stats as stats_module
from pitui.ui.screens.stats import CostChart, StatsScreen, bar

from helpers import REPO, assistant, user, workers_done, write

SHOP_TREE = next((REPO / "pitui" / "demo" / "sessions" / "--home-demo-shop--").glob("2026-11-14T09-12-03-417Z_*.jsonl"))
SIZE = (120, 40)
# the branch that goes through the GPT-5 detour and back: two models on the branch,
# and tool/summary usage elsewhere in the session
LEAF_ID = "66dac600"


class Host(App):
    """A bare app that shows the stats screen over an empty screen."""

    def __init__(self, session: Session, leaf: int, **kwargs):
        super().__init__()
        self.session = session
        self.leaf = leaf
        self.kwargs = kwargs

    def on_mount(self) -> None:
        self.push_screen(StatsScreen(self.session, self.leaf, **self.kwargs))


async def _ready(pilot) -> None:
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()


def _cells(table: DataTable) -> list[list[str]]:
    return [[str(getattr(c, "plain", c)) for c in table.get_row_at(r)] for r in range(table.row_count)]


def test_snapshot_stats_screen(snap_compare):
    s = Session.open(SHOP_TREE)
    app = Host(s, s.index_of[LEAF_ID])
    assert snap_compare(app, terminal_size=SIZE, run_before=_ready)


async def test_tables_match_core_stats():
    s = Session.open(SHOP_TREE)
    leaf = s.index_of[LEAF_ID]
    app = Host(s, leaf)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        assert not screen.query_one("#stats-status").display
        for table_id, stats in (("#branch-table", branch_stats(s, leaf)), ("#session-table", session_stats(s))):
            rows = _cells(screen.query_one(table_id, DataTable))
            models = stats.models_by_cost()
            assert [r[0] for r in rows] == [k for k, _ in models] + ["Total"]
            for r, (_, u) in zip(rows, models + [("Total", stats.total)]):
                assert r[1] == str(u.calls)
                assert r[2] == f"{u.input:,.0f}" and r[3] == f"{u.output:,.0f}"
                assert r[4] == f"{u.cache_read:,.0f}" and r[5] == f"{u.cache_write:,.0f}"
            assert rows[-1][7] == "100.0%"
        branch_rows = _cells(screen.query_one("#branch-table", DataTable))
        assert {r[0] for r in branch_rows} >= {"anthropic/claude-sonnet-4-5", "openai/gpt-5"}


async def test_computing_is_shown_until_the_worker_is_done(monkeypatch):
    s = Session.open(SHOP_TREE)
    gate = threading.Event()
    real = stats_module.branch_stats

    def slow(session, leaf=None):
        gate.wait(10)
        return real(session, leaf)

    monkeypatch.setattr(stats_module, "branch_stats", slow)
    app = Host(s, s.leaf)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        status = screen.query_one("#stats-status", Static)
        assert status.display and "computing" in str(status.render())
        assert not screen.query_one("#stats-body").display
        gate.set()
        await _ready(pilot)
        assert not status.display and screen.query_one("#stats-body").display


async def test_given_stats_need_no_worker():
    s = Session.open(SHOP_TREE)
    b, w = branch_stats(s), session_stats(s)
    app = Host(s, s.leaf, branch=b, whole=w)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.query_one("#stats-body").display
        assert not [wk for wk in app.workers if wk.group == "stats-screen"]


@pytest.mark.parametrize("key", ["escape", "q", "s"])
async def test_keys_close_it(key):
    s = Session.open(SHOP_TREE)
    app = Host(s, s.leaf)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        assert isinstance(app.screen, StatsScreen)
        await pilot.press(key)
        await pilot.pause()
        assert not isinstance(app.screen, StatsScreen)


async def test_no_usage_and_token_only_usage(tmp_path):
    # a session without any assistant message: tables say so, nothing fails
    s = Session.open(write(tmp_path / "u.jsonl", [user("u1", None, 1)]))
    app = Host(s, s.leaf)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        rows = _cells(app.screen.query_one("#branch-table", DataTable))
        assert rows[0][0] == "no model usage" and rows[-1][0] == "Total"
    # usage without costs: the chart scales by tokens
    free = assistant("a1", "u1", 2)
    free["message"]["usage"]["cost"] = {"total": 0}
    s2 = Session.open(write(tmp_path / "f.jsonl", [user("u1", None, 1), free]))
    app = Host(s2, s2.leaf)
    async with app.run_test(size=SIZE) as pilot:
        await _ready(pilot)
        chart = app.screen.query_one("#branch-chart", CostChart)
        text = chart.render().plain
        assert "30 tok" in text and "█" in text


def test_bar():
    assert bar(0, 10) == ""
    assert bar(1, 10) == "█" * 10
    assert bar(0.5, 3) == "█▌"
    assert bar(0.001, 10) == "▏"  # something is never drawn as nothing
    assert bar(2, 4) == "████"
    assert bar(0.55, 10) == "█████▌"


async def test_chart_rows_fit_the_width():
    st = Stats()
    for key, cost in (("anthropic/claude-opus-4-5-with-a-very-long-model-name", 3.0), ("openai/gpt-5", 1.0)):
        u = Usage(cost=cost, input=10, calls=1)
        st.by_model[key] = u
        st.total.merge(u)

    class ChartApp(App):
        def compose(self):
            yield CostChart(id="c")

    app = ChartApp()
    async with app.run_test(size=(60, 10)) as pilot:
        chart = app.query_one(CostChart)
        chart.set_stats(st)
        await pilot.pause()
        lines = chart.render().plain.split("\n")
        assert len(lines) == 2
        assert all(len(ln) <= 60 for ln in lines)
        assert lines[0].startswith("claude-opus-4-5-wit…")  # (its provider goes first)
        assert lines[0].rstrip().endswith("75.0%") and lines[1].rstrip().endswith("25.0%")
        # the most expensive model's bar is three times the other's
        assert abs(lines[0].count("█") - 3 * lines[1].count("█")) <= 3
