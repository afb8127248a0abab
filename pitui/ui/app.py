"""The pitui app: sidebar | branch tree | message pane, one factory for the CLI and tests.

Everything slow runs in thread workers: listing the sessions (rows appear as the index
fills), opening a session (skeleton scan, then the tree layout), checking lines read from
their head only, tokens/cost for the header, and drawing ahead what the next moves would
show while the user reads. The app never writes in the sessions
folder; the only files it writes are the listing index (pitui's cache folder) and the
temporary file handed to ``$PAGER``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable

from rich.text import Text

from textual import events, on, work
from textual.app import App, ComposeResult, SuspendNotSupported
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from ..core import gc_policy
from ..core.open import parallel as open_parallel
from ..core.store.discovery import SessionRoot
from ..core.store.listing import SessionIndex, SessionInfo, list_sessions
from ..core.read.session import FileChanged, NotASession, Session
from ..core.model.stats import Stats, branch_stats, session_stats
from ..core.model.summary import shorten_home
from ..core.model.layout import layout_tree
from ..core.model.navigation import fork_target, leaf_target, root_target, sibling_target, user_target
from ..core.paths import take_notices
from ..core.export.entry import entry_text, safe_name, write_entry_file
from ..core.text import visible
from .clock import Clock, system_clock
from .commands import PituiCommands
from .widgets.header import SessionHeader, WarningsBadge, WarningsScreen
from .screens.help import HelpScreen
from .widgets.keybar import KeyBar
from .widgets.sidebar import SessionList, Sidebar
from . import lookahead, textual_internals
from .textual_internals import PaintGate
from .widgets.branch_tree import BranchTree

from .pane import MessagePane
from .bindings import bindings_for

# (the context, stats and search screens and the Markdown export are imported when first
# used: a start that opens a session never needs them)

__all__ = ["PituiApp", "BrowserScreen", "EmptyScreen", "run_app"]


def _shown_path(path: str | os.PathLike) -> str:
    """A path to show: ``~`` for the home folder, control characters as stand-ins."""
    return visible(shorten_home(str(path)))


def _demo_root() -> SessionRoot | None:
    from ..demo import DEMO_ROOT

    p = Path(DEMO_ROOT)
    return SessionRoot(p, "tree", "--demo") if p.is_dir() else None


class SearchBar(Input):
    """``/``: a one-line query for the message pane's search."""

    BINDINGS = bindings_for("search_bar")

    def action_cancel(self) -> None:
        self.value = ""
        self.screen.hide_search()  # type: ignore[attr-defined]


class RightColumn(Vertical):
    """The header and the message pane (zoomed together)."""

    ALLOW_MAXIMIZE = True


class BrowserScreen(PaintGate):
    """The main screen. Keys that act on the open session live here, so they work from
    the tree and from the pane alike (the sidebar's type-to-filter takes printable keys)."""

    AUTO_FOCUS = "#tree"  # (from the first frame: not the sidebar first, then the tree)

    BINDINGS = bindings_for("browser")

    #: Actions that need an open session (greyed out in the footer without one).
    SESSION_ACTIONS = frozenset({
        "cycle_filter", "sibling", "fork", "root", "leaf", "user", "toggle_thinking", "toggle_tool_output",
        "toggle_hidden", "search", "next_hit", "context", "copy_resume", "pager", "show_warnings", "stats",
        "toggle_follow", "export_markdown", "copy_entry", "copy_id", "copy_path",
    })

    LIST_DRAIN_SECONDS = 0.15
    STATS_DELAY = 0.25
    #: How often the open file is stat'ed for growth, and the sessions re-listed.
    WATCH_SECONDS = 0.5
    #: Seconds after a session is shown before its background work (validation, stats) starts.
    BACKGROUND_DELAY = 0.3
    #: While the session named on the command line is read, the screen stays blank (its
    #: panels held back) until the session is shown: one layout and one paint of everything,
    #: instead of a first frame with an "Opening…" notice, a second layout as every panel
    #: gets its size and then the session's frame (~0.1 s of a ~0.7 s start). A read that
    #: takes long shows the panels and the notice with its progress after HOLD_SECONDS, or
    #: as soon as its progress says more than HOLD_LEFT_SECONDS are left.
    HOLD_SECONDS = 1.0
    HOLD_LEFT_SECONDS = 0.5
    #: The longest the held panels' first paint waits for them to settle (_paint_when_settled).
    SETTLE_SECONDS = 0.1
    RELIST_SECONDS = 2.0
    #: Seconds without input after which what the next moves would show is drawn ahead,
    #: while the user reads (None: never): the blocks a fork, user-message, root, leaf,
    #: page or sibling-branch key would bring into the pane and the rows it would bring
    #: into the tree. A key's first visit to a long reply otherwise waits for its drawing
    #: (~15-25 ms for 8 KB of Markdown) and a second frame. Stopped by the next input.
    LOOKAHEAD_SECONDS: float | None = 0.3

    def __init__(self) -> None:
        super().__init__(id="browser")
        self.session: Session | None = None
        self.session_path: str | None = None
        self.infos: dict[str, SessionInfo] = {}
        self.listing_done = False
        self._listing_deferred = False
        self.error: str | None = None
        self._list_lock = threading.Lock()
        self._list_buffer: list[SessionInfo] = []
        self._list_progress: tuple[int, int] = (0, 0)
        self._list_timer: Timer | None = None
        self._stats_timer: Timer | None = None
        self._pane_key: tuple[int, int] | None = None  # (id(session), leaf) shown in the pane
        self._branch_leaf = -1
        self._branch_stats: dict[int, Stats] = {}
        self._session_stats: Stats | None = None
        self._from_pane = False
        self._search_origin = None
        self._history: list[tuple[str, str | None]] = []  # (path, selected id) for Backspace
        self._select_id: str | None = None
        self.following = False
        self._refreshing: Session | None = None  # the session a refresh worker is reading
        self._relisting = False
        self._opening: open_parallel.ParallelOpen | None = None  # the open being read
        self._footer_session = False  # whether the footer shows the session keys as usable
        self._frozen_before = False  # a session was shown (and its objects frozen) before
        self._resumed = False  # has been the screen on top
        self._hold_timer: Timer | None = None  # the panels are held back (see HOLD_SECONDS)
        self._hold_since = 0.0
        self._settling = False  # no paint until the first session's changes settle
        self._lookahead_timer: Timer | None = None

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed:
            # The first time on top, just mounted: each widget was styled as it was
            # mounted, and Textual would style them all again (a sixth of the first
            # frame). Later resumes (after a dialog) restyle as usual.
            self._resumed = True
            event.refresh_styles = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.SESSION_ACTIONS:
            if isinstance(self.focused, SessionList):
                return False  # the sidebar takes printable keys for its filter
            if self.session is None:
                return None
        return True

    @property
    def papp(self) -> "PituiApp":
        return self.app  # type: ignore[return-value]

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield Sidebar(clock=self.papp.clock, id="sidebar")
            yield BranchTree(id="tree")
            with RightColumn(id="right"):
                yield SessionHeader(id="header")
                # The notice lies over the pane (a layer of its own) rather than taking
                # turns with it: the pane keeps its size, so a session opened behind the
                # notice is laid out once, in the frame that shows it.
                with Vertical(id="pane-box"):
                    yield MessagePane(id="pane")
                    with VerticalScroll(id="notice"):
                        yield Static("", id="notice-text", markup=False)
                yield SearchBar(placeholder="search this branch (Enter: find, Esc: cancel)", id="search")
        yield KeyBar()

    @property
    def branch_tree(self) -> BranchTree:
        return self.query_one(BranchTree)

    @property
    def pane(self) -> Any:
        return self.query_one("#pane")

    @property
    def sidebar(self) -> Sidebar:
        return self.query_one(Sidebar)

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    @property
    def header(self) -> SessionHeader:
        return self.query_one(SessionHeader)

    def on_mount(self) -> None:
        # The tree calls the selection handler at once (no message round trip): the pane
        # is drawn in the same frame as the tree, from the first session shown on.
        self.branch_tree.selection_hook = self.on_branch_tree_selection_changed
        self.reload()
        self.set_interval(self.WATCH_SECONDS, self._watch_tick)
        self.set_interval(self.RELIST_SECONDS, self._relist_tick)

    def reload(self) -> None:
        """(Re)start on the app's root: list its sessions and open the newest."""
        app = self.papp
        root = app.root
        self.session = None
        self.session_path = None
        self.error = None
        self._pane_key = None
        self.branch_tree.clear()
        self.session_list.open_path = None
        self.session_list.set_infos([])
        self.session_list.loose_label = _shown_path(root.path) if root.kind == "flat" else "(no project folder)"
        title = "Sessions · demo" if app.demo else "Sessions"
        self.sidebar.border_title = title
        self.sidebar.border_subtitle = Content(_shown_path(root.path))  # (a str would be read as markup)
        self._update_tree_title()
        self.query_one("#right").border_title = "Messages"
        self.show_notice("Reading sessions…", f"in {_shown_path(root.path)} ({root.source})")
        self.header.show_message("pitui", f"{_shown_path(root.path)} ({root.source})")
        self.branch_tree.placeholder = "reading sessions…"
        self.branch_tree.focus()
        want = app.select_path
        if want is not None and os.path.isfile(want):
            # A session named on the command line opens at once; the sidebar's listing
            # waits until it is on screen (or failed to open).
            self._listing_deferred = True
            if not self._resumed:
                self._hold()
            self.open_session(want)
        else:
            self.start_listing()

    def _hold(self) -> None:
        """Hold the panels back while the first session is read: nothing is painted
        meanwhile (the terminal stays blank; see paint_held)."""
        self.query_one("#main").display = False
        self._hold_since = time.monotonic()
        self._hold_timer = self.set_timer(self.HOLD_SECONDS, self._end_hold)

    def _end_hold(self, lay_out: bool = False) -> bool:
        """Show the panels if they were held back (and say whether they were);
        ``lay_out``: give them their sizes at once (the session about to be set then is
        laid out and drawn at its size in the next frame, not drawn blank first and again
        once each panel has heard its size)."""
        if self._hold_timer is None:
            return False
        self._hold_timer.stop()
        self._hold_timer = None
        self.query_one("#main").display = True
        if lay_out:
            self._lay_out_now()
        return True

    def _lay_out_now(self) -> None:
        textual_internals.lay_out_now(self)

    def paint_held(self) -> bool:
        # held: nothing is painted until the panels are shown; settling: they are painted
        # once settled (see _paint_when_settled)
        return self._settling or self._hold_timer is not None

    def _paint_when_settled(self) -> None:
        """Paint nothing until what was just set has settled: every panel has taken in its
        new size and asked for what it needs, so that the screen is laid out and painted
        once (not a frame, then a layout and another frame for each round of changes:
        the scrollbars, the header). At most SETTLE_SECONDS."""
        app = self.app
        textual_internals.begin_batch(app)  # (no layout pass nor paint at Textual's frames meanwhile)
        self._settling = True  # (nor the paint a layout made now leaves for later)
        started = time.monotonic()
        timer: list[Timer] = []

        def check() -> None:
            if not timer:
                return
            try:
                done = not textual_internals.has_pending_work(self) or time.monotonic() - started > self.SETTLE_SECONDS
            except Exception:  # (Textual's internals: pinned, but never hold the screen)
                done = True
            if done:
                timer.pop().stop()
                self._settling = False
                textual_internals.end_batch(app)
                self.refresh()  # (what was left unpainted)

        timer.append(self.set_interval(0.002, check))

    # ------------------------------------------------------------------ listing
    def start_listing(self) -> None:
        self.listing_done = False
        self.infos = {}
        with self._list_lock:
            self._list_buffer = []
            self._list_progress = (0, 0)
        self._list_timer = self.set_interval(self.LIST_DRAIN_SECONDS, self._drain_listing)
        self._list_worker(self.papp.root)

    @work(thread=True, exclusive=True, group="listing", exit_on_error=False)
    def _list_worker(self, root: SessionRoot) -> None:
        worker = get_current_worker()

        def on_info(info: SessionInfo, done: int, total: int) -> None:
            with self._list_lock:
                self._list_buffer.append(info)
                self._list_progress = (done, total)

        try:
            infos = list_sessions(root, self.papp.index, on_info=on_info)
        except Exception as exc:  # a store we cannot read at all
            if not worker.is_cancelled:
                self.app.call_from_thread(self._listing_failed, str(exc))
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._listing_done, infos)

    def _drain_listing(self) -> None:
        with self._list_lock:
            batch, self._list_buffer = self._list_buffer, []
            done, total = self._list_progress
        if batch:
            for info in batch:
                self.infos[info.path] = info
            self.session_list.set_infos(list(self.infos.values()))
        if total:
            self.sidebar.set_progress(done, total)

    def _listing_failed(self, reason: str) -> None:
        if self._list_timer is not None:
            self._list_timer.stop()
        self.listing_done = True
        self.show_notice("Could not list sessions", reason)

    def _listing_done(self, infos: list[SessionInfo]) -> None:
        if self._list_timer is not None:
            self._list_timer.stop()
            self._list_timer = None
        with self._list_lock:
            self._list_buffer = []
        self.listing_done = True
        self.infos = {i.path: i for i in infos}
        self.sidebar.set_progress(1, 1)
        self.session_list.set_infos(infos)
        if not infos:
            self.app.push_screen(EmptyScreen(self.papp.root))
            return
        if self.session_path is None:
            want = self.papp.select_path
            path = None
            if want is not None and want in self.infos:
                path = want
            else:
                for it in self.session_list.items:
                    if it.kind == "session" and it.info is not None and it.info.error is None:
                        path = it.key
                        break
                if path is None:
                    path = next((it.key for it in self.session_list.items if it.kind == "session"), None)
            if path is not None:
                self.open_session(path)

    # ------------------------------------------------------------------ opening
    def on_session_list_open_requested(self, event: SessionList.OpenRequested) -> None:
        event.stop()
        self.open_session(event.path)
        self.branch_tree.focus()

    def open_session(
        self, path: str, *, select_id: str | None = None, remember: bool = True, force: bool = False
    ) -> None:
        """Open ``path`` (in a worker); the tree selects ``select_id`` or the current leaf.
        The session left behind is remembered for Backspace. ``force`` reads it again
        even when it is the one open (a file that was replaced)."""
        if path == self.session_path and self.session is not None and not force:
            if select_id is not None and select_id in self.session.index_of:
                tree = self.branch_tree
                if not tree.select_entry(self.session.index_of[select_id]) and tree.tree_layout is not None:
                    tree.move_to_row(tree.tree_layout.nearest_row(self.session, self.session.index_of[select_id]))
            return
        if remember and self.session is not None and self.session_path is not None:
            sel = self.branch_tree.selected_entry
            self._history.append((self.session_path, self.session.ids[sel] if sel >= 0 else None))
            del self._history[:-50]
        self._select_id = select_id
        self.session_path = path
        self.session = None
        # What _session_ready froze stays frozen while this session opens: the session left
        # behind is freed by reference counting, and unfreezing here made the next full
        # collection (~0.2 s over ~200,000 objects) land in the middle of this open. The
        # cycles it left are collected once the new session is on screen (_after_first_paint).
        # The footer keeps showing the session keys while the next session opens (they do
        # nothing meanwhile: check_action): redrawing it twice per open cost ~0.1 s.
        self.error = None
        self._pane_key = None
        self._branch_stats = {}
        self._session_stats = None
        self.branch_tree.placeholder = "opening…"
        self.branch_tree.clear()
        self.session_list.set_open(path)
        info = self.infos.get(path)
        title = info.title if info else os.path.basename(path)
        self.header.show_message(title, _shown_path(path))
        self.show_notice("Opening…", _shown_path(path))
        self.workers.cancel_group(self, "validate")
        self.workers.cancel_group(self, "stats")
        if self._opening is not None:
            self._opening.cancel()  # its worker processes, if any
        # Started here, not in the worker thread: the worker processes begin at once
        # instead of after this frame's repaint (a stat, a header line, a few spawns).
        self._opening = open_parallel.start(path, freeze=True)
        pane = self.pane if select_id is None and not self.following else None
        tree = self.branch_tree if pane is not None else None
        self._open_worker(path, self._opening, self.branch_tree.mode, pane, tree)

    @work(thread=True, exclusive=True, group="open", exit_on_error=False)
    def _open_worker(self, path: str, opening: open_parallel.ParallelOpen, mode: str, pane: Any = None,
                     tree: BranchTree | None = None) -> None:
        worker = get_current_worker()
        started = time.monotonic()
        shown = [started]

        def prepare(session: Session) -> None:
            # The pane works out the blocks of the branch it will show first (the current
            # leaf's) here, while a streaming worker still lays out the tree.
            nonlocal pane
            if pane is None or worker.is_cancelled or session.leaf < 0:
                return
            target, pane = pane, None
            try:
                target.prepare(session, session.leaf)
            except Exception:
                pass  # (the pane works them out itself when it shows the branch)

        def progress(done: int, total: int) -> None:
            # Only a read that takes a while shows its progress, a few times a second: a
            # repaint costs the UI thread 20-50 ms that the read would rather have.
            # Nor is "100%" shown: the session is on screen a moment later, and the repaint
            # would only slow what is left to do.
            now = time.monotonic()
            if total > 16 * 1024 * 1024 and done < total and now - shown[0] >= 0.25 and not worker.is_cancelled:
                shown[0] = now
                # post, don't wait: call_from_thread would stall the read on the UI thread
                self.post_message(self.OpenProgress(path, done, total))

        try:
            # A big file is read in parts by worker processes (off this interpreter, which
            # the user interface needs); ``pitui FILE`` started it before Textual loaded.
            if worker.is_cancelled:
                return
            session = opening.result(progress, on_tree=prepare)
            layout = opening.layout(session, mode)  # here, not on the UI thread
            prepare(session)
            if tree is not None and not worker.is_cancelled and session.leaf >= 0:
                # (the tree's first rows too: the first screen shows the current leaf's)
                try:
                    tree.prepare(session, layout, session.leaf)
                except Exception:
                    pass
        except NotASession as exc:
            if not worker.is_cancelled:
                self.app.call_from_thread(self._open_failed, path, exc.reason)
            return
        except Exception as exc:  # never a traceback for a file
            if not worker.is_cancelled:
                self.app.call_from_thread(self._open_failed, path, f"cannot be read ({type(exc).__name__}: {exc})")
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._session_ready, path, session, layout, mode)

    class OpenProgress(Message):
        """How far the open worker has read (posted from its thread)."""

        def __init__(self, path: str, done: int, total: int) -> None:
            super().__init__()
            self.path, self.done, self.total = path, done, total

    def on_browser_screen_open_progress(self, event: "BrowserScreen.OpenProgress") -> None:
        self._open_progress(event.path, event.done, event.total)

    def _open_progress(self, path: str, done: int, total: int) -> None:
        if path == self.session_path and self.session is None:
            if self._hold_timer is not None and done:
                # at the pace so far, counted from the hold (the read of `pitui FILE`
                # began a little earlier: this errs towards holding, which HOLD_SECONDS
                # bounds)
                left = (time.monotonic() - self._hold_since) * (total - done) / done
                if left > self.HOLD_LEFT_SECONDS:
                    self._end_hold()
            pct = int(done * 100 / total) if total else 100
            self.show_notice(f"Opening… {pct}%", f"{_shown_path(path)}\n{done / 1e6:.0f} of {total / 1e6:.0f} MB read")

    def _open_failed(self, path: str, reason: str) -> None:
        self._end_hold()
        if self._listing_deferred:
            self._listing_deferred = False
            self.start_listing()
        if path != self.session_path:
            return
        self.error = reason
        self._footer_for_session(False)
        self.branch_tree.placeholder = "no tree (not a readable session)"
        self.branch_tree.clear()
        self._update_tree_title()
        self.header.show_message(os.path.basename(path), reason)
        self.show_notice("This file cannot be shown", f"{_shown_path(path)}\n\n{visible(reason)}")

    def _footer_for_session(self, shown: bool) -> None:
        """Show the session keys in the footer as usable (or not), redrawing it only when
        that changes."""
        if shown != self._footer_session:
            self._footer_session = shown
            self.refresh_bindings()

    def _session_ready(self, path: str, session: Session, layout, mode: str) -> None:
        if path != self.session_path:
            return
        if mode != self.branch_tree.mode:
            layout = None
        self.session = session
        self._footer_for_session(True)
        self._cover_pane(False)
        if self._hold_timer is not None:
            # (what the session changes in the screen's layout, before the layout that
            # shows the panels: not in a second one after it)
            self.branch_tree.expect_rows(len(layout.rows) if layout is not None else len(session))
        held = self._end_hold(lay_out=True)
        select = session.index_of.get(self._select_id, session.leaf) if self._select_id else session.leaf
        if self.following:
            select = session.leaf
        self.branch_tree.set_session(session, layout, select=select)
        self._update_tree_title()
        self._update_header()
        self.header.set_warnings(session.all_warnings)
        if held:
            self._paint_when_settled()
        # What is alive now (the session, its layout, the app) lives on: left out of every
        # full garbage collection from now on (open_session unfreezes it).
        gc_policy.freeze_what_is_alive()
        gc_policy.end_start_pause()  # (collection was paused for the start: see cli)
        # Background work (whole-line validation, stats, a listing held back for this open)
        # starts after the first paint, so it does not slow the screen the user waits for.
        if self.BACKGROUND_DELAY > 0:
            self.set_timer(self.BACKGROUND_DELAY, lambda: self._after_first_paint(session))
        else:
            self._after_first_paint(session)

    def _after_first_paint(self, session: Session) -> None:
        if self._listing_deferred:
            self._listing_deferred = False
            self.start_listing()
        if session is not self.session:
            return
        if self._frozen_before:
            gc_policy.refreeze()
        self._frozen_before = True
        self.branch_tree.prepare_navigation()
        self._validate_worker(session)
        self._schedule_stats(now=True)
        self.schedule_lookahead()

    # ------------------------------------------------------------------ drawing ahead
    def schedule_lookahead(self) -> None:
        """Draw ahead once there has been no input for LOOKAHEAD_SECONDS (the app calls
        this on every input)."""
        if self.LOOKAHEAD_SECONDS is not None and self._lookahead_timer is None:
            self._lookahead_timer = self.set_timer(self.LOOKAHEAD_SECONDS, self._look_ahead)

    def _look_ahead(self) -> None:
        self._lookahead_timer = None
        app = self.app
        quiet = self.LOOKAHEAD_SECONDS or 0.0
        since = getattr(app, "last_input_at", 0.0)
        wait = quiet - (time.monotonic() - since)
        if wait > 0.005:
            self._lookahead_timer = self.set_timer(wait, self._look_ahead)
            return
        lookahead.look_ahead(self, since)

    @work(thread=True, exclusive=True, group="validate", exit_on_error=False)
    def _validate_worker(self, session: Session) -> None:
        worker = get_current_worker()
        before = len(session.warnings)
        damaged = session.validate_lazy_lines(should_stop=lambda: worker.is_cancelled)
        # (the whole lines read may hold problems too: wrong types, broken text)
        if (damaged or len(session.warnings) != before) and not worker.is_cancelled:
            self.app.call_from_thread(self._validated, session, damaged)

    def _validated(self, session: Session, damaged: list[int]) -> None:
        if session is not self.session:
            return
        if damaged:
            self.branch_tree.forget_summaries(damaged)
        self.header.set_warnings(session.all_warnings)

    # ------------------------------------------------------------------ following
    def _watch_tick(self) -> None:
        """Every WATCH_SECONDS: a stat of the open file (device, inode, size and mtime, as
        the session read it); growth is read in a worker, another file read again."""
        s = self.session
        if s is None or self.session_path is None or self._refreshing is s:
            return
        try:
            st = os.stat(s.path)
        except OSError:
            return
        if s.unchanged(st):
            return
        if st.st_size < s.scanned_to or not s.same_file(st):
            self._read_again()
            return
        self._refreshing = s
        tree = self.branch_tree
        self._refresh_worker(s, tree.mode, frozenset(tree.folded))

    def _read_again(self) -> None:
        """The open file is another file now (replaced, rewritten or cut short): read it
        again from the start, keeping the selection."""
        s = self.session
        if s is None or self.session_path is None:
            return
        sel = self.branch_tree.selected_entry
        self.open_session(self.session_path, select_id=s.ids[sel] if 0 <= sel < len(s.ids) else None,
                          remember=False, force=True)
        self.notify("The session file was replaced: read again", timeout=2)

    @work(thread=True, exclusive=True, group="refresh", exit_on_error=False)
    def _refresh_worker(self, session: Session, mode: str, folded: frozenset[int]) -> None:
        # The session the screen draws from is never changed from this thread: a snapshot
        # is refreshed here and adopted on the UI thread in one step (_refreshed).
        layout = None
        snap = session.snapshot()
        try:
            added = snap.refresh(validate=False)
            if added:
                layout = layout_tree(snap, mode, folded)
        except Exception:  # a file that vanished or turned unreadable: try again later
            added = 0
        self.app.call_from_thread(self._refreshed, session, snap, added, layout, mode, folded)

    def _refreshed(self, session: Session, snap: Session, added: int, layout, mode: str,
                   folded: frozenset[int]) -> None:
        if self._refreshing is session:
            self._refreshing = None
        if session is not self.session or not added:
            return
        session.adopt(snap)
        tree = self.branch_tree
        if layout is None or mode != tree.mode or folded != frozenset(tree.folded):
            layout = layout_tree(session, tree.mode, frozenset(tree.folded))
        self._branch_stats = {}
        self._session_stats = None
        self._pane_key = None
        keep = session.leaf if self.following else tree.selected_entry
        tree.session_grew(layout, keep, follow=self.following)
        self.header.set_warnings(session.all_warnings)
        self._show_branch_for(tree.selected_entry, force_header=True)
        if self.following:
            self.pane.scroll_end(animate=False, immediate=True)

    def _follow_entry(self) -> int:
        """The row follow mode keeps selected: the newest leaf (or its nearest shown ancestor)."""
        s, tree = self.session, self.branch_tree
        if s is None or tree.tree_layout is None or not tree.tree_layout.rows:
            return -1
        return tree.tree_layout.rows[tree.tree_layout.nearest_row(s, s.leaf)].entry

    def action_toggle_follow(self) -> None:
        self.following = not self.following
        self._update_tree_title()
        if self.following and self.session is not None:
            target = self._follow_entry()
            if target >= 0 and target != self.branch_tree.selected_entry:
                self.branch_tree.select_entry(target, center=None)
            self.pane.scroll_end(animate=False, immediate=True)
        self.notify("Following the session" if self.following else "Follow off", timeout=1.5)

    def _relist_tick(self) -> None:
        if not self.listing_done or self._relisting:
            return
        self._relisting = True
        self._relist_worker(self.papp.root)

    @work(thread=True, exclusive=True, group="relist", exit_on_error=False)
    def _relist_worker(self, root: SessionRoot) -> None:
        try:
            infos = list_sessions(root, self.papp.index)
        except Exception:
            infos = None
        self.app.call_from_thread(self._relisted, root, infos)

    def _relisted(self, root: SessionRoot, infos: list[SessionInfo] | None) -> None:
        self._relisting = False
        if infos is None or root is not self.papp.root or not self.listing_done or not infos:
            return
        new = {i.path: i for i in infos}
        if new == self.infos:
            return
        self.infos = new
        self.session_list.set_infos(infos)  # keeps the selected row (by path)

    # ------------------------------------------------------------------ header and stats
    def _update_header(self) -> None:
        s = self.session
        if s is None:
            return
        info = self.infos.get(self.session_path or "")
        title = s.name or (info.first_message if info and info.error is None else None) or os.path.basename(s.path)
        nav = self.branch_tree.nav
        if self._branch_leaf < 0:
            branch_len = 0
        elif nav is not None and nav.session is s and nav.paths is not None:
            branch_len = len(nav.paths.path(self._branch_leaf))
        else:
            branch_len = len(s.path_to(self._branch_leaf))
        self.header.show_session(
            title=title,
            named=bool(s.name),
            cwd=s.cwd,
            created=s.header.get("timestamp"),
            branch=self._branch_stats.get(self._branch_leaf),
            session=self._session_stats,
            entries=len(s),
            branch_len=branch_len,
        )

    def _schedule_stats(self, now: bool = False) -> None:
        if self._stats_timer is not None:
            self._stats_timer.stop()
            self._stats_timer = None
        s = self.session
        if s is None:
            return
        leaf = self._branch_leaf
        need_session = self._session_stats is None
        if leaf in self._branch_stats and not need_session:
            self._update_header()
            return
        if now or self.STATS_DELAY <= 0:
            self._stats_worker(s, leaf, need_session)
        else:
            self._stats_timer = self.set_timer(self.STATS_DELAY, lambda: self._stats_worker(s, leaf, need_session))

    @work(thread=True, exclusive=True, group="stats", exit_on_error=False)
    def _stats_worker(self, session: Session, leaf: int, need_session: bool) -> None:
        worker = get_current_worker()
        b = branch_stats(session, leaf) if leaf >= 0 else Stats()
        if worker.is_cancelled:
            return
        ss = session_stats(session) if need_session else None
        if not worker.is_cancelled:
            self.app.call_from_thread(self._stats_ready, session, leaf, b, ss)

    def _stats_ready(self, session: Session, leaf: int, b: Stats, ss: Stats | None) -> None:
        if session is not self.session:
            return
        self._branch_stats[leaf] = b
        if ss is not None:
            self._session_stats = ss
        self._update_header()

    # ------------------------------------------------------------------ tree <-> pane
    def _update_tree_title(self) -> None:
        tree = self.branch_tree
        title = f"Tree · {tree.mode}" + (" · following" if self.following else "")
        if tree.tree_layout is not None and tree.tree_layout.rows:
            subtitle = f"{tree.cursor_row + 1}/{tree.row_count}"
        else:
            subtitle = ""
        # (setting the title repaints the whole tree, even to the same text; the
        # subtitle, which changes with every move, only its line: set_subtitle)
        if tree.border_title != title:
            tree.border_title = title
        tree.set_subtitle(subtitle)

    def on_branch_tree_layout_changed(self, event: BranchTree.LayoutChanged) -> None:
        self._update_tree_title()

    def on_branch_tree_selection_changed(self, event: BranchTree.SelectionChanged) -> None:
        self._update_tree_title()
        if self.following and event.entry >= 0 and event.entry != self._follow_entry():
            self.following = False
            self._update_tree_title()
            self.notify("Follow off (you moved the selection; F follows again)", timeout=2)
        if self._from_pane:
            return
        self._show_branch_for(event.entry)

    def _show_branch_for(self, sel: int, force_header: bool = False) -> None:
        s = self.session
        tree = self.branch_tree
        if s is None or sel < 0 or tree.nav is None:
            return
        leaf = tree.nav.leaf_below(sel)
        tree.nav.sticky_leaf = leaf
        key = (id(s), leaf)
        pane = self.pane
        if key == self._pane_key:
            pane.scroll_to_entry(sel)
        else:
            self._pane_key = key
            pane.show_leaf(s, leaf, sel)  # walks only up to the branch shown now, copies once
        if leaf != self._branch_leaf or force_header:
            self._branch_leaf = leaf
            self._update_header()
            self._schedule_stats()

    def on_message_pane_entry_focused(self, event) -> None:
        """The pane scrolled so another entry is at its top: follow it in the tree."""
        tree = self.branch_tree
        if self.session is None or tree.tree_layout is None:
            return
        entry = getattr(event, "entry", -1)
        if entry is None or entry < 0:
            return
        pane = self.pane
        # Follow only the user's own scrolling (not the echo of our scroll_to_entry, nor
        # a branch end that cannot reach the top), and not within the selected block.
        if not (pane.has_focus or pane.mouse_hover):
            return
        block_of = getattr(pane, "block_of", None)
        sel = tree.selected_entry
        if block_of is not None and sel >= 0 and block_of(sel) is not None and block_of(sel) == block_of(entry):
            return
        row = tree.tree_layout.nearest_row(self.session, entry)
        self._from_pane = True
        try:
            tree.move_to_row(row, center=None)
        finally:
            self._from_pane = False

    def on_message_pane_open_session_file(self, event) -> None:
        """A subagent's full transcript: open it (Backspace comes back)."""
        event.stop()
        self.open_session(event.path)

    def show_notice(self, title: str, body: str = "") -> None:
        """The notice over the pane: its text as it is (no markup), controls as stand-ins."""
        title = visible(title)
        self.query_one("#notice-text", Static).update(f"{title}\n\n{visible(body, block=True)}" if body else title)
        self._cover_pane(True)

    def _cover_pane(self, cover: bool) -> None:
        """Show the notice over the pane (which cannot be focused under it), or take it away."""
        pane = self.pane
        if cover and pane.has_focus:
            self.branch_tree.focus()
        pane.can_focus = not cover
        self.query_one("#notice").display = cover

    # ------------------------------------------------------------------ actions
    def _nav_move(self, target: int | None, what: str) -> None:
        if self.session is None or self.branch_tree.nav is None:
            return
        if target is None or target < 0:
            self.app.bell()
            self.notify(f"No {what}", timeout=1.5)
            return
        self.branch_tree.select_entry(target)

    def action_sibling(self, step: int) -> None:
        t = self.branch_tree
        if t.nav is None:
            return
        self._nav_move(sibling_target(t.nav, t.selected_entry, step),
                       "previous sibling branch" if step < 0 else "next sibling branch")

    def action_fork(self, step: int) -> None:
        t = self.branch_tree
        if t.nav is None:
            return
        self._nav_move(fork_target(t.nav, t.selected_entry, step),
                       "fork above" if step < 0 else "fork below")

    def action_root(self) -> None:
        t = self.branch_tree
        if t.nav is None:
            return
        self._nav_move(root_target(t.nav, t.selected_entry), "root")

    def action_leaf(self) -> None:
        t = self.branch_tree
        if t.nav is None:
            return
        self._nav_move(leaf_target(t.nav, t.selected_entry), "leaf")

    def action_user(self, step: int) -> None:
        t = self.branch_tree
        if t.nav is None:
            return
        self._nav_move(user_target(t.nav, t.selected_entry, step),
                       "user message above" if step < 0 else "user message below")

    def action_cycle_filter(self) -> None:
        mode = self.branch_tree.cycle_mode()
        self._update_tree_title()
        self.notify(f"Filter: {mode}", timeout=1.5)

    def set_filter(self, mode: str) -> None:
        self.branch_tree.mode = mode
        self._update_tree_title()

    def _toggle_pane(self, attr: str, what: str) -> None:
        pane = self.pane
        value = not getattr(pane, attr)
        setattr(pane, attr, value)
        self.notify(f"{what}: {'on' if value else 'off'}", timeout=1.5)

    def action_toggle_thinking(self) -> None:
        self._toggle_pane("show_thinking", "Thinking")

    def action_toggle_tool_output(self) -> None:
        pane = self.pane
        pane.full_tool_output = not pane.full_tool_output
        self.notify(f"Tool output: {'full' if pane.full_tool_output else 'short'}", timeout=1.5)

    def action_toggle_hidden(self) -> None:
        self._toggle_pane("show_hidden", "Hidden messages")

    def action_search(self) -> None:
        if self.session is None:
            return
        bar = self.query_one(SearchBar)
        self._search_origin = self.focused
        bar.display = True
        bar.focus()

    def hide_search(self) -> None:
        bar = self.query_one(SearchBar)
        bar.display = False
        origin = self._search_origin
        if origin is not None and origin.is_attached and origin is not bar:
            origin.focus()
        else:
            self.branch_tree.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        query = event.value.strip()
        self.hide_search()
        if not query or self.session is None:
            return
        count = self.pane.search(query)
        if not count:
            self.notify(f"No match for {query!r} on this branch", timeout=2)
            return
        self.notify(f"{count} match{'es' if count != 1 else ''} for {query!r} (n / N)", timeout=2)
        self._goto_hit(False)

    def _goto_hit(self, backwards: bool) -> None:
        entry = self.pane.next_hit(backwards=backwards)
        if entry is None:
            self.app.bell()
            return
        tree = self.branch_tree
        if tree.tree_layout is None or self.session is None:
            return
        self._from_pane = True
        try:
            if not tree.select_entry(entry):
                tree.move_to_row(tree.tree_layout.nearest_row(self.session, entry))
        finally:
            self._from_pane = False

    def action_next_hit(self, backwards: bool) -> None:
        if self.session is None:
            return
        self._goto_hit(backwards)

    def action_context(self) -> None:
        s, sel = self.session, self.branch_tree.selected_entry
        if s is None or sel < 0:
            return
        from .screens.context import ContextScreen

        self.app.push_screen(ContextScreen(s, sel))

    def action_back(self) -> None:
        """Back to the session opened before this one (e.g. after a subagent transcript)."""
        if not self._history:
            self.app.bell()
            self.notify("No previous session", timeout=1.5)
            return
        path, sel = self._history.pop()
        self.open_session(path, select_id=sel, remember=False)

    def action_zoom(self) -> None:
        if self.maximized is not None:
            self.minimize()
        elif self.focused is not None:
            self.maximize(self.focused)

    def action_stats(self) -> None:
        s = self.session
        if s is None:
            return
        leaf = self._branch_leaf if self._branch_leaf >= 0 else s.leaf
        from .screens.stats import StatsScreen

        self.app.push_screen(
            StatsScreen(s, leaf, branch=self._branch_stats.get(leaf), whole=self._session_stats)
        )

    def action_search_all(self) -> None:
        """Every session under the root; the chosen hit opens with its entry selected."""

        def opened(result) -> None:
            if result is None:
                return
            path, entry_id = result
            self.open_session(path, select_id=entry_id)
            self.branch_tree.focus()

        from .screens.search import SearchScreen

        self.app.push_screen(
            SearchScreen(
                self.papp.root,
                infos=list(self.infos.values()),
                clock=self.papp.clock,
                index_dir=self.papp.index.dir,
            ),
            opened,
        )

    def action_copy_resume(self) -> None:
        s = self.session
        if s is None or not s.id:
            return
        text = f"pi --session {s.id}"
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied: {visible(text)}", timeout=2)

    def _copy(self, text: str, what: str) -> None:
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {what}", timeout=2)

    def action_copy_id(self) -> None:
        s = self.session
        if s is None or not s.id:
            self.app.bell()
            return
        self._copy(s.id, f"the session id: {visible(s.id)}")

    def action_copy_path(self) -> None:
        s = self.session
        if s is None:
            return
        self._copy(s.path, f"the path: {_shown_path(s.path)}")

    def action_copy_entry(self) -> None:
        s, sel = self.session, self.branch_tree.selected_entry
        if s is None or sel < 0:
            return
        try:
            text = entry_text(s, sel)
        except OSError as exc:
            self._cannot_read(s, exc)
            return
        lines = text.count("\n") + 1 if text else 0
        self._copy(text, f"{len(text):,} characters ({lines:,} line{'s' if lines != 1 else ''}) of entry {visible(s.ids[sel])}")

    def export_leaf(self) -> int:
        """The leaf of the branch the pane shows (the session's leaf before one is shown)."""
        s = self.session
        if s is None:
            return -1
        return self._branch_leaf if 0 <= self._branch_leaf < len(s) else s.leaf

    def default_export_path(self) -> str:
        s = self.session
        assert s is not None
        leaf = self.export_leaf()
        name = safe_name(s.name or s.id or os.path.splitext(os.path.basename(s.path))[0])
        leaf_id = safe_name(s.ids[leaf]) if leaf >= 0 else "empty"
        path = os.path.join(os.getcwd(), f"{name}-{leaf_id}.md")
        if self.export_refusal(path) is not None:  # started inside the sessions folder
            path = os.path.join(os.path.expanduser("~"), f"{name}-{leaf_id}.md")
        return path

    def export_refusal(self, path: str) -> str | None:
        """Why ``path`` may not be written (see :func:`pitui.core.export.guard.export_refusal`:
        in a sessions folder, or a session file by any name)."""
        from ..core.store.discovery import resolve_root
        from ..core.export.guard import export_refusal

        s = self.session
        return export_refusal(path, s.path if s is not None else "", [self.papp.root, resolve_root()])

    def action_export_markdown(self) -> None:
        s = self.session
        if s is None:
            return
        leaf = self.export_leaf()

        def chosen(path: str | None) -> None:
            if path:
                self.export_to(path, s, leaf)

        self.app.push_screen(ExportScreen(self.default_export_path(), self.export_refusal), chosen)

    def export_to(self, path: str, session: Session | None = None, leaf: int | None = None) -> str | None:
        """Write the branch ending at ``leaf`` to ``path`` as Markdown and copy it. Returns
        the path written, or None (refused or failed, with a notify)."""
        from ..core.export.markdown import export_markdown

        s = session or self.session
        if s is None:
            return None
        leaf = self.export_leaf() if leaf is None else leaf
        path = os.path.abspath(os.path.expanduser(path.strip()))
        why = self.export_refusal(path)
        if why is not None:
            self.notify(f"Not exported: {why}", severity="error", timeout=5)
            return None
        try:
            text = export_markdown(s, leaf)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        except Exception as exc:
            self.notify(f"Could not export to {path}: {exc}", severity="error", timeout=6)
            return None
        self.app.copy_to_clipboard(text)
        self.notify(f"Exported to {_shown_path(path)} (and copied, {len(text):,} characters)", timeout=4)
        return path

    def action_show_warnings(self) -> None:
        s = self.session
        if s is None:
            return
        self.app.push_screen(WarningsScreen(s.path, s.all_warnings))

    def on_warnings_badge_pressed(self, event: WarningsBadge.Pressed) -> None:
        self.action_show_warnings()

    def action_pager(self) -> None:
        s, sel = self.session, self.branch_tree.selected_entry
        if s is None or sel < 0:
            return
        pager = os.environ.get("PAGER", "").strip() or ("less" if shutil.which("less") else "more")
        try:
            command = shlex.split(pager)
        except ValueError as exc:  # e.g. an unclosed quote
            self.notify(visible(f"$PAGER cannot be run ({exc}): {pager}"), severity="error", timeout=6, markup=False)
            return
        path = self.entry_file(s, sel)
        if path is None:
            return
        keep = False
        try:
            with self.app.suspend():
                subprocess.call(command + [path])
        except SuspendNotSupported:
            keep = True  # (the file is what the user gets here)
            self.notify(visible(f"Entry written to {path}"), timeout=4, markup=False)
            return
        except OSError as exc:
            self.notify(visible(f"Could not run {pager!r}: {exc}"), severity="error", timeout=6, markup=False)
            return
        finally:
            if not keep:
                try:
                    os.unlink(path)
                except OSError:
                    pass
        self.refresh()

    def entry_file(self, s: Session, i: int) -> str | None:
        """Entry ``i`` written to a temporary file for the pager (:func:`write_entry_file`),
        or None with a toast saying why not: the session file is gone, another file took
        its name (then it is read again), or it cannot be read."""
        try:
            return write_entry_file(s, i, self.papp.root)
        except OSError as exc:
            self._cannot_read(s, exc)
        return None

    def _cannot_read(self, s: Session, exc: OSError) -> None:
        """Say why an entry's line could not be read back (read the file again when
        another file took its name)."""
        if isinstance(exc, FileChanged):
            self._read_again()
        elif isinstance(exc, FileNotFoundError):
            self.notify(visible(f"The session file is gone: {shorten_home(s.path)}"), severity="error", timeout=6,
                        markup=False)
        else:
            self.notify(visible(f"Could not read the entry: {exc.strerror or exc}"), severity="error", timeout=6,
                        markup=False)


class ExportScreen(ModalScreen[str | None]):
    """``x``: where to write the Markdown export (Enter writes, Esc cancels). A file that
    exists is overwritten only after a second Enter on the same path."""

    BINDINGS = bindings_for("export")
    PROMPT = "Export the branch shown to Markdown (Enter: write, Esc: cancel)"

    def __init__(self, default: str, refusal: Callable[[str], str | None] | None = None) -> None:
        super().__init__(id="export")
        self.default = default
        self.refusal = refusal  # (a refused path is handed back: the caller says why)
        self._confirm: str | None = None  # the existing file a second Enter overwrites

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Static(self.PROMPT, id="export-title", markup=False)
            yield Input(value=self.default, id="export-path")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()

    @on(Input.Changed, "#export-path")
    def _changed(self, event: Input.Changed) -> None:
        if self._confirm is not None and event.value.strip() != self._confirm:
            self._confirm = None
            self.query_one("#export-title", Static).update(self.PROMPT)

    @on(Input.Submitted, "#export-path")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        if not value:
            self.dismiss(None)
            return
        target = os.path.abspath(os.path.expanduser(value))
        refused = self.refusal is not None and self.refusal(value) is not None
        if not refused and os.path.lexists(target) and self._confirm != value:
            self._confirm = value
            self.query_one("#export-title", Static).update(
                visible(f"{shorten_home(target)} exists: Enter again to overwrite it (Esc: cancel)"))
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class EmptyScreen(Screen):
    """No sessions at all: where pitui looked, how that folder was chosen, and the demo."""

    BINDINGS = bindings_for("empty")

    def __init__(self, root: SessionRoot) -> None:
        super().__init__(id="empty")
        self.root = root

    def compose(self) -> ComposeResult:
        root = self.root
        exists = root.path.exists()
        how = {
            "argument": "the folder given on the command line",
            "--session-dir": "the --session-dir option",
            "$PI_CODING_AGENT_SESSION_DIR": "the PI_CODING_AGENT_SESSION_DIR environment variable",
            "$PI_CODING_AGENT_DIR": "the PI_CODING_AGENT_DIR environment variable (its sessions folder)",
            "default": "Pi's default location",
            "--demo": "the --demo option",
        }.get(root.source, root.source)
        text = Text()
        lines = [
            f"pitui looked in   {visible(str(root.path))}",
            f"chosen by         {how}",
            f"that folder       {'exists but holds no session files (*.jsonl)' if exists else 'does not exist'}",
            "",
            "pitui reads the first of: a PATH argument, --session-dir DIR,",
            "$PI_CODING_AGENT_SESSION_DIR, $PI_CODING_AGENT_DIR/sessions, ~/.pi/agent/sessions.",
        ]
        text.append("\n".join(lines) + "\n\n")
        text.append("To see what pitui does, run  ")
        text.append("pitui --demo", style="bold")
        text.append("\n\n")
        text.append("d", style="bold")
        text.append("  open the demo now        ")
        text.append("q", style="bold")
        text.append("  quit")
        with Vertical(id="empty-box"):
            yield Static("No Pi sessions found", id="empty-title", markup=False)
            yield Static(text, id="empty-text")
        yield KeyBar()

    def action_demo(self) -> None:
        demo = _demo_root()
        if demo is None:
            self.notify("The demo sessions are not installed", severity="error")
            return
        self.app.switch_to_root(demo, demo=True)  # type: ignore[attr-defined]


class PituiApp(App):
    """pitui. ``root`` is where sessions are read; ``clock``, ``index`` and ``select_path``
    are injectable (tests pass a fixed clock and a private index)."""

    CSS_PATH = "app.tcss"
    TITLE = "pitui"
    COMMANDS = App.COMMANDS | {PituiCommands}
    ALLOW_IN_MAXIMIZED_VIEW = "KeyBar"  # (zoomed, the keys stay)
    BINDINGS = bindings_for("app")

    def __init__(
        self,
        root: SessionRoot,
        *,
        clock: Clock | None = None,
        index: SessionIndex | None = None,
        select_path: str | os.PathLike | None = None,
        demo: bool = False,
    ) -> None:
        super().__init__()
        self.root = root
        self.clock: Clock = clock or system_clock
        self.index = index if index is not None else SessionIndex()
        if select_path is None and root.kind == "file":
            select_path = root.path
        self.select_path = os.fspath(select_path) if select_path is not None else None
        self.demo = demo

    def get_default_screen(self) -> Screen:
        return BrowserScreen()

    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None,
               markup: bool = False) -> None:
        """A toast, never read as markup (toasts name session ids, paths and entries: a
        ``[/]`` in an id would crash the app, an ``[@click=...]`` would run an action),
        with any control character as a visible stand-in. Every ``notify`` of a widget
        or screen comes here (``Widget.notify`` calls the app's)."""
        super().notify(visible(message, block=True), title=visible(title), severity=severity, timeout=timeout,
                       markup=False)

    #: When the last key or mouse event came (``time.monotonic``).
    last_input_at = 0.0
    #: The app is quitting: input that comes meanwhile is dropped (a key pressed just
    #: after ``q`` would act on screens being taken down: a dialog pushed then is mounted
    #: without its widgets).
    exiting = False
    #: How often lines about pitui's caches (rebuilt, or a cache folder not used) are
    #: looked for, to be shown as toasts (see :func:`pitui.core.paths.notice`).
    NOTICE_SECONDS = 0.5

    def exit(self, *args: Any, **kwargs: Any) -> None:
        self.exiting = True
        super().exit(*args, **kwargs)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent) and self.exiting:
            return
        if isinstance(event, events.InputEvent) and not event.is_forwarded:
            self.last_input_at = time.monotonic()
            browser = self.browser
            if browser is not None:
                browser.schedule_lookahead()
        await super().on_event(event)

    #: Seconds after the start when garbage collection resumes at the latest (it resumes
    #: when the first session is shown; a start that shows none ends the pause here).
    START_PAUSE_SECONDS = 2.0

    def on_mount(self) -> None:
        gc_policy.tune_for_app()
        keymap = parse_keymap(os.environ.get("PITUI_KEYMAP", ""))
        if keymap:
            self.set_keymap(keymap)
        self.set_timer(self.START_PAUSE_SECONDS, gc_policy.end_start_pause)
        self.set_interval(self.NOTICE_SECONDS, self.show_notices)

    def show_notices(self) -> None:
        """Toasts for what happened to pitui's caches (one line each)."""
        for line in take_notices():
            self.notify(visible(line), severity="warning", timeout=6, markup=False)

    @property
    def browser(self) -> BrowserScreen | None:
        for s in self.screen_stack:
            if isinstance(s, BrowserScreen):
                return s
        return None

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def switch_to_root(self, root: SessionRoot, *, demo: bool = False) -> None:
        """Browse another root (the empty screen's "open the demo")."""
        self.root = root
        self.demo = demo
        self.select_path = None
        browser = self.browser
        if browser is None:
            return
        while self.screen is not browser and len(self.screen_stack) > 1:
            self.pop_screen()
        browser.reload()


def parse_keymap(text: str) -> dict[str, str]:
    """``PITUI_KEYMAP``: ``binding-id=keys`` pairs separated by ``;`` (keys comma-separated,
    Textual key names), e.g. ``nav.next_sibling=l;nav.prev_sibling=h;tree.down=down,j``.
    The ids are listed by ``?`` (help)."""
    out: dict[str, str] = {}
    for part in text.split(";"):
        if "=" in part:
            bid, keys = part.split("=", 1)
            if bid.strip() and keys.strip():
                out[bid.strip()] = keys.strip()
    return out


def run_app(root: SessionRoot, demo: bool = False) -> int:
    """Run the app on ``root`` (called by ``pitui`` on the command line)."""
    app = PituiApp(root, demo=demo)
    app.run()
    return app.return_code or 0
