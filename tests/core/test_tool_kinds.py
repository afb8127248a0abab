"""Canonical tool kinds (issue 19, part 3): the kind of each tool, the tree's filters by
kind, calls, errors and time per kind, and the files a branch touched."""

from __future__ import annotations

import glob
import os

import orjson
import pytest

from helpers import FIXTURES, build_kinds_session, call, result, tool_use, user, write
from pitui.core.model.files import files_touched
from pitui.core.model.layout import FILTERS, call_kinds, is_shown, layout_tree
from pitui.core.model.tool_kinds import tool_kind
from pitui.core.model.stats import branch_indices, kind_stats, session_indices, tool_calls
from pitui.core.model.summary import summarize
from pitui.core.read.session import Session
from tools import piwriter

CORPUS = str(FIXTURES / "pi-corpus" / "agent" / "sessions")

# The reference mapping (shared/reference/seeds/000_b3a281fc6a165124.txt), written out again.
SEED = {"read": "file_read", "write": "file_write", "edit": "file_edit", "bash": "shell_exec",
        "grep": "file_search", "find": "file_search", "ls": "file_read"}


def test_each_pi_tool_has_its_canonical_kind_and_any_other_tool_is_its_own():
    for name, kind in SEED.items():
        assert tool_kind(name) == kind
    assert tool_kind("subagent") == "subagent"
    assert tool_kind("web_fetch") == "web_fetch"


@pytest.fixture
def built(tmp_path):
    return Session.open(build_kinds_session(tmp_path / "s.jsonl"))


def rows(s: Session, mode: str) -> list[str]:
    return [r.prefix() + r.fold_mark + r.path_mark + summarize(s, r.entry).line for r in layout_tree(s, mode).rows]


def test_files_only_shows_the_calls_that_touch_files_and_their_results(built):
    # Each call once: as its result (the assistant messages above them are not listed
    # again); u1, hidden, leaves its two children at the top: two roots, as Pi draws them
    assert rows(built, "files-only") == [
        "• [read: /home/u/proj/src/a.py]",
        "   • [edit: ./src/a.py]",
        "   • [grep: /TODO/ in .]",
        "   • [ls: src]",
        "   • [edit: src/b.py]",
        "[write: notes.md]",
    ]


def test_shell_only_shows_bash_calls_their_results_and_the_users_commands(built):
    assert rows(built, "shell-only") == [
        "• [bash: npm test]",
        "[bash]: npm ci",
    ]


def test_a_call_without_a_result_shows_as_its_message(tmp_path):
    """A call still running (or one Pi left without a result) has no result row: its
    message's row stands for it, so no call is lost from the filter."""
    s = Session.open(write(tmp_path / "s.jsonl", [
        user("u1", None, 1, "go"),
        tool_use("a1", "u1", 2, call("c1", "bash", command="make"), call("c2", "bash", command="make test")),
        result("r1", "a1", 3, "c1", "bash"),
    ]))
    assert rows(s, "shell-only") == ["• assistant: [bash: make] [bash: make test]", "• [bash: make]"]


def test_the_kind_filters_follow_the_cycle_after_pis_own():
    assert FILTERS == ("default", "no-tools", "user-only", "labeled-only", "all", "files-only", "shell-only")


def _kinds_by_parsing(path: str) -> dict[int, set[str]]:
    """Each message entry's tool kinds by line number, from the file parsed line by line: a
    result's tool's, a user's command's, and an assistant message's calls' that no result
    answers (a call shows once: as its result while it has one)."""
    out: dict[int, set[str]] = {}
    calls: dict[int, list[tuple[str, str]]] = {}
    answered: set[str] = set()
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            try:
                e = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            m = e.get("message") if isinstance(e, dict) else None
            if e.get("type") != "message" or not isinstance(m, dict):
                continue
            if m.get("role") == "assistant" and isinstance(m.get("content"), list):
                calls[lineno] = [(b.get("id"), SEED.get(b["name"], b["name"])) for b in m["content"]
                                 if isinstance(b, dict) and b.get("type") == "toolCall"]
            elif m.get("role") == "toolResult":
                out[lineno] = {SEED.get(m["toolName"], m["toolName"])}
                answered.add(m.get("toolCallId"))
            elif m.get("role") == "bashExecution":
                out[lineno] = {"shell_exec"}
    for lineno, found in calls.items():
        out[lineno] = {kind for cid, kind in found if cid not in answered}
    return out


CORPUS_FILES = sorted(glob.glob(os.path.join(CORPUS, "*", "*.jsonl")))


@pytest.mark.parametrize("path", CORPUS_FILES, ids=os.path.basename)
def test_the_kind_filters_show_exactly_the_entries_of_their_kinds_in_the_corpus(path):
    s = Session.open(path)
    want = _kinds_by_parsing(path)
    files = {"file_read", "file_write", "file_edit", "file_search"}
    for mode, kinds in (("files-only", files), ("shell-only", {"shell_exec"})):
        shown = [r.entry for r in layout_tree(s, mode).rows]
        by_line = {s.linenos[i]: i for i in range(len(s)) if i not in s.shadowed}
        expected = {by_line[n] for n, k in want.items() if k & kinds and n in by_line}
        assert set(shown) == expected and len(shown) == len(expected), (path, mode)
        assert all(is_shown(s, i, mode) for i in expected)


def test_a_corpus_session_by_kind():
    """One of Pi's author's real sessions: the calls and errors of each kind."""
    path = glob.glob(os.path.join(CORPUS, "*", "2025-11-20T23-33-50-805Z_*.jsonl"))[0]
    s = Session.open(path)
    got = {k: (v.calls, v.errors, v.tools) for k, v in kind_stats(tool_calls(s, session_indices(s))).items()}
    assert got == {"shell_exec": (192, 19, ["bash"]), "file_edit": (146, 0, ["edit"]),
                   "file_read": (50, 0, ["read"]), "file_write": (3, 0, ["write"])}
    # the same counted from the file parsed line by line
    names = []
    with open(path, "rb") as f:
        for raw in f:
            m = orjson.loads(raw).get("message") or {}
            if m.get("role") == "assistant" and isinstance(m.get("content"), list):
                names += [SEED[b["name"]] for b in m["content"] if b.get("type") == "toolCall"]
    assert {k: names.count(k) for k in set(names)} == {k: v[0] for k, v in got.items()}


def test_calls_errors_and_time_per_kind_on_the_branch_and_the_session(built):
    branch = kind_stats(tool_calls(built, branch_indices(built)))
    assert {k: (v.calls, v.errors, v.duration_ms, v.timed, v.tools) for k, v in branch.items()} == {
        "file_edit": (2, 1, 20, 1, ["edit"]),
        "file_read": (2, 0, 5, 1, ["read", "ls"]),
        "file_search": (1, 0, 0, 0, ["grep"]),
        "shell_exec": (1, 1, 1500, 1, ["bash"]),
        "subagent": (1, 0, 60_000, 1, ["subagent"]),
    }
    whole = kind_stats(tool_calls(built, session_indices(built)))
    assert whole["file_write"].calls == 1 and sum(v.calls for v in whole.values()) == 8


def test_the_files_a_branch_touched(built):
    got = [(t.path, t.words) for t in files_touched(tool_calls(built, branch_indices(built)), built.cwd)]
    # the failed edit of src/b.py touched nothing; grep without a path searched the cwd
    assert got == [(".", "searched"), ("src", "searched"), ("src/a.py", "read, edited")]
    other = built.index_of["x1"]
    got = [(t.path, t.words) for t in files_touched(tool_calls(built, branch_indices(built, other)), built.cwd)]
    assert got == [("notes.md", "written")]


def test_a_session_that_grows_reads_the_kinds_of_its_new_entries(tmp_path):
    p = write(tmp_path / "g.jsonl", [user("u1", None, 1), tool_use("a1", "u1", 2, call("c1", "bash", command="ls"))])
    s = Session.open(p)
    assert list(call_kinds(s).bits) == [0, 16]
    with open(p, "a") as f:
        f.write(piwriter.dumps(tool_use("a2", "a1", 3, call("c2", "read", path="x"))) + "\n")
    s.refresh()
    assert list(call_kinds(s).bits) == [0, 16, 1]


def test_a_kinds_time_reads_finely_under_ten_seconds():
    from pitui.core.numbers import fmt_duration

    assert [fmt_duration(ms, fine=True) for ms in (0, 5, 999, 1500, 9_949, 60_000)] == [
        "0ms", "5ms", "999ms", "1.5s", "9.9s", "1m00s"]
    assert fmt_duration(1500) == "1s"  # (elsewhere as before)


@pytest.mark.parametrize("path", CORPUS_FILES, ids=os.path.basename)
def test_kinds_read_from_raw_lines_match_the_parsed_messages(path):
    """The whole session's stats read names and results from the raw lines (args=False):
    the same numbers as from every message parsed."""
    s = Session.open(path)
    fast = kind_stats(tool_calls(s, session_indices(s), args=False))
    parsed = kind_stats(tool_calls(s, session_indices(s)))
    assert fast == parsed


def test_a_result_written_in_another_key_order_is_parsed(tmp_path):
    odd = ('{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-11-20T10:00:03.000Z","message":'
           '{"toolName":"bash","role":"toolResult","isError":true,"toolCallId":"c1","content":[],'
           '"details":{"durationMs":70},"timestamp":1795168803000}}')
    s = Session.open(write(tmp_path / "s.jsonl", [
        user("u1", None, 1), tool_use("a1", "u1", 2, call("c1", "bash", command="make")), odd]))
    for args in (True, False):
        got = kind_stats(tool_calls(s, session_indices(s), args=args))
        assert {k: (v.calls, v.errors, v.duration_ms) for k, v in got.items()} == {"shell_exec": (1, 1, 70)}
    assert rows(s, "shell-only") == ["• [bash: make]"]
