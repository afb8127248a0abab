"""Search inside the pane, for :class:`BlockScroller`: every block's text matched
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

from rich.segment import Segment
from textual.strip import Strip

from ..messages import SearchChanged
from .canvas import Rendered

__all__ = ["PaneSearch"]

#: Seconds of matching at a time while the rest of a search's hits are counted, and the pause
#: between two such slices (a timer: the app's other work, its repaints, run in between).
SEARCH_SLICE = 0.05
SEARCH_PAUSE = 0.002


class PaneSearch:
    """Part of :class:`BlockScroller`: search."""

    def _clear_search_state(self) -> None:
        self._hit_counts = {}
        self._hits = []
        self._hit_pos = -1
        self._match_cache.clear()
        self._search_todo: list[int] = []  # blocks not matched yet, the next last (reversed)
        self._search_gen = getattr(self, "_search_gen", 0) + 1  # (a slice of an older search stops)
        self._search_changed()

    def _search_changed(self) -> None:
        """Tell the screen where the search stands (its query, the current hit, the count,
        whether that is all)."""
        state = (self.search_query, self._hit_pos + 1, len(self._hits), not self._search_todo)
        if state != self._search_said:  # (only a change: the pane is often filled anew)
            self._search_said = state
            self.post_message(SearchChanged(*state))

    def clear_search(self) -> None:
        """No query: highlights gone, and folds opened for a hit closed again."""
        self.search("")

    def search(self, query: str) -> int:
        """Find ``query`` (case-insensitive) in every block, highlight hits; returns the
        count of those found so far (the blocks are matched in turns: see the module
        docstring; :attr:`search_complete` says when all are)."""
        anchor = self._top_anchor()
        self._clear_search_state()
        query = query or ""
        if not query.strip():
            self._query = None
            self._query_text = ""
            self._relayout(anchor)
            self._search_changed()
            return 0
        self._query = re.compile(re.escape(query), re.IGNORECASE)
        self._query_text = query
        first = anchor[0] if anchor is not None else 0
        n = len(self._blocks)
        self._search_todo = list(range(first - 1, -1, -1)) + list(range(n - 1, first - 1, -1))
        self._match_blocks()
        self._relayout(anchor)
        self._search_changed()
        if self._search_todo:
            self.set_timer(SEARCH_PAUSE, partial(self._match_more, self._search_gen))
        return len(self._hits)

    @property
    def search_complete(self) -> bool:
        """Whether every block has been matched (the count is final)."""
        return not self._search_todo

    def _match_blocks(self) -> bool:
        """Match blocks not matched yet for :data:`SEARCH_SLICE` seconds (at least one).
        Returns whether it found hits."""
        todo = self._search_todo
        query = self._query
        found = False
        end = time.perf_counter() + SEARCH_SLICE
        while todo:
            b = todo.pop()
            text = self.block_text(b)
            if not text:
                continue
            count = sum(1 for _ in query.finditer(text))
            if count:
                self._hit_counts[b] = count
                at = bisect.bisect_left(self._hits, (b, 0))
                self._hits[at:at] = [(b, k) for k in range(count)]
                if 0 <= self._hit_pos and at <= self._hit_pos:
                    self._hit_pos += count  # (the current hit keeps its place)
                found = True
            if time.perf_counter() >= end:
                break
        return found

    def _match_more(self, gen: int) -> None:
        """One slice of a search's matching (see the module docstring), then the next."""
        if gen != self._search_gen or self._query is None or not self.is_mounted:
            return
        if self._match_blocks():
            self._relayout(self._top_anchor())
        self._search_changed()
        if self._search_todo:
            self.set_timer(SEARCH_PAUSE, partial(self._match_more, gen))

    @property
    def search_query(self) -> str:
        """The query searched for; "" when there is no search."""
        return self._query_text if self._query is not None else ""

    @property
    def hit_count(self) -> int:
        return len(self._hits)

    def _block_matches(self, b: int, r: Rendered) -> list[tuple[int, int, int]]:
        key = (id(r), self._query_text)
        got = self._match_cache.get(key)
        if got is not None:
            return got
        matches = []
        if self._query is not None:
            for line, strip in enumerate(r.strips):
                if line in r.chrome:
                    continue
                text = strip.text if type(strip) is Strip else strip.plain
                for m in self._query.finditer(text):
                    if m.end() > m.start():
                        if type(strip) is not Strip:
                            strip = strip.strip()  # (a Row: made a Strip only where a hit is)
                        matches.append((line, strip.index_to_cell_position(m.start()),
                                        strip.index_to_cell_position(m.end())))
        self._match_cache[key] = matches
        return matches

    def _highlight(self, b: int, r: Rendered, line: int, strip: Strip) -> Strip:
        matches = self._block_matches(b, r)
        spans = [(i, s, e) for i, (ln, s, e) in enumerate(matches) if ln == line]
        if not spans:
            return strip
        current = -1
        if 0 <= self._hit_pos < len(self._hits):
            hb, hk = self._hits[self._hit_pos]
            if hb == b and matches:
                current = min(hk, len(matches) - 1)
        p = self.palette
        cuts = []
        styles = []
        pos = 0
        for i, s, e in spans:
            if s < pos:
                continue
            if s > pos:
                cuts.append(s)
                styles.append(None)
            cuts.append(e)
            styles.append(p.hit_current if i == current else p.hit)
            pos = e
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
        if not self._hits:
            return None
        n = len(self._hits)
        if self._hit_pos < 0:
            # start from the view: the first hit at or after the top (or before, backwards)
            top = self._top_anchor()
            tb = top[0] if top else 0
            if backwards:
                cands = [k for k, (b, _) in enumerate(self._hits) if b <= tb]
                self._hit_pos = cands[-1] if cands else n - 1
            else:
                cands = [k for k, (b, _) in enumerate(self._hits) if b >= tb]
                self._hit_pos = cands[0] if cands else 0
        else:
            self._hit_pos = (self._hit_pos + (-1 if backwards else 1)) % n
        b, k = self._hits[self._hit_pos]
        self._scroll_to_hit(b, k)
        self._search_changed()
        return self._block_entry(b, k)

    def _scroll_to_hit(self, b: int, k: int) -> None:
        """Bring hit ``k`` of block ``b`` into view, the pane's cursor on its line (Enter and
        the arrows go on from the hit, not from where the cursor was)."""
        r = self._rendered(b)
        self._measure(b)
        self._update_virtual_size()
        matches = self._block_matches(b, r)
        line = matches[min(k, len(matches) - 1)][0] if matches else 0
        view_h = max(1, self.scrollable_content_region.height)
        top = self._heights.top(b)
        y = top if line < view_h - 2 else top + line - view_h // 3
        self._scroll_to_y(y)
        self._settle()
        self._set_cursor(b, min(line, max(0, self._heights[b] - 1)), repaint=False)
        self.refresh()

    def _block_entry(self, b: int, k: int = 0) -> int | None:
        return None

