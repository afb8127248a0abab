"""Search across all sessions: the session files matched row by row, narrowed by an SQLite
FTS5 (trigram) index of each chunk's words, beside the listing index.

This module is search's entry point (:func:`search`, :func:`update_index`, and the names the
app, the command line and the tests import); the work is done by:

* :mod:`.search_query`: Pi's ``/resume`` query language (and pitui's ``kind:``), parsed into
  terms, with what each term requires of a chunk that may hold its match;
* :mod:`.search_rows`: what is searched: an entry's rows (its searchable texts, capped),
  and the rows of a session file or event stream read line by line;
* :mod:`.search_match`: a session's rows matched against a query: whether it is a result,
  and its hits with a line of context each;
* :mod:`.search_words`: the words the index keeps of a text, and its word-pair bitmaps;
* :mod:`.search_chunks`: a file cut into chunks of whole lines, and chunks read back;
* :mod:`.search_index`: the index file (SQLite FTS5), its incremental update, and the
  chunks a query reads;
* :mod:`.search_worker`: the index's cold build in worker processes.

How a query runs
----------------
Results come in recency order, which needs no pass over the matches: sessions newest first
(the listing's order, Pi's: the most recently modified first), each session's hits in
entry order (header rows first). Each session is matched when its turn comes and handed out
at once; a ``limit`` stops the search there, and a caller that stops iterating (or whose
``should_stop()`` comes true, polled between sessions, between chunks and every few dozen
rows) ends it. No ranking, and nothing counted beyond the sessions handed out, nor within
one beyond what it shows: a session's ``hit_count`` counts its own rows, and stops one row
past the hits it keeps (``max_hits``; ``count_all`` counts them all), so a huge session
gives its first hits from the first chunks that hold them and is not read on (then only
the chunks that may hold a term not matched yet are read, to tell whether it is a result).
Files that changed are indexed on the way, each just before it is searched; which chunks of
a session are read is the index's (:meth:`~.search_index.SearchIndex.query`).

While the index is being built (the app builds it apart, :func:`update_index`),
:func:`search_while_indexing` does not wait for it: what the index holds up to date is
searched from it, and every other session file is read whole and matched as without the
index, the smallest and most recent first; results come in that order, for a caller that
places them (the app's results are ordered newest first as they come).

``search(..., use_index=False)`` reads the session files themselves with the same line
reader and matcher (:func:`~.search_rows._file_lines`, :func:`~.search_match.match_rows`):
the same hits in the same order, and nothing written.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Callable, Iterable, Iterator

from .discovery import SessionRoot, find_session_files
from .listing import SessionIndex, SessionInfo, list_sessions
from .search_chunks import IndexStats
from .search_index import SCHEMA_VERSION, SearchIndex
from .search_match import MAX_HITS, Hit, SessionHits, _first_hits, _in_turns, _scan_file, count_to_of, match_rows
from .search_query import Query, QueryError, Term, describe_kinds, parse_kind, parse_query
from .search_rows import HEAD_CAP, KINDS, TAIL_CAP, _identity, entry_rows

__all__ = [
    "Hit",
    "SessionHits",
    "Query",
    "Term",
    "QueryError",
    "IndexStats",
    "SearchIndex",
    "parse_query",
    "parse_kind",
    "describe_kinds",
    "entry_rows",
    "search",
    "search_while_indexing",
    "match_rows",
    "update_index",
    "HEAD_CAP",
    "TAIL_CAP",
    "SCHEMA_VERSION",
    "KINDS",
]


def _infos(root: SessionRoot, index_dir) -> list[SessionInfo]:
    listing = SessionIndex(index_dir)
    return [info for info in list_sessions(root, listing) if info.error is None]


def update_index(
    root: SessionRoot,
    *,
    index_dir: str | os.PathLike | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> IndexStats:
    """Bring the search index of every session under ``root`` up to date (see the module
    docstring); returns what was done. Safe to call from several threads or processes."""
    paths = [sf.path for sf in find_session_files(root)]
    with SearchIndex(index_dir) as idx:
        return idx.update(paths, root=root, on_progress=on_progress, should_stop=should_stop)


def search(
    root: SessionRoot,
    query: str | Query,
    *,
    index_dir: str | os.PathLike | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    limit: int | None = None,
    max_hits: int = MAX_HITS,
    update: bool = True,
    should_stop: Callable[[], bool] | None = None,
    infos: Iterable[SessionInfo] | None = None,
    use_index: bool = True,
    count_all: bool = False,
    fold: bool = False,
    first_hits: int | None = None,
) -> Iterator[SessionHits]:
    """Search every session under ``root``; yields one :class:`SessionHits` per matching
    session, newest session first (Pi's order), as each is found.

    Files that changed since they were indexed are (re)indexed on the way, each just before
    it is searched (``on_progress(done, total)`` counts them; ``update=False`` searches the
    index as it is), so even a first search over a large store streams its results.
    ``limit`` caps the sessions yielded, ``max_hits`` the hits kept per session;
    ``hit_count`` counts one row more than that, no further (``hit_count_complete`` says
    whether it counted every one: a session's first hits come without reading the rest of
    it), or every matching row with ``count_all``. ``first_hits``: a big session
    (:data:`~.search_match.BIG_SESSION` bytes or more) that has that many hits (fewer than
    ``max_hits``, every term matched) while the rest of it is still to be read is handed out
    at once with them (``partial`` set), and read on once every other session has had its
    turn, then handed out again, whole, as a new object (each session's result is the last
    one given for it; ``limit`` counts sessions at their first). Raises :class:`QueryError` at once for a query that
    cannot run. Stop iterating (or make ``should_stop()`` true) to cancel; the index keeps
    what was done. ``infos``: the sessions to search, in the order wanted (default: every
    readable session under ``root``, newest first, from the listing index); an app that has
    listed them already passes its list. ``use_index=False`` reads every session file
    instead of the index (nothing is written; slower): the same hits in the same order.
    ``fold``: a session's hits of one kind with the same line of context are one hit,
    counted in its ``repeats`` (:func:`~.search_match.match_rows`); ``max_hits`` then keeps
    that many different hits."""
    parsed = query if isinstance(query, Query) else parse_query(query)
    if fold:
        parsed = dataclasses.replace(parsed, fold=True)
    count_to = count_to_of(max_hits, count_all)
    if not use_index:
        return _scan_search(root, parsed, index_dir, limit, max_hits, should_stop, infos, count_to, first_hits)
    return _search(root, parsed, index_dir, on_progress, limit, max_hits, update, should_stop, infos, count_to, first_hits)


def _session_infos(root, index_dir, infos) -> list[SessionInfo]:
    if infos is None:
        return _infos(root, index_dir)
    return [info for info in infos if info.error is None]


def _search(root, query, index_dir, on_progress, limit, max_hits, update, should_stop, infos, count_to, first_hits):
    infos = _session_infos(root, index_dir, infos)
    with SearchIndex(index_dir) as idx:
        yield from idx.query(
            query, infos, limit=limit, max_hits=max_hits, should_stop=should_stop,
            update=update, root=root, on_progress=on_progress, count_to=count_to, first_hits=first_hits,
        )  # fmt: skip


def _scan_search(root, query, index_dir, limit, max_hits, should_stop, infos, count_to, first_hits):
    """:func:`search` without the index: each session file read (as the index reads it,
    :func:`~.search_rows._file_rows`) and matched (:func:`match_rows`) in turn."""

    def found():
        for info in _session_infos(root, index_dir, infos):
            if should_stop is not None and should_stop():
                return
            first = _first_hits(info, first_hits)
            yield info, _scan_file(info.path, query, max_hits, should_stop, count_to, first)

    return _in_turns(found(), limit, should_stop)


#: Sessions read first while the index is built: those below each size, in turn, newest first.
SERVE_SIZES = (1 << 20, 8 << 20)


def search_while_indexing(
    root: SessionRoot,
    query: str | Query,
    *,
    index_dir: str | os.PathLike | None = None,
    infos: Iterable[SessionInfo] | None = None,
    max_hits: int = MAX_HITS,
    should_stop: Callable[[], bool] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    fold: bool = False,
    first_hits: int | None = None,
) -> Iterator[SessionHits]:
    """:func:`search` that never waits for the index to be built, and writes nothing: the
    sessions the index holds as they are now are searched from it first (newest first); then
    every other session file is read whole and matched as ``use_index=False`` does, the small
    ones first (below each of :data:`SERVE_SIZES` in turn), newest first among them. The
    results come in that order, not newest first: the caller places them; ``first_hits`` as
    :func:`search` gives them (a session's first hits, then the session whole).
    ``on_progress(bytes read, bytes to read)`` counts the files read whole (called with
    ``(0, total)`` first when there are any)."""
    parsed = query if isinstance(query, Query) else parse_query(query)
    if fold:
        parsed = dataclasses.replace(parsed, fold=True)
    count_to = count_to_of(max_hits, False)
    infos = _session_infos(root, index_dir, infos)
    indexed: list[SessionInfo] = []
    unread: list[tuple[SessionInfo, int]] = []
    with SearchIndex(index_dir) as idx:
        known = idx.known()
        for info in infos:
            try:
                st = os.stat(info.path)
            except OSError:
                continue
            seen = known.get(info.path)
            if seen is not None and seen[1] == _identity(st):
                indexed.append(info)
            else:
                unread.append((info, st.st_size))
        if indexed:
            yield from idx.query(parsed, indexed, max_hits=max_hits, should_stop=should_stop, count_to=count_to,
                                 first_hits=first_hits)  # fmt: skip
    unread.sort(key=lambda pair: (_size_class(pair[1]), -(pair[0].modified_ms or 0)))
    total = sum(size for _info, size in unread)
    done = 0
    if unread and on_progress is not None:
        on_progress(0, total)

    def found():
        nonlocal done
        for info, size in unread:
            if should_stop is not None and should_stop():
                return
            yield info, _scan_file(info.path, parsed, max_hits, should_stop, count_to, _first_hits(info, first_hits))
            done += size  # (its first step given: a big session's rest is read after the others)
            if on_progress is not None:
                on_progress(done, total)

    yield from _in_turns(found(), None, should_stop)


def _size_class(size: int) -> int:
    return sum(size >= limit for limit in SERVE_SIZES)
