"""The keys that move through the open session and change what the pane shows: branch
navigation (its targets are core's: ``core/model/navigation.py``), the tree's filter, the
pane's toggles, in-pane search, zoom, and the screens over the browser (context, search
of every session)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from ...core.model.navigation import fork_target, leaf_target, root_target, sibling_target, user_target
from ...core.text import visible
from ..messages import SearchChanged

if TYPE_CHECKING:
    from .screen import BrowserScreen

__all__ = ["Actions"]


class Actions:
    """Part of :class:`BrowserScreen`: moving and toggling."""

    # ------------------------------------------------------------------ branch navigation
    def _nav_move(self: "BrowserScreen", target: int | None, what: str) -> None:
        if self.session is None or self.branch_tree.nav is None:
            return
        if target is None or target < 0:
            self.app.bell()
            self.notify(f"No {what}", timeout=1.5)
            return
        self.branch_tree.select_entry(target)

    def action_sibling(self: "BrowserScreen", step: int) -> None:
        t = self.branch_tree
        if t.nav is None:
            return
        self._nav_move(sibling_target(t.nav, t.selected_entry, step),
                       "previous sibling branch" if step < 0 else "next sibling branch")

    def action_fork(self: "BrowserScreen", step: int) -> None:
        t = self.branch_tree
        if t.nav is None:
            return
        self._nav_move(fork_target(t.nav, t.selected_entry, step), "fork above" if step < 0 else "fork below")

    def action_root(self: "BrowserScreen") -> None:
        t = self.branch_tree
        if t.nav is None:
            return
        self._nav_move(root_target(t.nav, t.selected_entry), "root")

    def action_leaf(self: "BrowserScreen") -> None:
        t = self.branch_tree
        if t.nav is None:
            return
        self._nav_move(leaf_target(t.nav, t.selected_entry), "leaf")

    def action_user(self: "BrowserScreen", step: int) -> None:
        t = self.branch_tree
        if t.nav is None:
            return
        self._nav_move(user_target(t.nav, t.selected_entry, step),
                       "user message above" if step < 0 else "user message below")

    # ------------------------------------------------------------------ filter and toggles
    def action_cycle_filter(self: "BrowserScreen") -> None:
        mode = self.branch_tree.cycle_mode()
        self._update_tree_title()
        self.notify(f"Filter: {mode}", timeout=1.5)

    def set_filter(self: "BrowserScreen", mode: str) -> None:
        self.branch_tree.mode = mode
        self._update_tree_title()

    def _toggle_pane(self: "BrowserScreen", attr: str, what: str) -> None:
        pane = self.pane
        value = not getattr(pane, attr)
        setattr(pane, attr, value)
        self.notify(f"{what}: {'on' if value else 'off'}", timeout=1.5)

    def action_toggle_thinking(self: "BrowserScreen") -> None:
        self._toggle_pane("show_thinking", "Thinking")

    def action_toggle_tool_output(self: "BrowserScreen") -> None:
        pane = self.pane
        pane.full_tool_output = not pane.full_tool_output
        self.notify(f"Tool output: {'full' if pane.full_tool_output else 'short'}", timeout=1.5)

    def action_toggle_hidden(self: "BrowserScreen") -> None:
        self._toggle_pane("show_hidden", "Hidden messages")

    def action_zoom(self: "BrowserScreen") -> None:
        if self.maximized is not None:
            self.minimize()
        elif self.focused is not None:
            self.maximize(self.focused)

    # ------------------------------------------------------------------ search in the pane
    def action_search(self: "BrowserScreen") -> None:
        if self.session is None:
            return
        bar = self.search_bar
        self._search_origin = self.focused
        bar.display = True
        bar.focus()

    def hide_search(self: "BrowserScreen") -> None:
        bar = self.search_bar
        bar.display = False
        origin = self._search_origin
        if origin is not None and origin.is_attached and origin is not bar and origin.display:
            origin.focus()
        else:
            self.focus_tree()

    def search_pane(self: "BrowserScreen", query: str) -> None:
        """Find ``query`` in the branch shown and go to the first hit; an empty query ends
        the search."""
        self.hide_search()
        if self.session is None:
            return
        if not query.strip():
            self.pane.clear_search()
            return
        self._pane_search_said = False  # (whether the count, or no match, was told)
        self._goto_first_hit = True
        self.pane.search(query)
        self._first_hit_found()

    def _first_hit_found(self: "BrowserScreen") -> None:
        """Once the pane's search (under way: the branch is matched in slices) has a hit, go
        to it, once; say how many there are when all are counted, or that there is none."""
        pane = self.pane
        if self._goto_first_hit and pane.hit_count:
            self._goto_first_hit = False
            self._goto_hit(False)
        if pane.search_complete and not self._pane_search_said and pane.search_query:
            self._goto_first_hit = False
            self._pane_search_said = True
            query, count = pane.search_query, pane.hit_count
            if not count:
                self.notify(f"No match for {query!r} on this branch", timeout=2)
            else:
                self.notify(f"{count} match{'es' if count != 1 else ''} for {query!r} (n / N)", timeout=2)

    def find_in_pane(self: "BrowserScreen", text: str) -> None:
        """Search the pane for ``text`` (the text a search-all hit matched) and go to its
        first hit from the entry shown at the top: the very line, highlighted, inside a
        long tool result too (its fold opens for the hit)."""
        if self.session is None or not text.strip():
            return
        self._pane_search_said = True  # (nothing to tell: the hit is shown)
        self._goto_first_hit = True
        self.pane.search(text)
        self._first_hit_found()

    def _goto_hit(self: "BrowserScreen", backwards: bool) -> None:
        entry = self.pane.next_hit(backwards=backwards)
        if entry is None:
            self.app.bell()
            return
        tree = self.branch_tree
        if tree.tree_layout is None or self.session is None:
            return
        self._from_pane = True
        try:
            if not tree.select_entry(entry):
                tree.move_to_row(tree.tree_layout.nearest_row(self.session, entry))
        finally:
            self._from_pane = False

    def action_clear_search(self: "BrowserScreen") -> None:
        self.pane.clear_search()

    def on_message_pane_search_changed(self: "BrowserScreen", event: SearchChanged) -> None:
        """The pane's border says where the search stands: ``/query  3/17``."""
        more = "" if event.complete else "+"  # (the rest of the branch is still being matched)
        if not event.query:
            subtitle = ""
        elif not event.count:
            subtitle = f"/{event.query}  no match · esc clears" if event.complete else f"/{event.query}  searching…"
        elif event.position:
            subtitle = f"/{event.query}  {event.position}/{event.count}{more} · n N · esc clears"
        else:
            subtitle = f"/{event.query}  {event.count}{more} hits · n N · esc clears"
        if self._searching != bool(event.query):
            self._searching = bool(event.query)
            self.refresh_bindings()  # (esc clears only while there is a search)
        if event.query:
            self._first_hit_found()
        # (as Content: a str would be read as markup)
        self.query_one("#right").border_subtitle = Content(visible(subtitle)) if subtitle else ""

    def action_next_hit(self: "BrowserScreen", backwards: bool) -> None:
        if self.session is None:
            return
        self._goto_hit(backwards)

    # ------------------------------------------------------------------ screens over the browser
    def action_context(self: "BrowserScreen") -> None:
        s, sel = self.session, self.branch_tree.selected_entry
        if s is None or sel < 0:
            return
        from ..screens.context import ContextScreen

        self.app.push_screen(ContextScreen(s, sel))

    def action_compare(self: "BrowserScreen") -> None:
        """``C``: the branches of the fork selected, or this branch and one picked."""
        s, sel = self.session, self.branch_tree.selected_entry
        if s is None or sel < 0:
            return
        from ..screens.compare import open_compare

        open_compare(self, s, sel)

    def _listed_so_far(self: "BrowserScreen") -> tuple[list, bool]:
        """The sessions the sidebar has listed so far, and whether that is all of them."""
        return list(self.infos.values()), self.listing_done

    def action_search_all(self: "BrowserScreen") -> None:
        """Every session under the root; the chosen hit opens with its entry selected."""

        def opened(result) -> None:
            if result is None:
                return
            path, entry_id, match = result
            self.open_session(path, select_id=entry_id, find=match)
            self.focus_tree()

        from ..screens.search import SearchScreen

        app = self.papp
        self.app.push_screen(
            # (while the sidebar is still listing, the screen searches the sessions listed so
            # far, then those listed since, until the listing is done)
            SearchScreen(app.root, infos=list(self.infos.values()) if self.listing_done else self._listed_so_far,
                         clock=app.clock, index_dir=app.index.dir),
            opened,
        )
