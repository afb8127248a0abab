"""The search index file: its SQLite schema, its incremental update, and the chunks a query
reads (the session files themselves are read for the exact match).

The index file
--------------
``search-v<N>.sqlite3`` in the listing index's cache folder (:func:`default_cache_dir`,
``$PITUI_CACHE_DIR``). It holds no session text: it tells which parts of which files may
hold a match, and the files themselves are read for the exact match.

Its tables: ``files``, a row per file (its state, :class:`~.search_rows._FileState`);
``chunks``, a row per chunk of whole lines (:mod:`.search_chunks`: where it is in its file,
whether it is dense); ``words``, an SQLite FTS5 table (trigram tokenizer, ``detail=none``,
contentless) of each chunk's **distinct words**; and ``pairs``, each chunk's bitmap of its
word pairs (:mod:`.search_words`). On the benchmark store (1 GB) the words are a hundredth
of its size and the pairs a twentieth; the cold build parses each line once (orjson), in a
worker process per core (:mod:`.search_worker`) when many new files need reading, and this
process writes the chunks (see docs/performance.md for the figures).

Why FTS5 with the trigram tokenizer: it ships with Python's ``sqlite3`` (SQLite >= 3.34),
it narrows *substring* queries (Pi's search is substring search: ``oken`` finds ``token``),
and needs no server and no extra package. What a query's terms ask of it, and which terms
cannot be narrowed: :mod:`.search_query`.

Its updates
-----------
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
may update the same index: each file is re-checked inside the write transaction. The index
is a cache: a corrupt file (found when it is opened or in the middle of a search) is deleted
and rebuilt, with a notice (:func:`paths.notice`), and an older version's is deleted; when
the cache folder cannot be used (see :mod:`paths`) the index lives in memory for the call.
The file is private (``0600``, in a ``0700`` folder).

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
import time
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ..paths import default_cache_dir, make_cache_file, notice, private_dir
from ..read.lines import file_fingerprint, open_regular
from .discovery import SessionRoot, utf8_name
from .session_info import SessionInfo
from .search_chunks import IndexStats, _Changed, _ChunkRows, _chunks, _ready
from .search_match import (MAX_HITS, Hit, SessionHits, _first_hits, _in_turns, _match_open_file, _scan_file,
                           match_steps)
from .search_query import Query, _gap_fts
from .search_rows import _FileState, _identity
from .search_words import _chunk_may, _may_pair


SCHEMA_VERSION = 9  # 3: files keep dev and ino; 4: a tool call's nested arguments as text, not JSON; 5: chunks of words; 6: their made-text lines; 7: their word pairs; 8: the pair bitmaps a power of two bits; 9: their positions mixed (_pair_pos)
_UNINDEXED = "cannot be indexed ("  # a file's error when indexing it raised (then the exception's name)
_TXN_CHARS = 16 * 1024 * 1024  # commit at least this often (characters of words inserted)
_TXN_SECONDS = 2.0  # ... or this often, so readers and a cancelled update lose little
_DEAD_MIN = 2000  # rebuild the FTS table when more chunks than this (and than live ones) are dead

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS files(
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        dev INTEGER NOT NULL,
        ino INTEGER NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        scanned_to INTEGER NOT NULL,
        next_lineno INTEGER NOT NULL,
        next_entry INTEGER NOT NULL,
        pending_entry INTEGER,
        version INTEGER NOT NULL,
        has_header INTEGER NOT NULL,
        stream INTEGER NOT NULL,
        fingerprint TEXT NOT NULL,
        error TEXT
    )""",
    # A chunk: whole lines of a file, bytes [start, end), its first line's number, how many
    # lines it spans and the index of its first entry; ``dense``: every line in it is one
    # entry (no blank or bad lines, no escape hiding ASCII text), so the lines of a hit can
    # be found in its bytes without parsing the others; ``made``: the offsets in it (uint32
    # array) of the lines whose text pitui makes (tool calls, labels). Its id is its rowid
    # in ``words``.
    """CREATE TABLE IF NOT EXISTS chunks(
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        file INTEGER NOT NULL,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        entry INTEGER NOT NULL,
        lineno INTEGER NOT NULL,
        lines INTEGER NOT NULL,
        dense INTEGER NOT NULL,
        made BLOB
    )""",
    "CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file, start)",
    # Contentless: per chunk, its distinct words (see search_words._add_words), trigram-indexed. Rows of
    # chunks that are gone stay (contentless rows cannot be deleted without their text) and
    # are left out by the join with ``chunks``; ``meta.dead`` counts them.
    """CREATE VIRTUAL TABLE IF NOT EXISTS words USING fts5(
        text, tokenize='trigram case_sensitive 1', detail=none, columnsize=0, content=''
    )""",
    # Per chunk (its id), the bitmap of its word pairs (see search_words._pair_bits); none: it has no pairs.
    "CREATE TABLE IF NOT EXISTS pairs(id INTEGER PRIMARY KEY, bits BLOB NOT NULL)",
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL)",
)
_TABLES = ("files", "chunks", "words", "pairs", "meta")

_FILE_COLS = (
    "id, path, dev, ino, size, mtime_ns, scanned_to, next_lineno, next_entry, pending_entry, version, "
    "has_header, stream, fingerprint, error"
)


def _fts_refused(exc: sqlite3.OperationalError) -> bool:
    """Whether FTS5 refused a MATCH expression (as opposed to the database failing)."""
    return str(exc).startswith("fts5:")


def _is_corrupt(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite found the file damaged (SQLITE_CORRUPT, SQLITE_NOTADB and their
    extended codes), not merely busy, read-only or given a query it refuses."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return not isinstance(exc, sqlite3.OperationalError)
    return code & 0xFF in (11, 26)


def _fresh_candidates(q: Query, chunks: list) -> tuple[list | None, list | None]:
    """:meth:`SearchIndex.narrowed` for one file just indexed from its start, from its
    ``chunks`` (with their words) rather than from FTS (a query would make FTS write out
    its pending words: a segment a file): the chunks that may hold a hit (None: all; []:
    none, the file holds no result), and per term the starts of those that may hold it."""
    wide = not q.terms
    per_term: list[set | None] = []
    for t in q.terms:
        if t.fts is None:
            wide = True
            per_term.append(None)
            continue
        grams = [g[1:-1].replace('""', '"') for g in t.fts.split(" AND ")]
        got = {k for k, c in enumerate(chunks) if all(g in c[7] for g in grams) and _may_pair(c[8], t.pairs)
               and all(_may_pair(c[8], (key,)) or any(all(g in c[7] for g in trio) for trio in trios)
                       for key, trios in t.gaps)}
        if not got:
            return [], None
        per_term.append(got)
    if wide:
        return None, None
    keep = sorted(set().union(*per_term))
    return ([(*chunks[k][:6], array.array("I", chunks[k][6]).tobytes() if chunks[k][6] else None) for k in keep],
            [{chunks[k][0] for k in ks} for ks in per_term])


class SearchIndex:
    """The search index file (one SQLite connection; use one object per thread)."""

    def __init__(self, index_dir: str | os.PathLike | None = None):
        self.dir = Path(index_dir) if index_dir is not None else default_cache_dir()
        self.file = self.dir / f"search-v{SCHEMA_VERSION}.sqlite3"
        self.in_memory = False
        self.fresh: list | None = None  # the chunks of the file just indexed from its start
        self.conn = self._open()

    # -------------------------------------------------------------- opening
    def _open(self) -> sqlite3.Connection:
        if private_dir(self.dir) is not None:  # (else: another user's folder; said so)
            try:
                self._remove_old_versions()
                return self._connect_file()
            except sqlite3.OperationalError:
                pass  # locked for a minute, read-only, ...: not corrupt; use memory this time
            except sqlite3.DatabaseError as exc:
                conn = self._start_again(exc)  # corrupt or foreign: it is a cache
                if conn is not None:
                    return conn
            except OSError:
                pass
        self.in_memory = True
        return self._connect(":memory:")

    def _connect_file(self) -> sqlite3.Connection:
        """The index file, made private (``0600``) first: SQLite gives its ``-wal`` and
        ``-shm`` files the mode of the database file. SQLite opens them by name, following
        links: a link planted at any of the three is removed first (:func:`make_cache_file`),
        so nothing is made, written or chmod-ed outside the cache folder."""
        for suffix in ("", "-wal", "-shm"):
            make_cache_file(str(self.file) + suffix, create=not suffix)
        return self._connect(str(self.file))

    def _start_again(self, exc: sqlite3.DatabaseError) -> sqlite3.Connection | None:
        """Delete the damaged index file and make a new one (None when that fails too)."""
        notice(f"{self.file}: the search index was damaged ({exc}) and is rebuilt")
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(str(self.file) + suffix)
            except OSError:
                pass
        try:
            return self._connect_file()
        except (sqlite3.Error, OSError):
            return None

    def _recover(self, exc: sqlite3.DatabaseError) -> None:
        """Damage found while the index was in use: start again with a new, empty one."""
        self.close()
        conn = None if self.in_memory else self._start_again(exc)
        if conn is None:
            self.in_memory = True
            conn = self._connect(":memory:")
        self.conn = conn

    def _remove_old_versions(self) -> None:
        for old in range(1, SCHEMA_VERSION):
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.unlink(self.dir / f"search-v{old}.sqlite3{suffix}")
                except OSError:
                    pass

    @staticmethod
    def _connect(target: str) -> sqlite3.Connection:
        conn = sqlite3.connect(target, timeout=60, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA busy_timeout=60000")
            if target != ":memory:":
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA cache_size=-32000")
            names = ",".join(f"'{t}'" for t in _TABLES)
            # (an index in use is opened without the write lock: an update under way in
            # another thread or process holds it, one transaction after another)
            have = conn.execute(f"SELECT name FROM sqlite_master WHERE name IN ({names})").fetchall()
            if len(have) == len(_TABLES) and conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
                return conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                have = conn.execute(f"SELECT name FROM sqlite_master WHERE name IN ({names})").fetchall()
                if len(have) != len(_TABLES):
                    if have:
                        raise sqlite3.DatabaseError("incomplete schema")
                    for stmt in _SCHEMA:
                        conn.execute(stmt)
                    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                elif conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                    raise sqlite3.DatabaseError("wrong schema version")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except BaseException:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        try:
            self.conn.close()
        except sqlite3.Error:
            pass

    def __enter__(self) -> "SearchIndex":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -------------------------------------------------------------- updating
    def _state(self, path: str) -> _FileState | None:
        row = self.conn.execute(f"SELECT {_FILE_COLS} FROM files WHERE path=?", (path,)).fetchone()
        return _FileState(*row) if row else None

    def _state_of(self, fid: int) -> _FileState | None:
        row = self.conn.execute(f"SELECT {_FILE_COLS} FROM files WHERE id=?", (fid,)).fetchone()
        return _FileState(*row) if row else None

    def _known(self) -> dict[str, tuple[int, tuple[int, int, int, int]]]:
        """Path -> (file id, (dev, ino, size, mtime_ns)) of every indexed file."""
        return {p: (i, (d, n, s, m))
                for i, p, d, n, s, m in self.conn.execute("SELECT id, path, dev, ino, size, mtime_ns FROM files")}

    def _dead(self, n: int) -> None:
        if n:
            self.conn.execute("INSERT INTO meta(key, value) VALUES ('dead', ?) "
                              "ON CONFLICT(key) DO UPDATE SET value = value + excluded.value", (n,))  # fmt: skip

    def _delete_chunks(self, fid: int, from_offset: int = 0) -> None:
        """Forget a file's chunks that start at ``from_offset`` or later (their words stay in
        the FTS table, dead, until it is rebuilt: :meth:`_compact`)."""
        self.conn.execute("DELETE FROM pairs WHERE id IN (SELECT id FROM chunks WHERE file=? AND start>=?)",
                          (fid, from_offset))
        n = self.conn.execute("DELETE FROM chunks WHERE file=? AND start>=?", (fid, from_offset)).rowcount
        self._dead(n)

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
        with _Txn(self.conn) as txn:
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

    def _index_file_guarded(self, path: str, stats: IndexStats, done: dict | None = None) -> tuple[int, int | None]:
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

    def _unindexed(self, path: str) -> bool:
        """Whether ``path`` is a file the index could not take: its indexing raised, or its
        name is one SQLite cannot hold (not valid UTF-8)."""
        if not utf8_name(path):
            return True
        st = self._state(path)
        return st is not None and st.error is not None and st.error.startswith(_UNINDEXED)

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
            state.error = f"{_UNINDEXED}{type(exc).__name__})"
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
            f = open_regular(path)
        except OSError:  # (NotRegular too)
            return 0, None
        with f:
            fst = os.fstat(f.fileno())
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
            chars = self._scan(f, state, stats)
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
        for c in chunks:
            made = array.array("I", c[6]).tobytes() if c[6] else None
            cid = conn.execute("INSERT INTO chunks(file, start, end, entry, lineno, lines, dense, made) "
                               "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (fid, *c[:6], made)).lastrowid  # fmt: skip
            conn.execute("INSERT INTO words(rowid, text) VALUES (?, ?)", (cid, c[7]))
            if c[8]:
                conn.execute("INSERT INTO pairs(id, bits) VALUES (?, ?)", (cid, c[8]))
            total += len(c[7])
        return total

    def _prepared(self, paths: list[str]) -> Iterator[tuple[str, dict | None]]:
        """``(path, what a worker made of it, or None)`` for each of ``paths`` in order: new
        files go to worker processes (:mod:`.search_worker`) when there are many; the rest
        (and what a worker did not deliver) the caller indexes itself."""
        from . import search_worker as sw

        known = self._known()
        new = [p for p in paths if p not in known and utf8_name(p)]
        workers = min(4, os.cpu_count() or 1)
        size = 0
        if workers > 1 and len(new) >= sw.PARALLEL_MIN_FILES:
            for p in new:
                try:
                    size += os.stat(p).st_size
                except OSError:
                    pass
        if size < sw.PARALLEL_MIN_BYTES:
            for p in paths:
                yield p, None
            return
        it = sw.indexed_in_workers(new, workers)
        chosen = set(new)
        try:
            for p in paths:
                yield (next(it)) if p in chosen else (p, None)
        finally:
            it.close()

    def _scan(self, f, st: _FileState, stats: IndexStats) -> int:
        start = st.scanned_to
        chunks = list(_chunks(f, st, stats))
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

    def _plan(self, paths: list[str], root: SessionRoot | None) -> tuple[list[str], list[int]]:
        """``(stale, gone)``: paths whose size or mtime changed (or that are new), in the
        given order; ids of indexed files under ``root`` that no longer exist."""
        self._compact()
        known = self._known()
        stale = []
        for p in paths:
            k = known.get(p)
            if k is not None:
                try:
                    fst = os.stat(p)
                except OSError:
                    continue
                if k[1] == _identity(fst):
                    continue
            stale.append(p)
        gone: list[int] = []
        if root is not None:
            present = set(paths)
            rp = str(root.path)
            prefix = rp.rstrip(os.sep) + os.sep
            for p, k in known.items():
                if p not in present and (p == rp or p.startswith(prefix)) and not os.path.isfile(p):
                    gone.append(k[0])
        return stale, gone

    def _drop(self, gone: list[int], stats: IndexStats) -> None:
        if not gone:
            return
        with _Txn(self.conn) as txn:
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
            if not _is_corrupt(exc):
                raise
            self._recover(exc)
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
        stale, gone = self._plan(paths, root)
        self._drop(gone, stats)
        total = len(stale)
        if total and on_progress is not None:
            on_progress(0, total)
        prepared = self._prepared(stale)
        with _Txn(self.conn) as txn, contextlib.closing(prepared):
            for done, (p, got) in enumerate(prepared, 1):
                if should_stop is not None and should_stop():
                    stats.cancelled = True
                    break
                txn.begin()
                chars, _ = self._index_file_guarded(p, stats, got)
                txn.wrote(chars)
                if on_progress is not None:
                    on_progress(done, total)
        stats.seconds = time.perf_counter() - t0
        return stats

    # -------------------------------------------------------------- querying
    def file_ids(self) -> dict[str, int]:
        return {p: i for i, p in self.conn.execute("SELECT id, path FROM files WHERE error IS NULL")}

    def unindexed(self) -> set[str]:
        """The files whose indexing failed (:meth:`_mark_failed`): each search reads them whole."""
        return {p for (p,) in self.conn.execute("SELECT path FROM files WHERE error LIKE ?", (_UNINDEXED + "%",))}

    def candidates(self, q: Query, fid: int | None = None) -> dict[int, list[tuple] | None] | None:
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
        wide = not q.terms  # (``kind:`` alone)
        for t in q.terms:
            if t.fts is None:
                wide = True
                continue
            try:
                rows = self.conn.execute(
                    "SELECT c.file, c.start, c.end, c.entry, c.lineno, c.lines, c.dense, c.made, c.id FROM words "
                    f"JOIN chunks c ON c.id = words.rowid WHERE words MATCH ?{where}", (t.fts, *args)
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
            for key, trios in t.gaps:
                try:
                    ids = {r[0] for r in self.conn.execute(
                        f"SELECT rowid FROM words WHERE words MATCH ?{where}", (_gap_fts(trios), *args))}
                except sqlite3.OperationalError as exc:
                    if not _fts_refused(exc):
                        raise
                    continue  # (this gap narrows nothing)
                gaps.append((key, ids))
            per_term.append((t, files, tuple(gaps)))
        if not per_term:
            return None
        fids = set(per_term[0][1])
        for _t, files, _g in per_term[1:]:
            fids &= files.keys()
        if fid is not None:
            fids &= {fid}
        out: dict[int, list[tuple] | None] = {}
        for file in fids:
            out[file] = None if wide else [(t, files[file], gaps) for t, files, gaps in per_term]
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
        need = sorted({c[7] for t, chunks, gaps in per_term if t.pairs or gaps for c in chunks})
        bits: dict[int, bytes] = {}
        for k in range(0, len(need), 500):
            part = need[k : k + 500]
            bits.update(self.conn.execute(f"SELECT id, bits FROM pairs WHERE id IN ({','.join('?' * len(part))})", part))
        keep: set = set()
        starts: list[set] = []
        for t, chunks, gaps in per_term:
            got = [c for c in chunks if _chunk_may(bits.get(c[7]), t.pairs, gaps, c[7])] if t.pairs or gaps else chunks
            if not got:
                return [], None
            keep.update(got)
            starts.append({c[0] for c in got})
        return sorted(keep), starts

    def match_file(
        self, fid: int, q: Query, max_hits: int = MAX_HITS, should_stop: Callable[[], bool] | None = None,
        chunks: list[tuple] | None = None, count_to: int | None = None, per_term: list[set] | None = None,
        first_hits: int | None = None,
    ) -> Iterator[tuple[list[Hit], int, bool, bool]]:
        """Exact hits of ``q`` in file ``fid``, read back from the file's chunks at their
        offsets, step by step as :func:`~.search_match.match_steps` gives them (``count_to``:
        where its counting stops; ``first_hits``: when a first step is given); nothing when
        some term matches none of its rows (or ``should_stop()`` came true on the way).
        ``chunks``: the chunks that may hold a hit (default: all), ``per_term`` the starts of
        those that may hold each term (:meth:`_narrowed`). A file that no longer is what the
        index says (another size, time or inode) is read from its start (after a first step:
        its steps again, from the first)."""
        st = self._state_of(fid)
        if st is None or st.error is not None:
            return
        try:
            f = open_regular(st.path)
        except OSError:
            return
        with f:
            try:
                if _identity(os.fstat(f.fileno())) != (st.dev, st.ino, st.size, st.mtime_ns) or st.stream:
                    # (a stream is read whole: its entries are rebuilt from all its records)
                    yield from _match_open_file(f, st.path, q, max_hits, should_stop, count_to, first_hits)
                    return
                if chunks is None:
                    chunks = self.conn.execute(
                        "SELECT start, end, entry, lineno, lines, dense, made FROM chunks WHERE file=? ORDER BY start",
                        (fid,),
                    ).fetchall()
                stopped: list = [should_stop] if should_stop is not None else []
                rows = _ChunkRows(f, st, chunks, q, stopped, per_term)
                for got in match_steps(rows, q, max_hits, should_stop, count_to, first_hits):
                    if len(stopped) > 1:
                        return
                    yield got
            except _Changed:
                f.seek(0)
                yield from _match_open_file(f, st.path, q, max_hits, should_stop, count_to, first_hits)
            except (OSError, ValueError):
                return

    def query(
        self,
        q: Query,
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
                for r in self._query(q, [i for i in infos if i.path not in given],
                                     limit=None if limit is None else limit - len(given), max_hits=max_hits,
                                     should_stop=should_stop, update=update or attempt > 0, root=root,
                                     on_progress=on_progress, stats=stats, count_to=count_to, first_hits=first_hits):
                    if not r.partial:
                        given.add(r.path)
                    yield r
                return
            except sqlite3.DatabaseError as exc:
                if attempt or not _is_corrupt(exc):
                    raise
                self._recover(exc)

    def _query(
        self,
        q: Query,
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
            stale_list, gone = self._plan([i.path for i in infos], root)
            self._drop(gone, stats)
            stale = set(stale_list)
        fids = self.file_ids()
        unindexed = self.unindexed()
        cands = self.candidates(q)  # over what is indexed now: not used for stale files
        if stale and on_progress is not None:
            on_progress(0, len(stale))
        prepared = self._prepared([i.path for i in infos if i.path in stale])
        with _Txn(self.conn) as txn, contextlib.closing(prepared):
            yield from _in_turns(self._steps(q, infos, stale, prepared, txn, fids, unindexed, cands, max_hits,
                                             should_stop, on_progress, stats, count_to, first_hits),
                                 limit, should_stop, txn.commit)  # fmt: skip

    def _steps(self, q, infos, stale, prepared, txn, fids, unindexed, cands, max_hits, should_stop, on_progress,
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
                chars, fid = self._index_file_guarded(info.path, stats, got)
                txn.wrote(chars)
                done += 1
                if on_progress is not None:
                    on_progress(done, total)
                if fid is None:
                    if not self._unindexed(info.path):
                        continue
                elif self.fresh is not None:  # (its chunks only: most queries need none of them)
                    chunks, per_term = _fresh_candidates(q, self.fresh)
                    if chunks == []:
                        continue
                else:
                    mine = self.candidates(q, fid)
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
                yield info, _scan_file(info.path, q, max_hits, should_stop, count_to, first)
            else:
                yield info, self.match_file(fid, q, max_hits, should_stop, chunks, count_to, per_term, first)


class _Txn:
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

    def __enter__(self) -> "_Txn":
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
