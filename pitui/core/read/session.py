"""One Pi session file: a skeleton read once, bodies decoded on demand.

The skeleton holds, per entry, only what the tree and the lists need (id, parent, type,
role, entry timestamp, where its line lies in the file, and a few flags). Message bodies
are parsed from their byte span when something asks for them and kept in a bounded LRU.
Nothing here recurses on tree depth, and nothing ever writes to the session file.
"""

from __future__ import annotations

import math
import os
import re
import threading
from array import array
from collections import OrderedDict
from dataclasses import dataclass
from functools import cmp_to_key
from typing import Any, BinaryIO, Callable, Iterable


from .lines import (_WS_START, NotRegular, RawLine, iter_line_blocks, iter_line_spans, open_regular, parse_line,
                    read_span)
from .normalize import (cut_deep, kind_of, may_be_deep, norm_id, norm_label, norm_timestamp, normalize_entry,
                        normalize_header)
from ..timeutil import iso_to_ms

__all__ = ["Session", "NotASession", "FileChanged", "SessionWarning", "CURRENT_VERSION"]

CURRENT_VERSION = 3

# A line's skeleton fields are read from its first HEAD_BYTES when Pi's own key order is
# recognised there; the rest of the line is parsed only when the entry is shown (or checked
# by validate_lazy_lines).
HEAD_BYTES = 1024
# entry numbers as they cross processes and are kept in the skeleton cache: 4 bytes each
_INDEX = "i"

_HEAD_RE = re.compile(
    rb'\{"type":"message","id":"([^"\\]{1,256})","parentId":(null|"[^"\\]{1,256}"),'
    rb'"timestamp":"([^"\\]{1,64})","message":\{"role":"([A-Za-z]{1,64})"'
)
# The last "stopReason" of an assistant line (it follows the content and usage).
_STOP_RE = re.compile(rb'"stopReason":"([A-Za-z]*)"')
# A text block holding at least one character that is not white space.
_TEXT_RE = re.compile(rb'\{"type":"text","text":"(?:[ \t]|\\[nrt])*(?:[^"\s\\]|\\[^nrt])')
_TAIL = 4096

# Flag bits per entry.
F_ASSISTANT_TEXT = 1  # an assistant message with non-blank text
F_ABNORMAL_STOP = 2  # an assistant message whose stopReason is not stop/toolUse (error, aborted, ...)
F_LAZY = 4  # skeleton came from the line head; the line has not been validated whole
F_DAMAGED = 8  # the line turned out not to parse when its body was read
_DAMAGED_MARK = bytes(1 if b & F_DAMAGED else 0 for b in range(256))  # flags -> 1 where damaged
F_NON_UTF8 = 16  # bytes that are not UTF-8 were replaced
F_CHECKED = 32  # the entry's fields were checked (see normalize.py) and any problems reported
F_REPAIRED = 64  # lone surrogates replaced, numbers beyond a double's range read as null (and reported)
F_CUT = 128  # values nested too deeply were cut (and reported)

# (taken only to report an entry's problems once, when it has any)
_REPORT_LOCK = threading.Lock()


def _what_json(obj: Any) -> str:
    """What a JSON value is, for a reason: ``'message'`` (an object's type), ``an object
    without a type``, ``a list``."""
    if isinstance(obj, dict):
        kind = obj.get("type")
        return repr(kind) if isinstance(kind, str) else "an object without a type"
    names = {list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return names.get(type(obj), "null" if obj is None else type(obj).__name__)


def _index_of(ids: list[str], damaged: list[int]) -> dict[str, int]:
    """Each id's entry: a later duplicate wins (as in Pi), and a damaged line has no id (Pi
    never read it, so its id leads nowhere)."""
    if not damaged:
        return dict(zip(ids, range(len(ids))))
    gone = set(damaged)
    return {eid: i for i, eid in enumerate(ids) if i not in gone}


#: the entry types Pi writes: a file with no header is shown only when it holds one of them
_PI_ENTRY_TYPES = frozenset({"message", "compaction", "branch_summary", "model_change", "thinking_level_change",
                             "custom", "custom_message", "label", "session_info", "usage", "context_edit"})


class NotASession(Exception):
    """The file is not a Pi session; ``reason`` is one line for the user. ``no_header``:
    the file was read and has no session header (``line``: the line that should have been
    it, when there is one); otherwise it could not be read at all."""

    def __init__(self, path: str, reason: str, line: int | None = None, *, no_header: bool = False):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.line = line
        self.no_header = no_header


class FileChanged(OSError):
    """The session file is no longer the file that was read: another file took its name
    (other device or inode) or it was cut short. Its bytes are not the entries' bytes."""


@dataclass(slots=True, frozen=True)
class SessionWarning:
    line: int | None
    message: str
    # what kind of problem it is, for ``pitui check`` (:mod:`pitui.core.model.doctor`
    # names the kinds and says what Pi does with each); "" when not said
    kind: str = ""

    def to_json(self) -> dict:
        return {"line": self.line, "message": self.message}


def _intern_str(table: dict, value: str) -> str:
    got = table.get(value)
    if got is None:
        table[value] = value
        return value
    return got


class _LRU:
    """A small LRU bounded by item count and by approximate bytes.

    Hand-written because entries range from bytes to megabytes, so a bound on the count
    alone (functools.lru_cache; Textual's LRUCache, which core may not import) would let a
    few big tool results hold hundreds of MB."""

    def __init__(self, max_items: int = 4096, max_bytes: int = 96 * 1024 * 1024):
        self._d: OrderedDict[int, tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self.max_items = max_items
        self.max_bytes = max_bytes
        self._lock = threading.Lock()

    def get(self, key: int) -> Any:
        with self._lock:
            item = self._d.get(key)
            if item is None:
                return None
            self._d.move_to_end(key)
            return item[0]

    def put(self, key: int, value: Any, size: int) -> None:
        with self._lock:
            old = self._d.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._d[key] = (value, size)
            self._bytes += size
            while self._d and (len(self._d) > self.max_items or self._bytes > self.max_bytes):
                _, (_, sz) = self._d.popitem(last=False)
                self._bytes -= sz

    def clear(self) -> None:
        with self._lock:
            self._d.clear()
            self._bytes = 0


def open_session_file(path: str) -> BinaryIO:
    """``path`` opened for reading (a regular file only: :func:`open_regular`), or
    :class:`NotASession` saying in a few words why it cannot be read."""
    try:
        return open_regular(path)
    except NotRegular as exc:
        raise NotASession(path, str(exc).removeprefix(f"{path} "))
    except IsADirectoryError:
        raise NotASession(path, "is a directory, not a session file")
    except FileNotFoundError:
        raise NotASession(path, "no such file")
    except PermissionError:
        raise NotASession(path, "permission denied")
    except OSError as exc:
        raise NotASession(path, f"cannot be read ({exc.strerror or exc})")


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
        self._cache = _LRU()
        # views of the whole file worked out once by core.model, each as (entries when made, value)
        self.derived: dict[str, tuple[int, Any]] = {}
        self._lock = threading.RLock()
        # the last path walked by path_to, with each entry's depth on it
        self._path_lock = threading.Lock()
        self._path_tree: Any = None  # the parent list the cached path was walked in
        self._path: list[int] = []
        self._path_pos: dict[int, int] = {}
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
        Raises :class:`NotASession` with a one-line reason for anything that is not a session.
        An event stream of ``pi --mode json`` or ``rpc`` (told from its first records) is
        opened as a :class:`~pitui.core.read.stream.StreamSession`.
        """
        if cls is Session and (stream := _as_stream(path)) is not None:
            return stream
        s = cls(path)
        s._scan(validate=validate, progress=progress)
        return s

    @classmethod
    def open_headerless(cls, path: str | os.PathLike) -> "Session":
        """A file with no session header (:meth:`open` raised :class:`NotASession` with
        ``no_header``), read as if a version-3 header stood before its first line, so that
        the app can show what it holds. Pi refuses such a file, and so do ``pitui list``,
        ``export`` and ``check``: ``headerless`` marks it, and line 1's warning says so."""
        s = cls(path)
        stem = os.path.splitext(os.path.basename(s.path))[0]
        s.header = {"type": "session", "version": CURRENT_VERSION, "id": stem.rpartition("_")[2] or stem, "cwd": ""}
        s.headerless = True
        s.warnings.append(SessionWarning(1, "line 1: no session header: Pi will not open this file", "no-header"))
        s._scan(validate=True)
        if not any(t in _PI_ENTRY_TYPES for t in s.types):  # (a JSONL file of something else)
            raise NotASession(s.path, "no session header line and no Pi entry in it (not a Pi session)",
                              no_header=True)
        return s

    #: the file has no session header (:meth:`open_headerless`)
    headerless = False

    # ------------------------------------------------------------------ scanning
    def _scan(
        self,
        *,
        validate: bool,
        progress: Callable[[int, int], None] | None = None,
        stop: int | None = None,
        build: bool = True,
        header_only: bool = False,
        progress_every: int = 8 * 1024 * 1024,
        mapped: bool = False,
    ) -> int:
        """Scan from ``scanned_to`` to the end of the file (or to byte ``stop``). Returns the
        number of new entries. ``build=False`` leaves the tree alone (a part of a parallel
        open); ``header_only`` stops once the header is read; ``progress`` is called after
        every ``progress_every`` bytes or more. ``mapped``: the quick scan maps the file
        rather than reading it (see :func:`iter_line_blocks`: for worker processes only)."""
        f = open_session_file(self.path)
        with f:
            st = os.fstat(f.fileno())
            size = st.st_size
            if size < self.scanned_to or not self.same_file(st):
                # Shrunk, or another file (or rewritten in place: same size, new mtime):
                # start over.
                self._reset()
            start_count = len(self.ids)
            if self._pending_partial is not None:
                # An unterminated last line was accepted last time; re-read it from its start.
                self._drop_from(self._pending_partial)
                self._pending_partial = None
            self._take_stat(st)
            body = True  # entries follow (not after a header line still being written)
            if not self.header:
                body = False
                for buf, pos, e, off, lineno, end, term in iter_line_spans(f, self.scanned_to, self.next_lineno, stop):
                    self._accept_header(RawLine(off, e - pos, lineno, bytes(buf[pos:e]), term, end))
                    if self.header:
                        body = term
                        break
                if not self.header:
                    if size == 0:
                        raise NotASession(self.path, "empty file", no_header=True)
                    raise NotASession(self.path, "no session header line (not a Pi session)", no_header=True)
            if body and not header_only:
                if not validate and self.version >= 2:
                    self._scan_heads(f, size, stop, progress, progress_every, mapped)
                else:
                    last_report = 0
                    for buf, pos, e, off, lineno, end, term in iter_line_spans(
                        f, self.scanned_to, self.next_lineno, stop
                    ):
                        self._scan_line(RawLine(off, e - pos, lineno, bytes(buf[pos:e]), term, end), check=True)
                        if progress is not None and end - last_report >= progress_every:
                            last_report = end
                            progress(end, size)
        if header_only:
            return 0
        if progress is not None:
            progress(self.file_size if stop is None else stop, self.file_size)
        if build:
            self._build_tree()
        return len(self.ids) - start_count

    # ------------------------------------------------------------------ parallel opening
    @classmethod
    def scan_part(cls, path: str, start: int, stop: int | None, version: int,
                  progress: Callable[[int, int], None] | None = None, *, mapped: bool = False) -> dict:
        """Scan the lines in ``[start, stop)`` (to the end of the file when ``stop`` is
        None) of a file whose header was read elsewhere; line numbers count from 1 at
        ``start``. The result is plain data for :meth:`add_parts` (see
        :mod:`pitui.core.open.parallel`): the skeleton of the part, its warnings, how many
        lines it spans, and whether it ended where it should (a file rewritten meanwhile
        does not)."""
        s = cls(path)
        s.header = {"type": "session"}  # a stand-in: the caller holds the real header
        s.version = version
        s.scanned_to = start
        s.next_lineno = 1
        s._scan(validate=False, progress=progress, stop=stop, build=False, mapped=mapped)
        ok = True
        lines = s.next_lineno - 1
        if stop is not None:
            # The part must end with whole lines; count the newlines of trailing blank ones.
            tail = read_span(path, s.scanned_to, stop - s.scanned_to) if s.scanned_to < stop else b""
            if s._pending_partial is not None or len(tail) != stop - s.scanned_to or tail.strip():
                ok = False
            lines += tail.count(b"\n")
        return {
            "ok": ok,
            "start": start,
            "stop": stop,
            "ids": s.ids,
            "parent_ids": s.parent_ids,
            "types": s.types,
            "roles": s.roles,
            "timestamps": s.timestamps,
            "offsets": s.offsets.tobytes(),
            "lengths": s.lengths.tobytes(),
            "linenos": s.linenos.tobytes(),
            "flags": bytes(s.flags),
            "warnings": [(w.line, w.message) for w in s.warnings],
            "lines": lines,
            "scanned_to": s.scanned_to,
            "next_lineno": s.next_lineno,
            "pending_partial": s._pending_partial,
            "file_size": s.file_size,
            "file_mtime": s.file_mtime,
            "file_id": (s.file_dev, s.file_ino, s.file_mtime_ns),
        }

    # The whole session as plain data, compact to pickle and quick to load: lists of
    # numbers travel as arrays and the dicts that follow from them are made again with
    # C-level zips (a plain pickle of the tree took 3x longer to load than to build).
    _STATE_SKIP = frozenset({"_lock", "_path_lock", "_cache", "_path_tree", "_path", "_path_pos",
                             "index_of", "parent", "_children", "_calls_found"})

    _TREE_STATE = ("roots", "shadowed", "leaf", "tree_warnings", "parent", "walked_path")

    def to_state(self) -> dict:
        """This session (skeleton, tree, the last path walked) for :meth:`from_state`."""
        d = {k: v for k, v in self.__dict__.items() if k not in self._STATE_SKIP}
        d.update(self.tree_state())
        return d

    def tree_state(self) -> dict:
        """The tree (and the last path walked in it) as compact plain data: the parent of
        each entry (its children follow from it, see :attr:`children`)."""
        return {
            "roots": self.roots,
            "shadowed": self.shadowed,
            "leaf": self.leaf,
            "tree_warnings": self.tree_warnings,
            "parent": array(_INDEX, self.parent).tobytes(),
            "walked_path": array(_INDEX, self._path if self._path_tree is self.parent else ()).tobytes(),
        }

    def _load_tree_state(self, d: dict, index_of: dict[str, int] | None = None) -> None:
        parent = array(_INDEX)
        parent.frombytes(d["parent"])
        path = array(_INDEX)
        path.frombytes(d["walked_path"])
        self.roots, self.shadowed, self.leaf, self.tree_warnings = d["roots"], d["shadowed"], d["leaf"], d["tree_warnings"]
        self.index_of = _index_of(self.ids, self.damaged_entries()) if index_of is None else index_of
        self.parent = parent.tolist()
        # made when first asked for (54,000 lists of a big session cost its open ~20 ms,
        # and its first screen does not need them)
        self._children = None
        if path:
            self._path_tree = self.parent
            self._path = path.tolist()
            self._path_pos = dict(zip(self._path, range(len(self._path))))

    @classmethod
    def from_state(cls, state: dict) -> "Session":
        s = cls(state["path"])
        s.__dict__.update({k: v for k, v in state.items() if k not in cls._TREE_STATE})
        s._load_tree_state(state)
        return s

    # ------------------------------------------------------------------ streamed opening
    # A worker process reading the whole file sends its entries in chunks while it reads
    # (:meth:`columns`), then the rest of what it learnt (:meth:`rest_state`) and its tree
    # (:meth:`tree_state`); the caller appends the chunks as they come
    # (:meth:`extend_columns`) and then takes the rest and the tree (:meth:`finish_stream`).
    # A scan only ever appends entries, so chunks taken during it stay true.
    _COLUMNS = ("ids", "parent_ids", "types", "roles", "timestamps", "offsets", "lengths", "linenos", "flags")

    def columns(self, start: int, stop: int) -> tuple:
        """Entries ``start..stop-1`` as plain data for :meth:`extend_columns`."""
        return (self.ids[start:stop], self.parent_ids[start:stop], self.types[start:stop],
                self.roles[start:stop], self.timestamps[start:stop], self.offsets[start:stop].tobytes(),
                self.lengths[start:stop].tobytes(), self.linenos[start:stop].tobytes(),
                bytes(self.flags[start:stop]))

    def extend_columns(self, chunk: tuple) -> None:
        """Append entries sent by :meth:`columns` (the next ones in file order)."""
        ids, pids, types, roles, ts, offsets, lengths, linenos, flags = chunk
        n0 = len(self.ids)
        self.ids += ids
        # indexed as they come (a later duplicate wins, as in _build_tree): the tree that
        # follows the chunks finds it made
        self.index_of.update(zip(ids, range(n0, n0 + len(ids))))
        self.parent_ids += pids
        self.types += types
        self.roles += roles
        self.timestamps += ts
        self.offsets.frombytes(offsets)
        self.lengths.frombytes(lengths)
        self.linenos.frombytes(linenos)
        self.flags += flags

    def rest_state(self) -> dict:
        """All a scan learnt besides its entries (header, warnings, labels, name, where it
        stopped...) and its tree, for :meth:`finish_stream`."""
        skip = self._STATE_SKIP | set(self._COLUMNS) | set(self._TREE_STATE)
        return {k: v for k, v in self.__dict__.items() if k not in skip}

    def finish_stream(self, rest: dict, tree: dict) -> None:
        """Take the rest of a streamed scan (after all its chunks) and its tree
        (:meth:`tree_state`)."""
        index_of = self.index_of  # (made by extend_columns)
        self.__dict__.update(rest)
        self._load_tree_state(tree, index_of)

    @classmethod
    def read_header(cls, path: str | os.PathLike) -> "Session":
        """A session with only its header read (``scanned_to`` is the first entry's line).
        Raises :class:`NotASession` as :meth:`open` does (an event stream is read whole)."""
        if cls is Session and (stream := _as_stream(path)) is not None:
            return stream
        s = cls(path)
        s._scan(validate=True, header_only=True)
        return s

    def add_parts(self, parts: list[dict]) -> None:
        """Append the results of :meth:`scan_part` (in file order, the first starting at
        ``scanned_to``) and build the tree: the same session a sequential scan reads.
        A part that met anything out of the ordinary (a warning, whose text and ids may
        depend on absolute line numbers) is read again here, in order. Parts that are not
        ``ok`` must not be passed (the caller reads the file the usual way instead)."""
        for part in parts:
            base = self.next_lineno - 1
            if part["warnings"]:
                self.scanned_to = part["start"]
                self._scan(validate=False, stop=part["stop"], build=False)
                if part["stop"] is not None:
                    self.scanned_to = part["stop"]
                    self.next_lineno = base + 1 + part["lines"]
                continue
            n0 = len(self.ids)
            self.ids.extend(part["ids"])
            self.parent_ids.extend(part["parent_ids"])
            self.types.extend(part["types"])
            self.roles.extend(part["roles"])
            self.timestamps.extend(part["timestamps"])
            self.offsets.frombytes(part["offsets"])
            self.lengths.frombytes(part["lengths"])
            linenos = array("q")
            linenos.frombytes(part["linenos"])
            self.linenos.extend(array("q", [x + base for x in linenos]))
            self.flags.extend(part["flags"])
            if part["stop"] is None:
                self.scanned_to = part["scanned_to"]
                self.next_lineno = part["next_lineno"] + base
                self.file_size = part["file_size"]
                self.file_mtime = part["file_mtime"]
                self.file_dev, self.file_ino, self.file_mtime_ns = part["file_id"]
                pp = part["pending_partial"]
                self._pending_partial = None if pp is None else n0 + pp
            else:
                self.scanned_to = part["stop"]
                self.next_lineno = base + 1 + part["lines"]
        if "label" in self.types or "session_info" in self.types:
            self._replay_labels_and_name()
        self._build_tree()

    def _scan_line(self, raw, flags: int = 0, check: bool = False) -> None:
        """Parse one line whole and record it (the exact, validating path). ``check``: the
        entry's fields are checked too (:meth:`_add_entry_from_obj`)."""
        res = parse_line(raw.data)
        if res.value is None and res.error is not None:  # (a line "null" parses: it is no object)
            if raw.terminated:
                self.warnings.append(SessionWarning(raw.lineno, f"line {raw.lineno} is {res.why} and is skipped",
                                                    _unparsable(res)))
                self.scanned_to = raw.end
                self.next_lineno = raw.lineno + 1
            # An unterminated last line that does not parse is Pi writing it now: skip it
            # quietly and read it again next time.
            return
        obj = res.value
        if not isinstance(obj, dict):
            if raw.terminated:
                self.warnings.append(SessionWarning(raw.lineno, f"line {raw.lineno} is not a JSON object and is skipped",
                                                   "not-an-object"))
            self._advance(raw, added=False)
            return
        if res.replaced:
            flags |= F_NON_UTF8
            self.warnings.append(
                SessionWarning(raw.lineno, f"line {raw.lineno} has bytes that are not UTF-8 (shown as \ufffd)",
                               "not-utf8")
            )
        self._parsed_count += 1
        if obj.get("type") == "session":
            self.warnings.append(SessionWarning(raw.lineno, f"line {raw.lineno} repeats the session header and is ignored",
                                               "extra-header"))
            self._advance(raw, added=False)
            return
        if res.surrogates or res.huge:
            flags |= F_REPAIRED
            self.warnings.extend(_repair_warnings(raw.lineno, res))
        self._add_entry_from_obj(obj, raw, flags, self._intern, check)
        self._advance(raw, added=True)

    def _scan_heads(self, f, size: int, stop: int | None, progress, progress_every: int,
                    mapped: bool = False) -> None:
        """The entries from ``scanned_to`` on, read the quick way (version 2 and later,
        the header read): Pi's usual message lines from their head, in place, without
        parsing or copying them (an assistant's stop reason and text from the line
        itself); other lines parsed whole by :meth:`_scan_line`. One loop over blocks of
        whole lines (:func:`iter_line_blocks`), the per-line work inline: this is the
        loop over every line of a 200 MB file. (Its line splitting is kept to
        :func:`iter_line_spans`' by tests/test_line_loops.py, beside the listing's copy.)"""
        # The text fields of lines read the quick way are kept as the regex found them
        # (its groups, undecoded) and put into their columns a batch at a time by
        # flush(): decoding 50,000 ids, parents and times one by one cost more than the
        # rest of the loop. (The number columns are appended to as the lines come.)
        heads: list[tuple] = []
        heads_append = heads.append
        off_append = self.offsets.append
        len_append = self.lengths.append
        ln_append = self.linenos.append
        flags_append = self.flags.append
        head_match = _HEAD_RE.match
        stop_iter = _STOP_RE.finditer
        stop_match = _STOP_RE.match
        text_match = _TEXT_RE.match
        role_cache: dict[bytes, str] = {}
        message_s = _intern_str(self._intern, "message")
        v3 = self.version >= 3

        def flush() -> None:
            if not heads:
                return
            eids, pids, stamps, roles = zip(*heads)
            heads.clear()
            # (no group holds a newline: they are parts of one line)
            self.ids += b"\n".join(eids).decode("utf-8", "replace").split("\n")
            self.parent_ids += [None if p == "null" else p[1:-1]
                                for p in b"\n".join(pids).decode("utf-8", "replace").split("\n")]
            self.timestamps += b"\n".join(stamps).decode("utf-8", "replace").split("\n")
            for raw in set(roles).difference(role_cache):
                role = raw.decode()
                if role == "hookMessage" and not v3:
                    role = "custom"
                role_cache[raw] = _intern_str(self._intern, role)
            self.roles += map(role_cache.__getitem__, roles)
            self.types += [message_s] * len(roles)

        ws = _WS_START
        lineno = self.next_lineno
        last_end, last_lineno = self.scanned_to, lineno - 1  # the last line read (not blank)
        next_report = progress_every if progress is not None else -1
        for buf, pos, limit, base, whole in iter_line_blocks(f, self.scanned_to, stop, mapped=mapped):
            find = buf.find
            rfind = buf.rfind
            while pos < limit:
                nl = find(b"\n", pos, limit) if whole else limit  # (no newline after a last line)
                e = nl
                if e > pos and buf[e - 1] == 13:
                    e -= 1
                if e > pos and not (buf[pos] in ws and bytes(buf[pos:e]).isspace()):
                    end = base + nl + 1 if whole else base + limit
                    if buf[e - 1] == 125:  # "}"
                        h = pos + HEAD_BYTES
                        head = head_match(buf, pos, h if h < e else e)
                    else:
                        head = None
                    flags = F_LAZY
                    if head is not None and head.group(4) == b"assistant":
                        # The last "stopReason" in the line's tail: found with rfind (a
                        # plain byte search, far quicker than the regex scanning 4 KB of
                        # each line), then checked with the regex; anything unusual takes
                        # the regex's own way.
                        tail = max(pos, e - _TAIL)
                        k = rfind(b'"stopReason":"', tail, e)
                        stop_m = stop_match(buf, k, e) if k >= 0 else None
                        if stop_m is None and k >= 0:
                            for stop_m in stop_iter(buf, tail, e):
                                pass
                        if stop_m is None:
                            head = None
                        else:
                            reason = stop_m.group(1)
                            if reason and reason != b"stop" and reason != b"toolUse":
                                flags |= F_ABNORMAL_STOP
                            # the first text block with a character that is not white space
                            k = find(b'{"type":"text","text":"', pos, e)
                            while k >= 0:
                                if text_match(buf, k, e) is not None:
                                    flags |= F_ASSISTANT_TEXT
                                    break
                                k = find(b'{"type":"text","text":"', k + 1, e)
                    if head is None:
                        flush()
                        self._scan_line(RawLine(base + pos, e - pos, lineno, bytes(buf[pos:e]), whole, end))
                    else:
                        heads_append(head.groups())
                        off_append(base + pos)
                        len_append(e - pos)
                        ln_append(lineno)
                        flags_append(flags)
                        if not whole:
                            flush()
                            self._pending_partial = len(self.ids) - 1
                    if whole:
                        last_end, last_lineno = end, lineno
                    if 0 <= next_report <= end:
                        next_report = end + progress_every
                        flush()
                        progress(end, size)
                lineno += 1
                pos = nl + 1
        flush()
        # where the next read starts: after the last line read in whole (a last line
        # without its newline is read again, from its start, with what Pi appends)
        self.scanned_to = last_end
        self.next_lineno = last_lineno + 1

    def _advance(self, raw, *, added: bool) -> None:
        if raw.terminated:
            self.scanned_to = raw.end
            self.next_lineno = raw.lineno + 1
        elif added:
            # Accepted a complete JSON object without its newline: keep the position before
            # it so a refresh re-reads it (and whatever Pi appends after it) exactly once.
            self._pending_partial = len(self.ids) - 1 if self.ids else None

    def _accept_header(self, raw) -> None:
        res = parse_line(raw.data)
        obj = res.value
        if obj is None:
            if not raw.terminated:
                return  # still being written
            self.warnings.append(SessionWarning(raw.lineno, f"line {raw.lineno} is {res.why} and is skipped",
                                                _unparsable(res)))
            self.scanned_to = raw.end
            self.next_lineno = raw.lineno + 1
            return
        if not isinstance(obj, dict) or obj.get("type") != "session" or not isinstance(obj.get("id"), str):
            if isinstance(obj, dict) and obj.get("type") == "session":
                reason = f"the session header on line {raw.lineno} has no string id"
            else:
                reason = f"line {raw.lineno} should be a session header but is {_what_json(obj)} (not a Pi session)"
            raise NotASession(self.path, reason, raw.lineno, no_header=True)
        self.warnings.extend(_repair_warnings(raw.lineno, res))
        for problem in normalize_header(obj, deep=may_be_deep(raw.data)):
            self.warnings.append(SessionWarning(raw.lineno, f"line {raw.lineno}: header {problem}", "field-type"))
        self.header = obj
        self.version = _version(obj.get("version"))
        if "parentSession" not in obj and isinstance(obj.get("branchedFrom"), str):
            obj["parentSession"] = obj["branchedFrom"]
        self._parsed_count = 1
        if raw.terminated:
            self.scanned_to = raw.end
            self.next_lineno = raw.lineno + 1
        else:
            self.scanned_to = raw.offset  # re-read next time in full

    def _add_entry_from_obj(self, obj: dict, raw, flags: int, intern: dict, check: bool = False) -> None:
        """Record entry ``obj`` (line ``raw``) in the skeleton. Its skeleton fields (id,
        parentId, type, timestamp) are read as :mod:`pitui.core.read.normalize` says, each
        problem a warning; with ``check``, every other field is checked too (as
        :meth:`entry` does when it decodes the entry)."""
        idx = len(self.ids)
        lineno = raw.lineno
        problems: tuple = ()
        cut: tuple = ()
        if check:
            cut = tuple(cut_deep(obj)) if may_be_deep(raw.data) else ()
            problems = tuple(normalize_entry(obj, deep=False))  # (reported after the skeleton's)
            flags |= F_CHECKED | (F_CUT if cut else 0)
        etype = obj.get("type")
        if type(etype) is str:
            etype_s = _intern_str(intern, etype)
        else:
            etype_s = _intern_str(intern, "(no type)")
            if etype is not None:
                self._bad_field(lineno, "type", etype, "a string", "shown as an unknown entry")
        if self.version < 2:
            # Version 1: entries form one chain in file order. Ids are derived from the line
            # number so they stay the same on every load (Pi makes fresh random ones).
            eid = f"line{lineno}"
            pid = self.ids[-1] if self.ids else None
            if etype == "compaction":
                fki = obj.get("firstKeptEntryIndex")
                if isinstance(fki, int) and not isinstance(fki, bool):
                    target = self._parsed_pos_to_entry.get(fki)
                    self._v1_first_kept[idx] = self.ids[target] if target is not None and target < idx else None
        else:
            raw_id = obj.get("id")
            eid = norm_id(raw_id)
            if eid is None:
                eid = f"line{lineno}"
                if raw_id is None:
                    self.warnings.append(SessionWarning(lineno, f"line {lineno} has no id; pitui calls it {eid}", "no-id"))
                else:
                    self._bad_field(lineno, "id", raw_id, "a string", f"pitui calls it {eid}")
            elif type(raw_id) is not str:
                self._bad_field(lineno, "id", raw_id, "a string", f"read as {eid}")
            raw_pid = obj.get("parentId")
            pid = norm_id(raw_pid)
            if raw_pid is not None and type(raw_pid) is not str:
                self._bad_field(lineno, "parentId", raw_pid, "a string",
                                "shown as a root" if pid is None else f"read as {pid}")
        ts = obj.get("timestamp")
        if ts is not None and type(ts) is not str:
            ts, problem = norm_timestamp(ts)
            self.warnings.append(SessionWarning(lineno, f"line {lineno}: {problem}", "field-type"))
        role = None
        message = obj.get("message")
        if etype == "message" and type(message) is dict:
            r = message.get("role")
            if type(r) is str:
                if r == "hookMessage" and self.version < 3:
                    r = "custom"
                role = _intern_str(intern, r)
            if r == "assistant":
                content = message.get("content")
                if _has_text(content):
                    flags |= F_ASSISTANT_TEXT
                stop = message.get("stopReason")
                if type(stop) is str and stop and stop not in ("stop", "toolUse"):
                    flags |= F_ABNORMAL_STOP
        elif etype == "label":
            self._apply_label(obj, ts)
        elif etype == "session_info":
            name = obj.get("name")
            self.name = (name.strip() or None) if type(name) is str else None
        self.ids.append(eid)
        self.parent_ids.append(pid)
        self.types.append(etype_s)
        self.roles.append(role)
        self.timestamps.append(ts)
        self.offsets.append(raw.offset)
        self.lengths.append(raw.length)
        self.linenos.append(lineno)
        self.flags.append(flags)
        self._parsed_pos_to_entry[self._parsed_count - 1] = idx
        if cut:
            self.warnings.extend(SessionWarning(lineno, f"line {lineno}: {p}", "too-deep") for p in cut)
        if problems:
            self.warnings.extend(SessionWarning(lineno, f"line {lineno}: {p}", "field-type") for p in problems)

    def _bad_field(self, lineno: int, name: str, value: Any, want: str, outcome: str) -> None:
        self.warnings.append(SessionWarning(lineno, f"line {lineno}: {name} is {kind_of(value)}, not {want}; {outcome}",
                                            "field-type"))

    def _apply_label(self, obj: dict, ts: Any) -> None:
        """A label entry sets (or clears) the label of its target, as Pi's labelsById."""
        target = norm_id(obj.get("targetId"))
        if target is None:
            return
        label, _ = norm_label(obj.get("label"))
        if label:
            self.label_by_target[target] = label
            self.label_time_by_target[target] = ts
        else:
            self.label_by_target.pop(target, None)
            self.label_time_by_target.pop(target, None)

    def _reset(self) -> None:
        fresh = Session(self.path)
        self.__dict__.update(fresh.__dict__)

    def _drop_from(self, idx: int) -> None:
        """Forget entries ``idx..`` (used to re-read an unterminated last line)."""
        if idx >= len(self.ids):
            return
        # Labels, names and tool-call owners can only be restored by replaying: do it.
        offset = self.offsets[idx]
        lineno = self.linenos[idx]
        keep = idx
        for name in ("ids", "parent_ids", "types", "roles", "timestamps"):
            del getattr(self, name)[keep:]
        for name in ("offsets", "lengths", "linenos"):
            del getattr(self, name)[keep:]
        del self.flags[keep:]
        self._parsed_pos_to_entry = {k: v for k, v in self._parsed_pos_to_entry.items() if v < keep}
        self._parsed_count = max(self._parsed_pos_to_entry, default=0) + 1
        self._replay_labels_and_name()
        self.scanned_to = offset
        self.next_lineno = lineno
        self._cache.clear()

    def _replay_labels_and_name(self) -> None:
        self.label_by_target.clear()
        self.label_time_by_target.clear()
        self.name = None
        for i, t in enumerate(self.types):
            if t in ("label", "session_info"):
                # (read as the scan read it, reporting nothing: entry() reports its
                # problems when it is decoded, as after a sequential scan)
                obj = parse_line(self.raw_line(i)).value
                if not isinstance(obj, dict):
                    continue
                if t == "label":
                    self._apply_label(obj, self.timestamps[i])
                else:
                    name = obj.get("name")
                    self.name = (name.strip() or None) if type(name) is str else None

    def snapshot(self) -> "Session":
        """A copy that can be refreshed in a worker thread while this one is being read:
        every container the scan or the tree rebuild changes is copied (the body cache is
        shared; it is only a cache). Bring the result back with :meth:`adopt`."""
        new = Session.__new__(Session)
        d = dict(self.__dict__)
        for k in ("ids", "parent_ids", "types", "roles", "timestamps", "warnings", "tree_warnings", "parent", "roots"):
            d[k] = list(d[k])
        for k in ("offsets", "lengths", "linenos"):
            d[k] = array("q", d[k])
        d["flags"] = bytearray(d["flags"])
        for k in ("label_by_target", "label_time_by_target", "_parsed_pos_to_entry", "_v1_first_kept", "index_of",
                  "derived"):
            d[k] = dict(d[k])
        d["_children"] = {k: list(v) for k, v in self.children.items()}
        d["shadowed"] = set(d["shadowed"])
        new.__dict__.update(d)
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

    # ------------------------------------------------------------------ tree
    def damaged_entries(self) -> list[int]:
        """The entries whose line turned out not to parse (in file order)."""
        marks = self.flags.translate(_DAMAGED_MARK)
        out = []
        i = marks.find(1)
        while i >= 0:
            out.append(i)
            i = marks.find(1, i + 1)
        return out

    def drop_damaged(self) -> bool:
        """Take the entries found damaged since the tree was built out of it, as Pi never
        has them (it skips a line that does not parse): their children become roots
        (orphans), and the leaf is the last entry that parsed. Returns whether the tree
        changed. A line read from its head only is known damaged once it is read whole."""
        if all(i in self.shadowed for i in self.damaged_entries()):
            return False
        self._build_tree()
        self._cache.clear()
        return True

    def _build_tree(self) -> None:
        n = len(self.ids)
        ids = self.ids
        damaged = self.damaged_entries()
        index_of = _index_of(ids, damaged)
        tree_warnings: list[SessionWarning] = []
        shadowed: set[int] = set(damaged)
        if len(index_of) != n - len(damaged):
            for i, eid in enumerate(ids):
                if i not in shadowed and index_of[eid] != i:
                    shadowed.add(i)
                    tree_warnings.append(
                        SessionWarning(
                            self.linenos[i],
                            f"line {self.linenos[i]}: id {eid} is used again on line "
                            f"{self.linenos[index_of[eid]]}; the later entry wins (as in Pi)",
                            "duplicate-id",
                        )
                    )
        parent = [-1] * n
        roots: list[int] = []
        forward_ok = True  # every parent comes before its child in the file
        parent_ids = self.parent_ids
        # index_of.get(None) is None: roots and orphans both come out as None here
        for i, j in enumerate(map(index_of.get, parent_ids)):
            if shadowed and i in shadowed:
                parent[i] = -2
                continue
            if j is None or j == i:  # no parent, a missing one, or itself (pid == own id)
                roots.append(i)
                pid = parent_ids[i]
                if j is None and pid is not None:
                    tree_warnings.append(
                        SessionWarning(
                            self.linenos[i], f"line {self.linenos[i]}: parent {pid} not found; shown as a root (orphan)",
                            "missing-parent",
                        )
                    )
                continue
            if j > i:
                forward_ok = False
            parent[i] = j
        children = self._children_from_parent(parent)
        # Everything not reachable from a root lies on or below a parentId cycle (Pi loops
        # forever there). Break each cycle at its earliest entry and show it as a root.
        # When every parent comes before its child (nearly always), every entry is reached
        # from a root (by induction on file order) and there is nothing to walk.
        reached = bytearray(b"\x01") * n if forward_ok else bytearray(n)

        def mark(start: int) -> None:
            stack = [start]
            while stack:
                x = stack.pop()
                reached[x] = 1
                kids = children.get(x)
                if kids:
                    stack.extend(kids)

        if not forward_ok:
            for i in shadowed:
                reached[i] = 1
            for r in roots:
                mark(r)
        if reached.count(0):
            for i in range(n):
                if reached[i]:
                    continue
                # walk up to find the cycle
                seen_order: dict[int, int] = {}
                x = i
                while x not in seen_order and x >= 0 and not reached[x]:
                    seen_order[x] = len(seen_order)
                    x = parent[x]
                if x < 0 or reached[x]:
                    continue  # cannot happen, but never loop
                walk = list(seen_order)
                cycle = walk[seen_order[x]:]
                m = min(cycle)
                p = parent[m]
                if p >= 0:
                    children[p].remove(m)
                    if not children[p]:
                        del children[p]
                parent[m] = -1
                roots.append(m)
                chain = " → ".join(ids[c] for c in sorted(cycle)[:6]) + (" …" if len(cycle) > 6 else "")
                tree_warnings.append(
                    SessionWarning(
                        self.linenos[m],
                        f"line {self.linenos[m]}: parentId cycle through {len(cycle)} entries ({chain}); "
                        f"{ids[m]} is shown as a root",
                        "parent-cycle",
                    )
                )
                mark(m)
            # as the children are made from the parents alone (a session from a worker):
            # keys in the order of their first child still there
            children = self._children_from_parent(parent)
        self.index_of = index_of
        self.parent = parent
        self.children = children
        self.roots = roots
        self.shadowed = shadowed
        # Pi's leaf: the last entry it read (a line that does not parse is not read)
        last = n - 1
        while damaged and last >= 0 and last == damaged[-1]:
            damaged.pop()
            last -= 1
        self.leaf = index_of[ids[last]] if last >= 0 else -1
        self.tree_warnings = tree_warnings

    # ------------------------------------------------------------------ queries
    @property
    def children(self) -> dict[int, list[int]]:
        """The children of each entry that has any, oldest first (Pi's getTree order)."""
        got = self._children
        if got is None:
            # (another thread asking meanwhile makes an equal dict: no harm)
            got = self._children = self._children_from_parent()
        return got

    @children.setter
    def children(self, value: dict[int, list[int]]) -> None:
        self._children = value

    def _children_from_parent(self, parent: list[int] | None = None) -> dict[int, list[int]]:
        """The children lists :meth:`_build_tree` makes, from the parent of each entry
        (cycles broken and duplicates shadowed already): in file order, then siblings
        sorted by time; keys in the order of their first child."""
        children: dict[int, list[int]] = {}
        multi: list[int] = []
        get = children.get
        for i, j in enumerate(self.parent if parent is None else parent):
            if j < 0:
                continue
            lst = get(j)
            if lst is None:
                children[j] = [i]
            else:
                if len(lst) == 1:
                    multi.append(j)
                lst.append(i)
        self._sort_siblings(children, multi)
        return children

    def _sort_siblings(self, children: dict[int, list[int]], multi: list[int]) -> None:
        """Sort the children of ``multi`` oldest first, stable for ties, as Pi's getTree does."""
        ts = self.timestamps
        for j in multi:
            lst = children[j]
            keys = [iso_to_ms(ts[c]) for c in lst]
            if any(math.isnan(k) for k in keys):
                pairs = list(zip(keys, lst))

                def cmp(a, b):
                    d = a[0] - b[0]
                    return 0 if math.isnan(d) or d == 0 else (-1 if d < 0 else 1)

                pairs.sort(key=cmp_to_key(cmp))
                lst[:] = [c for _, c in pairs]
            else:
                order = sorted(range(len(lst)), key=keys.__getitem__)
                lst[:] = [lst[k] for k in order]

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
        return sorted(self.warnings + self.tree_warnings, key=lambda w: (w.line or 0))

    def label_of(self, i: int) -> str | None:
        return self.label_by_target.get(self.ids[i]) if self.index_of.get(self.ids[i]) == i else None

    @property
    def labels(self) -> dict[int, str]:
        out = {}
        for target, label in self.label_by_target.items():
            i = self.index_of.get(target)
            if i is not None:
                out[i] = label
        return out

    def children_of(self, i: int) -> list[int]:
        return self.children.get(i, [])

    def path_to(self, i: int) -> list[int]:
        """Entry indices from the root down to ``i`` (inclusive). Iterative.

        The last path walked is kept: a path is walked up only to the first entry on it,
        so the paths to leaves of one deep branch cost their differing part (and a copy)."""
        return self._walk_path(i, False)[0]

    def path_positions(self, i: int) -> tuple[list[int], dict[int, int]]:
        """:meth:`path_to` and each entry's index on it (a copy of the one kept with the
        last path walked when that path ends at ``i``, as the leaf's path a worker walked
        does: a fifth of the time of making it)."""
        path, pos = self._walk_path(i, True)
        return path, pos if pos is not None else dict(zip(path, range(len(path))))

    def _walk_path(self, i: int, want_pos: bool) -> tuple[list[int], dict[int, int] | None]:
        with self._path_lock:
            parent = self.parent
            if self._path_tree is not parent:
                self._path_tree = parent
                self._path = []
                self._path_pos = {}
            path, pos = self._path, self._path_pos
            walk = []
            keep = 0
            if not pos:  # nothing walked yet: straight up to the root (half the time)
                append = walk.append
                while i >= 0:
                    append(i)
                    i = parent[i]
            while i >= 0:
                k = pos.get(i)
                if k is not None:
                    keep = k + 1
                    break
                walk.append(i)
                i = parent[i]
            if not walk:
                whole = keep == len(path)
                return path[:keep], pos.copy() if want_pos and whole else None
            for x in path[keep:]:
                del pos[x]
            del path[keep:]
            walk.reverse()
            pos.update(zip(walk, range(keep, keep + len(walk))))
            path.extend(walk)
            return path[:], pos.copy() if want_pos else None

    def newest_leaf_below(self, i: int) -> int:
        """The leaf reached from ``i`` by following the branch that holds the current leaf
        when ``i`` is on it, else the newest (last in file order) leaf of ``i``'s subtree."""
        if i < 0:
            return i
        if self.is_ancestor(i, self.leaf):
            return self.leaf
        best = i
        stack = [i]
        while stack:
            x = stack.pop()
            kids = self.children.get(x)
            if kids:
                stack.extend(kids)
            elif x > best:
                best = x
        return best

    def is_ancestor(self, a: int, b: int) -> bool:
        """True when ``a`` is on the path from the root to ``b`` (or is ``b``)."""
        x = b
        parent = self.parent
        while x >= 0:
            if x == a:
                return True
            x = parent[x]
        return False

    def entry(self, i: int) -> dict:
        """The whole entry ``i`` as Pi would hold it in memory (migrations applied), its
        fields normalised (:mod:`pitui.core.read.normalize`: each of the type the format gives
        it, or left out; the skeleton's id, parentId, type and timestamp as the scan read
        them). Each problem is reported once, as a warning with the line number. When its
        line cannot be read back (the file is gone, or another file took its name), a
        stand-in with the skeleton's fields and ``pituiError`` saying why (not kept: the
        next call tries again)."""
        got = self._cache.get(i)
        if got is not None:
            return got
        try:
            data = self._read(self.offsets[i], self.lengths[i])
        except OSError as exc:
            return self._stand_in(i, _unreadable(exc))
        res = parse_line(data)
        obj = res.value
        if not isinstance(obj, dict):
            if not self.flags[i] & F_DAMAGED:
                self.flags[i] |= F_DAMAGED
                self.warnings.append(
                    SessionWarning(self.linenos[i], f"line {self.linenos[i]} is damaged (not valid JSON): {res.error}",
                                   _unparsable(res))
                )
            obj = self._stand_in(i, f"line {self.linenos[i]} is damaged: {res.error}")
        else:
            self._migrate(i, obj)
            self._normalize(i, obj, res, data, may_be_deep(data))
        self._cache.put(i, obj, len(data) * 2 + 200)
        return obj

    def _normalize(self, i: int, obj: dict, res, data: bytes, deep: bool) -> None:
        """Normalise entry ``i`` (``obj``, parsed from ``data`` as ``res``) in place and
        report what was wrong with it, the first time only. ``deep``: values nested too
        deeply may be there (:func:`may_be_deep`), and are cut."""
        # the skeleton's fields, as the scan read them (and reported them)
        pid = obj.get("parentId")
        if pid is not None and type(pid) is not str:
            obj["parentId"] = self.parent_ids[i]
        ts = obj.get("timestamp")
        if ts is not None and type(ts) is not str:
            if self.timestamps[i] is None:
                del obj["timestamp"]
            else:
                obj["timestamp"] = self.timestamps[i]
        t = obj.get("type")
        if t is not None and type(t) is not str:
            del obj["type"]
        problems = normalize_entry(obj, deep=False)
        cut = cut_deep(obj) if deep else ()
        flags = self.flags[i]
        if flags & F_CHECKED and (not cut or flags & F_CUT):
            return  # (reported the first time; the line is whole, so it reads the same)
        line = self.linenos[i]
        with _REPORT_LOCK:
            flags = self.flags[i]
            if cut and not flags & F_CUT:
                flags |= F_CUT
                self.warnings.extend(SessionWarning(line, f"line {line}: {p}", "too-deep") for p in cut)
            if flags & F_CHECKED:
                self.flags[i] = flags
                return
            if res.replaced and not flags & F_NON_UTF8:
                flags |= F_NON_UTF8
                self.warnings.append(SessionWarning(line, f"line {line} has bytes that are not UTF-8 (shown as \ufffd)",
                                                    "not-utf8"))
            if (res.surrogates or res.huge) and not flags & F_REPAIRED:
                flags |= F_REPAIRED
                self.warnings.extend(_repair_warnings(line, res))
            self.warnings.extend(SessionWarning(line, f"line {line}: {p}", "field-type") for p in problems)
            # (a line read from its head is now known to be whole: nothing left to validate)
            self.flags[i] = (flags | F_CHECKED) & ~F_LAZY
    def _stand_in(self, i: int, error: str) -> dict:
        return {
            "type": self.types[i],
            "id": self.ids[i],
            "parentId": self.parent_ids[i],
            "timestamp": self.timestamps[i],
            "pituiError": error,
        }

    def _migrate(self, i: int, obj: dict) -> None:
        if self.version < 2:
            obj["id"] = self.ids[i]
            obj["parentId"] = self.parent_ids[i]
            if obj.get("type") == "compaction" and "firstKeptEntryIndex" in obj:
                fki = obj.get("firstKeptEntryIndex")
                if isinstance(fki, int) and not isinstance(fki, bool):
                    target = self._v1_first_kept.get(i)
                    if target is not None:
                        obj["firstKeptEntryId"] = target
                    del obj["firstKeptEntryIndex"]
        else:
            if not isinstance(obj.get("id"), str):
                obj["id"] = self.ids[i]
        if self.version < 3:
            msg = obj.get("message")
            if obj.get("type") == "message" and isinstance(msg, dict) and msg.get("role") == "hookMessage":
                msg["role"] = "custom"

    def raw_line(self, i: int) -> bytes:
        """The entry's exact bytes in the file (:class:`FileChanged` if it is another file now)."""
        return self._read(self.offsets[i], self.lengths[i])

    def raw_lines(self, indices: Iterable[int], limit: int | None = None):
        """``(i, bytes)`` for each entry, read through one open file (at most ``limit``
        bytes of each line: its head)."""
        fd = os.open(self.path, os.O_RDONLY)
        try:
            self._check_fd(fd)
            lengths = self.lengths
            for i in indices:
                yield i, os.pread(fd, lengths[i] if limit is None else min(lengths[i], limit), self.offsets[i])
        finally:
            os.close(fd)

    def message(self, i: int) -> dict | None:
        m = self.entry(i).get("message")
        return m if isinstance(m, dict) else None

    def find_tool_call(self, i: int) -> tuple[int, dict] | None:
        """``(assistant entry, toolCall block)`` that produced tool result ``i``.

        Pi appends a tool result below the assistant message that called it (possibly
        after sibling results), so walking up the parents finds it in a few steps.
        """
        msg = self.message(i)
        tcid = msg.get("toolCallId") if msg else None
        if not isinstance(tcid, str):
            return None
        x = self.parent[i]
        steps = 0
        while x >= 0 and steps < 256:
            if self.types[x] == "message" and self.roles[x] == "assistant":
                content = (self.message(x) or {}).get("content")
                if isinstance(content, list):
                    for block in content:
                        if isinstance(block, dict) and block.get("type") == "toolCall" and block.get("id") == tcid:
                            return x, block
            x = self.parent[x]
            steps += 1
        return None

    def call_anywhere(self, tcid: str) -> tuple[int, dict] | None:
        """``(assistant entry, toolCall block)`` of the call ``tcid`` anywhere in the file
        (the first in file order), or None when no entry calls it: for a result whose call
        :meth:`find_tool_call` did not find above it. Reads only the entries whose line holds
        the id's JSON text (found by a byte search of the file); each answer is kept."""
        with self._lock:
            if tcid in self._calls_found:
                return self._calls_found[tcid]
        import mmap
        from bisect import bisect_right

        import orjson

        needle = orjson.dumps(tcid)
        found = None
        try:
            with open_regular(self.path) as f:
                self._check_fd(f.fileno())
                size = min(os.fstat(f.fileno()).st_size, self.scanned_to)
                m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        except (OSError, ValueError):
            return None  # (not kept: it may be readable next time)
        if m is not None:
            with m:
                at = m.find(needle, 0, size)
                while at >= 0 and found is None:
                    i = bisect_right(self.offsets, at) - 1
                    if i < 0 or at >= self.offsets[i] + self.lengths[i]:
                        at = m.find(needle, at + 1, size)
                        continue
                    if (self.types[i] == "message" and self.roles[i] == "assistant" and i not in self.shadowed):
                        content = (self.message(i) or {}).get("content")
                        for block in content if isinstance(content, list) else ():
                            if isinstance(block, dict) and block.get("type") == "toolCall" and block.get("id") == tcid:
                                found = (i, block)
                                break
                    at = m.find(needle, self.offsets[i] + self.lengths[i], size)
        with self._lock:
            self._calls_found[tcid] = found
        return found

    def validate_lazy_lines(self, should_stop: Callable[[], bool] | None = None) -> list[int]:
        """Parse whole every line that was read from its head only, and mark the damaged
        ones; check the fields of every entry not checked yet (as :meth:`entry` does), so
        that every problem of the file is a warning. Returns the entries found damaged."""
        damaged = []
        for i in range(len(self.ids)):
            if should_stop is not None and should_stop():
                break
            flags = self.flags[i]
            if flags & (F_CHECKED | F_DAMAGED):
                continue
            data = self._read(self.offsets[i], self.lengths[i])
            res = parse_line(data)
            if not isinstance(res.value, dict):  # (only a line read from its head can be)
                self.flags[i] |= F_DAMAGED
                if res.replaced and not flags & F_NON_UTF8:
                    self.flags[i] |= F_NON_UTF8
                    self.warnings.append(SessionWarning(
                        self.linenos[i], f"line {self.linenos[i]} has bytes that are not UTF-8 (shown as \ufffd)",
                        "not-utf8"))
                self.warnings.append(
                    SessionWarning(self.linenos[i], f"line {self.linenos[i]} is damaged ({res.why})", _unparsable(res))
                )
                damaged.append(i)
                continue
            self._migrate(i, res.value)
            # (the entry is not kept: a value nested too deeply is cut, and reported, when
            # the entry is read to be shown; walking every big line for it here cost more
            # than the rest of this check)
            self._normalize(i, res.value, res, data, False)
        return damaged



def _as_stream(path: str | os.PathLike) -> "Session | None":
    """``path`` opened as an event stream when its first records say it is one."""
    from .sniff import stream_kind

    if stream_kind(path) is None:
        return None
    from .stream import StreamSession

    return StreamSession.open(path)


def _unparsable(res) -> str:
    """The kind of the warning for a line that did not parse: longer than pitui reads or
    nested too deeply for it (JavaScript reads both, up to its own limits), or not JSON at all."""
    if res.too_long:
        return "too-long"
    return "too-deep" if res.error and "depth limit" in res.error else "unparsable"


def _repair_warnings(line: int, res) -> list[SessionWarning]:
    """What parsing line ``line`` (as ``res``) repaired, one warning each: lone surrogates
    shown as U+FFFD, numbers beyond a double's range (Pi's Infinity) read as missing."""
    out = []
    if res.surrogates:
        out.append(SessionWarning(line, f"line {line} has broken text (lone UTF-16 surrogates, shown as \ufffd)",
                                  "surrogates"))
    if res.huge:
        out.append(SessionWarning(line, f"line {line} has a number too large for JavaScript (Infinity to Pi, "
                                        "shown as missing)", "huge-number"))
    return out


def _version(value: Any) -> float:
    """The header's version as a number (1 when it is not one)."""
    return value if type(value) in (int, float) else 1


def _unreadable(exc: OSError) -> str:
    if isinstance(exc, FileChanged):
        return "the session file was replaced since it was read: this entry's line is no longer there"
    if isinstance(exc, FileNotFoundError):
        return "the session file is gone: this entry's line can no longer be read"
    return f"this entry's line cannot be read ({exc.strerror or exc})"


def _has_text(content: Any) -> bool:
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        for c in content:
            if isinstance(c, dict) and c.get("type") == "text":
                t = c.get("text")
                if isinstance(t, str) and t.strip():
                    return True
    return False
