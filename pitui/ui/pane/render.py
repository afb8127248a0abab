"""Rendering messages to Strips: one function per kind, shared by the pane, the context
view and nested subagent transcripts.

A block is rendered once at a given width and toggle state and the Strips are cached by
the caller. The same code also runs in *text mode*, where nothing is drawn and only the
searchable text of the block is collected (everything unfolded), so that search counts
exactly the text the renderers can show.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, NamedTuple

import orjson
from rich.cells import cell_len, chop_cells, set_cell_size
from rich.console import Console, RenderableType
from rich.markdown import CodeBlock, Markdown
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Span, Text
from textual.strip import Strip

from ...core.numbers import as_number as _num
from ...core.numbers import fmt_bytes, fmt_cost, fmt_duration, fmt_tokens
from ...core.model.summary import format_tool_call, one_line, shorten_home, text_of
from ...core.text import clean, visible
from ...core.timeutil import iso_to_ms
from .palette import Palette

__all__ = [
    "RenderCtx",
    "Out",
    "Rendered",
    "DEP_THINKING",
    "DEP_OUTPUT",
    "DEP_QUERY",
    "CUT_LINES",
    "TEXT_CAP",
    "UNCAP",
    "DrawStopped",
    "Row",
    "visible_text",
    "fmt_time",
    "image_size",
    "render_header",
    "render_marker",
    "render_message",
    "render_assistant",
    "render_tool_results",
    "render_compaction",
    "render_branch_summary",
    "render_custom_entry",
    "render_json_body",
    "message_title",
]

DEP_THINKING = 1  # the block looks different with show_thinking
DEP_OUTPUT = 2  # ... with full_tool_output
DEP_QUERY = 4  # ... with the current search query (a fold opened because of a hit)

CUT_LINES = 6  # tool output lines shown while folded
SYSTEM_LINES = 4  # system prompt lines shown while folded
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
    n = len(plain)
    spans = text.spans
    cuts = sorted({0, n, *(min(sp.start, n) for sp in spans), *(min(sp.end, n) for sp in spans)})
    out = text.blank_copy()
    for a, b in zip(cuts, cuts[1:]):
        if a >= b:
            continue
        piece = visible(plain[a:b], block=block)
        start = len(out)
        out.append(piece)
        for sp in spans:
            if sp.start <= a and sp.end >= b:
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


def image_size(data: Any) -> int:
    """Decoded size in bytes of base64 ``data`` (without decoding it)."""
    if not isinstance(data, str):
        return 0
    n = len(data.rstrip())
    pad = len(data) - len(data.rstrip("="))
    return max(0, n * 3 // 4 - pad)


def _json_compact(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)


def _json_pretty(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)


def _lines(s: str) -> list[str]:
    s = s.rstrip("\n")
    return s.split("\n") if s else []


def _wrap_ascii(line: str, width: int) -> list[str]:
    """Break an ASCII line at spaces where that keeps rows at least half full, else hard."""
    out = []
    start = 0
    n = len(line)
    while n - start > width:
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
        w = cell_len(ch) if not ch.isascii() else 1
        if pos + w - row_start > width:
            if last_space > row_start + width // 2:
                row_start = last_space
            else:
                row_start = pos
            cuts.append(row_start)
            last_space = -1
        pos += w
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
    show_thinking: bool = False
    full_output: bool = False
    show_hidden: bool = False
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
        s = self.strips[line]
        return s.strip() if type(s) is Row else s


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
            segs = [Segment(t, st) for t, st in self._prefix]
            segs.extend(strip)
            strip = Strip(segs, self._prefix_width + strip.cell_length)
        if strip.cell_length != self.width:
            strip = strip.adjust_cell_length(self.width)
        return strip

    # -- state
    def fold(self, key: str, default_folded: bool, dep: int = 0, hit_text: str | None = None) -> bool:
        """Whether fold ``key`` is closed: its default, flipped by the user, opened by a hit."""
        if self.ctx.text_mode:
            return False
        self.deps |= dep
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
        for s in strips:
            self.strips.append(self._prefixed(s))
        if chrome:
            self.chrome.update(range(start, len(self.strips)))
        if action is not None:
            for y in range(start, len(self.strips)):
                self.actions[y] = action

    def render(self, renderable: RenderableType, source: str | None = None, *, chrome: bool = False,
               action: tuple | None = None, no_wrap: bool = False, trim: bool = False) -> None:
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
            segs = [s for s in text.render(console) if s.text != "\n"]
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
        start, n = 0, len(text)
        while start < n:
            if start:
                self.check()
            end = start + TEXT_CAP
            if end >= n:
                yield text[start:]
                return
            nl = text.rfind("\n", start + TEXT_CAP // 2, end)
            if nl >= 0:
                yield text[start : nl + 1 if whole else nl]
                start = nl + 1
            else:
                yield text[start:end]
                start = end

    def cap_marker(self, more: int, what: str = "characters") -> None:
        """The line that says ``more`` characters (or lines) of a text were not drawn; its
        action draws the whole block."""
        if more > 0:
            self.line(Text(f"… {more:,} more {what} (enter: draw all · e: $PAGER)", self.p.muted),
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
                n = cell_len(ln)
                if n <= width:
                    rows.append(ln)
                elif wrap:
                    if self.ctx.console is not None:
                        rows.extend(t.plain for t in Text(ln).wrap(self.ctx.console, width, overflow="fold"))
                    else:
                        rows.extend(chop_cells(ln, width))
                else:
                    rows.append(set_cell_size(ln, width - 1) + "…")
        return rows

    def _add_rows(self, rows: list[str], style: Style | None, chrome: bool) -> None:
        """Rows of plain text kept as :class:`Row` s (a Strip each is made when shown)."""
        prefix = tuple(Segment(t, st) for t, st in self._prefix)
        start = len(self.strips)
        width = self.width
        self.strips.extend(Row(r, style, prefix, width) for r in rows)
        if chrome:
            self.chrome.update(range(start, len(self.strips)))

    def markdown(self, src: str, style: Style | None = None) -> None:
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
        if plain:
            md = _PlainFenceMarkdown(src, code_theme=self.p.code_theme, hyperlinks=False, style=style or "")
            md.plain_fences = plain
        else:
            md = _Markdown(src, code_theme=self.p.code_theme, hyperlinks=False, style=style or "")
        self.render(md, trim=True)

    def blank(self) -> None:
        if not self.ctx.text_mode:
            self._add([Strip([])], True, None)

    def result(self) -> Rendered:
        return Rendered(self.strips, self.actions, self.chrome, self.sections, self.deps,
                        frozenset(self.pending_lexers))


# ---------------------------------------------------------------------------- pieces


def render_header(out: Out, label: str, label_style: Style, left: Iterable[tuple[str, Style]] = (),
                  right: Iterable[tuple[str, Style]] = (), tags: Iterable[tuple[str, Style]] = ()) -> None:
    """The thin header line of a block: label, details, tags; time and id at the right."""
    if out.ctx.text_mode:
        return
    width = out.inner
    right_text = Text()
    for s, st in right:
        if s:
            if right_text:
                right_text.append(" ")
            right_text.append(_field(s), st)
    t = Text()
    t.append(_field(label), label_style)
    for s, st in left:
        if s:
            t.append("  ")
            t.append(_field(s), st)
    for s, st in tags:
        if s:
            t.append("  ")
            t.append(f" {_field(s)} " if st.bgcolor else _field(s), st)
    room = width - right_text.cell_len - 1
    if room < 10:
        right_text = Text()
        room = width
    if t.cell_len > room:
        t.truncate(room, overflow="ellipsis")
    t.pad_right(max(0, width - t.cell_len - right_text.cell_len))
    t.append_text(right_text)
    out.line(t, chrome=True)


def render_marker(out: Out, glyph: str, text: str, style: Style, right: Iterable[tuple[str, Style]] = ()) -> None:
    """A thin one-line marker (model change, thinking level, label, usage ...)."""
    text = _field(text)
    if out.ctx.text_mode:
        out.texts.append(text)
        return
    p = out.p
    t = Text()
    t.append(f"{glyph} ", style)
    t.append(text, style)
    rt = Text()
    for s, st in right:
        if s:
            if rt:
                rt.append(" ")
            rt.append(_field(s), st)
    width = out.inner
    room = width - rt.cell_len - 2
    if room < 10:
        rt = Text()
        room = width
    if t.cell_len > room:
        t.truncate(room, overflow="ellipsis")
    fill = max(0, width - t.cell_len - rt.cell_len)
    if fill >= 3:
        t.append(" " + "─" * (fill - 2) + " ", p.faint)
    else:
        t.pad_right(fill)
    t.append_text(rt)
    if out.ctx.text_mode:
        out.texts.append(text)
        return
    out.line(t)


def _fold_line(out: Out, key: str, folded: bool, text: str, style: Style | None = None,
               extra: str = "") -> None:
    t = Text()
    t.append("▸ " if folded else "▾ ", out.p.muted)
    t.append(text, style or out.p.muted)
    if extra:
        t.append("  " + extra, out.p.faint)
    out.line(t, chrome=True, action=("fold", key))


def _more_line(out: Out, n: int, what: str = "lines", hint: str = "o") -> None:
    t = Text(f"… {n} more {what}" + (f" ({hint})" if hint else ""), out.p.muted)
    out.line(t, chrome=True)


def render_content(out: Out, content: Any, style: Style | None = None, markdown: bool = True) -> None:
    """User/custom content: a string or text and image blocks."""
    if isinstance(content, str):
        (out.markdown if markdown else out.wrap)(content, style) if content.strip() else None
        return
    if not isinstance(content, list):
        if content is not None:
            out.wrap(_json_compact(content), out.p.muted)
        return
    for block in content:
        if not isinstance(block, dict):
            continue
        bt = block.get("type")
        if bt == "text":
            text = block.get("text")
            if isinstance(text, str) and text.strip():
                (out.markdown if markdown else out.wrap)(text, style)
        elif bt == "image":
            _image_line(out, block)
        else:
            out.line(f"[{bt}] " + one_line(_json_compact(block), 200), out.p.muted)


def _image_line(out: Out, block: dict) -> None:
    mime = block.get("mimeType") or block.get("mediaType") or "image"
    size = image_size(block.get("data"))
    t = Text()
    t.append("▣ ", out.p.tool)
    t.append(f"image {_field(mime)}", out.p.fg)
    t.append(f" · {fmt_bytes(size)}", out.p.muted)
    out.line(t)


def _output_lines(out: Out, text: str, key: str, style: Style | None = None, *, limit: int = CUT_LINES,
                  dep: int = DEP_OUTPUT, syntax_path: str | None = None, diff: bool = False,
                  hint: str = "o") -> None:
    """Tool output, cut to ``limit`` lines unless expanded (globally, by a click or by a hit)."""
    if out.ctx.text_mode:
        text = clean(text, block=True)
        if text:
            out.texts.append(text)
        return
    whole = text
    text, dropped = out._capped(text)
    if len(text) > TEXT_CAP:  # drawn whole: cleaned piece by piece, so that it can be stopped
        text = "".join(clean(piece, block=True) for piece in out._pieces(text, whole=True))
    else:
        text = clean(text, block=True)
    lines = _lines(text)
    if not lines:
        return
    width = out.inner
    # Cut when there are too many lines, or when wrapping the few there are would make too
    # many rows (a minified JSON line); while cut, every line is one row.
    too_many = len(lines) > limit
    too_wide = False
    if not too_many:
        rows = 0
        for ln in lines:
            rows += max(1, -(-cell_len(ln.expandtabs(8) if "\t" in ln else ln) // width))
        too_wide = rows > limit
    too_many = too_many or dropped > 0
    cut = out.fold(key, not out.ctx.full_output, dep, text) if (too_many or too_wide) else False
    if cut:  # one row a line: a few thousand characters of each are plenty
        shown = [ln[:2000] for ln in lines[:limit]]
    elif out.uncapped:
        shown = lines
    else:
        shown = lines[:FULL_CAP]
    total = len(lines) if not dropped else whole.count("\n") + (not whole.endswith("\n"))
    more = total - len(shown)
    if diff:
        for i, ln in enumerate(shown):
            if i % 4096 == 4095:
                out.check()
            out.plain(ln, _diff_style(out, ln), wrap=not cut)
    elif syntax_path and len(shown) <= SYNTAX_MAX_LINES:
        _syntax(out, "\n".join(shown), syntax_path, no_wrap=cut)
    else:
        out.plain("\n".join(shown), style or out.p.fg, wrap=not cut)
    if cut:
        msg = f"… {more} more lines ({hint})" if more else f"… long lines cut ({hint})"
        out.line(Text(msg, out.p.muted), chrome=True, action=("fold", key))
    else:
        if more:
            out.cap_marker(more, "lines")
        elif dropped:
            out.cap_marker(dropped)
        elif out.uncapped and len(shown) > FULL_CAP and len(text) <= TEXT_CAP:
            out.uncap_end()  # (past TEXT_CAP, plain said it)
        if (too_many or too_wide) and key in out.ctx.inverted and not out.ctx.full_output:
            out.line(Text("▴ less", out.p.muted), chrome=True, action=("fold", key))


_LEXERS: dict[str, Any] = {}
_THEMES: dict[str, Any] = {}


_FN_INDEX: tuple | None = None
_READY_LEXERS: set = set()  # lexer classes used once (their regular expressions compiled)
_READY_ALIASES: set[str] = set()  # fence languages whose lexer is ready (see prepare_lexers)


def _fn_index() -> tuple:
    """Pygments' file name patterns, indexed: ``*.ext`` patterns by their suffix, plain
    names by name, and the few others compiled; lexer aliases; each lexer's module.
    Pygments' own lookup compiles all ~900 patterns on its first call (~0.3 s) and tries
    each on every call. Lexers of Pygments plugins are not looked for (that imports
    ``importlib.metadata`` and scans every installed package, ~0.1 s)."""
    global _FN_INDEX
    if _FN_INDEX is None:
        import fnmatch

        from pygments.lexers._mapping import LEXERS

        suffixes: dict[str, list] = {}
        names: dict[str, list] = {}
        others: list = []
        aliases: dict[str, str] = {}
        modules: dict[str, str] = {}
        for mod, name, lexer_aliases, patterns, _mimes in LEXERS.values():
            modules[name] = mod
            for a in lexer_aliases:
                aliases.setdefault(a, name)
            for pat in patterns:
                if pat.startswith("*.") and not any(c in pat[1:] for c in "*?["):
                    suffixes.setdefault(pat[1:], []).append((name, pat))
                elif not any(c in pat for c in "*?["):
                    names.setdefault(pat, []).append((name, pat))
                else:
                    others.append((name, pat, re.compile(fnmatch.translate(pat)).match))
        _FN_INDEX = (suffixes, names, others, aliases, modules)
    return _FN_INDEX


def _candidates(path: str) -> list[tuple[str, str]]:
    """(lexer name, pattern) of every Pygments lexer whose file patterns match ``path``."""
    suffixes, names, others, _aliases, _modules = _fn_index()
    fn = os.path.basename(path)
    found: list[tuple[str, str]] = list(names.get(fn, ()))
    k = fn.find(".")
    while k >= 0:
        found.extend(suffixes.get(fn[k:], ()))
        k = fn.find(".", k + 1)
    found.extend((name, pat) for name, pat, match in others if match(fn))
    return found


def _loaded(names) -> bool:
    """Whether the modules of these lexers are imported (finding a class is cheap then)."""
    import sys

    modules = _fn_index()[4]
    return all(modules[n] in sys.modules for n in names)


def lexer_class_for_filename(path: str):
    """The Pygments lexer class for a file name, exactly as Pygments'
    ``find_lexer_class_for_filename(path)`` picks it among its own lexers (None when
    there is none)."""
    from pygments.lexers import find_lexer_class

    found = _candidates(path)
    matches = [(cls, pat) for cls, pat in ((find_lexer_class(name), pat) for name, pat in found) if cls is not None]
    if not matches:
        return None
    return max(matches, key=lambda m: (m[0].priority + (0.5 if "*" not in m[1] else 0), m[0].__name__))[0]


def _lexer_class_by_name(name: str):
    """The class of ``pygments.lexers.get_lexer_by_name(name)`` among Pygments' own
    lexers (None when it is not one of them)."""
    from pygments.lexers import find_lexer_class

    lname = _fn_index()[3].get(name.lower())
    return find_lexer_class(lname) if lname is not None else None


def _class_ready(cls) -> bool:
    """Whether making a lexer of class ``cls`` is cheap now (a regex lexer compiles its
    token tables the first time one is made)."""
    if cls in _READY_LEXERS:
        return True
    from pygments.lexer import RegexLexer

    return not (isinstance(cls, type) and issubclass(cls, RegexLexer)) or "_tokens" in cls.__dict__


def _ext_of(path: str) -> str:
    return os.path.splitext(path)[1].lower() or os.path.basename(path).lower()


def lexer_ready(item: tuple) -> bool:
    """Whether a lexer a draw put off (``("file", path)`` or ``("alias", language)``)
    can be had at once now."""
    kind, what = item
    return _ext_of(what) in _LEXERS if kind == "file" else what.lower() in _READY_ALIASES


def prepare_lexers(items) -> None:
    """Find and make the lexers that draws put off (on a worker thread: their modules are
    imported and their regular expressions compiled the first time)."""
    for kind, what in items:
        try:
            if kind == "file":
                _lexer_for(what)
            else:
                _fence_lexer(what)
        except Exception:
            pass
        if kind == "alias":
            _READY_ALIASES.add(what.lower())


_FENCE_RE = re.compile(r"^[ \t]{0,3}(?:`{3,}|~{3,})[ \t]*([^\s`]+)", re.M)


def _fences_not_ready(src: str, pending: set) -> set[str] | None:
    """The languages of ``src``'s fenced code whose lexer is not ready (they go to
    ``pending``): those fences are drawn plain for now."""
    if "```" not in src and "~~~" not in src:
        return None
    out = set()
    aliases = _fn_index()[3]
    for name in set(_FENCE_RE.findall(src)):
        low = name.lower()
        if low in _READY_ALIASES:
            continue
        lname = aliases.get(low)
        if lname is None:
            continue  # not a Pygments lexer of its own: left to Rich
        if _loaded((lname,)):
            try:
                from pygments.lexers import find_lexer_class

                if _class_ready(find_lexer_class(lname)):
                    _READY_ALIASES.add(low)
                    continue
            except Exception:
                continue
        pending.add(("alias", name))
        out.add(name)
    return out


_FENCE_LEXERS: dict[str, Any] = {}  # fence language (lower case) -> lexer
_SYNTAX_THEMES: dict[str, Any] = {}


def _fence_lexer(name: str):
    """The lexer Rich's ``Syntax`` would use for a fence in ``name`` (made once: Rich looks
    it up among all of Pygments' lexers and plugins for every fence it draws). Plain text
    when Pygments has no lexer of that name; lexers of Pygments plugins are not looked for
    (see ``_fn_index``)."""
    key = name.lower()
    lexer = _FENCE_LEXERS.get(key)
    if lexer is None:
        from pygments.lexers.special import TextLexer

        try:
            cls = _lexer_class_by_name(key) or TextLexer
            lexer = cls(stripnl=False, ensurenl=True, tabsize=4)
            _READY_LEXERS.add(cls)
        except Exception:
            lexer = TextLexer(stripnl=False, ensurenl=True, tabsize=4)
        _FENCE_LEXERS[key] = lexer
    return lexer


class _Fence(CodeBlock):
    """A fenced code block drawn as Rich's ``CodeBlock`` draws it (``Syntax`` with word
    wrap and a padding of one cell on the theme's background), cell for cell, but
    straight from the lexer's tokens: Rich builds a ``Text`` of the whole block and then
    renders, wraps, pads and styles every line through its generic machinery, ~0.4 ms a
    line; this is several times faster. A line too long for the width is still wrapped by
    Rich itself (its word wrapping, exactly); a theme without a background (never ours)
    goes to Rich whole."""

    def __rich_console__(self, console: Console, options) -> Any:
        from rich.syntax import Syntax

        code = str(self.text).rstrip()
        theme = _SYNTAX_THEMES.get(self.theme)
        if theme is None:
            theme = _SYNTAX_THEMES[self.theme] = Syntax.get_theme(self.theme)
        base = theme.get_background_style()
        width = options.max_width
        if base.transparent_background or width < 3:
            yield Syntax(code, self.lexer_name, theme=self.theme, word_wrap=True, padding=1)
            return
        code_width = width - 2
        token_style = theme.get_style_for_token
        styles: dict[Any, Style] = {}
        lines: list[list[tuple[str, Style]]] = [[]]
        last = ""
        for ttype, value in _fence_lexer(self.lexer_name).get_tokens((code + "\n").expandtabs(4)):
            if not value:
                continue
            last = value
            st = styles.get(ttype)
            if st is None:
                st = styles[ttype] = base + token_style(ttype)  # (as Rich's Text styles a token)
            if "\n" not in value:
                lines[-1].append((value, st))
                continue
            for k, part in enumerate(value.split("\n")):
                if k:
                    lines.append([])
                if part:
                    lines[-1].append((part, st))
        if last.endswith("\n"):
            lines.pop()  # (as Rich's Text.split: no line after the last newline)
        pad = Segment(" ", base)
        blank = Segment(" " * width, base)
        new_line = Segment.line()
        yield blank
        yield new_line
        for parts in lines:
            plain = "".join(t for t, _ in parts)
            n = len(plain) if plain.isascii() and plain.isprintable() else cell_len(plain)
            if n <= code_width:
                yield pad
                for t, st in parts:
                    yield Segment(t, st)
                yield Segment(" " * (code_width - n + 1), base)
                yield new_line
                continue
            text = Text(justify="left", style=base, tab_size=4, no_wrap=False)
            text.append_tokens(parts)
            for wrapped in console.render_lines(text, options.update(width=code_width, height=None, justify="left"),
                                                style=base, pad=True):
                yield pad
                yield from wrapped
                yield pad
                yield new_line
        yield blank
        yield new_line


_MD_PARSER: Any = None


def _md_parser() -> Any:
    """The Markdown parser Rich's ``Markdown`` makes, made once (Rich makes one for every
    text it is given: ~0.7 ms, a third of the parse of a 2 KB reply). Parsing keeps its
    state in objects of its own; the parser's rule chains are made by a first parse here,
    so threads drawing at once only read it."""
    global _MD_PARSER
    if _MD_PARSER is None:
        from markdown_it import MarkdownIt

        parser = MarkdownIt().enable("strikethrough").enable("table")
        parser.parse("*a* `b`\n\n- c\n\n| d |\n|---|\n| e |\n\n> f ~~g~~\n\n```\nh\n```\n")
        _MD_PARSER = parser
    return _MD_PARSER


class _Markdown(Markdown):
    """Rich's Markdown with fenced code drawn by ``_Fence`` and one parser for all."""

    elements = {**Markdown.elements, "fence": _Fence, "code_block": _Fence}

    def __init__(self, markup: str, code_theme: str = "monokai", justify: Any = None, style: str | Style = "none",
                 hyperlinks: bool = True, inline_code_lexer: str | None = None,
                 inline_code_theme: str | None = None) -> None:
        # (what Rich's __init__ does, with the shared parser)
        self.markup = markup
        self.parsed = _md_parser().parse(markup)
        self.code_theme = code_theme
        self.justify = justify
        self.style = style
        self.hyperlinks = hyperlinks
        self.inline_code_lexer = inline_code_lexer
        self.inline_code_theme = inline_code_theme or code_theme


class _PlainFence(_Fence):
    @classmethod
    def create(cls, markdown: Markdown, token) -> CodeBlock:
        block = super().create(markdown, token)
        if block.lexer_name in getattr(markdown, "plain_fences", ()):
            block.lexer_name = "text"
        return block


class _PlainFenceMarkdown(_Markdown):
    """Markdown whose fences in ``plain_fences`` languages are drawn as plain text."""

    elements = {**Markdown.elements, "fence": _PlainFence, "code_block": _PlainFence}
    plain_fences: set[str] = set()


def _lexer_for(path: str, lazy: bool = False):
    """A Pygments lexer for a file name, or None (cached by extension). With ``lazy``,
    ``("file", path)`` instead when finding or making it would be slow (a lexer module
    to import, or regular expressions to compile): see ``prepare_lexers``."""
    ext = _ext_of(path)
    if ext in _LEXERS:
        return _LEXERS[ext]
    try:
        if lazy and not _loaded(name for name, _pat in _candidates(path)):
            return ("file", path)
        cls = lexer_class_for_filename(path)
    except Exception:
        cls = None
    if cls is None or cls.name in ("Text only", "Text output"):
        _LEXERS[ext] = None
        return None
    if lazy and not _class_ready(cls):
        return ("file", path)
    try:
        lexer = cls(stripnl=False, ensurenl=False)
        _READY_LEXERS.add(cls)
    except Exception:
        lexer = None
    _LEXERS[ext] = lexer
    return lexer


def _syntax(out: Out, code: str, path: str, no_wrap: bool) -> None:
    """File content highlighted with Pygments, drawn row by row (much faster than Rich's
    Syntax); cut or wrapped like plain output."""
    lexer = _lexer_for(path, lazy=out.ctx.lazy_lexers) if path else None
    if isinstance(lexer, tuple):  # not ready: plain for now
        out.pending_lexers.add(lexer)
        lexer = None
    if lexer is None:
        out.plain(code, out.p.fg, wrap=not no_wrap)
        return
    if out.ctx.text_mode:
        out.texts.append(code)
        return
    from rich.syntax import PygmentsSyntaxTheme

    theme = _THEMES.get(out.p.code_theme)
    if theme is None:
        theme = _THEMES[out.p.code_theme] = PygmentsSyntaxTheme(out.p.code_theme)
    fg = out.p.fg
    styles: dict[Any, Style] = {}
    lines: list[list[Segment]] = [[]]
    for ttype, value in lexer.get_tokens(code.expandtabs(8)):
        st = styles.get(ttype)
        if st is None:
            tok = theme.get_style_for_token(ttype)
            st = styles[ttype] = fg + Style(color=tok.color, bold=tok.bold, italic=tok.italic,
                                            underline=tok.underline)
        parts = value.split("\n")
        for k, part in enumerate(parts):
            if k:
                lines.append([])
            if part:
                lines[-1].append(Segment(part, st))
    if lines and not lines[-1] and code.endswith("\n") is False and len(lines) > 1:
        lines.pop()
    width = out.inner
    strips = []
    for segs in lines:
        strip = Strip(segs)
        n = strip.cell_length
        if n <= width:
            strips.append(strip)
        elif no_wrap:
            strips.append(Strip.join([strip.crop(0, width - 1), Strip([Segment("…", out.p.muted)], 1)]))
        else:
            strips.extend(strip.divide(_word_cuts(strip.text, width) + [n]))
    out._add(strips, False, None)


def _diff_style(out: Out, ln: str) -> Style:
    p = out.p
    if ln.startswith("@@"):
        return p.diff_hunk
    if ln.startswith("+++") or ln.startswith("---"):
        return Style(bold=True) + p.fg
    if ln.startswith("+"):
        return p.diff_add
    if ln.startswith("-"):
        return p.diff_del
    return p.fg


# ---------------------------------------------------------------------------- tool calls


def tool_args_summary(name: str, args: Any) -> str:
    """The arguments in short: a bash command, read path:range, edit path, grep pattern, else JSON."""
    a = args if isinstance(args, dict) else {}
    if name == "bash":
        cmd = a.get("command")
        if isinstance(cmd, str):
            first = clean(cmd, block=True).strip().split("\n")
            extra = len(first) - 1
            return "$ " + first[0] + (f"  (+{extra} lines)" if extra else "")
    if name in ("read", "edit", "write", "grep", "find", "ls", "subagent"):
        s = format_tool_call(name, a)
        prefix = f"[{name}: "
        if s.startswith(prefix) and s.endswith("]"):
            s = s[len(prefix) : -1]
        if name == "write" and isinstance(a.get("content"), str):
            n = len(_lines(a["content"]))
            s += f"  ({n} line{'s' if n != 1 else ''})"
        if name == "edit":
            edits = a.get("edits")
            if isinstance(edits, list) and len(edits) > 1:
                s += f"  ({len(edits)} edits)"
        return s
    if not a:
        return "{}" if isinstance(args, dict) else _json_compact(args)
    return _json_compact(a)


def _result_text(msg: dict) -> str:
    return text_of(msg.get("content"))


def _result_images(msg: dict) -> list[dict]:
    c = msg.get("content")
    if not isinstance(c, list):
        return []
    return [b for b in c if isinstance(b, dict) and b.get("type") == "image"]


def render_tool_section(out: Out, call: dict | None, result: dict | None, key: str,
                        result_entry: int | None = None, depth: int = 0) -> None:
    """One tool call with its result under it."""
    p = out.p
    if result is not None and result.get("pituiError"):
        out.mark_entry(result_entry)
        t = Text("⚠ damaged entry: ", p.warning + Style(bold=True))
        t.append(clean(result["pituiError"], block=True), p.warning)
        out.wrap(t)
        return
    name = str((call or {}).get("name") or (result or {}).get("toolName") or "tool")
    args = (call or {}).get("arguments")
    is_error = bool(result and result.get("isError"))
    if result is None:
        glyph, gstyle = "…", p.muted
    elif is_error:
        glyph, gstyle = "✗", p.error
    else:
        glyph, gstyle = "✓", p.success
    out.mark_entry(result_entry)
    t = Text()
    t.append(glyph + " ", gstyle)
    t.append(_field(name), p.tool + Style(bold=True))
    if call is not None:
        t.append("  ")
        t.append(_field(tool_args_summary(name, args)), p.fg)
    else:
        t.append("  (call not on this branch)", p.muted)
    if result is None:
        t.append("  no result", p.muted)
    if out.ctx.text_mode:
        out.texts.append(t.plain)
    else:
        out.line(t)
    out.push("  ", Style())
    try:
        a = args if isinstance(args, dict) else {}
        # Arguments worth showing in full: multi-line bash commands, written content.
        if name == "bash" and isinstance(a.get("command"), str) and "\n" in a["command"].strip():
            _output_lines(out, a["command"], key + ":cmd", p.muted, limit=3)
        if name == "write" and isinstance(a.get("content"), str):
            path = str(a.get("path") or a.get("file_path") or "")
            _output_lines(out, a["content"], key + ":content", None, syntax_path=path)
        if name == "edit" and result is None:
            old, new = a.get("oldText"), a.get("newText")
            if isinstance(old, str) and isinstance(new, str):
                diff = "\n".join(["-" + x for x in _lines(old)] + ["+" + x for x in _lines(new)])
                _output_lines(out, diff, key + ":args", diff=True)
        if result is None:
            return
        _tool_result_body(out, name, a, result, key, depth)
    finally:
        out.pop()


def _tool_result_body(out: Out, name: str, args: dict, result: dict, key: str, depth: int) -> None:
    p = out.p
    is_error = bool(result.get("isError"))
    details = result.get("details") if isinstance(result.get("details"), dict) else {}
    text = _result_text(result)
    if name == "subagent" and isinstance(details.get("results"), list):
        _subagent(out, details, key, depth)
        if text.strip():
            out.line(Text("output:", p.muted), chrome=True)
            _output_lines(out, text, key + ":out", p.error if is_error else p.fg)
    elif isinstance(details.get("diff"), str) and details["diff"].strip() and not is_error:
        _output_lines(out, details["diff"], key + ":diff", diff=True, limit=CUT_LINES * 2)
    else:
        path = None
        if name == "read" and not is_error:
            path = str(args.get("path") or args.get("file_path") or "") or None
        _output_lines(out, text, key + ":out", p.error if is_error else p.fg, syntax_path=path)
    for img in _result_images(result):
        _image_line(out, img)
    # bash truncation
    trunc = details.get("truncation") if isinstance(details.get("truncation"), dict) else None
    full_path = details.get("fullOutputPath")
    if (trunc and trunc.get("truncated")) or isinstance(full_path, str):
        t = Text("⚠ output truncated", p.warning)
        if trunc:
            shown, total = trunc.get("outputLines"), trunc.get("totalLines")
            if _num(shown) is not None and _num(total) is not None:
                t.append(f": {shown:g} of {total:g} lines kept", p.warning)
        if isinstance(full_path, str):
            t.append(" · full output: ", p.muted)
            t.append(_field(full_path), p.link)
        out.wrap(t, chrome=False)
    usage = result.get("usage")
    if isinstance(usage, dict):
        _usage_line(out, usage, "tool model usage")


def _usage_line(out: Out, usage: dict, what: str) -> None:
    p = out.p
    total = usage.get("totalTokens")
    if _num(total) is None:
        total = sum(_num(usage.get(k)) or 0 for k in ("input", "output", "cacheRead", "cacheWrite"))
    t = Text(f"{what}: {fmt_tokens(total)} tokens", p.muted)
    cost = fmt_cost(usage.get("cost"))
    if cost:
        t.append(f" · {cost}", p.muted)
    out.line(t, chrome=True)


# ---------------------------------------------------------------------------- subagents


def _subagent(out: Out, details: dict, key: str, depth: int) -> None:
    p = out.p
    mode = details.get("mode")
    results = [r for r in details["results"] if isinstance(r, dict)]
    if mode:
        out.line(Text(f"{_field(mode)} run · {len(results)} agent{'s' if len(results) != 1 else ''}", p.muted),
                 chrome=True)
    for k, r in enumerate(results):
        rkey = f"{key}:sub{k}"
        agent = _field(r.get("agent") or "agent")
        code = r.get("exitCode")
        status = None
        prog = r.get("progress") if isinstance(r.get("progress"), dict) else {}
        if _num(code) is not None:
            ok = code == 0
            status = ("✓ done" if ok else f"✗ exit {code:g}", p.success if ok else p.error)
        elif prog.get("status"):
            st = _field(prog.get("status"))
            status = (st, p.error if st in ("failed", "error") else p.muted)
        if r.get("error"):
            status = ("✗ " + one_line(str(r.get("error")), 60), p.error)
        messages = r.get("messages") if isinstance(r.get("messages"), list) else []
        msgs = [m for m in messages if isinstance(m, dict)]
        task = r.get("task") if isinstance(r.get("task"), str) else ""
        hay = task + "\n" + "\n".join(_message_haystack(m) for m in msgs) if out.ctx.query else None
        folded = out.fold(rkey, not out.ctx.full_output, DEP_OUTPUT, hay)
        t = Text()
        t.append("▸ " if folded else "▾ ", p.muted)
        step = r.get("step")
        if _num(step) is not None:
            t.append(f"{step:g}. ", p.muted)
        t.append(agent, p.tool + Style(bold=True))
        if status:
            t.append("  ")
            t.append(status[0], status[1])
        model = r.get("model")
        if model:
            t.append(f"  {_field(model)}", p.muted)
        usage = r.get("usage") if isinstance(r.get("usage"), dict) else {}
        bits = []
        inp, outp = _num(usage.get("input")), _num(usage.get("output"))
        if inp is not None or outp is not None:
            bits.append(f"↑{fmt_tokens(inp or 0)} ↓{fmt_tokens(outp or 0)}")
        cost = fmt_cost(usage.get("cost"))
        if cost:
            bits.append(cost)
        turns = _num(usage.get("turns"))
        if turns is not None:
            bits.append(f"{turns:g} turn{'s' if turns != 1 else ''}")
        ps = r.get("progressSummary") if isinstance(r.get("progressSummary"), dict) else {}
        dur = fmt_duration(ps.get("durationMs"))
        if dur:
            bits.append(dur)
        if bits:
            t.append("  " + " · ".join(bits), p.muted)
        if out.ctx.text_mode:
            out.texts.append(agent)
        else:
            out.line(t, chrome=True, action=("fold", rkey))
        out.push("  ", Style())
        try:
            if task:
                if folded:
                    out.line(Text("task: ", p.muted) + Text(one_line(clean(task, block=True), 400), p.fg))
                else:
                    grid = Table.grid(padding=(0, 1))
                    grid.add_column(no_wrap=True)
                    grid.add_column(overflow="fold")
                    grid.add_row(Text("task:", p.muted), Text(clean(task, block=True), p.fg))
                    out.render(grid, task)
            if not folded:
                out.push("│ ", p.faint)
                try:
                    render_messages(out, msgs, rkey, depth + 1)
                finally:
                    out.pop()
            _artifact_line(out, r, details, folded)
        finally:
            out.pop()


def _artifact_line(out: Out, r: dict, details: dict, folded: bool = False) -> None:
    """The full transcript's file: a link to open it when it exists; where it was
    expected otherwise (only while the result is unfolded, to keep folds short)."""
    if out.ctx.text_mode:
        return
    p = out.p
    paths = []
    ap = r.get("artifactPaths")
    if isinstance(ap, dict) and isinstance(ap.get("jsonlPath"), str):
        paths.append(ap["jsonlPath"])
    if isinstance(r.get("sessionFile"), str):
        paths.append(r["sessionFile"])
    if not paths:
        return
    found = None
    resolve = out.ctx.resolve_artifact
    if resolve is not None:
        for cand in paths:
            found = resolve(cand)
            if found:
                break
    t = Text("transcript: ", p.muted)
    if found:
        t.append(_field(shorten_home(found)), p.link)
        t.append("  ⏎ open", p.tool)
        out.line(t, chrome=True, action=("open", found))
    elif not folded:
        t.append(_field(shorten_home(paths[0])), p.muted)
        t.append("  (file not found)", p.faint)
        out.line(t, chrome=True)


def _message_haystack(msg: dict) -> str:
    """All the text of one message, for deciding whether a fold holds a search hit."""
    parts = []
    c = msg.get("content")
    if isinstance(c, str):
        parts.append(c)
    elif isinstance(c, list):
        for b in c:
            if not isinstance(b, dict):
                continue
            for k in ("text", "thinking"):
                if isinstance(b.get(k), str):
                    parts.append(b[k])
            if b.get("type") == "toolCall":
                parts.append(_json_compact(b.get("arguments")))
    for k in ("command", "output", "summary", "errorMessage"):
        if isinstance(msg.get(k), str):
            parts.append(msg[k])
    d = msg.get("details")
    if isinstance(d, dict) and isinstance(d.get("diff"), str):
        parts.append(d["diff"])
    return "\n".join(parts)


# ---------------------------------------------------------------------------- messages


def message_title(msg: dict) -> tuple[str, str]:
    """(label, palette attribute) for a message's header."""
    role = msg.get("role")
    return {
        "user": ("user", "user"),
        "assistant": ("assistant", "assistant"),
        "toolResult": ("tool result", "tool"),
        "bashExecution": ("bash", "tool"),
        "system": ("system prompt", "system"),
        "custom": (f"{msg.get('customType') or 'custom'}", "custom"),
        "branchSummary": ("branch summary", "summary"),
        "compactionSummary": ("compaction summary", "summary"),
    }.get(role, (str(role or "message"), "muted"))


def render_assistant(out: Out, msg: dict, results: list[tuple[int | None, dict]], key: str,
                     depth: int = 0, call_for: Callable[[int | None, dict], dict | None] | None = None) -> None:
    """Assistant content in order: thinking (folded), Markdown text, tool calls each with
    its result; then the stop reason when it is not a normal one."""
    p = out.p
    content = msg.get("content")
    by_call: dict[str, tuple[int | None, dict]] = {}
    for entry, r in results:
        tcid = r.get("toolCallId")
        if isinstance(tcid, str) and tcid not in by_call:
            by_call[tcid] = (entry, r)
    used: set[str] = set()
    blocks = content if isinstance(content, list) else ([{"type": "text", "text": content}] if isinstance(content, str) else [])
    nth = 0
    for block in blocks:
        if not isinstance(block, dict):
            continue
        bt = block.get("type")
        if bt == "thinking":
            thinking = block.get("thinking") if isinstance(block.get("thinking"), str) else ""
            redacted = bool(block.get("redacted")) or (not thinking.strip() and block.get("thinkingSignature"))
            fkey = f"{key}:think{nth}"
            nth += 1
            if redacted and not thinking.strip():
                if not out.ctx.text_mode:
                    out.line(Text("▪ thinking (redacted)", p.thinking), chrome=True)
                continue
            if not thinking.strip():
                continue
            thinking = clean(thinking, block=True)
            n = len(_lines(thinking))
            folded = out.fold(fkey, not out.ctx.show_thinking, DEP_THINKING, thinking)
            if out.ctx.text_mode:
                out.texts.append(thinking)
                continue
            _fold_line(out, fkey, folded, f"thinking ({n} line{'s' if n != 1 else ''})", p.thinking,
                       "(t)" if folded else "")
            if not folded:
                out.push("┊ ", p.faint)
                try:
                    out.wrap(Text(thinking, p.thinking))
                finally:
                    out.pop()
        elif bt == "text":
            text = block.get("text")
            if isinstance(text, str) and text.strip():
                out.markdown(text)
        elif bt == "toolCall":
            tcid = block.get("id")
            got = by_call.get(tcid) if isinstance(tcid, str) else None
            if got is not None:
                used.add(tcid)
            render_tool_section(out, block, got[1] if got else None, f"{key}:{tcid}",
                                got[0] if got else None, depth)
        elif bt == "image":
            _image_line(out, block)
        else:
            out.line(f"[{bt}] " + one_line(_json_compact(block), 200), p.muted)
    # Results of this block that answer no call of this message.
    for entry, r in results:
        tcid = r.get("toolCallId")
        if isinstance(tcid, str) and tcid in used:
            continue
        call = call_for(entry, r) if call_for else None
        render_tool_section(out, call, r, f"{key}:{tcid}:orphan", entry, depth)
    stop = msg.get("stopReason")
    err = msg.get("errorMessage")
    if stop in ("error", "aborted", "length") or err:
        if stop == "aborted":
            t = Text("⊘ aborted", p.warning)
        elif stop == "length":
            t = Text("⚠ stopped: output length limit reached", p.warning)
        else:
            t = Text(f"✗ {stop or 'error'}", p.error + Style(bold=True))
        if err:
            t.append(": ", p.error)
            t.append(clean(err, block=True), p.error)
        out.wrap(t)
    if not blocks and not err and stop not in ("error", "aborted", "length"):
        out.line(Text("(no content)", p.muted), chrome=True)


def render_tool_results(out: Out, results: list[tuple[int | None, dict]], key: str,
                        call_for: Callable[[int | None, dict], dict | None] | None = None, depth: int = 0) -> None:
    """Tool results without their assistant message above them (orphans)."""
    for entry, r in results:
        call = call_for(entry, r) if call_for else None
        render_tool_section(out, call, r, f"{key}:{r.get('toolCallId')}", entry, depth)


def render_bash_execution(out: Out, msg: dict, key: str) -> None:
    p = out.p
    cmd = clean(msg.get("command") or "", block=True)
    t = Text("$ ", p.tool + Style(bold=True))
    t.append(cmd, p.fg + Style(bold=True))
    out.wrap(t)
    output = msg.get("output")
    if isinstance(output, str):
        _output_lines(out, output, key + ":out", p.fg)
    bits = Text()
    code = msg.get("exitCode")
    if msg.get("cancelled"):
        bits.append("⊘ cancelled", p.warning)
    elif _num(code) is not None:
        bits.append(f"exit {code:g}", p.success if code == 0 else p.error + Style(bold=True))
    else:
        bits.append("exit ?", p.muted)
    if msg.get("truncated"):
        bits.append("  ⚠ output truncated", p.warning)
    if isinstance(msg.get("fullOutputPath"), str):
        bits.append(" · full output: ", p.muted)
        bits.append(_field(msg["fullOutputPath"]), p.link)
    out.wrap(bits, chrome=True)


def render_system(out: Out, msg: dict, key: str) -> None:
    """Prompt sections by name with sizes (removed ones marked), tool changes; folded."""
    p = out.p
    sections = msg.get("sections") if isinstance(msg.get("sections"), dict) else {}
    content = text_of(msg.get("content")) if not isinstance(msg.get("content"), str) else msg["content"]
    added = msg.get("toolsAdded") if isinstance(msg.get("toolsAdded"), list) else []
    removed = msg.get("toolsRemoved") if isinstance(msg.get("toolsRemoved"), list) else []
    hay = content + "\n" + "\n".join(f"{k}\n{v}" for k, v in sections.items() if isinstance(v, str)) + "\n" + \
        "\n".join(_json_compact(t) for t in added) if out.ctx.query else None
    folded = out.fold(key + ":sys", True, 0, hay)

    def tool_names(tools: list) -> str:
        return ", ".join(_field(t.get("name")) if isinstance(t, dict) else _field(t) for t in tools)

    if sections:
        t = Text("sections: ", p.muted)
        first = True
        for name, value in sections.items():
            if not first:
                t.append(" · ", p.faint)
            first = False
            if value is None:
                t.append(_field(name), p.error)
                t.append(" removed", p.muted)
            else:
                t.append(_field(name), p.system)
                size = len(value) if isinstance(value, str) else len(_json_compact(value))
                t.append(f" {fmt_bytes(size).replace(' B', ' chars') if size < 1024 else fmt_tokens(size) + ' chars'}", p.muted)
        if out.ctx.text_mode:
            out.texts.append(" ".join(map(_field, sections.keys())))
        else:
            out.wrap(t)
    if added:
        t = Text("tools added: ", p.muted)
        t.append(tool_names(added), p.success)
        out.wrap(t)
    if removed:
        t = Text("tools removed: ", p.muted)
        t.append(tool_names(removed), p.error)
        out.wrap(t)
    if out.ctx.text_mode:
        if content:
            out.texts.append(content)
        for v in sections.values():
            if isinstance(v, str):
                out.texts.append(v)
        for tool in added:
            if isinstance(tool, dict) and isinstance(tool.get("description"), str):
                out.texts.append(tool["description"])
        return
    has_more = bool(content.strip()) or any(isinstance(v, str) and v for v in sections.values()) or any(
        isinstance(t, dict) and t.get("description") for t in added)
    if not has_more:
        if not sections and not added and not removed:
            out.line(Text("(empty)", p.muted), chrome=True)
        return
    _fold_line(out, key + ":sys", folded, "prompt text" if folded else "prompt text", p.muted,
               "(⏎ or click)" if folded else "")
    if folded:
        return
    out.push("┊ ", p.faint)
    try:
        if content.strip():
            _output_lines(out, content, key + ":content", p.fg, limit=10**9, dep=0)
        for name, value in sections.items():
            if isinstance(value, str):
                out.line(Text(f"[{_field(name)}]", p.system), chrome=True)
                _output_lines(out, value, key + ":s:" + str(name), p.fg, limit=10**9, dep=0)
        for tool in added:
            if isinstance(tool, dict):
                tt = Text(f"tool {_field(tool.get('name'))}: ", p.success)
                tt.append(clean(tool.get("description") or "", block=True), p.fg)
                out.wrap(tt)
    finally:
        out.pop()


def render_custom(out: Out, content: Any, details: Any = None) -> None:
    render_content(out, content)


def render_compaction(out: Out, summary: Any, tokens_before: Any, first_kept: str | None = None,
                      own_id: str | None = None, details: Any = None, system: Any = None,
                      usage: Any = None, from_hook: bool = False, key: str = "",
                      right: Iterable[tuple[str, Style]] = ()) -> None:
    """A boundary: a rule, then the summary the model got instead of the history above."""
    p = out.p
    tb = _num(tokens_before)
    label = f" ⇣ compaction · {fmt_tokens(tb)} tokens before " if tb is not None else " ⇣ compaction "
    if from_hook:
        label += "(extension) "
    width = out.inner
    if not out.ctx.text_mode:
        rt = Text()
        for s, st in right:
            if s:
                rt.append(" " + s, st)
        left = 3
        fill = max(0, width - left - len(label) - rt.cell_len - 1)
        t = Text("━" * left, p.summary)
        t.append(label, p.summary + Style(bold=True))
        t.append("━" * fill, p.summary)
        if rt:
            t.append(" ")
            t.append_text(rt)
        out.line(t, chrome=True)
    if isinstance(summary, str) and summary.strip():
        out.markdown(summary)
    bits = []
    if first_kept is not None:
        if own_id is not None and first_kept == own_id:
            bits.append("kept nothing from before")
        else:
            bits.append(f"kept from entry {_field(first_kept)}")
    if isinstance(details, dict):
        for k in ("readFiles", "modifiedFiles"):
            v = details.get(k)
            if isinstance(v, list) and v:
                bits.append(f"{'read' if k == 'readFiles' else 'modified'}: " + ", ".join(map(_field, v[:6]))
                            + (f" +{len(v) - 6}" if len(v) > 6 else ""))
    if isinstance(system, dict):
        secs = system.get("sections") if isinstance(system.get("sections"), dict) else {}
        tools = system.get("toolsAdded") if isinstance(system.get("toolsAdded"), list) else []
        bits.append(f"prompt checkpoint: {len(secs)} sections, {len(tools)} tools")
    if bits and not out.ctx.text_mode:
        out.wrap(Text(" · ".join(bits), p.muted), chrome=True)
    if isinstance(usage, dict):
        _usage_line(out, usage, "summary usage")


def render_branch_summary(out: Out, summary: Any, from_id: Any, details: Any = None, usage: Any = None) -> None:
    p = out.p
    if from_id:
        out.line(Text(f"summary of the branch that ended at {_field(from_id)}", p.muted), chrome=True)
    if isinstance(summary, str) and summary.strip():
        out.markdown(summary)
    if isinstance(details, dict):
        bits = []
        for k in ("readFiles", "modifiedFiles"):
            v = details.get(k)
            if isinstance(v, list) and v:
                bits.append(f"{'read' if k == 'readFiles' else 'modified'}: " + ", ".join(map(_field, v[:6])))
        if bits and not out.ctx.text_mode:
            out.wrap(Text(" · ".join(bits), p.muted), chrome=True)
    if isinstance(usage, dict):
        _usage_line(out, usage, "summary usage")


def render_json_body(out: Out, value: Any, key: str, limit: int = CUT_LINES) -> None:
    """Compact pretty JSON, cut to a few lines."""
    _output_lines(out, _json_pretty(value), key + ":json", out.p.muted, limit=limit)


def render_custom_entry(out: Out, data: Any, key: str) -> None:
    if data is None:
        out.line(Text("(no data)", out.p.muted), chrome=True)
        return
    render_json_body(out, data, key)


def render_message(out: Out, msg: dict, key: str, results: list[tuple[int | None, dict]] = (),
                   depth: int = 0, call_for: Callable[[int | None, dict], dict | None] | None = None) -> None:
    """The body of one message of any role."""
    role = msg.get("role")
    if role == "user":
        render_content(out, msg.get("content"))
    elif role == "assistant":
        render_assistant(out, msg, list(results), key, depth, call_for)
    elif role == "toolResult":
        render_tool_results(out, [(None, msg)] + list(results), key, call_for, depth)
    elif role == "bashExecution":
        render_bash_execution(out, msg, key)
    elif role == "system":
        render_system(out, msg, key)
    elif role == "custom":
        render_content(out, msg.get("content"))
    elif role == "branchSummary":
        render_branch_summary(out, msg.get("summary"), msg.get("fromId"))
    elif role == "compactionSummary":
        render_compaction(out, msg.get("summary"), msg.get("tokensBefore"), key=key)
    else:
        render_json_body(out, {k: v for k, v in msg.items() if k not in ("role", "timestamp")}, key)


def group_messages(msgs: list[dict]) -> list[tuple[dict, list[dict]]]:
    """Pair each assistant message with the tool results right after it."""
    groups: list[tuple[dict, list[dict]]] = []
    k = 0
    n = len(msgs)
    while k < n:
        m = msgs[k]
        if not isinstance(m, dict):
            k += 1
            continue
        if m.get("role") == "assistant":
            res = []
            j = k + 1
            while j < n and isinstance(msgs[j], dict) and msgs[j].get("role") == "toolResult":
                res.append(msgs[j])
                j += 1
            groups.append((m, res))
            k = j
        elif m.get("role") == "toolResult":
            res = []
            j = k
            while j < n and isinstance(msgs[j], dict) and msgs[j].get("role") == "toolResult":
                res.append(msgs[j])
                j += 1
            groups.append((res[0], res[1:]))
            k = j
        else:
            groups.append((m, []))
            k += 1
    return groups


def message_header(out: Out, msg: dict, *, time: str = "", entry_id: str = "", tags=(), compact: bool = False) -> None:
    if out.ctx.text_mode:
        return
    p = out.p
    label, attr = message_title(msg)
    style = getattr(p, attr)
    left = []
    if msg.get("role") == "assistant":
        model = msg.get("responseModel") or msg.get("model")
        if model:
            left.append((str(model), p.muted))
        tl = msg.get("thinkingLevel")
        if tl and tl != "off":
            left.append((f"thinking {tl}", p.muted))
        u = msg.get("usage")
        if isinstance(u, dict) and not compact:
            tot = u.get("totalTokens")
            bits = fmt_tokens(tot) + " tok" if _num(tot) is not None else ""
            cost = fmt_cost(u.get("cost"))
            if cost:
                bits = (bits + " " + cost).strip()
            if bits:
                left.append((bits, p.faint))
    elif msg.get("role") == "toolResult":
        label = f"tool result · {msg.get('toolName') or '?'}"
    elif msg.get("role") == "custom" and msg.get("display") is False:
        tags = list(tags) + [("hidden", p.muted + Style(italic=True))]
    elif msg.get("role") == "bashExecution" and msg.get("excludeFromContext"):
        tags = list(tags) + [("excluded from context", p.muted + Style(italic=True))]
    right = []
    if time:
        right.append((time, p.muted))
    if entry_id:
        right.append((entry_id, p.faint))
    render_header(out, label, style + Style(bold=True), left, right, tags)


def render_messages(out: Out, msgs: list[dict], key: str, depth: int) -> None:
    """A nested conversation (a subagent's messages) with compact headers."""
    for g, (m, res) in enumerate(group_messages(msgs)):
        gkey = f"{key}/{g}"
        if out.ctx.text_mode:
            render_message(out, m, gkey, [(None, r) for r in res], depth)
            continue
        ts = m.get("timestamp")
        message_header(out, m, time=fmt_time(ts) if ts else "", compact=True)
        out.push("  ", Style())
        try:
            render_message(out, m, gkey, [(None, r) for r in res], depth)
        finally:
            out.pop()
