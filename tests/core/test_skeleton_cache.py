"""A big session read once opens again from its saved skeleton, and reads on from there.

The saved skeleton must give exactly the session a fresh read gives: as saved, after Pi
appended to the file, and never for a file that was rewritten meanwhile."""

from __future__ import annotations

import os
import time

from helpers import header, line, user
from test_open_parallel import _awkward_file, _same

from pitui.core.open import skeleton_cache
from pitui.core.open.parallel import ParallelOpen
from pitui.core.read.session import Session
from pitui.core.model.layout import layout_tree


def _open(f, **kw) -> ParallelOpen:
    return ParallelOpen(f, min_bytes=0, jobs=1, whole=True, **kw)


def _wait_saved(f) -> None:
    deadline = time.monotonic() + 20
    while not skeleton_cache.cache_file(f).exists():
        assert time.monotonic() < deadline, "the worker saved no skeleton"
        time.sleep(0.02)
    time.sleep(0.05)


def _same_layout(a, b) -> None:
    assert list(a.rows) == list(b.rows) and a.row_of == b.row_of
    assert a.visible_parent == b.visible_parent and a.visible_children == b.visible_children


def test_a_second_open_loads_the_saved_skeleton(tmp_path):
    f = _awkward_file(tmp_path / "s.jsonl")
    before = (f.read_bytes(), f.stat().st_mtime_ns)
    first = _open(f)
    first.result()
    assert not first.from_cache
    _wait_saved(f)
    again = _open(f)
    s = again.result()
    assert again.from_cache
    seq = Session.open(f, validate=False)
    _same(seq, s)
    _same_layout(layout_tree(seq, "default"), again.layouts["default"])
    assert (f.read_bytes(), f.stat().st_mtime_ns) == before  # the session file is only read
    assert skeleton_cache.cache_file(f).parent == __import__("pathlib").Path(os.environ["PITUI_CACHE_DIR"]) / "skeletons"


def test_what_pi_appended_since_is_read_on(tmp_path):
    f = _awkward_file(tmp_path / "s.jsonl", partial_tail=True)
    s = Session.open(f, validate=False)
    assert skeleton_cache.save(s, layout_tree(s, "default"))
    with open(f, "ab") as out:
        out.write(b"\n" + line(user("later", "name2", 400)).encode() + b"\n")
    again = _open(f)
    got = again.result()
    assert again.from_cache
    _same(Session.open(f, validate=False), got)
    assert "default" not in again.layouts  # the tree changed: laid out afresh


def test_a_rewritten_file_is_read_afresh(tmp_path):
    f = _awkward_file(tmp_path / "s.jsonl")
    s = Session.open(f, validate=False)
    assert skeleton_cache.save(s, layout_tree(s, "default"))
    data = bytearray(f.read_bytes())
    k = data.rindex(b"question 119")
    data[k:k + 12] = b"QUESTION 119"  # same size, same inode, other bytes near the end
    with open(f, "r+b") as out:
        out.write(data)
    again = _open(f)
    got = again.result()
    assert not again.from_cache
    _same(Session.open(f, validate=False), got)
    # and a file replaced by another one (a new inode) is not taken for it either
    s = Session.open(f, validate=False)
    assert skeleton_cache.save(s)
    tmp = tmp_path / "new.jsonl"
    tmp.write_bytes(bytes(data))
    os.replace(tmp, f)
    assert skeleton_cache.load(f) is None


def test_a_damaged_cache_file_is_ignored(tmp_path):
    f = _awkward_file(tmp_path / "s.jsonl")
    target = skeleton_cache.cache_file(f)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"not a pickle at all")
    po = _open(f)
    _same(Session.open(f, validate=False), po.result())
    assert not po.from_cache


def test_only_the_newest_skeletons_are_kept(tmp_path):
    files = []
    for k in range(skeleton_cache.KEEP + 3):
        f = tmp_path / f"s{k}.jsonl"
        f.write_text(line(header(f"s{k}", "/", "2026-01-01T00:00:00Z")) + "\n" + line(user("a", None, 1)) + "\n")
        assert skeleton_cache.save(Session.open(f, validate=False))
        files.append(f)
        time.sleep(0.01)
    first = skeleton_cache.cache_file(files[0])
    kept = list(first.parent.glob("*" + first.suffix))
    assert len(kept) == skeleton_cache.KEEP
    assert skeleton_cache.cache_file(files[-1]).exists() and not skeleton_cache.cache_file(files[0]).exists()


def test_a_session_read_in_parts_is_saved_in_the_background(tmp_path):
    f = _awkward_file(tmp_path / "s.jsonl")
    po = ParallelOpen(f, min_bytes=0, part_min=1, jobs=3)
    assert po.parallel and not po.whole
    po.result()
    _wait_saved(f)
    again = _open(f)
    _same(Session.open(f, validate=False), again.result())
    assert again.from_cache
