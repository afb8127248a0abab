"""Pi's bash tool output: the tail kept when it is too long (Pi's ``truncateTail``), and the
tool result made of it."""

from __future__ import annotations

from typing import Any

from tools.demo.blocks import Out

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
