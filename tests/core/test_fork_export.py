"""`pitui export FILE --format session [--leaf ID]`: the branch to an entry as a Pi session
file, as Pi's own SessionManager.createBranchedSession writes it (issue 37).

tests/fixtures/pi-written/branched holds what Pi 1.6.0's createBranchedSession wrote for
chosen entries of every version-3 corpus file (tools/pi_written/pi_branch.mjs: the leaf, the
middle entry, a labelled one, the entry after a compaction and after a branch summary).
pitui's file equals Pi's but for what Pi makes anew each time: the session id, the header's
time, the label entries' ids (and the original file's path, Pi's being a copy it opened).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import FIXTURES, assistant, entry, user, write
from pitui.cli import main
from pitui.core.export.fork import export_session
from pitui.core.model.context import build_context
from pitui.core.read.session import Session

CORPUS = FIXTURES / "pi-corpus" / "agent" / "sessions"
BRANCHED = FIXTURES / "pi-written" / "branched"
MANIFEST = json.loads((BRANCHED / "manifest.json").read_text())
CASES = [(name, int(index), made) for name, made_by in sorted(MANIFEST.items()) for index, made in made_by.items()]


def _corpus_file(name: str) -> Path:
    (found,) = CORPUS.glob(f"*/{name}")
    return found


def _lines(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def _comparable(lines: list[dict]) -> list[dict]:
    """What Pi makes anew left out: the header's id, time and parent file; label ids (and a
    label's parentId, which names the label before it)."""
    out = []
    label_ids = {e["id"] for e in lines if e.get("type") == "label"}
    for e in lines:
        e = dict(e)
        if e.get("type") == "session":
            for key in ("id", "timestamp", "parentSession", "cwd"):
                e.pop(key, None)
        if e.get("type") == "label":
            e.pop("id")
        if e.get("parentId") in label_ids:
            e["parentId"] = "(a label)"
        out.append(e)
    return out


@pytest.mark.parametrize("name, index, made", CASES, ids=[f"{n[:24]}@{i}" for n, i, _ in CASES])
def test_the_branch_as_pi_writes_it(name, index, made):
    s = Session.open(_corpus_file(name))
    file_name, data = export_session(s, index)
    ours = _lines(data)
    if made is None:  # Pi writes no file for a branch with no conversation yet (pitui does)
        assert not any(e.get("type") == "message" and e["message"].get("role") in ("user", "assistant")
                       for e in ours[1:])
        return
    theirs = _lines((BRANCHED / made).read_bytes())
    assert _comparable(ours) == _comparable(theirs)
    header = ours[0]
    # the same cwd (Pi resolves a cwd that is not an absolute path here, a Windows one, against
    # the folder it ran in: the recorder's)
    assert header["cwd"] == theirs[0]["cwd"] or (
        not header["cwd"].startswith("/") and theirs[0]["cwd"].endswith("/" + header["cwd"]))
    assert header["parentSession"] == str(_corpus_file(name).resolve())
    assert file_name == f"{header['timestamp'].replace(':', '-').replace('.', '-')}_{header['id']}.jsonl"
    # the labels' order and chain as Pi writes them
    assert [e["label"] for e in ours if e.get("type") == "label"] == [
        e["label"] for e in theirs if e.get("type") == "label"]


@pytest.mark.parametrize("name, index, made", [c for c in CASES if c[2] is not None][:12],
                         ids=lambda v: str(v)[:24] if isinstance(v, str) else str(v))
def test_pi_reads_the_fork_as_the_original_at_that_entry(name, index, made, tmp_path):
    """The file opens without a warning, and its context is the original's at the entry."""
    s = Session.open(_corpus_file(name))
    file_name, data = export_session(s, index)
    fork = tmp_path / file_name
    fork.write_bytes(data)
    f = Session.open(fork, validate=True)
    assert f.all_warnings == []
    assert f.leaf == len(f) - 1
    assert build_context(f, f.leaf) == build_context(s, index)


def test_labels_a_compaction_and_the_cli(tmp_path, capsys):
    objs = [
        user("u1", None, 1, "start"),
        entry("label", "l1", "u1", 2, targetId="u1", label="first"),
        assistant("a1", "l1", 3),
        entry("compaction", "c1", "a1", 4, summary="so far", firstKeptEntryId="l1", tokensBefore=10),
        user("u2", "c1", 5, "go on"),
        entry("label", "l2", "u2", 6, targetId="a1", label="answer"),
        entry("label", "l3", "l2", 7, targetId="u1", label=""),  # cleared
        assistant("a2", "l3", 8, "done"),
    ]
    (tmp_path / "src").mkdir()
    src = write(tmp_path / "src" / "2026-11-20T10-00-00-000Z_src.jsonl", objs)
    s = Session.open(src)
    _, data = export_session(s, s.index_of["a2"])
    lines = _lines(data)
    assert [(e["type"], e.get("id"), e.get("parentId")) for e in lines[1:6]] == [
        ("message", "u1", None), ("message", "a1", "u1"), ("compaction", "c1", "a1"), ("message", "u2", "c1"),
        ("message", "a2", "u2")]
    assert lines[3]["firstKeptEntryId"] == "a1"  # (the label it named was taken off: the entry in its place)
    (label,) = lines[6:]
    assert (label["type"], label["targetId"], label["label"], label["parentId"]) == ("label", "a1", "answer", "a2")
    assert label["timestamp"] == "2026-11-20T10:00:06.000Z"
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "fork.jsonl"  # (not beside the session: its folder is a sessions folder)
    assert main(["export", str(src), "--format", "session", "--leaf", "u2", "-o", str(out)]) == 0
    written = _lines(out.read_bytes())[1:]
    # (a1's label is written too: Pi writes every label the file ends with on a kept entry)
    assert [e.get("id") for e in written[:4]] == ["u1", "a1", "c1", "u2"]
    assert [(e["type"], e["targetId"]) for e in written[4:]] == [("label", "a1")]
    # never into a sessions folder: pitui writes no session
    sessions = tmp_path / "sessions" / "--home-u-proj--"
    sessions.mkdir(parents=True)
    assert main(["export", str(src), "--format", "session", "-o", str(sessions / "x.jsonl")]) == 2
    assert not (sessions / "x.jsonl").exists()
