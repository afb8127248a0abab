"""Tokens and cost: per session, per branch (root to leaf) and per model.

Counted as Pi's own cost breakdown does: assistant messages (by provider/model), ``usage``
entries (by their provider/model), and model work done by tools and summaries
(tool-result ``usage``, compaction and branch-summary ``usage``) under "Tools/summaries".
A subagent call's runs count each under its own model (``<model> (subagent)``, from the
runs' ``usage`` as ``model/parts.py`` reads them), instead of their sum under
"Tools/summaries"; the calls of such a row are the runs' turns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, NamedTuple

from ..numbers import as_number
from ..timeutil import iso_to_ms
from ..read.session import Session
from .cost import SUBAGENT_SUFFIX, TOOLS_KEY, USAGE_TYPES, Figures, entry_usages, fast_assistant_usage, spent
from .tool_kinds import raw_result_end, raw_result_head, raw_tool_calls, tool_kind, tool_name

__all__ = ["Usage", "Stats", "compute_stats", "session_stats", "branch_stats", "TOOLS_KEY", "SUBAGENT_SUFFIX",
           "is_own_model", "ToolCall", "tool_calls", "KindStats", "kind_stats", "branch_indices", "session_indices"]


def is_own_model(key: str) -> bool:
    """Whether a key of :attr:`Stats.by_model` is a model of the conversation itself (not
    tools and summaries, not a subagent's)."""
    return key != TOOLS_KEY and not key.endswith(SUBAGENT_SUFFIX)


@dataclass
class Usage:
    input: float = 0
    output: float = 0
    cache_read: float = 0
    cache_write: float = 0
    cost: float = 0
    calls: int = 0

    @property
    def tokens(self) -> float:
        return self.input + self.output + self.cache_read + self.cache_write

    def row(self) -> tuple[float, float, float, float, float]:
        """``(input, output, cacheRead, cacheWrite, cost)``, as :func:`.cost.spent` adds them."""
        return self.input, self.output, self.cache_read, self.cache_write, self.cost

    def add(self, figures: Figures, calls: int = 1) -> None:
        """One usage's figures (:func:`.cost.usage_figures`)."""
        self.input += figures.input
        self.output += figures.output
        self.cache_read += figures.cache_read
        self.cache_write += figures.cache_write
        self.cost += figures.cost
        self.calls += calls

    def merge(self, other: "Usage") -> None:
        self.input += other.input
        self.output += other.output
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write
        self.cost += other.cost
        self.calls += other.calls

    def to_json(self) -> dict:
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "tokens": self.tokens,
            "cost": round(self.cost, 6),
            "calls": self.calls,
        }


@dataclass
class Stats:
    total: Usage = field(default_factory=Usage)
    by_model: dict[str, Usage] = field(default_factory=dict)
    #: the provider/model in use after the last entry counted (its last assistant message or
    #: model change): for a branch, the model its leaf answers with
    current: str | None = None
    #: usages not counted: negative, absurd or missing numbers, a cost of the wrong type
    #: (:func:`.cost.usage_figures` says why)
    skipped: int = 0

    def models_by_cost(self) -> list[tuple[str, Usage]]:
        return sorted(self.by_model.items(), key=lambda kv: (-kv[1].cost, -kv[1].tokens, kv[0]))

    def to_json(self) -> dict:
        return {"total": self.total.to_json(), "byModel": {model: usage.to_json() for model, usage in self.models_by_cost()}}


def _candidates(session: Session, indices: Iterable[int]) -> Iterable[int]:
    types, roles = session.types, session.roles
    for index in indices:
        kind = types[index]
        if kind == "message":
            if roles[index] in ("assistant", "toolResult"):
                yield index
        elif kind in USAGE_TYPES or kind == "model_change":
            yield index


def compute_stats(session: Session, indices: Iterable[int]) -> Stats:
    """The usages of ``indices`` (:func:`.cost.entry_usages` of each), per model."""
    stats = Stats()
    types, roles = session.types, session.roles
    for index, data in session.raw_lines(_candidates(session, indices)):
        if types[index] == "message":
            if roles[index] == "toolResult" and b'"usage"' not in data:
                continue
            fast = fast_assistant_usage(data) if roles[index] == "assistant" else None
            if fast is not None:
                stats.current = fast[0]
                _add(stats, fast[0], fast[1])
                continue
        entry = session.entry(index)
        if entry.get("type") == "model_change":
            stats.current = f"{entry.get('provider')}/{entry.get('modelId')}"
            continue
        message = entry.get("message")
        if entry.get("type") == "message" and type(message) is dict and message.get("role") == "assistant":
            stats.current = f"{message.get('provider')}/{message.get('responseModel') or message.get('model')}"
        for key, figures, calls in entry_usages(entry):
            _add(stats, key, figures, calls)
    # (the total cost as every screen shows it: the usage index's figure of the session too)
    stats.total.cost = spent(usage.row() for usage in stats.by_model.values())[1]
    stats.by_model = {model: usage for model, usage in stats.by_model.items() if usage.cost > 0 or usage.tokens > 0}
    return stats


def _add(stats: Stats, key: str, figures: Figures | str, calls: int = 1) -> None:
    if type(figures) is str:
        stats.skipped += 1
        return
    usage = stats.by_model.get(key)
    if usage is None:
        usage = stats.by_model[key] = Usage()
    usage.add(figures, calls)
    stats.total.add(figures, calls)


def session_indices(session: Session) -> list[int]:
    """Every entry of every branch (entries hidden by a duplicate id count once)."""
    shadowed = session.shadowed
    return [index for index in range(len(session)) if index not in shadowed]


def branch_indices(session: Session, leaf: int | None = None) -> list[int]:
    """The entries on the path from the root to ``leaf`` (the current leaf by default)."""
    leaf = session.leaf if leaf is None else leaf
    return session.path_to(leaf) if leaf >= 0 else []


def session_stats(session: Session) -> Stats:
    """Every entry of every branch (entries hidden by a duplicate id count once)."""
    return compute_stats(session, session_indices(session))


def branch_stats(session: Session, leaf: int | None = None) -> Stats:
    """The entries on the path from the root to ``leaf`` (the current leaf by default)."""
    return compute_stats(session, branch_indices(session, leaf))


# ---------------------------------------------------------------------------- tools by kind


# (a NamedTuple rather than a frozen dataclass: several times quicker to make as this module
# loads, before the first screen: benchmarks/startup_budget.py)
class ToolCall(NamedTuple):
    """One tool call among some entries, with what its result says when that is among them
    too (a result whose call is not among them stands alone: ``called`` False)."""

    name: str
    kind: str
    args: dict  # its arguments ({} when not asked for)
    called: bool  # its toolCall block is among the entries
    done: bool  # its result is among them
    failed: bool  # its result says isError
    duration_ms: float | None  # how long the tool ran, when its result says (durationMs)
    #: when the result does not say: the time from its call's entry to its result's entry
    #: (an estimate: the call's entry is written when the reply ends, the result's when the
    #: tool does; calls run together share a start)
    estimated_ms: float | None = None
    #: the entry of its call (its assistant message; a result standing alone: the result's)
    at: int = -1
    #: the entry of its result (-1: none among the entries)
    result_at: int = -1


def _result_facts(session: Session, index: int, data: bytes) -> tuple[str | None, str, bool, float | None]:
    """A tool result's ``(toolCallId, toolName, isError, durationMs)``, from its raw line as
    Pi writes it, else from the line parsed (``durationMs`` on the result or its ``details``)."""
    head, end = raw_result_head(data), raw_result_end(data)
    if head is not None and end is not None:
        return head[0], head[1], end[0], (end[1] if end[1] is not None and end[1] >= 0 else None)
    result = session.message(index) or {}
    cid = result.get("toolCallId")
    duration = as_number(result.get("durationMs"))
    if duration is None and isinstance(result.get("details"), dict):
        duration = as_number(result["details"].get("durationMs"))
    return (cid if isinstance(cid, str) else None, tool_name(None, result), result.get("isError") is True,
            duration if duration is not None and duration >= 0 else None)


def tool_calls(session: Session, indices: Iterable[int], *, args: bool = True) -> list[ToolCall]:
    """The tool calls of ``indices`` (assistant messages' ``toolCall`` blocks, in order),
    each with its result among them (by ``toolCallId``), then the results left over.
    ``args``: read the calls' arguments too (the assistant messages are parsed); without,
    names and results are read from the raw lines where Pi's own layout allows."""
    types, roles, stamps = session.types, session.roles, session.timestamps
    # (each with its entry's timestamp as stored: read as a time only for a result that does
    # not say how long it ran)
    calls: list[tuple[str | None, str, dict, object, int]] = []  # (id, name, arguments, its entry's time, entry)
    # id -> (name, failed, durationMs, time, entry)
    results: dict[str, tuple[str, bool, float | None, object, int]] = {}
    loose: list[tuple[str, bool, float | None, object, int]] = []
    asked = [index for index in indices if types[index] == "message" and roles[index] in ("assistant", "toolResult")]
    for index, data in session.raw_lines(asked):
        when = stamps[index]
        if roles[index] == "assistant":
            fast = None if args else raw_tool_calls(data)
            if fast is not None:
                calls += [(cid, name, {}, when, index) for cid, name in fast]
                continue
            content = (session.message(index) or {}).get("content")
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    cid = block.get("id")
                    arguments = block.get("arguments") if args else None
                    calls.append((cid if isinstance(cid, str) else None, tool_name(block, None),
                                  arguments if isinstance(arguments, dict) else {}, when, index))
        else:
            cid, name, failed, duration = _result_facts(session, index, data)
            if cid is not None and cid not in results:
                results[cid] = (name, failed, duration, when, index)
            else:
                loose.append((name, failed, duration, when, index))
    out = []
    for cid, name, arguments, called_at, at in calls:
        result = results.pop(cid, None) if cid is not None else None
        if result is None:
            out.append(ToolCall(name, tool_kind(name), arguments, True, False, False, None, None, at))
            continue
        estimate = None
        if result[2] is None:
            took = iso_to_ms(result[3]) - iso_to_ms(called_at)
            estimate = took if took >= 0 else None  # (NaN, an unreadable time, compares False)
        out.append(ToolCall(name, tool_kind(name), arguments, True, True, result[1], result[2], estimate, at, result[4]))
    for name, failed, duration, _, at in list(results.values()) + loose:
        out.append(ToolCall(name, tool_kind(name), {}, False, True, failed, duration, None, at, at))
    return out


@dataclass
class KindStats:
    """The calls of one tool kind: how many, how many failed, and the time of those whose
    result says how long they ran (``timed`` of them)."""

    calls: int = 0
    errors: int = 0
    duration_ms: float = 0
    timed: int = 0
    tools: list[str] = field(default_factory=list)  # the tools of this kind seen, by first use
    #: the time of the calls whose result does not say, estimated from the entries' times
    #: (``ToolCall.estimated_ms``), ``estimated`` of them
    estimated_ms: float = 0
    estimated: int = 0

    def to_json(self) -> dict:
        return {"calls": self.calls, "errors": self.errors, "durationMs": self.duration_ms, "timed": self.timed,
                "tools": self.tools, "estimatedMs": self.estimated_ms, "estimated": self.estimated}


def kind_stats(calls: Iterable[ToolCall]) -> dict[str, KindStats]:
    """Calls, errors and time per tool kind (most calls first, then by name)."""
    by: dict[str, KindStats] = {}
    for call in calls:
        stats = by.get(call.kind)
        if stats is None:
            stats = by[call.kind] = KindStats()
        stats.calls += 1
        if call.failed:
            stats.errors += 1
        duration = call.duration_ms
        if duration is not None:
            stats.duration_ms += duration
            stats.timed += 1
        elif call.estimated_ms is not None:
            stats.estimated_ms += call.estimated_ms
            stats.estimated += 1
        if call.name not in stats.tools:
            stats.tools.append(call.name)
    return dict(sorted(by.items(), key=lambda kv: (-kv[1].calls, kv[0])))
