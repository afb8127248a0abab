"""Search results as people read them: each hit with its entry's time, a session's identical
hits folded into one with a count (``fold``), and ``pitui search``'s grouped output."""

from __future__ import annotations

import json
import re

import pytest

from helpers import runs_store
from pitui.cli import main
from pitui.core.store.discovery import resolve_root
from pitui.core.store.search import search


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))
    return runs_store(tmp_path / "root")


def _hits(store, **kw):
    return [[(h.entry_index, h.kind, h.context, h.timestamp, h.repeats) for h in r.hits]
            for r in search(resolve_root(store), "pytest", **kw)]


@pytest.mark.parametrize("use_index", [True, False])
def test_identical_hits_fold_into_one_with_a_count(store, use_index):
    folded = _hits(store, fold=True, use_index=use_index)
    assert folded == [
        [(0, "user", "run pytest until it passes", "2026-11-20T10:00:00.000Z", 1),
         (1, "tool-call", "bash command: pytest -q", "2026-11-20T10:01:00.000Z", 7),
         (5, "tool-call", "bash command: pytest -x tests/test_api.py", "2026-11-20T10:05:00.000Z", 1),
         (9, "tool-call", "bash command: pytest --lf", "2026-11-20T10:09:00.000Z", 1)],
        [(1, "tool-call", "bash command: pytest -q", "2026-11-20T10:00:30.000Z", 1)],
    ]
    # max_hits caps the different hits; rows are counted (folded ones too) up to the first
    # different hit past those kept, or all of them with count_all
    capped = list(search(resolve_root(store), "pytest", fold=True, max_hits=2, use_index=use_index))
    assert [(h.entry_index, h.repeats) for h in capped[0].hits] == [(0, 1), (1, 4)]
    assert (capped[0].hit_count, capped[0].hit_count_complete) == (6, False)
    every = list(search(resolve_root(store), "pytest", fold=True, max_hits=2, use_index=use_index, count_all=True))
    assert [(h.entry_index, h.repeats) for h in every[0].hits] == [(0, 1), (1, 7)]
    assert (every[0].hit_count, every[0].hit_count_complete) == (10, True)
    # without fold, every row is its own hit, as before (each with its time)
    plain = _hits(store, use_index=use_index)
    assert [len(r) for r in plain] == [10, 1] and all(h[4] == 1 for r in plain for h in r)
    assert [h[0] for h in plain[0]] == list(range(10))


def _cli(capsys, *argv):
    rc = main(["search", *argv])
    out = capsys.readouterr()
    assert rc == 0
    return out.out, out.err


def test_cli_groups_hits_with_their_times(store, capsys):
    out, err = _cli(capsys, "pytest", str(store))
    assert err == ""
    blocks = out.split("\n\n")
    first = blocks[0].splitlines()
    # (counting stops at the first different hit past the three listed: "10+")
    assert re.fullmatch(r"run pytest until it passes  \(/home/u/app, \w+, 10\+ hits\)", first[0])
    assert first[1:] == [
        str(store / "--home-u-app--" / "2026-11-20T10-00-00-000Z_sess-app.jsonl"),
        "  2026-11-20 10:00     #0 user        run pytest until it passes",
        "  2026-11-20 10:01     #1 tool-call   bash command: pytest -q  ×7",
        "  2026-11-20 10:05     #5 tool-call   bash command: pytest -x tests/test_api.py",
        "  ... 1+ more hits (--max-hits 0 lists and counts them all)",
    ]
    second = blocks[1].splitlines()
    assert re.fullmatch(r"tidy the parser  \(/home/u/lib, \w+, 1 hit\)", second[0])
    assert second[2:] == ["  2026-11-20 10:00     #1 tool-call   bash command: pytest -q"]
    every, _ = _cli(capsys, "pytest", str(store), "--max-hits", "0")
    assert "  2026-11-20 10:09     #9 tool-call   bash command: pytest --lf\n" in every and "more hit" not in every
    assert "(/home/u/app, " in every and ", 10 hits)" in every
    assert _cli(capsys, "pytest", str(store), "--no-index")[0] == out


def test_cli_json_keeps_every_hit_and_adds_its_time(store, capsys):
    out, _ = _cli(capsys, "pytest", str(store), "--json")
    data = json.loads(out)
    assert [d["hitCount"] for d in data] == [10, 1]
    hits = data[0]["hits"]
    assert len(hits) == 10  # (not folded: one object per matching row, as before)
    assert hits[1] == {"entryId": "a1", "entryIndex": 1, "kind": "tool-call", "context": "bash command: pytest -q",
                       "spans": [[14, 20]], "timestamp": "2026-11-20T10:01:00.000Z"}


# ---------------------------------------------------------------------------- while the index is built


def _flat(results):
    return sorted((r.path, r.hit_count, [(h.entry_id, h.context, h.repeats) for h in r.hits]) for r in results)


def _sized_store(root):
    """Sessions of several sizes and ages, each with the word ``needle``: a big old one, a
    big new one, small ones in between."""
    from helpers import assistant, user, write
    from tools import piwriter

    project = root / "--home-u-p--"
    project.mkdir(parents=True)
    sizes = {"a-big-old": 2 << 20, "b-small": 0, "c-small": 0, "d-big-new": 2 << 20, "e-small": 0}
    for n, (name, pad) in enumerate(sizes.items()):
        header = piwriter.header(f"sess-{name}", f"2026-11-1{n}T10:00:00.000Z", "/home/u/p")
        entries = [user("u1", None, n * 100, f"find the needle in {name}")]
        if pad:
            entries.append(assistant("a1", "u1", n * 100 + 1, text="x " * (pad // 2)))
        write(project / f"2026-11-1{n}T10-00-00-000Z_sess-{name}.jsonl", entries, header=header)
    return root


def test_search_while_indexing_reads_what_is_not_indexed_small_and_recent_first(tmp_path, monkeypatch):
    from pitui.core.store import search as S

    monkeypatch.setattr(S, "SERVE_SIZES", (1 << 20,))
    root = resolve_root(_sized_store(tmp_path / "root"))
    idx = tmp_path / "idx"
    progress = []
    got = list(S.search_while_indexing(root, "needle", index_dir=idx, on_progress=lambda *a: progress.append(a)))
    names = [r.path.rsplit("sess-", 1)[1] for r in got]
    # (nothing indexed: every file read whole, the small ones newest first, then the big ones)
    assert names == ["e-small.jsonl", "c-small.jsonl", "b-small.jsonl", "d-big-new.jsonl", "a-big-old.jsonl"]
    assert progress[0][0] == 0 and progress[-1][0] == progress[-1][1] > 4 << 20  # (bytes, not sessions)
    assert _flat(got) == _flat(search(root, "needle", index_dir=tmp_path / "other", use_index=False))
    with S.SearchIndex(idx) as index:
        assert index.file_ids() == {}  # (it wrote nothing)
        # half indexed: what the index holds comes from it first, newest first; the rest read whole
        index.update([r.path for r in got if "small" not in r.path])
    again = list(S.search_while_indexing(root, "needle", index_dir=idx))
    assert [r.path.rsplit("sess-", 1)[1] for r in again] == [
        "d-big-new.jsonl", "a-big-old.jsonl", "e-small.jsonl", "c-small.jsonl", "b-small.jsonl"]
    assert _flat(again) == _flat(got)
