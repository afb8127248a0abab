"""Search every session (ctrl+f): a query line, and the hits grouped by session.

Results stream in from a thread worker (newest session first) while the index is brought
up to date on the way; a key that changes the query stops the search under way at once
(its late results are dropped), and the new query is searched after a short pause. Enter
on a hit dismisses the screen with ``(path, entry_id, match)``: the app opens that session
with that entry selected (``entry_id`` is None for the session's title line and for header
hits such as the cwd) and finds ``match``, the text the hit matched, in the pane. Escape
dismisses it with None.

How the app opens it::

    def opened(result):
        if result is not None:
            path, entry_id, match = result
            browser.open_session(path, select_id=entry_id, find=match)

    app.push_screen(SearchScreen(root, infos=sidebar_infos, clock=app.clock,
                                 index_dir=app.index.dir), opened)
"""

from __future__ import annotations

import bisect
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from rich.segment import Segment
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Offset
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from ...core.store.discovery import SessionRoot
from ...core.store.listing import SessionInfo
from ...core.store.search import (
    SERVE_SIZES,
    Hit,
    QueryError,
    SessionHits,
    parse_query,
    search_while_indexing,
    update_index,
)
from ...core.model.summary import one_line, shorten_home
from ...core.timeutil import format_age, local_minute
from ..clock import Clock, system_clock
from ..bindings import bindings_for
from ..text_fit import cut_end
from ..messages import IndexProgress, SearchDone, SearchFailed, SearchFound, SearchProgress
from ...core.text import visible
from ..widgets.line_list import LineList, nearest_selectable

__all__ = ["SearchScreen", "SearchResults"]

KIND_LABEL = {
    "user": "user",
    "assistant": "assistant",
    "thinking": "thinking",
    "tool-call": "tool call",
    "tool-result": "tool result",
    "bash": "bash",
    "custom": "custom",
    "summary": "summary",
    "name": "name",
    "label": "label",
    "cwd": "cwd",
    "id": "session id",
}
KIND_WIDTH = 12


SHOWN_HITS = 3  # hits listed under a session until its "more" line is opened
TIME_WIDTH = 16  # "2026-08-26 10:59"


@dataclass(slots=True)
class _Row:
    kind: str  # "session" | "hit" | "more" (opens the rest) | "unlisted" (beyond what was kept)
    result: SessionHits
    hit: Hit | None = None
    more: int = 0  # the hits not shown (at least that many when the session's count stopped)

    @property
    def selectable(self) -> bool:
        return self.kind != "unlisted"


def _newest_key(result: SessionHits) -> tuple:
    """Sorts results newest first, as the sidebar (and Pi) order sessions."""
    return (-(result.modified_ms or 0), _Desc(os.path.basename(result.path)))


class _Desc(str):
    """A string that sorts backwards (the file name breaks a tie in time, newest first)."""

    __slots__ = ()

    def __lt__(self, other: str) -> bool:  # type: ignore[override]
        return str.__gt__(self, other)


class SearchResults(LineList):
    """The results grouped by session, newest session first: its title line, then its first
    :data:`SHOWN_HITS` hits (identical ones folded into one with a count) and a line saying
    how many more, which opens the rest (line API: any number of results costs only the
    lines on screen). Results may come in any order: each goes to its place."""

    COMPONENT_CLASSES = {
        "search-results--cursor",
        "search-results--cursor-blurred",
        "search-results--name",
        "search-results--title",
        "search-results--meta",
        "search-results--time",
        "search-results--kind",
        "search-results--count",
        "search-results--text",
        "search-results--match",
        "search-results--more",
    }
    CURSOR_CLASSES = ("search-results--cursor", "search-results--cursor-blurred")
    LINES_ABOVE_CURSOR = 1  # (the session's title line above its first hit)

    DEFAULT_CSS = """
    SearchResults { background: $surface; overflow-x: hidden; scrollbar-size-vertical: 1; }
    SearchResults > .search-results--cursor { background: $block-cursor-background; }
    SearchResults > .search-results--cursor-blurred { background: $block-cursor-blurred-background; }
    SearchResults > .search-results--name { color: $text-success; text-style: bold; }
    SearchResults > .search-results--title { color: $text; text-style: bold; }
    SearchResults > .search-results--meta { color: $text-muted; }
    SearchResults > .search-results--time { color: $text-muted; }
    SearchResults > .search-results--kind { color: $text-accent; }
    SearchResults > .search-results--count { color: $text-warning; text-style: bold; }
    SearchResults > .search-results--text { color: $text; }
    SearchResults > .search-results--match { color: $text-warning; background: $warning 25%; text-style: bold; }
    SearchResults > .search-results--more { color: $text-muted; text-style: italic; }
    """

    BINDINGS = bindings_for("search_results")

    class Chosen(Message):
        """Enter or a click on a row: open ``path`` at ``entry_id`` (None: the session),
        where ``match`` is the text the hit matched (None for a session's title line)."""

        def __init__(self, path: str, entry_id: str | None, match: str | None = None) -> None:
            super().__init__()
            self.path = path
            self.entry_id = entry_id
            self.match = match

    def __init__(self, *, clock: Clock | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock: Clock = clock or system_clock
        self.rows: list[_Row] = []
        self.cursor_row = -1  # (no results)
        self.sessions = 0
        self.hits = 0
        self.counted_all = True  # (False: some session holds more hits than ``hits`` counts)
        self._keys: list[tuple] = []  # the results' sort keys, in the order shown
        self._results: list[SessionHits] = []  # ... and the results
        self._partial: dict[str, SessionHits] = {}  # results shown with their first hits, by path
        self.moved = False  # the user moved the cursor since the results were cleared

    # ------------------------------------------------------------------ data
    def clear(self) -> None:
        self.rows = []
        self._keys = []
        self._results = []
        self._partial = {}
        self.cursor_row = -1
        self.sessions = self.hits = 0
        self.counted_all = True
        self.moved = False
        self._update_virtual_size()
        self.scroll_to(y=0, animate=False, force=True, immediate=True)
        self.refresh()

    @staticmethod
    def _group_rows(result: SessionHits, expanded: bool = False) -> list[_Row]:
        """A result's rows: its title, its hits (the first :data:`SHOWN_HITS`, or all that
        were kept when ``expanded``), and a line for those not shown."""
        rows = [_Row("session", result)]
        hits = result.hits if expanded else result.hits[:SHOWN_HITS]
        rows.extend(_Row("hit", result, hit) for hit in hits)
        rest = result.hit_count - sum(hit.repeats for hit in hits)
        if rest > 0 or not result.hit_count_complete:
            rows.append(_Row("more" if len(hits) < len(result.hits) else "unlisted", result, more=rest))
        return rows

    def add_result(self, result: SessionHits) -> None:
        """Show ``result`` in its place (newest session first); the cursor stays on its row and
        the lines in view stay where they are, unless the user has not moved yet: then the
        cursor is on the first hit of the newest session. A session whose first hits came
        first (``partial``) has its rows made again from ``result``, it whole."""
        first = self._partial.pop(result.path, None)
        if first is not None:
            self._replace(first, result)
            return
        if result.partial:
            self._partial[result.path] = result
        key = _newest_key(result)
        at = bisect.bisect_right(self._keys, key)
        rows = self._group_rows(result)
        if at == len(self._keys):
            start = len(self.rows)
            self.rows.extend(rows)
        else:
            following = self._results[at]
            start = next(index for index, row in enumerate(self.rows) if row.kind == "session" and row.result is following)
            self.rows[start:start] = rows
        self._keys.insert(at, key)
        self._results.insert(at, result)
        self.sessions += 1
        self.hits += result.hit_count
        self.counted_all = self.counted_all and (result.partial or result.hit_count_complete)
        self._rows_inserted(start, len(rows))

    def _replace(self, first: SessionHits, result: SessionHits) -> None:
        """The rows of ``first`` (a session's first hits) made again from ``result`` (it whole),
        opened if they were; the rows after them and the cursor move with them."""
        at = next(index for index, result in enumerate(self._results) if result is first)
        start = next(index for index, row in enumerate(self.rows) if row.kind == "session" and row.result is first)
        end = start + 1
        while end < len(self.rows) and self.rows[end].kind != "session":
            end += 1
        opened = end - start != len(self._group_rows(first))
        rows = self._group_rows(result, expanded=opened)
        self.rows[start:end] = rows
        self._results[at] = result
        self.hits += result.hit_count - first.hit_count
        self.counted_all = self.counted_all and result.hit_count_complete
        grown = len(rows) - (end - start)
        if grown and self.moved and self.cursor_row >= end:
            self.cursor_row += grown
            if end < round(self.scroll_y):  # (what the user is looking at stays in place)
                self.scroll_to(y=self.scroll_y + grown, animate=False, force=True, immediate=True)
        self._update_virtual_size()
        self.refresh()

    def _rows_inserted(self, start: int, count: int) -> None:
        self._update_virtual_size()
        if not self.moved or self.cursor_row < 0:
            self.cursor_row = 1 if len(self.rows) > 1 and self.rows[1].kind == "hit" else 0
            self.scroll_to(y=0, animate=False, force=True, immediate=True)
        elif start <= self.cursor_row:
            self.cursor_row += count
            if start < round(self.scroll_y):  # (what the user is looking at stays in place)
                self.scroll_to(y=self.scroll_y + count, animate=False, force=True, immediate=True)
        self.refresh()

    def expand(self, row: int) -> None:
        """Open a "more" line: every hit kept of its session, in place of the first few."""
        result = self.rows[row].result
        start = next(index for index in range(row, -1, -1) if self.rows[index].kind == "session")
        old = self._group_rows(result)
        new = self._group_rows(result, expanded=True)
        self.rows[start:start + len(old)] = new
        self._update_virtual_size()
        # the cursor on the first hit that was not shown before
        self._put_cursor(min(start + len(old) - 1, start + len(new) - 1))
        self.moved = True

    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def current(self) -> _Row | None:
        return self.rows[self.cursor_row] if 0 <= self.cursor_row < len(self.rows) else None

    # ------------------------------------------------------------------ keys
    def _cursor_target(self, row: int, direction: int) -> int | None:
        """``row`` kept within the rows; from a line with no cursor on it on to the next
        row in ``direction`` that has one, else back to the nearest before it."""
        target = super()._cursor_target(row, direction)
        return None if target is None else nearest_selectable(self.rows, target, direction)

    def move_to_row(self, row: int, direction: int = 1) -> None:
        self.moved = True
        super().move_to_row(row, direction)

    def action_next_session(self, direction: int = 1) -> None:
        """The cursor to the first hit of the next session (``direction`` -1: of the
        previous one, or of this one from below its first hit)."""
        if not self.rows:
            return
        here = max(0, self.cursor_row)
        starts = [index for index, row in enumerate(self.rows) if row.kind == "session"]
        mine = bisect.bisect_right(starts, here) - 1
        if direction > 0:
            target = starts[mine + 1] if mine + 1 < len(starts) else None
        else:
            first_hit = starts[mine] + 1
            target = starts[mine] if here > first_hit else (starts[mine - 1] if mine > 0 else None)
        if target is None:
            return
        if target + 1 < len(self.rows) and self.rows[target + 1].kind == "hit":
            target += 1
        self.moved = True
        self._put_cursor(target)

    def action_previous_session(self) -> None:
        self.action_next_session(-1)

    def action_choose(self) -> None:
        row = self.current
        if row is None or not row.selectable:
            return
        if row.kind == "more":
            self.expand(self.cursor_row)
            return
        hit = row.hit
        match = None
        if hit is not None and hit.entry_id is not None and hit.spans:
            start, end = hit.spans[0]
            match = hit.context[start:end] or None
        self.post_message(self.Chosen(row.result.path, hit.entry_id if hit is not None else None, match))

    def _row_clicked(self, row: int, at: Offset, event: events.Click) -> None:
        if self.rows[row].selectable:
            self.cursor_row = row
            self.moved = True
            self.refresh()
            self.action_choose()

    # ------------------------------------------------------------------ drawing
    def _cursor_active(self) -> bool:
        if self.has_focus:
            return True
        focused = self.screen.focused if self.is_attached else None
        return isinstance(focused, Input)

    def _row_line(self, index: int, sub: int, width: int) -> list[Segment]:
        st = self._style
        row = self.rows[index]
        result = row.result
        if row.kind == "session":
            title = one_line(result.name or result.first_message, 300)
            room = max(20, width * 3 // 5)  # leave room for the cwd and age
            title = cut_end(title, room)
            segs = [Segment(title, st("search-results--name" if result.name else "search-results--title"))]
            hit_count = result.hit_count
            meta = " · ".join(
                part
                for part in (
                    visible(shorten_home(result.cwd)) if result.cwd else "",
                    format_age(result.modified_ms, self.clock()),
                    f"{hit_count}+ hits" if not result.hit_count_complete else f"{hit_count} hit" if hit_count == 1 else f"{hit_count} hits",
                )
                if part
            )
            segs.append(Segment("  " + meta, st("search-results--meta")))
            return segs
        indent = " " * (TIME_WIDTH + KIND_WIDTH + 4)
        more = f"{row.more}{'' if result.hit_count_complete else '+'} more"
        if row.kind == "more":
            return [Segment(indent + f"… {more} in this session · Enter lists them", st("search-results--more"))]
        if row.kind == "unlisted":
            return [Segment(indent + f"… {more} not listed: open the session and search it with /",
                            st("search-results--more"))]
        hit = row.hit
        assert hit is not None
        label = KIND_LABEL.get(hit.kind) or visible(hit.kind)
        segs = [
            Segment("  " + local_minute(hit.timestamp).ljust(TIME_WIDTH) + " ", st("search-results--time")),
            Segment(cut_end(label, KIND_WIDTH).rjust(KIND_WIDTH) + " ", st("search-results--kind")),
        ]
        if hit.repeats > 1:
            segs.append(Segment(f"×{hit.repeats} ", st("search-results--count")))
        text_style = st("search-results--text")
        match_style = st("search-results--match")
        pos = 0
        ctx = hit.context
        for start, end in hit.spans:
            if start > pos:
                segs.append(Segment(ctx[pos:start], text_style))
            segs.append(Segment(ctx[start:end], match_style))
            pos = end
        if pos < len(ctx):
            segs.append(Segment(ctx[pos:], text_style))
        return segs


class SearchScreen(Screen[tuple[str, str | None] | None]):
    """Search all sessions under ``root`` (see the module docstring)."""

    DEFAULT_CSS = """
    SearchScreen { background: $surface; }
    SearchScreen > Vertical { height: 1fr; border: round $border; border-title-color: $text; padding: 0 1; }
    SearchScreen #search-query { height: 3; margin: 0 0 0 0; }
    SearchScreen #search-status { height: 1; color: $text-muted; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    SearchScreen #search-status.-error { color: $text-error; height: auto; text-wrap: wrap; }
    SearchScreen SearchResults { height: 1fr; }
    SearchScreen #search-hint { height: 1; color: $text-muted; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    BINDINGS = bindings_for("search_all")

    DEBOUNCE = 0.3  # seconds of quiet typing before the search starts
    MAX_HITS = 50  # different hits kept per session (identical ones folded; counted up to one past that)
    PLACEHOLDER = 'Search all sessions: words (all must match), "a phrase", re:regex, kind:shell_exec npm'
    HINT = ("↑↓ move · ctrl+↓ ctrl+↑ next / previous session · Enter open, or list a session's other hits · Esc close · "
            "Pi's /resume syntax, kind:KIND; matches tool output, thinking, labels, cwd too")

    def __init__(
        self,
        root: SessionRoot,
        *,
        infos: Iterable[SessionInfo] | Callable[[], tuple[list[SessionInfo], bool]] | None = None,
        clock: Clock | None = None,
        index_dir: str | Path | None = None,
        query: str = "",
    ) -> None:
        super().__init__()
        self.root = root
        # the sessions to search: a list, or (while the app is still listing them) what
        # gives the sessions listed so far and whether that is all, called on the UI thread
        self.listed = infos if callable(infos) else None
        self.infos = _newest_first(infos) if infos is not None and not callable(infos) else None
        self.clock: Clock = clock or system_clock
        self.index_dir = index_dir
        self.initial_query = query
        self._timer: Timer | None = None
        self._gen = 0  # bumped per search: late messages of an old search are dropped
        self._searched: str | None = None  # the query the results are for
        self._searching = False
        self._progress: tuple[int, int] | None = None  # bytes of unindexed sessions read, of all
        self._indexing: tuple[int, int] | None = None  # sessions the index has brought up to date, of all
        self._index_stop = threading.Event()  # (set: the index's update stops)

    def compose(self) -> ComposeResult:
        with Vertical(id="search-box") as box:
            box.border_title = "Search all sessions"
            yield Input(value=self.initial_query, placeholder=self.PLACEHOLDER, id="search-query")
            yield Static("", id="search-status", markup=False)
            yield SearchResults(clock=self.clock, id="search-results")
            yield Static(self.HINT, id="search-hint", markup=False)

    @property
    def results(self) -> SearchResults:
        return self.query_one(SearchResults)

    @property
    def input(self) -> Input:
        return self.query_one("#search-query", Input)

    @property
    def searching(self) -> bool:
        """Whether a search is under way, or typed and about to start (the status line
        says "Searching…" once it starts)."""
        return self._searching or self._timer is not None

    def on_mount(self) -> None:
        self.input.focus()
        self._update_index()  # (searches meanwhile read what it has not reached)
        if self.initial_query.strip():
            self.start_search(self.initial_query)
        else:
            self._set_status("Type to search every session.")

    # ------------------------------------------------------------------ status
    def _set_status(self, text: str, error: bool = False) -> None:
        st = self.query_one("#search-status", Static)
        st.update(visible(text))
        st.set_class(error, "-error")

    def _update_status(self) -> None:
        res = self.results
        if self._searching:
            text = "Searching…"
            if res.sessions:
                text += f" {_count(res.sessions, 'session')}, {_hits(res)}"
        elif res.sessions:
            text = f"{_count(res.sessions, 'session')}, {_hits(res)}"
        else:
            text = "No matches."
        if self._progress is not None:
            done, total = self._progress
            text += f" · reading sessions not indexed yet: {_mb(done)} of {_mb(total)}"
        if self._indexing is not None:
            text += f" · index {_percent(*self._indexing)}"
        self._set_status(text)

    # ------------------------------------------------------------------ typing
    @on(Input.Changed, "#search-query")
    def _changed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if event.value == self._searched:
            # (the query searched already: the one the screen opened with, whose Changed
            # comes after its search started, or one typed back to it; no search to start)
            return
        if self._searching:
            self._cancel_search()  # a key ends the search for what the query no longer is
        self._timer = self.set_timer(self.DEBOUNCE, self._debounced)

    def _cancel_search(self) -> None:
        """Stop the search under way; what it found stays listed until the next one starts."""
        self.workers.cancel_group(self, "search-all")
        self._gen += 1  # (its late messages are dropped)
        self._searched = None
        self._searching = False
        self._progress = None
        res = self.results
        self._set_status(f"{_count(res.sessions, 'session')}, {_count(res.hits, 'hit')} so far" if res.sessions else "")

    def _debounced(self) -> None:
        self._timer = None
        self.start_search(self.input.value)

    @on(Input.Submitted, "#search-query")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if event.value == self._searched and self.results.current is not None:
            self.results.action_choose()
        else:
            self.start_search(event.value)

    def action_results(self, action: str) -> None:
        getattr(self.results, f"action_{action}")()

    def action_close(self) -> None:
        self.workers.cancel_node(self)
        self._index_stop.set()
        self.dismiss(None)

    @on(SearchResults.Chosen)
    def _chosen(self, event: SearchResults.Chosen) -> None:
        event.stop()
        self.workers.cancel_node(self)
        self._index_stop.set()
        self.dismiss((event.path, event.entry_id, event.match))

    # ------------------------------------------------------------------ searching
    def start_search(self, query: str) -> None:
        """Search for ``query`` now (cancelling a search under way)."""
        if query == self._searched:
            return
        self._gen += 1
        self._searched = query
        self.results.clear()
        self._progress = None
        if not query.strip():
            self.workers.cancel_group(self, "search-all")
            self._searching = False
            self._set_status("Type to search every session.")
            return
        try:
            parsed = parse_query(query)
        except QueryError as exc:
            self.workers.cancel_group(self, "search-all")
            self._searching = False
            self._set_status(str(exc), error=True)
            return
        self._searching = True
        self._update_status()
        self._search_worker(parsed, self._gen)

    @work(thread=True, exclusive=True, group="search-all", exit_on_error=False)
    def _search_worker(self, query, gen: int) -> None:
        """The results of ``query``: what the index holds from it, the sessions it has not
        reached read whole meanwhile, small and recent ones first (they come in that order
        and :class:`SearchResults` places them)."""
        worker = get_current_worker()
        last = [0.0]
        latest = [(0, 0)]  # the last progress told, over every batch so far

        def progress(done: int, total: int) -> None:
            latest[0] = (done, total)
            now = time.perf_counter()
            if done == total or now - last[0] > 0.1:
                last[0] = now
                self._post(SearchProgress(gen, done, total))

        before = [0, 0]  # (bytes read, bytes to read) of the batches searched before

        def batch_progress(done: int, total: int) -> None:
            progress(before[0] + done, before[1] + total)

        try:
            for batch in self._batches(worker):
                for result in search_while_indexing(
                    self.root,
                    query,
                    index_dir=self.index_dir,
                    infos=batch,
                    max_hits=self.MAX_HITS,
                    first_hits=SHOWN_HITS + 1,  # (a big session's first lines, and its "more" line, at once)
                    fold=True,
                    on_progress=batch_progress,
                    should_stop=lambda: worker.is_cancelled,
                ):
                    if worker.is_cancelled:
                        return
                    self._post(SearchFound(gen, result))
                before[:] = latest[0]
        except Exception as exc:  # an unreadable index, a full disk...: say so, keep the app
            self._post(SearchFailed(gen, f"search failed: {exc}"))
            return
        if not worker.is_cancelled:
            self._post(SearchDone(gen))

    LISTED_POLL = 0.3  # seconds between two looks at the sessions the app has listed so far

    def _batches(self, worker) -> Iterator[list[SessionInfo] | None]:
        """The sessions to search, in batches (from the worker's thread): all at once, or
        while the app is still listing them, those listed so far, then each time the
        listing has gone on, those it added, and once it is done the biggest, held back
        till then (each takes a while to read). None: every session under the root, listed
        by the search."""
        if self.listed is None:
            yield self.infos
            return
        seen: set[str] = set()
        big: list[SessionInfo] = []  # (held back until the listing is done)
        while not worker.is_cancelled:
            try:
                listed, complete = self.app.call_from_thread(self.listed)
            except RuntimeError:  # (the app is closing)
                return
            new = [info for info in _newest_first(listed) if info.path not in seen]
            seen.update(info.path for info in new)
            big.extend(info for info in new if info.size >= SERVE_SIZES[-1])
            small = [info for info in new if info.size < SERVE_SIZES[-1]]
            if complete:
                yield small + big
                return
            if small:
                yield small
            time.sleep(self.LISTED_POLL)

    def _update_index(self) -> None:
        """Bring the index up to date while the screen is open, in a thread of its own (not
        one of the app's workers: it may run a while, and must not hold back a search's):
        searches do not wait for it (what it has not reached they read whole), and the next
        one finds more of it. Stopped when the screen closes; the index keeps what was done."""
        stop = self._index_stop
        last = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.perf_counter()
            if done == total or now - last[0] > 0.1:
                last[0] = now
                self._post(IndexProgress(0, done, total))

        def run() -> None:
            try:
                update_index(self.root, index_dir=self.index_dir, on_progress=progress, should_stop=stop.is_set)
            except Exception:
                pass  # (searches read what is not indexed; the next screen tries again)

        threading.Thread(target=run, name="pitui-search-index", daemon=True).start()

    def on_unmount(self) -> None:
        self._index_stop.set()

    def _post(self, message: Message) -> None:
        """Post ``message`` (from a worker) to this screen."""
        try:
            self.post_message(message)
        except RuntimeError:
            pass  # the app is closing

    def on_search_found(self, message: SearchFound) -> None:
        if message.gen == self._gen:
            self.results.add_result(message.hits)
            self._update_status()

    def on_search_progress(self, message: SearchProgress) -> None:
        if message.gen == self._gen:
            done, total = message.done, message.total
            self._progress = (done, total) if done < total else None
            self._update_status()

    def on_index_progress(self, message: IndexProgress) -> None:
        self._indexing = (message.done, message.total) if message.done < message.total else None
        if self._searching or self.results.sessions:
            self._update_status()
        elif self._searched is None or not self._searched.strip():
            self._set_status("Type to search every session."
                             + (f" (index {_percent(*self._indexing)})" if self._indexing else ""))

    def on_search_done(self, message: SearchDone) -> None:
        if message.gen == self._gen:
            self._searching = False
            self._progress = None
            self._update_status()

    def on_search_failed(self, message: SearchFailed) -> None:
        if message.gen == self._gen:
            self._searching = False
            self._progress = None
            self._set_status(message.reason, error=True)


def _hits(res: SearchResults) -> str:
    """The hits the results hold: "120 hits", or "120+ hits" when a session holds more
    than it counted."""
    return f"{res.hits}+ hits" if not res.counted_all else _count(res.hits, "hit")


def _mb(size: int) -> str:
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB" if size >= 1e6 else f"{size / 1e3:.0f} kB"


def _percent(done: int, total: int) -> str:
    return f"{100 * done // max(1, total)}%"


def _count(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _newest_first(infos: Iterable[SessionInfo]) -> list[SessionInfo]:
    out = [info for info in infos if info.error is None]
    out.sort(key=lambda info: os.path.basename(info.path), reverse=True)
    out.sort(key=lambda info: -(info.modified_ms or 0))
    return out
