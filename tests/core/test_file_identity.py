"""Is it still the same file? Device, inode, size and mtime say so, everywhere pitui asks:
a file replaced by another one of the same size and mtime is noticed, and bytes of the new
file are never shown as an entry of the old one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers import assistant, user, write
from pitui.core.open import skeleton_cache
from pitui.core.store.discovery import resolve_root
from pitui.core.store.listing import SessionIndex, list_sessions
from pitui.core.open.parallel import ParallelOpen
from pitui.core.store.search import search
from pitui.core.read.session import FileChanged, Session
from pitui.ui.browser.follower import FileFollower

SIZE = (120, 40)


def _rows(word: str, n: int = 12) -> list[dict]:
    out, prev = [], None
    for k in range(n):
        eid = f"e{k:02d}"
        out.append(user(eid, prev, k, f"{word} question {k}") if k % 2 == 0
                   else assistant(eid, prev, k, f"{word} answer {k}"))
        prev = eid
    return out


def _session(folder: Path, word: str = "alpha") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write(folder / "2026-11-20T10-00-00-000Z_sess-1.jsonl", _rows(word))


def _replace_keeping_size_and_mtime(f: Path, word: str) -> None:
    """Another file (a new inode) takes ``f``'s name, with the same size and mtime."""
    st = f.stat()
    new = f.with_name("new.tmp")
    write(new, _rows(word))
    assert new.stat().st_size == st.st_size and word != "alpha" and len(word) == len("alpha")
    os.utime(new, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(new, f)
    after = f.stat()
    assert (after.st_size, after.st_mtime_ns) == (st.st_size, st.st_mtime_ns) and after.st_ino != st.st_ino


# ---------------------------------------------------------------------------- core


def test_a_session_notices_another_file_of_the_same_size_and_mtime(tmp_path):
    f = _session(tmp_path / "p")
    s = Session.open(f)
    _replace_keeping_size_and_mtime(f, "omega")
    # never the new file's bytes under the old entries
    with pytest.raises(FileChanged):
        s.raw_line(3)
    e = s.entry(3)
    assert "omega" not in str(e) and "replaced" in e["pituiError"]
    # and a refresh reads the new file from the start
    assert s.refresh() == 12
    assert s.message(3)["content"][0]["text"] == "omega answer 3"


def test_a_file_rewritten_in_place_is_read_again(tmp_path):
    """Same inode and size, new mtime: bytes may have changed anywhere."""
    f = _session(tmp_path / "p")
    s = Session.open(f)
    data = f.read_bytes().replace(b"alpha question 2", b"ALPHA QUESTION 2")
    with open(f, "r+b") as out:
        out.write(data)
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000_000))
    assert s.refresh() == 12
    assert s.message(2)["content"] == "ALPHA QUESTION 2"


def test_a_saved_skeleton_is_not_used_for_a_file_rewritten_in_place(tmp_path):
    f = write(tmp_path / "s.jsonl", _rows("alpha", 120))
    s = Session.open(f, validate=False)
    assert skeleton_cache.save(s)
    data = f.read_bytes().replace(b"alpha question 2", b"ALPHA QUESTION 2")  # (far from the end)
    with open(f, "r+b") as out:
        out.write(data)
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000_000))
    assert skeleton_cache.load(f) is None
    po = ParallelOpen(f, min_bytes=0, jobs=1, whole=True)
    got = po.result()
    assert not po.from_cache and got.message(2)["content"] == "ALPHA QUESTION 2"


def test_a_listing_row_is_fresh_only_for_the_same_file(tmp_path):
    f = _session(tmp_path / "sessions" / "--p--")
    (info,) = list_sessions(resolve_root(f.parent.parent), SessionIndex(tmp_path / "cache"))
    assert info.first_message == "alpha question 0"
    _replace_keeping_size_and_mtime(f, "omega")
    (info,) = list_sessions(resolve_root(f.parent.parent), SessionIndex(tmp_path / "cache"))
    assert info.first_message == "omega question 0"


def test_a_search_index_entry_is_fresh_only_for_the_same_file(tmp_path):
    f = _session(tmp_path / "sessions" / "--p--")
    root, idx = resolve_root(f.parent.parent), tmp_path / "idx"
    assert [h.path for h in search(root, "alpha", index_dir=idx)] == [str(f)]
    _replace_keeping_size_and_mtime(f, "omega")
    assert list(search(root, "alpha", index_dir=idx)) == []
    assert [h.path for h in search(root, "omega", index_dir=idx)] == [str(f)]


# ---------------------------------------------------------------------------- the app


async def _wait_for(pilot, cond, rounds: int = 200) -> None:
    for _ in range(rounds):
        if cond():
            return
        await pilot.pause(0.02)
    assert cond()


async def test_the_app_reads_again_a_file_replaced_by_one_of_the_same_size_and_mtime(
        make_app, settle, tmp_path, monkeypatch, notes):
    monkeypatch.setattr(FileFollower, "WATCH_SECONDS", 0.1)
    f = _session(tmp_path / "sessions" / "--p--")
    app = make_app(f)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = app.browser
        old = b.session
        _replace_keeping_size_and_mtime(f, "omega")
        await _wait_for(pilot, lambda: b.session is not old and b.session is not None)
        await settle(pilot)
        assert b.session.message(3)["content"][0]["text"] == "omega answer 3"
        assert any("replaced" in n for n in notes)


async def test_e_never_shows_the_new_files_bytes_under_an_old_entry(make_app, settle, tmp_path, monkeypatch, notes):
    """``e`` pressed before the watch notices: the pager never gets the new file's line."""
    import contextlib

    from pitui.ui.browser import copy_export

    monkeypatch.setattr(FileFollower, "WATCH_SECONDS", 3600.0)
    shown: list[str] = []
    monkeypatch.setattr(copy_export.subprocess, "call", lambda cmd: shown.append(Path(cmd[-1]).read_text()))
    monkeypatch.setenv("PAGER", "less")
    f = _session(tmp_path / "sessions" / "--p--")
    app = make_app(f)
    async with app.run_test(size=SIZE) as pilot:
        monkeypatch.setattr(app, "suspend", contextlib.nullcontext)
        await settle(pilot)
        b = app.browser
        await pilot.press("e")
        await settle(pilot)
        assert len(shown) == 1 and "alpha answer 11" in shown[0]
        old = b.session
        _replace_keeping_size_and_mtime(f, "omega")
        await pilot.press("up", "e")
        await settle(pilot)
        assert all("omega" not in text for text in shown)
        # it said so and read the file again
        assert any("replaced" in n for n in notes)
        await _wait_for(pilot, lambda: b.session is not old and b.session is not None)
        await settle(pilot)
        await pilot.press("e")
        await settle(pilot)
        assert "omega" in shown[-1] and "alpha" not in shown[-1]
