"""The sidebar's first screen comes from the listing index at once (issue 21): on a big
store, the newest rows show before the store is looked at, then the rest fill in."""

from __future__ import annotations

import threading

from helpers import HEADER, assistant, user, write
from pitui.core.store import listing
from pitui.core.store.discovery import resolve_root
from pitui.core.store.listing import SessionIndex, list_sessions


def _store(root, n: int):
    for k in range(n):
        folder = root / f"--home-u-p{k % 7}--"
        folder.mkdir(parents=True, exist_ok=True)
        # (each session one minute after the one before: a clear order by recency)
        objs = [user("e1", None, 60 * k + 1, f"question {k}"), assistant("e2", "e1", 60 * k + 2, f"answer {k}")]
        write(folder / f"2026-11-20T10-00-00-000Z_s{k:04d}.jsonl", objs, header={**HEADER, "id": f"sess-{k}"})


async def test_the_first_rows_show_from_the_index_before_the_store_is_listed(make_app, settle, tmp_path,
                                                                             monkeypatch):
    root = tmp_path / "sessions"
    _store(root, 260)
    cache = tmp_path / "cache"
    everything = list_sessions(resolve_root(str(root)), SessionIndex(cache))  # (an earlier run's index)
    newest = {i.path for i in everything[:listing_first_rows()]}

    # the store is looked at only when the test says so
    gate, looking = threading.Event(), threading.Event()
    real = listing.find_session_files

    def stalled(r):
        looking.set()
        assert gate.wait(30), "the test never let the listing go on"
        return real(r)

    monkeypatch.setattr(listing, "find_session_files", stalled)
    app = make_app(root, index=SessionIndex(cache))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            for _ in range(200):
                await pilot.pause(0.02)
                b = app.browser
                if looking.is_set() and b is not None and b.session_list.infos:
                    break
            b = app.browser
            assert looking.is_set() and not b.listing_done
            # the newest rows, as the index has them, while the store is not listed yet
            assert {i.path for i in b.session_list.infos} == newest
            assert b.session_list.items[1].key == everything[0].path  # (the newest first, under its project)
            # the filter works on them already
            b.session_list.set_query("question 259")
            await pilot.pause()
            assert [it.key for it in b.session_list.items if it.kind == "session"] == [everything[0].path]
            b.session_list.set_query("")
            gate.set()
            await settle(pilot)
            assert b.listing_done and len(b.infos) == 260 and b.session_list.session_count() == 260
    finally:
        gate.set()


def listing_first_rows() -> int:
    from pitui.ui.widgets.sidebar import Sidebar

    return Sidebar.FIRST_SCREEN_ROWS


async def test_rows_listed_while_the_user_types_wait_for_a_pause(make_app, settle, tmp_path, monkeypatch):
    """Rows the listing finds while the user types are not put in the sidebar under the
    keys (rebuilding its rows would hold the key up): the progress counts on, and they
    show once input pauses."""
    import time

    root = tmp_path / "sessions"
    _store(root, 30)
    everything = list_sessions(resolve_root(str(root)), None)
    gate = threading.Event()
    real = listing.find_session_files
    monkeypatch.setattr(listing, "find_session_files", lambda r: gate.wait(30) and real(r))
    app = make_app(root, index=SessionIndex(tmp_path / "cache"))  # (an empty index: no first rows)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.1)
            b = app.browser
            assert not b.listing_done and not b.session_list.infos
            sidebar = b.sidebar
            with sidebar._list_lock:  # (as the listing's worker hands them over)
                sidebar._list_buffer.extend(everything[:10])
                sidebar._list_progress = (10, 30)
            app.last_input_at = time.monotonic()  # (a key just now)
            sidebar._list_next_drain = 0.0
            sidebar._drain_listing()
            assert not b.session_list.infos and b.sidebar.progress == (10, 30)
            app.last_input_at = time.monotonic() - 1.0  # (input paused)
            sidebar._drain_listing()
            assert {i.path for i in b.session_list.infos} == {i.path for i in everything[:10]}
            assert b.sidebar.progress == (10, 30)
            gate.set()
            await settle(pilot)
            assert b.listing_done and b.session_list.session_count() == 30
    finally:
        gate.set()


async def test_a_listing_of_the_root_the_app_left_never_fills_the_sidebar(make_app, settle, tmp_path, monkeypatch):
    """The app moved to another root (the empty screen's "open the demo" does) while a
    listing of the root it left was still running: when that listing ends, its rows do not
    replace the new root's in the sidebar, nor does the late message of a listing that had
    already ended."""
    from pitui.ui.messages import ListingDone

    old_root, new_root = tmp_path / "old", tmp_path / "new"
    _store(old_root, 3)
    new_session = write(new_root / "--home-u-new--" / "2026-11-21T09-00-00-000Z_n.jsonl",
                        [user("e1", None, 1, "the new root's question")], header={**HEADER, "id": "sess-new"})
    hold, looking, gate = threading.Event(), threading.Event(), threading.Event()
    real = listing.find_session_files

    def stalled(r):
        if hold.is_set() and str(r.path) == str(old_root):
            looking.set()
            assert gate.wait(30), "the test never let the listing go on"
        return real(r)

    monkeypatch.setattr(listing, "find_session_files", stalled)
    app = make_app(old_root)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            b = app.browser
            old_paths = {i.path for i in b.session_list.infos}
            assert len(old_paths) == 3
            hold.set()
            b.relist_after_pi()  # (the sidebar listed again, as after Pi wrote a session)
            for _ in range(200):
                await pilot.pause(0.02)
                if looking.is_set():
                    break
            assert looking.is_set()
            app.switch_to_root(resolve_root(str(new_root)))
            for _ in range(300):
                await pilot.pause(0.02)
                if b.listing_done and b.session_path == str(new_session):
                    break
            assert {i.path for i in b.session_list.infos} == {str(new_session)}
            gate.set()  # the old root's listing ends now
            await settle(pilot)
            assert {i.path for i in b.session_list.infos} == {str(new_session)}
            assert b.session_path == str(new_session)
            b.post_message(ListingDone(resolve_root(str(old_root)), list_sessions(resolve_root(str(old_root)), None)))
            await settle(pilot)
            assert {i.path for i in b.session_list.infos} == {str(new_session)}
            assert b.session_path == str(new_session)
    finally:
        gate.set()
