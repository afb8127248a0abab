"""`pitui status` against a process that writes a session as Pi does
(tools/session_walk.py), walked through every state: `--json`, the table, `--watch`."""

from __future__ import annotations

import concurrent.futures
import os
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from helpers import REPO, SessionWalk
from tools import session_walk


@pytest.fixture
def walker(tmp_path):
    w = SessionWalk(tmp_path / "sessions")
    yield w
    w.close()


def _status(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pitui.cli", "status", str(root), *args], capture_output=True,
                          text=True, timeout=60, cwd=REPO)


def test_status_json_against_the_writer(walker):
    root = walker.path.parent.parent
    walker("start")
    walker("tool_call")
    out = _status(root, "--json")
    assert out.returncode == 0, out.stderr
    [row] = orjson.loads(out.stdout)
    assert {k: row[k] for k in ("path", "id", "project", "cwd", "name", "state", "tool", "model", "contextTokens",
                                "log", "kind", "errorMessage")} == {
        "path": str(walker.path), "id": session_walk.SESSION_ID, "project": "--home-u-shop--", "cwd": "/home/u/shop",
        "name": None, "state": "working",
        "tool": {"name": "bash", "summary": "npm test", "since": row["tool"]["since"]}, "model": "claude-sonnet-4-5",
        "contextTokens": 31700, "log": "session", "kind": "session", "errorMessage": None}
    assert row["since"] <= row["tool"]["since"]  # (working since the prompt, the tool since its call)
    assert row["cost"] == 0.015675
    walker("reply")
    walker("named")
    [row] = orjson.loads(_status(root, "--json").stdout)
    assert (row["state"], row["tool"], row["name"], row["cost"]) == ("waiting", None, "checkout flake", 0.03135)
    walker("prompt")
    walker("error")
    [row] = orjson.loads(_status(root, "--json").stdout)
    assert (row["state"], row["stopReason"]) == ("failed", "error")
    assert row["errorMessage"].startswith("429 rate_limit_error")
    # the window: written more than --since minutes ago, not listed
    old = time.time() - 600
    os.utime(walker.path, (old, old))
    assert orjson.loads(_status(root, "--json", "--since", "5").stdout) == []


def test_status_table_and_bad_arguments(walker):
    root = walker.path.parent.parent
    walker("start")
    walker("tool_call")
    out = _status(root)
    [line] = out.stdout.splitlines()
    assert line.split()[0] == "working"
    assert "/home/u/shop  Fix the flaky checkout test  claude-sonnet-4-5  $0.0157  31.7k  bash: npm test · " in line
    bad = _status(root, "--since", "0")
    assert (bad.returncode, bad.stderr) == (2, "pitui: 0.0: --since wants a number of minutes above 0\n")


def test_status_watch_prints_a_line_per_change(walker):
    root = walker.path.parent.parent
    walker("start")
    proc = subprocess.Popen([sys.executable, "-m", "pitui.cli", "status", str(root), "--watch"], cwd=REPO,
                            stdout=subprocess.PIPE, text=True)
    reader = concurrent.futures.ThreadPoolExecutor(1)
    try:
        # (each line waited for at most a minute: a change the watch missed fails the test
        # instead of hanging the run)
        assert reader.submit(proc.stdout.readline).result(60).split()[0] == "working"  # (the board first)
        walker("tool_call")
        walker("reply")
        line = reader.submit(proc.stdout.readline).result(60).rstrip("\n")
        stamp, rest = line[:19], line[21:]
        assert stamp[:4] == time.strftime("%Y") and stamp[10] == " "
        assert rest == f"waiting  {session_walk.SESSION_ID}  /home/u/shop  Fix the flaky checkout test"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        reader.shutdown(wait=False)
