"""Opening a big file in parts on worker processes gives exactly the sequential reading.

The parts are made tiny here (``part_min=1``) so that small files are cut many times,
right through the awkward lines: damaged JSON, bytes that are not UTF-8, an entry with no
id (whose made-up id comes from its line number), blank and CRLF lines, labels set in
one part and cleared in another, a name changed across parts, a partial last line.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from pitui.core import gc_policy
from pitui.core.open import parallel as open_parallel
from pitui.core.open.parallel import ParallelOpen
from pitui.core.read.session import NotASession, Session
from pitui.core.model.layout import layout_tree

from helpers import HEADER, TESTS, assistant, entry, header, line, user

FIELDS = ("ids", "parent_ids", "types", "roles", "timestamps", "offsets", "lengths", "linenos", "flags",
          "parent", "roots", "children", "shadowed", "leaf", "index_of", "label_by_target",
          "label_time_by_target", "name", "scanned_to", "next_lineno", "file_size", "_pending_partial")


def _same(a: Session, b: Session) -> None:
    for f in FIELDS:
        assert getattr(a, f) == getattr(b, f), f
    assert [(w.line, w.message) for w in a.all_warnings] == [(w.line, w.message) for w in b.all_warnings]


def _awkward_file(path: Path, *, partial_tail: bool = False) -> Path:
    rows: list[bytes] = [line(HEADER).encode()]
    prev = None
    for n in range(1, 121):
        eid = f"e{n:03d}"
        if n % 2:
            obj = user(eid, prev, n, text=f"question {n} " + "x" * (n * 7))
        else:
            obj = assistant(eid, prev, n, text=f"answer {n} ✓ " + "y" * (n * 5))
        rows.append(line(obj).encode())
        prev = eid
        if n == 10:
            rows.append(line(entry("label", "lab1", prev, n, targetId="e003", label="first")).encode())
            prev = "lab1"
        if n == 20:
            rows.append(b'{"type":"message","id":"broken",')  # damaged JSON
        if n == 30:
            rows.append(b"")  # blank lines
            rows.append(b"   ")
        if n == 40:
            rows.append(line(user("bad-utf8", prev, n, text="caf\udce9")).encode("utf-8", "surrogateescape"))
            prev = "bad-utf8"
        if n == 50:
            rows.append(line({"type": "custom", "parentId": prev, "timestamp": "2026-11-20T11:00:00.000Z",
                              "customType": "x", "data": {}}).encode())  # no id
        if n == 60:
            rows.append(line(entry("session_info", "name1", prev, n, name="first name")).encode())
            prev = "name1"
        if n == 70:
            rows.append(line(user("e070b", "e050", n, text="a fork")).encode() + b"\r")  # CRLF, a fork
        if n == 80:
            rows.append(line(user("e012", "e011", n, text="an id used again")).encode())  # a duplicate id
        if n == 90:
            rows.append(line(entry("label", "lab2", prev, n, targetId="e003", label=None)).encode())
            rows.append(line(entry("label", "lab3", "lab2", n, targetId="e005", label="later")).encode())
            prev = "lab3"
        if n == 100:
            rows.append(line(entry("session_info", "name2", prev, n, name="second name")).encode())
            prev = "name2"
    data = b"\n".join(rows) + b"\n"
    if partial_tail:
        data += line(user("tail", prev, 200))[:40].encode()
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("jobs", [1, 2, 3, 7])
@pytest.mark.parametrize("partial_tail", [False, True], ids=["whole", "partial-tail"])
def test_parts_read_like_one_scan(tmp_path, jobs, partial_tail):
    f = _awkward_file(tmp_path / "s.jsonl", partial_tail=partial_tail)
    seq = Session.open(f, validate=False)
    po = ParallelOpen(f, min_bytes=0, part_min=1, jobs=jobs)
    assert po.parallel
    par = po.result()
    _same(seq, par)
    assert par.name == "second name"
    assert par.labels == {seq.index_of["e005"]: "later"}
    assert any("not valid JSON" in w.message for w in par.warnings)
    assert "line" + str(seq.linenos[seq.types.index("custom")]) in par.ids  # no id: named by its line


@pytest.mark.parametrize("chunk", [1, 300, 8 * 1024 * 1024], ids=["chunk-per-line", "chunk-300", "one-chunk"])
@pytest.mark.parametrize("partial_tail", [False, True], ids=["whole", "partial-tail"])
def test_one_worker_streams_it_all(tmp_path, monkeypatch, partial_tail, chunk):
    """The mode beside a starting UI: one worker reads the whole file and sends its entries
    in chunks while it reads; they are appended here into the same session, whose tree and
    layout are those of a sequential read."""
    monkeypatch.setattr(open_parallel, "STREAM_CHUNK_BYTES", chunk)
    f = _awkward_file(tmp_path / "s.jsonl", partial_tail=partial_tail)
    seq = Session.open(f, validate=False)
    po = ParallelOpen(f, min_bytes=0, jobs=1, whole=True, use_cache=False)
    assert po.parallel and po.whole
    seen: list[int] = []
    par = po.result(lambda done, total: seen.append(done))
    _same(seq, par)
    if chunk == 1:
        assert len(seen) >= len(seq.ids) - 1  # a chunk (with its progress) after each line
    assert seen[-1] == f.stat().st_size and seen == sorted(seen)
    assert list(par.children) == list(seq.children)  # the same order, too
    assert par.path_to(par.leaf) == seq.path_to(seq.leaf)
    want, got = layout_tree(seq, "default"), po.layout(par, "default")
    assert list(got.rows) == list(want.rows) and got.row_of == want.row_of
    assert got.visible_parent == want.visible_parent and got.visible_children == want.visible_children
    assert list(got.visible_parent) == list(want.visible_parent)
    par.refresh()  # and it reads on as any session does
    _same(seq, par)


def test_one_worker_reads_old_versions_and_reports_bad_files(tmp_path):
    old = tmp_path / "v1.jsonl"
    old.write_text(line(header("s", "/", "2026-01-01T00:00:00Z", version=None)) + "\n"
                   + line({"type": "message", "timestamp": "2026-01-01T00:00:01Z",
                           "message": {"role": "user", "content": "hi"}}) + "\n")
    po = ParallelOpen(old, min_bytes=0, jobs=1, whole=True)
    assert po.whole
    _same(Session.open(old, validate=False), po.result())
    bad = tmp_path / "notes.jsonl"
    bad.write_text('{"hello": 1}\n' * 50)
    with pytest.raises(NotASession) as exc:
        ParallelOpen(bad, min_bytes=0, jobs=1, whole=True).result()
    assert "not a Pi session" in exc.value.reason


def test_a_parallel_session_reads_on_like_any_other(tmp_path):
    f = _awkward_file(tmp_path / "s.jsonl", partial_tail=True)
    par = ParallelOpen(f, min_bytes=0, part_min=1, jobs=3).result()
    with open(f, "ab") as out:  # Pi finishes the line and writes another
        out.write(b"\n")  # the partial line is now damaged and complete
        out.write(line(user("after", "name2", 300)).encode() + b"\n")
    par.refresh()
    _same(Session.open(f, validate=False), par)


def test_small_files_and_old_versions_are_read_in_the_calling_thread(tmp_path):
    f = _awkward_file(tmp_path / "s.jsonl")
    assert not ParallelOpen(f).parallel  # far below PARALLEL_MIN_BYTES
    old = tmp_path / "v1.jsonl"
    old.write_text(line(header("s", "/", "2026-01-01T00:00:00Z", version=None)) + "\n"
                   + line({"type": "message", "timestamp": "2026-01-01T00:00:01Z",
                           "message": {"role": "user", "content": "hi"}}) + "\n")
    po = ParallelOpen(old, min_bytes=0, part_min=1, jobs=2)
    assert not po.parallel
    _same(Session.open(old, validate=False), po.result())


def test_not_a_session_is_reported_the_same_way(tmp_path):
    f = tmp_path / "notes.jsonl"
    f.write_text('{"hello": 1}\n' * 50)
    with pytest.raises(NotASession) as seq:
        Session.open(f, validate=False)
    with pytest.raises(NotASession) as par:
        ParallelOpen(f, min_bytes=0, part_min=1, jobs=2).result()
    assert par.value.reason == seq.value.reason
    with pytest.raises(NotASession) as missing:
        ParallelOpen(tmp_path / "gone.jsonl", min_bytes=0).result()
    assert missing.value.reason == "no such file"


def test_a_failing_worker_falls_back_to_the_sequential_read(tmp_path, monkeypatch):
    f = _awkward_file(tmp_path / "s.jsonl")
    monkeypatch.setattr(open_parallel.sys, "executable", os.path.join(str(tmp_path), "no-python-here"))
    po = ParallelOpen(f, min_bytes=0, part_min=1, jobs=2)
    assert not po.parallel  # could not start: nothing to wait for
    _same(Session.open(f, validate=False), po.result())


def test_a_streaming_worker_that_dies_midway_falls_back_to_the_sequential_read(tmp_path, monkeypatch):
    """Chunks already taken in are dropped: the session is read again, whole and right."""
    f = _awkward_file(tmp_path / "s.jsonl")
    monkeypatch.setattr(open_parallel, "STREAM_CHUNK_BYTES", 1)
    po = ParallelOpen(f, min_bytes=0, jobs=1, whole=True, use_cache=False)
    (worker,) = po.workers
    real_read = worker.stdout.read
    frames = [0]

    def read(n):  # the worker's output stops after a few frames
        frames[0] += 1
        if frames[0] > 9:
            worker.kill()
            return b""
        return real_read(n)

    monkeypatch.setattr(worker.stdout, "read", read)
    _same(Session.open(f, validate=False), po.result())


def test_a_file_that_shrank_while_streamed_is_read_again(tmp_path, monkeypatch):
    f = _awkward_file(tmp_path / "s.jsonl")
    po = ParallelOpen(f, min_bytes=0, jobs=1, whole=True, use_cache=False)
    po.size += 1  # as if the file had been longer when the open began
    _same(Session.open(f, validate=False), po.result())


def test_a_file_rewritten_under_the_workers_is_read_again(tmp_path, monkeypatch):
    f = _awkward_file(tmp_path / "s.jsonl")
    data = f.read_bytes()
    # a part whose end no longer falls between lines (the file changed) says so
    cut = data.index(b"question 41")
    assert not Session.scan_part(str(f), data.index(b"\n") + 1, cut, 3)["ok"]
    assert Session.scan_part(str(f), data.index(b"\n") + 1, data.index(b"\n", cut) + 1, 3)["ok"]
    # and then the file is read the usual way
    po = ParallelOpen(f, min_bytes=0, part_min=1, jobs=2)
    # private: the parts' own check is shown above; here, its failure's consequence
    monkeypatch.setattr(po, "_collect", lambda progress: None)
    _same(Session.open(f, validate=False), po.result())


def test_prestart_is_taken_over_by_the_next_open(tmp_path):
    f = _awkward_file(tmp_path / "s.jsonl")
    open_parallel.prestart(f)
    assert str(f) in open_parallel.prestarted()
    opening = open_parallel.start(f)
    assert str(f) not in open_parallel.prestarted()
    s = opening.result()
    seq = Session.open(f, validate=False)
    _same(seq, s)
    # the default tree layout was made beside it (while the UI would be starting)
    want, got = layout_tree(seq, "default"), opening.layouts["default"]
    assert list(got.rows) == list(want.rows) and got.row_of == want.row_of


def test_progress_is_reported_in_bytes_of_the_whole_file(tmp_path):
    f = _awkward_file(tmp_path / "s.jsonl")
    seen: list[tuple[int, int]] = []
    ParallelOpen(f, min_bytes=0, part_min=1, jobs=2).result(lambda done, total: seen.append((done, total)))
    size = f.stat().st_size
    assert seen and seen[-1] == (size, size)
    assert all(t == size for _, t in seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


async def test_the_app_opens_a_big_file_through_the_workers(make_app, settle, corpus_root, monkeypatch):
    """The app reads a (here: made to count as) big file in parts, with the same tree."""
    monkeypatch.setattr(open_parallel, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(open_parallel, "PART_MIN_BYTES", 1)
    used: list[bool] = []
    real = ParallelOpen.result

    def spy(self, progress=None):
        used.append(self.parallel)
        return real(self, progress)

    monkeypatch.setattr(ParallelOpen, "result", spy)
    from pitui.ui.pane import MessagePane

    prepared: list[tuple] = []
    real_adopt = MessagePane.adopt_prepared

    def adopt_spy(self, session, leaf, model):
        real_adopt(self, session, leaf, model)
        # (which branch model the pane shows is a speed trick with no public face)
        prepared.append((session, leaf, model))

    monkeypatch.setattr(MessagePane, "adopt_prepared", adopt_spy)
    path = corpus_root / "--srv-app--/2026-07-26T22-53-28-020Z_019fa0a1-52c6-7764-9ff2-3d86c310d892.jsonl"
    app = make_app(path)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        b = app.browser
        assert used == [True]
        assert b.session is not None
        # the open thread worked out the pane's first branch, and the pane took it
        assert [(s, leaf) for s, leaf, _ in prepared] == [(b.session, b.session.leaf)]
        assert b.pane.model.bstart is prepared[0][2].bstart
        seq = Session.open(path, validate=False)
        seq.validate_lazy_lines()  # as the app did after its first paint
        _same(seq, b.session)
        assert b.session.ids[b.branch_tree.selected_entry] == "fa5fba56"  # the leaf
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert b.session.ids[b.branch_tree.selected_entry] == "156ded8f"


def test_overlapping_gc_pauses_leave_the_collector_on():
    """Two opens pausing the collector at once (in threads) and ending in either order:
    collection comes back when the last pause ends, never stays off."""
    import gc

    from pitui.core.gc_policy import gc_paused

    assert gc.isenabled()
    a, b = gc_paused(), gc_paused()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    assert not gc.isenabled()
    b.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_pause_that_asks_for_it_freezes_what_was_made():
    """The app's opens freeze what they made when the pause ends (so the next garbage
    collection does not walk a whole session); other pauses leave the collector as it was."""
    import gc

    gc.unfreeze()  # (an app shown by an earlier test froze what it had)
    with gc_policy.gc_paused():
        made = [[k] for k in range(1000)]
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    try:
        with gc_policy.gc_paused(freeze=True):
            with gc_policy.gc_paused():  # an inner pause ending first does not freeze
                more = [[k] for k in range(1000)]
            assert gc.get_freeze_count() == 0
        assert gc.get_freeze_count() >= 2000 and gc.isenabled()
    finally:
        gc.unfreeze()
    assert made and more


def test_the_start_pause_lasts_until_it_is_ended_across_the_opens_within_it():
    """An app's start pauses collection (cli, before anything is imported); an open within
    it ending its own pause does not turn collection back on; ending the start does, once,
    and freezes what the start made."""
    import gc

    gc.unfreeze()
    assert gc.isenabled()
    try:
        gc_policy.pause_gc_for_start()
        gc_policy.pause_gc_for_start()  # (a second start is the same one)
        assert not gc.isenabled()
        with gc_policy.gc_paused(freeze=True):
            made = [[k] for k in range(1000)]
        assert not gc.isenabled() and gc.get_freeze_count() == 0
        gc_policy.end_start_pause()
        assert gc.isenabled() and gc.get_freeze_count() >= 1000
        gc_policy.end_start_pause()
        assert gc.isenabled()
    finally:
        gc_policy.end_start_pause()
        gc.enable()
        gc.unfreeze()
    assert made


def test_on_tree_has_the_session_while_its_layout_is_on_the_way(tmp_path):
    """A streamed open hands the caller its session as soon as the tree is loaded (the app
    works out the pane's first branch then), once, whether the caller asks before that
    moment or after it (``pitui FILE`` starts the open before the app exists)."""
    import threading

    f = _awkward_file(tmp_path / "s.jsonl")
    seq = Session.open(f, validate=False)
    po = ParallelOpen(f, min_bytes=0, jobs=1, whole=True, use_cache=False)
    got: list[tuple] = []

    def on_tree(s: Session) -> None:
        got.append((s, "default" in po.layouts, s.path_to(s.leaf), threading.current_thread()))

    po.when_tree(on_tree)
    par = po.result()
    assert len(got) == 1
    s, had_layout, path, _ = got[0]
    assert s is par and not had_layout and path == seq.path_to(seq.leaf)
    # asked after the tree was loaded (by a background thread): called at once, here
    po = ParallelOpen(f, min_bytes=0, jobs=1, whole=True, use_cache=False)
    po.finish_in_background()
    for _ in range(3000):  # the background thread lays the tree out once it is loaded
        if "default" in po.layouts:
            break
        time.sleep(0.01)
    assert "default" in po.layouts
    got.clear()
    po.when_tree(on_tree)
    par = po.result()
    assert len(got) == 1 and got[0][0] is par and got[0][3] is threading.current_thread()
    _same(seq, par)
    # a hook that fails does not fail the open
    po = ParallelOpen(f, min_bytes=0, jobs=1, whole=True, use_cache=False)
    po.when_tree(lambda s: 1 / 0)
    _same(seq, po.result())
    # an open in parts has no such moment: not called
    got.clear()
    po = ParallelOpen(f, min_bytes=0, part_min=1, jobs=2)
    po.when_tree(on_tree)
    _same(seq, po.result())
    assert got == []


def test_a_streamed_session_reads_on_and_copies_before_its_children_are_made(tmp_path):
    """The children lists of a session that crossed from a worker are made when first
    asked for; a snapshot or a refresh before that still sees the whole tree."""
    f = _awkward_file(tmp_path / "s.jsonl", partial_tail=True)
    po = ParallelOpen(f, min_bytes=0, jobs=1, whole=True, use_cache=False)
    par = po.result()
    layout = po.layout(par, "default")
    want = layout_tree(Session.open(f, validate=False), "default")
    again = type(layout).from_state(layout.to_state())  # (its children not made: passed on packed)
    assert again.visible_children == layout.visible_children == want.visible_children
    snap = par.snapshot()  # (no children asked for yet)
    with open(f, "ab") as out:
        out.write(b"\n" + line(user("e999", "e120", 201, text="appended")).encode() + b"\n")
    snap.refresh()
    par.adopt(snap)
    _same(Session.open(f, validate=False), par)
    want = layout_tree(Session.open(f, validate=False), "default")
    assert list(layout_tree(par, "default").rows) == list(want.rows)


_FORK_SCRIPT = r'''
import os, sys, threading
sys.path[:0] = sys.argv[1].split(os.pathsep)
from test_open_parallel import _awkward_file, _same
from pathlib import Path
from pitui.core.open import parallel as open_parallel
from pitui.core.open.parallel import ParallelOpen, _ForkedWorker
from pitui.core.read.session import Session

sys.stdout.write("said once ")  # left in this process's buffer: the child must not write it too
tmp = Path(sys.argv[2])
f = _awkward_file(tmp / "s.jsonl", partial_tail=True)
seq = Session.open(f, validate=False)
open_parallel.STREAM_CHUNK_BYTES = 300
open_parallel.PARALLEL_MIN_BYTES = 0
# prestart's way: one streaming worker, forked (no other thread runs yet), which then
# saves the skeleton (slowly here): the session is handed over without waiting for that
from pitui.core.open import scan_worker
saving = threading.Event()
# private (here and below): the child's saving, the open's thread that waits for its child
# and the fork itself are process plumbing with no public face
scan_worker._save = lambda s, layout=None: saving.wait(5)  # (in the child: never set)
open_parallel.prestart(f)
opening = open_parallel.start(f)
(worker,) = opening.workers
assert isinstance(worker, _ForkedWorker), worker
s = opening.result()
assert worker.poll() is None  # still saving
_same(seq, s)
from pitui.core.model.layout import layout_tree
assert list(opening.layouts["default"].rows) == list(layout_tree(seq, "default").rows)
opening._thread.join(30)  # the open's thread waits for its child once the session is in
assert not opening._thread.is_alive()
assert worker.returncode == 0, worker.returncode
# parts on several forked workers
po = ParallelOpen(f, min_bytes=0, part_min=1, jobs=3, use_cache=False, fork=True)
assert len(po.workers) == 3 and all(isinstance(p, _ForkedWorker) for p in po.workers)
_same(seq, po.result())
assert all(p.wait() == 0 for p in po.workers)
# a forked worker killed midway: read again the usual way (the child stalls before it
# answers, so the kill always lands while it works, however busy the machine)
import time
real_main = scan_worker.main
scan_worker.main = lambda args: time.sleep(60) or 0
po = ParallelOpen(f, min_bytes=0, jobs=1, whole=True, use_cache=False, fork=True)
scan_worker.main = real_main
po.workers[0].kill()
_same(seq, po.result())
assert po.workers[0].wait() == -9
# a saved skeleton: the worker is forked first, then stopped (and waited for) at once
from pitui.core.open import skeleton_cache
assert skeleton_cache.save(seq, layout_tree(seq, "default"))
forked = []
real_fork = open_parallel._fork_worker
open_parallel._fork_worker = lambda *a: forked.append(real_fork(*a)) or forked[-1]
po = ParallelOpen(f, min_bytes=0, jobs=1, whole=True, fork=True)
open_parallel._fork_worker = real_fork
assert len(forked) == 1 and forked[0].returncode == -9 and po.workers == [] and not po.whole
try:
    os.waitpid(forked[0].pid, os.WNOHANG)
    raise AssertionError("the stopped worker was not waited for")
except ChildProcessError:
    pass
got = po.result()
assert po.from_cache
_same(seq, got)
# once another thread runs, workers are started, not forked
stop = threading.Event()
t = threading.Thread(target=stop.wait)
t.start()
po = ParallelOpen(f, min_bytes=0, jobs=1, whole=True, use_cache=False, fork=True)
assert not isinstance(po.workers[0], _ForkedWorker)
_same(seq, po.result())
stop.set()
t.join()
print("ok")
'''


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux only")
def test_forked_workers_read_as_started_ones(tmp_path):
    """``pitui FILE`` forks its worker before it imports the interface (no second
    interpreter to start): the session, its layout and the fallbacks are those of started
    workers; the child writes nothing of its parent's, and is waited for. With a saved
    skeleton the worker, forked before the cache is looked at, is stopped and waited for
    at once, and the skeleton is read. In a fresh process, as ``pitui FILE`` is (forking
    is only done while no other thread runs)."""
    import subprocess

    tests_dirs = os.pathsep.join([os.path.dirname(os.path.abspath(__file__)), str(TESTS)])  # this module, helpers
    out = subprocess.run([sys.executable, "-c", _FORK_SCRIPT, tests_dirs, str(tmp_path)],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PITUI_CACHE_DIR": str(tmp_path / "cache")})
    assert out.returncode == 0, out.stderr
    assert out.stdout == "said once ok\n"


_APART_SCRIPT = r'''
import os, sys, threading, time
sys.path[:0] = sys.argv[1].split(os.pathsep)
from test_open_parallel import _awkward_file, _same
from pathlib import Path
from pitui.core.open import parallel as open_parallel
from pitui.core.open import scan_worker
from pitui.core.read.session import Session

def cores_of(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("Cpus_allowed_list:"):
            return line.split()[1]

def threads_cores():
    return {frozenset(os.sched_getaffinity(int(tid))) for tid in os.listdir("/proc/self/task")}

def until(done, seconds):
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.01)

tmp = Path(sys.argv[2])
f = _awkward_file(tmp / "s.jsonl")
seq = Session.open(f, validate=False)
open_parallel.PARALLEL_MIN_BYTES = 0
real_main = scan_worker.main
go = tmp / "go"


def held_main(args):
    # private: the child's work held back until the cores of each side are looked at
    until(go.exists, 60)
    return real_main(args)


scan_worker.main = held_main
allowed = frozenset(os.sched_getaffinity(0))
if sys.argv[3] == "one":  # a process given one core: nothing to keep apart
    allowed = frozenset((min(allowed),))
    os.sched_setaffinity(0, allowed)
open_parallel.prestart(f)
opening = open_parallel.prestarted()[str(f)]
(worker,) = opening.workers
want = str(max(allowed)) if len(allowed) > 1 else str(min(allowed))
until(lambda: cores_of(worker.pid) == want, 30)  # (the child sets its cores first thing, once it runs)
if len(allowed) > 1:
    # the worker on the last core, this process (the thread that forked it, and the
    # thread started since, which finishes the open) on the others
    assert cores_of(worker.pid) == str(max(allowed)), cores_of(worker.pid)
    assert threads_cores() == {allowed - {max(allowed)}}, threads_cores()
else:
    assert cores_of(worker.pid) == str(min(allowed)) and threads_cores() == {allowed}
started = threading.Event()
later = threading.Thread(target=started.wait)  # started while this process is kept apart
later.start()
go.touch()
_same(seq, open_parallel.start(f).result())
assert threads_cores() == {allowed}, threads_cores()  # every thread on every core again
started.set()
later.join()
# opened again, from its saved skeleton: the worker forked first is stopped at once, and
# the skeleton is loaded here on every core
from pitui.core.open import skeleton_cache
until(skeleton_cache.cache_file(f).exists, 30)
time.sleep(0.2)
open_parallel.prestart(f)
assert threads_cores() == {allowed}, threads_cores()
again = open_parallel.start(f)
_same(seq, again.result())
assert again.from_cache
print("ok")
'''


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs two cores and a way to choose them")
@pytest.mark.parametrize("cores", ["all", "one"])
def test_the_forked_worker_has_a_core_of_its_own_until_the_session_is_in(tmp_path, cores):
    """``pitui FILE``'s one forked worker runs on a core of its own and the starting
    interface on the others (neither takes the other's core: the worker is the later side
    of the open), and once the session is in every thread of the interface may run on
    every core again, those started meanwhile too; opened again from its saved skeleton,
    at once. A process given one core keeps it."""
    import subprocess

    tests_dirs = os.pathsep.join([os.path.dirname(os.path.abspath(__file__)), str(TESTS)])
    out = subprocess.run([sys.executable, "-c", _APART_SCRIPT, tests_dirs, str(tmp_path), cores],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PITUI_CACHE_DIR": str(tmp_path / "cache")})
    assert out.returncode == 0, out.stderr
    assert out.stdout == "ok\n"
