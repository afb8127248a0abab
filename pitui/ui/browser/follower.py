"""Watching the open file for the browser: growth is read on a worker and shown (follow
mode, ``F``, keeps the newest leaf selected and the pane at its end); a file replaced or
cut short is read again."""

from __future__ import annotations

import os
from typing import Any

from ...core.model.layout import layout_tree
from ...core.read.session import Session
from ..messages import Refreshed

__all__ = ["FileFollower"]


class FileFollower:
    """Watches the file of the session open in ``screen`` (the browser)."""

    #: How often the open file is stat'ed for growth.
    WATCH_SECONDS = 0.5

    def __init__(self, screen: Any) -> None:
        self.screen = screen
        self._refreshing: Session | None = None  # the session a refresh worker is reading

    def start(self) -> None:
        self.screen.set_interval(self.WATCH_SECONDS, self.tick)

    def tick(self) -> None:
        """Every WATCH_SECONDS: a stat of the open file (device, inode, size and mtime, as
        the session read it); growth is read in a worker, another file read again."""
        screen = self.screen
        session = screen.session
        if session is None or screen.session_path is None or self._refreshing is session:
            return
        if getattr(session, "is_live", False):
            # (a stream read from standard input, a live StreamSession: what came through
            # the pipe since; the class is not imported for this test, nor at start)
            if session.has_news():
                self._refresh(session)
            return
        try:
            st = os.stat(session.path)
        except OSError:
            return
        if session.unchanged(st):
            return
        if st.st_size < session.scanned_to or not session.same_file(st):
            self.read_again()
            return
        self._refresh(session)

    def read_again(self) -> None:
        """The open file is another file now (replaced, rewritten or cut short): read it
        again from the start, keeping the selection."""
        screen = self.screen
        session = screen.session
        if session is None or screen.session_path is None:
            return
        sel = screen.branch_tree.selected_entry
        screen.open_session(screen.session_path, select_id=session.ids[sel] if 0 <= sel < len(session.ids) else None,
                            remember=False, force=True)
        screen.notify("The session file was replaced: read again", timeout=2)

    def _refresh(self, session: Session) -> None:
        """Read what was appended to ``session``'s file on a worker. The session the screen
        draws from is never changed from that thread: a snapshot is refreshed there and
        adopted on the UI thread in one step (:meth:`refreshed`)."""
        screen = self.screen
        self._refreshing = session
        tree = screen.branch_tree
        mode, folded = tree.mode, frozenset(tree.folded)

        def work() -> None:
            layout = None
            snap = session.snapshot()
            try:
                added = snap.refresh(validate=False)
                if added:
                    layout = layout_tree(snap, mode, folded)
            except Exception:  # a file that vanished or turned unreadable: try again later
                added = 0
            screen.post_message(Refreshed(session, snap, added, layout, mode, folded))

        screen.run_worker(work, thread=True, exclusive=True, group="refresh", exit_on_error=False)

    def refreshed(self, event: Refreshed) -> None:
        """Take in what a refresh read (on the UI thread)."""
        screen = self.screen
        session = event.session
        if self._refreshing is session:
            self._refreshing = None
        if session is not screen.session or not event.added:
            return
        session.adopt(event.snap)
        tree = screen.branch_tree
        layout = event.layout
        if layout is None or event.mode != tree.mode or event.folded != frozenset(tree.folded):
            layout = layout_tree(session, tree.mode, frozenset(tree.folded))
        following = screen.following
        screen.tree_changed(layout, session.leaf if following else tree.selected_entry, follow=following)
        if following:
            screen.pane.scroll_end(animate=False, immediate=True)

    def follow_entry(self) -> int:
        """The row follow mode keeps selected: the newest leaf (or its nearest shown ancestor)."""
        session, tree = self.screen.session, self.screen.branch_tree
        if session is None or tree.tree_layout is None or not tree.tree_layout.rows:
            return -1
        return tree.tree_layout.rows[tree.tree_layout.nearest_row(session, session.leaf)].entry

    def toggle(self) -> None:
        """``F``: follow the session as Pi writes it, or stop."""
        screen = self.screen
        screen.following = not screen.following
        if screen.following and screen.session is not None:
            target = self.follow_entry()
            if target >= 0 and target != screen.branch_tree.selected_entry:
                screen.branch_tree.select_entry(target, center=None)
                screen.show_selection()  # (the pane on that branch now, to scroll to its end)
            screen.pane.scroll_end(animate=False, immediate=True)
        screen.notify("Following the session" if screen.following else "Follow off", timeout=1.5)
