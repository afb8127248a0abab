"""The search in the message pane, for the browser: ``/`` opens the search bar, Enter finds
the query on the branch shown and goes to its first hit (the tree follows), ``n`` ``N`` go
from hit to hit, and the pane's border says where the search stands. The matching itself
is the pane's (``pane/pane_search.py``)."""

from __future__ import annotations

from typing import Any

from textual.content import Content

from ...core.text import visible
from ..messages import SearchChanged

__all__ = ["PaneSearchFlow"]


class PaneSearchFlow:
    """The search bar and the pane's search of ``screen`` (the browser), tied together."""

    def __init__(self, screen: Any) -> None:
        self.screen = screen
        self.searching = False  # the pane has a query (SearchChanged)
        self._origin: Any = None  # the widget focused before the search bar
        self._goto_first_hit = False  # the search under way goes to its first hit when it has one
        self._said = True  # (False: the count, or that there is no match, is yet to be told)

    def start(self) -> None:
        """``/``: the search bar, focused."""
        screen = self.screen
        if screen.session is None:
            return
        bar = screen.search_bar
        self._origin = screen.focused
        bar.display = True
        bar.focus()

    def hide(self) -> None:
        """The search bar put away; focus back where it was."""
        screen = self.screen
        bar = screen.search_bar
        bar.display = False
        origin = self._origin
        if origin is not None and origin.is_attached and origin is not bar and origin.display:
            origin.focus()
        else:
            screen.focus_tree()

    def submitted(self, query: str) -> None:
        """Find ``query`` in the branch shown and go to the first hit; an empty query ends
        the search."""
        self.hide()
        pane = self.screen.pane
        if self.screen.session is None:
            return
        if not query.strip():
            pane.clear_search()
            return
        self._said = False  # (whether the count, or no match, was told)
        self._goto_first_hit = True
        pane.search(query)
        self._first_hit_found()

    def find(self, text: str) -> None:
        """Search the pane for ``text`` (the text a search-all hit matched) and go to its
        first hit from the entry shown at the top: the very line, highlighted, inside a
        long tool result too (its fold opens for the hit)."""
        if self.screen.session is None or not text.strip():
            return
        self._said = True  # (nothing to tell: the hit is shown)
        self._goto_first_hit = True
        self.screen.pane.search(text)
        self._first_hit_found()

    def _first_hit_found(self) -> None:
        """Once the pane's search (under way: the branch is matched in slices) has a hit, go
        to it, once; say how many there are when all are counted, or that there is none."""
        screen = self.screen
        pane = screen.pane
        if self._goto_first_hit and pane.hit_count:
            self._goto_first_hit = False
            self.goto_hit(False)
        if pane.search_complete and not self._said and pane.search_query:
            self._goto_first_hit = False
            self._said = True
            query, count = pane.search_query, pane.hit_count
            if not count:
                screen.notify(f"No match for {query!r} on this branch", timeout=2)
            else:
                screen.notify(f"{count} match{'es' if count != 1 else ''} for {query!r} (n / N)", timeout=2)

    def goto_hit(self, backwards: bool) -> None:
        """``n`` ``N``: the next or previous hit, the tree following."""
        screen = self.screen
        entry = screen.pane.next_hit(backwards=backwards)
        if entry is None:
            screen.app.bell()
            return
        screen.follow_pane_to(entry)

    def changed(self, event: SearchChanged) -> None:
        """The pane's border says where the search stands: ``/query  3/17``."""
        screen = self.screen
        more = "" if event.complete else "+"  # (the rest of the branch is still being matched)
        if not event.query:
            subtitle = ""
        elif not event.count:
            subtitle = f"/{event.query}  no match · esc clears" if event.complete else f"/{event.query}  searching…"
        elif event.position:
            subtitle = f"/{event.query}  {event.position}/{event.count}{more} · n N · esc clears"
        else:
            subtitle = f"/{event.query}  {event.count}{more} hits · n N · esc clears"
        if self.searching != bool(event.query):
            self.searching = bool(event.query)
            screen.refresh_bindings()  # (esc clears only while there is a search)
        if event.query:
            self._first_hit_found()
        # (as Content: a str would be read as markup)
        screen.query_one("#right").border_subtitle = Content(visible(subtitle)) if subtitle else ""
