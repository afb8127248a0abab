"""The branch tree as display rows: Pi's ``/tree`` layout, computed without recursion.

A linear run stays flat and indentation grows only at a fork; the branch holding the
current leaf is listed first at every fork; filters hide entries and a hidden entry's
children attach to its nearest shown ancestor; a fork (branch start) can be folded.
Rows carry structure only (indent, connector, gutters); the UI draws them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .session import F_ABNORMAL_STOP, F_ASSISTANT_TEXT, Session

__all__ = ["FILTERS", "TreeRow", "TreeLayout", "layout_tree", "is_shown"]

FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all")

_SETTINGS = frozenset({"label", "context_edit", "custom", "model_change", "thinking_level_change", "session_info"})


@dataclass(slots=True)
class TreeRow:
    entry: int
    indent: int  # Pi's display indent, in levels of 3 columns
    connector: str  # "├─", "└─" or ""
    gutters: tuple  # ((level, show_bar), ...)
    active: bool  # on the path from the root to the current leaf
    foldable: bool
    folded: bool
    hidden_below: int = 0  # entries hidden by this fold

    def prefix(self) -> str:
        """The tree-drawing characters before the entry's text."""
        n = self.indent * 3
        if n == 0:
            return ""
        chars = [" "] * n
        conn_level = self.indent - 1 if self.connector else -1
        gut = dict(self.gutters)
        for level in range(self.indent):
            pos = level * 3
            if level in gut:
                chars[pos] = "│" if gut[level] else " "
            elif level == conn_level:
                chars[pos] = "└" if self.connector == "└─" else "├"
                chars[pos + 1] = "⊞" if self.folded else ("⊟" if self.foldable else "─")
        return "".join(chars)


@dataclass
class TreeLayout:
    rows: list[TreeRow]
    row_of: dict[int, int]  # entry index -> row number
    visible_parent: dict[int, int]  # entry -> nearest shown ancestor (-1 at the top)
    visible_children: dict[int, list[int]] = field(default_factory=dict)

    def nearest_row(self, session: Session, entry: int) -> int:
        """The row of ``entry``, or of its nearest shown ancestor (else the last row)."""
        x = entry
        while x >= 0:
            r = self.row_of.get(x)
            if r is not None:
                return r
            x = session.parent[x]
        return len(self.rows) - 1 if self.rows else -1


def is_shown(session: Session, i: int, mode: str) -> bool:
    """Pi's tree filter for one entry (before folding)."""
    t = session.types[i]
    if t == "usage" and mode != "all":
        return False
    if t == "message" and session.roles[i] == "assistant" and i != session.leaf and mode != "all":
        if not session.flags[i] & (F_ASSISTANT_TEXT | F_ABNORMAL_STOP):
            return False
    if mode == "user-only":
        return t == "message" and session.roles[i] == "user"
    if mode == "no-tools":
        return t not in _SETTINGS and not (t == "message" and session.roles[i] == "toolResult")
    if mode == "labeled-only":
        return session.label_of(i) is not None
    if mode == "all":
        return True
    return t not in _SETTINGS


def layout_tree(session: Session, mode: str = "default", folded: set[int] | frozenset = frozenset()) -> TreeLayout:
    """All display rows for ``session`` under filter ``mode`` with ``folded`` entries folded.

    ``mode="all"`` shows every entry, including the tool-call-only assistant messages and
    ``usage`` entries that Pi's tree never shows.
    """
    n = len(session)
    leaf = session.leaf
    # Which entries hold the current leaf in their subtree: exactly the leaf's path.
    active = bytearray(n)
    x = leaf
    while x >= 0:
        active[x] = 1
        x = session.parent[x]
    roots = sorted(session.roots, key=lambda r: not active[r])  # stable: active root first

    shown = bytearray(n)
    for i in range(n):
        if session.parent[i] != -2 and is_shown(session, i, mode):
            shown[i] = 1

    # Walk the full tree in Pi's order (active child first), tracking the nearest shown
    # ancestor, to build the visible forest.
    visible_parent: dict[int, int] = {}
    visible_children: dict[int, list[int]] = {-1: []}
    children = session.children
    stack: list[tuple[int, int]] = [(r, -1) for r in reversed(roots)]
    while stack:
        node, vis_anc = stack.pop()
        if shown[node]:
            visible_parent[node] = vis_anc
            lst = visible_children.get(vis_anc)
            if lst is None:
                visible_children[vis_anc] = [node]
            else:
                lst.append(node)
            below = node
        else:
            below = vis_anc
        kids = children.get(node)
        if kids:
            if len(kids) > 1:
                ordered = [k for k in kids if active[k]] + [k for k in kids if not active[k]]
            else:
                ordered = kids
            for k in reversed(ordered):
                stack.append((k, below))

    top = visible_children[-1]
    multiple_roots = len(top) > 1

    def foldable(node: int) -> bool:
        if not visible_children.get(node):
            return False
        p = visible_parent.get(node, -1)
        if p == -1:
            return True
        return len(visible_children.get(p, ())) > 1

    rows: list[TreeRow] = []
    row_of: dict[int, int] = {}
    # (node, indent, just_branched, show_connector, is_last, gutters, is_virtual_root_child)
    vstack = []
    for k in range(len(top) - 1, -1, -1):
        vstack.append((top[k], 1 if multiple_roots else 0, multiple_roots, multiple_roots, k == len(top) - 1, (), multiple_roots))
    while vstack:
        node, indent, just_branched, show_conn, is_last, gutters, virt = vstack.pop()
        kids = visible_children.get(node, [])
        is_folded = node in folded and bool(kids)
        display_indent = max(0, indent - 1) if multiple_roots else indent
        connector = ("└─" if is_last else "├─") if (show_conn and not virt) else ""
        # gutter levels are stored in display terms
        row = TreeRow(
            entry=node,
            indent=display_indent,
            connector=connector,
            gutters=gutters,
            active=bool(active[node]),
            foldable=foldable(node),
            folded=is_folded,
        )
        row_of[node] = len(rows)
        rows.append(row)
        if is_folded:
            row.hidden_below = _count_below(visible_children, node)
            continue
        multi = len(kids) > 1
        if multi:
            child_indent = indent + 1
        elif just_branched and indent > 0:
            child_indent = indent + 1
        else:
            child_indent = indent
        conn_displayed = show_conn and not virt
        conn_pos = max(0, display_indent - 1)
        child_gutters = gutters + ((conn_pos, not is_last),) if conn_displayed else gutters
        for k in range(len(kids) - 1, -1, -1):
            vstack.append((kids[k], child_indent, multi, multi, k == len(kids) - 1, child_gutters, False))
    return TreeLayout(rows, row_of, visible_parent, visible_children)


def _count_below(visible_children: dict[int, list[int]], node: int) -> int:
    count = 0
    stack = list(visible_children.get(node, ()))
    while stack:
        x = stack.pop()
        count += 1
        stack.extend(visible_children.get(x, ()))
    return count
