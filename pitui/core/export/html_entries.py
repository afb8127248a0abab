"""The HTML export's entries: each entry of the branch as a part of the page (:mod:`.html`
makes the page around them), by its type and, for a message, its role (:data:`ENTRY_HTML`,
:data:`MESSAGE_HTML`). Tool calls are shown with their results, thinking and long detail
are folded in ``<details>``, compactions are boundaries, and the history a compaction left
outside the model's context is marked as such. Every string from the session goes through
:mod:`.html_pieces`' escaping.
"""

from __future__ import annotations

from typing import Any, Callable

from ..model.context import context_entry_indices
from ..model.doctor import call_or_why
from ..model.notices import new_reasoning_drop
from ..model.parts import (ResultParts, SubagentRun, cap_first, model_label, requested_edit, result_parts,
                           role_title, tool_args_summary, tool_name, tool_state, usage_bits)
from ..model.entry_parts import (CUSTOM_ENTRY, CUSTOM_MESSAGE, AppEvent, AppInput, Marker, app_event, app_input,
                                 callbacks_by_call, SummaryParts, marker, summary_parts)
from ..model.summary import one_line, shorten_home, text_of
from ..numbers import as_number as _num
from ..read.session import Session
from ..read.skeleton import ENTRY_TYPES, F_DAMAGED, MESSAGE_ROLES
from ..text import json_pretty, text_lines
from .html_pieces import (attr, badge, cleaned, content_html, diff_html, error_html, esc, image_html, int_text,
                          md_block, plural, pre, raw_details)
from .markdown import when_utc

__all__ = ["EntryHtml", "ENTRY_HTML", "MESSAGE_HTML", "ENTRY_TYPES", "MESSAGE_ROLES"]

# the page's class of each marker's kind (its CSS)
_MARKER_CLASS = {"model_change": "model", "thinking_level_change": "thinking-change", "context_edit": "context-edit",
                 "session_info": "title", "usage": "usage", "stream_event": "stream-event"}

MAX_DEPTH = 6  # nested subagent conversations shown inside each other at most this deep


class EntryHtml:
    """The entries of the branch from its root to ``leaf`` as HTML, one at a time (:meth:`entry`),
    with what showing them needs: the branch, the entries in the model's context, the tool
    results by call, the context edits, and the results shown already."""

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

    # -------------------------------------------------------------- entries
    def _head(self, i: int, role: str, cls: str, extra: str = "") -> str:
        s = self.s
        when = when_utc(s.timestamps[i])
        bits = [f'<span class="role">{esc(role)}</span>']
        if extra:
            bits.append(extra)
        label = s.label_of(i)
        if label:
            bits.append(badge(label, "label"))
        edit = self.edits.get(s.ids[i])
        if edit is not None:
            ei, e = edit
            what = "omitted from the model's context" if e.get("replacement") is None else "content replaced in context"
            bits.append(f'<a class="badge edit" href="#e{ei}">{esc(what)}</a>')
        right = []
        if when:
            right.append(f'<time>{esc(when)}</time>')
        right.append(f'<a class="eid" href="#e{i}">{esc(s.ids[i])}</a>')
        return f'<div class="head">{" ".join(bits)}<span class="right">{" ".join(right)}</span></div>'

    def _classes(self, i: int, kind: str, base: str = "entry") -> str:
        cls = f"{base} {kind}"
        if self.has_compaction and i not in self.in_ctx:
            cls += " out-ctx"
        return cls


    def entry(self, i: int) -> str:
        """Entry ``i`` as a part of the page, by its type (:data:`ENTRY_HTML`)."""
        s = self.s
        e = s.entry(i)
        if s.flags[i] & F_DAMAGED or "pituiError" in e:
            return (f'<section class="{self._classes(i, "damaged")}" id="e{i}" data-entry="{attr(s.ids[i])}">'
                    f'{self._head(i, "Damaged line", "damaged")}'
                    f'<p class="error">{esc(e.get("pituiError") or f"line {s.linenos[i]} is damaged")}</p></section>')
        t = e.get("type")
        draw = ENTRY_HTML.get(t) if isinstance(t, str) else None
        return (draw or EntryHtml.unknown_entry)(self, i, e)

    def unknown_entry(self, i: int, e: dict) -> str:
        """An entry of a type pitui does not know: its fields, folded."""
        kind = f"[{e.get('type')}]"
        return (f'<section class="{self._classes(i, "unknown")}" id="e{i}" data-entry="{attr(self.s.ids[i])}">'
                f'{self._head(i, kind, "unknown")}{raw_details("entry", e)}</section>')

    def message(self, i: int, e: dict) -> str:
        """A ``message`` entry, by its message's role (:data:`MESSAGE_HTML`; a version 2
        ``hookMessage`` as ``custom``)."""
        m = e.get("message") if isinstance(e.get("message"), dict) else {}
        return self.message_entry(i, m)

    def message_entry(self, i: int, m: dict) -> str:
        role = m.get("role")
        if role == "hookMessage":
            role = "custom"
        draw = MESSAGE_HTML.get(role) if isinstance(role, str) else None
        return (draw or EntryHtml.unknown_message)(self, i, m)

    def label(self, i: int, e: dict) -> str:
        return ""  # shown as a badge on its target

    def marker_entry(self, i: int, e: dict) -> str:
        """A one-line entry (a model change, a session name...): its marker."""
        m = marker(self.s, e)
        if m is None:
            return self.unknown_entry(i, e)
        t = e.get("type")
        extra = ""
        if t == "context_edit" and isinstance(e.get("replacement"), dict):
            extra = raw_details("replacement", e.get("replacement"))
        elif t == "stream_event" and "record" in e:
            extra = raw_details("record", e.get("record"))
        return self.marker(i, _MARKER_CLASS[t], self._marker_html(m), extra)

    def custom_entry(self, i: int, e: dict) -> str:
        """An extension's own entry: a Pi-based app's event, else its data folded."""
        ev = app_event(e)
        if ev is not None:
            return self.app_event(i, ev)
        return self.marker(i, "ext-state", f"{esc(cap_first(CUSTOM_ENTRY))} <code>{esc(e.get('customType') or 'custom')}</code>",
                           raw_details("data", e.get("data")) if "data" in e else "")

    def custom_message_entry(self, i: int, e: dict) -> str:
        """An extension's message (a ``custom_message`` entry, or a message of role
        ``custom`` as ``e``): a Pi-based app's input, else the message."""
        inp = app_input(e)
        if inp is not None:
            return self.app_input(i, inp, e.get("content"), e.get("display"))
        return self.custom_message(i, e.get("customType"), e.get("content"), e.get("display"), e.get("details"))

    def _marker_html(self, m: Marker) -> str:
        """A marker's pieces: what was set in code, another entry's id a link to it; the
        first letter up, as the page's other headings."""
        out = []
        for k, (text, kind) in enumerate(m.pieces):
            if k == 0:
                text = cap_first(text)
            if kind == "value":
                out.append(f"<code>{esc(text)}</code>")
            elif kind == "ref":
                j = self.s.index_of.get(m.ref) if m.ref is not None else None
                out.append(f'<a href="#e{j}"><code>{esc(text)}</code></a>' if j is not None else f"<code>{esc(text)}</code>")
            else:
                out.append(esc(text))
        return "".join(out)

    def marker(self, i: int, kind: str, html: str, extra: str = "") -> str:
        s = self.s
        when = when_utc(s.timestamps[i])
        label = s.label_of(i)
        lab = " " + badge(label, "label") if label else ""
        return (f'<div class="{self._classes(i, kind, "marker")}" id="e{i}" data-entry="{attr(s.ids[i])}">'
                f'<span class="marker-text">{html}{lab}</span><span class="right">'
                f'{f"<time>{esc(when)}</time> " if when else ""}<a class="eid" href="#e{i}">{esc(s.ids[i])}</a></span>'
                f"{extra}</div>")

    # -------------------------------------------------------------- messages, by role
    def _open(self, i: int, kind: str) -> str:
        return f'<section class="{self._classes(i, kind)}" id="e{i}" data-entry="{attr(self.s.ids[i])}">'

    def user_message(self, i: int, m: dict) -> str:
        return self._open(i, "user") + self._head(i, cap_first(role_title(m)[0]), "user") + content_html(m.get("content")) + "</section>"

    def assistant_message(self, i: int, m: dict) -> str:
        extra = []
        model = model_label(m)
        if model:
            extra.append(f'<span class="model">{esc(model)}</span>')
        if m.get("thinkingLevel"):
            extra.append(f'<span class="muted">thinking {esc(m.get("thinkingLevel"))}</span>')
        bits = usage_bits(m.get("usage"))
        if bits:
            extra.append(f'<span class="muted usage">{esc(" · ".join(bits))}</span>')
        body = self.assistant_body(m, self._branch_result, 0)
        notice = new_reasoning_drop(self.s, i)
        if notice:
            body = f'<div class="trunc">⚠ {esc(notice)}</div>' + body
        return self._open(i, "assistant") + self._head(i, cap_first(role_title(m)[0]), "assistant", " ".join(extra)) + body + "</section>"

    def tool_result_message(self, i: int, m: dict) -> str:
        """A result shown on its own: its call is not on this branch, or it is a second
        result for one call (the others are shown under their call)."""
        found = call_or_why(self.s, i)
        call = found if isinstance(found, dict) else None
        what = "Tool result (another result for a call above)" if call is not None else "Tool result"
        return (self._open(i, "tool-orphan") + self._head(i, what, "tool")
                + self.tool(call, m, i, 0, why=found if isinstance(found, str) else "") + "</section>")

    def bash_message(self, i: int, m: dict) -> str:
        return self._open(i, "bash") + self._head(i, cap_first(role_title(m)[0]), "bash", self._bash_badges(m)) + self.bash_body(m) + "</section>"

    def system_message(self, i: int, m: dict) -> str:
        return self._open(i, "system") + self._head(i, cap_first(role_title(m)[0]), "system") + self.system(m) + "</section>"

    def branch_summary_message(self, i: int, m: dict) -> str:
        return (self._open(i, "branch-summary") + self._head(i, cap_first(role_title(m)[0]), "summary")
                + md_block(m.get("summary")) + "</section>")

    def compaction_summary_message(self, i: int, m: dict) -> str:
        return (self._open(i, "compaction-summary") + self._head(i, cap_first(role_title(m)[0]), "summary")
                + md_block(m.get("summary")) + "</section>")

    def unknown_message(self, i: int, m: dict) -> str:
        return self._open(i, "unknown") + self._head(i, f"[{m.get('role')}]", "unknown") + raw_details("message", m) + "</section>"

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
                               f"{md_block(thinking)}</details>")
                elif block.get("redacted"):
                    out.append('<details class="thinking"><summary>Thinking</summary>'
                               '<p class="muted">(redacted by the provider)</p></details>')
            elif bt == "text":
                if isinstance(block.get("text"), str) and block["text"].strip():
                    out.append(md_block(block["text"]))
            elif bt == "toolCall":
                found = find_result(block.get("id"))
                if found is None:
                    out.append(self.tool(block, None, None, depth))
                else:
                    out.append(self.tool(block, found[1], found[0], depth))
                if depth == 0 and isinstance(block.get("id"), str):
                    out += [self._callback_line(j, ev) for j, ev in callbacks_by_call(self.s).get(block["id"], ())]
            elif bt == "image":
                out.append(image_html(block))
            else:
                out.append(raw_details(f"{bt or 'unknown'} block", block))
        stop = m.get("stopReason")
        if stop in ("error", "aborted", "length"):
            why = {"error": "Error", "aborted": "Aborted", "length": "Stopped: output length limit"}[stop]
            out.append(f'<div class="stop {stop}"><strong>{esc(why)}</strong>' + error_html(m.get("errorMessage")) + "</div>")
        elif m.get("errorMessage"):
            out.append('<div class="stop error">' + error_html(m.get("errorMessage"), lead="") + "</div>")
        return "".join(out)

    def tool(self, call: dict | None, result: dict | None, result_entry: int | None, depth: int, why: str = "") -> str:
        """A call with its result; ``why`` says why a result has no call (see ``call_or_why``)."""
        name = tool_name(call, result)
        args = (call or {}).get("arguments")
        a = args if isinstance(args, dict) else {}
        state = tool_state(result)
        call_id = (call or {}).get("id") if call else (result or {}).get("toolCallId")
        attrs = f' data-call="{attr(call_id)}"' if isinstance(call_id, str) else ""
        out = [f'<div class="tool {state.name}"{attrs}><div class="tool-head"><span class="glyph">{state.glyph}</span>'
               f'<span class="tool-name">{esc(name)}</span>']
        if call is not None:
            out.append(f'<code class="args">{esc(tool_args_summary(name, args, limit=300))}</code>')
        else:
            out.append(f'<span class="orphan">({esc(why or "call not on this branch")})</span>')
        if result is None:
            out.append('<span class="muted">no result</span>')
        out.append("</div>")
        if call is not None:
            out.append(raw_details("arguments", args, "args-json"))
            if name == "bash" and isinstance(a.get("command"), str) and "\n" in a["command"].strip():
                out.append(pre("$ " + a["command"], "cmd"))
            if name == "write" and isinstance(a.get("content"), str):
                n = len(text_lines(a["content"]))
                out.append(f'<details class="write-content"><summary>content ({plural(n, "line")})</summary>'
                           f"{pre(a['content'], 'code')}</details>")
            if name == "edit" and state.name != "ok":
                req = requested_edit(a)
                if req:
                    out.append(f'<details class="requested-edit"><summary>requested edit</summary>{diff_html(req)}</details>')
        if result is not None:
            if result_entry is not None and depth == 0:
                rid = self.s.ids[result_entry]
                cls = "tool-result" + (" out-ctx" if self.has_compaction and result_entry not in self.in_ctx else "")
                out.append(f'<div class="{cls}" id="e{result_entry}" data-entry="{attr(rid)}"'
                           f' data-result-for="{attr(result.get("toolCallId"))}">')
                edit = self.edits.get(rid)
                if edit is not None:
                    ei, e = edit
                    what = "omitted from the model's context" if e.get("replacement") is None else "content replaced in context"
                    out.append(f'<a class="badge edit" href="#e{ei}">{esc(what)}</a>')
            else:
                out.append(f'<div class="tool-result" data-result-for="{attr(result.get("toolCallId"))}">')
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
                out.append(f'<div class="label-line">output</div>{md_block(text, cls)}')
        elif r.shows_diff:
            if text.strip():
                out.append(f'<div class="result-text">{esc(text_lines(text)[0] if len(text_lines(text)) == 1 else text)}</div>')
            out.append(diff_html(r.diff or r.patch))
            if r.diff and r.patch:
                out.append(f'<details class="patch"><summary>unified patch</summary>{diff_html(r.patch)}</details>')
        else:
            if text.strip():
                out.append(pre(text, "out error" if r.is_error else "out"))
            elif not r.images:
                out.append('<div class="muted">(no output)</div>')
        out += [image_html(b) for b in r.images]
        if r.image_note:
            out.append(f'<div class="trunc">⚠ {esc(r.image_note)}</div>')
        if r.truncated:
            note = "⚠ Output truncated"
            if r.kept_lines:
                note += f": {int_text(r.kept_lines[0])} of {int_text(r.kept_lines[1])} lines kept"
            note = esc(note)
            if r.full_output_path is not None:
                note += f"; full output in <code>{esc(r.full_output_path)}</code>"
            out.append(f'<div class="trunc">{note}</div>')
        if r.usage is not None:
            bits = usage_bits(r.usage)
            if bits:
                out.append(f'<div class="muted">tool model usage: {esc(" · ".join(bits))}</div>')
        return "".join(out)

    def subagents(self, mode: str, runs: list[SubagentRun], depth: int) -> str:
        out = []
        if mode:
            out.append(f'<div class="label-line">{esc(mode)} run · {plural(len(runs), "agent")}</div>')
        for k, run in enumerate(runs, 1):
            scls = {"ok": "good", "error": "bad"}.get(run.state, "muted")
            bits = ([esc(run.model)] if run.model else []) + [esc(b) for b in run.bits()]
            step = f"{run.step:g}. " if run.step is not None else f"{k}. "
            summary = (f'<summary><span class="step">{step}</span>'
                       f'<span class="tool-name">{esc(run.agent)}</span> '
                       f'<span class="{scls}">{esc(run.status or "?")}</span> <span class="muted">{" · ".join(bits)}</span>'
                       "</summary>")
            body = []
            if run.task.strip():
                body.append(f'<div class="task"><span class="label-line">task</span>{md_block(run.task)}</div>')
            if run.error:
                body.append(pre(run.error, "out error"))
            if run.messages:
                if depth + 1 >= MAX_DEPTH:
                    body.append(raw_details(f"{plural(len(run.messages), 'message')} (nested too deep to draw)",
                                             run.messages))
                else:
                    body.append(f'<div class="nested">{self.messages(run.messages, depth + 1)}</div>')
            if run.transcripts:
                body.append('<div class="muted paths">' + " · ".join(
                    f"{esc(w)}: <code>{esc(shorten_home(p))}</code>" for w, p in run.transcripts) + "</div>")
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
            t = f'<time>{esc(when)}</time>' if when else ""
            if role == "user":
                out.append(f'<div class="msg user"><div class="head"><span class="role">User</span>'
                           f'<span class="right">{t}</span></div>{content_html(m.get("content"))}</div>')
            elif role == "assistant":
                bits = usage_bits(m.get("usage"))
                model = model_label(m)
                out.append('<div class="msg assistant"><div class="head"><span class="role">Assistant</span>'
                           + (f' <span class="model">{esc(model)}</span>' if model else "")
                           + (f' <span class="muted usage">{esc(" · ".join(bits))}</span>' if bits else "")
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
                out.append(f'<div class="msg unknown">{raw_details(str(role), m)}</div>')
        return "".join(out)

    # ------------------------------------------------------------- other kinds
    def _bash_badges(self, m: dict) -> str:
        code = m.get("exitCode")
        bits = []
        if m.get("cancelled"):
            bits.append(badge("cancelled", "bad"))
        elif _num(code) is not None:
            bits.append(badge(f"exit {code:g}", "good" if code == 0 else "bad"))
        if m.get("excludeFromContext"):
            bits.append(badge("not sent to the model", "hidden"))
        return " ".join(bits)

    def bash_body(self, m: dict) -> str:
        out = [pre("$ " + str(m.get("command") or ""), "cmd")]
        output = str(m.get("output") or "")
        if output.strip():
            bad = _num(m.get("exitCode")) not in (None, 0)
            out.append(pre(output, "out error" if bad else "out"))
        else:
            out.append('<div class="muted">(no output)</div>')
        if m.get("truncated") or isinstance(m.get("fullOutputPath"), str):
            note = "⚠ Output truncated"
            if isinstance(m.get("fullOutputPath"), str):
                note = esc(note) + f"; full output in <code>{esc(m['fullOutputPath'])}</code>"
            else:
                note = esc(note)
            out.append(f'<div class="trunc">{note}</div>')
        return "".join(out)

    def system(self, m: dict) -> str:
        content = m.get("content")
        sections = m.get("sections") if isinstance(m.get("sections"), dict) else {}
        added = [t for t in m.get("toolsAdded") or [] if t is not None] if isinstance(m.get("toolsAdded"), list) else []
        removed = [t for t in m.get("toolsRemoved") or [] if t is not None] if isinstance(m.get("toolsRemoved"), list) else []
        bits = []
        if sections:
            bits.append(plural(len(sections), "section"))
        if added:
            bits.append(f"+{len(added)} tool{'s' if len(added) != 1 else ''}")
        if removed:
            bits.append(f"−{len(removed)} tool{'s' if len(removed) != 1 else ''}")
        text = text_of(content) if not isinstance(content, str) else content
        if text.strip():
            bits.append(f"{len(text):,} chars of text")
        out = [f'<details class="system-body"><summary>{esc(" · ".join(bits) or "empty")}</summary>']
        if text.strip():
            out.append(pre(text, "prompt"))
        for name, body in sections.items():
            if body is None:
                out.append(f'<div class="section removed">section <code>{esc(name)}</code> removed</div>')
            else:
                body_s = body if isinstance(body, str) else json_pretty(body)
                out.append(f'<details class="section"><summary>section <code>{esc(name)}</code> '
                           f'<span class="muted">{len(body_s):,} chars</span></summary>{pre(body_s, "prompt")}</details>')
        if added:
            out.append('<div class="label-line">tools added</div><ul class="tools">')
            for t in added:
                if isinstance(t, dict):
                    desc = t.get("description")
                    first = cleaned(desc).strip().split("\n")[0][:160] if isinstance(desc, str) else ""
                    out.append(f'<li><details><summary><code>{esc(t.get("name"))}</code> <span class="muted">'
                               f'{esc(first)}</span></summary>{pre(json_pretty(t), "prompt")}</details></li>')
                else:
                    out.append(f"<li><code>{esc(t)}</code></li>")
            out.append("</ul>")
        if removed:
            names = ", ".join(f"<code>{esc(t.get('name') if isinstance(t, dict) else t)}</code>" for t in removed)
            out.append(f'<div class="label-line">tools removed: {names}</div>')
        out.append("</details>")
        return "".join(out)

    def custom_message(self, i: int, ctype: Any, content: Any, display: Any, details: Any) -> str:
        s = self.s
        hidden = display is False
        extra = [f'<code>{esc(ctype or "custom")}</code>']
        if hidden:
            extra.append(badge("hidden in Pi (display: false)", "hidden"))
        body = content_html(content)
        if details is not None:
            body += raw_details("details", details)
        cls = "custom" + (" hidden-msg" if hidden else "")
        return (f'<section class="{self._classes(i, cls)}" id="e{i}" data-entry="{attr(s.ids[i])}">'
                f'{self._head(i, cap_first(CUSTOM_MESSAGE), "custom", " ".join(extra))}{body}</section>')

    # -------------------------------------------------------------- a Pi-based app's entries
    def app_input(self, i: int, inp: AppInput, content: Any, display: Any) -> str:
        """Input another agent wrote, as a user message from that agent; a callback's input."""
        hidden = display is False
        extra = [f'<span class="muted">{esc(f)}</span>' for f in inp.facts]
        if hidden:
            extra.append(badge("hidden in the app (display: false)", "hidden"))
        if inp.from_session:
            extra.append(f'<span class="muted">from session <code>{esc(inp.from_session)}</code></span>')
        kind = "user" if inp.kind == "agent" else "custom"
        cls = kind + (" hidden-msg" if hidden else "")
        return (f'<section class="{self._classes(i, cls)}" id="e{i}" data-entry="{attr(self.s.ids[i])}">'
                f'{self._head(i, cap_first(inp.title), kind, " ".join(extra))}{content_html(content)}</section>')

    def app_event(self, i: int, ev: AppEvent) -> str:
        """An interrupt as a marker; a callback with what it answered; another event's payload."""
        m = ev.marker
        if m is not None:
            return self.marker(i, "interrupt", self._marker_html(m))
        extra = [f'<span class="muted">{esc(f)}</span>' for f in
                 ([ev.event_type] if ev.title == "app event" else []) + ev.facts]
        body = []
        if ev.event_type == "agent_callback":
            if ev.call_id:
                body.append(f'<p class="muted">Resolves the call <code>{esc(ev.call_id)}</code>.</p>')
            if ev.message:
                body.append(md_block(ev.message))
            if ev.from_session:
                body.append(f'<p class="muted">From session <code>{esc(ev.from_session)}</code>.</p>')
        else:
            body.append(raw_details("payload", ev.payload))
        return (f'<section class="{self._classes(i, "custom")}" id="e{i}" data-entry="{attr(self.s.ids[i])}">'
                f'{self._head(i, cap_first(ev.title), "custom", " ".join(extra))}{"".join(body)}</section>')

    def _callback_line(self, j: int, ev: AppEvent) -> str:
        """Under a call: a callback that resolved it later, linked to where it sits."""
        bits = " · ".join(ev.facts + [when_utc(self.s.timestamps[j])])
        target = f'<a href="#e{j}">callback</a>' if j in self.on_path else "callback"
        text = f": {esc(one_line(ev.message, 200))}" if ev.message else ""
        return f'<div class="callback">↩ {target} <span class="muted">{esc(bits)}</span>{text}</div>'

    def compaction(self, i: int, e: dict) -> str:
        s = self.s
        sp = summary_parts(s, e)
        extra = []
        if sp.tokens_before is not None:
            extra.append(f'<span class="muted">{int_text(sp.tokens_before)} tokens before</span>')
        if sp.by_extension:
            extra.append(badge("by an extension"))
        body = [self._kept(sp), md_block(sp.summary)] + self._summary_details(sp)
        sm = e.get("systemMessage")
        if isinstance(sm, dict):
            body.append(f'<details class="checkpoint"><summary>{esc(sp.checkpoint_text)}</summary>{self.system(sm)}</details>')
        return (f'<section class="{self._classes(i, "compaction")}" id="e{i}" data-entry="{attr(s.ids[i])}">'
                f'{self._head(i, "✂ Compaction", "compaction", " ".join(extra + self._summary_usage(sp)))}'
                f'{"".join(body)}</section>')

    def branch_summary(self, i: int, e: dict) -> str:
        s = self.s
        sp = summary_parts(s, e)
        extra = []
        if sp.from_note is not None:
            extra.append(f'<span class="muted">{self._marker_html(sp.from_note)}</span>')
        if sp.by_extension:
            extra.append(badge("by an extension"))
        body = md_block(sp.summary) + "".join(self._summary_details(sp))
        return (f'<section class="{self._classes(i, "branch-summary")}" id="e{i}" data-entry="{attr(s.ids[i])}">'
                f'{self._head(i, "Branch summary", "summary", " ".join(extra + self._summary_usage(sp)))}{body}</section>')

    def _kept(self, sp: SummaryParts) -> str:
        kept = sp.kept_note
        return f'<p class="muted">{self._marker_html(kept)}</p>' if kept is not None else ""

    @staticmethod
    def _summary_details(sp: SummaryParts) -> list[str]:
        out = []
        if sp.files:
            rows = [f'<div><span class="label-line">{esc(word)}</span> ' + ", ".join(f"<code>{esc(f)}</code>" for f in files)
                    + "</div>" for word, files in sp.files]
            out.append(f'<details class="files"><summary>files</summary>{"".join(rows)}</details>')
        if sp.other_details is not None:
            out.append(raw_details("details", sp.other_details))
        return out

    @staticmethod
    def _summary_usage(sp: SummaryParts) -> list[str]:
        return [f'<span class="muted usage">summary usage: {esc(" · ".join(sp.usage))}</span>'] if sp.usage else []

#: Each entry type's part of the page (every type in :data:`ENTRY_TYPES`: a new type is a row
#: here, in the Markdown export's table and in the pane's; tests/core/test_entry_kinds.py)
ENTRY_HTML: dict[str, Callable[[EntryHtml, int, dict], str]] = {
    "message": EntryHtml.message,
    "compaction": EntryHtml.compaction,
    "branch_summary": EntryHtml.branch_summary,
    "custom_message": EntryHtml.custom_message_entry,
    "custom": EntryHtml.custom_entry,
    "model_change": EntryHtml.marker_entry,
    "thinking_level_change": EntryHtml.marker_entry,
    "context_edit": EntryHtml.marker_entry,
    "label": EntryHtml.label,
    "session_info": EntryHtml.marker_entry,
    "usage": EntryHtml.marker_entry,
    "stream_event": EntryHtml.marker_entry,
}

#: Each message role's part of the page (every role in :data:`MESSAGE_ROLES`)
MESSAGE_HTML: dict[str, Callable[[EntryHtml, int, dict], str]] = {
    "user": EntryHtml.user_message,
    "assistant": EntryHtml.assistant_message,
    "toolResult": EntryHtml.tool_result_message,
    "bashExecution": EntryHtml.bash_message,
    "custom": EntryHtml.custom_message_entry,
    "system": EntryHtml.system_message,
    "branchSummary": EntryHtml.branch_summary_message,
    "compactionSummary": EntryHtml.compaction_summary_message,
}
