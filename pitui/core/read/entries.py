"""A session's entries decoded on demand: each read back from its line's bytes, parsed,
migrated to the current version and normalised (:mod:`.normalize`), its problems reported
once as warnings, and kept in a bounded cache (:class:`LRU`); the tool call a result
answers, found by walking up its branch or by a byte search of the file; and the check of
every line the quick scan read from its head only (:func:`validate_lazy_lines`).

Each function takes the session (a :class:`~.session.Session`) first, unannotated: this
module does not import the facade that calls it (no import circle, even for type checking).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Any, Callable

from .lines import open_regular, parse_line
from .normalize import cut_deep, may_be_deep, normalize_entry
from .skeleton import (F_CHECKED, F_CUT, F_DAMAGED, F_LAZY, F_NON_UTF8, F_REPAIRED, FileChanged, SessionWarning,
                       repair_warnings, unparsable)

__all__ = ["LRU", "entry", "find_tool_call", "call_anywhere", "validate_lazy_lines", "migrate", "normalize", "stand_in"]

# (taken only to report an entry's problems once, when it has any)
_REPORT_LOCK = threading.Lock()


class LRU:
    """A small LRU bounded by item count and by approximate bytes.

    Hand-written because entries range from bytes to megabytes, so a bound on the count
    alone (functools.lru_cache; Textual's LRUCache, which core may not import) would let a
    few big tool results hold hundreds of MB."""

    def __init__(self, max_items: int = 4096, max_bytes: int = 96 * 1024 * 1024):
        self._d: OrderedDict[int, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self.max_items = max_items
        self.max_bytes = max_bytes
        self._lock = threading.Lock()

    def get(self, key: int) -> Any:
        with self._lock:
            item = self._d.get(key)
            if item is None:
                return None
            self._d.move_to_end(key)
            return item[0]

    def put(self, key: int, value: Any, size: int) -> None:
        with self._lock:
            old = self._d.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._d[key] = (value, size)
            self._bytes += size
            while self._d and (len(self._d) > self.max_items or self._bytes > self.max_bytes):
                _, (_, sz) = self._d.popitem(last=False)
                self._bytes -= sz

    def clear(self) -> None:
        with self._lock:
            self._d.clear()
            self._bytes = 0



def _unreadable(exc: OSError) -> str:
    if isinstance(exc, FileChanged):
        return "the session file was replaced since it was read: this entry's line is no longer there"
    if isinstance(exc, FileNotFoundError):
        return "the session file is gone: this entry's line can no longer be read"


def entry(session, index: int) -> dict:
    """The whole entry ``index`` as Pi would hold it in memory (migrations applied), its
    fields normalised (:mod:`pitui.core.read.normalize`: each of the type the format gives
    it, or left out; the skeleton's id, parentId, type and timestamp as the scan read
    them). Each problem is reported once, as a warning with the line number. When its
    line cannot be read back (the file is gone, or another file took its name), a
    stand-in with the skeleton's fields and ``pituiError`` saying why (not kept: the
    next call tries again)."""
    got = session._cache.get(index)
    if got is not None:
        return got
    try:
        data = session._read(session.offsets[index], session.lengths[index])
    except OSError as exc:
        return stand_in(session, index, _unreadable(exc))
    res = parse_line(data)
    obj = res.value
    if not isinstance(obj, dict):
        if not session.flags[index] & F_DAMAGED:
            session.flags[index] |= F_DAMAGED
            session.warnings.append(
                SessionWarning(session.linenos[index], f"line {session.linenos[index]} is damaged (not valid JSON): {res.error}",
                               unparsable(res))
            )
        obj = stand_in(session, index, f"line {session.linenos[index]} is damaged: {res.error}")
    else:
        migrate(session, index, obj)
        normalize(session, index, obj, res, data, may_be_deep(data))
    session._cache.put(index, obj, len(data) * 2 + 200)
    return obj


def normalize(session, index: int, obj: dict, res, data: bytes, deep: bool) -> None:
    """Normalise entry ``index`` (``obj``, parsed from ``data`` as ``res``) in place and
    report what was wrong with it, the first time only. ``deep``: values nested too
    deeply may be there (:func:`may_be_deep`), and are cut."""
    # the skeleton's fields, as the scan read them (and reported them)
    pid = obj.get("parentId")
    if pid is not None and type(pid) is not str:
        obj["parentId"] = session.parent_ids[index]
    ts = obj.get("timestamp")
    if ts is not None and type(ts) is not str:
        if session.timestamps[index] is None:
            del obj["timestamp"]
        else:
            obj["timestamp"] = session.timestamps[index]
    kind = obj.get("type")
    if kind is not None and type(kind) is not str:
        del obj["type"]
    problems = normalize_entry(obj, deep=False)
    cut = cut_deep(obj) if deep else ()
    flags = session.flags[index]
    if flags & F_CHECKED and (not cut or flags & F_CUT):
        return  # (reported the first time; the line is whole, so it reads the same)
    line = session.linenos[index]
    with _REPORT_LOCK:
        flags = session.flags[index]
        if cut and not flags & F_CUT:
            flags |= F_CUT
            session.warnings.extend(SessionWarning(line, f"line {line}: {problem}", "too-deep") for problem in cut)
        if flags & F_CHECKED:
            session.flags[index] = flags
            return
        if res.replaced and not flags & F_NON_UTF8:
            flags |= F_NON_UTF8
            session.warnings.append(SessionWarning(line, f"line {line} has bytes that are not UTF-8 (shown as \ufffd)",
                                                "not-utf8"))
        if (res.surrogates or res.huge) and not flags & F_REPAIRED:
            flags |= F_REPAIRED
            session.warnings.extend(repair_warnings(line, res))
        session.warnings.extend(SessionWarning(line, f"line {line}: {problem}", "field-type") for problem in problems)
        # (a line read from its head is now known to be whole: nothing left to validate)
        session.flags[index] = (flags | F_CHECKED) & ~F_LAZY


def stand_in(session, index: int, error: str) -> dict:
    return {
        "type": session.types[index],
        "id": session.ids[index],
        "parentId": session.parent_ids[index],
        "timestamp": session.timestamps[index],
        "pituiError": error,
    }


def migrate(session, index: int, obj: dict) -> None:
    if session.version < 2:
        obj["id"] = session.ids[index]
        obj["parentId"] = session.parent_ids[index]
        if obj.get("type") == "compaction" and "firstKeptEntryIndex" in obj:
            fki = obj.get("firstKeptEntryIndex")
            if isinstance(fki, int) and not isinstance(fki, bool):
                target = session._v1_first_kept.get(index)
                if target is not None:
                    obj["firstKeptEntryId"] = target
                del obj["firstKeptEntryIndex"]
    else:
        if not isinstance(obj.get("id"), str):
            obj["id"] = session.ids[index]
    if session.version < 3:
        msg = obj.get("message")
        if obj.get("type") == "message" and isinstance(msg, dict) and msg.get("role") == "hookMessage":
            msg["role"] = "custom"


def find_tool_call(session, index: int) -> tuple[int, dict] | None:
    """``(assistant entry, toolCall block)`` that produced tool result ``index``.

    Pi appends a tool result below the assistant message that called it (possibly
    after sibling results), so walking up the parents finds it in a few steps.
    """
    msg = session.message(index)
    tcid = msg.get("toolCallId") if msg else None
    if not isinstance(tcid, str):
        return None
    node = session.parent[index]
    steps = 0
    while node >= 0 and steps < 256:
        if session.types[node] == "message" and session.roles[node] == "assistant":
            content = (session.message(node) or {}).get("content")
            if isinstance(content, list):
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "toolCall" and block.get("id") == tcid:
                        return node, block
        node = session.parent[node]
        steps += 1
    return None


def call_anywhere(session, tcid: str) -> tuple[int, dict] | None:
    """``(assistant entry, toolCall block)`` of the call ``tcid`` anywhere in the file
    (the first in file order), or None when no entry calls it: for a result whose call
    :func:`find_tool_call` did not find above it. Reads only the entries whose line holds
    the id's JSON text (found by a byte search of the file); each answer is kept."""
    with session._lock:
        if tcid in session._calls_found:
            return session._calls_found[tcid]
    import mmap
    from bisect import bisect_right

    import orjson

    needle = orjson.dumps(tcid)
    found = None
    try:
        with open_regular(session.path) as handle:
            session._check_fd(handle.fileno())
            size = min(os.fstat(handle.fileno()).st_size, session.scanned_to)
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if size else None
    except (OSError, ValueError):
        return None  # (not kept: it may be readable next time)
    if mapped is not None:
        with mapped:
            at = mapped.find(needle, 0, size)
            while at >= 0 and found is None:
                index = bisect_right(session.offsets, at) - 1
                if index < 0 or at >= session.offsets[index] + session.lengths[index]:
                    at = mapped.find(needle, at + 1, size)
                    continue
                if (session.types[index] == "message" and session.roles[index] == "assistant" and index not in session.shadowed):
                    content = (session.message(index) or {}).get("content")
                    for block in content if isinstance(content, list) else ():
                        if isinstance(block, dict) and block.get("type") == "toolCall" and block.get("id") == tcid:
                            found = (index, block)
                            break
                at = mapped.find(needle, session.offsets[index] + session.lengths[index], size)
    with session._lock:
        session._calls_found[tcid] = found
    return found


def validate_lazy_lines(session, should_stop: Callable[[], bool] | None = None) -> list[int]:
    """Parse whole every line that was read from its head only, and mark the damaged
    ones; check the fields of every entry not checked yet (as :func:`entry` does), so
    that every problem of the file is a warning. Returns the entries found damaged."""
    damaged = []
    for index in range(len(session.ids)):
        if should_stop is not None and should_stop():
            break
        flags = session.flags[index]
        if flags & (F_CHECKED | F_DAMAGED):
            continue
        data = session._read(session.offsets[index], session.lengths[index])
        res = parse_line(data)
        if not isinstance(res.value, dict):  # (only a line read from its head can be)
            session.flags[index] |= F_DAMAGED
            if res.replaced and not flags & F_NON_UTF8:
                session.flags[index] |= F_NON_UTF8
                session.warnings.append(SessionWarning(
                    session.linenos[index], f"line {session.linenos[index]} has bytes that are not UTF-8 (shown as \ufffd)",
                    "not-utf8"))
            session.warnings.append(
                SessionWarning(session.linenos[index], f"line {session.linenos[index]} is damaged ({res.why})", unparsable(res))
            )
            damaged.append(index)
            continue
        migrate(session, index, res.value)
        # (the entry is not kept: a value nested too deeply is cut, and reported, when
        # the entry is read to be shown; walking every big line for it here cost more
        # than the rest of this check)
        normalize(session, index, res.value, res, data, False)
    return damaged
