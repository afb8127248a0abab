"""The session list: Pi's ``SessionInfo`` per file, from a fast scan and a cached index.

A file is read once; what the list needs (header, name, message count, the start of the
first user message, last activity, model) is kept in an index under the user cache folder,
keyed by path, device, inode, size and mtime, with each row's ``pitui list --json`` object
as printed (:mod:`.listing_file`): a warm list stats every file and prints the rows of
unchanged ones from there, decoding none: whole columns are compared at once and no row
is made (:meth:`SessionIndex.unchanged_output`; a few files changed since the index was
saved are read and put in their places without rewriting it). The app and search decode
the rows they use. The same file that only grew (Pi appends) is read from where the index
stopped. Each line is read once by a decoder that checks it is JSON as ``JSON.parse``
does (Pi counts a message only when its line parses) and keeps only the few fields the
list needs; a line is parsed whole only when it can change more (the header, the first
user message, subagent results, lines that are not an entry's shape or that the decoder
is stricter about than JavaScript).

The index keeps a first message's first :data:`FIRST_MESSAGE_CHARS` characters (what the
lists show; a whole first message can be megabytes) and where its line lies, and
:meth:`SessionInfo.full_first_message` reads the rest from the file when ``list --json``
gives Pi's ``firstMessage``. A file whose reading fails in any way is listed as one row
with its reason (``error``), never a failure of the whole list.
"""

from __future__ import annotations

import math
import mmap
import os
import threading
from bisect import bisect_right, insort
from itertools import compress, count, repeat
from operator import attrgetter, is_, ne
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Iterable

import orjson

from . import listing_file
from .discovery import SessionFile, SessionRoot, find_session_files, utf8_name, transcript_candidates
from .listing_file import Rec
from ..read.lines import (_WS_START, NotRegular, bytes_fingerprint, file_fingerprint, iter_line_blocks, open_regular,
                          open_small, parse_line, read_span)
from ..read.normalize import json_text
from ..read.sniff import EVENT_TYPES, event_type_at
from ..paths import default_cache_dir, notice, open_cache_file, private_dir, write_private
from ..timeutil import iso_to_ms, ms_to_iso

__all__ = ["SessionInfo", "SessionIndex", "NO_MESSAGES", "scan_info", "list_sessions", "list_json", "subagent_parents",
           "INDEX_VERSION", "default_cache_dir"]

INDEX_VERSION = 8  # 4: first messages kept as a bounded prefix and where their line lies; 5: rows
# hold the file's device and inode; 6: rows hold the transcripts their subagent runs record;
# 7: event streams listed as what they are (``log``); 8: a file of columns and each row's
# texts, its output among them (listing_file.py)

#: Characters of a first message the index keeps (after its leading white space, of which
#: at most FIRST_MESSAGE_LEAD more): the lists show its first line's first 300 or fewer.
FIRST_MESSAGE_CHARS = 512
FIRST_MESSAGE_LEAD = 4096

#: a message's own integer timestamp beyond these is read by parse_line (as a float, as
#: JavaScript reads every number)
_TS_MIN, _TS_MAX = -(2**63), 2**64 - 1

# what an event stream without a header starts with (an RPC log: core/read/sniff.py)
_STREAM_FIRST = EVENT_TYPES | {"response"}


#: Pi's first message of a session with no user message
NO_MESSAGES = "(no messages)"


@dataclass
class SessionInfo:
    """What the session list shows for one file (Pi's SessionInfo, plus pitui's extras)."""

    path: str
    project: str = ""
    kind: str = "session"  # session | subagent
    #: what the file holds: "session", or an event stream: "stream" (``pi --mode json``),
    #: "rpc log" (``pi --mode rpc``) (core/read/sniff.py)
    log: str = "session"
    id: str | None = None
    cwd: str = ""
    name: str | None = None
    parent_session_path: str | None = None  # header parentSession, exactly as Pi lists it
    forked_from: str | None = None  # parentSession, or its old name branchedFrom
    created_ms: float | None = None
    modified_ms: float | None = None
    message_count: int = 0
    first_message: str = NO_MESSAGES  # its first FIRST_MESSAGE_CHARS (see full_first_message)
    model: str | None = None  # the last model named (assistant message or model change)
    error: str | None = None  # why the file is not a readable session
    warnings: int = 0  # lines that did not parse
    size: int = 0
    mtime_ns: int = 0
    dev: int = 0  # (with ino, size and mtime_ns: the file as it was read)
    ino: int = 0
    # scan state, so a file that grew is read on from here
    scanned_to: int = 0
    next_lineno: int = 1
    last_activity_ms: float | None = None
    header_ms: float | None = None
    fingerprint: str = ""
    extra: dict = field(default_factory=dict)
    # where the first message's line lies when first_message holds only its start
    first_message_at: int = -1
    first_message_len: int = 0
    #: the transcripts this session's subagent runs record (``parts.run_transcripts``), as
    #: recorded: what :func:`subagent_parents` nests transcripts by
    subagent_transcripts: list[str] = field(default_factory=list)

    def full_first_message(self) -> str:
        """The whole first message (Pi's ``firstMessage``): :attr:`first_message` when it
        holds it all, else read from the file again (its start, when the file no longer
        holds the same line)."""
        if self.first_message_at < 0:
            return self.first_message
        whole = self.__dict__.get("_whole_first")  # (held by a cold worker's scan)
        if whole is not None:
            return whole
        try:
            data = read_span(self.path, self.first_message_at, self.first_message_len)
            msg = parse_line(data).value
            text = _text_of(msg["message"]["content"])  # (checked by the scan that found it)
        except Exception:  # gone, replaced, unreadable: what the index holds
            return self.first_message
        return text if isinstance(text, str) and text.startswith(self.first_message) else self.first_message

    def to_pi_json(self) -> dict:
        """The listing object of ``pitui list --json`` (Pi's SessionInfo keys first). A path
        that is not UTF-8 (its bytes kept as surrogates by Python) has them as U+FFFD, as
        Node reads such a name."""
        return {
            "path": _utf8(self.path),
            "id": self.id,
            "cwd": self.cwd,
            "name": self.name,
            "parentSessionPath": self.parent_session_path,
            "created": ms_to_iso(self.created_ms),
            "modified": ms_to_iso(self.modified_ms),
            "messageCount": self.message_count,
            "firstMessage": self.full_first_message(),
            "forkedFrom": self.forked_from,
            "project": self.project,
            "kind": self.kind,
            "log": self.log,
            "model": self.model,
            "error": self.error,
            "warnings": self.warnings,
        }

    @property
    def title(self) -> str:
        return self.name or self.first_message


def _utf8(path: str) -> str:
    """``path`` without the surrogates Python keeps undecodable bytes of a name as."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return path


def _js_string(value) -> str:
    """``String(value)`` as JavaScript's ``Array.join`` makes it (null/undefined: "")."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json_text(value)


def _text_of(content) -> str | None:
    """Pi's extractTextContent: a string, or text blocks joined by a space."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            b.get("text") if isinstance(b.get("text"), str) else _js_string(b.get("text"))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return None


def _bounded(text: str) -> str:
    """The start of a first message that the index keeps (see FIRST_MESSAGE_CHARS)."""
    if len(text) <= FIRST_MESSAGE_CHARS:
        return text
    lead = min(len(text) - len(text.lstrip()), FIRST_MESSAGE_LEAD)
    return text[: lead + FIRST_MESSAGE_CHARS]


def scan_info(sf: SessionFile, prev: SessionInfo | None = None, st: os.stat_result | None = None, *,
              keep_first: bool = False, mapped: bool = False) -> SessionInfo:
    """Listing data for one file; continues ``prev``'s scan when the file only grew. Never
    raises: a file whose reading fails in any way is one row with the reason. With
    ``keep_first``, a first message longer than the index keeps is held whole on the
    info (the cold workers, which print it next), for :meth:`SessionInfo.full_first_message`.
    ``mapped``: a file too big to read whole is mapped into memory rather than copied
    (:func:`iter_line_blocks`: only in the worker processes, which may die of a file cut
    short while mapped)."""
    try:
        return _scan_info(sf, prev, st, keep_first, mapped)
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

    for r in results:
        if isinstance(r, dict):
            for _, path in run_transcripts(r):
                if path not in info.subagent_transcripts:
                    info.subagent_transcripts.append(path)


def _note_runs(info: SessionInfo, runs: list[_Run] | None) -> None:
    """:func:`_note_transcripts` for a subagent result's runs as the decoder read them."""
    if runs:
        _note_transcripts(info, {"results": [{"artifactPaths": r.artifactPaths, "sessionFile": r.sessionFile}
                                             for r in runs]})


def subagent_parents(infos: Iterable[SessionInfo]) -> dict[str, SessionInfo]:
    """Each subagent transcript listed in ``infos`` whose session is listed too, by path:
    the session whose subagent runs record it, where the pane finds it
    (:func:`discovery.transcript_candidates`: the recorded path, or its name in the
    session's ``subagent-artifacts`` folder). Worked out from the index rows alone."""
    infos = list(infos)
    transcripts = {i.path for i in infos if i.kind == "subagent"}
    if not transcripts:
        return {}
    out: dict[str, SessionInfo] = {}
    for info in infos:
        if info.kind != "session" or info.error is not None:
            continue
        for recorded in info.subagent_transcripts:
            for cand in transcript_candidates(recorded, info.path):
                if cand in transcripts:
                    out.setdefault(cand, info)
                    break
    return out


#: A file read from its start and at most this big is read whole at once (its fingerprint
#: made from those bytes, not from a second read of the file).
WHOLE_READ = 1 << 20


def _scan_info(sf: SessionFile, prev: SessionInfo | None, st: os.stat_result | None, keep_first: bool = False,
               mapped: bool = False) -> SessionInfo:
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
    info: SessionInfo
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
        and file_fingerprint(path, prev.scanned_to) == prev.fingerprint
    ):
        info = SessionInfo(**{k: v for k, v in asdict(prev).items()})
        info.project, info.kind = sf.project, sf.kind
        start, lineno, have_header = prev.scanned_to, prev.next_lineno, True
    else:
        info = SessionInfo(path, sf.project, sf.kind)
        start, lineno, have_header = 0, 1, False
    info.size, info.mtime_ns, info.dev, info.ino = st.st_size, st.st_mtime_ns, st.st_dev, st.st_ino
    first_found = info.first_message != NO_MESSAGES
    if got is None:
        try:
            got = open_regular(path)
        except NotRegular as exc:
            info.error = str(exc).removeprefix(f"{path} ")
            return info
        except OSError as exc:
            info.error = f"cannot be read ({exc.strerror or exc})"
            return info
    # (the line decoder is loaded by the first scan, not with this module: a start that
    # lists from the index, or none yet, never needs it: benchmarks/startup_budget.py)
    from .listing_decoder import ENTRY_DECODE, RUNS_DECODE, UNSET

    entry_decode, runs_decode = ENTRY_DECODE, RUNS_DECODE
    unset, ts_min, ts_max = UNSET, _TS_MIN, _TS_MAX
    ws = _WS_START
    first_entry = not have_header  # (the line after the header tells a JSON-mode stream)
    # what the lines add up to, kept in locals while the loop runs (written back after it)
    count, last_act, model, warnings = info.message_count, info.last_activity_ms, info.model, info.warnings
    done_to, done_ln = info.scanned_to, info.next_lineno  # past the last line read (not blank)
    if isinstance(got, bytes):
        data = got
    elif start == 0 and st.st_size <= WHOLE_READ:
        with got:
            data = got.read()
    else:
        data = None  # (read in blocks: a big file, or one read on from where the index stopped)
    try:
        ln = lineno - 1
        # One loop over blocks of whole lines, each line's work inline (as in
        # read/session.py's quick scan): the per-line cost is most of a cold list.
        for buf, pos, limit, base, whole in iter_line_blocks(got if data is None else data, start, mapped=mapped):
            find = buf.find
            # Pi reads lines as Node's readline splits them: at "\n", "\r\n" and a lone
            # "\r" too. A "\r" that does not end its line (none in a file Pi wrote: its JSON
            # escapes them) ends a line here as well.
            cr = find(b"\r", pos, limit)
            if cr < 0:
                cr = limit  # (none: past every line's end)
            while pos < limit:
                nl = find(b"\n", pos, limit) if whole else limit  # (no newline after a last line)
                e = nl
                term = whole
                if cr < nl:
                    if cr < nl - 1:  # (a "\r" inside the line: it ends there)
                        nl = e = cr
                        term = True
                    else:  # "\r\n", or a last line's closing "\r"
                        e -= 1
                    cr = find(b"\r", nl + 1, limit)
                    if cr < 0:
                        cr = limit
                ln += 1
                p = pos
                pos = nl + 1
                if e == p or (buf[p] in ws and bytes(buf[p:e]).isspace()):
                    continue  # a blank line
                if not have_header:
                    res = parse_line(bytes(buf[p:e]))
                    obj = res.value
                    if obj is None:
                        if term:
                            warnings += 1
                            done_to, done_ln = base + pos, ln + 1
                        continue
                    if isinstance(obj, dict) and obj.get("type") in _STREAM_FIRST:
                        return _stream_info(info)
                    info.warnings, info.scanned_to, info.next_lineno = warnings, done_to, done_ln
                    if not isinstance(obj, dict) or obj.get("type") != "session":
                        kind = obj.get("type") if isinstance(obj, dict) else type(obj).__name__
                        info.error = f"line {ln} should be a session header but is {kind!r} (not a Pi session)"
                        return info
                    if not isinstance(obj.get("id"), str):
                        info.error = f"the session header on line {ln} has no string id"
                        return info
                    have_header = True
                    _take_header(info, obj)
                    if term:
                        done_to, done_ln = base + pos, ln + 1
                    continue
                if first_entry:
                    first_entry = False
                    if event_type_at(buf, p, e) is not None:
                        return _stream_info(info)
                # Each line is read by one call of the entry decoder: it reads JSON as
                # JSON.parse does, or refuses it (then parse_line, which matches JSON.parse
                # where the decoder is stricter, decides), and keeps only the fields the
                # list needs (_Entry). Lines that can change more than the count and the
                # last activity are parsed whole (the first user message, a subagent's
                # result, a message that is not an object).
                try:
                    ent = entry_decode(buf[p:e])
                except Exception:  # (not JSON to the decoder, or not an object of entry shape)
                    ent = None
                obj = None
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
                        if term:
                            done_to, done_ln = base + pos, ln + 1
                        continue
                obj = parse_line(bytes(buf[p:e])).value
                if obj is None:
                    if term:
                        warnings += 1
                        done_to, done_ln = base + pos, ln + 1
                    continue
                if term:
                    done_to, done_ln = base + pos, ln + 1
                if not isinstance(obj, dict):
                    continue
                etype = obj.get("type")
                if etype == "session_info":
                    name = obj.get("name")
                    info.name = (name.strip() or None) if isinstance(name, str) else None
                elif etype == "model_change":
                    mid = obj.get("modelId")
                    if isinstance(mid, str):
                        model = mid
                elif etype == "message":
                    count += 1
                    msg = obj.get("message")
                    if isinstance(msg, dict) and isinstance(msg.get("role"), str) and "content" in msg:
                        r = msg["role"]
                        if r in ("user", "assistant"):
                            ts = msg.get("timestamp")
                            if isinstance(ts, (int, float)) and not isinstance(ts, bool):
                                act = float(ts)
                            else:
                                act = iso_to_ms(obj.get("timestamp"))
                            if not math.isnan(act) and (last_act is None or act > last_act):
                                last_act = act
                            if r == "assistant" and isinstance(msg.get("model"), str):
                                model = msg["model"]
                            if r == "user" and not first_found:
                                text = _text_of(msg.get("content"))
                                if text:
                                    info.first_message = _bounded(text)
                                    if len(info.first_message) < len(text):
                                        info.first_message_at, info.first_message_len = base + p, e - p
                                        if keep_first:
                                            info.__dict__["_whole_first"] = text
                                    first_found = True
                        elif r == "toolResult" and msg.get("toolName") == "subagent":
                            _note_transcripts(info, msg.get("details"))
    finally:
        if data is None:
            got.close()
    info.message_count, info.last_activity_ms, info.model, info.warnings = count, last_act, model, warnings
    info.scanned_to, info.next_lineno = done_to, done_ln
    if not have_header:
        info.error = "empty file" if st.st_size == 0 else "no session header line (not a Pi session)"
        return info
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
        info.fingerprint = file_fingerprint(path, info.scanned_to)
    return info


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

    s = StreamSession.open(info.path)
    info.log = s.stream_kind or "stream"
    info.id = s.header.get("id") or None
    cwd = s.header.get("cwd")
    info.cwd = cwd if isinstance(cwd, str) else ""
    info.name = s.name
    info.warnings = len(s.warnings)
    info.created_ms = info.header_ms = s.created_ms
    first = None
    last = None
    for i, (t, role) in enumerate(zip(s.types, s.roles)):
        if t != "message":
            continue
        info.message_count += 1
        msg = s.message(i) or {}
        ms = msg.get("timestamp")
        if type(ms) in (int, float) and (last is None or ms > last):
            last = float(ms)
        if role == "user" and first is None:
            first = _text_of(msg.get("content"))
        if role == "assistant" and isinstance(msg.get("model"), str):
            info.model = msg["model"]
    if first:
        info.first_message = _bounded(first)
    info.last_activity_ms = last
    info.modified_ms = last if last is not None else info.created_ms if info.created_ms is not None else (
        info.mtime_ns / 1e6)
    info.scanned_to, info.next_lineno = s.scanned_to, s.next_lineno
    info.fingerprint = ""  # (read again whole when it changes)
    return info


class SessionIndex:
    """The persistent listing index: one file in pitui's cache folder (:mod:`.listing_file`).

    Versioned; a file that is damaged (its checksum, lengths or columns wrong) is thrown away
    and rebuilt, and so is a row whose fields are not a session's when it is decoded, each
    with a notice (:func:`paths.notice`). Rows are decoded only when asked for (the app, a
    file that grew); ``pitui list --json`` prints the unchanged ones from their stored
    output. Writes are atomic (temporary file + rename), so a crash never leaves a
    half-written index, and private (see :mod:`paths`: a cache folder that is another
    user's is not used).
    """

    def __init__(self, cache_dir: str | os.PathLike | None = None, *, enabled: bool = True):
        self.enabled = enabled
        self.dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.file = self.dir / f"index-v{INDEX_VERSION}.bin"
        self._rec_dict: dict[str, Rec] | None = {}
        self._table: listing_file.Table | None = None  # (the file read, its rows made when first used)
        self._table_lock = threading.Lock()
        self._moved: set[str] = set()  # rows put since _recs was in the list's order (as saved)
        self._dirty = False
        self._lock = threading.Lock()
        self.load_error: str | None = None
        if enabled:
            self._load()

    def _load(self) -> None:
        if private_dir(self.dir, create=False) is None:
            if self.dir.exists():  # (refused, with a notice)
                self.enabled = False
            return
        try:
            # mapped, not read: no copy of the file is made (pitui replaces it by a rename,
            # never writes into it: the mapping stays whole). Read on Windows, where a mapped
            # file cannot be replaced.
            with open_cache_file(self.file) as fh:  # (never through a link: one is removed)
                if os.name == "nt" or not os.fstat(fh.fileno()).st_size:
                    raw = fh.read()
                else:
                    raw = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except FileNotFoundError:
            self._dirty = any(self.dir.glob("index-v*.json"))  # an older version's: deleted on save
            return
        except (OSError, ValueError) as exc:
            self.load_error = str(exc)
            return
        try:
            table = listing_file.Table(raw, INDEX_VERSION)
        except listing_file.OtherVersion:
            self._dirty = True  # another version's: rebuilt (nothing is wrong)
            return
        except listing_file.Damaged as exc:
            self._thrown_away(str(exc))
            return
        self._table, self._rec_dict = table, None

    @property
    def _recs(self) -> dict[str, Rec]:
        """Every row by path, in the index's order (made from the file when first used)."""
        got = self._rec_dict
        if got is None:
            with self._table_lock:
                got = self._rec_dict
                if got is None:
                    got = self._rec_dict = {r.path: r for r in self._table.recs()}  # type: ignore[union-attr]
                    self._table = None
        return got

    @_recs.setter
    def _recs(self, value: dict[str, Rec]) -> None:
        with self._table_lock:
            self._rec_dict, self._table = value, None

    def unchanged_output(self, root: SessionRoot, files: list[SessionFile]) -> list | None:
        """The ``list --json`` outputs of ``files``, in the list's order, from the index as
        just read; else None (compared row by row, and the index saved: :func:`_collect`).

        Rows of unchanged files (same device, inode, size and mtime, project folder and
        kind) are printed as stored: whole columns are compared at once, at C speed, and no
        row is made. When a few files changed since the index was saved (grown, new, gone
        from under ``root``, listed under another folder or kind: at most
        :data:`STALE_FILES`, with at most :data:`STALE_BYTES` to read), those are read here
        and put in their places by binary search, and the index is not written: a list
        after one session grew costs what a warm list does, not a rewrite of the whole
        index. The next list reads them again (from where the saved rows stopped) until
        the changes add up past those bounds and the row-by-row list saves them."""
        table = self._table
        if table is None:
            return None
        paths = [sf.path for sf in files]
        try:
            stats = list(map(os.stat, paths))
        except OSError:
            return None
        c, n = table.cols, table.n
        where = dict(zip(c["path"], range(n)))
        if len(where) != n or len(set(paths)) != len(paths):
            return None  # (a row twice: a hostile index)
        at = list(map(where.get, paths, repeat(n)))  # (each file's row; n: not in the index)
        row_ids = [*zip(c["dev"], c["ino"], c["size"], c["mtime_ns"]), None]
        labels = [*zip(c["project"], c["kind"]), None]
        stale = set(compress(count(), map(ne, map(row_ids.__getitem__, at), map(_STAT_KEY, stats))))
        stale.update(compress(count(), map(ne, map(labels.__getitem__, at), map(_FILE_LABEL, files))))
        gone = 0
        if root.kind == "tree":  # (rows under the root whose file is no longer there)
            gone = sum(map(str.startswith, c["path"], repeat(root.prefix))) - (len(at) - at.count(n))
        if len(stale) + gone > STALE_FILES:
            return None
        frags = table.frags()
        kept = sorted(set(at).difference(map(at.__getitem__, stale)))  # (the index's order)
        got = frags if len(kept) == n else list(map(frags.__getitem__, kept))
        for j in [j for j, f in enumerate(got) if not len(f)]:  # (an output too long to keep: made again)
            info = _decoded(table.rec(kept[j]))
            if isinstance(info, str):
                return None  # (a damaged row: dropped, with a notice, by the row-by-row list)
            got[j] = _frag_of(info)
        if not stale:
            return got
        changed = self._read_stale(table, [(files[i], stats[i], at[i]) for i in sorted(stale)])
        if changed is None:
            return None
        keys = _TableOrder(table, kept)
        for r in sorted(changed, key=_order_key, reverse=True):  # (the last first: earlier places stay)
            got.insert(bisect_right(keys, _order_key(r)), r.frag)
        return got

    def _read_stale(self, table: listing_file.Table, stale: list) -> list[Rec] | None:
        """The rows of ``stale`` files (``(file, stat, row number in table)``), read on from
        their rows where they only grew; None when a row is damaged (the row-by-row list
        drops it with a notice) or there is more than :data:`STALE_BYTES` to read."""
        budget = STALE_BYTES
        out = []
        for sf, st, k in stale:
            old = table.rec(k) if k < table.n else None
            same = old is not None and old.dev == st.st_dev and old.ino == st.st_ino
            prev = _decoded(old) if same else None  # type: ignore[arg-type]
            if isinstance(prev, str):
                return None
            if same and old.size == st.st_size and old.mtime_ns == st.st_mtime_ns:  # type: ignore[union-attr]
                info = prev  # (the same file, listed under another project folder or kind)
                info.project, info.kind = sf.project, sf.kind  # type: ignore[union-attr]
            else:
                if prev is not None and st.st_size <= old.size:  # type: ignore[union-attr]
                    prev = None  # (not grown: read whole)
                budget -= st.st_size - (prev.scanned_to if prev is not None else 0)
                if budget < 0:
                    return None
                info = scan_info(sf, prev, st)
            out.append(_rec_of(info, None, _frag_of(info)))  # type: ignore[arg-type]
        return out

    def _say_damaged(self, why: str) -> None:
        """Say (once per damage found) that the index is rebuilt, and why."""
        self.load_error = f"index was unreadable and is rebuilt ({why})"
        notice(f"{self.file}: the listing index was damaged ({why}) and is rebuilt")

    def _thrown_away(self, why: str) -> None:
        self._say_damaged(why)
        with self._lock:
            self._recs = {}
            self._dirty = True

    def get(self, path: str) -> SessionInfo | None:
        rec = self._recs.get(path)
        return self.info(rec) if rec is not None else None

    def info(self, rec: Rec) -> SessionInfo | None:
        """``rec``'s SessionInfo, decoded from its row (once); None when the row is not a
        session's (it is dropped, with a notice: its file is read again)."""
        if rec.info is not None:
            return rec.info  # type: ignore[return-value]
        got = _decoded(rec)
        if isinstance(got, str):
            self._say_damaged(got)
            with self._lock:
                if self._recs.get(rec.path) is rec:
                    del self._recs[rec.path]
                    self._dirty = True
            return None
        with self._lock:
            if self._recs.get(rec.path) is rec:
                self._recs[rec.path] = rec._replace(info=got)  # (same place: the order holds)
        return got

    def put(self, info: SessionInfo) -> None:
        self.put_rec(_rec_of(info))

    def put_rec(self, rec: Rec) -> None:
        with self._lock:
            self._recs[rec.path] = rec
            self._dirty = True
            self._moved.add(rec.path)

    def _relabel(self, rec: Rec, project: str, kind: str) -> Rec:
        """``rec`` listed under another project folder or kind (its output made again)."""
        info = rec.info
        if info is not None:
            info.project, info.kind = project, kind  # type: ignore[attr-defined]
        new = rec._replace(project=project, kind=kind, frag=b"")
        with self._lock:
            if self._recs.get(rec.path) is rec:
                self._recs[rec.path] = new
                self._dirty = True
        return new

    def _set_frag(self, rec: Rec, frag: bytes) -> None:
        with self._lock:
            cur = self._recs.get(rec.path)
            if cur is not None and cur.ino == rec.ino and cur.size == rec.size and cur.mtime_ns == rec.mtime_ns:
                self._recs[rec.path] = cur._replace(frag=frag)
                self._dirty = True

    def forget_missing(self, present: Iterable[str]) -> None:
        keep = set(present)
        with self._lock:
            for p in [p for p in self._recs if p not in keep]:
                del self._recs[p]
                self._dirty = True

    def take_order(self, ordered: list[Rec]) -> None:
        """``ordered`` (sorted in the list's order) is every row the index holds, as put:
        kept in that order, so that saving it sorts nothing again."""
        with self._lock:
            recs = self._recs
            if len(ordered) == len(recs) and all(map(is_, ordered, map(recs.get, (r.path for r in ordered)))):
                self._recs = {r.path: r for r in ordered}
                self._moved = set()

    def in_order(self, paths: set[str]) -> list[Rec] | None:
        """The rows of ``paths`` in the list's order when the index is in it (nothing
        changed since it was saved sorted), else None."""
        with self._lock:
            if self._moved:
                return None
            return [r for p, r in self._recs.items() if p in paths]

    def recent(self, root: SessionRoot, n: int) -> list[SessionInfo]:
        """Up to ``n`` rows under ``root``, first in the list's order, as the index last
        had them: what the app shows before the store is looked at."""
        keep = root.holds
        with self._lock:
            table = self._table  # (the file just read, in the list's order: its rows not made)
            if table is None:
                recs = [r for r in self._ordered() if keep(r.path)]
            else:
                recs = (table.rec(k) for k, p in enumerate(table.cols["path"]) if keep(p))
        out = []
        for r in recs:
            # (a row from the file is decoded, not kept: keeping it would make every row; a
            # damaged one is left for the listing to drop and say)
            info = self.info(r) if table is None else _decoded(r)
            if isinstance(info, SessionInfo):
                out.append(info)
                if len(out) >= n:
                    break
        return out

    def _ordered(self) -> list[Rec]:
        """Every row in the list's order (the lock held): the saved order, with the rows
        put since placed in it (or all sorted again when many were)."""
        if not self._moved:
            return list(self._recs.values())
        if len(self._moved) * 16 > len(self._recs):
            return sort_recs(list(self._recs.values()))
        moved = self._moved
        return merge_recs([r for p, r in self._recs.items() if p not in moved], [self._recs[p] for p in moved])

    def save(self) -> None:
        if not self.enabled or not self._dirty:
            return
        with self._lock:
            self._dirty = False
            recs = self._ordered()
            if self._moved:
                self._recs = {r.path: r for r in recs}
                self._moved = set()
        try:
            pieces = listing_file.encode(recs, INDEX_VERSION, FRAG_KEEP)
        except TypeError:
            return  # (rows JSON cannot hold are left out by encode: not expected)
        try:
            if private_dir(self.dir) is None:
                return
            write_private(self.file, pieces)
        except OSError:
            return  # a cache that cannot be written only costs time
        for old in range(1, INDEX_VERSION):  # (an older index can be large: v3 kept whole first messages)
            try:
                os.unlink(self.dir / f"index-v{old}.json")
            except OSError:
                pass


#: A warm list reads the files changed since the index was saved without saving it, up to
#: this many (grown, new, gone or relabelled) and this many bytes to read; past either,
#: the list is made row by row and the index saved (:meth:`SessionIndex.unchanged_output`).
STALE_FILES = 32
STALE_BYTES = 4 * 1024 * 1024

#: A row's output is kept in the index up to this size (a longer one, a first message of
#: megabytes, is made again when printed, reading the message from its file).
FRAG_KEEP = 64 * 1024

_FIELDS = tuple(SessionInfo.__dataclass_fields__)


def _row_of(info: SessionInfo) -> bytes | None:
    """``info``'s fields as the JSON array the index keeps; None when JSON cannot hold
    them (a file name that is not UTF-8: such a row is read again each time)."""
    try:
        return orjson.dumps([getattr(info, f) for f in _FIELDS])
    except TypeError:
        return None


def _frag_of(info: SessionInfo) -> bytes:
    """``info``'s object in ``pitui list --json`` exactly as printed in the list (indented
    by two within it; json_safe is applied to the whole output)."""
    return orjson.dumps([info.to_pi_json()], option=orjson.OPT_INDENT_2)[2:-2]


def _rec_of(info: SessionInfo, row: bytes | None | str = "", frag: bytes = b"") -> Rec:
    return Rec(info.path, info.project, info.kind, info.dev, info.ino, info.size, info.mtime_ns,
               float(info.modified_ms or 0), info.error is not None, _row_of(info) if row == "" else row, frag, info)


_ROW_CHECKS: tuple[dict[str, frozenset], tuple[int, ...]] | None = None


def _row_checks() -> tuple[dict[str, frozenset], tuple[int, ...]]:
    """Each SessionInfo field's JSON types, from its annotation (an int is a float too),
    and the positions of the fields that may hold a list."""
    global _ROW_CHECKS
    if _ROW_CHECKS is None:
        import types
        import typing

        got = {}
        for name, hint in typing.get_type_hints(SessionInfo).items():
            if isinstance(hint, types.UnionType):
                allowed = set(typing.get_args(hint))
            else:
                allowed = {typing.get_origin(hint) or hint}  # (list[str]: a list)
            if float in allowed:
                allowed.add(int)
            got[name] = frozenset(allowed)
        _ROW_CHECKS = got, tuple(k for k, f in enumerate(_FIELDS) if list in got[f])
    return _ROW_CHECKS


#: the rows' field types already checked one by one (a store's rows share a few: a row whose
#: types are one of them is checked by one lookup)
_GOOD_TYPES: set[tuple] = set()
_GOOD_TYPES_MAX = 4096


def _info_of_row(row) -> SessionInfo | str:
    """The SessionInfo a row holds, or why it is not one: a JSON array of every field,
    each of the type SessionInfo gives it (list fields hold strings)."""
    try:
        vals = orjson.loads(row)
    except (orjson.JSONDecodeError, TypeError) as exc:
        return f"a row is not JSON: {exc}"
    if type(vals) is not list or len(vals) != len(_FIELDS):
        return "a row that is not a session's"
    allowed, list_fields = _row_checks()
    types = tuple(map(type, vals))
    if types not in _GOOD_TYPES:
        for k, t in zip(_FIELDS, types):
            if t not in allowed[k]:
                return f"{k} is {t.__name__} in a row"
        if len(_GOOD_TYPES) < _GOOD_TYPES_MAX:
            _GOOD_TYPES.add(types)
    for k in list_fields:
        v = vals[k]
        if type(v) is list and not all(type(x) is str for x in v):
            return f"{_FIELDS[k]} holds a value that is not a string in a row"
    return SessionInfo(*vals)


def _decoded(rec: Rec) -> SessionInfo | str:
    """``rec``'s SessionInfo, listed under its row's project folder and kind (or why its
    row is not a session's)."""
    got = _info_of_row(rec.row)
    if not isinstance(got, str):
        got.project, got.kind = rec.project, rec.kind
    return got


#: Scan in worker processes when at least this many files (and bytes) need reading.
PARALLEL_MIN_FILES = 24
PARALLEL_MIN_BYTES = 64 * 1024 * 1024
#: The worker processes' module.
LISTING_WORKER = "pitui.core.store.listing_worker"


def _scan_parallel(todo: list, workers: int):
    """Yield index rows (:class:`Rec`) for ``todo`` as ``workers`` worker processes scan
    them (:mod:`.listing_worker`, run by :mod:`.workers`), in the order they come; a worker
    that fails, or a row that cannot be read, leaves its files to be scanned here."""
    from .workers import Workers

    # (a file name JSON cannot carry, one that is not UTF-8, is scanned here)
    order = sorted((t for t in todo if utf8_name(t[0].path)), key=lambda t: -t[2].st_size)  # big first
    groups = [order[k::workers] for k in range(workers)]  # round-robin
    pending: dict[str, tuple] = {t[0].path: t for t in todo}
    try:
        payloads = [
            orjson.dumps([[sf.path, sf.project, sf.kind, _row_of(prev).decode() if prev is not None else None]
                          for sf, prev, _ in group]) if group else None
            for group in groups
        ]
        with Workers(LISTING_WORKER, payloads) as pool:
            for _, (head, blob) in pool.messages():  # a batch: the files' heads, then their texts
                o = 0
                for path, dev, ino, size, mtime_ns, mod, err, rl, fl in orjson.loads(head):
                    row, frag = blob[o:o + rl], blob[o + rl:o + rl + fl]
                    o += rl + fl
                    task = pending.pop(path, None)
                    if task is None:
                        continue  # (not a file asked for, or one already listed)
                    sf = task[0]
                    # (the row is decoded when asked for: the app, a file that grows)
                    yield Rec(path, sf.project, sf.kind, dev, ino, size, mtime_ns, mod, err, row, frag, None)
    except Exception:
        pass  # the workers could not be run or read: what they did not deliver is read here
    for task in list(pending.values()):  # anything a worker did not deliver
        yield _rec_of(scan_info(*task))


def sort_infos(infos: list[SessionInfo]) -> list[SessionInfo]:
    """Newest ``modified`` first (Pi's order); unreadable files last; then by file name
    (last first) and path."""
    infos.sort(key=lambda i: i.path)
    infos.sort(key=lambda i: i.path.rpartition(os.sep)[2], reverse=True)
    infos.sort(key=lambda i: (i.error is not None, -(i.modified_ms or 0)))
    return infos


def sort_recs(recs: list[Rec]) -> list[Rec]:
    """Index rows in :func:`sort_infos`' order."""
    recs.sort(key=lambda r: r.path)
    recs.sort(key=lambda r: r.path.rpartition(os.sep)[2], reverse=True)
    recs.sort(key=lambda r: (r.err, -r.mod))
    return recs


class _TableOrder:
    """The sort keys (:func:`_order_key`) of an index file's rows ``ks``, made as a binary
    search asks for them."""

    __slots__ = ("table", "ks")

    def __init__(self, table: listing_file.Table, ks: list[int]):
        self.table, self.ks = table, ks

    def __len__(self) -> int:
        return len(self.ks)

    def __getitem__(self, j: int):
        return _order_key(self.table.rec(self.ks[j]))


class _Desc:
    """A string that sorts last first."""

    __slots__ = ("s",)

    def __init__(self, s: str):
        self.s = s

    def __lt__(self, other: "_Desc") -> bool:
        return self.s > other.s

    def __eq__(self, other) -> bool:
        return self.s == other.s


def _order_key(r: Rec):
    """:func:`sort_recs`' order as one key."""
    return (r.err, -r.mod, _Desc(r.path.rpartition(os.sep)[2]), r.path)


def merge_recs(ordered: list[Rec], more: list[Rec]) -> list[Rec]:
    """``ordered`` (in the list's order) with ``more`` put in their places: a few binary
    searches instead of sorting the whole store again when a few files changed."""
    for r in more:
        insort(ordered, r, key=_order_key)
    return ordered


def _unreadable(sf: SessionFile, exc: OSError) -> Rec:
    info = SessionInfo(sf.path, sf.project, sf.kind, error=f"cannot be read ({exc.strerror or exc})")
    return _rec_of(info, None)


def _collect(root: SessionRoot, index: SessionIndex | None, on_info, workers: int | None, decode: bool,
             files: list[SessionFile] | None = None) -> list[Rec]:
    """Every file under ``root`` as an index row, in the list's order: rows whose file is
    unchanged as they are (decoded only when ``decode``), the others scanned (and put in
    the index). ``on_info(info, done, total)`` as each is ready. ``files``: the files under
    ``root``, when already found."""
    if files is None:
        files = find_session_files(root)
    total = len(files)
    recs = index._recs if index is not None else {}
    in_order = index is not None and not index._moved  # (the index's rows are in the list's order)
    out: list[Rec] = []
    changed: list[Rec] = []  # rows not from the index as it was
    todo = []
    fresh = index is None
    stat = os.stat
    for sf in files:
        path = sf.path
        try:
            st = stat(path)
        except OSError as exc:
            out.append(_unreadable(sf, exc))
            changed.append(out[-1])
            fresh = True
            if on_info is not None:
                on_info(out[-1].info, len(out), total)
            continue
        r = recs.get(path)
        if r is not None and r.ino == st.st_ino and r.dev == st.st_dev:
            if r.size == st.st_size and r.mtime_ns == st.st_mtime_ns:
                if r.project != sf.project or r.kind != sf.kind:
                    r = index._relabel(r, sf.project, sf.kind)  # type: ignore[union-attr]
                if decode and r.info is None:
                    if index.info(r) is None:  # type: ignore[union-attr]
                        todo.append((sf, None, st))  # (its row was damaged: read again)
                        continue
                    r = recs.get(path) or r  # (the row with its decoded info)
                out.append(r)
                if on_info is not None:
                    on_info(index.info(r), len(out), total)  # type: ignore[union-attr]
                continue
            prev = index.info(r) if st.st_size > r.size else None  # type: ignore[union-attr]
            todo.append((sf, prev, st))
        else:
            todo.append((sf, None, st))
    if workers is None:
        workers = min(4, os.cpu_count() or 1)
    parallel = (
        workers > 1
        and len(todo) >= PARALLEL_MIN_FILES
        and sum(t[2].st_size for t in todo) >= PARALLEL_MIN_BYTES
    )
    rows = _scan_parallel(todo, workers) if parallel else (_rec_of(scan_info(*t)) for t in todo)
    for rec in rows:
        fresh = True
        if (decode or on_info is not None) and rec.info is None:
            got = _decoded(rec)
            if isinstance(got, str):  # (a row a worker sent that is not a session's: read here)
                rec = _rec_of(scan_info(SessionFile(rec.path, rec.project, rec.kind)))
            else:
                rec = rec._replace(info=got)
        if index is not None:
            index.put_rec(rec)
        if on_info is not None:
            on_info(rec.info, len(out) + 1, total)
        out.append(rec)
        changed.append(rec)
    if index is not None and root.kind == "tree":
        prefix = root.prefix  # (SessionRoot.holds for a tree, at C speed: every row is asked)
        index.forget_missing([p for p in index._recs if not p.startswith(prefix)] + [sf.path for sf in files])
    if not fresh:
        ordered = index.in_order({r.path for r in out})  # type: ignore[union-attr]
        if ordered is not None and len(ordered) == len(out):
            return ordered
    elif in_order and len(changed) * 16 < len(out):
        # a few files changed: the others keep the index's order, the changed are put in
        keep = {r.path for r in out}.difference(r.path for r in changed)
        with index._lock:  # type: ignore[union-attr]
            base = [r for p, r in index._recs.items() if p in keep]  # type: ignore[union-attr]
        if len(base) + len(changed) == len(out):
            return merge_recs(base, changed)
    out = sort_recs(out)
    if index is not None and index._moved:
        index.take_order(out)
    return out


_STAT_KEY = attrgetter("st_dev", "st_ino", "st_size", "st_mtime_ns")
_FILE_LABEL = attrgetter("project", "kind")


def _info_for(rec: Rec, index: SessionIndex | None) -> SessionInfo:
    """``rec``'s SessionInfo: decoded from its row, or, when the row is damaged (since),
    its file read again."""
    got = rec.info if rec.info is not None else index.info(rec) if index is not None else _decoded(rec)
    if got is None or isinstance(got, str):
        return scan_info(SessionFile(rec.path, rec.project, rec.kind))
    return got  # type: ignore[return-value]


def list_sessions(
    root: SessionRoot,
    index: SessionIndex | None = None,
    on_info: Callable[[SessionInfo, int, int], None] | None = None,
    include_errors: bool = True,
    workers: int | None = None,
) -> list[SessionInfo]:
    """Every session under ``root``, newest first. ``on_info(info, done, total)`` is called
    as each row is ready (cached rows first), for progressive display. Files to (re)scan
    are read by up to ``workers`` processes when there are many (default: the cores, <= 4)."""
    recs = _collect(root, index, on_info, workers, decode=True)
    if index is not None:
        index.save()
    out = []
    for r in recs:
        info = _info_for(r, index)
        if include_errors or info.error is None:
            out.append(info)
    return out


# every byte a list's JSON may not hold raw: C0 controls but the line feed between values
_NOT_C0 = bytes(b for b in range(256) if not (b < 32 and b != 10))


def list_json(root: SessionRoot, index: SessionIndex | None = None, workers: int | None = None) -> bytes:
    """``pitui list --json``'s array (``orjson`` indented by two; the caller makes it
    :func:`text.json_safe`): the rows of unchanged files printed from their stored output,
    without decoding them."""
    files = find_session_files(root)
    frags = index.unchanged_output(root, files) if index is not None else None
    if frags is None:
        recs = _collect(root, index, None, workers, decode=False, files=files)
        frags = [r.frag for r in recs]
    for k in [k for k, f in enumerate(frags) if not len(f)]:  # (outputs not kept: made now)
        r = recs[k]
        frags[k] = frag = _frag_of(_info_for(r, index))
        if index is not None and r.row is not None and len(frag) <= FRAG_KEEP:
            index._set_frag(r, frag)
    if frags:  # (the brackets put on the first and last rows: the output copied once)
        frags[0] = b"[\n" + frags[0]
        frags[-1] = bytes(frags[-1]) + b"\n]"
    data = b",\n".join(frags) if frags else b"[]"
    if index is not None and data.translate(None, _NOT_C0):
        # a control character no JSON writer leaves raw: an output stored in a hostile
        # index. Thrown away, and the list made from the files.
        index._thrown_away("a row's output holds a control character")
        recs = _collect(root, index, None, workers, decode=True)
        infos = [_info_for(r, index) for r in recs]
        data = orjson.dumps([i.to_pi_json() for i in infos], option=orjson.OPT_INDENT_2)
    if index is not None:
        index.save()
    return data
