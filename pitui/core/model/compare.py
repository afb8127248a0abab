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
from .parts import result_text
from .stats import KindStats, Usage, compute_stats, kind_stats, tool_calls
from .summary import text_of
from .tool_kinds import SHELL_EXEC

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
        return [file for file in self.files if file.read]

    @property
    def modified(self) -> list[FileTouch]:
        return [file for file in self.files if file.written or file.edited]

    def to_json(self, session: Session) -> dict:
        ids = session.ids
        usage = self.usage
        return {
            "leaf": ids[self.leaf],
            "entries": len(self.entries),
            "prompts": [text for _, text in self.prompts],
            "answer": self.answer[1] if self.answer is not None else None,
            "tools": {kind: {"calls": stats.calls, "errors": stats.errors} for kind, stats in self.tools.items()},
            "files": {"read": [file.path for file in self.read],
                      "modified": [{"path": file.path, "added": file.added, "removed": file.removed} for file in self.modified]},
            "commands": [command.to_json() for command in self.commands],
            "tokens": {"input": usage.input, "output": usage.output, "cacheRead": usage.cache_read, "cacheWrite": usage.cache_write},
            "cost": round(usage.cost, 6),
            "durationMs": self.duration_ms,
            "stopReason": self.stop_reason,
            "current": self.current,
            "labels": [{"id": ids[index], "label": label} for index, label in self.labels],
            "summary": self.summary[1] if self.summary is not None else None,
        }


@dataclass
class Comparison:
    fork: int  # the deepest common entry; -1 when the branches share none (two roots)
    branches: list[BranchFacts]

    def to_json(self, session: Session) -> dict:
        return {"fork": session.ids[self.fork] if self.fork >= 0 else None,
                "branches": [branch.to_json(session) for branch in self.branches]}


def fork_of(session: Session, entries: list[int]) -> tuple[int, list[list[int]]]:
    """The deepest entry on every path from the root to ``entries`` (-1: none), and each
    path's part after it."""
    paths = [session.path_to(leaf) for leaf in entries]
    common = min(len(path) for path in paths)
    first = paths[0]
    for path in paths[1:]:
        shared = 0
        while shared < common and path[shared] == first[shared]:
            shared += 1
        common = shared
    return (first[common - 1] if common else -1), [path[common:] for path in paths]


def _exit_failed(session: Session, result: int) -> bool:
    """Whether a shell result's output ends with a non-zero exit code (as Pi writes it)."""
    match = _EXIT_RE.search(result_text(session.message(result) or {})[-200:])
    return match is not None and int(match.group(1)) != 0


def _commands(session: Session, entries: list[int], calls) -> list[Command]:
    out = []
    for call in calls:
        if call.kind != SHELL_EXEC or not call.called:
            continue
        command = call.args.get("command")
        failed = call.failed or (call.result_at >= 0 and _exit_failed(session, call.result_at))
        out.append(Command(command if isinstance(command, str) else "", failed, call.at))
    types, roles = session.types, session.roles
    for index in entries:
        if types[index] == "message" and roles[index] == "bashExecution":
            message = session.message(index) or {}
            command = message.get("command")
            code = message.get("exitCode")
            failed = type(code) in (int, float) and code != 0  # (None: cancelled, or still running)
            out.append(Command(command if isinstance(command, str) else "", failed, index))
    out.sort(key=lambda command: command.entry)
    return out


def _summaries(session: Session) -> dict[str, tuple[int, str]]:
    """Each ``branch_summary``'s ``fromId`` -> (its entry, its text): the last one written
    for an entry wins."""
    out: dict[str, tuple[int, str]] = {}
    for index, kind in enumerate(session.types):
        if kind == "branch_summary" and index not in session.shadowed:
            entry = session.entry(index)
            src, text = entry.get("fromId"), entry.get("summary")
            if isinstance(src, str) and isinstance(text, str):
                out[src] = (index, text)
    return out


def _branch(session: Session, leaf: int, entries: list[int], summaries: dict[str, tuple[int, str]]) -> BranchFacts:
    facts = BranchFacts(leaf, entries)
    types, roles, ids = session.types, session.roles, session.ids
    for index in entries:
        if types[index] == "message" and roles[index] == "user":
            text = text_of((session.message(index) or {}).get("content"))
            if text.strip():
                facts.prompts.append((index, text))
        label = session.label_of(index)
        if label is not None:
            facts.labels.append((index, label))
        found = summaries.get(ids[index])
        if found is not None and (facts.summary is None or found[0] > facts.summary[0]):
            facts.summary = found
    for index in reversed(entries):
        if types[index] == "message" and roles[index] == "assistant":
            message = session.message(index) or {}
            if facts.stop_entry < 0:
                reason = message.get("stopReason")
                facts.stop_reason, facts.stop_entry = (reason if isinstance(reason, str) else None), index
            text = text_of(message.get("content"))
            if text.strip():
                facts.answer = (index, text)
                break
    calls = tool_calls(session, entries)
    facts.tools = kind_stats(calls)
    for call in calls:
        facts.kind_first.setdefault(call.kind, call.at)
    facts.files = files_touched(calls, session.cwd, session)
    facts.commands = _commands(session, entries, calls)
    facts.usage = compute_stats(session, entries).total
    if entries:
        took = iso_to_ms(session.timestamps[entries[-1]]) - iso_to_ms(session.timestamps[entries[0]])
        facts.duration_ms = round(took) if took == took else None  # (NaN: a time that does not read)
    else:
        facts.duration_ms = 0
    facts.current = session.leaf >= 0 and session.is_ancestor(leaf, session.leaf)
    return facts


def compare_branches(session: Session, leaves: list[int]) -> Comparison:
    """The branches ending at ``leaves`` (entry indices, two or more) from their fork on."""
    fork, parts = fork_of(session, leaves)
    summaries = _summaries(session)
    return Comparison(fork, [_branch(session, leaf, part, summaries) for leaf, part in zip(leaves, parts)])


def leaves(session: Session) -> list[int]:
    """Every leaf of the session (an entry with no children), newest (last written) first."""
    parents = set(session.parent)
    shadowed = session.shadowed
    return [index for index in range(len(session) - 1, -1, -1) if index not in parents and index not in shadowed]


def shared_paths(comparison: Comparison) -> set[str]:
    """The paths that more than one branch read or modified."""
    seen: dict[str, int] = {}
    for branch in comparison.branches:
        for file in branch.files:
            if file.read or file.written or file.edited:
                seen[file.path] = seen.get(file.path, 0) + 1
    return {path for path, count in seen.items() if count > 1}
