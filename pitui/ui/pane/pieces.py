"""The pieces blocks are made of: header and marker lines, content, fold lines, program
output (cut, counted, highlighted, diffs) and the short form of a tool call's arguments."""

from __future__ import annotations

from typing import Any, Iterable

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from ...core.numbers import fmt_bytes
from ...core.model.summary import one_line
from ...core.model.parts import image_facts, plural
from ...core.text import clean, json_compact, text_lines

from ..text_fit import cut_end, cut_segments, cut_text
from .code import _THEMES, _lexer_for
from .canvas import CUT_LINES, FULL_CAP, SYNTAX_MAX_LINES, TEXT_CAP, Out, _field, _word_cuts

__all__ = [
    "file_link",
    "render_header",
    "render_marker",
    "fit_line",
    "GIVE_ID",
    "GIVE_TOKENS",
    "GIVE_DETAIL",
    "GIVE_TIME",
    "SHRINK",
    "render_content",
]

# ---------------------------------------------------------------------------- pieces


# The order in which the pieces of a header or marker line give way when the line is too
# narrow: the entry's id first, then a message's token count, its thinking level, then the
# time. Pieces without a rank stay (the role, the model, the cost, tags); a piece marked
# SHRINK (the model) is cut, to its start and an ellipsis, before the line is cut at its end.
GIVE_ID, GIVE_TOKENS, GIVE_DETAIL, GIVE_TIME = 0, 1, 2, 3
SHRINK = -1
_SHRINK_LEAST = 8  # (cells a shrunk piece keeps)


def _pieces(items: Iterable[tuple]) -> list[tuple[str, Style, int | None, str]]:
    """Header pieces as (text, style, rank, shorter): a piece given as (text, style) never
    gives way; one with a rank is left out at that rank, or becomes ``shorter`` when given."""
    out = []
    for it in items:
        if it[0]:
            out.append((_field(it[0]), it[1], it[2] if len(it) > 2 else None, _field(it[3]) if len(it) > 3 else ""))
    return out


def fit_line(width: int, head: Text, left: Iterable[tuple], right: Iterable[tuple] = (), *,
             sep: str = "  ", fill: tuple[str, Style] | None = None) -> Text:
    """``head``, the ``left`` pieces after it (``sep`` between them) and the ``right`` ones
    at the right edge, in ``width`` cells: pieces give way by their rank (see ``GIVE_ID``;
    a piece is ``(text, style)`` or ``(text, style, rank)`` or ``(text, style, rank, shorter)``),
    then the SHRINK piece is cut, then the left part at its end, with ``…``; the right
    pieces go when fewer than 10 cells would be left of the line. ``fill`` (a character
    and its style) fills the gap between the two sides, with a space at each end."""
    left, right = _pieces(left), _pieces(right)
    ranks = sorted({rank for _, _, rank, _ in left + right if rank is not None and rank >= 0})

    def build(limit: int, shrink: int | None) -> tuple[Text, Text]:
        text = head.copy()
        for piece, st, rank, shorter in left:
            if rank is not None and 0 <= rank <= limit:
                if not shorter:
                    continue
                piece = shorter
            if rank == SHRINK and shrink is not None:
                piece = cut_end(piece, shrink)
            text.append(sep)
            text.append(f" {piece} " if st.bgcolor else piece, st)
        rt = Text()
        for piece, st, rank, shorter in right:
            if rank is not None and 0 <= rank <= limit:
                if not shorter:
                    continue
                piece = shorter
            if rt:
                rt.append(" ")
            rt.append(piece, st)
        return text, rt

    def need(text: Text, rt: Text) -> int:
        return text.cell_len + (rt.cell_len + (2 if fill else 1) if rt else 0)

    limit = -1
    fitted, rt = build(limit, None)
    for limit in ranks:
        if need(fitted, rt) <= width:
            break
        fitted, rt = build(limit, None)
    if need(fitted, rt) > width:
        shrinkable = [piece for piece, _, rank, _ in left if rank == SHRINK]
        if shrinkable:
            cells = cell_len(shrinkable[0])
            fitted, rt = build(limit, max(_SHRINK_LEAST, cells - (need(fitted, rt) - width)))
    room = width - (rt.cell_len + (2 if fill else 1) if rt else 0)
    if room < 10:
        rt, room = Text(), width
    fitted = cut_text(fitted, room)
    gap = max(0, width - fitted.cell_len - rt.cell_len)
    if fill is not None and gap >= 3:
        fitted.append(" " + fill[0] * (gap - 2) + " ", fill[1])
    else:
        fitted.pad_right(gap)
    fitted.append_text(rt)
    return fitted


def render_header(out: Out, label: str, label_style: Style, left: Iterable[tuple] = (),
                  right: Iterable[tuple] = (), tags: Iterable[tuple] = ()) -> None:
    """The thin header line of a block: label, details, tags; time and id at the right.
    Pieces are (text, style) or (text, style, rank): see ``fit_line``."""
    if out.ctx.text_mode:
        return
    head = Text(_field(label), label_style)
    out.line(fit_line(out.inner, head, list(left) + list(tags), right), chrome=True)


def render_marker(out: Out, glyph: str, text: str, style: Style, right: Iterable[tuple] = ()) -> None:
    """A thin one-line marker (model change, thinking level, label, usage ...)."""
    text = _field(text)
    if out.ctx.text_mode:
        out.texts.append(text)
        return
    head = Text(f"{glyph} {text}", style)
    out.line(fit_line(out.inner, head, (), right, fill=("─", out.p.faint)))


def _fold_line(out: Out, key: str, folded: bool, text: str, style: Style | None = None,
               extra: str = "") -> None:
    line = Text()
    line.append("▸ " if folded else "▾ ", out.p.muted)
    line.append(text, style or out.p.muted)
    if extra:
        line.append("  " + extra, out.p.faint)
    out.line(line, chrome=True, action=("fold", key))


def render_content(out: Out, content: Any, style: Style | None = None, markdown: bool = True) -> None:
    """User/custom content: a string or text and image blocks."""
    if isinstance(content, str):
        (out.markdown if markdown else out.wrap)(content, style) if content.strip() else None
        return
    if not isinstance(content, list):
        if content is not None:
            out.wrap(json_compact(content), out.p.muted)
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
            out.line(f"[{bt}] " + one_line(json_compact(block), 200), out.p.muted)


def file_link(out: Out, label: str, shown: str, found: str | None) -> None:
    """``label shown  ⏎ open``, a line that opens the file ``found``; when the file is not
    here, ``shown`` muted and ``(file not found)``."""
    palette = out.p
    text = Text(label, palette.muted)
    if found:
        text.append(_field(shown), palette.link)
        text.append("  ⏎ open", palette.tool)
        out.line(text, chrome=True, action=("open", found))
    else:
        text.append(_field(shown), palette.muted)
        text.append("  (file not found)", palette.faint)
        out.line(text, chrome=True)


def _image_line(out: Out, block: dict) -> None:
    img = image_facts(block)
    text = Text()
    text.append("▣ ", out.p.tool)
    text.append(f"image {_field(img.mime)}", out.p.fg)
    if img.dims:
        text.append(f" · {img.dims[0]}×{img.dims[1]}", out.p.muted)
    text.append(f" · {fmt_bytes(img.size)}", out.p.muted)
    out.line(text)


def _output_lines(out: Out, text: str, key: str, style: Style | None = None, *, limit: int = CUT_LINES,
                  syntax_path: str | None = None, diff: bool = False,
                  hint: str = "o", markdown: bool = False) -> None:
    """Tool output, cut to ``limit`` lines unless expanded (globally, by a click or by a hit);
    with ``markdown``, drawn as Markdown (a model's reply, such as a subagent's output)."""
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
    lines = text_lines(text)
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
    foldable = too_many or too_wide
    full = foldable and out.toggled("tool_output")
    cut = out.fold(key, not full, text) if foldable else False
    if cut:  # one row a line: a few thousand characters of each are plenty
        shown = [ln[:2000] for ln in lines[:limit]]
    elif out.uncapped:
        shown = lines
    else:
        shown = lines[:FULL_CAP]
    total = len(lines) if not dropped else whole.count("\n") + (not whole.endswith("\n"))
    more = total - len(shown)
    if diff:
        for index, ln in enumerate(shown):
            if index % 4096 == 4095:
                out.check()
            out.plain(ln, _diff_style(out, ln), wrap=not cut)
    elif syntax_path and len(shown) <= SYNTAX_MAX_LINES:
        _syntax(out, "\n".join(shown), syntax_path, no_wrap=cut)
    elif markdown:  # (while cut: a paragraph's line a row, as many rows as lines)
        out.markdown("\n".join(shown), style or out.p.fg, no_wrap=cut, max_rows=limit if cut else None)
    else:
        out.plain("\n".join(shown), style or out.p.fg, wrap=not cut)
    if cut:
        msg = f"… {plural(more, 'more line')} ({hint})" if more else f"… long lines cut ({hint})"
        out.line(Text(msg, out.p.muted), chrome=True, action=("fold", key))
    else:
        if more:
            out.cap_marker(more, "line")
        elif dropped:
            out.cap_marker(dropped)
        elif out.uncapped and len(shown) > FULL_CAP and len(text) <= TEXT_CAP:
            out.uncap_end()  # (past TEXT_CAP, plain said it)
        if foldable and key in out.ctx.inverted and not full:
            out.line(Text("▴ less", out.p.muted), chrome=True, action=("fold", key))



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
        for index, part in enumerate(parts):
            if index:
                lines.append([])
            if part:
                lines[-1].append(Segment(part, st))
    if lines and not lines[-1] and code.endswith("\n") is False and len(lines) > 1:
        lines.pop()
    width = out.inner
    strips = []
    for segs in lines:
        strip = Strip(segs)
        cells = strip.cell_length
        if cells <= width:
            strips.append(strip)
        elif no_wrap:
            strips.append(Strip(cut_segments(segs, width, out.p.muted)))
        else:
            strips.extend(strip.divide(_word_cuts(strip.text, width) + [cells]))
    out._add(strips, False, None)


def _diff_style(out: Out, ln: str) -> Style:
    palette = out.p
    if ln.startswith("@@"):
        return palette.diff_hunk
    if ln.startswith("+++") or ln.startswith("---"):
        return Style(bold=True) + palette.fg
    if ln.startswith("+"):
        return palette.diff_add
    if ln.startswith("-"):
        return palette.diff_del
    return palette.fg
