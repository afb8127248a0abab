"""The files a branch touched: each path its calls read, wrote, edited or searched.

From the calls' own arguments (``path``, or ``file_path`` as some agents write it), the
way Pi's tools take them: ``read`` reads a file; ``write`` writes one; ``edit`` edits one;
``ls``, ``grep`` and ``find`` search a folder (their path, ``.`` when none is given) and are
counted as *searched*, not read, since what they name is mostly a folder. A call whose
result is an error touched nothing and is left out; a call still waiting for its result
counts. A shell command may touch files too, but which ones is not known.

Given the session, the lines each edit and write changed are counted too (the comparison of
branches shows them): an edit's from the diff Pi wrote in its result (``details.diff``, each
``+`` and ``-`` line; else its unified ``details.patch``), or, with neither (a call still
waiting, an older Pi), from its ``oldText`` / ``newText`` with their common first and last
lines left out; a write's as the lines of its content, all added (Pi's ``write`` records no
diff, so what it replaced is not known).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..read.session import Session
from ..text import text_lines
from .stats import ToolCall

__all__ = ["ACTIONS", "FileTouch", "changed_lines", "files_touched", "touch_path"]

#: what a call did to its path, by tool, in the order a file's actions are listed
ACTIONS = ("read", "written", "edited", "searched")
_ACTION = {"read": "read", "write": "written", "edit": "edited", "ls": "searched", "grep": "searched",
           "find": "searched"}


@dataclass
class FileTouch:
    """One path and how many calls did each action to it."""

    path: str
    read: int = 0
    written: int = 0
    edited: int = 0
    searched: int = 0
    #: lines its edits and writes added and removed (counted only when the session is given)
    added: int = 0
    removed: int = 0
    #: the entry of the first call that touched it, and of the first that wrote or edited it
    first: int = -1
    first_change: int = -1

    def actions(self) -> list[tuple[str, int]]:
        """``[("read", 2), ("edited", 1)]``: the actions done to it, in :data:`ACTIONS` order."""
        return [(a, n) for a in ACTIONS if (n := getattr(self, a))]

    @property
    def words(self) -> str:
        """``read ×2, edited``: each action, with its count when more than one."""
        return ", ".join(a if n == 1 else f"{a} ×{n}" for a, n in self.actions())

    def to_json(self) -> dict:
        return {"path": self.path, **dict(self.actions())}


def touch_path(path: str, cwd: str = "") -> str:
    """``path`` as the list shows it: relative to ``cwd`` when under it, without ``./``."""
    base = cwd.rstrip("/\\")
    if base:
        for sep in ("/", "\\"):
            if path.startswith(base + sep):
                path = path[len(base) + 1:]
                break
        else:
            if path == base:
                return "."
    while path.startswith("./") and len(path) > 2:
        path = path[2:]
    return path


def _diff_counts(text: str, unified: bool) -> tuple[int, int]:
    added = removed = 0
    for line in text.split("\n"):
        if line.startswith("+") and not (unified and line.startswith("+++")):
            added += 1
        elif line.startswith("-") and not (unified and line.startswith("---")):
            removed += 1
    return added, removed


def _replaced(old: str, new: str) -> tuple[int, int]:
    """Lines added and removed when ``old`` becomes ``new``: their lines less the common
    first and last ones."""
    a, b = text_lines(old), text_lines(new)
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return len(b) - head - tail, len(a) - head - tail


def changed_lines(session: Session, call: ToolCall) -> tuple[int, int]:
    """``(added, removed)``: the lines an ``edit`` or ``write`` call changed (0, 0 for
    any other call)."""
    a = call.args
    if call.name == "write":
        content = a.get("content")
        return (len(text_lines(content)) if isinstance(content, str) and content else 0), 0
    if call.name != "edit":
        return 0, 0
    if call.result_at >= 0:
        details = (session.message(call.result_at) or {}).get("details")
        if isinstance(details, dict):
            for key, unified in (("diff", False), ("patch", True)):
                text = details.get(key)
                if isinstance(text, str) and text.strip():
                    return _diff_counts(text, unified)
    pairs = [a] + [e for e in a.get("edits") if isinstance(e, dict)] if isinstance(a.get("edits"), list) else [a]
    added = removed = 0
    for p in pairs:
        old, new = p.get("oldText"), p.get("newText")
        if isinstance(old, str) and isinstance(new, str):
            plus, minus = _replaced(old, new)
            added += plus
            removed += minus
    return added, removed


def files_touched(calls: Iterable[ToolCall], cwd: str = "", session: Session | None = None) -> list[FileTouch]:
    """Each path the calls read, wrote, edited or searched, by path; with ``session``, the
    lines each edit and write changed (:func:`changed_lines`)."""
    by: dict[str, FileTouch] = {}
    for c in calls:
        action = _ACTION.get(c.name)
        if action is None or c.failed or not c.called:
            continue
        a = c.args
        raw = a.get("path") if isinstance(a.get("path"), str) and a.get("path") else a.get("file_path")
        if not isinstance(raw, str) or not raw:
            if action != "searched":
                continue
            raw = "."
        path = touch_path(raw, cwd)
        t = by.get(path)
        if t is None:
            t = by[path] = FileTouch(path, first=c.at)
        setattr(t, action, getattr(t, action) + 1)
        if action in ("written", "edited") and t.first_change < 0:
            t.first_change = c.at
        if session is not None and action in ("written", "edited"):
            plus, minus = changed_lines(session, c)
            t.added += plus
            t.removed += minus
    return [by[p] for p in sorted(by)]
