"""Every session under a root that was written lately, with what its agent is doing, kept up
to date from the files' stats: the board of ``pitui status`` and of the app.

A refresh stats the session files (or only the paths a file notification named) and reads
only what changed: a session written within the window (:attr:`LiveBoard.window_ms`, 30
minutes by default) has its end read (:func:`.state.read_end`) each time it grows; its cost
so far and its name are read on from where the last read stopped
(:class:`~..store.usage_scan.FileScan`, the reading of :mod:`..model.cost` that the header,
the stats screen and ``pitui usage`` use, so the figures agree); an event stream's new records
go to its :class:`~..read.stream_builder.StreamBuilder`. A session first seen is read once from its
start for its cost (the end alone cannot say it); after that, only its new bytes. Folders are
listed again only when their modification time changed. A file that shrank or was replaced
is read afresh. Nothing is written.

*Stalled* is decided here, with the clock: a session at work with nothing written for
:attr:`LiveBoard.stall_ms` (10 minutes by default: its agent was probably killed).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, NamedTuple

from ..model.cost import entry_usages, spent
from ..numbers import fmt_duration
from ..model.summary import one_line, text_of
from ..read.lines import iter_lines, open_regular, parse_line
from ..read.sniff import stream_kind
from ..read.stream import LineSplitter
from ..read.stream_builder import StreamBuilder
from ..store.discovery import SUBAGENT_DIR, SessionFile, SessionRoot, find_session_files
from ..store.usage_scan import FileScan, scan_bytes
from ..timeutil import ms_to_iso
from .state import FAILED, STALLED, WORKING, EndFacts, facts_of_entries, read_end

__all__ = ["Activity", "Change", "LiveBoard", "WINDOW_MINUTES", "STALL_MINUTES", "HOT_HOURS", "COLD_TURNS"]

#: sessions written in this many minutes are on the board
WINDOW_MINUTES = 30
#: a session at work with nothing written for this many minutes is stalled
STALL_MINUTES = 10
#: files written in this many hours are statted at every refresh; the others in turns
HOT_HOURS = 24
#: how many refreshes it takes to stat every file not written lately (a stat costs a few
#: microseconds of the kernel's time: 15,000 of them are most of a refresh's budget)
COLD_TURNS = 4
# the head read for a session's header and first message
_HEAD_BYTES = 1024 * 1024
_FIRST_MESSAGE_CHARS = 200
_READ_BLOCK = 4 * 1024 * 1024


@dataclass(slots=True)
class Activity:
    """One session on the board. ``state`` is one of :data:`.state.STATES`; ``since_ms``
    when it began (stalled: the last write); ``tool`` the call running, ``(name, summary)``;
    ``cost`` its cost so far in dollars (None until read); ``project`` the project folder's
    name (as ``pitui list --json`` gives it), ``cwd`` the session's working folder."""

    path: str
    project: str
    kind: str  # session | subagent
    log: str  # session | stream | rpc log
    id: str | None
    cwd: str
    name: str | None
    first_message: str
    state: str
    since_ms: float | None
    tool: tuple[str, str] | None
    tool_since_ms: float | None
    model: str | None
    cost: float | None
    context_tokens: int | None
    error_message: str | None
    stop_reason: str | None
    modified_ms: float

    @property
    def title(self) -> str:
        """The session's name, else its first message (one line, safe to show)."""
        return one_line(self.name or self.first_message or "(no messages)", _FIRST_MESSAGE_CHARS)

    def in_state_ms(self, now_ms: float) -> float | None:
        """How long it has been in its state."""
        return None if self.since_ms is None else max(0.0, now_ms - self.since_ms)

    def doing(self, now_ms: float) -> str:
        """What it is doing, in a few words: the tool running and for how long
        (``bash: npm test · 1m05s``), why it failed, how long nothing was written (one line,
        safe to show)."""
        if self.tool is not None:
            name, summary = self.tool
            took = fmt_duration(None if self.tool_since_ms is None else now_ms - self.tool_since_ms)
            return f"{name}: {summary}" + (f" · {took}" if took else "")
        if self.state == FAILED:
            return one_line(self.error_message or self.stop_reason or "no error message", _FIRST_MESSAGE_CHARS)
        if self.state == STALLED:
            return f"nothing written for {fmt_duration(now_ms - self.modified_ms)}"
        if self.state == WORKING:
            return "the model is answering"
        return ""

    def to_json(self) -> dict:
        """``pitui status --json``'s object (README: Command line)."""
        return {
            "path": self.path, "id": self.id, "project": self.project, "cwd": self.cwd, "name": self.name,
            "firstMessage": self.first_message, "kind": self.kind, "log": self.log, "state": self.state,
            "since": ms_to_iso(self.since_ms),
            "tool": None if self.tool is None else {"name": self.tool[0], "summary": self.tool[1],
                                                    "since": ms_to_iso(self.tool_since_ms)},
            "model": self.model, "cost": self.cost, "contextTokens": self.context_tokens,
            "errorMessage": self.error_message, "stopReason": self.stop_reason,
            "modified": ms_to_iso(self.modified_ms),
        }


class Change(NamedTuple):
    """A session whose state changed in a refresh: ``before`` None when it was not on the
    board (it was not written lately, or the board did not know it yet)."""

    activity: Activity
    before: str | None


class _Live:
    """What the board keeps of one session written lately."""

    __slots__ = ("file", "dev", "ino", "size", "mtime_ns", "log", "header", "id", "cwd", "first_message", "name",
                 "end", "facts", "shown", "scan", "scanned", "builder", "splitter", "cost")

    def __init__(self, file: SessionFile, st: os.stat_result) -> None:
        self.file = file
        self.dev, self.ino = st.st_dev, st.st_ino
        self.size = -1  # (nothing read yet)
        self.mtime_ns = st.st_mtime_ns
        self.log: str | None = None  # session, stream, rpc log (None: not known yet)
        self.header = False  # a session file's header was read (a file without one is no session Pi writes)
        self.id: str | None = None
        self.cwd = ""
        self.first_message = ""
        self.name: str | None = None
        self.end = 0  # where the whole lines read end
        self.facts: EndFacts | None = None
        self.shown: str | None = None  # the state last reported
        self.scan: FileScan | None = None
        self.scanned = 0
        self.builder: StreamBuilder | None = None
        self.splitter: LineSplitter | None = None
        self.cost: float | None = None


class LiveBoard:
    """The sessions under ``root`` written in the last ``window_minutes``, each with its
    state (see the module's text). ``costs``: read each session's cost so far (a first read
    goes through the whole file once); the app turns it on while the board is shown."""

    def __init__(self, root: SessionRoot, *, window_minutes: float = WINDOW_MINUTES,
                 stall_minutes: float = STALL_MINUTES, costs: bool = True) -> None:
        self.root = root
        self.window_ms = window_minutes * 60_000
        self.stall_ms = stall_minutes * 60_000
        self.costs = costs
        self._files: dict[str, SessionFile] = {}
        self._stats: dict[str, tuple[int, int]] = {}  # path -> (size, mtime_ns) at the last look
        self._dirs: dict[str, int] = {}  # folder -> its mtime_ns when its files were listed
        self._live: dict[str, _Live] = {}
        self._primed = False
        # the files written in the last HOT_HOURS (statted at each refresh), the others (in turn)
        self._hot: dict[str, None] = {}
        self._cold: list[str] = []
        self._hot_ns = 0
        self._turn = 0

    # ------------------------------------------------------------------ the files

    def _folders(self) -> list[str]:
        """The folders whose listing says which session files there are."""
        root = str(self.root.path)
        if self.root.kind == "file":
            return []
        folders = [root]
        if self.root.kind == "tree":
            try:
                with os.scandir(root) as it:
                    subs = [dir_entry.path for dir_entry in it if _is_dir(dir_entry)]
            except OSError:
                subs = []
            folders.extend(subs)
        elif self.root.kind == "project":
            subs = [root]
        else:
            subs = []
        folders.extend(os.path.join(folder, SUBAGENT_DIR) for folder in subs if os.path.isdir(os.path.join(folder, SUBAGENT_DIR)))
        return folders

    def _list_if_changed(self) -> bool:
        """List the session files again when a folder's time changed (or never listed);
        whether it did."""
        changed = not self._dirs
        for folder, mtime in self._dirs.items():
            try:
                if os.stat(folder).st_mtime_ns != mtime:
                    changed = True
                    break
            except OSError:
                changed = True
                break
        if not changed:
            return False
        dirs = {}
        for folder in self._folders():
            try:
                dirs[folder] = os.stat(folder).st_mtime_ns
            except OSError:
                pass
        self._dirs = dirs
        self._files = {file.path: file for file in find_session_files(self.root)}
        for gone in set(self._stats) - set(self._files):
            del self._stats[gone]
            self._live.pop(gone, None)
        return True

    # ------------------------------------------------------------------ a refresh

    def refresh(self, now_ms: float, paths: Iterable[str] | None = None, *, full: bool = False) -> list[Change]:
        """Look at the files and read what changed; the sessions whose state changed since
        the last refresh (none on the first). ``paths``: only those (a file notification
        named them). Else the folders are listed again where their time changed, and the
        files statted: every one when ``full`` (and on the first refresh), else those
        written in the last :data:`HOT_HOURS` and a :data:`COLD_TURNS`-th of the others, in
        turn (a store of 15,000 sessions is statted whole in that many refreshes)."""
        if paths is not None and self._primed:
            look: Iterable[str] = self._named(paths)
        else:
            if self._list_if_changed():
                self._sort_by_heat(now_ms)
            if full or not self._primed:
                look = self._files.keys()
            else:
                self._turn = (self._turn + 1) % COLD_TURNS
                if self._turn == 0:
                    self._sort_by_heat(now_ms)  # (once a round: files no longer written lately go to the others)
                look = [*self._hot, *self._cold[self._turn::COLD_TURNS]]
        self._look(look, now_ms)
        if self.costs:
            self._costs_of_all()
        changes = self._states(now_ms) if self._primed else []
        if not self._primed:
            self._states(now_ms)
            self._primed = True
        return changes

    def _named(self, paths: Iterable[str]) -> list[str]:
        """The session files among ``paths`` (a new one: the folders listed again)."""
        look = []
        new = False
        for path in paths:
            if path in self._files:
                look.append(path)
            elif path.endswith(".jsonl"):
                new = True
        if new:
            self._dirs = {}
            known = set(self._files)
            if self._list_if_changed():
                self._sort_by_heat(None)
            look.extend(path for path in self._files if path not in known)
        return look

    def _sort_by_heat(self, now_ms: float | None) -> None:
        """The files written lately (or not statted yet) apart from the others."""
        if now_ms is not None:
            self._hot_ns = (now_ms - HOT_HOURS * 3_600_000) * 1_000_000
        hot_ns, stats = self._hot_ns, self._stats
        self._hot = {path: None for path in self._files if path not in stats or stats[path][1] >= hot_ns}
        self._cold = [path for path in self._files if path not in self._hot]

    def _look(self, look: Iterable[str], now_ms: float) -> None:
        """Stat each file of ``look``; read those that changed and were written within the
        window (or are on the board)."""
        horizon_ns = (now_ms - self.window_ms) * 1_000_000
        stats, hot, live = self._stats, self._hot, self._live
        hot_ns = self._hot_ns
        stat = os.stat
        moved = False
        for path in look:
            try:
                st = stat(path)
            except OSError:
                stats.pop(path, None)
                live.pop(path, None)
                continue
            was = stats.get(path)
            mtime = st.st_mtime_ns
            if was is not None and was[1] == mtime and was[0] == st.st_size:
                continue
            stats[path] = (st.st_size, mtime)
            if (mtime >= hot_ns) != (path in hot):
                moved = True
            if mtime >= horizon_ns or path in live:
                self._read(path, st)
        if moved:
            self._sort_by_heat(None)

    def _costs_of_all(self) -> None:
        """The costs of sessions read while costs were off (the board was not shown)."""
        for live in self._live.values():
            if live.log == "session" and live.facts is not None and live.scan is None:
                try:
                    self._read_on(live)
                except OSError:
                    pass

    def tick(self, now_ms: float) -> list[Change]:
        """The clock moved: sessions that stalled or left the window (no file read, but
        for the costs of sessions read while costs were off)."""
        if self.costs:
            self._costs_of_all()
        return self._states(now_ms)

    def rows(self, now_ms: float) -> list[Activity]:
        """The sessions written within the window, newest first."""
        horizon = now_ms - self.window_ms
        out = [self._activity(live, now_ms) for live in self._live.values()
               if _shown(live) and live.mtime_ns / 1e6 >= horizon]
        out.sort(key=lambda row: (-row.modified_ms, row.path))
        return out

    def state_of(self, path: str, now_ms: float) -> str | None:
        """The state of the session at ``path`` when it is on the board."""
        live = self._live.get(path)
        if live is None or not _shown(live) or live.mtime_ns / 1e6 < now_ms - self.window_ms:
            return None
        return self._state(live, now_ms)[0]

    def _states(self, now_ms: float) -> list[Change]:
        horizon = now_ms - self.window_ms
        changes = []
        for path, live in list(self._live.items()):
            if live.mtime_ns / 1e6 < horizon:
                del self._live[path]  # (off the board; read afresh when written again)
                continue
            if not _shown(live):
                continue
            state = self._state(live, now_ms)[0]
            if state != live.shown:
                changes.append(Change(self._activity(live, now_ms), live.shown))
                live.shown = state
        return changes

    def _state(self, live: _Live, now_ms: float) -> tuple[str, float | None]:
        facts = live.facts
        modified = live.mtime_ns / 1e6
        if facts.state == WORKING and now_ms - modified > self.stall_ms:
            return STALLED, modified
        return facts.state, facts.since_ms

    def _activity(self, live: _Live, now_ms: float) -> Activity:
        facts = live.facts
        state, since = self._state(live, now_ms)
        file = live.file
        return Activity(file.path, file.project, file.kind, live.log or "session", live.id, live.cwd, live.name,
                        live.first_message, state, since, facts.tool if state == WORKING else None,
                        facts.tool_since_ms if state == WORKING else None, facts.model, live.cost,
                        facts.context_tokens, facts.error_message, facts.stop_reason, live.mtime_ns / 1e6)

    # ------------------------------------------------------------------ reading one file

    def _read(self, path: str, st: os.stat_result) -> None:
        live = self._live.get(path)
        if live is None or live.dev != st.st_dev or live.ino != st.st_ino or st.st_size < live.end:
            live = self._live[path] = _Live(self._files.get(path) or SessionFile(path, "", "session"), st)
        live.mtime_ns = st.st_mtime_ns
        try:
            if live.log is None or (live.log == "session" and (live.facts is None or live.facts.empty)):
                # (a header alone may yet be a stream's: its second record tells)
                live.log = stream_kind(path) or "session"
            if live.log == "session":
                self._read_session(live, st.st_size)
            else:
                self._read_stream(live, st.st_size)
        except OSError:
            return  # (gone or unreadable meanwhile: as it was, until the next look)
        live.size = st.st_size

    def _read_session(self, live: _Live, size: int) -> None:
        if live.end == 0:
            self._head(live)
        stretch = live.facts is None or live.facts.state != WORKING
        facts, end = read_end(live.file.path, size, stretch=stretch)
        if not stretch and facts.state == WORKING:
            facts.since_ms = live.facts.since_ms  # (the same work goes on)
        live.facts, live.end = facts, end
        if self.costs:
            self._read_on(live)

    def _head(self, live: _Live) -> None:
        """The header's id and cwd, and the first user message, from the file's start."""
        with open_regular(live.file.path) as handle:
            for raw in iter_lines(handle):
                if raw.offset > _HEAD_BYTES:
                    break
                entry = parse_line(raw.data).value
                if type(entry) is not dict:
                    continue
                if entry.get("type") == "session":
                    live.header = True
                    if live.id is None and type(entry.get("id")) is str:
                        live.id = entry["id"]
                        live.cwd = entry["cwd"] if type(entry.get("cwd")) is str else ""
                    continue
                msg = entry.get("message")
                if type(msg) is dict and msg.get("role") == "user":
                    live.first_message = _first_text(msg)
                    break

    def _read_on(self, live: _Live) -> None:
        """The session's cost and name, read on from where the last read stopped."""
        if live.scan is None:
            live.scan, live.scanned = FileScan(), 0
        scan = live.scan
        if live.scanned >= live.end:
            live.cost = _cost(scan)
            return
        with open_regular(live.file.path) as handle:
            handle.seek(live.scanned)
            rest = b""
            while live.scanned < live.end:
                data = handle.read(min(_READ_BLOCK, live.end - live.scanned - len(rest)))
                if not data:
                    break
                block = rest + data
                cut = block.rfind(b"\n") + 1
                if cut == 0:
                    rest = block
                    continue
                scan_bytes(scan, block[:cut], 0, True)
                live.scanned += cut
                rest = block[cut:]
        live.name = scan.name
        live.cost = _cost(scan)

    def _read_stream(self, live: _Live, size: int) -> None:
        if live.builder is None:
            live.builder, live.splitter, live.scanned = StreamBuilder(), LineSplitter(), 0
        builder, splitter = live.builder, live.splitter
        with open_regular(live.file.path) as handle:
            handle.seek(live.scanned)  # (the bytes fed so far: a record not ended waits in the splitter)
            while live.scanned < size:
                data = handle.read(min(_READ_BLOCK, size - live.scanned))
                if not data:
                    break
                live.scanned += len(data)
                for lineno, _offset, raw in splitter.feed(data):
                    builder.add(parse_line(raw).value, lineno, raw)
        live.end = splitter.offset
        entries = [entry for entry, _line, _raw in builder.entries(open_message=False)]
        header = builder.header or {}
        live.id = header.get("id") if type(header.get("id")) is str else (builder.session_ids or [None])[0]
        live.cwd = header.get("cwd") if type(header.get("cwd")) is str else ""
        previous = live.facts
        facts = facts_of_entries(reversed(entries))
        if builder.streaming_role == "assistant" and facts.state != WORKING:
            facts = EndFacts(WORKING, facts.last_ms, model=facts.model, context_tokens=facts.context_tokens)
        if previous is not None and previous.state == WORKING and facts.state == WORKING:
            facts.since_ms = previous.since_ms if previous.since_ms is not None else facts.since_ms
        live.facts = facts
        by_model: dict[str, list] = {}
        first = ""
        for entry in entries:
            if entry.get("type") == "session_info" and type(entry.get("name")) is str:
                live.name = entry["name"].strip() or None
            msg = entry.get("message")
            if not first and type(msg) is dict and msg.get("role") == "user":
                first = _first_text(msg)
            for key, figures, _calls in entry_usages(entry):
                if type(figures) is not str:
                    row = by_model.setdefault(key, [0, 0, 0, 0, 0.0])
                    for index, value in enumerate((figures.input, figures.output, figures.cache_read, figures.cache_write,
                                                   figures.cost)):
                        row[index] += value
        live.first_message = first
        live.cost = spent(by_model.values())[1]


def _shown(live: _Live) -> bool:
    """Whether a session read is on the board: read, and a session with its header or a stream."""
    return live.facts is not None and (live.header or live.log != "session")


def _is_dir(dir_entry: os.DirEntry) -> bool:
    try:
        return dir_entry.is_dir()
    except OSError:
        return False


def _first_text(msg: dict) -> str:
    return " ".join(text_of(msg.get("content")).split())[:_FIRST_MESSAGE_CHARS]


def _cost(scan: FileScan) -> float:
    """The session's cost as its header, stats screen and the usage screen show it (every
    branch, tools, subagent runs): :func:`..model.cost.spent` of the scan's sums per model."""
    return spent(scan.summary()["byModel"].values())[1]
