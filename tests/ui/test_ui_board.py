"""The board of agents at work in the app (``a``): its keys (Enter opens the session
followed, ``t`` its tmux pane or why none, ``b`` ``d`` the bell and desktop notifications,
kept in settings.json), the sidebar's marks, and the toast (bell, desktop notification) when
a session moves to waiting or failed, against a process writing a session as Pi does."""

from __future__ import annotations

import json
import os

import pytest

from board_store import board_store
from helpers import SessionWalk, app_screen_text
from pitui.core.live import panes
from pitui.ui import textual_internals
from pitui.ui.agents import desktop_sequence
from pitui.ui.screens.board import BoardScreen


async def _until(pilot, done, what: str) -> None:
    """Let the app run until ``done()`` (the live board's thread posts as it reads)."""
    for _ in range(400):
        if done():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"never came: {what}")


def _rows(app) -> list[str]:
    table = app.screen.table
    return [" | ".join(str(c).strip() for c in table.get_row_at(r)) for r in range(table.row_count)]


async def test_a_shows_every_agent_and_enter_opens_one_followed(make_app, settle, tmp_path):
    paths = board_store(tmp_path)
    app = make_app(tmp_path)
    async with app.run_test(size=(220, 45)) as pilot:  # (every cell whole)
        await settle(pilot)
        await pilot.press("a")
        assert isinstance(app.screen, BoardScreen)
        await _until(pilot, lambda: len(app.screen.rows) == 4 and app.screen.rows[0].cost is not None, "4 rows")
        await pilot.pause(0.1)
        assert _rows(app) == [
            "● working | 2m59s | /home/u/shop | Fix the flaky checkout test and run the whole suite | claude-sonnet-4-5"
            " | $0.0314 | 31.7k | bash: npm test -- --runInBand · 2m24s",
            "◆ waiting | 3m59s | /home/u/blog | blog: RSS order | gpt-5 | $0.0157 | 31.7k | ",
            "✗ failed | 9m59s | /home/u/api | Add rate limiting to the ^[[31mpublic^[[0m endpoints | claude-sonnet-4-5"
            " | $0.0157 |  | 429 rate_limit_error: too many tokens^G^[]0;pwned^G",
            "○ stalled | 14m00s | /home/u/infra | Apply the staging plan | claude-sonnet-4-5 | $0.0157 | 31.7k"
            " | nothing written for 14m00s",
        ]
        await pilot.press("down")
        await pilot.press("enter")
        await settle(pilot)
        browser = app.browser
        assert app.screen is browser
        assert (browser.session_path, browser.following) == (str(paths["waiting"]), True)
        assert "following" in str(browser.branch_tree.border_title)
        await pilot.press("a")
        await pilot.press("escape")
        assert app.screen is browser


async def test_the_sidebar_marks_the_sessions_on_the_board(make_app, settle, tmp_path):
    board_store(tmp_path)
    app = make_app(tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert "◆ waiting" not in app_screen_text(app)  # (nothing is followed before the board is shown)
        await pilot.press("a")
        await _until(pilot, lambda: len(app.agents.rows) == 4, "the board's rows")
        await pilot.press("escape")
        await settle(pilot)
        text = app_screen_text(app)
        for mark in ("● working", "◆ waiting", "✗ failed", "○ stalled"):
            assert mark in text
        assert text.count(" · ") > 0 and "An old question" in text  # (listed, an hour old: no mark)
        old_row = next(line for line in text.splitlines() if "An old question" in line)
        below = text.splitlines()[text.splitlines().index(old_row) + 1]
        assert not any(m in below for m in ("working", "waiting", "failed", "stalled"))


async def test_bell_and_desktop_notifications_are_toggled_and_kept(make_app, settle, tmp_path):
    board_store(tmp_path)
    app = make_app(tmp_path)
    settings_file = os.path.join(os.environ["PITUI_CONFIG_DIR"], "settings.json")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        status = app.screen.query_one("#board-status")
        assert str(status.render()).endswith("bell off, desktop notification off")
        await pilot.press("b", "d")
        assert str(status.render()).endswith("bell on, desktop notification osc9")
        with open(settings_file) as f:
            kept = json.load(f)
        assert (kept["notify_bell"], kept["notify_desktop"]) == (True, "osc9")
        await pilot.press("d", "d", "b")
        assert str(status.render()).endswith("bell off, desktop notification off")
        with open(settings_file) as f:
            kept = json.load(f)
        assert "notify_bell" not in kept and "notify_desktop" not in kept


async def test_t_says_when_no_tmux_pane_runs_the_agent(make_app, settle, tmp_path, notes, monkeypatch):
    board_store(tmp_path)

    def no_tmux(argv):
        raise FileNotFoundError("tmux")

    monkeypatch.setattr(panes, "_run", no_tmux)
    app = make_app(tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await _until(pilot, lambda: len(app.screen.rows) == 4, "4 rows")
        await pilot.pause(0.1)
        await pilot.press("t")
        await settle(pilot)
        assert notes[-1] == ("No tmux pane for Fix the flaky checkout test and run the whole suite: "
                             "no tmux server is running here")


async def test_a_move_to_waiting_or_failed_is_a_toast_a_bell_and_a_desktop_notification(
        make_app, settle, tmp_path, notes, monkeypatch):
    from dataclasses import replace

    walk = SessionWalk(tmp_path)
    written: list[str] = []
    monkeypatch.setattr(textual_internals, "write_to_terminal", lambda app, text: written.append(text))
    app = make_app(tmp_path, watch_agents=True)
    bells: list[int] = []
    monkeypatch.setattr(app, "bell", lambda: bells.append(1))
    try:
        walk("start")
        async with app.run_test(size=(160, 45)) as pilot:
            app.settings = replace(app.settings, notify_bell=True, notify_desktop="osc777")
            await _until(pilot, lambda: app.agents.states.get(str(walk.path)) == "working", "working")
            walk("tool_call")
            walk("reply")
            await _until(pilot, lambda: app.agents.states.get(str(walk.path)) == "waiting", "waiting")
            await pilot.pause(0.1)
            assert "Fix the flaky checkout test" in notes
            walk("prompt")
            walk("error")
            await _until(pilot, lambda: app.agents.states.get(str(walk.path)) == "failed", "failed")
            await pilot.pause(0.1)
            assert notes[-1] == ("Fix the flaky checkout test · 429 rate_limit_error: Number of request tokens has "
                                 "exceeded your per-minute rate limit")
            assert len(bells) == 2
            assert written == [
                desktop_sequence("osc777", "Waiting for you: /home/u/shop", "Fix the flaky checkout test"),
                desktop_sequence("osc777", "Failed: /home/u/shop", notes[-1])]
    finally:
        walk.close()


@pytest.mark.parametrize("kind, want", [
    ("osc9", "\x1b]9;Failed: ~/a^[]0;x^G: run ^[[31mrm^G\\u202e \\x9c\x07"),
    ("osc777", "\x1b]777;notify;Failed: ~/a^[]0,x^G;run ^[[31mrm^G\\u202e \\x9c\x07"),
])
def test_session_text_never_ends_or_starts_a_terminal_sequence(kind, want):
    assert desktop_sequence(kind, "Failed: ~/a\x1b]0;x\x07", "run \x1b[31mrm\x07\u202e\n\u009c") == want
    body = want[:-1]
    assert "\x07" not in body[1:] and "\x1b" not in body[1:] and "\x9c" not in body


def test_find_pane_walks_a_panes_processes_to_a_pi_in_that_folder(tmp_path):
    """A fake process table: the pane's shell (100) runs node (101) running pi in the
    session's folder; another pane's pi works elsewhere."""
    proc = tmp_path / "proc"
    work = tmp_path / "shop"
    work.mkdir()

    def process(pid: int, ppid: int, argv: list[str], cwd):
        d = proc / str(pid)
        d.mkdir(parents=True)
        (d / "stat").write_text(f"{pid} (x y) S {ppid} 0 0")
        (d / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
        os.symlink(cwd, d / "cwd")

    process(100, 1, ["-bash"], str(work))
    process(101, 100, ["node", "/usr/lib/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"], str(work))
    process(200, 1, ["zsh"], str(tmp_path))
    process(201, 200, ["pi"], str(tmp_path))
    listing = "%3\t200\tmain:1.0\n%7\t100\twork:2.1\n"
    calls: list[list[str]] = []

    def run(argv):
        calls.append(argv)
        return listing

    found = panes.find_pane(str(work), run=run, proc=str(proc))
    assert found == panes.Pane("%7", "work:2.1", 101)
    assert panes.find_pane(str(tmp_path / "gone"), run=run, proc=str(proc)) == (
        "no pi process runs in that folder in a tmux pane")
    assert calls[0] == ["tmux", "list-panes", "-a", "-F", panes.PANE_FORMAT]
    assert panes.jump_to(found, run=run) is None
    assert calls[2:4] == [["tmux", "select-window", "-t", "%7"], ["tmux", "select-pane", "-t", "%7"]]


def test_the_apps_state_names_are_the_cores():
    """ui/agents.py names the states without importing core/live at start: the same names."""
    from pitui.core.live.state import STATES
    from pitui.ui import agents

    assert (agents.WORKING, agents.WAITING, agents.FAILED, agents.STALLED) == STATES
    assert set(agents.MARKS) == set(STATES)
