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
from array import array
from dataclasses import replace
from typing import Any, Callable, Hashable, Iterator, NamedTuple, Sequence

from textual.timer import Timer

from ...core.read.session import Session
from ...core.store.discovery import transcript_candidates
from ..messages import EntryFocused, OpenSessionFile
from ..pane_toggles import BY_NAME, PaneToggle
from .branch_model import _KM, _KR, BranchModel, _Block, model_for
from .entry_drawer import EntryDrawer
from .canvas import Out
from .scroller import BlockScroller

__all__ = ["MessagePane", "BranchShape", "prepare_branch"]


class BranchShape(NamedTuple):
    """What the blocks of a branch depend on beyond the session: the pane's width (0: not
    laid out yet) and two of its toggles."""

    width: int
    show_hidden: bool
    full_tool_output: bool


def prepare_branch(session: Session, leaf: int, shape: BranchShape) -> BranchModel:
    """The blocks of ``session``'s branch to ``leaf`` and their estimated heights, as a pane
    of ``shape`` would work them out: made ahead of showing them, on any thread (it
    touches no widget). :meth:`MessagePane.adopt_prepared` hands them to the pane."""
    model = model_for(session, leaf, shape.show_hidden)
    if shape.width > 0:
        model.ensure_estimates(shape.width, shape.full_tool_output)
    return model


class _Blocks(Sequence):
    """The pane's blocks as a sequence; a block's object is made when it is asked for."""

    __slots__ = ("_pane",)

    def __init__(self, pane: "MessagePane"):
        self._pane = pane

    def __len__(self) -> int:
        return len(self._pane.model.bstart)

    def __bool__(self) -> bool:
        return len(self._pane.model.bstart) > 0

    def __getitem__(self, block: int) -> _Block:  # type: ignore[override]
        count = len(self._pane.model.bstart)
        if block < 0:
            block += count
        if not 0 <= block < count:
            raise IndexError(block)
        return self._pane.model.block(block)

    def __iter__(self) -> Iterator[_Block]:
        for block in range(len(self._pane.model.bstart)):
            yield self._pane.model.block(block)


class MessagePane(BlockScroller):
    """The branch through the selected entry, drawn lazily with the line API."""

    EntryFocused = EntryFocused
    OpenSessionFile = OpenSessionFile

    #: Seconds after a long branch is shown with rough estimates before its exact ones.
    EXACT_DELAY = 0.3

    DEFAULT_CSS = """
    MessagePane {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None):
        super().__init__(name=name, id=id, classes=classes)
        self._last_focus: int | None = None
        self._focus_timer: Timer | None = None
        self._focus_at_cursor = False  # what _report_focus reports: the cursor's entry, or the top's
        self._artifact_cache: dict[str, str | None] = {}
        self._other_timer: Timer | None = None
        self._exact_timer: Timer | None = None  # (see _base_heights)
        self._prepared: tuple[Session, int, BranchModel] | None = None  # see prepare()
        self.model = self._adopt(BranchModel())  # the branch shown, as blocks
        self._blocks = _Blocks(self)

    # ------------------------------------------------------------------ public API
    @property
    def session(self) -> Session | None:
        return self.model.session

    @property
    def branch(self) -> list[int]:
        return self.model.branch

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

    def branch_shape(self) -> BranchShape:
        """What :func:`prepare_branch` needs of this pane (taken on the UI thread)."""
        return BranchShape(self._width, self.show_hidden, self.full_tool_output)

    def adopt_prepared(self, session: Session, leaf: int, model: BranchModel) -> None:
        """The blocks of ``session``'s branch to ``leaf``, made by :func:`prepare_branch`
        (for a session being opened, in the thread that opened it): the next
        :meth:`show_leaf` of that very branch, for that session's first time in the pane,
        takes them instead of working them out (~0.1 s for a 50,000-entry branch)."""
        self._prepared = (session, leaf, model)

    # ------------------------------------------------------------------ the view's toggles
    def toggle(self, name: str) -> None:
        """Flip the toggle ``name`` (``pane_toggles.py``: the browser's keys), and say so
        in a toast."""
        toggle = BY_NAME[name]
        self.notify(f"{toggle.toast}: {toggle.words[self.flip(name)]}", timeout=1.5)

    def _take_prepared(self, session: Session, leaf: int | None) -> BranchModel | None:
        got, self._prepared = self._prepared, None
        if got is None or got[0] is not session or got[1] != leaf:
            return None
        model = got[2]
        if model.built_hidden != self.model.built_hidden or model.tree is not session.parent:
            return None  # shown differently, or the session was read further meanwhile
        return model

    def scroll_to_entry(self, index: int) -> None:
        """Put entry ``index``'s block at the top; a tool result is drawn in its call's block,
        so for one the view goes to that block with the call's line at the top."""
        block = self.block_of(index)
        if block is None:
            return
        if self._width <= 0:
            self._pending_scroll = ("entry", index)
            return
        if index == self._last_focus and self._covers_top(block):
            return  # already there (e.g. the app echoing our own EntryFocused back)
        rendered = self._rendered(block)
        self._measure(block)
        self._update_virtual_size()
        off = 0
        if index != self.model.branch[self.model.bstart[block]]:
            for line, entry in rendered.sections:
                if entry == index:
                    off = line
                    break
        self._scroll_to_y(self._heights.top(block) + off)
        self._settle()
        # What is at the top now (the end of the branch may not reach the top) is not news.
        self._last_focus = index if self._covers_top(block) else self.entry_at_top()
        self.refresh()

    def entry_at_top(self) -> int | None:
        """The entry shown on the pane's first line (a tool result when inside its output)."""
        hit = self._line_at(round(self.scroll_y))
        return None if hit is None else self._entry_at(*hit)

    def entry_at_cursor(self) -> int | None:
        """The entry the pane's cursor is on (a tool result when on its call or output)."""
        at = self.pane_cursor.at()
        return None if at is None else self._entry_at(*at)

    def _entry_at(self, block: int, line: int) -> int:
        """The entry drawn on line ``line`` of ``block``."""
        entry = self.model.branch[self.model.bstart[block]]
        for ln, section_entry in self._rendered(block).sections:
            if ln <= line:
                entry = section_entry
            else:
                break
        return entry

    def blocks_for_entry(self, index: int) -> list[int]:
        """The blocks :meth:`scroll_to_entry` of ``index`` would show (none when ``index`` is not
        on the branch shown)."""
        block = self.block_of(index)
        return [] if block is None else self.blocks_from(block)

    def branch_ahead(self, leaf: int, entry: int) -> Callable[[], Iterator[tuple]] | None:
        """For :meth:`draw_ahead`'s ``more``: the blocks a :meth:`show_leaf` of the branch
        to ``leaf`` (not the one shown: ``[`` and ``]``) selecting ``entry`` would bring
        into view. The branch's blocks are worked out on the worker thread, as
        :meth:`prepare` does; their block numbers and state keys are those the pane will
        have once it shows that branch."""
        session = self.model.session
        if session is None or self._width <= 0 or leaf < 0 or self.show_hidden != self.model.built_hidden:
            return None
        width, full, hidden = self._width, self.full_tool_output, self.show_hidden
        view_h = max(1, self.scrollable_content_region.height)
        common = self._key_common()
        template = self._ctx(None)
        template.lazy_lexers = False  # a worker may wait for a lexer
        inverted = self._inverted

        def produce() -> Iterator[tuple]:
            model = model_for(session, leaf, hidden)
            block = model.block_of(entry)
            count = len(model.bstart)
            if block is None:
                return
            est = model.estimate_blocks(block, min(count, block + 64), width, full)
            last, room = block, view_h
            for height in est:
                room -= max(1, height)
                if room <= 0:
                    break
                last += 1
            first = block
            if room > 0 and block > 0:  # the branch ends within the view: the last screenful
                back = model.estimate_blocks(max(0, block - 64), block, width, full)
                for height in reversed(back):
                    first -= 1
                    room -= max(1, height)
                    if room <= 0:
                        break
            for ahead in range(first, min(count, last + 1)):
                blk = model.block(ahead)
                yield ahead, self._key_of(blk.key, common), (session, blk), replace(
                    template, inverted=inverted.get(blk.key, frozenset()))

        return produce

    def block_of(self, index: int) -> int | None:
        """The block that shows entry ``index`` (None when it is not on the branch)."""
        return self.model.block_of(index)

    # ------------------------------------------------------------------ showing a branch
    def _show(self, session: Session, leaf: int | None, branch: list[int] | None, selected: int) -> None:
        if self._width <= 0 and self.size.width > 0:
            # laid out, and its Resize not handled yet (the app lays the screen out just
            # before a first session): draw at that width now, not blank first
            self._width = self.scrollable_content_region.width
        if self.show_hidden != self.model.built_hidden:  # (a first read may run the watcher)
            self.model.built_hidden = self.show_hidden
            self.model.reset_branch()
        same_session = session is self.model.session
        old = self.model.branch
        if not same_session:
            self._generation += 1
            self.worker_drawing.stop_drawing_all()
            self._rcache.clear()
            self._hcache.clear()
            self._deps.clear()
            self._inverted.clear()
            self._artifact_cache.clear()
            prepared = self._take_prepared(session, leaf) if branch is None else None
            if prepared is not None:
                self.model = self._adopt(prepared)
                self._reset_layout()
            else:
                self.model.session = session
                self.model.reset_session_facts()
                self.model.reset_branch()
            old = self.model.branch
        tree_changed = session.parent is not self.model.tree
        if tree_changed:
            # The session was read further (or again): codes and facts read from entries
            # may have changed for its last entries, and so may the paths.
            self.model.reset_session_facts()
            self.model.tree = session.parent
        # the new branch, and how long a prefix it shares with the branch shown
        if branch is None:
            if old and not tree_changed:
                branch, shared = self.model.path_from(session, leaf)
            else:
                branch = session.path_to(leaf) if leaf >= 0 else []
                shared = self.model.common_prefix(branch, old)
        else:
            shared = self.model.common_prefix(branch, old)
        if tree_changed:
            codes = self.model.codes_of(session, branch, 0)
            lengths = session.lengths
            if shared and (codes[:shared] != self.model.codes[:shared] or array("q", map(lengths.__getitem__, branch[:shared])) != self.model.blen[:shared]):
                shared = 0
        else:
            codes = self.model.codes_of(session, branch, shared)
        same = same_session and bool(old) and shared == len(old)
        keep = None
        if same and self._width > 0 and self.model.bstart:
            anchor = self._top_anchor()
            was_bottom = round(self.scroll_y) >= self.max_scroll_y and self.max_scroll_y > 0
            sel_b = self.block_of(selected)
            view_top = round(self.scroll_y)
            view_bottom = view_top + self.scrollable_content_region.height
            sel_visible = sel_b is not None and (
                self._heights.top(sel_b) < view_bottom and self._heights.top(sel_b) + self._heights[sel_b] > view_top
            )
            if anchor is not None and sel_visible:
                keep = (self.model.branch[self.model.bstart[anchor[0]]], anchor[1], was_bottom and len(branch) > len(old))
        query = self.finder.query_text if same else ""
        changed = shared < len(old) or len(branch) > len(old)
        if changed:
            self.model.update_branch(branch, shared, codes)
        gen = self.model.dgen
        self.model.update_decorations()
        if not changed and gen == self.model.dgen and same:
            # The very same blocks: nothing to lay out again.
            if self._width <= 0:
                self._pending_scroll = ("entry", selected)
            elif keep is None:
                self.scroll_to_entry(selected)
            return
        self.finder.clear_state()
        if not same:
            self.finder.query = None
            self.finder.query_text = ""
        if self._width <= 0:
            self._placeholder_layout()
            self._pending_scroll = ("entry", selected)
            return
        if keep is not None:
            entry, off, to_bottom = keep
            block = self.block_of(entry)
            self._relayout((block, off) if block is not None else None)
            if to_bottom:
                self.scroll_end_now()
        else:
            self._relayout(settle=False)
            self.scroll_to_entry(selected)
            self._settle()
        if query:
            self.search(query)

    def _adopt(self, model: BranchModel) -> BranchModel:
        """``model`` is the pane's: it tells the pane when its blocks change."""
        model.on_reset = self._reset_layout
        model.on_dropped = self._blocks_dropped
        return model

    def _block_key(self, block: int) -> Hashable:
        return self.model.block_key(block)

    def _reset_layout(self) -> None:
        self._measured = bytearray()
        self._known = set()
        self._heights.reset(array("q"))

    def _blocks_dropped(self, block: int) -> None:
        self._known = {known for known in self._known if known < block}

    def _placeholder_layout(self) -> None:
        """Laid out when the pane gets its width; until then every block is a line."""
        count = len(self.model.bstart)
        self._heights.reset(array("q", [1]) * count)
        self._measured = bytearray(count)
        self._known = set()

    def _block_entry(self, block: int, nth: int = 0) -> int | None:
        """The entry of ``block`` that holds its ``nth``-th search hit (a tool result when
        the hit is in a call's section)."""
        if not 0 <= block < len(self.model.bstart):
            return None
        entry = self.model.branch[self.model.bstart[block]]
        rendered = self._rendered(block)
        matches = self.finder.block_matches(block, rendered)
        if matches and rendered.sections:
            line = matches[min(nth, len(matches) - 1)][0]
            for ln, section_entry in rendered.sections:
                if ln <= line:
                    entry = section_entry
                else:
                    break
        return entry

    def _base_heights(self, width: int) -> array:
        full = self.full_tool_output
        # (a long branch's blocks above its last screens get rough estimates first, the
        # exact ones a moment later: its first screen shows its end, and waits for none)
        heights = array("q", self.model.ensure_estimates(width, full, rough=True))
        for block in self.model.first_out:
            heights[block] += 1
        if self.model.est_rough.get(full) and self.is_mounted and self._exact_timer is None:
            self._exact_timer = self.set_timer(self.EXACT_DELAY, self._exact_estimates)
        if (not full) not in self.model.est and self.is_mounted:
            # the other state of the tool output toggle, worked out while the user reads
            if self._other_timer is not None:
                self._other_timer.stop()
            self._other_timer = self.set_timer(1.0, self._other_estimates)
        return heights

    def _exact_estimates(self) -> None:
        """The exact estimates of the blocks that had rough ones, the view kept where it is
        (its top block and line stay at the top: only the scrollbar moves)."""
        self._exact_timer = None
        full, width = self.full_tool_output, self._width
        if width > 0 and self.model.est_w == width and self.model.est_rough.get(full):
            self.model.ensure_estimates(width, full)
            self._relayout(self._top_anchor())

    def _other_estimates(self) -> None:
        self._other_timer = None
        if self.model.est_w and self.model.bstart:
            self.model.ensure_estimates(self.model.est_w, not self.full_tool_output)

    def _estimate(self, block: int, width: int) -> int:
        full = self.full_tool_output
        est = self.model.est.get(full) if width == self.model.est_w else None
        height = est[block] if est is not None and block < len(est) else self.model.estimate_blocks(block, block + 1, width, full)[0]
        return height + (1 if block in self.model.first_out else 0)

    # ------------------------------------------------------------------ focus reporting
    def _covers_top(self, block: int) -> bool:
        y = round(self.scroll_y)
        top = self._heights.top(block)
        return top <= y < top + self._heights[block]

    def _scrolled(self) -> None:
        self._focus_at_cursor = False
        self._report_focus_soon()

    def _cursor_moved(self) -> None:
        self._focus_at_cursor = True
        self._report_focus_soon()

    def _report_focus_soon(self) -> None:
        if not self.model.bstart or not self.is_mounted:
            return
        if self._focus_timer is not None:
            self._focus_timer.stop()
        self._focus_timer = self.set_timer(0.15, self._report_focus)

    def _report_focus(self) -> None:
        """The entry at the top (the user scrolled) or at the cursor (the user moved it)."""
        self._focus_timer = None
        entry = self.entry_at_cursor() if self._focus_at_cursor else self.entry_at_top()
        if entry is not None and entry != self._last_focus:
            self._last_focus = entry
            self.post_message(EntryFocused(entry))

    def _apply_pending(self, pending: tuple) -> None:
        if pending[0] == "entry":
            self.scroll_to_entry(pending[1])

    # ------------------------------------------------------------------ toggles
    def _toggled(self, toggle: PaneToggle, on: bool) -> None:
        if toggle.name == "hidden":
            self._show_hidden_changed(on)
        else:
            super()._toggled(toggle, on)

    def _show_hidden_changed(self, value: bool) -> None:
        """``hidden`` (a toggle not drawn) was flipped: the branch's blocks are built again
        with or without the hidden messages."""
        if self.model.session is None or value == self.model.built_hidden:
            return
        self.model.built_hidden = value
        anchor = self._top_anchor()
        entry = (self.model.branch[self.model.bstart[anchor[0]]], anchor[1]) if anchor else None
        query = self.finder.query_text
        self.model.rebuild()
        self.model.update_decorations()
        self.finder.clear_state()
        block = self.block_of(entry[0]) if entry else None
        if self._width <= 0:
            self._placeholder_layout()
        self._relayout((block, entry[1]) if block is not None else None)
        if query:
            self.search(query)

    # ------------------------------------------------------------------ drawing
    def _resolve_artifact(self, path: str) -> str | None:
        if path in self._artifact_cache:
            return self._artifact_cache[path]
        found = None
        session = self.model.session
        for candidate in transcript_candidates(path, session.path if session is not None else ""):
            try:
                if os.path.isfile(candidate):
                    found = candidate
                    break
            except OSError:
                pass
        self._artifact_cache[path] = found
        return found

    def _do_action(self, block: int, action: tuple) -> None:
        if action[0] == "open":
            self.post_message(OpenSessionFile(action[1]))
        else:
            super()._do_action(block, action)

    def _block_item(self, block: int) -> Any:
        return (self.model.session, self.model.block(block))

    def _draw_item(self, item: Any, out: Out) -> None:
        session, blk = item
        EntryDrawer(session).draw(blk, out)

    def _block_cost(self, block: int) -> int:
        """Bytes of text drawn as Markdown (what makes a block slow to draw)."""
        kind = self.model.bkind[block]
        if kind == _KM:
            return 0
        session = self.model.session
        entries = self.model.block(block).entries
        # Tool output is cheap while cut to a few lines; in full it counts.
        out = sum(session.lengths[index] for index in entries[1:]) // 2 if self.full_tool_output else 0
        if kind == _KR:
            return out
        index = entries[0]
        if session.types[index] == "message" and session.roles[index] in ("toolResult", "bashExecution", "system"):
            return session.lengths[index] // 2 if self.full_tool_output else 0
        size = session.lengths[index]
        if self.async_bytes is not None and size > self.async_bytes and session.types[index] == "message":
            size = self._drawn_bytes(index, size)
        return size + out

    def _drawn_bytes(self, index: int, size: int) -> int:
        """Of message ``index``'s line (``size`` bytes), roughly how much is drawn as text: its
        text, its thinking while shown, its tool calls' arguments while tool output is
        shown in full (else a few lines of them). The line also holds thinking folded
        away, thinking signatures and arguments cut to a few lines, so a reply of a few
        lines may have a line of 10 KB or more: drawn on a worker for its length, it cost
        a second frame for a drawing of a millisecond. Asked only for lines that long."""
        try:
            msg = self.model.session.entry(index).get("message")  # (kept: the drawing reads it next)
        except Exception:
            return size
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, str):
            return len(content)
        if not isinstance(content, list):
            return size
        total = 0
        for part in content:
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "text":
                text = part.get("text")
                total += len(text) if isinstance(text, str) else 0
            elif kind == "thinking":
                text = part.get("thinking")
                total += len(text) if self.show_thinking and isinstance(text, str) else 0
            elif kind == "toolCall" and self.full_tool_output:
                total += len(str(part.get("arguments"))) // 2
        return total
