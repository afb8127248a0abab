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
                                 tool_args_summary, tool_state, usage_tokens)
from ...core.model.tool_kinds import tool_name
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
    palette = out.p
    missing, missing_style = "call not on this branch", palette.muted
    if isinstance(call, str):  # (a broken pairing, flagged: Pi sends such a result with no call)
        missing, missing_style, call = call, palette.warning, None
    if result is not None and result.get("pituiError"):
        out.mark_entry(result_entry)
        text = Text("⚠ damaged entry: ", palette.warning + Style(bold=True))
        text.append(clean(result["pituiError"], block=True), palette.warning)
        out.wrap(text)
        return
    name = tool_name(call, result)
    args = (call or {}).get("arguments")
    state = tool_state(result)
    out.mark_entry(result_entry)
    text = Text()
    text.append(state.glyph + " ", {"pending": palette.muted, "error": palette.error, "ok": palette.success}[state.name])
    text.append(_field(name), palette.tool + Style(bold=True))
    if call is not None:
        text.append("  ")
        text.append(_field(tool_args_summary(name, args)), palette.fg)
    else:
        text.append(f"  ({_field(missing)})", missing_style)
    if result is None:
        text.append("  no result", palette.muted)
    if out.ctx.text_mode:
        out.texts.append(text.plain)
    else:
        out.line(text)
    out.push("  ", Style())
    try:
        tool_args = args if isinstance(args, dict) else {}
        # Arguments worth showing in full: multi-line bash commands, written content.
        if name == "bash" and isinstance(tool_args.get("command"), str) and "\n" in tool_args["command"].strip():
            _output_lines(out, tool_args["command"], key + ":cmd", palette.muted, limit=3)
        if name == "write" and isinstance(tool_args.get("content"), str):
            path = str(tool_args.get("path") or tool_args.get("file_path") or "")
            _output_lines(out, tool_args["content"], key + ":content", None, syntax_path=path)
        if name == "edit" and result is None:
            diff = requested_edit(tool_args)
            if diff:
                _output_lines(out, diff, key + ":args", diff=True)
        if result is None:
            return
        _tool_result_body(out, name, tool_args, result_parts(name, result), key, depth)
    finally:
        out.pop()


def _tool_result_body(out: Out, name: str, args: dict, parts: ResultParts, key: str, depth: int) -> None:
    palette = out.p
    if parts.subagents is not None:
        _subagent(out, *parts.subagents, key, depth)
        if parts.text.strip():
            out.line(Text("output:", palette.muted), chrome=True)
            _output_lines(out, parts.text, key + ":out", palette.error if parts.is_error else palette.fg, markdown=True)
    elif parts.shows_diff:
        _output_lines(out, parts.diff or parts.patch, key + ":diff", diff=True, limit=CUT_LINES * 2)
    else:
        path = None
        if name == "read" and not parts.is_error:
            path = str(args.get("path") or args.get("file_path") or "") or None
        _output_lines(out, parts.text, key + ":out", palette.error if parts.is_error else palette.fg, syntax_path=path)
    for img in parts.images:
        _image_line(out, img)
    if parts.image_note:
        out.wrap(Text(f"⚠ {clean(parts.image_note, block=True)}", palette.warning), chrome=False)
    if parts.truncated:
        text = Text("⚠ output truncated", palette.warning)
        if parts.kept_lines:
            text.append(f": {parts.kept_lines[0]:g} of {parts.kept_lines[1]:g} lines kept", palette.warning)
        if parts.full_output_path is not None:
            text.append(" · full output: ", palette.muted)
            text.append(_field(parts.full_output_path), palette.link)
        out.wrap(text, chrome=False)
    if parts.usage is not None:
        _usage_line(out, parts.usage, "tool model usage")


def _usage_line(out: Out, usage: dict, what: str) -> None:
    palette = out.p
    text = Text(f"{what}: {fmt_tokens(usage_tokens(usage))} tokens", palette.muted)
    cost = fmt_cost(usage.get("cost"))
    if cost:
        text.append(f" · {cost}", palette.muted)
    out.line(text, chrome=True)


# ---------------------------------------------------------------------------- subagents


def _subagent(out: Out, mode: str, runs: list[SubagentRun], key: str, depth: int) -> None:
    palette = out.p
    if mode:
        out.line(Text(f"{_field(mode)} run · {len(runs)} agent{'s' if len(runs) != 1 else ''}", palette.muted),
                 chrome=True)
    for index, run in enumerate(runs):
        rkey = f"{key}:sub{index}"
        agent = _field(run.agent)
        hay = run.task + "\n" + "\n".join(_message_haystack(message) for message in run.messages) if out.ctx.query else None
        folded = out.fold(rkey, not out.toggled("tool_output"), hay)
        text = Text()
        text.append("▸ " if folded else "▾ ", palette.muted)
        if run.step is not None:
            text.append(f"{run.step:g}. ", palette.muted)
        text.append(agent, palette.tool + Style(bold=True))
        if run.status:
            text.append("  ")
            text.append(_field(run.status), {"ok": palette.success, "error": palette.error}.get(run.state, palette.muted))
        if run.model:
            text.append(f"  {_field(run.model)}", palette.muted)
        # a one-line header: the cache's tokens left out for width
        bits = run.bits(cache=False)
        if bits:
            text.append("  " + " · ".join(bits), palette.muted)
        if out.ctx.text_mode:
            out.texts.append(agent)
        else:
            out.line(text, chrome=True, action=("fold", rkey))
        out.push("  ", Style())
        try:
            if run.task:
                if folded:
                    task = cut_words(one_line(clean(run.task, block=True), 400), out.inner - 6)
                    out.line(Text("task: ", palette.muted) + Text(task, palette.fg))
                else:
                    grid = Table.grid(padding=(0, 1))
                    grid.add_column(no_wrap=True)
                    grid.add_column(overflow="fold")
                    grid.add_row(Text("task:", palette.muted), Text(clean(run.task, block=True), palette.fg))
                    out.render(grid, run.task)
            if not folded:
                out.push("│ ", palette.faint)
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
    palette = out.p
    text = Text("↩ ", palette.custom)
    text.append("callback", palette.custom + Style(bold=True))
    for bit in ev.facts + [when]:
        text.append(" · " + _field(bit), palette.muted)
    if ev.message:
        text.append(" · " + _field(one_line(ev.message, 120)), palette.fg)
    out.wrap(text, chrome=True)


def _message_haystack(msg: dict) -> str:
    """All the text of one message, for deciding whether a fold holds a search hit."""
    parts = []
    content = msg.get("content")
    if isinstance(content, str):
        parts.append(content)
    elif isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            for key in ("text", "thinking"):
                if isinstance(block.get(key), str):
                    parts.append(block[key])
            if block.get("type") == "toolCall":
                parts.append(json_compact(block.get("arguments")))
    for key in ("command", "output", "summary", "errorMessage"):
        if isinstance(msg.get(key), str):
            parts.append(msg[key])
    details = msg.get("details")
    if isinstance(details, dict) and isinstance(details.get("diff"), str):
        parts.append(details["diff"])
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
    palette = out.p
    if notice:
        out.wrap(Text("⚠ " + clean(notice, block=True) + " (details in the raw entry: e)", palette.warning),
                 chrome=True)
    content = msg.get("content")
    by_call: dict[str, tuple[int | None, dict]] = {}
    for entry, result in results:
        tcid = result.get("toolCallId")
        if isinstance(tcid, str) and tcid not in by_call:
            by_call[tcid] = (entry, result)
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
                    out.line(Text("▪ thinking (redacted)", palette.thinking), chrome=True)
                continue
            if not thinking.strip():
                continue
            thinking = clean(thinking, block=True)
            count = len(text_lines(thinking))
            folded = out.fold(fkey, not out.toggled("thinking"), thinking)
            if out.ctx.text_mode:
                out.texts.append(thinking)
                continue
            _fold_line(out, fkey, folded, f"thinking ({count} line{'s' if count != 1 else ''})", palette.thinking,
                       "(t)" if folded else "")
            if not folded:
                out.push("┊ ", palette.faint)
                try:
                    out.markdown(thinking, palette.thinking)
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
            out.line(f"[{bt}] " + one_line(json_compact(block), 200), palette.muted)
    # Results of this block that answer no call of this message.
    for entry, result in results:
        tcid = result.get("toolCallId")
        if isinstance(tcid, str) and tcid in used:
            continue
        call = call_for(entry, result) if call_for else None
        render_tool_section(out, call, result, f"{key}:{tcid}:orphan", entry, depth)
    stop = msg.get("stopReason")
    err = msg.get("errorMessage")
    if stop in ("error", "aborted", "length") or err:
        if stop == "aborted":
            line = Text("⊘ aborted", palette.warning)
        elif stop == "length":
            line = Text("⚠ stopped: output length limit reached", palette.warning)
        else:
            line = Text(f"✗ {stop or 'error'}", palette.error + Style(bold=True))
        error = provider_error(err if isinstance(err, str) else json_compact(err)) if err else None
        if error is not None:
            line.append(": ", palette.error)
            line.append(clean(error.short, block=True), palette.error)
        out.wrap(line)
        if error is not None and error.unwrapped:
            rkey = f"{key}:rawerror"
            folded = out.fold(rkey, True, error.raw)
            if out.ctx.text_mode:
                out.texts.append(error.raw)
            else:
                _fold_line(out, rkey, folded, "the error as the provider sent it", palette.muted)
                if not folded:
                    out.push("  ", Style())
                    try:
                        _output_lines(out, error.raw, rkey + ":text", palette.error)
                    finally:
                        out.pop()
    if not blocks and not err and stop not in ("error", "aborted", "length"):
        out.line(Text("(no content)", palette.muted), chrome=True)


def render_tool_results(out: Out, results: list[tuple[int | None, dict]], key: str,
                        call_for: Callable[[int | None, dict], dict | str | None] | None = None,
                        depth: int = 0) -> None:
    """Tool results without their assistant message above them (orphans)."""
    for entry, result in results:
        call = call_for(entry, result) if call_for else None
        render_tool_section(out, call, result, f"{key}:{result.get('toolCallId')}", entry, depth)


def render_bash_execution(out: Out, msg: dict, key: str) -> None:
    palette = out.p
    cmd = clean(msg.get("command") or "", block=True)
    text = Text("$ ", palette.tool + Style(bold=True))
    text.append(cmd, palette.fg + Style(bold=True))
    out.wrap(text)
    output = msg.get("output")
    if isinstance(output, str):
        _output_lines(out, output, key + ":out", palette.fg)
    bits = Text()
    code = msg.get("exitCode")
    if msg.get("cancelled"):
        bits.append("⊘ cancelled", palette.warning)
    elif _num(code) is not None:
        bits.append(f"exit {code:g}", palette.success if code == 0 else palette.error + Style(bold=True))
    else:
        bits.append("exit ?", palette.muted)
    if msg.get("truncated"):
        bits.append("  ⚠ output truncated", palette.warning)
    if isinstance(msg.get("fullOutputPath"), str):
        bits.append(" · full output: ", palette.muted)
        bits.append(_field(msg["fullOutputPath"]), palette.link)
    out.wrap(bits, chrome=True)


def render_system(out: Out, msg: dict, key: str) -> None:
    """Prompt sections by name with sizes (removed ones marked), tool changes; folded."""
    palette = out.p
    sections = msg.get("sections") if isinstance(msg.get("sections"), dict) else {}
    content = text_of(msg.get("content")) if not isinstance(msg.get("content"), str) else msg["content"]
    added = msg.get("toolsAdded") if isinstance(msg.get("toolsAdded"), list) else []
    removed = msg.get("toolsRemoved") if isinstance(msg.get("toolsRemoved"), list) else []
    hay = content + "\n" + "\n".join(f"{key}\n{value}" for key, value in sections.items() if isinstance(value, str)) + "\n" + \
        "\n".join(json_compact(tool) for tool in added) if out.ctx.query else None
    folded = out.fold(key + ":sys", True, hay)

    def tool_names(tools: list) -> str:
        return ", ".join(_field(tool.get("name")) if isinstance(tool, dict) else _field(tool) for tool in tools)

    if sections:
        text = Text("sections: ", palette.muted)
        first = True
        for name, value in sections.items():
            if not first:
                text.append(" · ", palette.faint)
            first = False
            if value is None:
                text.append(_field(name), palette.error)
                text.append(" removed", palette.muted)
            else:
                text.append(_field(name), palette.system)
                size = len(value) if isinstance(value, str) else len(json_compact(value))
                text.append(f" {fmt_bytes(size).replace(' B', ' chars') if size < 1024 else fmt_tokens(size) + ' chars'}", palette.muted)
        if out.ctx.text_mode:
            out.texts.append(" ".join(map(_field, sections.keys())))
        else:
            out.wrap(text)
    if added:
        text = Text("tools added: ", palette.muted)
        text.append(tool_names(added), palette.success)
        out.wrap(text)
    if removed:
        text = Text("tools removed: ", palette.muted)
        text.append(tool_names(removed), palette.error)
        out.wrap(text)
    if out.ctx.text_mode:
        if content:
            out.texts.append(content)
        for section in sections.values():
            if isinstance(section, str):
                out.texts.append(section)
        for tool in added:
            if isinstance(tool, dict) and isinstance(tool.get("description"), str):
                out.texts.append(tool["description"])
        return
    has_more = bool(content.strip()) or any(isinstance(section, str) and section for section in sections.values()) or any(
        isinstance(tool, dict) and tool.get("description") for tool in added)
    if not has_more:
        if not sections and not added and not removed:
            out.line(Text("(empty)", palette.muted), chrome=True)
        return
    _fold_line(out, key + ":sys", folded, "prompt text" if folded else "prompt text", palette.muted,
               "(⏎ or click)" if folded else "")
    if folded:
        return
    out.push("┊ ", palette.faint)
    try:
        if content.strip():
            _output_lines(out, content, key + ":content", palette.fg, limit=10**9)
        for name, value in sections.items():
            if isinstance(value, str):
                out.line(Text(f"[{_field(name)}]", palette.system), chrome=True)
                _output_lines(out, value, key + ":s:" + str(name), palette.fg, limit=10**9)
        for tool in added:
            if isinstance(tool, dict):
                tt = Text(f"tool {_field(tool.get('name'))}: ", palette.success)
                tt.append(clean(tool.get("description") or "", block=True), palette.fg)
                out.wrap(tt)
    finally:
        out.pop()



def render_compaction(out: Out, parts: SummaryParts, key: str = "", right: Iterable[tuple] = ()) -> None:
    """A boundary: a rule, then the summary the model got instead of the history above."""
    palette = out.p
    tb = parts.tokens_before
    label = f" ⇣ compaction · {fmt_tokens(tb)} tokens before " if tb is not None else " ⇣ compaction "
    if parts.by_extension:
        label += "(extension) "
    if not out.ctx.text_mode:
        head = Text("━━━", palette.summary)
        head.append(label.rstrip(), palette.summary + Style(bold=True))
        out.line(fit_line(out.inner, head, (), right, fill=("━", palette.summary)), chrome=True)
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
    palette = out.p
    if parts.summary.strip():
        out.markdown(parts.summary)
    kept = parts.kept_note
    bits = [kept.text if kept else ""] + parts.files_text(SUMMARY_FILES_SHOWN) + [parts.checkpoint_text]
    bits = [bit for bit in bits if bit]
    if bits and not out.ctx.text_mode:
        out.wrap(Text(clean(" · ".join(bits), block=True), palette.muted), chrome=True)
    if parts.other_details is not None:
        render_json_body(out, parts.other_details, key + ":details")
    if parts.usage:
        out.line(Text("summary usage: " + " · ".join(parts.usage), palette.muted), chrome=True)


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
    render_json_body(out, {key: value for key, value in msg.items() if key not in ("role", "timestamp")}, key)


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
    start = 0
    count = len(msgs)
    while start < count:
        message = msgs[start]
        if not isinstance(message, dict):
            start += 1
            continue
        if message.get("role") == "assistant":
            res = []
            end = start + 1
            while end < count and isinstance(msgs[end], dict) and msgs[end].get("role") == "toolResult":
                res.append(msgs[end])
                end += 1
            groups.append((message, res))
            start = end
        elif message.get("role") == "toolResult":
            res = []
            end = start
            while end < count and isinstance(msgs[end], dict) and msgs[end].get("role") == "toolResult":
                res.append(msgs[end])
                end += 1
            groups.append((res[0], res[1:]))
            start = end
        else:
            groups.append((message, []))
            start += 1
    return groups


def message_header(out: Out, msg: dict, *, time: str = "", entry_id: str = "", tags=(), compact: bool = False) -> None:
    if out.ctx.text_mode:
        return
    palette = out.p
    label, kind = role_title(msg)
    style = getattr(palette, "muted" if kind == "other" else kind)
    left = []
    if msg.get("role") == "assistant":
        model = model_label(msg)
        if model:
            left.append((model, palette.muted, SHRINK))
        tl = msg.get("thinkingLevel")
        if tl and tl != "off":
            left.append((f"thinking {tl}", palette.muted, GIVE_DETAIL))
        usage = msg.get("usage")
        if isinstance(usage, dict) and not compact:
            tot = usage.get("totalTokens")
            tokens = fmt_tokens(tot) + " tok" if _num(tot) is not None else ""
            cost = fmt_cost(usage.get("cost"))
            bits = (tokens + " " + cost).strip()
            if bits:
                # (the count gives way before the cost, which stays)
                left.append((bits, palette.faint, GIVE_TOKENS, cost))
    elif msg.get("role") == "toolResult":
        label = f"tool result · {msg.get('toolName') or '?'}"
    elif msg.get("role") == "custom":
        inp = app_input(msg)
        if inp is not None:
            label = inp.title
            style = palette.user if inp.kind == "agent" else palette.custom
            left += [(fact, palette.muted) for fact in inp.facts]
        if msg.get("display") is False:
            tags = list(tags) + [("hidden", palette.muted + Style(italic=True))]
    elif msg.get("role") == "bashExecution" and msg.get("excludeFromContext"):
        tags = list(tags) + [("excluded from context", palette.muted + Style(italic=True))]
    right = []
    if time:
        right.append((time, palette.muted, GIVE_TIME))
    if entry_id:
        right.append((entry_id, palette.faint, GIVE_ID))
    render_header(out, label, style + Style(bold=True), left, right, tags)


def render_messages(out: Out, msgs: list[dict], key: str, depth: int) -> None:
    """A nested conversation (a subagent's messages) with compact headers."""
    for group, (message, res) in enumerate(group_messages(msgs)):
        gkey = f"{key}/{group}"
        if out.ctx.text_mode:
            render_message(out, message, gkey, [(None, result) for result in res], depth)
            continue
        ts = message.get("timestamp")
        message_header(out, message, time=fmt_time(ts) if ts else "", compact=True)
        out.push("  ", Style())
        try:
            render_message(out, message, gkey, [(None, result) for result in res], depth)
        finally:
            out.pop()

