"""Numbers as pitui writes them in messages and exports: token counts, costs, sizes and
durations, from whatever a session file holds (a value that is not a finite number, a
bool included, is unknown: ``?`` for a count, nothing for the rest).

Every cost is written by :func:`fmt_cost` (the header and the stats screen ask it for
``$0`` rather than nothing when there is none). The header and the stats screen count
tokens summed over many messages in the summary form at the end (millions to two decimals).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "as_number",
    "fmt_tokens",
    "fmt_cost",
    "fmt_bytes",
    "fmt_duration",
    "fmt_tokens_short",
]


def as_number(value: Any) -> float | None:
    """``value`` if it is a finite int or float (not a bool), else None."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None


def fmt_tokens(value: Any) -> str:
    """``950``, ``12.3k``, ``195k``, ``1.2M``; ``?`` when unknown."""
    number = as_number(value)
    if number is None:
        return "?"
    if number < 1000:
        return f"{number:g}"
    if number < 100_000:
        return f"{number / 1000:.1f}k"
    if number < 1_000_000:
        return f"{round(number / 1000)}k"
    return f"{number / 1_000_000:.1f}M"


def fmt_cost(cost: Any, *, zero: str = "") -> str:
    """A cost in dollars (Pi's ``cost`` object: its ``total``), one rule wherever a cost is
    shown: four decimals under a dollar (``$0.0123``), cents with thousands separators from
    one dollar on (``$1,234.50``), ``<$0.0001`` for less than four decimals show; ``zero``
    (nothing by default; the header and the stats screen say ``$0``) when unknown, zero or
    less."""
    if isinstance(cost, dict):
        cost = cost.get("total")
    number = as_number(cost)
    if not number or number < 0:
        return zero
    if number < 0.00005:
        return "<$0.0001"
    return f"${number:.4f}" if number < 1 else f"${number:,.2f}"


def fmt_bytes(size: int) -> str:
    """``512 B``, ``1.5 KB``, ``2.0 MB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"


def fmt_duration(ms: Any, *, fine: bool = False) -> str:
    """Milliseconds as ``42s``, ``3m05s``, ``1h02m``; nothing when unknown or negative.
    ``fine``: under ten seconds to a tenth (``4.2s``), under one in milliseconds (``850ms``)."""
    number = as_number(ms)
    if number is None or number < 0:
        return ""
    if fine and number < 1000:
        return f"{number:.0f}ms"
    if fine and number < 10_000:
        return f"{number / 1000:.1f}s"
    seconds = int(number / 1000)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


# ---------------------------------------------------------------------------- summary forms


def fmt_tokens_short(tokens: float, *, truncate: bool = False) -> str:
    """A summed token count: ``950``, ``12.3k``, ``1.23M`` (the stats screen's chart).
    Under a thousand the count is rounded to a whole number, or with ``truncate`` its
    fraction dropped (the header's form)."""
    if tokens < 1000:
        return f"{int(tokens)}" if truncate else f"{tokens:.0f}"
    if tokens < 1_000_000:
        return f"{tokens / 1000:.1f}k"
    return f"{tokens / 1_000_000:.2f}M"
