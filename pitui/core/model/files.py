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
        return [(action, count) for action in ACTIONS if (count := getattr(self, action))]

    @property
    def words(self) -> str:
        """``read ×2, edited``: each action, with its count when more than one."""
        return ", ".join(action if count == 1 else f"{action} ×{count}" for action, count in self.actions())

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
    old_lines, new_lines = text_lines(old), text_lines(new)
    head = 0
    while head < len(old_lines) and head < len(new_lines) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while tail < len(old_lines) - head and tail < len(new_lines) - head and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    return len(new_lines) - head - tail, len(old_lines) - head - tail


def changed_lines(session: Session, call: ToolCall) -> tuple[int, int]:
    """``(added, removed)``: the lines an ``edit`` or ``write`` call changed (0, 0 for
    any other call)."""
    args = call.args
    if call.name == "write":
        content = args.get("content")
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
    pairs = [args] + [edit for edit in args.get("edits") if isinstance(edit, dict)] if isinstance(args.get("edits"), list) else [args]
    added = removed = 0
    for pair in pairs:
        old, new = pair.get("oldText"), pair.get("newText")
        if isinstance(old, str) and isinstance(new, str):
            plus, minus = _replaced(old, new)
            added += plus
            removed += minus
    return added, removed


def files_touched(calls: Iterable[ToolCall], cwd: str = "", session: Session | None = None) -> list[FileTouch]:
    """Each path the calls read, wrote, edited or searched, by path; with ``session``, the
    lines each edit and write changed (:func:`changed_lines`)."""
    by: dict[str, FileTouch] = {}
    for call in calls:
        action = _ACTION.get(call.name)
        if action is None or call.failed or not call.called:
            continue
        args = call.args
        raw = args.get("path") if isinstance(args.get("path"), str) and args.get("path") else args.get("file_path")
        if not isinstance(raw, str) or not raw:
            if action != "searched":
                continue
            raw = "."
        path = touch_path(raw, cwd)
        touch = by.get(path)
        if touch is None:
            touch = by[path] = FileTouch(path, first=call.at)
        setattr(touch, action, getattr(touch, action) + 1)
        if action in ("written", "edited") and touch.first_change < 0:
            touch.first_change = call.at
        if session is not None and action in ("written", "edited"):
            plus, minus = changed_lines(session, call)
            touch.added += plus
            touch.removed += minus
    return [by[path] for path in sorted(by)]
