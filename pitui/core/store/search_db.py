"""The search index's SQLite file: its schema, and opening it.

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

Opening: a corrupt file (found when it is opened, or in the middle of a search or an
update: :meth:`SearchDb.recover`) is deleted and rebuilt, with a notice
(:func:`paths.notice`), and an older version's is deleted; when the cache folder cannot be
used (see :mod:`paths`) the index lives in memory for the call. The file is private
(``0600``, in a ``0700`` folder).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ..paths import default_cache_dir, make_cache_file, notice, private_dir

__all__ = ["SearchDb", "SCHEMA_VERSION", "FILE_COLS", "is_corrupt"]

SCHEMA_VERSION = 9  # 3: files keep dev and ino; 4: a tool call's nested arguments as text, not JSON; 5: chunks of words; 6: their made-text lines; 7: their word pairs; 8: the pair bitmaps a power of two bits; 9: their positions mixed (_pair_pos)

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

FILE_COLS = (
    "id, path, dev, ino, size, mtime_ns, scanned_to, next_lineno, next_entry, pending_entry, version, "
    "has_header, stream, fingerprint, error"
)


def is_corrupt(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite found the file damaged (SQLITE_CORRUPT, SQLITE_NOTADB and their
    extended codes), not merely busy, read-only or given a query it refuses."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return not isinstance(exc, sqlite3.OperationalError)
    return code & 0xFF in (11, 26)


class SearchDb:
    """The index file opened: one SQLite connection (``conn``; use one object per thread),
    on the file in ``dir``, or in memory (``in_memory``) when the file cannot be used."""

    def __init__(self, index_dir: str | os.PathLike | None = None):
        self.dir = Path(index_dir) if index_dir is not None else default_cache_dir()
        self.file = self.dir / f"search-v{SCHEMA_VERSION}.sqlite3"
        self.in_memory = False
        self.conn = self._open()

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

    def recover(self, exc: sqlite3.DatabaseError) -> None:
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
            names = ",".join(f"'{table}'" for table in _TABLES)
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
