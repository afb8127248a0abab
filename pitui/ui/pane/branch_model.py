"""What the message pane shows of a branch, apart from drawing it: the blocks.

A :class:`BranchModel` holds one branch of a session as flat arrays of blocks (where each
starts and ends on the branch, its kind, its estimated height at a width) and the facts
its blocks are decorated from (the last compaction, context edits, labels). It is plain
Python: the pane (:class:`~pitui.ui.pane.message_pane.MessagePane`) is one, and a
session's first branch can be worked out in a thread of its own, while the session is
still being opened, and handed to the pane (``prepare_branch``, ``MessagePane.adopt_prepared``).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import accumulate, compress, count, repeat
from operator import floordiv
from typing import Any, Callable, Hashable

from ...core.read.arrays import BranchPositions, pick
from ...core.read.session import Session
from ...core.read.skeleton import F_ASSISTANT_TEXT
from .canvas import CUT_LINES

_MARKERS = frozenset({"model_change", "thinking_level_change", "usage", "label", "session_info", "context_edit",
                      "stream_event"})
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
_RESULT_TABLE = bytes(1 if code == _R else 0 for code in range(256))
_NOT_ASSISTANT_RE = re.compile(rb"[^A]")

_BLOCK_OBJECTS = 4096  # block objects kept (what a block looks like is cheap to work out again)
# block kinds (codes in _bkind)
_KA, _KR, _KE, _KM = 0, 1, 2, 3
_KIND_NAMES = ("assistant", "results", "entry", "marker")
_ASSISTANT_TABLE = bytes(1 if code == _KA else 0 for code in range(256))
_KIND_TABLE = bytes(
    _KA if code == _A else _KR if code == _R else _KM if code in (_M, _T, _X) else _KE for code in range(256)
)


def _code_of(entry_type: Any, role: Any) -> int:
    if entry_type == "message":
        return {"assistant": _A, "toolResult": _R, "custom": _C, "system": _SY, "bashExecution": _BX}.get(role, _E)
    if entry_type in _TRANSPARENT:
        return _T
    if entry_type == "context_edit":
        return _X
    if entry_type in _MARKERS:
        return _M
    if entry_type == "custom_message":
        return _C
    if entry_type == "compaction":
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


class BranchModel:
    """One branch of a session as blocks (see the module's docstring). The pane that shows
    it hears when its blocks change: :attr:`on_reset` (none left) and :attr:`on_dropped`
    (blocks from ``b`` on built again)."""

    #: A branch of more blocks than this may first be given rough estimates (see
    #: :meth:`ensure_estimates`): its last QUICK_TAIL blocks' own, every other block the
    #: mean of those, until the exact ones are asked for.
    QUICK_BLOCKS = 2_000
    QUICK_TAIL = 256

    def __init__(self) -> None:
        self.on_reset: Callable[[], None] | None = None
        self.on_dropped: Callable[[int], None] | None = None
        self.session: Session | None = None
        self.built_hidden = False  # show_hidden as the blocks were built
        self.reset_session_facts()
        self.reset_branch()

    # ------------------------------------------------------------------ the branch
    def path_from(self, session: Session, leaf: int) -> tuple[list[int], int]:
        """The path to ``leaf`` from the branch shown: walk up to the first entry on it."""
        pos = self.pos
        parent = session.parent
        walk = []
        entry = leaf
        while entry >= 0:
            position = pos.get(entry)
            if position is not None:
                shared = position + 1
                walk.reverse()
                return self.branch[:shared] + walk, shared
            walk.append(entry)
            entry = parent[entry]
        walk.reverse()
        return walk, 0

    @staticmethod
    def common_prefix(branch: list[int], old: list[int]) -> int:
        if not old or not branch:
            return 0
        if branch[0] != old[0]:
            return 0
        most = min(len(branch), len(old))
        if branch[most - 1] == old[most - 1] and branch[:most] == old[:most]:
            return most
        lo, hi = 1, most - 1  # branch[:lo] == old[:lo]; they differ at hi at the latest
        while lo < hi:  # paths share a prefix and then differ everywhere
            mid = (lo + hi + 1) // 2
            if branch[mid - 1] == old[mid - 1]:
                lo = mid
            else:
                hi = mid - 1
        return lo if branch[:lo] == old[:lo] else 0

    # ------------------------------------------------------------------ blocks
    def reset_session_facts(self) -> None:
        self.tree: Any = None  # the session's parent array the facts below were read with
        self._scodes = bytearray()  # a code byte per entry of the session
        self._hidden_cache: dict[int, bool] = {}
        self._edit_cache: dict[int, tuple[Any, str]] = {}

    def reset_branch(self) -> None:
        self.branch: list[int] = []
        self.pos = BranchPositions()  # entry -> position on the branch
        self.codes = bytearray()  # code byte per position
        self._gstart = array("q")  # groups: the position each starts at
        self._gblock = array("q")  # ... the first block it made (a hidden entry makes none)
        self.bstart = array("q")  # blocks: the position of the first entry
        self.bend = array("q")  # ... the position after the last one (assistant and results)
        self.bkind = bytearray()
        self.override: dict[int, int] = {}  # entry -> block where bisecting _bstart is wrong
        self._bobj: dict[int, _Block] = {}
        self._special: dict[int, list[int]] = {_CP: [], _SY: [], _X: []}  # positions by code
        self.blen = array("q")  # byte length of the entry at each position
        self.est_w = 0  # the width the estimates are for
        self.est: dict[bool, array] = {}  # full tool output -> estimated height of every block
        self.est_rough: dict[bool, int] = {}  # ... how many of its first blocks have a rough one
        self.first_out: set[int] = set()
        self.spec: tuple = ()
        self.edits: dict[str, str] = {}
        self._labels: dict[str, str] = {}
        self._deco_state: Any = None
        self.dgen = 0
        if self.on_reset is not None:
            self.on_reset()

    def codes_of(self, session: Session, branch: list[int], shared: int) -> bytearray:
        """The code bytes of ``branch`` (those before ``shared`` are the branch shown's)."""
        sc = self._scodes
        n0, count = len(sc), len(session.types)
        if n0 < count:
            # by role (nearly every entry is a message), then the other types over it
            types, roles = session.types[n0:], session.roles[n0:]
            by_type = {entry_type: 0 if entry_type == "message" else _code_of(entry_type, None) for entry_type in set(types)}
            by_role = {role: _code_of("message", role) for role in set(roles)}
            codes = bytearray(pick(by_role, roles))
            tcodes = bytes(pick(by_type, types))
            for match in _NONZERO_RE.finditer(tcodes):
                codes[match.start()] = tcodes[match.start()]
            sc.extend(codes)
        codes = bytearray(self.codes[:shared])
        codes.extend(pick(sc, branch[shared:]))
        return codes

    def _is_hidden(self, index: int) -> bool:
        got = self._hidden_cache.get(index)
        if got is None:
            session = self.session
            try:
                entry = session.entry(index)
                if session.types[index] == "custom_message":
                    display = entry.get("display")
                else:
                    message = entry.get("message")
                    display = message.get("display") if isinstance(message, dict) else None
            except Exception:
                display = None
            got = self._hidden_cache[index] = display is False
        return got

    def update_branch(self, branch: list[int], shared: int, codes: bytearray) -> None:
        """Show ``branch``, which shares its first ``shared`` entries with the branch shown."""
        old = self.branch
        self.pos.replace(old, branch, shared)
        old_codes = self.codes
        # The first group to build again: those that start at or after p, and those before
        # whose grouping looked at p or later (an assistant's run of results, and labels
        # after it), or that hid entries for a block made later.
        gstart, gblock = self._gstart, self._gblock
        ng, nb = len(gstart), len(self.bstart)
        first_group = bisect_left(gstart, shared)
        group = first_group - 1
        while group >= 0:
            s0 = gstart[group]
            nxt = gblock[group + 1] if group + 1 < ng else nb
            if gblock[group] == nxt:  # a hidden entry, shown with the next block
                first_group = group
            else:
                code = old_codes[s0]
                if code == _A or code == _R:
                    ex = gstart[group + 1] if group + 1 < ng else len(old)
                    if code == _A:
                        while ex < shared and old_codes[ex] == _T:
                            ex += 1
                    if ex < shared:
                        break
                    first_group = group
                elif code != _T:
                    break
            group -= 1
        start = gstart[first_group] if first_group < ng else min(shared, len(old))
        first_block = gblock[first_group] if first_group < ng else nb
        del gstart[first_group:], gblock[first_group:]
        del self.bstart[first_block:], self.bend[first_block:], self.bkind[first_block:]
        del self.blen[shared:]
        self.blen.extend(array("q", pick(self.session.lengths, branch[shared:])))
        if self.override:
            self.override = {entry: block for entry, block in self.override.items() if block < first_block}
        if self._bobj:
            self._bobj = {block: obj for block, obj in self._bobj.items() if block < first_block}
        if self.on_dropped is not None:
            self.on_dropped(first_block)
        for code, lst in self._special.items():
            del lst[bisect_left(lst, shared):]
        for match in _SPECIAL_RE.finditer(codes, shared):
            self._special[codes[match.start()]].append(match.start())
        self.branch = branch
        self.codes = codes
        self._build_from(start)
        for full, est in self.est.items():
            del est[first_block:]
            est.extend(self.estimate_blocks(first_block, len(self.bstart), self.est_w, full))
            if self.est_rough.get(full, 0) > first_block:
                self.est_rough[full] = first_block

    def _build_from(self, start: int) -> None:
        """Group the branch from position ``start`` (a group's start) on into blocks.

        The grouping is one regular expression over the code bytes; nearly every group is
        one block, so the block arrays are extended with whole slices. Only groups that
        hide an entry (a custom message with ``display: false``) or hold labels between an
        assistant's results are handled one by one."""
        branch, codes = self.branch, self.codes
        groups = _GROUP_RE.findall(codes, start)
        if not groups:
            return
        edges = array("q", accumulate(map(len, groups), initial=start))
        starts = edges[:-1]
        ends = edges[1:]
        first = bytes(pick(codes, starts))
        kinds = first.translate(_KIND_TABLE)
        ng = len(groups)
        special: dict[int, bool] = {}  # group -> hidden (True) or labels among results (False)
        position = codes.find(b"T", start)
        while position >= 0:
            group = bisect_right(starts, position) - 1
            if starts[group] != position:
                special[group] = False
            position = codes.find(b"T", position + 1)
        if not self.built_hidden:
            group = first.find(b"C")
            while group >= 0:
                if self._is_hidden(branch[starts[group]]):
                    special[group] = True
                group = first.find(b"C", group + 1)
        bstart, bend, bkind, gblock = self.bstart, self.bend, self.bkind, self._gblock
        self._gstart.extend(starts)
        nb = len(bstart)
        if not special:
            bstart.extend(starts)
            bend.extend(ends)
            bkind.extend(kinds)
            gblock.extend(range(nb, nb + ng))
            return
        override = self.override
        hidden: list[int] = []
        prev = 0
        for group in sorted(special) + [ng]:
            if group > prev:  # ordinary groups: one block each
                bstart.extend(starts[prev:group])
                bend.extend(ends[prev:group])
                bkind.extend(kinds[prev:group])
                gblock.extend(range(nb, nb + group - prev))
                for entry in hidden:
                    override[entry] = nb
                hidden.clear()
                nb += group - prev
            if group == ng:
                break
            prev = group + 1
            group_start, group_end = starts[group], ends[group]
            gblock.append(nb)
            if special[group]:
                hidden.append(branch[group_start])
                continue
            for entry in hidden:
                override[entry] = nb
            hidden.clear()
            assistant_block = nb
            bstart.append(group_start)
            bend.append(group_end)
            bkind.append(_KA)
            nb += 1
            for position in range(group_start + 1, group_end):  # each label is a marker block after the assistant's
                if codes[position] == _T:
                    bstart.append(position)
                    bend.append(position + 1)
                    bkind.append(_KM)
                    nb += 1
                else:
                    override[branch[position]] = assistant_block
        if hidden and nb:
            for entry in hidden:
                override[entry] = nb - 1

    def rebuild(self) -> None:
        """Build every block again (show_hidden changed)."""
        branch = self.branch
        codes = self.codes
        self.reset_branch()
        self.update_branch(branch, 0, codes)

    # ------------------------------------------------------------------ decorations
    def update_decorations(self) -> None:
        """Work out the facts of the branch that blocks are decorated from; when they
        changed, every block's look (and so its key) is worked out again when asked for."""
        session = self.session
        branch = self.branch
        comps = self._special[_CP]
        comp = comps[-1] if comps else -1
        fk = None
        if comp >= 0:
            try:
                first_kept = session.entry(branch[comp]).get("firstKeptEntryId")
                kept = session.index_of.get(first_kept) if isinstance(first_kept, str) else None
                position = self.pos.get(kept) if kept is not None else None
                fk = position if position is not None and position < comp else None
            except Exception:
                comp = -1  # as if everything were in context
        edits: dict[str, str] = {}
        for position in self._special[_X]:
            target, mark = self._edit_of(branch[position])
            if isinstance(target, str):
                edits[target] = mark
        labels = session.label_by_target if session is not None else {}
        state = (comp, fk, self.built_hidden)
        if state != self._deco_state or edits != self.edits or labels != self._labels:
            self._deco_state = state
            self.spec = (comp, fk)
            self.edits = edits
            self._labels = dict(labels)
            self.dgen += 1
            self._bobj = {}
        self.first_out = self._first_out_blocks()

    def _edit_of(self, index: int) -> tuple[Any, str]:
        got = self._edit_cache.get(index)
        if got is None:
            try:
                entry = self.session.entry(index)
                got = (entry.get("targetId"), "omitted" if entry.get("replacement") is None else "edited")
            except Exception:
                got = (None, "")
            self._edit_cache[index] = got
        return got

    def _in_context(self, position: int) -> bool:
        """Whether the entry at ``position`` reaches the model at the branch's leaf."""
        comp, fk = self.spec
        return comp < 0 or position >= comp or (fk is not None and position >= fk and self.codes[position] != _SY)

    def _first_out_blocks(self) -> set[int]:
        """The first block of each run of blocks outside the model's context (markers are
        neither in nor out of a run)."""
        comp, fk = self.spec
        out: set[int] = set()
        if comp < 0:
            return out
        bstart, bkind = self.bstart, self.bkind
        nb = len(bstart)
        boundary = fk if fk is not None else comp
        block = 0
        while block < nb and bstart[block] < boundary:
            if bkind[block] != _KM:
                out.add(block)
                break
            block += 1
        if fk is not None:
            for position in self._special[_SY]:
                if position < fk:
                    continue
                if position >= comp:
                    break
                block = bisect_left(bstart, position)
                if block >= nb or bstart[block] != position:
                    continue
                before = block - 1
                while before >= 0 and bkind[before] == _KM:
                    before -= 1
                if before < 0 or self._in_context(bstart[before]):
                    out.add(block)
        return out

    def block(self, block: int) -> _Block:
        blk = self._bobj.get(block)
        if blk is not None and blk.gen == self.dgen:
            return blk
        session = self.session
        branch, codes = self.branch, self.codes
        st = self.bstart[block]
        kind = self.bkind[block]
        index = branch[st]
        if kind == _KA or kind == _KR:
            end = self.bend[block]
            if kind == _KA and end - st > 2 and codes.find(b"T", st + 1, end) >= 0:
                entries = tuple(branch[position] for position in range(st, end) if codes[position] != _T)
            else:
                entries = tuple(branch[st:end])
        else:
            entries = (index,)
        in_context = kind == _KM or self._in_context(st)
        first_out = block in self.first_out
        ids = session.ids
        mark = self.edits.get(ids[index])
        label = session.label_of(index) if ids[index] in session.label_by_target else None
        prev_ts = session.timestamps[branch[self.bstart[block - 1]]] if block > 0 else None
        lengths = session.lengths
        size = lengths[index] if len(entries) == 1 else sum(lengths[entry] for entry in entries)
        name = _KIND_NAMES[kind]
        key = (name, entries, size, in_context, first_out, mark, label, prev_ts, self.built_hidden)
        blk = _Block(name, entries, key, in_context, first_out, mark, label, prev_ts, self.dgen)
        if len(self._bobj) >= _BLOCK_OBJECTS:  # (a search makes one per block: made again when asked)
            self._bobj = {}
        self._bobj[block] = blk
        return blk

    def block_key(self, block: int) -> Hashable:
        return self.block(block).key

    def block_of(self, index: int) -> int | None:
        """The block that shows entry ``index`` (None when it is not on the branch)."""
        block = self.override.get(index)
        if block is not None:
            return block
        position = self.pos.get(index)
        if position is None:
            return None
        block = bisect_right(self.bstart, position) - 1
        return block if block >= 0 else None

    # ------------------------------------------------------------------ heights
    def estimate_blocks(self, b0: int, b1: int, width: int, full: bool) -> array:
        """Estimated heights of blocks ``b0``..``b1`` at ``width``, from the skeleton only,
        in bulk (C-speed maps and a few list comprehensions; the note above the first
        block out of the context is added in ``_base_heights``).

        A marker is a line; an entry 2 lines of chrome and its text at half the width
        (more or less by type); an assistant message its text, and a header and a few
        lines (all of them, when ``full``) for each of its tool results."""
        if b0 >= b1:
            return array("q")
        s = self.session
        branch, codes, blen = self.branch, self.codes, self.blen
        starts = self.bstart[b0:b1]
        ends = self.bend[b0:b1]
        kinds = self.bkind[b0:b1]
        p0 = starts[0]
        p1 = self.bstart[b1] if b1 < len(self.bstart) else len(branch)
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
        flags = bytes(pick(s.flags, pick(branch, starts)))
        head = [(3 + (x if x < 40 else 40)) if f & F_ASSISTANT_TEXT else 2
                for x, f in zip(map(floordiv, pick(blen, starts), repeat(w2)), flags)]
        # ... and then the other blocks (one in seven or so)
        cut = CUT_LINES + 1
        first = bytes(pick(codes, starts))
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

    def ensure_estimates(self, width: int, full: bool, rough: bool = False) -> array:
        """The estimated height of every block at ``width`` (kept). ``rough``: a branch of
        more than QUICK_BLOCKS blocks may get rough ones for all but its last QUICK_TAIL
        blocks (:attr:`est_rough` says how many), made at once; the caller asks for the
        exact ones later (a pane opening a long branch: its first screen shows the end of
        it, and the scrollbar is all the rest changes)."""
        if self.est_w != width:
            self.est = {}
            self.est_rough = {}
            self.est_w = width
        est = self.est.get(full)
        if est is None:
            count = len(self.bstart)
            other = self.est.get(not full)
            if other is not None and not self.est_rough.get(not full):
                est = self._toggled_estimates(other, width, full)
            elif rough and count > self.QUICK_BLOCKS:
                head = count - self.QUICK_TAIL
                tail = self.estimate_blocks(head, count, width, full)
                est = array("q", [sum(tail) // len(tail)]) * head
                est.extend(tail)
                self.est_rough[full] = head
            else:
                est = self.estimate_blocks(0, count, width, full)
            self.est[full] = est
        elif not rough and self.est_rough.get(full):
            head = self.est_rough.pop(full)
            est[:head] = self.estimate_blocks(0, head, width, full)
        return est

    def _toggled_estimates(self, other: array, width: int, full: bool) -> array:
        """The estimates for the other state of the tool output toggle: they differ only
        in the blocks with a tool result of more lines than a cut one shows."""
        est = array("q", other)
        inner = max(20, width - 4)
        cut = CUT_LINES + 1
        codes, blen, branch = self.codes, self.blen, self.branch
        bstart, override = self.bstart, self.override
        least = (cut + 1) * inner
        results = list(compress(count(), codes.translate(_RESULT_TABLE)))
        long = [position for position, size in zip(results, map(blen.__getitem__, results)) if size >= least]
        if not long:
            return est
        sign = 1 if full else -1
        deltas = [sign * ((lines if lines < 400 else 400) - cut) for lines in [blen[position] // inner for position in long]]
        # the block of each position: how many blocks start at or before it
        starts = bytearray(len(codes))
        for _ in map(starts.__setitem__, bstart, repeat(1)):
            pass
        block_at = list(accumulate(starts))
        blocks = [block_at[position] - 1 for position in long]
        if override:  # results after a label among an assistant's results
            for index, position in enumerate(long):
                block = override.get(branch[position])
                if block is not None:
                    blocks[index] = block
        for block, delta in zip(blocks, deltas):
            est[block] += delta
        return est


def model_for(session: Session, leaf: int, hidden: bool) -> BranchModel:
    """The blocks of ``session``'s branch to ``leaf``, worked out apart from the pane (on
    any thread: it touches nothing the pane shows)."""
    model = BranchModel()
    model.session = session
    model.built_hidden = hidden
    model.tree = session.parent
    branch = session.path_to(leaf) if leaf >= 0 else []
    model.update_branch(branch, 0, model.codes_of(session, branch, 0))
    model.update_decorations()
    return model
