"""The worker processes of the cold list and the cold search build (``core/store/workers.py``):
what a user would notice if they went wrong is a session missing or listed twice, a build that
hangs, or worker processes left running after pitui stopped reading them. Each test runs small
workers of its own (``python -m`` a module written to a temporary folder), then the two real
callers with workers that die half-way."""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from pathlib import Path

import orjson
import pytest

from helpers import FIXTURES, HEADER, assistant, full_results, user, write
from pitui.core.store import listing, listing_parallel, search_worker, workers
from pitui.core.store.discovery import find_session_files, resolve_root
from pitui.core.store.listing import list_json, list_sessions
from pitui.core.store.search import search, update_index
from pitui.core.store.workers import Workers

CORPUS = FIXTURES / "pi-corpus" / "agent" / "sessions"

# A test worker. Its payload: {"items": [...], "die_at": n (write half a message, then exit),
# "pad": bytes added to each message, "wait_for": a file to wait for before the first message,
# "done_flag": a file made after the last, "forever": keep writing, "garbage_at": n (write
# what is not a message). With TOY_ECHO set: the input written back as it is read, a message
# a chunk.
TOY = """
import os, sys, time
import orjson
from pitui.core.store import workers

def main():
    if os.environ.get("TOY_ECHO"):
        while True:
            chunk = sys.stdin.buffer.read1(65536)
            if not chunk:
                return
            workers.write(chunk)
    job = orjson.loads(workers.payload())
    if job.get("wait_for"):
        for _ in range(6000):  # (at most a minute: a test that fails must not hang)
            if os.path.exists(job["wait_for"]):
                break
            time.sleep(0.01)
        workers.write(b"saw it" if os.path.exists(job["wait_for"]) else b"did not")
    pad = b"p" * job.get("pad", 0)
    n = 0
    while True:
        for item in job["items"]:
            if n == job.get("die_at"):
                sys.stdout.buffer.write(b"1000 5\\n" + b"half")
                sys.stdout.flush()
                os._exit(3)
            if n == job.get("garbage_at"):
                sys.stdout.buffer.write(b"this is not a message\\n")
                sys.stdout.flush()
                time.sleep(60)
            workers.write(orjson.dumps(item), pad)
            n += 1
        if not job.get("forever"):
            break
    if job.get("done_flag"):
        open(job["done_flag"], "w").close()

main()
"""


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """The test worker's module name (its folder put on the workers' PYTHONPATH)."""
    mods = tmp_path / "mods"
    mods.mkdir()
    (mods / "toy_worker.py").write_text(textwrap.dedent(TOY))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(mods), os.environ.get("PYTHONPATH", "")]))
    return "toy_worker"


def job(**kw) -> bytes:
    return orjson.dumps(kw)


def _reaped(pool: Workers) -> bool:
    procs = [p for p in pool.procs if p is not None]
    return bool(procs) and all(p.returncode is not None and not os.path.exists(f"/proc/{p.pid}") for p in procs)


def _items(msgs) -> list:
    return [orjson.loads(m[0]) for m in msgs]


def test_messages_come_whole_and_every_worker_ends(toy):
    payloads = [job(items=[[k, i] for i in range(5)]) for k in range(3)]
    with Workers(toy, payloads) as pool:
        got = sorted(orjson.loads(parts[0]) + [k] for k, parts in pool.messages())
        assert all(pool.ended(k) for k in range(3))
    assert got == sorted([k, i, k] for k in range(3) for i in range(5))
    assert _reaped(pool)


def test_messages_bigger_than_a_pipe_buffer(toy):
    """Messages of a few MB each (a pipe holds 64 KB, 1 MB widened), and a payload of 4 MB."""
    big = ["x" * 2_500_000, "é" * 1_500_000]
    with Workers(toy, [job(items=big, pad=1_500_000), job(items=[1, 2], pad=3_000_000)]) as pool:
        got = list(pool.messages())
    assert sorted(map(str, (orjson.loads(p[0]) for _, p in got))) == sorted(map(str, big + [1, 2]))
    assert all(p[1] == b"p" * (1_500_000 if k == 0 else 3_000_000) for k, p in got)


def test_a_worker_that_writes_before_it_has_read_its_payload(toy, monkeypatch):
    """Its input is fed while its output is read: neither pipe's filling up stops the other."""
    monkeypatch.setenv("TOY_ECHO", "1")
    data = bytes(range(256)) * 16_000  # 4 MB
    with Workers(toy, [data, data[::-1]]) as pool:
        back = {0: b"", 1: b""}
        for k, parts in pool.messages():
            back[k] += parts[0]
    assert back == {0: data, 1: data[::-1]}


def test_a_worker_that_dies_midway_leaves_the_rest_to_the_caller(toy):
    """Its finished messages are kept, the one it was writing dropped; what it did not
    deliver the caller does, and nothing is done twice."""
    items = list(range(20))
    groups = [items[0::2], items[1::2]]
    pending = set(items)
    by_worker: list = []
    with Workers(toy, [job(items=groups[0], die_at=3), job(items=groups[1])]) as pool:
        for _, parts in pool.messages():
            item = orjson.loads(parts[0])
            assert item in pending
            pending.discard(item)
            by_worker.append(item)
        assert pool.ended(0) and pool.ended(1)
        assert pool.procs[0].wait() == 3
    here = sorted(pending)
    assert here == groups[0][3:]
    assert sorted(by_worker + here) == items
    # and taken in order: its first three, then nothing (None) from it
    with Workers(toy, [job(items=groups[0], die_at=3), job(items=groups[1])]) as pool:
        got = [pool.next_of(0) for _ in range(5)]
        assert [orjson.loads(m[0]) for m in got[:3]] == groups[0][:3] and got[3:] == [None, None]
        assert _items(pool.next_of(1) for _ in range(10)) == groups[1]
        assert pool.next_of(1) is None


def test_a_worker_that_writes_what_is_not_a_message_is_stopped(toy):
    with Workers(toy, [job(items=list(range(6)), garbage_at=2)]) as pool:
        assert _items(m for _, m in pool.messages()) == [0, 1]
        assert pool.ended(0)
    assert _reaped(pool)


def test_a_worker_that_cannot_start(toy, monkeypatch):
    # a module that is not there: it starts, writes nothing and exits
    with Workers("no_such_module_here", [job(items=[1])]) as pool:
        assert list(pool.messages()) == [] and pool.next_of(0) is None and pool.ended(0)
    # no program to start at all: the other places still get their workers
    with Workers(toy, [None, job(items=[1, 2])]) as pool:
        assert pool.procs[0] is None and pool.ended(0) and pool.next_of(0) is None
        assert _items(m for _, m in pool.messages()) == [1, 2]
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    with Workers(toy, [job(items=[1]), job(items=[2])]) as pool:
        assert pool.procs == [None, None] and list(pool.messages()) == [] and pool.next_of(1) is None


def test_a_consumer_that_stops_early_leaves_no_worker_running(toy):
    made = []

    def consume():
        with Workers(toy, [job(items=[1, 2, 3], forever=True, pad=100_000)] * 2) as pool:
            made.append(pool)
            for _, parts in pool.messages():
                yield orjson.loads(parts[0])

    it = consume()
    assert [next(it) for _ in range(5)]
    it.close()
    assert _reaped(made[0])
    # and one that fails
    with pytest.raises(RuntimeError):
        with Workers(toy, [job(items=[1], forever=True)]) as pool:
            pool.next_of(0)
            raise RuntimeError("the caller failed")
    assert _reaped(pool)


def test_ordered_consumption_with_one_slow_worker(toy, tmp_path):
    """Worker 0 writes nothing until worker 1 has written everything (more than its pipe
    holds): worker 1's messages are held until their turn, and all come in the order given."""
    flag = str(tmp_path / "fast-done")
    items = list(range(12))
    payloads = [job(items=items[0::2], wait_for=flag), job(items=items[1::2], pad=500_000, done_flag=flag)]
    with Workers(toy, payloads) as pool:
        assert pool.next_of(0) == [b"saw it"]
        got = [orjson.loads(pool.next_of(i % 2)[0]) for i in items]
        assert pool.next_of(0) is None and pool.next_of(1) is None
    assert got == items


# ----------------------------------------------------------------------------- the real callers
DYING = """
import os, sys
from pitui.core.store import workers
from pitui.core.store import {module} as real

if hasattr(real, "FLUSH_BYTES"):
    real.FLUSH_BYTES = 0  # (a message a file)
write, sent = workers.write, []

def dying(*parts, out=None):
    if len(sent) == 2:  # the third message: half of it, then the worker dies
        sys.stdout.buffer.write(b" ".join(b"%d" % len(p) for p in parts) + b"\\n" + parts[0][:10])
        sys.stdout.flush()
        os._exit(3)
    sent.append(1)
    write(*parts, out=out)

workers.write = dying
sys.exit(real.main())
"""


@pytest.fixture
def dying(tmp_path, monkeypatch):
    """Names of worker modules that run the real ones but die in their third message."""
    mods = tmp_path / "dying"
    mods.mkdir()
    for m in ("listing_worker", "search_worker"):
        (mods / f"dying_{m}.py").write_text(textwrap.dedent(DYING.format(module=m)))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(mods), os.environ.get("PYTHONPATH", "")]))
    return "dying_listing_worker", "dying_search_worker"


def _store(root: Path, n: int = 14) -> Path:
    for k in range(n):
        objs, prev = [], None
        for m in range(1, 5):
            objs.append(user(f"e{m}", prev, k * 10 + m, f"question {k}.{m}") if m % 2
                        else assistant(f"e{m}", prev, k * 10 + m, f"answer {k}.{m}"))
            prev = f"e{m}"
        (root / f"--home-u-p{k % 3}--").mkdir(parents=True, exist_ok=True)
        write(root / f"--home-u-p{k % 3}--" / f"2026-11-20T10-00-{k:02d}-000Z_s{k}.jsonl", objs,
              header={**HEADER, "id": f"sess-{k}"})
    return root


def test_listing_workers_that_die_midway(tmp_path, monkeypatch, dying):
    """Each worker delivers two files and dies in the third: the others are scanned here,
    each file is listed once, and the list is the one made without workers."""
    root = _store(tmp_path / "sessions")
    r = resolve_root(str(root))
    want = list_json(r, None, workers=1)
    monkeypatch.setattr(listing_parallel, "LISTING_WORKER", dying[0])
    todo = [(sf, None, os.stat(sf.path)) for sf in find_session_files(r)]
    recs = [rec for rec, _ in listing_parallel.scan_parallel(todo, 2)]
    assert sorted(x.path for x in recs) == sorted(t[0].path for t in todo)
    assert sum(x.info is None for x in recs) == 4  # (a worker's row is decoded when asked for)
    # with the usage counted too: every file's usage row, as read alone, from a worker or here
    from pitui.core.store.usage_index import UsageIndex
    from pitui.core.store.usage_read import read_row

    def usage_of(row):
        return row.summary_dict(), row.keys, row.columns

    pairs = list(listing_parallel.scan_parallel(todo, 2, UsageIndex(tmp_path / "u")))
    alone = UsageIndex(enabled=False)
    assert len(pairs) == len(todo) and {rec.path: usage_of(row) for rec, row in pairs} == {
        sf.path: usage_of(read_row(sf.path, None, alone)) for sf, _, _ in todo}
    monkeypatch.setattr(listing, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(listing, "PARALLEL_MIN_BYTES", 0)
    assert list_json(r, listing.SessionIndex(tmp_path / "c"), workers=2) == want
    assert list_sessions(r, listing.SessionIndex(tmp_path / "c")) == list_sessions(r, None)


def test_search_workers_that_die_midway(tmp_path, monkeypatch, dying):
    root = tmp_path / "s"
    shutil.copytree(CORPUS, root)
    one = tmp_path / "one"
    update_index(resolve_root(root), index_dir=one)
    monkeypatch.setattr(search_worker, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(search_worker, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(search_worker, "SEARCH_WORKER", dying[1])
    real, delivered = search_worker.indexed_in_workers, []

    def counted(paths, n):
        for path, got in real(paths, n):
            delivered.append(got is not None)
            yield path, got

    monkeypatch.setattr(search_worker, "indexed_in_workers", counted)
    many = tmp_path / "many"
    assert update_index(resolve_root(root), index_dir=many).indexed > 20
    n = min(4, os.cpu_count() or 1)
    assert sum(delivered) == (2 * n if n > 1 else 0)  # (two files from each worker, the rest here)
    r = resolve_root(root)
    for q in ["the", "read file", "re:fun.tion", "kind:file_read", "haiku"]:
        assert full_results(search(r, q, index_dir=many, max_hits=10**9, update=False)) == full_results(
            search(r, q, index_dir=one, max_hits=10**9, update=False)), q


def test_the_callers_stop_their_workers_when_closed_early(tmp_path, monkeypatch):
    made = []
    real_init = Workers.__init__

    def init(self, *a, **kw):
        real_init(self, *a, **kw)
        made.append(self)

    monkeypatch.setattr(workers.Workers, "__init__", init)
    root = _store(tmp_path / "sessions", 30)
    r = resolve_root(str(root))
    todo = [(sf, None, os.stat(sf.path)) for sf in find_session_files(r)]
    it = listing_parallel.scan_parallel(todo, 2)
    next(it)
    it.close()
    it = search_worker.indexed_in_workers([t[0].path for t in todo], 2)
    next(it)
    it.close()
    assert len(made) == 2 and all(_reaped(p) for p in made)
