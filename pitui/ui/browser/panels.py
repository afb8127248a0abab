"""The panels' layout: how the sidebar, the tree and the message pane share the width, the
sidebar hidden or shown (``b``), the widths changed by keys (``<`` ``>``, ``-`` ``+``, ``0``
for the defaults) or by dragging the gap between two panels, and all of it remembered in
pitui's settings (:mod:`pitui.core.settings`), per terminal-size class.

The message pane is what people read, so it gets the room (:func:`panel_widths`): in a
wide terminal (:data:`WIDE_FROM` columns on) the sidebar takes what a session's title
needs, the tree what its rows need up to a cap, never more than the pane, and the pane
the rest, at least 70 columns where there are. In a narrow one (a tmux split) three
panels cannot each be useful: the tree and the pane share the width, the pane keeping at
least 60 columns, and the sidebar is one key away (``b``), in the tree's place until a
session is opened from it (or Escape). A width the user chose is kept as a share (a
percent of the screen for the sidebar, of the tree and the pane together for the tree),
so it fits any later terminal of that class too. Nothing here runs while drawing: only
when a key, a drag, a zoom or a resize changes the layout.
"""

from __future__ import annotations

from typing import Any

from textual.widget import Widget

from ...core.settings import Layout
from ..widgets.splitter import Splitter

__all__ = ["PanelLayout", "panel_widths", "width_class", "WIDE_FROM"]

#: From this many columns on the terminal is wide: three panels, each useful.
WIDE_FROM = 120
#: What a tree row needs: a ``[bash: …]`` row whole, as Pi cuts its command at 50
#: characters, one fork deep, with the tree's border and scrollbar.
TREE_NEEDS = 72
#: The tree's least width when there is little room (its rows still say what they are).
TREE_LEAST = 30
TREE_LEAST_NARROW = 16
#: The message pane's least width, wide and narrow, where the tree can spare it.
PANE_LEAST = 70
PANE_LEAST_NARROW = 60
#: The sidebar: a share of the width, within what a session's title needs.
SIDEBAR_SHARE = 0.22
SIDEBAR_RANGE = (28, 44)


def width_class(width: int) -> str:
    """The terminal-size class of a screen ``width`` columns wide (its layout is kept apart)."""
    return "wide" if width >= WIDE_FROM else "narrow"


def panel_widths(width: int, layout: Layout) -> tuple[int, int]:
    """The widths of the sidebar (0 when hidden) and of the left panel beside the pane (the
    tree, or at narrow widths the sidebar in its place), in cells, for a screen ``width``
    columns wide laid out as ``layout`` says; the pane has the rest but the gaps between
    panels. The widths the user chose are shares of the width (kept in ``layout``), the
    others the defaults: see the module's docstring."""
    shown = not layout.sidebar_hidden
    chosen_sidebar = int(layout.sidebar_width * width / 100) if layout.sidebar_width is not None else None
    if width_class(width) == "narrow":
        rest = width - 1  # (one gap: the left panel and the pane)
        left = max(min(TREE_NEEDS, rest // 2, rest - PANE_LEAST_NARROW), min(TREE_LEAST_NARROW, rest // 2))
        if shown:  # (in the tree's place)
            return (chosen_sidebar if chosen_sidebar is not None else left), 0
        tree_least, pane_least = TREE_LEAST_NARROW, PANE_LEAST_NARROW
        sidebar = 0
    else:
        sidebar = 0
        if shown:
            sidebar = chosen_sidebar if chosen_sidebar is not None else min(
                SIDEBAR_RANGE[1], max(SIDEBAR_RANGE[0], round(width * SIDEBAR_SHARE)))
        rest = width - (sidebar + 2 if shown else 1)
        tree_least, pane_least = TREE_LEAST, PANE_LEAST
    if layout.tree_share is not None:
        return sidebar, int(layout.tree_share * rest / 100)
    return sidebar, max(min(TREE_NEEDS, rest // 2, rest - pane_least), min(tree_least, rest // 2))


class PanelLayout:
    """Which of ``screen``'s panels are shown, and their widths (a helper the browser owns)."""

    #: Cells a width key moves a panel's edge by.
    WIDTH_STEP = 4
    #: The narrowest a panel can be made by keys or the mouse, in cells.
    MIN_PANEL = 12

    def __init__(self, screen: Any) -> None:
        """``screen``: the browser screen (its panels, size and zoom)."""
        self.screen = screen

    @property
    def width_class(self) -> str:
        screen = self.screen
        return width_class(screen.size.width or screen.app.size.width)

    @property
    def layout(self) -> Layout:
        """The layout chosen for the terminal's size class."""
        return self.screen.papp.settings.layout(self.width_class)

    @property
    def sidebar_in_tree_place(self) -> bool:
        """At narrow widths the sidebar, when shown, takes the tree's place."""
        return self.width_class == "narrow" and not self.layout.sidebar_hidden

    def set_layout(self, new: Layout, *, save: bool = True) -> None:
        """Use ``new`` for this size class (the panels follow), and remember it unless
        ``save`` is false (a drag saves once, when it ends)."""
        app = self.screen.papp
        app.save_settings(app.settings.with_layout(self.width_class, new), save=save)
        self.apply()

    def apply(self) -> None:
        """Show the panels as the layout of this size class says, with their widths. A
        zoomed panel keeps the whole screen."""
        screen = self.screen
        layout = self.layout
        sidebar, tree = screen.sidebar, screen.branch_tree
        in_place = self.sidebar_in_tree_place
        sidebar.display = screen.query_one("#sidebar-splitter").display = not layout.sidebar_hidden
        tree.display = screen.query_one("#tree-splitter").display = not in_place
        side_cells, tree_cells = panel_widths(screen.size.width or screen.app.size.width, layout)
        zoomed = screen.maximized
        _set_width(sidebar, None if zoomed is sidebar else max(self.MIN_PANEL, side_cells))
        _set_width(tree, None if zoomed is tree or in_place else max(self.MIN_PANEL, tree_cells))

    # ------------------------------------------------------------------ the sidebar shown or hidden
    def toggle_sidebar(self) -> None:
        screen = self.screen
        hide = not self.layout.sidebar_hidden
        if screen.maximized is screen.sidebar:
            screen.minimize()
        in_place = self.width_class == "narrow"
        if hide and screen.focused is not None and screen.sidebar in screen.focused.ancestors_with_self:
            screen.branch_tree.focus()  # (focus leaves with the sidebar; Tab skips it while hidden)
        self.set_layout(self.layout.but(sidebar_hidden=hide))
        if in_place:
            # the sidebar and the tree take turns beside the pane: focus goes with them
            (screen.branch_tree if hide else screen.session_list).focus()
            screen.notify("The tree is back (b shows the sessions)" if hide
                          else "Sessions, in the tree's place (Enter opens one, Esc brings the tree back)", timeout=2)
        else:
            screen.notify("Sidebar hidden (b shows it)" if hide else "Sidebar shown (b hides it)", timeout=1.5)

    def focus_tree(self) -> None:
        """Focus the tree; at narrow widths, where the sidebar may be in its place, the
        tree comes back first (a session was opened: the tree shows it)."""
        if self.sidebar_in_tree_place:
            self.set_layout(self.layout.but(sidebar_hidden=True))
        self.screen.branch_tree.focus()

    # ------------------------------------------------------------------ widths
    def sidebar_width(self, step: int) -> None:
        if self.layout.sidebar_hidden:
            self.screen.notify("The sidebar is hidden (b shows it)", timeout=1.5)
            return
        self._set_sidebar(self._sidebar_cells() + step * self.WIDTH_STEP)

    def tree_width(self, step: int) -> None:
        if self.sidebar_in_tree_place:
            self._set_sidebar(self._sidebar_cells() + step * self.WIDTH_STEP)
            return
        self._set_tree(self._tree_cells() + step * self.WIDTH_STEP)

    def reset(self) -> None:
        self.set_layout(self.layout.but(sidebar_width=None, tree_share=None))
        self.screen.notify("Panel widths: the defaults for the terminal's size", timeout=1.5)

    # (A width is worked out from the one chosen rather than the one on screen, so keys
    # pressed faster than the screen is laid out add up; and kept as the share that gives
    # that many cells and a hundredth, as the cells are worked out by flooring.)
    def _sidebar_cells(self) -> int:
        chosen = self.layout.sidebar_width
        if chosen is None:
            return self.screen.sidebar.outer_size.width
        return int(chosen * self.screen.size.width / 100)

    def _tree_cells(self) -> int:
        chosen = self.layout.tree_share
        if chosen is None:
            return self.screen.branch_tree.outer_size.width
        return int(chosen * self._tree_and_pane() / 100)

    def _tree_and_pane(self) -> int:
        screen = self.screen
        return screen.branch_tree.outer_size.width + screen.query_one("#right").outer_size.width

    def _set_sidebar(self, cells: int, *, save: bool = True) -> None:
        """The sidebar ``cells`` wide, within bounds (a bell at a bound)."""
        whole = self.screen.size.width
        if whole > 0:
            cells = min(whole - self.MIN_PANEL - 1, max(self.MIN_PANEL, cells))
            self._set_width_setting(self.layout.but(sidebar_width=(cells + 0.01) * 100 / whole), save)

    def _set_tree(self, cells: int, *, save: bool = True) -> None:
        """The tree ``cells`` wide, the pane the rest, each within bounds."""
        both = self._tree_and_pane()
        if both > 2 * self.MIN_PANEL:
            cells = min(both - self.MIN_PANEL, max(self.MIN_PANEL, cells))
            self._set_width_setting(self.layout.but(tree_share=(cells + 0.01) * 100 / both), save)

    def _set_width_setting(self, new: Layout, save: bool) -> None:
        if new == self.layout and save:
            self.screen.app.bell()  # (already at its narrowest or widest)
        self.set_layout(new, save=save)

    def dragged(self, event: Splitter.Dragged) -> None:
        """A gap dragged: the panel on its left ends where the pointer is (remembered when
        the drag ends)."""
        screen = self.screen
        if event.splitter.id == "sidebar-splitter":
            self._set_sidebar(event.x - screen.sidebar.region.x, save=event.done)
        else:
            self._set_tree(event.x - screen.branch_tree.region.x, save=event.done)


def _set_width(panel: Widget, cells: int | None) -> None:
    """``panel`` ``cells`` wide, or, for None, as ``app.tcss`` says (a zoomed panel)."""
    if cells is None:
        if panel.styles.inline.has_rule("width"):
            panel.styles.width = None
    else:
        panel.styles.width = cells  # (Textual lays out again only when it changes)
