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
from typing import Iterable

import re

import orjson

from ..read.session import Session
from .parts import subagent_runs

__all__ = ["Usage", "Stats", "compute_stats", "session_stats", "branch_stats", "TOOLS_KEY", "SUBAGENT_SUFFIX",
           "is_own_model"]

TOOLS_KEY = "Tools/summaries"
#: what ends the key of a model's work done in subagent runs
SUBAGENT_SUFFIX = " (subagent)"
_USAGE_TYPES = frozenset({"usage", "compaction", "branch_summary"})


def is_own_model(key: str) -> bool:
    """Whether a key of :attr:`Stats.by_model` is a model of the conversation itself (not
    tools and summaries, not a subagent's)."""
    return key != TOOLS_KEY and not key.endswith(SUBAGENT_SUFFIX)


def _n(v) -> float:
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0


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

    def add(self, u: dict, calls: int = 1) -> None:
        self.input += _n(u.get("input"))
        self.output += _n(u.get("output"))
        self.cache_read += _n(u.get("cacheRead"))
        self.cache_write += _n(u.get("cacheWrite"))
        cost = u.get("cost")
        if isinstance(cost, dict):
            self.cost += _n(cost.get("total"))
        else:
            self.cost += _n(cost)
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

    def models_by_cost(self) -> list[tuple[str, Usage]]:
        return sorted(self.by_model.items(), key=lambda kv: (-kv[1].cost, -kv[1].tokens, kv[0]))

    def to_json(self) -> dict:
        return {"total": self.total.to_json(), "byModel": {k: u.to_json() for k, u in self.models_by_cost()}}


def _candidates(session: Session, indices: Iterable[int]) -> Iterable[int]:
    types, roles = session.types, session.roles
    for i in indices:
        t = types[i]
        if t == "message":
            if roles[i] in ("assistant", "toolResult"):
                yield i
        elif t in _USAGE_TYPES or t == "model_change":
            yield i


# An assistant line ends with its usage object (one level of nesting: "cost"), after the
# provider and model; read those from the tail instead of parsing the whole message.
_TAIL = 3072
_USAGE_RE = re.compile(rb'"usage":(\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})')
_MODEL_RE = re.compile(rb'"provider":"([^"\\]*)","model":"([^"\\]*)"')
_RESPONSE_MODEL_RE = re.compile(rb'"responseModel":"([^"\\]*)"')


def _last(pattern: re.Pattern, data: bytes, start: int):
    m = None
    for m in pattern.finditer(data, start):
        pass
    return m


def _fast_usage(session: Session, i: int, data: bytes) -> tuple[str, dict] | None | bool:
    """``(key, usage)`` from the raw line, ``None`` when it has no usage, ``False`` when the
    line's shape is unusual and it must be parsed whole."""
    if session.roles[i] == "toolResult":
        return None if b'"usage"' not in data else False
    start = max(0, len(data) - _TAIL)
    u = _last(_USAGE_RE, data, start)
    m = _last(_MODEL_RE, data, start)
    if u is None or m is None or m.start() > u.start():
        return False
    try:
        usage = orjson.loads(u.group(1))
    except orjson.JSONDecodeError:
        return False
    rm = _last(_RESPONSE_MODEL_RE, data, m.start())
    model = (rm.group(1) if rm is not None and rm.group(1) else m.group(2)).decode("utf-8", "replace")
    return f"{m.group(1).decode('utf-8', 'replace')}/{model}", usage


def compute_stats(session: Session, indices: Iterable[int]) -> Stats:
    stats = Stats()
    types = session.types
    for i, data in session.raw_lines(_candidates(session, indices)):
        if types[i] == "message":
            fast = _fast_usage(session, i, data)
            if fast is None:
                continue
            if fast is not False:
                stats.current = fast[0]
                _add(stats, *fast)
                continue
        e = session.entry(i)
        t = e.get("type")
        key = usage = None
        if t == "message":
            m = e.get("message") or {}
            if m.get("role") == "assistant":
                key = stats.current = f"{m.get('provider')}/{m.get('responseModel') or m.get('model')}"
                usage = m.get("usage")
            elif m.get("role") == "toolResult":
                if _add_subagents(stats, m):
                    continue
                if isinstance(m.get("usage"), dict):
                    key, usage = TOOLS_KEY, m.get("usage")
        elif t == "model_change":
            stats.current = f"{e.get('provider')}/{e.get('modelId')}"
        elif t == "usage":
            key = f"{e.get('provider')}/{e.get('model')}"
            usage = e.get("usage")
        elif isinstance(e.get("usage"), dict):
            key, usage = TOOLS_KEY, e.get("usage")
        if key is None or not isinstance(usage, dict):
            continue
        _add(stats, key, usage)
    stats.by_model = {k: v for k, v in stats.by_model.items() if v.cost > 0 or v.tokens > 0}
    return stats


def _add_subagents(stats: Stats, m: dict) -> bool:
    """A subagent call's runs, each under its model; False when no run carries a usage
    (then the result's own ``usage``, if any, counts as a tool's)."""
    details = m.get("details")
    if m.get("toolName") != "subagent" or not isinstance(details, dict) or not isinstance(details.get("results"), list):
        return False
    runs = [r for r in subagent_runs(details)[1] if r.usage]
    for r in runs:
        turns = r.turns
        _add(stats, (r.model or "?") + SUBAGENT_SUFFIX, r.usage, int(turns) if turns is not None and turns >= 1 else 1)
    return bool(runs)


def _add(stats: Stats, key: str, usage: dict, calls: int = 1) -> None:
    u = stats.by_model.get(key)
    if u is None:
        u = stats.by_model[key] = Usage()
    u.add(usage, calls)
    stats.total.add(usage, calls)


def session_stats(session: Session) -> Stats:
    """Every entry of every branch (entries hidden by a duplicate id count once)."""
    return compute_stats(session, (i for i in range(len(session)) if i not in session.shadowed))


def branch_stats(session: Session, leaf: int | None = None) -> Stats:
    """The entries on the path from the root to ``leaf`` (the current leaf by default)."""
    leaf = session.leaf if leaf is None else leaf
    return compute_stats(session, session.path_to(leaf) if leaf >= 0 else [])
