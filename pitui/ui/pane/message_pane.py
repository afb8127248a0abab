"""The message pane: one branch of a session, every entry drawn as a block.

Blocks are built from the session's skeleton only (types, roles, byte lengths), so showing
a 50,000-entry branch parses nothing up front; entry bodies are read when a block comes
into view. An assistant message and the tool results right after it form one block, each
call drawn with its result; the result entries stay addressable (they map to that block).

Everything per block is kept in flat arrays (where each block starts and ends on the
branch, its kind, its estimated heights), grouped by a regular expression over one code
byte per entry, so a branch of 50,000 entries is laid out in a few tens of milliseconds.
Showing another branch that shares a prefix with the one shown (a sibling, the same
branch grown at its end) rebuilds only the blocks after the fork. What a block looks like
beyond its entries (in the model's context or not, a context edit's mark, its label, the
date above it) is worked out when the block is drawn, from a few facts about the branch
(where its last compaction is, which entries context edits touch).
"""

from __future__ import annotations

import os
import re
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import accumulate, compress, count, repeat
from operator import floordiv
from typing import Any, Hashable, Iterator, Sequence

from rich.style import Style
from rich.text import Text
from textual.timer import Timer

from ...core.session import F_ASSISTANT_TEXT, Session
from ...core.summary import one_line, text_of
from .messages import EntryFocused, OpenSessionFile
from .render import (
    CUT_LINES,
    Out,
    date_of,
    fmt_cost,
    fmt_time,
    fmt_tokens,
    message_header,
    render_assistant,
    render_bash_execution,
    render_branch_summary,
    render_compaction,
    render_content,
    render_custom_entry,
    render_header,
    render_json_body,
    render_marker,
    render_message,
    render_tool_results,
    sanitize,
)
from .scroller import BlockScroller

__all__ = ["MessagePane"]

_MARKERS = frozenset({"model_change", "thinking_level_change", "usage", "label", "session_info", "context_edit"})
# Bookkeeping entries that may sit between an assistant message and its tool results.
_TRANSPARENT = frozenset({"label", "session_info"})

# One code byte per entry, from its type and role.
_A = ord("A")  # assistant message
_R = ord("R")  # tool result message
_T = ord("T")  # label, session_info (markers an assistant's run of results may hold)
_M = ord("M")  # other markers
_X = ord("X")  # context_edit (a marker)
_C = ord("C")  # custom_message, custom message (hidden when display is false)
_CP = ord("c")  # compaction
_SY = ord("s")  # system message
_BX = ord("b")  # bashExecution message
_E = ord("E")  # anything else
_MARKER_CODES = frozenset((_M, _T, _X))
# An assistant message with the results (and labels) after it up to its last result; a run
# of results without their call; any other entry alone.
_GROUP_RE = re.compile(rb"A(?:[RT]*R)?|R+|.", re.S)
_SPECIAL_RE = re.compile(rb"[csX]")
_NONZERO_RE = re.compile(rb"[^\x00]")
_RESULT_TABLE = bytes(1 if c == _R else 0 for c in range(256))
_NOT_ASSISTANT_RE = re.compile(rb"[^A]")

_BLOCK_OBJECTS = 4096  # block objects kept (what a block looks like is cheap to work out again)
# block kinds (codes in _bkind)
_KA, _KR, _KE, _KM = 0, 1, 2, 3
_KIND_NAMES = ("assistant", "results", "entry", "marker")
_ASSISTANT_TABLE = bytes(1 if k == _KA else 0 for k in range(256))
_KIND_TABLE = bytes(
    _KA if c == _A else _KR if c == _R else _KM if c in (_M, _T, _X) else _KE for c in range(256)
)


def _code_of(t: Any, r: Any) -> int:
    if t == "message":
        return {"assistant": _A, "toolResult": _R, "custom": _C, "system": _SY, "bashExecution": _BX}.get(r, _E)
    if t in _TRANSPARENT:
        return _T
    if t == "context_edit":
        return _X
    if t in _MARKERS:
        return _M
    if t == "custom_message":
        return _C
    if t == "compaction":
        return _CP
    return _E


@dataclass(slots=True)
class _Block:
    kind: str  # "assistant" | "results" | "entry" | "marker"
    entries: tuple[int, ...]
    key: Hashable = None
    in_context: bool = True
    first_out: bool = False  # the first block of a run outside the model's context
    mark: str | None = None  # "edited" | "omitted" (by a context edit)
    label: str | None = None
    prev_ts: Any = None  # the timestamp of the block above (the date is shown when it changes)
    gen: int = -1  # the pane's decoration generation this was made in


class _Blocks(Sequence):
    """The pane's blocks as a sequence; a block's object is made when it is asked for."""

    __slots__ = ("_pane",)

    def __init__(self, pane: "MessagePane"):
        self._pane = pane

    def __len__(self) -> int:
        return len(self._pane._bstart)

    def __bool__(self) -> bool:
        return len(self._pane._bstart) > 0

    def __getitem__(self, b: int) -> _Block:  # type: ignore[override]
        n = len(self._pane._bstart)
        if b < 0:
            b += n
        if not 0 <= b < n:
            raise IndexError(b)
        return self._pane._block(b)

    def __iter__(self) -> Iterator[_Block]:
        for b in range(len(self._pane._bstart)):
            yield self._pane._block(b)


class MessagePane(BlockScroller):
    """The branch through the selected entry, drawn lazily with the line API."""

    EntryFocused = EntryFocused
    OpenSessionFile = OpenSessionFile

    DEFAULT_CSS = """
    MessagePane {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None):
        super().__init__(name=name, id=id, classes=classes)
        self._session: Session | None = None
        self._last_focus: int | None = None
        self._focus_timer: Timer | None = None
        self._artifact_cache: dict[str, str | None] = {}
        self._other_timer: Timer | None = None
        self._built_hidden = False  # show_hidden as the blocks were built
        self._reset_session_facts()
        self._reset_branch()
        self._blocks = _Blocks(self)

    # ------------------------------------------------------------------ public API
    @property
    def session(self) -> Session | None:
        return self._session

    @property
    def branch(self) -> list[int]:
        return self._branch

    def show_branch(self, session: Session, branch: list[int], selected: int) -> None:
        """Show ``branch`` (entry indices root..leaf) with ``selected``'s block at the top.

        Showing the same branch again (or the same branch grown at its end, after a
        refresh) keeps the view where it is when ``selected`` is already in view, and
        stays at the bottom when the view was at the bottom. Only the blocks after the
        part shared with the branch shown before are rebuilt.
        """
        self._show(session, None, list(branch), selected)

    def show_leaf(self, session: Session, leaf: int, selected: int) -> None:
        """``show_branch(session, session.path_to(leaf), selected)``, without walking the
        whole path: only the entries up to the branch shown now are walked."""
        self._show(session, leaf, None, selected)

    def scroll_to_entry(self, i: int) -> None:
        """Put entry ``i``'s block at the top; a tool result is drawn in its call's block,
        so for one the view goes to that block with the call's line at the top."""
        b = self.block_of(i)
        if b is None:
            return
        if self._width <= 0:
            self._pending_scroll = ("entry", i)
            return
        if i == self._last_focus and self._covers_top(b):
            return  # already there (e.g. the app echoing our own EntryFocused back)
        r = self._rendered(b)
        self._measure(b)
        self._update_virtual_size()
        off = 0
        if i != self._branch[self._bstart[b]]:
            for line, entry in r.sections:
                if entry == i:
                    off = line
                    break
        self._scroll_to_y(self._heights.top(b) + off)
        self._settle()
        # What is at the top now (the end of the branch may not reach the top) is not news.
        self._last_focus = i if self._covers_top(b) else self.entry_at_top()
        self.refresh()

    def entry_at_top(self) -> int | None:
        """The entry shown on the pane's first line (a tool result when inside its output)."""
        hit = self._line_at(round(self.scroll_y))
        if hit is None:
            return None
        b, line = hit
        entry = self._branch[self._bstart[b]]
        for ln, e in self._rendered(b).sections:
            if ln <= line:
                entry = e
            else:
                break
        return entry

    def block_of(self, i: int) -> int | None:
        """The block that shows entry ``i`` (None when it is not on the branch)."""
        b = self._override.get(i)
        if b is not None:
            return b
        k = self._pos.get(i)
        if k is None:
            return None
        b = bisect_right(self._bstart, k) - 1
        return b if b >= 0 else None

    # ------------------------------------------------------------------ showing a branch
    def _show(self, session: Session, leaf: int | None, branch: list[int] | None, selected: int) -> None:
        if self.show_hidden != self._built_hidden:  # (a first read may run the watcher)
            self._built_hidden = self.show_hidden
            self._reset_branch()
        same_session = session is self._session
        old = self._branch
        if not same_session:
            self._generation += 1
            self._rcache.clear()
            self._hcache.clear()
            self._deps.clear()
            self._inverted.clear()
            self._artifact_cache.clear()
            self._session = session
            self._reset_session_facts()
            self._reset_branch()
            old = self._branch
        tree_changed = session.parent is not self._tree
        if tree_changed:
            # The session was read further (or again): codes and facts read from entries
            # may have changed for its last entries, and so may the paths.
            self._reset_session_facts()
            self._tree = session.parent
        # the new branch, and how long a prefix it shares with the branch shown
        if branch is None:
            if old and not tree_changed:
                branch, p = self._path_from(session, leaf)
            else:
                branch = session.path_to(leaf) if leaf >= 0 else []
                p = self._common_prefix(branch, old)
        else:
            p = self._common_prefix(branch, old)
        if tree_changed:
            codes = self._codes_of(session, branch, 0)
            lengths = session.lengths
            if p and (codes[:p] != self._codes[:p] or array("q", map(lengths.__getitem__, branch[:p])) != self._blen[:p]):
                p = 0
        else:
            codes = self._codes_of(session, branch, p)
        same = same_session and bool(old) and p == len(old)
        keep = None
        if same and self._width > 0 and self._bstart:
            anchor = self._top_anchor()
            was_bottom = round(self.scroll_y) >= self.max_scroll_y and self.max_scroll_y > 0
            sel_b = self.block_of(selected)
            view_top = round(self.scroll_y)
            view_bottom = view_top + self.scrollable_content_region.height
            sel_visible = sel_b is not None and (
                self._heights.top(sel_b) < view_bottom and self._heights.top(sel_b) + self._heights[sel_b] > view_top
            )
            if anchor is not None and sel_visible:
                keep = (self._branch[self._bstart[anchor[0]]], anchor[1], was_bottom and len(branch) > len(old))
        query = self._query_text if same else ""
        changed = p < len(old) or len(branch) > len(old)
        if changed:
            self._update_branch(branch, p, codes)
        gen = self._dgen
        self._update_decorations()
        if not changed and gen == self._dgen and same:
            # The very same blocks: nothing to lay out again.
            if self._width <= 0:
                self._pending_scroll = ("entry", selected)
            elif keep is None:
                self.scroll_to_entry(selected)
            return
        self._clear_search_state()
        if not same:
            self._query = None
            self._query_text = ""
        if self._width <= 0:
            self._placeholder_layout()
            self._pending_scroll = ("entry", selected)
            return
        if keep is not None:
            entry, off, to_bottom = keep
            b = self.block_of(entry)
            self._relayout((b, off) if b is not None else None)
            if to_bottom:
                self.scroll_end_now()
        else:
            self._relayout(settle=False)
            self.scroll_to_entry(selected)
            self._settle()
        if query:
            self.search(query)

    def _placeholder_layout(self) -> None:
        """Laid out when the pane gets its width; until then every block is a line."""
        n = len(self._bstart)
        self._heights.reset(array("q", [1]) * n)
        self._measured = bytearray(n)
        self._known = set()

    def _path_from(self, session: Session, leaf: int) -> tuple[list[int], int]:
        """The path to ``leaf`` from the branch shown: walk up to the first entry on it."""
        pos = self._pos
        parent = session.parent
        walk = []
        x = leaf
        while x >= 0:
            k = pos.get(x)
            if k is not None:
                p = k + 1
                walk.reverse()
                return self._branch[:p] + walk, p
            walk.append(x)
            x = parent[x]
        walk.reverse()
        return walk, 0

    @staticmethod
    def _common_prefix(branch: list[int], old: list[int]) -> int:
        if not old or not branch:
            return 0
        if branch[0] != old[0]:
            return 0
        n = min(len(branch), len(old))
        if branch[n - 1] == old[n - 1] and branch[:n] == old[:n]:
            return n
        lo, hi = 1, n - 1  # branch[:lo] == old[:lo]; they differ at hi at the latest
        while lo < hi:  # paths share a prefix and then differ everywhere
            mid = (lo + hi + 1) // 2
            if branch[mid - 1] == old[mid - 1]:
                lo = mid
            else:
                hi = mid - 1
        return lo if branch[:lo] == old[:lo] else 0

    # ------------------------------------------------------------------ blocks
    def _reset_session_facts(self) -> None:
        self._tree: Any = None  # the session's parent array the facts below were read with
        self._scodes = bytearray()  # a code byte per entry of the session
        self._hidden_cache: dict[int, bool] = {}
        self._edit_cache: dict[int, tuple[Any, str]] = {}

    def _reset_branch(self) -> None:
        self._branch: list[int] = []
        self._pos: dict[int, int] = {}  # entry -> position on the branch
        self._codes = bytearray()  # code byte per position
        self._gstart = array("q")  # groups: the position each starts at
        self._gblock = array("q")  # ... the first block it made (a hidden entry makes none)
        self._bstart = array("q")  # blocks: the position of the first entry
        self._bend = array("q")  # ... the position after the last one (assistant and results)
        self._bkind = bytearray()
        self._override: dict[int, int] = {}  # entry -> block where bisecting _bstart is wrong
        self._bobj: dict[int, _Block] = {}
        self._special: dict[int, list[int]] = {_CP: [], _SY: [], _X: []}  # positions by code
        self._blen = array("q")  # byte length of the entry at each position
        self._est_w = 0  # the width the estimates are for
        self._est: dict[bool, array] = {}  # full tool output -> estimated height of every block
        self._first_out: set[int] = set()
        self._spec: tuple = ()
        self._edits: dict[str, str] = {}
        self._labels: dict[str, str] = {}
        self._deco_state: Any = None
        self._dgen = 0
        self._measured = bytearray()
        self._known = set()
        self._heights.reset(array("q"))

    def _codes_of(self, s: Session, branch: list[int], p: int) -> bytearray:
        """The code bytes of ``branch`` (those before ``p`` are the branch shown's)."""
        sc = self._scodes
        n0, n = len(sc), len(s.types)
        if n0 < n:
            # by role (nearly every entry is a message), then the other types over it
            types, roles = s.types[n0:], s.roles[n0:]
            by_type = {t: 0 if t == "message" else _code_of(t, None) for t in set(types)}
            by_role = {r: _code_of("message", r) for r in set(roles)}
            codes = bytearray(map(by_role.__getitem__, roles))
            tcodes = bytes(map(by_type.__getitem__, types))
            for m in _NONZERO_RE.finditer(tcodes):
                codes[m.start()] = tcodes[m.start()]
            sc.extend(codes)
        codes = bytearray(self._codes[:p])
        codes.extend(map(sc.__getitem__, branch[p:]))
        return codes

    def _is_hidden(self, i: int) -> bool:
        got = self._hidden_cache.get(i)
        if got is None:
            s = self._session
            try:
                e = s.entry(i)
                if s.types[i] == "custom_message":
                    display = e.get("display")
                else:
                    m = e.get("message")
                    display = m.get("display") if isinstance(m, dict) else None
            except Exception:
                display = None
            got = self._hidden_cache[i] = display is False
        return got

    def _update_branch(self, branch: list[int], p: int, codes: bytearray) -> None:
        """Show ``branch``, which shares its first ``p`` entries with the branch shown."""
        old = self._branch
        pos = self._pos
        for x in old[p:]:
            pos.pop(x, None)
        pos.update(zip(branch[p:], range(p, len(branch))))
        old_codes = self._codes
        # The first group to build again: those that start at or after p, and those before
        # whose grouping looked at p or later (an assistant's run of results, and labels
        # after it), or that hid entries for a block made later.
        gstart, gblock = self._gstart, self._gblock
        ng, nb = len(gstart), len(self._bstart)
        G = bisect_left(gstart, p)
        g = G - 1
        while g >= 0:
            s0 = gstart[g]
            nxt = gblock[g + 1] if g + 1 < ng else nb
            if gblock[g] == nxt:  # a hidden entry, shown with the next block
                G = g
            else:
                c = old_codes[s0]
                if c == _A or c == _R:
                    ex = gstart[g + 1] if g + 1 < ng else len(old)
                    if c == _A:
                        while ex < p and old_codes[ex] == _T:
                            ex += 1
                    if ex < p:
                        break
                    G = g
                elif c != _T:
                    break
            g -= 1
        P = gstart[G] if G < ng else min(p, len(old))
        B = gblock[G] if G < ng else nb
        del gstart[G:], gblock[G:]
        del self._bstart[B:], self._bend[B:], self._bkind[B:]
        del self._blen[p:]
        self._blen.extend(map(self._session.lengths.__getitem__, branch[p:]))
        if self._override:
            self._override = {e: b for e, b in self._override.items() if b < B}
        if self._bobj:
            self._bobj = {b: o for b, o in self._bobj.items() if b < B}
        self._known = {b for b in self._known if b < B}
        for c, lst in self._special.items():
            del lst[bisect_left(lst, p):]
        for m in _SPECIAL_RE.finditer(codes, p):
            self._special[codes[m.start()]].append(m.start())
        self._branch = branch
        self._codes = codes
        self._build_from(P)
        for full, est in self._est.items():
            del est[B:]
            est.extend(self._estimate_blocks(B, len(self._bstart), self._est_w, full))

    def _build_from(self, P: int) -> None:
        """Group the branch from position ``P`` (a group's start) on into blocks.

        The grouping is one regular expression over the code bytes; nearly every group is
        one block, so the block arrays are extended with whole slices. Only groups that
        hide an entry (a custom message with ``display: false``) or hold labels between an
        assistant's results are handled one by one."""
        branch, codes = self._branch, self._codes
        groups = _GROUP_RE.findall(codes, P)
        if not groups:
            return
        edges = array("q", accumulate(map(len, groups), initial=P))
        starts = edges[:-1]
        ends = edges[1:]
        first = bytes(map(codes.__getitem__, starts))
        kinds = first.translate(_KIND_TABLE)
        ng = len(groups)
        special: dict[int, bool] = {}  # group -> hidden (True) or labels among results (False)
        k = codes.find(b"T", P)
        while k >= 0:
            g = bisect_right(starts, k) - 1
            if starts[g] != k:
                special[g] = False
            k = codes.find(b"T", k + 1)
        if not self._built_hidden:
            g = first.find(b"C")
            while g >= 0:
                if self._is_hidden(branch[starts[g]]):
                    special[g] = True
                g = first.find(b"C", g + 1)
        bstart, bend, bkind, gblock = self._bstart, self._bend, self._bkind, self._gblock
        self._gstart.extend(starts)
        nb = len(bstart)
        if not special:
            bstart.extend(starts)
            bend.extend(ends)
            bkind.extend(kinds)
            gblock.extend(range(nb, nb + ng))
            return
        override = self._override
        hidden: list[int] = []
        prev = 0
        for g in sorted(special) + [ng]:
            if g > prev:  # ordinary groups: one block each
                bstart.extend(starts[prev:g])
                bend.extend(ends[prev:g])
                bkind.extend(kinds[prev:g])
                gblock.extend(range(nb, nb + g - prev))
                for h in hidden:
                    override[h] = nb
                hidden.clear()
                nb += g - prev
            if g == ng:
                break
            prev = g + 1
            s, e = starts[g], ends[g]
            gblock.append(nb)
            if special[g]:
                hidden.append(branch[s])
                continue
            for h in hidden:
                override[h] = nb
            hidden.clear()
            a = nb
            bstart.append(s)
            bend.append(e)
            bkind.append(_KA)
            nb += 1
            for k in range(s + 1, e):  # each label is a marker block after the assistant's
                if codes[k] == _T:
                    bstart.append(k)
                    bend.append(k + 1)
                    bkind.append(_KM)
                    nb += 1
                else:
                    override[branch[k]] = a
        if hidden and nb:
            for h in hidden:
                override[h] = nb - 1

    def _rebuild(self) -> None:
        """Build every block again (show_hidden changed)."""
        branch = self._branch
        codes = self._codes
        self._reset_branch()
        self._update_branch(branch, 0, codes)

    # ------------------------------------------------------------------ decorations
    def _update_decorations(self) -> None:
        """Work out the facts of the branch that blocks are decorated from; when they
        changed, every block's look (and so its key) is worked out again when asked for."""
        s = self._session
        branch = self._branch
        comps = self._special[_CP]
        comp = comps[-1] if comps else -1
        fk = None
        if comp >= 0:
            try:
                first_kept = s.entry(branch[comp]).get("firstKeptEntryId")
                x = s.index_of.get(first_kept) if isinstance(first_kept, str) else None
                k = self._pos.get(x) if x is not None else None
                fk = k if k is not None and k < comp else None
            except Exception:
                comp = -1  # as if everything were in context
        edits: dict[str, str] = {}
        for k in self._special[_X]:
            target, mark = self._edit_of(branch[k])
            if isinstance(target, str):
                edits[target] = mark
        labels = s.label_by_target if s is not None else {}
        state = (comp, fk, self._built_hidden)
        if state != self._deco_state or edits != self._edits or labels != self._labels:
            self._deco_state = state
            self._spec = (comp, fk)
            self._edits = edits
            self._labels = dict(labels)
            self._dgen += 1
            self._bobj = {}
        self._first_out = self._first_out_blocks()

    def _edit_of(self, i: int) -> tuple[Any, str]:
        got = self._edit_cache.get(i)
        if got is None:
            try:
                e = self._session.entry(i)
                got = (e.get("targetId"), "omitted" if e.get("replacement") is None else "edited")
            except Exception:
                got = (None, "")
            self._edit_cache[i] = got
        return got

    def _in_context(self, k: int) -> bool:
        """Whether the entry at position ``k`` reaches the model at the branch's leaf."""
        comp, fk = self._spec
        return comp < 0 or k >= comp or (fk is not None and k >= fk and self._codes[k] != _SY)

    def _first_out_blocks(self) -> set[int]:
        """The first block of each run of blocks outside the model's context (markers are
        neither in nor out of a run)."""
        comp, fk = self._spec
        out: set[int] = set()
        if comp < 0:
            return out
        bstart, bkind = self._bstart, self._bkind
        nb = len(bstart)
        boundary = fk if fk is not None else comp
        b = 0
        while b < nb and bstart[b] < boundary:
            if bkind[b] != _KM:
                out.add(b)
                break
            b += 1
        if fk is not None:
            for k in self._special[_SY]:
                if k < fk:
                    continue
                if k >= comp:
                    break
                b = bisect_left(bstart, k)
                if b >= nb or bstart[b] != k:
                    continue
                q = b - 1
                while q >= 0 and bkind[q] == _KM:
                    q -= 1
                if q < 0 or self._in_context(bstart[q]):
                    out.add(b)
        return out

    def _block(self, b: int) -> _Block:
        blk = self._bobj.get(b)
        if blk is not None and blk.gen == self._dgen:
            return blk
        s = self._session
        branch, codes = self._branch, self._codes
        st = self._bstart[b]
        kind = self._bkind[b]
        i = branch[st]
        if kind == _KA or kind == _KR:
            e = self._bend[b]
            if kind == _KA and e - st > 2 and codes.find(b"T", st + 1, e) >= 0:
                entries = tuple(branch[k] for k in range(st, e) if codes[k] != _T)
            else:
                entries = tuple(branch[st:e])
        else:
            entries = (i,)
        in_context = kind == _KM or self._in_context(st)
        first_out = b in self._first_out
        ids = s.ids
        mark = self._edits.get(ids[i])
        label = s.label_of(i) if ids[i] in s.label_by_target else None
        prev_ts = s.timestamps[branch[self._bstart[b - 1]]] if b > 0 else None
        lengths = s.lengths
        n = lengths[i] if len(entries) == 1 else sum(lengths[x] for x in entries)
        name = _KIND_NAMES[kind]
        key = (name, entries, n, in_context, first_out, mark, label, prev_ts, self._built_hidden)
        blk = _Block(name, entries, key, in_context, first_out, mark, label, prev_ts, self._dgen)
        if len(self._bobj) >= _BLOCK_OBJECTS:  # (a search makes one per block: made again when asked)
            self._bobj = {}
        self._bobj[b] = blk
        return blk

    def _block_key(self, b: int) -> Hashable:
        return self._block(b).key

    def _block_entry(self, b: int, k: int = 0) -> int | None:
        """The entry of block ``b`` that holds its ``k``-th search hit (a tool result when
        the hit is in a call's section)."""
        if not 0 <= b < len(self._bstart):
            return None
        entry = self._branch[self._bstart[b]]
        r = self._rendered(b)
        matches = self._block_matches(b, r)
        if matches and r.sections:
            line = matches[min(k, len(matches) - 1)][0]
            for ln, e in r.sections:
                if ln <= line:
                    entry = e
                else:
                    break
        return entry

    # ------------------------------------------------------------------ heights
    def _estimate_blocks(self, b0: int, b1: int, width: int, full: bool) -> array:
        """Estimated heights of blocks ``b0``..``b1`` at ``width``, from the skeleton only,
        in bulk (C-speed maps and a few list comprehensions; the note above the first
        block out of the context is added in ``_base_heights``).

        A marker is a line; an entry 2 lines of chrome and its text at half the width
        (more or less by type); an assistant message its text, and a header and a few
        lines (all of them, when ``full``) for each of its tool results."""
        if b0 >= b1:
            return array("q")
        s = self._session
        branch, codes, blen = self._branch, self._codes, self._blen
        starts = self._bstart[b0:b1]
        ends = self._bend[b0:b1]
        kinds = self._bkind[b0:b1]
        p0 = starts[0]
        p1 = self._bstart[b1] if b1 < len(self._bstart) else len(branch)
        w = max(20, width - 4)
        w2 = w * 2
        cap = 400 if full else CUT_LINES + 1
        # What each tool result adds (nothing elsewhere), summed over each block's span:
        # an assistant message with its results, a run of results, or one entry.
        add = [(1 + (x if x < cap else cap)) if r else 0
               for x, r in zip(map(floordiv, blen[p0:p1], repeat(w)), codes[p0:p1].translate(_RESULT_TABLE))]
        pre = list(accumulate(add, initial=0))
        if p0:
            pre = [0] * p0 + pre  # indexed by position
        sums = [pre[e] - pre[st] for st, e in zip(starts, ends)]
        # The block's own lines, as if every block were an assistant message ...
        flags = bytes(map(s.flags.__getitem__, map(branch.__getitem__, starts)))
        head = [(3 + (x if x < 40 else 40)) if f & F_ASSISTANT_TEXT else 2
                for x, f in zip(map(floordiv, map(blen.__getitem__, starts), repeat(w2)), flags)]
        # ... and then the other blocks (one in seven or so)
        cut = CUT_LINES + 1
        first = bytes(map(codes.__getitem__, starts))
        for m in _NOT_ASSISTANT_RE.finditer(first):
            j = m.start()
            c = first[j]
            n = blen[starts[j]]
            if c == _R:
                h = 2
            elif c in _MARKER_CODES:
                h = 1
            elif c == _SY:
                h = 5
            elif c == _CP:
                x = n // w
                h = 4 + (x if x < 30 else 30)
            elif c == _BX:
                x = n // w
                h = 4 + (x if x < cut else cut)
            else:
                x = n // w2
                h = 2 + (1 if x < 1 else x if x < 40 else 40)
            head[j] = h
        # an assistant message without results has a line more
        return array("q", [h + (r or a) for h, r, a in zip(head, sums, kinds.translate(_ASSISTANT_TABLE))])

    def _ensure_estimates(self, width: int, full: bool) -> array:
        if self._est_w != width:
            self._est = {}
            self._est_w = width
        est = self._est.get(full)
        if est is None:
            other = self._est.get(not full)
            if other is not None:
                est = self._toggled_estimates(other, width, full)
            else:
                est = self._estimate_blocks(0, len(self._bstart), width, full)
            self._est[full] = est
        return est

    def _toggled_estimates(self, other: array, width: int, full: bool) -> array:
        """The estimates for the other state of the tool output toggle: they differ only
        in the blocks with a tool result of more lines than a cut one shows."""
        est = array("q", other)
        w = max(20, width - 4)
        cut = CUT_LINES + 1
        codes, blen, branch = self._codes, self._blen, self._branch
        bstart, override = self._bstart, self._override
        least = (cut + 1) * w
        results = list(compress(count(), codes.translate(_RESULT_TABLE)))
        long = [k for k, n in zip(results, map(blen.__getitem__, results)) if n >= least]
        if not long:
            return est
        sign = 1 if full else -1
        deltas = [sign * ((x if x < 400 else 400) - cut) for x in [blen[k] // w for k in long]]
        # the block of each position: how many blocks start at or before it
        starts = bytearray(len(codes))
        for _ in map(starts.__setitem__, bstart, repeat(1)):
            pass
        block_at = list(accumulate(starts))
        blocks = [block_at[k] - 1 for k in long]
        if override:  # results after a label among an assistant's results
            for j, k in enumerate(long):
                b = override.get(branch[k])
                if b is not None:
                    blocks[j] = b
        for b, d in zip(blocks, deltas):
            est[b] += d
        return est

    def _base_heights(self, width: int) -> array:
        full = self.full_tool_output
        heights = array("q", self._ensure_estimates(width, full))
        for b in self._first_out:
            heights[b] += 1
        if (not full) not in self._est and self.is_mounted:
            # the other state of the tool output toggle, worked out while the user reads
            if self._other_timer is not None:
                self._other_timer.stop()
            self._other_timer = self.set_timer(1.0, self._other_estimates)
        return heights

    def _other_estimates(self) -> None:
        self._other_timer = None
        if self._est_w and self._bstart:
            self._ensure_estimates(self._est_w, not self.full_tool_output)

    def _estimate(self, b: int, width: int) -> int:
        full = self.full_tool_output
        est = self._est.get(full) if width == self._est_w else None
        h = est[b] if est is not None and b < len(est) else self._estimate_blocks(b, b + 1, width, full)[0]
        return h + (1 if b in self._first_out else 0)

    # ------------------------------------------------------------------ focus reporting
    def _covers_top(self, b: int) -> bool:
        y = round(self.scroll_y)
        top = self._heights.top(b)
        return top <= y < top + self._heights[b]

    def _scrolled(self) -> None:
        if not self._bstart or not self.is_mounted:
            return
        if self._focus_timer is not None:
            self._focus_timer.stop()
        self._focus_timer = self.set_timer(0.15, self._report_focus)

    def _report_focus(self) -> None:
        self._focus_timer = None
        entry = self.entry_at_top()
        if entry is not None and entry != self._last_focus:
            self._last_focus = entry
            self.post_message(EntryFocused(entry))

    def _apply_pending(self, pending: tuple) -> None:
        if pending[0] == "entry":
            self.scroll_to_entry(pending[1])

    # ------------------------------------------------------------------ toggles
    def watch_show_hidden(self, value: bool) -> None:
        if self._session is None or value == self._built_hidden:
            return
        self._built_hidden = value
        anchor = self._top_anchor()
        entry = (self._branch[self._bstart[anchor[0]]], anchor[1]) if anchor else None
        query = self._query_text
        self._rebuild()
        self._update_decorations()
        self._clear_search_state()
        b = self.block_of(entry[0]) if entry else None
        if self._width <= 0:
            self._placeholder_layout()
        self._relayout((b, entry[1]) if b is not None else None)
        if query:
            self.search(query)

    # ------------------------------------------------------------------ drawing
    def _resolve_artifact(self, path: str) -> str | None:
        if path in self._artifact_cache:
            return self._artifact_cache[path]
        found = None
        s = self._session
        cands = []
        p = os.path.expanduser(path)
        folder = os.path.dirname(s.path) if s is not None else ""
        if os.path.isabs(p):
            cands.append(p)
        elif folder:
            cands.append(os.path.join(folder, p))
        if folder:
            cands.append(os.path.join(folder, "subagent-artifacts", os.path.basename(p)))
        for c in cands:
            try:
                if os.path.isfile(c):
                    found = c
                    break
            except OSError:
                pass
        self._artifact_cache[path] = found
        return found

    def _do_action(self, b: int, action: tuple) -> None:
        if action[0] == "open":
            self.post_message(OpenSessionFile(action[1]))
        else:
            super()._do_action(b, action)

    def _block_item(self, b: int) -> Any:
        return (self._session, self._block(b))

    def _draw_item(self, item: Any, out: Out) -> None:
        session, blk = item
        _Drawer(session).draw(blk, out)

    def _block_cost(self, b: int) -> int:
        """Bytes of text drawn as Markdown (what makes a block slow to draw)."""
        kind = self._bkind[b]
        if kind == _KM:
            return 0
        s = self._session
        entries = self._block(b).entries
        # Tool output is cheap while cut to a few lines; in full it counts.
        out = sum(s.lengths[x] for x in entries[1:]) // 2 if self.full_tool_output else 0
        if kind == _KR:
            return out
        i = entries[0]
        if s.types[i] == "message" and s.roles[i] in ("toolResult", "bashExecution", "system"):
            return s.lengths[i] // 2 if self.full_tool_output else 0
        return s.lengths[i] + out


class _Drawer:
    """Draws the blocks of one session (safe to run off the main thread: it holds the
    session and the block, never the pane's changing state)."""

    def __init__(self, session: Session):
        self.s = session

    def _call_for(self, entry: int | None, msg: dict) -> dict | None:
        if entry is None or self.s is None:
            return None
        found = self.s.find_tool_call(entry)
        return found[1] if found is not None else None

    def _message_of(self, i: int) -> dict:
        e = self.s.entry(i)
        m = e.get("message")
        if "pituiError" in e or not isinstance(m, dict):
            return {
                "role": "toolResult",
                "toolCallId": None,
                "isError": True,
                "content": [],
                "pituiError": str(e.get("pituiError") or f"line {self.s.linenos[i]} is not a message"),
            }
        return m

    def draw(self, blk: _Block, out: Out) -> None:
        s = self.s
        p = out.p
        i = blk.entries[0]
        e = s.entry(i)
        if out.ctx.text_mode:  # only the searchable text: no headers, gutters or times
            if blk.kind == "marker":
                self._draw_marker(out, i, e, ())
            else:
                msg = e.get("message") if isinstance(e.get("message"), dict) else None
                self._draw_entry(out, blk, i, e, msg, e.get("type"), "", "", [])
            return
        when = s.timestamps[i]
        time = fmt_time(when, blk.prev_ts is None or date_of(when) != date_of(blk.prev_ts))
        eid = s.ids[i]
        right = [(time, p.muted), (eid, p.faint)]
        if blk.kind == "marker":
            out.push("  ", Style())
            try:
                self._draw_marker(out, i, e, right)
            finally:
                out.pop()
            return
        tags = []
        if blk.label:
            tags.append(("⚑ " + sanitize(blk.label), p.label))
        if blk.mark == "omitted":
            tags.append(("omitted from context", p.warning + Style(italic=True)))
        elif blk.mark == "edited":
            tags.append(("edited in context", p.warning + Style(italic=True)))
        if not blk.in_context:
            tags.append(("outside context", p.muted + Style(italic=True)))
        if blk.first_out:
            note = Text("┄┄ outside the model's context after compaction ┄┄", p.muted + Style(italic=True))
            out.line(note, chrome=True)
        t = e.get("type")
        msg = e.get("message") if isinstance(e.get("message"), dict) else None
        if "pituiError" in e:
            gutter = p.warning
        elif blk.kind in ("assistant",):
            gutter = p.assistant
        elif blk.kind == "results":
            gutter = p.tool
        elif msg is not None:
            gutter = {"user": p.user, "system": p.system, "custom": p.custom, "bashExecution": p.tool}.get(
                msg.get("role"), p.muted)
        elif t == "custom_message":
            gutter = p.custom
        elif t in ("compaction", "branch_summary"):
            gutter = p.summary
        else:
            gutter = p.muted
        gutter = Style(color=gutter.color)
        if not blk.in_context:
            out.push("┆ ", p.faint)
        else:
            out.push("▎ ", gutter)
        try:
            self._draw_entry(out, blk, i, e, msg, t, time, eid, tags)
        finally:
            out.pop()
        out.blank()

    def _draw_entry(self, out: Out, blk: _Block, i: int, e: dict, msg: dict | None, t: Any, time: str,
                    eid: str, tags: list) -> None:
        s = self.s
        p = out.p
        right = [(time, p.muted), (eid, p.faint)]
        key = f"e{i}"
        if "pituiError" in e:
            render_header(out, "⚠ damaged entry", p.warning + Style(bold=True), [(f"line {s.linenos[i]}", p.muted)],
                          right, tags)
            out.wrap(Text(str(e.get("pituiError")), p.warning))
            out.wrap(Text("Pi skips this line; it is shown here so nothing goes missing.", p.muted), chrome=True)
            return
        if blk.kind == "assistant":
            m = msg or {}
            message_header(out, m, time=time, entry_id=eid, tags=tags)
            results = [(x, self._message_of(x)) for x in blk.entries[1:]]
            render_assistant(out, m, results, key, 0, self._call_for)
            return
        if blk.kind == "results":
            render_header(out, "tool results", p.tool + Style(bold=True),
                          [("(their call is not right above)", p.muted)], right, tags)
            results = [(x, self._message_of(x)) for x in blk.entries]
            render_tool_results(out, results, key, self._call_for)
            return
        if t == "message":
            if msg is None:
                render_header(out, "message", p.muted, [], right, tags)
                render_json_body(out, e.get("message"), key)
                return
            role = msg.get("role")
            if role == "bashExecution":
                render_header(out, "! bash", p.tool + Style(bold=True), [("run by the user", p.muted)], right,
                              tags + ([("excluded from context", p.muted + Style(italic=True))]
                                      if msg.get("excludeFromContext") else []))
                render_bash_execution(out, msg, key)
                return
            if role == "custom":
                self._custom_header(out, msg.get("customType"), msg.get("display"), right, tags)
                render_content(out, msg.get("content"))
                return
            message_header(out, msg, time=time, entry_id=eid, tags=tags)
            render_message(out, msg, key, (), 0, self._call_for)
            return
        if t == "custom_message":
            self._custom_header(out, e.get("customType"), e.get("display"), right, tags)
            render_content(out, e.get("content"))
            return
        if t == "compaction":
            render_compaction(out, e.get("summary"), e.get("tokensBefore"), e.get("firstKeptEntryId"), e.get("id"),
                              e.get("details"), e.get("systemMessage"), e.get("usage"), bool(e.get("fromHook")),
                              key=key, right=right)
            if tags:
                render_header(out, "", p.muted, [], [], tags)
            return
        if t == "branch_summary":
            render_header(out, "branch summary", p.summary + Style(bold=True), [], right, tags)
            render_branch_summary(out, e.get("summary"), e.get("fromId"), e.get("details"), e.get("usage"))
            return
        if t == "custom":
            render_header(out, "custom", p.custom + Style(bold=True),
                          [(str(e.get("customType") or "?"), p.custom)], right, tags)
            render_custom_entry(out, e.get("data"), key)
            return
        render_header(out, str(t), p.muted + Style(bold=True), [], right, tags)
        render_json_body(out, {k: v for k, v in e.items() if k not in ("type", "id", "parentId", "timestamp")}, key)

    def _custom_header(self, out: Out, ctype: Any, display: Any, right, tags) -> None:
        p = out.p
        tags = list(tags)
        if display is False:
            tags.insert(0, ("hidden (display: false)", p.muted + Style(italic=True)))
        render_header(out, "custom message", p.custom + Style(bold=True), [(str(ctype or "?"), p.custom)], right, tags)

    def _draw_marker(self, out: Out, i: int, e: dict, right) -> None:
        p = out.p
        s = self.s
        t = e.get("type")
        if "pituiError" in e:
            render_marker(out, "⚠", f"damaged line {s.linenos[i]}: {e.get('pituiError')}", p.warning, right)
        elif t == "model_change":
            render_marker(out, "⇄", f"model → {e.get('provider')}/{e.get('modelId')}", p.muted, right)
        elif t == "thinking_level_change":
            render_marker(out, "◐", f"thinking level → {e.get('thinkingLevel')}", p.muted, right)
        elif t == "usage":
            u = e.get("usage") if isinstance(e.get("usage"), dict) else {}
            bits = [f"usage · {e.get('kind') or '?'}", f"{e.get('provider')}/{e.get('model')}",
                    f"{fmt_tokens(u.get('totalTokens', 0))} tokens"]
            cost = fmt_cost(u.get("cost"))
            if cost:
                bits.append(cost)
            render_marker(out, "Σ", " · ".join(bits), p.muted, right)
        elif t == "label":
            label = e.get("label")
            target = e.get("targetId")
            what = self._target_summary(target)
            if label:
                render_marker(out, "⚑", f"label “{label}” on {what}", p.warning, right)
            else:
                render_marker(out, "⚑", f"label cleared on {what}", p.muted, right)
        elif t == "session_info":
            name = e.get("name")
            if isinstance(name, str) and name.strip():
                render_marker(out, "✎", f"session name: {name}", p.muted, right)
            else:
                render_marker(out, "✎", "session name cleared", p.muted, right)
        elif t == "context_edit":
            target = e.get("targetId")
            what = self._target_summary(target)
            rep = e.get("replacement")
            if rep is None:
                render_marker(out, "✂", f"context edit: {what} omitted from the model's context", p.warning, right)
            else:
                content = rep.get("content") if isinstance(rep, dict) else rep
                text = one_line(text_of(content) if not isinstance(content, str) else content, 80)
                render_marker(out, "✂", f"context edit: {what} replaced in context with “{text}”", p.warning, right)
        else:
            render_marker(out, "·", str(t), p.muted, right)

    def _target_summary(self, target: Any) -> str:
        s = self.s
        if not isinstance(target, str):
            return str(target)
        j = s.index_of.get(target)
        if j is None:
            return f"{target} (not in this file)"
        role = s.roles[j] or s.types[j]
        return f"{role} {target}"
