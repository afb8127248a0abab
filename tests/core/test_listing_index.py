"""The listing index (issue 21, listing at ten times the size): a warm list prints the rows
of unchanged files from their stored output, and is exactly the list made from the files."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import HEADER, assistant, line, read_listing_index, user, write
from pitui.core.store import listing, listing_index, listing_rows, listing_scan
from pitui.core.store.discovery import resolve_root
from pitui.core.store.listing import INDEX_VERSION, SessionIndex, list_json, list_sessions


def _session(folder: Path, k: int, turns: int = 3, text: str = "") -> Path:
    objs, prev = [], None
    for m in range(1, 2 * turns + 1):
        eid = f"e{m}"
        objs.append(user(eid, prev, k * 10 + m, f"{text}question {k}.{m} «ü»") if m % 2
                    else assistant(eid, prev, k * 10 + m, f"answer {k}.{m}"))
        prev = eid
    folder.mkdir(parents=True, exist_ok=True)
    return write(folder / f"2026-11-20T10-00-{k:02d}-000Z_s{k}.jsonl", objs, header={**HEADER, "id": f"sess-{k}"})


@pytest.fixture
def store(tmp_path):
    root = tmp_path / "sessions"
    for k in range(12):
        _session(root / f"--home-u-p{k % 3}--", k, text="x" * (700 if k == 4 else 0))
    (root / "--home-u-p0--" / "broken.jsonl").write_text("not json\n")
    sub = root / "--home-u-p1--" / "subagent-artifacts"
    _session(sub, 40)
    return root


def _old_way(root: Path) -> bytes:
    """The list as `pitui list --json` made it before the index kept outputs."""
    infos = list_sessions(resolve_root(str(root)), None)
    return orjson.dumps([i.to_pi_json() for i in infos], option=orjson.OPT_INDENT_2)


def test_cold_warm_and_without_index_are_the_same_list(store, tmp_path):
    r = resolve_root(str(store))
    want = _old_way(store)
    cold = list_json(r, SessionIndex(tmp_path / "c"))
    assert cold == want
    warm_index = SessionIndex(tmp_path / "c")
    assert warm_index.load_error is None and len(warm_index._recs) == 14
    assert list_json(r, warm_index) == want
    assert list_json(r, None) == want
    # the rows the app and the search get, decoded from the index, are the files' rows
    fresh = list_sessions(r, None)
    assert list_sessions(r, SessionIndex(tmp_path / "c")) == fresh
    assert [i.path for i in fresh] == [o["path"] for o in orjson.loads(want)]


def test_the_worker_processes_give_the_same_list(store, tmp_path, monkeypatch):
    monkeypatch.setattr(listing, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(listing, "PARALLEL_MIN_BYTES", 0)
    r = resolve_root(str(store))
    assert list_json(r, SessionIndex(tmp_path / "c"), workers=2) == _old_way(store)
    assert list_sessions(r, SessionIndex(tmp_path / "c")) == list_sessions(r, None)
    again = SessionIndex(tmp_path / "d")
    assert list_sessions(r, again, workers=2) == list_sessions(r, None)


def _change(store: Path, how: str) -> None:
    p = store / "--home-u-p1--" / "2026-11-20T10-00-01-000Z_s1.jsonl"
    if how == "grown":
        with open(p, "a") as f:
            f.write(orjson.dumps(user("e99", "e6", 500, "a later question")).decode() + "\n")
    elif how == "removed":
        p.unlink()
    elif how == "added":
        _session(store / "--home-u-p9--", 77)
    elif how == "renamed":
        p.rename(p.with_name("2026-11-20T10-00-01-000Z_renamed.jsonl"))
    elif how == "moved to another project":
        (store / "--home-u-p7--").mkdir()
        p.rename(store / "--home-u-p7--" / p.name)
    elif how == "rewritten":
        write(p, [user("u1", None, 3, "all new")], header={**HEADER, "id": "sess-new"})
    elif how == "touched":
        os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 10**9))


@pytest.mark.parametrize("how", ["grown", "removed", "added", "renamed", "moved to another project", "rewritten",
                                 "touched"])
def test_a_changed_store_lists_as_the_files_say(store, tmp_path, how):
    r = resolve_root(str(store))
    list_json(r, SessionIndex(tmp_path / "c"))
    _change(store, how)
    assert list_json(r, SessionIndex(tmp_path / "c")) == _old_way(store)
    assert list_json(r, SessionIndex(tmp_path / "c")) == _old_way(store)  # (and saved so)
    assert list_sessions(r, SessionIndex(tmp_path / "c")) == list_sessions(r, None)


def test_sessions_last_active_at_the_same_moment_list_in_one_order_cold_warm_and_changed(tmp_path):
    """Sessions whose last activity is the same second: newest first as always, then by
    file name (last first), then by path, whether the list is made from the files, from the
    index, or from the index with a few changed files put in their places."""
    root = tmp_path / "sessions"

    def session(project: str, name: str, last: int) -> Path:
        return write(root / project / f"{name}.jsonl",
                     [user("u1", None, 1, f"about {name}"), assistant("a1", "u1", last, "done")],
                     header={**HEADER, "id": name})

    session("--home-u-p0--", "2026-11-20T09-00-00-000Z_a", 100)
    session("--home-u-p0--", "2026-11-20T11-00-00-000Z_c", 100)
    session("--home-u-p1--", "2026-11-20T10-00-00-000Z_b", 100)
    session("--home-u-p1--", "2026-11-20T11-00-00-000Z_c", 100)  # (the same name in another project)
    session("--home-u-p1--", "2026-11-20T08-00-00-000Z_new", 200)
    session("--home-u-p0--", "2026-11-20T10-30-00-000Z_old", 50)
    r = resolve_root(str(root))

    def order(listed: bytes) -> list[str]:
        return [o["path"].split("/sessions/")[1] for o in orjson.loads(listed)]

    tied = ["--home-u-p0--/2026-11-20T11-00-00-000Z_c.jsonl", "--home-u-p1--/2026-11-20T11-00-00-000Z_c.jsonl",
            "--home-u-p1--/2026-11-20T10-00-00-000Z_b.jsonl", "--home-u-p0--/2026-11-20T09-00-00-000Z_a.jsonl"]
    want = ["--home-u-p1--/2026-11-20T08-00-00-000Z_new.jsonl", *tied, "--home-u-p0--/2026-11-20T10-30-00-000Z_old.jsonl"]
    assert order(list_json(r, SessionIndex(tmp_path / "c"))) == want  # cold
    assert order(list_json(r, SessionIndex(tmp_path / "c"))) == want  # warm
    # two sessions change: one stays at that second, the older one reaches it
    with open(root / "--home-u-p0--" / "2026-11-20T09-00-00-000Z_a.jsonl", "a") as f:
        f.write(line(user("u2", "a1", 100, "one more, the same second")) + "\n")
    with open(root / "--home-u-p0--" / "2026-11-20T10-30-00-000Z_old.jsonl", "a") as f:
        f.write(line(user("u2", "a1", 100, "back to it")) + "\n")
    want = ["--home-u-p1--/2026-11-20T08-00-00-000Z_new.jsonl", *tied[:2], "--home-u-p0--/2026-11-20T10-30-00-000Z_old.jsonl",
            *tied[2:]]
    for _ in range(2):  # (the changed files put in their places; the index not rewritten)
        assert order(list_json(r, SessionIndex(tmp_path / "c"))) == want
    assert order(_old_way(root)) == want
    assert [i.path for i in list_sessions(r, SessionIndex(tmp_path / "c"))] == [str(root / p) for p in want]
    assert order(list_json(r, SessionIndex(tmp_path / "fresh"))) == want


def test_a_grown_file_is_read_from_where_the_index_stopped(store, tmp_path, monkeypatch):
    r = resolve_root(str(store))
    list_json(r, SessionIndex(tmp_path / "c"))
    _change(store, "grown")
    starts = []
    real = listing_scan.iter_line_blocks
    monkeypatch.setattr(listing_scan, "iter_line_blocks", lambda f, start=0, *a, **k: starts.append(start) or real(f, start, *a, **k))
    out = orjson.loads(list_json(r, SessionIndex(tmp_path / "c")))
    assert len(starts) == 1 and starts[0] > 0
    grown = next(o for o in out if o["path"].endswith("_s1.jsonl"))
    assert grown["messageCount"] == 7


def test_the_index_is_kept_in_the_lists_order(store, tmp_path):
    r = resolve_root(str(store))
    want = [o["path"] for o in orjson.loads(list_json(r, SessionIndex(tmp_path / "c")))]
    cols, _, _ = read_listing_index(tmp_path / "c")
    assert cols["path"] == want  # (so a warm list where nothing changed needs no sorting)


def test_an_older_index_is_deleted_and_another_version_rebuilt(store, tmp_path):
    cache = tmp_path / "c"
    cache.mkdir(mode=0o700)
    (cache / "index-v7.json").write_bytes(b'{"version": 7, "rows": []}')
    (cache / f"index-v{INDEX_VERSION}.bin").write_bytes(b"pitui-listing 99\n0 0 0\n")  # (a later version's)
    index = SessionIndex(cache)
    assert index.load_error is None and index._recs == {}
    list_json(resolve_root(str(store)), index)
    assert sorted(p.name for p in cache.iterdir()) == [f"index-v{INDEX_VERSION}.bin"]
    assert len(SessionIndex(cache)._recs) == 14


def test_the_first_rows_by_recency_come_from_the_index_alone(store, tmp_path):
    r = resolve_root(str(store))
    full = list_sessions(r, SessionIndex(tmp_path / "c"))
    index = SessionIndex(tmp_path / "c")
    assert index.recent(r, 5) == full[:5]
    one = resolve_root(str(store / "--home-u-p2--"))
    assert [i.path for i in index.recent(one, 100)] == [i.path for i in full if "--home-u-p2--" in i.path]
    assert SessionIndex(tmp_path / "empty").recent(r, 5) == []
    # read from the file's rows one by one, or from the rows all made: the same
    index = SessionIndex(tmp_path / "c")
    assert index._table is not None
    first = index.recent(r, 7)
    assert index._recs and index._table is None
    assert first == index.recent(r, 7) == full[:7]


def _many(tmp_path) -> Path:
    store = tmp_path / "sessions"
    for k in range(40):
        _session(store / f"--home-u-p{k % 3}--", k)
    # (same times and names in two projects: the order falls to the file name, then the path)
    _session(store / "--home-u-p8--", 5)
    _session(store / "--home-u-p9--", 5)
    return store


def _index_file(cache: Path) -> bytes:
    return (cache / f"index-v{INDEX_VERSION}.bin").read_bytes()


@pytest.mark.parametrize("how", ["grown", "removed", "added", "rewritten", "touched"])
def test_a_few_changed_files_are_read_without_rewriting_the_index(tmp_path, how, monkeypatch):
    """Many files, one changed: a warm list reads that one (a grown file from where its row
    stopped) and puts it in its place among the stored outputs, and leaves the index file as
    it was (rewriting it costs what the whole warm list does). Once changes add up past the
    bounds, the list is made row by row and the index saved, in the list's order."""
    store = _many(tmp_path)
    r, cache = resolve_root(str(store)), tmp_path / "c"
    list_json(r, SessionIndex(cache))
    saved = _index_file(cache)
    _change(store, how)
    for _ in range(2):  # (the second list reads the changed file again)
        assert list_json(r, SessionIndex(cache)) == _old_way(store)
        assert _index_file(cache) == saved
    assert list_sessions(r, SessionIndex(cache)) == list_sessions(r, None)  # (the app's list saves it)
    assert _index_file(cache) != saved
    cols, _, _ = read_listing_index(cache)
    assert cols["path"] == [o["path"] for o in orjson.loads(_old_way(store))]
    assert list_json(r, SessionIndex(cache)) == _old_way(store)


def test_changes_past_the_bounds_are_saved(tmp_path, monkeypatch):
    store = _many(tmp_path)
    r, cache = resolve_root(str(store)), tmp_path / "c"
    list_json(r, SessionIndex(cache))
    saved = _index_file(cache)
    monkeypatch.setattr(listing_index, "STALE_FILES", 1)
    _change(store, "added")
    assert list_json(r, SessionIndex(cache)) == _old_way(store) and _index_file(cache) == saved
    _change(store, "grown")  # (two files now)
    assert list_json(r, SessionIndex(cache)) == _old_way(store)
    cols, _, _ = read_listing_index(cache)
    assert cols["path"] == [o["path"] for o in orjson.loads(_old_way(store))]
    # and bytes: a file grown by more than STALE_BYTES is saved at once
    saved = _index_file(cache)
    monkeypatch.setattr(listing_index, "STALE_BYTES", 100)
    _change(store, "grown")
    assert list_json(r, SessionIndex(cache)) == _old_way(store) and _index_file(cache) != saved
    saved = _index_file(cache)
    assert list_json(r, SessionIndex(cache)) == _old_way(store) and _index_file(cache) == saved


def test_a_file_listed_under_another_folder_kind(store, tmp_path):
    """A subagent transcript listed from the tree (its project, kind subagent), then from
    its own folder (a project folder of its own: a session), then from the tree again: each
    list as the files say, the index's row read as relabelled (the file not read again)."""
    cache = tmp_path / "c"
    tree, alone = resolve_root(str(store)), resolve_root(str(store / "--home-u-p1--" / "subagent-artifacts"))
    list_json(tree, SessionIndex(cache))
    saved = _index_file(cache)
    for r in (alone, tree, alone):
        assert list_json(r, SessionIndex(cache)) == _old_way(r.path)
    assert _index_file(cache) == saved
    [row] = orjson.loads(list_json(alone, SessionIndex(cache)))
    assert row["cwd"] and row["path"].endswith("_s40.jsonl")


def test_a_hostile_index_with_a_row_twice_is_listed_as_the_files_say(store, tmp_path):
    from helpers import write_listing_index

    r = resolve_root(str(store))
    list_json(r, SessionIndex(tmp_path / "c"))
    cols, rows, frags = read_listing_index(tmp_path / "c")
    cols = {k: v + v[:1] for k, v in cols.items()}
    write_listing_index(tmp_path / "c", cols, rows + rows[:1], frags + frags[:1])
    _change(store, "grown")
    assert list_json(r, SessionIndex(tmp_path / "c")) == _old_way(store)


_OPS = st.lists(st.tuples(st.sampled_from(["grow", "touch", "remove", "add", "rewrite", "damage"]),
                          st.integers(0, 15), st.integers(0, 60)), max_size=6)


@settings(max_examples=25, deadline=None)
@given(ops=_OPS, bound=st.sampled_from([0, 2, 32]))
def test_any_few_changes_list_as_the_files_say(ops, bound):
    """Whatever a few changes since the index was saved (files grown with later or earlier
    times, touched, removed, added, rewritten; ties in time), a warm list is the list made
    from the files, whether the changes are read on top of the index or saved."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        store = tmp_path / "sessions"
        paths = [_session(store / f"--home-u-p{k % 3}--", k % 7) if k < 7 else
                 _session(store / f"--home-u-p{k % 4}x--", k, turns=1) for k in range(16)]
        r, cache = resolve_root(str(store)), tmp_path / "c"
        list_json(r, SessionIndex(cache))
        old = listing_index.STALE_FILES
        listing_index.STALE_FILES = bound
        try:
            for op, k, n in ops:
                p = paths[k]
                if op == "grow" and p.exists():
                    with open(p, "a") as f:
                        f.write(orjson.dumps(user(f"g{n}", "e2", n, f"later {n}")).decode() + "\n")
                elif op == "touch" and p.exists():
                    os.utime(p, ns=(0, p.stat().st_mtime_ns + n + 1))
                elif op == "remove" and p.exists():
                    p.unlink()
                elif op == "add":
                    _session(store / f"--home-u-p{n % 5}--", 100 + n, turns=1 + n % 3)
                elif op == "rewrite":
                    write(p, [user("u1", None, n, "all new")], header={**HEADER, "id": f"new-{n}"})
                elif op == "damage" and p.exists():
                    with open(p, "ab") as f:
                        f.write(b"{not json\n")
                assert list_json(r, SessionIndex(cache)) == _old_way(store)
        finally:
            listing_index.STALE_FILES = old


def test_a_small_files_fingerprint_from_its_bytes_is_the_files(tmp_path):
    """A small file's scan reads it whole once and makes its fingerprint from those bytes:
    the same one a later check makes from the file (or a file that grew would be read again
    from its start, or worse, read on from a wrong place)."""
    from pitui.core.read.lines import FINGERPRINT_BYTES, bytes_fingerprint, file_fingerprint

    data = bytes(range(256)) * 100
    f = tmp_path / "f"
    f.write_bytes(data)
    for upto in (1, 100, FINGERPRINT_BYTES, FINGERPRINT_BYTES + 1, 2 * FINGERPRINT_BYTES + 7, len(data)):
        assert bytes_fingerprint(data, upto) == file_fingerprint(f, upto)


def test_a_hostile_stored_output_with_worker_processes(store, tmp_path, monkeypatch):
    """The list made again from the files after a stored output is found hostile, its
    files scanned by the worker processes: the same list."""
    from helpers import write_listing_index

    monkeypatch.setattr(listing, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(listing, "PARALLEL_MIN_BYTES", 0)
    r = resolve_root(str(store))
    list_json(r, SessionIndex(tmp_path / "c"), workers=2)
    cols, rows, frags = read_listing_index(tmp_path / "c")
    frags[3] = frags[3].replace(b'"cwd": "', b'"cwd": "\x1b]0;x\x07', 1)
    write_listing_index(tmp_path / "c", cols, rows, frags)
    assert list_json(r, SessionIndex(tmp_path / "c"), workers=2) == _old_way(store)
    # and each row decoded once, kept with its row in the index
    index = SessionIndex(tmp_path / "c")
    infos = list_sessions(r, index)
    assert all(index._recs[i.path].info is i for i in infos)


def test_one_index_for_several_roots_lists_each_as_its_files_say(store, tmp_path):
    """The index holds the rows of every root listed with it: a warm list of one root prints
    its own rows only, in the list's order, and a file listed under another project folder
    (a flat root gives none) is listed with the one its root gives."""
    tree = resolve_root(str(store))
    project = resolve_root(str(store / "--home-u-p1--"))
    flat = resolve_root(None, session_dir=str(store / "--home-u-p2--"))
    for _ in range(2):  # (cold, then warm)
        for r in (tree, project, flat, tree):
            want = orjson.dumps([i.to_pi_json() for i in list_sessions(r, None)], option=orjson.OPT_INDENT_2)
            assert list_json(r, SessionIndex(tmp_path / "c")) == want


def test_a_row_twice_in_a_hostile_index_is_listed_once(store, tmp_path):
    from helpers import write_listing_index

    r = resolve_root(str(store))
    want = list_json(r, SessionIndex(tmp_path / "c"))
    cols, rows, frags = read_listing_index(tmp_path / "c")
    cols = {k: v + v[:1] for k, v in cols.items()}
    write_listing_index(tmp_path / "c", cols, rows + rows[:1], frags + frags[:1])
    assert list_json(r, SessionIndex(tmp_path / "c")) == want
    assert list_json(r, SessionIndex(tmp_path / "c")) == want


def test_a_row_is_checked_whatever_rows_were_checked_before(store, tmp_path):
    """Rows are checked by their fields' types, those of rows already seen by one lookup: a
    row with a known set of types whose list holds a number, or with one field's type
    changed, is still not a session's."""
    r = resolve_root(str(store))
    list_json(r, SessionIndex(tmp_path / "c"))
    _, rows, _ = read_listing_index(tmp_path / "c")
    good = rows[0]
    row = orjson.dumps([good.get(k) for k in listing_rows.FIELDS])
    assert isinstance(listing_rows.info_of_row(row), listing.SessionInfo)
    for bad, why in [({"subagent_transcripts": [1]}, "subagent_transcripts holds a value that is not a string"),
                     ({"message_count": "7"}, "message_count is str"),
                     ({"extra": []}, "extra is list")]:
        got = listing_rows.info_of_row(orjson.dumps([{**good, **bad}.get(k) for k in listing_rows.FIELDS]))
        assert got == f"{why} in a row"
    assert isinstance(listing_rows.info_of_row(row), listing.SessionInfo)
