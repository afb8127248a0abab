"""What an agent is doing, read from the end of its session: working, waiting for you, or
failed, with the tool it runs and since when.

The last message decides (Pi appends every entry, so the file's last message is the agent's
latest step):

- a user message or a tool result: **working** (the model is answering); an assistant
  message that ended with ``toolUse`` and whose calls are not all answered: **working**,
  a tool running (the first call without a result);
- an assistant message that ended with ``stop`` or ``length`` (or any reason Pi does not
  name): **waiting** for you;
- one that ended with ``error`` or ``aborted``: **failed**, with its ``errorMessage``.

Entries that are not such messages (names, labels, model changes, compactions, a ``!``
command the user ran, extensions' entries) do not change what the agent is doing and are
read past. *Stalled* (working, and nothing written for a while) needs a clock: the board
decides it (:mod:`.board`).

Only the end of the file is read, backwards, a block at a time, up to the last assistant
message (and, for a session at work, back to the message that started the work, so the
board can say for how long), never more than :data:`END_LIMIT` bytes. A last line without
its newline is a line Pi is still writing: it is left for the next read, as follow mode
(``F``) does. A line that does not parse is read past, as Pi reads past it. An event
stream (``pi --mode json``, an RPC log) is read by its :class:`~..read.stream.StreamBuilder`
and its rebuilt entries given to the same reading (:func:`facts_of_entries`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from ..model.meter import prompt_tokens
from ..model.summary import format_tool_call, one_line
from ..read.lines import open_regular, parse_line
from ..timeutil import iso_to_ms

__all__ = ["WORKING", "WAITING", "FAILED", "STALLED", "STATES", "EndFacts", "read_end", "facts_of_entries",
           "tool_summary", "END_LIMIT"]

WORKING, WAITING, FAILED, STALLED = "working", "waiting", "failed", "stalled"
STATES = (WORKING, WAITING, FAILED, STALLED)

#: the most bytes read back from a file's end for one reading (a tool's output can be
#: megabytes; the lines that decide are the last few)
END_LIMIT = 16 * 1024 * 1024
_BLOCK = 64 * 1024
_FAILED_REASONS = frozenset({"error", "aborted"})
_SUMMARY_CHARS = 200


@dataclass(slots=True)
class EndFacts:
    """What a session's end says. ``state`` is :data:`WORKING`, :data:`WAITING` or
    :data:`FAILED`; ``since_ms`` when it began (epoch ms; for work, the message that
    started it when it was within reach, else the oldest step read); ``tool`` the call
    running as ``(name, summary)`` (``("bash", "npm test")``) and ``tool_since_ms`` when it
    was called; ``model``, ``error_message`` and ``context_tokens`` those of the last
    assistant message (its prompt's tokens, as the header's meter counts them) and
    ``stop_reason`` its ``stopReason``; ``last_ms``
    the newest entry's time; ``empty``: no message at all yet."""

    state: str
    since_ms: float | None = None
    tool: tuple[str, str] | None = None
    tool_since_ms: float | None = None
    model: str | None = None
    error_message: str | None = None
    context_tokens: int | None = None
    last_ms: float | None = None
    empty: bool = False
    stop_reason: str | None = None


def tool_summary(name: str, args) -> str:
    """A running call in one safe line: ``npm test`` for bash, a path for read/write/edit,
    the arguments in short otherwise (:func:`..model.summary.format_tool_call` without its
    brackets and name)."""
    text = format_tool_call(name, args)
    prefix = f"[{name}: "
    if text.startswith(prefix) and text.endswith("]"):
        text = text[len(prefix):-1]
    return one_line(text, _SUMMARY_CHARS)


def _ms(entry: dict, msg: dict | None) -> float | None:
    ms = iso_to_ms(entry.get("timestamp"))
    if math.isnan(ms) and msg is not None:
        ms = iso_to_ms(msg.get("timestamp"))
    return None if math.isnan(ms) else ms


def _str(value) -> str | None:
    return value if type(value) is str else None


def _calls(msg: dict) -> list[dict]:
    content = msg.get("content")
    if type(content) is not list:
        return []
    return [block for block in content if type(block) is dict and block.get("type") == "toolCall"]


class _Reading:
    """The entries of a session fed newest first (:meth:`feed` says when it has read
    enough); :meth:`facts` what they say. ``stretch``: read on to where the work began."""

    __slots__ = ("stretch", "state", "since", "earliest", "answered", "results", "tool", "tool_since", "model",
                 "error", "context", "last", "need_assistant", "done", "header_ms", "reason")

    def __init__(self, stretch: bool) -> None:
        self.stretch = stretch
        self.state: str | None = None
        self.since: float | None = None
        self.earliest: float | None = None  # the oldest step of the work read so far
        self.answered: set = set()  # tool call ids with a result after the last assistant message
        self.results = False
        self.tool: tuple[str, str] | None = None
        self.tool_since: float | None = None
        self.model: str | None = None
        self.error: str | None = None
        self.context: int | None = None
        self.last: float | None = None
        self.need_assistant = False  # working after a user message: read on for the model
        self.done = False
        self.header_ms: float | None = None
        self.reason: str | None = None

    def feed(self, entry) -> bool:
        """Take the next entry back (a parsed line); True once enough is known."""
        if type(entry) is not dict:
            return self.done
        kind = entry.get("type")
        if kind == "session":  # (the header: the file's start)
            self.header_ms = _ms(entry, None)
            self.done = True
            return True
        msg = entry.get("message") if kind in ("message", None) else None
        if type(msg) is not dict:
            return False
        role = msg.get("role")
        if role not in ("user", "assistant", "toolResult"):
            return False
        at = _ms(entry, msg)
        if self.last is None:
            self.last = at
        if self.state is None:
            self._decide(role, msg, at)
        elif self.need_assistant:
            if role == "assistant":
                self._assistant(msg)
                self.done = True
        else:
            self._work_began(role, msg, at)
        return self.done

    def _assistant(self, msg: dict) -> None:
        self.model = _str(msg.get("model"))
        self.context = prompt_tokens(msg)
        self.error = _str(msg.get("errorMessage"))
        self.reason = _str(msg.get("stopReason"))

    def _decide(self, role: str, msg: dict, at: float | None) -> None:
        if role == "toolResult":
            self.results = True
            tcid = msg.get("toolCallId")
            if type(tcid) is str:
                self.answered.add(tcid)
            self.earliest = at
            return
        if role == "user":
            self.state, self.since = WORKING, at
            self.need_assistant = True
            return
        self._assistant(msg)
        reason = msg.get("stopReason")
        calls = _calls(msg)
        if self.results or reason == "toolUse":
            self.state = WORKING
            self.error = None
            for call in calls:
                if call.get("id") not in self.answered:
                    name = _str(call.get("name")) or "?"
                    self.tool = (one_line(name, 60), tool_summary(name, call.get("arguments")))
                    self.tool_since = at
                    break
            self.earliest = at
            if not self.stretch:
                self.since = at
                self.done = True
            return
        self.state = FAILED if reason in _FAILED_REASONS else WAITING
        if self.state == WAITING:
            self.error = None
        self.since = at
        self.done = True

    def _work_began(self, role: str, msg: dict, at: float | None) -> None:
        """Reading back through a session at work, to the message that started it."""
        if role == "user":
            self.since = at
            self.done = True
        elif role == "assistant" and msg.get("stopReason") != "toolUse":
            self.done = True  # (the work began after this reply)
        else:
            self.earliest = at

    def facts(self) -> EndFacts:
        if self.state is None:
            if self.results:  # (results and no call read: the work goes on past what was read)
                return EndFacts(WORKING, self.earliest, last_ms=self.last)
            return EndFacts(WAITING, self.header_ms, last_ms=self.last, empty=self.done)
        since = self.since
        if self.state == WORKING and since is None:
            since = self.earliest
        return EndFacts(self.state, since, self.tool, self.tool_since, self.model, self.error, self.context,
                        self.last, stop_reason=self.reason)


def facts_of_entries(entries_newest_first: Iterable, *, stretch: bool = True) -> EndFacts:
    """What entries given newest first say (an event stream's rebuilt entries)."""
    reading = _Reading(stretch)
    for entry in entries_newest_first:
        if reading.feed(entry):
            break
    reading.done = True
    return reading.facts()


def read_end(path: str, size: int, *, stretch: bool = True, limit: int = END_LIMIT) -> tuple[EndFacts, int]:
    """The facts of the session file at ``path`` from its end, read back from byte
    ``size`` (the size its stat gave), and where its whole lines end (a last line without
    its newline is not read). ``stretch``: read back to the message that started the work
    (False when the caller already knows it). Raises OSError."""
    reading = _Reading(stretch)
    end = None
    with open_regular(path) as handle:
        pos = size
        rest = b""  # the bytes after the last newline found going back, before the lines read
        spent = 0
        while pos > 0 and spent < limit and not reading.done:
            to_read = min(_BLOCK if end is not None else 4096, pos)
            pos -= to_read
            handle.seek(pos)
            block = handle.read(to_read)
            spent += to_read
            data = block + rest
            if end is None:
                newline = data.rfind(b"\n")
                if newline < 0:
                    rest = data
                    continue
                end = pos + newline + 1
                data = data[:newline]
            lines = data.split(b"\n")
            rest = lines[0] if pos > 0 else b""
            for line in reversed(lines if pos == 0 else lines[1:]):
                line = line.rstrip(b"\r")
                if line.strip() and reading.feed(parse_line(line).value):
                    break
            if pos > 0 and len(rest) > limit:
                break
    reading.done = reading.done or pos == 0
    return reading.facts(), end if end is not None else 0
