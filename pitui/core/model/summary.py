"""One-line summaries of entries, for tree rows, search hits and exports.

Plain text only: a ``kind`` token says what the entry is, and the UI decides how that
looks. Formats follow Pi's ``/tree`` (``user: …``, ``[bash: cmd]``, ``[compaction: 42k
tokens]`` …) with a few additions Pi lacks (system prompts, subagent runs, usage).
"""

from __future__ import annotations

import os
from typing import Any, Callable, NamedTuple

import orjson

from ..read.session import Session
from ..read.skeleton import F_DAMAGED
from ..text import visible

__all__ = ["Summary", "summarize", "text_of", "format_tool_call", "tool_call_for_result", "one_line", "cut_words",
           "shorten_home", "shown_path"]


# (a NamedTuple rather than a frozen dataclass: several times quicker to make as this module
# loads, before the first screen: benchmarks/startup_budget.py)
class Summary(NamedTuple):
    kind: str  # user assistant tool tool-error bash compaction branch-summary model thinking label
    #          title system context-edit custom custom-message usage unknown damaged
    prefix: str  # "user: ", "assistant: ", "[branch summary]: " ... (may be "")
    text: str  # the rest of the line
    dim: bool = False  # bookkeeping entries and muted states

    @property
    def line(self) -> str:
        return self.prefix + self.text


def one_line(text: str, limit: int = 200) -> str:
    """``text`` as one line of at most ``limit`` characters, safe to show: line breaks and
    tabs as spaces, every other control character as a visible stand-in (``visible``); a
    longer one ends in ``…`` (a cap on characters: the screen cuts to its width in cells)."""
    text = text.replace("\r", "").replace("\n", " ").replace("\t", " ").strip()
    return visible(text if len(text) <= limit else text[: limit - 1] + "…")


def cut_words(text: str, limit: int, width: Callable[[str], int] = len) -> str:
    """``text`` in at most ``limit`` columns: whole when it fits, else cut after its last whole
    word that fits with ``…`` (mid-word only when that would keep less than half).
    ``width`` measures a text (the UI gives terminal cells; characters by default)."""
    if width(text) <= limit:
        return text
    if limit <= 1:
        return "…"[:max(limit, 0)]
    room = limit - 1  # (the ellipsis)
    used = 0
    end = 0
    for ch in text:
        char_width = width(ch)
        if used + char_width > room:
            break
        used += char_width
        end += 1
    head = text[:end]
    space = head.rfind(" ")
    if text[end:end + 1] != " " and space > 0 and width(head[:space]) >= room // 2:
        head = head[:space]
    return head.rstrip() + "…"


def text_of(content: Any) -> str:
    """The text blocks of a content value (string or block list), concatenated."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                parts.append(text)
    return "".join(parts)


def shorten_home(path: str) -> str:
    home = os.environ.get("HOME") or ""
    if home and (path == home or path.startswith(home.rstrip("/") + "/")):
        rel = path[len(home.rstrip("/")) + 1 :]
        return "~/" + rel if rel else "~"
    return path


def shown_path(path: str | os.PathLike) -> str:
    """A path to show: ``~`` for the home folder, control characters as stand-ins."""
    return visible(shorten_home(os.fspath(path)))


def _num(value: Any) -> float | None:
    if isinstance(value, str) and value.strip():
        try:
            value = float(value)
        except ValueError:
            return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return None


def _line_range(offset: Any, limit: Any) -> str:
    """Pi's formatReadLineRange."""
    if offset is None and limit is None:
        return ""
    start = 1 if offset is None else _num(offset)
    if start is None:
        return ""
    start_s = f"{start:g}"
    if limit is None:
        return f":{start_s}"
    count = _num(limit)
    if count is None:
        return ""
    end = start + count - 1
    return f":{start_s}" + (f"-{end:g}" if end else "")


def format_tool_call(name: str, args: Any) -> str:
    """``[bash: cmd]``, ``[read: path:1-50]``, ``[subagent: worker ×3]`` …"""
    tool_args = args if isinstance(args, dict) else {}

    def s(key, default=""):
        value = tool_args.get(key)
        return default if value is None or value == "" else str(value)

    if name == "read":
        return f"[read: {shorten_home(s('path') or s('file_path'))}{_line_range(tool_args.get('offset'), tool_args.get('limit'))}]"
    if name in ("write", "edit"):
        return f"[{name}: {shorten_home(s('path') or s('file_path'))}]"
    if name == "bash":
        raw = s("command")
        cmd = raw.replace("\n", " ").replace("\t", " ").strip()[:50]
        return f"[bash: {cmd}{'...' if len(raw) > 50 else ''}]"
    if name == "grep":
        return f"[grep: /{s('pattern')}/ in {shorten_home(s('path', '.'))}]"
    if name == "find":
        return f"[find: {s('pattern')} in {shorten_home(s('path', '.'))}]"
    if name == "ls":
        return f"[ls: {shorten_home(s('path', '.'))}]"
    if name == "subagent":
        return "[subagent: " + _subagent_title(tool_args) + "]"
    raw = orjson.dumps(tool_args).decode() if tool_args else "{}"
    return f"[{name}: {raw[:40]}{'...' if len(raw) > 40 else ''}]"


def _subagent_title(tool_args: dict) -> str:
    for key, sep in (("tasks", " ×"), ("chain", " → ")):
        items = tool_args.get(key)
        if isinstance(items, list) and items:
            agents = [str(task.get("agent", "?")) if isinstance(task, dict) else "?" for task in items]
            if key == "tasks":
                if len(set(agents)) == 1:
                    return f"{agents[0]} ×{len(agents)}"
                return ", ".join(agents)
            return " → ".join(agents)
    agent = tool_args.get("agent")
    task = tool_args.get("task")
    title = str(agent) if agent else "run"
    if isinstance(task, str) and task:
        title += ": " + cut_words(one_line(task, 200), 40)
    return title


def tool_call_for_result(session: Session, index: int) -> dict | None:
    """The ``toolCall`` block that produced tool result ``index``, if it is in the file."""
    found = session.find_tool_call(index)
    return found[1] if found is not None else None


def summarize(session: Session, index: int) -> Summary:
    """The one-line summary of entry ``index``, safe to show: any control character from the
    file (a tool name, a path, a label, an unknown type...) is a visible stand-in."""
    got = _summarize(session, index)
    prefix, text = visible(got.prefix), visible(got.text)
    if prefix is got.prefix and text is got.text:
        return got
    return Summary(got.kind, prefix, text, got.dim)


def _summarize(session: Session, index: int) -> Summary:
    if session.flags[index] & F_DAMAGED:
        return Summary("damaged", "", f"[damaged line {session.linenos[index]}]", True)
    kind = session.types[index]
    entry = session.entry(index)
    if "pituiError" in entry:
        return Summary("damaged", "", f"[damaged line {session.linenos[index]}]", True)
    if kind == "message":
        msg = entry.get("message") if isinstance(entry.get("message"), dict) else {}
        role = msg.get("role")
        if role == "user":
            text = one_line(text_of(msg.get("content")))
            if not text and isinstance(msg.get("content"), list):
                count = sum(1 for block in msg["content"] if isinstance(block, dict) and block.get("type") == "image")
                text = f"[{count} image{'s' if count != 1 else ''}]" if count else ""
            return Summary("user", "user: ", text)
        if role == "assistant":
            text = one_line(text_of(msg.get("content")))
            if text:
                return Summary("assistant", "assistant: ", text)
            if msg.get("stopReason") == "aborted":
                return Summary("assistant", "assistant: ", "(aborted)", True)
            if msg.get("errorMessage"):
                return Summary("tool-error", "assistant: ", one_line(str(msg["errorMessage"]), 80))
            calls = [
                block
                for block in (msg.get("content") or [])
                if isinstance(block, dict) and block.get("type") == "toolCall"
            ] if isinstance(msg.get("content"), list) else []
            if calls:
                return Summary(
                    "assistant", "assistant: ", " ".join(format_tool_call(str(call.get("name")), call.get("arguments")) for call in calls), True
                )
            return Summary("assistant", "assistant: ", "(no content)", True)
        if role == "toolResult":
            call = tool_call_for_result(session, index)
            if call is not None:
                text = format_tool_call(str(call.get("name")), call.get("arguments"))
            else:
                text = f"[{msg.get('toolName') or 'tool'}]"
            return Summary("tool-error" if msg.get("isError") else "tool", "", text, not msg.get("isError"))
        if role == "bashExecution":
            cmd = msg.get("command")
            # (an RPC log has the output of a user's command, never the command: it went to stdin)
            return Summary("bash", "[bash]: ", one_line(str(cmd)) if cmd is not None else "(command not in the log)",
                           True)
        if role == "system":
            return Summary("system", "", "[system prompt]" + _system_detail(msg), True)
        if role == "custom":
            return Summary(
                "custom-message", f"[{msg.get('customType') or 'custom'}]: ", one_line(text_of(msg.get("content")))
            )
        if role == "branchSummary":
            return Summary("branch-summary", "[branch summary]: ", one_line(str(msg.get("summary") or "")))
        if role == "compactionSummary":
            return Summary("compaction", "", f"[compaction summary]: {one_line(str(msg.get('summary') or ''))}")
        return Summary("unknown", "", f"[{role}]", True)
    if kind == "custom_message":
        return Summary("custom-message", f"[{entry.get('customType') or 'custom'}]: ", one_line(text_of(entry.get("content"))))
    if kind == "compaction":
        tb = _num(entry.get("tokensBefore"))
        tokens = f"{round(tb / 1000)}k" if tb is not None else "?"
        return Summary("compaction", "", f"[compaction: {tokens} tokens]")
    if kind == "branch_summary":
        return Summary("branch-summary", "[branch summary]: ", one_line(str(entry.get("summary") or "")))
    if kind == "model_change":
        return Summary("model", "", f"[model: {entry.get('modelId')}]", True)
    if kind == "thinking_level_change":
        return Summary("thinking", "", f"[thinking: {entry.get('thinkingLevel')}]", True)
    if kind == "custom":
        return Summary("custom", "", f"[{entry.get('customType') or 'custom'}]", True)
    if kind == "stream_event":  # (what an event stream says besides messages: core/read/stream.py)
        warn = entry.get("tone") == "warning"
        return Summary("tool-error" if warn else "event", "", f"[{one_line(str(entry.get('text') or entry.get('event')))}]",
                       not warn)
    if kind == "context_edit":
        what = "omit" if entry.get("replacement") is None else "replace"
        return Summary("context-edit", "", f"[context edit: {what} {entry.get('targetId')}]", True)
    if kind == "label":
        label = entry.get("label")
        return Summary("label", "", f"[label: {label if label else '(cleared)'}]", True)
    if kind == "session_info":
        name = entry.get("name")
        return Summary("title", "", f"[title: {name if isinstance(name, str) and name.strip() else '(cleared)'}]", True)
    if kind == "usage":
        usage = entry.get("usage") if isinstance(entry.get("usage"), dict) else {}
        return Summary("usage", "", f"[usage: {entry.get('kind') or '?'} {usage.get('totalTokens', 0)} tokens]", True)
    return Summary("unknown", "", f"[{kind}]", True)


def _system_detail(msg: dict) -> str:
    bits = []
    sections = msg.get("sections")
    if isinstance(sections, dict) and sections:
        bits.append(f"{len(sections)} section{'s' if len(sections) != 1 else ''}")
    for key, sign in (("toolsAdded", "+"), ("toolsRemoved", "-")):
        tools = msg.get(key)
        if isinstance(tools, list) and tools:
            bits.append(sign + ",".join(str(tool.get("name")) if isinstance(tool, dict) else str(tool) for tool in tools[:4]))
    return (": " + " ".join(bits)) if bits else ""
