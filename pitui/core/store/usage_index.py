"""The usage index in pitui's cache folder: its rows by path, and each file's scan state.

The index file (:mod:`.usage_file`) is read once and written whole (temporary file and
rename). Each session file's scan state (:class:`.usage_scan.FileScan`: what its lines said
so far, the tree among it) is a file of its own in ``usage-state-v<version>/``, named by a
hash of its path, read only to read on when that session grew.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Iterable

import orjson

from . import usage_file
from .usage_scan import FileScan
from ..paths import default_cache_dir, notice, private_dir, write_private

__all__ = ["UsageIndex"]


#: a state's temporary file: made by this process only, never through a link, private
_STATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _write_state(target: Path, data: bytes) -> None:
    """:func:`..paths.write_private`'s write whole or not at all, through a temporary name of
    this process's own in the private states folder rather than a random one (a cold read
    writes one state a session file)."""
    tmp = target.with_name(f".tmp-{os.getpid()}-{target.name}")
    with os.fdopen(os.open(tmp, _STATE_FLAGS, 0o600), "wb") as fh:
        fh.write(data)
    os.replace(tmp, target)  # (a write that failed leaves its temporary file: _prune removes it)


class UsageIndex:
    """The usage index file in pitui's cache folder (:mod:`.usage_file`): read once (unless
    ``load`` is false: a worker process, which keeps scan states only), its
    rows taken by path; written whole (temporary file and rename) when a file was read. A
    damaged or foreign file is thrown away (with a notice) and rebuilt. Each session
    file's scan state is a file of its own in ``usage-state-v<version>/`` (named by a hash
    of its path), read only when that session grew."""

    def __init__(self, cache_dir: str | os.PathLike | None = None, *, enabled: bool = True, load: bool = True):
        self.dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.file = self.dir / f"usage-v{usage_file.VERSION}.bin"
        self.states = self.dir / f"usage-state-v{usage_file.VERSION}"
        self.enabled = enabled
        self.rows: dict[str, usage_file.Row] = {}
        self._states_ready: bool | None = None  # (whether the states' folder may be written: keep_state)
        if enabled and load:
            self._load()

    def kept(self) -> bool:
        """Whether the usage index file is there (pitui keeps the usage of this cache's
        sessions)."""
        return self.enabled and self.file.is_file()

    def grown(self, files: Iterable[tuple[str, os.stat_result]]) -> dict[str, usage_file.Row]:
        """The rows of those of ``files`` (path, stat) that only grew since they were read
        (read on from their kept states), by path."""
        out = {}
        rows = self.rows
        for path, st in files:
            row = rows.get(path)
            if row is not None and row.dev == st.st_dev and row.ino == st.st_ino and st.st_size > row.size:
                out[path] = row
        return out

    @staticmethod
    def head_of(row: usage_file.Row | None) -> list | None:
        """What a worker process is given of a file's previous row to read on from its
        state (:meth:`head_row`): its identity, the bytes read and their fingerprint."""
        return None if row is None else list(row[1:7])

    @staticmethod
    def head_row(path: str, head) -> usage_file.Row | None:
        """The row of :meth:`head_of`'s ``head`` (its texts empty: enough for :meth:`state`);
        None when ``head`` is not one."""
        if type(head) is not list or len(head) != 6 or not all(type(value) is int for value in head[:5]) \
                or type(head[5]) is not str:
            return None
        return usage_file.Row(path, *head, b"", b"", b"")

    def _load(self) -> None:
        if private_dir(self.dir, create=False) is None:
            if self.dir.exists():
                self.enabled = False
            return
        try:
            raw = self.file.read_bytes()
        except OSError:
            return
        try:
            self.rows = {row.path: row for row in usage_file.decode(raw)}
        except usage_file.OtherVersion:
            return
        except usage_file.Damaged as exc:
            notice(f"the usage index was damaged ({exc}); it is being rebuilt")

    def _state_file(self, path: str) -> Path:
        return self.states / (hashlib.sha1(path.encode("utf-8", "surrogateescape")).hexdigest() + ".json")

    def state(self, row: usage_file.Row) -> FileScan | None:
        """The scan state kept for ``row`` (None: none, or not the one of that row)."""
        if not self.enabled:
            return None
        try:
            kept = orjson.loads(self._state_file(row.path).read_bytes())
            if (kept.get("path") != row.path or kept.get("offset") != row.offset
                    or kept.get("fingerprint") != row.fingerprint):
                return None
            return FileScan.from_state(kept["scan"])
        except (OSError, orjson.JSONDecodeError, TypeError, KeyError, AttributeError, ValueError):
            return None

    def keep_state(self, path: str, state: bytes) -> None:
        """Write (``b""``: remove) the scan state of the file at ``path``, as soon as it is read
        (so that a cold read of a big store does not hold every state until the end)."""
        if not self.enabled:
            return
        if self._states_ready is None:  # (the folders looked at once, not once a file)
            self._states_ready = private_dir(self.dir) is not None and private_dir(self.states) is not None
        if not self._states_ready:
            return
        target = self._state_file(path)
        try:
            if state:
                _write_state(target, state)
            else:
                target.unlink(missing_ok=True)
        except OSError as exc:
            notice(f"the usage index could not be saved: {exc}")

    def save(self, rows: list[usage_file.Row]) -> None:
        """Write the index of ``rows`` (and remove the states of files no longer there)."""
        if not self.enabled or private_dir(self.dir) is None:
            return
        try:
            self._prune({row.path for row in rows})
            write_private(self.file, usage_file.encode(rows))
        except OSError as exc:
            notice(f"the usage index could not be saved: {exc}")

    def _prune(self, paths: set[str]) -> None:
        """Remove the states of files no longer listed, when they are many."""
        try:
            names = os.listdir(self.states)
        except OSError:
            return
        if len(names) <= 2 * len(paths) + 64:
            return
        keep = {self._state_file(path).name for path in paths}
        for name in names:
            if name not in keep:
                try:
                    os.unlink(self.states / name)
                except OSError:
                    pass

