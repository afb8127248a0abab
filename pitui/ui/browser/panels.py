"""The panels' layout: the sidebar hidden or shown (``b``), the sidebar's and the tree's
widths changed by keys (``<`` ``>``, ``-`` ``+``, ``0`` for the defaults) or by dragging the
gap between two panels, and all of it remembered in pitui's settings
(:mod:`pitui.core.settings`).

By default the widths follow the terminal's (``app.tcss``): the sidebar a fifth of it within
bounds, the tree and the pane half of the rest each. A width the user chose is kept as a
share (a percent of the screen for the sidebar, of the tree and the pane together for the
tree), so it fits any later terminal size too. Nothing here runs while drawing: only when a
key, a drag or a zoom changes the layout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget

from ...core import settings as settings_file
from ...core.settings import Settings
from ..widgets.splitter import Splitter

if TYPE_CHECKING:
    from .screen import BrowserScreen

__all__ = ["Panels"]


class Panels:
    """Part of :class:`BrowserScreen`: the sidebar shown or hidden, the panels' widths."""

    #: Cells a width key moves a panel's edge by.
    WIDTH_STEP = 4
    #: The narrowest a panel can be made by keys or the mouse, in cells.
    MIN_PANEL = 12

    def _init_panels(self: "BrowserScreen") -> None:
        """The panels as the settings read at the start say."""
        self._settings_saved = self.papp.settings  # (what the settings file holds)
        self.apply_panels()

    @property
    def settings(self: "BrowserScreen") -> Settings:
        return self.papp.settings

    def _set_settings(self: "BrowserScreen", new: Settings, *, save: bool = True) -> None:
        """Use ``new`` (the panels follow), and remember it unless ``save`` is false (a drag
        saves once, when it ends)."""
        self.papp.settings = new
        self.apply_panels()
        if save and new != self._settings_saved:
            settings_file.save(new)
            self._settings_saved = new

    def apply_panels(self: "BrowserScreen") -> None:
        """Show the panels as the settings say: the sidebar shown or not, and the widths
        the user chose set on the panels (the others left to ``app.tcss``). A zoomed panel
        keeps the whole screen."""
        s = self.papp.settings
        sidebar, tree, right = self.sidebar, self.branch_tree, self.query_one("#right")
        zoomed = self.maximized
        sidebar.display = self.query_one("#sidebar-splitter").display = not s.sidebar_hidden
        _set_width(sidebar, None if zoomed is sidebar or s.sidebar_width is None else f"{s.sidebar_width}%",
                   self.MIN_PANEL)
        share = s.tree_share
        _set_width(tree, None if zoomed is tree or share is None else f"{share}fr", self.MIN_PANEL)
        _set_width(right, None if zoomed is right or share is None else f"{100 - share:.3f}fr", self.MIN_PANEL)

    def watch_maximized(self: "BrowserScreen") -> None:
        # a zoomed panel takes the screen's width (app.tcss), never the width chosen for it
        self.apply_panels()

    # ------------------------------------------------------------------ the sidebar shown or hidden
    def action_toggle_sidebar(self: "BrowserScreen") -> None:
        hide = not self.settings.sidebar_hidden
        if self.maximized is self.sidebar:
            self.minimize()
        if hide and self.focused is not None and self.sidebar in self.focused.ancestors_with_self:
            self.branch_tree.focus()  # (focus leaves with the sidebar; Tab skips it while hidden)
        self._set_settings(self.settings.but(sidebar_hidden=hide))
        self.notify("Sidebar hidden (b shows it)" if hide else "Sidebar shown (b hides it)", timeout=1.5)

    # ------------------------------------------------------------------ widths
    def action_sidebar_width(self: "BrowserScreen", step: int) -> None:
        if self.settings.sidebar_hidden:
            self.notify("The sidebar is hidden (b shows it)", timeout=1.5)
            return
        self._set_sidebar(self._sidebar_cells() + step * self.WIDTH_STEP)

    def action_tree_width(self: "BrowserScreen", step: int) -> None:
        self._set_tree(self._tree_cells() + step * self.WIDTH_STEP)

    def action_reset_layout(self: "BrowserScreen") -> None:
        self._set_settings(self.settings.but(sidebar_width=None, tree_share=None))
        self.notify("Panel widths: the defaults for the terminal's size", timeout=1.5)

    # (A width is worked out from the one chosen rather than the one on screen, so keys
    # pressed faster than the screen is laid out add up; and kept as the share that gives
    # that many cells and a hundredth: Textual floors where a panel ends.)
    def _sidebar_cells(self: "BrowserScreen") -> int:
        chosen = self.settings.sidebar_width
        if chosen is None:
            return self.sidebar.outer_size.width
        return int(chosen * self.size.width / 100)

    def _tree_cells(self: "BrowserScreen") -> int:
        chosen = self.settings.tree_share
        if chosen is None:
            return self.branch_tree.outer_size.width
        return int(chosen * self._tree_and_pane() / 100)

    def _tree_and_pane(self: "BrowserScreen") -> int:
        return self.branch_tree.outer_size.width + self.query_one("#right").outer_size.width

    def _set_sidebar(self: "BrowserScreen", cells: int, *, save: bool = True) -> None:
        """The sidebar ``cells`` wide, within bounds (a bell at a bound)."""
        whole = self.size.width
        if whole > 0:
            cells = max(self.MIN_PANEL, cells)
            self._set_width_setting(self.settings.but(sidebar_width=(cells + 0.01) * 100 / whole), save)

    def _set_tree(self: "BrowserScreen", cells: int, *, save: bool = True) -> None:
        """The tree ``cells`` wide, the pane the rest, each within bounds."""
        both = self._tree_and_pane()
        if both > 2 * self.MIN_PANEL:
            cells = min(both - self.MIN_PANEL, max(self.MIN_PANEL, cells))
            self._set_width_setting(self.settings.but(tree_share=(cells + 0.01) * 100 / both), save)

    def _set_width_setting(self: "BrowserScreen", new: Settings, save: bool) -> None:
        if new == self.settings and save:
            self.app.bell()  # (already at its narrowest or widest)
        self._set_settings(new, save=save)

    def on_splitter_dragged(self: "BrowserScreen", event: Splitter.Dragged) -> None:
        """A gap dragged: the panel on its left ends where the pointer is (remembered when
        the drag ends)."""
        event.stop()
        if event.splitter.id == "sidebar-splitter":
            self._set_sidebar(event.x - self.sidebar.region.x, save=event.done)
        else:
            self._set_tree(event.x - self.branch_tree.region.x, save=event.done)


def _set_width(panel: Widget, width: str | None, min_width: int) -> None:
    """``width`` set on ``panel`` (a chosen width, no bounds but ``min_width``), or, for
    None, what ``app.tcss`` says."""
    styles = panel.styles
    if width is None:
        if styles.inline.has_rule("width"):
            styles.width = None
            styles.min_width = None
            styles.max_width = None
        return
    styles.width = width
    styles.min_width = min_width
    styles.max_width = "100%"
