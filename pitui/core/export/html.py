"""``pitui export --format html``: one branch as a single self-contained web page.

The structure follows the Markdown export: a header (title, session id, working
directory, dates, models, tokens and cost of the branch), then every entry from the root
to the chosen leaf. Tool calls are shown with their results, thinking and long detail are
folded in ``<details>``, compactions are boundaries, and the history a compaction left
outside the model's context is marked as such.

Session content is untrusted: every string from the file is HTML-escaped, nothing is a
link to anywhere but this page, and images are inlined as ``data:`` URLs only when their
type is an image type and their data is plain base64. The page loads nothing from the
network (inline CSS, one tiny inline script for "expand all").
"""

from __future__ import annotations

import re
from html import escape
from typing import Any, Callable

from ..model.doctor import call_or_why
from ..model.context import context_entry_indices
from .markdown import when_utc
from ..numbers import as_number as _num
from ..numbers import fmt_bytes as _bytes
from ..numbers import fmt_cost as _cost
from ..read.session import Session
from ..read.skeleton import F_DAMAGED
from ..model.files import files_touched
from ..model.notices import new_reasoning_drop, provider_error
from ..model.stats import TOOLS_KEY, Stats, branch_stats, session_stats, tool_calls
from ..model.parts import (CUSTOM_ENTRY, CUSTOM_MESSAGE, AppEvent, AppInput, Marker, app_event, app_input,
                           callbacks_by_call, ResultParts, SubagentRun, SummaryParts, cap_first, image_facts, marker,
                           model_label, requested_edit, result_parts, role_title, summary_parts, tool_args_summary,
                           tool_name, tool_state, usage_bits)
from ..model.summary import one_line, shorten_home, text_of
from ..text import BIDI_CONTROLS, json_compact, json_pretty, strip_ansi, text_lines


__all__ = ["export_html", "render_markdown"]

# the page's class of each marker's kind (its CSS)
_MARKER_CLASS = {"model_change": "model", "thinking_level_change": "thinking-change", "context_edit": "context-edit",
                 "session_info": "title", "usage": "usage", "stream_event": "stream-event"}

MAX_DEPTH = 6  # nested subagent conversations shown inside each other at most this deep

# ---------------------------------------------------------------------------- text helpers

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


def _clean(value: Any) -> str:
    """A string fit for an HTML page: ANSI escapes dropped, control characters replaced,
    bidi controls as visible stand-ins."""
    s = strip_ansi(value if isinstance(value, str) else ("" if value is None else str(value)))
    s = s.replace("\r\n", "\n").replace("\r", "\n")
    s = _CTRL_RE.sub("\ufffd", s)
    if _BIDI_RE.search(s) is None:
        return s
    return _BIDI_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", s)


def _e(value: Any) -> str:
    """Escaped text for the page's text (a string with a right-to-left letter isolated in a
    ``<bdi>``: see :data:`_RTL_RE`). Never inside an attribute or the title: :func:`_a`."""
    s = escape(_clean(value), quote=True)
    return s if _RTL_RE.search(s) is None else f"<bdi>{s}</bdi>"


def _a(value: Any) -> str:
    """Escaped text for a double-quoted attribute or the title (no markup there)."""
    return escape(_clean(value), quote=True)


def _int(n: Any) -> str:
    v = _num(n)
    if v is None:
        return "?"
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.2f}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


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
        cls = f' class="lang-{_a(lang)}"' if lang and _LANG_RE.fullmatch(lang) else ""
        body = tok.content[:-1] if tok.content.endswith("\n") else tok.content
        return f'<pre class="code"><code{cls}>{_e(body)}</code></pre>'

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
    return _MD.render(_clean(text))


def _md_block(text: Any, cls: str = "md") -> str:
    return f'<div class="{cls}">{render_markdown(text)}</div>'


# ---------------------------------------------------------------------------- pieces

_MIME_RE = re.compile(r"image/[A-Za-z0-9.+-]{1,40}")
# base64, white space anywhere, at most two "=" at its end. The class is possessive (``*+``,
# never gives back what it took): a plain ``*`` gave back each white-space character of a run
# followed by a bad one for ``\s*`` to try again (quadratic in the run).
_B64_RE = re.compile(r"[A-Za-z0-9+/\s]*+={0,2}\s*")


def _image(block: dict) -> str:
    img = image_facts(block)
    mime, data, mime_s, size = img.mime, block.get("data"), img.mime, img.size
    ok = _MIME_RE.fullmatch(mime) and isinstance(data, str) and data and _B64_RE.fullmatch(data)
    dims = img.dims if ok else None
    dim_s = f"{dims[0]}×{dims[1]} · " if dims else ""
    caption = f"<figcaption>{_e(mime_s)} · {dim_s}{_bytes(size)}</figcaption>"
    if ok:
        src = f"data:{mime};base64,{re.sub(r'[^A-Za-z0-9+/=]', '', data)}"
        tiny = ' class="tiny"' if dims and 0 < max(dims) < 96 else ""
        return (f'<figure class="image"><img{tiny} src="{src}" alt="{_a(mime_s)} image, {_bytes(size)}">'
                f"{caption}</figure>")
    return f'<figure class="image broken"><div class="noimg">image not shown (not base64 {_e(mime_s)})</div>{caption}</figure>'


def _content(content: Any) -> str:
    """User/custom content: a string, or text and image blocks."""
    if isinstance(content, str):
        return _md_block(content) if content.strip() else ""
    if not isinstance(content, list):
        return ""
    out = []
    for block in content:
        if not isinstance(block, dict):
            continue
        bt = block.get("type")
        if bt == "text" and isinstance(block.get("text"), str):
            if block["text"].strip():
                out.append(_md_block(block["text"]))
        elif bt == "image":
            out.append(_image(block))
        else:
            out.append(_raw_details(f"{bt or 'unknown'} block", block))
    return "".join(out)


def _raw_details(title: str, value: Any, cls: str = "raw") -> str:
    return f'<details class="{cls}"><summary>{_e(title)}</summary><pre>{_e(json_pretty(value))}</pre></details>'


def _error_html(message: Any, lead: str = ": ") -> str:
    """A stored error message: unwrapped when a provider sent JSON (``provider_error``), the
    raw text folded under it; nothing for no message."""
    if not message:
        return ""
    error = provider_error(message if isinstance(message, str) else json_compact(message))
    html = lead + _e(error.short)
    if error.unwrapped:
        html += f'<details class="raw"><summary>as the provider sent it</summary>{_pre(error.raw)}</details>'
    return html


def _pre(text: str, cls: str = "out") -> str:
    return f'<pre class="{cls}">{_e(text)}</pre>'


def _diff(text: str) -> str:
    """A diff, one coloured line each: Pi's line-numbered display diff (``details.diff``)
    or a unified diff (``details.patch``, and ``details.diff`` in older releases)."""
    rows = []
    for ln in text_lines(_clean(text)):
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
        rows.append(f'<div class="{cls}">{_e(ln) or " "}</div>')
    return '<div class="diff">' + "".join(rows) + "</div>"


def _badge(text: str, cls: str = "") -> str:
    return f'<span class="badge{(" " + cls) if cls else ""}">{_e(text)}</span>'


# ---------------------------------------------------------------------------- the renderer


class _Renderer:
    def __init__(self, session: Session, leaf: int):
        self.s = session
        self.leaf = leaf
        if leaf >= 0:
            self.path, ctx = context_entry_indices(session, leaf)
        else:
            self.path, ctx = [], []
        self.in_ctx = set(ctx)
        self.on_path = set(self.path)
        self.has_compaction = any(session.types[i] == "compaction" for i in self.path)
        # tool results on the branch by call id (the first one wins, as they are shown once)
        self.results: dict[str, int] = {}
        for i in self.path:
            if session.types[i] == "message" and session.roles[i] == "toolResult":
                tcid = (session.message(i) or {}).get("toolCallId")
                if isinstance(tcid, str) and tcid not in self.results:
                    self.results[tcid] = i
        # the latest context edit per target among the entries that reach the context
        self.edits: dict[str, tuple[int, dict]] = {}
        for i in ctx:
            if session.types[i] == "context_edit":
                e = session.entry(i)
                target = e.get("targetId")
                self.edits[target if isinstance(target, str) else str(target)] = (i, e)
        self.shown: set[int] = set()

    # -------------------------------------------------------------- page
    def page(self) -> str:
        body = [self.header(), '<main id="entries">']
        if not self.path:
            body.append('<p class="empty">This session has no entries.</p>')
        run_open = False
        for i in self.path:
            if i in self.shown:
                continue
            outside = self.has_compaction and i not in self.in_ctx
            if outside and not run_open:
                body.append('<div class="outside"><div class="outside-note">Outside the model\'s context at the '
                            'end of this branch: summarised by the compaction below, kept here for reading.</div>')
                run_open = True
            elif not outside and run_open:
                body.append("</div>")
                run_open = False
            body.append(self.entry(i))
        if run_open:
            body.append("</div>")
        body.append("</main>")
        body.append(self.files_touched())
        title = self.title()
        return (
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta name="generator" content="pitui">'
            f"<title>{_a(title)} · Pi session</title><style>{CSS}</style></head>"
            f"<body>{''.join(body)}<script>{JS}</script></body></html>\n"
        )

    def title(self) -> str:
        if self.s.name:
            return " ".join(_clean(self.s.name).split())
        for i in self.path:
            if self.s.types[i] == "message" and self.s.roles[i] == "user":
                t = text_of((self.s.message(i) or {}).get("content")).strip()
                if t:
                    line = " ".join(_clean(t.splitlines()[0]).split())
                    return line[:100] + ("…" if len(line) > 100 else "")
        return "Pi session"

    def files_touched(self) -> str:
        """The files the branch touched, a short section at the end (none when it touched none)."""
        touched = files_touched(tool_calls(self.s, self.path), self.s.cwd)
        if not touched:
            return ""
        items = "".join(f"<li><code>{_e(t.path)}</code> {_e(t.words)}</li>" for t in touched)
        return ('<section class="files-touched"><h2>Files touched</h2><p class="note">By this branch\'s calls: '
                "<code>ls</code>, <code>grep</code> and <code>find</code> count as searched; failed calls are left "
                f"out.</p><ul>{items}</ul></section>")

    def header(self) -> str:
        s = self.s
        rows: list[tuple[str, str]] = [("Session", f"<code>{_e(s.id)}</code>")]
        if s.cwd:
            rows.append(("Working directory", f"<code>{_e(shorten_home(s.cwd))}</code>"))
        created = when_utc(s.header.get("timestamp"))
        if created:
            rows.append(("Created", _e(created)))
        if self.path:
            last = when_utc(s.timestamps[self.leaf])
            if last:
                rows.append(("Last entry", _e(last)))
            rows.append(("Branch", f"{len(self.path)} {'entry' if len(self.path) == 1 else 'entries'}, "
                                   f"ending at <a href=\"#e{self.leaf}\"><code>{_e(s.ids[self.leaf])}</code></a>"))
        parent = s.header.get("parentSession")
        if isinstance(parent, str) and parent:
            rows.append(("Forked from", f"<code>{_e(shorten_home(parent))}</code>"))
        rows.append(("File", f"<code>{_e(shorten_home(s.path))}</code>"))
        bstats = branch_stats(s, self.leaf) if self.leaf >= 0 else Stats()
        models = [k for k, _ in bstats.models_by_cost() if k != TOOLS_KEY]
        if models:
            rows.append(("Models", ", ".join(f"<code>{_e(m)}</code>" for m in models)))
        t = bstats.total
        if t.calls:
            rows.append(("Tokens (branch)", f"{_int(t.tokens)} — input {_int(t.input)}, output {_int(t.output)}, "
                                            f"cache read {_int(t.cache_read)}, cache write {_int(t.cache_write)}"))
            rows.append(("Cost (branch)", _e(_cost(t.cost) or "$0")))
        sstats = session_stats(s)
        if sstats.total.calls and (sstats.total.cost != t.cost or sstats.total.tokens != t.tokens):
            rows.append(("Whole session (all branches)",
                         f"{_int(sstats.total.tokens)} tokens · {_e(_cost(sstats.total.cost) or '$0')}"))
        out = ['<header class="page-head">', f"<h1>{_e(self.title())}</h1>", '<table class="meta">']
        out += [f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows]
        out.append("</table>")
        if len(bstats.by_model) > 0:
            out.append('<details class="stats" open><summary>Tokens and cost per model (this branch)</summary>'
                       '<div class="table-wrap"><table class="stats-table"><thead><tr><th>Model</th><th>Calls</th>'
                       "<th>Input</th><th>Output</th><th>Cache read</th><th>Cache write</th><th>Cost</th>"
                       "</tr></thead><tbody>")
            for key, u in bstats.models_by_cost():
                out.append(f"<tr><td><code>{_e(key)}</code></td><td>{u.calls}</td><td>{_int(u.input)}</td>"
                           f"<td>{_int(u.output)}</td><td>{_int(u.cache_read)}</td><td>{_int(u.cache_write)}</td>"
                           f"<td>{_e(_cost(u.cost) or '$0')}</td></tr>")
            out.append(f"<tr class=\"total\"><td>Total</td><td>{t.calls}</td><td>{_int(t.input)}</td>"
                       f"<td>{_int(t.output)}</td><td>{_int(t.cache_read)}</td><td>{_int(t.cache_write)}</td>"
                       f"<td>{_e(_cost(t.cost) or '$0')}</td></tr></tbody></table></div></details>")
        warnings = s.all_warnings
        if warnings:
            out.append(f'<details class="warnings"><summary>{_plural(len(warnings), "warning")} while reading '
                       "the file</summary><ul>")
            out += [f"<li>{_e(w.message)}</li>" for w in warnings[:200]]
            out.append("</ul></details>")
        out.append('<div class="controls"><button type="button" onclick="pituiFold(true)">Expand all</button>'
                   '<button type="button" onclick="pituiFold(false)">Collapse all</button></div>')
        out.append("</header>")
        return "".join(out)

    # -------------------------------------------------------------- entries
    def _head(self, i: int, role: str, cls: str, extra: str = "") -> str:
        s = self.s
        when = when_utc(s.timestamps[i])
        bits = [f'<span class="role">{_e(role)}</span>']
        if extra:
            bits.append(extra)
        label = s.label_of(i)
        if label:
            bits.append(_badge(label, "label"))
        edit = self.edits.get(s.ids[i])
        if edit is not None:
            ei, e = edit
            what = "omitted from the model's context" if e.get("replacement") is None else "content replaced in context"
            bits.append(f'<a class="badge edit" href="#e{ei}">{_e(what)}</a>')
        right = []
        if when:
            right.append(f'<time>{_e(when)}</time>')
        right.append(f'<a class="eid" href="#e{i}">{_e(s.ids[i])}</a>')
        return f'<div class="head">{" ".join(bits)}<span class="right">{" ".join(right)}</span></div>'

    def _classes(self, i: int, kind: str, base: str = "entry") -> str:
        cls = f"{base} {kind}"
        if self.has_compaction and i not in self.in_ctx:
            cls += " out-ctx"
        return cls

    def entry(self, i: int) -> str:
        s = self.s
        e = s.entry(i)
        t = e.get("type")
        if s.flags[i] & F_DAMAGED or "pituiError" in e:
            return (f'<section class="{self._classes(i, "damaged")}" id="e{i}" data-entry="{_a(s.ids[i])}">'
                    f'{self._head(i, "Damaged line", "damaged")}'
                    f'<p class="error">{_e(e.get("pituiError") or f"line {s.linenos[i]} is damaged")}</p></section>')
        if t == "message":
            m = e.get("message") if isinstance(e.get("message"), dict) else {}
            return self.message_entry(i, m)
        if t == "compaction":
            return self.compaction(i, e)
        if t == "branch_summary":
            return self.branch_summary(i, e)
        if t == "custom_message":
            inp = app_input(e)
            if inp is not None:
                return self.app_input(i, inp, e.get("content"), e.get("display"))
            return self.custom_message(i, e.get("customType"), e.get("content"), e.get("display"), e.get("details"))
        if t == "label":
            return ""  # shown as a badge on its target
        m = marker(s, e)
        if m is not None:
            extra = ""
            if t == "context_edit" and isinstance(e.get("replacement"), dict):
                extra = _raw_details("replacement", e.get("replacement"))
            elif t == "stream_event" and "record" in e:
                extra = _raw_details("record", e.get("record"))
            return self.marker(i, _MARKER_CLASS[t], self._marker_html(m), extra)
        if t == "custom":
            ev = app_event(e)
            if ev is not None:
                return self.app_event(i, ev)
            return self.marker(i, "ext-state", f"{_e(cap_first(CUSTOM_ENTRY))} <code>{_e(e.get('customType') or 'custom')}</code>",
                               _raw_details("data", e.get("data")) if "data" in e else "")
        return (f'<section class="{self._classes(i, "unknown")}" id="e{i}" data-entry="{_a(s.ids[i])}">'
                f'{self._head(i, f"[{t}]", "unknown")}{_raw_details("entry", e)}</section>')

    def _marker_html(self, m: Marker) -> str:
        """A marker's pieces: what was set in code, another entry's id a link to it; the
        first letter up, as the page's other headings."""
        out = []
        for k, (text, kind) in enumerate(m.pieces):
            if k == 0:
                text = cap_first(text)
            if kind == "value":
                out.append(f"<code>{_e(text)}</code>")
            elif kind == "ref":
                j = self.s.index_of.get(m.ref) if m.ref is not None else None
                out.append(f'<a href="#e{j}"><code>{_e(text)}</code></a>' if j is not None else f"<code>{_e(text)}</code>")
            else:
                out.append(_e(text))
        return "".join(out)

    def marker(self, i: int, kind: str, html: str, extra: str = "") -> str:
        s = self.s
        when = when_utc(s.timestamps[i])
        label = s.label_of(i)
        lab = " " + _badge(label, "label") if label else ""
        return (f'<div class="{self._classes(i, kind, "marker")}" id="e{i}" data-entry="{_a(s.ids[i])}">'
                f'<span class="marker-text">{html}{lab}</span><span class="right">'
                f'{f"<time>{_e(when)}</time> " if when else ""}<a class="eid" href="#e{i}">{_e(s.ids[i])}</a></span>'
                f"{extra}</div>")

    def message_entry(self, i: int, m: dict) -> str:
        s = self.s
        role = m.get("role")
        open_ = lambda kind: f'<section class="{self._classes(i, kind)}" id="e{i}" data-entry="{_a(s.ids[i])}">'  # noqa: E731
        if role == "user":
            return open_("user") + self._head(i, cap_first(role_title(m)[0]), "user") + _content(m.get("content")) + "</section>"
        if role == "assistant":
            extra = []
            model = model_label(m)
            if model:
                extra.append(f'<span class="model">{_e(model)}</span>')
            if m.get("thinkingLevel"):
                extra.append(f'<span class="muted">thinking {_e(m.get("thinkingLevel"))}</span>')
            bits = usage_bits(m.get("usage"))
            if bits:
                extra.append(f'<span class="muted usage">{_e(" · ".join(bits))}</span>')
            body = self.assistant_body(m, self._branch_result, 0)
            notice = new_reasoning_drop(s, i)
            if notice:
                body = f'<div class="trunc">⚠ {_e(notice)}</div>' + body
            return open_("assistant") + self._head(i, cap_first(role_title(m)[0]), "assistant", " ".join(extra)) + body + "</section>"
        if role == "toolResult":
            # a result whose call is not on this branch, or a second result for one call
            found = call_or_why(s, i)
            call = found if isinstance(found, dict) else None
            what = "Tool result (another result for a call above)" if call is not None else "Tool result"
            return (open_("tool-orphan") + self._head(i, what, "tool")
                    + self.tool(call, m, i, 0, why=found if isinstance(found, str) else "") + "</section>")
        if role == "bashExecution":
            return open_("bash") + self._head(i, cap_first(role_title(m)[0]), "bash", self._bash_badges(m)) + self.bash_body(m) + "</section>"
        if role == "system":
            return open_("system") + self._head(i, cap_first(role_title(m)[0]), "system") + self.system(m) + "</section>"
        if role in ("custom", "hookMessage"):
            inp = app_input(m)
            if inp is not None:
                return self.app_input(i, inp, m.get("content"), m.get("display"))
            return self.custom_message(i, m.get("customType"), m.get("content"), m.get("display"), m.get("details"))
        if role == "branchSummary":
            return (open_("branch-summary") + self._head(i, cap_first(role_title(m)[0]), "summary")
                    + _md_block(m.get("summary")) + "</section>")
        if role == "compactionSummary":
            return (open_("compaction-summary") + self._head(i, cap_first(role_title(m)[0]), "summary")
                    + _md_block(m.get("summary")) + "</section>")
        return open_("unknown") + self._head(i, f"[{role}]", "unknown") + _raw_details("message", m) + "</section>"

    def _branch_result(self, tcid: Any) -> tuple[int | None, dict] | None:
        if not isinstance(tcid, str):
            return None
        r = self.results.get(tcid)
        if r is None or r in self.shown:
            return None
        self.shown.add(r)
        return r, self.s.message(r) or {}

    # -------------------------------------------------------------- message bodies
    def assistant_body(self, m: dict, find_result: Callable[[Any], tuple[int | None, dict] | None], depth: int) -> str:
        out = []
        content = m.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            bt = block.get("type")
            if bt == "thinking":
                thinking = block.get("thinking")
                thinking = thinking if isinstance(thinking, str) else ""
                if thinking.strip():
                    out.append('<details class="thinking"><summary>Thinking</summary>'
                               f"{_md_block(thinking)}</details>")
                elif block.get("redacted"):
                    out.append('<details class="thinking"><summary>Thinking</summary>'
                               '<p class="muted">(redacted by the provider)</p></details>')
            elif bt == "text":
                if isinstance(block.get("text"), str) and block["text"].strip():
                    out.append(_md_block(block["text"]))
            elif bt == "toolCall":
                found = find_result(block.get("id"))
                if found is None:
                    out.append(self.tool(block, None, None, depth))
                else:
                    out.append(self.tool(block, found[1], found[0], depth))
                if depth == 0 and isinstance(block.get("id"), str):
                    out += [self._callback_line(j, ev) for j, ev in callbacks_by_call(self.s).get(block["id"], ())]
            elif bt == "image":
                out.append(_image(block))
            else:
                out.append(_raw_details(f"{bt or 'unknown'} block", block))
        stop = m.get("stopReason")
        if stop in ("error", "aborted", "length"):
            why = {"error": "Error", "aborted": "Aborted", "length": "Stopped: output length limit"}[stop]
            out.append(f'<div class="stop {stop}"><strong>{_e(why)}</strong>' + _error_html(m.get("errorMessage")) + "</div>")
        elif m.get("errorMessage"):
            out.append('<div class="stop error">' + _error_html(m.get("errorMessage"), lead="") + "</div>")
        return "".join(out)

    def tool(self, call: dict | None, result: dict | None, result_entry: int | None, depth: int, why: str = "") -> str:
        """A call with its result; ``why`` says why a result has no call (see ``call_or_why``)."""
        name = tool_name(call, result)
        args = (call or {}).get("arguments")
        a = args if isinstance(args, dict) else {}
        state = tool_state(result)
        call_id = (call or {}).get("id") if call else (result or {}).get("toolCallId")
        attrs = f' data-call="{_a(call_id)}"' if isinstance(call_id, str) else ""
        out = [f'<div class="tool {state.name}"{attrs}><div class="tool-head"><span class="glyph">{state.glyph}</span>'
               f'<span class="tool-name">{_e(name)}</span>']
        if call is not None:
            out.append(f'<code class="args">{_e(tool_args_summary(name, args, limit=300))}</code>')
        else:
            out.append(f'<span class="orphan">({_e(why or "call not on this branch")})</span>')
        if result is None:
            out.append('<span class="muted">no result</span>')
        out.append("</div>")
        if call is not None:
            out.append(_raw_details("arguments", args, "args-json"))
            if name == "bash" and isinstance(a.get("command"), str) and "\n" in a["command"].strip():
                out.append(_pre("$ " + a["command"], "cmd"))
            if name == "write" and isinstance(a.get("content"), str):
                n = len(text_lines(a["content"]))
                out.append(f'<details class="write-content"><summary>content ({_plural(n, "line")})</summary>'
                           f"{_pre(a['content'], 'code')}</details>")
            if name == "edit" and state.name != "ok":
                req = requested_edit(a)
                if req:
                    out.append(f'<details class="requested-edit"><summary>requested edit</summary>{_diff(req)}</details>')
        if result is not None:
            if result_entry is not None and depth == 0:
                rid = self.s.ids[result_entry]
                cls = "tool-result" + (" out-ctx" if self.has_compaction and result_entry not in self.in_ctx else "")
                out.append(f'<div class="{cls}" id="e{result_entry}" data-entry="{_a(rid)}"'
                           f' data-result-for="{_a(result.get("toolCallId"))}">')
                edit = self.edits.get(rid)
                if edit is not None:
                    ei, e = edit
                    what = "omitted from the model's context" if e.get("replacement") is None else "content replaced in context"
                    out.append(f'<a class="badge edit" href="#e{ei}">{_e(what)}</a>')
            else:
                out.append(f'<div class="tool-result" data-result-for="{_a(result.get("toolCallId"))}">')
            out.append(self.result_body(result_parts(name, result), depth))
            out.append("</div>")
        out.append("</div>")
        return "".join(out)

    def result_body(self, r: ResultParts, depth: int) -> str:
        out = []
        text = r.text
        if r.subagents is not None:
            out.append(self.subagents(*r.subagents, depth))
            if text.strip():  # (a model's reply: Markdown, as the pane draws it)
                cls = "md error" if r.is_error else "md"
                out.append(f'<div class="label-line">output</div>{_md_block(text, cls)}')
        elif r.shows_diff:
            if text.strip():
                out.append(f'<div class="result-text">{_e(text_lines(text)[0] if len(text_lines(text)) == 1 else text)}</div>')
            out.append(_diff(r.diff or r.patch))
            if r.diff and r.patch:
                out.append(f'<details class="patch"><summary>unified patch</summary>{_diff(r.patch)}</details>')
        else:
            if text.strip():
                out.append(_pre(text, "out error" if r.is_error else "out"))
            elif not r.images:
                out.append('<div class="muted">(no output)</div>')
        out += [_image(b) for b in r.images]
        if r.image_note:
            out.append(f'<div class="trunc">⚠ {_e(r.image_note)}</div>')
        if r.truncated:
            note = "⚠ Output truncated"
            if r.kept_lines:
                note += f": {_int(r.kept_lines[0])} of {_int(r.kept_lines[1])} lines kept"
            note = _e(note)
            if r.full_output_path is not None:
                note += f"; full output in <code>{_e(r.full_output_path)}</code>"
            out.append(f'<div class="trunc">{note}</div>')
        if r.usage is not None:
            bits = usage_bits(r.usage)
            if bits:
                out.append(f'<div class="muted">tool model usage: {_e(" · ".join(bits))}</div>')
        return "".join(out)

    def subagents(self, mode: str, runs: list[SubagentRun], depth: int) -> str:
        out = []
        if mode:
            out.append(f'<div class="label-line">{_e(mode)} run · {_plural(len(runs), "agent")}</div>')
        for k, run in enumerate(runs, 1):
            scls = {"ok": "good", "error": "bad"}.get(run.state, "muted")
            bits = ([_e(run.model)] if run.model else []) + [_e(b) for b in run.bits()]
            step = f"{run.step:g}. " if run.step is not None else f"{k}. "
            summary = (f'<summary><span class="step">{step}</span>'
                       f'<span class="tool-name">{_e(run.agent)}</span> '
                       f'<span class="{scls}">{_e(run.status or "?")}</span> <span class="muted">{" · ".join(bits)}</span>'
                       "</summary>")
            body = []
            if run.task.strip():
                body.append(f'<div class="task"><span class="label-line">task</span>{_md_block(run.task)}</div>')
            if run.error:
                body.append(_pre(run.error, "out error"))
            if run.messages:
                if depth + 1 >= MAX_DEPTH:
                    body.append(_raw_details(f"{_plural(len(run.messages), 'message')} (nested too deep to draw)",
                                             run.messages))
                else:
                    body.append(f'<div class="nested">{self.messages(run.messages, depth + 1)}</div>')
            if run.transcripts:
                body.append('<div class="muted paths">' + " · ".join(
                    f"{_e(w)}: <code>{_e(shorten_home(p))}</code>" for w, p in run.transcripts) + "</div>")
            out.append(f'<details class="subagent">{summary}{"".join(body)}</details>')
        return "".join(out)

    def messages(self, msgs: list[dict], depth: int) -> str:
        """A nested conversation (a subagent's messages): calls paired with their results."""
        by_call: dict[str, dict] = {}
        for m in msgs:
            if m.get("role") == "toolResult" and isinstance(m.get("toolCallId"), str):
                by_call.setdefault(m["toolCallId"], m)
        used: set[int] = set()

        def find(tcid: Any):
            if not isinstance(tcid, str) or tcid not in by_call:
                return None
            r = by_call[tcid]
            if id(r) in used:
                return None
            used.add(id(r))
            return None, r

        out = []
        for m in msgs:
            role = m.get("role")
            when = when_utc(m.get("timestamp"))
            t = f'<time>{_e(when)}</time>' if when else ""
            if role == "user":
                out.append(f'<div class="msg user"><div class="head"><span class="role">User</span>'
                           f'<span class="right">{t}</span></div>{_content(m.get("content"))}</div>')
            elif role == "assistant":
                bits = usage_bits(m.get("usage"))
                model = model_label(m)
                out.append('<div class="msg assistant"><div class="head"><span class="role">Assistant</span>'
                           + (f' <span class="model">{_e(model)}</span>' if model else "")
                           + (f' <span class="muted usage">{_e(" · ".join(bits))}</span>' if bits else "")
                           + f'<span class="right">{t}</span></div>{self.assistant_body(m, find, depth)}</div>')
            elif role == "toolResult":
                if id(m) in used:
                    continue
                out.append(f'<div class="msg tool-orphan">{self.tool(None, m, None, depth)}</div>')
            elif role == "system":
                out.append(f'<div class="msg system"><div class="head"><span class="role">System prompt</span>'
                           f'<span class="right">{t}</span></div>{self.system(m)}</div>')
            elif role == "bashExecution":
                out.append(f'<div class="msg bash"><div class="head"><span class="role">Shell</span>'
                           f'{self._bash_badges(m)}<span class="right">{t}</span></div>{self.bash_body(m)}</div>')
            else:
                out.append(f'<div class="msg unknown">{_raw_details(str(role), m)}</div>')
        return "".join(out)

    # ------------------------------------------------------------- other kinds
    def _bash_badges(self, m: dict) -> str:
        code = m.get("exitCode")
        bits = []
        if m.get("cancelled"):
            bits.append(_badge("cancelled", "bad"))
        elif _num(code) is not None:
            bits.append(_badge(f"exit {code:g}", "good" if code == 0 else "bad"))
        if m.get("excludeFromContext"):
            bits.append(_badge("not sent to the model", "hidden"))
        return " ".join(bits)

    def bash_body(self, m: dict) -> str:
        out = [_pre("$ " + str(m.get("command") or ""), "cmd")]
        output = str(m.get("output") or "")
        if output.strip():
            bad = _num(m.get("exitCode")) not in (None, 0)
            out.append(_pre(output, "out error" if bad else "out"))
        else:
            out.append('<div class="muted">(no output)</div>')
        if m.get("truncated") or isinstance(m.get("fullOutputPath"), str):
            note = "⚠ Output truncated"
            if isinstance(m.get("fullOutputPath"), str):
                note = _e(note) + f"; full output in <code>{_e(m['fullOutputPath'])}</code>"
            else:
                note = _e(note)
            out.append(f'<div class="trunc">{note}</div>')
        return "".join(out)

    def system(self, m: dict) -> str:
        content = m.get("content")
        sections = m.get("sections") if isinstance(m.get("sections"), dict) else {}
        added = [t for t in m.get("toolsAdded") or [] if t is not None] if isinstance(m.get("toolsAdded"), list) else []
        removed = [t for t in m.get("toolsRemoved") or [] if t is not None] if isinstance(m.get("toolsRemoved"), list) else []
        bits = []
        if sections:
            bits.append(_plural(len(sections), "section"))
        if added:
            bits.append(f"+{len(added)} tool{'s' if len(added) != 1 else ''}")
        if removed:
            bits.append(f"−{len(removed)} tool{'s' if len(removed) != 1 else ''}")
        text = text_of(content) if not isinstance(content, str) else content
        if text.strip():
            bits.append(f"{len(text):,} chars of text")
        out = [f'<details class="system-body"><summary>{_e(" · ".join(bits) or "empty")}</summary>']
        if text.strip():
            out.append(_pre(text, "prompt"))
        for name, body in sections.items():
            if body is None:
                out.append(f'<div class="section removed">section <code>{_e(name)}</code> removed</div>')
            else:
                body_s = body if isinstance(body, str) else json_pretty(body)
                out.append(f'<details class="section"><summary>section <code>{_e(name)}</code> '
                           f'<span class="muted">{len(body_s):,} chars</span></summary>{_pre(body_s, "prompt")}</details>')
        if added:
            out.append('<div class="label-line">tools added</div><ul class="tools">')
            for t in added:
                if isinstance(t, dict):
                    desc = t.get("description")
                    first = _clean(desc).strip().split("\n")[0][:160] if isinstance(desc, str) else ""
                    out.append(f'<li><details><summary><code>{_e(t.get("name"))}</code> <span class="muted">'
                               f'{_e(first)}</span></summary>{_pre(json_pretty(t), "prompt")}</details></li>')
                else:
                    out.append(f"<li><code>{_e(t)}</code></li>")
            out.append("</ul>")
        if removed:
            names = ", ".join(f"<code>{_e(t.get('name') if isinstance(t, dict) else t)}</code>" for t in removed)
            out.append(f'<div class="label-line">tools removed: {names}</div>')
        out.append("</details>")
        return "".join(out)

    def custom_message(self, i: int, ctype: Any, content: Any, display: Any, details: Any) -> str:
        s = self.s
        hidden = display is False
        extra = [f'<code>{_e(ctype or "custom")}</code>']
        if hidden:
            extra.append(_badge("hidden in Pi (display: false)", "hidden"))
        body = _content(content)
        if details is not None:
            body += _raw_details("details", details)
        cls = "custom" + (" hidden-msg" if hidden else "")
        return (f'<section class="{self._classes(i, cls)}" id="e{i}" data-entry="{_a(s.ids[i])}">'
                f'{self._head(i, cap_first(CUSTOM_MESSAGE), "custom", " ".join(extra))}{body}</section>')

    # -------------------------------------------------------------- a Pi-based app's entries
    def app_input(self, i: int, inp: AppInput, content: Any, display: Any) -> str:
        """Input another agent wrote, as a user message from that agent; a callback's input."""
        hidden = display is False
        extra = [f'<span class="muted">{_e(f)}</span>' for f in inp.facts]
        if hidden:
            extra.append(_badge("hidden in the app (display: false)", "hidden"))
        if inp.from_session:
            extra.append(f'<span class="muted">from session <code>{_e(inp.from_session)}</code></span>')
        kind = "user" if inp.kind == "agent" else "custom"
        cls = kind + (" hidden-msg" if hidden else "")
        return (f'<section class="{self._classes(i, cls)}" id="e{i}" data-entry="{_a(self.s.ids[i])}">'
                f'{self._head(i, cap_first(inp.title), kind, " ".join(extra))}{_content(content)}</section>')

    def app_event(self, i: int, ev: AppEvent) -> str:
        """An interrupt as a marker; a callback with what it answered; another event's payload."""
        m = ev.marker
        if m is not None:
            return self.marker(i, "interrupt", self._marker_html(m))
        extra = [f'<span class="muted">{_e(f)}</span>' for f in
                 ([ev.event_type] if ev.title == "app event" else []) + ev.facts]
        body = []
        if ev.event_type == "agent_callback":
            if ev.call_id:
                body.append(f'<p class="muted">Resolves the call <code>{_e(ev.call_id)}</code>.</p>')
            if ev.message:
                body.append(_md_block(ev.message))
            if ev.from_session:
                body.append(f'<p class="muted">From session <code>{_e(ev.from_session)}</code>.</p>')
        else:
            body.append(_raw_details("payload", ev.payload))
        return (f'<section class="{self._classes(i, "custom")}" id="e{i}" data-entry="{_a(self.s.ids[i])}">'
                f'{self._head(i, cap_first(ev.title), "custom", " ".join(extra))}{"".join(body)}</section>')

    def _callback_line(self, j: int, ev: AppEvent) -> str:
        """Under a call: a callback that resolved it later, linked to where it sits."""
        bits = " · ".join(ev.facts + [when_utc(self.s.timestamps[j])])
        target = f'<a href="#e{j}">callback</a>' if j in self.on_path else "callback"
        text = f": {_e(one_line(ev.message, 200))}" if ev.message else ""
        return f'<div class="callback">↩ {target} <span class="muted">{_e(bits)}</span>{text}</div>'

    def compaction(self, i: int, e: dict) -> str:
        s = self.s
        sp = summary_parts(s, e)
        extra = []
        if sp.tokens_before is not None:
            extra.append(f'<span class="muted">{_int(sp.tokens_before)} tokens before</span>')
        if sp.by_extension:
            extra.append(_badge("by an extension"))
        body = [self._kept(sp), _md_block(sp.summary)] + self._summary_details(sp)
        sm = e.get("systemMessage")
        if isinstance(sm, dict):
            body.append(f'<details class="checkpoint"><summary>{_e(sp.checkpoint_text)}</summary>{self.system(sm)}</details>')
        return (f'<section class="{self._classes(i, "compaction")}" id="e{i}" data-entry="{_a(s.ids[i])}">'
                f'{self._head(i, "✂ Compaction", "compaction", " ".join(extra + self._summary_usage(sp)))}'
                f'{"".join(body)}</section>')

    def branch_summary(self, i: int, e: dict) -> str:
        s = self.s
        sp = summary_parts(s, e)
        extra = []
        if sp.from_note is not None:
            extra.append(f'<span class="muted">{self._marker_html(sp.from_note)}</span>')
        if sp.by_extension:
            extra.append(_badge("by an extension"))
        body = _md_block(sp.summary) + "".join(self._summary_details(sp))
        return (f'<section class="{self._classes(i, "branch-summary")}" id="e{i}" data-entry="{_a(s.ids[i])}">'
                f'{self._head(i, "Branch summary", "summary", " ".join(extra + self._summary_usage(sp)))}{body}</section>')

    def _kept(self, sp: SummaryParts) -> str:
        kept = sp.kept_note
        return f'<p class="muted">{self._marker_html(kept)}</p>' if kept is not None else ""

    @staticmethod
    def _summary_details(sp: SummaryParts) -> list[str]:
        out = []
        if sp.files:
            rows = [f'<div><span class="label-line">{_e(word)}</span> ' + ", ".join(f"<code>{_e(f)}</code>" for f in files)
                    + "</div>" for word, files in sp.files]
            out.append(f'<details class="files"><summary>files</summary>{"".join(rows)}</details>')
        if sp.other_details is not None:
            out.append(_raw_details("details", sp.other_details))
        return out

    @staticmethod
    def _summary_usage(sp: SummaryParts) -> list[str]:
        return [f'<span class="muted usage">summary usage: {_e(" · ".join(sp.usage))}</span>'] if sp.usage else []


def export_html(session: Session, leaf: int | None = None) -> str:
    """The branch from its root to ``leaf`` (the current leaf by default) as one HTML page."""
    leaf = session.leaf if leaf is None else leaf
    return _Renderer(session, leaf).page()


JS = ("function pituiFold(o){document.querySelectorAll('details').forEach(function(d){d.open=o;});}")

CSS = """
:root{color-scheme:light dark;--bg:#fbfbfa;--fg:#1f2328;--muted:#6a737d;--faint:#d0d7de;--card:#fff;--code:#f3f4f6;
--user:#0969da;--assistant:#8250df;--tool:#9a6700;--system:#57606a;--custom:#bf3989;--summary:#1a7f37;
--add:#dafbe1;--addfg:#116329;--del:#ffebe9;--delfg:#a40e26;--hunk:#ddf4ff;--hunkfg:#0550ae;
--err:#cf222e;--errbg:#fff5f5;--warn:#9a6700;--warnbg:#fff8c5;--ok:#1a7f37;--out:#eef0f2;}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;--faint:#30363d;
--card:#161b22;--code:#1f2630;--user:#58a6ff;--assistant:#bc8cff;--tool:#d29922;--system:#8b949e;
--custom:#f778ba;--summary:#3fb950;--add:#12261e;--addfg:#7ee787;--del:#2d1215;--delfg:#ffa198;
--hunk:#121d2f;--hunkfg:#79c0ff;--err:#ff7b72;--errbg:#2d1215;--warn:#d29922;--warnbg:#2b2111;--ok:#3fb950;
--out:#0b0f14;}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.page-head,main,.files-touched{max-width:1000px;margin:0 auto;padding:0 20px}
.files-touched{padding-bottom:24px}.files-touched h2{font-size:1.15em}.files-touched .note{color:var(--muted)}
.page-head{padding-top:24px;padding-bottom:8px}
h1{font-size:1.5em;margin:0 0 12px;overflow-wrap:anywhere}
code,pre,.diff{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:13px}
code{background:var(--code);padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
pre{background:var(--code);padding:8px 10px;border-radius:6px;overflow:auto;max-height:36em;white-space:pre-wrap;
overflow-wrap:anywhere;margin:6px 0}
pre code{background:none;padding:0}
a{color:inherit}
table.meta{border-collapse:collapse;margin-bottom:10px}
table.meta th{text-align:left;color:var(--muted);font-weight:normal;padding:2px 16px 2px 0;vertical-align:top;white-space:nowrap}
table.meta td{padding:2px 0}
.table-wrap{overflow-x:auto}
table.stats-table,table.md-table{border-collapse:collapse;margin:6px 0}
.stats-table th,.stats-table td,.md-table th,.md-table td{border:1px solid var(--faint);padding:3px 8px}
.stats-table td:not(:first-child){text-align:right;font-variant-numeric:tabular-nums}
.stats-table tr.total td{font-weight:600}
.controls{margin:10px 0}
.controls button{font:inherit;font-size:13px;margin-right:6px;padding:2px 10px;border:1px solid var(--faint);
border-radius:6px;background:var(--card);color:var(--fg);cursor:pointer}
details>summary{cursor:pointer;color:var(--muted)}
details[open]>summary{margin-bottom:4px}
.entry{background:var(--card);border:1px solid var(--faint);border-left:4px solid var(--faint);border-radius:6px;
margin:12px 0;padding:8px 14px}
.entry.user{border-left-color:var(--user)}
.entry.assistant{border-left-color:var(--assistant)}
.entry.bash,.entry.tool-orphan{border-left-color:var(--tool)}
.entry.system{border-left-color:var(--system)}
.entry.custom{border-left-color:var(--custom)}
.entry.hidden-msg{border-style:dashed;opacity:.85}
.entry.branch-summary,.entry.compaction-summary{border-left-color:var(--summary)}
.entry.damaged,.entry.unknown{border-left-color:var(--err)}
.head{display:flex;flex-wrap:wrap;gap:8px;align-items:baseline;margin-bottom:4px}
.head .role{font-weight:600}
.user .head .role,.msg.user .role{color:var(--user)}
.assistant .head .role,.msg.assistant .role{color:var(--assistant)}
.bash .role{color:var(--tool)}
.system .role{color:var(--system)}
.custom .role{color:var(--custom)}
.branch-summary .role,.compaction .role{color:var(--summary)}
.right{margin-left:auto;display:flex;gap:10px;align-items:baseline}
time,.eid{color:var(--muted);font-size:12px;text-decoration:none}
.eid{font-family:ui-monospace,monospace}
.model{font-family:ui-monospace,monospace;font-size:12px;color:var(--muted)}
.muted{color:var(--muted)}
.usage{font-size:12px}
.good{color:var(--ok)}
.bad,.error{color:var(--err)}
.badge{display:inline-block;font-size:12px;padding:0 7px;border-radius:10px;border:1px solid var(--faint);
color:var(--muted);text-decoration:none;white-space:nowrap}
.badge.label{border-color:var(--assistant);color:var(--assistant)}
.badge.bad{border-color:var(--err);color:var(--err)}
.badge.good{border-color:var(--ok);color:var(--ok)}
.badge.hidden,.badge.edit{border-style:dashed}
.md p{margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere}
.md li{white-space:pre-wrap;overflow-wrap:anywhere}
.md h3,.md h4,.md h5,.md h6{margin:10px 0 4px;font-size:1em}
.md h3{font-size:1.1em}
.md blockquote{margin:6px 0;padding-left:10px;border-left:3px solid var(--faint);color:var(--muted)}
.md ul,.md ol{margin:6px 0;padding-left:1.6em}
.md hr{border:0;border-top:1px solid var(--faint)}
details.thinking{margin:6px 0;padding:2px 10px;border-left:2px dotted var(--assistant)}
details.thinking .md{color:var(--muted);font-style:italic}
.tool{margin:8px 0;border:1px solid var(--faint);border-radius:6px;padding:6px 10px;background:var(--bg)}
.tool.error{border-color:var(--err)}
.tool-head{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
.tool-head .args{background:none;padding:0;flex:1 1 300px;min-width:0}
.glyph{font-weight:700}
.tool.ok .glyph{color:var(--ok)}
.tool.error .glyph{color:var(--err)}
.tool.pending .glyph{color:var(--muted)}
.tool-name{font-weight:600;color:var(--tool)}
.tool-result{margin-top:4px}
.tool-result.out-ctx{opacity:.75}
pre.out{background:var(--out)}
pre.out.error{background:var(--errbg);color:var(--err)}
pre.cmd{background:var(--out);color:var(--tool)}
pre.prompt{font-size:12px;max-height:24em}
.result-text{font-size:13px;color:var(--muted)}
.label-line{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em;margin:6px 0 2px}
.diff{margin:6px 0;border-radius:6px;overflow:auto;max-height:36em;background:var(--out);padding:4px 0}
.diff>div{white-space:pre-wrap;overflow-wrap:anywhere;padding:0 10px;min-height:1.4em}
.diff .dadd{background:var(--add);color:var(--addfg)}
.diff .ddel{background:var(--del);color:var(--delfg)}
.diff .dhunk{background:var(--hunk);color:var(--hunkfg)}
.diff .dh{font-weight:700}
.trunc{margin:4px 0;padding:3px 8px;border-radius:4px;background:var(--warnbg);color:var(--warn);font-size:13px}
.stop{margin:6px 0;padding:4px 8px;border-radius:4px;background:var(--errbg);color:var(--err)}
.stop.aborted{background:var(--warnbg);color:var(--warn)}
figure.image{margin:8px 0}
figure.image img{max-width:100%;max-height:480px;border:1px solid var(--faint);border-radius:4px;image-rendering:auto}
figure.image img.tiny{min-height:64px;image-rendering:pixelated}
figcaption,.noimg{font-size:12px;color:var(--muted)}
details.subagent{margin:6px 0;border:1px solid var(--faint);border-radius:6px;padding:4px 10px;background:var(--card)}
details.subagent>summary{color:var(--fg)}
.nested{border-left:2px solid var(--faint);padding-left:10px;margin:6px 0}
.msg{margin:6px 0}
.msg .head{margin-bottom:2px}
.marker{display:flex;flex-wrap:wrap;gap:8px;align-items:baseline;color:var(--muted);font-size:13px;margin:6px 0;
padding:2px 14px;border-top:1px dashed var(--faint)}
.marker details{flex-basis:100%}
.marker.interrupt{color:var(--warn)}
.callback{font-size:13px;margin:2px 0 6px 14px;color:var(--custom)}
.callback .muted{color:var(--muted)}
.orphan{color:var(--warn)}
.entry.compaction{border:2px solid var(--summary);border-left-width:6px}
.entry.compaction .role{font-size:1.05em}
.outside{border-left:3px dashed var(--muted);padding-left:10px;margin:12px 0}
.outside .entry,.outside .marker{opacity:.72}
.outside-note{font-size:13px;color:var(--muted);font-style:italic;padding:4px 0}
.section.removed{font-size:13px;color:var(--muted)}
ul.tools{margin:2px 0;padding-left:1.4em}
.warnings li{color:var(--warn)}
.empty{color:var(--muted)}
@media print{pre,.diff{max-height:none}}
"""
