"""Every message pitui posts: by its widgets to the screen, and by its thread workers.

A worker never touches a widget: it posts one of these (``post_message`` is safe from any
thread) to the widget or screen that started it, whose handler applies it on the UI thread.
A message posted to a widget that is gone is dropped with its queue. Messages a widget posts
to itself do not bubble. Messages that come at a high rate say so with ``can_replace``: the
queue keeps only the newest.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

from ..core.model.stats import Stats
from ..core.read.session import Session
from ..core.store.discovery import SessionRoot
from ..core.store.listing import SessionInfo

if TYPE_CHECKING:  # (the search module loads with the search screen, not at start)
    from ..core.model.layout import TreeLayout
    from ..core.model.summary import Summary
    from ..core.store.search import SessionHits
    from .pane.out import Rendered

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
    "LexersMade",
    "BlockDrawn",
    "BlockDrawingStopped",
    "BlockDrawnAhead",
    "TreeLayoutMade",
    "SummariesMade",
    "StatsWorkedOut",
    "ToolStatsWorkedOut",
    "StatsFailed",
    "FileChecked",
    "SearchFound",
    "SearchProgress",
    "SearchDone",
    "SearchFailed",
    "IndexProgress",
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
class FirstRowsListed(Message):
    """The sidebar's first screen of rows, from the listing index, is in the buffer the
    listing fills: show it now rather than at the next drain."""


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


# ------------------------------------------------------------------ from the pane's workers
@dataclass
class LexersMade(Message, bubble=False):
    """The lexers wanted by code drawn plain are made: its blocks can be drawn again."""


@dataclass
class BlockDrawn(Message, bubble=False):
    """Block ``b`` drawn on a worker in state ``key`` (``stop``: set to give up a drawing
    of it whole, None for any other drawing)."""

    b: int
    key: tuple
    rendered: Rendered
    stop: threading.Event | None


@dataclass
class BlockDrawingStopped(Message, bubble=False):
    """The drawing of block ``b`` whole in state ``key`` was given up (``stop`` was set)."""

    b: int
    key: tuple
    stop: threading.Event


@dataclass
class BlockDrawnAhead(Message, bubble=False):
    """Block ``b`` drawn ahead in state ``key``, for the cache (it may be of a branch not
    shown yet)."""

    b: int
    key: tuple
    rendered: Rendered


# ------------------------------------------------------------------ from the tree's workers
@dataclass
class TreeLayoutMade(Message, bubble=False):
    """The tree's layout of ``session`` (as ``token`` identifies it) for filter ``mode``
    and folds ``folded``."""

    session: Session
    mode: str
    folded: frozenset[int]
    layout: TreeLayout
    token: tuple


@dataclass
class SummariesMade(Message, bubble=False):
    """Rows of ``session`` summarised ahead, while its summaries were generation ``gen``."""

    session: Session
    gen: int
    summaries: dict[int, Summary]


# ------------------------------------------------------------------ from the screens' workers
@dataclass
class StatsWorkedOut(Message, bubble=False):
    """The stats screen's numbers: the branch's and the whole session's."""

    branch: Stats
    whole: Stats


@dataclass
class ToolStatsWorkedOut(Message, bubble=False):
    """The stats screen's tool calls by kind (the branch's and the whole session's) and the
    files the branch touched."""

    branch: dict
    whole: dict
    files: list


@dataclass
class StatsFailed(Message, bubble=False):
    """The stats screen's numbers could not be worked out, and why."""

    reason: str


@dataclass
class FileChecked(Message, bubble=False):
    """The warnings dialog's findings of the open session's file (``pitui check``'s), or
    why the file could not be read (``error``)."""

    findings: list
    error: str | None = None


@dataclass
class SearchFound(Message, bubble=False):
    """One session's hits for the search numbered ``gen``."""

    gen: int
    hits: SessionHits


@dataclass
class SearchProgress(Message, bubble=False):
    """How far the search numbered ``gen`` is: ``done`` sessions of ``total`` indexed."""

    gen: int
    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SearchProgress) and message.gen == self.gen


@dataclass
class SearchDone(Message, bubble=False):
    """The search numbered ``gen`` is over."""

    gen: int


@dataclass
class SearchFailed(Message, bubble=False):
    """The search numbered ``gen`` failed, and why."""

    gen: int
    reason: str


@dataclass
class IndexProgress(Message, bubble=False):
    """How far the index brought up to date while the user types is (``gen``: the search
    shown then): ``done`` sessions of ``total``."""

    gen: int
    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexProgress) and message.gen == self.gen
