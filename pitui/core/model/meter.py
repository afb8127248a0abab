"""How full the model's context was at an entry: Pi's footer meter, for any entry of any
branch.

The context is the prompt of the last reply at or above the entry: that assistant message's
``input + cacheRead + cacheWrite`` tokens (aborted and failed replies, and replies that
report no tokens, do not count, as Pi skips them). A compaction between that reply and the
entry makes the count unknown until the next reply, as in Pi's footer; the compaction's
``tokensBefore`` is kept, to mark where the context was cut. The window comes from the model
table (``windows``): a session does not record it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..numbers import as_number
from ..read.session import Session
from .windows import BY_MODEL, BY_PROVIDER_MODEL

__all__ = ["ContextMeter", "context_meter", "model_window", "prompt_tokens"]

#: entries walked up from the entry to find the reply before it (a loop, not recursion; a
#: branch with no reply in this many entries shows no meter)
_WALK_LIMIT = 20_000


def model_window(provider: object, model: object) -> int | None:
    """The context window of ``model`` as ``provider`` serves it, when pitui knows it."""
    if not isinstance(model, str):
        return None
    if isinstance(provider, str) and (provider, model) in BY_PROVIDER_MODEL:
        return BY_PROVIDER_MODEL[(provider, model)]
    return BY_MODEL.get(model)


def _short(count: int) -> str:
    """``950``, ``253k``, ``1M``, ``1.05M``: Pi's footer's round figures."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.0f}k"
    return f"{count / 1_000_000:.2f}".rstrip("0").rstrip(".") + "M"


@dataclass(frozen=True, slots=True)
class ContextMeter:
    """``tokens`` the context held (None: unknown since a compaction), of ``window`` (None:
    the model's window is not known), and the ``tokensBefore`` of the compaction that last
    cut it above the entry, if any."""

    tokens: int | None
    window: int | None
    compacted_at: int | None = None

    @property
    def percent(self) -> float | None:
        if self.tokens is None or not self.window:
            return None
        return self.tokens * 100 / self.window

    def text(self, short: bool = False) -> str:
        """``253k / 1M · 25%``, ``? / 200k · compacted at 180k``; ``short``: ``253k/1M 25%``."""
        used = "?" if self.tokens is None else _short(self.tokens)
        sep = "/" if short else " / "
        out = used if self.window is None else f"{used}{sep}{_short(self.window)}"
        percent = self.percent
        if percent is not None:
            out += f" {percent:.0f}%" if short else f" · {percent:.0f}%"
        if self.compacted_at is not None and not short:
            out += f" · compacted at {_short(self.compacted_at)}"
        return out


def prompt_tokens(msg: dict) -> int | None:
    """The prompt tokens of a reply Pi counts (None for one it skips)."""
    if msg.get("stopReason") in ("aborted", "error"):
        return None
    usage = msg.get("usage")
    if not isinstance(usage, dict):
        return None
    total = 0
    for key in ("input", "cacheRead", "cacheWrite"):
        value = as_number(usage.get(key))
        if value is not None and value > 0:
            total += value
    return int(total) if total > 0 else None


def context_meter(session: Session, index: int) -> ContextMeter | None:
    """The meter at entry ``index``: None when no reply at or above it says how full it was."""
    if not 0 <= index < len(session):
        return None
    types, roles, parent = session.types, session.roles, session.parent
    compacted_at: int | None = None
    compacted = False
    node, steps = index, 0
    while node >= 0 and steps < _WALK_LIMIT:
        kind = types[node]
        if kind == "compaction" and not compacted:
            compacted = True
            before = as_number(session.entry(node).get("tokensBefore"))
            compacted_at = int(before) if before is not None and before > 0 else None
        elif kind == "message" and roles[node] == "assistant":
            msg = session.message(node) or {}
            tokens = prompt_tokens(msg)
            if tokens is not None:
                window = model_window(msg.get("provider"), msg.get("model"))
                return ContextMeter(None if compacted else tokens, window, compacted_at)
        node, steps = parent[node], steps + 1
    return None
