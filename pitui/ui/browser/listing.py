"""Listing the sessions under the app's root into the sidebar: the first screen of rows
comes from the listing index at once (the newest, as the index last had them), then rows
come in batches while the store is looked at, and it is listed again now and then to catch
new sessions."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING

from textual import work
from textual.timer import Timer
from textual.worker import get_current_worker

from ...core.store.discovery import SessionRoot
from ...core.store.listing import SessionInfo, list_sessions
from ..messages import FirstRowsListed, ListingDone, ListingFailed, Relisted

if TYPE_CHECKING:
    from .screen import BrowserScreen

__all__ = ["Listing"]


class Listing:
    """Part of :class:`BrowserScreen`: the sidebar's listing."""

    LIST_DRAIN_SECONDS = 0.15  # how often the rows listed so far are shown, at most
    LIST_DRAIN_IDLE = 4  # ... and at least this many times as long as showing them took apart
    LIST_DRAIN_QUIET = 0.5  # ... and not until the user's last input (a key, the mouse) is this long past
    RELIST_SECONDS = 2.0
    FIRST_SCREEN_ROWS = 200  # rows shown from the index before the store is looked at

    def _init_listing(self: "BrowserScreen") -> None:
        self.infos: dict[str, SessionInfo] = {}
        self.listing_done = False
        self._listing_deferred = False  # held back until the session named to open is shown
        self._list_lock = threading.Lock()
        self._list_buffer: list[SessionInfo] = []  # listed by the worker, not shown yet
        self._list_progress: tuple[int, int] = (0, 0)
        self._list_timer: Timer | None = None
        self._list_next_drain = 0.0  # (time.monotonic) the next drain shows rows no sooner
        self._relisting = False

    def start_listing(self: "BrowserScreen") -> None:
        self.listing_done = False
        self.infos = {}
        with self._list_lock:
            self._list_buffer = []
            self._list_progress = (0, 0)
        self._list_next_drain = 0.0
        if self._list_timer is not None:
            self._list_timer.stop()
        self._list_timer = self.set_interval(self.LIST_DRAIN_SECONDS, self._drain_listing)
        self._list_worker(self.papp.root)

    @work(thread=True, exclusive=True, group="listing", exit_on_error=False)
    def _list_worker(self: "BrowserScreen", root: SessionRoot) -> None:
        worker = get_current_worker()

        def on_info(info: SessionInfo, done: int, total: int) -> None:
            # (a buffer the UI thread drains on a timer: one message per row would flood
            # the queue on a big store)
            with self._list_lock:
                self._list_buffer.append(info)
                self._list_progress = (done, total)

        index = self.papp.index
        if index is not None and index.enabled:
            # the first screen, from the index alone (a big store takes a while to stat)
            try:
                first = index.recent(root, self.FIRST_SCREEN_ROWS)
            except Exception:  # (only a head start: the listing below says what is wrong)
                first = []
            if first and not worker.is_cancelled:
                with self._list_lock:
                    self._list_buffer.extend(first)
                self.post_message(FirstRowsListed())
        try:
            infos = list_sessions(root, index, on_info=on_info)
        except Exception as exc:  # a store we cannot read at all
            if not worker.is_cancelled:
                self.post_message(ListingFailed(str(exc)))
            return
        if not worker.is_cancelled:
            self.post_message(ListingDone(root, infos))

    def _drain_listing(self: "BrowserScreen") -> None:
        # Showing the rows works out the sidebar's rows from every session listed so far
        # (on the UI thread, longer the more there are): shown no more often than that
        # leaves the UI thread free most of the time, and not while the user types or uses
        # the mouse (a key typed into the filter meanwhile would wait for it, or its repaint
        # would); the progress is shown all the same.
        now = time.monotonic()
        typing = now - getattr(self.app, "last_input_at", 0.0) < self.LIST_DRAIN_QUIET
        with self._list_lock:
            batch = None
            if now >= self._list_next_drain and not typing:
                batch, self._list_buffer = self._list_buffer, []
            done, total = self._list_progress
        if batch:
            for info in batch:
                self.infos[info.path] = info
            self.session_list.set_infos(list(self.infos.values()))
            end = time.monotonic()
            self._list_next_drain = end + self.LIST_DRAIN_IDLE * (end - now)
        if total:
            self.sidebar.set_progress(done, total)

    def on_first_rows_listed(self: "BrowserScreen", _event: FirstRowsListed) -> None:
        self._drain_listing()

    def _stop_draining(self: "BrowserScreen") -> None:
        if self._list_timer is not None:
            self._list_timer.stop()
            self._list_timer = None
        with self._list_lock:
            self._list_buffer = []

    def on_listing_failed(self: "BrowserScreen", event: ListingFailed) -> None:
        self._stop_draining()
        self.listing_done = True
        self.show_notice("Could not list sessions", event.reason)

    def on_listing_done(self: "BrowserScreen", event: ListingDone) -> None:
        if event.root is not self.papp.root:
            return  # listed before the app moved to another root
        from ..screens.empty import EmptyScreen

        self._stop_draining()
        infos = event.infos
        self.listing_done = True
        self.infos = {i.path: i for i in infos}
        self.sidebar.set_progress(1, 1)
        self.session_list.set_infos(infos)
        self.session_list.make_texts_ahead()
        if self.session_list.costs_shown:
            self.session_list.want_costs()
        if not infos and self.papp.live is None:  # (a stream piped in is shown all the same)
            self.app.push_screen(EmptyScreen(self.papp.root))
            return
        if not infos and not self.settings.sidebar_hidden:
            # `pitui -` with no sessions store: no empty sidebar of "0 sessions" (b shows it;
            # the layout saved is left as it was)
            self._set_settings(self.settings.but(sidebar_hidden=True), save=False)
        if self.session_path is None:
            path = self._first_to_open()
            if path is not None:
                self.open_session(path)
        elif self.session is not None:
            # (a session named on the command line opens before the listing is done: its
            # header's title, the first message, comes from the listing)
            self._update_header()

    def _first_to_open(self: "BrowserScreen") -> str | None:
        """The session opened when none is: the one named on the command line, else the
        first in the sidebar that can be read, else the first."""
        want = self.papp.select_path
        if want is not None and want in self.infos:
            return want
        items = [it for it in self.session_list.items if it.kind == "session"]
        for it in items:
            if it.info is not None and it.info.error is None:
                return it.key
        return items[0].key if items else None

    def _relist_tick(self: "BrowserScreen") -> None:
        if not self.listing_done or self._relisting:
            return
        self._relisting = True
        self._relist_worker(self.papp.root)

    @work(thread=True, exclusive=True, group="relist", exit_on_error=False)
    def _relist_worker(self: "BrowserScreen", root: SessionRoot) -> None:
        try:
            infos = list_sessions(root, self.papp.index)
        except Exception:
            infos = None
        self.post_message(Relisted(root, infos))

    def on_relisted(self: "BrowserScreen", event: Relisted) -> None:
        self._relisting = False
        infos = event.infos
        if infos is None or event.root is not self.papp.root or not self.listing_done or not infos:
            return
        new = {i.path: i for i in infos}
        if new == self.infos:
            return
        self.infos = new
        self.session_list.set_infos(infos)  # keeps the selected row (by path)
