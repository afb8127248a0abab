"""What the model saw: Pi's ``buildSessionContext`` at any entry, exactly.

Only the entries that reach the context are decoded: settings are found by walking the
path's skeleton backwards, and with a compaction on the path only the kept range is read.
"""

from __future__ import annotations

import math
from typing import Any

from ..read.session import Session
from ..timeutil import iso_to_ms

__all__ = ["build_context", "context_entry_indices", "js_ms"]

_MISSING = object()


def js_ms(value: Any) -> int | float | None:
    """``new Date(value).getTime()`` as JSON would carry it (``NaN`` becomes ``null``)."""
    ms = iso_to_ms(value)
    if math.isnan(ms):
        return None
    return int(ms) if ms.is_integer() else ms


def _put(mapping: dict, key: str, value: Any) -> None:
    """Set ``key`` unless the value is JavaScript's ``undefined`` (JSON drops those keys)."""
    if value is not _MISSING:
        mapping[key] = value


def entry_to_messages(entry: dict) -> list[dict]:
    """Pi's ``sessionEntryToContextMessages``."""
    etype = entry.get("type")
    if etype == "message":
        message = entry.get("message")
        if not isinstance(message, dict):
            return [message] if "message" in entry else []
        role = message.get("role")
        if role == "system" and message.get("content") is None:
            return [{**message, "content": ""}]
        if role in ("user", "assistant", "toolResult") and message.get("content") is None:
            return [{**message, "content": []}]
        return [message]
    if etype == "custom_message":
        content = entry.get("content")
        msg: dict = {"role": "custom"}
        _put(msg, "customType", entry.get("customType", _MISSING))
        msg["content"] = [] if content is None else content
        _put(msg, "display", entry.get("display", _MISSING))
        _put(msg, "details", entry.get("details", _MISSING))
        msg["timestamp"] = js_ms(entry.get("timestamp"))
        return [msg]
    if etype == "branch_summary" and entry.get("summary"):
        msg = {"role": "branchSummary", "summary": entry["summary"]}
        _put(msg, "fromId", entry.get("fromId", _MISSING))
        msg["timestamp"] = js_ms(entry.get("timestamp"))
        return [msg]
    if etype == "compaction":
        summary: dict = {"role": "compactionSummary"}
        _put(summary, "summary", entry.get("summary", _MISSING))
        _put(summary, "tokensBefore", entry.get("tokensBefore", _MISSING))
        summary["timestamp"] = js_ms(entry.get("timestamp"))
        system = entry.get("systemMessage")
        return [system, summary] if system else [summary]
    return []


def project_entry(entry: dict, edit: dict | None) -> list[dict]:
    """Pi's ``projectContextEntry``: apply the latest context edit for this entry."""
    messages = entry_to_messages(entry)
    if edit is None:
        return messages
    if "replacement" not in edit:
        # Pi would throw here; an edit without a replacement changes nothing.
        return messages
    replacement = edit.get("replacement")
    if replacement is None:
        return []
    new_content = replacement.get("content", _MISSING) if isinstance(replacement, dict) else _MISSING
    out = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") not in ("user", "assistant", "toolResult", "custom"):
            out.append(message)
            continue
        projected = dict(message)
        if message.get("role") in ("assistant", "toolResult") and isinstance(new_content, str):
            projected["content"] = [{"type": "text", "text": new_content}]
        elif new_content is _MISSING:
            projected.pop("content", None)
        else:
            projected["content"] = new_content
        out.append(projected)
    return out


def context_entry_indices(session: Session, leaf: int | None = None) -> tuple[list[int], list[int]]:
    """``(path, context entries)`` as entry indices: Pi's ``buildContextEntries``."""
    if leaf is None:
        leaf = session.leaf
    if leaf < 0:
        return [], []
    path = session.path_to(leaf)
    types = session.types
    comp_pos = -1
    for position in range(len(path) - 1, -1, -1):
        if types[path[position]] == "compaction":
            comp_pos = position
            break
    if comp_pos < 0:
        return path, path
    comp = path[comp_pos]
    first_kept = session.entry(comp).get("firstKeptEntryId")
    ids = session.ids
    roles = session.roles
    selected = [comp]
    found = False
    for position in range(comp_pos):
        index = path[position]
        if not found and ids[index] == first_kept:
            found = True
        if found and not (types[index] == "message" and roles[index] == "system"):
            selected.append(index)
    selected.extend(path[comp_pos + 1 :])
    return path, selected


def _settings(session: Session, path: list[int]) -> dict:
    out: dict = {"thinkingLevel": "off", "model": None}
    types, roles = session.types, session.roles
    thinking_done = model_done = False
    for position in range(len(path) - 1, -1, -1):
        index = path[position]
        kind = types[index]
        if not thinking_done and kind == "thinking_level_change":
            value = session.entry(index).get("thinkingLevel", _MISSING)
            if value is _MISSING:
                del out["thinkingLevel"]
            else:
                out["thinkingLevel"] = value
            thinking_done = True
        elif not model_done and (kind == "model_change" or (kind == "message" and roles[index] == "assistant")):
            entry = session.entry(index)
            model: dict = {}
            if kind == "model_change":
                _put(model, "provider", entry.get("provider", _MISSING))
                _put(model, "modelId", entry.get("modelId", _MISSING))
            else:
                msg = entry.get("message") or {}
                _put(model, "provider", msg.get("provider", _MISSING))
                _put(model, "modelId", msg.get("model", _MISSING))
            out["model"] = model
            model_done = True
        if thinking_done and model_done:
            break
    return out


def build_context(session: Session, leaf: int | None = None) -> dict:
    """``{messages, thinkingLevel, model}`` exactly as Pi's ``buildSessionContext``."""
    path, selected = context_entry_indices(session, leaf)
    result: dict = {"messages": []}
    settings = _settings(session, path)
    edits: dict[str, dict] = {}
    for index in selected:
        if session.types[index] == "context_edit":
            entry = session.entry(index)
            target = entry.get("targetId")
            edits[target if isinstance(target, str) else str(target)] = entry
    messages = result["messages"]
    for position, index in enumerate(selected):
        if position > 0 and session.types[index] == "compaction":
            continue
        messages.extend(project_entry(session.entry(index), edits.get(session.ids[index])))
    if "thinkingLevel" in settings:
        result["thinkingLevel"] = settings["thinkingLevel"]
    result["model"] = settings["model"]
    return result
