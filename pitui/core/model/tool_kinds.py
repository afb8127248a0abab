"""Tool kinds, and the few keys of a tool call or result read from its raw line.

A tool's canonical kind (what it does, named the same across agents) and the peeks that
find a call's or a result's ids, tool name and state in the bytes Pi wrote without parsing
the line: the tree's filters, the stats and the search use them on every line. Kept apart
from :mod:`.parts` (what a message shows) because the worker that reads a big session
imports this before it starts, and :mod:`.parts` brings in the text and drawing helpers
the reading does not need.
"""

from __future__ import annotations

import re

import orjson

from ..numbers import as_number

__all__ = ["FILE_READ", "FILE_WRITE", "FILE_EDIT", "FILE_SEARCH", "SHELL_EXEC", "FILE_KINDS", "TOOL_KINDS",
           "tool_name", "tool_kind", "RESULT_HEAD", "raw_tool_calls", "raw_result_head", "raw_result_end"]

#: Canonical tool kinds: what a tool does, named the same across agents.
FILE_READ = "file_read"
FILE_WRITE = "file_write"
FILE_EDIT = "file_edit"
FILE_SEARCH = "file_search"
SHELL_EXEC = "shell_exec"
#: the kinds that touch files (a shell command may too, but its files are not known)
FILE_KINDS = frozenset({FILE_READ, FILE_WRITE, FILE_EDIT, FILE_SEARCH})
#: Pi's tools and their kinds; any other tool (``subagent``, an extension's) is a kind of its own
TOOL_KINDS = {"read": FILE_READ, "ls": FILE_READ, "write": FILE_WRITE, "edit": FILE_EDIT,
              "bash": SHELL_EXEC, "grep": FILE_SEARCH, "find": FILE_SEARCH}


def tool_name(call: dict | None, result: dict | None) -> str:
    """The tool's name from its call, else from its result."""
    return str((call or {}).get("name") or (result or {}).get("toolName") or "tool")


def tool_kind(name: str) -> str:
    """The canonical kind of the tool ``name``: ``bash`` is ``shell_exec``, ``ls`` is
    ``file_read`` ...; a tool Pi does not ship is its own kind, named as the tool."""
    return TOOL_KINDS.get(name, name)


# Pi writes a tool call as {"type":"toolCall","id":…,"name":…,…} and a result's message as
# {"role":"toolResult","toolCallId":…,"toolName":…,"content":…,"details":…,"isError":…,
# "timestamp":…}. These keys can be read in the raw line without parsing it: inside a JSON
# string a quote is always escaped, so these bytes are never part of a string's text. A
# line written otherwise gives None, and is parsed whole by the caller.
_STR = rb'"((?:[^"\\]|\\.)*)"'
_CALL_MARK = b'"type":"toolCall"'
_CALL_RE = re.compile(_CALL_MARK + rb',"id":' + _STR + rb',"name":' + _STR)
_RESULT_MARK = b'"role":"toolResult"'
_RESULT_RE = re.compile(_RESULT_MARK + rb',"toolCallId":' + _STR + rb',"toolName":' + _STR)
_RESULT_TAIL_RE = re.compile(rb'"isError":(true|false)(?:,"durationMs":(-?[0-9.eE+-]+))?,"timestamp":[^,{}"]*\}\}\s*$')
_TAIL = 256
#: a result's id and tool name are in the first bytes of its line (its output comes after)
RESULT_HEAD = 1024


def _str(raw: bytes) -> str:
    return orjson.loads(b'"' + raw + b'"') if b"\\" in raw else raw.decode("utf-8", "replace")


def raw_tool_calls(data: bytes) -> list[tuple[str, str]] | None:
    """``(id, name)`` of each tool call in an assistant message's raw line, or None when
    its calls are not written as Pi writes them. (Each call is found by a byte search, then
    matched there: far quicker than a regex searching the whole line.)"""
    out = []
    offset = data.find(_CALL_MARK)
    while offset >= 0:
        match = _CALL_RE.match(data, offset)
        if match is None:
            return None
        out.append((_str(match.group(1)), _str(match.group(2))))
        offset = data.find(_CALL_MARK, match.end())
    return out


def raw_result_head(data: bytes) -> tuple[str, str] | None:
    """A tool result's ``(toolCallId, toolName)`` from the head of its raw line, or None."""
    offset = data.find(_RESULT_MARK)
    match = _RESULT_RE.match(data, offset) if offset >= 0 else None
    return (_str(match.group(1)), _str(match.group(2))) if match is not None else None


def raw_result_end(data: bytes) -> tuple[bool, float | None] | None:
    """A tool result's ``(isError, durationMs)`` from the end of its raw line, or None
    when they are not where Pi writes them (or ``durationMs`` is elsewhere in the line)."""
    match = _RESULT_TAIL_RE.search(data, max(0, len(data) - _TAIL))
    if match is None:
        return None
    if match.group(2) is None:
        return (match.group(1) == b"true", None) if b'"durationMs"' not in data else None
    try:
        value = as_number(orjson.loads(match.group(2)))
    except orjson.JSONDecodeError:
        return None
    return match.group(1) == b"true", value
