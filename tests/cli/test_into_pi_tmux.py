"""`r` in the real app, in a real terminal (tmux): Pi gets the terminal as a program run from a
shell would (no mouse reporting left on, its input the terminal), and pitui comes back
redrawn with what Pi wrote meanwhile (issue 37). A fake `pi` stands in for Pi."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pytest

from helpers import REPO, header, user, write

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

FAKE_PI = """#!/bin/sh
echo "FAKE PI $* tty=$( [ -t 0 ] && echo yes || echo no )"
read answer
printf '%s\\n' '{"type":"message","id":"u2","parentId":"u1","timestamp":"2026-11-20T10:05:00.000Z","message":{"role":"user","content":"written while pi ran","timestamp":1795168800000}}' >> "$2"
"""


def _wait(predicate, what: str, screen, seconds: float = 30.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = predicate()
        if got:
            return got
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}; the screen:\n{screen()}")


def _tmux(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["tmux", *args], timeout=30, **kwargs)


def _having(text: str, part: str) -> str | None:
    return text if part in text else None


def test_r_hands_the_terminal_to_pi_and_takes_it_back(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pi").write_text(FAKE_PI)
    (bin_dir / "pi").chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    project = tmp_path / "sessions" / "--work--"
    project.mkdir(parents=True)
    session = project / "2026-11-20T10-00-00-000Z_s1.jsonl"
    write(session, [user("u1", None, 1, "hello there")], header=header("s1", str(work)))
    name = f"pitui-test-{os.getpid()}"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "PITUI_CACHE_DIR": str(tmp_path / "cache"), "PITUI_CONFIG_DIR": str(tmp_path / "config"),
           "TERM": "xterm-256color"}
    env.pop("PITUI_PI_COMMAND", None)
    # (the app sizes itself from the terminal tmux gives it: a COLUMNS or LINES left in this
    # process's environment by another test would make it draw at that size instead)
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    command = f"{sys.executable} -m pitui.cli {tmp_path / 'sessions'}"
    _tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "30", "-c", str(REPO), command, env=env,
          check=True)

    def screen() -> str:
        return _tmux("capture-pane", "-p", "-J", "-t", name, capture_output=True, text=True).stdout

    def mouse() -> str:
        return _tmux("display", "-p", "-t", name, "#{mouse_standard_flag}#{mouse_button_flag}#{mouse_any_flag}",
                     capture_output=True, text=True).stdout.strip()

    try:
        # the session shown (its entry count in the pane's header), not just listed: on a
        # loaded machine the first paint can come before the open is done (FirstPaint's
        # hold ends), and `r` means nothing until a session is open
        _wait(lambda: "hello there" in screen() and "1/1 entries" in screen(), "the session", screen)
        assert "1" in mouse()  # (the app reports the mouse)
        _tmux("send-keys", "-t", name, "r", check=True)
        shown = _wait(lambda: _having(screen(), "FAKE PI"), "pi to run", screen)
        assert f"FAKE PI --session {session} tty=yes" in shown.replace("\n", "")  # (wrapped at 120)
        assert mouse() == "000"  # Pi has the terminal as from a shell: no mouse reporting on
        _tmux("send-keys", "-t", name, "Enter", check=True)
        back = _wait(lambda: _having(screen(), "written while pi ran"), "pitui back", screen)
        assert "FAKE PI" not in back and "Tree" in back  # redrawn whole, with what Pi wrote
    finally:
        _tmux("kill-session", "-t", name, capture_output=True)
