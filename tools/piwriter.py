"""Pi session files, written the way Pi writes them.

The one writer of session files in this repository: the demo sessions (``tools/demo``),
the benchmark inputs (``benchmarks/gen.py``) and the tests' files (``tests/helpers.py``)
all build their entries and lines here. Standard library only, and it knows nothing of
pitui, so that what it writes is Pi's format and not pitui's reading of it.

What Pi's ``SessionManager`` (1.5.x) writes, and this module follows:

- one entry per line, compact JSON as ``JSON.stringify`` makes it, keys in the order Pi's
  code sets them, non-ASCII characters as they are;
- a header line ``{"type": "session", "version": 3, "id", "timestamp", "cwd", ...}``, then
  entries ``{"type", "id", "parentId", "timestamp", ...}`` (``custom`` and
  ``custom_message`` entries put their own fields before the ids);
- ISO times on entries and headers, epoch milliseconds inside messages;
- files named ``<ISO time with : and . as ->_<session id>.jsonl`` in a folder named after
  the working directory, ``--<cwd with / \\ : as ->--``.

The caller chooses ids, times and content; this module only shapes and writes them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

# ---------------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------------

_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


def dumps(obj: Any) -> str:
    """One line of JSON as ``JSON.stringify`` writes it; fast (the standard library's C encoder).

    Strings are escaped exactly as JavaScript escapes them. Floats print as Python's
    ``repr``, which is what JavaScript prints except for integral floats (pass them through
    :func:`js_number`) and floats under 1e-4 or from 1e16 up (use :func:`dumps_exact`)."""
    return _ENCODE(obj)


class _Undefined:
    """JavaScript's ``undefined``: ``JSON.stringify`` leaves out a key with this value."""

    def __repr__(self) -> str:
        return "UNDEFINED"


UNDEFINED = _Undefined()


def js_number(x: float | int) -> float | int:
    """``x`` as a value that :func:`dumps` prints the way JavaScript does: 2.0 as 2."""
    return int(x) if isinstance(x, float) and x.is_integer() else x


def _js_number_text(x: float | int) -> str:
    """A number as JavaScript's ``Number.prototype.toString`` prints it."""
    if isinstance(x, int):
        return str(x)
    if x != x or x in (float("inf"), float("-inf")):
        return "null"
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    r = repr(x)
    if "e" not in r:
        return r
    # Python switches to an exponent below 1e-4 and from 1e16, JavaScript below 1e-6 and from 1e21
    if 1e-6 <= abs(x) < 1e21:
        return format(Decimal(r), "f")
    mant, exp = r.split("e")
    sign = "-" if exp.startswith("-") else "+"
    return f"{mant}e{sign}{int(exp.lstrip('+-'))}"


def dumps_exact(obj: Any) -> str:
    """Like :func:`dumps`, with every number as JavaScript prints it and keys whose value is
    :data:`UNDEFINED` left out. Pure Python: for files small enough not to need speed."""
    if obj is None:
        return "null"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    if isinstance(obj, (int, float)):
        return _js_number_text(obj)
    if isinstance(obj, str):
        return _ENCODE(obj)
    if isinstance(obj, dict):
        return "{" + ",".join(_ENCODE(k) + ":" + dumps_exact(v) for k, v in obj.items() if v is not UNDEFINED) + "}"
    if isinstance(obj, (list, tuple)):
        return "[" + ",".join(dumps_exact(v) for v in obj) + "]"
    raise TypeError(f"not JSON: {type(obj).__name__}")


# ---------------------------------------------------------------------------------------------
# Times and names
# ---------------------------------------------------------------------------------------------


def iso(ms: int) -> str:
    """Epoch milliseconds as JavaScript's ``Date.toISOString`` writes them."""
    dt = datetime.fromtimestamp(ms // 1000, tz=timezone.utc)
    return f"{dt:%Y-%m-%dT%H:%M:%S}.{ms % 1000:03d}Z"


def ms_of(iso_time: str) -> int:
    """An ISO time (``2026-11-20T10:00:00.000Z``) as epoch milliseconds."""
    dt = datetime.strptime(iso_time, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    # rounded, not truncated: the float timestamp of .417 s can come out just under it
    return int(round(dt.timestamp() * 1000))


def project_dir(cwd: str) -> str:
    """The sessions folder Pi uses for a working directory: ``/home/u/p`` -> ``--home-u-p--``."""
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


def session_file_name(header_time: str, session_id: str) -> str:
    """A session's file name from its header's ISO time and its id."""
    return re.sub(r"[:.]", "-", header_time) + "_" + session_id + ".jsonl"


# ---------------------------------------------------------------------------------------------
# Lines: the header and entries
# ---------------------------------------------------------------------------------------------


def header(
    session_id: str, timestamp: str, cwd: str, *, version: int | None = 3, parent_session: str | None = None, **extra: Any
) -> dict:
    """A session's first line. ``version=None`` leaves the version out, as Pi's first format
    did; ``extra`` comes last (old headers carried ``provider``, ``modelId``, ...)."""
    h: dict[str, Any] = {"type": "session"}
    if version is not None:
        h["version"] = version
    h.update(id=session_id, timestamp=timestamp, cwd=cwd)
    if parent_session:
        h["parentSession"] = parent_session
    h.update(extra)
    return h


def entry(kind: str, eid: str, parent: str | None, timestamp: str, /, **fields: Any) -> dict:
    """An entry as Pi appends it: type, id, parent id and time, then its own fields."""
    return {"type": kind, "id": eid, "parentId": parent, "timestamp": timestamp, **fields}


def custom_entry(kind: str, eid: str, parent: str | None, timestamp: str, /, **fields: Any) -> dict:
    """A ``custom`` or ``custom_message`` entry: Pi writes the extension's fields first."""
    return {"type": kind, **fields, "id": eid, "parentId": parent, "timestamp": timestamp}


def v1_entry(kind: str, timestamp: str, /, **fields: Any) -> dict:
    """An entry of Pi's first format (a header without version): no id, no parent id."""
    return {"type": kind, "timestamp": timestamp, **fields}


# ---------------------------------------------------------------------------------------------
# Messages and their content
# ---------------------------------------------------------------------------------------------


def text_block(text: str) -> dict:
    return {"type": "text", "text": text}


def thinking_block(thinking: str, signature: str | None = None) -> dict:
    b = {"type": "thinking", "thinking": thinking}
    if signature is not None:
        b["thinkingSignature"] = signature
    return b


def tool_call_block(call_id: str | None, name: str, arguments: dict) -> dict:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def image_block(data_b64: str, mime: str = "image/png") -> dict:
    return {"type": "image", "data": data_b64, "mimeType": mime}


def usage(
    inp: int, out: int, cache_read: int, cache_write: int, costs: tuple[float, float, float, float],
    *, reasoning: int | None = None,
) -> dict:
    """An assistant message's usage: tokens, and ``costs`` (dollars for input, output, cache
    read, cache write) with their total."""
    u: dict[str, Any] = {"input": inp, "output": out, "cacheRead": cache_read, "cacheWrite": cache_write}
    if reasoning is not None:
        u["reasoning"] = reasoning
    u["totalTokens"] = inp + out + cache_read + cache_write
    ci, co, ccr, ccw = costs
    u["cost"] = {
        "input": js_number(ci),
        "output": js_number(co),
        "cacheRead": js_number(ccr),
        "cacheWrite": js_number(ccw),
        "total": js_number(ci + co + ccr + ccw),
    }
    return u


def user_message(content: str | list, timestamp: int) -> dict:
    return {"role": "user", "content": content, "timestamp": timestamp}


def assistant_message(
    content: list,
    *,
    api: str,
    provider: str,
    model: str,
    usage: dict,
    stop_reason: str,
    timestamp: int,
    thinking_level: str | None = None,
    error: str | None = None,
) -> dict:
    msg: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "api": api,
        "provider": provider,
        "model": model,
        "usage": usage,
        "stopReason": stop_reason,
        "timestamp": timestamp,
    }
    if thinking_level is not None:
        msg["thinkingLevel"] = thinking_level
    if error:
        msg["errorMessage"] = error
    return msg


def tool_result_message(
    call_id: str,
    tool_name: str,
    content: list,
    *,
    is_error: bool,
    timestamp: int,
    details: Any = None,
    duration_ms: int | None = None,
) -> dict:
    msg: dict[str, Any] = {"role": "toolResult", "toolCallId": call_id, "toolName": tool_name, "content": content}
    if details is not None:
        msg["details"] = details
    msg["isError"] = is_error
    if duration_ms is not None:
        msg["durationMs"] = duration_ms
    msg["timestamp"] = timestamp
    return msg


def system_message(
    content: str,
    timestamp: int,
    *,
    sections: dict | None = None,
    tools_added: list | None = None,
    tools_removed: list | None = None,
) -> dict:
    """Pi's system prompt as a message: its ``sections`` (a later one patches the earlier:
    a section set to None is removed) and the tools added or removed."""
    msg: dict[str, Any] = {"role": "system", "content": content, "timestamp": timestamp}
    if sections is not None:
        msg["sections"] = sections
    if tools_added is not None:
        msg["toolsAdded"] = tools_added
    if tools_removed is not None:
        msg["toolsRemoved"] = tools_removed
    return msg


def bash_execution_message(
    command: str,
    output: str,
    exit_code: int | None,
    *,
    truncated: bool,
    timestamp: int,
    cancelled: bool = False,
    full_output_path: str | None = None,
    exclude_from_context: bool | None = None,
) -> dict:
    """A command the user ran with ``!`` (``!!``: kept out of the model's context)."""
    msg: dict[str, Any] = {
        "role": "bashExecution",
        "command": command,
        "output": output,
        "exitCode": exit_code,
        "cancelled": cancelled,
        "truncated": truncated,
    }
    if full_output_path:
        msg["fullOutputPath"] = full_output_path
    if exclude_from_context is not None:
        msg["excludeFromContext"] = exclude_from_context
    msg["timestamp"] = timestamp
    return msg


# ---------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------


def render(lines: Iterable[dict | str], *, final_newline: bool = True, exact: bool = False) -> str:
    """A session file's text: a dict becomes a line of JSON (:func:`dumps_exact` when
    ``exact``), a string is written as it is (a damaged line, on purpose). Each line ends
    with a newline, the last one only when ``final_newline`` (a file cut short has none)."""
    dump = dumps_exact if exact else dumps
    text = "\n".join(line if isinstance(line, str) else dump(line) for line in lines)
    return text + "\n" if final_newline else text


def write(path: Path, lines: Iterable[dict | str], *, final_newline: bool = True, exact: bool = False) -> Path:
    """Write :func:`render`'s text to ``path`` as UTF-8 (the folder must exist)."""
    path.write_bytes(render(lines, final_newline=final_newline, exact=exact).encode("utf-8"))
    return path
