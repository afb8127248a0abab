"""Small things a user does that used to end pitui with a traceback: ``e`` on a session file
that is gone, ``e`` with a ``$PAGER`` that cannot be parsed, a key pressed just after ``q``.
Each now says what happened (or does nothing, when the app is quitting); ``e`` leaves no
temporary file behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import pytest
from textual import events

from helpers import assistant, user, write
from pitui.ui.app import PituiApp

SIZE = (120, 40)


def _session(tmp_path: Path, n: int = 8) -> Path:
    folder = tmp_path / "sessions" / "--home-u-p--"
    folder.mkdir(parents=True)
    objs, prev = [], None
    for k in range(n):
        eid = f"e{k}"
        objs.append(user(eid, prev, k, f"question {k}") if k % 2 == 0 else assistant(eid, prev, k, f"answer {k}"))
        prev = eid
    return write(folder / "2026-11-20T10-00-00-000Z_sess-1.jsonl", objs)


@pytest.fixture
def tmpdir_(tmp_path, monkeypatch) -> Path:
    """A temporary folder of the test's own, where ``e`` writes its entry files."""
    d = tmp_path / "tmp"
    d.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(d))
    return d


@pytest.fixture
def pager_runs(monkeypatch) -> list[list[str]]:
    """The pager commands run; the app suspends as in a terminal (the headless test
    driver cannot), and the pager reads the file it is given."""
    from pitui.ui.browser import copy_export

    runs: list[list[str]] = []

    def call(cmd):
        runs.append(list(cmd) + [Path(cmd[-1]).read_text()])
        return 0

    monkeypatch.setattr(copy_export.subprocess, "call", call)
    monkeypatch.setattr(PituiApp, "suspend", lambda self: contextlib.nullcontext())
    return runs


async def test_e_on_a_session_file_that_is_gone_says_so(make_app, settle, tmp_path, notes, tmpdir_, pager_runs):
    f = _session(tmp_path)
    app = make_app(f)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        os.unlink(f)
        await pilot.press("up", "e")
        await settle(pilot)
        assert pager_runs == []
        assert [n for n in notes if "gone" in n] != []
        # the app goes on: other keys still answer
        await pilot.press("up", "s")
        await settle(pilot)
        await pilot.press("escape", "Y")
        await settle(pilot)
    assert list(tmpdir_.iterdir()) == []


async def test_e_with_a_pager_that_cannot_be_parsed_says_so(make_app, settle, tmp_path, monkeypatch, notes, tmpdir_,
                                                            pager_runs):
    monkeypatch.setenv("PAGER", 'less "')
    app = make_app(_session(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert pager_runs == []
        assert [n for n in notes if "PAGER" in n and "less" in n] != []
    assert list(tmpdir_.iterdir()) == []


async def test_e_removes_its_file_after_the_pager(make_app, settle, tmp_path, monkeypatch, notes, tmpdir_, pager_runs):
    monkeypatch.setenv("PAGER", "less -R")
    app = make_app(_session(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        (run,) = pager_runs
        assert run[:2] == ["less", "-R"] and Path(run[2]).parent == tmpdir_ and "answer 7" in run[3]
    assert list(tmpdir_.iterdir()) == []


async def test_e_when_the_pager_cannot_be_run_leaves_no_file(make_app, settle, tmp_path, monkeypatch, notes, tmpdir_):
    from pitui.ui.browser import copy_export

    def call(cmd):
        raise FileNotFoundError(2, "No such file or directory", cmd[0])

    monkeypatch.setattr(copy_export.subprocess, "call", call)
    monkeypatch.setattr(PituiApp, "suspend", lambda self: contextlib.nullcontext())
    monkeypatch.setenv("PAGER", "no-such-pager")
    app = make_app(_session(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert [n for n in notes if "no-such-pager" in n] != []
    assert list(tmpdir_.iterdir()) == []


@pytest.mark.parametrize("key", ["c", "s", "x", "w", "e", "ctrl+f", "question_mark", "slash"])
async def test_a_key_right_after_q_does_nothing(make_app, settle, tmp_path, key):
    """``q`` then another key before the app has closed: both arrive together, as when
    typed quickly; the second must not act on screens being taken down."""
    app = make_app(_session(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(events.Key("q", "q"))
        app.post_message(events.Key(key, None))
        await pilot.pause()
    assert app.return_code == 0


class _Terminal:
    """A terminal on standard input: what was asked of it, and one Enter to give."""

    def __init__(self):
        self.read = 0

    def isatty(self):
        return True

    def readline(self):
        self.read += 1
        return "\n"


@pytest.mark.parametrize("at_once, waits", [(1e9, True), (0.0, False)])
async def test_a_pager_that_leaves_at_once_is_read_before_the_app_comes_back(
        make_app, settle, tmp_path, monkeypatch, tmpdir_, pager_runs, at_once, waits):
    # PAGER=cat prints the entry and returns: its output would vanish under the app at once
    from pitui.ui.browser import copy_export

    monkeypatch.setattr(copy_export, "PAGER_LEFT_AT_ONCE", at_once)  # (every pager is quick / none is)
    terminal = _Terminal()
    monkeypatch.setattr(copy_export.sys, "stdin", terminal)
    monkeypatch.setenv("PAGER", "cat")
    app = make_app(_session(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
    assert [run[0] for run in pager_runs] == ["cat"]
    assert terminal.read == (1 if waits else 0)
