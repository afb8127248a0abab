"""Entries as the rest of pitui sees them: every field of the type the format gives it.

A session file is untrusted: any field may hold any JSON value. This module is the one
place where a parsed line becomes the entry that summaries, renderers, stats, context and
exports read (:meth:`Session.entry <pitui.core.session.Session.entry>` calls it, once per
entry decoded), so they can trust the types of the fields Pi's session format names
(``docs/session-format.md`` and ``docs/message-types.md`` of Pi 1.5.2):

* A field of the wrong type is left out, as if it were absent (the line's own bytes, shown
  by ``e`` and kept by :meth:`Session.raw_line`, still hold it), except:

  - ids (``id``, ``parentId``, ``targetId``, ``firstKeptEntryId``, ``fromId``,
    ``toolCallId``, a tool call's ``id``) that are numbers or true/false read as their JSON
    text (``5`` as ``"5"``: Pi matches ids by value, so a number id still finds its
    children); ids that are objects or lists match nothing in Pi and are left out;
  - an entry ``timestamp`` that is a number of milliseconds reads as the ISO string of that
    time (JavaScript's ``new Date`` takes either);
  - a ``label`` that is not a string but would set a label in Pi (a non-empty value) reads
    as its JSON text.

* ``null`` is accepted wherever a field may be absent, and left as it is.
* A content list keeps only its blocks that are objects.
* Values nested more than :data:`MAX_DEPTH` levels deep (counting from the entry) are cut
  there: no encoder or renderer downstream recurses without bound.

Each problem is reported once, as one line of text (the caller adds the line number).
Fields the format does not name are left alone. The normalising changes the parsed value
in place and never adds a field that was absent (Pi's ``buildSessionContext`` output, which
:mod:`pitui.core.context` reproduces, depends on which keys are present).
"""

from __future__ import annotations

from typing import Any, Callable

import orjson

from ..timeutil import MAX_DATE_MS, ms_to_iso

__all__ = [
    "MAX_DEPTH",
    "kind_of",
    "norm_id",
    "norm_timestamp",
    "norm_label",
    "normalize_entry",
    "normalize_header",
    "cut_deep",
    "may_be_deep",
    "json_text",
]

#: Containers nested deeper than this (the entry itself is level 1) are cut.
MAX_DEPTH = 128
CUT_TEXT = f"(nested more than {MAX_DEPTH} levels deep: not shown)"

_KINDS = {str: "a string", bool: "true/false", int: "a number", float: "a number", dict: "an object",
          list: "a list", type(None): "null"}


def kind_of(value: Any) -> str:
    """``"a number"``, ``"an object"`` … for a warning."""
    return _KINDS.get(type(value), type(value).__name__)


def json_text(value: Any) -> str:
    """``value`` as compact JSON text, for showing a value that is not a string. Never
    raises: a value too deep for the encoder is shown as :data:`CUT_TEXT`."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except (TypeError, ValueError, RecursionError):  # (orjson's JSONEncodeError is a TypeError)
        return CUT_TEXT


def norm_id(value: Any) -> str | None:
    """An id as pitui keeps it: a string as it is; a number or true/false as its JSON text
    (Pi matches ids by value); anything else (null, objects, lists) None."""
    value_type = type(value)
    if value_type is str:
        return value
    if value_type is int or value_type is float or value_type is bool:
        return orjson.dumps(value).decode()
    return None


def norm_timestamp(value: Any) -> tuple[str | None, str | None]:
    """``(timestamp, problem)`` for an entry's ISO ``timestamp``: a string as it is, a
    number of milliseconds as its ISO string (None when JavaScript's Date would be
    invalid), anything else None. ``problem`` says what was done, or is None."""
    value_type = type(value)
    if value_type is str or value is None:
        return value, None
    if value_type is int or value_type is float:
        iso = ms_to_iso(value) if abs(value) <= MAX_DATE_MS else None
        if iso is None:
            return None, "timestamp is a number out of a date's range, not a string; ignored"
        return iso, f"timestamp is a number, not a string; read as {iso}"
    return None, f"timestamp is {kind_of(value)}, not a string; ignored"


def norm_label(value: Any) -> tuple[str | None, str | None]:
    """``(label, problem)`` for a label entry's ``label``: a string as it is (empty: the
    label is cleared), None (cleared); any other value that is true in JavaScript sets a
    label in Pi and reads as its JSON text; 0 and false clear it."""
    if value is None or type(value) is str:
        return value, None
    if not value:
        return None, f"label is {kind_of(value)}, not a string; the label is cleared"
    text = json_text(value)
    return text, f"label is {kind_of(value)}, not a string; read as {_short(text)}"


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ----------------------------------------------------------------------------- checks
# A check takes (problems, value, path) for a value that is neither None nor of a type in
# its ``ok`` (those pass without a call), and returns the value to keep (possibly changed)
# or _DROP, reporting what it did to ``problems``. A path is a linked tuple
# ``(parent path, key)`` (None at the entry), made into text only for a problem.

_DROP = object()
Check = Callable[[list, Any, Any], Any]


def _path_text(path: Any) -> str:
    """``message.content[2].text``; a path of more than 12 keys ends with ``…``."""
    keys = []
    while path is not None:
        path, key = path
        keys.append(key)
    keys.reverse()
    out = ""
    for key in keys[:12]:
        out += f"[{key}]" if isinstance(key, int) else (f".{_short(key, 40)}" if out else _short(key, 40))
    return out + ("…" if len(keys) > 12 else "")


def _bad(problems: list, path: Any, value: Any, want: str, outcome: str = "ignored") -> None:
    problems.append(f"{_path_text(path)} is {kind_of(value)}, not {want}; {outcome}")


def _check(*ok: type):
    """A check of a field whose value must be of one of the types ``ok`` (or it is left
    out)."""
    want = {str: "a string", dict: "an object", list: "a list", bool: "true/false", int: "a number"}[ok[0]]

    def check(problems, value, path):
        _bad(problems, path, value, want)
        return _DROP

    check.ok = ok
    return check


_str = _check(str)
_num = _check(int, float)
_bool = _check(bool)
_obj = _check(dict)
_list = _check(list)


def _id(problems, value, path):
    got = norm_id(value)
    if got is None:
        _bad(problems, path, value, "a string (an id)")
        return _DROP
    _bad(problems, path, value, "a string", f"read as {got}")
    return got


_id.ok = (str,)


def _compile(spec: dict[str, Check]) -> tuple:
    return tuple((key, getattr(check, "ok", ()), check) for key, check in spec.items())


def _fields(problems: list, obj: dict, spec: tuple, path: Any) -> None:
    get = obj.get
    for key, ok, check in spec:
        value = get(key)
        if value is None or type(value) in ok:
            continue
        got = check(problems, value, (path, key))
        if got is _DROP:
            del obj[key]
        elif got is not value:
            obj[key] = got


_COST = _compile({"input": _num, "output": _num, "cacheRead": _num, "cacheWrite": _num, "total": _num})


def _cost(problems, value, path):
    if type(value) is not dict:
        _bad(problems, path, value, "an object")
        return _DROP
    _fields(problems, value, _COST, path)
    return value


_cost.ok = (int, float)  # (some tools write the total alone)
_USAGE = _compile({"input": _num, "output": _num, "cacheRead": _num, "cacheWrite": _num, "cacheWrite1h": _num,
                   "reasoning": _num, "totalTokens": _num, "cost": _cost})


def _usage(problems, value, path):
    if type(value) is not dict:
        _bad(problems, path, value, "an object")
        return _DROP
    _fields(problems, value, _USAGE, path)
    return value


_BLOCKS: dict[str, tuple] = {
    "text": _compile({"text": _str}),
    "thinking": _compile({"thinking": _str, "redacted": _bool}),
    "toolCall": _compile({"id": _id, "name": _str, "arguments": _obj}),
    "image": _compile({"data": _str, "mimeType": _str}),
}


def _content(problems, value, path):
    """Text, or a list of content blocks (objects; the known ones' fields checked)."""
    if type(value) is not list:
        _bad(problems, path, value, "text or a list of blocks")
        return _DROP
    dropped = False
    blocks = _BLOCKS.get
    for index, block in enumerate(value):
        if type(block) is not dict:
            _bad(problems, (path, index), block, "an object (a content block)")
            dropped = True
            continue
        bt = block.get("type")
        if bt is None:
            continue
        if type(bt) is not str:
            _bad(problems, ((path, index), "type"), bt, "a string")
            del block["type"]
            continue
        spec = blocks(bt)
        if spec is not None:
            _fields(problems, block, spec, (path, index))
    if dropped:
        value[:] = [block for block in value if type(block) is dict]
    return value


_content.ok = (str,)


def _sections(problems, value, path):
    """A system message's prompt sections: name -> text (null removes one)."""
    if type(value) is not dict:
        _bad(problems, path, value, "an object")
        return _DROP
    for name in [key for key, section in value.items() if section is not None and type(section) is not str]:
        _bad(problems, (path, name), value[name], "a string")
        del value[name]
    return value


_ROLES: dict[str, tuple] = {role: _compile(spec) for role, spec in {
    "system": {"content": _content, "sections": _sections, "toolsAdded": _list, "toolsRemoved": _list},
    "user": {"content": _content},
    "assistant": {"content": _content, "api": _str, "provider": _str, "model": _str, "responseModel": _str,
                  "usage": _usage, "stopReason": _str, "errorMessage": _str, "thinkingLevel": _str},
    "toolResult": {"toolCallId": _id, "toolName": _str, "content": _content, "details": _obj, "usage": _usage,
                   "isError": _bool},
    "bashExecution": {"command": _str, "output": _str, "exitCode": _num, "cancelled": _bool, "truncated": _bool,
                      "fullOutputPath": _str, "excludeFromContext": _bool},
    "custom": {"customType": _str, "content": _content, "display": _bool},
    "hookMessage": {"customType": _str, "content": _content, "display": _bool},
    "branchSummary": {"summary": _str, "fromId": _id},
    "compactionSummary": {"summary": _str, "tokensBefore": _num},
}.items()}
_MESSAGE_BASE = _compile({"timestamp": _num})
_OTHER_ROLE = _compile({"content": _content})


def _message(problems, value, path):
    if type(value) is not dict:
        _bad(problems, path, value, "an object")
        return _DROP
    role = value.get("role")
    if role is not None and type(role) is not str:
        _bad(problems, (path, "role"), role, "a string")
        del value["role"]
        role = None
    _fields(problems, value, _MESSAGE_BASE, path)
    # (a role Pi does not know, or none: its content is still text or blocks)
    _fields(problems, value, _ROLES.get(role, _OTHER_ROLE), path)
    return value


_REPLACEMENT = _compile({"content": _content})


def _replacement(problems, value, path):
    if type(value) is not dict:
        _bad(problems, path, value, "an object or null")
        return _DROP
    _fields(problems, value, _REPLACEMENT, path)
    return value


def _label(problems, value, path):
    got, problem = norm_label(value)
    if problem is not None:
        problems.append(problem)
    return _DROP if got is None else got


_label.ok = (str,)

_ENTRIES: dict[str, tuple] = {etype: _compile(spec) for etype, spec in {
    "message": {"message": _message},
    "model_change": {"provider": _str, "modelId": _str},
    "thinking_level_change": {"thinkingLevel": _str},
    "usage": {"kind": _str, "provider": _str, "model": _str, "usage": _usage},
    "compaction": {"summary": _str, "firstKeptEntryId": _id, "tokensBefore": _num, "systemMessage": _message,
                   "usage": _usage, "details": _obj, "fromHook": _bool, "firstKeptEntryIndex": _num},
    "context_edit": {"targetId": _id, "replacement": _replacement},
    "branch_summary": {"fromId": _id, "summary": _str, "usage": _usage, "details": _obj, "fromHook": _bool},
    "custom": {"customType": _str},
    "custom_message": {"customType": _str, "content": _content, "display": _bool},
    "label": {"targetId": _id, "label": _label},
    "session_info": {"name": _str},
}.items()}
# Any other entry (a type Pi does not name, or none) may still carry a message, which
# whoever shows the entry takes as one.
_OTHER = _compile({"message": _message})
_ENTRIES = {etype: spec if etype == "message" else spec + _OTHER for etype, spec in _ENTRIES.items()}


def normalize_entry(obj: dict, *, deep: bool = True) -> list[str]:
    """Normalise the fields of entry ``obj`` beyond its skeleton (id, parentId, type and
    timestamp, which :class:`~pitui.core.session.Session` reads while scanning) in place;
    returns one line per problem found. ``deep=False``: the caller knows the entry cannot
    be nested more than :data:`MAX_DEPTH` levels (see :func:`may_be_deep`)."""
    problems: list[str] = []
    etype = obj.get("type")
    spec = _ENTRIES.get(etype, _OTHER) if type(etype) is str else _OTHER
    _fields(problems, obj, spec, None)
    if deep:
        _cut_deep(problems, obj)
    return problems


_HEADER = _compile({"cwd": _str, "parentSession": _str, "branchedFrom": _str, "version": _num})


def normalize_header(obj: dict, *, deep: bool = True) -> list[str]:
    """:func:`normalize_entry` for the session header (its ``id`` is checked by whoever
    reads it: a header without a string id is not a session). The ``timestamp`` is read
    as an entry's is."""
    problems: list[str] = []
    _fields(problems, obj, _HEADER, None)
    if "timestamp" in obj:
        ts, problem = norm_timestamp(obj["timestamp"])
        if problem is not None:
            problems.append(problem)
            if ts is None:
                del obj["timestamp"]
            else:
                obj["timestamp"] = ts
    if deep:
        _cut_deep(problems, obj)
    return problems


def may_be_deep(data: bytes) -> bool:
    """Whether the JSON text ``data`` could hold a value nested more than
    :data:`MAX_DEPTH` levels deep (a count of its brackets: quick, and never wrong the
    other way)."""
    return len(data) >= 2 * MAX_DEPTH and data.count(b"[") + data.count(b"{") > MAX_DEPTH


def cut_deep(obj: dict) -> list[str]:
    """Replace each container in ``obj`` nested deeper than :data:`MAX_DEPTH` by
    :data:`CUT_TEXT` (iteratively); returns one problem for the first one cut, if any."""
    problems: list[str] = []
    _cut_deep(problems, obj)
    return problems


def _cut_deep(problems: list, obj: dict) -> None:
    stack: list[tuple[Any, int, Any]] = [(obj, 1, None)]
    reported = False
    while stack:
        node, depth, path = stack.pop()
        items = node.items() if type(node) is dict else enumerate(node)
        cut = []
        for key, value in items:
            tv = type(value)
            if tv is dict or tv is list:
                if depth >= MAX_DEPTH:
                    cut.append(key)
                else:
                    stack.append((value, depth + 1, (path, key)))
        for key in cut:
            node[key] = CUT_TEXT
            if not reported:
                reported = True
                problems.append(f"{_path_text((path, key))} is nested more than {MAX_DEPTH} levels deep; cut there")
