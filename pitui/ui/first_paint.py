"""The browser's first paint: while the session named on the command line is read, the
screen stays blank (its panels held back) until the session is shown, then everything is
laid out and painted once, after the panels have settled.

Without it the first frames would be an "Opening…" notice, a second layout as every panel
gets its size, then the session's frame. A read that takes long shows the panels and the
notice with its progress after :attr:`FirstPaint.HOLD_SECONDS`, or as soon as its progress
says more than :attr:`FirstPaint.HOLD_LEFT_SECONDS` are left. The steering of Textual's
paints is in ``textual_internals.py``; this helper only decides when.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from . import textual_internals

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.timer import Timer
    from textual.widget import Widget

__all__ = ["FirstPaint"]


class FirstPaint:
    """Holds ``screen``'s panels (the widget ``panels``) back, then lets them paint once."""

    HOLD_SECONDS = 1.0
    HOLD_LEFT_SECONDS = 0.5
    #: The longest the held panels' first paint waits for them to settle.
    SETTLE_SECONDS = 0.1

    def __init__(self, screen: Screen) -> None:
        self.screen = screen
        self._timer: Timer | None = None  # the panels are held back
        self._since = 0.0
        self._settling = False  # no paint until the first session's changes settle

    @property
    def holding(self) -> bool:
        """The panels are held back (not shown yet)."""
        return self._timer is not None

    def paint_held(self) -> bool:
        """Whether the screen's paints are held back now: while held, and while settling."""
        return self._settling or self._timer is not None

    def hold(self, panels: Widget) -> None:
        """Hold ``panels`` back while the first session is read: nothing is painted meanwhile."""
        panels.display = False
        self._since = time.monotonic()
        self._timer = self.screen.set_timer(self.HOLD_SECONDS, lambda: self.end(panels))

    def end(self, panels: Widget, lay_out: bool = False) -> bool:
        """Show ``panels`` if they were held back (and say whether they were); ``lay_out``:
        give them their sizes at once (the session about to be set then is laid out and
        drawn at its size in the next frame, not drawn blank first and again once each
        panel has heard its size)."""
        if self._timer is None:
            return False
        self._timer.stop()
        self._timer = None
        panels.display = True
        if lay_out:
            textual_internals.lay_out_now(self.screen)
        return True

    def too_slow(self, done: int, total: int) -> bool:
        """Whether a read that has ``done`` of ``total`` bytes, at the pace so far counted
        from the hold (the read of ``pitui FILE`` began a little earlier: this errs towards
        holding, which HOLD_SECONDS bounds), has more than HOLD_LEFT_SECONDS to go."""
        if self._timer is None or not done:
            return False
        return (time.monotonic() - self._since) * (total - done) / done > self.HOLD_LEFT_SECONDS

    def paint_when_settled(self) -> None:
        """Paint nothing until what was just set has settled: every panel has taken in its
        new size and asked for what it needs, so that the screen is laid out and painted
        once (not a frame, then a layout and another frame for each round of changes:
        the scrollbars, the header). At most SETTLE_SECONDS."""
        screen = self.screen
        app = screen.app
        textual_internals.begin_batch(app)  # (no layout pass nor paint at Textual's frames meanwhile)
        self._settling = True  # (nor the paint a layout made now leaves for later)
        started = time.monotonic()
        timer: list[Timer] = []

        def check() -> None:
            if not timer:
                return
            try:
                done = not textual_internals.has_pending_work(screen) or time.monotonic() - started > self.SETTLE_SECONDS
            except Exception:  # (Textual's internals: pinned, but never hold the screen)
                done = True
            if done:
                timer.pop().stop()
                self._settling = False
                textual_internals.end_batch(app)
                screen.refresh()  # (what was left unpainted)

        timer.append(screen.set_interval(0.002, check))
