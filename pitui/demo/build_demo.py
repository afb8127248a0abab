"""Build pitui's built-in demo sessions (``pitui --demo``).

Run with ``python -m pitui.demo.build_demo``.  The script is pure standard
library and fully deterministic: every id, timestamp and token count comes
from fixed seeds and fixed start times, so running it twice produces
byte-identical files.

It writes a small Pi sessions store into ``pitui/demo/sessions/``, laid out
exactly like ``~/.pi/agent/sessions``::

    sessions/--home-demo-shop--/2026-11-14T09-12-03-417Z_<uuid>.jsonl
    sessions/--home-demo-shop--/subagent-artifacts/<run>_<agent>.jsonl
    ...

The JSON of every entry follows what current Pi (1.5.x) writes: compact JSON,
one entry per line, keys in Pi's order, 8-hex-char entry ids, ISO entry
timestamps and millisecond message timestamps.  Tool results mimic Pi's real
tools (``read`` continuation notes, ``edit`` display diffs and unified
patches, ``bash`` truncation details, ...), computed from a small in-memory
project so that reads, edits and test runs stay consistent with each other.

See ``README.md`` next to this file for what each demo session shows.
"""

from __future__ import annotations

import base64
import difflib
import fnmatch
import json
import random
import re
import shutil
import struct
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "sessions"
#: Where the demo user's Pi keeps its sessions (used for absolute paths
#: written into files, like ``parentSession`` and subagent artifact paths).
PI_SESSIONS = "/home/demo/.pi/agent/sessions"
PI_PKG = "/home/demo/.local/lib/node_modules/@earendil-works/pi-coding-agent"

B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


# ---------------------------------------------------------------------------
# JSON exactly like JSON.stringify
# ---------------------------------------------------------------------------


def _js_number(x: float | int) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if x != x or x in (float("inf"), float("-inf")):
        return "null"
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    r = repr(x)
    if "e" not in r:
        return r
    if 1e-6 <= abs(x) < 1e21:
        return format(Decimal(r), "f")
    mant, exp = r.split("e")
    sign = "-" if exp.startswith("-") else "+"
    return f"{mant}e{sign}{int(exp.lstrip('+-'))}"


def dumps(obj: Any) -> str:
    """Serialize like JavaScript's ``JSON.stringify`` (compact, key order kept)."""
    if obj is None:
        return "null"
    if obj is True:
        return "true"
    if obj is False:
        return "false"
    if isinstance(obj, (int, float)):
        return _js_number(obj)
    if isinstance(obj, str):
        return json.dumps(obj, ensure_ascii=False)
    if isinstance(obj, dict):
        return (
            "{"
            + ",".join(json.dumps(k, ensure_ascii=False) + ":" + dumps(v) for k, v in obj.items() if v is not _OMIT)
            + "}"
        )
    if isinstance(obj, (list, tuple)):
        return "[" + ",".join(dumps(v) for v in obj) + "]"
    raise TypeError(type(obj))


class _Omit:
    """Marker for keys JavaScript would drop (value ``undefined``)."""


_OMIT = _Omit()


# ---------------------------------------------------------------------------
# Time, ids
# ---------------------------------------------------------------------------


def ms_of(iso: str) -> int:
    dt = datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    return int(round(dt.timestamp() * 1000))


def iso_of(ms: int) -> str:
    dt = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def project_dir_name(cwd: str) -> str:
    """``--<cwd without leading separator, / \\ : replaced by ->--`` like Pi."""
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", cwd)) + "--"


def session_file_name(header_iso: str, session_id: str) -> str:
    return re.sub(r"[:.]", "-", header_iso) + "_" + session_id + ".jsonl"


class Gen:
    """Deterministic ids and jitter for one session."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.used: set[str] = set()

    def hex8(self) -> str:
        while True:
            h = f"{self.rng.getrandbits(32):08x}"
            if h not in self.used:
                self.used.add(h)
                return h

    def hexn(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(n))

    def b62(self, n: int) -> str:
        return "".join(self.rng.choice(B62) for _ in range(n))

    def uuid7(self, ms: int) -> str:
        h = f"{ms:012x}" + "7" + self.hexn(3) + self.rng.choice("89ab") + self.hexn(15)
        return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"

    def uuid4(self) -> str:
        h = self.hexn(12) + "4" + self.hexn(3) + self.rng.choice("89ab") + self.hexn(15)
        return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"

    def sig(self, n: int = 96) -> str:
        alphabet = B62 + "+/"
        body = "".join(self.rng.choice(alphabet) for _ in range(n))
        return "Eq" + body + "=="

    def choice(self, seq: Any) -> Any:
        return self.rng.choice(seq)

    def uniform(self, lo: float, hi: float) -> float:
        return self.rng.uniform(lo, hi)

    def randint(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


# ---------------------------------------------------------------------------
# Models and pricing ($ per million tokens)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Model:
    provider: str
    id: str
    api: str
    input: float
    output: float
    cache_read: float
    cache_write: float


SONNET = Model("anthropic", "claude-sonnet-4-5", "anthropic-messages", 3, 15, 0.3, 3.75)
OPUS = Model("anthropic", "claude-opus-4-5", "anthropic-messages", 5, 25, 0.5, 6.25)
HAIKU = Model("anthropic", "claude-haiku-4-5", "anthropic-messages", 1, 5, 0.1, 1.25)
GPT5 = Model("openai", "gpt-5", "openai-responses", 1.25, 10, 0.125, 0)
GPT5_MINI = Model("openai", "gpt-5-mini", "openai-responses", 0.25, 2, 0.025, 0)
GEMINI = Model("google", "gemini-2.5-pro", "google-generative-ai", 1.25, 10, 0.31, 0)


def usage_obj(m: Model, inp: int, out: int, cr: int, cw: int, reasoning: int | None = None) -> dict:
    cost_in = (m.input / 1000000) * inp
    cost_out = (m.output / 1000000) * out
    cost_cr = (m.cache_read / 1000000) * cr
    cost_cw = (m.cache_write / 1000000) * cw
    u: dict[str, Any] = {"input": inp, "output": out, "cacheRead": cr, "cacheWrite": cw}
    if reasoning is not None:
        u["reasoning"] = reasoning
    u["totalTokens"] = inp + out + cr + cw
    u["cost"] = {
        "input": cost_in,
        "output": cost_out,
        "cacheRead": cost_cr,
        "cacheWrite": cost_cw,
        "total": cost_in + cost_out + cost_cr + cost_cw,
    }
    return u


def zero_usage() -> dict:
    return {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }


def est_tokens(obj: Any) -> int:
    s = obj if isinstance(obj, str) else dumps(obj)
    return max(1, int(len(s) / 3.6))


# ---------------------------------------------------------------------------
# Content blocks
# ---------------------------------------------------------------------------


def text(s: str) -> dict:
    return {"type": "text", "text": s}


def think(s: str) -> dict:
    return {"type": "thinking", "thinking": s}


def call(name: str, args: dict) -> dict:
    """A tool call; its id is assigned when the assistant message is added."""
    return {"type": "toolCall", "id": None, "name": name, "arguments": args}


def image_block(data_b64: str, mime: str = "image/png") -> dict:
    return {"type": "image", "data": data_b64, "mimeType": mime}


@dataclass
class Out:
    """The outcome of a tool call, as Pi's tool would return it."""

    text: str
    details: Any = None
    is_error: bool = False
    duration: tuple[int, int] = (4, 40)


def error_out(msg: str, duration: tuple[int, int] = (2, 12)) -> Out:
    # createErrorToolResult(): details are an empty object
    return Out(msg, details={}, is_error=True, duration=duration)


# ---------------------------------------------------------------------------
# Truncation (Pi's truncateTail) for bash output
# ---------------------------------------------------------------------------

MAX_LINES = 2000
MAX_BYTES = 50 * 1024


def format_size(n: int) -> str:
    if n < 1024:
        return f"{n}B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f}KB"
    return f"{n / (1024 * 1024):.1f}MB"


def truncate_tail(content: str) -> dict:
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    total_lines = len(lines)
    total_bytes = len(content.encode())
    kept: list[str] = []
    nbytes = 0
    by = "lines"
    for line in reversed(lines):
        if len(kept) >= MAX_LINES:
            break
        lb = len(line.encode()) + (1 if kept else 0)
        if nbytes + lb > MAX_BYTES:
            by = "bytes"
            break
        kept.insert(0, line)
        nbytes += lb
    out = "\n".join(kept)
    return {
        "content": out,
        "truncated": True,
        "truncatedBy": by,
        "totalLines": total_lines,
        "totalBytes": total_bytes,
        "outputLines": len(kept),
        "outputBytes": len(out.encode()),
        "lastLinePartial": False,
        "firstLineExceedsLimit": False,
        "maxLines": MAX_LINES,
        "maxBytes": MAX_BYTES,
    }


def needs_truncation(content: str) -> bool:
    lines = content.split("\n")
    if content.endswith("\n"):
        lines.pop()
    return len(lines) > MAX_LINES or len(content.encode()) > MAX_BYTES


# ---------------------------------------------------------------------------
# A tiny in-memory project, so reads/edits/greps are consistent
# ---------------------------------------------------------------------------


def _display_diff(old: str, new: str, context: int = 4) -> tuple[str, int | None]:
    """Pi's display diff (``details.diff`` of the edit tool)."""
    a = old.split("\n")
    b = new.split("\n")
    width = len(str(max(old.count("\n") + 1, new.count("\n") + 1)))
    al = old.splitlines()
    bl = new.splitlines()
    parts: list[tuple[str, list[str]]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, al, bl, autojunk=False).get_opcodes():
        if tag == "equal":
            parts.append(("=", al[i1:i2]))
        else:
            if i2 > i1:
                parts.append(("-", al[i1:i2]))
            if j2 > j1:
                parts.append(("+", bl[j1:j2]))
    del a, b
    out: list[str] = []
    old_n = new_n = 1
    last_change = False
    first: int | None = None
    pad = " " * width
    for i, (kind, raw) in enumerate(parts):
        if kind in "+-":
            if first is None:
                first = new_n
            for line in raw:
                if kind == "+":
                    out.append(f"+{str(new_n).rjust(width)} {line}")
                    new_n += 1
                else:
                    out.append(f"-{str(old_n).rjust(width)} {line}")
                    old_n += 1
            last_change = True
            continue
        nxt = i < len(parts) - 1 and parts[i + 1][0] in "+-"
        if last_change and nxt:
            if len(raw) <= context * 2:
                shown = [raw]
                skipped = 0
            else:
                shown = [raw[:context], raw[-context:]]
                skipped = len(raw) - 2 * context
            for line in shown[0]:
                out.append(f" {str(old_n).rjust(width)} {line}")
                old_n += 1
                new_n += 1
            if len(shown) == 2:
                out.append(f" {pad} ...")
                old_n += skipped
                new_n += skipped
                for line in shown[1]:
                    out.append(f" {str(old_n).rjust(width)} {line}")
                    old_n += 1
                    new_n += 1
        elif last_change:
            shown_lines = raw[:context]
            skipped = len(raw) - len(shown_lines)
            for line in shown_lines:
                out.append(f" {str(old_n).rjust(width)} {line}")
                old_n += 1
                new_n += 1
            if skipped > 0:
                out.append(f" {pad} ...")
                old_n += skipped
                new_n += skipped
        elif nxt:
            skipped = max(0, len(raw) - context)
            if skipped > 0:
                out.append(f" {pad} ...")
                old_n += skipped
                new_n += skipped
            for line in raw[skipped:]:
                out.append(f" {str(old_n).rjust(width)} {line}")
                old_n += 1
                new_n += 1
        else:
            old_n += len(raw)
            new_n += len(raw)
        last_change = False
    return "\n".join(out), first


def _unified_patch(path: str, old: str, new: str, context: int = 4) -> str:
    lines = list(
        difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), path, path, n=context)
    )
    out: list[str] = []
    for line in lines:
        if line.startswith("---") or line.startswith("+++"):
            out.append(line.rstrip("\n").rstrip())
            continue
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", line)
        if m:
            a, b, c, d = m.group(1), m.group(2) or "1", m.group(3), m.group(4) or "1"
            out.append(f"@@ -{a},{b} +{c},{d} @@")
            continue
        out.append(line.rstrip("\n"))
    return "\n".join(out) + "\n"


class FS:
    """The demo project's files, mutated by the agent's write/edit calls."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = dict(files)

    # -- read ---------------------------------------------------------------
    def read(self, path: str, offset: int | None = None, limit: int | None = None) -> Out:
        if path not in self.files:
            return error_out(f"ENOENT: no such file or directory, access '{path}'")
        all_lines = self.files[path].split("\n")
        start = offset - 1 if offset else 0
        end = len(all_lines) if limit is None else min(start + limit, len(all_lines))
        body = "\n".join(all_lines[start:end])
        if limit is not None and end < len(all_lines):
            remaining = len(all_lines) - end
            body += f"\n\n[{remaining} more lines in file. Use offset={end + 1} to continue.]"
        return Out(body, duration=(2, 9))

    def write(self, path: str, content: str) -> Out:
        self.files[path] = content
        return Out(f"Successfully wrote to {path}", duration=(2, 8))

    def edit(self, path: str, *edits: tuple[str, str]) -> Out:
        if path not in self.files:
            return error_out(f"Could not edit file: {path}. Error code: ENOENT.")
        old = self.files[path]
        new = old
        for idx, (o, n) in enumerate(edits):
            count = old.count(o)
            if count == 0:
                if len(edits) == 1:
                    return error_out(
                        f"Could not find the exact text in {path}. The old text must match exactly including all whitespace and newlines."
                    )
                return error_out(
                    f"Could not find edits[{idx}] in {path}. The oldText must match exactly including all whitespace and newlines."
                )
            if count > 1:
                return error_out(
                    f"Found {count} occurrences of the text in {path}. The text must be unique. Please provide more context to make it unique."
                )
            new = new.replace(o, n, 1)
        self.files[path] = new
        diff, first = _display_diff(old, new)
        details = {"diff": diff, "patch": _unified_patch(path, old, new), "firstChangedLine": first}
        return Out(f"Successfully replaced {len(edits)} block(s) in {path}.", details=details, duration=(3, 15))

    # -- search ------------------------------------------------------------
    def _under(self, path: str) -> list[str]:
        base = "" if path in (".", "") else path.rstrip("/") + "/"
        return sorted(p for p in self.files if p.startswith(base))

    def grep(self, pattern: str, path: str = ".", glob: str | None = None, ignore_case: bool = False) -> Out:
        rx = re.compile(pattern, re.I if ignore_case else 0)
        base = "" if path in (".", "") else path.rstrip("/") + "/"
        out = []
        files = [path] if path in self.files else self._under(path)
        for p in files:
            rel = p[len(base) :] if p.startswith(base) and path not in self.files else p.rsplit("/", 1)[-1]
            if glob and not fnmatch.fnmatch(rel.rsplit("/", 1)[-1], glob):
                continue
            for n, line in enumerate(self.files[p].split("\n"), 1):
                if rx.search(line):
                    out.append(f"{rel}:{n}: {line}")
        return Out("\n".join(out) if out else "No matches found", duration=(18, 70))

    def find(self, pattern: str, path: str = ".") -> Out:
        base = "" if path in (".", "") else path.rstrip("/") + "/"
        res = []
        for p in self._under(path):
            rel = p[len(base) :]
            name = rel.rsplit("/", 1)[-1]
            if ("/" in pattern and fnmatch.fnmatch(rel, pattern)) or (
                "/" not in pattern and fnmatch.fnmatch(name, pattern)
            ):
                res.append(rel)
        return Out("\n".join(res) if res else "No files found matching pattern", duration=(15, 60))

    def ls(self, path: str = ".", extra: tuple[str, ...] = ()) -> Out:
        base = "" if path in (".", "") else path.rstrip("/") + "/"
        names: set[str] = set(extra)
        for p in self._under(path):
            rest = p[len(base) :]
            names.add(rest.split("/", 1)[0] + ("/" if "/" in rest else ""))
        entries = sorted(names, key=lambda s: s.lower())
        return Out("\n".join(entries) if entries else "(empty directory)", duration=(1, 6))


def bash_out(output: str, exit_code: int = 0, full_path: str | None = None, duration=(120, 900)) -> Out:
    """A bash tool result: Pi's text, truncation notice, exit status."""
    if needs_truncation(output):
        tr = truncate_tail(output)
        start = tr["totalLines"] - tr["outputLines"] + 1
        end = tr["totalLines"]
        body = tr["content"]
        if tr["truncatedBy"] == "lines":
            body += f"\n\n[Showing lines {start}-{end} of {tr['totalLines']}. Full output: {full_path}]"
        else:
            body += f"\n\n[Showing lines {start}-{end} of {tr['totalLines']} ({format_size(MAX_BYTES)} limit). Full output: {full_path}]"
        details: Any = {"truncation": tr, "fullOutputPath": full_path}
    else:
        body = output or "(no output)"
        details = None
    if exit_code != 0:
        body = f"{body}\n\nCommand exited with code {exit_code}"
    return Out(body, details=details, is_error=exit_code != 0, duration=duration)


# ---------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------


class UsageModel:
    """Rough but coherent token accounting: context grows, cache follows it."""

    def __init__(self, base: int, scale: float = 1.0) -> None:
        self.ctx = base
        self.cached = 0
        self.scale = scale

    def add(self, obj: Any) -> int:
        n = int(est_tokens(obj) * self.scale)
        self.ctx += n
        return n


class Session:
    def __init__(
        self,
        *,
        cwd: str,
        start: str,
        seed: int,
        model: Model = SONNET,
        thinking_level: str = "medium",
        version: int | None = 3,
        parent_session: str | None = None,
        header_extra: dict | None = None,
        legacy: bool = False,
        durations: bool = True,
        usage_base: int = 6400,
        usage_scale: float = 1.0,
        session_id: str | None = None,
    ) -> None:
        self.g = Gen(seed)
        self.cwd = cwd
        self.t = ms_of(start)
        self.legacy = legacy
        self.durations = durations
        self.model = model
        self.thinking_level = thinking_level
        self.id = session_id or (self.g.uuid4() if legacy else self.g.uuid7(self.t))
        header: dict[str, Any] = {"type": "session"}
        if version is not None:
            header["version"] = version
        header["id"] = self.id
        header["timestamp"] = iso_of(self.t)
        header["cwd"] = cwd
        if parent_session:
            header["parentSession"] = parent_session
        if header_extra:
            header.update(header_extra)
        self.header = header
        self.lines: list[Any] = [header]  # dicts, or raw strings for damaged lines
        self.by_id: dict[str, dict] = {}
        self.leaf: str | None = None
        self.usage = UsageModel(usage_base, usage_scale)
        self.tokens: dict[str, int] = {}
        self.snap: dict[str, tuple[int, int]] = {}
        self.tick(8, 25)

    # -- paths ---------------------------------------------------------------
    @property
    def project(self) -> str:
        return project_dir_name(self.cwd)

    @property
    def filename(self) -> str:
        return session_file_name(self.header["timestamp"], self.id)

    @property
    def pi_path(self) -> str:
        return f"{PI_SESSIONS}/{self.project}/{self.filename}"

    # -- time ----------------------------------------------------------------
    def tick(self, lo: float, hi: float | None = None) -> int:
        secs = lo if hi is None else self.g.uniform(lo, hi)
        self.t += int(secs * 1000)
        return self.t

    def tick_ms(self, lo: int, hi: int) -> int:
        self.t += self.g.randint(lo, hi)
        return self.t

    # -- core append ---------------------------------------------------------
    def _append(
        self, typ: str, fields: dict, *, parent: Any = "leaf", ids_last: bool = False, ts: int | None = None
    ) -> dict:
        ts = self.t if ts is None else ts
        if self.legacy:
            e = {"type": typ, "timestamp": iso_of(ts), **fields}
            self.lines.append(e)
            return e
        pid = self.leaf if parent == "leaf" else parent
        eid = self.g.hex8()
        if ids_last:
            e = {"type": typ, **fields, "id": eid, "parentId": pid, "timestamp": iso_of(ts)}
        else:
            e = {"type": typ, "id": eid, "parentId": pid, "timestamp": iso_of(ts), **fields}
        self.lines.append(e)
        self.by_id[eid] = e
        self.leaf = eid
        self.snap[eid] = (self.usage.ctx, self.usage.cached)
        return e

    def goto(self, entry_id: str | None) -> None:
        """Move the leaf like Pi's /tree (no entry is written)."""
        self.leaf = entry_id
        if entry_id is not None:
            ctx, cached = self.snap[entry_id]
            self.usage.ctx = ctx
            self.usage.cached = cached

    # -- messages ------------------------------------------------------------
    def _message(self, msg: dict, *, msg_ts: int | None = None, count: bool = True) -> dict:
        e = self._append("message", {"message": msg})
        if count:
            n = self.usage.add(msg.get("content", msg.get("output", "")))
            if not self.legacy:
                self.tokens[e["id"]] = n
                self.snap[e["id"]] = (self.usage.ctx, self.usage.cached)
        return e

    def system(
        self,
        content: str = "",
        *,
        sections: dict | None = None,
        tools_added: list | None = None,
        tools_removed: list | None = None,
    ) -> dict:
        self.tick(0.2, 1.5)
        msg: dict[str, Any] = {"role": "system", "content": content, "timestamp": self.t}
        if sections is not None:
            msg["sections"] = sections
        if tools_added is not None:
            msg["toolsAdded"] = tools_added
        if tools_removed is not None:
            msg["toolsRemoved"] = tools_removed
        self.tick_ms(3, 40)
        e = self._message(msg, count=False)
        self.usage.add(sections or content)
        self.usage.add(tools_added or [])
        return e

    def user(self, content: Any, *, typing: tuple[float, float] = (25, 150)) -> dict:
        self.tick(*typing)
        msg = {"role": "user", "content": content, "timestamp": self.t}
        self.tick_ms(2, 30)
        return self._message(msg)

    def assistant(
        self,
        blocks: list[dict],
        *,
        stop: str | None = None,
        model: Model | None = None,
        error: str | None = None,
        think_secs: tuple[float, float] | None = None,
        usage: dict | None = None,
        thinking_level: Any = "session",
    ) -> dict:
        m = model or self.model
        self.tick(0.6, 2.0)
        start = self.t
        for b in blocks:
            if b["type"] == "toolCall" and b["id"] is None:
                if m.api == "openai-responses":
                    b["id"] = f"call_{self.g.b62(24)}|fc_{self.g.hexn(48)}"
                elif m.api == "google-generative-ai":
                    b["id"] = f"{b['name']}_{self.t}_{self.g.randint(0, 9)}"
                else:
                    b["id"] = f"toolu_01{self.g.b62(22)}"
            if b["type"] == "thinking" and "thinkingSignature" not in b:
                if m.api == "openai-responses":
                    b["thinkingSignature"] = dumps(
                        {
                            "type": "reasoning",
                            "id": f"rs_{self.g.hexn(48)}",
                            "summary": [],
                            "encrypted_content": "gAAAAB" + self.g.b62(88),
                        }
                    )
                elif m.api == "anthropic-messages":
                    b["thinkingSignature"] = self.g.sig()
        if stop is None:
            stop = "toolUse" if any(b["type"] == "toolCall" for b in blocks) else "stop"
        out_tokens = sum(est_tokens(b.get("text") or b.get("thinking") or b.get("arguments") or "") for b in blocks) + 8
        think_tokens = sum(est_tokens(b["thinking"]) for b in blocks if b["type"] == "thinking")
        if usage is None:
            if stop in ("error",) or (stop == "aborted" and not blocks):
                usage = zero_usage()
            else:
                usage = self._usage_for(m, out_tokens, think_tokens)
        secs = think_secs or (2 + out_tokens / 45, 4 + out_tokens / 25)
        self.tick(*secs)
        msg: dict[str, Any] = {
            "role": "assistant",
            "content": blocks,
            "api": m.api,
            "provider": m.provider,
            "model": m.id,
            "usage": usage,
            "stopReason": stop,
            "timestamp": start,
        }
        tl = self.thinking_level if thinking_level == "session" else thinking_level
        if tl is not None and not self.legacy:
            msg["thinkingLevel"] = tl
        if error:
            msg["errorMessage"] = error
        self.tick_ms(1, 12)
        return self._message(msg)

    def _usage_for(self, m: Model, out_tokens: int, think_tokens: int) -> dict:
        u = self.usage
        ctx = u.ctx
        if m.api == "anthropic-messages":
            inp = self.g.randint(3, 12)
            cr = min(u.cached, ctx)
            cw = max(0, ctx - cr - inp)
            u.cached = ctx
            res = usage_obj(m, inp, out_tokens, cr, cw)
        else:
            cr = (min(u.cached, ctx) // 128) * 128
            inp = max(1, ctx - cr)
            u.cached = ctx
            res = usage_obj(m, inp, out_tokens, cr, 0, reasoning=think_tokens if m.api == "openai-responses" else None)
        if self.legacy:
            res.pop("totalTokens", None)
        return res

    def result(self, c: dict, out: Out) -> dict:
        dur = self.g.randint(*out.duration)
        self.t += dur
        msg: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": c["id"],
            "toolName": c["name"],
            "content": [text(out.text)] if isinstance(out.text, str) else out.text,
        }
        if out.details is not None:
            msg["details"] = out.details
        msg["isError"] = out.is_error
        if self.durations:
            msg["durationMs"] = dur
        msg["timestamp"] = self.t
        self.tick_ms(1, 6)
        return self._message(msg)

    def turn(self, blocks: list[dict], outs: list[Out] | None = None, **kw: Any) -> dict:
        """An assistant message followed by one result per tool call."""
        a = self.assistant(blocks, **kw)
        calls = [b for b in blocks if b["type"] == "toolCall"]
        assert len(calls) == len(outs or []), (len(calls), outs)
        for c, o in zip(calls, outs or []):
            self.result(c, o)
        return a

    def bash_exec(
        self,
        command: str,
        output: str,
        exit_code: int | None = 0,
        *,
        exclude: bool | None = False,
        full_path: str | None = None,
    ) -> dict:
        self.tick(6, 30)
        truncated = needs_truncation(output)
        stored = truncate_tail(output)["content"] if truncated else output
        self.tick(0.2, 4)
        msg: dict[str, Any] = {
            "role": "bashExecution",
            "command": command,
            "output": stored,
            "exitCode": exit_code,
            "cancelled": False,
            "truncated": truncated,
        }
        if full_path:
            msg["fullOutputPath"] = full_path
        msg["timestamp"] = self.t
        if exclude is not None and not self.legacy:
            msg["excludeFromContext"] = exclude
        self.tick_ms(2, 20)
        return self._message(msg, count=not exclude)

    # -- other entries -------------------------------------------------------
    def model_change(self, m: Model) -> dict:
        self.tick(2, 9)
        self.model = m
        self.usage.cached = 0
        return self._append("model_change", {"provider": m.provider, "modelId": m.id})

    def thinking_change(self, level: str) -> dict:
        self.tick(1, 5)
        self.thinking_level = level
        return self._append("thinking_level_change", {"thinkingLevel": level})

    def session_info(self, name: str) -> dict:
        self.tick(3, 12)
        return self._append("session_info", {"name": name})

    def label(self, target: str, label: str | None) -> dict:
        self.tick(2, 8)
        fields: dict[str, Any] = {"targetId": target}
        if label is not None:
            fields["label"] = label
        return self._append("label", fields)

    def custom(self, custom_type: str, data: Any) -> dict:
        self.tick_ms(5, 60)
        return self._append("custom", {"customType": custom_type, "data": data}, ids_last=True)

    def custom_message(self, custom_type: str, content: Any, display: bool, details: Any = _OMIT) -> dict:
        self.tick_ms(20, 400)
        e = self._append(
            "custom_message",
            {"customType": custom_type, "content": content, "display": display, "details": details},
            ids_last=True,
        )
        self.usage.add(content)
        return e

    def context_edit(self, target: str, replacement: Any) -> dict:
        self.tick_ms(10, 200)
        removed = self.tokens.get(target, 0)
        self.usage.ctx -= removed
        if replacement is not None:
            self.usage.add(replacement.get("content", ""))
        parent = self.by_id[target]["parentId"]
        if parent in self.snap:
            self.usage.cached = min(self.usage.cached, self.snap[parent][0])
        return self._append("context_edit", {"targetId": target, "replacement": replacement})

    def usage_entry(self, kind: str, m: Model, usage: dict) -> dict:
        return self._append("usage", {"kind": kind, "provider": m.provider, "model": m.id, "usage": usage})

    def branch_summary(self, at: str, summary: str, details: dict, usage: dict) -> dict:
        from_id = self.leaf
        self.goto(at)
        self.tick(9, 20)
        e = self._append(
            "branch_summary",
            {"fromId": from_id, "summary": summary, "details": details, "usage": usage, "fromHook": False},
            parent=at,
        )
        self.usage.add(summary)
        return e

    def compaction(
        self, summary: str, first_kept: str, details: dict, system_message: dict, summary_usage: dict
    ) -> dict:
        tokens_before = self.last_context_tokens()
        self.tick(25, 45)
        sm = dict(system_message)
        sm["timestamp"] = self.t
        e = self._append(
            "compaction",
            {
                "summary": summary,
                "firstKeptEntryId": first_kept,
                "tokensBefore": tokens_before,
                "details": details,
                "usage": summary_usage,
                "fromHook": False,
                "systemMessage": sm,
            },
        )
        # the new context: system prompt + summary + kept entries
        kept = 0
        path = self.path_ids()
        on = False
        for eid in path:
            if eid == first_kept:
                on = True
            if on:
                kept += self.tokens.get(eid, 0)
        self.usage.ctx = 6400 + est_tokens(summary) + kept
        self.usage.cached = 0
        return e

    def last_context_tokens(self) -> int:
        for line in reversed(self.lines):
            if isinstance(line, dict) and line.get("type") == "message" and line["message"]["role"] == "assistant":
                u = line["message"]["usage"]
                if u.get("totalTokens"):
                    return u["totalTokens"]
        return self.usage.ctx

    def path_ids(self) -> list[str]:
        ids = []
        cur = self.leaf
        while cur is not None:
            ids.append(cur)
            cur = self.by_id[cur]["parentId"]
        return list(reversed(ids))

    # -- output ----------------------------------------------------------------
    def render(self) -> str:
        out = []
        for line in self.lines:
            out.append(line if isinstance(line, str) else dumps(line))
        return "\n".join(out) + "\n"

    def write(self, root: Path, *, final_newline: bool = True) -> Path:
        d = root / self.project
        d.mkdir(parents=True, exist_ok=True)
        p = d / self.filename
        data = self.render()
        if not final_newline:
            data = data[:-1]
        p.write_text(data, encoding="utf-8")
        return p


# ---------------------------------------------------------------------------
# A small PNG (the "screenshot" a user pastes)
# ---------------------------------------------------------------------------


def make_png(width: int, height: int, pixel) -> bytes:
    raw = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def checkout_screenshot_png() -> bytes:
    """24x16 mock of a phone screenshot: totals rows, the discount amount wrapped."""

    def px(x: int, y: int) -> tuple[int, int, int]:
        if y in (0, 1):
            return (34, 34, 34)  # status bar
        row = (y - 3) // 3
        in_row = (y - 3) % 3
        if y < 3 or in_row == 2:
            return (230, 230, 230) if in_row == 2 else (255, 255, 255)
        if 1 <= x <= 9 and in_row == 0:
            return (60, 60, 60)  # label text
        if row == 2:  # the discount row: amount wrapped to the next text line
            if 16 <= x <= 22 and in_row == 1:
                return (200, 40, 40)
            return (255, 244, 244)
        if 16 <= x <= 22 and in_row == 0:
            return (60, 60, 60)
        return (255, 255, 255)

    return make_png(24, 16, px)


# ---------------------------------------------------------------------------
# Pi's tools and system prompt
# ---------------------------------------------------------------------------


def _obj(props: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": props, "required": required}


def _s(desc: str) -> dict:
    return {"type": "string", "description": desc}


def _n(desc: str) -> dict:
    return {"type": "number", "description": desc}


TOOLS: dict[str, dict] = {
    "read": {
        "name": "read",
        "description": "Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). Images are sent as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.",
        "parameters": _obj(
            {
                "path": _s("Path to the file to read (relative or absolute)"),
                "offset": _n("Line number to start reading from (1-indexed)"),
                "limit": _n("Maximum number of lines to read"),
            },
            ["path"],
        ),
    },
    "bash": {
        "name": "bash",
        "description": "Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds.",
        "parameters": _obj(
            {
                "command": _s("Shell command to execute"),
                "timeout": _n("Timeout in seconds (optional, no default timeout)"),
            },
            ["command"],
        ),
    },
    "edit": {
        "name": "edit",
        "description": "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to connect distant changes.",
        "parameters": _obj(
            {
                "path": _s("Path to the file to edit (relative or absolute)"),
                "edits": {
                    "type": "array",
                    "items": _obj(
                        {
                            "oldText": _s(
                                "Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call."
                            ),
                            "newText": _s("Replacement text for this targeted edit."),
                        },
                        ["oldText", "newText"],
                    ),
                    "description": "One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead.",
                },
            },
            ["path", "edits"],
        ),
    },
    "write": {
        "name": "write",
        "description": "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.",
        "parameters": _obj(
            {
                "path": _s("Path to the file to write (relative or absolute)"),
                "content": _s("Content to write to the file"),
            },
            ["path", "content"],
        ),
    },
    "grep": {
        "name": "grep",
        "description": "Search file contents for a pattern. Returns matching lines with file paths and line numbers. Respects .gitignore. Output is truncated to 100 matches or 50KB (whichever is hit first). Long lines are truncated to 500 chars.",
        "parameters": _obj(
            {
                "pattern": _s("Search pattern (regex or literal string)"),
                "path": _s("Directory or file to search (default: current directory)"),
                "glob": _s(
                    "Filter files by glob pattern, relative to path, e.g. '*.ts', 'src/**/*.ts' or '**/*.spec.ts'. A pattern without '/' matches file names at any depth"
                ),
                "ignoreCase": {"type": "boolean", "description": "Case-insensitive search (default: false)"},
                "literal": {
                    "type": "boolean",
                    "description": "Treat pattern as literal string instead of regex (default: false)",
                },
                "context": _n("Number of lines to show before and after each match (default: 0)"),
                "limit": _n("Maximum number of matches to return (default: 100)"),
            },
            ["pattern"],
        ),
    },
    "find": {
        "name": "find",
        "description": "Search for files by glob pattern. Returns matching file paths relative to the search directory. Respects .gitignore. Output is truncated to 1000 results or 50KB (whichever is hit first).",
        "parameters": _obj(
            {
                "pattern": _s("Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"),
                "path": _s("Directory to search in (default: current directory)"),
                "limit": _n("Maximum number of results (default: 1000)"),
            },
            ["pattern"],
        ),
    },
    "ls": {
        "name": "ls",
        "description": "List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes dotfiles. Output is truncated to 500 entries or 50KB (whichever is hit first).",
        "parameters": _obj(
            {
                "path": _s("Directory to list (default: current directory)"),
                "limit": _n("Maximum number of entries to return (default: 500)"),
            },
            [],
        ),
    },
    "subagent": {
        "name": "subagent",
        "description": "Delegate work to specialized subagents that run in isolated pi processes. Modes: single ({ agent, task }), parallel ({ tasks: [{ agent, task }] }) or chain ({ chain: [{ agent, task }] }, use {previous} to pass the previous step's output). Available agents: scout (fast codebase recon), worker (implements changes), reviewer (reviews diffs).",
        "parameters": _obj(
            {
                "agent": _s("Agent name (single mode)"),
                "task": _s("Task for the agent (single mode)"),
                "tasks": {
                    "type": "array",
                    "items": _obj({"agent": _s("Agent name"), "task": _s("Task")}, ["agent", "task"]),
                    "description": "Parallel mode: tasks run concurrently",
                },
                "chain": {
                    "type": "array",
                    "items": _obj(
                        {"agent": _s("Agent name"), "task": _s("Task, may reference {previous}")}, ["agent", "task"]
                    ),
                    "description": "Chain mode: steps run in order",
                },
            },
            [],
        ),
    },
}

SNIPPETS = {
    "read": "Read file contents",
    "bash": "Execute bash commands (ls, grep, find, etc.)",
    "edit": "Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
    "write": "Create or overwrite files",
    "grep": "Search file contents for patterns (respects .gitignore)",
    "find": "Find files by glob pattern (respects .gitignore)",
    "ls": "List directory contents",
    "subagent": "Delegate tasks to specialized subagents (scout, worker, reviewer)",
}

RULES = [
    "Use read to examine files instead of cat or sed.",
    "Use edit for targeted changes. Batch changes to one file in a single call.",
    "Each edits[].oldText must exactly and uniquely match the original file. Keep matches short and non-overlapping; merge nearby changes without including large unchanged regions.",
    "Use write only for new files or complete rewrites.",
    "You can inspect PI_* environment variables for current model and session details.",
    "Be concise in your responses",
    "Show file paths clearly when working with files",
]

DOCS = f"""Pi documentation (read only when the user asks about the harness itself, its SDK, extensions, themes, skills, or TUI):
- Main documentation: {PI_PKG}/README.md
- Additional docs: {PI_PKG}/docs
- Examples: {PI_PKG}/examples (extensions, custom tools, SDK)
- When reading pi docs or examples, resolve docs/... under Additional docs and examples/... under Examples, not the current working directory
- When asked about: extensions (docs/extensions.md, examples/extensions/), themes (docs/themes.md), skills (docs/skills.md), prompt templates (docs/prompt-templates.md), TUI components (docs/tui.md), keybindings (docs/keybindings.md), SDK integrations (docs/sdk.md), custom providers (docs/custom-provider.md), adding models (docs/models.md), packages (docs/packages.md), environment variables (docs/environment-variables.md), MCP servers (docs/mcp.md), codemode scripts and non-LLM models such as classifiers and image models (docs/codemode.md)
- Before implementing harness changes, read the relevant docs and examples in full, following related cross-references."""

PREAMBLE = "You are a coding assistant running inside pi, a coding agent harness. Help users inspect files, run commands, and modify code."


def system_sections(
    tools: list[str], cwd: str, context_files: list[tuple[str, str]] = (), skills: str | None = None
) -> dict:
    tool_list = "\n".join(f"- {t}: {SNIPPETS[t]}" for t in tools)
    sections: dict[str, Any] = {"preamble": PREAMBLE}
    parts: dict[str, str] = {
        "tools": f"{tool_list}\n\nAdditional tools may be available.",
        "rules": "\n".join(f"- {r}" for r in RULES),
        "docs": DOCS,
    }
    if context_files:
        parts["project_context"] = "\n\n".join(
            ["Project-specific instructions and guidelines:"]
            + [f'<project_instructions path="{p}">\n{c}\n</project_instructions>' for p, c in context_files]
        )
    if skills:
        parts["skills"] = skills
    parts["cwd"] = cwd
    for name, body in parts.items():
        sections[name] = f"<{name}>\n{body}\n</{name}>"
    return sections


def tool_decls(names: list[str]) -> list[dict]:
    return [TOOLS[n] for n in names]


# ---------------------------------------------------------------------------
# The "shop" project: a small Flask storefront
# ---------------------------------------------------------------------------

SHOP = "/home/demo/shop"

SHOP_AGENTS_MD = """# shop

Small Flask storefront for the Saturday market stall (mugs, tees, prints).

- Python 3.12, Flask 3, no ORM: products live in `data/products.json`.
- Money is always `decimal.Decimal`, rounded with `shop.checkout.money()`.
- Run the tests with `python -m pytest -q`. Keep them fast.
- Don't add dependencies without asking."""

SHOP_FILES: dict[str, str] = {
    "AGENTS.md": SHOP_AGENTS_MD + "\n",
    "README.md": """# shop

The web shop for our market stall.

    python -m venv .venv && . .venv/bin/activate
    pip install -e '.[dev]'
    flask --app shop run --debug
""",
    "CHANGELOG.md": """# Changelog

## 0.4.0 (2026-10-30)

- Free shipping from 50 € (was 60 €).
- Cart remembers quantities when you add the same product twice.

## 0.3.0 (2026-09-12)

- VAT is shown as its own line at checkout.
""",
    "pyproject.toml": """[project]
name = "shop"
version = "0.4.0"
requires-python = ">=3.12"
dependencies = ["flask>=3.0"]

[project.optional-dependencies]
dev = ["pytest>=8", "mypy>=1.11", "freezegun>=1.5"]

[tool.pytest.ini_options]
testpaths = ["tests"]
""",
    "data/products.json": """[
  {"sku": "MUG-01", "name": "Enamel mug", "price": "12.50", "stock": 40},
  {"sku": "TEE-02", "name": "Market tee", "price": "24.00", "stock": 12},
  {"sku": "PRT-03", "name": "Risograph print", "price": "18.00", "stock": 25}
]
""",
    "shop/__init__.py": """from flask import Flask


def create_app(config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(SECRET_KEY="dev", PRODUCTS_PATH="data/products.json")
    if config:
        app.config.update(config)

    from . import views

    app.register_blueprint(views.bp)
    return app
""",
    "shop/cart.py": '''"""Shopping cart, kept in the Flask session."""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


@dataclass
class Line:
    sku: str
    name: str
    price: Decimal
    quantity: int = 1

    @property
    def amount(self) -> Decimal:
        return self.price * self.quantity


@dataclass
class Cart:
    lines: list[Line] = field(default_factory=list)

    def add(self, sku: str, name: str, price: Decimal, quantity: int = 1) -> None:
        for line in self.lines:
            if line.sku == sku:
                line.quantity += quantity
                return
        self.lines.append(Line(sku, name, price, quantity))

    def remove(self, sku: str) -> None:
        self.lines = [line for line in self.lines if line.sku != sku]

    @property
    def count(self) -> int:
        return sum(line.quantity for line in self.lines)

    def to_session(self) -> list[dict]:
        return [
            {"sku": l.sku, "name": l.name, "price": str(l.price), "quantity": l.quantity}
            for l in self.lines
        ]

    @classmethod
    def from_session(cls, data: list[dict] | None) -> Cart:
        cart = cls()
        for item in data or []:
            cart.add(item["sku"], item["name"], Decimal(item["price"]), item["quantity"])
        return cart
''',
    "shop/catalog.py": """import json
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path

from flask import abort, current_app


@dataclass(frozen=True)
class Product:
    sku: str
    name: str
    price: Decimal
    stock: int


@cache
def _load(path: str) -> dict:
    raw = json.loads(Path(path).read_text())
    return {
        item["sku"]: Product(item["sku"], item["name"], Decimal(item["price"]), item["stock"])
        for item in raw
    }


def get_product(sku: str) -> Product:
    products = _load(current_app.config["PRODUCTS_PATH"])
    if sku not in products:
        abort(404)
    return products[sku]
""",
    "shop/checkout.py": '''"""Checkout: turns a cart into an order total."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from .cart import Cart

TAX_RATE = Decimal("0.08")
FREE_SHIPPING_OVER = Decimal("50.00")
FLAT_SHIPPING = Decimal("4.95")
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Totals:
    subtotal: Decimal
    shipping: Decimal
    tax: Decimal
    total: Decimal


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def compute_totals(cart: Cart) -> Totals:
    subtotal = sum((line.price * line.quantity for line in cart.lines), Decimal("0"))
    shipping = Decimal("0") if subtotal >= FREE_SHIPPING_OVER else FLAT_SHIPPING
    tax = money(subtotal * TAX_RATE)
    total = money(subtotal + shipping + tax)
    return Totals(subtotal=money(subtotal), shipping=shipping, tax=tax, total=total)
''',
    "shop/views.py": """from flask import Blueprint, flash, redirect, render_template, session, url_for

from .cart import Cart
from .catalog import get_product
from .checkout import compute_totals

bp = Blueprint("shop", __name__)


def current_cart() -> Cart:
    return Cart.from_session(session.get("cart"))


@bp.post("/cart/add/<sku>")
def add_to_cart(sku: str):
    product = get_product(sku)
    cart = current_cart()
    cart.add(product.sku, product.name, product.price)
    session["cart"] = cart.to_session()
    flash(f"Added {product.name} to your cart.")
    return redirect(url_for("shop.show_cart"))


@bp.get("/cart")
def show_cart():
    return render_template("cart.html", cart=current_cart())


@bp.get("/checkout")
def checkout():
    cart = current_cart()
    if not cart.lines:
        return redirect(url_for("shop.show_cart"))
    return render_template("checkout.html", cart=cart, totals=compute_totals(cart))


@bp.post("/checkout")
def place_order():
    totals = compute_totals(current_cart())
    session.pop("cart", None)
    flash(f"Thanks! Your order total was {totals.total} €.")
    return redirect(url_for("shop.show_cart"))
""",
    "shop/templates/base.html": """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{% block title %}{% endblock %} · Market Stall</title>
  <link rel="stylesheet" href="{{ url_for('static', filename='style.css') }}">
</head>
<body>
  {% for message in get_flashed_messages() %}
  <p class="flash">{{ message }}</p>
  {% endfor %}
  {% block content %}{% endblock %}
</body>
</html>
""",
    "shop/templates/cart.html": """{% extends "base.html" %}
{% block title %}Your cart{% endblock %}
{% block content %}
<h1>Your cart</h1>
{% if cart.lines %}
<ul class="cart">
  {% for line in cart.lines %}
  <li>{{ line.name }} &times; {{ line.quantity }}</li>
  {% endfor %}
</ul>
<a class="button" href="{{ url_for('shop.checkout') }}">Checkout</a>
{% else %}
<p>Your cart is empty.</p>
{% endif %}
{% endblock %}
""",
    "shop/templates/checkout.html": """{% extends "base.html" %}
{% block title %}Checkout{% endblock %}
{% block content %}
<h1>Checkout</h1>
<table class="totals">
  {% for line in cart.lines %}
  <tr>
    <td>{{ line.name }} &times; {{ line.quantity }}</td>
    <td class="amount">{{ line.amount }} €</td>
  </tr>
  {% endfor %}
  <tr class="subtotal"><td>Subtotal</td><td class="amount">{{ totals.subtotal }} €</td></tr>
  <tr><td>Shipping</td><td class="amount">{{ totals.shipping }} €</td></tr>
  <tr><td>VAT (8%)</td><td class="amount">{{ totals.tax }} €</td></tr>
  <tr class="total"><td>Total</td><td class="amount">{{ totals.total }} €</td></tr>
</table>
<form method="post" action="{{ url_for('shop.place_order') }}">
  <button type="submit">Place order</button>
</form>
{% endblock %}
""",
    "shop/static/style.css": """body {
  font-family: system-ui, sans-serif;
  max-width: 40rem;
  margin: 2rem auto;
  padding: 0 1rem;
}

.flash {
  background: #eef7ee;
  padding: .5rem 1rem;
  border-radius: 4px;
}

.totals {
  width: 100%;
  border-collapse: collapse;
}

.totals td {
  padding: .4rem .2rem;
  border-bottom: 1px solid #ddd;
}

.totals .amount {
  text-align: right;
}

.totals .total td {
  font-weight: 600;
  border-top: 2px solid #333;
}
""",
    "tests/conftest.py": """import pytest

from shop import create_app


@pytest.fixture
def app(tmp_path):
    products = tmp_path / "products.json"
    products.write_text(
        '[{"sku": "MUG-01", "name": "Enamel mug", "price": "12.50", "stock": 40},'
        ' {"sku": "TEE-02", "name": "Market tee", "price": "24.00", "stock": 12}]'
    )
    return create_app({"TESTING": True, "PRODUCTS_PATH": str(products)})


@pytest.fixture
def client(app):
    return app.test_client()
""",
    "tests/test_checkout.py": """from decimal import Decimal

from shop.cart import Cart
from shop.checkout import compute_totals


def make_cart(*prices: str) -> Cart:
    cart = Cart()
    for i, price in enumerate(prices):
        cart.add(f"SKU-{i}", f"Item {i}", Decimal(price))
    return cart


def test_small_order_pays_flat_shipping():
    totals = compute_totals(make_cart("10.00"))
    assert totals.shipping == Decimal("4.95")
    assert totals.tax == Decimal("0.80")
    assert totals.total == Decimal("15.75")


def test_free_shipping_from_fifty_euros():
    totals = compute_totals(make_cart("30.00", "20.00"))
    assert totals.shipping == Decimal("0")
    assert totals.total == Decimal("54.00")


def test_tax_is_rounded_half_up():
    totals = compute_totals(make_cart("10.06"))
    assert totals.tax == Decimal("0.80")
""",
}


# -- legacy unittest suites, migrated to pytest in the long session ----------


@dataclass
class Suite:
    module: str  # tests/test_<module>.py
    cls: str
    imports: list[str]  # stdlib lines first, then "from shop..." lines
    fixtures: list[tuple[str, str]]
    tests: list[tuple[str, list[Any]]]


def _sub(code: str, names: list[str], style: str) -> str:
    for n in names:
        code = code.replace("{" + n + "}", ("self." + n) if style == "unittest" else n)
    return code


def _assert_lines(item: Any, style: str) -> list[str]:
    if isinstance(item, str):
        return [item]
    kind, *a = item
    if style == "unittest":
        simple = {
            "eq": "assertEqual",
            "ne": "assertNotEqual",
            "lt": "assertLess",
            "true": "assertTrue",
            "false": "assertFalse",
            "none": "assertIsNone",
            "in": "assertIn",
            "notin": "assertNotIn",
        }
        if kind in simple:
            return [f"self.{simple[kind]}({', '.join(a)})"]
        if kind == "len":
            return [f"self.assertEqual(len({a[0]}), {a[1]})"]
        if kind == "almost":
            return [f"self.assertAlmostEqual({a[0]}, {a[1]}, places=2)"]
        if kind == "raises":
            return [f"with self.assertRaises({a[0]}):", f"    {a[1]}"]
        if kind == "raises_match":
            return [f"with self.assertRaisesRegex({a[0]}, {a[1]}):", f"    {a[2]}"]
    else:
        if kind == "eq":
            return [f"assert {a[0]} == {a[1]}"]
        if kind == "ne":
            return [f"assert {a[0]} != {a[1]}"]
        if kind == "lt":
            return [f"assert {a[0]} < {a[1]}"]
        if kind == "true":
            return [f"assert {a[0]}"]
        if kind == "false":
            return [f"assert not {a[0]}"]
        if kind == "none":
            return [f"assert {a[0]} is None"]
        if kind == "in":
            return [f"assert {a[0]} in {a[1]}"]
        if kind == "notin":
            return [f"assert {a[0]} not in {a[1]}"]
        if kind == "len":
            return [f"assert len({a[0]}) == {a[1]}"]
        if kind == "almost":
            return [f"assert {a[0]} == pytest.approx({a[1]}, abs=0.01)"]
        if kind == "raises":
            return [f"with pytest.raises({a[0]}):", f"    {a[1]}"]
        if kind == "raises_match":
            return [f"with pytest.raises({a[0]}, match={a[1]}):", f"    {a[2]}"]
    raise ValueError(kind)


def _uses(lines: list[str], names: list[str]) -> list[str]:
    joined = "\n".join(lines)
    return [n for n in names if "{" + n + "}" in joined]


def render_unittest(s: Suite) -> str:
    std = [i for i in s.imports if not i.startswith("from shop")]
    own = [i for i in s.imports if i.startswith("from shop")]
    names = [n for n, _ in s.fixtures]
    out = ["import unittest"] + std + [""] + own + ["", "", f"class {s.cls}(unittest.TestCase):"]
    if s.fixtures:
        out.append("    def setUp(self):")
        for n, expr in s.fixtures:
            out.append(f"        self.{n} = {_sub(expr, names, 'unittest')}")
        out.append("")
    for i, (tname, body) in enumerate(s.tests):
        out.append(f"    def test_{tname}(self):")
        for item in body:
            for line in _assert_lines(item, "unittest"):
                out.append("        " + _sub(line, names, "unittest"))
        if i < len(s.tests) - 1:
            out.append("")
    return "\n".join(out) + "\n"


def render_pytest(s: Suite) -> str:
    std = [i for i in s.imports if not i.startswith("from shop")]
    own = [i for i in s.imports if i.startswith("from shop")]
    names = [n for n, _ in s.fixtures]
    bodies = []
    needs_pytest = bool(s.fixtures)
    for tname, body in s.tests:
        lines = []
        for item in body:
            if not isinstance(item, str) and item[0] in ("raises", "raises_match", "almost"):
                needs_pytest = True
            lines += _assert_lines(item, "pytest")
        bodies.append((tname, lines))
    out: list[str] = []
    if std:
        out += std + [""]
    if needs_pytest:
        out += ["import pytest", ""]
    out += own
    for n, expr in s.fixtures:
        deps = _uses([expr], names)
        out += ["", "", "@pytest.fixture", f"def {n}({', '.join(deps)}):", f"    return {_sub(expr, names, 'pytest')}"]
    for tname, lines in bodies:
        params = _uses(lines, names)
        out += ["", "", f"def test_{tname}({', '.join(params)}):"]
        out += ["    " + _sub(line, names, "pytest") for line in lines]
    return "\n".join(out) + "\n"


SUITES: list[Suite] = [
    Suite(
        "cart",
        "CartTests",
        ["from decimal import Decimal", "from shop.cart import Cart"],
        [("cart", "Cart()")],
        [
            ("new_cart_is_empty", [("len", "{cart}.lines", "0"), ("eq", "{cart}.count", "0")]),
            (
                "adding_same_sku_merges_lines",
                [
                    '{cart}.add("MUG-01", "Enamel mug", Decimal("12.50"))',
                    '{cart}.add("MUG-01", "Enamel mug", Decimal("12.50"), 2)',
                    ("len", "{cart}.lines", "1"),
                    ("eq", "{cart}.count", "3"),
                ],
            ),
            (
                "remove_drops_the_line",
                [
                    '{cart}.add("TEE-02", "Market tee", Decimal("24.00"))',
                    '{cart}.remove("TEE-02")',
                    ("eq", "{cart}.lines", "[]"),
                ],
            ),
            (
                "session_roundtrip_keeps_decimals",
                [
                    '{cart}.add("TEE-02", "Market tee", Decimal("24.00"))',
                    "restored = Cart.from_session({cart}.to_session())",
                    ("eq", "restored.lines[0].price", 'Decimal("24.00")'),
                ],
            ),
            (
                "line_amount_multiplies_quantity",
                [
                    '{cart}.add("MUG-01", "Enamel mug", Decimal("12.50"), 3)',
                    ("eq", "{cart}.lines[0].amount", 'Decimal("37.50")'),
                ],
            ),
        ],
    ),
    Suite(
        "inventory",
        "InventoryTests",
        ["from shop.inventory import Inventory, OutOfStock"],
        [("inv", 'Inventory({"MUG-01": 3, "TEE-02": 0})')],
        [
            ("reserve_decrements_available", ['{inv}.reserve("MUG-01", 2)', ("eq", '{inv}.available("MUG-01")', "1")]),
            ("reserving_more_than_stock_raises", [("raises", "OutOfStock", '{inv}.reserve("MUG-01", 5)')]),
            ("sold_out_items_are_not_available", [("false", '{inv}.is_available("TEE-02")')]),
            (
                "release_returns_stock",
                ['{inv}.reserve("MUG-01", 3)', '{inv}.release("MUG-01", 1)', ("eq", '{inv}.available("MUG-01")', "1")],
            ),
            ("unknown_sku_has_no_stock", [("eq", '{inv}.available("NOPE-99")', "0")]),
        ],
    ),
    Suite(
        "orders",
        "OrderTests",
        [
            "from datetime import date, datetime, timedelta",
            "from decimal import Decimal",
            "from shop.orders import Order, next_order_number",
        ],
        [("placed", "datetime(2026, 11, 2, 10, 30)"), ("order", 'Order("20261102-0001", {placed}, Decimal("31.40"))')],
        [
            ("first_order_number_of_the_day", [("eq", "next_order_number(date(2026, 11, 2))", '"20261102-0001"')]),
            (
                "order_numbers_increase",
                [
                    "first = next_order_number(date(2026, 11, 2))",
                    "second = next_order_number(date(2026, 11, 2))",
                    ("lt", "first", "second"),
                ],
            ),
            (
                "order_is_late_after_three_days",
                [("true", "{order}.is_late(now={placed} + timedelta(days=3, minutes=1))")],
            ),
            ("fresh_order_is_not_late", [("false", "{order}.is_late(now={placed} + timedelta(hours=5))")]),
        ],
    ),
    Suite(
        "payments",
        "PaymentTests",
        ["from decimal import Decimal", "from shop.payments import FakeGateway, PaymentError, charge, refund"],
        [("gateway", "FakeGateway()")],
        [
            (
                "charge_sends_amount_in_cents",
                ['charge({gateway}, "tok_visa", Decimal("12.50"))', ("eq", '{gateway}.calls[0]["amount"]', "1250")],
            ),
            (
                "declined_card_raises",
                [("raises", "PaymentError", 'charge({gateway}, "tok_declined", Decimal("10.00"))')],
            ),
            (
                "refund_cannot_exceed_charge",
                [
                    'payment = charge({gateway}, "tok_visa", Decimal("10.00"))',
                    ("raises_match", "PaymentError", '"exceeds"', 'refund({gateway}, payment, Decimal("10.01"))'),
                ],
            ),
            (
                "partial_refund_is_recorded",
                [
                    'payment = charge({gateway}, "tok_visa", Decimal("30.00"))',
                    'refund({gateway}, payment, Decimal("12.00"))',
                    ("eq", "payment.refunded", 'Decimal("12.00")'),
                ],
            ),
        ],
    ),
    Suite(
        "shipping",
        "ShippingTests",
        ["from decimal import Decimal", "from shop.shipping import rate_for"],
        [],
        [
            ("domestic_flat_rate", [("eq", 'rate_for("DE", grams=800)', 'Decimal("4.95")')]),
            ("eu_rate", [("eq", 'rate_for("FR", grams=800)', 'Decimal("9.90")')]),
            ("heavy_parcels_pay_surcharge", [("eq", 'rate_for("DE", grams=5200)', 'Decimal("8.45")')]),
            ("unknown_country_raises", [("raises", "KeyError", 'rate_for("ZZ", grams=100)')]),
        ],
    ),
    Suite(
        "taxes",
        "TaxTests",
        ["from decimal import Decimal", "from shop.taxes import vat_for"],
        [],
        [
            ("standard_rate", [("eq", 'vat_for("mug", "DE")', 'Decimal("0.19")')]),
            ("prints_are_reduced_rate", [("eq", 'vat_for("print", "DE")', 'Decimal("0.07")')]),
            ("no_vat_outside_the_eu", [("eq", 'vat_for("mug", "CH")', 'Decimal("0")')]),
        ],
    ),
    Suite(
        "currency",
        "CurrencyTests",
        ["from decimal import Decimal", "from shop.currency import UnknownCurrency, convert"],
        [],
        [
            ("eur_to_chf", [("almost", 'convert(Decimal("19.99"), "EUR", "CHF")', "18.79")]),
            ("same_currency_is_identity", [("eq", 'convert(Decimal("5.00"), "EUR", "EUR")', 'Decimal("5.00")')]),
            ("unknown_currency_raises", [("raises", "UnknownCurrency", 'convert(Decimal("1"), "EUR", "XYZ")')]),
        ],
    ),
    Suite(
        "emails",
        "EmailTests",
        ["from decimal import Decimal", "from shop.emails import order_confirmation, weekly_digest"],
        [],
        [
            (
                "confirmation_mentions_order_number",
                [("in", '"20261102-0001"', 'order_confirmation("20261102-0001", Decimal("31.40"))')],
            ),
            (
                "confirmation_shows_total",
                [("in", '"31.40 €"', 'order_confirmation("20261102-0001", Decimal("31.40"))')],
            ),
            (
                "digest_lists_products_alphabetically",
                [
                    'digest = weekly_digest({"Risograph print", "Enamel mug", "Market tee"})',
                    ("eq", "digest.splitlines()[1:]", '["- Enamel mug", "- Market tee", "- Risograph print"]'),
                ],
            ),
            (
                "digest_skips_products_announced_before",
                ['weekly_digest({"Enamel mug"})', ("eq", 'weekly_digest({"Enamel mug"})', '"New this week:"')],
            ),
        ],
    ),
    Suite(
        "users",
        "UserTests",
        ["from shop.users import User, normalize_email"],
        [],
        [
            ("email_is_lowercased_and_trimmed", [("eq", 'normalize_email("  Ana@Example.COM ")', '"ana@example.com"')]),
            ("display_name_falls_back_to_email", [("eq", 'User(email="ana@example.com").display_name', '"ana"')]),
            ("blank_email_is_rejected", [("raises", "ValueError", 'normalize_email("   ")')]),
        ],
    ),
    Suite(
        "auth",
        "AuthTests",
        ["from shop.auth import hash_password, verify_password"],
        [("hashed", 'hash_password("correct horse")')],
        [
            ("correct_password_verifies", [("true", 'verify_password("correct horse", {hashed})')]),
            ("wrong_password_fails", [("false", 'verify_password("battery staple", {hashed})')]),
            ("hashes_are_salted", [("ne", "{hashed}", 'hash_password("correct horse")')]),
        ],
    ),
    Suite(
        "search",
        "SearchTests",
        ["from shop.search import search"],
        [("names", '["Enamel mug", "Market tee", "Risograph print", "Tote bag"]')],
        [
            ("finds_by_word", [("eq", 'search({names}, "mug")', '["Enamel mug"]')]),
            ("is_case_insensitive", [("eq", 'search({names}, "TEE")', '["Market tee"]')]),
            ("empty_query_returns_everything", [("eq", 'search({names}, "")', "{names}")]),
            ("no_results", [("eq", 'search({names}, "poster")', "[]")]),
        ],
    ),
    Suite(
        "reviews",
        "ReviewTests",
        ["from shop.reviews import Review, average_rating"],
        [],
        [
            ("average_is_rounded_to_one_decimal", [("eq", "average_rating([Review(5), Review(4), Review(4)])", "4.3")]),
            ("no_reviews_means_no_average", [("none", "average_rating([])")]),
            ("rating_must_be_one_to_five", [("raises", "ValueError", "Review(6)")]),
        ],
    ),
    Suite(
        "wishlist",
        "WishlistTests",
        ["from shop.wishlist import Wishlist"],
        [("wishlist", "Wishlist()")],
        [
            ("add_item", ['{wishlist}.add("PRT-03")', ("in", '"PRT-03"', "{wishlist}")]),
            ("no_duplicates", ['{wishlist}.add("PRT-03")', '{wishlist}.add("PRT-03")', ("len", "{wishlist}", "1")]),
            ("removing_a_missing_item_is_a_no_op", ['{wishlist}.remove("MUG-01")', ("len", "{wishlist}", "0")]),
        ],
    ),
    Suite(
        "reports",
        "ReportTests",
        [
            "from datetime import date",
            "from decimal import Decimal",
            "from shop.reports import ORDERS, record_order, weekly_report",
        ],
        [],
        [
            ("empty_week_has_no_orders", [("eq", "weekly_report(date.today()).orders", "0")]),
            (
                "orders_outside_the_week_are_ignored",
                [
                    "ORDERS.clear()",
                    'record_order(date(2026, 11, 1), Decimal("18.00"))',
                    ("eq", "weekly_report(date(2026, 11, 8)).orders", "0"),
                ],
            ),
            (
                "report_sums_revenue",
                [
                    "ORDERS.clear()",
                    'record_order(date(2026, 11, 12), Decimal("24.00"))',
                    'record_order(date(2026, 11, 14), Decimal("12.50"))',
                    ("eq", "weekly_report(date(2026, 11, 15)).revenue", 'Decimal("36.50")'),
                ],
            ),
        ],
    ),
    Suite(
        "invoices",
        "InvoiceTests",
        [
            "from datetime import date",
            "from decimal import Decimal",
            "from shop.invoices import invoice_number, render_invoice",
        ],
        [],
        [
            ("number_has_year_prefix", [("eq", "invoice_number(date(2026, 11, 2), 42)", '"INV-2026-00042"')]),
            (
                "lines_are_rendered",
                [("in", '"Enamel mug  x2  25.00 €"', 'render_invoice([("Enamel mug", 2, Decimal("12.50"))])')],
            ),
            ("vat_line_is_present", [("in", '"incl. VAT"', 'render_invoice([("Market tee", 1, Decimal("24.00"))])')]),
        ],
    ),
    Suite(
        "newsletter",
        "NewsletterTests",
        ["from shop.newsletter import Subscribers, unsubscribe_token, verify_token"],
        [("subs", "Subscribers()")],
        [
            (
                "subscribe_normalizes_email",
                ['{subs}.subscribe(" Ana@Example.com")', ("in", '"ana@example.com"', "{subs}")],
            ),
            (
                "double_subscribe_is_idempotent",
                ['{subs}.subscribe("ana@example.com")', '{subs}.subscribe("ana@example.com")', ("len", "{subs}", "1")],
            ),
            ("token_roundtrip", [("eq", 'verify_token(unsubscribe_token("ana@example.com"))', '"ana@example.com"')]),
        ],
    ),
    Suite(
        "slugs",
        "SlugTests",
        ["from shop.slugs import slugify"],
        [],
        [
            ("plain_ascii", [("eq", 'slugify("Enamel Mug")', '"enamel-mug"')]),
            ("accents_are_folded", [("eq", 'slugify("Crème brûlée print")', '"creme-brulee-print"')]),
            ("repeated_separators_collapse", [("eq", 'slugify("Tote -- bag!!")', '"tote-bag"')]),
            ("empty_title_gets_placeholder", [("eq", 'slugify("???")', '"item"')]),
        ],
    ),
    Suite(
        "pagination",
        "PaginationTests",
        ["from shop.pagination import Page, paginate"],
        [("items", "list(range(1, 24))")],
        [
            (
                "first_page",
                [("eq", "paginate({items}, page=1, per_page=10)", "Page(items=list(range(1, 11)), page=1, pages=3)")],
            ),
            ("last_page_is_partial", [("eq", "paginate({items}, page=3, per_page=10).items", "[21, 22, 23]")]),
            ("page_out_of_range_raises", [("raises", "ValueError", "paginate({items}, page=4, per_page=10)")]),
        ],
    ),
    Suite(
        "returns",
        "ReturnTests",
        ["from datetime import date", "from shop.returns import can_return"],
        [("delivered", "date(2026, 10, 20)")],
        [
            ("within_thirty_days", [("true", "can_return({delivered}, today=date(2026, 11, 18))")]),
            ("after_thirty_days", [("false", "can_return({delivered}, today=date(2026, 11, 20))")]),
            ("sale_items_are_final", [("false", "can_return({delivered}, today=date(2026, 10, 21), on_sale=True)")]),
        ],
    ),
    Suite(
        "gift_cards",
        "GiftCardTests",
        ["from decimal import Decimal", "from shop.gift_cards import GiftCard, InsufficientBalance"],
        [("card", 'GiftCard("GC-7Q2M", Decimal("25.00"))')],
        [
            (
                "partial_redemption_keeps_balance",
                ['{card}.redeem(Decimal("10.00"))', ("eq", "{card}.balance", 'Decimal("15.00")')],
            ),
            ("redeeming_too_much_raises", [("raises", "InsufficientBalance", '{card}.redeem(Decimal("25.01"))')]),
            (
                "balance_never_goes_negative",
                ['{card}.redeem(Decimal("25.00"))', ("eq", "{card}.balance", 'Decimal("0.00")')],
            ),
        ],
    ),
    Suite(
        "loyalty",
        "LoyaltyTests",
        ["from decimal import Decimal", "from shop.loyalty import points_for, tier_for"],
        [],
        [
            ("one_point_per_full_euro", [("eq", 'points_for(Decimal("31.90"))', "31")]),
            ("bronze_below_100_points", [("eq", "tier_for(99)", '"bronze"')]),
            ("silver_from_100_points", [("eq", "tier_for(100)", '"silver"')]),
            ("gold_from_500_points", [("eq", "tier_for(500)", '"gold"')]),
        ],
    ),
    Suite(
        "stock_alerts",
        "StockAlertTests",
        ["from shop.stock_alerts import low_stock"],
        [("stock", '{"MUG-01": 40, "TEE-02": 5, "PRT-03": 2}')],
        [
            ("lists_items_below_threshold", [("eq", "low_stock({stock}, threshold=5)", '["PRT-03", "TEE-02"]')]),
            ("nothing_low", [("eq", "low_stock({stock}, threshold=1)", "[]")]),
        ],
    ),
    Suite(
        "images",
        "ImageTests",
        ["from shop.images import thumbnail_name"],
        [],
        [
            ("adds_size_suffix", [("eq", 'thumbnail_name("mug.jpg", 320)', '"mug-320w.jpg"')]),
            ("keeps_directories", [("eq", 'thumbnail_name("prints/riso.png", 640)', '"prints/riso-640w.png"')]),
        ],
    ),
    Suite(
        "prices",
        "PriceTests",
        ["from decimal import Decimal", "from shop.prices import format_price"],
        [],
        [
            ("uses_comma_and_euro_sign", [("eq", 'format_price(Decimal("12.5"))', '"12,50 €"')]),
            ("thousands_separator", [("eq", 'format_price(Decimal("1249"))', '"1.249,00 €"')]),
            ("negative_amounts_for_refunds", [("eq", 'format_price(Decimal("-3.2"))', '"−3,20 €"')]),
        ],
    ),
]

SUITES += [
    Suite(
        "addresses",
        "AddressTests",
        ["from shop.addresses import Address, InvalidPostcode"],
        [],
        [
            (
                "german_postcode_has_five_digits",
                [("raises", "InvalidPostcode", 'Address("Ana Weber", "Marktplatz 3", "1234", "Leipzig", "DE")')],
            ),
            (
                "postcode_whitespace_is_stripped",
                [("eq", 'Address("Ana Weber", "Marktplatz 3", " 04109 ", "Leipzig", "DE").postcode', '"04109"')],
            ),
            (
                "label_has_country_line_abroad",
                [("in", '"FRANCE"', 'Address("Luc Martin", "2 rue Cler", "75007", "Paris", "FR").label()')],
            ),
        ],
    ),
    Suite(
        "bundles",
        "BundleTests",
        ["from decimal import Decimal", "from shop.bundles import Bundle"],
        [("bundle", 'Bundle("Starter set", [Decimal("12.50"), Decimal("24.00")], percent_off=Decimal("15"))')],
        [
            ("bundle_price_is_discounted", [("eq", "{bundle}.price", 'Decimal("31.03")')]),
            ("savings_are_shown", [("eq", "{bundle}.savings", 'Decimal("5.47")')]),
            ("empty_bundle_is_rejected", [("raises", "ValueError", 'Bundle("Nothing", [])')]),
        ],
    ),
    Suite(
        "csv_export",
        "CsvExportTests",
        ["import csv", "import io", "from decimal import Decimal", "from shop.csv_export import export_orders"],
        [("rows", '[("20261102-0001", "ana@example.com", Decimal("31.40"))]')],
        [
            (
                "header_row",
                [("eq", "next(csv.reader(io.StringIO(export_orders({rows}))))", '["number", "email", "total"]')],
            ),
            ("totals_use_a_dot", [("in", '"31.40"', "export_orders({rows})")]),
            ("no_rows_still_has_header", [("eq", "export_orders([]).strip()", '"number,email,total"')]),
        ],
    ),
    Suite(
        "feeds",
        "FeedTests",
        ["from datetime import datetime, timezone", "from shop.feeds import product_feed"],
        [("items", '[("Enamel mug", "/p/enamel-mug", datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc))]')],
        [
            ("feed_is_rss_2", [("in", "'<rss version=\"2.0\"'", "product_feed({items})")]),
            (
                "item_has_absolute_link",
                [("in", '"<link>https://market-stall.example/p/enamel-mug</link>"', "product_feed({items})")],
            ),
            ("dates_are_rfc_822", [("in", '"Mon, 02 Nov 2026 09:00:00 +0000"', "product_feed({items})")]),
        ],
    ),
    Suite(
        "markdown",
        "MarkdownTests",
        ["from shop.markdown import render"],
        [],
        [
            ("bold", [("eq", 'render("**hand made**")', '"<p><strong>hand made</strong></p>"')]),
            ("html_is_escaped", [("eq", 'render("<script>")', '"<p>&lt;script&gt;</p>"')]),
            ("blank_lines_split_paragraphs", [("eq", 'render("a\\n\\nb").count("<p>")', "2")]),
        ],
    ),
    Suite(
        "rate_limit",
        "RateLimitTests",
        ["from shop.rate_limit import RateLimiter"],
        [("clock", "[1000.0]"), ("limiter", "RateLimiter(limit=3, per_seconds=60, clock=lambda: {clock}[0])")],
        [
            ("allows_up_to_the_limit", [("true", 'all({limiter}.allow("10.0.0.1") for _ in range(3))')]),
            (
                "blocks_after_the_limit",
                ["for _ in range(3):", '    {limiter}.allow("10.0.0.1")', ("false", '{limiter}.allow("10.0.0.1")')],
            ),
            (
                "window_slides",
                [
                    "for _ in range(3):",
                    '    {limiter}.allow("10.0.0.1")',
                    "{clock}[0] += 61",
                    ("true", '{limiter}.allow("10.0.0.1")'),
                ],
            ),
            (
                "limits_are_per_client",
                ["for _ in range(3):", '    {limiter}.allow("10.0.0.1")', ("true", '{limiter}.allow("10.0.0.2")')],
            ),
        ],
    ),
    Suite(
        "sales",
        "SaleTests",
        ["from datetime import date", "from decimal import Decimal", "from shop.sales import Sale, sale_price"],
        [("sale", 'Sale("Black Friday", date(2026, 11, 27), date(2026, 11, 30), percent_off=Decimal("30"))')],
        [
            (
                "price_during_sale",
                [("eq", 'sale_price(Decimal("24.00"), {sale}, date(2026, 11, 28))', 'Decimal("16.80")')],
            ),
            (
                "price_outside_sale",
                [("eq", 'sale_price(Decimal("24.00"), {sale}, date(2026, 12, 1))', 'Decimal("24.00")')],
            ),
            ("sale_end_date_is_inclusive", [("true", "{sale}.active(date(2026, 11, 30))")]),
        ],
    ),
    Suite(
        "settings",
        "SettingsTests",
        ["from shop.settings import Settings"],
        [],
        [
            ("defaults", [("eq", "Settings.from_env({}).currency", '"EUR"')]),
            ("debug_flag_parsing", [("true", 'Settings.from_env({"SHOP_DEBUG": "yes"}).debug')]),
            (
                "bad_port_raises",
                [("raises_match", "ValueError", '"SHOP_PORT"', 'Settings.from_env({"SHOP_PORT": "eighty"})')],
            ),
        ],
    ),
    Suite(
        "sitemap",
        "SitemapTests",
        ["from shop.sitemap import sitemap_xml"],
        [("urls", '["/", "/cart", "/p/enamel-mug"]')],
        [
            ("lists_every_url", [("eq", 'sitemap_xml({urls}).count("<url>")', "3")]),
            (
                "urls_are_absolute",
                [("in", '"<loc>https://market-stall.example/p/enamel-mug</loc>"', "sitemap_xml({urls})")],
            ),
            ("has_xml_declaration", [("true", 'sitemap_xml({urls}).startswith("<?xml")')]),
        ],
    ),
    Suite(
        "tags",
        "TagTests",
        ["from shop.tags import parse_tags"],
        [],
        [
            ("comma_separated", [("eq", 'parse_tags("ceramics, kitchen")', '["ceramics", "kitchen"]')]),
            ("duplicates_and_case", [("eq", 'parse_tags("Kitchen,kitchen , KITCHEN")', '["kitchen"]')]),
            ("empty_string", [("eq", 'parse_tags("")', "[]")]),
        ],
    ),
    Suite(
        "webhooks",
        "WebhookTests",
        ["from shop.webhooks import InvalidSignature, sign, verify"],
        [("secret", 'b"whsec_test"'), ("body", 'b\'{"event": "payment.succeeded"}\'')],
        [
            ("valid_signature", ["verify({body}, sign({body}, {secret}), {secret})  # raises on mismatch"]),
            (
                "tampered_body_is_rejected",
                [("raises", "InvalidSignature", 'verify({body} + b" ", sign({body}, {secret}), {secret})')],
            ),
            (
                "wrong_secret_is_rejected",
                [("raises", "InvalidSignature", 'verify({body}, sign({body}, b"other"), {secret})')],
            ),
        ],
    ),
    Suite(
        "analytics",
        "AnalyticsTests",
        ["from shop.analytics import PageViews"],
        [("views", "PageViews()")],
        [
            (
                "counts_views_per_path",
                ['{views}.hit("/cart")', '{views}.hit("/cart")', ("eq", '{views}.count("/cart")', "2")],
            ),
            (
                "query_strings_are_ignored",
                ['{views}.hit("/?utm_source=newsletter")', ("eq", '{views}.count("/")', "1")],
            ),
            (
                "top_pages",
                [
                    '{views}.hit("/a")',
                    '{views}.hit("/b")',
                    '{views}.hit("/b")',
                    ("eq", "{views}.top(1)", '[("/b", 2)]'),
                ],
            ),
        ],
    ),
]

for _suite in SUITES:
    SHOP_FILES[f"tests/test_{_suite.module}.py"] = render_unittest(_suite)

SHOP_FILES["shop/pagination.py"] = """from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    page: int
    pages: int


def paginate(items: list[T], page: int, per_page: int = 20) -> Page[T]:
    pages = max(1, ceil(len(items) / per_page))
    if not 1 <= page <= pages:
        raise ValueError(f"page {page} out of range 1..{pages}")
    start = (page - 1) * per_page
    return Page(items[start : start + per_page], page, pages)
"""

SHOP_FILES["shop/rate_limit.py"] = '''"""A tiny sliding-window rate limiter for the code form."""
from __future__ import annotations

import time
from collections import defaultdict, deque
from collections.abc import Callable


class RateLimiter:
    def __init__(self, limit: int, per_seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.per_seconds = per_seconds
        self.clock = clock
        self._hits: dict[str, deque[float]] = defaultdict(deque)

    def allow(self, client: str) -> bool:
        now = self.clock()
        hits = self._hits[client]
        while hits and now - hits[0] >= self.per_seconds:
            hits.popleft()
        if len(hits) >= self.limit:
            return False
        hits.append(now)
        return True
'''

SHOP_FILES["shop/webhooks.py"] = '''"""Signed webhooks from the payment provider."""
import hashlib
import hmac


class InvalidSignature(Exception):
    pass


def sign(body: bytes, secret: bytes) -> str:
    return hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify(body: bytes, signature: str, secret: bytes) -> None:
    if not hmac.compare_digest(sign(body, secret), signature):
        raise InvalidSignature("signature mismatch")
'''

SHOP_FILES["shop/orders.py"] = '''"""Orders and order numbers."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

LATE_AFTER = timedelta(days=3)
_sequence = itertools.count(1)


@dataclass
class Order:
    number: str
    placed_at: datetime
    total: Decimal

    def is_late(self, now: datetime | None = None) -> bool:
        return (now or datetime.now()) - self.placed_at > LATE_AFTER


def next_order_number(today: date | None = None) -> str:
    today = today or date.today()
    return f"{today:%Y%m%d}-{next(_sequence):04d}"
'''

SHOP_FILES["shop/emails.py"] = '''"""Plain-text emails."""
from decimal import Decimal


def order_confirmation(number: str, total: Decimal) -> str:
    return (
        f"Thanks for your order {number}!\\n"
        f"Total: {total} €\\n"
        "We ship within two working days."
    )


_announced: set[str] = set()


def weekly_digest(product_names: set[str]) -> str:
    """The "new this week" email; every product is announced only once."""
    new = sorted(product_names - _announced)
    _announced.update(new)
    return "\\n".join(["New this week:"] + [f"- {name}" for name in new])
'''

SHOP_FILES["shop/reports.py"] = '''"""Weekly sales report for the stall's newsletter."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

ORDERS: list[tuple[date, Decimal]] = []


@dataclass(frozen=True)
class Report:
    start: date
    end: date
    orders: int
    revenue: Decimal


def record_order(day: date, total: Decimal) -> None:
    ORDERS.append((day, total))


def weekly_report(end: date) -> Report:
    start = end - timedelta(days=7)
    week = [total for day, total in ORDERS if start < day <= end]
    return Report(start, end, len(week), sum(week, Decimal("0")))
'''


def line_of(fs: FS, path: str, needle: str) -> int:
    for i, line in enumerate(fs.files[path].split("\n"), 1):
        if needle in line:
            return i
    raise KeyError(needle)


SHOP_FILES["shop/invoices.py"] = '''"""Plain-text invoices."""
from datetime import date
from decimal import Decimal


def invoice_number(day: date, seq: int) -> str:
    return f"INV-{day:%Y}-{seq:05d}"


def render_invoice(lines: list[tuple[str, int, Decimal]]) -> str:
    total = sum((price * qty for _, qty, price in lines), Decimal("0"))
    rows = [f"{name}  x{qty}  {price * qty:.2f} €" for name, qty, price in lines]
    return "\\n".join(rows + [f"Total {total:.2f} € (incl. VAT)"])
'''


def count_tests(fs: FS) -> int:
    return sum(len(re.findall(r"^\s*def test_", c, re.M)) for p, c in fs.files.items() if p.startswith("tests/test_"))


def pytest_q(
    total: int, failed: list[str] | None = None, secs: float = 0.41, fail_blocks: str = "", width: int = 72
) -> str:
    """``python -m pytest -q`` output with progress dots."""
    failed = failed or []
    marks = ["."] * total
    for i in range(len(failed)):
        marks[(7 + 13 * i) % total] = "F"
    out = []
    for i in range(0, total, width):
        chunk = "".join(marks[i : i + width])
        pct = int(100 * min(total, i + width) / total)
        out.append(f"{chunk.ljust(width)} [{pct:3d}%]")
    text_ = "\n".join(out) + "\n"
    if failed:
        text_ += "=================================== FAILURES ===================================\n" + fail_blocks
        text_ += "=========================== short test summary info ============================\n"
        for f in failed:
            text_ += f"FAILED {f}\n"
        text_ += f"{len(failed)} failed, {total - len(failed)} passed in {secs:.2f}s\n"
    else:
        text_ += f"{total} passed in {secs:.2f}s\n"
    return text_


# ---------------------------------------------------------------------------
# Session A: "Discount codes at checkout" (named, branched, labelled)
# ---------------------------------------------------------------------------

DISCOUNTS_PY = '''"""Discount codes customers can enter at checkout."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


class InvalidCode(ValueError):
    """Raised for a code we don't know."""


@dataclass(frozen=True)
class Discount:
    code: str
    percent_off: Decimal = Decimal("0")
    free_shipping: bool = False

    def apply(self, subtotal: Decimal) -> Decimal:
        """The amount taken off ``subtotal`` (never more than the subtotal)."""
        return min(subtotal * self.percent_off / 100, subtotal)


CODES: dict[str, Discount] = {
    "SAVE10": Discount("SAVE10", percent_off=Decimal("10")),
    "MARKET20": Discount("MARKET20", percent_off=Decimal("20")),
    "SUMMER25": Discount("SUMMER25", percent_off=Decimal("25")),
    "FREESHIP": Discount("FREESHIP", free_shipping=True),
}


def lookup(code: str) -> Discount:
    """Find a discount; codes are case-insensitive and surrounding spaces are ignored."""
    try:
        return CODES[code.strip().upper()]
    except KeyError:
        raise InvalidCode(f"Unknown discount code: {code.strip()!r}") from None
'''

CHECKOUT_TOTALS_OLD = """@dataclass(frozen=True)
class Totals:
    subtotal: Decimal
    shipping: Decimal
    tax: Decimal
    total: Decimal"""

CHECKOUT_TOTALS_NEW = """@dataclass(frozen=True)
class Totals:
    subtotal: Decimal
    discount: Decimal
    shipping: Decimal
    tax: Decimal
    total: Decimal"""

COMPUTE_OLD = """def compute_totals(cart: Cart) -> Totals:
    subtotal = sum((line.price * line.quantity for line in cart.lines), Decimal("0"))
    shipping = Decimal("0") if subtotal >= FREE_SHIPPING_OVER else FLAT_SHIPPING
    tax = money(subtotal * TAX_RATE)
    total = money(subtotal + shipping + tax)
    return Totals(subtotal=money(subtotal), shipping=shipping, tax=tax, total=total)"""

COMPUTE_BUGGY = """def compute_totals(cart: Cart, discount: Discount | None = None) -> Totals:
    subtotal = sum((line.price * line.quantity for line in cart.lines), Decimal("0"))
    off = money(discount.apply(subtotal)) if discount else Decimal("0")
    discounted = subtotal - off
    free = subtotal >= FREE_SHIPPING_OVER or (discount is not None and discount.free_shipping)
    shipping = Decimal("0") if free else FLAT_SHIPPING
    tax = money(discounted * TAX_RATE)
    total = money(discounted + shipping + tax)
    return Totals(
        subtotal=money(subtotal), discount=off, shipping=shipping, tax=tax, total=total
    )"""

NEW_CHECKOUT_TESTS = """

def test_percent_code_is_taken_off_before_tax():
    totals = compute_totals(make_cart("60.00"), lookup("SAVE10"))
    assert totals.discount == Decimal("6.00")
    assert totals.tax == Decimal("4.32")
    assert totals.total == Decimal("58.32")


def test_discount_can_drop_order_below_free_shipping():
    totals = compute_totals(make_cart("52.00"), lookup("SAVE10"))
    assert totals.discount == Decimal("5.20")
    assert totals.shipping == Decimal("4.95")
    assert totals.total == Decimal("55.49")


def test_freeship_code_waives_shipping():
    totals = compute_totals(make_cart("10.00"), lookup(" freeship "))
    assert totals.shipping == Decimal("0")
    assert totals.total == Decimal("10.80")


def test_unknown_code_raises():
    with pytest.raises(InvalidCode, match="SAVE100"):
        lookup("SAVE100")
"""

PYTEST_FAIL_A = """____________ test_discount_can_drop_order_below_free_shipping ____________

    def test_discount_can_drop_order_below_free_shipping():
        totals = compute_totals(make_cart("52.00"), lookup("SAVE10"))
        assert totals.discount == Decimal("5.20")
>       assert totals.shipping == Decimal("4.95")
E       AssertionError: assert Decimal('0') == Decimal('4.95')
E        +  where Decimal('0') = Totals(subtotal=Decimal('52.00'), discount=Decimal('5.20'), shipping=Decimal('0'), tax=Decimal('3.74'), total=Decimal('50.54')).shipping

tests/test_checkout.py:38: AssertionError
"""

VIEWS_CODE_OLD = """@bp.get("/checkout")
def checkout():
    cart = current_cart()
    if not cart.lines:
        return redirect(url_for("shop.show_cart"))
    return render_template("checkout.html", cart=cart, totals=compute_totals(cart))


@bp.post("/checkout")
def place_order():
    totals = compute_totals(current_cart())"""

VIEWS_CODE_NEW = """def current_discount() -> Discount | None:
    code = session.get("discount_code")
    if not code:
        return None
    try:
        return lookup(code)
    except InvalidCode:
        session.pop("discount_code", None)
        return None


@bp.get("/checkout")
def checkout():
    cart = current_cart()
    if not cart.lines:
        return redirect(url_for("shop.show_cart"))
    totals = compute_totals(cart, current_discount())
    return render_template("checkout.html", cart=cart, totals=totals, code=session.get("discount_code"))


@bp.post("/checkout/code")
def apply_code():
    code = request.form.get("code", "")
    try:
        discount = lookup(code)
    except InvalidCode:
        flash(f"Sorry, {code.strip()!r} is not a valid code.")
    else:
        session["discount_code"] = discount.code
        current_app.logger.info("discount code %s applied", discount.code)
        flash(f"Code {discount.code} applied.")
    return redirect(url_for("shop.checkout"))


@bp.post("/checkout")
def place_order():
    totals = compute_totals(current_cart(), current_discount())"""

CHECKOUT_HTML_OLD = """  <tr class="subtotal"><td>Subtotal</td><td class="amount">{{ totals.subtotal }} €</td></tr>
  <tr><td>Shipping</td><td class="amount">{{ totals.shipping }} €</td></tr>"""

CHECKOUT_HTML_NEW = """  <tr class="subtotal"><td>Subtotal</td><td class="amount">{{ totals.subtotal }} €</td></tr>
  {% if totals.discount %}
  <tr class="discount"><td>Discount ({{ code }})</td><td class="amount">−{{ totals.discount }} €</td></tr>
  {% endif %}
  <tr><td>Shipping</td><td class="amount">{{ totals.shipping }} €</td></tr>"""

CHECKOUT_FORM_OLD = """</table>
<form method="post" action="{{ url_for('shop.place_order') }}">"""

CHECKOUT_FORM_NEW = """</table>
<form class="code" method="post" action="{{ url_for('shop.apply_code') }}">
  <label for="code">Discount code</label>
  <input id="code" name="code" value="{{ code or '' }}" autocomplete="off">
  <button type="submit">Apply</button>
</form>
<form method="post" action="{{ url_for('shop.place_order') }}">"""

CHECKOUT_PAGE_TESTS_MOCK = """from unittest import mock

from shop import views


def test_apply_code_stores_code_in_session():
    fake_session = {}
    with mock.patch.object(views, "session", fake_session), mock.patch.object(
        views, "request"
    ) as request:
        request.form = {"code": "save10"}
        views.apply_code()
    assert fake_session["discount_code"] == "SAVE10"
"""

CHECKOUT_PAGE_TESTS = """def add_mug(client):
    client.post("/cart/add/MUG-01")
    client.post("/cart/add/MUG-01")


def test_valid_code_shows_discount_row(client):
    add_mug(client)
    client.post("/checkout/code", data={"code": "save10"})
    page = client.get("/checkout").get_data(as_text=True)
    assert "Discount (SAVE10)" in page
    assert "−2.50 €" in page


def test_invalid_code_is_rejected(client):
    add_mug(client)
    response = client.post("/checkout/code", data={"code": "NOPE"}, follow_redirects=True)
    page = response.get_data(as_text=True)
    assert "is not a valid code" in page
    assert "Discount (" not in page


def test_code_survives_until_order_is_placed(client):
    add_mug(client)
    client.post("/checkout/code", data={"code": "FREESHIP"})
    response = client.post("/checkout", follow_redirects=True)
    assert "Your order total was 27.00 €" in response.get_data(as_text=True)
"""

STYLE_OLD = """.totals .amount {
  text-align: right;
}"""

STYLE_NEW = """.totals .amount {
  text-align: right;
  white-space: nowrap;
  font-variant-numeric: tabular-nums;
}

.totals .discount td {
  color: #1b7a3d;
}

@media (max-width: 30rem) {
  .totals td:first-child {
    overflow-wrap: anywhere;
  }
}"""


def shop_system_prompt(tools: list[str], skills: str | None = None) -> dict:
    return system_sections(tools, SHOP, [(f"{SHOP}/AGENTS.md", SHOP_AGENTS_MD)], skills)


BASE_TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"]


def build_session_a(fs: FS) -> Session:
    s = Session(cwd=SHOP, start="2026-11-14T09:12:03.417Z", seed=1114, model=SONNET, thinking_level="medium")
    s.system(sections=shop_system_prompt(BASE_TOOLS), tools_added=tool_decls(BASE_TOOLS))
    s.user(
        "I'd like to add discount codes to the checkout: percentage codes like SAVE10 and a FREESHIP code. "
        "Have a look at how the totals are computed first and tell me how you'd do it. Don't change anything yet."
    )
    c1, c2 = call("ls", {"path": "."}), call("read", {"path": "shop/checkout.py"})
    s.turn(
        [think("Let me look at the project layout and the checkout code before proposing anything."), c1, c2],
        [fs.ls(".", extra=(".git/", ".venv/", "logs/")), fs.read("shop/checkout.py")],
    )
    c = call("grep", {"pattern": "compute_totals|Totals", "path": "."})
    s.turn([c], [fs.grep("compute_totals|Totals", ".")])
    plan = s.assistant(
        [
            text(
                """## How totals work today

`compute_totals(cart)` in `shop/checkout.py` sums the cart lines, decides shipping (free from **50 €**, otherwise a flat **4.95 €**), adds 8 % VAT and rounds with `money()`. It's called from two places in `shop/views.py`: the checkout page and `place_order`.

## Proposal

1. **New module `shop/discounts.py`** with a small frozen dataclass and a lookup function:

   ```python
   @dataclass(frozen=True)
   class Discount:
       code: str
       percent_off: Decimal = Decimal("0")
       free_shipping: bool = False
   ```

   `lookup(code)` normalizes the input (`" save10 "` → `SAVE10`) and raises `InvalidCode` for unknown codes.
2. **`compute_totals(cart, discount=None)`**: take the discount off the subtotal *before* VAT, keep a separate `discount` field on `Totals` so the template can show it as its own row.
3. **Tests** in `tests/test_checkout.py` for a percentage code, `FREESHIP`, and an unknown code.

| Step | File | Change |
|------|------|--------|
| 1 | `shop/discounts.py` | new |
| 2 | `shop/checkout.py` | `discount` parameter + field |
| 3 | `tests/test_checkout.py` | 4 new tests |

One question before I start: should the free-shipping threshold look at the subtotal **before** or **after** the discount? I'd use *after*, otherwise a 52 € cart with SAVE10 pays 46.80 € and still ships free."""
            )
        ]
    )
    info = s.session_info("Discount codes at checkout")

    # First attempt: the user asks for a JSON file, then interrupts (aborted).
    s.user("After. Go ahead, but load the codes from data/discounts.json so we can change them without a deploy.")
    s.assistant(
        [
            think(
                "The user wants codes in a JSON file. `catalog.py` already loads `data/products.json` with a cached `_load()`; "
                'I can mirror that, but the cache means edits to the JSON still need a restart, so "without a deploy" is only half true. '
                "I should mention that and"
            ),
            text("I'll add `data/discounts.json` and load it the same way `catalog.py` loads the products, with"),
        ],
        stop="aborted",
        error="Request was aborted",
        usage=usage_obj(SONNET, 9, 96, s.usage.ctx - 1200, 1190),
    )
    # /tree: back to before that prompt, edited and resubmitted -> a fork at the session_info entry.
    s.goto(info["id"])
    s.user(
        "After the discount, agreed. Keep the codes in a dict in the module for now, we only have four "
        "(SAVE10, MARKET20, SUMMER25 and FREESHIP). Go ahead."
    )
    c = call("write", {"path": "shop/discounts.py", "content": DISCOUNTS_PY})
    s.turn(
        [think("Start with the new module, then wire it into compute_totals, then tests."), c],
        [fs.write("shop/discounts.py", DISCOUNTS_PY)],
    )
    imp_old = "from .cart import Cart\n"
    imp_new = "from .cart import Cart\nfrom .discounts import Discount\n"
    c = call("edit", {"path": "shop/checkout.py", "oldText": imp_old, "newText": imp_new})
    s.turn([c], [fs.edit("shop/checkout.py", (imp_old, imp_new))])
    c = call(
        "edit",
        {
            "path": "shop/checkout.py",
            "oldText": CHECKOUT_TOTALS_OLD
            + "\n\n\ndef money(value: Decimal) -> Decimal:\n    return value.quantize(CENT, rounding=ROUND_HALF_UP)\n\n\n"
            + COMPUTE_OLD,
            "newText": CHECKOUT_TOTALS_NEW
            + "\n\n\ndef money(value: Decimal) -> Decimal:\n    return value.quantize(CENT, rounding=ROUND_HALF_UP)\n\n\n"
            + COMPUTE_BUGGY,
        },
    )
    s.turn(
        [c],
        [
            fs.edit(
                "shop/checkout.py",
                (
                    CHECKOUT_TOTALS_OLD
                    + "\n\n\ndef money(value: Decimal) -> Decimal:\n    return value.quantize(CENT, rounding=ROUND_HALF_UP)\n\n\n"
                    + COMPUTE_OLD,
                    CHECKOUT_TOTALS_NEW
                    + "\n\n\ndef money(value: Decimal) -> Decimal:\n    return value.quantize(CENT, rounding=ROUND_HALF_UP)\n\n\n"
                    + COMPUTE_BUGGY,
                ),
            )
        ],
    )
    t_imports_old = (
        "from decimal import Decimal\n\nfrom shop.cart import Cart\nfrom shop.checkout import compute_totals\n"
    )
    t_imports_new = "from decimal import Decimal\n\nimport pytest\n\nfrom shop.cart import Cart\nfrom shop.checkout import compute_totals\nfrom shop.discounts import InvalidCode, lookup\n"
    t_tail_old = '    totals = compute_totals(make_cart("10.06"))\n    assert totals.tax == Decimal("0.80")\n'
    c = call(
        "edit",
        {
            "path": "tests/test_checkout.py",
            "edits": [
                {"oldText": t_imports_old, "newText": t_imports_new},
                {"oldText": t_tail_old, "newText": t_tail_old + NEW_CHECKOUT_TESTS},
            ],
        },
    )
    s.turn(
        [c],
        [
            fs.edit(
                "tests/test_checkout.py", (t_imports_old, t_imports_new), (t_tail_old, t_tail_old + NEW_CHECKOUT_TESTS)
            )
        ],
    )
    n = count_tests(fs)
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn(
        [c],
        [
            bash_out(
                pytest_q(
                    n,
                    [
                        "tests/test_checkout.py::test_discount_can_drop_order_below_free_shipping - AssertionError: assert Decimal('0') == Decimal('4.95')"
                    ],
                    0.62,
                    PYTEST_FAIL_A,
                ),
                exit_code=1,
                duration=(1400, 2600),
            )
        ],
    )
    wrong_old = "    free = subtotal >= FREE_SHIPPING_OVER or (discount and discount.free_shipping)"
    c = call(
        "edit",
        {
            "path": "shop/checkout.py",
            "oldText": wrong_old,
            "newText": "    free = discounted >= FREE_SHIPPING_OVER or (discount and discount.free_shipping)",
        },
    )
    s.turn(
        [
            think(
                "Exactly the case I asked about: the threshold still looks at `subtotal`. The tax is already computed on "
                "`discounted`, so only the `free` line is wrong. I wrote this line a minute ago, so I'll edit it from memory."
            ),
            text("The free-shipping check still uses the pre-discount subtotal. Fixing that:"),
            c,
        ],
        [fs.edit("shop/checkout.py", (wrong_old, "x"))],
    )
    off = line_of(fs, "shop/checkout.py", "def compute_totals")
    c = call("read", {"path": "shop/checkout.py", "offset": off, "limit": 12})
    s.turn(
        [text("My `oldText` didn't match; let me look at the exact lines."), c], [fs.read("shop/checkout.py", off, 12)]
    )
    right_old = "    free = subtotal >= FREE_SHIPPING_OVER or (discount is not None and discount.free_shipping)"
    right_new = "    free = discounted >= FREE_SHIPPING_OVER or (discount is not None and discount.free_shipping)"
    c = call("edit", {"path": "shop/checkout.py", "oldText": right_old, "newText": right_new})
    s.turn([c], [fs.edit("shop/checkout.py", (right_old, right_new))])
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn([c], [bash_out(pytest_q(n, secs=0.58), duration=(1300, 2400))])
    core_done = s.assistant(
        [
            text(
                """Done, all tests pass.

**What changed**

- `shop/discounts.py` (new): `Discount`, the four codes in `CODES`, and `lookup()` which raises `InvalidCode`.
- `shop/checkout.py`: `compute_totals(cart, discount=None)`; `Totals` has a new `discount` field. The discount is taken off **before** VAT and before the free-shipping check.
- `tests/test_checkout.py`: 4 new tests.

Worked examples (they're the new tests):

| Cart | Code | Discount | Shipping | Total |
|-----:|------|---------:|---------:|------:|
| 60.00 € | SAVE10 | 6.00 € | 0.00 € | 58.32 € |
| 52.00 € | SAVE10 | 5.20 € | 4.95 € | 55.49 € |
| 10.00 € | FREESHIP | 0.00 € | 0.00 € | 10.80 € |

Nothing calls `compute_totals()` with a discount yet, so the shop behaves exactly as before until we wire it into the checkout page."""
            )
        ]
    )

    # --- Branch X: the checkout page (the longest branch) ---------------------
    s.user(
        "Nice. Now let customers enter a code on the checkout page, and show the discount as its own row in the totals."
    )
    c1, c2 = call("read", {"path": "shop/views.py"}), call("read", {"path": "shop/templates/checkout.html"})
    s.turn([c1, c2], [fs.read("shop/views.py"), fs.read("shop/templates/checkout.html")])
    imp_old = "from flask import Blueprint, flash, redirect, render_template, session, url_for\n"
    imp_new = "from flask import (\n    Blueprint,\n    current_app,\n    flash,\n    redirect,\n    render_template,\n    request,\n    session,\n    url_for,\n)\n"
    imp2_old = "from .checkout import compute_totals\n"
    imp2_new = "from .checkout import compute_totals\nfrom .discounts import Discount, InvalidCode, lookup\n"
    c = call(
        "edit",
        {
            "path": "shop/views.py",
            "edits": [
                {"oldText": imp_old, "newText": imp_new},
                {"oldText": imp2_old, "newText": imp2_new},
                {"oldText": VIEWS_CODE_OLD, "newText": VIEWS_CODE_NEW},
            ],
        },
    )
    s.turn(
        [
            think(
                "Store the code (not the Discount) in the session so it survives redirects; re-validate it on every request "
                "in case we remove a code while someone has it in their session."
            ),
            c,
        ],
        [fs.edit("shop/views.py", (imp_old, imp_new), (imp2_old, imp2_new), (VIEWS_CODE_OLD, VIEWS_CODE_NEW))],
    )
    c = call(
        "edit",
        {
            "path": "shop/templates/checkout.html",
            "edits": [
                {"oldText": CHECKOUT_HTML_OLD, "newText": CHECKOUT_HTML_NEW},
                {"oldText": CHECKOUT_FORM_OLD, "newText": CHECKOUT_FORM_NEW},
            ],
        },
    )
    s.turn(
        [c],
        [
            fs.edit(
                "shop/templates/checkout.html",
                (CHECKOUT_HTML_OLD, CHECKOUT_HTML_NEW),
                (CHECKOUT_FORM_OLD, CHECKOUT_FORM_NEW),
            )
        ],
    )
    c = call("bash", {"command": "python -m pytest -q && flask --app shop routes"})
    s.turn(
        [c],
        [
            bash_out(
                pytest_q(n, secs=0.61)
                + """Endpoint          Methods  Rule
----------------  -------  -----------------------
shop.add_to_cart  POST     /cart/add/<sku>
shop.apply_code   POST     /checkout/code
shop.checkout     GET      /checkout
shop.place_order  POST     /checkout
shop.show_cart    GET      /cart
static            GET      /static/<path:filename>
""",
                duration=(1800, 3100),
            )
        ],
    )
    s.assistant(
        [
            text(
                """The checkout page now has a **Discount code** form above *Place order*:

- `POST /checkout/code` validates the code with `lookup()`, stores the normalized code in the session and redirects back with a flash message (`Code SAVE10 applied.` or `Sorry, 'NOPE' is not a valid code.`).
- `checkout()` and `place_order()` both use `current_discount()`, which drops a code from the session if it stops being valid.
- The totals table shows a green **Discount (SAVE10)** row between subtotal and shipping, only when there is a discount.

Try it with `flask --app shop run --debug` and add a mug or two."""
            )
        ]
    )
    s.model_change(GPT5)
    s.thinking_change("high")
    png = base64.b64encode(checkout_screenshot_png()).decode()
    s.user(
        [
            text(
                "On my phone the discount row wraps and the amount drops to a second line, see the screenshot. Can you fix that?"
            ),
            image_block(png),
        ]
    )
    c = call("read", {"path": "shop/static/style.css"})
    s.turn(
        [
            think(
                "**Diagnosing the wrap**\n\nThe screenshot shows the third row (the discount row, light red) with its amount pushed onto a second line. "
                'The label "Discount (SAVE10)" is longer than the others, and the amount cell has no `white-space: nowrap`, so on a narrow '
                'viewport the browser wraps inside the amount ("−2.50" / "€"). Let me check the CSS.'
            ),
            c,
        ],
        [fs.read("shop/static/style.css")],
    )
    c = call("edit", {"path": "shop/static/style.css", "oldText": STYLE_OLD, "newText": STYLE_NEW})
    s.turn(
        [
            think(
                "**Fix**\n\nKeep amounts on one line (`nowrap`), use tabular figures so the column lines up, and let the *label* wrap "
                "anywhere on very small screens instead. Also give the discount row its green colour here instead of inline styles."
            ),
            c,
        ],
        [fs.edit("shop/static/style.css", (STYLE_OLD, STYLE_NEW))],
    )
    s.assistant(
        [
            text(
                "Fixed in `shop/static/style.css`:\n\n"
                "- `.totals .amount` gets `white-space: nowrap` so `−2.50 €` never splits, plus `font-variant-numeric: tabular-nums` so the amounts line up.\n"
                "- Below 30rem the **label** column may wrap instead (`overflow-wrap: anywhere`).\n"
                "- `.totals .discount td` is green, matching the flash messages.\n\n"
                "No template changes were needed."
            )
        ]
    )
    todo = [
        {"id": 1, "text": "Discount model and lookup()", "done": True},
        {"id": 2, "text": "compute_totals() with discount", "done": True},
        {"id": 3, "text": "Code form on checkout page", "done": True},
        {"id": 4, "text": "Tests for the checkout page", "done": False},
        {"id": 5, "text": "Commit", "done": False},
    ]
    s.custom("todo-list", {"items": todo, "updatedBy": "agent"})
    s.custom_message(
        "todo-list",
        "Todo list: 3 of 5 done\n\n- [x] Discount model and lookup()\n- [x] compute_totals() with discount\n- [x] Code form on checkout page\n- [ ] Tests for the checkout page\n- [ ] Commit",
        True,
        {"done": 3, "total": 5},
    )
    todo_msg = s.leaf
    # The first attempt at page tests (abandoned: mocks instead of the test client).
    s.user("Add a test for the code form on the checkout page.")
    c = call("write", {"path": "tests/test_checkout_page.py", "content": CHECKOUT_PAGE_TESTS_MOCK})
    s.turn(
        [
            think("A focused unit test: patch `session` and `request` in the views module and call the view directly."),
            c,
        ],
        [fs.write("tests/test_checkout_page.py", CHECKOUT_PAGE_TESTS_MOCK)],
    )
    c = call("bash", {"command": "python -m pytest -q tests/test_checkout_page.py"})
    s.turn(
        [c],
        [
            bash_out(
                """F                                                                        [100%]
=================================== FAILURES ===================================
____________________ test_apply_code_stores_code_in_session ____________________

    def test_apply_code_stores_code_in_session():
        fake_session = {}
        with mock.patch.object(views, "session", fake_session), mock.patch.object(
            views, "request"
        ) as request:
            request.form = {"code": "save10"}
>           views.apply_code()

tests/test_checkout_page.py:11:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
shop/views.py:49: in apply_code
    flash(f"Code {discount.code} applied.")
.venv/lib/python3.12/site-packages/flask/helpers.py:320: in flash
    flashes = session.get("_flashes", [])
.venv/lib/python3.12/site-packages/werkzeug/local.py:318: in __get__
    obj = instance._get_current_object()
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

    def _get_current_object() -> T:
        try:
            return get_name(local.get())
        except LookupError:
>           raise RuntimeError(unbound_message) from None
E           RuntimeError: Working outside of request context.
E
E           This typically means that you attempted to use functionality that needed
E           an active HTTP request. Consult the documentation on testing for
E           information about how to avoid this problem.

.venv/lib/python3.12/site-packages/werkzeug/local.py:519: RuntimeError
=========================== short test summary info ============================
FAILED tests/test_checkout_page.py::test_apply_code_stores_code_in_session - RuntimeError: Working outside of request context.
1 failed in 0.21s
""",
                exit_code=1,
                duration=(700, 1300),
            )
        ],
    )
    s.assistant(
        [
            think(
                "`flash()` uses Flask's own session proxy, which my patch doesn't cover. Patching flash too would make this test mostly mocks."
            ),
            text(
                "That fails because `flash()` reaches for Flask's real session, which needs a request context. I could patch `flash` as well, "
                "but then the test mostly tests the mocks. Using the Flask test client from `tests/conftest.py` would be more honest. "
                "Want me to switch to that?"
            ),
        ]
    )
    # /tree: back to the prompt, edited -> second fork (at the todo-list message).
    s.goto(todo_msg)
    s.model_change(SONNET)
    s.thinking_change("medium")
    s.user("Add a test for the code form on the checkout page. Use the `client` fixture from conftest, no mocking.")
    c = call("read", {"path": "tests/conftest.py"})
    s.turn([c], [fs.read("tests/conftest.py")])
    c = call("write", {"path": "tests/test_checkout_page.py", "content": CHECKOUT_PAGE_TESTS})
    s.turn(
        [
            think(
                "Two mugs = 25.00 €: SAVE10 gives 2.50 € off. With FREESHIP: 25.00 + 0 shipping + 2.00 VAT = 27.00 €. "
                "Use the real routes so the session cookie does the work."
            ),
            c,
        ],
        [fs.write("tests/test_checkout_page.py", CHECKOUT_PAGE_TESTS)],
    )
    n = count_tests(fs)
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn([c], [bash_out(pytest_q(n, secs=0.77), duration=(1500, 2600))])
    s.assistant(
        [
            text(
                "Added `tests/test_checkout_page.py` with three tests that go through the real routes with the test client:\n\n"
                "1. a valid code (`save10`) shows the **Discount (SAVE10)** row with `−2.50 €`;\n"
                "2. an unknown code is rejected with a flash message and no discount row;\n"
                "3. `FREESHIP` is still applied when the order is placed (27.00 € for two mugs).\n\n"
                f"The whole suite passes ({n} tests)."
            )
        ]
    )
    s.label(plan["id"], "plan")
    s.label(core_done["id"], "core-done")
    s.bash_exec(
        "git status --short",
        " M shop/checkout.py\n M shop/static/style.css\n M shop/templates/checkout.html\n M shop/views.py\n M tests/test_checkout.py\n?? shop/discounts.py\n?? tests/test_checkout_page.py\n",
        0,
    )
    s.custom_message(
        "git-status",
        "Working tree on branch feature/discounts: 5 modified, 2 untracked files (shop/discounts.py, tests/test_checkout_page.py).",
        False,
        {"branch": "feature/discounts", "modified": 5, "untracked": 2, "ahead": 0},
    )
    s.user("Great. Commit it as two commits: the discount logic with its tests, then the checkout page and CSS.")
    c = call(
        "bash",
        {
            "command": 'git add shop/discounts.py shop/checkout.py tests/test_checkout.py && git commit -q -m "Add discount codes to compute_totals" && git log --oneline -1'
        },
    )
    s.turn([c], [bash_out("3f9c2a1 Add discount codes to compute_totals\n", duration=(90, 240))])
    c = call(
        "bash",
        {
            "command": 'git add shop/views.py shop/templates/checkout.html shop/static/style.css tests/test_checkout_page.py && git commit -q -m "Checkout: discount code form and discount row" && git log --oneline -3'
        },
    )
    s.turn(
        [c],
        [
            bash_out(
                "b71e04d Checkout: discount code form and discount row\n3f9c2a1 Add discount codes to compute_totals\n9a41c07 Free shipping from 50 €\n",
                duration=(90, 240),
            )
        ],
    )
    s.assistant(
        [
            text(
                "Committed on `feature/discounts`:\n\n```\nb71e04d Checkout: discount code form and discount row\n3f9c2a1 Add discount codes to compute_totals\n```\n\nThe working tree is clean."
            )
        ]
    )
    s.custom("todo-list", {"items": [dict(i, done=True) for i in todo], "updatedBy": "agent"})

    # --- Branch Y: a branch summary, an idea that gets dropped ----------------
    s.branch_summary(
        core_done["id"],
        """The user explored a different conversation branch before returning here.
Summary of that exploration:

## Goal
Let customers enter discount codes on the checkout page and show the discount as its own row.

## Constraints & Preferences
- Tests should use the Flask test client from `tests/conftest.py`, no mocking.
- Two commits: logic + tests, then page + CSS.

## Progress
### Done
- [x] `POST /checkout/code` (`apply_code`) stores the normalized code in the session; `current_discount()` re-validates it.
- [x] Discount row and code form in `shop/templates/checkout.html`.
- [x] Mobile layout fix in `shop/static/style.css` (`white-space: nowrap` on amounts).
- [x] `tests/test_checkout_page.py` (3 tests), whole suite green.
- [x] Committed as `3f9c2a1` and `b71e04d` on `feature/discounts`.

### In Progress
- (none)

### Blocked
- (none)

## Key Decisions
- **Store the code, not the Discount, in the session**: it is re-validated on every request.

## Next Steps
1. (none, the feature is complete)

<read-files>
shop/templates/checkout.html
tests/conftest.py
</read-files>

<modified-files>
shop/static/style.css
shop/templates/checkout.html
shop/views.py
tests/test_checkout_page.py
</modified-files>""",
        {
            "readFiles": ["shop/templates/checkout.html", "tests/conftest.py"],
            "modifiedFiles": [
                "shop/static/style.css",
                "shop/templates/checkout.html",
                "shop/views.py",
                "tests/test_checkout_page.py",
            ],
        },
        usage_obj(SONNET, 18422, 612, 0, 0),
    )
    y_user = s.user(
        "Different idea: marketing wants newsletter links like /checkout?code=SAVE10 that apply the code automatically. How hard is that?"
    )
    off = line_of(fs, "shop/views.py", '@bp.get("/checkout")')
    c = call("read", {"path": "shop/views.py", "offset": off, "limit": 8})
    s.turn([c], [fs.read("shop/views.py", off, 8)])
    s.assistant(
        [
            text(
                """Small. `checkout()` would accept the code from the query string and reuse the same validation as the form:

```diff
 @bp.get("/checkout")
 def checkout():
     cart = current_cart()
     if not cart.lines:
         return redirect(url_for("shop.show_cart"))
+    if code := request.args.get("code"):
+        try:
+            session["discount_code"] = lookup(code).code
+        except InvalidCode:
+            flash(f"Sorry, {code.strip()!r} is not a valid code.")
     totals = compute_totals(cart, current_discount())
```

One thing to check first: if a CDN caches `/checkout` **without** the query string, everyone would get the same page. Is that the case?"""
            )
        ]
    )
    s.label(y_user["id"], "url-codes")
    s.user("Our CDN caches by full URL, so that's fine. Do it.")
    url_old = """        return redirect(url_for("shop.show_cart"))
    totals = compute_totals(cart, current_discount())"""
    url_new = """        return redirect(url_for("shop.show_cart"))
    if code := request.args.get("code"):
        try:
            session["discount_code"] = lookup(code).code
        except InvalidCode:
            flash(f"Sorry, {code.strip()!r} is not a valid code.")
    totals = compute_totals(cart, current_discount())"""
    c = call("edit", {"path": "shop/views.py", "oldText": url_old, "newText": url_new})
    s.turn([c], [fs.edit("shop/views.py", (url_old, url_new))])
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn([c], [bash_out(pytest_q(n, secs=0.74), duration=(1500, 2600))])
    s.assistant(
        [
            text(
                "Done: `/checkout?code=SAVE10` now applies the code (invalid codes get the usual flash message). Tests still pass."
            )
        ]
    )
    s.user(
        "Marketing just told me their newsletter tool strips query strings from links. Let's drop the idea, please revert it."
    )
    c = call("bash", {"command": "git checkout -- shop/views.py && git status --short"})
    fs.edit("shop/views.py", (url_new, url_old))
    s.turn([c], [bash_out("", duration=(40, 120))])
    s.assistant([text("Reverted `shop/views.py`; the working tree is clean again.")])
    s.label(y_user["id"], None)

    # --- Branch Z: back at "core-done" without a summary: the last entries ---
    s.goto(core_done["id"])
    s.user("Write a CHANGELOG entry for the discount codes, under a new 0.5.0 (unreleased) heading.")
    c = call("read", {"path": "CHANGELOG.md"})
    s.turn([c], [fs.read("CHANGELOG.md")])
    cl_old = "# Changelog\n\n## 0.4.0 (2026-10-30)\n"
    cl_new = (
        "# Changelog\n\n## 0.5.0 (unreleased)\n\n"
        "- Discount codes at checkout: percentage codes (`SAVE10`, `MARKET20`, `SUMMER25`) and `FREESHIP`.\n"
        "  Discounts are taken off before VAT and before the free-shipping threshold.\n\n"
        "## 0.4.0 (2026-10-30)\n"
    )
    c = call("edit", {"path": "CHANGELOG.md", "oldText": cl_old, "newText": cl_new})
    s.turn([c], [fs.edit("CHANGELOG.md", (cl_old, cl_new))])
    s.marks = {"core_done": core_done["id"], "plan": plan["id"]}
    s.assistant(
        [
            text(
                "Added to `CHANGELOG.md`:\n\n```markdown\n## 0.5.0 (unreleased)\n\n"
                "- Discount codes at checkout: percentage codes (`SAVE10`, `MARKET20`, `SUMMER25`) and `FREESHIP`.\n"
                "  Discounts are taken off before VAT and before the free-shipping threshold.\n```"
            )
        ]
    )
    return s


# ---------------------------------------------------------------------------
# Subagents (the pi-subagents extension): nested runs with their own transcript
# ---------------------------------------------------------------------------

SUBAGENT_PROMPTS = {
    "scout": "You are scout, a fast codebase reconnaissance agent. Investigate quickly with read, grep, find and ls, and report precise findings with file:line references. Never modify files.",
    "worker": "You are worker. Implement the requested change completely and verify it by running the relevant tests. Keep changes minimal and report exactly what you changed.",
    "reviewer": "You are reviewer. Review the described change for correctness, test coverage and style. Reply with a verdict (approve / request changes) and concrete, numbered notes.",
}
SUBAGENT_TOOLS = {
    "scout": ["read", "grep", "find", "ls", "bash"],
    "worker": ["read", "bash", "edit", "write", "grep"],
    "reviewer": ["read", "bash", "grep"],
}


@dataclass
class SubRun:
    agent: str
    task: str
    model: Model
    session: Session
    exit_code: int = 0
    error: str | None = None
    step: int | None = None
    artifact_base: str = ""
    write_transcript: bool = True
    skills: list[str] = field(default_factory=list)


def start_subagent(parent: Session, agent: str, task: str, model: Model, seed: int) -> Session:
    sub = Session(
        cwd=parent.cwd,
        start=iso_of(parent.t + 900),
        seed=seed,
        model=model,
        thinking_level="low" if agent != "reviewer" else "medium",
        usage_base=2900,
    )
    sub.tick(0.3, 0.9)
    sub.system(
        sections={
            "preamble": SUBAGENT_PROMPTS[agent],
            "tools": "<tools>\n" + "\n".join(f"- {t}: {SNIPPETS[t]}" for t in SUBAGENT_TOOLS[agent]) + "\n</tools>",
            "cwd": f"<cwd>\n{parent.cwd}\n</cwd>",
        },
        tools_added=tool_decls(SUBAGENT_TOOLS[agent]),
    )
    sub.user([text(f"Task: {task}")], typing=(0.1, 0.3))
    return sub


def subagent_result(run: SubRun, artifacts_dir: str) -> dict:
    msgs = [
        e["message"]
        for e in run.session.lines
        if isinstance(e, dict) and e.get("type") == "message" and e["message"]["role"] != "system"
    ]
    assistants = [m for m in msgs if m["role"] == "assistant"]
    usage = {
        "input": sum(m["usage"]["input"] for m in assistants),
        "output": sum(m["usage"]["output"] for m in assistants),
        "cacheRead": sum(m["usage"]["cacheRead"] for m in assistants),
        "cacheWrite": sum(m["usage"]["cacheWrite"] for m in assistants),
        "cost": sum(m["usage"]["cost"]["total"] for m in assistants),
        "turns": len(assistants),
    }
    tool_count = sum(1 for m in msgs if m["role"] == "toolResult")
    duration = run.session.t - ms_of(run.session.header["timestamp"])
    base = f"{artifacts_dir}/{run.artifact_base}"
    res: dict[str, Any] = {
        "agent": run.agent,
        "task": run.task,
        "exitCode": run.exit_code,
        "messages": msgs,
        "usage": usage,
        "model": f"{run.model.provider}/{run.model.id}",
    }
    if run.error:
        res["error"] = run.error
    res["sessionFile"] = (
        f"/tmp/pi-subagent-session-{run.session.g.b62(6)}/run-{run.step - 1 if run.step else 0}/{run.session.filename}"
    )
    if run.skills:
        res["skills"] = run.skills
    res["progressSummary"] = {
        "toolCount": tool_count,
        "tokens": usage["input"] + usage["output"] + usage["cacheRead"] + usage["cacheWrite"],
        "durationMs": duration,
    }
    res["artifactPaths"] = {
        "inputPath": f"{base}_input.md",
        "outputPath": f"{base}_output.md",
        "jsonlPath": f"{base}.jsonl",
        "metadataPath": f"{base}_meta.json",
    }
    if run.step is not None:
        res["step"] = run.step
    return res


def final_text(run: SubRun) -> str:
    for e in reversed(run.session.lines):
        if isinstance(e, dict) and e.get("type") == "message" and e["message"]["role"] == "assistant":
            return "\n".join(b["text"] for b in e["message"]["content"] if b["type"] == "text")
    return ""


# ---------------------------------------------------------------------------
# Session B: the long one (expiry dates, mypy, unittest -> pytest migration,
# compaction, flaky tests hunted with subagents)
# ---------------------------------------------------------------------------

DISCOUNTS_PY_B = '''"""Discount codes customers can enter at checkout."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal


class InvalidCode(ValueError):
    """Raised for a code we don't know, or one that can no longer be used."""


class ExpiredCode(InvalidCode):
    """The code's last day has passed."""


class CodeUsedUp(InvalidCode):
    """The code has been redeemed ``max_uses`` times."""


@dataclass(frozen=True)
class Discount:
    code: str
    percent_off: Decimal = Decimal("0")
    free_shipping: bool = False
    expires: date | None = None  # last day the code can be used
    max_uses: int | None = None

    def apply(self, subtotal: Decimal) -> Decimal:
        """The amount taken off ``subtotal`` (never more than the subtotal)."""
        return min(subtotal * self.percent_off / 100, subtotal)


CODES: dict[str, Discount] = {
    "SAVE10": Discount("SAVE10", percent_off=Decimal("10")),
    "MARKET20": Discount("MARKET20", percent_off=Decimal("20"), max_uses=50),
    "SUMMER25": Discount("SUMMER25", percent_off=Decimal("25"), expires=date(2026, 9, 30)),
    "FREESHIP": Discount("FREESHIP", free_shipping=True),
}


def lookup(code: str, *, today: date = None, uses: Mapping[str, int] | None = None) -> Discount:
    """Find a usable discount; codes are case-insensitive and surrounding spaces are ignored."""
    key = code.strip().upper()
    try:
        discount = CODES[key]
    except KeyError:
        raise InvalidCode(f"Unknown discount code: {code.strip()!r}") from None
    today = today or date.today()
    if discount.expires is not None and today >= discount.expires:
        raise ExpiredCode(f"{key} expired on {discount.expires:%d %B %Y}")
    if discount.max_uses is not None and (uses or {}).get(key, 0) >= discount.max_uses:
        raise CodeUsedUp(f"{key} has already been used {discount.max_uses} times")
    return discount
'''

REDEMPTIONS_PY = '''"""How often each discount code was redeemed (a small JSON file)."""
from __future__ import annotations

import json
from pathlib import Path

from flask import current_app


def _path() -> Path:
    return Path(current_app.config.get("REDEMPTIONS_PATH", "data/redemptions.json"))


def counts() -> dict[str, int]:
    path = _path()
    return json.loads(path.read_text()) if path.exists() else {}


def count(code: str) -> int:
    return counts().get(code)


def record(code: str) -> None:
    data = counts()
    data[code] = data.get(code, 0) + 1
    _path().write_text(json.dumps(data, indent=2, sort_keys=True) + "\\n")
'''

TEST_DISCOUNTS_PY = """from datetime import date

import pytest

from shop import redemptions
from shop.discounts import CodeUsedUp, ExpiredCode, lookup


def test_code_still_works_on_its_last_day():
    assert lookup("SUMMER25", today=date(2026, 9, 30)).code == "SUMMER25"


def test_expired_code_is_rejected():
    with pytest.raises(ExpiredCode, match="expired on 30 September 2026"):
        lookup("SUMMER25", today=date(2026, 10, 1))


def test_used_up_code_is_rejected():
    with pytest.raises(CodeUsedUp):
        lookup("MARKET20", uses={"MARKET20": 50})


def test_code_below_its_limit_still_works():
    assert lookup("market20", uses={"MARKET20": 49}).code == "MARKET20"


def test_redemptions_are_counted(app):
    with app.app_context():
        redemptions.record("MARKET20")
        redemptions.record("MARKET20")
        assert redemptions.count("MARKET20") == 2
"""

UAS = [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 15; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
]


def production_log(g: Gen) -> str:
    """journalctl output of the shop's gunicorn service for one day."""
    t = ms_of("2026-11-15T07:02:11.000Z")
    end = ms_of("2026-11-16T07:40:00.000Z")
    lines = []
    pid = 812
    codes = ["SAVE10", "SUMMER25", "MARKET20", "FREESHIP", "SUMMER25", "SAVE10"]
    while t < end:
        t += g.randint(20, 240) * 1000
        ip = f"{g.choice([81, 88, 91, 176, 213])}.{g.randint(1, 254)}.{g.randint(1, 254)}.{g.randint(1, 254)}"
        ua = g.rng.choice(UAS)
        visit = [("GET", "/", 200, 2411), ("GET", "/cart", 200, 1834)]
        if g.rng.random() < 0.45:
            sku = g.rng.choice(["MUG-01", "TEE-02", "PRT-03"])
            visit = [
                ("GET", "/", 200, 2411),
                ("POST", f"/cart/add/{sku}", 302, 199),
                ("GET", "/cart", 200, 1987),
                ("GET", "/checkout", 200, 3120),
            ]
            if g.rng.random() < 0.5:
                visit += [("POST", "/checkout/code", 302, 207), ("GET", "/checkout", 200, 3388)]
            if g.rng.random() < 0.6:
                visit += [("POST", "/checkout", 302, 205), ("GET", "/cart", 200, 1702)]
        for method, path, status, size in visit:
            t += g.randint(1500, 40000)
            local = datetime.fromtimestamp(t / 1000 + 3600, tz=timezone.utc)
            stamp = local.strftime("%b %d %H:%M:%S")
            clf = local.strftime("%d/%b/%Y:%H:%M:%S +0100")
            lines.append(
                f'{stamp} market-stall gunicorn[{pid}]: {ip} - - [{clf}] "{method} {path} HTTP/1.1" {status} {size} "-" "{ua}"'
            )
            if path == "/checkout/code":
                code = g.rng.choice(codes)
                lines.append(
                    f"{stamp} market-stall gunicorn[{pid}]: [{local:%Y-%m-%d %H:%M:%S} +0100] [{pid}] [INFO] shop.views: discount code {code} applied"
                )
    return "\n".join(lines) + "\n"


def simulate_seed_run(fs: FS, seed: int) -> tuple[str, list[str]]:
    """``pytest -v --randomly-seed=N``: shuffled order, order-dependent failures."""
    rng = random.Random(seed * 7919)
    modules = sorted(p for p in fs.files if p.startswith("tests/test_"))
    rng.shuffle(modules)
    order: list[str] = []
    for m in modules:
        names = re.findall(r"^def (test_\w+)", fs.files[m], re.M)
        rng.shuffle(names)
        order += [f"{m}::{n}" for n in names]
    pos = {t: i for i, t in enumerate(order)}
    fails: dict[str, str] = {}
    o_first = "tests/test_orders.py::test_first_order_number_of_the_day"
    o_inc = "tests/test_orders.py::test_order_numbers_increase"
    if pos[o_inc] < pos[o_first]:
        fails[o_first] = "AssertionError: assert '20261102-0003' == '20261102-0001'"
    digest = "tests/test_emails.py::test_digest_lists_products_alphabetically"
    skips = "tests/test_emails.py::test_digest_skips_products_announced_before"
    if pos[skips] < pos[digest]:
        fails[digest] = "AssertionError: assert ['- Market te...graph print'] == ['- Enamel mu...graph print']"
    empty = "tests/test_reports.py::test_empty_week_has_no_orders"
    sums = "tests/test_reports.py::test_report_sums_revenue"
    if pos[sums] < pos[empty]:
        fails[empty] = "assert 2 == 0"
    head = f"""============================= test session starts ==============================
platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0 -- /home/demo/shop/.venv/bin/python
cachedir: .pytest_cache
Using --randomly-seed={seed}
rootdir: /home/demo/shop
configfile: pyproject.toml
testpaths: tests
plugins: randomly-3.15.0
collecting ... collected {len(order)} items

"""
    rows = []
    for i, t in enumerate(order, 1):
        status = "FAILED" if t in fails else "PASSED"
        line = f"{t} {status}"
        pct = f"[{int(100 * i / len(order)):3d}%]"
        rows.append(line + " " * max(1, 80 - len(line) - len(pct)) + pct)
    body = head + "\n".join(rows) + "\n\n"
    secs = 0.6 + rng.random() * 0.25
    if fails:
        body += "=================================== FAILURES ===================================\n"
        for t in sorted(fails, key=pos.get):
            name = t.split("::")[1]
            bar = "_" * max(3, (78 - len(name)) // 2)
            body += f"{bar} {name} {bar}\n"
            if t == o_first:
                body += f"""
    def {name}():
>       assert next_order_number(date(2026, 11, 2)) == "20261102-0001"
E       AssertionError: assert '20261102-0003' == '20261102-0001'
E
E         - 20261102-0001
E         ?             ^
E         + 20261102-0003
E         ?             ^

tests/test_orders.py:21: AssertionError
"""
            elif t == digest:
                body += f"""
    def {name}():
        digest = weekly_digest({{"Risograph print", "Enamel mug", "Market tee"}})
>       assert digest.splitlines()[1:] == ["- Enamel mug", "- Market tee", "- Risograph print"]
E       AssertionError: assert ['- Market te...graph print'] == ['- Enamel mu...graph print']
E
E         At index 0 diff: '- Market tee' != '- Enamel mug'
E         Right contains one more item: '- Risograph print'

tests/test_emails.py:16: AssertionError
"""
            else:
                body += f"""
    def {name}():
>       assert weekly_report(date.today()).orders == 0
E       assert 2 == 0
E        +  where 2 = Report(start=datetime.date(2026, 11, 9), end=datetime.date(2026, 11, 16), orders=2, revenue=Decimal('36.50')).orders
E        +    where Report(...) = weekly_report(datetime.date(2026, 11, 16))

tests/test_reports.py:8: AssertionError
"""
        body += "=========================== short test summary info ============================\n"
        for t in sorted(fails, key=pos.get):
            body += f"FAILED {t} - {fails[t]}"[:120] + "\n"
        summary = f" {len(fails)} failed, {len(order) - len(fails)} passed in {secs:.2f}s "
    else:
        summary = f" {len(order)} passed in {secs:.2f}s "
    pad = (80 - len(summary)) // 2
    body += "=" * pad + summary + "=" * (80 - pad - len(summary)) + "\n"
    return body, list(fails)


MIGRATION_THINKING = """The user wants every unittest-style file under tests/ converted to plain pytest, one file at a time, running each file after converting it.

Let me think about what the conversion involves and what could go wrong, because there are about twenty files and I want one consistent, mechanical approach instead of improvising per file.

1. Structure. Each file has a single `unittest.TestCase` subclass. `setUp` assigns attributes (`self.cart = Cart()`); those become `@pytest.fixture` functions with the same name, and the test methods become module-level functions that take the fixtures they use as parameters. Fixtures built from other attributes (in test_orders.py `self.order` is built from `self.placed`) become fixtures that take the other fixture as a parameter. A test should only request the fixtures it actually uses, otherwise the signatures get noisy.

2. Assertions. `assertEqual(a, b)` → `assert a == b`, `assertTrue(x)` → `assert x`, `assertFalse(x)` → `assert not x`, `assertIn(a, b)` → `assert a in b`, `assertIsNone(x)` → `assert x is None`, `assertLess(a, b)` → `assert a < b`, `assertRaises(E)` → `pytest.raises(E)`, `assertRaisesRegex(E, r)` → `pytest.raises(E, match=r)`. Plain asserts get pytest's assertion rewriting, so failure output gets better, not worse.

3. `assertAlmostEqual(a, b, places=2)`. The literal translation is `a == pytest.approx(b, abs=0.01)`, but the actual value is a Decimal and the expected one a float. I'm not sure approx copes with Decimal minus float; it might raise a TypeError. If that happens I'll compare against an exact `Decimal` instead, which is better anyway: AGENTS.md says money is always Decimal.

4. Imports. Drop `import unittest`, add `import pytest` only where fixtures, `raises` or `approx` are used, keep the grouping stdlib / third party / first party.

5. Order. unittest runs the methods of a class alphabetically with a fresh `setUp` each time; pytest runs module-level functions in file order. The methods are already in a sensible order in the files, so converted tests keep running in the same order. But any module-level state (a global counter, a global list) would make tests order-dependent; if something fails only after conversion, that's the first thing to check.

6. Process. read → write the converted file (a complete rewrite is clearer than a dozen edits when nearly every line changes) → `python -m pytest -q tests/test_x.py`. Tiny files can go in pairs. At the end, run the whole suite once.

First, the list of files: find for test_*.py, and grep for `unittest` to see which ones still need converting. test_checkout.py, test_checkout_page.py and test_discounts.py are pytest already."""


def build_session_b(fs: FS, artifacts: list[tuple[str, Session]]) -> Session:
    s = Session(
        cwd=SHOP, start="2026-11-16T08:47:12.208Z", seed=1116, model=SONNET, thinking_level="medium", usage_scale=3.2
    )
    sysmsg = s.system(sections=shop_system_prompt(BASE_TOOLS), tools_added=tool_decls(BASE_TOOLS))
    log = production_log(s.g)
    s.bash_exec(
        "ssh market-stall journalctl -u shop --since yesterday --no-pager",
        log,
        0,
        full_path=f"/tmp/pi-bash-{s.g.hexn(16)}.log",
    )
    s.user(
        "See the end of that log: people are still using SUMMER25, which should have ended on September 30. "
        "Codes need an expiry date (last valid day), and MARKET20 should only work for the first 50 orders. Please add both."
    )
    c1 = call("read", {"path": "shop/discounts.py"})
    c2 = call("grep", {"pattern": r"lookup\(|current_discount", "path": "shop"})
    s.turn(
        [
            think(
                "Two features: an expiry date per code and a usage limit. The expiry is a property of the code; the usage count is state "
                "that must survive restarts, so it can't live in the CODES dict. There's no database, products are a JSON file, so a small "
                "JSON file for redemption counts fits the project. Let me look at the current code and where lookup() is called."
            ),
            c1,
            c2,
        ],
        [fs.read("shop/discounts.py"), fs.grep(r"lookup\(|current_discount", "shop")],
    )
    s.assistant(
        [],
        stop="error",
        error='529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CVpX3r9WqnGk4hT7s2mYd"}',
    )
    s.tick(2, 3)
    c = call("write", {"path": "shop/discounts.py", "content": DISCOUNTS_PY_B})
    s.turn(
        [
            text(
                "Plan: `Discount` gets `expires` (last valid day) and `max_uses`; `lookup()` raises `ExpiredCode` / `CodeUsedUp`, both "
                "subclasses of `InvalidCode` so existing `except InvalidCode` blocks keep working. Redemption counts go into a small JSON file."
            ),
            c,
        ],
        [fs.write("shop/discounts.py", DISCOUNTS_PY_B)],
    )
    c = call("write", {"path": "shop/redemptions.py", "content": REDEMPTIONS_PY})
    s.turn([c], [fs.write("shop/redemptions.py", REDEMPTIONS_PY)])
    c = call("read", {"path": "shop/views.py"})
    s.turn(
        [
            text(
                "Now the views: `apply_code()` has to pass the redemption counts, and `place_order()` has to record a redemption."
            ),
            c,
        ],
        [fs.read("shop/views.py")],
    )
    v_imp_old = "from .discounts import Discount, InvalidCode, lookup\n"
    v_imp_new = (
        "from . import redemptions\nfrom .discounts import CodeUsedUp, Discount, ExpiredCode, InvalidCode, lookup\n"
    )
    v_cur_old = "        return lookup(code)\n    except InvalidCode:"
    v_cur_new = "        return lookup(code, uses=redemptions.counts())\n    except InvalidCode:"
    v_apply_old = """    code = request.form.get("code", "")
    try:
        discount = lookup(code)
    except InvalidCode:
        flash(f"Sorry, {code.strip()!r} is not a valid code.")"""
    v_apply_new = """    code = request.form.get("code")
    try:
        discount = lookup(code, uses=redemptions.counts())
    except ExpiredCode:
        flash(f"Sorry, {code.strip().upper()} has expired.")
    except CodeUsedUp:
        flash(f"Sorry, {code.strip().upper()} has been fully redeemed.")
    except InvalidCode:
        flash(f"Sorry, {code.strip()!r} is not a valid code.")"""
    v_place_old = """    totals = compute_totals(current_cart(), current_discount())
    session.pop("cart", None)"""
    v_place_new = """    discount = current_discount()
    totals = compute_totals(current_cart(), discount)
    if discount is not None:
        redemptions.record(discount.code)
    session.pop("cart", None)
    session.pop("discount_code", None)"""
    c = call(
        "edit",
        {
            "path": "shop/views.py",
            "edits": [
                {"oldText": v_imp_old, "newText": v_imp_new},
                {"oldText": v_cur_old, "newText": v_cur_new},
                {"oldText": v_apply_old, "newText": v_apply_new},
                {"oldText": v_place_old, "newText": v_place_new},
            ],
        },
    )
    s.turn(
        [c],
        [
            fs.edit(
                "shop/views.py",
                (v_imp_old, v_imp_new),
                (v_cur_old, v_cur_new),
                (v_apply_old, v_apply_new),
                (v_place_old, v_place_new),
            )
        ],
    )
    cf_old = '    return create_app({"TESTING": True, "PRODUCTS_PATH": str(products)})'
    cf_new = (
        "    return create_app(\n"
        '        {\n            "TESTING": True,\n            "PRODUCTS_PATH": str(products),\n'
        '            "REDEMPTIONS_PATH": str(tmp_path / "redemptions.json"),\n        }\n    )'
    )
    c = call("read", {"path": "tests/conftest.py"})
    s.turn([c], [fs.read("tests/conftest.py")])
    c1 = call("edit", {"path": "tests/conftest.py", "oldText": cf_old, "newText": cf_new})
    c2 = call("write", {"path": "tests/test_discounts.py", "content": TEST_DISCOUNTS_PY})
    s.turn(
        [text("Tests must not write `data/redemptions.json` in the repo, so the test app gets its own path:"), c1, c2],
        [fs.edit("tests/conftest.py", (cf_old, cf_new)), fs.write("tests/test_discounts.py", TEST_DISCOUNTS_PY)],
    )
    n = count_tests(fs)
    fail_b = '''____________________ test_code_still_works_on_its_last_day _____________________

    def test_code_still_works_on_its_last_day():
>       assert lookup("SUMMER25", today=date(2026, 9, 30)).code == "SUMMER25"

tests/test_discounts.py:10:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

code = 'SUMMER25'

    def lookup(code: str, *, today: date = None, uses: Mapping[str, int] | None = None) -> Discount:
        """Find a usable discount; codes are case-insensitive and surrounding spaces are ignored."""
        key = code.strip().upper()
        try:
            discount = CODES[key]
        except KeyError:
            raise InvalidCode(f"Unknown discount code: {code.strip()!r}") from None
        today = today or date.today()
        if discount.expires is not None and today >= discount.expires:
>           raise ExpiredCode(f"{key} expired on {discount.expires:%d %B %Y}")
E           shop.discounts.ExpiredCode: SUMMER25 expired on 30 September 2026

shop/discounts.py:50: ExpiredCode
'''
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn(
        [c],
        [
            bash_out(
                pytest_q(
                    n,
                    [
                        "tests/test_discounts.py::test_code_still_works_on_its_last_day - shop.discounts.ExpiredCode: SUMMER25 expired on 30 September 2026"
                    ],
                    0.83,
                    fail_b,
                ),
                exit_code=1,
                duration=(1700, 2900),
            )
        ],
    )
    exp_old = "today >= discount.expires"
    c = call("edit", {"path": "shop/discounts.py", "oldText": exp_old, "newText": "today > discount.expires"})
    s.turn(
        [
            think(
                "`expires` is the last valid day, so the check must be `>`, not `>=`. The test is right, the code is off by one day."
            ),
            c,
        ],
        [fs.edit("shop/discounts.py", (exp_old, "today > discount.expires"))],
    )
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn([c], [bash_out(pytest_q(n, secs=0.79), duration=(1600, 2700))])
    s.assistant(
        [
            text(
                """Both limits are in place:

- **Expiry**: `Discount.expires` is the *last valid day* (inclusive). `SUMMER25` now has `expires=date(2026, 9, 30)`, so it's rejected from October 1st with *"Sorry, SUMMER25 has expired."*
- **Usage limit**: `MARKET20` has `max_uses=50`. `shop/redemptions.py` keeps the counts in `data/redemptions.json`; `place_order()` records a redemption and clears the code from the session.
- `ExpiredCode` and `CodeUsedUp` subclass `InvalidCode`, so `current_discount()` silently drops a code that expired while it sat in someone's session.

5 new tests in `tests/test_discounts.py`; the suite is green. You'll want to add `data/redemptions.json` to your backups on the server."""
            )
        ]
    )
    # mypy, run by the user
    l_disc = line_of(fs, "shop/discounts.py", "def lookup(")
    l_view = line_of(fs, "shop/views.py", "discount = lookup(code, uses=")
    l_red = line_of(fs, "shop/redemptions.py", "return counts().get(code)")
    mypy_out = (
        f'shop/redemptions.py:{l_red}: error: Incompatible return value type (got "int | None", expected "int")  [return-value]\n'
        f'shop/discounts.py:{l_disc}: error: Incompatible default for argument "today" (default has type "None", argument has type "date")  [assignment]\n'
        f"shop/discounts.py:{l_disc}: note: PEP 484 prohibits implicit Optional. Accordingly, mypy has changed its default to no_implicit_optional=True\n"
        f"shop/discounts.py:{l_disc}: note: Use https://github.com/hauntsaninja/no_implicit_optional to automatically upgrade your codebase\n"
        f'shop/views.py:{l_view}: error: Argument 1 to "lookup" has incompatible type "str | None"; expected "str"  [arg-type]\n'
        "Found 3 errors in 3 files (checked 12 source files)\n"
    )
    s.bash_exec("python -m mypy shop", mypy_out, 1)
    s.user("mypy isn't happy. Fix those.")
    c1 = call(
        "edit",
        {
            "path": "shop/redemptions.py",
            "oldText": "    return counts().get(code)",
            "newText": "    return counts().get(code, 0)",
        },
    )
    c2 = call(
        "edit",
        {"path": "shop/discounts.py", "oldText": "*, today: date = None,", "newText": "*, today: date | None = None,"},
    )
    c3 = call(
        "edit",
        {
            "path": "shop/views.py",
            "oldText": '    code = request.form.get("code")\n',
            "newText": '    code = request.form.get("code", "")\n',
        },
    )
    s.turn(
        [
            think(
                "All three are real: `count()` returns None for a code that was never redeemed, the `today` default needs `| None`, and "
                '`request.form.get("code")` can be None (the old code had a `""` default, I dropped it).'
            ),
            c1,
            c2,
            c3,
        ],
        [
            fs.edit("shop/redemptions.py", ("    return counts().get(code)", "    return counts().get(code, 0)")),
            fs.edit("shop/discounts.py", ("*, today: date = None,", "*, today: date | None = None,")),
            fs.edit(
                "shop/views.py", ('    code = request.form.get("code")\n', '    code = request.form.get("code", "")\n')
            ),
        ],
    )
    c = call("bash", {"command": "python -m mypy shop && python -m pytest -q"})
    s.turn(
        [c], [bash_out("Success: no issues found in 12 source files\n" + pytest_q(n, secs=0.81), duration=(5200, 7900))]
    )
    s.assistant(
        [
            text(
                "Fixed all three:\n\n"
                "1. `redemptions.count()` returns `0` for codes that were never redeemed (it returned `None`).\n"
                "2. `lookup(..., today: date | None = None)`.\n"
                '3. `apply_code()` uses `request.form.get("code", "")` again; I had dropped the default.\n\n'
                "`mypy shop` is clean and the tests pass."
            )
        ]
    )

    # --- the migration -------------------------------------------------------
    s.thinking_change("high")
    s.user(
        "While we're at it: most of tests/ is still unittest-style classes from the old codebase. Migrate everything under tests/ to "
        "plain pytest, one file at a time, and run each file after converting it."
    )
    c1 = call("find", {"pattern": "test_*.py", "path": "tests"})
    c2 = call("grep", {"pattern": "import unittest", "path": "tests", "literal": True})
    s.turn([think(MIGRATION_THINKING), c1, c2], [fs.find("test_*.py", "tests"), fs.grep("import unittest", "tests")])
    todo_files = [su for su in SUITES]
    s.assistant(
        [
            text(
                f"{len(todo_files)} files to convert; `test_checkout.py`, `test_checkout_page.py` and `test_discounts.py` are already pytest. "
                "I'll go alphabetically-ish, starting with the simplest ones."
            )
        ],
        think_secs=(1.5, 3),
    )
    s.thinking_change("medium")

    converted: list[str] = []
    kept_marker: dict[str, str] = {}

    def convert(suite: Suite, *, note: str | None = None, length_first: bool = False) -> None:
        path = f"tests/test_{suite.module}.py"
        new = render_pytest(suite)
        c = call("read", {"path": path})
        blocks = ([text(note)] if note else []) + [c]
        a = s.turn(blocks, [fs.read(path)])
        kept_marker[suite.module] = a["id"]
        if length_first:
            cut = new[: int(len(new) * 0.62)]
            c = call("write", {"path": path, "content": cut})
            s.assistant([c], stop="length", think_secs=(40, 55))
            s.result(
                c,
                error_out(
                    'Tool call "write" was not executed: the response hit the output token limit, so its arguments may be truncated. '
                    "Re-issue the tool call with complete arguments.",
                    duration=(0, 1),
                ),
            )
            c = call("write", {"path": path, "content": new})
            s.turn([text("The response was cut off mid-file. Writing it again in full:"), c], [fs.write(path, new)])
        else:
            c = call("write", {"path": path, "content": new})
            s.turn([c], [fs.write(path, new)])
        converted.append(path)

    def run(paths: list[str], out: str | None = None, code: int = 0) -> None:
        k = sum(len(re.findall(r"^def test_", fs.files[p], re.M)) for p in paths)
        c = call("bash", {"command": "python -m pytest -q " + " ".join(paths)})
        s.turn([c], [bash_out(out or pytest_q(k, secs=0.03 + 0.012 * k), exit_code=code, duration=(600, 1400))])

    by_name = {su.module: su for su in SUITES}

    def pair(a: str, b: str, note: str | None = None) -> None:
        sa, sb = by_name[a], by_name[b]
        pa, pb = f"tests/test_{a}.py", f"tests/test_{b}.py"
        c1, c2 = call("read", {"path": pa}), call("read", {"path": pb})
        blocks = ([text(note)] if note else []) + [c1, c2]
        first = s.turn(blocks, [fs.read(pa), fs.read(pb)])
        kept_marker[a] = kept_marker[b] = first["id"]
        na, nb = render_pytest(sa), render_pytest(sb)
        c1, c2 = call("write", {"path": pa, "content": na}), call("write", {"path": pb, "content": nb})
        s.turn([c1, c2], [fs.write(pa, na), fs.write(pb, nb)])
        converted.extend([pa, pb])
        run([pa, pb])

    def module_read(path: str, note: str) -> None:
        c = call("read", {"path": path})
        s.turn([text(note), c], [fs.read(path)])

    def full_run() -> None:
        k = count_tests(fs)
        c = call("bash", {"command": "python -m pytest -q"})
        s.turn(
            [text("Whole suite as a checkpoint:"), c],
            [bash_out(pytest_q(k, secs=0.6 + k / 400), duration=(1500, 2800))],
        )

    convert(by_name["cart"], note="Starting with `test_cart.py`.")
    run(["tests/test_cart.py"])
    convert(by_name["inventory"])
    run(["tests/test_inventory.py"])
    convert(
        by_name["orders"],
        note="`test_orders.py` has a fixture that depends on another one (`order` is built from `placed`).",
    )
    run(["tests/test_orders.py"])
    convert(by_name["payments"], length_first=True)
    run(["tests/test_payments.py"])
    pair("shipping", "taxes", note="Two small ones together.")
    convert(by_name["currency"], note="`test_currency.py` is the one with `assertAlmostEqual`.")
    cur_fail = """F..                                                                      [100%]
=================================== FAILURES ===================================
_______________________________ test_eur_to_chf ________________________________

    def test_eur_to_chf():
>       assert convert(Decimal("19.99"), "EUR", "CHF") == pytest.approx(18.79, abs=0.01)

tests/test_currency.py:9:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
.venv/lib/python3.12/site-packages/_pytest/python_api.py:417: in __eq__
    return super().__eq__(actual)
.venv/lib/python3.12/site-packages/_pytest/python_api.py:151: in __eq__
    return all(
.venv/lib/python3.12/site-packages/_pytest/python_api.py:155: in <genexpr>
    a == self._approx_scalar(x) for a, x in self._yield_comparisons(actual)
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

    def __eq__(self, actual) -> bool:
>       result: bool = abs(self.expected - actual) <= self.tolerance
E       TypeError: unsupported operand type(s) for -: 'float' and 'decimal.Decimal'

.venv/lib/python3.12/site-packages/_pytest/python_api.py:455: TypeError
=========================== short test summary info ============================
FAILED tests/test_currency.py::test_eur_to_chf - TypeError: unsupported operand type(s) for -: 'float' and 'decimal.Decimal'
1 failed, 2 passed in 0.09s
"""
    run(["tests/test_currency.py"], cur_fail, 1)
    ap_old = '    assert convert(Decimal("19.99"), "EUR", "CHF") == pytest.approx(18.79, abs=0.01)'
    ap_new = '    assert convert(Decimal("19.99"), "EUR", "CHF") == Decimal("18.79")'
    c = call("edit", {"path": "tests/test_currency.py", "oldText": ap_old, "newText": ap_new})
    s.turn(
        [
            text(
                "As suspected, `pytest.approx` with a float can't be compared to a `Decimal`. `convert()` already rounds to cents, "
                "so an exact comparison is the better test anyway:"
            ),
            c,
        ],
        [fs.edit("tests/test_currency.py", (ap_old, ap_new))],
    )
    run(["tests/test_currency.py"])
    convert(by_name["emails"])
    run(["tests/test_emails.py"])
    convert(by_name["users"])
    run(["tests/test_users.py"])
    convert(by_name["auth"], note="`test_auth.py`: `hashed` is computed in `setUp`, so it becomes a fixture too.")
    run(["tests/test_auth.py"])
    full_run()
    s.user(
        "Quick question while you're at it: why do you rewrite whole files with write instead of editing them?",
        typing=(8, 20),
    )
    s.assistant(
        [
            text(
                "Because nearly every line changes: the class goes away, `setUp` becomes fixtures, every method loses `self` and every "
                "assertion changes form. As edits that would be 10–20 replacements per file, each of which must match exactly; one "
                "`write` with the complete new file is easier to review and can't half-apply. For small, local changes (like the "
                "`pytest.approx` fix in `test_currency.py`) I use `edit`."
            )
        ]
    )
    convert(by_name["search"])
    run(["tests/test_search.py"])
    module_read(
        "shop/pagination.py", "`test_pagination.py` compares whole `Page` objects; checking that `Page` supports `==`:"
    )
    convert(by_name["pagination"], note="`Page` is a frozen dataclass, so equality works the same under pytest.")
    run(["tests/test_pagination.py"])
    convert(by_name["reviews"])
    run(["tests/test_reviews.py"])
    convert(by_name["wishlist"])
    run(["tests/test_wishlist.py"])
    convert(by_name["reports"], note="`test_reports.py` works on the module-level `ORDERS` list; converting it as-is.")
    run(["tests/test_reports.py"])
    convert(by_name["invoices"])
    run(["tests/test_invoices.py"])
    convert(by_name["addresses"])
    run(["tests/test_addresses.py"])
    convert(by_name["bundles"])
    run(["tests/test_bundles.py"])
    full_run()
    convert(by_name["csv_export"], note="`test_csv_export.py` imports `csv` and `io` from the stdlib; they stay.")
    run(["tests/test_csv_export.py"])
    convert(by_name["feeds"])
    run(["tests/test_feeds.py"])

    # --- automatic compaction (context over the threshold) ------------------
    first_kept = kept_marker["bundles"]
    remaining = [su.module for su in SUITES if f"tests/test_{su.module}.py" not in converted]
    done_list = ", ".join(f"`{p.split('/')[1]}`" for p in converted)
    read_files = ["shop/pagination.py"]  # everything else that was read was also modified
    modified = sorted(
        set(converted)
        | {"shop/discounts.py", "shop/redemptions.py", "shop/views.py", "tests/conftest.py", "tests/test_discounts.py"}
    )
    summary = f"""## Goal
1. Discount codes: expiry dates and a usage limit for MARKET20 (done).
2. Migrate all unittest-style test files under `tests/` to plain pytest, one file at a time, running each file after converting it.

## Constraints & Preferences
- Money is always `Decimal` (AGENTS.md); no new dependencies without asking.
- Convert one file at a time and run it right after.

## Progress
### Done
- [x] `Discount.expires` (last valid day, inclusive) and `Discount.max_uses`; `ExpiredCode` and `CodeUsedUp` subclass `InvalidCode`.
- [x] `shop/redemptions.py` stores counts in `data/redemptions.json`; tests use `REDEMPTIONS_PATH` from `tests/conftest.py`.
- [x] `python -m mypy shop` is clean.
- [x] Converted and passing: {done_list}.

### In Progress
- [ ] Converting the remaining {len(remaining)} files: {", ".join(f"`test_{m}.py`" for m in remaining)}.

### Blocked
- (none)

## Key Decisions
- **Rewrite each file with `write`**: nearly every line changes, so a full rewrite is clearer than many edits.
- **`setUp` attributes become fixtures**; tests only request the fixtures they use.
- **Exact `Decimal` instead of `pytest.approx`** in `test_currency.py`: approx with a float expected value raised `TypeError` against `Decimal`.

## Next Steps
1. Convert the remaining files the same way.
2. Run the whole suite once at the end.

## Critical Context
- Some modules keep module-level state (`shop/orders.py` `_sequence`, `shop/reports.py` `ORDERS`, `shop/emails.py` `_announced`); the tests only pass because they run in file order.

<read-files>
{chr(10).join(read_files)}
</read-files>

<modified-files>
{chr(10).join(modified)}
</modified-files>"""
    tokens_before = s.last_context_tokens()
    s.compaction(
        summary,
        first_kept,
        {"readFiles": read_files, "modifiedFiles": modified},
        sysmsg["message"],
        usage_obj(SONNET, tokens_before - 2300, 1480, 0, 0),
    )

    convert(by_name["markdown"], note="Continuing with the remaining files.")
    run(["tests/test_markdown.py"])
    module_read(
        "shop/rate_limit.py",
        "`test_rate_limit.py` fakes the clock through a list in `setUp`; checking how the limiter reads time:",
    )
    convert(
        by_name["rate_limit"],
        note="The clock is injected, so the fake clock simply becomes a fixture the `limiter` fixture depends on.",
    )
    run(["tests/test_rate_limit.py"])
    convert(by_name["sales"])
    run(["tests/test_sales.py"])
    convert(by_name["settings"])
    run(["tests/test_settings.py"])
    pair("sitemap", "tags")
    module_read("shop/webhooks.py", "`test_webhooks.py`: does `verify()` return a value or raise?")
    convert(
        by_name["webhooks"],
        note="`verify()` returns `None` and raises `InvalidSignature`, so the happy-path test has no assert; keeping it that way.",
    )
    run(["tests/test_webhooks.py"])
    convert(by_name["newsletter"])
    run(["tests/test_newsletter.py"])
    convert(by_name["slugs"])
    run(["tests/test_slugs.py"])
    convert(by_name["returns"])
    run(["tests/test_returns.py"])
    convert(by_name["gift_cards"])
    run(["tests/test_gift_cards.py"])
    convert(by_name["loyalty"])
    run(["tests/test_loyalty.py"])
    convert(by_name["stock_alerts"])
    run(["tests/test_stock_alerts.py"])
    convert(by_name["images"])
    run(["tests/test_images.py"])
    convert(by_name["prices"])
    run(["tests/test_prices.py"])
    convert(by_name["analytics"], note="Last one: `test_analytics.py`.")
    run(["tests/test_analytics.py"])
    c = call("grep", {"pattern": "unittest", "path": "tests"})
    s.turn([text("All files converted. Checking nothing still imports unittest:"), c], [fs.grep("unittest", "tests")])
    n = count_tests(fs)
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn([c], [bash_out(pytest_q(n, secs=0.94), duration=(1900, 3100))])
    s.assistant(
        [
            text(
                f"""All {len(SUITES)} files are plain pytest now and the whole suite passes ({n} tests).

What changed, mechanically:

- `unittest.TestCase` classes → module-level `test_*` functions
- `setUp` attributes → `@pytest.fixture`s (tests only request what they use)
- `self.assert*` → plain `assert`, `assertRaises`/`assertRaisesRegex` → `pytest.raises(..., match=...)`
- one real fix: `test_currency.py` compares against an exact `Decimal` instead of `pytest.approx`

One caveat: a few modules keep **module-level state** (`_sequence` in `shop/orders.py`, `ORDERS` in `shop/reports.py`, `_announced` in `shop/emails.py`). Their tests pass because pytest runs them in file order; they might not in a different order."""
            )
        ]
    )
    # the user goes for lunch; the cache warmer keeps the prompt cache alive once
    s.tick(4 * 60 + 20)
    s.usage_entry("cache_warm", SONNET, usage_obj(SONNET, 0, 0, s.usage.ctx, 0))
    s.tick(47 * 60)

    # --- order-dependent tests ------------------------------------------------
    s.user(
        "Good point about the module-level state. Add pytest-randomly to the dev extras and run the suite with 20 different seeds, "
        "let's see what breaks.",
        typing=(20, 40),
    )
    py_old = 'dev = ["pytest>=8", "mypy>=1.11", "freezegun>=1.5"]'
    py_new = 'dev = ["pytest>=8", "pytest-randomly>=3.15", "mypy>=1.11", "freezegun>=1.5"]'
    c1 = call("edit", {"path": "pyproject.toml", "oldText": py_old, "newText": py_new})
    c2 = call("bash", {"command": "pip install -q -e '.[dev]' && python -m pytest --version"})
    s.turn([c1, c2], [fs.edit("pyproject.toml", (py_old, py_new)), bash_out("pytest 8.3.3\n", duration=(6200, 9400))])
    runs = []
    all_fails: dict[str, int] = {}
    last_fails: list[str] = []
    for seed in range(1, 21):
        out, fails = simulate_seed_run(fs, seed)
        runs.append(out)
        last_fails = fails
        for f in fails:
            all_fails[f] = all_fails.get(f, 0) + 1
    log_path = f"/tmp/pi-bash-{s.g.hexn(16)}.log"
    c = call("bash", {"command": 'for seed in $(seq 1 20); do python -m pytest -v --randomly-seed="$seed"; done 2>&1'})
    s.turn(
        [c], [bash_out("".join(runs), exit_code=1 if last_fails else 0, full_path=log_path, duration=(21000, 26000))]
    )
    big_result = s.leaf
    counts_txt = "".join(f"{v:7d} {k}\n" for k, v in sorted(all_fails.items(), key=lambda kv: (-kv[1], kv[0])))
    c = call("bash", {"command": f"grep -h '^FAILED' {log_path} | cut -d' ' -f2 | sort | uniq -c | sort -rn"})
    s.turn(
        [text("The output was truncated, but the full log is on disk. Counting failures per test:"), c],
        [bash_out(counts_txt, duration=(20, 60))],
    )
    s.context_edit(big_result, None)
    rows = "\n".join(
        f"| `{k.split('/')[1]}` | {v} / 20 |" for k, v in sorted(all_fails.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    s.assistant(
        [
            text(
                f"""Random order breaks exactly the three modules with module-level state; everything else passed in all 20 runs:

| Test | Failed |
|------|-------:|
{rows}

Each one fails only in some orders, so these are order dependencies, not timing problems."""
            )
        ]
    )
    # the subagent extension gets enabled: the prompt and tools change
    skills = (
        "<skills>\nThe following skills provide specialized instructions for specific tasks.\nUse the read tool to load a skill's file when the task matches its description.\n\n"
        "<available_skills>\n  <skill>\n    <name>flaky-tests</name>\n    <description>Diagnose and fix order-dependent or timing-dependent tests.</description>\n"
        "    <location>/home/demo/.pi/agent/skills/flaky-tests/SKILL.md</location>\n  </skill>\n</available_skills>\n</skills>"
    )
    new_tools = ["read", "bash", "edit", "write", "grep", "find", "subagent"]
    s.system(
        sections={
            "tools": "<tools>\n"
            + "\n".join(f"- {t}: {SNIPPETS[t]}" for t in new_tools)
            + "\n\nAdditional tools may be available.\n</tools>",
            "docs": None,
            "skills": skills,
        },
        tools_added=tool_decls(["subagent"]),
        tools_removed=[{"name": "ls"}],
    )
    s.user("Have a scout find out why each of them depends on the order, then let workers fix them in parallel.")

    adir = f"{PI_SESSIONS}/{s.project}/subagent-artifacts"

    # single: a scout
    run_id = s.g.hexn(8)
    scout_task = (
        "These tests fail only in some random orders (pytest-randomly): tests/test_orders.py::test_first_order_number_of_the_day, "
        "tests/test_emails.py::test_digest_lists_products_alphabetically, tests/test_reports.py::test_empty_week_has_no_orders. "
        "Find the root cause of each, with file:line references. Don't change any files."
    )
    scout_call = call("subagent", {"agent": "scout", "task": scout_task})
    s.assistant([scout_call])
    sub = start_subagent(s, "scout", scout_task, HAIKU, 51)
    c1, c2, c3 = (
        call("read", {"path": "shop/orders.py"}),
        call("read", {"path": "shop/emails.py"}),
        call("read", {"path": "shop/reports.py"}),
    )
    sub.turn([c1, c2, c3], [fs.read("shop/orders.py"), fs.read("shop/emails.py"), fs.read("shop/reports.py")])
    c = call("grep", {"pattern": r"_sequence|_announced|ORDERS", "path": "."})
    sub.turn([c], [fs.grep(r"_sequence|_announced|ORDERS", ".")])
    l_seq = line_of(fs, "shop/orders.py", "_sequence = itertools.count(1)")
    l_ann = line_of(fs, "shop/emails.py", "_announced: set[str] = set()")
    l_ord = line_of(fs, "shop/reports.py", "ORDERS: list")
    sub.assistant(
        [
            text(
                f"""Root causes (no files changed). All three are module-level state shared between tests:

1. **test_orders.py::test_first_order_number_of_the_day**: `shop/orders.py:{l_seq}` creates `_sequence = itertools.count(1)` at import time. Every `next_order_number()` call advances it for the rest of the process, so the test only sees `-0001` if it runs before `test_order_numbers_increase`.
2. **test_emails.py::test_digest_lists_products_alphabetically**: `shop/emails.py:{l_ann}` keeps `_announced`, the set of products already announced. After `test_digest_skips_products_announced_before` has run, "Enamel mug" is never listed again in that process.
3. **test_reports.py::test_empty_week_has_no_orders**: `shop/reports.py:{l_ord}` keeps `ORDERS` as a module-level list. The test doesn't clear it and asks for `weekly_report(date.today())`; if `test_report_sums_revenue` ran first, its orders (12 and 14 November) are inside this week."""
            )
        ]
    )
    scout = SubRun("scout", scout_task, HAIKU, sub, artifact_base=f"{run_id}_scout")
    s.t = sub.t + 400
    res = subagent_result(scout, adir)
    s.result(
        scout_call,
        Out(
            final_text(scout),
            details={"mode": "single", "results": [res], "artifacts": {"dir": adir, "files": [res["artifactPaths"]]}},
            duration=(0, 1),
        ),
    )
    s.lines[-1]["message"]["durationMs"] = sub.t - ms_of(sub.header["timestamp"])
    artifacts.append((scout.artifact_base, sub))

    # parallel: three workers, one cannot verify its fix
    par_id = s.g.hexn(8)
    tasks = [
        (
            "worker",
            "Make tests/test_orders.py independent of test order: shop/orders.py advances a module-level itertools.count. Reset it for every test in tests/test_orders.py (monkeypatch); don't change next_order_number()'s signature. Verify with 10 random seeds.",
        ),
        (
            "worker",
            "shop/emails.py keeps a module-level _announced set, so tests/test_emails.py depends on test order. Reset it for every test in tests/test_emails.py. Verify with 10 random seeds.",
        ),
        (
            "worker",
            "tests/test_reports.py::test_empty_week_has_no_orders depends on test order because shop.reports.ORDERS is module-level. Make the reports tests independent of order. Verify with 10 random seeds.",
        ),
    ]
    par_call = call("subagent", {"tasks": [{"agent": a_, "task": t_} for a_, t_ in tasks]})
    s.assistant([text("The scout confirms it: three pieces of module-level state. One worker per test:"), par_call])
    start_t = s.t + 1200
    o_imp_old = "from datetime import date, datetime, timedelta\n"
    o_imp_new = "import itertools\nfrom datetime import date, datetime, timedelta\n"
    o_old = "from shop.orders import Order, next_order_number\n"
    o_new = 'from shop import orders\nfrom shop.orders import Order, next_order_number\n\n\n@pytest.fixture(autouse=True)\ndef fresh_sequence(monkeypatch):\n    monkeypatch.setattr(orders, "_sequence", itertools.count(1))\n'
    e_imp_old = "from decimal import Decimal\n\nfrom shop.emails import order_confirmation, weekly_digest\n"
    e_imp_new = 'from decimal import Decimal\n\nimport pytest\n\nfrom shop import emails\nfrom shop.emails import order_confirmation, weekly_digest\n\n\n@pytest.fixture(autouse=True)\ndef nothing_announced_yet(monkeypatch):\n    monkeypatch.setattr(emails, "_announced", set())\n'
    r_old = "from shop.reports import ORDERS, record_order, weekly_report\n"
    r_new = "from shop.reports import ORDERS, record_order, weekly_report\n\n\n@pytest.fixture(autouse=True)\ndef clear_orders():\n    yield\n    ORDERS.clear()\n"
    r_imp_old = "from decimal import Decimal\n\nfrom shop.reports"
    r_imp_new = "from decimal import Decimal\n\nimport pytest\n\nfrom shop.reports"
    par_runs: list[SubRun] = []
    for i, (agent, task) in enumerate(tasks):
        s.t = start_t
        sub = start_subagent(s, agent, task, GPT5_MINI if i == 1 else HAIKU, 60 + i)
        if i == 0:
            c1 = call("read", {"path": "tests/test_orders.py", "limit": 20})
            sub.turn([c1], [fs.read("tests/test_orders.py", None, 20)])
            c = call(
                "edit",
                {
                    "path": "tests/test_orders.py",
                    "edits": [{"oldText": o_imp_old, "newText": o_imp_new}, {"oldText": o_old, "newText": o_new}],
                },
            )
            sub.turn([c], [fs.edit("tests/test_orders.py", (o_imp_old, o_imp_new), (o_old, o_new))])
            c = call(
                "bash",
                {
                    "command": "for s in $(seq 1 10); do python -m pytest -q --randomly-seed=$s tests/test_orders.py | tail -1; done | sort | uniq -c"
                },
            )
            sub.turn([c], [bash_out("     10 4 passed in 0.04s\n", duration=(4200, 5600))])
            sub.assistant(
                [
                    text(
                        "Added an autouse `fresh_sequence` fixture to `tests/test_orders.py` that monkeypatches `shop.orders._sequence` with a new `itertools.count(1)` for every test. 10/10 random seeds pass."
                    )
                ]
            )
        elif i == 1:
            c1 = call("read", {"path": "tests/test_emails.py"})
            sub.turn(
                [think("Reset the set with monkeypatch so it is restored afterwards."), c1],
                [fs.read("tests/test_emails.py")],
            )
            c = call("edit", {"path": "tests/test_emails.py", "oldText": e_imp_old, "newText": e_imp_new})
            sub.turn([c], [fs.edit("tests/test_emails.py", (e_imp_old, e_imp_new))])
            c = call(
                "bash",
                {
                    "command": "for s in $(seq 1 10); do python -m pytest -q --randomly-seed=$s tests/test_emails.py | tail -1; done | sort | uniq -c"
                },
            )
            sub.turn([c], [bash_out("     10 4 passed in 0.03s\n", duration=(3900, 5100))])
            sub.assistant(
                [
                    text(
                        "`tests/test_emails.py` now has an autouse fixture `nothing_announced_yet` that gives every test an empty `_announced` set. 10/10 random seeds pass."
                    )
                ]
            )
        else:
            c1 = call("read", {"path": "tests/test_reports.py"})
            sub.turn([c1], [fs.read("tests/test_reports.py")])
            c = call(
                "edit",
                {
                    "path": "tests/test_reports.py",
                    "edits": [{"oldText": r_imp_old, "newText": r_imp_new}, {"oldText": r_old, "newText": r_new}],
                },
            )
            sub.turn(
                [think("Clear ORDERS after every test in this module so nothing leaks into the empty-week test."), c],
                [fs.edit("tests/test_reports.py", (r_imp_old, r_imp_new), (r_old, r_new))],
            )
            c = call(
                "bash",
                {
                    "command": "for s in $(seq 1 10); do python -m pytest -q --randomly-seed=$s | tail -1; done | sort | uniq -c"
                },
            )
            k = count_tests(fs)
            sub.turn(
                [c],
                [
                    bash_out(
                        f"      6 1 failed, {k - 1} passed in 0.74s\n      4 {k} passed in 0.71s\n",
                        duration=(9800, 12500),
                    )
                ],
            )
            c = call(
                "bash",
                {
                    "command": "for s in $(seq 1 10); do python -m pytest -q --randomly-seed=$s | grep ^FAILED; done | sort | uniq -c"
                },
            )
            sub.turn(
                [c],
                [
                    bash_out(
                        "      4 FAILED tests/test_orders.py::test_first_order_number_of_the_day - AssertionError: assert '20261102-0003' == '20261102-0001'\n      2 FAILED tests/test_emails.py::test_digest_lists_products_alphabetically - AssertionError: assert ['- Market te...\n",
                        duration=(9900, 12800),
                    )
                ],
            )
            sub.assistant(
                [
                    text(
                        "My change is in place (autouse `clear_orders` fixture in `tests/test_reports.py`), and **test_reports.py did not fail in any of the 10 runs**. "
                        "But I can't give you a clean verification: 6/10 whole-suite runs failed in `tests/test_orders.py` and `tests/test_emails.py`, "
                        "which I was told not to touch and which seem to be changing while I run. Reporting this as a failure so you can re-check."
                    )
                ]
            )
        r = SubRun(
            agent,
            task,
            sub.model,
            sub,
            exit_code=1 if i == 2 else 0,
            error="verification failed: 6/10 random seeds had failures (tests/test_orders.py, tests/test_emails.py)"
            if i == 2
            else None,
            artifact_base=f"{par_id}_{agent}_{i}",
            write_transcript=i != 0,
        )
        par_runs.append(r)
    s.t = max(r.session.t for r in par_runs) + 500
    results = [subagent_result(r, adir) for r in par_runs]
    ok = sum(1 for r in par_runs if r.exit_code == 0)
    par_text = f"Parallel: {ok}/{len(par_runs)} succeeded\n\n" + "\n\n".join(
        f"[{r.agent} {i + 1}] {'✓' if r.exit_code == 0 else '✗ exit ' + str(r.exit_code)}\n{final_text(r)}"
        for i, r in enumerate(par_runs)
    )
    total_usage = usage_obj(
        HAIKU,
        sum(x["usage"]["input"] for x in results),
        sum(x["usage"]["output"] for x in results),
        sum(x["usage"]["cacheRead"] for x in results),
        sum(x["usage"]["cacheWrite"] for x in results),
    )
    total_usage["cost"]["total"] = sum(x["usage"]["cost"] for x in results)
    par_result = s.result(
        par_call,
        Out(
            par_text,
            details={
                "mode": "parallel",
                "results": results,
                "progressSummary": {
                    "toolCount": sum(x["progressSummary"]["toolCount"] for x in results),
                    "tokens": sum(x["progressSummary"]["tokens"] for x in results),
                    "durationMs": max(x["progressSummary"]["durationMs"] for x in results),
                },
                "artifacts": {"dir": adir, "files": [x["artifactPaths"] for x in results]},
            },
            duration=(0, 1),
        ),
    )
    m = par_result["message"]
    m["durationMs"] = max(x["progressSummary"]["durationMs"] for x in results)
    # nested model work is reported as the tool result's own usage (before isError, like Pi)
    par_result["message"] = (
        {k: m[k] for k in ("role", "toolCallId", "toolName", "content", "details")}
        | {"usage": total_usage}
        | {k: m[k] for k in ("isError", "durationMs", "timestamp")}
    )
    for r in par_runs:
        if r.write_transcript:
            artifacts.append((r.artifact_base, r.session))

    # chain: worker -> reviewer
    chain_id = s.g.hexn(8)
    step1_task = (
        "Three workers just fixed order-dependent tests in parallel; the reports worker couldn't verify because the other two were still editing. "
        "Now: move the ORDERS cleanup from tests/test_reports.py into tests/conftest.py so it runs before every test in every module, "
        "then verify the whole suite with 20 random seeds."
    )
    step2_task = "Review this change for correctness and side effects, reply approve or request changes:\n\n{previous}"
    chain_call = call(
        "subagent", {"chain": [{"agent": "worker", "task": step1_task}, {"agent": "reviewer", "task": step2_task}]}
    )
    s.assistant(
        [
            text(
                "Orders and emails are fixed. The reports worker's change looks fine, its verification just ran while the other two were editing. "
                "Chaining a worker to make the cleanup global and re-verify, and a reviewer to check it:"
            ),
            chain_call,
        ]
    )
    s.t += 900
    sub1 = start_subagent(s, "worker", step1_task, HAIKU, 71)
    cf_old2 = "@pytest.fixture\ndef client(app):\n    return app.test_client()\n"
    cf_new2 = (
        cf_old2
        + '\n\n@pytest.fixture(autouse=True)\ndef clean_report_orders():\n    """shop.reports.ORDERS is module-level; start every test with an empty list."""\n    ORDERS.clear()\n'
    )
    cf_imp_old = "from shop import create_app\n"
    cf_imp_new = "from shop import create_app\nfrom shop.reports import ORDERS\n"
    c1 = call(
        "edit",
        {
            "path": "tests/conftest.py",
            "edits": [{"oldText": cf_imp_old, "newText": cf_imp_new}, {"oldText": cf_old2, "newText": cf_new2}],
        },
    )
    c2 = call(
        "edit",
        {
            "path": "tests/test_reports.py",
            "edits": [{"oldText": r_new, "newText": r_old}, {"oldText": r_imp_new, "newText": r_imp_old}],
        },
    )
    sub1.turn(
        [c1, c2],
        [
            fs.edit("tests/conftest.py", (cf_imp_old, cf_imp_new), (cf_old2, cf_new2)),
            fs.edit("tests/test_reports.py", (r_new, r_old), (r_imp_new, r_imp_old)),
        ],
    )
    n = count_tests(fs)
    c = call(
        "bash",
        {
            "command": "for s in $(seq 1 20); do python -m pytest -q --randomly-seed=$s | tail -1 | cut -d' ' -f1-2; done | sort | uniq -c"
        },
    )
    sub1.turn([c], [bash_out(f"     20 {n} passed\n", duration=(18000, 21000))])
    sub1.assistant(
        [
            text(
                f"""Changed:

- `tests/conftest.py`: new autouse fixture `clean_report_orders` that clears `shop.reports.ORDERS` **before** every test, in every module.
- `tests/test_reports.py`: removed the module-local `clear_orders` fixture (now redundant).

Verification: 20/20 random seeds pass ({n} tests each)."""
            )
        ]
    )
    step1 = SubRun("worker", step1_task, HAIKU, sub1, step=1, artifact_base=f"{chain_id}_worker_0")
    s.t = sub1.t + 300
    sub2 = start_subagent(s, "reviewer", step2_task.replace("{previous}", final_text(step1)), SONNET, 72)
    c1 = call("bash", {"command": "git diff -- tests/conftest.py"})
    diff_txt = (
        "diff --git a/tests/conftest.py b/tests/conftest.py\nindex 4be91c2..d0a7e13 100644\n--- a/tests/conftest.py\n+++ b/tests/conftest.py\n"
        "@@ -1,6 +1,7 @@\n import pytest\n \n from shop import create_app\n+from shop.reports import ORDERS\n \n \n @pytest.fixture\n"
        "@@ -22,3 +23,9 @@ def app(tmp_path):\n @pytest.fixture\n def client(app):\n     return app.test_client()\n+\n+\n+@pytest.fixture(autouse=True)\n"
        '+def clean_report_orders():\n+    """shop.reports.ORDERS is module-level; start every test with an empty list."""\n+    ORDERS.clear()\n'
    )
    c2 = call("grep", {"pattern": "ORDERS|record_order", "path": "shop"})
    sub2.turn([c1, c2], [bash_out(diff_txt, duration=(40, 90)), fs.grep("ORDERS|record_order", "shop")])
    sub2.assistant(
        [
            think(
                "The fixture is correct and cheap. Clearing before (not after) each test is the right choice: it protects every test "
                "regardless of what ran earlier. The underlying design, a module-level list as the order store, is still there though."
            ),
            text(
                """**Verdict: approve**

1. Clearing *before* each test is right: it doesn't rely on other tests cleaning up after themselves.
2. Autouse in `conftest.py` costs one `list.clear()` per test, which is negligible.
3. Follow-up, not blocking: `ORDERS` in `shop/reports.py` is process-global state in production too (gunicorn workers each have their own copy, so the weekly report only sees the orders of one worker). It should come from the order storage instead."""
            ),
        ]
    )
    step2 = SubRun("reviewer", step2_task, SONNET, sub2, step=2, artifact_base=f"{chain_id}_reviewer_1")
    s.t = sub2.t + 400
    chain_results = [subagent_result(step1, adir), subagent_result(step2, adir)]
    s.result(
        chain_call,
        Out(
            final_text(step2),
            details={
                "mode": "chain",
                "results": chain_results,
                "chainAgents": ["worker", "reviewer"],
                "totalSteps": 2,
                "artifacts": {"dir": adir, "files": [x["artifactPaths"] for x in chain_results]},
            },
            duration=(0, 1),
        ),
    )
    s.lines[-1]["message"]["durationMs"] = sub2.t - ms_of(sub1.header["timestamp"])
    artifacts.extend([(step1.artifact_base, sub1), (step2.artifact_base, sub2)])
    s.context_edit(
        par_result["id"],
        {
            "content": [
                text(
                    "[condensed] Parallel run: test_orders fixed (autouse fixture resets shop.orders._sequence), test_emails fixed "
                    "(autouse fixture resets shop.emails._announced). test_reports changed but not verified; redone by the chain run below."
                )
            ]
        },
    )
    c = call(
        "bash",
        {
            "command": "for s in $(seq 21 40); do python -m pytest -q --randomly-seed=$s | tail -1 | cut -d' ' -f1-2; done | sort | uniq -c"
        },
    )
    s.turn([text("Verifying with 20 new seeds:"), c], [bash_out(f"     20 {n} passed\n", duration=(19000, 23000))])
    s.assistant(
        [
            text(
                f"""All three order-dependent tests are fixed; 20 new random seeds all pass ({n} tests each).

| Test | Cause | Fix |
|------|-------|-----|
| `test_orders.py::test_first_order_number_of_the_day` | module-level `_sequence` counter | autouse fixture resets it |
| `test_emails.py::test_digest_lists_products_alphabetically` | module-level `_announced` set | autouse fixture resets it |
| `test_reports.py::test_empty_week_has_no_orders` | module-level `ORDERS` list | `conftest.py` clears it before every test |

The reviewer flagged a real production issue for later: **`ORDERS` is per-process**, so with several gunicorn workers the weekly report only sees part of the orders."""
            )
        ]
    )
    s.bash_exec(
        "git log --oneline -5",
        "b71e04d Checkout: discount code form and discount row\n3f9c2a1 Add discount codes to compute_totals\n9a41c07 Free shipping from 50 €\n5c3d8e2 Cart: merge lines with the same SKU\n0e6b1fa Show VAT as its own line\n",
        0,
        exclude=True,
    )
    s.user(
        "Commit in three commits: expiry and usage limits, the pytest migration, then pytest-randomly with the order fixes."
    )
    c = call(
        "bash",
        {
            "command": 'git add shop/discounts.py shop/redemptions.py shop/views.py tests/test_discounts.py && git commit -q -m "Discount codes: expiry dates and usage limits" && '
            "git add tests/ ':!tests/conftest.py' ':!tests/test_orders.py' ':!tests/test_emails.py' && git commit -q -m \"tests: migrate unittest suites to plain pytest\" && "
            'git add pyproject.toml tests/conftest.py tests/test_orders.py tests/test_emails.py && git commit -q -m "Run tests in random order; fix order-dependent tests" && '
            "git log --oneline -4"
        },
    )
    s.turn(
        [c],
        [
            bash_out(
                "e4a90b3 Run tests in random order; fix order-dependent tests\nc18f5d7 tests: migrate unittest suites to plain pytest\n7d2b6e9 Discount codes: expiry dates and usage limits\nb71e04d Checkout: discount code form and discount row\n",
                duration=(300, 700),
            )
        ],
    )
    s.assistant(
        [
            text(
                "Committed:\n\n```\ne4a90b3 Run tests in random order; fix order-dependent tests\nc18f5d7 tests: migrate unittest suites to plain pytest\n"
                "7d2b6e9 Discount codes: expiry dates and usage limits\n```\n\n"
                "Note that `tests/conftest.py` went into the last commit, so it also carries the `REDEMPTIONS_PATH` setting from the first one. "
                "If you want the history to be exact I can split that hunk with `git add -p` and amend."
            )
        ]
    )
    return s


# ---------------------------------------------------------------------------
# Session C: forked from A with /fork (parentSession), continues elsewhere
# ---------------------------------------------------------------------------

ADMIN_PY = '''"""Read-only admin pages, protected with HTTP basic auth."""
from __future__ import annotations

import hmac

from flask import Blueprint, Response, current_app, render_template, request

from . import redemptions
from .discounts import CODES

bp = Blueprint("admin", __name__, url_prefix="/admin")


@bp.before_request
def require_password() -> Response | None:
    auth = request.authorization
    expected = current_app.config.get("ADMIN_PASSWORD")
    if expected and auth and hmac.compare_digest(auth.password or "", expected):
        return None
    return Response("Login required", 401, {"WWW-Authenticate": 'Basic realm="shop admin"'})


@bp.get("/discounts")
def discounts():
    uses = redemptions.counts()
    rows = [(d, uses.get(d.code, 0)) for d in sorted(CODES.values(), key=lambda d: d.code)]
    return render_template("admin_discounts.html", rows=rows)
'''

ADMIN_HTML = """{% extends "base.html" %}
{% block title %}Discount codes{% endblock %}
{% block content %}
<h1>Discount codes</h1>
<table class="totals">
  <tr><th>Code</th><th>Discount</th><th>Expires</th><th>Used</th></tr>
  {% for d, used in rows %}
  <tr>
    <td><code>{{ d.code }}</code></td>
    <td>{% if d.free_shipping %}free shipping{% else %}{{ d.percent_off }} %{% endif %}</td>
    <td>{{ d.expires.strftime("%d %b %Y") }}</td>
    <td class="amount">{{ used }}{% if d.max_uses %} / {{ d.max_uses }}{% endif %}</td>
  </tr>
  {% endfor %}
</table>
{% endblock %}
"""

TEST_ADMIN_PY = """import base64

import pytest


@pytest.fixture
def admin(app):
    app.config["ADMIN_PASSWORD"] = "s3cret"
    token = base64.b64encode(b"admin:s3cret").decode()
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Basic {token}"
    return client


def test_admin_requires_password(client):
    assert client.get("/admin/discounts").status_code == 401


def test_admin_lists_every_code(admin):
    page = admin.get("/admin/discounts").get_data(as_text=True)
    for code in ("FREESHIP", "MARKET20", "SAVE10", "SUMMER25"):
        assert code in page


def test_admin_shows_expiry_and_limits(admin):
    page = admin.get("/admin/discounts").get_data(as_text=True)
    assert "30 Sep 2026" in page
    assert "0 / 50" in page
"""


def fork_session(src: Session, at: str, *, start: str, seed: int, model: Model, thinking_level: str) -> Session:
    """What Pi's /fork (createBranchedSession) writes: the path to ``at`` plus its labels."""
    s = Session(
        cwd=src.cwd, start=start, seed=seed, model=model, thinking_level=thinking_level, parent_session=src.pi_path
    )
    path: list[dict] = []
    cur: str | None = at
    while cur is not None:
        path.append(src.by_id[cur])
        cur = src.by_id[cur]["parentId"]
    path.reverse()
    parent = None
    ids = set()
    for e in path:
        if e["type"] == "label":
            continue
        e2 = dict(e)
        e2["parentId"] = parent
        s.lines.append(e2)
        s.by_id[e2["id"]] = e2
        s.g.used.add(e2["id"])
        ids.add(e2["id"])
        parent = e2["id"]
        if e2["type"] == "message":
            s.usage.add(e2["message"].get("content", ""))
    labels: dict[str, tuple[str | None, str]] = {}
    for e in src.lines:
        if isinstance(e, dict) and e.get("type") == "label":
            labels[e["targetId"]] = (e.get("label"), e["timestamp"])
    for target, (label, ts) in labels.items():
        if label and target in ids:
            eid = s.g.hex8()
            e2 = {"type": "label", "id": eid, "parentId": parent, "timestamp": ts, "targetId": target, "label": label}
            s.lines.append(e2)
            s.by_id[eid] = e2
            parent = eid
    s.leaf = parent
    for eid in s.by_id:
        s.snap[eid] = (s.usage.ctx, 0)
    return s


def build_session_c(fs: FS, a: Session) -> Session:
    s = fork_session(
        a, a.marks["core_done"], start="2026-11-18T15:31:40.052Z", seed=1118, model=OPUS, thinking_level="high"
    )
    s.session_info("Discount codes: admin overview")
    s.model_change(OPUS)
    s.thinking_change("high")
    s.user(
        "Let's add a read-only admin page at /admin/discounts that lists every code with its discount, expiry and how often it's been "
        "used. Protect it with HTTP basic auth, password from an ADMIN_PASSWORD config value."
    )
    c1 = call("find", {"pattern": "*.html", "path": "shop/templates"})
    c2 = call("read", {"path": "shop/discounts.py"})
    s.turn(
        [
            think(
                "Since this session was forked, the code has moved on: codes have `expires` and `max_uses` now and there is "
                "`shop/redemptions.py`. Let me re-read discounts.py instead of trusting the earlier context, and see which templates exist."
            ),
            c1,
            c2,
        ],
        [fs.find("*.html", "shop/templates"), fs.read("shop/discounts.py")],
    )
    c = call("read", {"path": "shop/__init__.py"})
    s.turn([c], [fs.read("shop/__init__.py")])
    c1 = call("write", {"path": "shop/admin.py", "content": ADMIN_PY})
    c2 = call("write", {"path": "shop/templates/admin_discounts.html", "content": ADMIN_HTML})
    s.turn(
        [
            think(
                "Basic auth in a `before_request` hook on its own blueprint keeps the shop views untouched. Compare with "
                "`hmac.compare_digest` so the check is constant-time, and refuse everything if ADMIN_PASSWORD isn't configured."
            ),
            c1,
            c2,
        ],
        [fs.write("shop/admin.py", ADMIN_PY), fs.write("shop/templates/admin_discounts.html", ADMIN_HTML)],
    )
    reg_old = "    from . import views\n\n    app.register_blueprint(views.bp)\n"
    reg_new = (
        "    from . import admin, views\n\n    app.register_blueprint(views.bp)\n    app.register_blueprint(admin.bp)\n"
    )
    c1 = call("edit", {"path": "shop/__init__.py", "oldText": reg_old, "newText": reg_new})
    c2 = call("write", {"path": "tests/test_admin.py", "content": TEST_ADMIN_PY})
    s.turn([c1, c2], [fs.edit("shop/__init__.py", (reg_old, reg_new)), fs.write("tests/test_admin.py", TEST_ADMIN_PY)])
    c = call("bash", {"command": "python -m pytest -q tests/test_admin.py"})
    s.turn(
        [c],
        [
            bash_out(
                """.FF                                                                      [100%]
=================================== FAILURES ===================================
__________________________ test_admin_lists_every_code _________________________

admin = <FlaskClient <Flask 'shop'>>

    def test_admin_lists_every_code(admin):
>       page = admin.get("/admin/discounts").get_data(as_text=True)

tests/test_admin.py:20:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
shop/templates/admin_discounts.html:10: in top-level template code
    <td>{{ d.expires.strftime("%d %b %Y") }}</td>
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

>   ???
E   jinja2.exceptions.UndefinedError: 'None' has no attribute 'strftime'

.venv/lib/python3.12/site-packages/jinja2/environment.py:485: UndefinedError
_______________________ test_admin_shows_expiry_and_limits _____________________

admin = <FlaskClient <Flask 'shop'>>

    def test_admin_shows_expiry_and_limits(admin):
>       page = admin.get("/admin/discounts").get_data(as_text=True)
E   jinja2.exceptions.UndefinedError: 'None' has no attribute 'strftime'
=========================== short test summary info ============================
FAILED tests/test_admin.py::test_admin_lists_every_code - jinja2.exceptions.UndefinedError: 'None' has no attribute 'strftime'
FAILED tests/test_admin.py::test_admin_shows_expiry_and_limits - jinja2.exceptions.UndefinedError: 'None' has no attribute 'strftime'
2 failed, 1 passed in 0.24s
""",
                exit_code=1,
                duration=(800, 1500),
            )
        ],
    )
    h_old = '    <td>{{ d.expires.strftime("%d %b %Y") }}</td>'
    h_new = '    <td>{{ d.expires.strftime("%d %b %Y") if d.expires else "never" }}</td>'
    c = call("edit", {"path": "shop/templates/admin_discounts.html", "oldText": h_old, "newText": h_new})
    s.turn(
        [text("Only `SUMMER25` has an expiry date; the others have `None`."), c],
        [fs.edit("shop/templates/admin_discounts.html", (h_old, h_new))],
    )
    n = count_tests(fs)
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn([c], [bash_out(pytest_q(n, secs=0.93), duration=(1600, 2800))])
    s.assistant(
        [
            text(
                """`/admin/discounts` is in place:

```
Code      Discount        Expires       Used
FREESHIP  free shipping   never         0
MARKET20  20 %            never         0 / 50
SAVE10    10 %            never         0
SUMMER25  25 %            30 Sep 2026   0
```

- `shop/admin.py`: a separate `admin` blueprint; a `before_request` hook checks HTTP basic auth against `ADMIN_PASSWORD` with `hmac.compare_digest`. Without a configured password every request gets **401**.
- `shop/templates/admin_discounts.html`: reuses the `.totals` table style.
- `tests/test_admin.py`: 3 tests (401 without credentials, all codes listed, expiry and limit shown).

Set the password on the server with `export FLASK_ADMIN_PASSWORD=...` and `app.config.from_prefixed_env()`, or tell me how you configure the app there and I'll wire it up."""
            )
        ]
    )
    return s


# ---------------------------------------------------------------------------
# Session D: a short, plain session in another project (OpenAI model)
# ---------------------------------------------------------------------------

DOTFILES = "/home/demo/dotfiles"

ZSHRC = """# ~/.zshrc, managed in ~/dotfiles (stow zsh)

export EDITOR=nvim
export PATH="$HOME/.local/bin:$PATH"

HISTFILE=~/.zsh_history
HISTSIZE=50000
SAVEHIST=50000
setopt share_history hist_ignore_dups

# completion
autoload -Uz compinit
compinit

# node
export NVM_DIR="$HOME/.nvm"
[ -s "$NVM_DIR/nvm.sh" ] && . "$NVM_DIR/nvm.sh"

# python
eval "$(pyenv init -)"

source ~/dotfiles/zsh/aliases.zsh
source ~/dotfiles/zsh/prompt.zsh
"""

DOT_FILES = {
    "zsh/.zshrc": ZSHRC,
    "zsh/aliases.zsh": "alias ll='ls -lah'\nalias gs='git status --short'\nalias v=nvim\n",
    "zsh/prompt.zsh": "autoload -Uz vcs_info\nprecmd() { vcs_info }\nsetopt prompt_subst\nPROMPT='%F{blue}%~%f ${vcs_info_msg_0_} %# '\n",
    "git/.gitconfig": "[user]\n\tname = Demo\n\temail = demo@example.com\n[pull]\n\trebase = true\n",
    "README.md": "# dotfiles\n\nManaged with GNU stow: `stow zsh git tmux`.\n",
}


def build_session_d() -> Session:
    fs = FS(DOT_FILES)
    s = Session(cwd=DOTFILES, start="2026-11-19T21:04:51.730Z", seed=1119, model=GPT5, thinking_level="low")
    s.model_change(GPT5)
    s.thinking_change("low")
    s.user(
        "Opening a new terminal takes almost two seconds since I added a few things to my zshrc. Can you find out why?"
    )
    c = call("bash", {"command": "for i in 1 2 3; do /usr/bin/time -f %es zsh -i -c exit; done"})
    s.turn(
        [think("Measure first, then profile with zprof."), c],
        [bash_out("1.84s\n1.79s\n1.81s\n", duration=(5400, 5800))],
    )
    c = call("bash", {"command": "zsh -c 'zmodload zsh/zprof; source ~/.zshrc; zprof' 2>/dev/null | head -n 8"})
    s.turn(
        [c],
        [
            bash_out(
                """num  calls                time                       self            name
-----------------------------------------------------------------------------------
 1)    1        1038.52  1038.52   58.40%   1038.52  1038.52   58.40%  nvm_auto
 2)    1         391.07   391.07   21.99%    391.07   391.07   21.99%  compinit
 3)    1         143.88   143.88    8.09%    143.88   143.88    8.09%  _pyenv_init
 4)    1          61.20    61.20    3.44%     44.91    44.91    2.53%  nvm
 5)    1          17.34    17.34    0.98%     17.34    17.34    0.98%  vcs_info
 6)    4           9.87     2.47    0.56%      9.87     2.47    0.56%  compdef
""",
                duration=(1900, 2300),
            )
        ],
    )
    c = call("read", {"path": "zsh/.zshrc"})
    s.turn([c], [fs.read("zsh/.zshrc")])
    comp_old = "# completion\nautoload -Uz compinit\ncompinit\n"
    comp_new = (
        "# completion: full security check at most once a day\nautoload -Uz compinit\n"
        "for dump in ~/.zcompdump(N.mh+24); do\n  compinit\ndone\ncompinit -C\n"
    )
    nvm_old = '# node\nexport NVM_DIR="$HOME/.nvm"\n[ -s "$NVM_DIR/nvm.sh" ] && . "$NVM_DIR/nvm.sh"\n'
    nvm_new = (
        "# node: load nvm on first use, it costs ~1 s at startup\n"
        'export NVM_DIR="$HOME/.nvm"\n'
        "nvm node npm npx() {\n"
        "  unset -f nvm node npm npx\n"
        '  [ -s "$NVM_DIR/nvm.sh" ] && . "$NVM_DIR/nvm.sh"\n'
        '  "$0" "$@"\n'
        "}\n"
    )
    c = call(
        "edit",
        {
            "path": "zsh/.zshrc",
            "edits": [{"oldText": comp_old, "newText": comp_new}, {"oldText": nvm_old, "newText": nvm_new}],
        },
    )
    s.turn(
        [
            think(
                "nvm.sh is ~1 s and compinit re-audits every completion file on each start (~0.4 s). Lazy-load nvm behind wrapper "
                "functions; run the full compinit only when the dump is older than a day."
            ),
            c,
        ],
        [fs.edit("zsh/.zshrc", (comp_old, comp_new), (nvm_old, nvm_new))],
    )
    c = call("bash", {"command": "for i in 1 2 3; do /usr/bin/time -f %es zsh -i -c exit; done"})
    s.turn([c], [bash_out("0.23s\n0.21s\n0.21s\n", duration=(700, 900))])
    s.assistant(
        [
            text(
                """Startup went from **~1.8 s to ~0.2 s**. `zprof` showed two culprits:

1. **nvm** (58 %): sourcing `nvm.sh` takes about a second. It now loads on first use of `nvm`, `node`, `npm` or `npx`:

   ```zsh
   nvm node npm npx() {
     unset -f nvm node npm npx
     [ -s "$NVM_DIR/nvm.sh" ] && . "$NVM_DIR/nvm.sh"
     "$0" "$@"
   }
   ```

   The first `node` in a new shell pays the second once; later calls are normal.
2. **compinit** (22 %): it audits every completion file on each start. Now the full check runs only when `~/.zcompdump` is older than 24 h, otherwise `compinit -C` reuses the dump.

`pyenv init` is the next biggest item (~140 ms) if you want to go further."""
            )
        ]
    )
    return s


# ---------------------------------------------------------------------------
# Session E: a version-1 file (no ids, no version) as very old Pi wrote them
# ---------------------------------------------------------------------------

TMUX_CONF = """# prefix: C-a
unbind C-b
set -g prefix C-a
bind C-a send-prefix

set -g mouse on
setw -g mode-keys vi
set -g history-limit 50000
set -sg escape-time 10

# splits keep the current directory
bind | split-window -h -c "#{pane_current_path}"
bind - split-window -v -c "#{pane_current_path}"
bind c new-window -c "#{pane_current_path}"

bind r source-file ~/.tmux.conf \\; display "reloaded"
"""


def build_session_e() -> Session:
    s = Session(
        cwd=DOTFILES,
        start="2026-11-14T07:58:21.904Z",
        seed=1014,
        model=SONNET,
        version=None,
        legacy=True,
        durations=False,
        header_extra={"provider": "anthropic", "modelId": "claude-sonnet-4-5", "thinkingLevel": "off"},
    )
    s.thinking_level = None
    s.user(
        [
            text(
                "Set up a minimal tmux config in this repo: prefix C-a, mouse on, vi copy mode, and splits that keep the current directory. Then stow it."
            )
        ]
    )
    c = call("write", {"path": "tmux/.tmux.conf", "content": TMUX_CONF})
    s.turn([c], [Out(f"Successfully wrote {len(TMUX_CONF.encode())} bytes to tmux/.tmux.conf")])
    c = call("bash", {"command": "stow -v tmux"})
    s.turn([c], [bash_out("LINK: .tmux.conf => dotfiles/tmux/.tmux.conf\n")])
    s.assistant(
        [
            text(
                "Created `tmux/.tmux.conf` and linked it with stow. Highlights:\n\n"
                "- prefix is `C-a` (press it twice to send a literal `C-a`)\n"
                "- `prefix |` and `prefix -` split and keep the current directory\n"
                "- `prefix r` reloads the config"
            )
        ]
    )
    s.thinking_change("medium")
    s.thinking_level = None
    s.user([text("Colors look washed out in nvim inside tmux.")])
    old = "set -sg escape-time 10\n"
    new = 'set -sg escape-time 10\nset -g default-terminal "tmux-256color"\nset -ag terminal-overrides ",xterm-256color:RGB"\n'
    c = call("edit", {"path": "tmux/.tmux.conf", "oldText": old, "newText": new})
    diff, _ = _display_diff(TMUX_CONF, TMUX_CONF.replace(old, new))
    s.turn(
        [
            think(
                "tmux doesn't advertise true color by default; nvim with termguicolors then falls back to 256-color approximations."
            ),
            text("tmux isn't passing true color through. Adding the terminal override:"),
            c,
        ],
        [Out("Successfully replaced text in tmux/.tmux.conf.", details={"diff": diff})],
    )
    s.assistant(
        [
            text(
                "Done. Restart the tmux server (`tmux kill-server`) so the new `default-terminal` applies to new sessions."
            )
        ]
    )
    s.model_change(GPT5)
    s.user([text("What was the key to reload the config again?")])
    s.assistant(
        [
            text(
                "`prefix r`, i.e. `C-a` then `r`. It runs `source-file ~/.tmux.conf` and shows *reloaded* in the status line."
            )
        ],
        model=GPT5,
    )
    s.tick(2, 4)
    s._append(
        "compaction",
        {
            "summary": "The user set up tmux in their dotfiles repo (`tmux/.tmux.conf`, linked with stow): prefix C-a, mouse, vi copy mode, "
            "splits that keep the current directory, `prefix r` to reload, and true color for nvim via `terminal-overrides`.",
            "firstKeptEntryIndex": 8,
            "tokensBefore": 18234,
        },
    )
    s.user([text("Thanks, that's all for now.")])
    s.assistant([text("You're welcome. Don't forget to commit `tmux/.tmux.conf` to the dotfiles repo.")], model=GPT5)
    return s


# ---------------------------------------------------------------------------
# Session F: a damaged file (crash in the middle, truncated last line)
# ---------------------------------------------------------------------------

BLOG = "/home/demo/blog"

BUILD_PY = '''"""Build the blog: Markdown posts in posts/ -> HTML in public/, plus an RSS feed."""
from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import markdown

SITE = "https://notes.demo.example"
POSTS = Path("posts")
OUT = Path("public")


@dataclass
class Post:
    slug: str
    title: str
    date: date
    body_html: str


def load_posts() -> list[Post]:
    posts = []
    for path in POSTS.glob("*.md"):
        meta, _, body = path.read_text().partition("\\n---\\n")
        fields = dict(line.split(": ", 1) for line in meta.splitlines() if ": " in line)
        posts.append(Post(path.stem, fields["title"], date.fromisoformat(fields["date"]), markdown.markdown(body)))
    return posts


def rss(posts: list[Post]) -> str:
    items = "\\n".join(
        f"""  <item>
    <title>{html.escape(p.title)}</title>
    <link>{SITE}/{p.slug}/</link>
    <guid>{SITE}/{p.slug}/</guid>
    <pubDate>{p.date.isoformat()}</pubDate>
  </item>"""
        for p in posts
    )
    return f"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0">
<channel>
  <title>Demo's notes</title>
  <link>{SITE}/</link>
  <description>Notes on code, coffee and the market stall.</description>
{items}
</channel>
</rss>
"""


def main() -> None:
    posts = load_posts()
    OUT.mkdir(exist_ok=True)
    for post in posts:
        (OUT / post.slug).mkdir(exist_ok=True)
        (OUT / post.slug / "index.html").write_text(post.body_html)
    (OUT / "feed.xml").write_text(rss(posts))
    print(f"built {len(posts)} posts")


if __name__ == "__main__":
    main()
'''

BLOG_TOOLS = ["read", "bash", "edit", "write"]


def build_session_f() -> Session:
    fs = FS({"build.py": BUILD_PY})
    s = Session(cwd=BLOG, start="2026-11-20T19:26:08.311Z", seed=1120, model=GEMINI, thinking_level="medium")
    s.system(sections=system_sections(BLOG_TOOLS, BLOG), tools_added=tool_decls(BLOG_TOOLS))
    s.user(
        "Feedly shows my posts in a random order and says the dates in feed.xml are invalid. Can you fix the feed in build.py?"
    )
    c = call("read", {"path": "build.py"})
    s.turn(
        [think("Two symptoms: order and date format. RSS 2.0 wants RFC 822 dates in pubDate."), c],
        [fs.read("build.py")],
    )
    c1 = call("bash", {"command": "python build.py && grep -m3 pubDate public/feed.xml && ls posts | head -3"})
    s.turn(
        [c1],
        [
            bash_out(
                "built 14 posts\n    <pubDate>2026-03-02</pubDate>\n    <pubDate>2025-11-18</pubDate>\n    <pubDate>2026-10-09</pubDate>\nairpress-vs-v60.md\nbuild-a-market-stall.md\ncast-iron-care.md\n",
                duration=(600, 900),
            )
        ],
    )
    sort_old = "def main() -> None:\n    posts = load_posts()\n"
    sort_new = "def main() -> None:\n    posts = sorted(load_posts(), key=lambda p: p.date, reverse=True)\n"
    date_old = "    <pubDate>{p.date.isoformat()}</pubDate>"
    date_new = "    <pubDate>{format_datetime(datetime.combine(p.date, time(9), timezone.utc))}</pubDate>"
    imp_old = "from datetime import date\n"
    imp_new = "from datetime import date, datetime, time, timezone\nfrom email.utils import format_datetime\n"
    c = call(
        "edit",
        {
            "path": "build.py",
            "edits": [
                {"oldText": imp_old, "newText": imp_new},
                {"oldText": date_old, "newText": date_new},
                {"oldText": sort_old, "newText": sort_new},
            ],
        },
    )
    s.turn(
        [
            text(
                "Found both problems:\n\n1. `POSTS.glob()` returns files in directory order, and nothing sorts them.\n"
                "2. `pubDate` is ISO 8601 (`2026-03-02`), but RSS 2.0 requires RFC 822 (`Mon, 02 Mar 2026 09:00:00 +0000`)."
            ),
            c,
        ],
        [fs.edit("build.py", (imp_old, imp_new), (date_old, date_new), (sort_old, sort_new))],
    )
    c = call(
        "bash", {"command": "python build.py && xmllint --noout public/feed.xml && grep -m3 pubDate public/feed.xml"}
    )
    pending = s.assistant([c])
    # The laptop died while Pi was writing the tool result: half a line is all that's left.
    s.tick(1.2)
    lost = {
        "type": "message",
        "id": s.g.hex8(),
        "parentId": pending["id"],
        "timestamp": iso_of(s.t),
        "message": {
            "role": "toolResult",
            "toolCallId": c["id"],
            "toolName": "bash",
            "content": [
                text(
                    "built 14 posts\n    <pubDate>Fri, 09 Oct 2026 09:00:00 +0000</pubDate>\n    <pubDate>Mon, 02 Mar 2026 09:00:00 +0000</pubDate>\n"
                )
            ],
        },
    }
    s.lines.append(dumps(lost)[:173])
    # Pi restarted with --continue: it appended the missing newline and went on from the last valid entry.
    s.tick(14 * 60)
    s.user("Sorry, my battery died. Did the build work?")
    c = call(
        "bash", {"command": "python build.py && xmllint --noout public/feed.xml && grep -m3 pubDate public/feed.xml"}
    )
    s.turn(
        [c],
        [
            bash_out(
                "built 14 posts\n    <pubDate>Fri, 09 Oct 2026 09:00:00 +0000</pubDate>\n    <pubDate>Mon, 02 Mar 2026 09:00:00 +0000</pubDate>\n    <pubDate>Tue, 18 Nov 2025 09:00:00 +0000</pubDate>\n",
                duration=(700, 1000),
            )
        ],
    )
    s.assistant(
        [
            text(
                "Yes: the feed validates with `xmllint`, posts are newest first, and every `pubDate` is RFC 822 now, e.g. "
                "`Fri, 09 Oct 2026 09:00:00 +0000`. Posts have no time of day, so I used 09:00 UTC."
            )
        ]
    )
    s.user('Great. Also add the atom:link rel="self" element, Feedly complained about that too.')
    c = call(
        "edit",
        {
            "path": "build.py",
            "oldText": '<rss version="2.0">\n<channel>\n',
            "newText": '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">\n<channel>\n  <atom:link href="{SITE}/feed.xml" rel="self" type="application/rss+xml"/>\n',
        },
    )
    cut = s.assistant([text("Adding the self link to the channel:"), c])
    # ... and the session crashed again while this line was being written: no final newline.
    s.lines[-1] = dumps(cut)[:312]
    return s


EDITOR_RPC_LOG = [
    {
        "id": "req-1",
        "type": "response",
        "command": "get_state",
        "success": True,
        "data": {"isStreaming": False, "thinkingLevel": "medium", "messageCount": 0},
    },
    {"id": "req-2", "type": "response", "command": "prompt", "success": True},
    {"type": "agent_start"},
    {"type": "turn_start"},
    {
        "type": "message_start",
        "message": {
            "role": "user",
            "content": "Summarize what build.py does in two sentences.",
            "timestamp": 1795203310481,
        },
    },
    {
        "type": "message_end",
        "message": {
            "role": "user",
            "content": "Summarize what build.py does in two sentences.",
            "timestamp": 1795203310481,
        },
    },
    {
        "type": "tool_execution_start",
        "toolCallId": "read_1795203312004_0",
        "toolName": "read",
        "args": {"path": "build.py"},
    },
    {
        "type": "tool_execution_end",
        "toolCallId": "read_1795203312004_0",
        "toolName": "read",
        "result": {
            "content": [
                {
                    "type": "text",
                    "text": '"""Build the blog: Markdown posts in posts/ -> HTML in public/, plus an RSS feed."""\n...',
                }
            ],
            "details": {},
        },
        "isError": False,
        "durationMs": 3,
    },
    {"type": "turn_end", "message": {"role": "assistant", "stopReason": "stop"}, "toolResults": []},
    {"type": "agent_end", "messages": [], "willRetry": False},
    {"type": "agent_settled", "aborted": False},
]


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------


def build() -> list[Path]:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    written: list[Path] = []
    fs = FS(SHOP_FILES)
    a = build_session_a(fs)
    artifacts: list[tuple[str, Session]] = []
    b = build_session_b(fs, artifacts)
    c = build_session_c(fs, a)
    for s in (a, b, c, build_session_d(), build_session_e()):
        written.append(s.write(OUT))
    art_dir = OUT / project_dir_name(SHOP) / "subagent-artifacts"
    art_dir.mkdir(parents=True, exist_ok=True)
    for name, sub in artifacts:
        p = art_dir / f"{name}.jsonl"
        p.write_text(sub.render(), encoding="utf-8")
        written.append(p)
    f = build_session_f()
    written.append(f.write(OUT, final_newline=False))
    rpc = OUT / project_dir_name(BLOG) / "editor-rpc-log.jsonl"
    rpc.write_text("".join(dumps(e) + "\n" for e in EDITOR_RPC_LOG), encoding="utf-8")
    written.append(rpc)
    return written


def main() -> None:
    written = build()
    total = sum(p.stat().st_size for p in written)
    for p in written:
        print(f"{p.stat().st_size:>8}  {p.relative_to(OUT.parent)}")
    print(f"{total:>8}  total ({len(written)} files)")


if __name__ == "__main__":
    main()
