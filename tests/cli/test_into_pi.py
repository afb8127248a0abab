"""Back into Pi (issue 37): `r` resumes the shown session in Pi, `R` forks it at the selected
entry, with a fake `pi` on the PATH that records how it was run (its arguments, working folder,
whether its input is a terminal) and, resuming, appends an entry as Pi would."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from helpers import FIXTURES, assistant, header, user, write
from pitui.core.read.session import Session
from pitui.ui.browser.into_pi import FolderGoneScreen

SIZE = (160, 40)

FAKE_PI = """#!{python}
import json, os, sys
with open({log!r}, "a") as f:
    f.write(json.dumps({{"argv": sys.argv[1:], "cwd": os.getcwd(), "tty": sys.stdin.isatty()}}) + "\\n")
if sys.argv[1:2] == ["--session"]:
    # as Pi resuming: the user said one more thing, the model answered
    with open(sys.argv[2], "a") as f:
        f.write(json.dumps({{"type": "message", "id": "new1", "parentId": "a1",
                            "timestamp": "2026-11-20T11:00:00.000Z",
                            "message": {{"role": "user", "content": "one more thing", "timestamp": 1}}}}) + "\\n")
"""


@pytest.fixture
def fake_pi(tmp_path, monkeypatch):
    """A fake `pi` first on the PATH; returns the log of its runs (read it with runs())."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "pi-runs.jsonl"
    pi = bin_dir / "pi"
    pi.write_text(FAKE_PI.format(python=sys.executable, log=str(log)))
    pi.chmod(pi.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("PITUI_PI_COMMAND", raising=False)
    return log


def runs(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def no_suspend(monkeypatch):
    """The headless test driver cannot hand the terminal over: the run goes on without it."""
    from textual.app import App

    monkeypatch.setattr(App, "suspend", lambda self: contextlib.nullcontext())


def _session(tmp_path, cwd: Path) -> Path:
    project = tmp_path / "sessions" / "--proj--"
    project.mkdir(parents=True)
    return write(project / "2026-11-20T10-00-00-000Z_sess-1.jsonl",
                 [user("u1", None, 1, "hello"), assistant("a1", "u1", 2, "hi")], header=header(cwd=str(cwd)))


async def test_r_resumes_in_the_sessions_folder_and_reads_what_pi_wrote(make_app, settle, tmp_path, fake_pi,
                                                                      no_suspend):
    work = tmp_path / "work"
    work.mkdir()
    path = _session(tmp_path, work)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        await pilot.pause(0.2)
        await settle(pilot)
        (run,) = runs(fake_pi)
        assert run["argv"] == ["--session", str(path)] and run["cwd"] == str(work)
        s = app.screen.session
        assert len(s) == 3 and s.ids[app.screen.branch_tree.selected_entry] == "new1"


async def test_a_gone_folder_offers_a_fork_here(make_app, settle, tmp_path, fake_pi, no_suspend, monkeypatch):
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    path = _session(tmp_path, tmp_path / "gone")
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, FolderGoneScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert runs(fake_pi) == []
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
    (run,) = runs(fake_pi)
    assert run["argv"] == ["--fork", str(path)] and run["cwd"] == str(here)


async def test_no_pi_says_so_and_copies_the_command(make_app, settle, tmp_path, monkeypatch, notes):
    monkeypatch.setenv("PITUI_PI_COMMAND", str(tmp_path / "no-such-pi") + " --flag")
    work = tmp_path / "work"
    work.mkdir()
    path = _session(tmp_path, work)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert app.clipboard == f"{tmp_path / 'no-such-pi'} --flag --session {path}"
    assert any("Pi was not found" in n for n in notes)


async def test_R_forks_at_the_selected_entry_through_pitui_s_cache(make_app, settle, tmp_path, fake_pi, no_suspend,
                                                                  monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("PITUI_CACHE_DIR", str(cache))
    work = tmp_path / "work"
    work.mkdir()
    path = _session(tmp_path, work)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.screen.branch_tree.select_entry(0)  # u1
        await settle(pilot)
        await pilot.press("R")
        await settle(pilot)
    (run,) = runs(fake_pi)
    assert run["argv"][0] == "--fork" and run["cwd"] == str(work)
    fork = Path(run["argv"][1])
    assert fork.parent == cache / "forks"  # (pitui's own folder: it writes no session)
    f = Session.open(fork)
    assert f.ids == ["u1"] and f.header["parentSession"] == str(path)
    assert path.read_bytes().count(b"\n") == 3  # the session itself untouched


async def test_a_run_resumes_the_session_file_it_names(make_app, settle, tmp_path, fake_pi, no_suspend,
                                                      monkeypatch):
    """A saved `pi -p --mode json` run written by Pi 1.6.0: `r` finds the session file the
    run wrote (beside it here) by the id its first record names; its folder is gone, so fork
    it here. A run that names no session (this RPC one asked for no state) says so."""
    import shutil

    src = FIXTURES / "pi-written" / "pi-1.6.0"
    runs_made = json.loads((src / "runs.json").read_text())
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(src / "json-reasoning-dropped.jsonl", folder)
    shutil.copy(src / "rpc-abort-batch.jsonl", folder)
    (session_file,) = runs_made["json-reasoning-dropped"]["sessionFiles"]
    shutil.copy(src / session_file, folder)
    monkeypatch.chdir(tmp_path)
    app = make_app(folder / "json-reasoning-dropped.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, FolderGoneScreen)  # (/tmp/pitui-headless/greet is gone)
        await pilot.press("f")
        await settle(pilot)
    (run,) = runs(fake_pi)
    assert run["argv"] == ["--fork", str(folder / session_file)] and run["cwd"] == str(tmp_path)
    app = make_app(folder / "rpc-abort-batch.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert not isinstance(app.screen, FolderGoneScreen)
    assert len(runs(fake_pi)) == 1
