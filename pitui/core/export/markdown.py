"""``pitui export --format markdown``: one branch as a readable transcript for sharing.

The whole branch from its root to the chosen leaf: user and assistant text, thinking
(folded in a ``<details>``), each tool call with its result, bash runs, custom messages,
system prompt changes, and compactions marked as boundaries with the history before them
still present. Nothing is left out silently; very long tool output is kept whole.

The transcript is for people (and is often printed to a terminal): every control
character from the file is a visible stand-in (``core.text.visible``), and the one-line
facts at the top (title, id, cwd, path) cannot break into extra lines.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable, NamedTuple

from ..model.context import context_entry_indices
from ..model.files import files_touched
from ..model.stats import tool_calls
from ..model.parts import cap_first, image_facts, model_label, result_parts, role_title, tool_args_summary
from ..model.tool_kinds import tool_name
from ..model.entry_parts import (CUSTOM_MESSAGE, AppEvent, AppInput, Marker, app_event, app_input, callbacks_by_call,
                                 SummaryParts, marker, summary_parts)
from ..model.notices import new_reasoning_drop, provider_error
from ..read.session import Session
from ..model.summary import one_line, text_of
from ..numbers import fmt_bytes
from ..timeutil import iso_to_ms, ms_to_iso
from ..text import json_compact, json_pretty, visible

__all__ = ["export_markdown"]

_BACKTICKS_RE = re.compile("`+")


def _longest_backticks(text: str) -> int:
    return max(map(len, _BACKTICKS_RE.findall(text)), default=0)


def _fence(text: str, lang: str = "") -> str:
    """A fenced block whose fence is longer than any backtick run inside ``text``."""
    fence = "`" * max(3, _longest_backticks(text) + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def when_utc(value: Any) -> str:
    """``2026-11-16 09:06:12 UTC`` from an ISO string or epoch milliseconds."""
    ms = iso_to_ms(value)
    if math.isnan(ms):
        return ""
    iso = ms_to_iso(ms) or ""
    return iso[:19].replace("T", " ") + " UTC"


def _code(text: str) -> str:
    """An inline code span holding ``text`` whatever backticks it has."""
    ticks = "`" * (_longest_backticks(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _marker_md(marker: Marker) -> str:
    """A marker as one italic line, what was set and the entries named as code."""
    return f"*{cap_first(_pieces_md(marker))}*"


def _pieces_md(marker: Marker) -> str:
    return "".join(_code(text) if kind in ("value", "ref") else text for text, kind in marker.pieces)


def _image_md(block: dict) -> str:
    img = image_facts(block)
    dims = f"{img.dims[0]}×{img.dims[1]}, " if img.dims else ""
    return f"*[image: {img.mime}, {dims}{fmt_bytes(img.size)}]*"


def _content_md(content: Any) -> list[str]:
    out = []
    if isinstance(content, str):
        if content.strip():
            out.append(content)
        return out
    if not isinstance(content, list):
        return out
    for block in content:
        if not isinstance(block, dict):
            continue
        bt = block.get("type")
        if bt == "text" and isinstance(block.get("text"), str):
            out.append(block["text"])
        elif bt == "image":
            out.append(_image_md(block))
    return out


def export_markdown(session: Session, leaf: int | None = None) -> str:
    leaf = session.leaf if leaf is None else leaf
    path, in_context = context_entry_indices(session, leaf) if leaf >= 0 else ([], [])
    in_ctx = set(in_context)
    title = session.name or _first_user_text(session, path) or "Pi session"
    lines: list[str] = [f"# {visible(title)}", ""]
    lines.append(f"- **Session:** `{visible(session.id)}`")
    if session.cwd:
        lines.append(f"- **Working directory:** `{visible(session.cwd)}`")
    created = when_utc(session.header.get("timestamp"))
    if created:
        lines.append(f"- **Created:** {created}")
    if leaf >= 0:
        lines.append(f"- **Branch:** {len(path)} entries, ending at `{visible(session.ids[leaf])}`")
    lines.append(f"- **File:** `{visible(session.path)}`")
    lines += ["", "---", ""]
    # tool results keyed by call id, so calls are shown with their results
    results: dict[str, int] = {}
    for index in path:
        if session.types[index] == "message" and session.roles[index] == "toolResult":
            tcid = (session.message(index) or {}).get("toolCallId")
            if isinstance(tcid, str):
                results[tcid] = index
    shown_results: set[int] = set()
    compaction_seen = any(session.types[index] == "compaction" for index in path)
    outside_marked = False
    for index in path:
        if compaction_seen and index not in in_ctx and not outside_marked:
            lines += ["> *The entries below, up to the compaction, are outside the model's context "
                      "at the end of this branch (summarised by the compaction).*", ""]
            outside_marked = True
        if index in shown_results:
            continue
        lines += _entry_md(session, index, results, shown_results)
    lines += _files_md(session, path)
    return visible("\n".join(lines).rstrip(), block=True) + "\n"


def _files_md(session: Session, path: list[int]) -> list[str]:
    """The files the branch touched, a short section at the end (none when it touched none)."""
    touched = files_touched(tool_calls(session, path), session.cwd)
    if not touched:
        return []
    lines = ["", "---", "", "## Files touched", "",
             "*By this branch's calls: `ls`, `grep` and `find` count as searched; failed calls are left out.*", ""]
    lines += [f"- {_code(visible(file.path))}: {file.words}" for file in touched]
    return lines


def _first_user_text(session: Session, path: list[int]) -> str:
    for index in path:
        if session.types[index] == "message" and session.roles[index] == "user":
            text = text_of((session.message(index) or {}).get("content")).strip()
            if text:
                return text.splitlines()[0][:80]
    return ""


class _Entry(NamedTuple):
    """What one entry's Markdown is made from: the session, the entry ``index`` (``decoded``), its
    label tag and time, and the branch's tool results by call (``shown``: those already
    written under their call)."""

    session: Session
    index: int
    decoded: dict
    tag: str
    when: str
    results: dict[str, int]
    shown: set[int]


def _entry_md(session: Session, index: int, results: dict[str, int], shown_results: set[int]) -> list[str]:
    """Entry ``index``'s lines, by its type (:data:`ENTRY_MD`)."""
    obj = session.entry(index)
    kind = obj.get("type")
    label = session.label_of(index)
    entry = _Entry(session, index, obj, f" `[{label}]`" if label else "", when_utc(obj.get("timestamp")), results, shown_results)
    write = ENTRY_MD.get(kind) if isinstance(kind, str) else None
    return (write or _unknown_md)(entry)


def _unknown_md(entry: _Entry) -> list[str]:
    return [f"### [{entry.decoded.get('type')}]", "", _fence(json_pretty(entry.decoded), "json"), ""]


def _message_md(entry: _Entry) -> list[str]:
    """A ``message`` entry, by its message's role (:data:`MESSAGE_MD`)."""
    message = entry.decoded.get("message") if isinstance(entry.decoded.get("message"), dict) else {}
    role = message.get("role")
    write = MESSAGE_MD.get(role) if isinstance(role, str) else None
    return (write or _raw_message_md)(entry, message)


def _raw_message_md(entry: _Entry, message: dict) -> list[str]:
    """A message of a role not written otherwise: its fields as JSON."""
    return [f"### [{message.get('role')}]", "", _fence(json_pretty(message), "json"), ""]


def _user_md(entry: _Entry, message: dict) -> list[str]:
    return [f"## {cap_first(role_title(message)[0])}{entry.tag}", f"*{entry.when}*", ""] + _content_md(message.get("content")) + [""]


def _assistant_md(entry: _Entry, message: dict) -> list[str]:
    session = entry.session
    model = model_label(message)
    out = [f"## {cap_first(role_title(message)[0])}{entry.tag}", f"*{entry.when} · {model}*", ""]
    notice = new_reasoning_drop(session, entry.index)
    if notice:
        out += [f"> ⚠ {notice}", ""]
    content = message.get("content") if isinstance(message.get("content"), list) else []
    for block in content:
        if not isinstance(block, dict):
            continue
        bt = block.get("type")
        if bt == "thinking":
            thinking = str(block.get("thinking") or "")
            if thinking.strip() or block.get("redacted"):
                out += ["<details><summary>Thinking</summary>", "", thinking or "*(redacted)*", "", "</details>", ""]
        elif bt == "text" and isinstance(block.get("text"), str):
            out += [block["text"], ""]
        elif bt == "toolCall":
            name = tool_name(block, None)
            out += [f"**Tool call: {name}** {_code(tool_args_summary(name, block.get('arguments'), limit=300))}",
                    "", _fence(json_pretty(block.get("arguments")), "json"), ""]
            result = entry.results.get(block.get("id")) if isinstance(block.get("id"), str) else None
            if result is not None:
                entry.shown.add(result)
                out += _result_md(session, result)
            if isinstance(block.get("id"), str):
                for index, ev in callbacks_by_call(session).get(block["id"], ()):
                    out += [_callback_md(ev, when_utc(session.timestamps[index])), ""]
    stop = message.get("stopReason")
    if stop in ("error", "aborted", "length"):
        msg = message.get("errorMessage")
        error = provider_error(msg if isinstance(msg, str) else json_compact(msg)) if msg else None
        out += [f"> **Stopped: {stop}**" + (f": {error.short}" if error else ""), ""]
        if error is not None and error.unwrapped:
            out += ["<details><summary>The error as the provider sent it</summary>", "",
                    _fence(error.raw), "", "</details>", ""]
    return out


def _tool_result_md(entry: _Entry, message: dict) -> list[str]:
    return _result_md(entry.session, entry.index)


def _bash_md(entry: _Entry, message: dict) -> list[str]:
    code = message.get("exitCode")
    out = [f"## {cap_first(role_title(message)[0])}{entry.tag}", f"*{entry.when}* · exit {code if code is not None else '?'}"
           + (" · cancelled" if message.get("cancelled") else ""), "",
           _fence(f"$ {message.get('command', '')}\n{message.get('output', '')}".rstrip(), "console"), ""]
    if message.get("truncated"):
        out += [f"*Output truncated; full output in `{message.get('fullOutputPath', '?')}`.*", ""]
    return out


def _system_message_md(entry: _Entry, message: dict) -> list[str]:
    return [f"### {cap_first(role_title(message)[0])}", ""] + _system_md(message) + [""]


def _custom_md(entry: _Entry, message: dict) -> list[str]:
    """An extension's message (a ``custom_message`` entry, or a message of role ``custom``
    as ``message``): a Pi-based app's input, else the message."""
    inp = app_input(message)
    if inp is not None:
        return _app_input_md(inp, message, entry.tag, entry.when)
    return ([f"### {cap_first(CUSTOM_MESSAGE)} {_code(str(message.get('customType') or 'custom'))}{entry.tag}", ""]
            + _content_md(message.get("content")) + [""])


def _compaction_md(entry: _Entry) -> list[str]:
    sp = summary_parts(entry.session, entry.decoded)
    tb = f" ({sp.tokens_before:,.0f} tokens before)" if sp.tokens_before is not None else ""
    return ["---", "", f"### ✂ Compaction{entry.tag}{tb}", f"*{entry.when}*", ""] + _summary_md(sp) + ["---", ""]


def _branch_summary_md(entry: _Entry) -> list[str]:
    sp = summary_parts(entry.session, entry.decoded)
    return [f"### Branch summary{entry.tag}", f"*{entry.when}*", ""] + _summary_md(sp)


def _custom_message_md(entry: _Entry) -> list[str]:
    return _custom_md(entry, entry.decoded)


def _custom_entry_md(entry: _Entry) -> list[str]:
    """An extension's own entry: a Pi-based app's event; else bookkeeping, not written."""
    ev = app_event(entry.decoded)
    return _app_event_md(ev, entry.tag, entry.when) if ev is not None else []


def _marker_entry_md(entry: _Entry) -> list[str]:
    return [_marker_md(marker(entry.session, entry.decoded)), ""]


def _bookkeeping_md(entry: _Entry) -> list[str]:
    return []  # shown as labels, the title or the stats elsewhere


#: Each entry type's lines (every type in :data:`~pitui.core.read.skeleton.ENTRY_TYPES`: a new
#: type is a row here, in the HTML export's table and in the pane's; tests/core/test_entry_kinds.py)
ENTRY_MD: dict[str, Callable[[_Entry], list[str]]] = {
    "message": _message_md,
    "compaction": _compaction_md,
    "branch_summary": _branch_summary_md,
    "custom_message": _custom_message_md,
    "custom": _custom_entry_md,
    "model_change": _marker_entry_md,
    "thinking_level_change": _marker_entry_md,
    "context_edit": _marker_entry_md,
    "label": _bookkeeping_md,
    "session_info": _bookkeeping_md,
    "usage": _bookkeeping_md,
    "stream_event": _marker_entry_md,
}

#: Each message role's lines (every role in :data:`~pitui.core.read.skeleton.MESSAGE_ROLES`)
MESSAGE_MD: dict[str, Callable[[_Entry, dict], list[str]]] = {
    "user": _user_md,
    "assistant": _assistant_md,
    "toolResult": _tool_result_md,
    "bashExecution": _bash_md,
    "custom": _custom_md,
    "system": _system_message_md,
    # (messages Pi makes in memory of summary entries, not written to a file as messages)
    "branchSummary": _raw_message_md,
    "compactionSummary": _raw_message_md,
}


def _app_input_md(inp: AppInput, entry: dict, tag: str, when: str) -> list[str]:
    """Input another agent wrote, as a user message from that agent; a callback's input."""
    facts = inp.facts + (["hidden in the app (display: false)"] if entry.get("display") is False else [])
    if inp.from_session:
        facts.append(f"from session {_code(inp.from_session)}")
    level = "##" if inp.kind == "agent" else "###"
    return [f"{level} {cap_first(inp.title)}{tag}", f"*{' · '.join([when] + facts)}*", ""] + _content_md(entry.get("content")) + [""]


def _app_event_md(ev: AppEvent, tag: str, when: str) -> list[str]:
    """An interrupt as a marker line; a callback with what it answered; another event's payload."""
    if ev.marker is not None:
        return [_marker_md(ev.marker), ""]
    facts = ([_code(ev.event_type)] if ev.title == "app event" else []) + ev.facts
    out = [f"### {cap_first(ev.title)}{tag}", f"*{' · '.join([when] + facts)}*", ""]
    if ev.event_type == "agent_callback":
        if ev.call_id:
            out += [f"*Resolves the call {_code(ev.call_id)}.*", ""]
        if ev.message:
            out += [ev.message, ""]
        if ev.from_session:
            out += [f"*From session {_code(ev.from_session)}.*", ""]
    else:
        out += [_fence(json_pretty(ev.payload), "json"), ""]
    return out


def _callback_md(ev: AppEvent, when: str) -> str:
    """Under a call: a callback that resolved it later."""
    text = f": {one_line(ev.message, 200)}" if ev.message else ""
    return f"↩ *callback · {' · '.join(ev.facts + [when])}*{text}"


def _summary_md(sp: SummaryParts) -> list[str]:
    """A summary's text, then (in italics) its branch, what it kept, the files its history
    touched and its usage, ids and paths in code."""
    out = [sp.summary, ""] if sp.summary.strip() else []
    notes = ["by an extension"] if sp.by_extension else []
    notes += [_pieces_md(note) for note in (sp.from_note, sp.kept_note) if note is not None]
    for word, files in sp.files:
        notes.append(f"{word}: " + ", ".join(_code(file) for file in files))
    if sp.checkpoint_text:
        notes.append(sp.checkpoint_text)
    if sp.usage:
        notes.append("summary usage: " + " · ".join(sp.usage))
    if notes:
        out += ["*" + " · ".join(notes) + "*", ""]
    if sp.other_details is not None:
        out += [_fence(json_pretty(sp.other_details), "json"), ""]
    return out


def _result_md(session: Session, index: int) -> list[str]:
    message = session.message(index) or {}
    name = tool_name(None, message)
    parts = result_parts(name, message)
    head = f"**Result** ({name})" + (" — **error**" if parts.is_error else "")
    out = [head, ""]
    if parts.subagents is not None and parts.text.strip():
        out += [parts.text, ""]  # (a model's reply: Markdown, as the pane draws it)
    elif parts.text or not parts.images:
        out += [_fence(parts.text or "(no output)"), ""]
    out += [_image_md(img) for img in parts.images] + ([""] if parts.images else [])
    if parts.diff or parts.patch:
        out += [_fence(parts.diff or parts.patch, "diff"), ""]
    if parts.image_note:
        out += [f"*⚠ {parts.image_note}.*", ""]
    if parts.truncated:
        note = "*Output truncated"
        if parts.kept_lines:
            note += f": {parts.kept_lines[0]:g} of {parts.kept_lines[1]:g} lines kept"
        if parts.full_output_path is not None:
            note += f"; full output in `{parts.full_output_path}`"
        out += [note + ".*", ""]
    if parts.subagents is not None:
        for number, run in enumerate(parts.subagents[1], 1):
            out += [f"<details><summary>Subagent {number}: {run.agent} ({run.status or '?'})</summary>", "",
                    f"**Task:** {run.task}", ""]
            for msg in run.messages:
                if msg.get("role") in ("assistant", "user"):
                    txt = text_of(msg.get("content")).strip()
                    if txt:
                        out += [f"*{msg['role']}:* {txt}", ""]
            out += ["</details>", ""]
    return out


def _system_md(message: dict) -> list[str]:
    out = []
    content = message.get("content")
    if isinstance(content, str) and content.strip():
        out.append(_fence(content))
    sections = message.get("sections")
    if isinstance(sections, dict):
        for name, body in sections.items():
            out.append(f"- section `{name}`: " + ("removed" if body is None else f"{len(str(body)):,} chars"))
    for key, word in (("toolsAdded", "added"), ("toolsRemoved", "removed")):
        tools = message.get(key)
        if isinstance(tools, list) and tools:
            names = ", ".join(f"`{tool.get('name')}`" if isinstance(tool, dict) else f"`{tool}`" for tool in tools)
            out.append(f"- tools {word}: {names}")
    return out
