"""Block heights with fast prefix sums (a Fenwick tree), for lazy layout.

Every block has a height: an estimate until it has been rendered, then the real one.
``top(b)`` (the first line of block ``b``) and ``block_at(y)`` are O(log n), and so is
changing one height, so a 10,000-block branch lays out without touching every block.
"""

from __future__ import annotations

from array import array

__all__ = ["Heights"]


class Heights:
    def __init__(self, heights: list[int] | None = None):
        self.reset(heights or [])

    def reset(self, heights: list[int]) -> None:
        n = len(heights)
        self._n = n
        self._h = array("q", heights)
        tree = array("q", [0]) * (n + 1)
        for i, h in enumerate(heights, 1):
            tree[i] += h
            j = i + (i & -i)
            if j <= n:
                tree[j] += tree[i]
        self._tree = tree
        self._total = sum(heights)
        step = 1
        while step * 2 <= n:
            step *= 2
        self._step = step

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, b: int) -> int:
        return self._h[b]

    @property
    def total(self) -> int:
        return self._total

    def set(self, b: int, height: int) -> int:
        """Set block ``b``'s height; returns the change."""
        delta = height - self._h[b]
        if delta:
            self._h[b] = height
            self._total += delta
            i = b + 1
            tree, n = self._tree, self._n
            while i <= n:
                tree[i] += delta
                i += i & -i
        return delta

    def top(self, b: int) -> int:
        """The first line of block ``b`` (the sum of the heights before it)."""
        s = 0
        i = b
        tree = self._tree
        while i > 0:
            s += tree[i]
            i -= i & -i
        return s

    def block_at(self, y: int) -> int:
        """The block holding line ``y`` (clamped to the first/last block); -1 when empty."""
        n = self._n
        if n == 0:
            return -1
        if y < 0:
            return 0
        if y >= self._total:
            return n - 1
        pos = 0
        rem = y
        step = self._step
        tree = self._tree
        while step:
            nxt = pos + step
            if nxt <= n and tree[nxt] <= rem:
                pos = nxt
                rem -= tree[nxt]
            step >>= 1
        # pos blocks fit entirely before y; zero-height blocks are skipped by <=
        return min(pos, n - 1)
