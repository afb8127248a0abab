"""Watching the open file: growth is read on a worker and shown (follow mode keeps the
newest leaf selected and the pane at its end); a file replaced or cut short is read again."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from textual import work

from ...core.model.layout import layout_tree
from ...core.read.session import Session
from ..messages import Refreshed

if TYPE_CHECKING:
    from .screen import BrowserScreen

__all__ = ["Following"]


class Following:
    """Part of :class:`BrowserScreen`: the open file's growth, and follow mode (``F``)."""

    #: How often the open file is stat'ed for growth.
    WATCH_SECONDS = 0.5

    def _init_following(self: "BrowserScreen") -> None:
        self.following = False
        self._refreshing: Session | None = None  # the session a refresh worker is reading

    def _watch_tick(self: "BrowserScreen") -> None:
        """Every WATCH_SECONDS: a stat of the open file (device, inode, size and mtime, as
        the session read it); growth is read in a worker, another file read again."""
        s = self.session
        if s is None or self.session_path is None or self._refreshing is s:
            return
        if getattr(s, "is_live", False):
            # (a stream read from standard input, a live StreamSession: what came through
            # the pipe since; the class is not imported for this test, nor at start)
            if s.has_news():
                self._refreshing = s
                tree = self.branch_tree
                self._refresh_worker(s, tree.mode, frozenset(tree.folded))
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

    def _read_again(self: "BrowserScreen") -> None:
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
    def _refresh_worker(self: "BrowserScreen", session: Session, mode: str, folded: frozenset[int]) -> None:
        # The session the screen draws from is never changed from this thread: a snapshot
        # is refreshed here and adopted on the UI thread in one step (on_refreshed).
        layout = None
        snap = session.snapshot()
        try:
            added = snap.refresh(validate=False)
            if added:
                layout = layout_tree(snap, mode, folded)
        except Exception:  # a file that vanished or turned unreadable: try again later
            added = 0
        self.post_message(Refreshed(session, snap, added, layout, mode, folded))

    def on_refreshed(self: "BrowserScreen", event: Refreshed) -> None:
        session = event.session
        if self._refreshing is session:
            self._refreshing = None
        if session is not self.session or not event.added:
            return
        session.adopt(event.snap)
        tree = self.branch_tree
        layout = event.layout
        if layout is None or event.mode != tree.mode or event.folded != frozenset(tree.folded):
            layout = layout_tree(session, tree.mode, frozenset(tree.folded))
        self._tree_changed(layout, session.leaf if self.following else tree.selected_entry, follow=self.following)
        if self.following:
            self.pane.scroll_end(animate=False, immediate=True)

    def _follow_entry(self: "BrowserScreen") -> int:
        """The row follow mode keeps selected: the newest leaf (or its nearest shown ancestor)."""
        s, tree = self.session, self.branch_tree
        if s is None or tree.tree_layout is None or not tree.tree_layout.rows:
            return -1
        return tree.tree_layout.rows[tree.tree_layout.nearest_row(s, s.leaf)].entry

    def action_toggle_follow(self: "BrowserScreen") -> None:
        self.following = not self.following
        self._update_tree_title()
        if self.following and self.session is not None:
            target = self._follow_entry()
            if target >= 0 and target != self.branch_tree.selected_entry:
                self.branch_tree.select_entry(target, center=None)
            self.pane.scroll_end(animate=False, immediate=True)
        self.notify("Following the session" if self.following else "Follow off", timeout=1.5)
