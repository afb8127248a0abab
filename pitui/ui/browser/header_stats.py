"""The session's header line, and the tokens and cost it shows (worked out on a worker,
for the branch shown and for the whole session; the ``s`` screen shows them in full)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from textual import work
from textual.timer import Timer
from textual.worker import get_current_worker

from ...core.model.stats import Stats, branch_stats, session_stats
from ...core.read.session import Session
from ...core.store.listing import NO_MESSAGES
from ..messages import StatsReady

if TYPE_CHECKING:
    from .screen import BrowserScreen

__all__ = ["HeaderStats"]


class HeaderStats:
    """Part of :class:`BrowserScreen`: the header and its statistics."""

    STATS_DELAY = 0.25  # (after a move: a key held down does not start a worker per row)

    def _init_header_stats(self: "BrowserScreen") -> None:
        self._stats_timer: Timer | None = None
        self._branch_leaf = -1  # the leaf of the branch the header counts
        self._branch_stats: dict[int, Stats] = {}
        self._session_stats: Stats | None = None
        self._fork_title: tuple[tuple, str] | None = None  # (session, parent, listing size) -> title

    def _forget_stats(self: "BrowserScreen") -> None:
        """The session changed (another one, or it grew): its numbers are worked out again."""
        self._branch_stats = {}
        self._session_stats = None

    def _update_header(self: "BrowserScreen") -> None:
        s = self.session
        if s is None:
            return
        info = self.infos.get(self.session_path or "")
        # the first user message as the listing has it (not Pi's "(no messages)"), else the
        # file (and for a session of no entries, which may have been cut back since listed)
        first = info.first_message if info and info.error is None and info.first_message != NO_MESSAGES and len(s) \
            else None
        title = s.name or first or os.path.basename(s.path)
        if s.headerless:
            title = f"⚠ No session header, Pi won't open it · {title}"  # (shown read-only)
        nav = self.branch_tree.nav
        if self._branch_leaf < 0:
            branch_len = 0
        elif nav is not None and nav.session is s and nav.paths is not None:
            branch_len = len(nav.paths.path(self._branch_leaf))
        else:
            branch_len = len(s.path_to(self._branch_leaf))
        forked_from = self._forked_from(s)
        self.header.show_session(
            title=title,
            forked_from=forked_from,
            named=bool(s.name),
            cwd=s.cwd,
            created=s.header.get("timestamp"),
            branch=self._branch_stats.get(self._branch_leaf),
            session=self._session_stats,
            entries=len(s),
            branch_len=branch_len,
        )

    def _forked_from(self: "BrowserScreen", s: Session) -> str | None:
        """The title of the session ``s`` was forked from (its header's ``parentSession``),
        found in the listing by path or, as a store moved to another machine keeps its file
        names but not its paths, by file name; else that file's name. None when not a fork."""
        parent = s.header.get("parentSession")
        if not isinstance(parent, str):
            parent = s.header.get("branchedFrom")  # (older releases)
        if not isinstance(parent, str) or not parent:
            return None
        cached = self._fork_title
        if cached is not None and cached[0] == (s.path, parent, len(self.infos)):
            return cached[1]
        info = self.infos.get(parent)
        if info is None:
            name = os.path.basename(parent)
            info = next((i for p, i in self.infos.items() if os.path.basename(p) == name), None)
        title = (info.name or info.first_message if info is not None and info.error is None else "") or \
            os.path.basename(parent)
        self._fork_title = ((s.path, parent, len(self.infos)), title)
        return title

    def _schedule_stats(self: "BrowserScreen", now: bool = False) -> None:
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
    def _stats_worker(self: "BrowserScreen", session: Session, leaf: int, need_session: bool) -> None:
        worker = get_current_worker()
        b = branch_stats(session, leaf) if leaf >= 0 else Stats()
        if worker.is_cancelled:
            return
        ss = session_stats(session) if need_session else None
        if not worker.is_cancelled:
            self.post_message(StatsReady(session, leaf, b, ss))

    def on_stats_ready(self: "BrowserScreen", event: StatsReady) -> None:
        if event.session is not self.session:
            return
        self._branch_stats[event.leaf] = event.branch
        if event.whole is not None:
            self._session_stats = event.whole
            if self.session_list.costs is not None:  # (the sidebar's row shows the same figure)
                self.session_list.set_costs({event.session.path: event.whole.total.cost}, partial=True)
        self._update_header()

    def action_stats(self: "BrowserScreen") -> None:
        s = self.session
        if s is None:
            return
        leaf = self._branch_leaf if self._branch_leaf >= 0 else s.leaf
        from ..screens.stats import StatsScreen

        self.app.push_screen(StatsScreen(s, leaf, branch=self._branch_stats.get(leaf), whole=self._session_stats))
