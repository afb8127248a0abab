"""Every likely secret in one session file, with where it sits.

The file is read in blocks of whole lines and :func:`~.patterns.prefilter` runs over each
block's raw bytes at once (RE2, linear); only the lines it matches are parsed, and every
string in them (object keys too) is matched by :func:`~.patterns.find_in_text`, told where it
sits by the entry's shape: the header, user text, assistant text, thinking, tool arguments,
tool output, a subagent's result or its messages (``details.results[]`` of a subagent call),
a custom entry, a compaction or branch summary. Strings that only look random are not
read: ids and parent ids, ``toolCallId``, signatures (``thinkingSignature`` and the like),
and image data. A value under a key that names a secret (``"apiKey": "…"``) is read as an
assignment (:func:`~.patterns.assigned_value`).

Linear in the file's size; the walk of a parsed line is a loop over a stack, never a
recursion on its depth.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, NamedTuple

from ..model.doctor import Stopped, Unreadable
from ..read.lines import iter_line_blocks, open_regular, parse_line
from .patterns import Found, assigned_value, find_in_text, is_secret_name, is_value, prefilter

__all__ = ["Secret", "SecretReport", "scan_file", "scan_bytes", "WHERE", "preview"]

#: Where a secret may sit, the words ``pitui check --secrets`` says it in.
WHERE = ("header", "user text", "assistant text", "thinking", "tool arguments", "tool output", "subagent result",
         "subagent messages", "custom entry", "compaction summary", "branch summary", "entry", "damaged line")

#: keys whose strings only look random (ids, signatures) and are never read
_SKIPPED_KEYS = frozenset({"id", "parentId", "toolCallId", "thinkingSignature", "textSignature", "signature",
                           "responseId", "encrypted_content", "timestamp", "targetId", "firstKeptEntryId",
                           "fromId"})


def preview(value: str) -> str:
    """``value`` masked: at most its first 4 characters (fewer for a short value: never
    more than a quarter of it), then ``…``."""
    return value[:min(4, len(value) // 4)] + "…"


class Secret(NamedTuple):
    """One likely secret: its line in the file, the entry's id (None for a line that is
    no entry), where in the entry it sits (a word of :data:`WHERE`), its kind (a key of
    :data:`~.patterns.KINDS`) and the value itself (never shown: :attr:`preview` is)."""

    line: int
    entry_id: str | None
    where: str
    kind: str
    value: str

    @property
    def preview(self) -> str:
        return preview(self.value)

    def to_json(self) -> dict:
        return {"line": self.line, "id": self.entry_id, "where": self.where, "kind": self.kind,
                "preview": self.preview}

    def text(self) -> str:
        """``kind in where: ghp_…``, as ``pitui check --secrets`` and ``w`` say it."""
        return f"{self.kind} in {self.where}: {self.preview}"


@dataclass(slots=True)
class SecretReport:
    """The secrets of one file, in line order."""

    path: str
    secrets: list[Secret] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"path": self.path, "secrets": [secret.to_json() for secret in self.secrets]}


def _where_in_entry(obj: dict) -> Iterator[tuple[str, Any]]:
    """``(where, value)`` for each part of an entry (a session line or a stream record)
    that holds text, said where it sits; the parts below each value are walked by
    :func:`_strings`."""
    entry_type = obj.get("type")
    if entry_type == "session":
        yield "header", obj
        return
    if entry_type == "compaction":
        yield "compaction summary", obj
        return
    if entry_type == "branch_summary":
        yield "branch summary", obj
        return
    if entry_type in ("custom", "custom_message"):
        yield "custom entry", obj
        return
    msg = obj.get("message")
    if not isinstance(msg, dict):
        yield "entry", obj
        return
    role = msg.get("role")
    if role == "user":
        yield "user text", msg
    elif role == "assistant":
        content = msg.get("content")
        rest = {key: value for key, value in msg.items() if key != "content"}
        yield "assistant text", rest
        for block in content if isinstance(content, list) else [content]:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "thinking":
                yield "thinking", block
            elif kind == "toolCall":
                yield "tool arguments", block
            else:
                yield "assistant text", block
    elif role == "toolResult":
        subagent = msg.get("toolName") == "subagent"
        details = msg.get("details")
        rest = {key: value for key, value in msg.items() if key != "details"}
        yield ("subagent result" if subagent else "tool output"), rest
        if isinstance(details, dict) and isinstance(details.get("results"), list):
            yield "tool output", {key: value for key, value in details.items() if key != "results"}
            for run in details["results"]:
                if isinstance(run, dict):
                    yield "subagent result", {key: value for key, value in run.items() if key != "messages"}
                    yield "subagent messages", run.get("messages")
                else:
                    yield "subagent result", run
        else:
            yield "tool output", details
    elif role == "bashExecution":
        yield "tool arguments", {key: value for key, value in msg.items() if key != "output"}
        yield "tool output", msg.get("output")
    elif role == "custom":
        yield "custom entry", msg
    elif role == "branchSummary":
        yield "branch summary", msg
    elif role == "compactionSummary":
        yield "compaction summary", msg
    else:
        yield "entry", msg
    yield "entry", {key: value for key, value in obj.items() if key != "message"}


def _strings(value: Any) -> Iterator[tuple[str | None, str]]:
    """``(the key it is under, the string)`` for every string in ``value`` and every key of
    its objects (keys with None), skipping the keys of :data:`_SKIPPED_KEYS` and image data;
    a loop over a stack, whatever the depth."""
    stack: list[tuple[str | None, Any]] = [(None, value)]
    while stack:
        key, item = stack.pop()
        if isinstance(item, str):
            yield key, item
        elif isinstance(item, dict):
            image = item.get("type") == "image" or "mimeType" in item
            for child_key, child in item.items():
                if child_key in _SKIPPED_KEYS or (image and child_key == "data"):
                    continue
                if isinstance(child_key, str):
                    yield None, child_key
                stack.append((child_key, child))
        elif isinstance(item, list):
            stack.extend((key, child) for child in reversed(item))


def secrets_in_object(obj: Any) -> Iterator[tuple[str, Found]]:
    """``(where, found)`` for every likely secret in one parsed line."""
    parts = _where_in_entry(obj) if isinstance(obj, dict) else iter([("entry", obj)])
    for where, value in parts:
        for key, text in _strings(value):
            got = find_in_text(text)
            if got:
                for secret in got:
                    yield where, secret
            elif key is not None and 16 <= len(text) <= 1000 and is_secret_name(key) and is_value(text):
                kind = assigned_value(key, text)
                if kind is not None:
                    yield where, Found(kind, text)


def _line_secrets(data: bytes, lineno: int) -> list[Secret]:
    res = parse_line(data)
    obj = res.value
    if obj is None:  # (not JSON: its text is read as it is)
        found = [("damaged line", secret) for secret in find_in_text(data.decode("utf-8", "replace"))]
        entry_id = None
    else:
        found = list(secrets_in_object(obj))
        eid = obj.get("id") if isinstance(obj, dict) else None
        entry_id = eid if isinstance(eid, str) and obj.get("type") != "session" else None
    out: list[Secret] = []
    seen: set[tuple[str, str, str]] = set()
    for where, secret in found:
        key = (where, secret.kind, secret.value)
        if key not in seen:
            seen.add(key)
            out.append(Secret(lineno, entry_id, where, secret.kind, secret.value))
    return out


def _scan(handle, should_stop: Callable[[], bool] | None, progress: Callable[[int], None] | None) -> list[Secret]:
    """The secrets of the open file ``handle`` (a file object, or its bytes): the prefilter runs
    over each block of lines; each line it matches in is read whole, once."""
    search = prefilter().search
    out: list[Secret] = []
    lineno = 1  # (the number of the line at ``counted``)
    for buf, pos, limit, base, _whole in iter_line_blocks(handle):
        at = counted = pos
        while at < limit:
            match = search(buf, at, limit)
            if match is None:
                break
            hit = match.start()
            start = max(at, buf.rfind(b"\n", at, hit) + 1)
            lineno += buf.count(b"\n", counted, start)
            counted = start
            nl = buf.find(b"\n", hit, limit)
            end = nl if nl >= 0 else limit
            stop = end - 1 if end > start and buf[end - 1] == 13 else end
            out += _line_secrets(bytes(buf[start:stop]), lineno)
            at = end + 1
        lineno += buf.count(b"\n", counted, limit)
        if progress is not None:
            progress(base + limit)
        if should_stop is not None and should_stop():
            raise Stopped("")
    return out


def scan_file(path: str | os.PathLike, should_stop: Callable[[], bool] | None = None,
              progress: Callable[[int], None] | None = None) -> SecretReport:
    """Every likely secret in the file at ``path``, in line order. Raises
    :class:`~pitui.core.model.doctor.Unreadable` when it cannot be read, and
    :class:`~pitui.core.model.doctor.Stopped` when ``should_stop`` says so (asked after every
    block of lines read). ``progress`` is told the bytes read so far."""
    path = os.fspath(path)
    try:
        with open_regular(path) as handle:
            secrets = _scan(handle, should_stop, progress)
    except Stopped:
        raise Stopped(path) from None
    except OSError as exc:
        raise Unreadable(path, _reason(exc)) from None
    return SecretReport(path, secrets)


def scan_bytes(data: bytes, path: str = "") -> SecretReport:
    """:func:`scan_file` of a file's bytes, read already."""
    return SecretReport(path, _scan(data, None, None))


def _reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, IsADirectoryError):
        return "is a directory, not a session file"
    if isinstance(exc, PermissionError):
        return "permission denied"
    return str(exc.strerror or exc)
