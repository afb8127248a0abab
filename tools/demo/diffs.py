"""What Pi's edit tool reports: the display diff (``details.diff``) and the unified patch."""

from __future__ import annotations

import difflib
import re


def display_diff(old: str, new: str, context: int = 4) -> tuple[str, int | None]:
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


def unified_patch(path: str, old: str, new: str, context: int = 4) -> str:
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
