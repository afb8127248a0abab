"""What search reads: an entry's searchable texts (its rows), and the rows of a session file
or event stream, line by line.

What is searched
----------------
One row per piece of searchable text, read line by line from each session file:

=============  ==============================================================================
kind           text
=============  ==============================================================================
user           a user message's text (string content, or its text blocks joined by newlines)
assistant      an assistant message's text blocks
thinking       an assistant message's thinking blocks
tool-call      one row per tool call: ``name key: value`` (one ``key: value`` line per
               argument; strings as they are, other values as JSON)
tool-result    a tool result's text blocks
bash           a bash execution (``!cmd`` in Pi): the command, a newline, the output
custom         custom messages (``custom_message`` entries, ``custom``/``hookMessage`` roles)
summary        compaction and branch summaries (entries and summary-role messages)
name           a ``session_info`` name (also names that were later cleared)
label          a label entry's text
cwd            the session header's cwd (entry index -1, no entry id)
id             the session header's id, which Pi's ``/resume`` search matches too (index -1)
=============  ==============================================================================

Not indexed: images, system prompts (the same text in every session), extension state
(``custom`` entries), ``context_edit`` replacements, usage and model bookkeeping.

**Long texts are capped**: a row keeps its first 64 KB (:data:`HEAD_CAP` characters) and its
last 16 KB (:data:`TAIL_CAP`), joined by ``"\\n…\\n"``. A match in the middle of a huge tool
output is therefore not found; its beginning and end (where errors and summaries sit) are.

A hit names the session file, the entry's id (as :class:`~pitui.core.read.session.Session`
names it: ``line<N>`` for version-1 files and entries without an id), the entry's index
(its position among the file's entries, as ``Session`` and the conformance corpus count
them), the entry's ``timestamp`` (:func:`_entry_time`), the row's kind and a line of context.

An event stream (``pi --mode json`` or ``rpc``, :mod:`~pitui.core.read.sniff`) is searched
as the conversation the app rebuilds from it (:func:`_stream_lines`): the same rows of the
same entries, with the app's indexes and ids; it is read again whole whenever it changes,
and whenever a query may match it.

Reading a file
--------------
:func:`_file_lines` reads a file's lines from where its state (:class:`_FileState`, which
the index keeps per file) says reading stopped, each with its entry's rows. The index's
reading (:mod:`.search_chunks`) and the scan without the index (:mod:`.search_match`) share
it, so both see the same rows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterator

from ..read.lines import iter_line_spans, parse_line
from ..read.normalize import json_text, norm_id, norm_label, norm_timestamp
from ..read.sniff import Sniffer


HEAD_CAP = 64 * 1024  # characters of a long text kept from its start
TAIL_CAP = 16 * 1024  # ... and from its end
CAP_JOIN = "\n…\n"
KINDS = (
    "user",
    "assistant",
    "thinking",
    "tool-call",
    "tool-result",
    "bash",
    "custom",
    "summary",
    "name",
    "label",
    "cwd",
    "id",
)


def _cap(text: str) -> str:
    if len(text) > HEAD_CAP + TAIL_CAP:
        return text[:HEAD_CAP] + CAP_JOIN + text[-TAIL_CAP:]
    return text


def _blocks(content, block_type: str, key: str) -> str:
    if isinstance(content, str):
        return content if block_type == "text" else ""
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == block_type:
            text = block.get(key)
            if isinstance(text, str):
                parts.append(text)
    return "\n".join(parts)


_json_text = json_text  # (never raises, however deep the value)


def _value_text(value) -> str:
    """A tool call's argument as text to search and to show a line of: a string as it is;
    the strings, numbers and keys inside a list or object one per line ("oldText: ...", so
    that a hit reads as the text and not as JSON with its escapes). Walked without
    recursion (a value may be deep)."""
    if isinstance(value, str):
        return value
    if not isinstance(value, (dict, list)):
        return _json_text(value)
    lines: list[str] = []
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        key, item = stack.pop()
        if isinstance(item, dict):
            stack.extend(reversed([(str(key), child) for key, child in item.items()]))
        elif isinstance(item, list):
            stack.extend(reversed([(key, child) for child in item]))
        else:
            text = item if isinstance(item, str) else _json_text(item)
            lines.append(f"{key}: {text}" if key else text)
    return "\n".join(lines)


def _tool_call_text(block: dict) -> str:
    name = block.get("name")
    name = name if isinstance(name, str) else _json_text(name)
    args = block.get("arguments")
    if isinstance(args, dict):
        body = "\n".join(f"{key}: {_value_text(value)}" for key, value in args.items())
    elif args is None:
        body = ""
    else:
        body = args if isinstance(args, str) else _json_text(args)
    return f"{name} {body}" if body else name


def entry_rows(obj: dict, version: int = 3) -> list[tuple[str, str]]:
    """The ``(kind, text)`` rows of one entry (capped; empty texts left out)."""
    rows: list[tuple[str, str]] = []

    def add(kind: str, text) -> None:
        if isinstance(text, str) and text.strip():
            rows.append((kind, _cap(text)))

    entry_type = obj.get("type")
    if entry_type == "message":
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return rows
        role = msg.get("role")
        content = msg.get("content")
        if role == "user":
            add("user", _blocks(content, "text", "text"))
        elif role == "assistant":
            add("assistant", _blocks(content, "text", "text"))
            add("thinking", _blocks(content, "thinking", "thinking"))
            if isinstance(content, list):
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "toolCall":
                        add("tool-call", _tool_call_text(block))
        elif role == "toolResult":
            add("tool-result", _blocks(content, "text", "text"))
        elif role == "bashExecution":
            cmd = msg.get("command")
            out = msg.get("output")
            cmd = cmd if isinstance(cmd, str) else ""
            out = out if isinstance(out, str) else ""
            add("bash", f"{cmd}\n{out}" if out else cmd)
        elif role == "custom" or (role == "hookMessage" and version < 3):
            add("custom", _blocks(content, "text", "text"))
        elif role in ("branchSummary", "compactionSummary"):
            add("summary", msg.get("summary"))
    elif entry_type == "custom_message":
        add("custom", _blocks(obj.get("content"), "text", "text"))
    elif entry_type in ("compaction", "branch_summary"):
        add("summary", obj.get("summary"))
    elif entry_type == "session_info":
        name = obj.get("name")
        add("name", name.strip() if isinstance(name, str) else None)
    elif entry_type == "label":
        add("label", norm_label(obj.get("label"))[0])  # (as Session reads it)
    return rows


def _entry_time(obj: dict) -> str | None:
    """An entry's (or the header's) ``timestamp`` as :class:`~pitui.core.read.session.Session`
    reads it (an ISO string; a number of milliseconds as its ISO string), or None."""
    value = obj.get("timestamp")
    if type(value) is str:
        return value
    return norm_timestamp(value)[0] if value is not None else None


def _i64(value: int) -> int:
    """``value`` (an unsigned 64-bit device or inode number) as SQLite's signed integer."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    """(dev, ino, size, mtime_ns) of a file as the index keeps them."""
    return _i64(st.st_dev), _i64(st.st_ino), st.st_size, st.st_mtime_ns


def _norm_id(value) -> str | None:
    """An entry's id as :class:`~pitui.core.session.Session` names it (None: it has none
    that Pi could match, and is named ``line<N>``)."""
    return norm_id(value)


@dataclass(slots=True)
class _FileState:
    """A session file as reading it left it: where to read on from, and what the header
    said. The index keeps one per file (its ``files`` row, :mod:`.search_index`); a scan
    without the index makes a new one per file."""

    id: int
    path: str
    dev: int = 0  # (as _i64 stores them)
    ino: int = 0
    size: int = 0
    mtime_ns: int = 0
    scanned_to: int = 0
    next_lineno: int = 1
    next_entry: int = 0
    pending_entry: int | None = None  # the entry of an unterminated last line that was indexed
    version: int = 3
    has_header: int = 0
    stream: int = 0
    fingerprint: str = ""
    error: str | None = None

    def values(self) -> tuple:
        return (
            self.path, self.dev, self.ino, self.size, self.mtime_ns, self.scanned_to, self.next_lineno,
            self.next_entry, self.pending_entry, self.version, self.has_header, self.stream,
            self.fingerprint, self.error, self.id,
        )  # fmt: skip


def _file_lines(handle, st: _FileState, stop: int | None = None, sniff: bool = True) -> Iterator[tuple]:
    """The lines of the session file ``handle`` from where ``st`` says reading stopped (up to
    byte ``stop``), as ``(offset, next offset, line number, entry, entry id, rows, bytes, time)``:
    the entry's index (-1 for the header, whose rows are its cwd and id; None for a line that
    is no entry: bad JSON, not an object, another header), its ``(kind, text)`` rows and its
    timestamp (:func:`_entry_time`). ``st``
    moves on as lines are read (the index's reading and the scan without the index share
    this, so both see the same rows). A file that turns out not to be a Pi session ends the
    lines with ``st.error`` set; a last line Pi is still writing ends them, to be read next
    time. An event stream, told by its first records, gives :func:`_stream_lines` instead."""
    st.error = None
    sniffer = Sniffer() if sniff and st.scanned_to == 0 else None  # (a stream shows in its first records)
    for buf, pos, end, off, lineno, nxt, terminated in iter_line_spans(handle, st.scanned_to, st.next_lineno, stop):
        data = bytes(buf[pos:end])
        if sniffer is not None and sniffer.see(data, terminated):
            if sniffer.kind is not None:
                yield from _stream_lines(handle, st)
                return
            sniffer = None
        obj = parse_line(data).value
        if obj is None:
            if not terminated:
                break  # Pi is writing this line: read it next time
            yield off, nxt, lineno, None, None, (), data, None
            st.scanned_to, st.next_lineno = nxt, lineno + 1
            continue
        if not st.has_header:
            if not isinstance(obj, dict) or obj.get("type") != "session" or not isinstance(obj.get("id"), str):
                st.error = "not a Pi session"
                return
            if not terminated:
                break
            version = obj.get("version")
            # (any number: only whether it is below 2 or 3 matters, as in Session)
            st.version = max(-1, min(int(version), 1000)) if type(version) in (int, float) else 1
            st.has_header = 1
            cwd = obj.get("cwd")
            rows = [(key, text) for key, text in (("cwd", cwd), ("id", obj["id"])) if isinstance(text, str) and text]
            yield off, nxt, lineno, -1, None, rows, data, _entry_time(obj)
            st.scanned_to, st.next_lineno = nxt, lineno + 1
            continue
        if not isinstance(obj, dict) or obj.get("type") == "session":
            if not terminated:
                break
            yield off, nxt, lineno, None, None, (), data, None
            st.scanned_to, st.next_lineno = nxt, lineno + 1
            continue
        idx = st.next_entry
        eid = f"line{lineno}" if st.version < 2 else (_norm_id(obj.get("id")) or f"line{lineno}")
        if not terminated:
            # A complete last line without its newline: indexed, and read again once the file changes.
            st.pending_entry = idx
        st.next_entry += 1
        yield off, nxt, lineno, idx, eid, entry_rows(obj, st.version), data, _entry_time(obj)
        if terminated:
            st.scanned_to, st.next_lineno = nxt, lineno + 1
    if sniffer is not None:  # (a header alone may yet be a JSON-mode stream's: read whole when it grows)
        st.scanned_to, st.next_lineno = 0, 1


def _stream_lines(handle, st: _FileState) -> Iterator[tuple]:
    """:func:`_file_lines` of an event stream (``pi --mode json`` or ``rpc``): the entries of
    the conversation the app rebuilds from it, with the app's indexes and ids, one "line"
    each (offsets 0). Read whole every time (``st.scanned_to`` stays 0, so no fingerprint is
    kept and the index reads it again whole when it changes): a later record can change an
    earlier entry (a message that was still streaming ends)."""
    from ..read.stream import stream_entries

    header, entries = stream_entries(handle, st.path)
    if not st.has_header:  # (a JSON-mode stream's header was read as a session's: its rows are out)
        rows = [(key, text) for key, text in (("cwd", header.get("cwd")), ("id", header.get("id"))) if isinstance(text, str) and text]
        yield 0, 0, 0, -1, None, rows, b"", _entry_time(header)
    st.has_header, st.version, st.scanned_to, st.next_lineno, st.stream = 1, 3, 0, 1, 1
    for idx, obj in enumerate(entries):
        yield 0, 0, 0, idx, obj["id"], entry_rows(obj), b"", _entry_time(obj)
    st.next_entry = len(entries)


def _file_rows(handle, st: _FileState) -> Iterator[tuple[str, int, str | None, str, str | None]]:
    """Every row of a session file (or stream) as :func:`~.search_match.match_rows` takes them."""
    for _off, _nxt, _lineno, idx, eid, rows, _data, when in _file_lines(handle, st):
        for kind, text in rows:
            yield kind, idx, eid, text, when
