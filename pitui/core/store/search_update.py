"""The search index's updates: each session file's chunks brought up to date.

Per file the index keeps ``path``, ``dev``, ``ino``, ``size``, ``mtime_ns``, where reading
stopped and a fingerprint of the bytes read (first and last 4 KB before that point). The
same file (device and inode) with unchanged size and mtime: nothing to do. The same file
grown (Pi appends) with its fingerprint still matching is read on from where the index
stopped: only the new bytes, into new chunks; anything else (another file, shrunk, same
size but a new mtime, rewritten) is indexed again from the start; files that are gone are
dropped. A last line without its newline that parses is indexed, and read again (its chunk
cut before it) once the file changes; one that does not parse is Pi writing it, and is read
next time. Contentless FTS rows cannot be deleted without their text (SQLite 3.43's
``contentless_delete`` is newer than many Pythons' SQLite), so the chunks of a file indexed
again are dropped from ``chunks`` only, their FTS rows left dead (a join leaves them out);
once the dead outnumber the live (and :data:`_DEAD_MIN`), the FTS table is started again
and every file indexed again. Memory stays bounded: lines are streamed, a chunk's words are
a set of at most :data:`~.search_chunks.CHUNK_CHARS` characters' words, and a file's chunks
are held until they are written (their words are about a hundredth of the file). A worker's
result is checked whole before any of it is written, and written without a savepoint (FTS5
writes its pending words out as a new segment at each one). Several threads or processes
may update the same index: each file is re-checked inside the write transaction. A damaged
index found on the way is started again (:meth:`.search_db.SearchDb.recover`).
"""

from __future__ import annotations

import array
import contextlib
import os
import sqlite3
import time
from typing import Callable, Iterable, Iterator

from ..paths import notice
from ..read.lines import file_fingerprint, open_regular
from .discovery import SessionRoot, utf8_name
from .search_chunks import IndexStats, _chunks, _ready
from .search_db import FILE_COLS, SearchDb, is_corrupt
from .search_rows import _FileState, _identity

__all__ = ["IndexWriter", "Txn", "UNINDEXED"]

UNINDEXED = "cannot be indexed ("  # a file's error when indexing it raised (then the exception's name)
_TXN_CHARS = 16 * 1024 * 1024  # commit at least this often (characters of words inserted)
_TXN_SECONDS = 2.0  # ... or this often, so readers and a cancelled update lose little
_DEAD_MIN = 2000  # rebuild the FTS table when more chunks than this (and than live ones) are dead


class IndexWriter:
    """Updates of the index opened as ``db`` (:class:`.search_db.SearchDb`): files read
    (here or by worker processes) and their chunks written, in transactions spanning
    several files (:class:`Txn`)."""

    def __init__(self, db: SearchDb):
        self.db = db
        self.fresh: list | None = None  # the chunks of the file just indexed from its start

    @property
    def conn(self) -> sqlite3.Connection:
        """The index's connection (a new one after :meth:`.search_db.SearchDb.recover`)."""
        return self.db.conn

    def _state(self, path: str) -> _FileState | None:
        row = self.conn.execute(f"SELECT {FILE_COLS} FROM files WHERE path=?", (path,)).fetchone()
        return _FileState(*row) if row else None

    def state_of(self, fid: int) -> _FileState | None:
        row = self.conn.execute(f"SELECT {FILE_COLS} FROM files WHERE id=?", (fid,)).fetchone()
        return _FileState(*row) if row else None

    def known(self) -> dict[str, tuple[int, tuple[int, int, int, int]]]:
        """Path -> (file id, (dev, ino, size, mtime_ns)) of every indexed file."""
        return {path: (file_id, (dev, ino, size, mtime))
                for file_id, path, dev, ino, size, mtime in self.conn.execute("SELECT id, path, dev, ino, size, mtime_ns FROM files")}

    def _dead(self, count: int) -> None:
        if count:
            self.conn.execute("INSERT INTO meta(key, value) VALUES ('dead', ?) "
                              "ON CONFLICT(key) DO UPDATE SET value = value + excluded.value", (count,))  # fmt: skip

    def _delete_chunks(self, fid: int, from_offset: int = 0) -> None:
        """Forget a file's chunks that start at ``from_offset`` or later (their words stay in
        the FTS table, dead, until it is rebuilt: :meth:`_compact`)."""
        self.conn.execute("DELETE FROM pairs WHERE id IN (SELECT id FROM chunks WHERE file=? AND start>=?)",
                          (fid, from_offset))
        deleted = self.conn.execute("DELETE FROM chunks WHERE file=? AND start>=?", (fid, from_offset)).rowcount
        self._dead(deleted)

    def _compact(self) -> None:
        """Start the FTS table again once it holds more dead chunks than live ones (and
        more than :data:`_DEAD_MIN`): every file is then indexed again."""
        row = self.conn.execute("SELECT value FROM meta WHERE key='dead'").fetchone()
        dead = row[0] if row else 0
        if dead <= _DEAD_MIN:
            return
        live = self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        if dead <= live:
            return
        with Txn(self.conn) as txn:
            txn.begin()
            self.conn.execute("INSERT INTO words(words) VALUES ('delete-all')")
            self.conn.execute("DELETE FROM chunks")
            self.conn.execute("DELETE FROM pairs")
            self.conn.execute("DELETE FROM files")
            self.conn.execute("DELETE FROM meta WHERE key='dead'")

    def _save_state(self, st: _FileState) -> None:
        self.conn.execute(
            "UPDATE files SET path=?, dev=?, ino=?, size=?, mtime_ns=?, scanned_to=?, next_lineno=?, next_entry=?, "
            "pending_entry=?, version=?, has_header=?, stream=?, fingerprint=?, error=? WHERE id=?",
            st.values(),
        )

    def _new_file(self, path: str) -> _FileState:
        cur = self.conn.execute(
            "INSERT INTO files(path, dev, ino, size, mtime_ns, scanned_to, next_lineno, next_entry, version, "
            "has_header, stream, fingerprint) VALUES (?, 0, 0, 0, 0, 0, 1, 0, 3, 0, 0, '')",
            (path,),
        )
        return _FileState(cur.lastrowid, path)

    def index_file_guarded(self, path: str, stats: IndexStats, done: dict | None = None) -> tuple[int, int | None]:
        """:meth:`_index_file` (or :meth:`_apply` of what a worker ``done``), with a file
        whose reading fails (for any reason but the index's own) left out and marked failed:
        one file never fails a whole update or search."""
        self.fresh = None
        if done is not None:
            try:  # (no savepoint: FTS5 writes its pending words out at each one, a segment a file)
                ready = _ready(done)
            except (KeyError, TypeError, ValueError, OverflowError):
                ready = None  # (a result that cannot be read: the file is indexed here)
            if ready is not None:
                return self._apply(path, ready, stats)
        conn = self.conn
        conn.execute("SAVEPOINT pitui_file")
        try:
            got = self._index_file(path, stats)
        except sqlite3.Error:
            conn.execute("ROLLBACK TO pitui_file")
            conn.execute("RELEASE pitui_file")
            raise
        except Exception as exc:
            conn.execute("ROLLBACK TO pitui_file")
            self._mark_failed(path, exc)
            conn.execute("RELEASE pitui_file")
            return 0, None
        conn.execute("RELEASE pitui_file")
        return got

    def is_unindexed(self, path: str) -> bool:
        """Whether ``path`` is a file the index could not take: its indexing raised, or its
        name is one SQLite cannot hold (not valid UTF-8)."""
        if not utf8_name(path):
            return True
        st = self._state(path)
        return st is not None and st.error is not None and st.error.startswith(UNINDEXED)

    def _mark_failed(self, path: str, exc: Exception) -> None:
        """Record ``path`` as not searchable (until it changes), its chunks dropped."""
        try:
            fst = os.stat(path)
            state = self._state(path)
            if state is None:
                state = self._new_file(path)
            else:
                self._delete_chunks(state.id)
                state = _FileState(state.id, path)
            state.size, state.mtime_ns = fst.st_size, fst.st_mtime_ns
            state.error = f"{UNINDEXED}{type(exc).__name__})"
            self._save_state(state)
            notice(f"some sessions could not be indexed for search ({type(exc).__name__}): "
                   "each search reads them whole")
        except sqlite3.Error:
            raise
        except Exception:
            pass  # (a name SQLite cannot hold: the file is tried again next time)

    def _index_file(self, path: str, stats: IndexStats) -> tuple[int, int | None]:
        """(Re)index one file inside the caller's transaction: ``(characters of words
        inserted, file id)``, the id None when the file is not a readable session."""
        try:
            handle = open_regular(path)
        except OSError:  # (NotRegular too)
            return 0, None
        with handle:
            fst = os.fstat(handle.fileno())
            ident = _identity(fst)
            state = self._state(path)
            if state is not None and (state.dev, state.ino, state.size, state.mtime_ns) == ident:
                return 0, (state.id if state.error is None else None)  # another updater got here first
            if (
                state is not None
                and (state.dev, state.ino) == ident[:2]  # the same file...
                and state.error is None
                and state.has_header
                and not state.stream
                and fst.st_size > state.size  # grew: same size with another mtime is a rewrite
                and 0 < state.scanned_to <= fst.st_size
                and state.fingerprint
                and file_fingerprint(path, state.scanned_to) == state.fingerprint
            ):
                if state.pending_entry is not None:  # the unterminated last line is read again
                    self._delete_chunks(state.id, state.scanned_to)
                    self.conn.execute("UPDATE chunks SET end=? WHERE file=? AND end>?",
                                      (state.scanned_to, state.id, state.scanned_to))  # fmt: skip
                    state.next_entry = state.pending_entry
                    state.pending_entry = None
            else:
                state = self._from_the_start(state, path, stats)
            state.dev, state.ino, state.size, state.mtime_ns = ident
            stats.indexed += 1
            chars = self._scan(handle, state, stats)
            state.fingerprint = file_fingerprint(path, state.scanned_to) if state.scanned_to else ""
            self._save_state(state)
            return chars, (state.id if state.error is None else None)

    def _from_the_start(self, state: _FileState | None, path: str, stats: IndexStats) -> _FileState:
        """The state of ``path`` indexed again from its first byte: a new file's, or a known
        one's with its chunks dropped."""
        if state is None:
            return self._new_file(path)
        self._delete_chunks(state.id)
        stats.reindexed += 1
        return _FileState(state.id, path)

    def _apply(self, path: str, ready: tuple, stats: IndexStats) -> tuple[int, int | None]:
        """Write what a worker made of ``path`` (:func:`~.search_chunks._index_whole`, read by :func:`_ready`),
        as :meth:`_index_file` would."""
        ident, fields, chunks, rows, nbytes = ready
        state = self._state(path)
        if state is not None and (state.dev, state.ino, state.size, state.mtime_ns) == ident:
            return 0, (state.id if state.error is None else None)  # another updater got here first
        state = self._from_the_start(state, path, stats)
        state.dev, state.ino, state.size, state.mtime_ns = ident
        (state.scanned_to, state.next_lineno, state.next_entry, state.pending_entry, state.version,
         state.has_header, state.stream, state.fingerprint, state.error) = fields  # fmt: skip
        chars = self._insert(state.id, chunks)
        self.fresh = chunks
        stats.indexed += 1
        stats.rows += rows
        stats.bytes += nbytes
        self._save_state(state)
        return chars, (state.id if state.error is None else None)

    def _insert(self, fid: int, chunks: list) -> int:
        conn = self.conn
        total = 0
        for chunk in chunks:
            made = array.array("I", chunk[6]).tobytes() if chunk[6] else None
            cid = conn.execute("INSERT INTO chunks(file, start, end, entry, lineno, lines, dense, made) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (fid, *chunk[:6], made)).lastrowid  # fmt: skip
            conn.execute("INSERT INTO words(rowid, text) VALUES (?, ?)", (cid, chunk[7]))
            if chunk[8]:
                conn.execute("INSERT INTO pairs(id, bits) VALUES (?, ?)", (cid, chunk[8]))
            total += len(chunk[7])
        return total

    def prepared(self, paths: list[str]) -> Iterator[tuple[str, dict | None]]:
        """``(path, what a worker made of it, or None)`` for each of ``paths`` in order: new
        files go to worker processes (:mod:`.search_worker`) when there are many; the rest
        (and what a worker did not deliver) the caller indexes itself."""
        from . import search_worker as sw

        known = self.known()
        new = [path for path in paths if path not in known and utf8_name(path)]
        workers = min(4, os.cpu_count() or 1)
        size = 0
        if workers > 1 and len(new) >= sw.PARALLEL_MIN_FILES:
            for path in new:
                try:
                    size += os.stat(path).st_size
                except OSError:
                    pass
        if size < sw.PARALLEL_MIN_BYTES:
            for path in paths:
                yield path, None
            return
        it = sw.indexed_in_workers(new, workers)
        chosen = set(new)
        try:
            for path in paths:
                yield (next(it)) if path in chosen else (path, None)
        finally:
            it.close()

    def _scan(self, handle, st: _FileState, stats: IndexStats) -> int:
        start = st.scanned_to
        chunks = list(_chunks(handle, st, stats))
        total = self._insert(st.id, chunks)
        if start == 0:
            self.fresh = chunks
        if st.error is not None:  # not a Pi session after all: nothing of it is kept
            self._delete_chunks(st.id)
            return 0
        if not st.has_header:
            st.error = "no session header"
        stats.bytes += max(0, st.size - start)
        return total

    def plan(self, paths: list[str], root: SessionRoot | None) -> tuple[list[str], list[int]]:
        """``(stale, gone)``: paths whose size or mtime changed (or that are new), in the
        given order; ids of indexed files under ``root`` that no longer exist."""
        self._compact()
        known = self.known()
        stale = []
        for path in paths:
            known_state = known.get(path)
            if known_state is not None:
                try:
                    fst = os.stat(path)
                except OSError:
                    continue
                if known_state[1] == _identity(fst):
                    continue
            stale.append(path)
        gone: list[int] = []
        if root is not None:
            present = set(paths)
            rp = str(root.path)
            prefix = rp.rstrip(os.sep) + os.sep
            for path, known_state in known.items():
                if path not in present and (path == rp or path.startswith(prefix)) and not os.path.isfile(path):
                    gone.append(known_state[0])
        return stale, gone

    def drop(self, gone: list[int], stats: IndexStats) -> None:
        if not gone:
            return
        with Txn(self.conn) as txn:
            for fid in gone:
                txn.begin()
                self._delete_chunks(fid)
                self.conn.execute("DELETE FROM files WHERE id=?", (fid,))
                txn.wrote(0)
        stats.removed += len(gone)

    def update(
        self,
        paths: Iterable[str],
        *,
        root: SessionRoot | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> IndexStats:
        """Bring the chunks of ``paths`` up to date; drop files under ``root`` that are gone.

        ``on_progress(done, total)`` counts the files that need reading (called with
        ``(0, total)`` first when there are any). ``should_stop()`` is polled between files:
        what was indexed so far is kept. An index found damaged on the way is started again."""
        paths = list(paths)
        try:
            return self._update(paths, root, on_progress, should_stop)
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise
            self.db.recover(exc)
        return self._update(paths, root, on_progress, should_stop)

    def _update(
        self,
        paths: list[str],
        root: SessionRoot | None,
        on_progress: Callable[[int, int], None] | None,
        should_stop: Callable[[], bool] | None,
    ) -> IndexStats:
        t0 = time.perf_counter()
        stats = IndexStats()
        paths = list(paths)
        stats.files = len(paths)
        stale, gone = self.plan(paths, root)
        self.drop(gone, stats)
        total = len(stale)
        if total and on_progress is not None:
            on_progress(0, total)
        prepared = self.prepared(stale)
        with Txn(self.conn) as txn, contextlib.closing(prepared):
            for done, (path, got) in enumerate(prepared, 1):
                if should_stop is not None and should_stop():
                    stats.cancelled = True
                    break
                txn.begin()
                chars, _ = self.index_file_guarded(path, stats, got)
                txn.wrote(chars)
                if on_progress is not None:
                    on_progress(done, total)
        stats.seconds = time.perf_counter() - t0
        return stats


class Txn:
    """Write transactions spanning several files: committed when big or old enough, before
    handing results out, and at the end; rolled back on an error."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.open = False
        self.chars = 0
        self.t0 = 0.0

    def begin(self) -> None:
        if not self.open:
            self.conn.execute("BEGIN IMMEDIATE")
            self.open = True
            self.chars = 0
            self.t0 = time.perf_counter()

    def wrote(self, chars: int) -> None:
        self.chars += chars
        if self.chars >= _TXN_CHARS or time.perf_counter() - self.t0 >= _TXN_SECONDS:
            self.commit()

    def commit(self) -> None:
        if self.open:
            self.open = False
            self.conn.execute("COMMIT")

    def __enter__(self) -> "Txn":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None or exc_type is GeneratorExit:
            self.commit()
        elif self.open:
            self.open = False
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
