"""What a JSONL file is, from its first record or two: a Pi session, or the output of
``pi --mode json`` (a session header, then event records) or ``pi --mode rpc`` (no
header: ``response`` and event records). Only the start of the file is read, so this
costs next to nothing on the way to opening or listing a session."""

from __future__ import annotations

import os
import re

from .lines import iter_line_spans, open_regular, parse_line

__all__ = ["STREAM", "RPC_LOG", "EVENT_TYPES", "stream_kind", "stream_kind_of", "is_pi_file", "kind_of_records", "event_type_at", "Sniffer"]

#: a JSON-mode stream (``pi --mode json``): a session header, then events
STREAM = "stream"
#: an RPC log (``pi --mode rpc``'s output saved): responses and events, no header
RPC_LOG = "rpc log"

#: The records of Pi's JSON and RPC streams (``json.md``, ``rpc.md``), and the older names
#: of its compaction events. None of them is the type of a session entry.
EVENT_TYPES = frozenset({
    "agent_start", "agent_end", "agent_settled", "turn_start", "turn_end",
    "message_start", "message_update", "message_end",
    "tool_execution_start", "tool_execution_update", "tool_execution_end",
    "queue_update", "entry_appended", "session_info_changed", "thinking_level_changed",
    "compaction_start", "compaction_end", "auto_compaction_start", "auto_compaction_end",
    "auto_retry_start", "auto_retry_end",
    "summarization_retry_scheduled", "summarization_retry_attempt_start", "summarization_retry_finished",
    "bash_execution_update", "extension_error", "extension_ui_request",
})
# What an RPC log may start with besides an event.
_RPC_FIRST = EVENT_TYPES | {"response"}

# A record's type when it comes first (Pi writes events as `{"type":...}`).
_TYPE_HEAD = re.compile(rb'\{\s*"type"\s*:\s*"([A-Za-z_]{1,64})"')
# The most of a first record read to learn its type (an RPC response can be megabytes).
_HEAD_LIMIT = 1 << 20


def event_type_at(buf, pos: int, end: int) -> str | None:
    """The type of the record ``buf[pos:end]`` when it is an event record written the way
    Pi writes them (``type`` first); None otherwise. No parsing: a regex on its head."""
    match = _TYPE_HEAD.match(buf, pos, min(end, pos + 200))
    if match is None:
        return None
    kind = match.group(1).decode()
    return kind if kind in EVENT_TYPES else None


def _type_of(data: bytes) -> str | None:
    match = _TYPE_HEAD.match(data, 0, 200)
    if match is not None:
        return match.group(1).decode()
    if len(data) > _HEAD_LIMIT:
        return None
    obj = parse_line(data).value
    kind = obj.get("type") if isinstance(obj, dict) else None
    return kind if isinstance(kind, str) else None


def kind_of_records(first: str | None, second: str | None) -> str | None:
    """:data:`STREAM`, :data:`RPC_LOG` or None (a session, or not a Pi file at all), from
    the types of the first two records."""
    if first == "session":
        return STREAM if second in EVENT_TYPES else None
    if first in _RPC_FIRST:
        return RPC_LOG
    return None


class Sniffer:
    """What a file is, told by its records as they are read from its start: :meth:`see`
    each record's bytes until it returns True, then :attr:`kind` says (:data:`STREAM`,
    :data:`RPC_LOG`, or None for anything else). Until then :attr:`kind` is what the
    records seen so far say (a header alone is a session's, for now)."""

    __slots__ = ("_types", "done")

    def __init__(self) -> None:
        self._types: list[str | None] = []
        self.done = False

    def see(self, data: bytes, whole: bool = True) -> bool:
        """Take the next record's bytes (``whole``: its line has its newline); True once
        what the file is is known. A record cut short whose type cannot be read yet
        (a writer in the middle of it) tells nothing."""
        kind = _type_of(data)
        if kind is None and not whole:
            return False
        self._types.append(kind)
        self.done = len(self._types) == 2 or self._types[0] != "session"
        return self.done

    @property
    def kind(self) -> str | None:
        types = self._types
        if not types:
            return None
        return kind_of_records(types[0], types[1] if len(types) > 1 else None)


def stream_kind(path: str | os.PathLike) -> str | None:
    """:data:`STREAM` or :data:`RPC_LOG` when ``path`` is one, from its first two records;
    None for anything else (a session, a file that cannot be read: the session reader says
    why)."""
    try:
        handle = open_regular(path)
    except (OSError, ValueError):
        return None
    with handle:
        return _sniffed(handle)


def stream_kind_of(data: bytes) -> str | None:
    """:func:`stream_kind` of a file's bytes already read (not read again)."""
    import io

    return _sniffed(io.BytesIO(data))


def _sniffed(handle) -> str | None:
    sniffer = Sniffer()
    try:
        for buf, pos, end, _off, _ln, _end, _term in iter_line_spans(handle):
            if sniffer.see(bytes(buf[pos:min(end, pos + _HEAD_LIMIT + 1)])):
                break
    except OSError:
        return None
    return sniffer.kind


def is_pi_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a regular file that Pi wrote, by its first record alone: a
    session header (a session, or ``pi --mode json`` output) or an RPC log's first record.
    False for anything else, and for what cannot be read. Reads at most the first
    megabyte (a record cut there is told by its head, as Pi writes ``type`` first)."""
    try:
        handle = open_regular(path)
    except (OSError, ValueError):
        return False
    try:
        with handle:
            head = handle.read(_HEAD_LIMIT)
    except OSError:
        return False
    for line in head.splitlines():
        if line.strip():
            first = _type_of(line.strip())
            return first == "session" or first in _RPC_FIRST
    return False
