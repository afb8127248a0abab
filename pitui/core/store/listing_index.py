"""The listing index: every session file's row, kept in one file in pitui's cache folder.

Rows are keyed by path, with the file's device, inode, size and mtime, and each row's
``pitui list --json`` object as printed (:mod:`.listing_file` is the file, :mod:`.listing_rows`
a row): a warm list stats every file and prints the rows of unchanged ones from there,
decoding none: whole columns are compared at once and no row is made
(:meth:`SessionIndex.unchanged_output`; a few files changed since the index was saved are
read and put in their places without rewriting it). The app and search decode the rows they
use.
"""

from __future__ import annotations

import mmap
import os
import threading
from bisect import bisect_right
from itertools import compress, count, repeat
from operator import attrgetter, is_, ne
from pathlib import Path
from typing import Iterable

from . import listing_file
from .discovery import SessionFile, SessionRoot
from .listing_file import Rec
from .listing_rows import FRAG_KEEP, TableOrder, decoded, frag_of, merge_recs, order_key, rec_of, sort_recs
from .session_info import SessionInfo
from ..paths import default_cache_dir, notice, open_cache_file, private_dir, write_private

__all__ = ["SessionIndex", "INDEX_VERSION", "STALE_FILES", "STALE_BYTES"]

INDEX_VERSION = 8  # 4: first messages kept as a bounded prefix and where their line lies; 5: rows
# hold the file's device and inode; 6: rows hold the transcripts their subagent runs record;
# 7: event streams listed as what they are (``log``); 8: a file of columns and each row's
# texts, its output among them (listing_file.py)

#: A warm list reads the files changed since the index was saved without saving it, up to
#: this many (grown, new, gone or relabelled) and this many bytes to read; past either,
#: the list is made row by row and the index saved (:meth:`SessionIndex.unchanged_output`).
STALE_FILES = 32
STALE_BYTES = 4 * 1024 * 1024

_STAT_KEY = attrgetter("st_dev", "st_ino", "st_size", "st_mtime_ns")
_FILE_LABEL = attrgetter("project", "kind")


class SessionIndex:
    """The persistent listing index: one file in pitui's cache folder (:mod:`.listing_file`).

    Versioned; a file that is damaged (its checksum, lengths or columns wrong) is thrown away
    and rebuilt, and so is a row whose fields are not a session's when it is decoded, each
    with a notice (:func:`paths.notice`). Rows are decoded only when asked for (the app, a
    file that grew); ``pitui list --json`` prints the unchanged ones from their stored
    output. Writes are atomic (temporary file + rename), so a crash never leaves a
    half-written index, and private (see :mod:`paths`: a cache folder that is another
    user's is not used).
    """

    def __init__(self, cache_dir: str | os.PathLike | None = None, *, enabled: bool = True):
        self.enabled = enabled
        self.dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.file = self.dir / f"index-v{INDEX_VERSION}.bin"
        self._rec_dict: dict[str, Rec] | None = {}
        self._table: listing_file.Table | None = None  # (the file read, its rows made when first used)
        self._table_lock = threading.Lock()
        self._moved: set[str] = set()  # rows put since _recs was in the list's order (as saved)
        self._dirty = False
        self._lock = threading.Lock()
        self.load_error: str | None = None
        if enabled:
            self._load()

    def _load(self) -> None:
        if private_dir(self.dir, create=False) is None:
            if self.dir.exists():  # (refused, with a notice)
                self.enabled = False
            return
        try:
            # mapped, not read: no copy of the file is made (pitui replaces it by a rename,
            # never writes into it: the mapping stays whole). Read on Windows, where a mapped
            # file cannot be replaced.
            with open_cache_file(self.file) as fh:  # (never through a link: one is removed)
                if os.name == "nt" or not os.fstat(fh.fileno()).st_size:
                    raw = fh.read()
                else:
                    raw = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        except FileNotFoundError:
            self._dirty = any(self.dir.glob("index-v*.json"))  # an older version's: deleted on save
            return
        except (OSError, ValueError) as exc:
            self.load_error = str(exc)
            return
        try:
            table = listing_file.Table(raw, INDEX_VERSION)
        except listing_file.OtherVersion:
            self._dirty = True  # another version's: rebuilt (nothing is wrong)
            return
        except listing_file.Damaged as exc:
            self._thrown_away(str(exc))
            return
        self._table, self._rec_dict = table, None

    @property
    def _recs(self) -> dict[str, Rec]:
        """Every row by path, in the index's order (made from the file when first used)."""
        got = self._rec_dict
        if got is None:
            with self._table_lock:
                got = self._rec_dict
                if got is None:
                    got = self._rec_dict = {rec.path: rec for rec in self._table.recs()}  # type: ignore[union-attr]
                    self._table = None
        return got

    @_recs.setter
    def _recs(self, value: dict[str, Rec]) -> None:
        with self._table_lock:
            self._rec_dict, self._table = value, None

    def unchanged_output(self, root: SessionRoot, files: list[SessionFile]) -> list | None:
        """The ``list --json`` outputs of ``files``, in the list's order, from the index as
        just read; else None (compared row by row, and the index saved: :func:`.listing._collect`).

        Rows of unchanged files (same device, inode, size and mtime, project folder and
        kind) are printed as stored: whole columns are compared at once, at C speed, and no
        row is made. When a few files changed since the index was saved (grown, new, gone
        from under ``root``, listed under another folder or kind: at most
        :data:`STALE_FILES`, with at most :data:`STALE_BYTES` to read), those are read here
        and put in their places by binary search, and the index is not written: a list
        after one session grew costs what a warm list does, not a rewrite of the whole
        index. The next list reads them again (from where the saved rows stopped) until
        the changes add up past those bounds and the row-by-row list saves them."""
        table = self._table
        if table is None:
            return None
        paths = [sf.path for sf in files]
        try:
            stats = list(map(os.stat, paths))
        except OSError:
            return None
        cols, rows_count = table.cols, table.n
        where = dict(zip(cols["path"], range(rows_count)))
        if len(where) != rows_count or len(set(paths)) != len(paths):
            return None  # (a row twice: a hostile index)
        at = list(map(where.get, paths, repeat(rows_count)))  # (each file's row; rows_count: not in the index)
        row_ids = [*zip(cols["dev"], cols["ino"], cols["size"], cols["mtime_ns"]), None]
        labels = [*zip(cols["project"], cols["kind"]), None]
        stale = set(compress(count(), map(ne, map(row_ids.__getitem__, at), map(_STAT_KEY, stats))))
        stale.update(compress(count(), map(ne, map(labels.__getitem__, at), map(_FILE_LABEL, files))))
        gone = 0
        if root.kind == "tree":  # (rows under the root whose file is no longer there)
            gone = sum(map(str.startswith, cols["path"], repeat(root.prefix))) - (len(at) - at.count(rows_count))
        if len(stale) + gone > STALE_FILES:
            return None
        frags = table.frags()
        kept = sorted(set(at).difference(map(at.__getitem__, stale)))  # (the index's order)
        got = frags if len(kept) == rows_count else list(map(frags.__getitem__, kept))
        # (an output too long to keep: made again)
        for out_at in [out_at for out_at, frag in enumerate(got) if not len(frag)]:
            info = decoded(table.rec(kept[out_at]))
            if isinstance(info, str):
                return None  # (a damaged row: dropped, with a notice, by the row-by-row list)
            got[out_at] = frag_of(info)
        if not stale:
            return got
        changed = self._read_stale(table, [(files[file_at], stats[file_at], at[file_at])
                                           for file_at in sorted(stale)])
        if changed is None:
            return None
        keys = TableOrder(table, kept)
        for rec in sorted(changed, key=order_key, reverse=True):  # (the last first: earlier places stay)
            got.insert(bisect_right(keys, order_key(rec)), rec.frag)
        return got

    def _read_stale(self, table: listing_file.Table, stale: list) -> list[Rec] | None:
        """The rows of ``stale`` files (``(file, stat, row number in table)``), read on from
        their rows where they only grew; None when a row is damaged (the row-by-row list
        drops it with a notice) or there is more than :data:`STALE_BYTES` to read."""
        from .listing_scan import scan_info  # (loaded by the first file read)

        budget = STALE_BYTES
        out = []
        for sf, st, row_at in stale:
            old = table.rec(row_at) if row_at < table.n else None
            same = old is not None and old.dev == st.st_dev and old.ino == st.st_ino
            prev = decoded(old) if same else None  # type: ignore[arg-type]
            if isinstance(prev, str):
                return None
            if same and old.size == st.st_size and old.mtime_ns == st.st_mtime_ns:  # type: ignore[union-attr]
                info = prev  # (the same file, listed under another project folder or kind)
                info.project, info.kind = sf.project, sf.kind  # type: ignore[union-attr]
            else:
                if prev is not None and st.st_size <= old.size:  # type: ignore[union-attr]
                    prev = None  # (not grown: read whole)
                budget -= st.st_size - (prev.scanned_to if prev is not None else 0)
                if budget < 0:
                    return None
                info = scan_info(sf, prev, st)
            out.append(rec_of(info, None, frag_of(info)))  # type: ignore[arg-type]
        return out

    def _say_damaged(self, why: str) -> None:
        """Say (once per damage found) that the index is rebuilt, and why."""
        self.load_error = f"index was unreadable and is rebuilt ({why})"
        notice(f"{self.file}: the listing index was damaged ({why}) and is rebuilt")

    def _thrown_away(self, why: str) -> None:
        self._say_damaged(why)
        with self._lock:
            self._recs = {}
            self._dirty = True

    def get(self, path: str) -> SessionInfo | None:
        rec = self._recs.get(path)
        return self.info(rec) if rec is not None else None

    def info(self, rec: Rec) -> SessionInfo | None:
        """``rec``'s SessionInfo, decoded from its row (once); None when the row is not a
        session's (it is dropped, with a notice: its file is read again)."""
        if rec.info is not None:
            return rec.info  # type: ignore[return-value]
        got = decoded(rec)
        if isinstance(got, str):
            self._say_damaged(got)
            with self._lock:
                if self._recs.get(rec.path) is rec:
                    del self._recs[rec.path]
                    self._dirty = True
            return None
        with self._lock:
            if self._recs.get(rec.path) is rec:
                self._recs[rec.path] = rec._replace(info=got)  # (same place: the order holds)
        return got

    def put(self, info: SessionInfo) -> None:
        self.put_rec(rec_of(info))

    def put_changed(self, rec: Rec) -> None:
        """Put ``rec`` unless the index holds its file's row as it is (the same identity,
        project folder and kind): a row read again for another reason (the usage's cold
        read) does not make the index to be written again."""
        old = self._recs.get(rec.path)
        if old is None or (old.dev, old.ino, old.size, old.mtime_ns, old.project, old.kind) != (
                rec.dev, rec.ino, rec.size, rec.mtime_ns, rec.project, rec.kind):
            self.put_rec(rec)

    def put_rec(self, rec: Rec) -> None:
        with self._lock:
            self._recs[rec.path] = rec
            self._dirty = True
            self._moved.add(rec.path)

    def _relabel(self, rec: Rec, project: str, kind: str) -> Rec:
        """``rec`` listed under another project folder or kind (its output made again)."""
        info = rec.info
        if info is not None:
            info.project, info.kind = project, kind  # type: ignore[attr-defined]
        new = rec._replace(project=project, kind=kind, frag=b"")
        with self._lock:
            if self._recs.get(rec.path) is rec:
                self._recs[rec.path] = new
                self._dirty = True
        return new

    def _set_frag(self, rec: Rec, frag: bytes) -> None:
        with self._lock:
            cur = self._recs.get(rec.path)
            if cur is not None and cur.ino == rec.ino and cur.size == rec.size and cur.mtime_ns == rec.mtime_ns:
                self._recs[rec.path] = cur._replace(frag=frag)
                self._dirty = True

    def forget_missing(self, present: Iterable[str]) -> None:
        keep = set(present)
        with self._lock:
            for path in [path for path in self._recs if path not in keep]:
                del self._recs[path]
                self._dirty = True

    def take_order(self, ordered: list[Rec]) -> None:
        """``ordered`` (sorted in the list's order) is every row the index holds, as put:
        kept in that order, so that saving it sorts nothing again."""
        with self._lock:
            recs = self._recs
            if len(ordered) == len(recs) and all(map(is_, ordered, map(recs.get, (rec.path for rec in ordered)))):
                self._recs = {rec.path: rec for rec in ordered}
                self._moved = set()

    def in_order(self, paths: set[str]) -> list[Rec] | None:
        """The rows of ``paths`` in the list's order when the index is in it (nothing
        changed since it was saved sorted), else None."""
        with self._lock:
            if self._moved:
                return None
            return [rec for path, rec in self._recs.items() if path in paths]

    def recent(self, root: SessionRoot, limit: int) -> list[SessionInfo]:
        """Up to ``limit`` rows under ``root``, first in the list's order, as the index last
        had them: what the app shows before the store is looked at."""
        keep = root.holds
        with self._lock:
            table = self._table  # (the file just read, in the list's order: its rows not made)
            if table is None:
                recs = [rec for rec in self._ordered() if keep(rec.path)]
            else:
                recs = (table.rec(row_at) for row_at, path in enumerate(table.cols["path"]) if keep(path))
        out = []
        for rec in recs:
            # (a row from the file is decoded, not kept: keeping it would make every row; a
            # damaged one is left for the listing to drop and say)
            info = self.info(rec) if table is None else decoded(rec)
            if isinstance(info, SessionInfo):
                out.append(info)
                if len(out) >= limit:
                    break
        return out

    def _ordered(self) -> list[Rec]:
        """Every row in the list's order (the lock held): the saved order, with the rows
        put since placed in it (or all sorted again when many were)."""
        if not self._moved:
            return list(self._recs.values())
        if len(self._moved) * 16 > len(self._recs):
            return sort_recs(list(self._recs.values()))
        moved = self._moved
        return merge_recs([rec for path, rec in self._recs.items() if path not in moved],
                          [self._recs[path] for path in moved])

    def save(self) -> None:
        if not self.enabled or not self._dirty:
            return
        with self._lock:
            self._dirty = False
            recs = self._ordered()
            if self._moved:
                self._recs = {rec.path: rec for rec in recs}
                self._moved = set()
        try:
            pieces = listing_file.encode(recs, INDEX_VERSION, FRAG_KEEP)
        except TypeError:
            return  # (rows JSON cannot hold are left out by encode: not expected)
        try:
            if private_dir(self.dir) is None:
                return
            write_private(self.file, pieces)
        except OSError:
            return  # a cache that cannot be written only costs time
        for old in range(1, INDEX_VERSION):  # (an older index can be large: v3 kept whole first messages)
            try:
                os.unlink(self.dir / f"index-v{old}.json")
            except OSError:
                pass

