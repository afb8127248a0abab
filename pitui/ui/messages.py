"""Every message pitui posts: by its widgets to the screen, and by its thread workers.

A worker posts one of these (``post_message`` is safe from any thread) to the widget or
screen that started it, whose handler applies it on the UI thread; no worker touches a
widget. (One also hands data over otherwise: the sidebar's listing worker,
``widgets/sidebar.py``, appends rows to a locked buffer the UI thread drains.)
A message posted to a widget that is gone is dropped with its queue. Messages a widget posts
to itself do not bubble. Messages that come at a high rate say so with ``can_replace``: the
queue keeps only the newest.

Each message sets its fields in an ``__init__`` of its own, not as a dataclass: this module
is imported before the first screen, and making a dataclass (the methods it writes and
compiles) cost 25 of them a noticeable part of the start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:  # (names for the annotations only: nothing is imported for them at start)
    import threading

    from ..core.model.compare import Comparison
    from ..core.model.layout import TreeLayout
    from ..core.model.stats import Stats
    from ..core.read.session import Session
    from ..core.store.discovery import SessionRoot
    from ..core.store.listing import SessionInfo
    from ..core.model.summary import Summary
    from ..core.store.search import SessionHits
    from ..core.store.usage import Overview
    from .pane.branch_model import BranchModel
    from .pane.canvas import Rendered

__all__ = [
    "EntryFocused",
    "OpenSessionFile",
    "SearchChanged",
    "FirstRowsListed",
    "ListingDone",
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
    "UsageWorkedOut",
    "UsageFailed",
    "SessionCosts",
    "AgentsChanged",
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
    0 before ``n``), how many there are, and whether that count is final (False while the
    rest of the branch is being matched)."""

    def __init__(self, query: str, position: int, count: int, complete: bool = True) -> None:
        super().__init__()
        self.query = query
        self.position = position
        self.count = count
        self.complete = complete

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SearchChanged)


# ------------------------------------------------------------------ from the sidebar's workers
class FirstRowsListed(Message, bubble=False):
    """The sidebar's first screen of rows, from the listing index, is in the buffer the
    listing fills: show it now rather than at the next drain."""


class ListingDone(Message, bubble=False):
    """Every session under ``root`` listed (the rows came before, in batches)."""

    def __init__(self, root: SessionRoot, infos: list[SessionInfo]) -> None:
        super().__init__()
        self.root = root
        self.infos = infos


class Relisted(Message, bubble=False):
    """The periodic listing of ``root`` (None: it failed this time)."""

    def __init__(self, root: SessionRoot, infos: list[SessionInfo] | None) -> None:
        super().__init__()
        self.root = root
        self.infos = infos


# ------------------------------------------------------------------ from the browser's workers
class OpenProgress(Message):
    """How far the read of the session at ``path`` is (bytes ``done`` of ``total``)."""

    def __init__(self, path: str, done: int, total: int) -> None:
        super().__init__()
        self.path = path
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, OpenProgress) and message.path == self.path


class OpenFailed(Message):
    """The file at ``path`` is not a session that can be shown, and why."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__()
        self.path = path
        self.reason = reason


class SessionRead(Message):
    """The session at ``path`` is read, and its tree laid out in filter ``mode``; ``pane``:
    the blocks of the branch the pane shows first (``pane.prepare_branch``), ``summaries``:
    the tree's first rows (``summaries_around``), when worked out ahead."""

    def __init__(self, path: str, session: Session, layout: Any, mode: str, *, pane: BranchModel | None = None,
                 summaries: dict[int, Summary] | None = None) -> None:
        super().__init__()
        self.path = path
        self.session = session
        self.layout = layout
        self.mode = mode
        self.pane = pane
        self.summaries = summaries


class Validated(Message):
    """The lines read from their head only were read whole: ``damaged`` did not parse
    (and warnings may have been added)."""

    def __init__(self, session: Session, damaged: list[int]) -> None:
        super().__init__()
        self.session = session
        self.damaged = damaged


class Refreshed(Message):
    """The open file grew: ``snap`` is ``session`` refreshed with ``added`` entries, and
    ``layout`` its tree (for ``mode`` and ``folded``; None when nothing was added)."""

    def __init__(
        self,
        session: Session,
        snap: Session,
        added: int,
        layout: Any,
        mode: str,
        folded: frozenset[int],
    ) -> None:
        super().__init__()
        self.session = session
        self.snap = snap
        self.added = added
        self.layout = layout
        self.mode = mode
        self.folded = folded


class StatsReady(Message, bubble=False):
    """Tokens and cost of the branch ending at ``leaf`` (and of the whole session)."""

    def __init__(self, session: Session, leaf: int, branch: Stats, whole: Stats | None) -> None:
        super().__init__()
        self.session = session
        self.leaf = leaf
        self.branch = branch
        self.whole = whole


# ------------------------------------------------------------------ from the pane's workers
class LexersMade(Message, bubble=False):
    """The lexers wanted by code drawn plain are made: its blocks can be drawn again."""


class BlockDrawn(Message, bubble=False):
    """Block ``b`` drawn on a worker in state ``key`` (``stop``: set to give up a drawing
    of it whole, None for any other drawing)."""

    def __init__(self, block: int, key: tuple, rendered: Rendered, stop: threading.Event | None) -> None:
        super().__init__()
        self.b = block
        self.key = key
        self.rendered = rendered
        self.stop = stop


class BlockDrawingStopped(Message, bubble=False):
    """The drawing of block ``b`` whole in state ``key`` was given up (``stop`` was set)."""

    def __init__(self, block: int, key: tuple, stop: threading.Event) -> None:
        super().__init__()
        self.b = block
        self.key = key
        self.stop = stop


class BlockDrawnAhead(Message, bubble=False):
    """Block ``b`` drawn ahead in state ``key``, for the cache (it may be of a branch not
    shown yet)."""

    def __init__(self, block: int, key: tuple, rendered: Rendered) -> None:
        super().__init__()
        self.b = block
        self.key = key
        self.rendered = rendered


# ------------------------------------------------------------------ from the tree's workers
class TreeLayoutMade(Message, bubble=False):
    """The tree's layout of ``session`` (as ``token`` identifies it) for filter ``mode``
    and folds ``folded``."""

    def __init__(self, session: Session, mode: str, folded: frozenset[int], layout: TreeLayout, token: tuple) -> None:
        super().__init__()
        self.session = session
        self.mode = mode
        self.folded = folded
        self.layout = layout
        self.token = token


class SummariesMade(Message, bubble=False):
    """Rows of ``session`` summarised ahead, while its summaries were generation ``gen``."""

    def __init__(self, session: Session, gen: int, summaries: dict[int, Summary]) -> None:
        super().__init__()
        self.session = session
        self.gen = gen
        self.summaries = summaries


# ------------------------------------------------------------------ from the screens' workers
class StatsWorkedOut(Message, bubble=False):
    """The stats screen's numbers: the branch's and the whole session's."""

    def __init__(self, branch: Stats, whole: Stats) -> None:
        super().__init__()
        self.branch = branch
        self.whole = whole


class ToolStatsWorkedOut(Message, bubble=False):
    """The stats screen's tool calls by kind (the branch's and the whole session's) and the
    files the branch touched."""

    def __init__(self, branch: dict, whole: dict, files: list) -> None:
        super().__init__()
        self.branch = branch
        self.whole = whole
        self.files = files


class StatsFailed(Message, bubble=False):
    """The stats screen's numbers could not be worked out, and why."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class ComparisonWorkedOut(Message, bubble=False):
    """The comparison screen's branches, summed up (``core/model/compare.py``)."""

    def __init__(self, comparison: Comparison) -> None:
        super().__init__()
        self.comparison = comparison


class ComparisonFailed(Message, bubble=False):
    """The comparison could not be worked out, and why."""

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


class UsageWorkedOut(Message, bubble=False):
    """The usage screen's figures for its ``gen``-th period or filter (older ones are
    dropped), with how many session files they come from and how many usages were not
    counted; ``updating``: figures of before sessions changed, the new ones to follow."""

    def __init__(self, gen: int, figures: Overview, files: int, skipped: int, *, updating: bool = False) -> None:
        super().__init__()
        self.gen = gen
        self.figures = figures
        self.files = files
        self.skipped = skipped
        self.updating = updating  # (the last figures kept, before sessions changed: new ones follow)


class SessionCosts(Message, bubble=False):
    """Each session's own cost by path (the usage index's), for the sidebar's rows;
    ``partial``: only the sessions that changed."""

    def __init__(self, costs: dict[str, float], partial: bool = False) -> None:
        super().__init__()
        self.costs = costs
        self.partial = partial


class AgentsChanged(Message, bubble=False):
    """The live board's news (``ui/agents.py``'s thread, after each refresh): the sessions
    whose state changed (``core.live.board.Change``), every session on the board now
    (``Activity``, newest first) and the clock's time of that look."""

    def __init__(self, changes: list, rows: list, now_ms: float) -> None:
        super().__init__()
        self.changes = changes
        self.rows = rows
        self.now_ms = now_ms


class UsageFailed(Message, bubble=False):
    """The usage screen's figures could not be worked out, and why."""

    def __init__(self, gen: int, reason: str) -> None:
        super().__init__()
        self.gen = gen
        self.reason = reason


class FileChecked(Message, bubble=False):
    """The warnings dialog's findings of the open session's file (``pitui check``'s) and its
    likely secrets (``pitui check --secrets``'), or why the file could not be read (``error``)."""

    def __init__(self, findings: list, error: str | None = None, *, secrets: list | None = None) -> None:
        super().__init__()
        self.findings = findings
        self.secrets = secrets or []
        self.error = error


class SearchFound(Message, bubble=False):
    """One session's hits for the search numbered ``gen``."""

    def __init__(self, gen: int, hits: SessionHits) -> None:
        super().__init__()
        self.gen = gen
        self.hits = hits


class SearchProgress(Message, bubble=False):
    """How far the search numbered ``gen`` is: ``done`` bytes of the ``total`` it reads
    whole (the sessions the index has not reached)."""

    def __init__(self, gen: int, done: int, total: int) -> None:
        super().__init__()
        self.gen = gen
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SearchProgress) and message.gen == self.gen


class SearchDone(Message, bubble=False):
    """The search numbered ``gen`` is over."""

    def __init__(self, gen: int) -> None:
        super().__init__()
        self.gen = gen


class SearchFailed(Message, bubble=False):
    """The search numbered ``gen`` failed, and why."""

    def __init__(self, gen: int, reason: str) -> None:
        super().__init__()
        self.gen = gen
        self.reason = reason


class IndexProgress(Message, bubble=False):
    """How far the index brought up to date while the search screen is open is: ``done``
    sessions of ``total`` (``gen``: unused, 0)."""

    def __init__(self, gen: int, done: int, total: int) -> None:
        super().__init__()
        self.gen = gen
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexProgress) and message.gen == self.gen
