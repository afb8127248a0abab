"""The app's notion of "now", injectable so ages (``5m``, ``3h``) are stable in tests."""

from __future__ import annotations

import time
from typing import Callable

from ..core.timeutil import iso_to_ms

__all__ = ["Clock", "system_clock", "fixed_clock"]

#: A clock returns the current time in milliseconds since the epoch.
Clock = Callable[[], float]


def system_clock() -> float:
    """The wall clock, in milliseconds."""
    return time.time() * 1000.0


def fixed_clock(iso: str) -> Clock:
    """A clock stopped at ``iso`` (for tests and screenshots)."""
    ms = iso_to_ms(iso)
    if ms != ms:  # NaN
        raise ValueError(f"not an ISO time: {iso!r}")

    def clock() -> float:
        return ms

    return clock
