"""A session's tree, from its skeleton: each entry's parent, the children of each (oldest
first, as Pi's getTree orders them), the roots, and the paths from a root down.

Pi's rules for what does not fit: a later duplicate id wins and the earlier entry is left
out (shadowed); a parent that is not there makes an orphan shown as a root; a parentId
cycle (Pi loops forever there) is broken at its earliest entry, shown as a root; a line
that turned out not to parse is no entry (Pi never read it). Each is a warning. Nothing
here recurses on the tree's depth (chains are 10,000 entries deep and more).

Each function takes the session (a :class:`~.session.Session`) first, unannotated: this
module does not import the facade that calls it (no import circle, even for type checking).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Mapping
from functools import cmp_to_key

from .skeleton import F_DAMAGED, INDEX_CODE, SessionWarning
from ..timeutil import iso_to_ms

__all__ = ["build_tree", "index_ids", "damaged_entries", "drop_damaged", "children_from_parent", "walk_path",
           "PathPositions", "positions_of", "newest_leaf_below", "is_ancestor"]

# flags -> 1 where damaged (a translation table: the damaged entries found at C speed)
_DAMAGED_MARK = bytes(1 if b & F_DAMAGED else 0 for b in range(256))


def index_ids(ids: list[str], damaged: list[int]) -> dict[str, int]:
    """Each id's entry: a later duplicate wins (as in Pi), and a damaged line has no id (Pi
    never read it, so its id leads nowhere)."""
    if not damaged:
        return dict(zip(ids, range(len(ids))))
    gone = set(damaged)
    return {eid: i for i, eid in enumerate(ids) if i not in gone}


def damaged_entries(session) -> list[int]:
    """The entries whose line turned out not to parse (in file order)."""
    marks = session.flags.translate(_DAMAGED_MARK)
    out = []
    i = marks.find(1)
    while i >= 0:
        out.append(i)
        i = marks.find(1, i + 1)
    return out


def drop_damaged(session) -> bool:
    """Take the entries found damaged since the tree was built out of it, as Pi never
    has them (it skips a line that does not parse): their children become roots
    (orphans), and the leaf is the last entry that parsed. Returns whether the tree
    changed. A line read from its head only is known damaged once it is read whole."""
    if all(i in session.shadowed for i in damaged_entries(session)):
        return False
    build_tree(session)
    session._cache.clear()
    return True


def build_tree(session) -> None:
    """Make ``session``'s tree again from its skeleton: ``index_of``, ``parent``,
    ``children``, ``roots``, ``shadowed``, ``leaf`` and ``tree_warnings`` (Pi's rules for
    duplicates, orphans, cycles and damaged lines: see the module's text)."""
    n = len(session.ids)
    ids = session.ids
    damaged = damaged_entries(session)
    index_of = index_ids(ids, damaged)
    tree_warnings: list[SessionWarning] = []
    shadowed: set[int] = set(damaged)
    if len(index_of) != n - len(damaged):
        for i, eid in enumerate(ids):
            if i not in shadowed and index_of[eid] != i:
                shadowed.add(i)
                tree_warnings.append(
                    SessionWarning(
                        session.linenos[i],
                        f"line {session.linenos[i]}: id {eid} is used again on line "
                        f"{session.linenos[index_of[eid]]}; the later entry wins (as in Pi)",
                        "duplicate-id",
                    )
                )
    parent = [-1] * n
    roots: list[int] = []
    forward_ok = True  # every parent comes before its child in the file
    parent_ids = session.parent_ids
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
                        session.linenos[i], f"line {session.linenos[i]}: parent {pid} not found; shown as a root (orphan)",
                        "missing-parent",
                    )
                )
            continue
        if j > i:
            forward_ok = False
        parent[i] = j
    children = children_from_parent(session, parent)
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
                    session.linenos[m],
                    f"line {session.linenos[m]}: parentId cycle through {len(cycle)} entries ({chain}); "
                    f"{ids[m]} is shown as a root",
                    "parent-cycle",
                )
            )
            mark(m)
        # as the children are made from the parents alone (a session from a worker):
        # keys in the order of their first child still there
        children = children_from_parent(session, parent)
    session.index_of = index_of
    session.parent = parent
    session.children = children
    session.roots = roots
    session.shadowed = shadowed
    # Pi's leaf: the last entry it read (a line that does not parse is not read)
    last = n - 1
    while damaged and last >= 0 and last == damaged[-1]:
        damaged.pop()
        last -= 1
    session.leaf = index_of[ids[last]] if last >= 0 else -1
    session.tree_warnings = tree_warnings


def children_from_parent(session, parent: list[int] | None = None) -> dict[int, list[int]]:
    """The children lists :func:`build_tree` makes, from the parent of each entry
    (cycles broken and duplicates shadowed already): in file order, then siblings
    sorted by time; keys in the order of their first child."""
    children: dict[int, list[int]] = {}
    multi: list[int] = []
    get = children.get
    for i, j in enumerate(session.parent if parent is None else parent):
        if j < 0:
            continue
        lst = get(j)
        if lst is None:
            children[j] = [i]
        else:
            if len(lst) == 1:
                multi.append(j)
            lst.append(i)
    sort_siblings(session, children, multi)
    return children


def sort_siblings(session, children: dict[int, list[int]], multi: list[int]) -> None:
    """Sort the children of ``multi`` oldest first, stable for ties, as Pi's getTree does."""
    ts = session.timestamps
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


class PathPositions(Mapping):
    """Each entry on a path -> its index on it, read-only: an array over the session's
    entries (-1 off the path) rather than a dict, a twentieth of the memory for a
    50,000-deep branch and copied in one move when a key asks for another branch."""

    __slots__ = ("_path", "_at")

    def __init__(self, path: list[int], at: array) -> None:
        self._path = path  # (for iterating and counting; never changed once given)
        self._at = at

    def __getitem__(self, i: int) -> int:
        k = self._at[i] if 0 <= i < len(self._at) else -1
        if k < 0:
            raise KeyError(i)
        return k

    def __contains__(self, i: object) -> bool:
        return isinstance(i, int) and 0 <= i < len(self._at) and self._at[i] >= 0

    def get(self, i, default=None):
        return self[i] if i in self else default

    def __iter__(self) -> Iterator[int]:
        return iter(self._path)

    def __len__(self) -> int:
        return len(self._path)


_OFF_PATH = array(INDEX_CODE, (-1,))


def positions_of(path: list[int], size: int) -> array:
    """An array of ``size`` entries: each entry's index on ``path``, -1 for the others."""
    at = _OFF_PATH * size
    for k, x in enumerate(path):
        at[x] = k
    return at


def _covering(at: array | None, count: int) -> array:
    """``at`` (each entry's index on the kept path, -1 off it) made to cover ``count``
    entries, those read since it was made on no path kept yet (a new array when none)."""
    if at is None:
        return _OFF_PATH * count
    if len(at) < count:
        at.extend(_OFF_PATH * (count - len(at)))
    return at


def walk_path(session, i: int, want_pos: bool) -> tuple[list[int], PathPositions | None]:
    """The path from the root down to ``i``, and (``want_pos``) each entry's index on it when
    the kept path ends at ``i``: walked up only to the first entry on the path walked last
    (kept on the session, under its lock, with each entry's index on it), so the paths of
    one deep branch cost their differing part."""
    with session._path_lock:
        parent = session.parent
        if session._path_tree is not parent:
            session._path_tree = parent
            session._path = []
            session._path_pos = None
        path, at = session._path, session._path_pos
        walk = []
        keep = 0
        if not path:  # nothing walked yet: straight up to the root (half the time)
            append = walk.append
            while i >= 0:
                append(i)
                i = parent[i]
        else:
            at = _covering(at, len(parent))
            while i >= 0:
                k = at[i]
                if k >= 0:
                    keep = k + 1
                    break
                walk.append(i)
                i = parent[i]
        if not walk:
            if want_pos and keep == len(path):
                return path[:], PathPositions(path[:], at[:])
            return path[:keep], None
        at = session._path_pos = _covering(at, len(parent))
        for x in path[keep:]:
            at[x] = -1
        del path[keep:]
        walk.reverse()
        for k, x in enumerate(walk, keep):
            at[x] = k
        path.extend(walk)
        return path[:], PathPositions(path[:], at[:]) if want_pos else None


def newest_leaf_below(session, i: int) -> int:
    """The leaf reached from ``i`` by following the branch that holds the current leaf
    when ``i`` is on it, else the newest (last in file order) leaf of ``i``'s subtree."""
    if i < 0:
        return i
    if is_ancestor(session, i, session.leaf):
        return session.leaf
    best = i
    stack = [i]
    while stack:
        x = stack.pop()
        kids = session.children.get(x)
        if kids:
            stack.extend(kids)
        elif x > best:
            best = x
    return best


def is_ancestor(session, a: int, b: int) -> bool:
    """True when ``a`` is on the path from the root to ``b`` (or is ``b``)."""
    x = b
    parent = session.parent
    while x >= 0:
        if x == a:
            return True
        x = parent[x]
    return False
