"""The session doctor: what is wrong with one session file, and what Pi does with it.

``pitui check`` prints these findings and the app's warnings dialog (``w``) shows them.
Most of them are what the reader already reports while it reads every line whole
(:class:`~pitui.core.read.session.Session` with ``validate=True``: lines that do not parse,
wrong field types, broken text, duplicate ids, missing parents, ``parentId`` cycles), each
warning carrying its kind. The rest need the whole tree and are found here: an entry that is
its own parent, tool results with no call before them on their branch, tool calls left
without a result on a branch that went on, compactions keeping an entry that is not on their
branch, labels of entries that are not in the file, and a last line cut short.

What Pi does with each was read in Pi 1.5.2's ``session-manager.js`` (``loadEntriesFromFile``,
``_buildIndex``, ``getTree``, ``getBranch``, ``buildContextEntries``) and pi-ai's
``transformMessages``, and checked by running that code on a file built to have each problem.

Linear in the size of the file, and nothing recurses on the depth of the tree.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from dataclasses import dataclass
from typing import Callable, NamedTuple

from ..read.lines import iter_line_spans, open_regular, parse_line
from ..read.normalize import norm_id
from ..read.scan import HEAD_RE
from ..read.session import NotASession, Session, SessionWarning

__all__ = ["Finding", "Report", "KINDS", "check_file", "check_session", "Unreadable", "Stopped", "orphan_text"]

# Every kind of finding, in the order ``pitui check --help`` lists them, with what Pi does.
KINDS: dict[str, str] = {
    "missing-header": "refuses to open the file (not a valid session)",
    "unparsable": "skips the line",
    "too-deep": "reads the line whole: JavaScript has no such limit",
    "too-long": "reads a line of up to 512 M characters (V8's longest string); past that it cannot open "
                "the session at all (RangeError: Invalid string length)",
    "not-an-object": "skips null, false, 0 and \"\"; any other value it keeps as an entry with no id: an empty "
                     "root in /tree, and as the last line it leaves Pi with no leaf and an empty context",
    "not-utf8": "reads the bad bytes as \ufffd too",
    "surrogates": "loads the text as it is; a request that holds it sends broken UTF-16 to the provider",
    "huge-number": "reads the number as Infinity, which it writes back as null",
    "extra-header": "ignores the line",
    "no-id": "keeps the entry with no id: nothing can point at it, and as the last entry it leaves Pi "
             "with no leaf id",
    "field-type": "loads the entry as written: whatever reads the field gets the wrong type",
    "duplicate-id": "keeps the later entry only: the earlier one is lost, and /tree shows the later one "
                    "where each stood",
    "missing-parent": "shows it as a root in /tree; the context of its branch starts here",
    "parent-cycle": "leaves the cycle and all below it out of /tree, and hangs whenever it walks the branch "
                    "through it",
    "self-parent": "shows it as a root in /tree, and hangs whenever it walks the branch to it",
    "orphan-result": "loads it with a broken tool pairing: a request from this branch sends a tool result "
                     "with no call, which providers refuse",
    "unanswered-call": "loads it; pi-ai sends an error result \"No result provided\" for the call in each "
                       "request from this branch",
    "compaction-target": "keeps nothing from before the compaction but its summary",
    "label-target": "keeps the label, shown nowhere",
}

# what Pi does when it is worse than the kind's usual outcome
_PI_CYCLE_ON_LEAF = ("hangs when it opens the session, then runs out of memory: its walk up the branch from "
                     "the last entry goes round the cycle forever")
_PI_SELF_ON_LEAF = "hangs when it opens the session: its walk up the branch from the last entry never ends"
_PI_CUT_LAST = "skips the line, and adds the missing newline to the file"
_PI_EMPTY = "starts a new session in the file, writing a header to it"


# (a NamedTuple rather than a frozen dataclass: several times quicker to make as this module
# loads, before the first screen: benchmarks/startup_budget.py)
class Finding(NamedTuple):
    """One thing wrong with a session file: its ``kind`` (a key of :data:`KINDS`), the line
    (None when it is the whole file's), the entry's id when it has one, what is wrong, and
    what Pi does with it. The texts hold the file's own ids as they are: whoever shows
    them makes them visible (:mod:`pitui.core.text`)."""

    kind: str
    line: int | None
    entry_id: str | None
    message: str
    pi: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "line": self.line, "id": self.entry_id, "message": self.message, "pi": self.pi}

    def text(self) -> str:
        """``kind: message (Pi: what it does)``, as ``pitui check`` and ``w`` show it."""
        return f"{self.kind}: {self.message} (Pi: {self.pi})"


@dataclass(slots=True)
class Report:
    path: str
    findings: list[Finding]

    def to_json(self) -> dict:
        return {"path": self.path, "findings": [finding.to_json() for finding in self.findings]}


def orphan_text(tcid: str | None, elsewhere: bool) -> str:
    """What a tool result with no call above it on its branch lacks, as the pane and
    ``pitui check`` say it: its call ``tcid`` is on another branch (``elsewhere``), or in
    no entry of the file at all."""
    if tcid is None:
        return "orphan: a tool result with no toolCallId"
    return f"call {tcid} is on another branch" if elsewhere else f"orphan: no call {tcid} in this file"


def call_or_why(session: Session, index: int) -> dict | str | None:
    """The tool call of tool result ``index``, or why there is none above it (its call is on
    another branch, or in no entry of the file: :func:`orphan_text`); None when ``index`` is no
    tool result. One answer for the pane and the HTML export."""
    found = session.find_tool_call(index)
    if found is not None:
        return found[1]
    msg = session.message(index)
    if not isinstance(msg, dict) or msg.get("role") != "toolResult":
        return None
    tcid = msg.get("toolCallId")
    if not isinstance(tcid, str):
        return orphan_text(None, False)
    found = session.call_anywhere(tcid)
    if found is None:
        return orphan_text(tcid, False)
    if session.is_ancestor(found[0], index):  # (further up than find_tool_call looks)
        return found[1]
    return orphan_text(tcid, True)


class Unreadable(Exception):
    """The file cannot be read at all (missing, a folder, not a regular file, no
    permission); ``reason`` is one line for the user."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class Stopped(Exception):
    """The check was stopped (``should_stop`` said so) before it was done."""


def check_file(path: str | os.PathLike, should_stop: Callable[[], bool] | None = None) -> Report:
    """Every finding of the session file at ``path``, in line order. Raises
    :class:`Unreadable` when it cannot be read; a readable file that is no session is one
    ``missing-header`` finding. ``should_stop`` is asked now and then (every few MB read):
    when it says so, :class:`Stopped` is raised."""
    path = os.fspath(path)

    def progress(done: int, total: int) -> None:
        if should_stop is not None and should_stop():
            raise Stopped(path)

    from ..read.open import open_session  # (this module is loaded at start; a check is not)

    try:
        session = open_session(path, validate=True, progress=progress)
    except NotASession as exc:
        if not exc.no_header:
            raise Unreadable(path, exc.reason)
        empty = exc.reason == "empty file"
        return Report(path, [Finding("missing-header", exc.line, None, exc.reason,
                                     _PI_EMPTY if empty else KINDS["missing-header"])])
    return Report(path, check_session(session, should_stop))


def check_session(session: Session, should_stop: Callable[[], bool] | None = None) -> list[Finding]:
    """The findings of a session read with ``validate=True`` (every line parsed whole, so
    that every problem of a line is one of its warnings), in line order. ``should_stop``:
    as for :func:`check_file`."""
    tree = _Tree(session)
    findings = [_from_warning(session, tree, warning) for warning in session.all_warnings]
    findings += _self_parents(session, tree)
    findings += _tool_pairing(session, tree, should_stop)
    findings += _compactions_and_labels(session, tree)
    findings += _cut_last_line(session)
    order = {kind: rank for rank, kind in enumerate(KINDS)}
    findings.sort(key=lambda finding: (finding.line or 0, order.get(finding.kind, len(order))))
    return findings


class _Tree:
    """Which entry is below which, in constant time: each entry's number in a preorder
    walk of the tree and the last number of its subtree (walked with a stack)."""

    def __init__(self, session: Session):
        count = len(session)
        first = [-1] * count
        order: list[int] = []
        children = session.children
        stack = list(reversed(session.roots))
        while stack:
            node = stack.pop()
            first[node] = len(order)
            order.append(node)
            kids = children.get(node)
            if kids:
                stack.extend(reversed(kids))
        last = first[:]
        for node in reversed(order):  # (children before their parent)
            parent = session.parent[node]
            if parent >= 0 and last[node] > last[parent]:
                last[parent] = last[node]
        self.first = first
        self.last = last

    def below(self, ancestor: int, node: int) -> bool:
        """Whether ``node`` is ``ancestor`` or below it."""
        fb = self.first[node]
        return fb >= 0 and self.first[ancestor] <= fb <= self.last[ancestor]


def _entry_at(session: Session, line: int | None) -> int:
    """The entry on ``line``, or -1 (a line that is no entry: skipped, or the header)."""
    if line is None:
        return -1
    position = bisect_left(session.linenos, line)
    return position if position < len(session) and session.linenos[position] == line else -1


def _said(message: str, line: int | None) -> str:
    """A reader's warning without its leading ``line N`` (the finding has the line)."""
    if line is None:
        return message
    head = f"line {line}"
    if message.startswith(head + ": "):
        return message[len(head) + 2:]
    if message.startswith(head + " "):
        return "the line " + message[len(head) + 1:]
    return message


def _from_warning(session: Session, tree: _Tree, warning: SessionWarning) -> Finding:
    index = _entry_at(session, warning.line)
    kind = warning.kind or "field-type"
    pi = KINDS.get(kind, KINDS["field-type"])
    if kind == "parent-cycle" and index >= 0 and session.leaf >= 0 and tree.below(index, session.leaf):
        pi = _PI_CYCLE_ON_LEAF  # (the cycle was broken at entry i: what was on or below it is below i)
    return Finding(kind, warning.line, session.ids[index] if index >= 0 else None, _said(warning.message, warning.line), pi)


def _self_parents(session: Session, tree: _Tree) -> list[Finding]:
    out = []
    for index, (eid, pid) in enumerate(zip(session.ids, session.parent_ids)):
        if pid == eid and index not in session.shadowed:
            pi = _PI_SELF_ON_LEAF if session.leaf >= 0 and tree.below(index, session.leaf) else KINDS["self-parent"]
            out.append(Finding("self-parent", session.linenos[index], eid, f"entry {eid} is its own parent", pi))
    return out


def _tool_pairing(session: Session, tree: _Tree, should_stop: Callable[[], bool] | None) -> list[Finding]:
    """Tool results with no call above them on their branch; tool calls with no result
    below them on a branch that went on (errored and aborted turns aside: pi-ai never
    sends those again)."""
    wanted = [index for index, (kind, role) in enumerate(zip(session.types, session.roles))
              if kind == "message" and role in ("assistant", "toolResult") and index not in session.shadowed]
    calls: list[tuple[int, str, str]] = []  # (assistant entry, call id, tool name)
    call_owners: dict[str, list[int]] = {}
    results: list[tuple[int, str | None]] = []
    result_entries: dict[str, list[int]] = {}
    for count, (index, data) in enumerate(session.raw_lines(wanted)):
        if should_stop is not None and not count % 4096 and should_stop():
            raise Stopped(session.path)
        is_result = session.roles[index] == "toolResult"
        if is_result:
            tcid = _result_call_id(data)
            if tcid is not None:  # (Pi's own line: read from its head, as the reader's scan does)
                results.append((index, tcid))
                result_entries.setdefault(tcid, []).append(index)
                continue
        elif b'"toolCall"' not in data and b"\\u" not in data:
            continue  # (no tool call: each has "toolCall" in its line, unless written with \\u escapes)
        obj = parse_line(data).value
        msg = obj.get("message") if isinstance(obj, dict) else None
        if not isinstance(msg, dict):
            continue
        if is_result:
            tcid = norm_id(msg.get("toolCallId"))
            results.append((index, tcid))
            if tcid is not None:
                result_entries.setdefault(tcid, []).append(index)
            continue
        content = msg.get("content")
        if not isinstance(content, list):
            continue
        live = msg.get("stopReason") not in ("error", "aborted")
        for block in content:
            if isinstance(block, dict) and block.get("type") == "toolCall":
                cid = norm_id(block.get("id"))
                if cid is None:
                    continue
                call_owners.setdefault(cid, []).append(index)
                if live:
                    name = block.get("name")
                    calls.append((index, cid, name if isinstance(name, str) else "?"))
    out = []
    for result, tcid in results:
        if tcid is None:
            out.append(Finding("orphan-result", session.linenos[result], session.ids[result], orphan_text(None, False),
                               KINDS["orphan-result"]))
            continue
        owners = call_owners.get(tcid, ())
        if any(owner != result and tree.below(owner, result) for owner in owners):
            continue
        if owners:
            where = ", ".join(f"line {session.linenos[owner]}" for owner in owners[:3])
            message = f"{orphan_text(tcid, True)} ({where}), not above this result"
        else:
            message = orphan_text(tcid, False)
        out.append(Finding("orphan-result", session.linenos[result], session.ids[result], message, KINDS["orphan-result"]))
    children = session.children
    for call_at, cid, name in calls:
        kids = children.get(call_at)
        if not kids:
            continue  # (the branch ends at the call: the session stopped there)
        answered = result_entries.get(cid, ())
        missing = [child for child in kids if not any(tree.below(child, result) for result in answered)]
        if not missing:
            continue
        if len(missing) == len(kids):
            message = f"tool call {cid} ({name}) has no result, and the branch goes on below it"
        else:
            shown = ", ".join(session.ids[child] for child in missing[:3]) + (" …" if len(missing) > 3 else "")
            message = f"tool call {cid} ({name}) has no result on the branch through {shown}"
        out.append(Finding("unanswered-call", session.linenos[call_at], session.ids[call_at], message, KINDS["unanswered-call"]))
    return out


def _result_call_id(data: bytes) -> str | None:
    """The ``toolCallId`` of a tool result line written as Pi writes it (the reader's head
    pattern, then the id right after the role), or None when the line is shaped otherwise."""
    match = HEAD_RE.match(data, 0, 1024)
    if match is None or match.group(4) != b"toolResult":
        return None
    at = match.end()
    if not data.startswith(b',"toolCallId":"', at):
        return None
    at += 15
    end = data.find(b'"', at, at + 257)
    if end < 0 or b"\\" in data[at:end]:
        return None
    try:
        return data[at:end].decode()
    except UnicodeDecodeError:
        return None


def _compactions_and_labels(session: Session, tree: _Tree) -> list[Finding]:
    out = []
    for index, kind in enumerate(session.types):
        if (kind != "compaction" and kind != "label") or index in session.shadowed:
            continue
        entry = session.entry(index)
        if kind == "compaction":
            kept = entry.get("firstKeptEntryId")
            if not isinstance(kept, str) or kept == session.ids[index]:  # (its own id: it keeps nothing, as meant)
                continue
            kept_index = session.index_of.get(kept)
            if kept_index is None:
                message = f"firstKeptEntryId {kept} is no entry of this file"
            elif not tree.below(kept_index, index):
                message = f"firstKeptEntryId {kept} (line {session.linenos[kept_index]}) is not on the compaction's branch"
            else:
                continue
            out.append(Finding("compaction-target", session.linenos[index], session.ids[index], message, KINDS["compaction-target"]))
        else:
            target = entry.get("targetId")
            if isinstance(target, str) and target not in session.index_of:
                out.append(Finding("label-target", session.linenos[index], session.ids[index],
                                   f"label of entry {target}, which is not in this file", KINDS["label-target"]))
    return out


def _cut_last_line(session: Session) -> list[Finding]:
    """A last line without its newline that does not parse (the reader leaves it, as
    what Pi is still writing; in a file at rest it was cut short)."""
    size = session.file_size
    if session.scanned_to >= size:
        return []
    last = None
    try:
        with open_regular(session.path) as handle:
            for buf, pos, end, _off, lineno, _end, terminated in iter_line_spans(handle, session.scanned_to, session.next_lineno, size):
                last = None if terminated else (lineno, bytes(buf[pos:end]))
    except OSError:
        return []
    if last is None:
        return []
    lineno, data = last
    res = parse_line(data)
    if res.value is not None:
        return []
    if res.too_long:
        return [Finding("too-long", lineno, None, f"the last line has no newline and is {res.why}", KINDS["too-long"])]
    return [Finding("unparsable", lineno, None, "the last line has no newline and is not valid JSON (cut short)",
                    _PI_CUT_LAST)]
