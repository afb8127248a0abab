"""The pieces of the HTML export's page: session text made safe for HTML (escaped, controls
and bidi overrides shown, right-to-left text isolated), Markdown rendered (markdown-it-py, raw
HTML left as text), and the small blocks the entries are made of: content blocks, inlined
images, folded raw values, errors, preformatted output, diffs, badges.

Session content is untrusted: every string from the file goes through :func:`esc` or
:func:`attr`, and images are inlined as ``data:`` URLs only when their type is an image type
and their data is plain base64.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from ..model.notices import provider_error
from ..model.parts import image_facts
from ..numbers import as_number as _num
from ..numbers import fmt_bytes as _bytes
from ..text import BIDI_CONTROLS, json_compact, json_pretty, strip_ansi, text_lines

__all__ = ["cleaned", "esc", "attr", "int_text", "plural", "render_markdown", "md_block", "image_html",
           "content_html", "raw_details", "error_html", "pre", "diff_html", "badge"]

# C0/C1 controls other than tab and newline, lone surrogates, and non-characters are not
# allowed in HTML text: shown as U+FFFD.
_CTRL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")


# The bidi controls (core/text.py): shown as the app shows them, ``\u202e``, never raw (an
# override would reorder the page's text after it, as far as its block goes).
_BIDI_RE = re.compile(f"[{BIDI_CONTROLS}]")
# A right-to-left letter or mark (Hebrew, Arabic, Syriac, Thaana, N'Ko and the rest up to
# U+08FF, their presentation forms, the RTL and Arabic letter marks, and the right-to-left
# scripts past the BMP): text holding one is isolated in a <bdi>, so the browser's bidi
# algorithm cannot move the page's own text around it.
_RTL_RE = re.compile("[\u0590-\u08ff\u061c\u200f\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff"
                     "\U0001e800-\U0001efff]")


def cleaned(value: Any) -> str:
    """A string fit for an HTML page: ANSI escapes dropped, control characters replaced,
    bidi controls as visible stand-ins."""
    text = strip_ansi(value if isinstance(value, str) else ("" if value is None else str(value)))
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CTRL_RE.sub("\ufffd", text)
    if _BIDI_RE.search(text) is None:
        return text
    return _BIDI_RE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def esc(value: Any) -> str:
    """Escaped text for the page's text (a string with a right-to-left letter isolated in a
    ``<bdi>``: see :data:`_RTL_RE`). Never inside an attribute or the title: :func:`_a`."""
    text = escape(cleaned(value), quote=True)
    return text if _RTL_RE.search(text) is None else f"<bdi>{text}</bdi>"


def attr(value: Any) -> str:
    """Escaped text for a double-quoted attribute or the title (no markup there)."""
    return escape(cleaned(value), quote=True)


def int_text(value: Any) -> str:
    number = _num(value)
    if number is None:
        return "?"
    return f"{number:,.0f}" if float(number).is_integer() else f"{number:,.2f}"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


# ---------------------------------------------------------------------------- Markdown

_LANG_RE = re.compile(r"[\w.+#-]{1,30}")


def _markdown_parser():
    """markdown-it-py, CommonMark with tables and strikethrough: linear in the text, raw
    HTML off (shown as text). Links, autolinks, images and link reference definitions stay
    text, as written: the page points nowhere and loads nothing (no ``javascript:`` href can
    exist). Headings start at ``h3`` (the page's own use ``h1``/``h2``), code blocks carry
    their language as a class, tables their class."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.disable(["link", "image", "autolink", "reference"])

    def code(tokens, idx, options, env):
        tok = tokens[idx]
        lang = tok.info.strip().split(maxsplit=1)[0] if tok.info.strip() else ""
        cls = f' class="lang-{attr(lang)}"' if lang and _LANG_RE.fullmatch(lang) else ""
        body = tok.content[:-1] if tok.content.endswith("\n") else tok.content
        return f'<pre class="code"><code{cls}>{esc(body)}</code></pre>'

    def heading(tokens, idx, options, env):
        tok = tokens[idx]
        level = min(6, int(tok.tag[1]) + 2)
        return f"<h{level}>" if tok.nesting == 1 else f"</h{level}>"

    def table_open(tokens, idx, options, env):
        return '<div class="table-wrap"><table class="md-table">'

    def table_close(tokens, idx, options, env):
        return "</table></div>"

    rules = md.renderer.rules
    rules["fence"] = rules["code_block"] = code
    rules["heading_open"] = rules["heading_close"] = heading
    rules["table_open"], rules["table_close"] = table_open, table_close
    return md


_MD = None


def render_markdown(text: Any) -> str:
    """Message Markdown as safe HTML (see :func:`_markdown_parser`); control characters
    become visible stand-ins first, as everywhere on the page."""
    global _MD
    if _MD is None:
        _MD = _markdown_parser()
    return _MD.render(cleaned(text))


def md_block(text: Any, cls: str = "md") -> str:
    return f'<div class="{cls}">{render_markdown(text)}</div>'


# ---------------------------------------------------------------------------- pieces

_MIME_RE = re.compile(r"image/[A-Za-z0-9.+-]{1,40}")
# base64, white space anywhere, at most two "=" at its end. The class is possessive (``*+``,
# never gives back what it took): a plain ``*`` gave back each white-space character of a run
# followed by a bad one for ``\s*`` to try again (quadratic in the run).
_B64_RE = re.compile(r"[A-Za-z0-9+/\s]*+={0,2}\s*")


def image_html(block: dict) -> str:
    img = image_facts(block)
    mime, data, mime_s, size = img.mime, block.get("data"), img.mime, img.size
    ok = _MIME_RE.fullmatch(mime) and isinstance(data, str) and data and _B64_RE.fullmatch(data)
    dims = img.dims if ok else None
    dim_s = f"{dims[0]}×{dims[1]} · " if dims else ""
    caption = f"<figcaption>{esc(mime_s)} · {dim_s}{_bytes(size)}</figcaption>"
    if ok:
        src = f"data:{mime};base64,{re.sub(r'[^A-Za-z0-9+/=]', '', data)}"
        tiny = ' class="tiny"' if dims and 0 < max(dims) < 96 else ""
        return (f'<figure class="image"><img{tiny} src="{src}" alt="{attr(mime_s)} image, {_bytes(size)}">'
                f"{caption}</figure>")
    return f'<figure class="image broken"><div class="noimg">image not shown (not base64 {esc(mime_s)})</div>{caption}</figure>'


def content_html(content: Any) -> str:
    """User/custom content: a string, or text and image blocks."""
    if isinstance(content, str):
        return md_block(content) if content.strip() else ""
    if not isinstance(content, list):
        return ""
    out = []
    for block in content:
        if not isinstance(block, dict):
            continue
        bt = block.get("type")
        if bt == "text" and isinstance(block.get("text"), str):
            if block["text"].strip():
                out.append(md_block(block["text"]))
        elif bt == "image":
            out.append(image_html(block))
        else:
            out.append(raw_details(f"{bt or 'unknown'} block", block))
    return "".join(out)


def raw_details(title: str, value: Any, cls: str = "raw") -> str:
    return f'<details class="{cls}"><summary>{esc(title)}</summary><pre>{esc(json_pretty(value))}</pre></details>'


def error_html(message: Any, lead: str = ": ") -> str:
    """A stored error message: unwrapped when a provider sent JSON (``provider_error``), the
    raw text folded under it; nothing for no message."""
    if not message:
        return ""
    error = provider_error(message if isinstance(message, str) else json_compact(message))
    html = lead + esc(error.short)
    if error.unwrapped:
        html += f'<details class="raw"><summary>as the provider sent it</summary>{pre(error.raw)}</details>'
    return html


def pre(text: str, cls: str = "out") -> str:
    return f'<pre class="{cls}">{esc(text)}</pre>'


def diff_html(text: str) -> str:
    """A diff, one coloured line each: Pi's line-numbered display diff (``details.diff``)
    or a unified diff (``details.patch``, and ``details.diff`` in older releases)."""
    rows = []
    for ln in text_lines(cleaned(text)):
        if ln.startswith("+++") or ln.startswith("---"):
            cls = "dh"
        elif ln.startswith("@@"):
            cls = "dhunk"
        elif ln.startswith("+"):
            cls = "dadd"
        elif ln.startswith("-"):
            cls = "ddel"
        elif ln.strip() == "...":
            cls = "dhunk"
        else:
            cls = "dctx"
        rows.append(f'<div class="{cls}">{esc(ln) or " "}</div>')
    return '<div class="diff">' + "".join(rows) + "</div>"


def badge(text: str, cls: str = "") -> str:
    return f'<span class="badge{(" " + cls) if cls else ""}">{esc(text)}</span>'

