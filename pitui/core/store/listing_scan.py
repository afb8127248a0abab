"""The cold listing's scan of one session file: its :class:`SessionInfo`, read from its lines.

Loaded by the first scan, not with the listing: a list made from the index alone never
reads a file. A file is read once; the same file that only grew (Pi appends) is read from
where its row stopped. Each line is read once by a decoder that checks it is JSON as
``JSON.parse`` does (Pi counts a message only when its line parses) and keeps only the few
fields the list needs (:mod:`.listing_decoder`); a line is parsed whole only when it can
change more (the header, the first user message, subagent results, lines that are not an
entry's shape or that the decoder is stricter about than JavaScript). A file whose reading
fails in any way is one row with its reason (``error``), never a failure of the whole list.

The steps of :func:`scan_info`: the file's stat (a small file read whole with it,
:func:`_scan_info`), where to start (:func:`_start_from`), its lines (:func:`_read_lines`,
the loop over every line of the store), and what they add up to (:func:`_finish`).
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict
from typing import TYPE_CHECKING, BinaryIO

from .discovery import SessionFile
from .session_info import NO_MESSAGES, SessionInfo, bounded, text_of
from ..read.lines import (_WS_START, NotRegular, bytes_fingerprint, file_fingerprint, iter_line_blocks, open_regular,
                          open_small, parse_line)
from ..read.sniff import EVENT_TYPES, event_type_at
from ..timeutil import iso_to_ms

if TYPE_CHECKING:
    from .listing_decoder import _Run
    from .usage_scan import FileScan

__all__ = ["scan_info", "WHOLE_READ"]

#: A file read from its start and at most this big is read whole at once (its fingerprint
#: made from those bytes, not from a second read of the file).
WHOLE_READ = 1 << 20

#: a message's own integer timestamp beyond these is read by parse_line (as a float, as
#: JavaScript reads every number)
_TS_MIN, _TS_MAX = -(2**63), 2**64 - 1

# what an event stream without a header starts with (an RPC log: core/read/sniff.py)
_STREAM_FIRST = EVENT_TYPES | {"response"}


def scan_info(sf: SessionFile, prev: SessionInfo | None = None, st: os.stat_result | None = None, *,
              keep_first: bool = False, mapped: bool = False, usage: FileScan | None = None) -> SessionInfo:
    """Listing data for one file; continues ``prev``'s scan when the file only grew. Never
    raises: a file whose reading fails in any way is one row with the reason. With
    ``keep_first``, a first message longer than the index keeps is held whole on the
    info (the cold workers, which print it next), for :meth:`SessionInfo.full_first_message`.
    ``mapped``: a file too big to read whole is mapped into memory rather than copied
    (:func:`iter_line_blocks`: only in the worker processes, which may die of a file cut
    short while mapped). ``usage``: the file's usage scan, fed every line read (from where
    ``prev`` stopped, as the scan read on from; whole otherwise): it is complete only when
    the row made is a session's without an error (else the caller reads the file's usage
    on its own: :func:`.usage_read.read_row`)."""
    try:
        return _scan_info(sf, prev, st, keep_first, mapped, usage)
    except Exception as exc:  # (one file's problem stays in its own row)
        return SessionInfo(sf.path, sf.project, sf.kind, error=_failure(exc))


def _failure(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if len(text) > 200:
        text = text[:199] + "…"
    return f"cannot be read ({type(exc).__name__}{': ' + text if text else ''})"


def _note_transcripts(info: SessionInfo, details) -> None:
    """Add the transcripts a subagent result's runs record to ``info``."""
    results = details.get("results") if isinstance(details, dict) else None
    if not isinstance(results, list):
        return
    from ..model.parts import run_transcripts  # (only for a session that ran subagents)

    for run in results:
        if isinstance(run, dict):
            for _, path in run_transcripts(run):
                if path not in info.subagent_transcripts:
                    info.subagent_transcripts.append(path)


def _note_runs(info: SessionInfo, runs: list[_Run] | None) -> None:
    """:func:`_note_transcripts` for a subagent result's runs as the decoder read them."""
    if runs:
        _note_transcripts(info, {"results": [{"artifactPaths": run.artifactPaths, "sessionFile": run.sessionFile}
                                             for run in runs]})



def _scan_info(sf: SessionFile, prev: SessionInfo | None, st: os.stat_result | None, keep_first: bool = False,
               mapped: bool = False, usage: FileScan | None = None) -> SessionInfo:
    """:func:`scan_info`'s work, which may raise."""
    path = sf.path
    got: bytes | BinaryIO | None = None  # the file opened (a small one read whole) before its row was made
    if st is None and prev is None:
        try:
            st, got = open_small(path, WHOLE_READ)
        except OSError:  # (read again below, where each failure gets its message)
            st = None
    if st is None:
        try:
            st = os.stat(path)
        except OSError as exc:
            return SessionInfo(path, sf.project, sf.kind, error=f"cannot be read ({exc.strerror or exc})")
    info = _start_from(sf, prev, st)
    if usage is not None and usage.offset != info.scanned_to:
        usage = None  # (the usage's scan stopped elsewhere: it reads the file on its own)
    if got is None:
        try:
            got = open_regular(path)
        except NotRegular as exc:
            info.error = str(exc).removeprefix(f"{path} ")
            return info
        except OSError as exc:
            info.error = f"cannot be read ({exc.strerror or exc})"
            return info
    if isinstance(got, bytes):
        data = got
    elif info.scanned_to == 0 and st.st_size <= WHOLE_READ:
        with got:
            data = got.read()
    else:
        data = None  # (read in blocks: a big file, or one read on from where the index stopped)
    try:
        other = _read_lines(info, got if data is None else data, keep_first, mapped, usage)
    finally:
        if data is None:
            got.close()
    if other is not None:
        return other
    if info.id is None:  # (no header line was read)
        info.error = "empty file" if st.st_size == 0 else "no session header line (not a Pi session)"
        return info
    _finish(info, st, data)
    return info


def _start_from(sf: SessionFile, prev: SessionInfo | None, st: os.stat_result) -> SessionInfo:
    """The row the scan adds to: a copy of ``prev`` when the file is the same and only grew
    since (read on from its ``scanned_to``, line ``next_lineno``), else a new one (read from
    the start); either with the file's identity as ``st`` gives it."""
    if (
        prev is not None
        and prev.error is None
        and prev.id is not None
        and prev.log == "session"
        and prev.next_lineno > 2  # (a header alone may yet be a JSON-mode stream's)
        and prev.ino == st.st_ino
        and prev.dev == st.st_dev
        and st.st_size >= prev.scanned_to > 0
        and prev.fingerprint
        and file_fingerprint(sf.path, prev.scanned_to) == prev.fingerprint
    ):
        info = SessionInfo(**{name: value for name, value in asdict(prev).items()})
        info.project, info.kind = sf.project, sf.kind
    else:
        info = SessionInfo(sf.path, sf.project, sf.kind)
    info.size, info.mtime_ns, info.dev, info.ino = st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino
    return info


def _read_lines(info: SessionInfo, source: bytes | BinaryIO, keep_first: bool, mapped: bool,
                usage: FileScan | None = None) -> SessionInfo | None:
    """Add what the lines of ``source`` (the file, or its bytes read whole) from
    ``info.scanned_to`` on say to ``info``: its header (when it has none yet), message
    count, last activity, model, name, first message, warnings, and where the scan stopped.
    Returns the row to give instead when the file turns out not to be a session (an event
    stream, or no header first), else None. ``usage``: each line is counted in it too, from
    the same decoded line (or the same parsed object), and its offset is where the scan
    stopped."""
    # (the line decoder is loaded by the first scan, not with this module: a start that
    # lists from the index, or none yet, never needs it: benchmarks/startup_budget.py)
    from .listing_decoder import ENTRY_DECODE, RUNS_DECODE, UNSET, USAGE_ENTRY_DECODE

    # (the lean decoder unless the usage is counted too: the list alone keeps its speed)
    entry_decode, runs_decode = ENTRY_DECODE if usage is None else USAGE_ENTRY_DECODE, RUNS_DECODE
    # the usage's readings of a line: decoded, parsed whole (a dict), not JSON to parse_line
    usage_decoded = usage.decoded if usage is not None else None
    usage_object = usage.parsed_object if usage is not None else None
    usage_line = usage.line if usage is not None else None
    unset, ts_min, ts_max = UNSET, _TS_MIN, _TS_MAX
    ws = _WS_START
    have_header = info.id is not None  # (a row read on from has its header)
    first_entry = not have_header  # (the line after the header tells a JSON-mode stream)
    first_found = info.first_message != NO_MESSAGES
    # what the lines add up to, kept in locals while the loop runs (written back after it)
    count, last_act, model, warnings = info.message_count, info.last_activity_ms, info.model, info.warnings
    done_to, done_ln = info.scanned_to, info.next_lineno  # past the last line read (not blank)
    ln = info.next_lineno - 1
    # One loop over blocks of whole lines, each line's work inline (as in read/session.py's
    # quick scan): the per-line cost is most of a cold list. (Its line splitting is kept
    # to readline's by tests/core/test_line_loops.py.)
    for buf, pos, limit, base, whole in iter_line_blocks(source, info.scanned_to, mapped=mapped):
        find = buf.find
        # Pi reads lines as Node's readline splits them: at "\n", "\r\n" and a lone
        # "\r" too. A "\r" that does not end its line (none in a file Pi wrote: its JSON
        # escapes them) ends a line here as well.
        cr = find(b"\r", pos, limit)
        if cr < 0:
            cr = limit  # (none: past every line's end)
        while pos < limit:
            nl = find(b"\n", pos, limit) if whole else limit  # (no newline after a last line)
            line_end = nl
            term = whole
            if cr < nl:
                if cr < nl - 1:  # (a "\r" inside the line: it ends there)
                    nl = line_end = cr
                    term = True
                else:  # "\r\n", or a last line's closing "\r"
                    line_end -= 1
                cr = find(b"\r", nl + 1, limit)
                if cr < 0:
                    cr = limit
            ln += 1
            line_start = pos
            pos = nl + 1
            if line_end == line_start or (buf[line_start] in ws and bytes(buf[line_start:line_end]).isspace()):
                continue  # a blank line
            if not have_header:
                obj = parse_line(bytes(buf[line_start:line_end])).value
                if usage_line is not None:
                    if type(obj) is dict:
                        usage_object(obj)
                    elif obj is None:
                        usage_line(bytes(buf[line_start:line_end]))  # (its own reading: JavaScript's trim first)
                if obj is None:
                    if term:
                        warnings += 1
                        done_to, done_ln = base + pos, ln + 1
                    continue
                if isinstance(obj, dict) and obj.get("type") in _STREAM_FIRST:
                    return _stream_info(info)
                info.warnings, info.scanned_to, info.next_lineno = warnings, done_to, done_ln
                info.error = _not_a_header(obj, ln)
                if info.error is not None:
                    return info
                have_header = True
                _take_header(info, obj)
                if term:
                    done_to, done_ln = base + pos, ln + 1
                continue
            if first_entry:
                first_entry = False
                if event_type_at(buf, line_start, line_end) is not None:
                    return _stream_info(info)
            # Each line is read by one call of the entry decoder: it reads JSON as
            # JSON.parse does, or refuses it (then parse_line, which matches JSON.parse
            # where the decoder is stricter, decides), and keeps only the fields the
            # list needs (_Entry). Lines that can change more than the count and the
            # last activity are parsed whole (the first user message, a subagent's
            # result, a message that is not an object).
            line = buf[line_start:line_end]
            try:
                ent = entry_decode(line)
            except Exception:  # (not JSON to the decoder, or not an object of entry shape)
                ent = None
            if ent is not None:
                etype = ent.type
                if etype == "message":
                    msg = ent.message
                    role = msg.role if msg is not None else None
                    ts = msg.timestamp if msg is not None else None
                    if (
                        msg is None
                        or (role == "user" and not first_found)
                        or (type(ts) is int and not ts_min <= ts <= ts_max)
                    ):
                        ent = None
                    elif role == "toolResult" and msg.toolName == "subagent":
                        # the transcripts its runs record, read from its details alone
                        # (where they are not of the usual shape, the line is parsed)
                        if msg.content is not unset and msg.details is not unset:
                            try:
                                runs = runs_decode(msg.details).results
                            except Exception:
                                ent = None
                            else:
                                _note_runs(info, runs)
                        if ent is not None:
                            count += 1
                    else:
                        count += 1
                        if (role == "user" or role == "assistant") and msg.content is not unset:
                            if type(ts) is int or type(ts) is float:
                                act = float(ts)
                                if last_act is None or act > last_act:
                                    last_act = act
                            else:
                                act = iso_to_ms(ent.timestamp)
                                if not math.isnan(act) and (last_act is None or act > last_act):
                                    last_act = act
                            if role == "assistant" and type(msg.model) is str:
                                model = msg.model
                elif etype == "session_info":
                    name = ent.name
                    info.name = (name.strip() or None) if type(name) is str else None
                elif etype == "model_change":
                    if type(ent.modelId) is str:
                        model = ent.modelId
                if ent is not None:
                    if usage_decoded is not None:
                        usage_decoded(ent, line)
                    if term:
                        done_to, done_ln = base + pos, ln + 1
                    continue
            obj = parse_line(bytes(line)).value
            if usage_line is not None:
                if type(obj) is dict:
                    usage_object(obj)
                elif obj is None:
                    usage_line(bytes(line))  # (its own reading: JavaScript's trim first)
            if obj is None:
                if term:
                    warnings += 1
                    done_to, done_ln = base + pos, ln + 1
                continue
            if term:
                done_to, done_ln = base + pos, ln + 1
            if isinstance(obj, dict):
                info.message_count, info.last_activity_ms, info.model = count, last_act, model
                first_found = _take_parsed(info, obj, base + line_start, line_end - line_start, keep_first, first_found)
                count, last_act, model = info.message_count, info.last_activity_ms, info.model
    info.message_count, info.last_activity_ms, info.model, info.warnings = count, last_act, model, warnings
    info.scanned_to, info.next_lineno = done_to, done_ln
    if usage is not None:
        usage.offset = done_to
    return None


def _not_a_header(obj, ln: int) -> str | None:
    """Why ``obj``, line ``ln``'s value, is not a session header, or None."""
    if not isinstance(obj, dict) or obj.get("type") != "session":
        kind = obj.get("type") if isinstance(obj, dict) else type(obj).__name__
        return f"line {ln} should be a session header but is {kind!r} (not a Pi session)"
    if not isinstance(obj.get("id"), str):
        return f"the session header on line {ln} has no string id"
    return None


def _take_parsed(info: SessionInfo, obj: dict, at: int, length: int, keep_first: bool, first_found: bool) -> bool:
    """Add an entry parsed whole (``obj``, its line ``length`` bytes at offset ``at``) to
    ``info``; whether the first message is found (``first_found``: it was before)."""
    etype = obj.get("type")
    if etype == "session_info":
        name = obj.get("name")
        info.name = (name.strip() or None) if isinstance(name, str) else None
    elif etype == "model_change":
        mid = obj.get("modelId")
        if isinstance(mid, str):
            info.model = mid
    elif etype == "message":
        info.message_count += 1
        msg = obj.get("message")
        if isinstance(msg, dict) and isinstance(msg.get("role"), str) and "content" in msg:
            role = msg["role"]
            if role in ("user", "assistant"):
                ts = msg.get("timestamp")
                if isinstance(ts, (int, float)) and not isinstance(ts, bool):
                    act = float(ts)
                else:
                    act = iso_to_ms(obj.get("timestamp"))
                if not math.isnan(act) and (info.last_activity_ms is None or act > info.last_activity_ms):
                    info.last_activity_ms = act
                if role == "assistant" and isinstance(msg.get("model"), str):
                    info.model = msg["model"]
                if role == "user" and not first_found:
                    text = text_of(msg.get("content"))
                    if text:
                        info.first_message = bounded(text)
                        if len(info.first_message) < len(text):
                            info.first_message_at, info.first_message_len = at, length
                            if keep_first:
                                info.__dict__["_whole_first"] = text
                        first_found = True
            elif role == "toolResult" and msg.get("toolName") == "subagent":
                _note_transcripts(info, msg.get("details"))
    return first_found


def _finish(info: SessionInfo, st: os.stat_result, data: bytes | None) -> None:
    """``info``'s ``modified`` (its last activity, else its header's time, else the file's
    mtime) and the fingerprint of what was read (from ``data`` when the file was read whole)."""
    if info.last_activity_ms is not None and info.last_activity_ms > 0:
        info.modified_ms = info.last_activity_ms
    elif info.header_ms is not None:
        info.modified_ms = info.header_ms
    else:
        info.modified_ms = st.st_mtime_ns / 1e6
    if not info.scanned_to:
        info.fingerprint = ""
    elif data is not None:
        info.fingerprint = bytes_fingerprint(data, info.scanned_to)
    else:
        info.fingerprint = file_fingerprint(info.path, info.scanned_to)


def _take_header(info: SessionInfo, obj: dict) -> None:
    """``info``'s fields from its session header ``obj`` (a dict with a string id)."""
    info.id = obj["id"]
    cwd = obj.get("cwd")
    info.cwd = cwd if isinstance(cwd, str) else ""
    ps = obj.get("parentSession")
    info.parent_session_path = ps if isinstance(ps, str) else None
    bf = ps if isinstance(ps, str) else obj.get("branchedFrom")
    info.forked_from = bf if isinstance(bf, str) else None
    hms = iso_to_ms(obj.get("timestamp"))
    info.header_ms = None if math.isnan(hms) else hms
    info.created_ms = info.header_ms


def _stream_info(info: SessionInfo) -> SessionInfo:
    """``info`` for an event stream: read whole as the app reads
    it (streams are small), titled by its first prompt."""
    from ..read.stream import StreamSession

    stream = StreamSession.open(info.path)
    info.log = stream.stream_kind or "stream"
    info.id = stream.header.get("id") or None
    cwd = stream.header.get("cwd")
    info.cwd = cwd if isinstance(cwd, str) else ""
    info.name = stream.name
    info.warnings = len(stream.warnings)
    info.created_ms = info.header_ms = stream.created_ms
    first = None
    last = None
    for at, (etype, role) in enumerate(zip(stream.types, stream.roles)):
        if etype != "message":
            continue
        info.message_count += 1
        msg = stream.message(at) or {}
        ms = msg.get("timestamp")
        if type(ms) in (int, float) and (last is None or ms > last):
            last = float(ms)
        if role == "user" and first is None:
            first = text_of(msg.get("content"))
        if role == "assistant" and isinstance(msg.get("model"), str):
            info.model = msg["model"]
    if first:
        info.first_message = bounded(first)
    info.last_activity_ms = last
    info.modified_ms = last if last is not None else info.created_ms if info.created_ms is not None else (
        info.mtime_ns / 1e6)
    info.scanned_to, info.next_lineno = stream.scanned_to, stream.next_lineno
    info.fingerprint = ""  # (read again whole when it changes)
    return info
