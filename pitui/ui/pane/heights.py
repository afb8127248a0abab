"""Block heights with chunked prefix sums, for lazy layout.

Every block has a height: an estimate until it has been rendered, then the real one.
Heights live in one ``array('q')``; the sum of each chunk of ``CHUNK`` blocks is kept, and
the prefix sums of those chunk sums are rebuilt (with ``itertools.accumulate``, in C) when
a height changed since the last query. So:

* ``reset`` from a whole array is C-speed work (no Python loop per block),
* ``set`` is O(1),
* ``top(b)`` and ``block_at(y)`` are a bisection plus a sum or scan of one chunk.

A 50,000-block branch lays out without a Python loop over its blocks.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import accumulate
from typing import Iterable

__all__ = ["Heights"]

_SHIFT = 7
CHUNK = 1 << _SHIFT


class Heights:
    def __init__(self, heights: Iterable[int] | None = None):
        self.version = 0  # bumped by every change (callers cache lookups against it)
        self.reset(heights if heights is not None else ())

    def reset(self, heights: Iterable[int]) -> None:
        """Replace every height. An ``array('q')`` passed here is taken over (not copied)."""
        values = heights if isinstance(heights, array) and heights.typecode == "q" else array("q", heights)
        count = len(values)
        self._h = values
        self._n = count
        self._cs = array("q", [sum(values[start : start + CHUNK]) for start in range(0, count, CHUNK)])
        self._pre: list[int] | None = None
        self._total = sum(self._cs)
        self.version += 1

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, block: int) -> int:
        return self._h[block]

    @property
    def total(self) -> int:
        return self._total

    def set(self, block: int, height: int) -> int:
        """Set ``block``'s height; returns the change."""
        delta = height - self._h[block]
        if delta:
            self._h[block] = height
            self._cs[block >> _SHIFT] += delta
            self._total += delta
            self._pre = None
            self.version += 1
        return delta

    def _prefix(self) -> list[int]:
        pre = self._pre
        if pre is None:
            pre = self._pre = list(accumulate(self._cs, initial=0))
        return pre

    def top(self, block: int) -> int:
        """The first line of ``block`` (the sum of the heights before it)."""
        if block <= 0:
            return 0
        if block >= self._n:
            return self._total
        chunk = block >> _SHIFT
        start = chunk << _SHIFT
        pre = self._pre if self._pre is not None else self._prefix()
        return pre[chunk] + (sum(self._h[start:block]) if block > start else 0)

    def block_at(self, y: int) -> int:
        """The block holding line ``y`` (clamped to the first/last block); -1 when empty.
        Zero-height blocks are never returned for a line inside the total."""
        count = self._n
        if count == 0:
            return -1
        if y < 0:
            return 0
        if y >= self._total:
            return count - 1
        pre = self._pre if self._pre is not None else self._prefix()
        chunk = bisect_right(pre, y) - 1  # the chunk whose lines hold y
        start = chunk << _SHIFT
        ends = list(accumulate(self._h[start : start + CHUNK]))
        return min(start + bisect_right(ends, y - pre[chunk]), count - 1)
