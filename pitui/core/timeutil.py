"""Time conversions that match JavaScript's ``Date`` the way Pi uses it."""

from __future__ import annotations

import math
from datetime import datetime, timezone

__all__ = ["iso_to_ms", "ms_to_iso", "format_age"]


def iso_to_ms(value: object) -> float:
    """``new Date(value).getTime()`` for the values Pi writes: ISO strings or numbers.

    Returns ``math.nan`` where JavaScript would give ``NaN`` (missing or unparsable).
    Naive ISO strings are read as UTC (JavaScript reads date-time forms without an
    offset as local time; Pi never writes those).
    """
    if isinstance(value, bool):
        return math.nan
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else math.nan
    if not isinstance(value, str) or not value:
        return math.nan
    text = value.strip()
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return math.nan
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    # Integer arithmetic keeps milliseconds exact.
    delta = dt - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return float((delta.days * 86400 + delta.seconds) * 1000 + delta.microseconds // 1000)


def ms_to_iso(ms: float | None) -> str | None:
    """``new Date(ms).toISOString()``: ``2026-07-26T12:02:43.899Z``."""
    if ms is None or not math.isfinite(ms):
        return None
    ms_int = int(ms)
    dt = datetime.fromtimestamp(ms_int // 1000, tz=timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S") + f".{ms_int % 1000:03d}Z"


def format_age(ms: float | None, now_ms: float) -> str:
    """A short age like ``5m``, ``3h``, ``2d``, ``6w``, ``1y``."""
    if ms is None or not math.isfinite(ms):
        return "?"
    seconds = max(0.0, (now_ms - ms) / 1000)
    if seconds < 60:
        return "now"
    minutes = seconds / 60
    if minutes < 60:
        return f"{int(minutes)}m"
    hours = minutes / 60
    if hours < 24:
        return f"{int(hours)}h"
    days = hours / 24
    if days < 14:
        return f"{int(days)}d"
    if days < 365:
        return f"{int(days // 7)}w"
    return f"{int(days // 365)}y"
