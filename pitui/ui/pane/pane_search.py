"""Search inside the pane, a helper of :class:`BlockScroller`: every block's text matched
(drawn in text mode, so that hits are counted in exactly the text the pane can show),
hits highlighted where they are drawn, and ``n`` / ``N`` moving between them.

Drawing every block of a long branch takes a while, so a search does not wait for it: the
blocks are matched from the one at the top of the view down to the end, then from the start,
in slices between the app's other work (:data:`SEARCH_SLICE`), each slice's hits told at
once (:class:`~pitui.ui.messages.SearchChanged`: the browser goes to the first one as soon
as there is one), the count on the border growing as they come."""

from __future__ import annotations

import bisect
import re
import time
from functools import partial
from typing import Any

from rich.segment import Segment
from textual.cache import LRUCache
from textual.strip import Strip

from ..messages import SearchChanged
from .canvas import Rendered

__all__ = ["PaneSearch"]

#: Seconds of matching at a time while the rest of a search's hits are counted, and the pause
#: between two such slices (a timer: the app's other work, its repaints, run in between).
SEARCH_SLICE = 0.05
SEARCH_PAUSE = 0.002


class PaneSearch:
    """The search of ``pane`` (a :class:`BlockScroller`, whose blocks it matches): see the
    module docstring. The pane hands it its queries and asks it for highlights."""

    def __init__(self, pane: Any) -> None:
        self.pane = pane
        self.query: re.Pattern | None = None
        self.query_text = ""
        self.hit_counts: dict[int, int] = {}  # block -> hits in it
        self.hits: list[tuple[int, int]] = []  # (block, k-th hit in the block)
        self.hit_pos = -1
        self.said: tuple = ("", 0, 0)  # the search state last posted (SearchChanged; none yet)
        # (Rendered's id, query) -> the hits drawn in it: (line, start cell, end cell)
        self.match_cache: LRUCache[tuple, list] = LRUCache(200)
        self.todo: list[int] = []  # blocks not matched yet, the next last (reversed)
        self.gen = 0  # (a slice of an older search stops)

    def clear_state(self) -> None:
        self.hit_counts = {}
        self.hits = []
        self.hit_pos = -1
        self.match_cache.clear()
        self.todo = []
        self.gen += 1
        self.changed()

    def changed(self) -> None:
        """Tell the screen where the search stands (its query, the current hit, the count,
        whether that is all)."""
        state = (self.search_query, self.hit_pos + 1, len(self.hits), not self.todo)
        if state != self.said:  # (only a change: the pane is often filled anew)
            self.said = state
            self.pane.post_message(SearchChanged(*state))

    def clear(self) -> None:
        """No query: highlights gone, and folds opened for a hit closed again."""
        self.search("")

    def search(self, query: str) -> int:
        """Find ``query`` (case-insensitive) in every block, highlight hits; returns the
        count of those found so far (the blocks are matched in turns: see the module
        docstring; :attr:`search_complete` says when all are)."""
        anchor = self.pane._top_anchor()
        self.clear_state()
        query = query or ""
        if not query.strip():
            self.query = None
            self.query_text = ""
            self.pane._relayout(anchor)
            self.changed()
            return 0
        self.query = re.compile(re.escape(query), re.IGNORECASE)
        self.query_text = query
        first = anchor[0] if anchor is not None else 0
        count = len(self.pane._blocks)
        self.todo = list(range(first - 1, -1, -1)) + list(range(count - 1, first - 1, -1))
        self._match_blocks()
        self.pane._relayout(anchor)
        self.changed()
        if self.todo:
            self.pane.set_timer(SEARCH_PAUSE, partial(self._match_more, self.gen))
        return len(self.hits)

    @property
    def complete(self) -> bool:
        """Whether every block has been matched (the count is final)."""
        return not self.todo

    def _match_blocks(self) -> bool:
        """Match blocks not matched yet for :data:`SEARCH_SLICE` seconds (at least one).
        Returns whether it found hits."""
        todo = self.todo
        query = self.query
        found = False
        end = time.perf_counter() + SEARCH_SLICE
        while todo:
            block = todo.pop()
            text = self.pane.block_text(block)
            if not text:
                continue
            count = sum(1 for _ in query.finditer(text))
            if count:
                self.hit_counts[block] = count
                at = bisect.bisect_left(self.hits, (block, 0))
                self.hits[at:at] = [(block, hit) for hit in range(count)]
                if 0 <= self.hit_pos and at <= self.hit_pos:
                    self.hit_pos += count  # (the current hit keeps its place)
                found = True
            if time.perf_counter() >= end:
                break
        return found

    def _match_more(self, gen: int) -> None:
        """One slice of a search's matching (see the module docstring), then the next."""
        if gen != self.gen or self.query is None or not self.pane.is_mounted:
            return
        if self._match_blocks():
            self.pane._relayout(self.pane._top_anchor())
        self.changed()
        if self.todo:
            self.pane.set_timer(SEARCH_PAUSE, partial(self._match_more, gen))

    @property
    def search_query(self) -> str:
        """The query searched for; "" when there is no search."""
        return self.query_text if self.query is not None else ""

    @property
    def hit_count(self) -> int:
        return len(self.hits)

    def block_matches(self, block: int, rendered: Rendered) -> list[tuple[int, int, int]]:
        key = (id(rendered), self.query_text)
        got = self.match_cache.get(key)
        if got is not None:
            return got
        matches = []
        if self.query is not None:
            for line, strip in enumerate(rendered.strips):
                if line in rendered.chrome:
                    continue
                text = strip.text if type(strip) is Strip else strip.plain
                for match in self.query.finditer(text):
                    if match.end() > match.start():
                        if type(strip) is not Strip:
                            strip = strip.strip()  # (a Row: made a Strip only where a hit is)
                        matches.append((line, strip.index_to_cell_position(match.start()),
                                        strip.index_to_cell_position(match.end())))
        self.match_cache[key] = matches
        return matches

    def highlight(self, block: int, rendered: Rendered, line: int, strip: Strip) -> Strip:
        matches = self.block_matches(block, rendered)
        spans = [(index, start, end) for index, (ln, start, end) in enumerate(matches) if ln == line]
        if not spans:
            return strip
        current = -1
        if 0 <= self.hit_pos < len(self.hits):
            hb, hk = self.hits[self.hit_pos]
            if hb == block and matches:
                current = min(hk, len(matches) - 1)
        palette = self.pane.palette
        cuts = []
        styles = []
        pos = 0
        for index, start, end in spans:
            if start < pos:
                continue
            if start > pos:
                cuts.append(start)
                styles.append(None)
            cuts.append(end)
            styles.append(palette.hit_current if index == current else palette.hit)
            pos = end
        if pos < strip.cell_length:
            cuts.append(strip.cell_length)
            styles.append(None)
        pieces = strip.divide(cuts)
        out = []
        for piece, style in zip(pieces, styles):
            if style is None:
                out.append(piece)
            else:
                out.append(Strip([Segment(seg.text, seg.style + style if seg.style else style)
                                  for seg in piece], piece.cell_length))
        return Strip.join(out)

    def next_hit(self, backwards: bool = False) -> int | None:
        """Scroll to the next (or previous) hit; returns the entry it is in."""
        if not self.hits:
            return None
        count = len(self.hits)
        if self.hit_pos < 0:
            # start from the view: the first hit at or after the top (or before, backwards)
            top = self.pane._top_anchor()
            tb = top[0] if top else 0
            if backwards:
                cands = [index for index, (block, _) in enumerate(self.hits) if block <= tb]
                self.hit_pos = cands[-1] if cands else count - 1
            else:
                cands = [index for index, (block, _) in enumerate(self.hits) if block >= tb]
                self.hit_pos = cands[0] if cands else 0
        else:
            self.hit_pos = (self.hit_pos + (-1 if backwards else 1)) % count
        block, hit = self.hits[self.hit_pos]
        self._scroll_to_hit(block, hit)
        self.changed()
        return self.pane._block_entry(block, hit)

    def _scroll_to_hit(self, block: int, hit: int) -> None:
        """Bring ``hit`` of ``block`` into view, the pane's cursor on its line (Enter and
        the arrows go on from the hit, not from where the cursor was)."""
        rendered = self.pane._rendered(block)
        self.pane._measure(block)
        self.pane._update_virtual_size()
        matches = self.block_matches(block, rendered)
        line = matches[min(hit, len(matches) - 1)][0] if matches else 0
        view_h = max(1, self.pane.scrollable_content_region.height)
        top = self.pane._heights.top(block)
        y = top if line < view_h - 2 else top + line - view_h // 3
        self.pane._scroll_to_y(y)
        self.pane._settle()
        self.pane.pane_cursor.set(block, min(line, max(0, self.pane._heights[block] - 1)), repaint=False)
        self.pane.refresh()

