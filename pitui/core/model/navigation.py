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

from ..read.arrays import EntryMap
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

    def shown(self, index: int) -> bool:
        return index in self.tree_layout.visible_parent

    def vparent(self, index: int) -> int:
        return self.tree_layout.visible_parent.get(index, -1)

    def vkids(self, index: int) -> Sequence[int]:
        return self.tree_layout.visible_children.get(index, ())

    def is_fork(self, index: int) -> bool:
        return index in self.tree_layout.forks

    def leaf_below(self, index: int) -> int:
        """The leaf of the branch the pane shows for selection ``index``: the branch shown
        now when ``index`` is on it, else :func:`branch_leaf`."""
        if self.sticky_leaf >= 0 and index >= 0 and index in self.paths.pos(self.sticky_leaf):  # type: ignore[union-attr]
            return self.sticky_leaf
        got = self._leaf_cache.get(index)
        if got is None:
            got = branch_leaf(self.session, self.tree_layout, index)
            self._leaf_cache[index] = got
        return got

    def _visible_path(self, leaf: int) -> tuple[list[int], dict[int, int]]:
        got = self._visible.get(leaf)
        if got is None:
            shown = self.tree_layout.visible_parent
            whole = self.paths.path(leaf)  # type: ignore[union-attr]
            path = shown.keys_among(whole) if isinstance(shown, EntryMap) else [node for node in whole if node in shown]
            got = (path, dict(zip(path, range(len(path)))))  # (3x quicker than a comprehension)
            if len(self._visible) >= 4:
                self._visible.clear()
            self._visible[leaf] = got
        return got

    def visible_pos(self, index: int) -> tuple[list[int], int | None]:
        """The visible path of ``index``'s branch and ``index``'s position on it (None when not on it)."""
        path, pos = self._visible_path(self.leaf_below(index))
        return path, pos.get(index)


def branch_leaf(session: Session, layout: TreeLayout, index: int) -> int:
    """The last entry of the branch through ``index``: Pi's current leaf when ``index`` is on its
    path, else the newest leaf below ``index`` (``Session.newest_leaf_below``)."""
    if index < 0:
        return index
    row = layout.row_of.get(index)
    if row is not None and layout.rows[row].active:
        return session.leaf
    return session.newest_leaf_below(index)


def sibling_target(nav: Nav, sel: int, step: int) -> int | None:
    """``[`` (step -1) / ``]`` (step +1): see the module docstring."""
    if not nav.shown(sel):
        return None
    parent = nav.vparent(sel)
    if len(nav.vkids(parent)) > 1:
        fork, current = parent, sel
    elif nav.is_fork(sel):
        fork = sel
        current = _child_towards(nav, sel, nav.leaf_below(sel))
    else:
        fork = current = None
        node = parent
        while node >= 0:
            py = nav.vparent(node)
            if len(nav.vkids(py)) > 1:
                fork, current = py, node
                break
            node = py
        if fork is None:
            return None
    kids = nav.vkids(fork)
    try:
        position = kids.index(current)
    except ValueError:
        return None
    position += step
    if 0 <= position < len(kids):
        return kids[position]
    return None


def _child_towards(nav: Nav, fork: int, leaf: int) -> int | None:
    """The shown child of ``fork`` on the way to ``leaf``."""
    node = leaf
    while node >= 0:
        if node != fork and nav.shown(node) and nav.vparent(node) == fork:
            return node
        node = nav.session.parent[node]
    kids = nav.vkids(fork)
    return kids[0] if kids else None


def fork_target(nav: Nav, sel: int, step: int) -> int | None:
    """``{`` (step -1) / ``}`` (step +1): the nearest fork above / below on the path."""
    path, pos = nav._visible_path(nav.leaf_below(sel))
    position = pos.get(sel)
    if position is None:
        return None
    # The layout's forks (few) that are on the path, by position: a walk along a path of
    # tens of thousands of entries asking each whether it is a fork took ~5 ms a key.
    at = [fork for fork in map(pos.get, nav.tree_layout.forks) if fork is not None and (fork < position if step < 0 else fork > position)]
    if not at:
        return None
    return path[max(at) if step < 0 else min(at)]


def user_target(nav: Nav, sel: int, step: int) -> int | None:
    """``u`` (step -1) / ``U`` (step +1): the nearest shown user message on the path."""
    session = nav.session
    path, start = nav.visible_pos(sel)
    if start is None:
        return None
    rng = range(start - 1, -1, -1) if step < 0 else range(start + 1, len(path))
    for position in rng:
        node = path[position]
        if session.types[node] == "message" and session.roles[node] == "user":
            return node
    return None


def root_target(nav: Nav, sel: int) -> int | None:
    # The topmost shown ancestor: the first shown entry of the (cached) path through sel.
    leaf = nav.leaf_below(sel)
    if sel in nav.paths.pos(leaf):  # type: ignore[union-attr]
        for node in nav.paths.path(leaf):  # type: ignore[union-attr]
            if nav.shown(node):
                return node
    node = sel
    while True:
        parent = nav.vparent(node)
        if parent < 0:
            return node
        node = parent


def leaf_target(nav: Nav, sel: int) -> int | None:
    leaf = nav.leaf_below(sel)
    node = leaf
    while node >= 0 and not nav.shown(node):
        node = nav.session.parent[node]
    return node if node >= 0 else None
