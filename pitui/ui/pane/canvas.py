"""What a block is drawn into. :class:`Out` collects one block's lines (or, in text mode,
its searchable text) into a :class:`Rendered`; :class:`RenderCtx` is what a drawing
depends on besides the data. Also the caps on what one text draws, and the helpers that
wrap and cut lines.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, NamedTuple

from rich.cells import cell_len, chop_cells
from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.strip import Strip

from ...core.model.parts import plural
from ...core.text import clean, visible
from ...core.timeutil import iso_to_ms
from .palette import Palette, markdown_theme
from ..pane_toggles import DEP_OF
from ..text_fit import cut_end

from .code import _fences_not_ready

__all__ = [
    "RenderCtx",
    "Out",
    "Rendered",
    "Row",
    "DrawStopped",
    "DEP_QUERY",
    "CUT_LINES",
    "FULL_CAP",
    "TEXT_CAP",
    "UNCAP",
    "MARKDOWN_CAP",
    "SYNTAX_MAX_LINES",
    "visible_text",
    "fmt_time",
    "date_of",
]

# What a drawn block records it depended on (``Rendered.deps``): the current search query (a
# fold opened because of a hit), and each toggle it asked for (``Out.toggled``; their bits
# are ``pane_toggles.DEP_OF``).
DEP_QUERY = 1

CUT_LINES = 6  # tool output lines shown while folded
FULL_CAP = 20000  # lines of one output drawn even in full mode (the rest is counted)
# Characters of one text drawn: a message can be 100 MB, and drawing grows with its length.
# The rest is counted on a marker line; its action (enter or a click) draws the whole block
# (fold key UNCAP: the pane draws it on a worker, piece by piece, and can stop it between
# pieces), and e shows the whole entry in $PAGER.
TEXT_CAP = 200_000
UNCAP = "all"
MARKDOWN_CAP = 100_000  # longer text is drawn as plain wrapped text (Rich's Markdown is slower)
SYNTAX_MAX_LINES = 600  # longer file contents are drawn plain (tokenizing costs ~0.3 ms a line)

# Session text is untrusted: every string from the file is drawn through core.text, as
# ``clean(..., block=True)`` (message text and program output: escape sequences dropped,
# other controls as stand-ins, lines kept) or ``_field`` (one line of a header or a
# marker). ``Out.line`` and ``Out.wrap`` also pass any Text they are given through
# ``visible_text``, so a piece of data appended to a Text somewhere cannot slip through.


def _field(value: Any) -> str:
    """One value in a header or marker line: newlines as spaces, every other control
    character as a visible stand-in."""
    if not isinstance(value, str):
        value = "" if value is None else str(value)
    return visible(value.replace("\n", " ") if "\n" in value else value)


def visible_text(text: Text, *, block: bool = False) -> Text:
    """``text`` with its control characters as visible stand-ins (``core.text.visible``;
    with ``block``, newlines and tabs kept), styles kept; ``text`` itself when it has
    none (one regex scan)."""
    plain = text.plain
    if visible(plain, block=block) is plain:
        return text
    length = len(plain)
    spans = text.spans
    cuts = sorted({0, length, *(min(sp.start, length) for sp in spans), *(min(sp.end, length) for sp in spans)})
    out = text.blank_copy()
    for cut_start, cut_end in zip(cuts, cuts[1:]):
        if cut_start >= cut_end:
            continue
        piece = visible(plain[cut_start:cut_end], block=block)
        start = len(out)
        out.append(piece)
        for sp in spans:
            if sp.start <= cut_start and sp.end >= cut_end:
                out.spans.append(Span(start, start + len(piece), sp.style))
    return out


def fmt_time(value: Any, with_date: bool = False) -> str:
    """Local time of an ISO string or epoch milliseconds: ``14:03:22`` (with the date on request)."""
    ms = iso_to_ms(value)
    if math.isnan(ms):
        return ""
    try:
        dt = datetime.fromtimestamp(ms / 1000).astimezone()
    except (OverflowError, OSError, ValueError):
        return ""
    return dt.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S")


def date_of(value: Any) -> str:
    ms = iso_to_ms(value)
    if math.isnan(ms):
        return ""
    try:
        return datetime.fromtimestamp(ms / 1000).astimezone().strftime("%Y-%m-%d")
    except (OverflowError, OSError, ValueError):
        return ""


def _wrap_ascii(line: str, width: int) -> list[str]:
    """Break an ASCII line at spaces where that keeps rows at least half full, else hard."""
    out = []
    start = 0
    length = len(line)
    while length - start > width:
        cut = line.rfind(" ", start + width // 2, start + width + 1)
        if cut <= start:
            out.append(line[start : start + width])
            start += width
        else:
            out.append(line[start:cut])
            start = cut + 1
    out.append(line[start:])
    return out


def _word_cuts(text: str, width: int) -> list[int]:
    """Cell positions where to break ``text`` into rows of at most ``width`` cells: after
    a space when that keeps the row at least half full, else at the width."""
    cuts: list[int] = []
    row_start = 0  # cell where the current row starts
    pos = 0  # cell position of the character being read
    last_space = -1  # cell just after the last space in this row
    for ch in text:
        cells = cell_len(ch) if not ch.isascii() else 1
        if pos + cells - row_start > width:
            if last_space > row_start + width // 2:
                row_start = last_space
            else:
                row_start = pos
            cuts.append(row_start)
            last_space = -1
        pos += cells
        if ch == " ":
            last_space = pos
    return cuts


def _is_blank(strip: Strip) -> bool:
    """Empty, and no background colour (a code block's padding line is not blank)."""
    for seg in strip:
        if seg.text.strip() or (seg.style is not None and seg.style.bgcolor is not None):
            return False
    return True


# ---------------------------------------------------------------------------- context


class DrawStopped(Exception):
    """A block drawn whole was given up: ``RenderCtx.should_stop`` said so between pieces."""


@dataclass
class RenderCtx:
    """What a render depends on besides the data."""

    console: Console | None
    palette: Palette
    toggles: frozenset[str] = frozenset()  # the pane's toggles that are on (pane_toggles.py)
    inverted: frozenset = frozenset()  # fold keys flipped from their default by the user
    query: re.Pattern | None = None
    text_mode: bool = False  # collect searchable text instead of drawing
    resolve_artifact: Callable[[str], str | None] | None = None
    background: str | None = None  # the widget's background (code drawn by Syntax sits on it)
    # Draw code plain rather than wait for a Pygments lexer's first use (it compiles its
    # regular expressions: 20-50 ms); the lexers wanted are in ``Rendered.pending_lexers``.
    lazy_lexers: bool = False
    # Asked between the pieces of a text drawn whole (UNCAP): True gives the drawing up.
    should_stop: Callable[[], bool] | None = None

    def hit(self, text: str) -> bool:
        return self.query is not None and bool(text) and self.query.search(text) is not None


class Row(NamedTuple):
    """One row of plain text in a block drawn whole (UNCAP), kept light: such a block can
    have a million rows, and a Strip costs about a kilobyte. Made a Strip when shown."""

    text: str
    style: Style | None
    prefix: tuple  # the block's prefix segments (one tuple shared by its rows)
    width: int

    def strip(self) -> Strip:
        segs = list(self.prefix)
        if self.text:
            segs.append(Segment(self.text, self.style))
        return Strip(segs).adjust_cell_length(self.width)

    @property
    def plain(self) -> str:
        """The row's text as the Strip has it (prefix included)."""
        return "".join(seg.text for seg in self.prefix) + self.text


@dataclass
class Rendered:
    strips: list[Strip | Row]  # (Rows only in a block drawn whole: see strip())
    actions: dict[int, tuple] = field(default_factory=dict)  # line -> ("fold", key) | ("open", path)
    chrome: set[int] = field(default_factory=set)  # lines that are not content (never highlighted)
    sections: list[tuple[int, int]] = field(default_factory=list)  # (line, entry) where an entry starts
    deps: int = 0
    pending_lexers: frozenset = frozenset()  # lexer classes not ready: code drawn plain for now

    @property
    def height(self) -> int:
        return len(self.strips)

    def strip(self, line: int) -> Strip:
        strip = self.strips[line]
        return strip.strip() if type(strip) is Row else strip


class Out:
    """Collects one block's lines (or, in text mode, its searchable text)."""

    def __init__(self, ctx: RenderCtx, width: int):
        self.ctx = ctx
        self.p = ctx.palette
        self.width = max(8, width)
        self.strips: list[Strip | Row] = []
        self.actions: dict[int, tuple] = {}
        self.chrome: set[int] = set()
        self.sections: list[tuple[int, int]] = []
        self.deps = 0
        self.pending_lexers: set = set()
        self.texts: list[str] = []
        self._prefix: list[tuple[str, Style]] = []
        self._prefix_width = 0

    # -- nesting
    def push(self, text: str, style: Style) -> None:
        self._prefix.append((text, style))
        self._prefix_width += len(text)

    def pop(self) -> None:
        text, _ = self._prefix.pop()
        self._prefix_width -= len(text)

    @property
    def inner(self) -> int:
        return max(4, self.width - self._prefix_width)

    def _prefixed(self, strip: Strip) -> Strip:
        if self._prefix:
            segs = [Segment(text, st) for text, st in self._prefix]
            segs.extend(strip)
            strip = Strip(segs, self._prefix_width + strip.cell_length)
        if strip.cell_length != self.width:
            strip = strip.adjust_cell_length(self.width)
        return strip

    # -- state
    def toggled(self, name: str) -> bool:
        """Whether the pane's toggle ``name`` (``pane_toggles.py``) is on; the block is
        marked as drawn with it, so that a flip draws it again (and no block that did not ask)."""
        if not self.ctx.text_mode:
            self.deps |= DEP_OF[name]
        return name in self.ctx.toggles

    def fold(self, key: str, default_folded: bool, hit_text: str | None = None) -> bool:
        """Whether fold ``key`` is closed: its default (a toggle's, when ``default_folded``
        is ``not out.toggled(name)``), flipped by the user, opened by a hit."""
        if self.ctx.text_mode:
            return False
        folded = default_folded != (key in self.ctx.inverted)
        if folded and hit_text is not None and self.ctx.query is not None:
            self.deps |= DEP_QUERY
            if self.ctx.hit(hit_text):
                return False
        return folded

    def mark_entry(self, entry: int | None) -> None:
        if entry is not None and not self.ctx.text_mode:
            self.sections.append((len(self.strips), entry))

    # -- drawing
    def _add(self, strips: list[Strip], chrome: bool, action: tuple | None) -> None:
        start = len(self.strips)
        for strip in strips:
            self.strips.append(self._prefixed(strip))
        if chrome:
            self.chrome.update(range(start, len(self.strips)))
        if action is not None:
            for line in range(start, len(self.strips)):
                self.actions[line] = action

    def render(self, renderable: RenderableType, source: str | None = None, *, chrome: bool = False,
               action: tuple | None = None, no_wrap: bool = False, trim: bool = False,
               max_rows: int | None = None) -> None:
        if self.ctx.text_mode:
            if source and not chrome:
                self.texts.append(source)
            return
        console = self.ctx.console
        assert console is not None
        width = self.inner
        opts = console.options.update(width=width, min_width=width, max_width=width, height=None,
                                      highlight=False, markup=False)
        if no_wrap:
            opts = opts.update(no_wrap=True, overflow="ellipsis")
        lines = console.render_lines(renderable, opts, pad=True)
        strips = [Strip(line, width) for line in lines]
        if trim:
            while strips and _is_blank(strips[-1]):
                strips.pop()
            while strips and _is_blank(strips[0]):
                strips.pop(0)
        if max_rows is not None:
            del strips[max_rows:]
        self._add(strips, chrome, action)

    def line(self, text: Text | str, style: Style | None = None, *, chrome: bool = False,
             action: tuple | None = None) -> None:
        """One line, cut with an ellipsis when too long."""
        text = Text(_field(text), style=style or "") if isinstance(text, str) else visible_text(text)
        if self.ctx.text_mode:
            if not chrome:
                self.texts.append(text.plain)
            return
        text.no_wrap = True
        text.overflow = "ellipsis"
        width = self.inner
        text.truncate(width, overflow="ellipsis")
        console = self.ctx.console
        if console is not None:
            base = text.style if isinstance(text.style, Style) else console.get_style(text.style or "", default="")
            segs = [segment for segment in text.render(console) if segment.text != "\n"]
            if base:
                segs = list(Segment.apply_style(segs, base))
        else:
            segs = [Segment(text.plain)]
        self._add([Strip(segs).adjust_cell_length(width)], chrome, action)

    @property
    def uncapped(self) -> bool:
        """Whether this block is drawn whole (the user asked for all of a capped text)."""
        return UNCAP in self.ctx.inverted

    def _capped(self, text: str) -> tuple[str, int]:
        """``text`` cut to :data:`TEXT_CAP` characters when drawn, and how many were cut
        (nothing is cut in a block drawn whole, or in text mode)."""
        if self.ctx.text_mode or len(text) <= TEXT_CAP or self.uncapped:
            return text, 0
        return text[:TEXT_CAP], len(text) - TEXT_CAP

    def check(self) -> None:
        """Raise :class:`DrawStopped` if the drawing is no longer wanted."""
        stop = self.ctx.should_stop
        if stop is not None and stop():
            raise DrawStopped

    def _pieces(self, text: str, *, whole: bool = False) -> Iterable[str]:
        """A text past the cap, drawn whole: pieces of at most :data:`TEXT_CAP` characters,
        cut at a newline where one is in the second half (dropped; kept with ``whole``,
        so that the pieces join to the text), asking :meth:`check` between them."""
        start, length = 0, len(text)
        while start < length:
            if start:
                self.check()
            end = start + TEXT_CAP
            if end >= length:
                yield text[start:]
                return
            nl = text.rfind("\n", start + TEXT_CAP // 2, end)
            if nl >= 0:
                yield text[start : nl + 1 if whole else nl]
                start = nl + 1
            else:
                yield text[start:end]
                start = end

    def cap_marker(self, more: int, what: str = "character") -> None:
        """The line that says ``more`` characters (or lines) of a text were not drawn; its
        action draws the whole block."""
        if more > 0:
            self.line(Text(f"… {plural(more, 'more ' + what)} (enter: draw all · e: $PAGER)", self.p.muted),
                      chrome=True, action=("fold", UNCAP))

    def uncap_end(self) -> None:
        """After a text drawn whole: the line that caps it again."""
        self.line(Text(f"▴ less (the first {TEXT_CAP:,} characters)", self.p.muted), chrome=True,
                  action=("fold", UNCAP))

    def wrap(self, text: Text | str, style: Style | None = None, *, chrome: bool = False,
             action: tuple | None = None) -> None:
        """Wrapped text (long words are broken)."""
        more = 0
        if isinstance(text, str):
            text, more = self._capped(text)
            if len(text) > TEXT_CAP and not self.ctx.text_mode:  # (drawn whole)
                self.plain(text, style, chrome=chrome)
                return
            text = Text(clean(text, block=True), style=style or "")
        else:
            text = visible_text(text, block=True)
        if self.ctx.text_mode:
            if not chrome:
                self.texts.append(text.plain)
            return
        text.overflow = "fold"
        self.render(text, chrome=chrome, action=action)
        self.cap_marker(more)

    def plain(self, text: str, style: Style | None = None, *, wrap: bool = True, chrome: bool = False) -> None:
        """Plain text, fast: split on newlines and chopped at the width (no word wrap, no
        Rich layout), for tool output that can run to thousands of lines. In a block drawn
        whole, as light :class:`Row` s, piece by piece."""
        text, more = self._capped(text)
        if self.ctx.text_mode:
            text = clean(text, block=True)
            if text and not chrome:
                self.texts.append(text)
            return
        if self.uncapped:
            if len(text) > TEXT_CAP:
                text = text.rstrip("\n")  # (no blank row above the line that ends it)
            for piece in self._pieces(text) if len(text) > TEXT_CAP else (text,):
                self._add_rows(self._row_texts(clean(piece, block=True), wrap), style, chrome)
            if len(text) > TEXT_CAP:
                self.uncap_end()
            return
        strips = [Strip([Segment(piece, style)] if piece else [])
                  for piece in self._row_texts(clean(text, block=True), wrap)]
        self._add(strips, chrome, None)
        self.cap_marker(more)

    def _row_texts(self, text: str, wrap: bool) -> list[str]:
        """``text``'s rows at the width: wrapped (at spaces where that keeps rows at least
        half full) or, without ``wrap``, one row a line ending in an ellipsis."""
        width = self.inner
        rows: list[str] = []
        for ln in text.split("\n"):
            if "\t" in ln:
                ln = ln.expandtabs(8)
            if ln.isascii():
                if len(ln) <= width:
                    rows.append(ln)
                elif wrap:
                    rows.extend(_wrap_ascii(ln, width))
                else:
                    rows.append(ln[: width - 1] + "…")
            else:
                cells = cell_len(ln)
                if cells <= width:
                    rows.append(ln)
                elif wrap:
                    if self.ctx.console is not None:
                        rows.extend(wrapped.plain for wrapped in Text(ln).wrap(self.ctx.console, width, overflow="fold"))
                    else:
                        rows.extend(chop_cells(ln, width))
                else:
                    rows.append(cut_end(ln, width))
        return rows

    def _add_rows(self, rows: list[str], style: Style | None, chrome: bool) -> None:
        """Rows of plain text kept as :class:`Row` s (a Strip each is made when shown)."""
        prefix = tuple(Segment(text, st) for text, st in self._prefix)
        start = len(self.strips)
        width = self.width
        self.strips.extend(Row(row, style, prefix, width) for row in rows)
        if chrome:
            self.chrome.update(range(start, len(self.strips)))

    def markdown(self, src: str, style: Style | None = None, *, no_wrap: bool = False,
                 max_rows: int | None = None) -> None:
        """``src`` drawn as Markdown (plain wrapped text past :data:`MARKDOWN_CAP`); with
        ``no_wrap`` each line of a paragraph is one row cut with an ellipsis, and at most
        ``max_rows`` rows are kept (a folded preview)."""
        if len(src) > MARKDOWN_CAP and not self.ctx.text_mode:
            self.wrap(src, style)
            return
        src = clean(src, block=True)
        if self.ctx.text_mode:
            self.texts.append(src)
            return
        if not src.strip():
            return
        plain = _fences_not_ready(src, self.pending_lexers) if self.ctx.lazy_lexers else None
        # (loaded here, not at start: see pane/markdown.py)
        from .markdown import _Markdown, _PlainFenceMarkdown

        if plain:
            md = _PlainFenceMarkdown(src, code_theme=self.p.code_theme, hyperlinks=False, style=style or "")
            md.plain_fences = plain
        else:
            md = _Markdown(src, code_theme=self.p.code_theme, hyperlinks=False, style=style or "")
        with self.ctx.console.use_theme(markdown_theme(self.p)):
            self.render(md, trim=True, no_wrap=no_wrap, max_rows=max_rows)

    def blank(self) -> None:
        if not self.ctx.text_mode:
            self._add([Strip([])], True, None)

    def result(self) -> Rendered:
        return Rendered(self.strips, self.actions, self.chrome, self.sections, self.deps,
                        frozenset(self.pending_lexers))


