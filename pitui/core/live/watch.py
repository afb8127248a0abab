"""Keeping a board live: the platform's file notifications where there are some (through
``watchfiles``: inotify, FSEvents, ReadDirectoryChangesW), polling the files' stats once a
second otherwise.

Polling, each refresh stats the files written in the last day and a quarter of the others
(:data:`~.board.COLD_TURNS`): a write shows within a second, or within four in a session
last written more than a day ago. With notifications a refresh looks only at the files
named (the clock's effects, stalls and sessions leaving the window, are worked out between
them), and such a polling refresh runs every :data:`LOOK_SECONDS` besides, for what
notifications miss (a project folder that is a link to somewhere else, events dropped under
load): a write shows within a second.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

from .board import Activity, Change, LiveBoard

__all__ = ["follow", "POLL_SECONDS", "LOOK_SECONDS"]

#: how often the files are statted without notifications, and the clock looked at with them
POLL_SECONDS = 1.0
#: how often the files are statted (as polling does) even with notifications
LOOK_SECONDS = 5.0
# notifications come in batches: what came in this many milliseconds is one refresh
_DEBOUNCE_MS = 100

Report = Callable[[list[Change], list[Activity]], None]


def follow(board: LiveBoard, clock_ms: Callable[[], float], stop: threading.Event, report: Report, *,
           notifications: bool = True) -> str:
    """Refresh ``board`` until ``stop`` is set, calling ``report(changes, rows)`` after each
    refresh (the first one too, with no changes). Returns how it followed: ``"notifications"``
    or ``"polling"`` (notifications off, not available, or failed to start)."""
    now = clock_ms()
    board.refresh(now)
    report([], board.rows(now))
    if notifications and not stop.is_set():
        try:
            import watchfiles
        except ImportError:  # pragma: no cover - a dependency; polling still works without it
            watchfiles = None
        if watchfiles is not None:
            try:
                _notified(watchfiles, board, clock_ms, stop, report)
                return "notifications"
            except (OSError, RuntimeError):
                pass  # (no notifications here: a watch limit reached, a file system without them)
    while not stop.wait(POLL_SECONDS):
        now = clock_ms()
        changes = board.refresh(now)
        report(changes, board.rows(now))
    return "polling"


def _notified(watchfiles, board: LiveBoard, clock_ms, stop: threading.Event, report: Report) -> None:
    last_look = -LOOK_SECONDS  # (the first batch looks at the files: what was written while the watch started)
    for batch in watchfiles.watch(str(board.root.path), watch_filter=_sessions_only, debounce=_DEBOUNCE_MS,
                                  step=50, stop_event=stop, rust_timeout=int(POLL_SECONDS * 1000),
                                  yield_on_timeout=True, raise_interrupt=False):
        now = clock_ms()
        if time.monotonic() - last_look >= LOOK_SECONDS:
            last_look = time.monotonic()
            changes = board.refresh(now)
        elif batch:
            changes = board.refresh(now, [path for _kind, path in batch])
        else:
            changes = board.tick(now)
        report(changes, board.rows(now))


def _sessions_only(_change, path: str) -> bool:
    return path.endswith(".jsonl")
