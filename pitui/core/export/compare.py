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


def _count(count: float) -> str:
    return f"{count:,.0f}"


def entries_text(branch: BranchFacts) -> str:
    """``62 entries after the fork``."""
    count = len(branch.entries)
    return f"{count:,} entr{'y' if count == 1 else 'ies'} after the fork"


def tokens_text(usage: Usage) -> str:
    """``9 input · 96 output · 8,524 cache read · 1,190 cache write``."""
    return (f"{_count(usage.input)} input · {_count(usage.output)} output · {_count(usage.cache_read)} cache read"
            f" · {_count(usage.cache_write)} cache write")


def calls_text(stats: KindStats) -> str:
    """``8 calls, 1 error``."""
    return (f"{stats.calls:,} call{'s' if stats.calls != 1 else ''}"
            + (f", {stats.errors:,} error{'s' if stats.errors != 1 else ''}" if stats.errors else ""))


def fork_text(session: Session, comparison: Comparison) -> str:
    """``ebb82575 (session_info, line 10)``, or that there is none."""
    if comparison.fork < 0:
        return "none (the branches have different roots)"
    fork = comparison.fork
    return f"{visible(session.ids[fork])} ({visible(session.types[fork])}, line {session.linenos[fork]})"


def _fork_line(session: Session, comparison: Comparison) -> str:
    return "fork: " + fork_text(session, comparison)


def branch_lines(session: Session, branch: BranchFacts, shared: set[str]) -> list[tuple[str, str]]:
    """The branch as ``(field, value)`` rows, each value one line (lists as several rows
    with an empty field after the first), for the plain text form."""
    rows: list[tuple[str, str]] = []

    def many(name: str, values: list[str]) -> None:
        if not values:
            rows.append((name, "—"))
        for index, value in enumerate(values):
            rows.append((name if index == 0 else "", value))

    usage = branch.usage
    flags = ["current branch"] if branch.current else []
    rows.append(("leaf", " · ".join([visible(session.ids[branch.leaf]), entries_text(branch)] + flags)))
    many("prompts", [one_line(text, TEXT_CAP) for _, text in branch.prompts])
    rows.append(("answer", one_line(branch.answer[1], TEXT_CAP) if branch.answer else "—"))
    many("tools", [f"{visible(kind)}: {calls_text(stats)}" for kind, stats in branch.tools.items()])

    def path(touched) -> str:
        return visible(touched.path) + (f" {SHARED_MARK}" if touched.path in shared else "")

    many("read", [path(touched) for touched in branch.read])
    many("modified", [f"{path(touched)}  +{touched.added} −{touched.removed}" for touched in branch.modified])
    many("commands", [("✗ " if command.failed else "✓ ") + one_line(command.command, TEXT_CAP) for command in branch.commands])
    rows.append(("tokens", tokens_text(usage)))
    rows.append(("cost", fmt_cost(usage.cost, zero="$0")))
    rows.append(("duration", fmt_duration(branch.duration_ms, fine=True) or "—"))
    rows.append(("stop", visible(branch.stop_reason) if branch.stop_reason else "—"))
    many("labels", [f"{one_line(label, TEXT_CAP)} ({visible(session.ids[index])})" for index, label in branch.labels])
    rows.append(("summary", one_line(branch.summary[1], TEXT_CAP) if branch.summary else "—"))
    return rows


def compare_text(session: Session, comparison: Comparison) -> str:
    """The comparison as plain text: the fork, then each branch's rows."""
    shared = shared_paths(comparison)
    out = [_fork_line(session, comparison)]
    if shared:
        out.append(f"{SHARED_MARK} a file more than one branch read or modified")
    for number, branch in enumerate(comparison.branches, 1):
        out += ["", f"branch {number}"]
        out += [f"  {name:<9} {value}".rstrip() for name, value in branch_lines(session, branch, shared)]
    return "\n".join(out) + "\n"


def _md_branch(session: Session, number: int, branch: BranchFacts, shared: set[str]) -> list[str]:
    usage = branch.usage
    title = f"## Branch {number}: {_code(visible(session.ids[branch.leaf]))}" + (" (current)" if branch.current else "")
    out = [title, "",
           f"- {entries_text(branch)}",
           f"- tokens: {tokens_text(usage)}",
           f"- cost: {fmt_cost(usage.cost, zero='$0')}",
           f"- duration: {fmt_duration(branch.duration_ms, fine=True) or '—'}",
           f"- last stop reason: {_code(visible(branch.stop_reason)) if branch.stop_reason else '—'}"]
    if branch.labels:
        out.append("- labels: " + ", ".join(f"{_code(one_line(label, TEXT_CAP))}" for _, label in branch.labels))
    out += ["", "### Prompts", ""]
    out += [f"- {one_line(text, TEXT_CAP)}" for _, text in branch.prompts] or ["*none*"]
    out += ["", "### Last answer", "", one_line(branch.answer[1], TEXT_CAP) if branch.answer else "*none*"]
    out += ["", "### Tool calls", ""]
    if branch.tools:
        out += ["| kind | calls | errors |", "|---|---:|---:|"]
        out += [f"| {_code(visible(kind))} | {stats.calls:,} | {stats.errors:,} |" for kind, stats in branch.tools.items()]
    else:
        out.append("*none*")

    def path(touched) -> str:
        return _code(visible(touched.path)) + (f" {SHARED_MARK}" if touched.path in shared else "")

    out += ["", "### Files", ""]
    out += [f"- read {path(touched)}" for touched in branch.read]
    out += [f"- modified {path(touched)}: +{touched.added} −{touched.removed}" for touched in branch.modified]
    if not (branch.read or branch.modified):
        out.append("*none*")
    out += ["", "### Commands", ""]
    out += [f"- {'✗ failed' if command.failed else '✓'} {_code(one_line(command.command, TEXT_CAP))}" for command in branch.commands] \
        or ["*none*"]
    out += ["", "### Summary written when the branch was left", ""]
    out.append(one_line(branch.summary[1], TEXT_CAP) if branch.summary else "*none*")
    return out


def compare_markdown(session: Session, comparison: Comparison) -> str:
    """The comparison as Markdown: the fork, then a section per branch."""
    shared = shared_paths(comparison)
    out = ["# Branches compared", "", _fork_line(session, comparison).replace("fork: ", "Fork: ", 1)]
    if shared:
        out += ["", f"`{SHARED_MARK}` marks a file more than one branch read or modified"]
    for number, branch in enumerate(comparison.branches, 1):
        out += [""] + _md_branch(session, number, branch, shared)
    return "\n".join(out) + "\n"
