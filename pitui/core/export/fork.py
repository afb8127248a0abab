"""``pitui export --format session``: a Pi session file holding one branch, the one from
the root to a chosen entry: what Pi's own ``SessionManager.createBranchedSession(leafId)``
writes for that entry (Pi's ``/fork`` makes its files with it), for any entry, not only a
user message. ``pi --fork FILE`` then stores it as a session of Pi's own.

As Pi writes it: a new header (a new uuidv7 id, the time now, the same ``cwd``,
``parentSession`` naming the original file, version 3); the branch's entries in order, each
as the file holds it with only ``parentId`` changed, label entries taken off the branch (an
entry that hung from one hangs from the entry before it, and a compaction whose
``firstKeptEntryId`` named one names the entry that took its place); then one label entry
for each label an entry of the branch carries, in the order Pi's label map holds them, each
with the time it was set and a new id. Tested against Pi's own code on every version-3 file
of the corpus (tests/core/test_fork_export.py).
"""

from __future__ import annotations

import json
import math
import os
import secrets
import time
from typing import Any

import orjson

from ..read.session import Session
from ..read.skeleton import F_DAMAGED
from ..timeutil import ms_to_iso

__all__ = ["export_session", "fork_file_name", "uuid7"]

#: the session format version Pi writes
_VERSION = 3


def uuid7(now_ms: int | None = None) -> str:
    """A version-7 UUID (time-ordered, as Pi's session ids are)."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | secrets.randbits(12) << 64 | 0b10 << 62 | secrets.randbits(62)
    text = f"{value:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def fork_file_name(session_id: str, timestamp: str) -> str:
    """The file name Pi gives a session: ``<timestamp with : and . as ->_<id>.jsonl``."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


def _js_number(text: str) -> Any:
    """A JSON number as JavaScript's ``JSON.parse`` reads it (past a double's range:
    Infinity, which ``JSON.stringify`` writes as null)."""
    value = float(text)
    if math.isinf(value):
        return None
    if "." not in text and "e" not in text.lower():
        return int(text)
    return value


def _entry(raw: bytes) -> dict | None:
    """An entry's object from its line (None when it is not one). orjson first; a line it
    refuses that ``JSON.parse`` takes (a lone surrogate escape, a number past a double's
    range) is read as JavaScript would read it."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            value = json.loads(raw.decode("utf-8", "surrogatepass"), parse_int=_js_number, parse_float=_js_number,
                               parse_constant=lambda _: None)
        except (ValueError, RecursionError):
            return None
    return value if isinstance(value, dict) else None


def _line(value: dict) -> bytes:
    """One line as ``JSON.stringify`` writes it: compact, keys in their order."""
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):  # (a lone surrogate, a huge integer)
        return json.dumps(value, separators=(",", ":"), ensure_ascii=True).encode()


def _truthy(value: Any) -> bool:
    """JavaScript's truth (Pi's label map keeps a label only when it is truthy): false for
    null, false, 0, NaN and the empty string, true for anything else ([] and {} too)."""
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, (int, float)):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def _label_map(session: Session) -> dict[str, tuple[Any, Any]]:
    """Pi's label map after every label entry, in Pi's order: ``targetId -> (label, time
    set)``. (A dict keeps a key's place when set again, and moves it to the end when deleted
    then set, as a JavaScript Map does.)"""
    labels: dict[str, tuple[Any, Any]] = {}
    lines = [index for index in range(len(session)) if session.types[index] == "label" and not session.flags[index] & F_DAMAGED]
    for index, raw in session.raw_lines(lines):
        entry = _entry(raw)
        if entry is None or index in session.shadowed:
            continue
        target = entry.get("targetId")
        if not isinstance(target, str):
            continue
        if _truthy(entry.get("label")):
            labels[target] = (entry.get("label"), entry.get("timestamp"))
        else:
            labels.pop(target, None)
    return labels


def export_session(session: Session, leaf: int, *, now_ms: int | None = None) -> tuple[str, bytes]:
    """``(file name, the file's bytes)`` of the session Pi's ``createBranchedSession`` makes
    of the branch from the root to entry ``leaf``."""
    ms = int(time.time() * 1000) if now_ms is None else now_ms
    new_id = uuid7(ms)
    stamp = ms_to_iso(ms)
    header: dict[str, Any] = {"type": "session", "version": _VERSION, "id": new_id, "timestamp": stamp,
                              "cwd": session.cwd}
    header["parentSession"] = os.path.abspath(session.path)
    out = [_line(header)]
    path = session.path_to(leaf)
    kept: list[dict] = []
    replaced: dict[str, str] = {}  # a label entry's id -> the entry that took its place
    pending: list[str] = []
    parent: str | None = None
    for index, raw in session.raw_lines(path):
        branch_entry = _entry(raw)
        if branch_entry is None:
            continue
        if branch_entry.get("type") == "label":
            pending.append(session.ids[index])
            continue
        for label_id in pending:
            replaced[label_id] = session.ids[index]
        pending.clear()
        branch_entry["parentId"] = parent
        if branch_entry.get("type") == "compaction" and branch_entry.get("firstKeptEntryId") != branch_entry.get("id"):
            first = branch_entry.get("firstKeptEntryId")
            if isinstance(first, str) and first in replaced:
                branch_entry["firstKeptEntryId"] = replaced[first]
        kept.append(branch_entry)
        parent = branch_entry.get("id") if isinstance(branch_entry.get("id"), str) else session.ids[index]
    out += [_line(entry) for entry in kept]
    on_branch = {entry.get("id") for entry in kept}
    taken = set(on_branch)
    for target, (label, when) in _label_map(session).items():
        if target not in on_branch:
            continue
        label_id = secrets.token_hex(4)
        while label_id in taken:
            label_id = secrets.token_hex(4)
        taken.add(label_id)
        entry = {"type": "label", "id": label_id, "parentId": parent, "timestamp": when, "targetId": target,
                 "label": label}
        if when is None:
            del entry["timestamp"]
        out.append(_line(entry))
        parent = label_id
    return fork_file_name(new_id, stamp), b"".join(line + b"\n" for line in out)
