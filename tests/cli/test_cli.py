"""The scriptable CLI: bad input, exports, and the read-only promise."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import FIXTURES, assistant, entry, header, ts, user, write
from pitui.core import gc_policy
from pitui.cli import main

CORPUS_SESSIONS = FIXTURES / "pi-corpus" / "agent" / "sessions"


def _make(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "pitui.cli", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


@pytest.mark.parametrize(
    "make, reason",
    [
        (lambda d: d / "missing.jsonl", "no such file"),
        (lambda d: _make(d / "x.jsonl", ""), "empty file"),
        (lambda d: _make(d / "y.jsonl", "not json\n"), "no session header line (not a Pi session)"),
        (lambda d: d, "is a directory, not a session file"),
    ],
)
def test_export_bad_input_exits_2_with_one_line(tmp_path, make, reason):
    path = make(tmp_path)
    proc = run("export", str(path), "--format", "json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == f"pitui: {path}: {reason}\n"


@pytest.mark.parametrize("content, reason", [
    (b'{"type":"message","id":"x"}\n', "line 1 should be a session header but is 'message' (not a Pi session)"),
    (b'{"type":"hello","success":true}\n',  # (an RPC log's "response" opens as a stream: test_streams.py)
     "line 1 should be a session header but is 'hello' (not a Pi session)"),
    (b"", "empty file"),
])
def test_the_app_on_a_file_that_is_not_a_session_exits_2_with_one_line(tmp_path, content, reason):
    # `pitui FILE` says why on one line, as the other commands do, instead of opening the app
    p = tmp_path / "x.jsonl"
    p.write_bytes(content)
    proc = subprocess.run([sys.executable, "-m", "pitui.cli", str(p)], capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert proc.stderr.decode() == f"pitui: {p}: {reason}\n"
    assert proc.stdout == b""
    assert p.read_bytes() == content


def test_export_unknown_leaf(tmp_path):
    p = write(tmp_path / "s.jsonl", [user("u1", None, 1)])
    proc = run("export", str(p), "--leaf", "nope")
    assert proc.returncode == 2 and proc.stderr == f"pitui: {p}: no entry with id 'nope'\n"


def test_list_missing_root(tmp_path):
    proc = run("list", str(tmp_path / "nowhere"), "--json")
    assert proc.returncode == 2 and proc.stderr == f"pitui: {tmp_path / 'nowhere'}: no such file or folder\n"


def test_export_json_shape_and_warnings(tmp_path, capsysbinary):
    p = write(tmp_path / "s.jsonl", [user("u1", None, 1), "oops", assistant("a1", "u1", 2),
                                     entry("label", "l1", "a1", 3, targetId="u1", label="start")])
    assert main(["export", str(p)]) == 0
    out = json.loads(capsysbinary.readouterr().out)
    assert out["entries"] == [
        {"id": "u1", "parentId": None, "type": "message", "timestamp": ts(1)},
        {"id": "a1", "parentId": "u1", "type": "message", "timestamp": ts(2)},
        {"id": "l1", "parentId": "a1", "type": "label", "timestamp": ts(3)},
    ]
    assert out["leafId"] == "l1" and out["roots"] == ["u1"]
    assert out["children"] == {"u1": ["a1"], "a1": ["l1"]}
    assert out["labels"] == {"u1": "start"}
    assert out["warnings"] == [{"line": 3, "message": "line 3 is not valid JSON and is skipped"}]
    assert [m["role"] for m in out["context"]["messages"]] == ["user", "assistant"]


def test_export_markdown_has_thinking_tools_and_compaction(tmp_path, capsysbinary):
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls -la"}}
    objs = [
        user("u1", None, 1, "list files"),
        assistant("a1", "u1", 2, content=[{"type": "thinking", "thinking": "Let me look."}, call], stopReason="toolUse"),
        {"type": "message", "id": "r1", "parentId": "a1", "timestamp": ts(3),
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                     "content": [{"type": "text", "text": "README.md\nsetup.py"}], "isError": False, "timestamp": 3}},
        entry("compaction", "c9", "r1", 4, summary="Listed the files.", firstKeptEntryId="r1", tokensBefore=42000),
        user("u2", "c9", 5, "thanks"),
    ]
    p = write(tmp_path / "s.jsonl", objs)
    assert main(["export", str(p), "--format", "markdown"]) == 0
    md = capsysbinary.readouterr().out.decode()
    assert "<details><summary>Thinking</summary>" in md and "Let me look." in md
    assert "**Tool call: bash** `$ ls -la`" in md and "README.md\nsetup.py" in md
    assert "### ✂ Compaction (42,000 tokens before)" in md and "Listed the files." in md
    assert "outside the model's context" in md
    # the history before the compaction is still there, in order
    assert md.index("list files") < md.index("Compaction") < md.index("thanks")


def _snapshot(root: Path) -> dict:
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            p = os.path.join(dirpath, name)
            st = os.stat(p)
            out[p] = (hashlib.sha256(Path(p).read_bytes()).hexdigest(), st.st_mtime_ns, st.st_size)
    return out


@pytest.mark.slow
def test_list_and_export_never_change_a_byte(tmp_path):
    """pitui never writes, migrates, renames or appends to session files (Pi does)."""
    root = tmp_path / "sessions"
    shutil.copytree(CORPUS_SESSIONS, root)
    for p in root.rglob("*.jsonl"):
        os.utime(p, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    before = _snapshot(root)
    env = {"PITUI_CACHE_DIR": str(tmp_path / "cache")}
    assert run("list", str(root), "--json", env=env).returncode == 0
    assert run("list", str(root), env=env).returncode == 0
    for p in sorted(root.rglob("*.jsonl")):
        for fmt in ("json", "markdown"):
            assert run("export", str(p), "--format", fmt, env=env).returncode == 0, p
    assert _snapshot(root) == before
    assert sorted(os.listdir(root)) == sorted(os.listdir(CORPUS_SESSIONS))


def test_pitui_file_starts_reading_before_parsing_its_arguments(tmp_path, monkeypatch):
    """``pitui FILE`` starts the file's read first thing (before argparse, pathlib or the
    skeleton cache are even imported), under the path the app then resolves and opens, so
    that the app's open takes that read over; anything else (options, a folder, a path
    pathlib would write differently) starts nothing there, and a read that is not wanted
    after all is stopped."""
    from pitui.cli import start_reading
    from pitui.core.open import parallel as open_parallel
    from pitui.core.store.discovery import resolve_root

    f = write(tmp_path / "s.jsonl", [user("u1", None, 1)])
    monkeypatch.chdir(tmp_path)
    try:
        for arg in (str(f), "s.jsonl"):
            assert start_reading([arg]) == arg
            pending = open_parallel.prestarted()[arg]
            assert open_parallel.start(resolve_root(arg).path) is pending
        monkeypatch.setenv("HOME", str(tmp_path))
        assert start_reading(["~/s.jsonl"]) == str(f)
        open_parallel.cancel_prestart(str(f))
        assert str(f) not in open_parallel.prestarted()
        for argv in ([], ["--demo"], [str(tmp_path)], ["./s.jsonl"], [str(tmp_path) + "//s.jsonl"],
                     [str(f), "--session-dir", str(tmp_path)], ["list"], ["nothing.jsonl"]):
            assert start_reading(argv) is None, argv
        assert not open_parallel.prestarted()
    finally:
        for path in open_parallel.prestarted():
            open_parallel.cancel_prestart(path)
        gc_policy.end_start_pause()
    # in a fresh process, as pitui starts: what is imported when the worker is forked (not
    # what only the drawing needs, model.parts and core.text: the worker would start later)
    # (-S: without site, so without an editable install's finder: pitui's folder is on the path)
    import pitui

    repo = os.path.dirname(os.path.dirname(os.path.abspath(pitui.__file__)))
    code = ("import os, sys\n"
            "from pitui.core.open import parallel as open_parallel\n"
            "open_parallel.PARALLEL_MIN_BYTES = 0\n"
            "seen, real_fork = [], os.fork\n"
            "def fork():\n"
            "    seen.append(sorted(m for m in ('argparse', 'pathlib', 'subprocess', 'pitui.core.open.skeleton_cache',\n"
            "                   'pitui.core.store.discovery', 'platformdirs', 'textual',\n"
            "                   'pitui.core.model.parts', 'pitui.core.text') if m in sys.modules))\n"
            "    return real_fork()\n"
            "os.fork = fork\n"
            "from pitui.cli import start_reading\n"
            "start_reading([sys.argv[1]])\n"
            "open_parallel.start(sys.argv[1]).result()\n"
            "print(seen)\n")
    out = subprocess.run([sys.executable, "-S", "-c", code, str(f)], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([repo] + [p for p in sys.path if p]),
                              "PITUI_CACHE_DIR": str(tmp_path / "cache")})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ("[[]]" if sys.platform.startswith("linux") else "[]")


def test_list_lines_up_its_columns(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "root"
    for cwd, text in (("/a", "short cwd"), ("/home/u/work/project", "longer cwd"), ("/x/" + "d" * 60, "too long")):
        folder = root / ("--" + cwd.strip("/").replace("/", "-") + "--")
        folder.mkdir(parents=True)
        write(folder / "2026-11-20T10-00-00-000Z_s.jsonl", [user("u1", None, 1, text)], header=header(cwd, cwd))
    assert main(["list", str(root)]) == 0
    rows = capsys.readouterr().out.splitlines()
    starts = {row.index(t) for row in rows for t in ("short cwd", "longer cwd", "too long") if t in row}
    assert len(rows) == 3 and len(starts) == 1  # every title starts in the same column
    assert any(row.endswith("  …" + "d" * 39 + "  too long") for row in rows)  # a cwd past 40 keeps its end


def test_list_fits_wide_titles_in_cells_and_names_each_session(tmp_path, capsys, monkeypatch):
    """A Korean title is two cells a character: the row is cut in cells, to the terminal's
    width when there is one, and each row names the session `pi --session` takes (its id,
    or with --paths its file)."""
    from rich.cells import cell_len

    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "root" / "--home-u-proj--"
    folder.mkdir(parents=True)
    f = write(folder / "2026-11-20T10-00-00-000Z_s.jsonl", [user("u1", None, 1, "세션 제목을 " * 40)],
              header=header("01a22560-9889-77d1-ab8d-f2f7082187bb"))
    assert main(["list", str(tmp_path / "root")]) == 0
    (row,) = capsys.readouterr().out.splitlines()
    assert row.split()[2] == "01a22560-9889-77d1-ab8d-f2f7082187bb"
    head = row[: row.index("세")]
    assert cell_len(row) - cell_len(head) <= 70 and row.endswith("…")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr("shutil.get_terminal_size", lambda *a, **k: os.terminal_size((126, 40)))
    assert main(["list", str(tmp_path / "root")]) == 0
    (row,) = capsys.readouterr().out.splitlines()
    assert cell_len(row) <= 126 and row.endswith("…")
    assert main(["list", "--paths", str(tmp_path / "root")]) == 0
    (row,) = capsys.readouterr().out.splitlines()
    assert row.split()[2] == str(f)
