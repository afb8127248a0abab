"""The search index: which parts of which session files may hold a match, and the matches.

The index is three jobs in three modules: its SQLite file and schema, opened or rebuilt
(:mod:`.search_db`); its incremental update, file by file (:mod:`.search_update`); and here,
its queries: the chunks a query reads (the session files themselves are read for the exact
match). :class:`SearchIndex` holds the three.

Which sessions are worth matching
---------------------------------
Each term with an FTS expression names its chunks (one FTS query per term, a few thousand
rowids at most on a 1 GB store); a session is worth reading when every such term names one
of its chunks whose pair bitmap holds the term's pair keys
(:func:`~.search_words._pair_keys`; for a regex, also two literals with one character
between them: ``back.slash``, :func:`~.search_query._gap_filter`), and only those chunks are
read back (:mod:`.search_chunks`) and matched (:func:`~.search_match.match_rows`). A file
that is no longer what the index says (another size, time or inode, or a chunk no longer on
whole lines) is read whole instead; an event stream is always read whole (its entries are
rebuilt from all its records). A regex without a literal of three word characters cannot
be narrowed: every chunk of every session is read, matched by RE2 in linear time, still
session by session, newest first, and cancellable between chunks and inside one.
"""

from __future__ import annotations

import array
import contextlib
import os
import sqlite3
from typing import Callable, Iterable, Iterator

from ..read.lines import open_regular
from .discovery import SessionRoot
from .session_info import SessionInfo
from .search_chunks import IndexStats, _Changed, _ChunkRows
from .search_db import SCHEMA_VERSION, SearchDb, is_corrupt
from .search_match import (MAX_HITS, Hit, SessionHits, _first_hits, _in_turns, _match_open_file, _scan_file,
                           match_steps)
from .search_query import Query, _gap_fts
from .search_rows import _identity
from .search_update import UNINDEXED, IndexWriter, Txn
from .search_words import _chunk_may, _may_pair

__all__ = ["SearchIndex", "SCHEMA_VERSION"]


def _fts_refused(exc: sqlite3.OperationalError) -> bool:
    """Whether FTS5 refused a MATCH expression (as opposed to the database failing)."""
    return str(exc).startswith("fts5:")


def _fresh_candidates(query: Query, chunks: list) -> tuple[list | None, list | None]:
    """:meth:`SearchIndex.narrowed` for one file just indexed from its start, from its
    ``chunks`` (with their words) rather than from FTS (a query would make FTS write out
    its pending words: a segment a file): the chunks that may hold a hit (None: all; []:
    none, the file holds no result), and per term the starts of those that may hold it."""
    wide = not query.terms
    per_term: list[set | None] = []
    for term in query.terms:
        if term.fts is None:
            wide = True
            per_term.append(None)
            continue
        grams = [gram[1:-1].replace('""', '"') for gram in term.fts.split(" AND ")]
        got = {chunk_index for chunk_index, chunk in enumerate(chunks) if all(gram in chunk[7] for gram in grams) and _may_pair(chunk[8], term.pairs)
               and all(_may_pair(chunk[8], (key,)) or any(all(gram in chunk[7] for gram in trio) for trio in trios)
                       for key, trios in term.gaps)}
        if not got:
            return [], None
        per_term.append(got)
    if wide:
        return None, None
    keep = sorted(set().union(*per_term))
    return ([(*chunks[chunk_index][:6], array.array("I", chunks[chunk_index][6]).tobytes() if chunks[chunk_index][6] else None) for chunk_index in keep],
            [{chunks[chunk_index][0] for chunk_index in ks} for ks in per_term])


class SearchIndex:
    """The search index: its file opened (:class:`.search_db.SearchDb`, one SQLite
    connection: use one object per thread), its updates (:class:`.search_update.IndexWriter`)
    and its queries."""

    def __init__(self, index_dir: str | os.PathLike | None = None):
        self.db = SearchDb(index_dir)
        self.writer = IndexWriter(self.db)

    @property
    def conn(self) -> sqlite3.Connection:
        return self.db.conn

    @property
    def in_memory(self) -> bool:
        """The index file could not be used: the index lives in memory for this object."""
        return self.db.in_memory

    @property
    def file(self):
        return self.db.file

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "SearchIndex":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def update(
        self,
        paths: Iterable[str],
        *,
        root: SessionRoot | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> IndexStats:
        """:meth:`.search_update.IndexWriter.update`: bring the chunks of ``paths`` up to
        date; drop files under ``root`` that are gone."""
        return self.writer.update(paths, root=root, on_progress=on_progress, should_stop=should_stop)

    # -------------------------------------------------------------- querying
    def known(self) -> dict[str, tuple[int, tuple[int, int, int, int]]]:
        """Path -> (file id, (dev, ino, size, mtime_ns)) of every indexed file."""
        return self.writer.known()

    def file_ids(self) -> dict[str, int]:
        return {path: file_id for file_id, path in self.conn.execute("SELECT id, path FROM files WHERE error IS NULL")}

    def unindexed(self) -> set[str]:
        """The files whose indexing failed (:meth:`.search_update.IndexWriter._mark_failed`):
        each search reads them whole."""
        return {path for (path,) in self.conn.execute("SELECT path FROM files WHERE error LIKE ?", (UNINDEXED + "%",))}

    def candidates(self, query: Query, fid: int | None = None) -> dict[int, list[tuple] | None] | None:
        """The files that may hold a result as far as FTS tells, each with, per term, that
        term and the file's chunks whose words may hold it (``(start, end, entry, lineno,
        lines, dense, made, id)``; None: all of its chunks): :meth:`narrowed` makes of it
        the chunks to read. None when no term narrows (every file, every chunk). ``fid``:
        only that file's chunks are asked for (a file just indexed)."""
        per_term: list[dict[int, set]] = []
        where, args = "", ()
        if fid is not None:  # (a file's chunks are a range of ids: it was indexed in one go, or grew)
            lo, hi = self.conn.execute("SELECT min(id), max(id) FROM chunks WHERE file=?", (fid,)).fetchone()
            if lo is None:
                return {}
            where, args = " AND words.rowid BETWEEN ? AND ?", (lo, hi)
        wide = not query.terms  # (``kind:`` alone)
        for term in query.terms:
            if term.fts is None:
                wide = True
                continue
            try:
                rows = self.conn.execute(
                    "SELECT c.file, c.start, c.end, c.entry, c.lineno, c.lines, c.dense, c.made, c.id FROM words "
                    f"JOIN chunks c ON c.id = words.rowid WHERE words MATCH ?{where}", (term.fts, *args)
                ).fetchall()
            except sqlite3.OperationalError as exc:
                if not _fts_refused(exc):
                    raise
                wide = True  # (an expression FTS5 refuses narrows nothing: the exact match decides)
                continue
            files: dict[int, set] = {}
            for file, *chunk in rows:
                files.setdefault(file, set()).add(tuple(chunk))
            gaps = []
            for key, trios in term.gaps:
                try:
                    ids = {row[0] for row in self.conn.execute(
                        f"SELECT rowid FROM words WHERE words MATCH ?{where}", (_gap_fts(trios), *args))}
                except sqlite3.OperationalError as exc:
                    if not _fts_refused(exc):
                        raise
                    continue  # (this gap narrows nothing)
                gaps.append((key, ids))
            per_term.append((term, files, tuple(gaps)))
        if not per_term:
            return None
        fids = set(per_term[0][1])
        for _t, files, _g in per_term[1:]:
            fids &= files.keys()
        if fid is not None:
            fids &= {fid}
        out: dict[int, list[tuple] | None] = {}
        for file in fids:
            out[file] = None if wide else [(term, files[file], gaps) for term, files, gaps in per_term]
        return out

    def narrowed(self, per_term: list[tuple] | None) -> list[tuple] | None:
        """The chunks of one file worth reading, in file order, from what :meth:`candidates`
        gave for it: each term's chunks, less those whose pair bitmap lacks one of the
        term's pair keys (:func:`~.search_words._pair_keys`); [] when a term keeps none (the file holds no
        result); None: all of the file's chunks."""
        return self._narrowed(per_term)[0]

    def _narrowed(self, per_term: list[tuple] | None) -> tuple[list[tuple] | None, list[set] | None]:
        """:meth:`narrowed`, and per term the starts of the chunks kept for it (None when
        the file's chunks are not narrowed)."""
        if per_term is None:
            return None, None
        need = sorted({chunk[7] for text, chunks, gaps in per_term if text.pairs or gaps for chunk in chunks})
        bits: dict[int, bytes] = {}
        for start in range(0, len(need), 500):
            part = need[start : start + 500]
            bits.update(self.conn.execute(f"SELECT id, bits FROM pairs WHERE id IN ({','.join('?' * len(part))})", part))
        keep: set = set()
        starts: list[set] = []
        for term, chunks, gaps in per_term:
            got = [chunk for chunk in chunks if _chunk_may(bits.get(chunk[7]), term.pairs, gaps, chunk[7])] if term.pairs or gaps else chunks
            if not got:
                return [], None
            keep.update(got)
            starts.append({chunk[0] for chunk in got})
        return sorted(keep), starts

    def match_file(
        self, fid: int, query: Query, max_hits: int = MAX_HITS, should_stop: Callable[[], bool] | None = None,
        chunks: list[tuple] | None = None, count_to: int | None = None, per_term: list[set] | None = None,
        first_hits: int | None = None,
    ) -> Iterator[tuple[list[Hit], int, bool, bool]]:
        """Exact hits of ``query`` in file ``fid``, read back from the file's chunks at their
        offsets, step by step as :func:`~.search_match.match_steps` gives them (``count_to``:
        where its counting stops; ``first_hits``: when a first step is given); nothing when
        some term matches none of its rows (or ``should_stop()`` came true on the way).
        ``chunks``: the chunks that may hold a hit (default: all), ``per_term`` the starts of
        those that may hold each term (:meth:`_narrowed`). A file that no longer is what the
        index says (another size, time or inode) is read from its start (after a first step:
        its steps again, from the first)."""
        st = self.writer.state_of(fid)
        if st is None or st.error is not None:
            return
        try:
            handle = open_regular(st.path)
        except OSError:
            return
        with handle:
            try:
                if _identity(os.fstat(handle.fileno())) != (st.dev, st.ino, st.size, st.mtime_ns) or st.stream:
                    # (a stream is read whole: its entries are rebuilt from all its records)
                    yield from _match_open_file(handle, st.path, query, max_hits, should_stop, count_to, first_hits)
                    return
                if chunks is None:
                    chunks = self.conn.execute(
                        "SELECT start, end, entry, lineno, lines, dense, made FROM chunks WHERE file=? ORDER BY start",
                        (fid,),
                    ).fetchall()
                stopped: list = [should_stop] if should_stop is not None else []
                rows = _ChunkRows(handle, st, chunks, query, stopped, per_term)
                for got in match_steps(rows, query, max_hits, should_stop, count_to, first_hits):
                    if len(stopped) > 1:
                        return
                    yield got
            except _Changed:
                handle.seek(0)
                yield from _match_open_file(handle, st.path, query, max_hits, should_stop, count_to, first_hits)
            except (OSError, ValueError):
                return

    def query(
        self,
        query: Query,
        infos: Iterable[SessionInfo],
        *,
        limit: int | None = None,
        max_hits: int = MAX_HITS,
        should_stop: Callable[[], bool] | None = None,
        update: bool = False,
        root: SessionRoot | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        stats: IndexStats | None = None,
        count_to: int | None = None,
        first_hits: int | None = None,
    ) -> Iterator[SessionHits]:
        """Results in the order of ``infos`` (pass them newest first); ``count_to``: where
        counting a session's hits stops (:func:`~.search_match.match_rows`); ``first_hits``:
        a session's first hits are handed out as soon as there are that many (a result with
        ``partial`` set, followed by the same session whole, see :func:`.search.search`).

        With ``update``, files that changed are (re)indexed on the way, each just before it
        is searched, so results stream in order even while the index is being built. An
        index found damaged on the way is started again (with ``update``: it is rebuilt as
        the search goes on) and the search goes on from the sessions not yet given."""
        infos = list(infos)
        given: set[str] = set()
        for attempt in (0, 1):
            try:
                for row in self._query(query, [info for info in infos if info.path not in given],
                                       limit=None if limit is None else limit - len(given), max_hits=max_hits,
                                       should_stop=should_stop, update=update or attempt > 0, root=root,
                                       on_progress=on_progress, stats=stats, count_to=count_to, first_hits=first_hits):
                    if not row.partial:
                        given.add(row.path)
                    yield row
                return
            except sqlite3.DatabaseError as exc:
                if attempt or not is_corrupt(exc):
                    raise
                self.db.recover(exc)

    def _query(
        self,
        query: Query,
        infos: list[SessionInfo],
        *,
        limit: int | None,
        max_hits: int,
        should_stop: Callable[[], bool] | None,
        update: bool,
        root: SessionRoot | None,
        on_progress: Callable[[int, int], None] | None,
        stats: IndexStats | None,
        count_to: int | None,
        first_hits: int | None,
    ) -> Iterator[SessionHits]:
        stats = stats if stats is not None else IndexStats()
        stale: set[str] = set()
        if update:
            stale_list, gone = self.writer.plan([info.path for info in infos], root)
            self.writer.drop(gone, stats)
            stale = set(stale_list)
        fids = self.file_ids()
        unindexed = self.unindexed()
        cands = self.candidates(query)  # over what is indexed now: not used for stale files
        if stale and on_progress is not None:
            on_progress(0, len(stale))
        prepared = self.writer.prepared([info.path for info in infos if info.path in stale])
        with Txn(self.conn) as txn, contextlib.closing(prepared):
            yield from _in_turns(self._steps(query, infos, stale, prepared, txn, fids, unindexed, cands, max_hits,
                                             should_stop, on_progress, stats, count_to, first_hits),
                                 limit, should_stop, txn.commit)  # fmt: skip

    def _steps(self, query, infos, stale, prepared, txn, fids, unindexed, cands, max_hits, should_stop, on_progress,
               stats, count_to, first_hits) -> Iterator[tuple[SessionInfo, Iterator[tuple]]]:
        """:meth:`_query`'s sessions in turn, each that may be a result with its steps
        (:func:`~.search_match.match_steps`), files that changed indexed on the way."""
        total = len(stale)
        done = 0
        for info in infos:
            if should_stop is not None and should_stop():
                stats.cancelled = True
                return
            chunks = per_term = None
            if info.path in stale:
                txn.begin()
                _p, got = next(prepared)
                chars, fid = self.writer.index_file_guarded(info.path, stats, got)
                txn.wrote(chars)
                done += 1
                if on_progress is not None:
                    on_progress(done, total)
                if fid is None:
                    if not self.writer.is_unindexed(info.path):
                        continue
                elif self.writer.fresh is not None:  # (its chunks only: most queries need none of them)
                    chunks, per_term = _fresh_candidates(query, self.writer.fresh)
                    if chunks == []:
                        continue
                else:
                    mine = self.candidates(query, fid)
                    if mine is not None:
                        if fid not in mine:
                            continue
                        chunks, per_term = self._narrowed(mine[fid])
                        if chunks == []:
                            continue
            else:
                fid = fids.get(info.path)
                if fid is None:
                    if info.path not in unindexed:
                        continue
                elif cands is not None:
                    if fid not in cands:
                        continue
                    chunks, per_term = self._narrowed(cands[fid])
                    if chunks == []:
                        continue
            first = _first_hits(info, first_hits)
            if fid is None:  # (its indexing failed: read whole, as without the index)
                yield info, _scan_file(info.path, query, max_hits, should_stop, count_to, first)
            else:
                yield info, self.match_file(fid, query, max_hits, should_stop, chunks, count_to, per_term, first)
