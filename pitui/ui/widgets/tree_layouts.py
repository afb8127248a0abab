"""The branch tree's layouts: one per filter and set of folds, made on a worker for a big
session and cached for the session as it is; the next filter's layout made ahead; the
navigation caches of a layout that came without them (from a worker process)."""

from __future__ import annotations

from functools import partial

from textual.worker import get_current_worker

from ...core.read.session import Session
from ...core.model.layout import FILTERS, TreeLayout, layout_tree
from ...core.model.navigation import Nav
from ..messages import TreeLayoutMade

__all__ = ["TreeLayouts"]


def _untracked(layout: TreeLayout) -> TreeLayout:
    """``layout`` with each entry's shown children as a tuple, not a list: a tuple of ints
    is left alone by the garbage collector, while tens of thousands of lists kept in the
    layout cache would be walked by every full collection (~0.5 µs each, on a key)."""
    vc = layout.visible_children
    layout.visible_children = dict(zip(vc, map(tuple, vc.values())))
    layout.forks  # (made here, on the worker, not on the first fork key)
    return layout


def _token(session: Session) -> tuple:
    """Identifies ``session`` as read so far: a refresh that read more entries gives the
    session new arrays, so layouts made before it no longer apply."""
    return (id(session), id(session.parent), len(session))


class TreeLayouts:
    """Part of :class:`BranchTree`: its layouts."""

    #: Sessions with more entries than this are laid out in a thread (a layout grows with the
    #: entries: past this it would hold a key).
    LAYOUT_IN_THREAD = 15_000
    #: Seconds after a big session is shown before the next filter's layout is made.
    NEXT_FILTER_DELAY = 1.0

    def watch_mode(self, mode: str) -> None:
        # Keep the entry the user chose, even through a filter that hid it for a while.
        anchor = self._anchor
        if anchor is None or self.session is None or not 0 <= anchor < len(self.session):
            anchor = None
        self.relayout(keep=anchor)
        if not self.laying_out:
            self._prepare_next_filter()

    def cycle_mode(self, step: int = 1) -> str:
        index = FILTERS.index(self.mode) if self.mode in FILTERS else 0
        self.mode = FILTERS[(index + step) % len(FILTERS)]
        return self.mode

    def relayout(self, keep: int | None = None) -> None:
        """Lay rows out again for the current mode and folds, keeping the selection.

        A layout made before for this mode and folds (of the session as it is) is shown at
        once; a big session's new layout is made in a thread and shown when done. After
        each layout is shown, the next filter's is made in the background, so cycling the
        filters with ``f`` answers at once."""
        if self.session is None:
            return
        keep = self.selected_entry if keep is None else keep
        session, mode, folded = self.session, self.mode, frozenset(self.folded)
        cached = self._cached_layout(mode, folded)
        if cached is not None:
            if self.laying_out:
                self.laying_out = False
                self._waiting = None
                if self._pending_select is not None:
                    keep, self._pending_select = self._pending_select, None
            self._apply_layout(cached, keep)
            return
        if len(session) > self.LAYOUT_IN_THREAD:
            self.laying_out = True
            self._waiting = ((mode, folded), keep)
            self._layout_in_thread(mode, folded)
        else:
            self._apply_layout(layout_tree(session, mode, folded), keep)

    def _layout_in_thread(self, mode: str, folded: frozenset, *, later: bool = False) -> None:
        """Make the layout for ``mode`` and ``folded`` in a thread (unless under way);
        :meth:`_layout_made` takes it (from a :class:`TreeLayoutMade`). ``later``: start
        once the frame being made is on screen (a thread laying out meanwhile would take
        the interpreter lock from it half of the time)."""
        session = self.session
        assert session is not None
        token = _token(session)
        if self._making.get((mode, folded)) == token:
            return  # under way
        self._making[(mode, folded)] = token

        def work() -> None:
            layout = _untracked(layout_tree(session, mode, folded))
            if not get_current_worker().is_cancelled:
                self.post_message(TreeLayoutMade(session, mode, folded, layout, token))

        def start() -> None:
            if self._making.get((mode, folded)) == token:
                self.run_worker(work, thread=True, group="tree-layout", exit_on_error=False)

        if later:
            self.call_after_refresh(start)
        else:
            start()

    def on_tree_layout_made(self, message: TreeLayoutMade) -> None:
        self._layout_made(message.session, message.mode, message.folded, message.layout, message.token)

    def _layout_made(self, session: Session, mode: str, folded: frozenset, layout: TreeLayout, token: tuple) -> None:
        if self._making.get((mode, folded)) == token:
            del self._making[(mode, folded)]
        if session is not self.session or token != _token(session):
            return  # another session, or this one read further since
        if folded != frozenset(self.folded):
            return  # the folds changed meanwhile
        self._remember_layout(session, mode, folded, layout)
        waiting, self._waiting = self._waiting, None
        if waiting is None or waiting[0] != (mode, folded) or mode != self.mode:
            self._waiting = waiting  # (made ahead, or overtaken: kept for later)
            return
        self.laying_out = False
        keep = waiting[1]
        if self._pending_select is not None:
            keep, self._pending_select = self._pending_select, None
        self._apply_layout(layout, keep)
        self._prepare_next_filter()

    # ------------------------------------------------------------------ layout cache
    def _layouts_valid(self, session: Session) -> bool:
        """Whether the cached layouts are of ``session`` as it is now."""
        return self._layouts_of == _token(session)

    def _cached_layout(self, mode: str, folded: frozenset) -> TreeLayout | None:
        if self.session is None or not self._layouts_valid(self.session):
            return None
        return self._layouts.get((mode, folded))

    def kept_layouts(self) -> dict[tuple[str, frozenset], TreeLayout]:
        """The layouts kept for the session as it is now, by filter and folds (a copy):
        those a filter change shows at once, without laying rows out."""
        if self.session is None or not self._layouts_valid(self.session):
            return {}
        return dict(self._layouts)

    def _remember_layout(self, session: Session, mode: str, folded: frozenset, layout: TreeLayout) -> None:
        if session is not self.session:
            return
        if not self._layouts_valid(session):
            self._layouts.clear()
            self._navs.clear()
            self._layouts_of = _token(session)
        # Only the current folds' layouts are kept (one per filter at most).
        for key in [layout for layout in self._layouts if layout[1] != folded]:
            self._navs.pop(id(self._layouts.pop(key)), None)
        self._layouts[(mode, folded)] = layout

    def _forget_layouts(self) -> None:
        self._layouts.clear()
        self._navs.clear()
        self._layouts_of = None
        self._waiting = None
        if self._making:
            self._making.clear()
            self.workers.cancel_group(self, "tree-layout")

    def _prepare_next_filter(self) -> None:
        """Make the next filter's layout (what ``f`` shows) in the background."""
        session = self.session
        if session is None or len(session) <= self.LAYOUT_IN_THREAD or self.mode not in FILTERS:
            return
        mode = FILTERS[(FILTERS.index(self.mode) + 1) % len(FILTERS)]
        folded = frozenset(self.folded)
        if self._cached_layout(mode, folded) is None:
            self._layout_in_thread(mode, folded, later=True)

    def _apply_layout(self, layout: TreeLayout, keep: int, center: bool = False) -> None:
        assert self.session is not None
        old_entry = self.selected_entry
        self.tree_layout = layout
        same = self.nav is not None and self.nav.session is self.session
        sticky = self.nav.sticky_leaf if same else -1
        nav = self._navs.get(id(layout)) if same else None
        if nav is not None and nav.tree_layout is layout:
            nav.sticky_leaf = sticky  # (its caches of leaves and visible paths still hold)
            self.nav = nav
        else:
            self.nav = Nav(self.session, layout, sticky, self.nav.paths if same else None)
        self._remember_layout(self.session, self.mode, frozenset(self.folded), layout)
        self._navs[id(layout)] = self.nav
        if keep is not None and keep >= 0 and layout.rows:
            self.cursor_row = layout.nearest_row(self.session, keep)
        else:
            self.cursor_row = 0
        self.cursor_row = max(0, min(self.cursor_row, len(layout.rows) - 1))
        self._set_row_count(len(layout.rows))
        self.post_message(self.LayoutChanged(self))
        self._scroll_to_cursor(center=True if center else None)
        self.refresh()
        if self.selected_entry != old_entry or center:
            self._selection_changed()

    def prepare_navigation(self) -> None:
        """Make the shown children of every entry (what the fork and sibling keys walk)
        in a thread, for a layout that came without them (one made in another process
        leaves them out), instead of on the first such key (~10-30 ms for 50,000 rows)."""
        layout = self.tree_layout
        if layout is None or layout.has_children:
            return
        self.run_worker(partial(_untracked, layout), thread=True, group="tree-children", exit_on_error=False)
