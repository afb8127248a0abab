"""The branch tree as display rows: Pi's ``/tree`` layout, computed without recursion.

A linear run stays flat and indentation grows only at a fork; the branch holding the
current leaf is listed first at every fork; filters hide entries and a hidden entry's
children attach to its nearest shown ancestor; a fork (branch start) can be folded.
Rows carry structure only (indent, connector, gutters); the UI draws them.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from itertools import compress, repeat
from operator import eq
from typing import NamedTuple

from ..read.arrays import EntryMap, pick
from ..read.session import Session
from ..read.skeleton import F_ABNORMAL_STOP, F_ASSISTANT_TEXT, F_DAMAGED, INDEX_CODE
from .tool_kinds import (FILE_EDIT, FILE_READ, FILE_SEARCH, FILE_WRITE, RESULT_HEAD, SHELL_EXEC, raw_result_head,
                         raw_tool_calls, tool_kind)

__all__ = ["FILTERS", "KIND_FILTERS", "TreeRow", "TreeLayout", "layout_tree", "is_shown", "call_kinds"]

#: Pi's filters, then pitui's two by tool kind
FILTERS = ("default", "no-tools", "user-only", "labeled-only", "all", "files-only", "shell-only")

# A bit per canonical kind in :func:`call_kinds` (any other kind: _OTHER).
_KIND_BITS = {FILE_READ: 1, FILE_WRITE: 2, FILE_EDIT: 4, FILE_SEARCH: 8, SHELL_EXEC: 16}
_OTHER = 32
#: the filters by tool kind: the kinds whose calls and results each shows
KIND_FILTERS = {"files-only": frozenset({FILE_READ, FILE_WRITE, FILE_EDIT, FILE_SEARCH}),
                "shell-only": frozenset({SHELL_EXEC})}
_KIND_FILTER_BITS = {mode: sum(_KIND_BITS[kind] for kind in kinds) for mode, kinds in KIND_FILTERS.items()}

_SETTINGS = frozenset({"label", "context_edit", "custom", "model_change", "thinking_level_change", "session_info"})


class TreeRow(NamedTuple):
    entry: int
    indent: int  # Pi's display indent, in levels of 3 columns
    connector: str  # "├─", "└─" or ""
    gutters: tuple  # ((level, show_bar), ...)
    active: bool  # on the path from the root to the current leaf
    foldable: bool
    folded: bool
    hidden_below: int = 0  # entries hidden by this fold

    @property
    def fold_mark(self) -> str:
        """``"⊞ "`` for a folded row whose connector does not show the fold (a root), as Pi
        draws it after the prefix; else ``""``."""
        return "⊞ " if self.folded and not self.connector else ""

    @property
    def path_mark(self) -> str:
        """``"• "`` on the path to the current leaf, else nothing (Pi reserves no column for
        it: a row off the path starts its text where the mark would be)."""
        return "• " if self.active else ""

    def prefix(self) -> str:
        """The tree-drawing characters before the entry's text (then :attr:`fold_mark`
        and :attr:`path_mark`, as Pi's ``/tree`` draws a row)."""
        width = self.indent * 3
        if width == 0:
            return ""
        chars = [" "] * width
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


class _Rows(Sequence):
    """The rows of a layout, stored as parallel arrays; a :class:`TreeRow` is made when read."""

    __slots__ = ("entry", "indent", "conn", "gutters", "active", "foldable", "folded", "hidden")

    def __init__(self):
        self.entry = array(INDEX_CODE)
        self.indent = array(INDEX_CODE)
        self.conn = bytearray()  # 0 none, 1 "├─", 2 "└─"
        self.gutters: list[tuple] = []  # shared tuples, one reference per row
        self.active = bytearray()
        self.foldable = bytearray()
        self.folded = bytearray()
        self.hidden: dict[int, int] = {}  # row -> entries hidden by its fold

    def __len__(self) -> int:
        return len(self.entry)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[index] for index in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self.entry)
        return TreeRow(
            entry=self.entry[index],
            indent=self.indent[index],
            connector=_CONN[self.conn[index]],
            gutters=self.gutters[index],
            active=bool(self.active[index]),
            foldable=bool(self.foldable[index]),
            folded=bool(self.folded[index]),
            hidden_below=self.hidden.get(index, 0),
        )


_CONN = ("", "├─", "└─")


class TreeLayout:
    """The rows of a tree filter, with the shown parent and children of each entry."""

    def __init__(
        self,
        rows: Sequence[TreeRow],
        row_of: Mapping[int, int],  # entry index -> row number (an EntryMap)
        visible_parent: Mapping[int, int],  # entry -> nearest shown ancestor (-1 at the top)
        visible_children: dict[int, list[int]] | None = None,
    ) -> None:
        self.rows = rows
        self.row_of = row_of
        self.visible_parent = visible_parent
        self._children = visible_children  # None: made from visible_parent when asked for
        self._forks: frozenset[int] | None = None

    @property
    def visible_children(self) -> dict[int, list[int]]:
        """Entry -> its shown children (-1: the top rows), in the order of the rows. A
        layout that crossed processes makes these lists when first asked for, not while a
        session is being opened."""
        got = self._children
        if got is None:
            # visible_parent is filled in the order the entries are met, as these are
            got = {-1: []}
            get = got.get
            for node, parent in self.visible_parent.items():
                lst = get(parent)
                if lst is None:
                    got[parent] = [node]
                else:
                    lst.append(node)
            self._children = got
        return got

    @visible_children.setter
    def visible_children(self, value: dict[int, list[int]]) -> None:
        self._children = value
        self._forks = None

    @property
    def forks(self) -> frozenset[int]:
        """The entries with more than one shown child (made when first asked for)."""
        got = self._forks
        if got is None:
            got = self._forks = frozenset(node for node, kids in self.visible_children.items() if len(kids) > 1)
        return got

    @property
    def has_children(self) -> bool:
        """Whether :attr:`visible_children` is made (or given) already."""
        return self._children is not None

    @property
    def forks_made(self) -> bool:
        """Whether :attr:`forks` is made already (asking for it would not make it)."""
        return self._forks is not None

    def __repr__(self) -> str:
        return f"TreeLayout({len(self.rows)} rows)"

    def to_state(self) -> dict:
        """This layout as compact plain data for :meth:`from_state` (to cross processes)."""
        rows = self.rows
        if not isinstance(rows, _Rows):
            raise TypeError("only a layout made by layout_tree")
        vp = self.visible_parent
        if isinstance(vp, EntryMap):
            keys, values = vp.arrays()[0], vp.values_array()
        else:
            keys, values = array(INDEX_CODE, vp), array(INDEX_CODE, vp.values())
        state = {
            "rows": (rows.entry.tobytes(), rows.indent.tobytes(), bytes(rows.conn), rows.gutters,
                     bytes(rows.active), bytes(rows.foldable), bytes(rows.folded), rows.hidden),
            "vp": (keys.tobytes(), values.tobytes()),
        }
        if isinstance(vp, EntryMap) and isinstance(self.row_of, EntryMap):
            # the two maps' arrays as they are, so that the other side need not make them
            # again ("vp" alone is what a layout saved by an older pitui holds)
            state["at"] = (self.row_of.arrays()[1].tobytes(), vp.arrays()[1].tobytes())
        return state

    @classmethod
    def from_state(cls, state: dict, *, checked: bool = True) -> "TreeLayout":
        """The layout :meth:`to_state` made ``state`` of. ``checked``: the arrays sent are
        checked to point only inside it (False for a worker's own output, fresh from its
        pipe: the checks walk every value; a saved file is always checked)."""
        rows = _Rows()
        entry, indent, conn, gutters, active, foldable, folded, hidden = state["rows"]
        rows.entry.frombytes(entry)
        rows.indent.frombytes(indent)
        rows.conn = bytearray(conn)
        rows.gutters = gutters
        rows.active = bytearray(active)
        rows.foldable = bytearray(foldable)
        rows.folded = bytearray(folded)
        rows.hidden = hidden
        keys, values = array(INDEX_CODE), array(INDEX_CODE)
        keys.frombytes(state["vp"][0])
        values.frombytes(state["vp"][1])
        maps = _maps_as_sent(rows, keys, state.get("at"), checked)
        if maps is None:  # (a layout saved by an older pitui, or arrays that do not fit)
            size = max(keys) + 1 if keys else 0
            maps = (EntryMap.from_pairs(rows.entry, range(len(rows.entry)), size),
                    EntryMap.from_pairs(keys, values, size))
        return cls(rows, maps[0], maps[1], None)

    def nearest_row(self, session: Session, entry: int) -> int:
        """The row of ``entry``, or of its nearest shown ancestor (else the last row)."""
        node = entry
        while node >= 0:
            row = self.row_of.get(node)
            if row is not None:
                return row
            node = session.parent[node]
        return len(self.rows) - 1 if self.rows else -1


def _maps_as_sent(rows: _Rows, keys: array, sent: tuple | None, checked: bool) -> tuple[EntryMap, EntryMap] | None:
    """The layout's row and shown-parent maps from the arrays :meth:`TreeLayout.to_state`
    sent, when they fit its rows and keys (``checked``: and no value points outside
    them); else None."""
    if sent is None:
        return None
    row_at, vp_at = array(INDEX_CODE), array(INDEX_CODE)
    try:
        row_at.frombytes(sent[0])
        vp_at.frombytes(sent[1])
    except (TypeError, ValueError, IndexError):
        return None
    nrows = len(rows.entry)
    if len(row_at) != len(vp_at) or len(keys) != nrows:
        return None
    if checked and not (_within(row_at, -2, nrows, nrows) and _within(vp_at, -2, len(vp_at), len(keys))):
        return None
    return EntryMap.from_arrays(rows.entry[:], row_at), EntryMap.from_arrays(keys, vp_at)


def _within(at: array, low: int, high: int, count: int) -> bool:
    """Whether every value of ``at`` is in ``low..high-1`` and ``count`` of them are not -2."""
    return (not at or (min(at) >= low and max(at) < high)) and len(at) - at.count(-2) == count


def _bit(name: str) -> int:
    return _KIND_BITS.get(tool_kind(name), _OTHER)


def _calls_of(session: Session, index: int, data: bytes) -> list[tuple[str | None, int]]:
    """``(call id, kind bit)`` of each call of assistant entry ``index``, from its line (parsed
    only when it is not written as Pi writes it)."""
    calls = raw_tool_calls(data)
    if calls is None:
        content = (session.message(index) or {}).get("content")
        calls = [(block.get("id") if isinstance(block.get("id"), str) else None, str(block.get("name") or ""))
                 for block in (content if isinstance(content, list) else ())
                 if isinstance(block, dict) and block.get("type") == "toolCall"]
    return [(cid, _bit(name)) for cid, name in calls]


def _result_of(session: Session, index: int, data: bytes) -> tuple[str | None, int]:
    """``(call id, kind bit)`` of tool result ``index``, from the head of its line."""
    head = raw_result_head(data)
    if head is not None:
        return head[0], _bit(head[1])
    msg = session.message(index) or {}
    cid = msg.get("toolCallId") if isinstance(msg.get("toolCallId"), str) else None
    name = msg.get("toolName")
    if not isinstance(name, str) or not name:
        found = session.find_tool_call(index)
        name = str(found[1].get("name") or "") if found is not None else ""
    return cid, (_bit(name) if name else 0)


class CallKinds:
    """The kinds of tool each entry calls, runs or is, and which calls were answered.

    ``bits``: a byte per entry, a bit per canonical kind: an assistant message's calls',
    a tool result's tool's, a user's ``!`` command (shell). ``calls``: each assistant
    entry's ``(call id, bit)``; ``answered``: the call ids some result answers."""

    __slots__ = ("n", "bits", "calls", "answered")

    def __init__(self) -> None:
        self.n = 0
        self.bits = bytearray()
        self.calls: dict[int, list[tuple[str | None, int]]] = {}
        self.answered: set[str] = set()

    def unanswered(self, index: int, want: int) -> bool:
        """Assistant entry ``index`` has a call of the kinds ``want`` that no result answers."""
        return any(bit & want and (cid is None or cid not in self.answered) for cid, bit in self.calls.get(index, ()))


def call_kinds(session: Session) -> CallKinds:
    """The session's :class:`CallKinds`, read from the raw lines of assistant messages and
    the heads of results, once per session: a session that grew reads only its new entries
    (and its last one again, which may have been a partial line)."""
    count = len(session.types)
    memo = session.derived.get("call_kinds")
    if memo is not None and memo.n == count:
        return memo
    kinds = memo if memo is not None else CallKinds()
    start = max(0, min(kinds.n - 1, count))
    del kinds.bits[start:]
    kinds.bits.extend(bytes(count - start))
    for index in [call for call in kinds.calls if call >= start]:
        del kinds.calls[index]
    types, roles, flags = session.types, session.roles, session.flags
    calls, results = [], []
    for index in range(start, count):
        if types[index] != "message" or flags[index] & F_DAMAGED:
            continue
        role = roles[index]
        if role == "assistant":
            calls.append(index)
        elif role == "toolResult":
            results.append(index)
        elif role == "bashExecution":
            kinds.bits[index] = _KIND_BITS[SHELL_EXEC]
    for index, data in session.raw_lines(calls):
        found = _calls_of(session, index, data)
        kinds.calls[index] = found
        bits = 0
        for _, bit in found:
            bits |= bit
        kinds.bits[index] = bits
    for index, data in session.raw_lines(results, limit=RESULT_HEAD):
        cid, kinds.bits[index] = _result_of(session, index, data)
        if cid is not None:
            kinds.answered.add(cid)
    kinds.n = count
    session.derived["call_kinds"] = kinds
    return kinds


def is_shown(session: Session, index: int, mode: str) -> bool:
    """Pi's tree filter for one entry (before folding); a filter by kind shows the results
    of the calls of its kinds, the messages whose such calls have no result, and the user's
    own commands of its kinds."""
    want = _KIND_FILTER_BITS.get(mode)
    if want is not None:
        # a call shows once: as its result's row, or as its message's row while no result
        # answers it (a call still running, or one Pi left without a result)
        kinds = call_kinds(session)
        if not kinds.bits[index] & want:
            return False
        return session.roles[index] != "assistant" or kinds.unanswered(index, want)
    entry_type = session.types[index]
    if entry_type == "usage" and mode != "all":
        return False
    if entry_type == "message" and session.roles[index] == "assistant" and index != session.leaf and mode != "all":
        if not session.flags[index] & (F_ASSISTANT_TEXT | F_ABNORMAL_STOP):
            return False
    if mode == "user-only":
        return entry_type == "message" and session.roles[index] == "user"
    if mode == "no-tools":
        return entry_type not in _SETTINGS and not (entry_type == "message" and session.roles[index] == "toolResult")
    if mode == "labeled-only":
        return session.label_of(index) is not None
    if mode == "all":
        return True
    return entry_type not in _SETTINGS


# a byte per flags value: 1 where an assistant message is shown for its flags
_VISIBLE_ASSISTANT = bytes(1 if flags & (F_ASSISTANT_TEXT | F_ABNORMAL_STOP) else 0 for flags in range(256))


def _shown_mask(session: Session, mode: str) -> bytearray:
    """1 for each entry the filter shows (Pi's rules, as :func:`is_shown`), vectorised."""
    count = len(session)
    types, roles, flags = session.types, session.roles, session.flags
    leaf = session.leaf
    mask = bytearray(count)
    visible_assistant = F_ASSISTANT_TEXT | F_ABNORMAL_STOP
    want = _KIND_FILTER_BITS.get(mode)
    if want is not None:
        kinds = call_kinds(session)
        mask[:] = kinds.bits.translate(bytes(1 if flags & want else 0 for flags in range(256)))
        for call in kinds.calls:  # (is_shown's rule: a call shows once)
            if mask[call] and not kinds.unanswered(call, want):
                mask[call] = 0
    elif mode == "labeled-only":
        for call in session.labels:
            entry_type = types[call]
            if entry_type == "usage":
                continue
            if entry_type == "message" and roles[call] == "assistant" and call != leaf and not flags[call] & visible_assistant:
                continue
            mask[call] = 1
    else:
        # Whole columns at a time (a loop over 50,000 entries took three times as long):
        # each test gives a byte per entry, 0 or 1, read as one big integer, combined
        # with the others bitwise.
        def bits(tests) -> int:
            return int.from_bytes(bytes(tests), "little")

        message = bits(map(eq, types, repeat("message", count)))
        if mode == "user-only":
            shown = message & bits(map(eq, roles, repeat("user", count)))
        else:
            hidden = 0
            if mode != "all":
                # assistant messages with neither text nor an abnormal stop, but the leaf
                quiet = (message & bits(map(eq, roles, repeat("assistant", count)))
                         & ~int.from_bytes(flags.translate(_VISIBLE_ASSISTANT), "little"))
                if leaf >= 0:
                    quiet &= ~(1 << 8 * leaf)
                hidden = quiet | bits(map((_SETTINGS | {"usage"}).__contains__, types))
            if mode == "no-tools":
                hidden |= message & bits(map(eq, roles, repeat("toolResult", count)))
            shown = int.from_bytes(b"\x01" * count, "little") & ~hidden
        mask[:] = shown.to_bytes(count, "little")
    for call in session.shadowed:
        mask[call] = 0
    return mask


def layout_tree(session: Session, mode: str = "default", folded: set[int] | frozenset = frozenset()) -> TreeLayout:
    """All display rows for ``session`` under filter ``mode`` with ``folded`` entries folded.

    ``mode="all"`` shows every entry, including the tool-call-only assistant messages and
    ``usage`` entries that Pi's tree never shows.
    """
    count = len(session)
    leaf = session.leaf
    # Which entries hold the current leaf in their subtree: exactly the leaf's path.
    active = bytearray(count)
    ancestor = leaf
    while ancestor >= 0:
        active[ancestor] = 1
        ancestor = session.parent[ancestor]
    roots = sorted(session.roots, key=lambda root: not active[root])  # stable: active root first

    shown = _shown_mask(session, mode)

    # Walk the full tree in Pi's order (active child first), tracking the nearest shown
    # ancestor, to build the visible forest. Single-child chains are followed in a loop.
    visible_parent = EntryMap(count)
    visible_children: dict[int, list[int]] = {-1: []}
    children = session.children
    cget = children.get
    vc_get = visible_children.get
    stack: list[tuple[int, int]] = [(root, -1) for root in reversed(roots)]
    while stack:
        node, vis_anc = stack.pop()
        # The chain of single children from node (most of a session), then its shown
        # entries, each the shown child of the one before, handled in bulk.
        chain = [node]
        kids = cget(node)
        while kids is not None and len(kids) == 1:
            node = kids[0]
            chain.append(node)
            kids = cget(node)
        vis = list(compress(chain, pick(shown, chain)))
        if vis:
            first = vis[0]
            visible_parent[first] = vis_anc
            lst = vc_get(vis_anc)
            if lst is None:
                visible_children[vis_anc] = [first]
            else:
                lst.append(first)
            if len(vis) > 1:
                visible_parent.update_pairs(vis[1:], vis)
                visible_children.update(zip(vis, [[node] for node in vis[1:]]))
            vis_anc = vis[-1]
        if kids:  # a fork: the branch holding the leaf first
            ordered = [kid for kid in kids if active[kid]] + [kid for kid in kids if not active[kid]]
            for child in reversed(ordered):
                stack.append((child, vis_anc))

    top = visible_children[-1]
    multiple_roots = len(top) > 1

    rows = _Rows()
    r_entry, r_indent, r_conn = rows.entry.append, rows.indent.append, rows.conn.append
    r_gut, r_active, r_foldable, r_folded = rows.gutters.append, rows.active.append, rows.foldable.append, rows.folded.append
    row_of = EntryMap(count)
    empty: list[int] = []
    # (node, indent, just_branched, show_connector, is_last, gutters, is_virtual_root_child)
    vstack = []
    for position in range(len(top) - 1, -1, -1):
        vstack.append((top[position], 1 if multiple_roots else 0, multiple_roots, multiple_roots, position == len(top) - 1, (), multiple_roots))
    nrow = 0
    while vstack:
        node, indent, just_branched, show_conn, is_last, gutters, virt = vstack.pop()
        kids = vc_get(node, empty)
        nkids = len(kids)
        is_folded = nkids > 0 and node in folded
        display_indent = (indent - 1 if indent > 0 else 0) if multiple_roots else indent
        conn_displayed = show_conn and not virt
        r_entry(node)
        r_indent(display_indent)
        r_conn((2 if is_last else 1) if conn_displayed else 0)
        r_gut(gutters)
        r_active(active[node])
        if nkids:
            parent = visible_parent.get(node, -1)
            r_foldable(1 if parent == -1 or len(visible_children[parent]) > 1 else 0)
        else:
            r_foldable(0)
        r_folded(1 if is_folded else 0)
        row_of[node] = nrow
        nrow += 1
        if is_folded:
            rows.hidden[nrow - 1] = _count_below(visible_children, node)
            continue
        if not nkids:
            continue
        if nkids > 1 or (just_branched and indent > 0):
            child_indent = indent + 1
        else:
            child_indent = indent
        if conn_displayed:
            gutters = gutters + ((display_indent - 1 if display_indent > 0 else 0, not is_last),)
        if nkids == 1:
            # A chain of single children: rows with the same indent and gutters, no
            # connector, not foldable (each one's shown parent has it alone), in bulk;
            # it ends at a leaf, a fork or a folded entry.
            indent = child_indent
            display_indent = (indent - 1 if indent > 0 else 0) if multiple_roots else indent
            chain = []
            node = kids[0]
            while True:
                chain.append(node)
                kids = vc_get(node, empty)
                if len(kids) != 1 or node in folded:
                    break
                node = kids[0]
            chain_len = len(chain)
            rows.entry.extend(chain)
            rows.indent.extend(array(INDEX_CODE, (display_indent,)) * chain_len)
            rows.conn.extend(bytes(chain_len))
            rows.gutters.extend([gutters] * chain_len)
            rows.active.extend(pick(active, chain))
            rows.foldable.extend(bytes(chain_len))
            rows.folded.extend(bytes(chain_len))
            row_of.update_pairs(chain, range(nrow, nrow + chain_len))
            nrow += chain_len
            nkids = len(kids)
            if not nkids:
                continue
            if node in folded:
                rows.folded[nrow - 1] = 1
                rows.hidden[nrow - 1] = _count_below(visible_children, node)
                continue
            child_indent = indent + 1  # (a fork below the chain)
        for position in range(nkids - 1, -1, -1):
            vstack.append((kids[position], child_indent, True, True, position == nkids - 1, gutters, False))
    return TreeLayout(rows, row_of, visible_parent, visible_children)


def _count_below(visible_children: dict[int, list[int]], node: int) -> int:
    count = 0
    stack = list(visible_children.get(node, ()))
    while stack:
        current = stack.pop()
        count += 1
        stack.extend(visible_children.get(current, ()))
    return count
