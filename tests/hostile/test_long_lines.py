"""A line longer than pitui reads (issue 33, hole 6): a header then a gigabyte run of NUL
bytes (a sparse file: a few kilobytes on disk) once made ``list``, ``check`` and ``search``
hold about 3 GB and the app 4 GB, and ``pitui -`` fed bytes without a newline grew without
end. A line past ``MAX_LINE`` is read past, never held, and is one warning; the lines after
it read as usual.

Each command runs in a subprocess, its peak memory taken from ``wait4`` (the process and
the workers it waited for): far below the line's size, as the file has no line pitui keeps
that is longer than a few hundred bytes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import HEADER, line, user
from pitui.core.read.lines import MAX_LINE

#: the run of NUL bytes: past the limit (a gigabyte, as found, costs only more reading)
RUN = MAX_LINE + (64 << 20)
#: what a command reading these files may hold at its peak (its baseline is tens of MB)
BOUND = 200 * 1024 * 1024

pytestmark = pytest.mark.skipif(not hasattr(os, "wait4"), reason="peak memory read with wait4")


def _sparse_session(path: Path, run: int, *, after: bool = True) -> Path:
    """A header, a user message, ``run`` NUL bytes (a hole in the file), then, with
    ``after``, a newline and a second user message."""
    path.parent.mkdir(parents=True, exist_ok=True)
    head = (line(HEADER) + "\n" + line(user("u1", None, 1, "before the long line")) + "\n").encode()
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(len(head) + run)
    if after:
        with open(path, "ab") as f:
            f.write(b"\n" + (line(user("u2", "u1", 2, "after the long line")) + "\n").encode())
    assert os.stat(path).st_blocks * 512 < 1 << 20  # (sparse: the run takes no room on disk)
    return path


#: Runs the command and prints its peak memory (wait4). The test starts this small launcher,
#: which starts the command: Linux counts in a process's peak what the process it was forked
#: from held at the fork, and a test runner late in a long run holds a gigabyte and more.
_LAUNCH = """
import os, subprocess, sys
stdin = subprocess.PIPE if sys.argv[1] == "pipe" else subprocess.DEVNULL
with open(sys.argv[2], "wb") as fo, open(sys.argv[3], "wb") as fe:
    proc = subprocess.Popen(sys.argv[4:], stdout=fo, stderr=fe, stdin=stdin)
    if stdin is subprocess.PIPE:
        proc.stdin.write(sys.stdin.buffer.read())
        proc.stdin.close()
    _pid, status, usage = os.wait4(proc.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)
"""


def _run(args: list[str], tmp_path: Path, stdin: bytes | None = None) -> tuple[int, str, int]:
    """``args`` run with this Python; its exit code, output and peak memory in bytes."""
    out, err = tmp_path / "out", tmp_path / "err"
    env = {**os.environ, "PITUI_CACHE_DIR": str(tmp_path / "cache"), "PITUI_CONFIG_DIR": str(tmp_path / "config")}
    launched = subprocess.run([sys.executable, "-c", _LAUNCH, "pipe" if stdin is not None else "none", str(out),
                               str(err), sys.executable, *args], input=stdin or b"", capture_output=True, env=env,
                              check=True, timeout=300)
    code, peak = (int(x) for x in launched.stdout.split())
    assert code in (0, 1), err.read_text()
    return code, out.read_text(), peak


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("store")
    _sparse_session(root / "--home-u-p--" / "2026-11-20T10-00-00-000Z_sess-1.jsonl", RUN)
    return root


def _file(store: Path) -> str:
    return str(next(store.glob("*/*.jsonl")))


def test_list_reads_past_a_gigabyte_line(store, tmp_path):
    code, out, peak = _run(["-m", "pitui.cli", "list", str(store), "--json"], tmp_path)
    assert '"messageCount": 2' in out and '"warnings": 1' in out and '"firstMessage": "before the long line"' in out
    assert peak < BOUND, peak


def test_check_says_the_line_is_too_long(store, tmp_path):
    code, out, peak = _run(["-m", "pitui.cli", "check", _file(store)], tmp_path)
    assert code == 1
    assert out.splitlines() == [f"{_file(store)}:3: too-long: the line is longer than {MAX_LINE >> 20} MB and is "
                                "skipped (Pi: reads a line of up to 512 M characters (V8's longest string); past "
                                "that it cannot open the session at all (RangeError: Invalid string length))"]
    assert peak < BOUND, peak


def test_search_finds_what_follows_the_line(store, tmp_path):
    code, out, peak = _run(["-m", "pitui.cli", "search", "after", str(store)], tmp_path)
    assert "after the long line" in out
    # and again from the index it built (a chunk never spans the line read past)
    code, out, peak2 = _run(["-m", "pitui.cli", "search", "long", str(store)], tmp_path)
    assert "before the long line" in out and "after the long line" in out
    assert max(peak, peak2) < BOUND, (peak, peak2)


def test_export_shows_both_messages(store, tmp_path):
    code, out, peak = _run(["-m", "pitui.cli", "export", _file(store), "--format", "markdown"], tmp_path)
    assert "before the long line" in out and "after the long line" in out
    assert peak < BOUND, peak


_APP = """
import asyncio, sys
from pitui.core.store.discovery import resolve_root
from pitui.ui.app import PituiApp

async def main():
    app = PituiApp(resolve_root(sys.argv[1]))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(400):
            await pilot.pause(0.05)
            s = getattr(app.screen, "session", None)
            if s is not None and len(s.ids) == 2 and s.warnings:
                break
        print(len(s.ids), [w.kind for w in s.warnings])
        await pilot.press("q")

asyncio.run(main())
"""


def test_the_app_opens_the_session_with_a_warning(store, tmp_path):
    code, out, peak = _run(["-c", _APP, _file(store)], tmp_path)
    assert out.split("\n")[0] == "2 ['too-long']"
    assert peak < BOUND, peak


def test_a_long_last_line_without_its_newline(tmp_path):
    f = _sparse_session(tmp_path / "p" / "s.jsonl", RUN, after=False)
    code, out, peak = _run(["-m", "pitui.cli", "check", str(f)], tmp_path)
    assert out.splitlines()[0].startswith(f"{f}:3: too-long: the last line has no newline and is longer than")
    assert peak < BOUND, peak


_STDIN = """
import sys
from pitui.core.read.stream import StreamSession

s = StreamSession.live()
piece = b"x" * (64 << 20)
for _ in range(16):  # a gigabyte without a newline, taken in as it comes
    s.feed(piece)
    s.refresh()
s.feed(b"\\n" + sys.stdin.buffer.read())
s.end()
s.refresh()
print([w.message for w in s.warnings], [s.entry(i).get("event") for i in range(len(s.ids))])
"""


def test_a_stream_of_a_gigabyte_without_a_newline(tmp_path):
    """``pitui -`` fed endless bytes with no newline: the record not ended yet is kept up to
    MAX_LINE, then read past; once its newline comes it is one warning."""
    from stream_files import HEADER as STREAM_HEADER
    from stream_files import line as record

    code, out, peak = _run(["-c", _STDIN], tmp_path, stdin=record(STREAM_HEADER).encode())
    assert out.strip() == f"['line 1 is longer than {MAX_LINE >> 20} MB and is skipped'] ['session']"
    assert peak < 2 * MAX_LINE, peak
