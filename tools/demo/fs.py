"""A tiny in-memory project, so that the agent's reads, edits, greps and test runs stay
consistent with each other; each method returns what Pi's tool of that name would."""

from __future__ import annotations

import fnmatch
import re

from tools.demo.blocks import Out, error_out
from tools.demo.diffs import display_diff, unified_patch


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
        diff, first = display_diff(old, new)
        details = {"diff": diff, "patch": unified_patch(path, old, new), "firstChangedLine": first}
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


def line_of(fs: FS, path: str, needle: str) -> int:
    """The line number of the first line of ``path`` holding ``needle``."""
    for i, line in enumerate(fs.files[path].split("\n"), 1):
        if needle in line:
            return i
    raise KeyError(needle)


def count_tests(fs: FS) -> int:
    """How many test functions the project's test files hold."""
    return sum(len(re.findall(r"^\s*def test_", c, re.M)) for p, c in fs.files.items() if p.startswith("tests/test_"))
