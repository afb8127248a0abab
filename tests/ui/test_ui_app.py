"""The app driven with Textual's Pilot: opening sessions, and the branch keys asserting
the exact entries selected (on a corpus file with forks and several roots, and on a
20,000-deep chain with a 2,000-wide fork)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from pitui.core import gc_policy
from pitui.core.store.discovery import SessionRoot
from pitui.core.read.session import Session
from pitui.core.model.layout import layout_tree
from pitui.core.model.stats import branch_stats
from pitui.core.numbers import fmt_cost, fmt_tokens_short
from pitui.core.export.entry import write_entry_file
from pitui.ui.app import PituiApp
from pitui.ui.browser.screen import BrowserScreen
from pitui.ui.first_paint import FirstPaint
from pitui.ui.screens.empty import EmptyScreen
from pitui.ui.widgets.sidebar import build_items
from pitui.core.model.navigation import Nav, fork_target, sibling_target

SRV_APP = "--srv-app--/2026-07-26T22-53-28-020Z_019fa0a1-52c6-7764-9ff2-3d86c310d892.jsonl"
SIZE = (160, 45)


def browser(app: PituiApp) -> BrowserScreen:
    b = app.browser
    assert b is not None
    return b


def selected_id(app: PituiApp) -> str:
    b = browser(app)
    assert b.session is not None
    return b.session.ids[b.branch_tree.selected_entry]


async def press_and_check(pilot, settle, key: str, expected: str) -> None:
    await pilot.press(key)
    await settle(pilot)
    got = selected_id(pilot.app)
    assert got == expected, f"after {key!r}: selected {got}, expected {expected}"


# ------------------------------------------------------------------ the corpus file
@pytest.fixture
def srv_app_file(corpus_root) -> Path:
    return corpus_root / SRV_APP


async def test_open_selects_the_leaf(make_app, settle, srv_app_file):
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        assert b.session is not None and b.session.path == str(srv_app_file)
        assert selected_id(app) == "fa5fba56"  # the current leaf (entry 150)
        assert b.branch_tree.has_focus
        # the sidebar lists the one session and marks it open
        assert b.session_list.open_path == str(srv_app_file)


@pytest.mark.slow
async def test_branch_keys_on_a_forked_file(make_app, settle, srv_app_file):
    """Roots [150, 0, 93] at the top; forks at 3 -> [4, 80], 10 -> [11, 16, 34], 42 -> [43, 45]."""
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        check = lambda key, want: press_and_check(pilot, settle, key, want)  # noqa: E731
        assert selected_id(app) == "fa5fba56"  # 150, the leaf, first of three roots
        # siblings at the top (several roots are the branches of one fork)
        await check("right_square_bracket", "156ded8f")  # -> root 0
        await check("right_square_bracket", "38159ea0")  # -> root 93
        await check("right_square_bracket", "38159ea0")  # no next: stays
        await check("left_square_bracket", "156ded8f")  # -> root 0
        # forks on the branch shown (0 .. newest leaf 91): 3 is the only fork
        await check("right_curly_bracket", "5d6adb6a")  # -> fork 3
        await check("right_curly_bracket", "5d6adb6a")  # none below on 80's branch
        # on a fork, [ ] go through its branches, starting from the one shown (80)
        await check("left_square_bracket", "ab032783")  # -> 4
        await check("left_square_bracket", "ab032783")  # 4 is the first branch
        await check("right_square_bracket", "6a396f7e")  # -> 80 (sibling of 4)
        await check("left_square_bracket", "ab032783")  # back to 4
        # 4's branch runs to leaf 79: forks 10 and 42 below
        await check("right_curly_bracket", "bb477d13")  # -> fork 10
        await check("right_curly_bracket", "ac066735")  # -> fork 42
        await check("right_curly_bracket", "ac066735")  # none below
        await check("left_curly_bracket", "bb477d13")  # -> 10
        await check("left_curly_bracket", "5d6adb6a")  # -> 3
        await check("left_curly_bracket", "5d6adb6a")  # none above
        await check("right_curly_bracket", "bb477d13")  # back down to 10
        # fork 10: shown branch is 34's; [ goes to 16, then 11
        await check("left_square_bracket", "ed58483d")  # -> 16
        await check("left_square_bracket", "2b26779b")  # -> 11
        await check("left_square_bracket", "2b26779b")  # first
        await check("right_square_bracket", "ed58483d")  # -> 16
        await check("right_square_bracket", "4b80a6ad")  # -> 34
        # inside a branch: ] / [ act at the nearest fork above
        await check("j", "230a1dbd")  # 36, below 34
        await check("j", "ef6487fd")  # 37
        await check("left_square_bracket", "ed58483d")  # 34's previous sibling: 16
        # root / leaf / user messages
        await check("G", "7406229e")  # leaf of 16's branch (32, last shown; 33 is hidden)
        await check("u", "6d9d94c9")  # user message 24
        await check("u", "4c970b95")  # 17
        await check("U", "6d9d94c9")  # 24
        await check("g", "156ded8f")  # root 0
        await check("U", "7bbec6cf")  # user 1


async def test_branch_keys_in_user_only_filter(make_app, settle, srv_app_file):
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        for _ in range(2):  # default -> no-tools -> user-only
            await pilot.press("f")
        await settle(pilot)
        assert b.branch_tree.mode == "user-only"
        nav = b.branch_tree.nav
        assert nav is not None
        shown = [b.session.ids[r.entry] for r in b.branch_tree.tree_layout.rows]
        assert all(b.session.roles[r.entry] == "user" for r in b.branch_tree.tree_layout.rows)
        assert "7bbec6cf" in shown and "38159ea0" in shown
        b.branch_tree.select_entry(b.session.index_of["7bbec6cf"])
        await settle(pilot)
        # the system prompt (0) is hidden, so user 1 is a top-level row, beside 93
        await pilot.press("right_square_bracket")
        await settle(pilot)
        assert selected_id(app) == "38159ea0"  # the next root shown
        await pilot.press("f", "f", "f", "f", "f")  # labeled-only, all, files-only, shell-only, default
        await settle(pilot)
        assert b.branch_tree.mode == "default"
        # the selection survives filter changes, even through labeled-only (which hid it)
        assert selected_id(app) == "38159ea0"


async def test_filter_cycle_and_fold(make_app, settle, srv_app_file):
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        tree = b.branch_tree
        modes = []
        for _ in range(7):
            await pilot.press("f")
            await settle(pilot)
            modes.append(tree.mode)
        assert modes == ["no-tools", "user-only", "labeled-only", "all", "files-only", "shell-only", "default"]
        rows_before = tree.row_count
        tree.select_entry(b.session.index_of["ab032783"])  # 4, a foldable branch start
        await pilot.press("enter")
        await settle(pilot)
        assert selected_id(app) == "ab032783"
        row = tree.tree_layout.rows[tree.cursor_row]
        assert row.folded and row.hidden_below > 0
        assert tree.row_count == rows_before - row.hidden_below
        await pilot.press("space")
        await settle(pilot)
        assert tree.row_count == rows_before
        # a plain entry folds the branch it is in, and the selection moves to its start
        tree.select_entry(b.session.index_of["26f11cbb"])  # 8, inside 4's branch
        await pilot.press("enter")
        await settle(pilot)
        assert selected_id(app) == "ab032783"
        # selecting a folded-away entry unfolds it
        tree.select_entry(b.session.index_of["26f11cbb"])
        await settle(pilot)
        assert selected_id(app) == "26f11cbb"
        assert tree.row_count == rows_before


async def test_pane_follows_the_selection(make_app, settle, srv_app_file):
    app = make_app(srv_app_file)
    async with app.run_test(size=(220, 45)) as pilot:  # (a header wide enough for the branch's tokens)
        await settle(pilot)
        b = browser(app)
        s = b.session
        pane = b.pane
        assert pane.branch == s.path_to(s.leaf)
        b.branch_tree.select_entry(s.index_of["ed58483d"])  # 16
        await settle(pilot)
        leaf = s.newest_leaf_below(s.index_of["ed58483d"])
        assert pane.branch == s.path_to(leaf)
        # the header counts that branch: its entries, and its tokens and cost worked out
        stats = branch_stats(s, leaf).total
        usage = str(b.query_one("#header-usage").render())
        # (after the context meter at the selected entry, long or short by the room)
        assert usage.startswith(("context 64k / 200k · 32% · branch ", "context 64k/200k 32% · branch "))
        assert (f" · branch {fmt_tokens_short(stats.tokens, truncate=True)} tok "
                f"{fmt_cost(stats.cost, zero='$0')} · ") in usage
        assert usage.endswith(f" · {len(s.path_to(leaf))}/{len(s)} entries")


async def test_copy_resume_command(make_app, settle, srv_app_file, monkeypatch):
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(srv_app_file.parent.parent.parent))  # (Pi looks there)
    monkeypatch.delenv("PI_CODING_AGENT_SESSION_DIR", raising=False)
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == "pi --session 019fa0a1-52c6-7764-9ff2-3d86c310d892"


async def test_help_and_warnings_screens(make_app, settle, corpus_root):
    bad = corpus_root / "--home-dev-legacy--" / "2026-07-27T01-17-46-642Z_legacy-202-1.jsonl"
    app = make_app(bad)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        assert b.session is not None and b.session.all_warnings
        await pilot.press("w")
        await pilot.pause()
        assert type(app.screen).__name__ == "WarningsScreen"
        await pilot.press("escape")
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is b


async def test_first_frame_is_styled_as_a_full_restyle_would(make_app, settle, corpus_root):
    """The main screen skips Textual's restyle of every widget when it first comes on top
    (each was styled as it was mounted): every widget's styles and the screen drawn are
    those a full restyle gives; a screen shown later (help) is styled as usual."""
    app = make_app(corpus_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        nodes = list(b.walk_children(with_self=True))
        assert len(nodes) >= 20

        def styles():
            return [(n, n.styles.base.css_lines, n.styles.inline.css_lines) for n in nodes]

        before, screen_before = styles(), app.export_screenshot()
        app.stylesheet.update_nodes(nodes, animate=False)
        await pilot.pause()
        assert styles() == before
        assert app.export_screenshot() == screen_before
        await pilot.press("question_mark")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is b and app.export_screenshot() == screen_before


class _GatedOpen:
    """An open whose result waits for ``go`` (reporting ``steps`` of progress first)."""

    def __init__(self, real, steps=()):
        self.real, self.steps = real, list(steps)
        self.go = threading.Event()

    def result(self, progress=None):
        for delay, done, total in self.steps:
            time.sleep(delay)
            if progress is not None:
                progress(done, total)
        assert self.go.wait(20)
        return self.real.result(progress)

    def __getattr__(self, name):
        return getattr(self.real, name)


def _gate_opens(monkeypatch, steps: list | None = None) -> list[_GatedOpen]:
    """Every open from now on is gated (the ``steps`` of progress as they are then)."""
    from pitui.core.open import parallel as open_parallel

    gates: list[_GatedOpen] = []
    real_start = open_parallel.start

    def start(path, freeze=False):
        gates.append(_GatedOpen(real_start(path, freeze=freeze), steps or ()))
        return gates[-1]

    monkeypatch.setattr(open_parallel, "start", start)
    return gates


async def _pauses(pilot, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        await pilot.pause(0.02)


async def test_a_session_named_at_start_is_drawn_once_read_its_panels_held_back_meanwhile(
        make_app, settle, srv_app_file, monkeypatch):
    """``pitui FILE``: while the file is read the screen stays blank (no "Opening…" frame
    laid out and drawn only to be replaced a moment later); once read, the session is
    drawn as a start without the hold draws it, with the tree focused."""
    gates = _gate_opens(monkeypatch)
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await _pauses(pilot, 0.3)
        b = browser(app)
        main = b.query_one("#main")
        assert b.session is None and not main.display
        assert len(gates) == 1
        gates[0].go.set()
        await settle(pilot)
        assert b.session is not None and main.display
        assert not b.query_one("#notice").display
        assert app.focused is b.branch_tree
        assert b.pane.virtual_size.width == b.pane.scrollable_content_region.width > 0  # laid out at its width
        held = app.export_screenshot()
    # private: the same start without the hold, to compare with (no setting turns it off)
    monkeypatch.setattr(FirstPaint, "hold", lambda self, panels: None)
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await _pauses(pilot, 0.3)
        gates[1].go.set()
        await settle(pilot)
        assert browser(app).session is not None
        assert app.export_screenshot() == held


async def test_a_screen_opened_over_the_held_panels_is_drawn_and_the_session_shown_after_it(
        make_app, settle, srv_app_file, monkeypatch):
    """Help opened while the session named at start is read: it is drawn and answers; the
    session read meanwhile is there when it is closed (holding the first paint never holds
    another screen's)."""
    gates = _gate_opens(monkeypatch)
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await _pauses(pilot, 0.3)
        await pilot.press("question_mark")
        await _pauses(pilot, 0.3)
        assert type(app.screen).__name__ == "HelpScreen"
        gates[0].go.set()
        await settle(pilot)
        await _pauses(pilot, 0.3)
        b = browser(app)
        # (paints again; private: Textual's batch count has no public face)
        assert b.session is not None and not b.paint_held() and not app._batch_count
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is b and b.query_one("#main").display and b.pane.session is b.session


@pytest.mark.parametrize("settle_seconds", [0.1, 0.0])
async def test_a_held_start_paints_the_panels_with_the_session_in_them(
        make_app, settle, srv_app_file, monkeypatch, settle_seconds):
    """The panels held back at start are first painted with the session in them, not
    blank nor at a size the pane has not taken in yet; also when waiting for the panels to
    settle gives up at once (SETTLE_SECONDS: the screen is never held for good). Nothing
    is painted before them (not even the key bar alone: the terminal stays blank)."""
    monkeypatch.setattr(FirstPaint, "SETTLE_SECONDS", settle_seconds)
    from textual.screen import Screen

    paints: list[tuple[bool, bool]] = []  # (panels shown, session shown) of each paint
    real = Screen._compositor_refresh  # private: a paint of the screen has no public hook in Textual

    def spy(self):
        if isinstance(self, BrowserScreen):
            shown = (self.session is not None and self.pane.session is self.session
                     and self.pane.virtual_size.width == self.pane.scrollable_content_region.width > 0
                     and self.branch_tree.tree_layout is not None and self.branch_tree.size.height > 0)
            paints.append((self.query_one("#main").display, shown))
        return real(self)

    monkeypatch.setattr(Screen, "_compositor_refresh", spy)
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _pauses(pilot, 0.3)
        with_panels = [shown for displayed, shown in paints if displayed]
        assert with_panels and all(with_panels)
        assert all(displayed for displayed, _ in paints)
        assert not browser(app).paint_held()


async def test_a_long_read_at_start_shows_the_panels_and_its_progress(make_app, settle, srv_app_file, monkeypatch):
    """A read whose progress says it has a while to go (or one that outlasts
    HOLD_SECONDS) shows the panels with the notice and its progress."""
    mb = 1024 * 1024
    steps = [(0.3, 2 * mb, 200 * mb)]
    gates = _gate_opens(monkeypatch, steps)
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await _pauses(pilot, 0.6)
        b = browser(app)
        assert b.session is None and b.query_one("#main").display
        assert str(b.query_one("#notice-text").render()).startswith("Opening… 1%")
        gates[0].go.set()
        await settle(pilot)
        assert b.session is not None and not b.query_one("#notice").display
    monkeypatch.setattr(FirstPaint, "HOLD_SECONDS", 0.2)
    steps.clear()  # no progress at all
    gates.clear()
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await _pauses(pilot, 0.1)
        b = browser(app)
        assert not b.query_one("#main").display
        await _pauses(pilot, 0.4)
        assert b.query_one("#main").display and b.session is None
        assert str(b.query_one("#notice-text").render()).startswith("Opening…")
        gates[0].go.set()
        await settle(pilot)
        assert b.session is not None and app.focused is b.branch_tree


async def test_tab_cycles_focus(make_app, settle, srv_app_file):
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        assert b.branch_tree.has_focus
        await pilot.press("tab")
        assert app.focused is b.pane
        await pilot.press("tab")
        assert app.focused is b.session_list
        await pilot.press("tab")
        assert b.branch_tree.has_focus


async def test_pager_file_is_outside_the_sessions_folder(make_app, settle, srv_app_file, tmp_path):
    session = Session.open(srv_app_file)
    root = SessionRoot(srv_app_file, "file", "argument")
    path = write_entry_file(session, 150, root)
    try:
        assert not os.path.realpath(path).startswith(os.path.realpath(srv_app_file.parent))
        text = Path(path).read_text(encoding="utf-8")
        assert session.raw_line(150).decode().strip() in text
        assert '"id": "fa5fba56"' in text
    finally:
        os.unlink(path)


# ------------------------------------------------------------------ sidebar
@pytest.mark.slow
async def test_sidebar_type_to_filter_and_open(make_app, settle, corpus_root):
    app = make_app(corpus_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        sl = b.session_list
        total = sl.session_count()
        assert total == 35
        sl.focus()
        await pilot.press(*"mode")
        await pilot.pause()
        assert sl.filter_text == "mode"
        assert 0 < sl.session_count() < total
        await pilot.press("escape")
        await pilot.pause()
        assert sl.filter_text == "" and sl.session_count() == total
        await pilot.press("ctrl+s")
        assert sl.sort == "name"
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert all(it.info.name for it in sl.items if it.kind == "session")
        await pilot.press("ctrl+n", "ctrl+s")
        # open the second session in the list with Enter
        sessions = [k for k, it in enumerate(sl.items) if it.kind == "session"]
        sl.move_to_row(sessions[1])
        await pilot.press("enter")
        await settle(pilot)
        assert b.session is not None and b.session.path == sl.items[sessions[1]].key
        assert b.branch_tree.has_focus


def test_build_items_nests_forks_and_marks_errors():
    from pitui.core.store.listing import SessionInfo

    infos = [
        SessionInfo("/s/--p--/a.jsonl", project="--p--", id="a", cwd="/p", modified_ms=3000, first_message="parent"),
        SessionInfo("/s/--p--/b.jsonl", project="--p--", id="b", cwd="/p", modified_ms=5000, first_message="fork",
                    forked_from="/elsewhere/--p--/a.jsonl"),
        SessionInfo("/s/--p--/c.jsonl", project="--p--", id="c", cwd="/p", modified_ms=4000, name="named"),
        SessionInfo("/s/--p--/subagent-artifacts/d.jsonl", project="--p--", kind="subagent", id="d", cwd="/p",
                    modified_ms=1000),
        SessionInfo("/s/--p--/bad.jsonl", project="--p--", error="empty file"),
        SessionInfo("/s/--q--/e.jsonl", project="--q--", id="e", cwd="/q", modified_ms=9000),
    ]
    items = build_items(infos)
    keys = [(it.kind, os.path.basename(it.key), it.depth) for it in items]
    assert keys == [
        ("project", "--q--", 0),
        ("session", "e.jsonl", 0),
        ("project", "--p--", 0),
        ("session", "c.jsonl", 0),
        ("session", "a.jsonl", 0),
        ("session", "b.jsonl", 1),  # nested under its parent (matched by file name)
        ("session", "d.jsonl", 0),
        ("session", "bad.jsonl", 0),  # unreadable files last
    ]
    assert [it.count for it in items if it.kind == "project"] == [1, 5]
    named = build_items(infos, named_only=True)
    assert [os.path.basename(it.key) for it in named if it.kind == "session"] == ["c.jsonl"]
    filtered = build_items(infos, query="FORK")
    assert [os.path.basename(it.key) for it in filtered if it.kind == "session"] == ["b.jsonl"]
    by_name = build_items(infos, sort="name")
    assert [it.label for it in by_name if it.kind == "project"] == ["/p", "/q"]


# ------------------------------------------------------------------ empty store and bad files
async def test_collection_paused_for_the_start_resumes_with_the_first_session(make_app, settle, srv_app_file,
                                                                              tmp_path, monkeypatch):
    """``pitui`` pauses garbage collection as it starts: it resumes once the first session
    is shown, or after a moment when none is (an empty store)."""
    import asyncio
    import gc

    try:
        for root, has_session in ((srv_app_file, True), (SessionRoot(tmp_path / "none", "tree", "test"), False)):
            monkeypatch.setattr(PituiApp, "START_PAUSE_SECONDS", 60 if has_session else 0.2)
            gc_policy.pause_gc_for_start()
            assert not gc.isenabled()
            app = make_app(root)
            async with app.run_test(size=SIZE) as pilot:
                await settle(pilot)
                if has_session:
                    assert browser(app).session is not None and gc.isenabled()
                else:
                    assert isinstance(app.screen, EmptyScreen)
                    await asyncio.sleep(0.3)
                    await pilot.pause()
                    assert gc.isenabled()
    finally:
        gc_policy.end_start_pause()
        gc.enable()


async def test_empty_store_screen(make_app, settle, tmp_path):
    root = SessionRoot(tmp_path / "nothing-here", "tree", "$PI_CODING_AGENT_DIR")
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, EmptyScreen)
        text = str(app.screen.query_one("#empty-text").render())
        assert str(tmp_path / "nothing-here") in text
        assert "PI_CODING_AGENT_DIR" in text
        assert "pitui --demo" in text


async def test_not_a_session_shows_its_reason(make_app, settle, tmp_path):
    bad = tmp_path / "--home-dev-x--" / "2026-01-01T00-00-00-000Z_bad.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text('{"case": 1}\n')  # (no header and no Pi entry: a file that lost its header is shown)
    app = make_app(bad)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        assert b.session is None
        assert b.error is not None and "not a Pi session" in b.error
        text = str(b.query_one("#notice-text").render())
        assert "not a Pi session" in text
        assert b.query_one("#main").display  # (held back while it was read)
        # keys do nothing harmful without a session
        await pilot.press("right_square_bracket", "g", "G", "u", "c", "y", "e", "slash", "f")
        await settle(pilot)


@pytest.mark.slow
async def test_the_notice_covers_the_pane_which_cannot_be_focused_under_it(make_app, settle, tmp_path):
    from helpers import assistant, user, write

    project = tmp_path / "--home-dev-x--"
    project.mkdir()
    good = write(project / "2026-01-02T00-00-00-000Z_good.jsonl",
                 [user("u1", None, 1, text="hello"), assistant("a1", "u1", 2, text="hi there")])
    bad = project / "2026-01-01T00-00-00-000Z_bad.jsonl"
    bad.write_text('{"case": 1}\n')  # (no header and no Pi entry)
    app = make_app(good)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        notice, pane = b.query_one("#notice"), b.pane
        assert b.session is not None and not notice.display and pane.can_focus
        pane.focus()
        await settle(pilot)
        b.open_session(str(bad))
        await settle(pilot)
        assert b.error is not None and notice.display
        assert pane.region == notice.region  # laid over it, the pane keeping its size
        assert not pane.can_focus and app.focused is not pane  # focus went to the tree
        for _ in range(4):
            await pilot.press("tab")
            assert app.focused is not pane
        b.open_session(str(good))
        await settle(pilot)
        assert b.session is not None and not notice.display and pane.can_focus


# ------------------------------------------------------------------ a huge session
def _write_big(path: Path, depth: int = 20_000, width: int = 2_000) -> Path:
    """A chain c0..c{depth-1} (user/assistant alternating), then ``width`` user replies
    w0..w{width-1} to its last entry. The last line (w{width-1}) is the current leaf."""
    from helpers import write
    from tools import piwriter

    path.parent.mkdir(parents=True, exist_ok=True)
    base = 1_795_168_800_000  # 2026-11-20T10:00:00Z

    def ms(n: int) -> int:
        return base + n * 1000

    entries = []
    prev = None
    for i in range(depth):
        if i % 2 == 0:
            msg = piwriter.user_message(f"question {i}", ms(i))
        else:
            msg = {"role": "assistant", "content": [{"type": "text", "text": f"answer {i}"}],
                   "provider": "anthropic", "model": "claude-x", "stopReason": "stop",
                   "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
                             "cost": {"total": 0.001}},
                   "timestamp": ms(i)}
        entries.append(piwriter.entry("message", f"c{i}", prev, piwriter.iso(ms(i)), message=msg))
        prev = f"c{i}"
    for j in range(width):
        n = depth + j
        entries.append(piwriter.entry("message", f"w{j}", prev, piwriter.iso(ms(n)),
                                      message=piwriter.user_message(f"reply {j}", ms(n))))
    return write(path, entries, header=piwriter.header("big-session", piwriter.iso(ms(0)), "/home/dev/big"))


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    return _write_big(tmp_path_factory.mktemp("big") / "--home-dev-big--" / "2026-11-20T10-00-00-000Z_big.jsonl")


def test_navigation_functions_on_a_deep_chain(big_file):
    s = Session.open(big_file, validate=False)
    layout = layout_tree(s, "default")
    nav = Nav(s, layout)
    fork = s.index_of["c19999"]
    assert fork_target(nav, s.index_of["c0"], 1) == fork
    kids = layout.visible_children[fork]
    assert len(kids) == 2000 and s.ids[kids[0]] == "w1999"  # the active branch first
    assert s.ids[sibling_target(nav, fork, 1)] == "w0"
    assert s.ids[sibling_target(nav, s.index_of["w0"], 1)] == "w1"
    assert sibling_target(nav, s.index_of["w1998"], 1) is None


def test_the_branch_keys_walk_a_deep_branch_in_a_few_calls(big_file):
    """``[`` ``]`` ``{`` ``}`` ``u`` ``U`` on a branch never shown before work out its shown
    entries (``Nav.visible_pos``) in a few calls, not one Python call per entry of the
    branch (20,000 here): at 54,000 entries a call per entry was most of a ``[``. Counted
    with ``sys.setprofile``, not timed."""
    import sys

    s = Session.open(big_file, validate=False)
    nav = Nav(s, layout_tree(s, "default"))
    leaf = s.index_of["w1999"]
    nav.paths.path(leaf)  # (the path itself is the session's walk: not counted here)
    calls = 0

    def count(frame, event, arg) -> None:
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(count)
    try:
        path, k = nav.visible_pos(s.index_of["c100"])
    finally:
        sys.setprofile(None)
    assert len(path) == 20_001 and path[k] == s.index_of["c100"]
    assert calls < 50, f"{calls} Python calls to find the shown entries of a 20,001-entry branch"


def test_fork_keys_find_the_nearest_fork_on_the_path_in_every_filter(corpus_root):
    """``{`` / ``}`` land on the nearest entry with more than one shown child above / below
    on the branch shown, from every entry of every corpus session, in every filter (as a
    walk along the path asking each entry finds it)."""
    from pitui.core.model.layout import FILTERS

    def walk(nav, sel, step):
        path, k = nav.visible_pos(sel)
        if k is None:
            return None
        for j in (range(k - 1, -1, -1) if step < 0 else range(k + 1, len(path))):
            if len(nav.vkids(path[j])) > 1:
                return path[j]
        return None

    checked = found = 0
    for f in sorted(corpus_root.rglob("*.jsonl")):
        try:
            s = Session.open(f, validate=False)
        except Exception:
            continue
        for mode in FILTERS:
            layout = layout_tree(s, mode)
            nav = Nav(s, layout)
            assert layout.forks == {k for k, v in layout.visible_children.items() if len(v) > 1}
            for sel in list(layout.row_of):
                for step in (-1, 1):
                    want = walk(nav, sel, step)
                    assert fork_target(nav, sel, step) == want, (f.name, mode, sel, step)
                    checked += 1
                    found += want is not None
    assert checked > 1000 and found > 100


@pytest.mark.slow
async def test_a_layout_from_another_process_gets_its_shown_children_made_after_the_first_paint(
        make_app, settle, big_file):
    """A layout that crossed processes comes without each entry's shown children: they are
    made in a thread once the session is on screen (not on the first fork or sibling key),
    as tuples, equal to those of a layout made here, and the keys find the same targets."""
    app = make_app(big_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        s = b.session
        local = layout_tree(s, "default")
        crossed = type(local).from_state(local.to_state())
        assert not crossed.has_children
        b.branch_tree.set_session(s, crossed, select=s.leaf)
        await settle(pilot)
        assert b.branch_tree.tree_layout is crossed and not crossed.has_children
        # private: what the open does once the session is on screen, called at once here
        b.opener.after_first_paint(s)
        await settle(pilot)
        assert crossed.has_children
        assert crossed.visible_children == {k: tuple(v) for k, v in local.visible_children.items()}
        assert all(type(v) is tuple for v in crossed.visible_children.values())
        check = lambda key, want: press_and_check(pilot, settle, key, want)  # noqa: E731
        await check("left_curly_bracket", "c19999")
        await check("right_square_bracket", "w0")
        await check("left_square_bracket", "w1999")


async def test_the_first_rows_of_the_tree_are_summarised_in_the_opening_thread(make_app, settle, big_file, monkeypatch):
    """The rows a first screen shows (around the current leaf) are summarised while the
    session is opened, off the interface's thread, and the tree draws them from there."""
    from pitui.ui.widgets import branch_tree as tree_view

    on_ui: list[int] = []
    real = tree_view.summarize

    def spy(session, entry):
        if threading.current_thread() is threading.main_thread():
            on_ui.append(entry)
        return real(session, entry)

    monkeypatch.setattr(tree_view, "summarize", spy)
    app = make_app(big_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = browser(app).branch_tree
        top = round(tree.scroll_y)
        shown = {tree.tree_layout.rows[k].entry for k in range(top, top + tree.size.height)}
        assert selected_id(app) == "w1999" and len(shown) == tree.size.height
        assert not shown & set(on_ui)


@pytest.mark.slow
async def test_branch_keys_on_a_20000_deep_chain(make_app, settle, big_file):
    app = make_app(big_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        tree = b.branch_tree
        assert tree.row_count == 22_000
        check = lambda key, want: press_and_check(pilot, settle, key, want)  # noqa: E731
        assert selected_id(app) == "w1999"
        await check("g", "c0")
        await check("G", "w1999")
        await check("left_curly_bracket", "c19999")  # the fork above
        await check("right_square_bracket", "w0")  # the fork's next branch after the shown one
        await check("right_square_bracket", "w1")
        await check("left_square_bracket", "w0")
        await check("left_square_bracket", "w1999")
        await check("left_square_bracket", "w1999")  # first: stays
        await check("u", "c19998")  # user message above on the branch
        await check("u", "c19996")
        await check("U", "c19998")
        await check("k", "c19997")
        await check("j", "c19998")
        await check("g", "c0")
        await check("U", "c2")
        await check("right_curly_bracket", "c19999")
        await check("end", "w1998")  # the last row
        await check("home", "c0")
        # Enter folds the branch the selection is in (here the whole tree, at its root)
        await check("enter", "c0")
        assert tree.row_count == 1
        await check("enter", "c0")
        assert tree.row_count == 22_000
        # G: the leaf of the branch the pane shows (w1998's, since End went there)
        await check("G", "w1998")
        await check("left_curly_bracket", "c19999")
        await check("left_square_bracket", "w1997")
        # the screen renders without recursion errors, at the bottom of the chain too
        await pilot.press("pagedown", "pageup")
        await settle(pilot)
        assert app.screen is b


@pytest.mark.slow
async def test_subagent_transcript_opens_and_backspace_returns(make_app, settle, demo_root):
    from pitui.ui.messages import OpenSessionFile

    transcripts = sorted(Path(demo_root).rglob("subagent-artifacts/*.jsonl"))
    assert transcripts, "the demo has subagent transcripts"
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        first_path = b.session_path
        await pilot.press("g")
        await settle(pilot)
        first_sel = selected_id(app)
        b.pane.post_message(OpenSessionFile(str(transcripts[0])))
        await settle(pilot)
        assert b.session is not None and b.session.path == str(transcripts[0])
        await pilot.press("backspace")
        await settle(pilot)
        assert b.session_path == first_path
        assert selected_id(app) == first_sel  # back where we were
        await pilot.press("backspace")  # nothing further back: harmless
        await settle(pilot)
        assert b.session_path == first_path


@pytest.mark.slow
async def test_search_all_opens_the_chosen_hit_and_stats_screen(make_app, settle, corpus_root, srv_app_file):
    from pitui.ui.screens.search import SearchScreen
    from pitui.ui.screens.stats import StatsScreen

    app = make_app(corpus_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        await pilot.press("ctrl+f")
        await pilot.pause()
        assert isinstance(app.screen, SearchScreen)
        app.screen.dismiss((str(srv_app_file), "ed58483d", None))  # as if Enter on a hit
        await settle(pilot)
        assert b.session is not None and b.session.path == str(srv_app_file)
        assert selected_id(app) == "ed58483d"
        # a hit in the session already open just moves the selection
        await pilot.press("ctrl+f")
        await pilot.pause()
        app.screen.dismiss((str(srv_app_file), "7bbec6cf", None))
        await settle(pilot)
        assert selected_id(app) == "7bbec6cf"
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is b


@pytest.mark.slow
async def test_the_app_never_writes_in_the_sessions_folder(make_app, settle, corpus_root, tmp_path, monkeypatch):
    import shutil
    import tempfile

    elsewhere = tmp_path / "tmp"
    elsewhere.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(elsewhere))  # where `e` writes (headless: no pager)
    root = tmp_path / "sessions"
    shutil.copytree(corpus_root / "--srv-app--", root / "--srv-app--")
    shutil.copytree(corpus_root / "--home-dev-legacy--", root / "--home-dev-legacy--")

    def state():
        out = {}
        for p in sorted(root.rglob("*")):
            st = p.stat()
            out[str(p.relative_to(root))] = (p.is_dir(), st.st_size, st.st_mtime_ns)
        return out

    before = state()
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        for key in ["g", "right_curly_bracket", "right_square_bracket", "t", "o", "h", "f", "f", "y", "e", "w",
                    "escape", "c", "escape", "s", "escape", "G", "u", "enter", "enter"]:
            await pilot.press(key)
            await settle(pilot)
        for it in b.session_list.items:
            if it.kind == "session":
                b.open_session(it.key)
                await settle(pilot)
    assert state() == before
    assert [p.name[:12] for p in elsewhere.iterdir()] == ["pitui-entry-"]  # `e` wrote here instead


@pytest.mark.slow
async def test_command_palette_runs_branch_commands(make_app, settle, srv_app_file):
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert selected_id(app) == "fa5fba56"
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"next sibling branch")
        for _ in range(20):  # the palette searches asynchronously
            await pilot.pause(0.05)
        await pilot.press("enter")
        await settle(pilot)
        assert selected_id(app) == "156ded8f"  # as `]`
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"tree filter: user-only")
        for _ in range(20):
            await pilot.pause(0.05)
        await pilot.press("enter")
        await settle(pilot)
        assert browser(app).branch_tree.mode == "user-only"


@pytest.mark.slow
async def test_mouse_selects_rows_folds_and_opens_sessions(make_app, settle, corpus_root, srv_app_file):
    app = make_app(corpus_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        sl = b.session_list
        # click the first line of the srv-app session in the sidebar: it opens
        k = next(k for k, it in enumerate(sl.items) if it.key == str(srv_app_file))
        first_line = sum(it.height for it in sl.items[:k])
        y = first_line - round(sl.scroll_y)
        if not 0 <= y < sl.scrollable_content_region.height:
            sl.move_to_row(k)
            await pilot.pause()
            y = first_line - round(sl.scroll_y)
        await pilot.click(sl, offset=(5, y))
        await settle(pilot)
        assert b.session is not None and b.session.path == str(srv_app_file)
        tree = b.branch_tree
        tree.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        # click the third row of the tree (offsets count the border): it is selected
        await pilot.click(tree, offset=(10, 1 + 2))
        await settle(pilot)
        assert tree.cursor_row == 2 and selected_id(app) == b.session.ids[tree.tree_layout.rows[2].entry]
        # click a fork's ⊟ mark: it folds
        r = next(r for r, row in enumerate(tree.tree_layout.rows) if row.foldable and row.connector)
        row = tree.tree_layout.rows[r]
        x = 2 + (row.indent - 1) * 3 + 1
        await pilot.click(tree, offset=(1 + x, 1 + r - round(tree.scroll_y)))
        await settle(pilot)
        assert tree.tree_layout.rows[tree.cursor_row].folded


async def test_keys_can_be_remapped_by_binding_id(make_app, settle, srv_app_file, monkeypatch):
    from pitui.ui.app import parse_keymap
    from pitui.ui.screens.help import help_sections

    assert parse_keymap("nav.next_sibling=l; tree.down=down,j ;bad") == {"nav.next_sibling": "l", "tree.down": "down,j"}
    monkeypatch.setenv("PITUI_KEYMAP", "nav.next_sibling=l;nav.prev_sibling=h")
    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        assert selected_id(app) == "156ded8f"  # l now does what ] did
        await pilot.press("h")
        await settle(pilot)
        assert selected_id(app) == "fa5fba56"
        rows = {bid: keys for _, section in help_sections(app) for keys, _, bid in section if bid}
        assert rows["nav.next_sibling"] == "l"  # the help shows the remapped key


async def test_the_footer_shows_session_keys_only_for_a_readable_session(make_app, settle, srv_app_file, tmp_path):
    """Opening another session keeps the footer as it is (no redraw, no flicker) and the
    keys do nothing until it is read; a file that cannot be shown dims them."""
    from pitui.ui.widgets.keybar import KeyBar

    def filter_key_dimmed(app) -> bool:
        (key,) = [k for k in app.screen.query_one(KeyBar).items if k.action == "cycle_filter"]
        return not key.enabled

    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        assert not filter_key_dimmed(app)
        bad = tmp_path / "notes.jsonl"
        bad.write_text('{"hello": 1}\n')
        b.open_session(str(bad))
        assert b.check_action("cycle_filter", ()) is None  # nothing to filter while opening
        await settle(pilot)
        assert b.error is not None and filter_key_dimmed(app)
        b.open_session(str(srv_app_file))
        await settle(pilot)
        assert b.session is not None and not filter_key_dimmed(app)
        mode = b.branch_tree.mode
        await pilot.press("f")
        await settle(pilot)
        assert b.branch_tree.mode != mode


async def test_the_key_bar_shows_the_keys_of_the_focus_and_answers_the_mouse(make_app, settle, srv_app_file):
    """The key bar at the bottom: the keys that work where the focus is (the session's keys
    in the tree, the sidebar's own there), the palette's key at the right end; a click
    presses a key, a key that does nothing now rings the bell, hovering a key shows what
    it does; a narrow window leaves out the keys that do not fit, never the palette's."""
    from pitui.ui.widgets.keybar import KeyBar

    app = make_app(srv_app_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bar = app.screen.query_one(KeyBar)
        b = browser(app)
        items = bar.items
        assert [k.description for k in items[:3]] == ["Fold", "Filter", "Branch"]
        assert items[-1].description == "palette" and items[-1].end == SIZE[0]
        assert all(k.enabled for k in items)
        text = bar.render().plain
        assert text.startswith(" ⏎ Fold  f Filter  [ ] Branch  { } Fork ") and text.endswith("▏^p palette ")
        assert len(text) == SIZE[0]
        # the sidebar's keys, once it has the focus
        await pilot.press("shift+tab")
        await settle(pilot)
        assert app.focused is b.session_list
        # (its own keys first; the session's keys work there too, typing filters after "/")
        shown = [k.description for k in bar.items]
        assert shown[:3] == ["Open", "Sort", "Named only"] and shown[-3:] == ["Quit", "Help", "palette"]
        await pilot.press("tab")
        await settle(pilot)
        assert app.focused is b.branch_tree
        # a click presses the key
        (f,) = [k for k in bar.items if k.action == "cycle_filter"]
        mode = b.branch_tree.mode
        await pilot.click(KeyBar, offset=(f.start + 1, 0))
        await settle(pilot)
        assert b.branch_tree.mode != mode
        # hovering shows what the key does
        await pilot.hover(KeyBar, offset=(f.start + 1, 0))
        await settle(pilot)
        assert bar.tooltip and "tree filter" in bar.tooltip
        # a key that does nothing now: the bell
        bells: list[bool] = []
        app.bell = lambda: bells.append(True)  # type: ignore[method-assign]
        b.session = None  # (as while a session is being opened)
        b.refresh_bindings()
        await settle(pilot)
        (f,) = [k for k in bar.items if k.action == "cycle_filter"]
        assert not f.enabled
        await pilot.click(KeyBar, offset=(f.start + 1, 0))
        await settle(pilot)
        assert bells == [True]
    app = make_app(srv_app_file)
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        bar = app.screen.query_one(KeyBar)
        assert bar.items[-1].description == "palette" and bar.items[-1].end == 60
        assert all(k.end <= bar.items[-1].start for k in bar.items[:-1])
        assert len(bar.items) < 10


def test_the_app_starts_without_the_screens_it_does_not_show():
    """Importing the app (what ``pitui FILE`` does before its first frame) leaves out the
    search, stats and context screens and the Markdown export, and what the first screen of
    a session named on the command line does not show: the listing and its index (listed
    after it), the stats and costs (counted after it), the palette's commands, and Rich's
    Markdown with markdown-it and Pygments (the open's thread loads them while the session
    is read). They load when first used."""
    import subprocess
    import sys

    code = ("import sys, pitui.ui.app; print([m for m in ('pitui.ui.screens.search', 'pitui.ui.screens.stats', "
            "'pitui.ui.screens.context', 'pitui.core.export.markdown', 'pitui.core.store.listing', "
            "'pitui.core.store.listing_index', 'pitui.core.store.session_info', 'pitui.core.model.stats', "
            "'pitui.core.model.cost', 'pitui.ui.commands', 'pitui.ui.pane.markdown', 'markdown_it', 'pygments') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         timeout=120).stdout
    assert out.strip() == "[]"


async def test_an_empty_tree_says_why_in_lines_a_narrow_tree_shows_whole(make_app, settle, tmp_path):
    from helpers import assistant, user, write

    project = tmp_path / "--home-u-p--"
    project.mkdir()
    header_only = write(project / "2026-11-20T10-00-00-000Z_h.jsonl", [])
    unlabeled = write(project / "2026-11-20T11-00-00-000Z_u.jsonl", [user("u1", None, 1), assistant("a1", "u1", 2)])
    for path, keys, want in ((header_only, (), ["no entries yet", "(a header only)", ""]),
                             (unlabeled, ("f", "f", "f"), ["none shown by", "filter labeled-only", "(f: another)"])):
        app = make_app(path)
        async with app.run_test(size=(100, 30)) as pilot:  # (the tree is 22 columns wide here)
            await settle(pilot)
            await pilot.press(*keys)
            await settle(pilot)
            tree = app.screen.branch_tree
            assert tree.mode == ("labeled-only" if keys else "default")
            assert [tree.render_line(y).text.strip() for y in (0, 1, 2)] == want


@pytest.mark.parametrize("size", [(100, 30), (160, 45), (220, 60)])
async def test_zoom_fits_the_screen(make_app, settle, corpus_root, size):
    # the zoomed pane and tree were three and two screens wide (width 3fr / 2fr in the
    # maximized view), their right border and scrollbar off the screen
    app = make_app(corpus_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        for panel, keys in (("#right", ("tab", "z")), ("#tree", ("z", "shift+tab", "z"))):
            await pilot.press(*keys)
            await settle(pilot)
            widget = app.screen.query_one(panel)
            assert app.screen.maximized is widget
            assert widget.region.x == 0 and widget.region.width == size[0]
        await pilot.press("z")
        await settle(pilot)
        assert app.screen.maximized is None


@pytest.mark.parametrize("width", [100, 120])
async def test_the_key_bar_keeps_quit_and_help_at_any_width(make_app, settle, srv_app_file, width):
    # the other keys give way first: a newcomer always sees how to get help and how to leave
    from pitui.ui.widgets.keybar import KeyBar

    app = make_app(srv_app_file)
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot)
        items = app.screen.query_one(KeyBar).items
        assert [k.description for k in items[-3:]] == ["Quit", "Help", "palette"]
        assert items[0].description == "Fold" and "Follow" not in [k.description for k in items]  # (gave way)
        assert all(a.end <= b.start for a, b in zip(items, items[1:]))


async def test_the_sidebar_says_where_typing_goes_and_keeps_its_filter_when_left(make_app, settle, demo_root):
    # (every printable key typed into it: tests/ui/test_ui_sidebar_keys.py)
    app = make_app(demo_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        rows = b.session_list
        status = b.query_one("#sidebar-filter")
        assert str(status.render()) == "shift+tab here to filter"
        rows.focus()
        await settle(pilot)
        assert str(status.render()) == "type to filter ^S sort ^N named ^D cost"
        await pilot.press("q", "t")
        await settle(pilot)
        assert rows.filter_text == "qt" and app.is_running
        assert str(status.render()) == "filter: qt▏"
        await pilot.press("escape")  # clears the filter
        await settle(pilot)
        assert rows.filter_text == ""
        await pilot.press("f", "i", "x")
        await settle(pilot)
        assert rows.filter_text == "fix"
        await pilot.press("enter")  # opens the row; the tree has the focus, keys are keys there
        await settle(pilot)
        assert b.focused is b.branch_tree and str(status.render()) == "filter: fix"
        await pilot.press("question_mark")
        await settle(pilot)
        assert type(app.screen).__name__ == "HelpScreen"


async def test_the_sidebar_shows_a_project_row_above_its_first_session_scrolled_up_to(make_app, settle, corpus_root):
    app = make_app(corpus_root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sl = browser(app).session_list
        sl.focus()
        sl.move_to_row(len(sl.items) - 1)  # the list scrolled to its end
        await pilot.pause()
        assert sl.scroll_y > 0
        first = next(k for k, it in enumerate(sl.items) if it.kind == "session")
        assert sl.items[first - 1].kind == "project"
        sl.move_to_row(first)  # (as the app does when it opens the newest session)
        await pilot.pause()
        assert sl.scroll_y == 0  # the project's row shows above its session
        # a project further down: its row comes into view with its first session, from below
        second = next(k for k, it in enumerate(sl.items) if it.kind == "project" and k > first)
        sl.move_to_row(len(sl.items) - 1)
        await pilot.pause()
        sl.move_to_row(second + 1)
        await pilot.pause()
        assert round(sl.scroll_y) == sl._starts[second]
