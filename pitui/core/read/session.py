"""One Pi session file: a skeleton read once, bodies decoded on demand.

The skeleton holds, per entry, only what the tree and the lists need (id, parent, type,
role, entry timestamp, where its line lies in the file, and a few flags). Message bodies
are parsed from their byte span when something asks for them and kept in a bounded LRU.
Nothing here recurses on tree depth, and nothing ever writes to the session file.

:class:`Session` is the facade; its jobs live beside it: the flags, errors and warnings
(:mod:`.skeleton`), reading lines into the skeleton (:mod:`.scan`), the tree
(:mod:`.tree`), the entries decoded on demand (:mod:`.entries`) and the skeleton as plain
data for worker processes and the cache (:mod:`.skeleton_state`). A file that may be an
event stream is opened by :func:`pitui.core.read.open.open_session`.
"""

from __future__ import annotations

import os
import threading
from array import array
from typing import Any, Callable, Iterable

from . import entries, scan, skeleton_state, tree
from .skeleton import CURRENT_VERSION, ENTRY_TYPES, FileChanged, NotASession, SessionWarning
from .sniff import stream_kind

__all__ = ["Session", "NotASession", "FileChanged", "SessionWarning", "CURRENT_VERSION"]

#: the entry types Pi writes: a file with no header is shown only when it holds one of them
_PI_ENTRY_TYPES = frozenset(ENTRY_TYPES) - {"stream_event"}


class Session:
    """A Pi session file opened read-only.

    Entries are numbered 0..n-1 in file order (the header, unparsable lines and later
    duplicate header lines are not entries), exactly as the conformance corpus numbers them.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = os.fspath(path)
        self.header: dict = {}
        self.version = CURRENT_VERSION
        self.warnings: list[SessionWarning] = []
        # skeleton, one slot per entry
        self.ids: list[str] = []
        self.parent_ids: list[str | None] = []
        self.types: list[str] = []
        self.roles: list[str | None] = []
        self.timestamps: list[Any] = []
        self.offsets = array("q")
        self.lengths = array("q")
        self.linenos = array("q")
        self.flags = bytearray()
        # session-wide facts kept up to date while scanning
        self.label_by_target: dict[str, str] = {}
        self.label_time_by_target: dict[str, Any] = {}
        self.name: str | None = None
        # where scanning stopped: the next byte to read, the next line number
        self.scanned_to = 0
        self.next_lineno = 1
        self.file_size = 0
        self.file_mtime = 0.0
        # which file was read: entries are read back only from the same one (see _read)
        self.file_dev = 0
        self.file_ino = 0
        self.file_mtime_ns = 0
        self._pending_partial: int | None = None  # entry index of an unterminated last line
        self._parsed_count = 0  # parsed lines incl. header (Pi's v1 compaction index space)
        self._parsed_pos_to_entry: dict[int, int] = {}
        self._v1_first_kept: dict[int, str | None] = {}
        self._intern: dict[str, str] = {}
        self._cache = entries.LRU()
        # views of the whole file worked out once by core.model, each as (entries when made, value)
        self.derived: dict[str, tuple[int, Any]] = {}
        self._lock = threading.RLock()
        # the last path walked by path_to, with each entry's depth on it
        self._path_lock = threading.Lock()
        self._path_tree: Any = None  # the parent list the cached path was walked in
        self._path: list[int] = []
        self._path_pos: array | None = None  # (tree.walk_path: each entry's index on _path)
        # tool call id -> (assistant entry, toolCall block) or None, found by call_anywhere
        self._calls_found: dict[str, tuple[int, dict] | None] = {}
        # tree, rebuilt by _build_tree()
        self.index_of: dict[str, int] = {}
        self.parent: list[int] = []
        self._children: dict[int, list[int]] | None = {}  # None: made from parent when asked for
        self.roots: list[int] = []
        self.shadowed: set[int] = set()
        self.leaf = -1
        self.tree_warnings: list[SessionWarning] = []

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(
        cls,
        path: str | os.PathLike,
        *,
        validate: bool = True,
        progress: Callable[[int, int], None] | None = None,
    ) -> "Session":
        """Read the skeleton of ``path``.

        ``validate=True`` parses every line whole (exactly Pi's acceptance of lines);
        ``validate=False`` reads big tool-output lines from their head only, for speed,
        and checks them later with :meth:`validate_lazy_lines` or when they are shown.
        Raises :class:`NotASession` with a one-line reason for anything that is not a session,
        an event stream of ``pi --mode json`` or ``rpc`` among them (told from its first
        records): :func:`pitui.core.read.open.open_session` opens either.
        """
        if cls is Session:
            _refuse_stream(path)
        return cls.read(path, validate=validate, progress=progress)

    @classmethod
    def read(cls, path: str | os.PathLike, *, validate: bool = True,
             progress: Callable[[int, int], None] | None = None) -> "Session":
        """:meth:`open` for a file known not to be an event stream (not asked again)."""
        session = cls(path)
        session._scan(validate=validate, progress=progress)
        return session

    @classmethod
    def open_headerless(cls, path: str | os.PathLike) -> "Session":
        """A file with no session header (:meth:`open` raised :class:`NotASession` with
        ``no_header``), read as if a version-3 header stood before its first line, so that
        the app can show what it holds. Pi refuses such a file, and so do ``pitui list``,
        ``export`` and ``check``: ``headerless`` marks it, and line 1's warning says so."""
        session = cls(path)
        stem = os.path.splitext(os.path.basename(session.path))[0]
        session.header = {"type": "session", "version": CURRENT_VERSION, "id": stem.rpartition("_")[2] or stem, "cwd": ""}
        session.headerless = True
        session.warnings.append(SessionWarning(1, "line 1: no session header: Pi will not open this file", "no-header"))
        session._scan(validate=True)
        if not any(entry_type in _PI_ENTRY_TYPES for entry_type in session.types):  # (a JSONL file of something else)
            raise NotASession(session.path, "no session header line and no Pi entry in it (not a Pi session)",
                              no_header=True)
        return session

    #: the file has no session header (:meth:`open_headerless`)
    headerless = False

    @classmethod
    def read_header(cls, path: str | os.PathLike, *, sniffed: bool = False) -> "Session":
        """A session with only its header read (``scanned_to`` is the first entry's line).
        Raises :class:`NotASession` as :meth:`open` does (``sniffed``: the file is known
        not to be an event stream; :func:`pitui.core.read.open.read_session_header` reads
        the header of either)."""
        if cls is Session and not sniffed:
            _refuse_stream(path)
        session = cls(path)
        session._scan(validate=True, header_only=True)
        return session

    # ------------------------------------------------------------------ scanning (scan.py)
    def _scan(self, *, validate: bool, progress: Callable[[int, int], None] | None = None, stop: int | None = None,
              build: bool = True, header_only: bool = False, progress_every: int = 8 * 1024 * 1024,
              mapped: bool = False) -> int:
        """:func:`.scan.scan`: read from ``scanned_to`` on; the number of new entries."""
        return scan.scan(self, validate=validate, progress=progress, stop=stop, build=build, header_only=header_only,
                         progress_every=progress_every, mapped=mapped)

    def _reset(self) -> None:
        """Forget everything read (the file is another one now, or shrank)."""
        fresh = Session(self.path)
        self.__dict__.update(fresh.__dict__)

    def snapshot(self) -> "Session":
        """A copy that can be refreshed in a worker thread while this one is being read:
        every container the scan or the tree rebuild changes is copied (the body cache is
        shared; it is only a cache). Bring the result back with :meth:`adopt`."""
        new = Session.__new__(Session)
        state = dict(self.__dict__)
        for key in ("ids", "parent_ids", "types", "roles", "timestamps", "warnings", "tree_warnings", "parent", "roots"):
            state[key] = list(state[key])
        for key in ("offsets", "lengths", "linenos"):
            state[key] = array("q", state[key])
        state["flags"] = bytearray(state["flags"])
        for key in ("label_by_target", "label_time_by_target", "_parsed_pos_to_entry", "_v1_first_kept", "index_of",
                    "derived"):
            state[key] = dict(state[key])
        state["_children"] = {key: list(value) for key, value in self.children.items()}
        state["shadowed"] = set(state["shadowed"])
        new.__dict__.update(state)
        return new

    def adopt(self, other: "Session") -> None:
        """Take ``other``'s state (a refreshed :meth:`snapshot` of this session) in one step,
        keeping this object, which the UI holds, as the session."""
        if other.path != self.path:
            raise ValueError("adopt() takes a snapshot of the same file")
        self.__dict__.update(other.__dict__)

    def refresh(self, *, validate: bool = False) -> int:
        """Read whatever Pi appended since the last scan (the whole file again when it is
        another file now, see :meth:`unchanged`). Returns the number of new entries."""
        with self._lock:
            try:
                st = os.stat(self.path)
            except OSError:
                return 0
            if self.unchanged(st) and self._pending_partial is None:
                return 0
            return self._scan(validate=validate)

    # ------------------------------------------------------------------ file identity
    def _take_stat(self, st: os.stat_result) -> None:
        self.file_size = st.st_size
        self.file_mtime = st.st_mtime
        self.file_dev, self.file_ino, self.file_mtime_ns = st.st_dev, st.st_ino, st.st_mtime_ns

    def unchanged(self, st: os.stat_result) -> bool:
        """Whether ``st`` (a stat of :attr:`path`) is the file as last read: same device,
        inode, size and modification time."""
        return (st.st_size == self.file_size and st.st_mtime_ns == self.file_mtime_ns
                and st.st_ino == self.file_ino and st.st_dev == self.file_dev)

    def same_file(self, st: os.stat_result) -> bool:
        """Whether ``st`` is the file that was read, perhaps grown since (Pi appends): the
        same device and inode, and not rewritten in place (the same size with another
        modification time). True before anything was read."""
        if not self.file_ino and not self.file_dev:
            return True
        if st.st_ino != self.file_ino or st.st_dev != self.file_dev:
            return False
        return st.st_size != self.file_size or st.st_mtime_ns == self.file_mtime_ns

    def _read(self, offset: int, length: int) -> bytes:
        """``length`` bytes at ``offset`` of the file that was read. Raises
        :class:`FileChanged` when another file has taken its name or it is shorter than what
        was read (its bytes there are not the entries'), OSError when it cannot be read."""
        fd = os.open(self.path, os.O_RDONLY)
        try:
            self._check_fd(fd)
            return os.pread(fd, length, offset)
        finally:
            os.close(fd)

    def _check_fd(self, fd: int) -> None:
        if not self.file_ino and not self.file_dev:
            return
        st = os.fstat(fd)  # (of the file just opened: no lookup, no disk access)
        if st.st_ino != self.file_ino or st.st_dev != self.file_dev or st.st_size < self.scanned_to:
            raise FileChanged(f"{self.path}: the session file was replaced or cut short since it was read")
    # ------------------------------------------------------------------ as plain data (skeleton_state.py)
    @classmethod
    def scan_part(cls, path: str, start: int, stop: int | None, version: int,
                  progress: Callable[[int, int], None] | None = None, *, mapped: bool = False) -> dict:
        """:func:`.skeleton_state.scan_part`: the lines in ``[start, stop)`` as plain data."""
        return skeleton_state.scan_part(cls, path, start, stop, version, progress, mapped=mapped)

    def add_parts(self, parts: list[dict]) -> None:
        """:func:`.skeleton_state.add_parts`: append the parts :meth:`scan_part` read, and
        build the tree."""
        skeleton_state.add_parts(self, parts)

    def to_state(self) -> dict:
        """:func:`.skeleton_state.to_state`: this session (skeleton, tree, the last path
        walked) for :meth:`from_state`."""
        return skeleton_state.to_state(self)

    def tree_state(self) -> dict:
        """:func:`.skeleton_state.tree_state`: the tree as compact plain data."""
        return skeleton_state.tree_state(self)

    @classmethod
    def from_state(cls, state: dict) -> "Session":
        """The session :meth:`to_state` made ``state`` of."""
        return skeleton_state.from_state(cls, state)

    def columns(self, start: int, stop: int) -> tuple:
        """Entries ``start..stop-1`` as plain data for :meth:`extend_columns`."""
        return skeleton_state.columns(self, start, stop)

    def extend_columns(self, chunk: tuple) -> None:
        """Append entries sent by :meth:`columns` (the next ones in file order)."""
        skeleton_state.extend_columns(self, chunk)

    def rest_state(self) -> dict:
        """All a scan learnt besides its entries, and its tree, for :meth:`finish_stream`."""
        return skeleton_state.rest_state(self)

    def finish_stream(self, rest: dict, tree_data: dict) -> None:
        """Take the rest of a streamed scan (after all its chunks) and its tree
        (:meth:`tree_state`)."""
        skeleton_state.finish_stream(self, rest, tree_data)

    # ------------------------------------------------------------------ tree (tree.py)
    def damaged_entries(self) -> list[int]:
        """The entries whose line turned out not to parse (in file order)."""
        return tree.damaged_entries(self)

    def drop_damaged(self) -> bool:
        """:func:`.tree.drop_damaged`: the entries found damaged since the tree was built
        taken out of it; whether the tree changed."""
        return tree.drop_damaged(self)

    def _build_tree(self) -> None:
        """:func:`.tree.build_tree`: the tree made again from the skeleton."""
        tree.build_tree(self)

    @property
    def children(self) -> dict[int, list[int]]:
        """The children of each entry that has any, oldest first (Pi's getTree order)."""
        got = self._children
        if got is None:
            # (another thread asking meanwhile makes an equal dict: no harm)
            got = self._children = tree.children_from_parent(self)
        return got

    @children.setter
    def children(self, value: dict[int, list[int]]) -> None:
        self._children = value

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def id(self) -> str:
        return self.header.get("id", "")

    @property
    def cwd(self) -> str:
        cwd = self.header.get("cwd")
        return cwd if isinstance(cwd, str) else ""

    @property
    def all_warnings(self) -> list[SessionWarning]:
        return sorted(self.warnings + self.tree_warnings, key=lambda warning: (warning.line or 0))

    def label_of(self, index: int) -> str | None:
        return self.label_by_target.get(self.ids[index]) if self.index_of.get(self.ids[index]) == index else None

    @property
    def labels(self) -> dict[int, str]:
        out = {}
        for target, label in self.label_by_target.items():
            index = self.index_of.get(target)
            if index is not None:
                out[index] = label
        return out

    def children_of(self, index: int) -> list[int]:
        return self.children.get(index, [])

    def path_to(self, index: int) -> list[int]:
        """Entry indices from the root down to ``index`` (inclusive). Iterative.

        The last path walked is kept: a path is walked up only to the first entry on it,
        so the paths to leaves of one deep branch cost their differing part (and a copy)."""
        return tree.walk_path(self, index, False)[0]

    def path_positions(self, index: int) -> tuple[list[int], tree.PathPositions]:
        """:meth:`path_to` and each entry's index on it (a copy of the one kept with the
        last path walked when that path ends at ``index``, as the leaf's path a worker walked
        does; made from the path otherwise)."""
        path, pos = tree.walk_path(self, index, True)
        return path, pos if pos is not None else tree.PathPositions(path, tree.positions_of(path, len(self.parent)))

    def newest_leaf_below(self, index: int) -> int:
        """The leaf reached from ``index`` by following the branch that holds the current leaf
        when ``index`` is on it, else the newest (last in file order) leaf of ``index``'s subtree."""
        return tree.newest_leaf_below(self, index)

    def is_ancestor(self, ancestor: int, node: int) -> bool:
        """True when ``ancestor`` is on the path from the root to ``node`` (or is ``node``)."""
        return tree.is_ancestor(self, ancestor, node)

    # ------------------------------------------------------------------ entries (entries.py)
    def entry(self, index: int) -> dict:
        """:func:`.entries.entry`: the whole entry ``index`` as Pi would hold it in memory,
        its fields normalised, its problems reported once; a stand-in saying why when its
        line cannot be read back."""
        return entries.entry(self, index)

    def raw_line(self, index: int) -> bytes:
        """The entry's exact bytes in the file (:class:`FileChanged` if it is another file now)."""
        return self._read(self.offsets[index], self.lengths[index])

    def raw_lines(self, indices: Iterable[int], limit: int | None = None):
        """``(i, bytes)`` for each entry, read through one open file (at most ``limit``
        bytes of each line: its head)."""
        fd = os.open(self.path, os.O_RDONLY)
        try:
            self._check_fd(fd)
            lengths = self.lengths
            for index in indices:
                yield index, os.pread(fd, lengths[index] if limit is None else min(lengths[index], limit), self.offsets[index])
        finally:
            os.close(fd)

    def message(self, index: int) -> dict | None:
        message = self.entry(index).get("message")
        return message if isinstance(message, dict) else None

    def find_tool_call(self, index: int) -> tuple[int, dict] | None:
        """``(assistant entry, toolCall block)`` that produced tool result ``index``, found by
        walking up its parents (:func:`.entries.find_tool_call`)."""
        return entries.find_tool_call(self, index)

    def call_anywhere(self, tcid: str) -> tuple[int, dict] | None:
        """``(assistant entry, toolCall block)`` of the call ``tcid`` anywhere in the file
        (:func:`.entries.call_anywhere`), or None."""
        return entries.call_anywhere(self, tcid)

    def validate_lazy_lines(self, should_stop: Callable[[], bool] | None = None) -> list[int]:
        """:func:`.entries.validate_lazy_lines`: every line read from its head parsed whole
        and every entry's fields checked; the entries found damaged."""
        return entries.validate_lazy_lines(self, should_stop)


def _refuse_stream(path: str | os.PathLike) -> None:
    """:class:`NotASession` when ``path`` is an event stream (its first records say so)."""
    if stream_kind(path) is not None:
        raise NotASession(os.fspath(path), "an event stream of pi --mode json or rpc, not a session file",
                          no_header=True)
