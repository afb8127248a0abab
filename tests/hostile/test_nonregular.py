"""Anything that is not a regular file is refused (issue 17): ``pitui export /dev/zero`` grew
to 5.3 GB and ``export`` of a FIFO waited forever for a writer. Every command given such a
path says what it is in one line and exits 2; a FIFO or a socket inside a sessions folder is
passed over, never opened. Commands run in a subprocess with a timeout, so a regression
fails instead of hanging the suite.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import assistant, user, write
from pitui.core.read.lines import NotRegular, open_regular
from pitui.core.read.session import NotASession, Session

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PITUI_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "pitui.cli", *args], capture_output=True, text=True, timeout=60,
                          env=env, stdin=subprocess.DEVNULL)


@pytest.fixture
def fifo(tmp_path) -> Path:
    p = tmp_path / "pipe.jsonl"
    os.mkfifo(p)
    return p


def _cases(fifo: Path) -> list[tuple[str, str]]:
    cases = [(str(fifo), "is a named pipe (FIFO), not a session file")]
    for dev in ("/dev/zero", "/dev/null"):
        if os.path.exists(dev):
            cases.append((dev, "is a device, not a session file"))
    return cases


@pytest.mark.parametrize("command", [["export", "{}"], ["export", "{}", "--format", "markdown"],
                                     ["export", "{}", "--format", "html"], ["list", "{}"], ["list", "{}", "--json"],
                                     ["search", "x", "{}"], ["{}"]])
def test_every_command_refuses_what_is_not_a_regular_file(tmp_path, fifo, command):
    for path, why in _cases(fifo):
        got = _run(tmp_path, *[a.format(path) for a in command])
        assert got.returncode == 2, (path, got.stderr)
        assert got.stdout == ""
        assert got.stderr == f"pitui: {path}: {why}\n"


def test_a_symlink_to_a_fifo_is_refused_too(tmp_path, fifo):
    link = tmp_path / "link.jsonl"
    link.symlink_to(fifo)
    got = _run(tmp_path, "export", str(link))
    assert got.returncode == 2 and "named pipe" in got.stderr


def test_the_core_never_opens_a_fifo_for_reading(fifo):
    with pytest.raises(NotRegular):
        open_regular(fifo)
    with pytest.raises(NotASession) as exc:
        Session.open(fifo)
    assert exc.value.reason == "is a named pipe (FIFO), not a session file"


def test_a_fifo_and_a_socket_in_a_sessions_folder_are_passed_over(tmp_path):
    root = tmp_path / "sessions"
    project = root / "--home-u-proj--"
    project.mkdir(parents=True)
    write(project / "2026-11-20T10-00-00-000Z_a.jsonl", [user("u1", None, 1, "hello there"),
                                                         assistant("a1", "u1", 2, "hi")])
    os.mkfifo(project / "2026-11-20T11-00-00-000Z_fifo.jsonl")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(project / "2026-11-20T12-00-00-000Z_sock.jsonl"))
    except OSError:  # (a path too long for a socket name)
        pass
    for args in (["list", str(root)], ["list", str(root), "--json"], ["search", "hello", str(root)]):
        got = _run(tmp_path, *args)
        assert got.returncode == 0, got.stderr
        assert "hello there" in got.stdout
        assert "_fifo.jsonl" not in got.stdout and "_sock.jsonl" not in got.stdout
    sock.close()


async def test_the_app_lists_a_folder_with_a_fifo_and_opens_the_session(tmp_path, make_app, settle):
    from pitui.core.store.discovery import SessionRoot

    project = tmp_path / "sessions" / "--home-u-proj--"
    project.mkdir(parents=True)
    write(project / "2026-11-20T10-00-00-000Z_a.jsonl", [user("u1", None, 1, "hello there")])
    os.mkfifo(project / "2026-11-20T11-00-00-000Z_fifo.jsonl")
    app = make_app(SessionRoot(tmp_path / "sessions", "tree", "test"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        b = app.browser
        assert b.listing_done
        assert [os.path.basename(p) for p in b.infos] == ["2026-11-20T10-00-00-000Z_a.jsonl"]
        assert b.session is not None and b.session.path.endswith("_a.jsonl")
