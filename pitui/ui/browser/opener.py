"""Opening a session for the browser: the read on a thread worker (a big file on worker
processes), what the first screen needs worked out on that thread too, the session put
on screen in one layout and one paint, the whole-line check afterwards, and the sessions
opened before (Backspace) with each one's tree filter.

The worker touches no widget: it posts :class:`SessionRead` with the session, its tree's
layout, the pane's blocks of the branch shown first and the tree's summaries around it;
the screen hands it to :meth:`SessionOpener.show` on the UI thread."""

from __future__ import annotations

import os
import time
from typing import Any

from textual.worker import get_current_worker

from ...core import gc_policy
from ...core.model.layout import layout_tree
from ...core.model.summary import shown_path
from ...core.open import parallel as open_parallel
from ...core.read.session import NotASession, Session
from ...core.text import visible
from ..messages import OpenFailed, OpenProgress, SessionRead, Validated
from ..pane import prepare_branch
from ..widgets.branch_tree import summaries_around

__all__ = ["SessionOpener"]


class SessionOpener:
    """Opens sessions into ``screen`` (the browser), one at a time."""

    #: Seconds after a session is shown before its background work (validation, stats) starts.
    BACKGROUND_DELAY = 0.3
    #: Only the read of a file bigger than this shows its progress.
    PROGRESS_BYTES = 16 * 1024 * 1024
    PROGRESS_SECONDS = 0.25  # (at most this often: a repaint takes the UI thread from the read)

    def __init__(self, screen: Any) -> None:
        self.screen = screen
        self.select_id: str | None = None  # the entry selected once the session is read
        self.find_after_open: str | None = None  # what the pane finds once the session shows
        self.history: list[tuple[str, str | None]] = []  # (path, selected id) for Backspace
        self.tree_filters: dict[str, str] = {}  # each session's tree filter, for this run
        self._opening: open_parallel.ParallelOpen | None = None  # the open being read
        self.listing_deferred = False  # the sidebar's listing waits for the first session shown
        self._footer_session = False  # whether the footer shows the session keys as usable
        self._frozen_before = False  # a session was shown (and its objects frozen) before

    def open(self, path: str, *, select_id: str | None = None, remember: bool = True, force: bool = False,
             find: str | None = None) -> None:
        """See :meth:`BrowserScreen.open_session`."""
        screen = self.screen
        tree = screen.branch_tree
        session = screen.session
        if path == screen.session_path and session is not None and not force:
            if select_id is not None and select_id in session.index_of:
                tree.show_entry(session.index_of[select_id])
            if find:
                screen.find_in_pane(find)
            return
        self.find_after_open = find
        if remember and session is not None and screen.session_path is not None:
            sel = tree.selected_entry
            self.history.append((screen.session_path, session.ids[sel] if sel >= 0 else None))
            del self.history[:-50]
        self.select_id = select_id
        if screen.session_path is not None:
            self.tree_filters[screen.session_path] = tree.mode
        screen.session_path = path
        screen.session = None
        # What the screen froze for the session before stays frozen while this one opens:
        # that session is freed by reference counting, and unfreezing here made the next
        # full collection land in the middle of this open. The cycles it left are collected
        # once the new session is on screen (BrowserScreen.after_first_paint).
        # The footer keeps showing the session keys while the next session opens (they do
        # nothing meanwhile: check_action): redrawing it twice per open is not free.
        screen.error = None
        screen.forget_branch()
        tree.placeholder = "opening…"
        tree.clear()
        # The tree filter is the session's own: a session opens at the filter it had when
        # left (in this run), a session not opened before at the default.
        tree.mode = self.tree_filters.get(path, "default")
        tree.update_title()
        screen.session_list.set_open(path)
        info = screen.infos.get(path)
        title = info.title if info else os.path.basename(path)
        screen.header.show_message(title, shown_path(path))
        screen.show_notice("Opening…", shown_path(path))
        screen.workers.cancel_group(screen, "validate")
        if self._opening is not None:
            self._opening.cancel()  # its worker processes, if any
        live = screen.papp.live
        if live is not None and path == live.path:
            # the stream read from standard input (pitui -): shown as far as it came, and
            # followed (the follower takes in what comes next)
            self._opening = None
            screen.following = True
            live.refresh()
            mode = tree.mode
            screen.post_message(SessionRead(path, live, layout_tree(live, mode), mode))
            return
        # Started here, not in the worker thread: the worker processes begin at once
        # instead of after this frame's repaint (a stat, a header line, a few spawns).
        opening = self._opening = open_parallel.start(path, freeze=True)
        mode = tree.mode
        # (the first screen's blocks and rows are worked out ahead only when it will show
        # the session's leaf: not for an entry asked for, nor when following)
        pane_shape = screen.pane.branch_shape() if select_id is None and not screen.following else None
        screen.run_worker(lambda: self._read(path, opening, mode, pane_shape), thread=True, exclusive=True,
                          group="open", exit_on_error=False)

    def _read(self, path: str, opening: open_parallel.ParallelOpen, mode: str, pane_shape: Any) -> None:
        """The open worker: reads ``path`` and posts what the screen shows."""
        screen = self.screen
        worker = get_current_worker()
        shown = [time.monotonic()]
        prepared: dict[str, Any] = {}

        def prepare(session: Session) -> None:
            # The blocks of the branch the pane shows first (the current leaf's), worked
            # out here while a streaming worker still lays out the tree.
            if pane_shape is None or worker.is_cancelled or session.leaf < 0 or "pane" in prepared:
                return
            try:
                prepared["pane"] = prepare_branch(session, session.leaf, pane_shape)
            except Exception:
                prepared["pane"] = None  # (the pane works them out itself when it shows the branch)

        def progress(done: int, total: int) -> None:
            # Only a read that takes a while shows its progress, a few times a second, and
            # never "100%": the session is on screen a moment later.
            now = time.monotonic()
            if (total > self.PROGRESS_BYTES and done < total and now - shown[0] >= self.PROGRESS_SECONDS
                    and not worker.is_cancelled):
                shown[0] = now
                screen.post_message(OpenProgress(path, done, total))

        summaries = None
        try:
            # A big file is read in parts by worker processes (off this interpreter, which
            # the user interface needs); ``pitui FILE`` started it before Textual loaded.
            if worker.is_cancelled:
                return
            opening.when_tree(prepare)  # (first: the tree may come while Markdown loads)
            # Rich's Markdown (markdown-it, Pygments' core) is loaded here, while the file
            # is read, rather than before the app's first frame: the start-up does not wait
            # for it, and the first screen's messages find it loaded (pane/markdown.py).
            from ..pane import markdown  # noqa: F401

            session = opening.result(progress)
            layout = opening.layout(session, mode)  # here, not on the UI thread
            prepare(session)
            if pane_shape is not None and not worker.is_cancelled and session.leaf >= 0:
                # (the tree's first rows too: the first screen shows the current leaf's)
                try:
                    summaries = summaries_around(session, layout, session.leaf)
                except Exception:
                    summaries = None
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
                    screen.post_message(OpenFailed(path, exc.reason))
                return
        except Exception as exc:  # never a traceback for a file
            if not worker.is_cancelled:
                screen.post_message(OpenFailed(path, f"cannot be read ({type(exc).__name__}: {exc})"))
            return
        if not worker.is_cancelled:
            screen.post_message(SessionRead(path, session, layout, mode, pane=prepared.get("pane"),
                                            summaries=summaries))

    # ------------------------------------------------------------------ what the worker posts
    def progress(self, event: OpenProgress) -> None:
        """How far the read is, over the pane (and the held panels shown, when it is slow)."""
        screen = self.screen
        path, done, total = event.path, event.done, event.total
        if path != screen.session_path or screen.session is not None:
            return
        if screen.first_paint.too_slow(done, total):
            screen.first_paint.end(screen.query_one("#main"))
        pct = int(done * 100 / total) if total else 100
        screen.show_notice(f"Opening… {pct}%", f"{shown_path(path)}\n{done / 1e6:.0f} of {total / 1e6:.0f} MB read")

    def _start_deferred_listing(self) -> None:
        if self.listing_deferred:
            self.listing_deferred = False
            self.screen.sidebar.start_listing()

    def failed(self, event: OpenFailed) -> None:
        """The file cannot be shown: the notice says why."""
        screen = self.screen
        path, reason = event.path, event.reason
        screen.first_paint.end(screen.query_one("#main"))
        self._start_deferred_listing()
        if path != screen.session_path:
            return
        screen.error = reason
        self._footer_for_session(False)
        tree = screen.branch_tree
        tree.placeholder = "no tree (not a readable session)"
        tree.clear()
        tree.update_title()
        screen.header.show_message(os.path.basename(path), reason)
        screen.show_notice("This file cannot be shown", f"{shown_path(path)}\n\n{visible(reason)}")

    def _footer_for_session(self, shown: bool) -> None:
        """Show the session keys in the footer as usable (or not), redrawing it only when
        that changes."""
        if shown != self._footer_session:
            self._footer_session = shown
            self.screen.refresh_bindings()

    def show(self, event: SessionRead) -> None:
        """The session read: on screen, in one layout and (held at start) one paint."""
        screen = self.screen
        path, session, layout, mode = event.path, event.session, event.layout, event.mode
        if path != screen.session_path:
            return
        tree = screen.branch_tree
        if mode != tree.mode:
            layout = None
        screen.session = session
        self._footer_for_session(True)
        screen.cover_pane(False)
        if event.pane is not None:
            screen.pane.adopt_prepared(session, session.leaf, event.pane)
        first_paint = screen.first_paint
        if first_paint.holding:
            # (what the session changes in the screen's layout, before the layout that
            # shows the panels: not in a second one after it)
            tree.expect_rows(len(layout.rows) if layout is not None else len(session))
        held = first_paint.end(screen.query_one("#main"), lay_out=True)
        select = session.index_of.get(self.select_id, session.leaf) if self.select_id else session.leaf
        if screen.following:
            select = session.leaf
        screen.header.forget(session)
        tree.set_session(session, layout, select=select, summaries=event.summaries)
        screen.show_selection()  # (the pane at once: what comes next finds it showing the session)
        screen.header.update_session()
        screen.header.show_problems(session.path, session.all_warnings, later=True)
        screen.say_how_back(path)
        if held:
            first_paint.paint_when_settled()
        # What is alive now (the session, its layout, the app) lives on: left out of every
        # full garbage collection from now on.
        gc_policy.freeze_what_is_alive()
        gc_policy.end_start_pause()  # (collection was paused for the start: see cli)
        # Background work (whole-line validation, stats, the header's check for problems and
        # secrets, a listing held back for this open) starts after the first paint, so it
        # does not slow the screen the user waits for.
        if self.BACKGROUND_DELAY > 0:
            screen.set_timer(self.BACKGROUND_DELAY, lambda: self.after_first_paint(session))
        else:
            self.after_first_paint(session)

    def after_first_paint(self, session: Session) -> None:
        """``session`` is on screen: the work held back for its first paint starts."""
        screen = self.screen
        self._start_deferred_listing()
        if session is not screen.session:
            return
        if self._frozen_before:
            gc_policy.refreeze()
        self._frozen_before = True
        screen.branch_tree.prepare_navigation()
        screen.header.start_check()
        find, self.find_after_open = self.find_after_open, None
        if find:
            screen.find_in_pane(find)
        self.validate(session)
        screen.header.count_now()
        screen.schedule_lookahead()

    def validate(self, session: Session) -> None:
        """Check the lines read from their head only, whole, on a worker (posts
        :class:`Validated` when that found something)."""
        screen = self.screen

        def work() -> None:
            worker = get_current_worker()
            before = len(session.warnings)
            damaged = session.validate_lazy_lines(should_stop=lambda: worker.is_cancelled)
            # (the whole lines read may hold problems too: wrong types, broken text; and a
            # line shown before may have been found damaged then)
            if worker.is_cancelled:
                return
            if damaged or len(session.warnings) != before or session.damaged_entries():
                screen.post_message(Validated(session, damaged))

        screen.run_worker(work, thread=True, exclusive=True, group="validate", exit_on_error=False)

    def validated(self, event: Validated) -> None:
        """The whole-line check found damaged lines or problems: the tree and the badge
        say so."""
        screen = self.screen
        session = event.session
        if session is not screen.session:
            return
        tree = screen.branch_tree
        if event.damaged:
            tree.forget_summaries(event.damaged)
        if session.drop_damaged():
            # Pi never read those lines: the tree and the branch shown are Pi's again (what
            # came after a damaged line is a tree of its own, an orphan's)
            keep = tree.selected_entry
            if keep < 0 or keep in session.shadowed:
                keep = session.leaf
            screen.tree_changed(layout_tree(session, tree.mode, frozenset(tree.folded)), keep)
        else:
            screen.header.show_problems(session.path, session.all_warnings)

    def back(self) -> None:
        """Back to the session opened before this one (e.g. after a subagent transcript)."""
        screen = self.screen
        if not self.history:
            screen.app.bell()
            screen.notify("No previous session", timeout=1.5)
            return
        path, sel = self.history.pop()
        self.open(path, select_id=sel, remember=False)
