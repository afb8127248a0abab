"""The search index's chunks (issue 21): whole lines of a file, their words in FTS, read
back from the file for every query. What a user would notice if they went wrong: a hit
missed or shown twice, a hit with another file's text, a crash after a file changed.
Each test compares the index's results with a scan of the files without it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import FIXTURES, assistant, full_results, same_results_of_two_indexes, user, write
# private: the chunk size, the worker thresholds and the dead chunks' bound, made small
from pitui.core.store import search_chunks, search_update, search_worker
from pitui.core.store.discovery import resolve_root
from pitui.core.store.search import SearchIndex, search, update_index

CORPUS = FIXTURES / "pi-corpus" / "agent" / "sessions"
BIG = "2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl"
QUERIES = ["the", "read file", '"the file"', "re:fun.tion", r"re:\d+\.\d+", "haiku", "legacy", "zebrafishqq",
           "kind:file_read", "kind:shell_exec npm", "re:.", "bash command", "path: /", "1e5", "KELVIN STOP",
           "ABC", "a/b", "sa", '"x y"',
           # word pairs (the chunks' pair bitmaps): adjacent, never adjacent, across rows, one
           # character between two literals, short words, a made tool-call text, folded letters
           '"file read"', '"read file"', '"pad first"', "re:file.read", "re:e.rea", "re:fil.\\s", '"x a b"',
           '"path: /"', '"echo timeout"', '"kelvin and"', '"and stop"', "re:KELVIN.and",
           '"alpha beta gamma delta epsilon"', '"beta gamma"']


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(search_chunks, "CHUNK_CHARS", 1500)


def agree(root, index_dir, queries=QUERIES, update=False):
    r = resolve_root(root)
    for q in queries:
        a = full_results(search(r, q, index_dir=index_dir, max_hits=10**9, update=update))
        b = full_results(search(r, q, max_hits=10**9, use_index=False))
        assert a == b, q


def _chunk_count(index_dir) -> int:
    with SearchIndex(index_dir) as idx:
        return idx.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]


def _hostile_entries():
    """Lines whose raw bytes do not show their text as it is matched."""
    return [
        user("h1", None, 1, "\u212aELVIN and \u017ftop"),
        '{"type":"message","id":"h2","parentId":"h1","timestamp":"2026-11-20T10:00:02.000Z",'
        '"message":{"role":"user","content":"\\u0041BC and a\\/b and x\\u0020y","timestamp":1}}',
        assistant("h3", "h2", 3, content=[{"type": "toolCall", "id": "c1", "name": "bash",
                                           "arguments": {"command": "echo", "timeout": 1e5, "path": "/tmp"}}]),
        '{"type":"label","id":"h4","parentId":"h3","timestamp":"2026-11-20T10:00:04.000Z","targetId":"h3","label":1e5}',
        "not json at all",
        "",
        '{"type":"message","id":"h5","parentId":"h4","timestamp":"2026-11-20T10:00:05.000Z",'
        '"message":{"role":"user","content":"sa \\u001b[1mbold\\u001b[0m","timestamp":1}}',
    ]


def _store(tmp_path, n=60):
    """One session of many small entries (many chunks at CHUNK_CHARS 1500), hostile lines
    among them, and a copy of a big corpus session."""
    root = tmp_path / "s"
    proj = root / "--p--"
    proj.mkdir(parents=True)
    objs = []
    for k in range(n):
        objs.append(user(f"u{k}", None, k, f"first {k} the file read haiku{k % 7} function {k}.{k} " + "pad " * 40))
        if k == n // 2:
            objs.extend(_hostile_entries())
        if k == n // 3:  # (in a dense chunk: a phrase's words apart by escaped and non-ASCII whitespace)
            objs.append(user(f"w{k}", None, k, "alpha\n\tbeta\u00a0gamma\u2028delta  epsilon"))
    write(proj / "2026-11-20T10-00-00-000Z_a.jsonl", objs)
    shutil.copy(CORPUS / "--Users-badlogic-workspaces-pi-mono--" / BIG, proj / BIG)
    return root


@pytest.mark.slow
def test_small_chunks_agree_with_the_scan(tmp_path, small_chunks):
    """Terms in the first and the last line of a chunk, hits in every chunk, hostile lines
    in a chunk whose lines are otherwise read only where a term is."""
    root = _store(tmp_path)
    idx = tmp_path / "idx"
    update_index(resolve_root(root), index_dir=idx)
    assert _chunk_count(idx) > 50
    words = set()
    with SearchIndex(idx) as si:
        for path, start, end in si.conn.execute("SELECT f.path, c.start, c.end FROM chunks c "
                                                "JOIN files f ON f.id = c.file").fetchall():
            data = Path(path).read_bytes()[start:end].split(b"\n")
            for line in (data[0], data[-2] if len(data) > 1 else data[0]):
                words.update(w.decode() for w in line.split(b" ")[3:5] if w.isalpha())
    assert len(words) > 5
    agree(root, idx, QUERIES + sorted(words)[:30])


@pytest.mark.slow
@pytest.mark.parametrize("cut", ["between lines", "inside a line", "before a last newline"])
def test_two_halves_with_small_chunks(tmp_path, small_chunks, cut):
    """A file indexed half-written and then whole: the new bytes go into new chunks, and
    the results are those of an index built at once (and of the scan)."""
    data = (CORPUS / "--Users-badlogic-workspaces-pi-mono--" / BIG).read_bytes()
    at = data.index(b"\n", len(data) // 3) + 1
    if cut == "inside a line":
        at += 40
    elif cut == "before a last newline":
        at -= 1  # (the last line whole but for its newline: indexed, then read again)
    root = tmp_path / "root"
    (root / "--p--").mkdir(parents=True)
    f = root / "--p--" / BIG
    f.write_bytes(data[:at])
    halves, once = tmp_path / "halves", tmp_path / "once"
    update_index(resolve_root(root), index_dir=halves)
    agree(root, halves, ["the", "re:.", "haiku"])
    with open(f, "ab") as fh:
        fh.write(data[at:])
    st = update_index(resolve_root(root), index_dir=halves)
    assert (st.indexed, st.reindexed) == (1, 0) and 0 < st.bytes < len(data)
    update_index(resolve_root(root), index_dir=once)
    same_results_of_two_indexes(root, halves, once, QUERIES)
    agree(root, halves)


def test_a_query_right_after_growth_sees_the_new_lines(tmp_path, small_chunks):
    root = _store(tmp_path, n=10)
    idx = tmp_path / "idx"
    f = root / "--p--" / "2026-11-20T10-00-00-000Z_a.jsonl"
    assert list(search(resolve_root(root), "wombat", index_dir=idx)) == []
    with open(f, "a", encoding="utf-8") as fh:
        fh.write('{"type":"message","id":"new","parentId":"u9","timestamp":"2026-11-20T11:00:00.000Z",'
                 '"message":{"role":"user","content":"a wombat appears","timestamp":1}}\n')
    got = list(search(resolve_root(root), "wombat", index_dir=idx))
    assert [(r.path, [h.entry_id for h in r.hits]) for r in got] == [(str(f), ["new"])]


@pytest.mark.slow
@pytest.mark.parametrize("how", ["same size and time", "another time", "cut short", "removed"])
def test_a_file_rewritten_under_the_index(tmp_path, small_chunks, how):
    """The file's bytes are no longer those its chunks were made of. Searched without an
    update: never a crash, never a hit the file does not hold now (a file named by the
    index that is not what it was is read whole). With an update: indexed again, and the
    scan's results (unless the file kept its size and time: then nothing tells)."""
    root = _store(tmp_path)
    idx = tmp_path / "idx"
    update_index(resolve_root(root), index_dir=idx)
    f = root / "--p--" / "2026-11-20T10-00-00-000Z_a.jsonl"
    st = f.stat()
    data = f.read_bytes()
    if how == "removed":
        f.unlink()
    elif how == "cut short":
        f.write_bytes(data[: len(data) // 2])
    else:
        # the same length, other words in other places (lines moved by a few bytes)
        f.write_bytes(data.replace(b"first", b"frst", 40).replace(b"pad pad", b"pad paddd", 40)[: len(data)])
        if how == "same size and time":
            os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    r = resolve_root(root)
    for q in QUERIES + ["frst", "first", "paddd"]:
        got = list(search(r, q, index_dir=idx, max_hits=10**9, update=False))
        scanned = {res.path: set(full_results([res])[0][3]) for res in search(r, q, max_hits=10**9, use_index=False)}
        for res in got:  # every hit shown is one the file holds now (the scan's)
            assert set(full_results([res])[0][3]) <= scanned.get(res.path, set()), q
    s = update_index(resolve_root(root), index_dir=idx)
    assert s.removed == (1 if how == "removed" else 0)
    if how != "same size and time":
        agree(root, idx, QUERIES + ["frst", "first", "paddd"])


@pytest.mark.slow
def test_workers_build_what_one_process_builds(tmp_path, monkeypatch):
    """The cold build in worker processes gives the same results as one built here."""
    root = tmp_path / "s"
    shutil.copytree(CORPUS, root)
    one = tmp_path / "one"
    update_index(resolve_root(root), index_dir=one)
    monkeypatch.setattr(search_worker, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(search_worker, "PARALLEL_MIN_BYTES", 1)
    many = tmp_path / "many"
    st = update_index(resolve_root(root), index_dir=many)
    assert st.indexed > 20
    r = resolve_root(root)
    for q in QUERIES:
        a = full_results(search(r, q, index_dir=many, max_hits=10**9, update=False))
        assert a == full_results(search(r, q, index_dir=one, max_hits=10**9, update=False)), q
    # and a first search that builds the index in workers, results streamed in order
    fresh = tmp_path / "fresh"
    assert full_results(search(r, "the", index_dir=fresh, max_hits=10**9)) == full_results(
        search(r, "the", index_dir=one, max_hits=10**9, update=False))


def test_dead_chunks_are_dropped_once_they_outnumber_the_live(tmp_path, small_chunks, monkeypatch):
    """Chunks of rewritten files stay in the FTS table, unused, until they outnumber the
    live ones: then the table is started again, and every file indexed again."""
    monkeypatch.setattr(search_update, "_DEAD_MIN", 0)
    root = _store(tmp_path)
    idx = tmp_path / "idx"
    update_index(resolve_root(root), index_dir=idx)
    f = root / "--p--" / "2026-11-20T10-00-00-000Z_a.jsonl"
    for k in range(3):
        write(f, [user(f"r{k}", None, 1, f"rewritten {k} wombat")])
        update_index(resolve_root(root), index_dir=idx)
        agree(root, idx, ["wombat", "the", "rewritten", "re:."])
    update_index(resolve_root(root), index_dir=idx)  # (nothing changed: the dead ones are counted)
    with SearchIndex(idx) as si:
        dead = si.conn.execute("SELECT value FROM meta WHERE key='dead'").fetchone()
        live = si.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert dead is None or dead[0] <= live
    agree(root, idx, ["wombat", "the", "rewritten", "re:."])


@pytest.mark.slow
def test_a_worker_result_that_cannot_be_read_is_indexed_here(tmp_path, monkeypatch):
    """A worker's line that is not what it should be (cut, or another shape) leaves its
    file to this process: nothing half-written, the same results."""
    root = tmp_path / "s"
    shutil.copytree(CORPUS, root)
    monkeypatch.setattr(search_worker, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(search_worker, "PARALLEL_MIN_BYTES", 1)
    real = search_worker.indexed_in_workers
    bad = [{"ident": [1, 2]}, {"ident": [1, 2, 3, 4], "state": [0] * 9, "rows": 0, "bytes": 0,
                               "chunks": [[0, 10, 0, 1, 1, True, [-1], " x "]]}, None]

    def flaky(paths, workers):
        for k, (path, got) in enumerate(real(paths, workers)):
            yield path, (bad[k % 3] if k % 4 == 0 else got)

    monkeypatch.setattr(search_worker, "indexed_in_workers", flaky)
    idx = tmp_path / "idx"
    st = update_index(resolve_root(root), index_dir=idx)
    assert st.indexed > 20
    agree(root, idx, ["the", "re:.", "haiku", "kind:file_read"])


def test_a_big_sessions_first_hits_come_from_its_first_chunks(tmp_path, small_chunks, monkeypatch):
    """A word in every chunk of a long session: its first hits are read from the first chunk
    that holds them, at its offset, and the rest of the file is not read (counting stops one
    hit past those kept); a second term found only at the end is looked for in the chunks
    that may hold it, not in those between. The same results as the scan without the index."""
    root = tmp_path / "s"
    (root / "--p--").mkdir(parents=True)
    objs = [user(f"u{k}", None, k, f"first {k} the file read function {k}.{k} " + "pad " * 40) for k in range(400)]
    objs.append(user("last", None, 400, "zzlast words here"))
    write(root / "--p--" / "2026-11-20T10-00-00-000Z_a.jsonl", objs)
    idx = tmp_path / "idx"
    update_index(resolve_root(root), index_dir=idx)
    chunks = _chunk_count(idx)
    assert chunks > 50
    read: list[int] = []
    rows_of_chunk = search_chunks._rows_of_chunk

    def spy(f, st, chunk, alts):
        read.append(chunk[0])
        return rows_of_chunk(f, st, chunk, alts)

    # private: which chunks are read back
    monkeypatch.setattr(search_chunks, "_rows_of_chunk", spy)
    r = resolve_root(root)
    for q, most in (("first", 1), ('"the file"', 1), ("re:fun.tion", 1), ("first zzlast", 2), ("zzlast first", 2)):
        read.clear()
        got = full_results(search(r, q, index_dir=idx, max_hits=5, update=False))
        assert got == full_results(search(r, q, max_hits=5, use_index=False)), q
        assert (len(got), got[0][1], got[0][2], len(got[0][3])) == (1, 6, False, 5), q
        assert 0 < len(read) <= most and read == sorted(read), q
    read.clear()
    every = full_results(search(r, "first", index_dir=idx, max_hits=5, count_all=True, update=False))
    assert every[0][1:3] == (400, True) and len(read) == chunks - 2  # (not the header's nor the last)
