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
                           role_title, tool_args_summary, tool_state, usage_bits)
from ..model.tool_kinds import tool_name
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
        self.has_compaction = any(session.types[index] == "compaction" for index in self.path)
        # tool results on the branch by call id (the first one wins, as they are shown once)
        self.results: dict[str, int] = {}
        for index in self.path:
            if session.types[index] == "message" and session.roles[index] == "toolResult":
                tcid = (session.message(index) or {}).get("toolCallId")
                if isinstance(tcid, str) and tcid not in self.results:
                    self.results[tcid] = index
        # the latest context edit per target among the entries that reach the context
        self.edits: dict[str, tuple[int, dict]] = {}
        for index in ctx:
            if session.types[index] == "context_edit":
                entry = session.entry(index)
                target = entry.get("targetId")
                self.edits[target if isinstance(target, str) else str(target)] = (index, entry)
        self.shown: set[int] = set()

    # -------------------------------------------------------------- entries
    def _head(self, index: int, role: str, cls: str, extra: str = "") -> str:
        session = self.s
        when = when_utc(session.timestamps[index])
        bits = [f'<span class="role">{esc(role)}</span>']
        if extra:
            bits.append(extra)
        label = session.label_of(index)
        if label:
            bits.append(badge(label, "label"))
        edit = self.edits.get(session.ids[index])
        if edit is not None:
            ei, entry = edit
            what = "omitted from the model's context" if entry.get("replacement") is None else "content replaced in context"
            bits.append(f'<a class="badge edit" href="#e{ei}">{esc(what)}</a>')
        right = []
        if when:
            right.append(f'<time>{esc(when)}</time>')
        right.append(f'<a class="eid" href="#e{index}">{esc(session.ids[index])}</a>')
        return f'<div class="head">{" ".join(bits)}<span class="right">{" ".join(right)}</span></div>'

    def _classes(self, index: int, kind: str, base: str = "entry") -> str:
        cls = f"{base} {kind}"
        if self.has_compaction and index not in self.in_ctx:
            cls += " out-ctx"
        return cls


    def entry(self, index: int) -> str:
        """Entry ``index`` as a part of the page, by its type (:data:`ENTRY_HTML`)."""
        session = self.s
        entry = session.entry(index)
        if session.flags[index] & F_DAMAGED or "pituiError" in entry:
            return (f'<section class="{self._classes(index, "damaged")}" id="e{index}" data-entry="{attr(session.ids[index])}">'
                    f'{self._head(index, "Damaged line", "damaged")}'
                    f'<p class="error">{esc(entry.get("pituiError") or f"line {session.linenos[index]} is damaged")}</p></section>')
        kind = entry.get("type")
        draw = ENTRY_HTML.get(kind) if isinstance(kind, str) else None
        return (draw or EntryHtml.unknown_entry)(self, index, entry)

    def unknown_entry(self, index: int, entry: dict) -> str:
        """An entry of a type pitui does not know: its fields, folded."""
        kind = f"[{entry.get('type')}]"
        return (f'<section class="{self._classes(index, "unknown")}" id="e{index}" data-entry="{attr(self.s.ids[index])}">'
                f'{self._head(index, kind, "unknown")}{raw_details("entry", entry)}</section>')

    def message(self, index: int, entry: dict) -> str:
        """A ``message`` entry, by its message's role (:data:`MESSAGE_HTML`; a version 2
        ``hookMessage`` as ``custom``)."""
        message = entry.get("message") if isinstance(entry.get("message"), dict) else {}
        return self.message_entry(index, message)

    def message_entry(self, index: int, message: dict) -> str:
        role = message.get("role")
        if role == "hookMessage":
            role = "custom"
        draw = MESSAGE_HTML.get(role) if isinstance(role, str) else None
        return (draw or EntryHtml.unknown_message)(self, index, message)

    def label(self, index: int, entry: dict) -> str:
        return ""  # shown as a badge on its target

    def marker_entry(self, index: int, entry: dict) -> str:
        """A one-line entry (a model change, a session name...): its marker."""
        mark = marker(self.s, entry)
        if mark is None:
            return self.unknown_entry(index, entry)
        kind = entry.get("type")
        extra = ""
        if kind == "context_edit" and isinstance(entry.get("replacement"), dict):
            extra = raw_details("replacement", entry.get("replacement"))
        elif kind == "stream_event" and "record" in entry:
            extra = raw_details("record", entry.get("record"))
        return self.marker(index, _MARKER_CLASS[kind], self._marker_html(mark), extra)

    def custom_entry(self, index: int, entry: dict) -> str:
        """An extension's own entry: a Pi-based app's event, else its data folded."""
        ev = app_event(entry)
        if ev is not None:
            return self.app_event(index, ev)
        return self.marker(index, "ext-state", f"{esc(cap_first(CUSTOM_ENTRY))} <code>{esc(entry.get('customType') or 'custom')}</code>",
                           raw_details("data", entry.get("data")) if "data" in entry else "")

    def custom_message_entry(self, index: int, entry: dict) -> str:
        """An extension's message (a ``custom_message`` entry, or a message of role
        ``custom`` as ``entry``): a Pi-based app's input, else the message."""
        inp = app_input(entry)
        if inp is not None:
            return self.app_input(index, inp, entry.get("content"), entry.get("display"))
        return self.custom_message(index, entry.get("customType"), entry.get("content"), entry.get("display"), entry.get("details"))

    def _marker_html(self, marker: Marker) -> str:
        """A marker's pieces: what was set in code, another entry's id a link to it; the
        first letter up, as the page's other headings."""
        out = []
        for index, (text, kind) in enumerate(marker.pieces):
            if index == 0:
                text = cap_first(text)
            if kind == "value":
                out.append(f"<code>{esc(text)}</code>")
            elif kind == "ref":
                target = self.s.index_of.get(marker.ref) if marker.ref is not None else None
                out.append(f'<a href="#e{target}"><code>{esc(text)}</code></a>' if target is not None else f"<code>{esc(text)}</code>")
            else:
                out.append(esc(text))
        return "".join(out)

    def marker(self, index: int, kind: str, html: str, extra: str = "") -> str:
        session = self.s
        when = when_utc(session.timestamps[index])
        label = session.label_of(index)
        lab = " " + badge(label, "label") if label else ""
        return (f'<div class="{self._classes(index, kind, "marker")}" id="e{index}" data-entry="{attr(session.ids[index])}">'
                f'<span class="marker-text">{html}{lab}</span><span class="right">'
                f'{f"<time>{esc(when)}</time> " if when else ""}<a class="eid" href="#e{index}">{esc(session.ids[index])}</a></span>'
                f"{extra}</div>")

    # -------------------------------------------------------------- messages, by role
    def _open(self, index: int, kind: str) -> str:
        return f'<section class="{self._classes(index, kind)}" id="e{index}" data-entry="{attr(self.s.ids[index])}">'

    def user_message(self, index: int, message: dict) -> str:
        return self._open(index, "user") + self._head(index, cap_first(role_title(message)[0]), "user") + content_html(message.get("content")) + "</section>"

    def assistant_message(self, index: int, message: dict) -> str:
        extra = []
        model = model_label(message)
        if model:
            extra.append(f'<span class="model">{esc(model)}</span>')
        if message.get("thinkingLevel"):
            extra.append(f'<span class="muted">thinking {esc(message.get("thinkingLevel"))}</span>')
        bits = usage_bits(message.get("usage"))
        if bits:
            extra.append(f'<span class="muted usage">{esc(" · ".join(bits))}</span>')
        body = self.assistant_body(message, self._branch_result, 0)
        notice = new_reasoning_drop(self.s, index)
        if notice:
            body = f'<div class="trunc">⚠ {esc(notice)}</div>' + body
        return self._open(index, "assistant") + self._head(index, cap_first(role_title(message)[0]), "assistant", " ".join(extra)) + body + "</section>"

    def tool_result_message(self, index: int, message: dict) -> str:
        """A result shown on its own: its call is not on this branch, or it is a second
        result for one call (the others are shown under their call)."""
        found = call_or_why(self.s, index)
        call = found if isinstance(found, dict) else None
        what = "Tool result (another result for a call above)" if call is not None else "Tool result"
        return (self._open(index, "tool-orphan") + self._head(index, what, "tool")
                + self.tool(call, message, index, 0, why=found if isinstance(found, str) else "") + "</section>")

    def bash_message(self, index: int, message: dict) -> str:
        return self._open(index, "bash") + self._head(index, cap_first(role_title(message)[0]), "bash", self._bash_badges(message)) + self.bash_body(message) + "</section>"

    def system_message(self, index: int, message: dict) -> str:
        return self._open(index, "system") + self._head(index, cap_first(role_title(message)[0]), "system") + self.system(message) + "</section>"

    def branch_summary_message(self, index: int, message: dict) -> str:
        return (self._open(index, "branch-summary") + self._head(index, cap_first(role_title(message)[0]), "summary")
                + md_block(message.get("summary")) + "</section>")

    def compaction_summary_message(self, index: int, message: dict) -> str:
        return (self._open(index, "compaction-summary") + self._head(index, cap_first(role_title(message)[0]), "summary")
                + md_block(message.get("summary")) + "</section>")

    def unknown_message(self, index: int, message: dict) -> str:
        return self._open(index, "unknown") + self._head(index, f"[{message.get('role')}]", "unknown") + raw_details("message", message) + "</section>"

    def _branch_result(self, tcid: Any) -> tuple[int | None, dict] | None:
        if not isinstance(tcid, str):
            return None
        result = self.results.get(tcid)
        if result is None or result in self.shown:
            return None
        self.shown.add(result)
        return result, self.s.message(result) or {}

    # -------------------------------------------------------------- message bodies
    def assistant_body(self, message: dict, find_result: Callable[[Any], tuple[int | None, dict] | None], depth: int) -> str:
        out = []
        content = message.get("content")
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
                    out += [self._callback_line(index, ev) for index, ev in callbacks_by_call(self.s).get(block["id"], ())]
            elif bt == "image":
                out.append(image_html(block))
            else:
                out.append(raw_details(f"{bt or 'unknown'} block", block))
        stop = message.get("stopReason")
        if stop in ("error", "aborted", "length"):
            why = {"error": "Error", "aborted": "Aborted", "length": "Stopped: output length limit"}[stop]
            out.append(f'<div class="stop {stop}"><strong>{esc(why)}</strong>' + error_html(message.get("errorMessage")) + "</div>")
        elif message.get("errorMessage"):
            out.append('<div class="stop error">' + error_html(message.get("errorMessage"), lead="") + "</div>")
        return "".join(out)

    def tool(self, call: dict | None, result: dict | None, result_entry: int | None, depth: int, why: str = "") -> str:
        """A call with its result; ``why`` says why a result has no call (see ``call_or_why``)."""
        name = tool_name(call, result)
        args = (call or {}).get("arguments")
        tool_args = args if isinstance(args, dict) else {}
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
            if name == "bash" and isinstance(tool_args.get("command"), str) and "\n" in tool_args["command"].strip():
                out.append(pre("$ " + tool_args["command"], "cmd"))
            if name == "write" and isinstance(tool_args.get("content"), str):
                count = len(text_lines(tool_args["content"]))
                out.append(f'<details class="write-content"><summary>content ({plural(count, "line")})</summary>'
                           f"{pre(tool_args['content'], 'code')}</details>")
            if name == "edit" and state.name != "ok":
                req = requested_edit(tool_args)
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
                    ei, entry = edit
                    what = "omitted from the model's context" if entry.get("replacement") is None else "content replaced in context"
                    out.append(f'<a class="badge edit" href="#e{ei}">{esc(what)}</a>')
            else:
                out.append(f'<div class="tool-result" data-result-for="{attr(result.get("toolCallId"))}">')
            out.append(self.result_body(result_parts(name, result), depth))
            out.append("</div>")
        out.append("</div>")
        return "".join(out)

    def result_body(self, parts: ResultParts, depth: int) -> str:
        out = []
        text = parts.text
        if parts.subagents is not None:
            out.append(self.subagents(*parts.subagents, depth))
            if text.strip():  # (a model's reply: Markdown, as the pane draws it)
                cls = "md error" if parts.is_error else "md"
                out.append(f'<div class="label-line">output</div>{md_block(text, cls)}')
        elif parts.shows_diff:
            if text.strip():
                out.append(f'<div class="result-text">{esc(text_lines(text)[0] if len(text_lines(text)) == 1 else text)}</div>')
            out.append(diff_html(parts.diff or parts.patch))
            if parts.diff and parts.patch:
                out.append(f'<details class="patch"><summary>unified patch</summary>{diff_html(parts.patch)}</details>')
        else:
            if text.strip():
                out.append(pre(text, "out error" if parts.is_error else "out"))
            elif not parts.images:
                out.append('<div class="muted">(no output)</div>')
        out += [image_html(image) for image in parts.images]
        if parts.image_note:
            out.append(f'<div class="trunc">⚠ {esc(parts.image_note)}</div>')
        if parts.truncated:
            note = "⚠ Output truncated"
            if parts.kept_lines:
                note += f": {int_text(parts.kept_lines[0])} of {int_text(parts.kept_lines[1])} lines kept"
            note = esc(note)
            if parts.full_output_path is not None:
                note += f"; full output in <code>{esc(parts.full_output_path)}</code>"
            out.append(f'<div class="trunc">{note}</div>')
        if parts.usage is not None:
            bits = usage_bits(parts.usage)
            if bits:
                out.append(f'<div class="muted">tool model usage: {esc(" · ".join(bits))}</div>')
        return "".join(out)

    def subagents(self, mode: str, runs: list[SubagentRun], depth: int) -> str:
        out = []
        if mode:
            out.append(f'<div class="label-line">{esc(mode)} run · {plural(len(runs), "agent")}</div>')
        for number, run in enumerate(runs, 1):
            scls = {"ok": "good", "error": "bad"}.get(run.state, "muted")
            bits = ([esc(run.model)] if run.model else []) + [esc(bit) for bit in run.bits()]
            step = f"{run.step:g}. " if run.step is not None else f"{number}. "
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
                    f"{esc(label)}: <code>{esc(shorten_home(path))}</code>" for label, path in run.transcripts) + "</div>")
            out.append(f'<details class="subagent">{summary}{"".join(body)}</details>')
        return "".join(out)

    def messages(self, msgs: list[dict], depth: int) -> str:
        """A nested conversation (a subagent's messages): calls paired with their results."""
        by_call: dict[str, dict] = {}
        for message in msgs:
            if message.get("role") == "toolResult" and isinstance(message.get("toolCallId"), str):
                by_call.setdefault(message["toolCallId"], message)
        used: set[int] = set()

        def find(tcid: Any):
            if not isinstance(tcid, str) or tcid not in by_call:
                return None
            result = by_call[tcid]
            if id(result) in used:
                return None
            used.add(id(result))
            return None, result

        out = []
        for message in msgs:
            role = message.get("role")
            when = when_utc(message.get("timestamp"))
            time_html = f'<time>{esc(when)}</time>' if when else ""
            if role == "user":
                out.append(f'<div class="msg user"><div class="head"><span class="role">User</span>'
                           f'<span class="right">{time_html}</span></div>{content_html(message.get("content"))}</div>')
            elif role == "assistant":
                bits = usage_bits(message.get("usage"))
                model = model_label(message)
                out.append('<div class="msg assistant"><div class="head"><span class="role">Assistant</span>'
                           + (f' <span class="model">{esc(model)}</span>' if model else "")
                           + (f' <span class="muted usage">{esc(" · ".join(bits))}</span>' if bits else "")
                           + f'<span class="right">{time_html}</span></div>{self.assistant_body(message, find, depth)}</div>')
            elif role == "toolResult":
                if id(message) in used:
                    continue
                out.append(f'<div class="msg tool-orphan">{self.tool(None, message, None, depth)}</div>')
            elif role == "system":
                out.append(f'<div class="msg system"><div class="head"><span class="role">System prompt</span>'
                           f'<span class="right">{time_html}</span></div>{self.system(message)}</div>')
            elif role == "bashExecution":
                out.append(f'<div class="msg bash"><div class="head"><span class="role">Shell</span>'
                           f'{self._bash_badges(message)}<span class="right">{time_html}</span></div>{self.bash_body(message)}</div>')
            else:
                out.append(f'<div class="msg unknown">{raw_details(str(role), message)}</div>')
        return "".join(out)

    # ------------------------------------------------------------- other kinds
    def _bash_badges(self, message: dict) -> str:
        code = message.get("exitCode")
        bits = []
        if message.get("cancelled"):
            bits.append(badge("cancelled", "bad"))
        elif _num(code) is not None:
            bits.append(badge(f"exit {code:g}", "good" if code == 0 else "bad"))
        if message.get("excludeFromContext"):
            bits.append(badge("not sent to the model", "hidden"))
        return " ".join(bits)

    def bash_body(self, message: dict) -> str:
        out = [pre("$ " + str(message.get("command") or ""), "cmd")]
        output = str(message.get("output") or "")
        if output.strip():
            bad = _num(message.get("exitCode")) not in (None, 0)
            out.append(pre(output, "out error" if bad else "out"))
        else:
            out.append('<div class="muted">(no output)</div>')
        if message.get("truncated") or isinstance(message.get("fullOutputPath"), str):
            note = "⚠ Output truncated"
            if isinstance(message.get("fullOutputPath"), str):
                note = esc(note) + f"; full output in <code>{esc(message['fullOutputPath'])}</code>"
            else:
                note = esc(note)
            out.append(f'<div class="trunc">{note}</div>')
        return "".join(out)

    def system(self, message: dict) -> str:
        content = message.get("content")
        sections = message.get("sections") if isinstance(message.get("sections"), dict) else {}
        added = [tool for tool in message.get("toolsAdded") or [] if tool is not None] if isinstance(message.get("toolsAdded"), list) else []
        removed = [tool for tool in message.get("toolsRemoved") or [] if tool is not None] if isinstance(message.get("toolsRemoved"), list) else []
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
            for tool in added:
                if isinstance(tool, dict):
                    desc = tool.get("description")
                    first = cleaned(desc).strip().split("\n")[0][:160] if isinstance(desc, str) else ""
                    out.append(f'<li><details><summary><code>{esc(tool.get("name"))}</code> <span class="muted">'
                               f'{esc(first)}</span></summary>{pre(json_pretty(tool), "prompt")}</details></li>')
                else:
                    out.append(f"<li><code>{esc(tool)}</code></li>")
            out.append("</ul>")
        if removed:
            names = ", ".join(f"<code>{esc(tool.get('name') if isinstance(tool, dict) else tool)}</code>" for tool in removed)
            out.append(f'<div class="label-line">tools removed: {names}</div>')
        out.append("</details>")
        return "".join(out)

    def custom_message(self, index: int, ctype: Any, content: Any, display: Any, details: Any) -> str:
        session = self.s
        hidden = display is False
        extra = [f'<code>{esc(ctype or "custom")}</code>']
        if hidden:
            extra.append(badge("hidden in Pi (display: false)", "hidden"))
        body = content_html(content)
        if details is not None:
            body += raw_details("details", details)
        cls = "custom" + (" hidden-msg" if hidden else "")
        return (f'<section class="{self._classes(index, cls)}" id="e{index}" data-entry="{attr(session.ids[index])}">'
                f'{self._head(index, cap_first(CUSTOM_MESSAGE), "custom", " ".join(extra))}{body}</section>')

    # -------------------------------------------------------------- a Pi-based app's entries
    def app_input(self, index: int, inp: AppInput, content: Any, display: Any) -> str:
        """Input another agent wrote, as a user message from that agent; a callback's input."""
        hidden = display is False
        extra = [f'<span class="muted">{esc(fact)}</span>' for fact in inp.facts]
        if hidden:
            extra.append(badge("hidden in the app (display: false)", "hidden"))
        if inp.from_session:
            extra.append(f'<span class="muted">from session <code>{esc(inp.from_session)}</code></span>')
        kind = "user" if inp.kind == "agent" else "custom"
        cls = kind + (" hidden-msg" if hidden else "")
        return (f'<section class="{self._classes(index, cls)}" id="e{index}" data-entry="{attr(self.s.ids[index])}">'
                f'{self._head(index, cap_first(inp.title), kind, " ".join(extra))}{content_html(content)}</section>')

    def app_event(self, index: int, ev: AppEvent) -> str:
        """An interrupt as a marker; a callback with what it answered; another event's payload."""
        marker = ev.marker
        if marker is not None:
            return self.marker(index, "interrupt", self._marker_html(marker))
        extra = [f'<span class="muted">{esc(fact)}</span>' for fact in
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
        return (f'<section class="{self._classes(index, "custom")}" id="e{index}" data-entry="{attr(self.s.ids[index])}">'
                f'{self._head(index, cap_first(ev.title), "custom", " ".join(extra))}{"".join(body)}</section>')

    def _callback_line(self, index: int, ev: AppEvent) -> str:
        """Under a call: a callback that resolved it later, linked to where it sits."""
        bits = " · ".join(ev.facts + [when_utc(self.s.timestamps[index])])
        target = f'<a href="#e{index}">callback</a>' if index in self.on_path else "callback"
        text = f": {esc(one_line(ev.message, 200))}" if ev.message else ""
        return f'<div class="callback">↩ {target} <span class="muted">{esc(bits)}</span>{text}</div>'

    def compaction(self, index: int, entry: dict) -> str:
        session = self.s
        sp = summary_parts(session, entry)
        extra = []
        if sp.tokens_before is not None:
            extra.append(f'<span class="muted">{int_text(sp.tokens_before)} tokens before</span>')
        if sp.by_extension:
            extra.append(badge("by an extension"))
        body = [self._kept(sp), md_block(sp.summary)] + self._summary_details(sp)
        sm = entry.get("systemMessage")
        if isinstance(sm, dict):
            body.append(f'<details class="checkpoint"><summary>{esc(sp.checkpoint_text)}</summary>{self.system(sm)}</details>')
        return (f'<section class="{self._classes(index, "compaction")}" id="e{index}" data-entry="{attr(session.ids[index])}">'
                f'{self._head(index, "✂ Compaction", "compaction", " ".join(extra + self._summary_usage(sp)))}'
                f'{"".join(body)}</section>')

    def branch_summary(self, index: int, entry: dict) -> str:
        session = self.s
        sp = summary_parts(session, entry)
        extra = []
        if sp.from_note is not None:
            extra.append(f'<span class="muted">{self._marker_html(sp.from_note)}</span>')
        if sp.by_extension:
            extra.append(badge("by an extension"))
        body = md_block(sp.summary) + "".join(self._summary_details(sp))
        return (f'<section class="{self._classes(index, "branch-summary")}" id="e{index}" data-entry="{attr(session.ids[index])}">'
                f'{self._head(index, "Branch summary", "summary", " ".join(extra + self._summary_usage(sp)))}{body}</section>')

    def _kept(self, sp: SummaryParts) -> str:
        kept = sp.kept_note
        return f'<p class="muted">{self._marker_html(kept)}</p>' if kept is not None else ""

    @staticmethod
    def _summary_details(sp: SummaryParts) -> list[str]:
        out = []
        if sp.files:
            rows = [f'<div><span class="label-line">{esc(word)}</span> ' + ", ".join(f"<code>{esc(file)}</code>" for file in files)
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
