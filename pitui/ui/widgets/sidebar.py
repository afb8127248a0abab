"""The sidebar: projects and their sessions, drawn with Textual's line API.

Projects (their ``cwd``, session count, newest first) hold their sessions: the name in
its own colour (else the first message), age, message count and model on a second line.
Sessions forked from another one (``SessionInfo.forked_from``) are nested under their
parent, and subagent transcripts (marked ⚙) under the session that ran them
(:func:`subagent_parents`; one no listed session records stays at the top, marked
"parent not found"); unreadable files are listed dimmed with their reason. Titles too
long for the row end in "…" after a whole word.

The sidebar lists the sessions itself (:meth:`Sidebar.start_listing`): the first screen of
rows comes from the listing index at once (the newest, as the index last had them), then
rows come in batches while the store is looked at, and it is listed again now and then to
catch new sessions. It posts :class:`Sidebar.Listed` when every session is listed and
:class:`Sidebar.ListingFailed` when the store cannot be listed. With the list focused, every printable key
types into its filter (``q`` and ``/`` too: the keys that act on the session work from the
tree and the pane); Backspace erases, Escape clears, Ctrl+S switches the sort between
recent, name and cost, Ctrl+N shows named sessions only, Ctrl+D shows each session's cost
first on its second line (in the cost sort it always is; the choice is remembered), and the
other keys that are no characters (arrows, Enter, Tab, ctrl-keys) keep their jobs.
"""

from __future__ import annotations

import os
import threading
import time
from bisect import bisect_right
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.segment import Segment
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.geometry import Offset
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from ...core.store.discovery import SessionRoot
from ...core.model.summary import one_line
from ...core.numbers import fmt_cost
from ...core.timeutil import format_age
from ..clock import Clock, system_clock
from ..bindings import bindings_for
from ..text_fit import cut_start, cut_words
from ...core.text import visible
from ..messages import FirstRowsListed, ListingDone, Relisted, SessionCosts
from .line_list import LineList

if TYPE_CHECKING:
    # (the listing is imported by its worker: a session named on the command line is
    # shown before the sidebar lists anything)
    from ...core.store.listing import SessionInfo
from .session_rows import SORTS, Item, SessionRows, Texts, build_items, make_texts

__all__ = ["Item", "build_items", "SessionList", "Sidebar", "SORTS"]  # (the rows: session_rows.py)

#: A session file bigger than this that keeps changing has its cost in the sidebar read again
#: at most once every BIG_COST_SECONDS (each time is a read of the whole file).
BIG_COST_BYTES = 32 * 1024 * 1024
BIG_COST_SECONDS = 60.0

#: The characters of the keys whose names Textual does not turn back into one when it asks
#: which bindings a focused widget takes (so ``/`` would stay bound to the pane's search).
_NAMED_CHARACTERS = {"plus": "+", "minus": "-", "slash": "/", "at": "@", "backslash": "\\", "underscore": "_"}

class SessionList(LineList):
    """Projects and sessions, two lines per session, drawn with ``render_line``."""

    COMPONENT_CLASSES = {
        "session-list--cursor",
        "session-list--cursor-blurred",
        "session-list--project",
        "session-list--count",
        "session-list--name",
        "session-list--title",
        "session-list--meta",
        "session-list--open",
        "session-list--subagent",
        "session-list--error",
        "session-list--fork",
        "session-list--working",
        "session-list--waiting",
        "session-list--failed",
        "session-list--stalled",
    }
    CURSOR_CLASSES = ("session-list--cursor", "session-list--cursor-blurred")

    DEFAULT_CSS = """
    SessionList { background: $surface; overflow-x: hidden; scrollbar-size-vertical: 1; }
    SessionList > .session-list--cursor { background: $block-cursor-background; }
    SessionList > .session-list--cursor-blurred { background: $block-cursor-blurred-background; }
    SessionList > .session-list--project { color: $text-accent; text-style: bold; }
    SessionList > .session-list--count { color: $text-muted; }
    SessionList > .session-list--name { color: $text-success; text-style: bold; }
    SessionList > .session-list--title { color: $text; }
    SessionList > .session-list--meta { color: $text-muted; }
    SessionList > .session-list--open { color: $text-accent; text-style: bold; }
    SessionList > .session-list--subagent { color: $text-secondary; }
    SessionList > .session-list--error { color: $text-error 70%; }
    SessionList > .session-list--fork { color: $text-muted; }
    SessionList > .session-list--working { color: $text-success; }
    SessionList > .session-list--waiting { color: $text-warning; text-style: bold; }
    SessionList > .session-list--failed { color: $text-error; text-style: bold; }
    SessionList > .session-list--stalled { color: $text-muted; }
    """

    BINDINGS = bindings_for("sidebar")

    class OpenRequested(Message):
        def __init__(self, path: str) -> None:
            super().__init__()
            self.path = path

    class LeaveRequested(Message):
        """Escape with nothing to clear (at narrow widths the tree comes back)."""

    class StateChanged(Message):
        """Filter, sort or contents changed (the sidebar redraws its status lines)."""

    class CostsWanted(Message):
        """Costs are to be shown and some are not known (``paths``; None: all of them, none
        is known yet): the sidebar works them out (from the usage index, or the files that
        changed since) and hands them in with :meth:`set_costs`."""

        def __init__(self, paths: list[str] | None = None) -> None:
            super().__init__()
            self.paths = paths

    class CostsToggled(Message):
        """Ctrl+D showed or hid the costs in the rows (kept in settings.json)."""

        def __init__(self, shown: bool) -> None:
            super().__init__()
            self.shown = shown

    def __init__(self, *, clock: Clock | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock: Clock = clock or system_clock
        self.infos: list[SessionInfo] = []
        self.items: list[Item] = []
        self._starts: list[int] = []  # each item's first line
        self.filter_text = ""
        self.sort = "recent"
        self.named_only = False
        self.collapsed: set[str] = set()
        self.open_path: str | None = None
        self.loose_label = "(no project folder)"
        self._rows: SessionRows | None = None  # the rows of these infos in this sort, for any filter
        self._texts: Texts = {}  # each session's text to match (SessionRows), kept across lists
        self.costs: dict[str, float] | None = None  # each session's own cost by path, once asked for
        self.show_costs = False  # each row's cost shown in every sort (ctrl+d)
        self._costed: dict[str, tuple[int, int]] = {}  # (size, mtime) of each file when its cost was known
        self._all_costs_asked = False  # every session's cost asked for, not come yet
        self.live: dict[str, str] = {}  # the state of each session on the live board, by path (ui/agents.py)

    # ------------------------------------------------------------------ data
    def set_infos(self, infos: list[SessionInfo]) -> None:
        self.infos = infos
        self._rows = None
        if len(self._texts) > 2 * len(infos) + 1000:  # (texts of sessions no longer listed)
            self._texts = {}
        if self.costs_shown and self.costs is not None and not self._all_costs_asked:
            self.want_costs(changed_only=True)
        self.rebuild()

    @property
    def costs_shown(self) -> bool:
        """Whether the rows show each session's cost (the cost sort, or ctrl+d)."""
        return self.show_costs or self.sort == "cost"

    def want_costs(self, changed_only: bool = False) -> None:
        """Ask for the costs not known: all of them the first time, then those of the
        sessions that changed (grew, new) since their cost came."""
        if not changed_only:
            if self.costs is not None:
                return
            self.costs = {}
            self._all_costs_asked = True
            self.post_message(self.CostsWanted(None))
            return
        costed = self._costed
        paths = [info.path for info in self.infos if info.error is None and costed.get(info.path) != (info.size, info.mtime_ns)]
        if paths:
            asked = set(paths)
            costed.update((info.path, (info.size, info.mtime_ns)) for info in self.infos if info.path in asked)
            self.post_message(self.CostsWanted(paths))

    def set_costs(self, costs: dict[str, float], *, partial: bool = False) -> None:
        """Each session's cost (what its header and stats screen show), by path: shown in
        the rows and sorted by in the cost sort. ``partial``: these sessions' only (the
        others keep theirs)."""
        if partial:
            self.costs = {**(self.costs or {}), **costs}
        else:
            self.costs = costs
            self._all_costs_asked = False
            # (known as the sessions are listed now; one listed since, or changed, is asked for)
            self._costed = {info.path: (info.size, info.mtime_ns) for info in self.infos if info.path in costs}
            if self.costs_shown:
                self.want_costs(changed_only=True)
        if self.sort == "cost":
            self._rows = None
            self.rebuild()
        else:
            self.refresh()

    def set_live(self, states: dict[str, str]) -> None:
        """The sessions an agent works on now, by path, with their states (working,
        waiting, failed, stalled): marked in their rows."""
        if states != self.live:
            self.live = states
            self.refresh()

    def make_texts_ahead(self) -> None:
        """Each listed session's text to match, made on a worker thread now, so that the
        first key typed into the filter finds them made."""
        infos, texts = list(self.infos), self._texts
        self.run_worker(lambda: make_texts(infos, texts), thread=True, group="sidebar-texts",
                        exclusive=True, exit_on_error=False)

    def rebuild(self) -> None:
        keep = self.current.key if self.current is not None else None
        rows = self._rows
        if rows is None or rows.sort != self.sort or rows.loose_label != self.loose_label:
            rows = self._rows = SessionRows(self.infos, sort=self.sort, loose_label=self.loose_label,
                                            texts=self._texts, costs=self.costs)
        self.items = rows.items(self.filter_text, named_only=self.named_only, collapsed=self.collapsed)
        starts, offset = [], 0
        for it in self.items:
            starts.append(offset)
            offset += it.height
        self._starts = starts
        self._update_virtual_size()
        self.cursor_row = 0
        if keep is not None or self.open_path is not None:
            want = keep if keep is not None else self.open_path
            for index, it in enumerate(self.items):
                if it.key == want:
                    self.cursor_row = index
                    break
            else:
                self.cursor_row = self._first_session_index()
        else:
            self.cursor_row = self._first_session_index()
        self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.StateChanged())

    def _scroll_to_cursor(self) -> None:
        # a project's first session scrolled into view from below brings its project's
        # row along (else the list opens on a session with no project above it)
        row = self.cursor_row
        if 0 < row < len(self.items) and self.items[row - 1].kind == "project" and self.items[row].kind == "session":
            start = self._starts[row - 1]
            if start < round(self.scroll_y):
                self.scroll_to(y=start, animate=False, force=True, immediate=True)
                return
        super()._scroll_to_cursor()

    def _first_session_index(self) -> int:
        for index, it in enumerate(self.items):
            if it.kind == "session":
                return index
        return 0

    @property
    def row_count(self) -> int:
        return len(self.items)

    def _row_span(self, row: int) -> tuple[int, int]:
        start = self._starts[row]
        return start, start + self.items[row].height

    def _row_at(self, line: int) -> int:
        return bisect_right(self._starts, line) - 1

    def _line_count(self) -> int:
        return self._starts[-1] + self.items[-1].height if self.items else 0

    def _page_step(self) -> int:
        return max(1, self.scrollable_content_region.height // 2 - 1)  # (sessions are two lines)

    @property
    def current(self) -> Item | None:
        return self.items[self.cursor_row] if 0 <= self.cursor_row < len(self.items) else None

    def session_count(self) -> int:
        """Sessions that pass the filter (folded projects included)."""
        return sum(it.count for it in self.items if it.kind == "project")

    def select_path(self, path: str) -> bool:
        for index, it in enumerate(self.items):
            if it.key == path:
                self.cursor_row = index
                self._scroll_to_cursor()
                self.refresh()
                return True
        return False

    def set_open(self, path: str | None) -> None:
        self.open_path = path
        if path is not None:
            self.select_path(path)
        self.refresh()

    # ------------------------------------------------------------------ keys
    def check_consume_key(self, key: str, character: str | None) -> bool:
        # Every printable character is text for the filter (Textual then leaves the
        # bindings of those keys out while the list is focused: the footer shows none)
        if key == "backspace":
            return bool(self.filter_text)
        character = character or _NAMED_CHARACTERS.get(key)
        return character is not None and character.isprintable()

    def on_key(self, event: events.Key) -> None:
        if event.character is not None and event.character.isprintable():
            event.stop()
            event.prevent_default()
            self.set_query(self.filter_text + event.character)
        elif event.key == "backspace" and self.filter_text:
            event.stop()
            event.prevent_default()
            self.set_query(self.filter_text[:-1])

    def set_query(self, query: str) -> None:
        self.filter_text = query
        self.rebuild()

    def action_clear_filter(self) -> None:
        if self.filter_text:
            self.set_query("")
        else:
            self.post_message(self.LeaveRequested())

    def action_toggle_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        if self.sort == "cost":
            self.want_costs()
        self.rebuild()

    def action_toggle_costs(self) -> None:
        self.show_costs = not self.show_costs
        if self.show_costs:
            self.want_costs()
        self.refresh()
        self.post_message(self.CostsToggled(self.show_costs))

    def action_toggle_named(self) -> None:
        self.named_only = not self.named_only
        self.rebuild()

    def action_open(self) -> None:
        it = self.current
        if it is None:
            return
        if it.kind == "project":
            if it.key in self.collapsed:
                self.collapsed.discard(it.key)
            else:
                self.collapsed.add(it.key)
            self.rebuild()
        else:
            self.post_message(self.OpenRequested(it.key))

    def _row_clicked(self, row: int, at: Offset, event: events.Click) -> None:
        # (a click below the last item lands on it: _row_at gives the last item there)
        self.focus()
        self.cursor_row = row
        self.refresh()
        self.action_open()

    # ------------------------------------------------------------------ drawing
    def _row_line(self, row: int, sub: int, width: int) -> list[Segment]:
        it = self.items[row]
        try:
            return self._item_line(it, sub, width)
        except Exception as exc:  # (one session's row never breaks the list: it says why, as an error row)
            if sub:
                text = f"  ⚠ cannot be shown ({type(exc).__name__})"
            else:
                text = "  " + (os.path.basename(it.info.path) if it.info is not None else "?")
            return [Segment(text, self._style("session-list--error"))]

    def _item_line(self, it: Item, sub: int, width: int) -> list[Segment]:
        st = self._style
        base = st("base")
        if it.kind == "project":
            arrow = "▸ " if it.collapsed else "▾ "
            count = f" {it.count}"
            room = max(1, width - cell_len(arrow) - len(count))
            label = cut_start(it.label, room)
            pad = max(0, width - cell_len(arrow) - cell_len(label) - len(count))
            return [
                Segment(arrow + label, st("session-list--project")),
                Segment(" " * (pad + 1), base),
                Segment(count.strip(), st("session-list--count")),
            ]
        info = it.info
        assert info is not None
        is_open = info.path == self.open_path
        mark = Segment("▌" if is_open else " ", st("session-list--open"))
        indent = " " + "  " * it.depth
        segs = [mark, Segment(indent, base)]
        if sub == 0:
            if it.depth > 0 or it.forked:
                segs.append(Segment("↳ ", st("session-list--fork")))
            if info.error is not None:
                segs.append(Segment(visible(os.path.basename(info.path)), st("session-list--error")))
                return segs
            if info.kind == "subagent":
                segs.append(Segment("⚙ ", st("session-list--subagent")))
            room = width - sum(cell_len(seg.text) for seg in segs)
            title = cut_words(one_line(info.name or info.first_message, 300), room)
            if info.name:
                segs.append(Segment(title, st("session-list--name")))
            else:
                segs.append(Segment(title, st("session-list--open") if is_open else st("session-list--title")))
            return segs
        meta_style = st("session-list--meta")
        if it.depth > 0 or it.forked:
            segs.append(Segment("  ", base))
        if info.error is not None:
            segs.append(Segment("⚠ " + visible(info.error), st("session-list--error")))
            return segs
        state = self.live.get(info.path)
        if state is not None:
            from ..agents import MARKS

            segs.append(Segment(MARKS[state], st(f"session-list--{state}")))
            segs.append(Segment(" · ", meta_style))
        bits = []
        if self.costs_shown:  # (first: at any width the cost is what stays in view)
            cost = (self.costs or {}).get(info.path)
            bits.append(fmt_cost(cost, zero="$0") if cost is not None else "$…")
        if info.kind == "subagent":
            bits.append("subagent, parent not found" if it.unlinked else "subagent")
        if info.log != "session":
            bits.append(info.log)  # (an event stream: "stream", "rpc log")
        bits.append(format_age(info.modified_ms, self.clock()))
        messages = info.message_count
        bits.append(f"{messages} msg" if messages == 1 else f"{messages} msgs")
        if info.model:
            bits.append(visible(info.model))
        if info.warnings:
            bits.append(f"⚠{info.warnings}")
        segs.append(Segment(" · ".join(bits), meta_style))
        return segs


class Sidebar(Vertical):
    """The filter line, a status line, and the session list; it lists the sessions."""

    ALLOW_MAXIMIZE = True  # zoomed as a whole

    DEFAULT_CSS = """
    Sidebar { height: 1fr; }
    Sidebar > #sidebar-filter { height: 1; padding: 0 1; color: $text-muted; background: $surface; text-wrap: nowrap; text-overflow: ellipsis; }
    Sidebar > #sidebar-filter.-active { color: $text; }
    Sidebar > #sidebar-status { height: 1; padding: 0 1; color: $text-muted; background: $surface; text-wrap: nowrap; text-overflow: ellipsis; }
    Sidebar > SessionList { height: 1fr; }
    """

    LIST_DRAIN_SECONDS = 0.15  # how often the rows listed so far are shown, at most
    LIST_DRAIN_IDLE = 4  # ... and at least this many times as long as showing them took apart
    LIST_DRAIN_QUIET = 0.5  # ... and not until the user's last input (a key, the mouse) is this long past
    RELIST_SECONDS = 2.0
    FIRST_SCREEN_ROWS = 200  # rows shown from the index before the store is looked at

    class Listed(Message):
        """Every session under ``root`` is listed (the rows came before, in batches)."""

        def __init__(self, root: SessionRoot, infos: list[SessionInfo]) -> None:
            super().__init__()
            self.root = root
            self.infos = infos

    class ListingFailed(Message):
        """The store could not be listed at all, and why."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    def __init__(self, *, clock: Clock | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock
        self.progress: tuple[int, int] | None = None  # (done, total) while reading
        self.note: str | None = None
        #: Every session listed so far, by path (the same dict for the sidebar's life: the
        #: header reads titles from it).
        self.infos: dict[str, SessionInfo] = {}
        self.listing_done = False
        self._list_lock = threading.Lock()
        self._list_buffer: list[SessionInfo] = []  # listed by the worker, not shown yet
        self._list_progress: tuple[int, int] = (0, 0)
        self._list_timer = None
        self._list_next_drain = 0.0  # (time.monotonic) the next drain shows rows no sooner
        self._relisting = False
        self._big_costs: dict[str, float] = {}  # a big file's path -> when its cost was last read

    def compose(self) -> ComposeResult:
        yield Static("", id="sidebar-filter", markup=False)
        yield Static("", id="sidebar-status", markup=False)
        yield SessionList(clock=self._clock, id="session-list")

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    def on_mount(self) -> None:
        self.session_list.show_costs = self.app.settings.sidebar_costs
        self.update_status()
        self.set_interval(self.RELIST_SECONDS, self.relist)

    def on_session_list_state_changed(self, event: SessionList.StateChanged) -> None:
        event.stop()
        self.update_status()

    # (the filter line says whether typing goes to the filter: the list focused or not)
    def on_session_list_costs_wanted(self, event: SessionList.CostsWanted) -> None:
        """The rows' costs: every session's from the usage index, or those of the files
        that changed since, each read again (on a worker). The open session's comes with
        its header's figures (``SessionHeader.Counted``); a big file is read again at most
        once every :data:`BIG_COST_SECONDS`."""
        event.stop()
        app = self.app
        root, cache_dir, paths = app.root, app.index.dir, event.paths
        if paths is not None:
            now = time.monotonic()
            open_path = self.session_list.open_path
            paths = [path for path in paths if path != open_path and now - self._big_costs.get(path, -1e9) >= BIG_COST_SECONDS]

        def work() -> None:
            from ...core.store.usage import file_spent, load_usage

            if paths is None:
                usage = load_usage(root, cache_dir=cache_dir)
                self.post_message(SessionCosts({file.path: file.session_cost for file in usage.files}))
                return
            costs = {}
            for path in paths:
                try:
                    if os.path.getsize(path) > BIG_COST_BYTES:
                        self._big_costs[path] = time.monotonic()
                    costs[path] = file_spent(path)[1]
                except OSError:
                    continue
            self.post_message(SessionCosts(costs, partial=True))

        if paths is None or paths:
            self.run_worker(work, thread=True, group="session-costs", exclusive=paths is None, exit_on_error=False)

    def on_session_costs(self, message: SessionCosts) -> None:
        self.session_list.set_costs(message.costs, partial=message.partial)

    def on_session_list_costs_toggled(self, event: SessionList.CostsToggled) -> None:
        """Ctrl+D: the choice kept in settings.json."""
        event.stop()
        from dataclasses import replace

        self.app.save_settings(replace(self.app.settings, sidebar_costs=event.shown))

    def first_to_open(self, want: str | None) -> str | None:
        """The session opened when none is: ``want`` (the one named on the command line)
        when listed, else the first in the list that can be read, else the first."""
        if want is not None and want in self.infos:
            return want
        items = [it for it in self.session_list.items if it.kind == "session"]
        for it in items:
            if it.info is not None and it.info.error is None:
                return it.key
        return items[0].key if items else None

    def on_descendant_focus(self) -> None:
        self.update_status()

    def on_descendant_blur(self) -> None:
        self.update_status()

    def set_progress(self, done: int, total: int) -> None:
        self.progress = (done, total) if done < total else None
        self.update_status()

    def update_status(self) -> None:
        sl = self.session_list
        flt = self.query_one("#sidebar-filter", Static)
        if sl.has_focus:
            flt.update(f"filter: {sl.filter_text}▏" if sl.filter_text else "type to filter ^S sort ^N named ^D cost")
            flt.add_class("-active")
        elif sl.filter_text:
            flt.update(f"filter: {sl.filter_text}")
            flt.remove_class("-active")
        else:
            flt.update("shift+tab here to filter")
            flt.remove_class("-active")
        count = sl.session_count()
        projects = sum(1 for it in sl.items if it.kind == "project")
        bits = []
        if self.progress is not None:
            done, total = self.progress
            bits.append(f"reading {done}/{total}…")
        else:
            bits.append(f"{count} session{'s' if count != 1 else ''}")
            if projects > 1:
                bits.append(f"{projects} projects")
        if sl.sort != "recent":
            bits.append(f"by {sl.sort}")
        if sl.named_only:
            bits.append("named only")
        self.query_one("#sidebar-status", Static).update(" · ".join(bits))

    # ------------------------------------------------------------------ listing
    def start_listing(self) -> None:
        """List the sessions under the app's root (again), from the first screen of rows on."""
        self.listing_done = False
        self.infos.clear()
        with self._list_lock:
            self._list_buffer = []
            self._list_progress = (0, 0)
        self._list_next_drain = 0.0
        if self._list_timer is not None:
            self._list_timer.stop()
        self._list_timer = self.set_interval(self.LIST_DRAIN_SECONDS, self._drain_listing)
        root = self.app.root
        self.run_worker(lambda: self._list(root), thread=True, exclusive=True, group="listing",
                        exit_on_error=False)

    def _list(self, root: SessionRoot) -> None:
        """The listing worker."""
        from ...core.store.listing import list_sessions

        worker = get_current_worker()

        def on_info(info: SessionInfo, done: int, total: int) -> None:
            # (a buffer the UI thread drains on a timer: one message per row would flood
            # the queue on a big store)
            with self._list_lock:
                self._list_buffer.append(info)
                self._list_progress = (done, total)

        index = self.app.index
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
                self.post_message(self.ListingFailed(str(exc)))
            return
        if not worker.is_cancelled:
            self.post_message(ListingDone(root, infos))

    def _drain_listing(self) -> None:
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
            self.set_progress(done, total)

    def on_first_rows_listed(self, event: FirstRowsListed) -> None:
        event.stop()
        self._drain_listing()

    def _stop_draining(self) -> None:
        if self._list_timer is not None:
            self._list_timer.stop()
            self._list_timer = None
        with self._list_lock:
            self._list_buffer = []

    def on_sidebar_listing_failed(self, event: ListingFailed) -> None:
        # (the worker's message, on its way to the screen)
        self._stop_draining()
        self.listing_done = True

    def on_listing_done(self, event: ListingDone) -> None:
        event.stop()
        if event.root is not self.app.root:
            return  # listed before the app moved to another root
        self._stop_draining()
        infos = event.infos
        self.listing_done = True
        self.infos.clear()
        self.infos.update((info.path, info) for info in infos)
        self.set_progress(1, 1)
        self.session_list.set_infos(infos)
        self.session_list.make_texts_ahead()
        if self.session_list.costs_shown:
            self.session_list.want_costs()
        self.post_message(self.Listed(event.root, infos))

    def relist(self) -> None:
        """List the sessions again (every RELIST_SECONDS, and when Pi, run from here, exits)."""
        if not self.listing_done or self._relisting:
            return
        self._relisting = True
        root, index = self.app.root, self.app.index

        def work() -> None:
            from ...core.store.listing import list_sessions

            try:
                infos = list_sessions(root, index)
            except Exception:
                infos = None
            self.post_message(Relisted(root, infos))

        self.run_worker(work, thread=True, exclusive=True, group="relist", exit_on_error=False)

    def on_relisted(self, event: Relisted) -> None:
        event.stop()
        self._relisting = False
        infos = event.infos
        if infos is None or event.root is not self.app.root or not self.listing_done or not infos:
            return
        new = {info.path: info for info in infos}
        if new == self.infos:
            return
        self.infos.clear()
        self.infos.update(new)
        self.session_list.set_infos(infos)  # keeps the selected row (by path)
