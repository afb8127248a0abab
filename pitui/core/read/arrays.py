"""Small helpers for the flat arrays the core and the panes keep per entry."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping
from itertools import compress
from operator import itemgetter
from typing import Any

from .skeleton import INDEX_CODE

__all__ = ["pick", "EntryMap"]


def pick(seq: Any, keys: Any) -> tuple:
    """``tuple(seq[k] for k in keys)`` in one C call (twice as quick as a map over
    ``seq.__getitem__`` for the tens of thousands of positions of a long branch)."""
    count = len(keys)
    if count > 1:
        return itemgetter(*keys)(seq)
    return (seq[keys[0]],) if count else ()


_ABSENT = -2  # (a value is an entry, a row or -1: "at the top")
_NONE_YET = array(INDEX_CODE, (_ABSENT,))


class EntryMap(Mapping):
    """Entry number -> a number (an entry, a row, or -1), kept as an array over the session's
    entries rather than a dict: a tenth of the memory for the 50,000 entries of a big
    session, whose layout holds two of these. Keys iterate in the order they were first set
    (as a dict's would: the tree's shown children are made in that order).
    A key is an entry number; reading one past the array's end finds nothing."""

    __slots__ = ("_at", "_keys")

    def __init__(self, size: int = 0) -> None:
        self._at = _NONE_YET * size
        self._keys = array(INDEX_CODE)

    @classmethod
    def from_arrays(cls, keys: array, at: array) -> "EntryMap":
        """The map whose keys (in order) are ``keys`` and whose array is ``at`` (as
        :meth:`arrays` gives them), taken as they are."""
        made = cls()
        made._keys, made._at = keys, at
        return made

    def arrays(self) -> tuple[array, array]:
        """The keys in order and the array over the entries (-2 where none), as they are
        kept (not copies)."""
        return self._keys, self._at

    @classmethod
    def from_pairs(cls, keys: Iterable[int], values: Iterable[int], size: int = 0) -> "EntryMap":
        """The map of ``keys[k] -> values[k]`` (keys distinct), for ``size`` entries or more."""
        made = cls(size)
        made.update_pairs(keys, values)
        return made

    def __setitem__(self, key: int, value: int) -> None:
        at = self._at
        if key >= len(at):
            at.extend(_NONE_YET * (key + 1 - len(at)))
        if at[key] == _ABSENT:
            self._keys.append(key)
        at[key] = value

    def update_pairs(self, keys: Iterable[int], values: Iterable[int]) -> None:
        """Set ``keys[k] -> values[k]`` for each k: keys distinct and not set before (as a
        layout meets each entry once; one set again would be listed twice)."""
        keys = keys if isinstance(keys, (list, tuple, array)) else list(keys)
        if not keys:
            return
        values = values if isinstance(values, (list, tuple, array, range)) else list(values)
        at = self._at
        self._keys.extend(keys)
        try:
            for key, value in zip(keys, values):
                at[key] = value
        except IndexError:  # (a key past the end: grow, and set them all)
            at.extend(_NONE_YET * (max(keys) + 1 - len(at)))
            for key, value in zip(keys, values):
                at[key] = value

    def __getitem__(self, key: int) -> int:
        at = self._at
        value = at[key] if 0 <= key < len(at) else _ABSENT
        if value == _ABSENT:
            raise KeyError(key)
        return value

    def get(self, key: int, default: Any = None) -> Any:
        at = self._at
        if 0 <= key < len(at):
            value = at[key]
            if value != _ABSENT:
                return value
        return default

    def __contains__(self, key: object) -> bool:
        at = self._at
        return isinstance(key, int) and 0 <= key < len(at) and at[key] != _ABSENT

    def keys_among(self, entries: list[int]) -> list[int]:
        """The items of ``entries`` that are keys, in their order: ``[x for x in entries if
        x in self]`` in a few C calls (a 50,000-entry branch: a Python call per entry
        through ``__contains__`` was most of a ``[`` key)."""
        at = self._at
        if not entries:
            return []
        if max(entries) >= len(at) or min(entries) < 0:  # (past the array's end: not keys)
            return [entry for entry in entries if 0 <= entry < len(at) and at[entry] != _ABSENT]
        return list(compress(entries, map(_ABSENT.__ne__, pick(at, entries))))

    def __iter__(self) -> Iterator[int]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def values_array(self) -> array:
        """The values in the keys' order, as an array."""
        return array(INDEX_CODE, pick(self._at, self._keys))

    def items(self):  # type: ignore[override]
        return zip(self._keys, pick(self._at, self._keys))

    def values(self):  # type: ignore[override]
        return pick(self._at, self._keys)

    def __repr__(self) -> str:
        return f"EntryMap({dict(self.items())!r})"


_OFF_BRANCH = array(INDEX_CODE, (-1,))


class BranchPositions:
    """Each entry of a branch shown -> its position on it, kept as an array over the
    session's entries (-1 off the branch) rather than a dict: a twentieth of the memory
    for a 50,000-entry branch. A new branch changes only the part where it differs."""

    __slots__ = ("_at",)

    def __init__(self) -> None:
        self._at = array(INDEX_CODE)

    def get(self, entry: int | None, default: Any = None) -> Any:
        at = self._at
        if entry is not None and 0 <= entry < len(at):
            position = at[entry]
            if position >= 0:
                return position
        return default

    def __contains__(self, entry: object) -> bool:
        return isinstance(entry, int) and self.get(entry) is not None

    def replace(self, old: list[int], new: list[int], start: int) -> None:
        """``old[start:]`` leave the branch; ``new[start:]`` join it at their places."""
        at = self._at
        for entry in old[start:]:
            if 0 <= entry < len(at):
                at[entry] = -1
        tail = new[start:]
        top = max(tail, default=-1)
        if top >= len(at):
            at.extend(_OFF_BRANCH * (top + 1 - len(at)))
        for position, entry in enumerate(tail, start):
            at[entry] = position
