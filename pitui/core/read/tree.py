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
_DAMAGED_MARK = bytes(1 if flags & F_DAMAGED else 0 for flags in range(256))


def index_ids(ids: list[str], damaged: list[int]) -> dict[str, int]:
    """Each id's entry: a later duplicate wins (as in Pi), and a damaged line has no id (Pi
    never read it, so its id leads nowhere)."""
    if not damaged:
        return dict(zip(ids, range(len(ids))))
    gone = set(damaged)
    return {eid: index for index, eid in enumerate(ids) if index not in gone}


def damaged_entries(session) -> list[int]:
    """The entries whose line turned out not to parse (in file order)."""
    marks = session.flags.translate(_DAMAGED_MARK)
    out = []
    index = marks.find(1)
    while index >= 0:
        out.append(index)
        index = marks.find(1, index + 1)
    return out


def drop_damaged(session) -> bool:
    """Take the entries found damaged since the tree was built out of it, as Pi never
    has them (it skips a line that does not parse): their children become roots
    (orphans), and the leaf is the last entry that parsed. Returns whether the tree
    changed. A line read from its head only is known damaged once it is read whole."""
    if all(damaged in session.shadowed for damaged in damaged_entries(session)):
        return False
    build_tree(session)
    session._cache.clear()
    return True


def build_tree(session) -> None:
    """Make ``session``'s tree again from its skeleton: ``index_of``, ``parent``,
    ``children``, ``roots``, ``shadowed``, ``leaf`` and ``tree_warnings`` (Pi's rules for
    duplicates, orphans, cycles and damaged lines: see the module's text)."""
    count = len(session.ids)
    ids = session.ids
    damaged = damaged_entries(session)
    index_of = index_ids(ids, damaged)
    tree_warnings: list[SessionWarning] = []
    shadowed: set[int] = set(damaged)
    if len(index_of) != count - len(damaged):
        for index, eid in enumerate(ids):
            if index not in shadowed and index_of[eid] != index:
                shadowed.add(index)
                tree_warnings.append(
                    SessionWarning(
                        session.linenos[index],
                        f"line {session.linenos[index]}: id {eid} is used again on line "
                        f"{session.linenos[index_of[eid]]}; the later entry wins (as in Pi)",
                        "duplicate-id",
                    )
                )
    parent = [-1] * count
    roots: list[int] = []
    forward_ok = True  # every parent comes before its child in the file
    parent_ids = session.parent_ids
    # index_of.get(None) is None: roots and orphans both come out as None here
    for index, parent_index in enumerate(map(index_of.get, parent_ids)):
        if shadowed and index in shadowed:
            parent[index] = -2
            continue
        if parent_index is None or parent_index == index:  # no parent, a missing one, or itself (pid == own id)
            roots.append(index)
            pid = parent_ids[index]
            if parent_index is None and pid is not None:
                tree_warnings.append(
                    SessionWarning(
                        session.linenos[index], f"line {session.linenos[index]}: parent {pid} not found; shown as a root (orphan)",
                        "missing-parent",
                    )
                )
            continue
        if parent_index > index:
            forward_ok = False
        parent[index] = parent_index
    children = children_from_parent(session, parent)
    # Everything not reachable from a root lies on or below a parentId cycle (Pi loops
    # forever there). Break each cycle at its earliest entry and show it as a root.
    # When every parent comes before its child (nearly always), every entry is reached
    # from a root (by induction on file order) and there is nothing to walk.
    reached = bytearray(b"\x01") * count if forward_ok else bytearray(count)

    def mark(start: int) -> None:
        stack = [start]
        while stack:
            node = stack.pop()
            reached[node] = 1
            kids = children.get(node)
            if kids:
                stack.extend(kids)

    if not forward_ok:
        for index in shadowed:
            reached[index] = 1
        for root in roots:
            mark(root)
    if reached.count(0):
        for index in range(count):
            if reached[index]:
                continue
            # walk up to find the cycle
            seen_order: dict[int, int] = {}
            node = index
            while node not in seen_order and node >= 0 and not reached[node]:
                seen_order[node] = len(seen_order)
                node = parent[node]
            if node < 0 or reached[node]:
                continue  # cannot happen, but never loop
            walk = list(seen_order)
            cycle = walk[seen_order[node]:]
            lowest = min(cycle)
            above = parent[lowest]
            if above >= 0:
                children[above].remove(lowest)
                if not children[above]:
                    del children[above]
            parent[lowest] = -1
            roots.append(lowest)
            chain = " → ".join(ids[member] for member in sorted(cycle)[:6]) + (" …" if len(cycle) > 6 else "")
            tree_warnings.append(
                SessionWarning(
                    session.linenos[lowest],
                    f"line {session.linenos[lowest]}: parentId cycle through {len(cycle)} entries ({chain}); "
                    f"{ids[lowest]} is shown as a root",
                    "parent-cycle",
                )
            )
            mark(lowest)
        # as the children are made from the parents alone (a session from a worker):
        # keys in the order of their first child still there
        children = children_from_parent(session, parent)
    session.index_of = index_of
    session.parent = parent
    session.children = children
    session.roots = roots
    session.shadowed = shadowed
    # Pi's leaf: the last entry it read (a line that does not parse is not read)
    last = count - 1
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
    for index, parent_index in enumerate(session.parent if parent is None else parent):
        if parent_index < 0:
            continue
        lst = get(parent_index)
        if lst is None:
            children[parent_index] = [index]
        else:
            if len(lst) == 1:
                multi.append(parent_index)
            lst.append(index)
    sort_siblings(session, children, multi)
    return children


def sort_siblings(session, children: dict[int, list[int]], multi: list[int]) -> None:
    """Sort the children of ``multi`` oldest first, stable for ties, as Pi's getTree does."""
    ts = session.timestamps
    for parent in multi:
        lst = children[parent]
        keys = [iso_to_ms(ts[child]) for child in lst]
        if any(math.isnan(key) for key in keys):
            pairs = list(zip(keys, lst))

            def cmp(left, right):
                diff = left[0] - right[0]
                return 0 if math.isnan(diff) or diff == 0 else (-1 if diff < 0 else 1)

            pairs.sort(key=cmp_to_key(cmp))
            lst[:] = [child for _, child in pairs]
        else:
            order = sorted(range(len(lst)), key=keys.__getitem__)
            lst[:] = [lst[position] for position in order]


class PathPositions(Mapping):
    """Each entry on a path -> its index on it, read-only: an array over the session's
    entries (-1 off the path) rather than a dict, a twentieth of the memory for a
    50,000-deep branch and copied in one move when a key asks for another branch."""

    __slots__ = ("_path", "_at")

    def __init__(self, path: list[int], at: array) -> None:
        self._path = path  # (for iterating and counting; never changed once given)
        self._at = at

    def __getitem__(self, index: int) -> int:
        position = self._at[index] if 0 <= index < len(self._at) else -1
        if position < 0:
            raise KeyError(index)
        return position

    def __contains__(self, item: object) -> bool:
        return isinstance(item, int) and 0 <= item < len(self._at) and self._at[item] >= 0

    def get(self, index, default=None):
        return self[index] if index in self else default

    def __iter__(self) -> Iterator[int]:
        return iter(self._path)

    def __len__(self) -> int:
        return len(self._path)


_OFF_PATH = array(INDEX_CODE, (-1,))


def positions_of(path: list[int], size: int) -> array:
    """An array of ``size`` entries: each entry's index on ``path``, -1 for the others."""
    at = _OFF_PATH * size
    for position, node in enumerate(path):
        at[node] = position
    return at


def _covering(at: array | None, count: int) -> array:
    """``at`` (each entry's index on the kept path, -1 off it) made to cover ``count``
    entries, those read since it was made on no path kept yet (a new array when none)."""
    if at is None:
        return _OFF_PATH * count
    if len(at) < count:
        at.extend(_OFF_PATH * (count - len(at)))
    return at


def walk_path(session, index: int, want_pos: bool) -> tuple[list[int], PathPositions | None]:
    """The path from the root down to ``index``, and (``want_pos``) each entry's index on it when
    the kept path ends at ``index``: walked up only to the first entry on the path walked last
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
            while index >= 0:
                append(index)
                index = parent[index]
        else:
            at = _covering(at, len(parent))
            while index >= 0:
                position = at[index]
                if position >= 0:
                    keep = position + 1
                    break
                walk.append(index)
                index = parent[index]
        if not walk:
            if want_pos and keep == len(path):
                return path[:], PathPositions(path[:], at[:])
            return path[:keep], None
        at = session._path_pos = _covering(at, len(parent))
        for node in path[keep:]:
            at[node] = -1
        del path[keep:]
        walk.reverse()
        for position, node in enumerate(walk, keep):
            at[node] = position
        path.extend(walk)
        return path[:], PathPositions(path[:], at[:]) if want_pos else None


def newest_leaf_below(session, index: int) -> int:
    """The leaf reached from ``index`` by following the branch that holds the current leaf
    when ``index`` is on it, else the newest (last in file order) leaf of ``index``'s subtree."""
    if index < 0:
        return index
    if is_ancestor(session, index, session.leaf):
        return session.leaf
    best = index
    stack = [index]
    while stack:
        node = stack.pop()
        kids = session.children.get(node)
        if kids:
            stack.extend(kids)
        elif node > best:
            best = node
    return best


def is_ancestor(session, ancestor: int, node: int) -> bool:
    """True when ``ancestor`` is on the path from the root to ``node`` (or is ``node``)."""
    current = node
    parent = session.parent
    while current >= 0:
        if current == ancestor:
            return True
        current = parent[current]
    return False
