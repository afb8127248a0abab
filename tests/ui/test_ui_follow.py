"""Following a session Pi is writing, in the app: a writer appends in random-sized chunks
(half lines included) while the app watches the file. The tree ends with exactly the
entries written, in order; the selection stays where the user put it (or, with ``F``,
on the newest entry); new session files appear in the sidebar."""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import pytest

from helpers import HEADER, app_screen_text, assistant, line, user
from pitui.ui.app import PituiApp
from pitui.ui.browser.follower import FileFollower
from pitui.ui.widgets.sidebar import Sidebar
from pitui.ui.browser.screen import BrowserScreen

SIZE = (160, 45)


@pytest.fixture(autouse=True)
def fast_watch(monkeypatch):
    monkeypatch.setattr(FileFollower, "WATCH_SECONDS", 0.1)
    monkeypatch.setattr(Sidebar, "RELIST_SECONDS", 0.3)


def chain(start: int, stop: int) -> list[dict]:
    out = []
    for i in range(start, stop):
        parent = f"e{i - 1}" if i else None
        out.append(user(f"e{i}", parent, i, f"message {i}") if i % 2 == 0 else assistant(f"e{i}", parent, i, f"reply {i}"))
    return out


def session_file(tmp_path: Path, n: int) -> Path:
    proj = tmp_path / "sessions" / "--home-u-proj--"
    proj.mkdir(parents=True)
    f = proj / "2026-11-20T10-00-00-000Z_sess-1.jsonl"
    f.write_text(line(HEADER) + "\n" + "".join(line(o) + "\n" for o in chain(0, n)), encoding="utf-8")
    return f


class Writer(threading.Thread):
    """Appends ``data`` to ``path`` in random chunks (1 byte to a few lines), pausing now and then."""

    def __init__(self, path: Path, data: bytes, seed: int) -> None:
        super().__init__(daemon=True)
        self.path, self.data, self.rnd = path, data, random.Random(seed)

    def run(self) -> None:
        pos = 0
        with open(self.path, "ab", buffering=0) as f:
            while pos < len(self.data):
                n = self.rnd.choice([1, 3, 17, 60, 200, 900])
                f.write(self.data[pos : pos + n])
                pos += n
                time.sleep(self.rnd.choice([0, 0.002, 0.01, 0.03]))


def browser(app: PituiApp) -> BrowserScreen:
    b = app.browser
    assert b is not None
    return b


def row_ids(b: BrowserScreen) -> list[str]:
    s, layout = b.session, b.branch_tree.tree_layout
    assert s is not None and layout is not None
    return [s.ids[r.entry] for r in layout.rows]


async def wait_for(pilot, cond, timeout: float = 10.0) -> float:
    start = time.monotonic()
    while not cond():
        if time.monotonic() - start > timeout:
            raise AssertionError("timed out")
        await pilot.pause(0.05)
    return time.monotonic() - start


def selected_id(b: BrowserScreen) -> str:
    assert b.session is not None
    return b.session.ids[b.branch_tree.selected_entry]


@pytest.mark.parametrize("seed", [1, 2])
async def test_growth_keeps_the_selection_and_the_view(make_app, settle, tmp_path, seed):
    f = session_file(tmp_path, 30)
    app = make_app(f)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        assert selected_id(b) == "e29"
        for _ in range(5):
            await pilot.press("up")
        await settle(pilot)
        assert selected_id(b) == "e24"
        tree = b.branch_tree
        screen_line = tree.cursor_row - round(tree.scroll_y)
        data = "".join(line(o) + "\n" for o in chain(30, 150)).encode()
        writer = Writer(f, data, seed)
        writer.start()
        while writer.is_alive():
            await pilot.pause(0.05)
            # never a half-read entry, never a duplicate, the selection never moves
            ids = row_ids(b)
            assert ids == [f"e{i}" for i in range(len(ids))]
            assert selected_id(b) == "e24"
        await wait_for(pilot, lambda: len(row_ids(b)) == 150)  # (speed is for benchmarks/)
        await settle(pilot)
        assert row_ids(b) == [f"e{i}" for i in range(150)]
        assert selected_id(b) == "e24"
        assert tree.cursor_row - round(tree.scroll_y) == screen_line  # no jump
        assert not b.following
        # the pane shows the grown branch (the user is on it): it ends at the new leaf
        s = b.session
        assert s is not None and b.pane.branch[-1] == s.index_of["e149"]
        # the header counts the grown branch
        usage = str(b.query_one("#header-usage").render())
        assert usage.endswith(f" · {len(s.path_to(s.index_of['e149']))}/{len(s)} entries"), usage


async def test_follow_keeps_the_newest_entry_selected(make_app, settle, tmp_path):
    f = session_file(tmp_path, 10)
    app = make_app(f)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        await pilot.press("up", "up")
        await settle(pilot)
        assert selected_id(b) == "e7"
        await pilot.press("F")
        await settle(pilot)
        assert b.following and "following" in str(b.branch_tree.border_title)
        assert selected_id(b) == "e9"
        data = "".join(line(o) + "\n" for o in chain(10, 120)).encode()
        writer = Writer(f, data, 7)
        writer.start()
        while writer.is_alive():
            await pilot.pause(0.05)
        await wait_for(pilot, lambda: len(row_ids(b)) == 120)
        await settle(pilot)
        assert row_ids(b) == [f"e{i}" for i in range(120)]
        assert b.following
        assert selected_id(b) == "e119"
        assert b.pane.branch[-1] == b.session.index_of["e119"]
        # the pane is at its bottom
        pane = b.pane
        assert round(pane.scroll_y) >= round(pane.max_scroll_y) - 1
        # moving turns follow off, and new entries no longer move the selection
        await pilot.press("up")
        await settle(pilot)
        assert not b.following and "following" not in str(b.branch_tree.border_title)
        assert selected_id(b) == "e118"
        with open(f, "a", encoding="utf-8") as fh:
            fh.write("".join(line(o) + "\n" for o in chain(120, 125)))
        await wait_for(pilot, lambda: len(row_ids(b)) == 125)
        await settle(pilot)
        assert selected_id(b) == "e118"


@pytest.mark.slow
async def test_a_replaced_file_is_read_again(make_app, settle, tmp_path):
    f = session_file(tmp_path, 20)
    app = make_app(f)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        old = b.session
        await pilot.press("up")
        await settle(pilot)
        # replaced by a shorter file (a rewrite): read from the start, selection kept by id
        tmp = f.with_suffix(".tmp")
        tmp.write_text(line(HEADER) + "\n" + "".join(line(o) + "\n" for o in chain(0, 19)), encoding="utf-8")
        os.replace(tmp, f)
        await wait_for(pilot, lambda: b.session is not None and b.session is not old)
        await settle(pilot)
        assert row_ids(b) == [f"e{i}" for i in range(19)]
        assert selected_id(b) == "e18"


@pytest.mark.slow
@pytest.mark.parametrize("follow", [False, True], ids=["still", "following"])
@pytest.mark.parametrize("how", ["truncated", "replaced"])
async def test_a_file_cut_back_to_its_header_shows_the_header_only_session(make_app, settle, tmp_path, how, follow):
    """Issue 33, hole 2: a writer cuts the shown file back to its header line (truncates and
    rewrites it, or renames a new one over it), with or without F: the header's numbers
    were worked out for the old leaf on the new, empty session (an IndexError in
    _walk_path). It is read again, the old branch leaves the pane, and the header-only
    session shows; entries written after it appear as usual."""
    f = session_file(tmp_path, 10)
    app = make_app(f)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        old = b.session
        if follow:
            await pilot.press("F")
            await settle(pilot)
        assert "reply 9" in app_screen_text(app)
        if how == "truncated":
            with open(f, "r+", encoding="utf-8") as fh:
                fh.truncate(0)
                fh.write(line(HEADER) + "\n")
        else:
            tmp = f.with_suffix(".tmp")
            tmp.write_text(line(HEADER) + "\n", encoding="utf-8")
            os.replace(tmp, f)
        await wait_for(pilot, lambda: b.session is not None and b.session is not old)
        await settle(pilot)
        assert app.is_running and app.screen is b
        assert len(b.session) == 0 and row_ids(b) == [] and b.pane.branch == []
        screen = app_screen_text(app)
        assert "no entries yet" in screen and "0 entries" in screen
        gone = [f"message {k}" for k in range(2, 10, 2)] + [f"reply {k}" for k in range(1, 10, 2)]
        assert [t for t in gone if t in screen] == []  # (the old branch left the pane)
        with open(f, "a", encoding="utf-8") as fh:
            fh.write("".join(line(o) + "\n" for o in chain(0, 3)))
        await wait_for(pilot, lambda: row_ids(b) == ["e0", "e1", "e2"])
        await settle(pilot)
        assert b.following == follow
        assert selected_id(b) == ("e2" if follow else "e0")  # (following: the newest; else the first)
        assert "message 2" in app_screen_text(app)


async def test_new_sessions_appear_in_the_sidebar(make_app, settle, tmp_path):
    f = session_file(tmp_path, 5)
    root = f.parent.parent
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        lst = b.session_list
        assert [it.key for it in lst.items if it.kind == "session"] == [str(f)]
        cur = lst.current
        assert cur is not None
        cur_key = cur.key
        new = f.parent / "2026-11-21T09-00-00-000Z_sess-2.jsonl"
        head = dict(HEADER, id="sess-2", timestamp="2026-11-21T09:00:00.000Z")
        new.write_text(line(head) + "\n" + line(user("a0", None, 0, "a brand new session")) + "\n", encoding="utf-8")
        await wait_for(pilot, lambda: str(new) in [it.key for it in lst.items])
        await settle(pilot)
        assert lst.current is not None and lst.current.key == cur_key  # the selection did not move
        assert b.session is not None and b.session.path == str(f)  # nothing else was opened
        # a grown session updates its row in place
        with open(f, "a", encoding="utf-8") as fh:
            fh.write("".join(line(o) + "\n" for o in chain(5, 9)))
        await wait_for(pilot, lambda: b.infos[str(f)].message_count == 9)
        assert lst.current is not None and lst.current.key == cur_key
