"""The listing index's file: columns of what a warm list compares, and each row's texts.

A warm ``pitui list`` must not pay for every row of a big store: it stats each file and
compares it with the index, and prints rows that did not change as they were printed last
time. So the file keeps, per session file:

- in columns (one JSON object of lists, parsed at once): the path, project folder, kind,
  the file's identity (device, inode, size, mtime in ns), the sort key (``modified`` and
  whether the row is an error) and the lengths of its two texts;
- in one blob after them, per row, its ``SessionInfo`` as a JSON array (decoded only when a
  row is asked for: the app, a file that grew) and its ``pitui list --json`` object as
  printed (an output fragment; empty when too big to keep: made again when printed).

Layout: ``pitui-listing <version>\\n``, then ``<columns length> <blob length> <crc32>\\n``,
the columns, the blob. The CRC covers both, so a damaged file (cut short, flipped bytes,
another program's) is found at once; the columns' types are checked when read; a row's
array is checked when decoded (:mod:`.listing_rows`). Rows are kept sorted as the list shows
them, so a store where nothing changed is listed in the saved order without sorting.

A :class:`Table` is the file checked, its rows not made: a warm list compares whole
columns with the files' stats and joins the stored outputs (:meth:`.SessionIndex.unchanged_output`),
making no :class:`Rec`; anything else makes them all at once (:meth:`Table.recs`).
"""

from __future__ import annotations

from itertools import accumulate, repeat
from typing import Iterable, NamedTuple

import orjson

from . import framed
from .framed import Damaged, OtherVersion

__all__ = ["Rec", "Table", "encode", "decode", "frame", "MAGIC", "Damaged", "OtherVersion"]

MAGIC = b"pitui-listing "


class Rec(NamedTuple):
    """One session file's row in the index (immutable; replaced when it changes)."""

    path: str
    project: str
    kind: str
    dev: int
    ino: int
    size: int
    mtime_ns: int
    mod: float  # modified_ms, or 0 (the sort key, newest first)
    err: bool  # the row is an error (listed last)
    row: bytes | memoryview | None  # the SessionInfo fields as a JSON array (None: not storable)
    frag: bytes | memoryview  # the --json object as printed (b"": made when printed)
    info: object = None  # the decoded SessionInfo, when there is one


_STR_COLS = ("path", "project", "kind")
_HEAD_COLS = ("path", "project", "kind", "dev", "ino", "size", "mtime_ns")  # a Rec's first fields, in its order
_INT_COLS = ("dev", "ino", "size", "mtime_ns", "row", "frag")
_INT = frozenset({int})
_NUM = frozenset({int, float})


def encode(recs: Iterable[Rec], version: int, frag_keep: int) -> list[bytes]:
    """The file's bytes, in pieces (for :func:`paths.write_private`), of ``recs`` in their
    order. Rows without a storable array are left out; fragments over ``frag_keep`` bytes
    are stored empty."""
    recs = [rec for rec in recs if rec.row is not None]
    path, project, kind, dev, ino, size, mtime_ns, mod, err, rows, frags = (
        list(zip(*recs))[:11] if recs else [()] * 11)  # (columns at C speed)
    frags = [frag if len(frag) <= frag_keep else b"" for frag in frags]
    cols = {"path": path, "project": project, "kind": kind, "dev": dev, "ino": ino, "size": size,
            "mtime_ns": mtime_ns, "mod": mod, "err": err, "row": list(map(len, rows)), "frag": list(map(len, frags))}
    blob = [text for pair in zip(rows, frags) for text in pair]
    return frame(orjson.dumps(cols), blob, version)


def frame(meta: bytes, blob: list, version: int) -> list[bytes]:
    """The file of columns ``meta`` (JSON) and the rows' texts ``blob``, in pieces."""
    return framed.frame(MAGIC, meta, blob, version)


def decode(raw: bytes, version: int) -> list[Rec]:
    """The rows of an index file, in its order. Raises :class:`OtherVersion` or
    :class:`Damaged`."""
    return Table(raw, version).recs()


class Table:
    """An index file read and checked (its header, checksum, columns and lengths), its rows
    not made yet: a warm list compares the columns and prints the stored outputs without
    making a :class:`Rec` per row (:meth:`recs` makes them, for everything else). Raises
    :class:`OtherVersion` or :class:`Damaged`."""

    def __init__(self, raw, version: int):
        view = memoryview(raw)  # (bytes, or the file mapped: its texts are slices of it, not copies)
        start, meta_len = framed.unframe(view, MAGIC, version, "listing index")
        try:
            cols = orjson.loads(view[start:start + meta_len])
        except orjson.JSONDecodeError as exc:
            raise Damaged(f"its columns are not JSON: {exc}") from None
        if type(cols) is not dict:
            raise Damaged("its columns are not an object")
        count = None
        for name, want in [*((name, frozenset({str})) for name in _STR_COLS), *((name, _INT) for name in _INT_COLS),
                        ("mod", _NUM), ("err", frozenset({bool}))]:
            col = cols.get(name)
            if type(col) is not list:
                raise Damaged(f"its column {name} is not a list")
            if count is None:
                count = len(col)
            elif len(col) != count:
                raise Damaged(f"its column {name} has {len(col)} rows, not {count}")
            if not set(map(type, col)) <= want:
                raise Damaged(f"its column {name} holds a value of another type")
        if any(length < 0 for length in cols["row"]) or any(length < 0 for length in cols["frag"]):
            raise Damaged("a row's length is negative")
        lens = [length for pair in zip(cols["row"], cols["frag"]) for length in pair]
        if sum(lens) != len(view) - start - meta_len:
            raise Damaged("its rows' lengths do not add up to its blob")
        self.cols = cols
        self.n = count or 0
        self._view = view
        self._ends = list(accumulate(lens, initial=start + meta_len))  # (row k: 2k to 2k+1, its output on to 2k+2)

    def frags(self) -> list[memoryview]:
        """Each row's stored output, in the file's order."""
        ends = self._ends
        return list(map(self._view.__getitem__, map(slice, ends[1::2], ends[2::2])))

    def rec(self, at: int) -> Rec:
        """Row ``k`` (in the file's order) alone."""
        ends, cols, view = self._ends, self.cols, self._view
        return tuple.__new__(Rec, (
            *(cols[col][at] for col in _HEAD_COLS), float(cols["mod"][at]), cols["err"][at],
            view[ends[2 * at]:ends[2 * at + 1]], view[ends[2 * at + 1]:ends[2 * at + 2]], None))

    def recs(self) -> list[Rec]:
        """The rows, in the file's order."""
        ends, cols = self._ends, self.cols
        rows = list(map(self._view.__getitem__, map(slice, ends[0::2], ends[1::2])))
        mods = list(map(float, cols["mod"]))
        return list(map(tuple.__new__, repeat(Rec), zip(
            *(cols[col] for col in _HEAD_COLS), mods, cols["err"], rows, self.frags(), repeat(None))))
