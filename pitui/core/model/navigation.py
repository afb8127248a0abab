"""Where the tree's navigation keys go: pure functions of the session and its layout (the
keys are bound on the browser screen; the tree widget asks here and draws the answer):

* ``[`` / ``]`` previous / next sibling branch at the nearest fork.  The fork is found from
  the selection: when the selection is the first entry of a branch, the fork above it;
  otherwise when the selection is itself a fork, that fork (its current branch is the one
  the message pane shows); otherwise the nearest fork above the selection.  The sibling's
  first entry is selected.  Several roots count as the branches of one fork at the top.
* ``{`` / ``}`` previous / next fork on the path: the nearest entry with several (shown)
  children strictly above / below the selection on the branch the pane shows.
* ``g`` / ``G`` the root of the selection's tree / the leaf of the branch the pane shows.
* ``u`` / ``U`` the previous / next user message on that branch.

The branch the pane shows runs from the root to a leaf: while the selection stays on the
branch already shown, that branch; otherwise Pi's current leaf when the selection is on
its path, else the newest leaf below the selection (``Session.newest_leaf_below``).

"Shown" follows the filter mode: a hidden entry's children hang from its nearest shown
ancestor, so forks and siblings are those of the tree on screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..read.session import Session
from .layout import TreeLayout

__all__ = [
    "Nav",
    "PathCache",
    "branch_leaf",
    "sibling_target",
    "fork_target",
    "user_target",
    "root_target",
    "leaf_target",
]


class PathCache:
    """``session.path_to(leaf)`` and each entry's position on it, for the last few leaves
    (a 50,000-deep branch is walked once, not on every key). Valid until the session
    changes: the tree makes a new one on every refresh."""

    KEEP = 4

    def __init__(self, session: Session) -> None:
        self.session = session
        self._paths: dict[int, tuple[list[int], dict[int, int]]] = {}

    def _get(self, leaf: int) -> tuple[list[int], dict[int, int]]:
        got = self._paths.pop(leaf, None)
        if got is None:
            got = self.session.path_positions(leaf)
            while len(self._paths) >= self.KEEP:
                del self._paths[next(iter(self._paths))]
        self._paths[leaf] = got  # most recent last
        return got

    def path(self, leaf: int) -> list[int]:
        """Root .. ``leaf`` (do not modify)."""
        return self._get(leaf)[0] if leaf >= 0 else []

    def pos(self, leaf: int) -> dict[int, int]:
        """Entry -> its index on :meth:`path`."""
        return self._get(leaf)[1] if leaf >= 0 else {}


@dataclass
class Nav:
    """What navigation needs: the session, the current layout, and a leaf cache."""

    session: Session
    tree_layout: TreeLayout
    #: The leaf of the branch the pane shows. Moving within that branch keeps it (the
    #: pane does not jump to another branch when the selection passes a fork).
    sticky_leaf: int = -1
    paths: PathCache | None = None

    def __post_init__(self) -> None:
        self._leaf_cache: dict[int, int] = {}
        self._visible: dict[int, tuple[list[int], dict[int, int]]] = {}
        if self.paths is None or self.paths.session is not self.session:
            self.paths = PathCache(self.session)

    def shown(self, i: int) -> bool:
        return i in self.tree_layout.visible_parent

    def vparent(self, i: int) -> int:
        return self.tree_layout.visible_parent.get(i, -1)

    def vkids(self, i: int) -> Sequence[int]:
        return self.tree_layout.visible_children.get(i, ())

    def is_fork(self, i: int) -> bool:
        return i in self.tree_layout.forks

    def leaf_below(self, i: int) -> int:
        """The leaf of the branch the pane shows for selection ``i``: the branch shown
        now when ``i`` is on it, else :func:`branch_leaf`."""
        if self.sticky_leaf >= 0 and i >= 0 and i in self.paths.pos(self.sticky_leaf):  # type: ignore[union-attr]
            return self.sticky_leaf
        got = self._leaf_cache.get(i)
        if got is None:
            got = branch_leaf(self.session, self.tree_layout, i)
            self._leaf_cache[i] = got
        return got

    def _visible_path(self, leaf: int) -> tuple[list[int], dict[int, int]]:
        got = self._visible.get(leaf)
        if got is None:
            shown = self.tree_layout.visible_parent
            path = [x for x in self.paths.path(leaf) if x in shown]  # type: ignore[union-attr]
            got = (path, dict(zip(path, range(len(path)))))  # (3x quicker than a comprehension)
            if len(self._visible) >= 4:
                self._visible.clear()
            self._visible[leaf] = got
        return got

    def visible_pos(self, i: int) -> tuple[list[int], int | None]:
        """The visible path of ``i``'s branch and ``i``'s index on it (None when not on it)."""
        path, pos = self._visible_path(self.leaf_below(i))
        return path, pos.get(i)


def branch_leaf(session: Session, layout: TreeLayout, i: int) -> int:
    """The last entry of the branch through ``i``: Pi's current leaf when ``i`` is on its
    path, else the newest leaf below ``i`` (``Session.newest_leaf_below``)."""
    if i < 0:
        return i
    row = layout.row_of.get(i)
    if row is not None and layout.rows[row].active:
        return session.leaf
    return session.newest_leaf_below(i)


def sibling_target(nav: Nav, sel: int, step: int) -> int | None:
    """``[`` (step -1) / ``]`` (step +1): see the module docstring."""
    if not nav.shown(sel):
        return None
    p = nav.vparent(sel)
    if len(nav.vkids(p)) > 1:
        fork, current = p, sel
    elif nav.is_fork(sel):
        fork = sel
        current = _child_towards(nav, sel, nav.leaf_below(sel))
    else:
        fork = current = None
        y = p
        while y >= 0:
            py = nav.vparent(y)
            if len(nav.vkids(py)) > 1:
                fork, current = py, y
                break
            y = py
        if fork is None:
            return None
    kids = nav.vkids(fork)
    try:
        k = kids.index(current)
    except ValueError:
        return None
    k += step
    if 0 <= k < len(kids):
        return kids[k]
    return None


def _child_towards(nav: Nav, fork: int, leaf: int) -> int | None:
    """The shown child of ``fork`` on the way to ``leaf``."""
    x = leaf
    while x >= 0:
        if x != fork and nav.shown(x) and nav.vparent(x) == fork:
            return x
        x = nav.session.parent[x]
    kids = nav.vkids(fork)
    return kids[0] if kids else None


def fork_target(nav: Nav, sel: int, step: int) -> int | None:
    """``{`` (step -1) / ``}`` (step +1): the nearest fork above / below on the path."""
    path, pos = nav._visible_path(nav.leaf_below(sel))
    k = pos.get(sel)
    if k is None:
        return None
    # The layout's forks (few) that are on the path, by position: a walk along a path of
    # tens of thousands of entries asking each whether it is a fork took ~5 ms a key.
    at = [j for j in map(pos.get, nav.tree_layout.forks) if j is not None and (j < k if step < 0 else j > k)]
    if not at:
        return None
    return path[max(at) if step < 0 else min(at)]


def user_target(nav: Nav, sel: int, step: int) -> int | None:
    """``u`` (step -1) / ``U`` (step +1): the nearest shown user message on the path."""
    s = nav.session
    path, k = nav.visible_pos(sel)
    if k is None:
        return None
    rng = range(k - 1, -1, -1) if step < 0 else range(k + 1, len(path))
    for j in rng:
        x = path[j]
        if s.types[x] == "message" and s.roles[x] == "user":
            return x
    return None


def root_target(nav: Nav, sel: int) -> int | None:
    # The topmost shown ancestor: the first shown entry of the (cached) path through sel.
    leaf = nav.leaf_below(sel)
    if sel in nav.paths.pos(leaf):  # type: ignore[union-attr]
        for x in nav.paths.path(leaf):  # type: ignore[union-attr]
            if nav.shown(x):
                return x
    x = sel
    while True:
        p = nav.vparent(x)
        if p < 0:
            return x
        x = p


def leaf_target(nav: Nav, sel: int) -> int | None:
    leaf = nav.leaf_below(sel)
    x = leaf
    while x >= 0 and not nav.shown(x):
        x = nav.session.parent[x]
    return x if x >= 0 else None
