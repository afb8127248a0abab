"""A Pi event stream read as a session: the output of ``pi --mode json`` (a session header,
then events) or a saved ``pi --mode rpc`` log (responses and events, no header).

The conversation is rebuilt from the records by :class:`~.stream_builder.StreamBuilder`
(what each record becomes is said there). :class:`StreamSession` is a
:class:`~pitui.core.read.session.Session` whose entries are these rebuilt dicts, kept in
memory (streams are small next to sessions). It is read with the same line reader (regular
files only, bad bytes kept; a record that does not parse is a warning with its line number,
and the rest shows), and read again whole when the file grows. :meth:`StreamSession.live`
makes one fed with bytes instead (``pitui -``).
"""

from __future__ import annotations

import math
import os
import threading
from array import array
from typing import BinaryIO, Callable

import orjson

from .lines import LONG_LINE, MAX_LINE, iter_lines, parse_line
from .normalize import normalize_entry
from .session import Session
from .skeleton import (F_ABNORMAL_STOP, F_ASSISTANT_TEXT, F_CHECKED, NotASession, SessionWarning, has_text,
                       open_session_file, repair_warnings, unparsable)
from .sniff import STREAM
from .stream_builder import StreamBuilder
from ..timeutil import iso_to_ms

__all__ = ["StreamSession", "LineSplitter", "stream_entries"]


class LineSplitter:
    """Bytes in, whole records out: splits only on LF (a CR before it dropped), keeps a
    last record without its LF until the LF comes, and counts lines as the file would. A
    record longer than :data:`~.lines.MAX_LINE` is not kept: it is read past, and given as
    :data:`~.lines.LONG_LINE` (a warning) when its LF comes."""

    def __init__(self) -> None:
        self._rest = bytearray()  # the record not ended yet (at most MAX_LINE bytes)
        self._long = False  # the record not ended yet is past MAX_LINE: read past, not kept
        self._fed = 0  # bytes fed so far
        self.lineno = 0  # lines taken so far
        self.offset = 0  # bytes taken so far (whole lines)

    def feed(self, data: bytes) -> list[tuple[int, int, bytes]]:
        """``(line number, offset, bytes)`` of each whole line ``data`` completes (blank
        lines counted, not returned). Only ``data`` is searched for LFs: a record fed in
        many pieces is put together once."""
        out = []
        start = 0
        nl = data.find(b"\n")
        while nl >= 0:
            self.lineno += 1
            if self._long or len(self._rest) + nl - start > MAX_LINE:
                line = LONG_LINE
            elif self._rest:
                self._rest += memoryview(data)[start:nl]
                line = bytes(self._rest)
            else:
                line = data[start:nl]
            self._rest.clear()
            self._long = False
            if line.endswith(b"\r"):
                line = line[:-1]
            if line.strip():
                out.append((self.lineno, self.offset, line))
            self.offset = self._fed + nl + 1
            start = nl + 1
            nl = data.find(b"\n", start)
        if not self._long:
            if len(self._rest) + len(data) - start > MAX_LINE:
                self._rest = bytearray()  # (its memory given back, not only emptied)
                self._long = True
            else:
                self._rest += memoryview(data)[start:]
        self._fed += len(data)
        return out

    @property
    def has_pending(self) -> bool:
        """Bytes of a record not ended yet came."""
        return bool(self._rest) or self._long

    @property
    def pending(self) -> bytes:
        """The bytes of a record not ended yet (:data:`~.lines.LONG_LINE` for one read past)."""
        return LONG_LINE if self._long else bytes(self._rest)


class _Inbox:
    """The records a live stream was fed and not yet taken in, and whether it ended. The
    bytes are split into records as they come (on the reading thread), so what waits is
    whole records and at most one record not ended yet, itself capped
    (:class:`LineSplitter`): a pipe of endless bytes without a newline never fills memory."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._splitter = LineSplitter()
        self._lines: list[tuple[int, int, bytes]] = []
        self.closed = False
        self._told_end = False

    def put(self, data: bytes) -> None:
        with self._lock:
            self._lines += self._splitter.feed(data)

    def close(self) -> None:
        with self._lock:
            self.closed = True
            if self._splitter.has_pending:
                self._lines += self._splitter.feed(b"\n")  # (the stream's last record, without its LF)

    def has_news(self) -> bool:
        with self._lock:
            return bool(self._lines) or (self.closed and not self._told_end)

    def take(self) -> tuple[list[tuple[int, int, bytes]], int]:
        """The records that came since the last take (``(line number, offset, bytes)``),
        and the offset after the last whole one."""
        with self._lock:
            lines, self._lines = self._lines, []
            if self.closed:
                self._told_end = True
            return lines, self._splitter.offset


class StreamSession(Session):
    """A Pi event stream as a session (see the module's text). :attr:`stream_kind` says
    which (:data:`~pitui.core.read.sniff.STREAM` or ``RPC_LOG``); :attr:`session_files`
    and :attr:`session_ids` name the session files the run says it wrote."""

    #: a name for the stream read from standard input
    STDIN = "<stdin>"

    def __init__(self, path: str | os.PathLike):
        super().__init__(path)
        self.stream_kind = STREAM
        self.records = 0
        self.session_files: list[str] = []
        self.session_ids: list[str] = []
        self._entries: list[dict] = []
        self._raws: list[bytes] = []
        # live: fed from a pipe (see live())
        self.is_live = False
        self._inbox: _Inbox | None = None  # (shared with snapshots: the bytes fed go to one place)
        self._builder: StreamBuilder | None = None
        self._line_warnings: list[SessionWarning] = []

    # ------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | os.PathLike, *, validate: bool = True,
             progress: Callable[[int, int], None] | None = None) -> "StreamSession":
        session = cls(path)
        session._read_file()
        if session.stream_kind is None:
            raise NotASession(session.path, "not an event stream of pi --mode json or rpc", no_header=True)
        return session

    @classmethod
    def read_header(cls, path: str | os.PathLike) -> "StreamSession":
        return cls.open(path)

    @classmethod
    def live(cls, name: str = STDIN) -> "StreamSession":
        """A stream read as it comes (standard input): bytes go in with :meth:`feed` from
        any thread, and :meth:`refresh` takes in what came."""
        session = cls(name)
        session.is_live = True
        session._inbox = _Inbox()
        session._builder = StreamBuilder()
        session._rebuild(session._builder)
        return session

    def _read_file(self) -> None:
        with open_session_file(self.path) as handle:
            self._read_records(handle)

    def _read_records(self, handle: BinaryIO) -> None:
        """The stream open as ``handle``, read whole from its start (``handle`` is left open)."""
        builder = StreamBuilder()
        warnings: list[SessionWarning] = []
        scanned, next_line = 0, 1
        st = os.fstat(handle.fileno())
        for raw in iter_lines(handle):
            if not raw.terminated:
                # (a record being written: taken when its LF comes, unless it is whole)
                res = parse_line(raw.data)
                if isinstance(res.value, dict):
                    self._take(builder, warnings, raw.lineno, raw.data, res)
                break
            self._take(builder, warnings, raw.lineno, raw.data)
            scanned, next_line = raw.end, raw.lineno + 1
        self._take_stat(st)
        self._line_warnings = warnings
        self._rebuild(builder)
        self.scanned_to, self.next_lineno = scanned, next_line
        self._pending_partial = None

    def _take(self, builder: StreamBuilder, warnings: list[SessionWarning], line: int, data: bytes, res=None) -> None:
        res = parse_line(data) if res is None else res
        if res.value is None and res.error is not None:
            warnings.append(SessionWarning(line, f"line {line} is {res.why} and is skipped", unparsable(res)))
            return
        if res.replaced:
            warnings.append(SessionWarning(line, f"line {line} has bytes that are not UTF-8 (shown as \ufffd)",
                                           "not-utf8"))
        warnings.extend(repair_warnings(line, res))
        self.records += 1
        why = builder.add(res.value, line, data)
        if why is not None:
            warnings.append(SessionWarning(line, why, "not-an-object"))

    def _rebuild(self, builder: StreamBuilder) -> None:
        """The skeleton and tree from ``builder``'s entries (all of them, anew)."""
        entries = builder.entries()
        warnings = list(self._line_warnings)
        ids, pids, types, roles, stamps = [], [], [], [], []
        offsets, lengths, linenos, flags = array("q"), array("q"), array("q"), bytearray()
        kept, raws = [], []
        name = None
        for entry, line, raw in entries:
            for problem in normalize_entry(entry):
                warnings.append(SessionWarning(line, f"line {line}: {problem}", "field-type"))
            ids.append(entry["id"])
            pids.append(entry.get("parentId"))
            types.append(entry["type"])
            msg = entry.get("message")
            role = msg.get("role") if isinstance(msg, dict) and isinstance(msg.get("role"), str) else None
            roles.append(role)
            stamps.append(entry.get("timestamp"))
            offsets.append(0)
            # (the entry's size as a session line: what the pane's blocks are keyed and
            # estimated by, so a message that streamed on is drawn again)
            lengths.append(len(orjson.dumps(entry)))
            linenos.append(line)
            entry_flags = F_CHECKED
            if role == "assistant":
                if has_text(msg.get("content")):
                    entry_flags |= F_ASSISTANT_TEXT
                stop = msg.get("stopReason")
                if isinstance(stop, str) and stop not in ("stop", "toolUse"):
                    entry_flags |= F_ABNORMAL_STOP
            flags.append(entry_flags)
            if entry["type"] == "session_info":
                raw_name = entry.get("name")
                name = (raw_name.strip() or None) if isinstance(raw_name, str) else None
            kept.append(entry)
            raws.append(raw)
        header = dict(builder.header) if builder.header is not None else {
            "type": "session", "version": 3, "id": builder.session_ids[0] if builder.session_ids else "",
            "timestamp": next((stamp for stamp in stamps if stamp), ""),
            "cwd": ""}
        self.header = header
        self.version = 3
        self.stream_kind = builder.kind or (STREAM if builder.header is not None or self.is_live else None)
        self.session_files = list(dict.fromkeys(builder.session_files))
        self.session_ids = list(dict.fromkeys(builder.session_ids))
        self.ids, self.parent_ids, self.types, self.roles, self.timestamps = ids, pids, types, roles, stamps
        self.offsets, self.lengths, self.linenos, self.flags = offsets, lengths, linenos, flags
        self._entries, self._raws = kept, raws
        self.warnings = warnings
        self.name = name
        self.label_by_target = {}
        self.label_time_by_target = {}
        self.derived = {}
        self._calls_found = {}
        self._build_tree()

    # ------------------------------------------------------------ live
    def feed(self, data: bytes) -> None:
        """Bytes read from the stream (any thread); taken in by :meth:`refresh`."""
        assert self._inbox is not None
        self._inbox.put(data)

    def end(self) -> None:
        """The stream ended (any thread): a record left without its LF is taken as it is."""
        assert self._inbox is not None
        self._inbox.close()

    @property
    def ended(self) -> bool:
        """A live stream that ended (its writer closed the pipe)."""
        return self._inbox is not None and self._inbox.closed

    def has_news(self) -> bool:
        """Bytes came (or the stream ended) since :meth:`refresh` took them in."""
        return self._inbox is not None and self._inbox.has_news()

    def read_from(self, fd: int, chunk: int = 1 << 16) -> None:
        """Feed everything read from ``fd`` until its end, then :meth:`end` (run it on a
        thread of its own: it blocks on the pipe)."""
        try:
            while True:
                try:
                    data = os.read(fd, chunk)
                except InterruptedError:
                    continue
                if not data:
                    break
                self.feed(data)
        except OSError:
            pass  # (a pipe that broke: what came is kept, as at its end)
        finally:
            self.end()

    # ------------------------------------------------------------ growth
    def refresh(self, *, validate: bool = False) -> int:
        with self._lock:
            before = len(self.ids)
            if self.is_live:
                return self._take_fed(before)
            try:
                st = os.stat(self.path)
            except OSError:
                return 0
            if self.unchanged(st):
                return 0
            self._read_file()
            # (what was there may have changed too: a message that streamed has ended)
            return max(1, len(self.ids) - before)

    def _take_fed(self, before: int) -> int:
        """Take in the bytes fed since the last time; the number of entries added (at least
        1 when anything came: a message still streaming changes without adding one)."""
        assert self._inbox is not None and self._builder is not None
        # (the builder is the stream's own: a snapshot shares it, and only the refresh
        # worker, one at a time, feeds it)
        lines, offset = self._inbox.take()
        if not lines:
            return 0
        warnings = list(self._line_warnings)
        for line, _off, raw in lines:
            self._take(self._builder, warnings, line, raw)
        self._line_warnings = warnings
        self.scanned_to = offset
        self._rebuild(self._builder)
        return max(1, len(self.ids) - before)

    def unchanged(self, st: os.stat_result) -> bool:
        if self.is_live:
            return not self.has_news()
        return super().unchanged(st)

    def snapshot(self) -> "StreamSession":
        new = StreamSession.__new__(StreamSession)
        new.__dict__.update(self.__dict__)
        return new  # (a rebuild puts new containers in place: nothing here is changed in place)

    def adopt(self, other: Session) -> None:
        if other.path != self.path:
            raise ValueError("adopt() takes a snapshot of the same file")
        self.__dict__.update(other.__dict__)

    # ------------------------------------------------------------ entries
    def entry(self, index: int) -> dict:
        return self._entries[index]

    def raw_line(self, index: int) -> bytes:
        """Entry ``index`` as a session line (it was rebuilt from records: see :meth:`record`)."""
        return orjson.dumps(self._entries[index])

    def raw_lines(self, indices):
        for index in indices:
            yield index, self.raw_line(index)

    def record(self, index: int) -> bytes:
        """The bytes of the stream record that gave entry ``index``."""
        return self._raws[index]

    def validate_lazy_lines(self, should_stop=None) -> list[int]:
        return []  # (every record was parsed whole when read)

    def call_anywhere(self, tcid: str) -> tuple[int, dict] | None:
        for index, entry in enumerate(self._entries):
            msg = entry.get("message")
            if self.roles[index] == "assistant" and isinstance(msg, dict) and isinstance(msg.get("content"), list):
                for block in msg["content"]:
                    if isinstance(block, dict) and block.get("type") == "toolCall" and block.get("id") == tcid:
                        return index, block
        return None

    def to_state(self) -> dict:
        raise TypeError("a stream is read again, never cached")

    @property
    def created_ms(self) -> float | None:
        """When the run started: the header's time, else its first message's."""
        for stamp in [self.header.get("timestamp")] + self.timestamps[:1]:
            ms = iso_to_ms(stamp) if isinstance(stamp, str) and stamp else math.nan
            if not math.isnan(ms):
                return ms
        return None


def stream_entries(handle: BinaryIO, path: str | os.PathLike = "") -> tuple[dict, list[dict]]:
    """The header and the entries of the event stream open as ``handle`` (the file ``path``),
    read whole from its start and rebuilt as the app shows them (:class:`StreamSession`):
    item ``i`` of the list is the app's entry ``i``, its ``id`` the app's id. The header is
    the stream's own, or for an RPC log one made up the way :class:`StreamSession` makes it
    (the session id a ``get_state`` response gave, no cwd). ``handle`` is left open. What
    search reads of a stream (``core/store/search_rows.py``)."""
    session = StreamSession(path)
    session._read_records(handle)
    return session.header, session._entries
