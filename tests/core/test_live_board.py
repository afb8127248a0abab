"""The board of every session written lately (core/live/board.py), against a process that
writes a session as Pi does (tools/session_walk.py: whole entries appended and flushed, some
lines in two writes) and walks it through every state."""

from __future__ import annotations

import os
import time

import pytest

from helpers import SessionWalk
from pitui.core.live import board as board_module
from pitui.core.live import state as state_module
from pitui.core.live.board import LiveBoard
from pitui.core.store.discovery import resolve_root
from pitui.core.store.usage import load_usage
from tools import session_walk

MINUTE = 60_000


@pytest.fixture
def walker(tmp_path):
    w = SessionWalk(tmp_path / "sessions")
    yield w
    w.close()


def _look(board: LiveBoard, now: float | None = None):
    now = time.time() * 1000 if now is None else now
    changes = board.refresh(now)
    rows = board.rows(now)
    return [(c.before, c.activity.state) for c in changes], rows


def test_a_session_walked_through_every_state(walker):
    board = LiveBoard(resolve_root(walker.path.parent.parent))
    assert _look(board) == ([], [])
    walker("start")
    changes, [row] = _look(board)
    assert changes == [(None, "working")]
    assert (row.state, row.tool, row.doing(time.time() * 1000)) == ("working", None, "the model is answering")
    assert (row.id, row.cwd, row.project, row.title) == (
        session_walk.SESSION_ID, "/home/u/shop", "--home-u-shop--", "Fix the flaky checkout test")

    walker("tool_call/half")  # (the reply's line half written: nothing new yet)
    assert _look(board)[0] == []
    assert board.rows(time.time() * 1000)[0].tool is None
    walker("rest")
    changes, [row] = _look(board)
    assert changes == []  # (still working: a tool now)
    assert row.tool == ("bash", "npm test")
    assert row.doing(row.tool_since_ms + 65_000) == "bash: npm test · 1m05s"
    assert (row.model, row.context_tokens) == ("claude-sonnet-4-5", 31700)

    walker("tool_result")
    changes, [row] = _look(board)
    assert (changes, row.state, row.tool) == ([], "working", None)

    walker("reply")
    changes, [row] = _look(board)
    assert changes == [("working", "waiting")]
    walker("named")
    changes, [row] = _look(board)
    assert (changes, row.state, row.title) == ([], "waiting", "checkout flake")

    walker("prompt/half")
    assert _look(board)[0] == []
    walker("rest")
    assert _look(board)[0] == [("waiting", "working")]
    walker("error")
    changes, [row] = _look(board)
    assert changes == [("working", "failed")]
    assert row.error_message.startswith("429 rate_limit_error")
    assert row.context_tokens is None  # (a failed reply's tokens are not the context's, as the meter says)
    walker("aborted")
    changes, [row] = _look(board)
    assert changes == []  # (the prompt and the reply came in one write: failed again)
    assert (row.state, row.stop_reason, row.doing(0)) == ("failed", "aborted", "Request was aborted")

    # the cost so far is the usage report's for the same file (core/model/cost.py's spent)
    [usage] = load_usage(resolve_root(walker.path.parent.parent), use_cache=False).files
    assert row.cost == usage.session_cost and row.cost > 0


def test_stalled_when_nothing_is_written_for_ten_minutes(walker):
    board = LiveBoard(resolve_root(walker.path.parent.parent))
    walker("start")
    walker("tool_call")
    now = time.time() * 1000
    _look(board, now)
    written = os.stat(walker.path).st_mtime_ns / 1e6
    assert board.tick(written + 9 * MINUTE) == []
    [change] = board.tick(written + 10 * MINUTE + 1)
    assert (change.before, change.activity.state, change.activity.since_ms) == ("working", "stalled", written)
    assert change.activity.doing(written + 12 * MINUTE) == "nothing written for 12m00s"
    # half an hour on it leaves the board
    assert board.tick(written + 31 * MINUTE) == [] and board.rows(written + 31 * MINUTE) == []
    # written again: back, working
    walker("tool_result")
    changes, [row] = _look(board)
    assert (changes, row.state) == ([(None, "working")], "working")


def test_a_refresh_reads_only_what_changed(walker, monkeypatch):
    """Nothing changed: no file is opened. One session grew: only its new bytes are read for
    its cost, and its end for its state."""
    board = LiveBoard(resolve_root(walker.path.parent.parent))
    walker("start")
    walker("tool_call")
    _look(board)
    opened: list[tuple[str, int]] = []
    real_open = board_module.open_regular

    def counting_open(path):
        f = real_open(path)
        real_read = f.read

        def read(n=-1):
            data = real_read(n)
            opened.append((os.path.basename(path), len(data)))
            return data

        f.read = read
        return f

    monkeypatch.setattr(board_module, "open_regular", counting_open)
    monkeypatch.setattr(state_module, "open_regular", counting_open)
    _look(board)
    assert opened == []
    size = walker.path.stat().st_size
    walker("tool_result")
    grown = walker.path.stat().st_size - size
    _look(board)
    assert sum(n for _name, n in opened) <= 2 * grown + 4096  # (the end read back from the last 4 KB, then on)


def test_an_old_session_is_not_on_the_board_until_written_again(walker):
    walker("start")
    walker("reply")
    old = time.time() - 3600
    os.utime(walker.path, (old, old))
    board = LiveBoard(resolve_root(walker.path.parent.parent))
    assert _look(board) == ([], [])
    walker("prompt")  # (resumed: Pi appends to the old file)
    changes, [row] = _look(board)
    assert (changes, row.state) == ([(None, "working")], "working")


def test_a_polling_refresh_stats_the_recent_files_and_a_quarter_of_the_others(walker, monkeypatch):
    """Files not written for a day are statted in turns (a store of 15,000 costs a quarter of
    its stats a refresh); a session of theirs written again shows within COLD_TURNS refreshes."""
    walker("start")
    walker("reply")
    folder = walker.path.parent
    day_old = time.time() - 2 * 86400
    for k in range(8):
        old = folder / f"2026-11-01T00-00-0{k}-000Z_old-{k}.jsonl"
        old.write_bytes(walker.path.read_bytes())
        os.utime(old, (day_old, day_old))
    board = LiveBoard(resolve_root(walker.path.parent.parent))
    _look(board)
    statted: list[str] = []
    real_stat = os.stat

    def counting_stat(path, *args, **kwargs):
        if str(path).endswith(".jsonl"):
            statted.append(os.path.basename(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(board_module.os, "stat", counting_stat)
    for _ in range(board_module.COLD_TURNS):
        statted.clear()
        _look(board)
        assert walker.path.name in statted and len(statted) == 1 + 8 // board_module.COLD_TURNS
    # an old session resumed: on the board within a round of refreshes
    resumed = folder / "2026-11-01T00-00-03-000Z_old-3.jsonl"
    with open(resumed, "ab") as f:
        f.write(walker.path.read_bytes().splitlines(keepends=True)[2])  # (its prompt again: working)
    seen = []
    for _ in range(board_module.COLD_TURNS):
        changes, rows = _look(board)
        seen += changes
    assert seen == [(None, "working")] and str(resumed) in {r.path for r in rows}
