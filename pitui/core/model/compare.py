"""Which try was better: the branches of a fork, side by side.

Given two or more entries (usually leaves), the *fork* is their deepest common entry; each
branch is what follows it on the path from the root to its entry. For each branch, over
those entries only: its user prompts and last assistant answer; tool calls by kind with
their errors, files read and modified (lines added and removed) and shell commands with
whether they failed; tokens, cost, duration and the last ``stopReason``; whether it is the
session's current branch, its labels, and the summary Pi wrote when the user left it
(a ``branch_summary`` whose ``fromId`` is on it).

The numbers come from the functions the stats screen and the exports use
(:func:`.stats.compute_stats`, :func:`.stats.tool_calls`, :func:`.stats.kind_stats`,
:func:`.files.files_touched`), given the branch's entries after the fork. Paths are walked
by :meth:`Session.path_to`, without recursion.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..read.session import Session
from ..timeutil import iso_to_ms
from .files import FileTouch, files_touched
from .parts import SHELL_EXEC, result_text
from .stats import KindStats, Usage, compute_stats, kind_stats, tool_calls
from .summary import text_of

__all__ = ["BranchFacts", "Command", "Comparison", "compare_branches", "fork_of", "leaves", "shared_paths"]

#: what Pi's bash tool (and its ``!`` command) appends to the output of a command that failed
_EXIT_RE = re.compile(r"Command exited with code (-?\d+)\s*\Z")


@dataclass
class Command:
    """A shell command a branch ran: a ``bash`` call (or another shell tool) or the user's
    own ``!`` command, and whether it failed (an error result, or a non-zero exit code)."""

    command: str
    failed: bool
    entry: int  # its call's entry (the ``!`` command's own)

    def to_json(self) -> dict:
        return {"command": self.command, "failed": self.failed}


@dataclass
class BranchFacts:
    """One branch after the fork, as :func:`compare_branches` sums it up."""

    leaf: int
    entries: list[int]  # after the fork, root-ward first
    prompts: list[tuple[int, str]] = field(default_factory=list)  # (entry, text)
    answer: tuple[int, str] | None = None  # the last assistant message with text
    tools: dict[str, KindStats] = field(default_factory=dict)
    kind_first: dict[str, int] = field(default_factory=dict)  # each kind's first call's entry
    files: list[FileTouch] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    duration_ms: float | None = None  # its first entry's time to its last one's
    stop_reason: str | None = None  # its last assistant message's
    stop_entry: int = -1
    current: bool = False  # the session's current leaf is on it
    labels: list[tuple[int, str]] = field(default_factory=list)  # (entry, label)
    summary: tuple[int, str] | None = None  # (the branch_summary entry, its text)

    @property
    def read(self) -> list[FileTouch]:
        return [t for t in self.files if t.read]

    @property
    def modified(self) -> list[FileTouch]:
        return [t for t in self.files if t.written or t.edited]

    def to_json(self, session: Session) -> dict:
        ids = session.ids
        u = self.usage
        return {
            "leaf": ids[self.leaf],
            "entries": len(self.entries),
            "prompts": [text for _, text in self.prompts],
            "answer": self.answer[1] if self.answer is not None else None,
            "tools": {kind: {"calls": k.calls, "errors": k.errors} for kind, k in self.tools.items()},
            "files": {"read": [t.path for t in self.read],
                      "modified": [{"path": t.path, "added": t.added, "removed": t.removed} for t in self.modified]},
            "commands": [c.to_json() for c in self.commands],
            "tokens": {"input": u.input, "output": u.output, "cacheRead": u.cache_read, "cacheWrite": u.cache_write},
            "cost": round(u.cost, 6),
            "durationMs": self.duration_ms,
            "stopReason": self.stop_reason,
            "current": self.current,
            "labels": [{"id": ids[i], "label": label} for i, label in self.labels],
            "summary": self.summary[1] if self.summary is not None else None,
        }


@dataclass
class Comparison:
    fork: int  # the deepest common entry; -1 when the branches share none (two roots)
    branches: list[BranchFacts]

    def to_json(self, session: Session) -> dict:
        return {"fork": session.ids[self.fork] if self.fork >= 0 else None,
                "branches": [b.to_json(session) for b in self.branches]}


def fork_of(session: Session, entries: list[int]) -> tuple[int, list[list[int]]]:
    """The deepest entry on every path from the root to ``entries`` (-1: none), and each
    path's part after it."""
    paths = [session.path_to(e) for e in entries]
    common = min(len(p) for p in paths)
    first = paths[0]
    for p in paths[1:]:
        k = 0
        while k < common and p[k] == first[k]:
            k += 1
        common = k
    return (first[common - 1] if common else -1), [p[common:] for p in paths]


def _exit_failed(session: Session, result: int) -> bool:
    """Whether a shell result's output ends with a non-zero exit code (as Pi writes it)."""
    m = _EXIT_RE.search(result_text(session.message(result) or {})[-200:])
    return m is not None and int(m.group(1)) != 0


def _commands(session: Session, entries: list[int], calls) -> list[Command]:
    out = []
    for c in calls:
        if c.kind != SHELL_EXEC or not c.called:
            continue
        command = c.args.get("command")
        failed = c.failed or (c.result_at >= 0 and _exit_failed(session, c.result_at))
        out.append(Command(command if isinstance(command, str) else "", failed, c.at))
    types, roles = session.types, session.roles
    for i in entries:
        if types[i] == "message" and roles[i] == "bashExecution":
            m = session.message(i) or {}
            command = m.get("command")
            code = m.get("exitCode")
            failed = type(code) in (int, float) and code != 0  # (None: cancelled, or still running)
            out.append(Command(command if isinstance(command, str) else "", failed, i))
    out.sort(key=lambda c: c.entry)
    return out


def _summaries(session: Session) -> dict[str, tuple[int, str]]:
    """Each ``branch_summary``'s ``fromId`` -> (its entry, its text): the last one written
    for an entry wins."""
    out: dict[str, tuple[int, str]] = {}
    for i, t in enumerate(session.types):
        if t == "branch_summary" and i not in session.shadowed:
            e = session.entry(i)
            src, text = e.get("fromId"), e.get("summary")
            if isinstance(src, str) and isinstance(text, str):
                out[src] = (i, text)
    return out


def _branch(session: Session, leaf: int, entries: list[int], summaries: dict[str, tuple[int, str]]) -> BranchFacts:
    b = BranchFacts(leaf, entries)
    types, roles, ids = session.types, session.roles, session.ids
    for i in entries:
        if types[i] == "message" and roles[i] == "user":
            text = text_of((session.message(i) or {}).get("content"))
            if text.strip():
                b.prompts.append((i, text))
        label = session.label_of(i)
        if label is not None:
            b.labels.append((i, label))
        found = summaries.get(ids[i])
        if found is not None and (b.summary is None or found[0] > b.summary[0]):
            b.summary = found
    for i in reversed(entries):
        if types[i] == "message" and roles[i] == "assistant":
            m = session.message(i) or {}
            if b.stop_entry < 0:
                reason = m.get("stopReason")
                b.stop_reason, b.stop_entry = (reason if isinstance(reason, str) else None), i
            text = text_of(m.get("content"))
            if text.strip():
                b.answer = (i, text)
                break
    calls = tool_calls(session, entries)
    b.tools = kind_stats(calls)
    for c in calls:
        b.kind_first.setdefault(c.kind, c.at)
    b.files = files_touched(calls, session.cwd, session)
    b.commands = _commands(session, entries, calls)
    b.usage = compute_stats(session, entries).total
    if entries:
        took = iso_to_ms(session.timestamps[entries[-1]]) - iso_to_ms(session.timestamps[entries[0]])
        b.duration_ms = round(took) if took == took else None  # (NaN: a time that does not read)
    else:
        b.duration_ms = 0
    b.current = session.leaf >= 0 and session.is_ancestor(leaf, session.leaf)
    return b


def compare_branches(session: Session, leaves: list[int]) -> Comparison:
    """The branches ending at ``leaves`` (entry indices, two or more) from their fork on."""
    fork, parts = fork_of(session, leaves)
    summaries = _summaries(session)
    return Comparison(fork, [_branch(session, leaf, part, summaries) for leaf, part in zip(leaves, parts)])


def leaves(session: Session) -> list[int]:
    """Every leaf of the session (an entry with no children), newest (last written) first."""
    parents = set(session.parent)
    shadowed = session.shadowed
    return [i for i in range(len(session) - 1, -1, -1) if i not in parents and i not in shadowed]


def shared_paths(comparison: Comparison) -> set[str]:
    """The paths that more than one branch read or modified."""
    seen: dict[str, int] = {}
    for b in comparison.branches:
        for t in b.files:
            if t.read or t.written or t.edited:
                seen[t.path] = seen.get(t.path, 0) + 1
    return {p for p, n in seen.items() if n > 1}
