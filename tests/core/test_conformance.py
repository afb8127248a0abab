"""pitui reads every corpus file exactly as Pi 1.5.2 does (tests/fixtures/pi-corpus/expected), and
so as Pi 1.6.0 does, which reads every corpus file the same (docs/pi-semantics.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import FIXTURES
from pitui.cli import main
from pitui.core.model.context import build_context
from pitui.core.open import parallel as open_parallel
from pitui.core.open.parallel import ParallelOpen
from pitui.core.read.session import Session

CORPUS = FIXTURES / "pi-corpus"
SESSIONS = CORPUS / "agent" / "sessions"
EXPECTED = sorted((CORPUS / "expected").glob("*.jsonl.json"))


def _session_file(name: str) -> Path:
    (found,) = list(SESSIONS.glob(f"*/{name}"))
    return found


def _normalise(value):
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("expected_file", EXPECTED, ids=lambda p: p.name[:40])
@pytest.mark.parametrize("how", ["validating", "lazy", "parallel", "streamed"])
def test_session_matches_pi(expected_file: Path, how: str, monkeypatch):
    exp = json.loads(expected_file.read_text())
    path = _session_file(exp["file"])
    if how == "parallel":
        # cut into parts read by worker processes, as a big file is (see open_parallel)
        s = ParallelOpen(path, min_bytes=0, part_min=1, jobs=2).result()
    elif how == "streamed":
        # one worker sending its entries in chunks as it reads (as `pitui FILE` does)
        monkeypatch.setattr(open_parallel, "STREAM_CHUNK_BYTES", 1)
        s = ParallelOpen(path, min_bytes=0, jobs=1, whole=True, use_cache=False).result()
    else:
        s = Session.open(path, validate=how == "validating")
    n = len(s)
    assert n == exp["entryCount"]
    assert s.types == exp["types"]
    assert [p if p >= 0 else None for p in s.parent] == exp["parents"]
    assert s.leaf == exp["leaf"]
    assert s.roots == exp["roots"]
    assert {str(k): v for k, v in s.children.items()} == exp["children"]
    assert {str(k): v for k, v in s.labels.items()} == exp["labels"]
    assert s.name == exp["name"]
    assert s.id == exp["sessionId"]
    assert _normalise(build_context(s)) == exp["context"]
    for probe in exp["probes"]:
        assert _normalise(build_context(s, probe["leaf"])) == probe["context"], probe["leaf"]


@pytest.mark.parametrize("expected_file", EXPECTED, ids=lambda p: p.name[:40])
def test_export_json_matches_pi(expected_file: Path, capsysbinary):
    """`pitui export FILE --format json [--leaf ID]` carries the same tree and context."""
    exp = json.loads(expected_file.read_text())
    path = _session_file(exp["file"])
    assert main(["export", str(path), "--format", "json"]) == 0
    out = json.loads(capsysbinary.readouterr().out)
    ids = [e["id"] for e in out["entries"]]
    assert len(ids) == exp["entryCount"]
    assert [e["type"] for e in out["entries"]] == exp["types"]
    index = {}
    for k, i in enumerate(ids):
        index[i] = k  # later duplicates win, as in Pi's maps
    assert index[out["leafId"]] == exp["leaf"]
    assert [index[r] for r in out["roots"]] == exp["roots"]
    assert {str(index[p]): [index[c] for c in kids] for p, kids in out["children"].items()} == exp["children"]
    assert {str(index[i]): label for i, label in out["labels"].items()} == exp["labels"]
    assert out["name"] == exp["name"]
    assert out["header"]["id"] == exp["sessionId"]
    assert out["context"] == exp["context"]
    for probe in exp["probes"]:
        assert main(["export", str(path), "--format", "json", "--leaf", ids[probe["leaf"]]]) == 0
        got = json.loads(capsysbinary.readouterr().out)
        assert got["context"] == probe["context"]
        assert got["selectedLeafId"] == ids[probe["leaf"]]


def test_list_json_matches_pi(tmp_path, monkeypatch):
    """`pitui list ROOT --json` equals Pi's listAll, cold and then warm from the index."""
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))
    expected = json.loads((CORPUS / "expected" / "_list.json").read_text())
    keys = ("id", "cwd", "name", "parentSessionPath", "created", "modified", "messageCount", "firstMessage")
    for run in ("cold", "warm"):
        proc = subprocess.run(
            [sys.executable, "-m", "pitui.cli", "list", str(SESSIONS), "--json"],
            capture_output=True,
            env={**os.environ, "PITUI_CACHE_DIR": str(tmp_path / "cache")},
            check=True,
            timeout=120,
        )
        rows = json.loads(proc.stdout)
        assert len(rows) == sum(len(v) for v in expected.values()), run
        for folder, want in expected.items():
            got = [
                {"file": os.path.basename(r["path"]), **{k: r[k] for k in keys}}
                for r in rows
                if os.path.basename(os.path.dirname(r["path"])) == folder
            ]
            assert got == want, (run, folder)
        # Pi's order across the whole store: newest modified first
        mods = [r["modified"] for r in rows]
        assert mods == sorted(mods, reverse=True)
    assert (tmp_path / "cache").is_dir()


def test_list_through_worker_processes_matches_pi(monkeypatch):
    """The cold scan spread over worker processes gives Pi's listing too."""
    import pitui.core.store.listing as listing
    from pitui.core.store.discovery import resolve_root

    monkeypatch.setattr(listing, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(listing, "PARALLEL_MIN_BYTES", 0)
    expected = json.loads((CORPUS / "expected" / "_list.json").read_text())
    seen = []
    infos = listing.list_sessions(resolve_root(SESSIONS), None, on_info=lambda i, n, t: seen.append((n, t)), workers=2)
    assert [n for n, _ in seen] == list(range(1, len(infos) + 1)) and {t for _, t in seen} == {len(infos)}
    for folder, want in expected.items():
        got = [i.to_pi_json() for i in infos if i.project == folder]
        assert [os.path.basename(g["path"]) for g in got] == [w["file"] for w in want]
        assert [g["messageCount"] for g in got] == [w["messageCount"] for w in want]
        assert [g["firstMessage"] for g in got] == [w["firstMessage"] for w in want]
        assert [g["modified"] for g in got] == [w["modified"] for w in want]
