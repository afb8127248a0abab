"""``pitui compare``'s readable forms: the branches of a fork as plain text and as Markdown.

The figures are :mod:`..model.compare`'s. Session text (prompts, answers, paths, commands,
labels, summaries) is shown through :func:`..text.visible`: one-line fields as one line, so a
value can never fake a row of its own; longer texts cut to a few hundred characters (the
``--json`` form has them whole).
"""

from __future__ import annotations

from ..model.compare import BranchFacts, Comparison, shared_paths
from ..model.stats import KindStats, Usage
from ..model.summary import one_line
from ..numbers import fmt_cost, fmt_duration
from ..read.session import Session
from ..text import visible
from .markdown import _code

__all__ = ["compare_text", "compare_markdown", "branch_lines", "entries_text", "tokens_text", "calls_text",
           "fork_text"]

#: the characters a prompt, an answer or a summary is cut to in the readable forms
TEXT_CAP = 300
#: the mark of a file another branch touched too
SHARED_MARK = "*"


def _count(n: float) -> str:
    return f"{n:,.0f}"


def entries_text(b: BranchFacts) -> str:
    """``62 entries after the fork``."""
    n = len(b.entries)
    return f"{n:,} entr{'y' if n == 1 else 'ies'} after the fork"


def tokens_text(u: Usage) -> str:
    """``9 input · 96 output · 8,524 cache read · 1,190 cache write``."""
    return (f"{_count(u.input)} input · {_count(u.output)} output · {_count(u.cache_read)} cache read"
            f" · {_count(u.cache_write)} cache write")


def calls_text(k: KindStats) -> str:
    """``8 calls, 1 error``."""
    return (f"{k.calls:,} call{'s' if k.calls != 1 else ''}"
            + (f", {k.errors:,} error{'s' if k.errors != 1 else ''}" if k.errors else ""))


def fork_text(session: Session, comparison: Comparison) -> str:
    """``ebb82575 (session_info, line 10)``, or that there is none."""
    if comparison.fork < 0:
        return "none (the branches have different roots)"
    f = comparison.fork
    return f"{visible(session.ids[f])} ({visible(session.types[f])}, line {session.linenos[f]})"


def _fork_line(session: Session, comparison: Comparison) -> str:
    return "fork: " + fork_text(session, comparison)


def branch_lines(session: Session, b: BranchFacts, shared: set[str]) -> list[tuple[str, str]]:
    """The branch as ``(field, value)`` rows, each value one line (lists as several rows
    with an empty field after the first), for the plain text form."""
    rows: list[tuple[str, str]] = []

    def many(name: str, values: list[str]) -> None:
        if not values:
            rows.append((name, "—"))
        for k, v in enumerate(values):
            rows.append((name if k == 0 else "", v))

    u = b.usage
    flags = ["current branch"] if b.current else []
    rows.append(("leaf", " · ".join([visible(session.ids[b.leaf]), entries_text(b)] + flags)))
    many("prompts", [one_line(text, TEXT_CAP) for _, text in b.prompts])
    rows.append(("answer", one_line(b.answer[1], TEXT_CAP) if b.answer else "—"))
    many("tools", [f"{visible(kind)}: {calls_text(k)}" for kind, k in b.tools.items()])

    def path(t) -> str:
        return visible(t.path) + (f" {SHARED_MARK}" if t.path in shared else "")

    many("read", [path(t) for t in b.read])
    many("modified", [f"{path(t)}  +{t.added} −{t.removed}" for t in b.modified])
    many("commands", [("✗ " if c.failed else "✓ ") + one_line(c.command, TEXT_CAP) for c in b.commands])
    rows.append(("tokens", tokens_text(u)))
    rows.append(("cost", fmt_cost(u.cost, zero="$0")))
    rows.append(("duration", fmt_duration(b.duration_ms, fine=True) or "—"))
    rows.append(("stop", visible(b.stop_reason) if b.stop_reason else "—"))
    many("labels", [f"{one_line(label, TEXT_CAP)} ({visible(session.ids[i])})" for i, label in b.labels])
    rows.append(("summary", one_line(b.summary[1], TEXT_CAP) if b.summary else "—"))
    return rows


def compare_text(session: Session, comparison: Comparison) -> str:
    """The comparison as plain text: the fork, then each branch's rows."""
    shared = shared_paths(comparison)
    out = [_fork_line(session, comparison)]
    if shared:
        out.append(f"{SHARED_MARK} a file more than one branch read or modified")
    for n, b in enumerate(comparison.branches, 1):
        out += ["", f"branch {n}"]
        out += [f"  {name:<9} {value}".rstrip() for name, value in branch_lines(session, b, shared)]
    return "\n".join(out) + "\n"


def _md_branch(session: Session, n: int, b: BranchFacts, shared: set[str]) -> list[str]:
    u = b.usage
    title = f"## Branch {n}: {_code(visible(session.ids[b.leaf]))}" + (" (current)" if b.current else "")
    out = [title, "",
           f"- {entries_text(b)}",
           f"- tokens: {tokens_text(u)}",
           f"- cost: {fmt_cost(u.cost, zero='$0')}",
           f"- duration: {fmt_duration(b.duration_ms, fine=True) or '—'}",
           f"- last stop reason: {_code(visible(b.stop_reason)) if b.stop_reason else '—'}"]
    if b.labels:
        out.append("- labels: " + ", ".join(f"{_code(one_line(label, TEXT_CAP))}" for _, label in b.labels))
    out += ["", "### Prompts", ""]
    out += [f"- {one_line(text, TEXT_CAP)}" for _, text in b.prompts] or ["*none*"]
    out += ["", "### Last answer", "", one_line(b.answer[1], TEXT_CAP) if b.answer else "*none*"]
    out += ["", "### Tool calls", ""]
    if b.tools:
        out += ["| kind | calls | errors |", "|---|---:|---:|"]
        out += [f"| {_code(visible(kind))} | {k.calls:,} | {k.errors:,} |" for kind, k in b.tools.items()]
    else:
        out.append("*none*")

    def path(t) -> str:
        return _code(visible(t.path)) + (f" {SHARED_MARK}" if t.path in shared else "")

    out += ["", "### Files", ""]
    out += [f"- read {path(t)}" for t in b.read]
    out += [f"- modified {path(t)}: +{t.added} −{t.removed}" for t in b.modified]
    if not (b.read or b.modified):
        out.append("*none*")
    out += ["", "### Commands", ""]
    out += [f"- {'✗ failed' if c.failed else '✓'} {_code(one_line(c.command, TEXT_CAP))}" for c in b.commands] \
        or ["*none*"]
    out += ["", "### Summary written when the branch was left", ""]
    out.append(one_line(b.summary[1], TEXT_CAP) if b.summary else "*none*")
    return out


def compare_markdown(session: Session, comparison: Comparison) -> str:
    """The comparison as Markdown: the fork, then a section per branch."""
    shared = shared_paths(comparison)
    out = ["# Branches compared", "", _fork_line(session, comparison).replace("fork: ", "Fork: ", 1)]
    if shared:
        out += ["", f"`{SHARED_MARK}` marks a file more than one branch read or modified"]
    for n, b in enumerate(comparison.branches, 1):
        out += [""] + _md_branch(session, n, b, shared)
    return "\n".join(out) + "\n"
