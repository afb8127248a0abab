"""What a message shows, decided once.

Three writers show a branch: the pane (``ui/pane``), the HTML export and the Markdown
export. Each writes in its own medium, and each takes what it writes from here: a
message's title and model label, a tool call's title and state, a result's output, diff,
images and truncation, a subagent run's status, usage and transcript files, how a usage
reads. What the other entries show (one-line markers, summaries, Pi-based apps' entries)
is in :mod:`.entry_parts`. Text is returned as the session holds it; making it safe for
the medium (``core.text``) is each writer's last step.

The records that never change once made (:class:`ToolState`, :class:`ImageFacts`) are
NamedTuples rather than frozen dataclasses: this module is imported before the first
screen, and a frozen dataclass takes several times longer to make (its methods are written
and compiled as the module loads).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..numbers import as_number, fmt_cost, fmt_duration, fmt_tokens
from ..text import clean, json_compact, text_lines
from .notices import image_unsupported_note
from .summary import format_tool_call, one_line

__all__ = [
    "ToolState",
    "PENDING",
    "OK",
    "ERROR",
    "tool_state",
    "tool_args_summary",
    "requested_edit",
    "result_text",
    "ResultParts",
    "result_parts",
    "SubagentRun",
    "subagent_runs",
    "run_transcripts",
    "usage_bits",
    "usage_tokens",
    "ImageFacts",
    "image_facts",
    "model_label",
    "plural",
    "role_title",
    "cap_first",
    "session_id_or_none",
]


def plural(count: float, word: str, words: str | None = None) -> str:
    """``1 line``, ``2,048 lines`` (``words`` when the plural is not ``word`` + s)."""
    num = f"{int(count):,}" if float(count).is_integer() else f"{count:g}"
    return f"{num} {word if count == 1 else (words or word + 's')}"


def model_label(msg: dict) -> str:
    """An assistant message's model as Pi records it (``model``), and the model that
    answered (``responseModel``) only when that is another: ``gpt-5 → gpt-5-2025-08-07``."""
    model = msg.get("model")
    resp = msg.get("responseModel")
    model_s = str(model) if model else ""
    if resp and str(resp) != model_s:
        return f"{model_s} → {resp}" if model_s else str(resp)
    return model_s


_ROLE_TITLES = {
    "user": ("user", "user"),
    "assistant": ("assistant", "assistant"),
    "toolResult": ("tool result", "tool"),
    "bashExecution": ("bash", "tool"),  # a command the user ran with ! (Pi's bashExecution)
    "system": ("system prompt", "system"),
    "branchSummary": ("branch summary", "summary"),
    "compactionSummary": ("compaction summary", "summary"),
}


def role_title(msg: dict) -> tuple[str, str]:
    """A message's title in its header, and its kind for styles: user, assistant, tool,
    system, custom (a custom message: titled by its customType), summary, or other."""
    role = msg.get("role")
    if role == "custom":
        return str(msg.get("customType") or "custom"), "custom"
    return _ROLE_TITLES.get(role, (str(role or "message"), "other"))


def cap_first(text: str) -> str:
    """``text`` with its first letter up (the exports' headings)."""
    return text[:1].upper() + text[1:]


# ---------------------------------------------------------------------------- tool calls


class ToolState(NamedTuple):
    """Where a call stands: ``name`` for styles and classes, ``glyph`` to show."""

    name: str
    glyph: str


PENDING = ToolState("pending", "…")
OK = ToolState("ok", "✓")
ERROR = ToolState("error", "✗")


def tool_state(result: dict | None) -> ToolState:
    """Pending without a result, an error when the result says so, else done."""
    if result is None:
        return PENDING
    return ERROR if result.get("isError") else OK


_TITLED = ("read", "edit", "write", "grep", "find", "ls", "subagent")


def tool_args_summary(name: str, args: Any, limit: int | None = None) -> str:
    """A call's arguments in short, its title beside the tool's name: a bash command's first
    line, read path:range, edit and write paths (with line and edit counts), grep pattern,
    subagent agents; else the arguments as compact JSON. ``limit`` cuts a long command or
    JSON with ``…``."""

    def cut(text: str) -> str:
        return text if limit is None or len(text) <= limit else text[:limit] + "…"

    tool_args = args if isinstance(args, dict) else {}
    if name == "bash":
        cmd = tool_args.get("command")
        if isinstance(cmd, str):
            first = clean(cmd, block=True).strip().split("\n")
            extra = len(first) - 1
            return "$ " + cut(first[0]) + (f"  (+{extra} lines)" if extra else "")
    if name in _TITLED:
        line = format_tool_call(name, tool_args)
        prefix = f"[{name}: "
        if line.startswith(prefix) and line.endswith("]"):
            line = line[len(prefix) : -1]
        if name == "write" and isinstance(tool_args.get("content"), str):
            count = len(text_lines(tool_args["content"]))
            line += f"  ({count} line{'s' if count != 1 else ''})"
        if name == "edit":
            edits = tool_args.get("edits")
            if isinstance(edits, list) and len(edits) > 1:
                line += f"  ({len(edits)} edits)"
        return line
    if not tool_args:
        return "{}" if isinstance(args, dict) else cut(json_compact(args))
    return cut(json_compact(tool_args))


def requested_edit(args: dict) -> str:
    """An edit call's requested change as a diff (``-`` old lines, ``+`` new lines), for a
    call with no result yet or a failed one; each of several edits after an ``@@``."""
    pairs = []
    if isinstance(args.get("oldText"), str) and isinstance(args.get("newText"), str):
        pairs.append((args["oldText"], args["newText"]))
    edits = args.get("edits")
    for ed in edits if isinstance(edits, list) else []:
        if isinstance(ed, dict) and isinstance(ed.get("oldText"), str) and isinstance(ed.get("newText"), str):
            pairs.append((ed["oldText"], ed["newText"]))
    chunks: list[str] = []
    for index, (old, new) in enumerate(pairs):
        if index:
            chunks.append("@@")
        chunks += ["-" + line for line in text_lines(old)] + ["+" + line for line in text_lines(new)]
    return "\n".join(chunks)


# ---------------------------------------------------------------------------- results


def result_text(result: dict) -> str:
    """A tool result's text: its text blocks one after another, a line break between two
    (as Pi shows them), or its content when that is a string."""
    content = result.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        block["text"] for block in content if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


@dataclass(slots=True)
class ResultParts:
    """What a tool result shows, in the order it is shown."""

    text: str
    is_error: bool
    #: a subagent call's runs: (mode, runs); the text then follows them as "output"
    subagents: tuple[str, list[SubagentRun]] | None = None
    #: the change an edit or write made (``details.diff``), and Pi's unified patch
    diff: str | None = None
    patch: str | None = None
    images: list[dict] = field(default_factory=list)
    #: output cut short by the tool: lines kept and of how many, when it says
    truncated: bool = False
    kept_lines: tuple[float, float] | None = None
    full_output_path: str | None = None
    #: a tool that ran a model of its own
    usage: dict | None = None
    #: Pi's note that the model could not see the result's image (``notices``)
    image_note: str | None = None

    @property
    def shows_diff(self) -> bool:
        """The change is shown instead of the text: a diff or patch, and no error."""
        return bool(self.diff or self.patch) and not self.is_error


def _nonblank(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def result_parts(name: str, result: dict) -> ResultParts:
    details = result.get("details") if isinstance(result.get("details"), dict) else {}
    content = result.get("content")
    parts = ResultParts(text=result_text(result), is_error=bool(result.get("isError")))
    if name == "subagent" and isinstance(details.get("results"), list):
        parts.subagents = subagent_runs(details)
    parts.diff = _nonblank(details.get("diff"))
    parts.patch = _nonblank(details.get("patch"))
    if isinstance(content, list):
        parts.images = [block for block in content if isinstance(block, dict) and block.get("type") == "image"]
    trunc = details.get("truncation") if isinstance(details.get("truncation"), dict) else None
    full = details.get("fullOutputPath")
    parts.full_output_path = full if isinstance(full, str) else None
    parts.truncated = bool(trunc and trunc.get("truncated")) or parts.full_output_path is not None
    if trunc:
        kept, total = as_number(trunc.get("outputLines")), as_number(trunc.get("totalLines"))
        if kept is not None and total is not None:
            parts.kept_lines = (kept, total)
    if isinstance(result.get("usage"), dict):
        parts.usage = result["usage"]
    parts.image_note = image_unsupported_note(result)
    return parts


# ---------------------------------------------------------------------------- subagents


@dataclass(slots=True)
class SubagentRun:
    """One agent of a subagent call (an item of ``details.results``)."""

    agent: str
    #: ``✓ done``, ``✗ exit 2``, ``✗ <the error's first line>``, a progress status, or ""
    status: str
    #: "ok", "error" or "unknown", for styles
    state: str
    step: float | None
    model: str
    usage: dict
    turns: float | None
    duration_ms: Any
    task: str
    #: the whole error, "" when none
    error: str
    messages: list[dict]
    #: where the full transcript may be: ``artifactPaths.jsonlPath``, then ``sessionFile``
    transcripts: list[tuple[str, str]]

    def bits(self, *, cache: bool = True) -> list[str]:
        """Tokens, cost, turns and time, each one short phrase."""
        bits = usage_bits(self.usage, cache=cache)
        if self.turns is not None:
            bits.append(f"{self.turns:g} turn{'s' if self.turns != 1 else ''}")
        dur = fmt_duration(self.duration_ms)
        if dur:
            bits.append(dur)
        return bits


def _status(result: dict) -> tuple[str, str]:
    if result.get("error"):
        return "✗ " + one_line(str(result.get("error")), 60), "error"
    code = as_number(result.get("exitCode"))
    if code is not None:
        return ("✓ done", "ok") if code == 0 else (f"✗ exit {code:g}", "error")
    prog = result.get("progress") if isinstance(result.get("progress"), dict) else {}
    if prog.get("status"):
        st = str(prog["status"])
        return st, "error" if st in ("failed", "error") else "unknown"
    return "", "unknown"


def run_transcripts(result: dict) -> list[tuple[str, str]]:
    """Where one run's full transcript may be, as the run records it: ``(what, path)`` for
    its ``artifactPaths.jsonlPath``, then its ``sessionFile``. The pane links a run to these
    files and the listing nests them under the session that ran it (one rule for both)."""
    out = []
    ap = result.get("artifactPaths")
    if isinstance(ap, dict) and isinstance(ap.get("jsonlPath"), str):
        out.append(("transcript", ap["jsonlPath"]))
    if isinstance(result.get("sessionFile"), str):
        out.append(("session file", result["sessionFile"]))
    return out


def subagent_runs(details: dict) -> tuple[str, list[SubagentRun]]:
    """A subagent call's mode (``parallel``, ``chain``, ... or "") and its runs."""
    runs = []
    for result in details.get("results") or []:
        if not isinstance(result, dict):
            continue
        status, state = _status(result)
        usage = result.get("usage") if isinstance(result.get("usage"), dict) else {}
        messages = result.get("messages") if isinstance(result.get("messages"), list) else []
        ps = result.get("progressSummary") if isinstance(result.get("progressSummary"), dict) else {}
        runs.append(SubagentRun(
            agent=str(result.get("agent") or "agent"),
            status=status,
            state=state,
            step=as_number(result.get("step")),
            model=str(result.get("model") or ""),
            usage=usage,
            turns=as_number(usage.get("turns")),
            duration_ms=ps.get("durationMs"),
            task=result.get("task") if isinstance(result.get("task"), str) else "",
            error=str(result.get("error") or ""),
            messages=[message for message in messages if isinstance(message, dict)],
            transcripts=run_transcripts(result),
        ))
    mode = details.get("mode")
    return (str(mode) if mode else ""), runs


# ---------------------------------------------------------------------------- usage


def usage_tokens(usage: dict) -> float:
    """All the tokens of a usage: its ``totalTokens``, else the sum of its parts."""
    total = as_number(usage.get("totalTokens"))
    if total is None:
        total = sum(as_number(usage.get(key)) or 0 for key in ("input", "output", "cacheRead", "cacheWrite"))
    return total


def usage_bits(usage: Any, *, cache: bool = True) -> list[str]:
    """A usage as short phrases: ``↑12.3k ↓456``, ``cache 1.2k r/300 w`` (with ``cache``;
    a one-line header leaves it out for width), ``$0.0123``."""
    if not isinstance(usage, dict):
        return []
    bits = []
    inp, outp = as_number(usage.get("input")), as_number(usage.get("output"))
    if inp is not None or outp is not None:
        bits.append(f"↑{fmt_tokens(inp or 0)} ↓{fmt_tokens(outp or 0)}")
    if cache:
        cr, cw = as_number(usage.get("cacheRead")), as_number(usage.get("cacheWrite"))
        if cr or cw:
            bits.append(f"cache {fmt_tokens(cr or 0)}r/{fmt_tokens(cw or 0)}w")
    cost = fmt_cost(usage.get("cost"))
    if cost:
        bits.append(cost)
    return bits


# ---------------------------------------------------------------------------- images


class ImageFacts(NamedTuple):
    """What an image block says of itself without being decoded."""

    mime: str
    #: bytes of the image (its base64 data's decoded length)
    size: int
    #: width and height of a PNG or GIF, from its first bytes; None for other kinds
    dims: tuple[int, int] | None


_B64_NOT_RE = re.compile(r"[^A-Za-z0-9+/]")


def _image_dims(data: str) -> tuple[int, int] | None:
    try:
        head = base64.b64decode(_B64_NOT_RE.sub("", data[:64])[:32] + "==", validate=False)
    except (ValueError, binascii.Error):
        return None
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        return int.from_bytes(head[6:8], "little"), int.from_bytes(head[8:10], "little")
    return None


def image_facts(block: dict) -> ImageFacts:
    """An image block's type (``mimeType``, or ``mediaType`` of older files), size and
    dimensions."""
    mime = block.get("mimeType") or block.get("mediaType")
    data = block.get("data")
    size = 0
    dims = None
    if isinstance(data, str):
        stripped = data.rstrip()
        size = max(0, len(stripped) * 3 // 4 - (len(stripped) - len(stripped.rstrip("="))))
        dims = _image_dims(data)
    return ImageFacts(mime if isinstance(mime, str) and mime else "image", size, dims)


_ID_RE = re.compile(r"[0-9A-Za-z_-]{1,80}")


def session_id_or_none(value: Any) -> str | None:
    """``value`` when it can name a session file (``<time>_<id>.jsonl``): letters, digits,
    ``-`` and ``_`` only, so a hostile id never walks a path or matches a pattern."""
    return value if isinstance(value, str) and _ID_RE.fullmatch(value) else None
