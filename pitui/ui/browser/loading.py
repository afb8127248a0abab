"""Opening a session: read on a thread worker (a big file on worker processes), the panels
held back while the session named on the command line is read, then shown in one layout
and one paint; lines read from their head only are checked whole afterwards."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from textual import work
from textual.timer import Timer
from textual.worker import get_current_worker

from ...core import gc_policy
from ...core.model.layout import layout_tree
from ...core.model.summary import shown_path
from ...core.open import parallel as open_parallel
from ...core.read.session import NotASession, Session
from ...core.text import visible
from .. import textual_internals
from ..messages import OpenFailed, OpenProgress, SessionRead, Validated
from ..widgets.branch_tree import BranchTree

if TYPE_CHECKING:
    from .screen import BrowserScreen

__all__ = ["Loading"]


class Loading:
    """Part of :class:`BrowserScreen`: opening sessions."""

    #: Seconds after a session is shown before its background work (validation, stats) starts.
    BACKGROUND_DELAY = 0.3
    #: While the session named on the command line is read, the screen stays blank (its
    #: panels held back) until the session is shown: one layout and one paint of everything,
    #: instead of a first frame with an "Opening…" notice, a second layout as every panel
    #: gets its size and then the session's frame. A read that takes long shows the panels
    #: and the notice with its progress after HOLD_SECONDS, or as soon as its progress says
    #: more than HOLD_LEFT_SECONDS are left.
    HOLD_SECONDS = 1.0
    HOLD_LEFT_SECONDS = 0.5
    #: The longest the held panels' first paint waits for them to settle (_paint_when_settled).
    SETTLE_SECONDS = 0.1
    #: Only the read of a file bigger than this shows its progress.
    PROGRESS_BYTES = 16 * 1024 * 1024
    PROGRESS_SECONDS = 0.25  # (at most this often: a repaint takes the UI thread from the read)

    def _init_loading(self: "BrowserScreen") -> None:
        self.session: Session | None = None
        self.session_path: str | None = None
        self.error: str | None = None
        self._select_id: str | None = None
        self._find_after_open: str | None = None  # what the pane finds once the session shows
        self._history: list[tuple[str, str | None]] = []  # (path, selected id) for Backspace
        self._tree_filters: dict[str, str] = {}  # each session's tree filter, for this run
        self._opening: open_parallel.ParallelOpen | None = None  # the open being read
        self._footer_session = False  # whether the footer shows the session keys as usable
        self._frozen_before = False  # a session was shown (and its objects frozen) before
        self._hold_timer: Timer | None = None  # the panels are held back (see HOLD_SECONDS)
        self._hold_since = 0.0
        self._settling = False  # no paint until the first session's changes settle

    # ------------------------------------------------------------------ holding the panels back
    def _hold(self: "BrowserScreen") -> None:
        """Hold the panels back while the first session is read: nothing is painted
        meanwhile (the terminal stays blank; see paint_held)."""
        self.query_one("#main").display = False
        self._hold_since = time.monotonic()
        self._hold_timer = self.set_timer(self.HOLD_SECONDS, self._end_hold)

    def _end_hold(self: "BrowserScreen", lay_out: bool = False) -> bool:
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
            textual_internals.lay_out_now(self)
        return True

    def paint_held(self: "BrowserScreen") -> bool:
        # held: nothing is painted until the panels are shown; settling: they are painted
        # once settled (see _paint_when_settled)
        return self._settling or self._hold_timer is not None

    def _paint_when_settled(self: "BrowserScreen") -> None:
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

    # ------------------------------------------------------------------ opening
    def open_session(
        self: "BrowserScreen", path: str, *, select_id: str | None = None, remember: bool = True,
        force: bool = False, find: str | None = None,
    ) -> None:
        """Open ``path`` (in a worker); the tree selects ``select_id`` or the current leaf,
        and the pane then finds ``find`` (:meth:`find_in_pane`). The session left behind is
        remembered for Backspace. ``force`` reads it again even when it is the one open (a
        file that was replaced)."""
        if path == self.session_path and self.session is not None and not force:
            if select_id is not None and select_id in self.session.index_of:
                tree = self.branch_tree
                if not tree.select_entry(self.session.index_of[select_id]) and tree.tree_layout is not None:
                    tree.move_to_row(tree.tree_layout.nearest_row(self.session, self.session.index_of[select_id]))
            if find:
                self.find_in_pane(find)
            return
        self._find_after_open = find
        if remember and self.session is not None and self.session_path is not None:
            sel = self.branch_tree.selected_entry
            self._history.append((self.session_path, self.session.ids[sel] if sel >= 0 else None))
            del self._history[:-50]
        self._select_id = select_id
        if self.session_path is not None:
            self._tree_filters[self.session_path] = self.branch_tree.mode
        self.session_path = path
        self.session = None
        # What on_session_read froze stays frozen while this session opens: the session
        # left behind is freed by reference counting, and unfreezing here made the next
        # full collection land in the middle of this open. The cycles it left are collected
        # once the new session is on screen (_after_first_paint).
        # The footer keeps showing the session keys while the next session opens (they do
        # nothing meanwhile: check_action): redrawing it twice per open is not free.
        self.error = None
        self._forget_branch()
        self.branch_tree.placeholder = "opening…"
        self.branch_tree.clear()
        # The tree filter is the session's own: a session opens at the filter it had when
        # left (in this run), a session not opened before at the default.
        self.branch_tree.mode = self._tree_filters.get(path, "default")
        self._update_tree_title()
        self.session_list.set_open(path)
        info = self.infos.get(path)
        title = info.title if info else os.path.basename(path)
        self.header.show_message(title, shown_path(path))
        self.show_notice("Opening…", shown_path(path))
        self.workers.cancel_group(self, "validate")
        self.workers.cancel_group(self, "stats")
        if self._opening is not None:
            self._opening.cancel()  # its worker processes, if any
        live = self.papp.live
        if live is not None and path == live.path:
            # the stream read from standard input (pitui -): shown as far as it came, and
            # followed (Following takes in what comes next)
            self._opening = None
            self.following = True
            live.refresh()
            mode = self.branch_tree.mode
            self.post_message(SessionRead(path, live, layout_tree(live, mode), mode))
            return
        # Started here, not in the worker thread: the worker processes begin at once
        # instead of after this frame's repaint (a stat, a header line, a few spawns).
        self._opening = open_parallel.start(path, freeze=True)
        pane = self.pane if select_id is None and not self.following else None
        tree = self.branch_tree if pane is not None else None
        self._open_worker(path, self._opening, self.branch_tree.mode, pane, tree)

    @work(thread=True, exclusive=True, group="open", exit_on_error=False)
    def _open_worker(self: "BrowserScreen", path: str, opening: open_parallel.ParallelOpen, mode: str,
                     pane: Any = None, tree: BranchTree | None = None) -> None:
        worker = get_current_worker()
        shown = [time.monotonic()]

        def prepare(session: Session) -> None:
            # The pane works out the blocks of the branch it will show first (the current
            # leaf's) here, while a streaming worker still lays out the tree. (It prepares
            # data of its own: nothing on screen changes from this thread.)
            nonlocal pane
            if pane is None or worker.is_cancelled or session.leaf < 0:
                return
            target, pane = pane, None
            try:
                target.prepare(session, session.leaf)
            except Exception:
                pass  # (the pane works them out itself when it shows the branch)

        def progress(done: int, total: int) -> None:
            # Only a read that takes a while shows its progress, a few times a second, and
            # never "100%": the session is on screen a moment later.
            now = time.monotonic()
            if (total > self.PROGRESS_BYTES and done < total and now - shown[0] >= self.PROGRESS_SECONDS
                    and not worker.is_cancelled):
                shown[0] = now
                self.post_message(OpenProgress(path, done, total))

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
            session = None
            if exc.no_header and not worker.is_cancelled:
                # Pi refuses a file with no header; the app shows what it holds, read-only,
                # under a banner saying so (the header's title)
                try:
                    session = Session.open_headerless(path)
                    layout = opening.layout(session, mode)
                except Exception:
                    session = None
            if session is None or session.leaf < 0:
                if not worker.is_cancelled:
                    self.post_message(OpenFailed(path, exc.reason))
                return
        except Exception as exc:  # never a traceback for a file
            if not worker.is_cancelled:
                self.post_message(OpenFailed(path, f"cannot be read ({type(exc).__name__}: {exc})"))
            return
        if not worker.is_cancelled:
            self.post_message(SessionRead(path, session, layout, mode))

    def on_open_progress(self: "BrowserScreen", event: OpenProgress) -> None:
        path, done, total = event.path, event.done, event.total
        if path != self.session_path or self.session is not None:
            return
        if self._hold_timer is not None and done:
            # at the pace so far, counted from the hold (the read of `pitui FILE` began a
            # little earlier: this errs towards holding, which HOLD_SECONDS bounds)
            left = (time.monotonic() - self._hold_since) * (total - done) / done
            if left > self.HOLD_LEFT_SECONDS:
                self._end_hold()
        pct = int(done * 100 / total) if total else 100
        self.show_notice(f"Opening… {pct}%", f"{shown_path(path)}\n{done / 1e6:.0f} of {total / 1e6:.0f} MB read")

    def on_open_failed(self: "BrowserScreen", event: OpenFailed) -> None:
        path, reason = event.path, event.reason
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
        self.show_notice("This file cannot be shown", f"{shown_path(path)}\n\n{visible(reason)}")

    def _footer_for_session(self: "BrowserScreen", shown: bool) -> None:
        """Show the session keys in the footer as usable (or not), redrawing it only when
        that changes."""
        if shown != self._footer_session:
            self._footer_session = shown
            self.refresh_bindings()

    def on_session_read(self: "BrowserScreen", event: SessionRead) -> None:
        path, session, layout, mode = event.path, event.session, event.layout, event.mode
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
        self.header.show_problems(session.path, session.all_warnings)
        self.say_how_back(path)
        if held:
            self._paint_when_settled()
        # What is alive now (the session, its layout, the app) lives on: left out of every
        # full garbage collection from now on.
        gc_policy.freeze_what_is_alive()
        gc_policy.end_start_pause()  # (collection was paused for the start: see cli)
        # Background work (whole-line validation, stats, a listing held back for this open)
        # starts after the first paint, so it does not slow the screen the user waits for.
        if self.BACKGROUND_DELAY > 0:
            self.set_timer(self.BACKGROUND_DELAY, lambda: self._after_first_paint(session))
        else:
            self._after_first_paint(session)

    def _after_first_paint(self: "BrowserScreen", session: Session) -> None:
        if self._listing_deferred:
            self._listing_deferred = False
            self.start_listing()
        if session is not self.session:
            return
        if self._frozen_before:
            gc_policy.refreeze()
        self._frozen_before = True
        self.branch_tree.prepare_navigation()
        find, self._find_after_open = self._find_after_open, None
        if find:
            self.find_in_pane(find)
        self._validate_worker(session)
        self._schedule_stats(now=True)
        self.schedule_lookahead()

    @work(thread=True, exclusive=True, group="validate", exit_on_error=False)
    def _validate_worker(self: "BrowserScreen", session: Session) -> None:
        worker = get_current_worker()
        before = len(session.warnings)
        damaged = session.validate_lazy_lines(should_stop=lambda: worker.is_cancelled)
        # (the whole lines read may hold problems too: wrong types, broken text; and a line
        # shown before may have been found damaged then)
        if worker.is_cancelled:
            return
        if damaged or len(session.warnings) != before or session.damaged_entries():
            self.post_message(Validated(session, damaged))

    def on_validated(self: "BrowserScreen", event: Validated) -> None:
        session = event.session
        if session is not self.session:
            return
        if event.damaged:
            self.branch_tree.forget_summaries(event.damaged)
        if session.drop_damaged():
            # Pi never read those lines: the tree and the branch shown are Pi's again (what
            # came after a damaged line is a tree of its own, an orphan's)
            tree = self.branch_tree
            keep = tree.selected_entry
            if keep < 0 or keep in session.shadowed:
                keep = session.leaf
            self._tree_changed(layout_tree(session, tree.mode, frozenset(tree.folded)), keep)
        else:
            self.header.show_problems(session.path, session.all_warnings)

    def action_back(self: "BrowserScreen") -> None:
        """Back to the session opened before this one (e.g. after a subagent transcript)."""
        if not self._history:
            self.app.bell()
            self.notify("No previous session", timeout=1.5)
            return
        path, sel = self._history.pop()
        self.open_session(path, select_id=sel, remember=False)
