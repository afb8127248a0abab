"""The files a branch touched: each path its calls read, wrote, edited or searched.

From the calls' own arguments (``path``, or ``file_path`` as some agents write it), the
way Pi's tools take them: ``read`` reads a file; ``write`` writes one; ``edit`` edits one;
``ls``, ``grep`` and ``find`` search a folder (their path, ``.`` when none is given) and are
counted as *searched*, not read, since what they name is mostly a folder. A call whose
result is an error touched nothing and is left out; a call still waiting for its result
counts. A shell command may touch files too, but which ones is not known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .stats import ToolCall

__all__ = ["ACTIONS", "FileTouch", "files_touched", "touch_path"]

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


def files_touched(calls: Iterable[ToolCall], cwd: str = "") -> list[FileTouch]:
    """Each path the calls read, wrote, edited or searched, by path."""
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
            t = by[path] = FileTouch(path)
        setattr(t, action, getattr(t, action) + 1)
    return [by[p] for p in sorted(by)]
