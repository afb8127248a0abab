"""Search inside the pane, for :class:`BlockScroller`: every block's text matched
(drawn in text mode, so that hits are counted in exactly the text the pane can show),
hits highlighted where they are drawn, and ``n`` / ``N`` moving between them."""

from __future__ import annotations

import re

from rich.segment import Segment
from textual.strip import Strip

from ..messages import SearchChanged
from .out import Rendered

__all__ = ["PaneSearch"]


class PaneSearch:
    """Part of :class:`BlockScroller`: search."""

    def _clear_search_state(self) -> None:
        self._hit_counts = {}
        self._hits = []
        self._hit_pos = -1
        self._match_cache.clear()
        self._search_changed()

    def _search_changed(self) -> None:
        """Tell the screen where the search stands (its query, the current hit, the count)."""
        state = (self.search_query, self._hit_pos + 1, len(self._hits))
        if state != self._search_said:  # (only a change: the pane is often filled anew)
            self._search_said = state
            self.post_message(SearchChanged(*state))

    def clear_search(self) -> None:
        """No query: highlights gone, and folds opened for a hit closed again."""
        self.search("")

    def search(self, query: str) -> int:
        """Find ``query`` (case-insensitive) in every block; highlight hits; return the count."""
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
        counts = {}
        hits = []
        for b in range(len(self._blocks)):
            text = self.block_text(b)
            if not text:
                continue
            n = sum(1 for _ in self._query.finditer(text))
            if n:
                counts[b] = n
                hits.extend((b, k) for k in range(n))
        self._hit_counts = counts
        self._hits = hits
        self._relayout(anchor)
        self._search_changed()
        return len(hits)

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
        self.refresh()

    def _block_entry(self, b: int, k: int = 0) -> int | None:
        return None

