"""The listing index's rows: a :class:`SessionInfo` made into one and back, and their order.

A row (:class:`.listing_file.Rec`) holds a file's identity and sort key beside two texts:
its ``SessionInfo`` as a JSON array of every field (:func:`row_of`; decoded only when a row
is asked for: :func:`info_of_row` checks each field's type against the dataclass, since the
index file may be damaged or hostile) and its ``pitui list --json`` object as printed
(:func:`frag_of`). The worker processes of a cold list make rows with the same functions
(:mod:`.listing_worker`).

The list's order (newest ``modified`` first as Pi lists them, unreadable files last, then
by file name, last first, and path) is :func:`sort_recs`; :func:`merge_recs` puts a few
changed rows into an ordered list by binary search instead of sorting the store again.
"""

from __future__ import annotations

import os
from bisect import insort

import orjson

from . import listing_file
from .listing_file import Rec
from .session_info import SessionInfo

__all__ = ["FIELDS", "FRAG_KEEP", "row_of", "frag_of", "rec_of", "info_of_row", "decoded", "sort_recs",
           "merge_recs", "order_key", "TableOrder"]

#: A row's output is kept in the index up to this size (a longer one, a first message of
#: megabytes, is made again when printed, reading the message from its file).
FRAG_KEEP = 64 * 1024

FIELDS = tuple(SessionInfo.__dataclass_fields__)


def row_of(info: SessionInfo) -> bytes | None:
    """``info``'s fields as the JSON array the index keeps; None when JSON cannot hold
    them (a file name that is not UTF-8: such a row is read again each time)."""
    try:
        return orjson.dumps([getattr(info, field) for field in FIELDS])
    except TypeError:
        return None


def frag_of(info: SessionInfo) -> bytes:
    """``info``'s object in ``pitui list --json`` exactly as printed in the list (indented
    by two within it; json_safe is applied to the whole output)."""
    return orjson.dumps([info.to_pi_json()], option=orjson.OPT_INDENT_2)[2:-2]


def rec_of(info: SessionInfo, row: bytes | None | str = "", frag: bytes = b"") -> Rec:
    """``info`` as an index row: its file's identity and sort key, its fields as
    :func:`row_of` makes them (unless ``row`` is given; None: a row JSON cannot hold) and
    its output ``frag`` (b"": made when printed)."""
    return Rec(info.path, info.project, info.kind, info.dev, info.ino, info.size, info.mtime_ns,
               float(info.modified_ms or 0), info.error is not None, row_of(info) if row == "" else row, frag, info)


_ROW_CHECKS: tuple[dict[str, frozenset], tuple[int, ...]] | None = None


def _row_checks() -> tuple[dict[str, frozenset], tuple[int, ...]]:
    """Each SessionInfo field's JSON types, from its annotation (an int is a float too),
    and the positions of the fields that may hold a list."""
    global _ROW_CHECKS
    if _ROW_CHECKS is None:
        import types
        import typing

        got = {}
        for name, hint in typing.get_type_hints(SessionInfo).items():
            if isinstance(hint, types.UnionType):
                allowed = set(typing.get_args(hint))
            else:
                allowed = {typing.get_origin(hint) or hint}  # (list[str]: a list)
            if float in allowed:
                allowed.add(int)
            got[name] = frozenset(allowed)
        _ROW_CHECKS = got, tuple(at for at, field in enumerate(FIELDS) if list in got[field])
    return _ROW_CHECKS


#: the rows' field types already checked one by one (a store's rows share a few: a row whose
#: types are one of them is checked by one lookup)
_GOOD_TYPES: set[tuple] = set()
_GOOD_TYPES_MAX = 4096


def info_of_row(row) -> SessionInfo | str:
    """The SessionInfo a row holds, or why it is not one: a JSON array of every field,
    each of the type SessionInfo gives it (list fields hold strings)."""
    try:
        vals = orjson.loads(row)
    except (orjson.JSONDecodeError, TypeError) as exc:
        return f"a row is not JSON: {exc}"
    if type(vals) is not list or len(vals) != len(FIELDS):
        return "a row that is not a session's"
    allowed, list_fields = _row_checks()
    types = tuple(map(type, vals))
    if types not in _GOOD_TYPES:
        for name, kind in zip(FIELDS, types):
            if kind not in allowed[name]:
                return f"{name} is {kind.__name__} in a row"
        if len(_GOOD_TYPES) < _GOOD_TYPES_MAX:
            _GOOD_TYPES.add(types)
    for at in list_fields:
        value = vals[at]
        if type(value) is list and not all(type(item) is str for item in value):
            return f"{FIELDS[at]} holds a value that is not a string in a row"
    return SessionInfo(*vals)


def decoded(rec: Rec) -> SessionInfo | str:
    """``rec``'s SessionInfo, listed under its row's project folder and kind (or why its
    row is not a session's)."""
    got = info_of_row(rec.row)
    if not isinstance(got, str):
        got.project, got.kind = rec.project, rec.kind
    return got


def sort_recs(recs: list[Rec]) -> list[Rec]:
    """Index rows in the list's order: newest ``modified`` first (Pi's order); unreadable
    files last; then by file name (last first) and path."""
    recs.sort(key=lambda rec: rec.path)
    recs.sort(key=lambda rec: rec.path.rpartition(os.sep)[2], reverse=True)
    recs.sort(key=lambda rec: (rec.err, -rec.mod))
    return recs


class TableOrder:
    """The sort keys (:func:`order_key`) of an index file's rows ``ks``, made as a binary
    search asks for them."""

    __slots__ = ("table", "ks")

    def __init__(self, table: listing_file.Table, ks: list[int]):
        self.table, self.ks = table, ks

    def __len__(self) -> int:
        return len(self.ks)

    def __getitem__(self, at: int):
        return order_key(self.table.rec(self.ks[at]))


class _Desc:
    """A string that sorts last first."""

    __slots__ = ("s",)

    def __init__(self, text: str):
        self.s = text

    def __lt__(self, other: "_Desc") -> bool:
        return self.s > other.s

    def __eq__(self, other) -> bool:
        return self.s == other.s


def order_key(rec: Rec):
    """:func:`sort_recs`' order as one key."""
    return (rec.err, -rec.mod, _Desc(rec.path.rpartition(os.sep)[2]), rec.path)


def merge_recs(ordered: list[Rec], more: list[Rec]) -> list[Rec]:
    """``ordered`` (in the list's order) with ``more`` put in their places: a few binary
    searches instead of sorting the whole store again when a few files changed."""
    for rec in more:
        insort(ordered, rec, key=order_key)
    return ordered
