"""Code in the pane: Pygments lexers found fast (and made ready on a worker, so that the
UI thread never compiles one), and Rich's Markdown with fenced code drawn by them."""

from __future__ import annotations

import os
import re
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.markdown import CodeBlock, Markdown
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

__all__ = [
    "lexer_class_for_filename",
    "lexer_ready",
    "prepare_lexers",
]



_LEXERS: dict[str, Any] = {}
_THEMES: dict[str, Any] = {}


_FN_INDEX: tuple | None = None
_READY_LEXERS: set = set()  # lexer classes used once (their regular expressions compiled)
_READY_ALIASES: set[str] = set()  # fence languages whose lexer is ready (see prepare_lexers)


def _fn_index() -> tuple:
    """Pygments' file name patterns, indexed: ``*.ext`` patterns by their suffix, plain
    names by name, and the few others compiled; lexer aliases; each lexer's module; the
    longest suffix.
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
            for alias in lexer_aliases:
                aliases.setdefault(alias, name)
            for pat in patterns:
                if pat.startswith("*.") and not any(char in pat[1:] for char in "*?["):
                    suffixes.setdefault(pat[1:], []).append((name, pat))
                elif not any(char in pat for char in "*?["):
                    names.setdefault(pat, []).append((name, pat))
                else:
                    others.append((name, pat, re.compile(fnmatch.translate(pat)).match))
        _FN_INDEX = (suffixes, names, others, aliases, modules, max(map(len, suffixes)))
    return _FN_INDEX


def _candidates(path: str) -> list[tuple[str, str]]:
    """(lexer name, pattern) of every Pygments lexer whose file patterns match ``path``."""
    suffixes, names, others, _aliases, _modules, longest = _fn_index()
    fn = os.path.basename(path)
    found: list[tuple[str, str]] = list(names.get(fn, ()))
    # (only the suffixes no longer than the longest pattern's: a name of a million dots from
    # a session would otherwise cost a million slices of it)
    dot = fn.find(".", max(0, len(fn) - longest))
    while dot >= 0:
        found.extend(suffixes.get(fn[dot:], ()))
        dot = fn.find(".", dot + 1)
    found.extend((name, pat) for name, pat, match in others if match(fn))
    return found


def _loaded(names) -> bool:
    """Whether the modules of these lexers are imported (finding a class is cheap then)."""
    import sys

    modules = _fn_index()[4]
    return all(modules[name] in sys.modules for name in names)


def lexer_class_for_filename(path: str):
    """The Pygments lexer class for a file name, exactly as Pygments'
    ``find_lexer_class_for_filename(path)`` picks it among its own lexers (None when
    there is none)."""
    from pygments.lexers import find_lexer_class

    found = _candidates(path)
    matches = [(cls, pat) for cls, pat in ((find_lexer_class(name), pat) for name, pat in found) if cls is not None]
    if not matches:
        return None
    return max(matches, key=lambda candidate: (candidate[0].priority + (0.5 if "*" not in candidate[1] else 0), candidate[0].__name__))[0]


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


def _lexer_for(path: str, lazy: bool = False):
    """A Pygments lexer for a file name, or None (cached by extension). With ``lazy``,
    ``("file", path)`` instead when finding or making it would be slow (a lexer module
    to import, or regular expressions to compile): see ``prepare_lexers``."""
    ext = _ext_of(path)
    if ext in _LEXERS:
        return _LEXERS[ext]
    if lazy and _FN_INDEX is None:
        return ("file", path)  # (the index of file names is made with the lexer, off this thread)
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

