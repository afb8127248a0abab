"""Reading a session file's lines into its skeleton (:class:`~pitui.core.read.session.Session`'s
columns): the header, then each entry, from where the last scan stopped.

Two ways: every line parsed whole (``validate``: exactly Pi's acceptance of lines), or the
quick way (:func:`scan_heads`): Pi's usual message lines read from their head in place,
without parsing or copying them, the others parsed whole (:func:`scan_line`). Each entry's
skeleton fields are read as :mod:`.normalize` says, each problem a warning; labels and the
session's name are kept up to date as their entries come. A last line without its newline
is read again, from its start, with what Pi appends.

Each function takes the session (a :class:`~.session.Session`) first, unannotated: this
module does not import the facade that calls it (no import circle, even for type checking).
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable

from .lines import _WS_START, RawLine, iter_line_blocks, iter_line_spans, parse_line
from .normalize import (cut_deep, kind_of, may_be_deep, norm_id, norm_label, norm_timestamp, normalize_entry,
                        normalize_header)
from .skeleton import (F_ABNORMAL_STOP, F_ASSISTANT_TEXT, F_CHECKED, F_CUT, F_LAZY, F_NON_UTF8, F_REPAIRED,
                       NotASession, SessionWarning, has_text, open_session_file, repair_warnings, unparsable)

__all__ = ["scan", "drop_from", "replay_labels_and_name", "HEAD_RE"]

# A line's skeleton fields are read from its first HEAD_BYTES when Pi's own key order is
# recognised there; the rest of the line is parsed only when the entry is shown (or checked
# by validate_lazy_lines).
HEAD_BYTES = 1024

HEAD_RE = re.compile(
    rb'\{"type":"message","id":"([^"\\]{1,256})","parentId":(null|"[^"\\]{1,256}"),'
    rb'"timestamp":"([^"\\]{1,64})","message":\{"role":"([A-Za-z]{1,64})"'
)
# The last "stopReason" of an assistant line (it follows the content and usage).
_STOP_RE = re.compile(rb'"stopReason":"([A-Za-z]*)"')
# A text block holding at least one character that is not white space.
_TEXT_RE = re.compile(rb'\{"type":"text","text":"(?:[ \t]|\\[nrt])*(?:[^"\s\\]|\\[^nrt])')
_TAIL = 4096


def what_json(obj: Any) -> str:
    """What a JSON value is, for a reason: ``'message'`` (an object's type), ``an object
    without a type``, ``a list``."""
    if isinstance(obj, dict):
        kind = obj.get("type")
        return repr(kind) if isinstance(kind, str) else "an object without a type"
    names = {list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return names.get(type(obj), "null" if obj is None else type(obj).__name__)


def header_version(value: Any) -> float:
    """The header's version as a number (1 when it is not one)."""
    return value if type(value) in (int, float) else 1


def intern_str(table: dict, value: str) -> str:
    """``value`` as ``table`` holds it (one string object for each type or role read)."""
    got = table.get(value)
    if got is None:
        table[value] = value
        return value
    return got


def scan(
    session,
    *,
    validate: bool,
    progress: Callable[[int, int], None] | None = None,
    stop: int | None = None,
    build: bool = True,
    header_only: bool = False,
    progress_every: int = 8 * 1024 * 1024,
    mapped: bool = False,
) -> int:
    """Scan from ``scanned_to`` to the end of the file (or to byte ``stop``). Returns the
    number of new entries. ``build=False`` leaves the tree alone (a part of a parallel
    open); ``header_only`` stops once the header is read; ``progress`` is called after
    every ``progress_every`` bytes or more. ``mapped``: the quick scan maps the file
    rather than reading it (see :func:`iter_line_blocks`: for worker processes only)."""
    handle = open_session_file(session.path)
    with handle:
        st = os.fstat(handle.fileno())
        size = st.st_size
        if size < session.scanned_to or not session.same_file(st):
            # Shrunk, or another file (or rewritten in place: same size, new mtime):
            # start over.
            session._reset()
        start_count = len(session.ids)
        if session._pending_partial is not None:
            # An unterminated last line was accepted last time; re-read it from its start.
            drop_from(session, session._pending_partial)
            session._pending_partial = None
        session._take_stat(st)
        body = True  # entries follow (not after a header line still being written)
        if not session.header:
            body = False
            for buf, pos, line_end, off, lineno, end, term in iter_line_spans(handle, session.scanned_to, session.next_lineno, stop):
                accept_header(session, RawLine(off, line_end - pos, lineno, bytes(buf[pos:line_end]), term, end))
                if session.header:
                    body = term
                    break
            if not session.header:
                if size == 0:
                    raise NotASession(session.path, "empty file", no_header=True)
                raise NotASession(session.path, "no session header line (not a Pi session)", no_header=True)
        if body and not header_only:
            if not validate and session.version >= 2:
                scan_heads(session, handle, size, stop, progress, progress_every, mapped)
            else:
                last_report = 0
                for buf, pos, line_end, off, lineno, end, term in iter_line_spans(
                    handle, session.scanned_to, session.next_lineno, stop
                ):
                    scan_line(session, RawLine(off, line_end - pos, lineno, bytes(buf[pos:line_end]), term, end), check=True)
                    if progress is not None and end - last_report >= progress_every:
                        last_report = end
                        progress(end, size)
    if header_only:
        return 0
    if progress is not None:
        progress(session.file_size if stop is None else stop, session.file_size)
    if build:
        session._build_tree()
    return len(session.ids) - start_count


def scan_line(session, raw, flags: int = 0, check: bool = False) -> None:
    """Parse one line whole and record it (the exact, validating path). ``check``: the
    entry's fields are checked too (:func:`add_entry`)."""
    res = parse_line(raw.data)
    if res.value is None and res.error is not None:  # (a line "null" parses: it is no object)
        if raw.terminated:
            session.warnings.append(SessionWarning(raw.lineno, f"line {raw.lineno} is {res.why} and is skipped",
                                                unparsable(res)))
            session.scanned_to = raw.end
            session.next_lineno = raw.lineno + 1
        # An unterminated last line that does not parse is Pi writing it now: skip it
        # quietly and read it again next time.
        return
    obj = res.value
    if not isinstance(obj, dict):
        if raw.terminated:
            session.warnings.append(SessionWarning(raw.lineno, f"line {raw.lineno} is not a JSON object and is skipped",
                                               "not-an-object"))
        advance(session, raw, added=False)
        return
    if res.replaced:
        flags |= F_NON_UTF8
        session.warnings.append(
            SessionWarning(raw.lineno, f"line {raw.lineno} has bytes that are not UTF-8 (shown as \ufffd)",
                           "not-utf8")
        )
    session._parsed_count += 1
    if obj.get("type") == "session":
        session.warnings.append(SessionWarning(raw.lineno, f"line {raw.lineno} repeats the session header and is ignored",
                                           "extra-header"))
        advance(session, raw, added=False)
        return
    if res.surrogates or res.huge:
        flags |= F_REPAIRED
        session.warnings.extend(repair_warnings(raw.lineno, res))
    add_entry(session, obj, raw, flags, session._intern, check)
    advance(session, raw, added=True)


def scan_heads(session, handle, size: int, stop: int | None, progress, progress_every: int,
                mapped: bool = False) -> None:
    """The entries from ``scanned_to`` on, read the quick way (version 2 and later,
    the header read): Pi's usual message lines from their head, in place, without
    parsing or copying them (an assistant's stop reason and text from the line
    itself); other lines parsed whole by :func:`scan_line`. One loop over blocks of
    whole lines (:func:`iter_line_blocks`), the per-line work inline: this is the
    loop over every line of a 200 MB file. (Its line splitting is kept to
    :func:`iter_line_spans`' by tests/core/test_line_loops.py, beside the listing's copy.)"""
    # The text fields of lines read the quick way are kept as the regex found them
    # (its groups, undecoded) and put into their columns a batch at a time by
    # flush(): decoding 50,000 ids, parents and times one by one cost more than the
    # rest of the loop. (The number columns are appended to as the lines come.)
    heads: list[tuple] = []
    heads_append = heads.append
    off_append = session.offsets.append
    len_append = session.lengths.append
    ln_append = session.linenos.append
    flags_append = session.flags.append
    head_match = HEAD_RE.match
    stop_iter = _STOP_RE.finditer
    stop_match = _STOP_RE.match
    text_match = _TEXT_RE.match
    role_cache: dict[bytes, str] = {}
    message_s = intern_str(session._intern, "message")
    v3 = session.version >= 3

    def flush() -> None:
        if not heads:
            return
        eids, pids, stamps, roles = zip(*heads)
        heads.clear()
        # (no group holds a newline: they are parts of one line)
        session.ids += b"\n".join(eids).decode("utf-8", "replace").split("\n")
        # (the quotes taken off all at once, as no id holds one; JSON's nulls, the roots,
        # put back after)
        parents = b"\n".join(pids).replace(b'"', b"").decode("utf-8", "replace").split("\n")
        at = -1
        for _ in range(pids.count(b"null")):
            at = pids.index(b"null", at + 1)
            parents[at] = None
        session.parent_ids += parents
        session.timestamps += b"\n".join(stamps).decode("utf-8", "replace").split("\n")
        for raw in set(roles).difference(role_cache):
            role = raw.decode()
            if role == "hookMessage" and not v3:
                role = "custom"
            role_cache[raw] = intern_str(session._intern, role)
        session.roles += map(role_cache.__getitem__, roles)
        session.types += [message_s] * len(roles)

    ws = _WS_START
    lineno = session.next_lineno
    last_end, last_lineno = session.scanned_to, lineno - 1  # the last line read (not blank)
    next_report = progress_every if progress is not None else -1
    for buf, pos, limit, base, whole in iter_line_blocks(handle, session.scanned_to, stop, mapped=mapped):
        find = buf.find
        rfind = buf.rfind
        while pos < limit:
            nl = find(b"\n", pos, limit) if whole else limit  # (no newline after a last line)
            line_end = nl
            if line_end > pos and buf[line_end - 1] == 13:
                line_end -= 1
            if line_end > pos and not (buf[pos] in ws and bytes(buf[pos:line_end]).isspace()):
                end = base + nl + 1 if whole else base + limit
                head = None  # the line's (id, parentId, timestamp, role), read from its head
                if buf[line_end - 1] == 125:  # "}"
                    head_end = pos + HEAD_BYTES
                    found = head_match(buf, pos, head_end if head_end < line_end else line_end)
                    if found is not None:
                        head = found.groups()
                flags = F_LAZY
                if head is not None and head[3] == b"assistant":
                    # The last "stopReason" in the line's tail: found with rfind (a
                    # plain byte search, far quicker than the regex scanning 4 KB of
                    # each line), then checked with the regex; anything unusual takes
                    # the regex's own way.
                    tail = line_end - _TAIL
                    if tail < pos:
                        tail = pos
                    at = rfind(b'"stopReason":"', tail, line_end)
                    stop_m = stop_match(buf, at, line_end) if at >= 0 else None
                    if stop_m is None and at >= 0:
                        for stop_m in stop_iter(buf, tail, line_end):
                            pass
                    if stop_m is None:
                        head = None
                    else:
                        reason = stop_m.group(1)
                        if reason and reason != b"stop" and reason != b"toolUse":
                            flags |= F_ABNORMAL_STOP
                        # the first text block with a character that is not white space
                        at = find(b'{"type":"text","text":"', pos, line_end)
                        while at >= 0:
                            if text_match(buf, at, line_end) is not None:
                                flags |= F_ASSISTANT_TEXT
                                break
                            at = find(b'{"type":"text","text":"', at + 1, line_end)
                if head is None:
                    flush()
                    scan_line(session, RawLine(base + pos, line_end - pos, lineno, bytes(buf[pos:line_end]), whole, end))
                else:
                    heads_append(head)
                    off_append(base + pos)
                    len_append(line_end - pos)
                    ln_append(lineno)
                    flags_append(flags)
                    if not whole:
                        flush()
                        session._pending_partial = len(session.ids) - 1
                if whole:
                    last_end, last_lineno = end, lineno
                if 0 <= next_report <= end:
                    next_report = end + progress_every
                    flush()
                    progress(end, size)
            lineno += 1
            pos = nl + 1
    flush()
    # where the next read starts: after the last line read in whole (a last line
    # without its newline is read again, from its start, with what Pi appends)
    session.scanned_to = last_end
    session.next_lineno = last_lineno + 1


def advance(session, raw, *, added: bool) -> None:
    if raw.terminated:
        session.scanned_to = raw.end
        session.next_lineno = raw.lineno + 1
    elif added:
        # Accepted a complete JSON object without its newline: keep the position before
        # it so a refresh re-reads it (and whatever Pi appends after it) exactly once.
        session._pending_partial = len(session.ids) - 1 if session.ids else None


def accept_header(session, raw) -> None:
    res = parse_line(raw.data)
    obj = res.value
    if obj is None:
        if not raw.terminated:
            return  # still being written
        session.warnings.append(SessionWarning(raw.lineno, f"line {raw.lineno} is {res.why} and is skipped",
                                            unparsable(res)))
        session.scanned_to = raw.end
        session.next_lineno = raw.lineno + 1
        return
    if not isinstance(obj, dict) or obj.get("type") != "session" or not isinstance(obj.get("id"), str):
        if isinstance(obj, dict) and obj.get("type") == "session":
            reason = f"the session header on line {raw.lineno} has no string id"
        else:
            reason = f"line {raw.lineno} should be a session header but is {what_json(obj)} (not a Pi session)"
        raise NotASession(session.path, reason, raw.lineno, no_header=True)
    session.warnings.extend(repair_warnings(raw.lineno, res))
    for problem in normalize_header(obj, deep=may_be_deep(raw.data)):
        session.warnings.append(SessionWarning(raw.lineno, f"line {raw.lineno}: header {problem}", "field-type"))
    session.header = obj
    session.version = header_version(obj.get("version"))
    if "parentSession" not in obj and isinstance(obj.get("branchedFrom"), str):
        obj["parentSession"] = obj["branchedFrom"]
    session._parsed_count = 1
    if raw.terminated:
        session.scanned_to = raw.end
        session.next_lineno = raw.lineno + 1
    else:
        session.scanned_to = raw.offset  # re-read next time in full


def add_entry(session, obj: dict, raw, flags: int, intern: dict, check: bool = False) -> None:
    """Record entry ``obj`` (line ``raw``) in the skeleton. Its skeleton fields (id,
    parentId, type, timestamp) are read as :mod:`pitui.core.read.normalize` says, each
    problem a warning; with ``check``, every other field is checked too (as
    :meth:`Session.entry` does when it decodes the entry)."""
    idx = len(session.ids)
    lineno = raw.lineno
    problems: tuple = ()
    cut: tuple = ()
    if check:
        cut = tuple(cut_deep(obj)) if may_be_deep(raw.data) else ()
        problems = tuple(normalize_entry(obj, deep=False))  # (reported after the skeleton's)
        flags |= F_CHECKED | (F_CUT if cut else 0)
    etype = obj.get("type")
    if type(etype) is str:
        etype_s = intern_str(intern, etype)
    else:
        etype_s = intern_str(intern, "(no type)")
        if etype is not None:
            bad_field(session, lineno, "type", etype, "a string", "shown as an unknown entry")
    if session.version < 2:
        # Version 1: entries form one chain in file order. Ids are derived from the line
        # number so they stay the same on every load (Pi makes fresh random ones).
        eid = f"line{lineno}"
        pid = session.ids[-1] if session.ids else None
        if etype == "compaction":
            fki = obj.get("firstKeptEntryIndex")
            if isinstance(fki, int) and not isinstance(fki, bool):
                target = session._parsed_pos_to_entry.get(fki)
                session._v1_first_kept[idx] = session.ids[target] if target is not None and target < idx else None
    else:
        raw_id = obj.get("id")
        eid = norm_id(raw_id)
        if eid is None:
            eid = f"line{lineno}"
            if raw_id is None:
                session.warnings.append(SessionWarning(lineno, f"line {lineno} has no id; pitui calls it {eid}", "no-id"))
            else:
                bad_field(session, lineno, "id", raw_id, "a string", f"pitui calls it {eid}")
        elif type(raw_id) is not str:
            bad_field(session, lineno, "id", raw_id, "a string", f"read as {eid}")
        raw_pid = obj.get("parentId")
        pid = norm_id(raw_pid)
        if raw_pid is not None and type(raw_pid) is not str:
            bad_field(session, lineno, "parentId", raw_pid, "a string",
                            "shown as a root" if pid is None else f"read as {pid}")
    ts = obj.get("timestamp")
    if ts is not None and type(ts) is not str:
        ts, problem = norm_timestamp(ts)
        session.warnings.append(SessionWarning(lineno, f"line {lineno}: {problem}", "field-type"))
    role = None
    message = obj.get("message")
    if etype == "message" and type(message) is dict:
        message_role = message.get("role")
        if type(message_role) is str:
            if message_role == "hookMessage" and session.version < 3:
                message_role = "custom"
            role = intern_str(intern, message_role)
        if message_role == "assistant":
            content = message.get("content")
            if has_text(content):
                flags |= F_ASSISTANT_TEXT
            stop = message.get("stopReason")
            if type(stop) is str and stop and stop not in ("stop", "toolUse"):
                flags |= F_ABNORMAL_STOP
    elif etype == "label":
        apply_label(session, obj, ts)
    elif etype == "session_info":
        name = obj.get("name")
        session.name = (name.strip() or None) if type(name) is str else None
    session.ids.append(eid)
    session.parent_ids.append(pid)
    session.types.append(etype_s)
    session.roles.append(role)
    session.timestamps.append(ts)
    session.offsets.append(raw.offset)
    session.lengths.append(raw.length)
    session.linenos.append(lineno)
    session.flags.append(flags)
    session._parsed_pos_to_entry[session._parsed_count - 1] = idx
    if cut:
        session.warnings.extend(SessionWarning(lineno, f"line {lineno}: {problem}", "too-deep") for problem in cut)
    if problems:
        session.warnings.extend(SessionWarning(lineno, f"line {lineno}: {problem}", "field-type") for problem in problems)


def bad_field(session, lineno: int, name: str, value: Any, want: str, outcome: str) -> None:
    session.warnings.append(SessionWarning(lineno, f"line {lineno}: {name} is {kind_of(value)}, not {want}; {outcome}",
                                        "field-type"))


def apply_label(session, obj: dict, ts: Any) -> None:
    """A label entry sets (or clears) the label of its target, as Pi's labelsById."""
    target = norm_id(obj.get("targetId"))
    if target is None:
        return
    label, _ = norm_label(obj.get("label"))
    if label:
        session.label_by_target[target] = label
        session.label_time_by_target[target] = ts
    else:
        session.label_by_target.pop(target, None)
        session.label_time_by_target.pop(target, None)


def drop_from(session, idx: int) -> None:
    """Forget entries ``idx..`` (used to re-read an unterminated last line)."""
    if idx >= len(session.ids):
        return
    # Labels, names and tool-call owners can only be restored by replaying: do it.
    offset = session.offsets[idx]
    lineno = session.linenos[idx]
    keep = idx
    for name in ("ids", "parent_ids", "types", "roles", "timestamps"):
        del getattr(session, name)[keep:]
    for name in ("offsets", "lengths", "linenos"):
        del getattr(session, name)[keep:]
    del session.flags[keep:]
    session._parsed_pos_to_entry = {key: value for key, value in session._parsed_pos_to_entry.items() if value < keep}
    session._parsed_count = max(session._parsed_pos_to_entry, default=0) + 1
    replay_labels_and_name(session)
    session.scanned_to = offset
    session.next_lineno = lineno
    session._cache.clear()


def replay_labels_and_name(session) -> None:
    session.label_by_target.clear()
    session.label_time_by_target.clear()
    session.name = None
    for index, entry_type in enumerate(session.types):
        if entry_type in ("label", "session_info"):
            # (read as the scan read it, reporting nothing: entry() reports its
            # problems when it is decoded, as after a sequential scan)
            obj = parse_line(session.raw_line(index)).value
            if not isinstance(obj, dict):
                continue
            if entry_type == "label":
                apply_label(session, obj, session.timestamps[index])
            else:
                name = obj.get("name")
                session.name = (name.strip() or None) if type(name) is str else None
