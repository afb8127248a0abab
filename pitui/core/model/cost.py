"""What one entry costs: the one reading of a ``usage`` that every cost pitui shows comes from.

The stats screen and the header (:mod:`.stats`), the store-wide usage report and screen
(:mod:`pitui.core.store.usage`) all read a usage with :func:`usage_figures` and an entry's
usages with :func:`entry_usages` (or, for an assistant line in Pi's own layout, with
:func:`fast_assistant_usage`, which gives the same answer without parsing the line), and
add a session's (or a branch's) per-model sums up with :func:`spent`, so a session's cost
never reads two ways: the header, ``s``, the sidebar and the usage screen show one figure.

A usage is read as ``@ccusage/pi`` reads it: ``input`` and ``output`` numbers, ``cacheRead``,
``cacheWrite`` and ``totalTokens`` numbers when present, ``cost.total`` a number when present
(no cost: 0); all tokens = ``totalTokens``, else the sum of the four counts. pitui refuses
more than ccusage does: a negative, infinite or absurd number (over :data:`MAX_TOKENS` tokens
or :data:`MAX_COST` dollars) makes the usage not counted, with its reason, never a sum that
means nothing. An optional field of another type (a cost that is a string, a ``totalTokens``
that is null), or a cost given as a bare number (some tools write that), counts as pitui's
reader takes it (the field absent; the bare number as the total) in pitui's own figures, and
marks the usage not ``strict``: ccusage's schema refuses the message, so its compatible
report does too.
"""

from __future__ import annotations

import math
import re
from typing import Iterable, NamedTuple, Sequence

import orjson

from .parts import subagent_runs

__all__ = ["Figures", "usage_figures", "spent", "model_key", "text_or_none", "entry_usages", "assistant_key", "fast_assistant_usage", "TOOLS_KEY", "SUBAGENT_SUFFIX",
           "MAX_TOKENS", "MAX_COST", "USAGE_TYPES"]

TOOLS_KEY = "Tools/summaries"
#: what ends the key of a model's work done in subagent runs
SUBAGENT_SUFFIX = " (subagent)"
#: entries other than messages that carry a ``usage`` of their own
USAGE_TYPES = frozenset({"usage", "compaction", "branch_summary"})

#: no single message reads or writes more tokens than this (any count above is damage)
MAX_TOKENS = 1e12
#: nor costs more dollars than this
MAX_COST = 1e7


class Figures(NamedTuple):
    """One usage's numbers."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    total_tokens: float  # its totalTokens, else the sum of the four counts
    cost: float
    strict: bool  # ccusage's schema accepts it (cost an object or absent)


def _number(value) -> bool:
    return type(value) is int or type(value) is float


def usage_figures(usage) -> Figures | str:
    """``usage`` read as :class:`Figures`, or why it is not counted (a short phrase).

    A field of another type than a number counts as absent (as the core's reader drops it,
    :mod:`..read.normalize`), so a line reads the same parsed whole or from its raw tail;
    ``strict`` says whether ccusage's schema takes it as it is."""
    if type(usage) is not dict:
        return "usage is not an object"
    inp, out = usage.get("input"), usage.get("output")
    if not _number(inp) or not _number(out):
        return "input or output is not a number"
    strict = True
    counts = []
    for key in ("cacheRead", "cacheWrite", "totalTokens"):
        value = usage.get(key)
        if not _number(value):
            strict = strict and key not in usage
            value = None
        counts.append(value)
    cr, cw, total = counts
    cr = cr or 0
    cw = cw or 0
    cost = usage.get("cost")
    if type(cost) is dict:
        cost = cost.get("total", 0)
        if not _number(cost):
            strict, cost = False, 0
    elif type(cost) is list:  # (an object to ccusage's schema, with no total)
        cost = 0
    elif _number(cost):
        strict = False  # (a tool's bare total: pitui counts it)
    else:
        strict = strict and "cost" not in usage
        cost = 0
    if total is None:
        total = inp + out + cr + cw
    for value in (inp, out, cr, cw, total):
        if value < 0 or not value <= MAX_TOKENS:  # (also NaN and infinities)
            return "a token count is negative or absurd"
    if cost < 0 or not cost <= MAX_COST:
        return "cost is negative or absurd"
    return Figures(inp, out, cr, cw, total, cost, strict)


def spent(by_model: Iterable[Sequence[float]]) -> tuple[float, float]:
    """``(tokens, cost)`` of a session or a branch from its sums per model, each
    ``(input, output, cacheRead, cacheWrite, cost, ...)`` added up in the entries' order:
    the one total every screen shows. The costs are added exactly rounded (``math.fsum``),
    so the total does not hang on the order the models are met in, nor on how each place
    keeps its sums."""
    tokens = 0
    costs = []
    for row in by_model:
        tokens += row[0] + row[1] + row[2] + row[3]
        costs.append(row[4])
    return tokens, math.fsum(costs)


def text_or_none(value) -> str | None:
    """``value`` when it is a string (what a key is made of), else None."""
    return value if type(value) is str else None


def model_key(provider: str | None, model: str | None) -> str:
    """The key a usage counts under: ``provider/model``."""
    return f"{provider}/{model}"


def assistant_key(message: dict) -> str:
    """The key an assistant message's usage counts under: ``provider/model`` (its
    ``responseModel`` when it names one)."""
    return model_key(text_or_none(message.get("provider")),
                     text_or_none(message.get("responseModel")) or text_or_none(message.get("model")))


def entry_usages(entry: dict) -> list[tuple[str, Figures | str, int]]:
    """What an entry (parsed) costs, as ``(key, figures or why not, calls)``: an assistant
    message under ``provider/model`` (its ``responseModel`` when it names one), a ``usage``
    entry under its provider/model, a subagent call's runs each under ``<model> (subagent)``
    (calls: its turns), a tool result's or a summary's own usage under :data:`TOOLS_KEY`."""
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        if type(message) is not dict:
            return []
        role = message.get("role")
        if role == "assistant":
            if "usage" not in message:
                return []
            return [(assistant_key(message), usage_figures(message.get("usage")), 1)]
        if role == "toolResult":
            runs = _subagent_usages(message)
            if runs:
                return runs
            if type(message.get("usage")) is dict:
                return [(TOOLS_KEY, usage_figures(message["usage"]), 1)]
        return []
    if kind == "usage" and "usage" in entry:
        return [(model_key(text_or_none(entry.get("provider")), text_or_none(entry.get("model"))),
                 usage_figures(entry.get("usage")), 1)]
    if type(kind) is str and kind in USAGE_TYPES and type(entry.get("usage")) is dict:  # (a type may be a list)
        return [(TOOLS_KEY, usage_figures(entry["usage"]), 1)]
    return []


def _subagent_usages(message: dict) -> list[tuple[str, Figures | str, int]]:
    """A subagent call's runs that carry a usage, each under its model; [] when none does
    (then the result's own ``usage``, if any, counts as a tool's)."""
    details = message.get("details")
    if message.get("toolName") != "subagent" or type(details) is not dict or type(details.get("results")) is not list:
        return []
    out = []
    for run in subagent_runs(details)[1]:
        if run.usage:
            turns = run.turns
            out.append(((run.model or "?") + SUBAGENT_SUFFIX, usage_figures(run.usage),
                        int(turns) if turns is not None and 1 <= turns <= MAX_TOKENS else 1))
    return out


# An assistant line in Pi's layout ends with its usage object (one level of nesting:
# "cost"), after the provider and model; read those from the tail instead of parsing the
# whole message.
_TAIL = 3072
_USAGE_RE = re.compile(rb'"usage":(\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})')
_MODEL_RE = re.compile(rb'"provider":"([^"\\]*)","model":"([^"\\]*)"')
_RESPONSE_MODEL_RE = re.compile(rb'"responseModel":"([^"\\]*)"')


def _last(pattern: re.Pattern, data: bytes, start: int):
    match = None
    for match in pattern.finditer(data, start):
        pass
    return match


def fast_assistant_usage(data: bytes) -> tuple[str, Figures | str] | None:
    """``(key, figures or why not)`` of an assistant message's raw line in Pi's layout, as
    :func:`entry_usages` gives it; None when the line's shape is not that (parse it whole)."""
    start = max(0, len(data) - _TAIL)
    usage_match = _last(_USAGE_RE, data, start)
    model_match = _last(_MODEL_RE, data, start)
    if usage_match is None or model_match is None or model_match.start() > usage_match.start():
        return None
    try:
        usage = orjson.loads(usage_match.group(1))
    except orjson.JSONDecodeError:
        return None
    rm = _last(_RESPONSE_MODEL_RE, data, model_match.start())
    model = (rm.group(1) if rm is not None and rm.group(1) else model_match.group(2)).decode("utf-8", "replace")
    return f"{model_match.group(1).decode('utf-8', 'replace')}/{model}", usage_figures(usage)
