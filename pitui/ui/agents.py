"""The app's view of every agent at work: the live board (``core/live/board.py``) over the
root being browsed, followed on a thread of its own (``core/live/watch.py``: file
notifications, else polling), its news posted to the app as :class:`~.messages.AgentsChanged`.

The app shows the news three ways: the board screen (``screens/board.py``), a mark in the
sidebar's rows of sessions on the board, and, when a session moves to waiting or failed, a
toast; optionally (``settings.json``: ``notify_bell``, ``notify_desktop``; toggled on the
board) the terminal's bell and a desktop notification through the terminal's own sequence
(OSC 9 or OSC 777), written by pitui with every piece of session text made safe first
(:func:`desktop_sequence`).

The thread is a plain daemon thread, not a Textual worker: it runs as long as the app does
(a worker that never ends would hold up everything that waits for the workers).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ..core.model.summary import one_line, shorten_home
from ..core.text import visible
from .messages import AgentsChanged

if TYPE_CHECKING:
    from ..core.live.board import Activity, Change, LiveBoard

__all__ = ["AgentWatch", "desktop_sequence", "alert_text", "MARKS", "ALERT_STATES"]

# (the states by name, as core/live/state.py gives them: that module is imported when the
# board first follows the store, not with the app)
WORKING, WAITING, FAILED, STALLED = "working", "waiting", "failed", "stalled"
#: each state's mark, in the sidebar's rows and on the board
MARKS = {WORKING: "● working", WAITING: "◆ waiting", FAILED: "✗ failed", STALLED: "○ stalled"}
#: the states a move into is announced (toast, bell, desktop notification)
ALERT_STATES = frozenset({WAITING, FAILED})
# the most characters of session text that go into a desktop notification
_NOTIFICATION_CHARS = 120


class AgentWatch:
    """The board of the app's root, kept up to date on its own thread (:meth:`start`) and
    read on the UI thread: :attr:`rows` and :attr:`states` are what the last
    :class:`AgentsChanged` said (the app sets them)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.board: LiveBoard | None = None
        self.rows: list[Activity] = []
        self.states: dict[str, str] = {}  # path -> state, of the sessions on the board
        self.now_ms = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def started(self) -> bool:
        return self._thread is not None

    def start(self, *, costs: bool = False) -> None:
        """Follow the app's root (once; ``costs``: read each session's cost too)."""
        if self._thread is not None:
            if costs:
                self.want_costs()
            return
        from ..core.live.board import LiveBoard

        self.board = LiveBoard(self.app.root, costs=costs)
        self._thread = threading.Thread(target=self._follow, name="pitui-agents", daemon=True)
        self._thread.start()

    def want_costs(self) -> None:
        """Read the sessions' costs from the next refresh on (the board screen shows them)."""
        if self.board is not None:
            self.board.costs = True

    def stop(self) -> None:
        self._stop.set()

    def _follow(self) -> None:
        from ..core.live.watch import follow

        board = self.board
        app = self.app

        def report(changes: list[Change], rows: list[Activity]) -> None:
            app.post_message(AgentsChanged(changes, rows, app.clock()))

        try:
            follow(board, app.clock, self._stop, report)
        except Exception:  # (the board is a help, never a reason for the app to fail: it stops)
            pass

    def take(self, message: AgentsChanged) -> None:
        """What a refresh said (on the UI thread)."""
        self.rows = message.rows
        self.states = {activity.path: activity.state for activity in message.rows}
        self.now_ms = message.now_ms


def alert_text(activity: "Activity") -> tuple[str, str]:
    """A toast's title and text for a session that moved to waiting or failed (one line
    each; the app's ``notify`` makes them safe to show)."""
    where = shorten_home(activity.cwd) if activity.cwd else activity.project
    title = f"{'Waiting for you' if activity.state == WAITING else 'Failed'}: {where}"
    text = activity.title
    if activity.state == FAILED:
        text += " · " + activity.doing(activity.modified_ms)
    return title, text


def _safe(text: str, limit: int = _NOTIFICATION_CHARS) -> str:
    """Session text for a terminal sequence: one line, every control character (ESC, BEL,
    the C1 string terminator, line separators, bidi controls) a visible stand-in, cut to
    ``limit`` characters; nothing left that can end the sequence or start another."""
    text = visible(one_line(text, limit))
    return "".join(ch for ch in text if ch.isprintable())


def desktop_sequence(kind: str, title: str, body: str) -> str:
    """The sequence that asks the terminal for a desktop notification: OSC 9 (``ESC ] 9 ;
    text BEL``: iTerm2, WezTerm, Windows Terminal, Ghostty) or OSC 777 (``ESC ] 777 ;
    notify ; title ; body BEL``: urxvt, foot, Ghostty). ``title`` and ``body`` may hold
    session text: they are made safe (:func:`_safe`), and a ``;`` in OSC 777's title, which
    would end it, is a ``,``."""
    if kind == "osc777":
        return f"\x1b]777;notify;{_safe(title).replace(';', ',')};{_safe(body)}\x07"
    return f"\x1b]9;{_safe(title + ': ' + body)}\x07"
