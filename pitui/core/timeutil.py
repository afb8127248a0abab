"""Time conversions that match JavaScript's ``Date`` the way Pi uses it."""

from __future__ import annotations

import math
from datetime import datetime, timezone

__all__ = ["iso_to_ms", "ms_to_iso", "format_age", "local_minute", "MAX_DATE_MS"]

MAX_DATE_MS = 8.64e15  # JavaScript's Date range: 100,000,000 days either side of 1970


def iso_to_ms(value: object) -> float:
    """``new Date(value).getTime()`` for the values Pi writes: ISO strings or numbers.

    Returns ``math.nan`` where JavaScript would give ``NaN`` (missing or unparsable).
    Naive ISO strings are read as UTC (JavaScript reads date-time forms without an
    offset as local time; Pi never writes those).
    """
    if isinstance(value, bool):
        return math.nan
    if isinstance(value, (int, float)):
        # (a Date holds at most 8.64e15 ms either side of 1970; beyond that it is invalid)
        return float(value) if math.isfinite(value) and abs(value) <= MAX_DATE_MS else math.nan
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
    """``new Date(ms).toISOString()``: ``2026-07-26T12:02:43.899Z`` (years outside 0-9999
    as ``+012345-…``/``-000001-…``, as JavaScript writes them). None for an invalid date."""
    if ms is None or not math.isfinite(ms) or abs(ms) > MAX_DATE_MS:
        return None
    ms_int = int(ms)  # (TimeClip truncates toward zero)
    days, rest = divmod(ms_int, 86_400_000)
    year, month, day = _civil_from_days(days)
    secs, milli = divmod(rest, 1000)
    hh, rem = divmod(secs, 3600)
    mm, ss = divmod(rem, 60)
    if 0 <= year <= 9999:
        year_text = f"{year:04d}"
    else:
        year_text = f"{'+' if year > 0 else '-'}{abs(year):06d}"
    return f"{year_text}-{month:02d}-{day:02d}T{hh:02d}:{mm:02d}:{ss:02d}.{milli:03d}Z"


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """(year, month, day) of the proleptic Gregorian day ``days`` days after 1970-01-01
    (Howard Hinnant's algorithm: exact for every date JavaScript can hold)."""
    days += 719_468
    era = days // 146_097
    doe = days - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    year = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return year + (month <= 2), month, day


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


def local_minute(value: object) -> str:
    """The local date and time, to the minute, of an ISO string or epoch milliseconds as
    Pi writes them: ``2026-08-26 10:59`` ("" for a missing or invalid date)."""
    ms = iso_to_ms(value)
    if math.isnan(ms):
        return ""
    try:
        return datetime.fromtimestamp(ms / 1000).astimezone().strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return ""
