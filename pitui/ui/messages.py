"""Every message pitui posts: by its widgets to the screen, and by its thread workers.

A worker never touches a widget: it posts one of these (``post_message`` is safe from any
thread) and the screen's handler applies it on the UI thread. Messages that come at a high
rate say so with ``can_replace``: the queue keeps only the newest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from ..core.model.stats import Stats
from ..core.read.session import Session
from ..core.store.discovery import SessionRoot
from ..core.store.listing import SessionInfo

__all__ = [
    "EntryFocused",
    "OpenSessionFile",
    "SearchChanged",
    "ListingDone",
    "ListingFailed",
    "Relisted",
    "OpenProgress",
    "OpenFailed",
    "SessionRead",
    "Validated",
    "Refreshed",
    "StatsReady",
]


# ------------------------------------------------------------------ from the message pane
class EntryFocused(Message, namespace="message_pane"):
    """Scrolling brought another entry to the top of the pane (posted debounced)."""

    def __init__(self, entry: int) -> None:
        super().__init__()
        self.entry = entry


class OpenSessionFile(Message, namespace="message_pane"):
    """The user asked to open a session file (a subagent's full transcript)."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path


class SearchChanged(Message, namespace="message_pane"):
    """The pane's search changed: its query ("" when none), the hit that is current (1-based;
    0 before ``n``) and how many there are."""

    def __init__(self, query: str, position: int, count: int) -> None:
        super().__init__()
        self.query = query
        self.position = position
        self.count = count

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SearchChanged)


# ------------------------------------------------------------------ from the browser's workers
@dataclass
class ListingDone(Message):
    """Every session under ``root`` listed (the rows came before, in batches)."""

    root: SessionRoot
    infos: list[SessionInfo]


@dataclass
class ListingFailed(Message):
    """The store could not be listed at all."""

    reason: str


@dataclass
class Relisted(Message):
    """The periodic listing of ``root`` (None: it failed this time)."""

    root: SessionRoot
    infos: list[SessionInfo] | None


@dataclass
class OpenProgress(Message):
    """How far the read of the session at ``path`` is (bytes ``done`` of ``total``)."""

    path: str
    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, OpenProgress) and message.path == self.path


@dataclass
class OpenFailed(Message):
    """The file at ``path`` is not a session that can be shown, and why."""

    path: str
    reason: str


@dataclass
class SessionRead(Message):
    """The session at ``path`` is read, and its tree laid out in filter ``mode``."""

    path: str
    session: Session
    layout: Any  # (core.model.layout.TreeLayout)
    mode: str


@dataclass
class Validated(Message):
    """The lines read from their head only were read whole: ``damaged`` did not parse
    (and warnings may have been added)."""

    session: Session
    damaged: list[int]


@dataclass
class Refreshed(Message):
    """The open file grew: ``snap`` is ``session`` refreshed with ``added`` entries, and
    ``layout`` its tree (for ``mode`` and ``folded``; None when nothing was added)."""

    session: Session
    snap: Session
    added: int
    layout: Any
    mode: str
    folded: frozenset[int]


@dataclass
class StatsReady(Message):
    """Tokens and cost of the branch ending at ``leaf`` (and of the whole session)."""

    session: Session
    leaf: int
    branch: Stats
    whole: Stats | None
