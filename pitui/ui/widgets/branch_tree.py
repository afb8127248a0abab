"""The branch tree: Pi's ``/tree`` drawn with Textual's line API.

One row per shown entry (``core.model.layout.layout_tree``), drawn by ``render_line`` for the
rows on screen only; summaries are computed when a row is first drawn and cached. Nothing
here is per-row widgets or recursion, so a 50,000-entry session or a 20,000-deep chain
scrolls as smoothly as a short one.

Where the navigation keys go is worked out in ``core.model.navigation``; the tree moves
there (:meth:`BranchTree.go_sibling` and the others). The keys are bound on the browser
screen, so they work from the pane too.
"""

from __future__ import annotations

from typing import Callable

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Offset, Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.worker import get_current_worker

from ...core.read.session import Session
from ...core.model.summary import Summary, summarize
from ...core.model.layout import TreeLayout, TreeRow, layout_tree
from ...core.model.navigation import Nav, fork_target, leaf_target, root_target, sibling_target, user_target
from ...core.text import visible
from ..bindings import bindings_for
from ..text_fit import cut_segments
from ..messages import SummariesMade
from ..textual_internals import set_virtual_size_quietly
from .line_list import LineList
from .tree_layouts import TreeLayouts

__all__ = ["BranchTree", "summaries_around"]


# --------------------------------------------------------------------------- widget
def _top_for(row: int, height: int, how: str) -> int:
    """The first row on screen for the cursor at ``row``: a third of the way down
    (``"center"``), at the top or at the bottom."""
    return row - height // 3 if how == "center" else row if how == "top" else row - height + 1


def _summary(session: Session, entry: int) -> Summary:
    """The tree row's summary of ``entry``; one that cannot be made says why (never let
    one odd entry break the tree)."""
    try:
        return summarize(session, entry)
    except Exception as exc:
        return Summary("damaged", "", visible(f"[cannot summarise: {exc}]"), True)


def summaries_around(session: Session, layout: TreeLayout, entry: int, rows: int = 120) -> dict[int, Summary]:
    """The summaries of the rows around ``entry`` (what a first screen centred on it shows),
    made ahead of :meth:`BranchTree.set_session`: for a session being opened, in the thread
    that opens it (each summary reads its entry from the file)."""
    if not layout.rows:
        return {}
    row = layout.nearest_row(session, entry)
    return {layout.rows[row_index].entry: _summary(session, layout.rows[row_index].entry)
            for row_index in range(max(0, row - rows // 2), min(len(layout.rows), row + rows // 2))}


#: The most columns a row's indent guides take, however deep its fork: past that depth the
#: guides nearest the row are kept after a "…" (the rest of the row is for its text).
GUIDES_MOST = 24  # (eight levels)


def _guides_budget(width: int) -> int:
    """The columns a row's indent guides may take in a tree ``width`` cells wide: at most a
    third of it and :data:`GUIDES_MOST`, at least two levels."""
    return max(6, min(GUIDES_MOST, width // 3))


_KIND_CLASS = {
    "user": "branch-tree--user",
    "assistant": "branch-tree--assistant",
    "tool": "branch-tree--tool",
    "tool-error": "branch-tree--error",
    "bash": "branch-tree--tool",
    "compaction": "branch-tree--compaction",
    "branch-summary": "branch-tree--summary",
    "custom-message": "branch-tree--custom",
    "damaged": "branch-tree--error",
}


class BranchTree(TreeLayouts, LineList):
    """The session's entries as Pi's tree, one line per shown entry."""

    COMPONENT_CLASSES = {
        "branch-tree--cursor",
        "branch-tree--cursor-blurred",
        "branch-tree--gutter",
        "branch-tree--active",
        "branch-tree--label",
        "branch-tree--user",
        "branch-tree--assistant",
        "branch-tree--tool",
        "branch-tree--error",
        "branch-tree--compaction",
        "branch-tree--summary",
        "branch-tree--custom",
        "branch-tree--dim",
        "branch-tree--folded",
    }
    CURSOR_CLASSES = ("branch-tree--cursor", "branch-tree--cursor-blurred")

    DEFAULT_CSS = """
    BranchTree { background: $surface; overflow-x: hidden; }
    BranchTree > .branch-tree--cursor { background: $block-cursor-background; }
    BranchTree > .branch-tree--cursor-blurred { background: $block-cursor-blurred-background; }
    BranchTree > .branch-tree--gutter { color: $text-muted; }
    BranchTree > .branch-tree--active { color: $text-accent; text-style: bold; }
    BranchTree > .branch-tree--label { color: $text-warning; text-style: bold; }
    BranchTree > .branch-tree--user { color: $text-primary; text-style: bold; }
    BranchTree > .branch-tree--assistant { color: $text-warning; }
    BranchTree > .branch-tree--tool { color: $text-muted; }
    BranchTree > .branch-tree--error { color: $text-error; }
    BranchTree > .branch-tree--compaction { color: $text-success; text-style: bold; }
    BranchTree > .branch-tree--summary { color: $text-success; }
    BranchTree > .branch-tree--custom { color: $text-secondary; }
    BranchTree > .branch-tree--dim { color: $text-muted; }
    BranchTree > .branch-tree--folded { color: $text-muted; text-style: italic; }
    """

    BINDINGS = bindings_for("tree")

    mode: reactive[str] = reactive("default", init=False)
    #: The session is followed as it grows (the title says so): bound to the browser's.
    following: reactive[bool] = reactive(False, init=False)

    #: Told the newly selected entry as soon as the selection changes, before anything is
    #: painted (the browser screen shows the pane for it: both drawn in one frame)
    selection_listener: Callable[[int], None] | None = None

    class SelectionChanged(Message):
        """The selected entry changed (``entry`` is -1 when there is none)."""

        def __init__(self, tree: "BranchTree", entry: int) -> None:
            super().__init__()
            self.tree = tree
            self.entry = entry

    class LayoutChanged(Message):
        """Rows were laid out again (filter, fold, session)."""

        def __init__(self, tree: "BranchTree") -> None:
            super().__init__()
            self.tree = tree

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.session: Session | None = None
        self.tree_layout: TreeLayout | None = None
        self.nav: Nav | None = None
        self.folded: set[int] = set()
        self._summaries: dict[int, Summary] = {}
        self._summaries_gen = 0  # bumped when summaries are dropped (see _summarised)
        self._pending_select: int | None = None
        # Layouts made for the session as it is, by (mode, folds), and the navigation
        # caches of each (see relayout).
        self._layouts: dict[tuple[str, frozenset], TreeLayout] = {}
        self._navs: dict[int, Nav] = {}
        self._layouts_of: tuple | None = None
        self._making: dict[tuple[str, frozenset], tuple] = {}  # layouts under way (see relayout)
        self._waiting: tuple | None = None  # ((mode, folds), keep): the one to show when made
        self._anchor: int | None = None  # the entry the user last moved to
        self._strips: dict[tuple, Strip] = {}  # drawn rows (see render_line)
        self._strips_layout: TreeLayout | None = None  # ... of this layout
        self._fresh_session = False  # set_session: the scrollbar is decided afresh
        self.laying_out = False
        #: Shown when no session is open ("opening…", "not a session").
        self.placeholder = ""
        self._border_only = False  # (see set_subtitle)

    def set_subtitle(self, subtitle: str) -> None:
        """Set the border subtitle (the cursor's position, which changes with every move)
        repainting only the bottom border line it is drawn on: Textual repaints the whole
        tree for a border title or subtitle."""
        if self.border_subtitle == subtitle:
            return
        self._border_only = True
        try:
            self.border_subtitle = subtitle
        finally:
            self._border_only = False

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> "BranchTree":
        if self._border_only and not regions and repaint and not layout and not recompose:
            outer, off = self.outer_size, self.content_offset
            if outer.height > 0:
                # the bottom border line, in content coordinates (as regions are given)
                regions = (Region(-off.x, outer.height - 1 - off.y, outer.width, 1),)
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    # ------------------------------------------------------------------ state
    @property
    def selected_entry(self) -> int:
        if self.tree_layout is None or not self.tree_layout.rows:
            return -1
        return self.tree_layout.rows[self.cursor_row].entry

    @property
    def row_count(self) -> int:
        return len(self.tree_layout.rows) if self.tree_layout else 0

    def clear(self) -> None:
        self.session = None
        self.tree_layout = None
        self.nav = None
        self.folded = set()
        self.cursor_row = 0
        self._summaries.clear()
        self._summaries_gen += 1
        self._strips.clear()
        self._forget_layouts()
        self._set_row_count(0)
        self.refresh()

    def set_session(self, session: Session, layout: TreeLayout | None = None, select: int | None = None,
                    summaries: dict[int, Summary] | None = None) -> None:
        """Show ``session`` (``layout`` may be precomputed in a worker for the current mode,
        and the ``summaries`` of the first rows: :func:`summaries_around`)."""
        self.session = session
        self.folded = set()
        self._summaries.clear()
        self._summaries_gen += 1
        if summaries:
            self._summaries.update(summaries)
        self._strips.clear()
        self._forget_layouts()
        self._fresh_session = True
        self.cursor_row = 0
        self._anchor = None
        if layout is None:
            layout = layout_tree(session, self.mode, frozenset())
        self._apply_layout(layout, session.leaf if select is None else select, center=True)
        if len(session) > self.LAYOUT_IN_THREAD and self.is_mounted:
            # The next filter's layout is made a moment after the session is shown (while
            # the user reads it), so even the first f answers at once.
            self.set_timer(self.NEXT_FILTER_DELAY, lambda: self._prepare_next_filter() if session is self.session else None)

    def rows_for(self, entry: int, how: str = "center") -> range:
        """The rows on screen once ``entry`` is selected: by :meth:`select_entry`
        (``"center"``), or by a page up or down (``"top"``, ``"bottom"``)."""
        layout = self.tree_layout
        height = self.scrollable_content_region.height or self.size.height
        row = layout.row_of.get(entry) if layout is not None else None
        if row is None or height <= 0:
            return range(0)
        top = max(0, _top_for(row, height, how))
        return range(top, min(len(layout.rows), top + height))  # type: ignore[union-attr]

    def page_target(self, step: int) -> int | None:
        """The entry a page down (``step`` 1) or up (-1) selects (None: the cursor stays)."""
        layout = self.tree_layout
        if layout is None or not layout.rows:
            return None
        row = max(0, min(len(layout.rows) - 1, self.cursor_row + step * self._page_step()))
        return None if row == self.cursor_row else layout.rows[row].entry

    def summarise_ahead(self, rows: list[range], should_stop: Callable[[], bool]) -> int:
        """Summarise ``rows`` not summarised yet on a worker thread (each summary reads its
        entry from the file): the rows the next key is likely to show, made while the user
        reads the screen. ``should_stop`` (asked on that thread) ends it early. Returns how
        many are to be made."""
        layout, session = self.tree_layout, self.session
        if layout is None or session is None or self.laying_out:
            return 0
        have = self._summaries
        todo: dict[int, None] = {}
        for rng in rows:
            for row_index in rng:
                entry = layout.rows[row_index].entry
                if entry not in have:
                    todo[entry] = None
        if not todo:
            return 0

        gen = self._summaries_gen

        def work() -> None:
            got: dict[int, Summary] = {}
            worker = get_current_worker()
            for entry in todo:
                if worker.is_cancelled or should_stop():
                    break
                got[entry] = _summary(session, entry)
            if got:
                try:
                    self.post_message(SummariesMade(session, gen, got))
                except Exception:
                    pass  # the app is closing

        self.run_worker(work, thread=True, group="tree-ahead", exclusive=True, exit_on_error=False)
        return len(todo)

    def on_summaries_made(self, message: SummariesMade) -> None:
        self._summarised(message.session, message.gen, message.summaries)

    def _summarised(self, session: Session, gen: int, got: dict[int, Summary]) -> None:
        if session is self.session and gen == self._summaries_gen:
            for entry, summary in got.items():
                self._summaries.setdefault(entry, summary)

    def forget_summaries(self, entries: list[int] | None = None) -> None:
        """Drop cached summaries (after lines turned out damaged)."""
        if entries is None:
            self._summaries.clear()
            self._summaries_gen += 1
            self._strips.clear()
        else:
            for entry in entries:
                self._summaries.pop(entry, None)
                self._summaries_gen += 1
        self._strips.clear()
        self.refresh()

    def expect_rows(self, rows: int) -> None:
        """A session of ``rows`` rows is about to be shown: if they cannot fit on the screen
        whatever the tree's height, its scrollbar is put in now, before a layout of the
        screen that comes first (not in a second one after it, as :meth:`_set_row_count`
        would)."""
        if rows > self.app.size.height and self.styles.overflow_y == "auto":
            self.styles.overflow_y = "scroll"

    def _set_row_count(self, rows: int) -> None:
        """The scrollable height is ``rows``. When that keeps the vertical scrollbar as it
        is, the screen is not laid out again (a layout pass, 10-20 ms, and a second frame
        for the scrollbars it refreshes)."""
        old = self.virtual_size
        height = self.container_size.height
        overflow = self.styles.overflow_y
        if rows > height > 0 and overflow == "auto":
            # Once a session needs the scrollbar, it stays for that session: a filter with
            # fewer rows than the view would otherwise hide it and show it again, each time
            # a layout of the screen over three frames (and the tree a column wider).
            self.styles.overflow_y = "scroll"
        elif overflow == "scroll" and (rows == 0 or self._fresh_session and rows <= height):
            self.styles.overflow_y = overflow = "auto"  # (another session: as at the start)
        self._fresh_session = False
        # The rows' width, as on_resize gives it: beside the scrollbar when there is one
        # (a width differing from that one made the first filter change lay out the screen).
        new = self.styles.overflow_y
        bar = new == "scroll" or new == "auto" and rows > height
        size = Size(max(0, self.size.width - (self.styles.scrollbar_size_vertical if bar else 0)), rows)
        if size == old:
            return
        if (
            self.is_mounted
            and height > 0
            and old.width == size.width
            and (overflow == "scroll" or overflow == "auto" and (old.height > height) == (rows > height))
        ):
            set_virtual_size_quietly(self, size)
        else:
            self.virtual_size = size

    def session_grew(self, layout: TreeLayout, keep: int, *, follow: bool = False) -> None:
        """The open session was refreshed (entries appended): show ``layout`` keeping the
        selected entry ``keep`` on the same screen line (no jump), or, with ``follow``,
        select ``keep`` (the newest leaf) and bring it into view. The branch the pane
        shows stays the same branch, grown. No SelectionChanged is posted: the caller
        re-shows the pane."""
        if self.session is None:
            return
        session = self.session
        offset = self.cursor_row - round(self.scroll_y)
        sticky = self.nav.sticky_leaf if self.nav is not None and self.nav.session is session else -1
        if sticky in session.shadowed:
            sticky = -1  # (a line found damaged: no longer in the tree)
        if sticky >= 0 and session.children.get(sticky):
            sticky = session.newest_leaf_below(sticky)  # the branch shown grew past its old leaf
        self._summaries.clear()
        self._summaries_gen += 1
        self._strips.clear()
        self._pending_select = None
        self.laying_out = False
        self.tree_layout = layout
        self._forget_layouts()
        self.nav = Nav(session, layout, sticky)
        self._remember_layout(session, self.mode, frozenset(self.folded), layout)
        self._navs[id(layout)] = self.nav
        if keep >= 0 and layout.rows:
            self.cursor_row = max(0, min(layout.nearest_row(session, keep), len(layout.rows) - 1))
        else:
            self.cursor_row = 0
        self._set_row_count(len(layout.rows))
        height = self.scrollable_content_region.height or self.size.height
        if follow:
            self._scroll_to_cursor()
        elif 0 <= offset < max(1, height):
            self.scroll_to(y=max(0, self.cursor_row - offset), animate=False, force=True, immediate=True)
        self.post_message(self.LayoutChanged(self))
        self.refresh()

    # ------------------------------------------------------------------ moving
    def move_to_row(self, row: int, direction: int = 1, *, center: bool | None = None, notify: bool = True) -> None:
        """Put the cursor on ``row`` (any row holds it: ``direction`` does not matter),
        scrolled into view as :meth:`_scroll_to_cursor` does with ``center``; the selection
        changed is said unless ``notify`` is False."""
        target = self._cursor_target(row, direction)
        if target is None:
            return
        assert self.tree_layout is not None
        changed = target != self.cursor_row
        self._anchor = self.tree_layout.rows[target].entry
        self._put_cursor(target, center=center)
        if changed and notify:
            self._selection_changed()

    def _selection_changed(self) -> None:
        # The screen's listener is called at once, not sent a message: a message, even one
        # posted straight to the screen, is handled after the tree's cursor was painted, so
        # every key took two paints and the pane came a frame late (measured with
        # benchmarks/app_open.py --keys: see docs/performance-history.md, 2026-11-29). A tree
        # without a listener (on its own, in a test) posts SelectionChanged.
        listener = self.selection_listener
        if listener is not None:
            listener(self.selected_entry)
        elif self.is_attached:
            self.post_message(self.SelectionChanged(self, self.selected_entry))

    def select_entry(self, entry: int, *, notify: bool = True, center: bool | None = True) -> bool:
        """Select ``entry``, unfolding folds that hide it. False when it is not shown."""
        if self.session is None or self.tree_layout is None or entry is None or entry < 0:
            return False
        if self.laying_out:
            self._pending_select = entry
            return True
        row = self.tree_layout.row_of.get(entry)
        if row is None:
            if entry not in self.tree_layout.visible_parent:
                return False
            # Hidden by a fold: open every fold above it.
            node = self.tree_layout.visible_parent.get(entry, -1)
            opened = False
            while node >= 0:
                if node in self.folded:
                    self.folded.discard(node)
                    opened = True
                node = self.tree_layout.visible_parent.get(node, -1)
            if not opened:
                return False
            self.relayout(keep=entry)
            return True
        self.move_to_row(row, center=center, notify=notify)
        return True

    def _scroll_to_cursor(self, center: bool | None = None) -> None:
        height = self.scrollable_content_region.height or self.size.height
        if height <= 0:
            return
        top = round(self.scroll_y)
        row = self.cursor_row
        if center is None and top <= row < top + height:
            return
        if center or center is None and (row < top - height or row > top + 2 * height):
            target = max(0, _top_for(row, height, "center"))
        else:
            target = _top_for(row, height, "top" if row < top else "bottom")
        self.scroll_to(y=target, animate=False, force=True, immediate=True)

    def action_toggle_fold(self) -> None:
        """Fold/unfold the selected fork; on a plain entry, fold the branch it is in."""
        if not self.tree_layout or not self.tree_layout.rows or self.session is None:
            return
        row = self.tree_layout.rows[self.cursor_row]
        target = None
        if row.foldable:
            target = row.entry
        else:
            node = self.tree_layout.visible_parent.get(row.entry, -1)
            while node >= 0:
                row_index = self.tree_layout.row_of.get(node)
                if row_index is not None and self.tree_layout.rows[row_index].foldable:
                    target = node
                    break
                node = self.tree_layout.visible_parent.get(node, -1)
        if target is None:
            self.app.bell()
            return
        if target in self.folded:
            self.folded.discard(target)
        else:
            self.folded.add(target)
        self.relayout(keep=target)

    # ------------------------------------------------------------------ the branch keys
    def _go(self, target: int | None, what: str) -> None:
        """Select ``target``; a bell and a toast saying there is no ``what`` when None."""
        if self.session is None or self.nav is None:
            return
        if target is None or target < 0:
            self.app.bell()
            self.notify(f"No {what}", timeout=1.5)
            return
        self.select_entry(target)

    def go_sibling(self, step: int) -> None:
        """``[`` ``]``: the previous (``step`` -1) or next sibling branch at the nearest fork."""
        if self.nav is not None:
            self._go(sibling_target(self.nav, self.selected_entry, step),
                     "previous sibling branch" if step < 0 else "next sibling branch")

    def go_fork(self, step: int) -> None:
        """``{`` ``}``: the fork above or below on the branch shown."""
        if self.nav is not None:
            self._go(fork_target(self.nav, self.selected_entry, step), "fork above" if step < 0 else "fork below")

    def go_root(self) -> None:
        """``g``: the root of the selection's tree."""
        if self.nav is not None:
            self._go(root_target(self.nav, self.selected_entry), "root")

    def go_leaf(self) -> None:
        """``G``: the leaf of the branch shown."""
        if self.nav is not None:
            self._go(leaf_target(self.nav, self.selected_entry), "leaf")

    def go_user(self, step: int) -> None:
        """``u`` ``U``: the user message above or below on the branch shown."""
        if self.nav is not None:
            self._go(user_target(self.nav, self.selected_entry, step),
                     "user message above" if step < 0 else "user message below")

    def show_entry(self, entry: int) -> None:
        """Select ``entry``, or the nearest row shown when the filter hides it."""
        if self.session is not None and self.tree_layout is not None and not self.select_entry(entry):
            self.move_to_row(self.tree_layout.nearest_row(self.session, entry))

    # ------------------------------------------------------------------ title
    def update_title(self) -> None:
        """The border's title (the filter, following) and subtitle (the cursor's row)."""
        title = f"Tree · {self.mode}" + (" · following" if self.following else "")
        layout = self.tree_layout
        subtitle = f"{self.cursor_row + 1}/{self.row_count}" if layout is not None and layout.rows else ""
        # (setting the title repaints the whole tree, even to the same text; the
        # subtitle, which changes with every move, only its line: set_subtitle)
        if self.border_title != title:
            self.border_title = title
        self.set_subtitle(subtitle)

    def watch_following(self) -> None:
        self.update_title()

    # ------------------------------------------------------------------ mouse
    def _row_clicked(self, row_no: int, at: Offset, event: events.Click) -> None:
        assert self.tree_layout is not None
        self.focus()
        row = self.tree_layout.rows[row_no]
        self.move_to_row(row_no, center=False)
        # the fold glyph: in the connector, or (a folded root's) after the prefix
        glyph_x = None
        # (where the prefix is drawn cut to its end, its columns moved left by the cut)
        cut = max(0, row.indent * 3 - _guides_budget(self.scrollable_content_region.width))
        if row.connector and (row.foldable or row.folded):
            glyph_x = 2 + (row.indent - 1) * 3 + 1 - cut
        elif row.folded:
            glyph_x = 2 + row.indent * 3 - cut
        if glyph_x is not None and abs(at.x - glyph_x) <= 1:
            self.action_toggle_fold()
            return
        if event.chain == 2 and (row.foldable or row.folded):
            self.action_toggle_fold()

    # ------------------------------------------------------------------ drawing
    def summarised(self, entry: int) -> bool:
        """Whether ``entry``'s row summary is made and kept (shown before, or made ahead)."""
        return entry in self._summaries

    def summary(self, entry: int) -> Summary:
        got = self._summaries.get(entry)
        if got is None:
            assert self.session is not None
            got = self._summaries[entry] = _summary(self.session, entry)
        return got

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        row_no = y + round(self.scroll_y)
        base = self._style("base")
        if self.tree_layout is None or not 0 <= row_no < len(self.tree_layout.rows):
            if y == 0 and self.tree_layout is None and self.placeholder:
                return Strip(cut_segments([Segment("  " + self.placeholder, self._style("branch-tree--dim"))],
                                          width)).adjust_cell_length(width, base)
            if y < 3 and self.tree_layout is not None and not self.tree_layout.rows:
                # said in short lines, so that a narrow tree shows it whole
                if self.session is not None and not len(self.session):
                    lines = ("  no entries yet", "  (a header only)", "")
                else:
                    lines = ("  none shown by", f"  filter {self.mode}", "  (f: another)")
                return Strip(cut_segments([Segment(lines[y], self._style("branch-tree--dim"))], width)).adjust_cell_length(
                    width, base)
            return Strip.blank(width, base)
        is_cursor = row_no == self.cursor_row
        focus = is_cursor and self.has_focus
        # A row's Strip is made once and reused while it looks the same: most frames
        # repaint the whole tree (the subtitle changes with the cursor), and the same Strip
        # object also finds Textual's own per-Strip caches warm.
        if self._strips_layout is not self.tree_layout or len(self._strips) > 512:
            self._strips.clear()
            self._strips_layout = self.tree_layout
        key = (row_no, is_cursor, focus, width)
        strip = self._strips.get(key)
        if strip is not None:
            return strip
        row = self.tree_layout.rows[row_no]
        overlay: Style | None = None
        if is_cursor:
            overlay = self._cursor_style(focus)
        segments = self._row_segments(row, is_cursor, width)
        if overlay is not None:
            segments = [Segment(text, (style or base) + Style(bgcolor=overlay.bgcolor)) for text, style, _ in segments]
        fill = base + Style(bgcolor=overlay.bgcolor) if overlay is not None else base
        strip = self._strips[key] = Strip(segments).adjust_cell_length(width, fill)
        return strip

    def _row_segments(self, row: TreeRow, is_cursor: bool, width: int) -> list[Segment]:
        assert self.session is not None
        st = self._style
        base = st("base")
        session = self.session
        segs: list[Segment] = []
        segs.append(Segment("› " if is_cursor else "  ", st("branch-tree--active") if is_cursor else base))
        prefix = row.prefix()
        budget = _guides_budget(width)
        if len(prefix) > budget:
            prefix = "…" + prefix[len(prefix) - budget + 1 :]
        if prefix:
            segs.append(Segment(prefix, st("branch-tree--gutter")))
        # As Pi: a folded root's mark, then the current path's mark (no column kept for
        # it off the path: a second root would look nested inside the first)
        if row.folded and not row.connector:
            segs.append(Segment(row.fold_mark, st("branch-tree--active")))
        if row.active:
            segs.append(Segment(row.path_mark, st("branch-tree--active")))
        label = session.label_of(row.entry)
        if label:
            segs.append(Segment(f"[{visible(label)}] ", st("branch-tree--label")))
        summ = self.summary(row.entry)
        kind_class = _KIND_CLASS.get(summ.kind)
        text_style = st("branch-tree--dim") if summ.dim else base
        if summ.prefix:
            segs.append(Segment(summ.prefix, st(kind_class) if kind_class else text_style))
        body_style = text_style
        if summ.kind in ("tool-error", "damaged"):
            body_style = st("branch-tree--error")
        elif summ.kind in ("compaction", "branch-summary") and not summ.prefix:
            body_style = st(kind_class)
        elif summ.kind == "custom-message" and not summ.prefix:
            body_style = st(kind_class)
        segs.append(Segment(summ.text, body_style))
        # A folded row says how many rows its fold hides, kept at the end when the text is cut.
        tail = [Segment(f" (+{row.hidden_below})", st("branch-tree--folded"))] if row.folded else []
        tail_len = cell_len(tail[0].text) if tail else 0
        if tail and width - tail_len < 5:
            tail, tail_len = [], 0  # (too narrow for the count: the text keeps what room there is)
        return cut_segments(segs, width - tail_len, st("branch-tree--dim")) + tail

    def notify_style_update(self) -> None:
        self._strips.clear()
        super().notify_style_update()
