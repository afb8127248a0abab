"""``pitui export --format html``: one branch as a single self-contained web page.

The structure follows the Markdown export: a header (title, session id, working
directory, dates, models, tokens and cost of the branch), then every entry from the root
to the chosen leaf (:mod:`.html_entries`), then the files the branch touched.

Session content is untrusted: every string from the file is HTML-escaped
(:mod:`.html_pieces`), nothing is a link to anywhere but this page, and images are inlined
as ``data:`` URLs only when their type is an image type and their data is plain base64. The
page loads nothing from the network: its style sheet and its one tiny script for "expand
all" (``page.css``, ``page.js``, package data beside this module) are inlined.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from ..model.files import files_touched
from ..model.stats import TOOLS_KEY, Stats, branch_stats, session_stats, tool_calls
from ..model.summary import shorten_home, text_of
from ..numbers import fmt_cost as _cost
from ..read.session import Session
from .html_entries import EntryHtml
from .html_pieces import attr, cleaned, esc, int_text, plural, render_markdown
from .markdown import when_utc

__all__ = ["export_html", "render_markdown"]

def export_html(session: Session, leaf: int | None = None) -> str:
    """The branch from its root to ``leaf`` (the current leaf by default) as one HTML page."""
    leaf = session.leaf if leaf is None else leaf
    return _page(EntryHtml(session, leaf))


@cache
def _asset(name: str) -> str:
    """A file of the page (package data beside this module) as the page holds it: the style
    sheet after a line break, the script without its last one."""
    text = files(__package__).joinpath(name).read_text(encoding="utf-8")
    return "\n" + text if name.endswith(".css") else text.rstrip("\n")


def _page(view: EntryHtml) -> str:
    """The whole page: the header, each entry of the branch (a run outside the model's
    context in a box of its own), the files the branch touched."""
    body = [_header(view), '<main id="entries">']
    if not view.path:
        body.append('<p class="empty">This session has no entries.</p>')
    run_open = False
    for index in view.path:
        if index in view.shown:
            continue
        outside = view.has_compaction and index not in view.in_ctx
        if outside and not run_open:
            body.append('<div class="outside"><div class="outside-note">Outside the model\'s context at the '
                        'end of this branch: summarised by the compaction below, kept here for reading.</div>')
            run_open = True
        elif not outside and run_open:
            body.append("</div>")
            run_open = False
        body.append(view.entry(index))
    if run_open:
        body.append("</div>")
    body.append("</main>")
    body.append(_files_touched(view))
    title = _title(view)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="generator" content="pitui">'
        f"<title>{attr(title)} · Pi session</title><style>{_asset('page.css')}</style></head>"
        f"<body>{''.join(body)}<script>{_asset('page.js')}</script></body></html>\n"
    )

def _title(view: EntryHtml) -> str:
    """The page's title: the session's name, else its first user message's first line."""
    if view.s.name:
        return " ".join(cleaned(view.s.name).split())
    for index in view.path:
        if view.s.types[index] == "message" and view.s.roles[index] == "user":
            text = text_of((view.s.message(index) or {}).get("content")).strip()
            if text:
                line = " ".join(cleaned(text.splitlines()[0]).split())
                return line[:100] + ("…" if len(line) > 100 else "")
    return "Pi session"

def _files_touched(view: EntryHtml) -> str:
    """The files the branch touched, a short section at the end (none when it touched none)."""
    touched = files_touched(tool_calls(view.s, view.path), view.s.cwd)
    if not touched:
        return ""
    items = "".join(f"<li><code>{esc(text.path)}</code> {esc(text.words)}</li>" for text in touched)
    return ('<section class="files-touched"><h2>Files touched</h2><p class="note">By this branch\'s calls: '
            "<code>ls</code>, <code>grep</code> and <code>find</code> count as searched; failed calls are left "
            f"out.</p><ul>{items}</ul></section>")

def _header(view: EntryHtml) -> str:
    """The page's head: the session's facts, tokens and cost, the reader's warnings."""
    session = view.s
    rows: list[tuple[str, str]] = [("Session", f"<code>{esc(session.id)}</code>")]
    if session.cwd:
        rows.append(("Working directory", f"<code>{esc(shorten_home(session.cwd))}</code>"))
    created = when_utc(session.header.get("timestamp"))
    if created:
        rows.append(("Created", esc(created)))
    if view.path:
        last = when_utc(session.timestamps[view.leaf])
        if last:
            rows.append(("Last entry", esc(last)))
        rows.append(("Branch", f"{len(view.path)} {'entry' if len(view.path) == 1 else 'entries'}, "
                               f"ending at <a href=\"#e{view.leaf}\"><code>{esc(session.ids[view.leaf])}</code></a>"))
    parent = session.header.get("parentSession")
    if isinstance(parent, str) and parent:
        rows.append(("Forked from", f"<code>{esc(shorten_home(parent))}</code>"))
    rows.append(("File", f"<code>{esc(shorten_home(session.path))}</code>"))
    bstats = branch_stats(session, view.leaf) if view.leaf >= 0 else Stats()
    models = [key for key, _ in bstats.models_by_cost() if key != TOOLS_KEY]
    if models:
        rows.append(("Models", ", ".join(f"<code>{esc(model)}</code>" for model in models)))
    total = bstats.total
    if total.calls:
        rows.append(("Tokens (branch)", f"{int_text(total.tokens)} — input {int_text(total.input)}, output {int_text(total.output)}, "
                                        f"cache read {int_text(total.cache_read)}, cache write {int_text(total.cache_write)}"))
        rows.append(("Cost (branch)", esc(_cost(total.cost) or "$0")))
    sstats = session_stats(session)
    if sstats.total.calls and (sstats.total.cost != total.cost or sstats.total.tokens != total.tokens):
        rows.append(("Whole session (all branches)",
                     f"{int_text(sstats.total.tokens)} tokens · {esc(_cost(sstats.total.cost) or '$0')}"))
    out = ['<header class="page-head">', f"<h1>{esc(_title(view))}</h1>", '<table class="meta">']
    out += [f"<tr><th>{key}</th><td>{value}</td></tr>" for key, value in rows]
    out.append("</table>")
    if len(bstats.by_model) > 0:
        out.append('<details class="stats" open><summary>Tokens and cost per model (this branch)</summary>'
                   '<div class="table-wrap"><table class="stats-table"><thead><tr><th>Model</th><th>Calls</th>'
                   "<th>Input</th><th>Output</th><th>Cache read</th><th>Cache write</th><th>Cost</th>"
                   "</tr></thead><tbody>")
        for key, usage in bstats.models_by_cost():
            out.append(f"<tr><td><code>{esc(key)}</code></td><td>{usage.calls}</td><td>{int_text(usage.input)}</td>"
                       f"<td>{int_text(usage.output)}</td><td>{int_text(usage.cache_read)}</td><td>{int_text(usage.cache_write)}</td>"
                       f"<td>{esc(_cost(usage.cost) or '$0')}</td></tr>")
        out.append(f"<tr class=\"total\"><td>Total</td><td>{total.calls}</td><td>{int_text(total.input)}</td>"
                   f"<td>{int_text(total.output)}</td><td>{int_text(total.cache_read)}</td><td>{int_text(total.cache_write)}</td>"
                   f"<td>{esc(_cost(total.cost) or '$0')}</td></tr></tbody></table></div></details>")
    warnings = session.all_warnings
    if warnings:
        out.append(f'<details class="warnings"><summary>{plural(len(warnings), "warning")} while reading '
                   "the file</summary><ul>")
        out += [f"<li>{esc(warning.message)}</li>" for warning in warnings[:200]]
        out.append("</ul></details>")
    out.append('<div class="controls"><button type="button" onclick="pituiFold(true)">Expand all</button>'
               '<button type="button" onclick="pituiFold(false)">Collapse all</button></div>')
    out.append("</header>")
    return "".join(out)

