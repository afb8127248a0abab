"""Rendering messages to Strips: one function per kind, shared by the pane, the context
view and nested subagent transcripts.

A block is rendered once at a given width and toggle state and the Strips are cached by
the caller. The same code also runs in *text mode*, where nothing is drawn and only the
searchable text of the block is collected (everything unfolded), so that search counts
exactly the text the renderers can show.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from rich.style import Style
from rich.table import Table
from rich.text import Text

from ...core.numbers import as_number as _num
from ...core.numbers import fmt_bytes, fmt_cost, fmt_tokens
from ...core.model.parts import (ResultParts, SubagentRun, model_label, requested_edit, result_parts, role_title,
                                 tool_args_summary, tool_name, tool_state, usage_tokens)
from ...core.model.entry_parts import AppEvent, SummaryParts, app_input, summary_parts
from ...core.model.notices import provider_error
from ...core.model.summary import one_line, shorten_home, text_of
from ...core.text import clean, json_compact, json_pretty, text_lines
from ..text_fit import cut_words

from .pieces import (GIVE_DETAIL, GIVE_ID, GIVE_TIME, GIVE_TOKENS, SHRINK, _fold_line, _image_line, _output_lines,
                     file_link, fit_line, render_content, render_header)
from .canvas import CUT_LINES, Out, _field, fmt_time

#: files read and modified named under a summary; the rest counted (``+3``)
SUMMARY_FILES_SHOWN = 6

__all__ = [
    "render_message",
    "render_messages",
    "render_assistant",
    "render_tool_results",
    "render_compaction",
    "render_branch_summary",
    "render_custom_entry",
    "render_json_body",
    "message_header",
    "group_messages",
]

def render_tool_section(out: Out, call: dict | str | None, result: dict | None, key: str,
                        result_entry: int | None = None, depth: int = 0) -> None:
    """One tool call with its result under it. ``call`` is the call, or None when it was
    not found above the result, or why it was not (a ``call_for`` may say)."""
    p = out.p
    missing, missing_style = "call not on this branch", p.muted
    if isinstance(call, str):  # (a broken pairing, flagged: Pi sends such a result with no call)
        missing, missing_style, call = call, p.warning, None
    if result is not None and result.get("pituiError"):
        out.mark_entry(result_entry)
        t = Text("⚠ damaged entry: ", p.warning + Style(bold=True))
        t.append(clean(result["pituiError"], block=True), p.warning)
        out.wrap(t)
        return
    name = tool_name(call, result)
    args = (call or {}).get("arguments")
    state = tool_state(result)
    out.mark_entry(result_entry)
    t = Text()
    t.append(state.glyph + " ", {"pending": p.muted, "error": p.error, "ok": p.success}[state.name])
    t.append(_field(name), p.tool + Style(bold=True))
    if call is not None:
        t.append("  ")
        t.append(_field(tool_args_summary(name, args)), p.fg)
    else:
        t.append(f"  ({_field(missing)})", missing_style)
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
            diff = requested_edit(a)
            if diff:
                _output_lines(out, diff, key + ":args", diff=True)
        if result is None:
            return
        _tool_result_body(out, name, a, result_parts(name, result), key, depth)
    finally:
        out.pop()


def _tool_result_body(out: Out, name: str, args: dict, r: ResultParts, key: str, depth: int) -> None:
    p = out.p
    if r.subagents is not None:
        _subagent(out, *r.subagents, key, depth)
        if r.text.strip():
            out.line(Text("output:", p.muted), chrome=True)
            _output_lines(out, r.text, key + ":out", p.error if r.is_error else p.fg, markdown=True)
    elif r.shows_diff:
        _output_lines(out, r.diff or r.patch, key + ":diff", diff=True, limit=CUT_LINES * 2)
    else:
        path = None
        if name == "read" and not r.is_error:
            path = str(args.get("path") or args.get("file_path") or "") or None
        _output_lines(out, r.text, key + ":out", p.error if r.is_error else p.fg, syntax_path=path)
    for img in r.images:
        _image_line(out, img)
    if r.image_note:
        out.wrap(Text(f"⚠ {clean(r.image_note, block=True)}", p.warning), chrome=False)
    if r.truncated:
        t = Text("⚠ output truncated", p.warning)
        if r.kept_lines:
            t.append(f": {r.kept_lines[0]:g} of {r.kept_lines[1]:g} lines kept", p.warning)
        if r.full_output_path is not None:
            t.append(" · full output: ", p.muted)
            t.append(_field(r.full_output_path), p.link)
        out.wrap(t, chrome=False)
    if r.usage is not None:
        _usage_line(out, r.usage, "tool model usage")


def _usage_line(out: Out, usage: dict, what: str) -> None:
    p = out.p
    t = Text(f"{what}: {fmt_tokens(usage_tokens(usage))} tokens", p.muted)
    cost = fmt_cost(usage.get("cost"))
    if cost:
        t.append(f" · {cost}", p.muted)
    out.line(t, chrome=True)


# ---------------------------------------------------------------------------- subagents


def _subagent(out: Out, mode: str, runs: list[SubagentRun], key: str, depth: int) -> None:
    p = out.p
    if mode:
        out.line(Text(f"{_field(mode)} run · {len(runs)} agent{'s' if len(runs) != 1 else ''}", p.muted),
                 chrome=True)
    for k, run in enumerate(runs):
        rkey = f"{key}:sub{k}"
        agent = _field(run.agent)
        hay = run.task + "\n" + "\n".join(_message_haystack(m) for m in run.messages) if out.ctx.query else None
        folded = out.fold(rkey, not out.toggled("tool_output"), hay)
        t = Text()
        t.append("▸ " if folded else "▾ ", p.muted)
        if run.step is not None:
            t.append(f"{run.step:g}. ", p.muted)
        t.append(agent, p.tool + Style(bold=True))
        if run.status:
            t.append("  ")
            t.append(_field(run.status), {"ok": p.success, "error": p.error}.get(run.state, p.muted))
        if run.model:
            t.append(f"  {_field(run.model)}", p.muted)
        # a one-line header: the cache's tokens left out for width
        bits = run.bits(cache=False)
        if bits:
            t.append("  " + " · ".join(bits), p.muted)
        if out.ctx.text_mode:
            out.texts.append(agent)
        else:
            out.line(t, chrome=True, action=("fold", rkey))
        out.push("  ", Style())
        try:
            if run.task:
                if folded:
                    task = cut_words(one_line(clean(run.task, block=True), 400), out.inner - 6)
                    out.line(Text("task: ", p.muted) + Text(task, p.fg))
                else:
                    grid = Table.grid(padding=(0, 1))
                    grid.add_column(no_wrap=True)
                    grid.add_column(overflow="fold")
                    grid.add_row(Text("task:", p.muted), Text(clean(run.task, block=True), p.fg))
                    out.render(grid, run.task)
            if not folded:
                out.push("│ ", p.faint)
                try:
                    render_messages(out, run.messages, rkey, depth + 1)
                finally:
                    out.pop()
            _artifact_line(out, run, folded)
        finally:
            out.pop()


def _artifact_line(out: Out, run: SubagentRun, folded: bool = False) -> None:
    """The full transcript's file: a link to open it when it exists; where it was
    expected otherwise (only while the result is unfolded, to keep folds short)."""
    if out.ctx.text_mode or not run.transcripts:
        return
    paths = [path for _, path in run.transcripts]
    found = None
    resolve = out.ctx.resolve_artifact
    if resolve is not None:
        for cand in paths:
            found = resolve(cand)
            if found:
                break
    if found or not folded:
        file_link(out, "transcript: ", shorten_home(found or paths[0]), found)


def _callback_line(out: Out, when: str, ev: AppEvent) -> None:
    """Under a call: a callback that resolved it later (the callback is drawn in full where
    it sits on the branch)."""
    p = out.p
    t = Text("↩ ", p.custom)
    t.append("callback", p.custom + Style(bold=True))
    for bit in ev.facts + [when]:
        t.append(" · " + _field(bit), p.muted)
    if ev.message:
        t.append(" · " + _field(one_line(ev.message, 120)), p.fg)
    out.wrap(t, chrome=True)


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
                parts.append(json_compact(b.get("arguments")))
    for k in ("command", "output", "summary", "errorMessage"):
        if isinstance(msg.get(k), str):
            parts.append(msg[k])
    d = msg.get("details")
    if isinstance(d, dict) and isinstance(d.get("diff"), str):
        parts.append(d["diff"])
    return "\n".join(parts)


# ---------------------------------------------------------------------------- messages


def render_assistant(out: Out, msg: dict, results: list[tuple[int | None, dict]], key: str,
                     depth: int = 0, call_for: Callable[[int | None, dict], dict | str | None] | None = None,
                     callbacks_for: Callable[[str], list[tuple[str, AppEvent]]] | None = None,
                     notice: str | None = None) -> None:
    """Assistant content in order: a notice Pi shows above it (withheld reasoning,
    ``core.model.notices``), thinking (folded), Markdown text, tool calls each with its result
    (and the callbacks that resolved it later, from ``callbacks_for``); then the stop reason
    when it is not a normal one, a provider's error unwrapped (the raw text folded under it)."""
    p = out.p
    if notice:
        out.wrap(Text("⚠ " + clean(notice, block=True) + " (details in the raw entry: e)", p.warning),
                 chrome=True)
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
            n = len(text_lines(thinking))
            folded = out.fold(fkey, not out.toggled("thinking"), thinking)
            if out.ctx.text_mode:
                out.texts.append(thinking)
                continue
            _fold_line(out, fkey, folded, f"thinking ({n} line{'s' if n != 1 else ''})", p.thinking,
                       "(t)" if folded else "")
            if not folded:
                out.push("┊ ", p.faint)
                try:
                    out.markdown(thinking, p.thinking)
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
            if callbacks_for is not None and isinstance(tcid, str) and not out.ctx.text_mode:
                for when, ev in callbacks_for(tcid):
                    _callback_line(out, when, ev)
        elif bt == "image":
            _image_line(out, block)
        else:
            out.line(f"[{bt}] " + one_line(json_compact(block), 200), p.muted)
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
        error = provider_error(err if isinstance(err, str) else json_compact(err)) if err else None
        if error is not None:
            t.append(": ", p.error)
            t.append(clean(error.short, block=True), p.error)
        out.wrap(t)
        if error is not None and error.unwrapped:
            rkey = f"{key}:rawerror"
            folded = out.fold(rkey, True, error.raw)
            if out.ctx.text_mode:
                out.texts.append(error.raw)
            else:
                _fold_line(out, rkey, folded, "the error as the provider sent it", p.muted)
                if not folded:
                    out.push("  ", Style())
                    try:
                        _output_lines(out, error.raw, rkey + ":text", p.error)
                    finally:
                        out.pop()
    if not blocks and not err and stop not in ("error", "aborted", "length"):
        out.line(Text("(no content)", p.muted), chrome=True)


def render_tool_results(out: Out, results: list[tuple[int | None, dict]], key: str,
                        call_for: Callable[[int | None, dict], dict | str | None] | None = None,
                        depth: int = 0) -> None:
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
        "\n".join(json_compact(t) for t in added) if out.ctx.query else None
    folded = out.fold(key + ":sys", True, hay)

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
                size = len(value) if isinstance(value, str) else len(json_compact(value))
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
            _output_lines(out, content, key + ":content", p.fg, limit=10**9)
        for name, value in sections.items():
            if isinstance(value, str):
                out.line(Text(f"[{_field(name)}]", p.system), chrome=True)
                _output_lines(out, value, key + ":s:" + str(name), p.fg, limit=10**9)
        for tool in added:
            if isinstance(tool, dict):
                tt = Text(f"tool {_field(tool.get('name'))}: ", p.success)
                tt.append(clean(tool.get("description") or "", block=True), p.fg)
                out.wrap(tt)
    finally:
        out.pop()



def render_compaction(out: Out, parts: SummaryParts, key: str = "", right: Iterable[tuple] = ()) -> None:
    """A boundary: a rule, then the summary the model got instead of the history above."""
    p = out.p
    tb = parts.tokens_before
    label = f" ⇣ compaction · {fmt_tokens(tb)} tokens before " if tb is not None else " ⇣ compaction "
    if parts.by_extension:
        label += "(extension) "
    if not out.ctx.text_mode:
        head = Text("━━━", p.summary)
        head.append(label.rstrip(), p.summary + Style(bold=True))
        out.line(fit_line(out.inner, head, (), right, fill=("━", p.summary)), chrome=True)
    _summary_body(out, parts, key)


def render_branch_summary(out: Out, parts: SummaryParts, key: str = "") -> None:
    notes = [clean(parts.from_note.text, block=True)] if parts.from_note is not None else []
    if parts.by_extension:
        notes.append("by an extension")
    if notes:
        out.line(Text(" · ".join(notes), out.p.muted), chrome=True)
    _summary_body(out, parts, key)


def _summary_body(out: Out, parts: SummaryParts, key: str) -> None:
    """A summary's text, then what it kept and the files its history touched, then its usage."""
    p = out.p
    if parts.summary.strip():
        out.markdown(parts.summary)
    kept = parts.kept_note
    bits = [kept.text if kept else ""] + parts.files_text(SUMMARY_FILES_SHOWN) + [parts.checkpoint_text]
    bits = [b for b in bits if b]
    if bits and not out.ctx.text_mode:
        out.wrap(Text(clean(" · ".join(bits), block=True), p.muted), chrome=True)
    if parts.other_details is not None:
        render_json_body(out, parts.other_details, key + ":details")
    if parts.usage:
        out.line(Text("summary usage: " + " · ".join(parts.usage), p.muted), chrome=True)


def render_json_body(out: Out, value: Any, key: str, limit: int = CUT_LINES) -> None:
    """Compact pretty JSON, cut to a few lines."""
    _output_lines(out, json_pretty(value), key + ":json", out.p.muted, limit=limit)


def render_custom_entry(out: Out, data: Any, key: str) -> None:
    if data is None:
        out.line(Text("(no data)", out.p.muted), chrome=True)
        return
    render_json_body(out, data, key)


def render_message(out: Out, msg: dict, key: str, results: list[tuple[int | None, dict]] = (),
                   depth: int = 0, call_for: Callable[[int | None, dict], dict | str | None] | None = None
                   ) -> None:
    """The body of one message of any role (:data:`MESSAGE_RENDER`; an unknown role: its fields)."""
    role = msg.get("role")
    draw = MESSAGE_RENDER.get(role) if isinstance(role, str) else None
    (draw or _message_fields)(out, msg, key, list(results), depth, call_for)


# Each role's body, all with render_message's arguments (the results as a list).
def _message_content(out: Out, msg: dict, key: str, results: list, depth: int, call_for) -> None:
    render_content(out, msg.get("content"))


def _message_assistant(out: Out, msg: dict, key: str, results: list, depth: int, call_for) -> None:
    render_assistant(out, msg, results, key, depth, call_for)


def _message_tool_result(out: Out, msg: dict, key: str, results: list, depth: int, call_for) -> None:
    render_tool_results(out, [(None, msg)] + results, key, call_for, depth)


def _message_bash(out: Out, msg: dict, key: str, results: list, depth: int, call_for) -> None:
    render_bash_execution(out, msg, key)


def _message_system(out: Out, msg: dict, key: str, results: list, depth: int, call_for) -> None:
    render_system(out, msg, key)


def _message_branch_summary(out: Out, msg: dict, key: str, results: list, depth: int, call_for) -> None:
    render_branch_summary(out, summary_parts(None, msg), key)


def _message_compaction_summary(out: Out, msg: dict, key: str, results: list, depth: int, call_for) -> None:
    render_compaction(out, summary_parts(None, msg), key)


def _message_fields(out: Out, msg: dict, key: str, results: list, depth: int, call_for) -> None:
    render_json_body(out, {k: v for k, v in msg.items() if k not in ("role", "timestamp")}, key)


#: Each message role's body in the pane (every role in
#: :data:`~pitui.core.read.skeleton.MESSAGE_ROLES`: a new role is a row here and in the exports'
#: tables; tests/core/test_entry_kinds.py)
MESSAGE_RENDER = {
    "user": _message_content,
    "assistant": _message_assistant,
    "toolResult": _message_tool_result,
    "bashExecution": _message_bash,
    "custom": _message_content,
    "system": _message_system,
    "branchSummary": _message_branch_summary,
    "compactionSummary": _message_compaction_summary,
}


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
    label, kind = role_title(msg)
    style = getattr(p, "muted" if kind == "other" else kind)
    left = []
    if msg.get("role") == "assistant":
        model = model_label(msg)
        if model:
            left.append((model, p.muted, SHRINK))
        tl = msg.get("thinkingLevel")
        if tl and tl != "off":
            left.append((f"thinking {tl}", p.muted, GIVE_DETAIL))
        u = msg.get("usage")
        if isinstance(u, dict) and not compact:
            tot = u.get("totalTokens")
            tokens = fmt_tokens(tot) + " tok" if _num(tot) is not None else ""
            cost = fmt_cost(u.get("cost"))
            bits = (tokens + " " + cost).strip()
            if bits:
                # (the count gives way before the cost, which stays)
                left.append((bits, p.faint, GIVE_TOKENS, cost))
    elif msg.get("role") == "toolResult":
        label = f"tool result · {msg.get('toolName') or '?'}"
    elif msg.get("role") == "custom":
        inp = app_input(msg)
        if inp is not None:
            label = inp.title
            style = p.user if inp.kind == "agent" else p.custom
            left += [(f, p.muted) for f in inp.facts]
        if msg.get("display") is False:
            tags = list(tags) + [("hidden", p.muted + Style(italic=True))]
    elif msg.get("role") == "bashExecution" and msg.get("excludeFromContext"):
        tags = list(tags) + [("excluded from context", p.muted + Style(italic=True))]
    right = []
    if time:
        right.append((time, p.muted, GIVE_TIME))
    if entry_id:
        right.append((entry_id, p.faint, GIVE_ID))
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

