"""The header over the message pane, and the warnings list it opens.

Line 1: the session's name (or first message) and a warnings badge.
Line 2: cwd, created, model(s). Line 3: tokens and cost of the shown branch and of the
whole session (computed in a worker; ``…`` until then).
"""

from __future__ import annotations

import os
from datetime import datetime

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static
from textual.worker import get_current_worker

from ...core.model.doctor import Finding
from ...core.read.session import SessionWarning
from ...core.model.stats import Stats
from ...core.model.summary import one_line, shorten_home
from ...core.numbers import fmt_cost, fmt_tokens_short
from ...core.timeutil import iso_to_ms
from ..bindings import bindings_for
from ..messages import FileChecked
from ...core.text import visible

__all__ = ["SessionHeader", "WarningsScreen", "fmt_time"]


def fmt_time(value) -> str:
    """A header timestamp as local ``YYYY-MM-DD HH:MM``."""
    ms = iso_to_ms(value)
    if ms != ms:
        return "?"
    try:
        return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):  # a date Python's datetime cannot hold
        return "?"


def _models(stats: Stats | None) -> str:
    if stats is None:
        return "…"
    names = []
    for key, _ in stats.models_by_cost():
        if key == "Tools/summaries":
            continue
        model = key.split("/", 1)[1] if "/" in key else key
        model = visible(model)
        if model not in names and model != "None":
            names.append(model)
    if not names:
        return "no model"
    if len(names) > 3:
        return ", ".join(names[:3]) + f" +{len(names) - 3}"
    return ", ".join(names)


def _usage(stats: Stats | None) -> str:
    if stats is None:
        return "…"
    tokens = fmt_tokens_short(stats.total.tokens, truncate=True)
    return f"{tokens} tok {fmt_cost(stats.total.cost, zero='$0')}"


class WarningsBadge(Static):
    """``⚠ 3 warnings (lines 4, 9, 12)``; a click opens the list."""

    DEFAULT_CSS = """
    WarningsBadge { width: auto; height: 1; color: $text-warning; text-style: bold; padding: 0 1; }
    WarningsBadge.-empty { display: none; }
    """

    class Pressed(Message):
        pass

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Pressed())


class SessionHeader(Vertical):
    """Three lines of facts about the open session."""

    DEFAULT_CSS = """
    SessionHeader { height: 3; background: $panel; }
    SessionHeader > Horizontal { height: 1; }
    SessionHeader #header-title { width: 1fr; height: 1; padding: 0 1; text-style: bold; }
    SessionHeader #header-meta { width: 1fr; height: 1; padding: 0 1; color: $text-muted; }
    SessionHeader #header-usage { width: 1fr; height: 1; padding: 0 1; color: $text-muted; }
    """
    # (Each line is one row of the full width whatever it says: new text is repainted, with
    # no layout of the screen, which Static.update asks for by default.)

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Static("", id="header-title", markup=False)
            yield WarningsBadge("", id="header-warnings", markup=False, classes="-empty")
        yield Static("", id="header-meta", markup=False)
        yield Static("", id="header-usage", markup=False)

    def show_message(self, title: str, meta: str = "") -> None:
        """A header for no session (loading, errors)."""
        self.query_one("#header-title", Static).update(Text(visible(title)), layout=False)
        self.query_one("#header-meta", Static).update(Text(visible(meta)), layout=False)
        self.query_one("#header-usage", Static).update("", layout=False)
        self.set_warnings([])

    def show_session(
        self,
        *,
        title: str,
        forked_from: str | None = None,
        named: bool,
        cwd: str,
        created,
        branch: Stats | None,
        session: Stats | None,
        entries: int,
        branch_len: int,
    ) -> None:
        t = Text()
        t.append(one_line(title, 300), style="bold" if named else "")
        self.query_one("#header-title", Static).update(t, layout=False)
        parts = [visible(shorten_home(cwd)) or "?", fmt_time(created)]
        if forked_from is not None:
            parts.append("fork of " + one_line(forked_from, 60))
        meta = " · ".join(parts + [_models(session)])
        self.query_one("#header-meta", Static).update(Text(meta), layout=False)
        usage = Text()
        usage.append("branch ", style="bold")
        usage.append(_usage(branch))
        usage.append(" · ")
        usage.append("session ", style="bold")
        usage.append(_usage(session))
        usage.append(f" · {branch_len or '…'}/{entries} entries")
        self.query_one("#header-usage", Static).update(usage, layout=False)

    def set_warnings(self, warnings: list[SessionWarning]) -> None:
        badge = self.query_one(WarningsBadge)
        if not warnings:
            if badge.has_class("-empty"):
                return  # (as it was: nothing to lay out again)
            badge.add_class("-empty")
            badge.update("")
            return
        lines = [w.line for w in warnings if w.line is not None]
        shown = ", ".join(str(n) for n in lines[:4]) + (", …" if len(lines) > 4 else "")
        n = len(warnings)
        text = f"⚠ {n} warning{'s' if n != 1 else ''}"
        if shown:
            text += f" (line{'s' if len(lines) != 1 else ''} {shown})"
        badge.update(text + " w")
        badge.remove_class("-empty")


class WarningsScreen(ModalScreen[None]):
    """What is wrong in the session's file, by line, and what Pi does with each: the
    findings of ``pitui check`` (:mod:`pitui.core.model.doctor`), worked out on a worker
    when the dialog opens (the whole file is read again: never on the open path)."""

    DEFAULT_CSS = """
    WarningsScreen { align: center middle; }
    WarningsScreen > Vertical {
        width: 90%; max-width: 120; height: auto; max-height: 80%;
        border: round $warning; background: $surface; padding: 0 1;
    }
    WarningsScreen #warnings-title { text-style: bold; color: $text-warning; height: auto; }
    WarningsScreen VerticalScroll { height: auto; max-height: 100%; }
    WarningsScreen #warnings-hint { color: $text-muted; height: auto; }
    """

    BINDINGS = bindings_for("warnings")

    MAX_SHOWN = 2000

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.findings: list[Finding] | None = None  # (None until the check is done)
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Checking {visible(os.path.basename(self.path))}…", id="warnings-title", markup=False)
            with VerticalScroll():
                yield Static("", id="warnings-list", markup=False)
            yield Static("Each finding says what Pi does with it; pitui check FILE prints the same. Esc closes.",
                         id="warnings-hint", markup=False)

    def on_mount(self) -> None:
        self._check()

    @work(thread=True, exclusive=True, group="check", exit_on_error=False)
    def _check(self) -> None:
        from ...core.model.doctor import Stopped, Unreadable, check_file

        worker = get_current_worker()
        try:
            # (stopped when the dialog closes: a big file's check holds the interpreter)
            findings = check_file(self.path, lambda: worker.is_cancelled).findings
        except Stopped:
            return
        except Unreadable as exc:
            self.post_message(FileChecked([], exc.reason))
            return
        except Exception as exc:  # (a file changing under the read: say so, do not crash)
            self.post_message(FileChecked([], f"could not be checked ({exc})"))
            return
        self.post_message(FileChecked(findings))

    def on_file_checked(self, event: FileChecked) -> None:
        self.findings, self.error = event.findings, event.error
        name = visible(os.path.basename(self.path))
        n = len(event.findings)
        title = self.query_one("#warnings-title", Static)
        body = self.query_one("#warnings-list", Static)
        if event.error is not None:
            title.update(f"{name} cannot be read")
            body.update(Text(visible(event.error)))
            return
        title.update(f"{n} finding{'s' if n != 1 else ''} in {name}")
        text = Text()
        for f in event.findings[: self.MAX_SHOWN]:
            where = f"line {f.line}" if f.line is not None else ""
            text.append(f"{where:>11}  ", style="bold")
            text.append(f.kind, style="bold")
            text.append(": " + visible(f.message))
            text.append(" (Pi: " + visible(f.pi) + ")\n", style="italic")
        if n > self.MAX_SHOWN:
            text.append(f"… and {n - self.MAX_SHOWN} more\n", style="italic")
        if not n:
            text.append("Nothing wrong: every line reads, and every tool result has its call.\n")
        body.update(text)

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
