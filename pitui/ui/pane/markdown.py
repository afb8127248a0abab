"""Rich's Markdown in the pane: one parser for every message, fenced code drawn straight
from the lexers of :mod:`.code`.

Kept apart from :mod:`.code` because Rich's Markdown brings in markdown-it and Pygments'
core, a tenth of pitui's imports: :func:`canvas.Out.markdown` loads this module when a
message is first drawn, and the open's thread loads it while the first session is read
(``ui/browser/opener.py``), so that neither the start-up nor the first screen waits for it.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.markdown import CodeBlock, Markdown
from rich.segment import Segment
from rich.style import Style

from .code import _SYNTAX_THEMES, _fence_lexer

__all__ = ["CUT_MARK", "_Markdown", "_PlainFenceMarkdown"]


#: What ends a code line cut at the pane's width (the rest of the line is not wrapped).
CUT_MARK = "…"
_MARK_STYLE = Style(dim=True, bold=True)


def _cut_line(parts: list[tuple[str, Style]], width: int, base: Style) -> list[Segment]:
    """A code line's coloured ``parts`` cut to exactly ``width`` cells (a wide character
    that would straddle the end gives its place to a space of ``base``)."""
    out: list[Segment] = []
    room = width
    for text, style in parts:
        total = cell_len(text)
        if total <= room:
            out.append(Segment(text, style))
            room -= total
            continue
        kept = []
        for ch in text:
            char_cells = cell_len(ch)
            if char_cells > room:
                break
            kept.append(ch)
            room -= char_cells
        if kept:
            out.append(Segment("".join(kept), style))
        break
    if room:
        out.append(Segment(" " * room, base))
    return out


class _Fence(CodeBlock):
    """A fenced code block drawn as Rich's ``CodeBlock`` draws it (``Syntax`` with a
    padding of one cell on the theme's background), cell for cell, but straight from the
    lexer's tokens: Rich builds a ``Text`` of the whole block and then renders, wraps,
    pads and styles every line through its generic machinery, ~0.4 ms a line; this is
    several times faster. A line too long for the width is never wrapped (a command or a
    URL stays one line, as it was written): it is cut, and :data:`CUT_MARK` ends it (the
    entry's text, ``Y``, holds it whole). A theme without a background (never ours) goes
    to Rich whole."""

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
            for index, part in enumerate(value.split("\n")):
                if index:
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
            plain = "".join(text for text, _ in parts)
            cells = len(plain) if plain.isascii() and plain.isprintable() else cell_len(plain)
            if cells > code_width and cell_len(plain.rstrip()) <= code_width:
                # too long only by its trailing blanks: cut where the width ends, no mark
                # (as Rich's wrapping drops the blanks past it)
                yield pad
                yield from _cut_line(parts, code_width, base)
                yield pad
                yield new_line
                continue
            if cells <= code_width:
                yield pad
                for text, st in parts:
                    yield Segment(text, st)
                yield Segment(" " * (code_width - cells + 1), base)
                yield new_line
                continue
            yield pad
            yield from _cut_line(parts, code_width - 1, base)
            yield Segment(CUT_MARK, base + _MARK_STYLE)
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
