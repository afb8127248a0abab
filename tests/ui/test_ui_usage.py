"""The usage screen (``$``): the store's spend per day, totals, by model and project, the
costliest sessions (Enter opens one), tool calls and cache; the period keys and the project
filter change every figure at once. Snapshots at 100x30 and 160x45 (fixed clock
2026-11-21T12:00Z, UTC) in snapshots/test_ui_usage/."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Sparkline, Static

from pitui.core.model.stats import session_stats
from pitui.core.read.session import Session
from pitui.core.store.discovery import resolve_root
from pitui.core.store.usage import load_usage, report
from pitui.ui.screens.usage import UsageScreen


@pytest.fixture(autouse=True)
def _home(ui_home):
    return ui_home


def _text(screen, wid: str) -> str:
    return str(screen.query_one(wid, Static).render())


def _demo_daily(demo_root, tmp_path, **kwargs) -> dict:
    return report(load_usage(resolve_root(str(demo_root)), cache_dir=tmp_path / "u"), "daily", **kwargs)


async def _open_usage(pilot, settle) -> UsageScreen:
    await settle(pilot)
    await pilot.press("dollar_sign")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, UsageScreen)
    return screen


async def test_dollar_opens_the_store_usage_with_the_reports_figures(make_app, settle, demo_root, tmp_path):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await _open_usage(pilot, settle)
        want = _demo_daily(demo_root, tmp_path, since="20261023", until="20261121")
        assert _text(screen, "#usage-totals").startswith(f"${want['totals']['totalCost']:.2f} spent · ")
        chart = screen.query_one(Sparkline)
        assert len(chart.data) == 30
        by_day = {r["date"]: r["totalCost"] for r in want["daily"]}
        assert sum(chart.data) == pytest.approx(sum(by_day.values()))
        assert (_text(screen, "#usage-axis-first"), _text(screen, "#usage-axis-last")) == ("2026-10-23", "2026-11-21")
        assert _text(screen, "#usage-models").splitlines()[:2] == ["By model", "claude-sonnet-4-5" + " " * 28 + "$4.18"]
        # the costliest session's cost is the one its header and stats screen show
        table = screen.query_one(DataTable)
        first = screen._paths[0]  # private: the rows' paths (what Enter opens)
        whole = session_stats(Session.open(first)).total.cost
        assert str(table.get_row_at(0)[0]) == f"${whole:,.2f}"


async def test_period_keys_and_the_project_filter_change_every_figure(make_app, settle, demo_root, tmp_path):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await _open_usage(pilot, settle)
        await pilot.press("1")
        await settle(pilot)
        week = _demo_daily(demo_root, tmp_path, since="20261115", until="20261121")
        assert _text(screen, "#usage-totals").startswith(f"${week['totals']['totalCost']:.2f} spent · ")
        assert len(screen.query_one(Sparkline).data) == 7
        assert "last 7 days" in str(screen.query_one("#usage-box").border_title)
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("slash")
        await pilot.press(*"blog")
        await settle(pilot)
        blog = _demo_daily(demo_root, tmp_path, project="blog")
        assert _text(screen, "#usage-totals").startswith(f"${blog['totals']['totalCost']:.4f} spent · ")
        assert [line.split()[0] for line in _text(screen, "#usage-projects").splitlines()[1:]] == ["--home-demo-blog--"]
        assert all("blog" in p for p in screen._paths)  # private: the rows' paths
        await pilot.press("escape")  # (out of the filter)
        assert isinstance(app.screen, UsageScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, UsageScreen)


@pytest.mark.slow
async def test_enter_on_a_session_opens_it(make_app, settle, demo_root):
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await _open_usage(pilot, settle)
        want = screen._paths[1]  # private: the rows' paths
        await pilot.press("down", "enter")
        await settle(pilot)
        assert not isinstance(app.screen, UsageScreen)
        assert app.browser.session_path == want


async def test_nothing_spent_says_so(make_app, settle, tmp_path):
    (tmp_path / "--p--").mkdir()
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open_usage(pilot, settle)
        assert _text(screen, "#usage-totals") == "Nothing was spent in this period."
        assert not screen.query_one(Sparkline).display


@pytest.mark.parametrize("size", [(100, 30), (160, 45)], ids=["100x30", "160x45"])
def test_usage_screen_snapshot(snap_compare, make_app, settle, demo_root, size):
    app = make_app(demo_root, demo=True)

    async def run_before(pilot):
        screen = await _open_usage(pilot, settle)
        # The table measures its columns when it is next idle, after its rows came: a
        # screenshot taken before that (seen once in CI, on a loaded machine) shows each
        # column as wide as its header. Wait for the measure.
        # private: DataTable keeps no public flag for a measure still to come
        table = screen.query_one(DataTable)
        for _ in range(100):
            if not table._require_update_dimensions and not table._new_rows:
                break
            await pilot.pause(0.01)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


async def test_the_sidebar_sorts_by_cost_and_shows_each_sessions_cost(make_app, settle, demo_root):
    """ctrl+s: recent, name, cost. In the cost sort each row says what the session cost (its
    header's and stats screen's figure) and the costliest come first."""
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        sl = app.browser.session_list
        sl.focus()
        await pilot.press("ctrl+s", "ctrl+s")
        await settle(pilot)
        assert sl.sort == "cost"
        top = [it.info for it in sl.items if it.kind == "session" and it.depth == 0 and it.info.error is None]
        by_project: dict[str, list[float]] = {}
        for i in top:
            by_project.setdefault(i.project, []).append(sl.costs[i.path])
        # (costliest project first, and in each, costliest session first)
        assert all(c == sorted(c, reverse=True) for c in by_project.values())
        totals = [sum(c) for c in by_project.values()]
        assert totals == sorted(totals, reverse=True)
        first = top[0]
        whole = session_stats(Session.open(first.path)).total.cost
        assert sl.costs[first.path] == pytest.approx(whole)
        row = next(k for k, it in enumerate(sl.items) if it.kind == "session" and it.info is first)
        line = sum(it.height for it in sl.items[:row]) + 1  # (the row's second line)
        meta = "".join(seg.text for seg in sl.render_line(line - sl.scroll_offset.y))
        assert f"${whole:,.2f} · " in meta
        await pilot.press("ctrl+s")
        assert sl.sort == "recent"


def _meta_line(sl, info) -> str:
    """The second line of ``info``'s row (its session's, by path), as drawn."""
    row = next(k for k, it in enumerate(sl.items) if it.kind == "session" and it.key == info.path)
    line = sum(it.height for it in sl.items[:row]) + 1
    return "".join(seg.text for seg in sl.render_line(line - sl.scroll_offset.y))


async def test_ctrl_d_shows_each_sessions_cost_in_its_row_and_is_remembered(make_app, settle, demo_root):
    """ctrl+d: each row's second line starts with what the session cost (the header's
    figure) in the recent sort too; the choice is saved and the next start shows them."""
    from pitui.core import settings

    app = make_app(demo_root, demo=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        sl = app.browser.session_list
        sl.focus()
        first = next(it.info for it in sl.items if it.kind == "session" and it.info.error is None)
        assert app.browser.session_path == first.path
        assert _meta_line(sl, first).startswith("▌ 16h · 14 msgs · ")
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert sl.sort == "recent"
        whole = session_stats(Session.open(first.path)).total.cost
        assert _meta_line(sl, first).startswith(f"▌ ${whole:,.4f} · 16h · 14 msgs · ")
        assert f"${whole:,.4f}" in str(app.browser.query_one("#header-usage").render())  # (the header's, the same)
        assert settings.load().sidebar_costs is True
    app = make_app(demo_root, demo=True)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        sl = app.browser.session_list
        assert _meta_line(sl, first).startswith(f"▌ ${whole:,.4f} · ")
        sl.focus()
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert _meta_line(sl, first).startswith("▌ 16h · 14 msgs · ")
        assert settings.load().sidebar_costs is False


async def test_a_session_that_grows_has_its_cost_in_the_sidebar_counted_again(make_app, settle, tmp_path):
    """With costs shown, a session listed again after it grew gets its new cost: the open
    one from its header's figures, another from its file read again."""
    from helpers import assistant, line, user, write

    store = tmp_path / "sessions" / "--home-u-proj--"
    store.mkdir(parents=True)
    older = write(store / "2026-11-20T09-00-00-000Z_a.jsonl", [user("u1", None, 1), assistant("a1", "u1", 2)])
    newer = write(store / "2026-11-20T10-00-00-000Z_b.jsonl", [user("u1", None, 3), assistant("a1", "u1", 4)])
    app = make_app(tmp_path / "sessions")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert app.browser.session_path == str(newer)
        sl = app.browser.session_list
        sl.focus()
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert sl.costs == {str(older): 0.03, str(newer): 0.03}
        for path, n in ((older, 5), (newer, 6)):
            with open(path, "a") as f:
                f.write(line(assistant(f"a{n}", "a1", n)) + "\n")
        app.browser.sidebar.relist()  # what the relist timer runs every 2 s
        app.browser.follower.tick()  # the open session's watch (it reads what was added)
        await settle(pilot)
        await settle(pilot)  # (the open session's figures come after it is read again)
        assert sl.costs == {str(older): 0.06, str(newer): 0.06}
        older_info = next(it.info for it in sl.items if it.kind == "session" and it.key == str(older))
        assert _meta_line(sl, older_info).startswith("  $0.0600 · ")


async def test_a_store_where_nothing_changed_shows_the_figures_kept_at_once(make_app, settle, demo_root, tmp_path,
                                                                            monkeypatch):
    """The second screen on an unchanged store shows the figures the first worked out and
    does not read the usage index at all (here it cannot be: the kept figures are all there
    is); once a session grew it shows them, said to be updating, until the new ones are
    worked out."""
    import shutil

    from helpers import assistant, line
    from pitui.ui.screens import usage as usage_screen

    shutil.copytree(demo_root, tmp_path / "sessions")
    app = make_app(tmp_path / "sessions", demo=True)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await _open_usage(pilot, settle)
        first = _text(screen, "#usage-totals")
        assert first.startswith("$") and " spent · " in first
        await pilot.press("escape")
        await settle(pilot)

        def no_index(*args, **kwargs):
            raise OSError("the usage index is not read in this test")

        real_load = usage_screen.load_usage
        monkeypatch.setattr(usage_screen, "load_usage", no_index)
        screen = await _open_usage(pilot, settle)
        assert _text(screen, "#usage-totals") == first
        assert _text(screen, "#usage-status").endswith(" session files")  # (the index not read: no failure)
        await pilot.press("escape")
        await settle(pilot)
        monkeypatch.setattr(usage_screen, "load_usage", real_load)  # (not undo(): the fixtures' zone stays)
        grown = sorted((tmp_path / "sessions").glob("*/*.jsonl"))[0]
        with open(grown, "a") as f:
            f.write(line(assistant("more1", None, 9, usage={
                "input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
                "cost": {"total": 100.0}})) + "\n")
        monkeypatch.setattr(usage_screen, "load_usage", no_index)
        screen = await _open_usage(pilot, settle)  # (the last figures, until the new ones come)
        assert _text(screen, "#usage-totals") == first
        await pilot.press("escape")
        await settle(pilot)
        monkeypatch.setattr(usage_screen, "load_usage", real_load)
        updating = []
        real = usage_screen.UsageScreen.on_usage_worked_out

        def seen(self, message):
            updating.append(message.updating)
            return real(self, message)

        monkeypatch.setattr(usage_screen.UsageScreen, "on_usage_worked_out", seen)
        screen = await _open_usage(pilot, settle)
        assert updating == [True, False]
        assert _text(screen, "#usage-totals") != first
        assert float(_text(screen, "#usage-totals")[1:].split()[0].replace(",", "")) == pytest.approx(
            float(first[1:].split()[0].replace(",", "")) + 100, abs=0.01)
