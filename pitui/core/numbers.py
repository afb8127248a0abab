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


def as_number(v: Any) -> float | None:
    """``v`` if it is a finite int or float (not a bool), else None."""
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def fmt_tokens(n: Any) -> str:
    """``950``, ``12.3k``, ``195k``, ``1.2M``; ``?`` when unknown."""
    v = as_number(n)
    if v is None:
        return "?"
    if v < 1000:
        return f"{v:g}"
    if v < 100_000:
        return f"{v / 1000:.1f}k"
    if v < 1_000_000:
        return f"{round(v / 1000)}k"
    return f"{v / 1_000_000:.1f}M"


def fmt_cost(c: Any, *, zero: str = "") -> str:
    """A cost in dollars (Pi's ``cost`` object: its ``total``), one rule wherever a cost is
    shown: four decimals under a dollar (``$0.0123``), cents with thousands separators from
    one dollar on (``$1,234.50``), ``<$0.0001`` for less than four decimals show; ``zero``
    (nothing by default; the header and the stats screen say ``$0``) when unknown, zero or
    less."""
    if isinstance(c, dict):
        c = c.get("total")
    v = as_number(c)
    if not v or v < 0:
        return zero
    if v < 0.00005:
        return "<$0.0001"
    return f"${v:.4f}" if v < 1 else f"${v:,.2f}"


def fmt_bytes(n: int) -> str:
    """``512 B``, ``1.5 KB``, ``2.0 MB``."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / 1024 / 1024:.1f} MB"


def fmt_duration(ms: Any, *, fine: bool = False) -> str:
    """Milliseconds as ``42s``, ``3m05s``, ``1h02m``; nothing when unknown or negative.
    ``fine``: under ten seconds to a tenth (``4.2s``), under one in milliseconds (``850ms``)."""
    v = as_number(ms)
    if v is None or v < 0:
        return ""
    if fine and v < 1000:
        return f"{v:.0f}ms"
    if fine and v < 10_000:
        return f"{v / 1000:.1f}s"
    s = int(v / 1000)
    if s < 60:
        return f"{s}s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m}m{s:02d}s"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"


# ---------------------------------------------------------------------------- summary forms


def fmt_tokens_short(n: float, *, truncate: bool = False) -> str:
    """A summed token count: ``950``, ``12.3k``, ``1.23M`` (the stats screen's chart).
    Under a thousand the count is rounded to a whole number, or with ``truncate`` its
    fraction dropped (the header's form)."""
    if n < 1000:
        return f"{int(n)}" if truncate else f"{n:.0f}"
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.2f}M"
