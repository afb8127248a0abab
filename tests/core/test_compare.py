"""``pitui compare`` and core/model/compare.py: the branches of a fork, each from the entry
after the fork to its leaf.

The expected outputs were checked by hand once against the files' lines: the corpus
comparison entry by entry (tokens and cost from the one assistant message of each branch,
durations from the first and last timestamps, the branch summary by its ``fromId``); the shop
session's edits from the diffs Pi wrote (``shop/checkout.py``: +1, +11 −5 and +1 −1, the
failed edit left out), its commands from their results (the first ``pytest`` failed,
``git status --short`` is the user's own ``!`` command).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers import FIXTURES, call, entry, result, tool_use, user, write
from pitui.cli import main
from pitui.core.export.compare import compare_markdown
from pitui.core.model.compare import compare_branches, leaves, shared_paths
from pitui.core.read.session import Session
from tools import piwriter

CORPUS = (FIXTURES / "pi-corpus" / "agent" / "sessions" / "--srv-app--"
          / "2026-07-26T09-11-13-741Z_019f9db0-8a75-7764-9ff2-3d62e33da863.jsonl")
SHOP = FIXTURES / "compare" / "shop-discounts.jsonl"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pitui.cli", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "100"})


def test_json_of_two_branches_of_a_corpus_file(capsys):
    assert main(["compare", str(CORPUS), "1b4a0ad4", "a50b7b76", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "fork": "48bd7bf7",
        "branches": [
            {
                "leaf": "1b4a0ad4",
                "entries": 3,
                "prompts": [],
                "answer": "**Answer** compaction emoji token emoji quote\" back\\slash result cost tab\t token tree "
                          "refactor token the résumé session cost résumé result token\n\n```py\nprint(1)\n```",
                # (both results' calls are before the fork: a failed edit counts, as the stats
                # screen counts a result alone; a read whose call is not here touched no file)
                "tools": {"file_edit": {"calls": 1, "errors": 1}, "file_read": {"calls": 1, "errors": 0}},
                "files": {"read": [], "modified": []},
                "commands": [],
                "tokens": {"input": 51, "output": 1106, "cacheRead": 81179, "cacheWrite": 3198},
                "cost": 0.05309,
                "durationMs": 124530,
                "stopReason": "stop",
                "current": False,
                "labels": [],
                "summary": None,
            },
            {
                "leaf": "a50b7b76",
                "entries": 3,
                "prompts": ["日本語 the"],
                "answer": "**Answer** cost session 🚀 parser compaction compaction parser test back\\slash session "
                          "test compaction bug test the cost back\\slash 🚀 parser résumé tab\t tab\t session tab\t "
                          "label bug leaf fix test bug compaction branch result compaction\n\n```py\nprint(1)\n```",
                "tools": {},
                "files": {"read": [], "modified": []},
                "commands": [],
                "tokens": {"input": 1671, "output": 2640, "cacheRead": 19737, "cacheWrite": 17211},
                "cost": 0.115075,
                "durationMs": 56619,
                "stopReason": "aborted",
                "current": False,
                "labels": [],
                "summary": "Branch summary: parser new\nline new\nline refactor new\nline tool the compaction tree 🚀",
            },
        ],
    }


def test_json_of_the_shop_session_edits_commands_and_the_summary(capsys):
    assert main(["compare", str(SHOP), "b69c3ab9", "66dac600", "--json"]) == 0
    want = json.loads((FIXTURES / "compare" / "shop-discounts.b69c3ab9-66dac600.json").read_text())
    got = json.loads(capsys.readouterr().out)
    assert got == want
    tried = got["branches"][1]
    assert tried["files"]["modified"][0] == {"path": "shop/checkout.py", "added": 13, "removed": 6}
    assert [c["failed"] for c in tried["commands"]] == [True] + [False] * 6
    assert tried["commands"][4] == {"command": "git status --short", "failed": False}  # (a ! command)


def test_the_current_branch_and_labels_on_the_branch():
    s = Session.open(CORPUS)
    c = compare_branches(s, [s.index_of["1b4a0ad4"], s.index_of["a9e9e2f9"]])
    assert s.ids[c.fork] == "7decdaea"
    assert [b.current for b in c.branches] == [False, True]
    assert [[(s.ids[i], label) for i, label in b.labels] for b in c.branches] == [[("d113e93a", "checkpoint-7")], []]
    assert [len(b.entries) for b in c.branches] == [12, 7]


def test_plain_text_marks_files_both_branches_touched():
    proc = run("compare", str(SHOP), "b69c3ab9", "66dac600")
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0] == "fork: ebb82575 (session_info, line 10)"
    assert "  leaf      66dac600 · 62 entries after the fork" in lines
    assert "  modified  shop/checkout.py  +13 −6" in lines
    assert "            ✓ git status --short" in lines
    assert "  commands  ✗ python -m pytest -q" in lines
    assert "  stop      aborted" in lines  # (the first try was cut short)
    # three tries at one fork: the files the second and third share are marked
    three = run("compare", str(SHOP), "b69c3ab9", "d2be939c", "66dac600").stdout.splitlines()
    assert three[1] == "* a file more than one branch read or modified"
    assert "  modified  shop/checkout.py *  +13 −6" in three


def test_markdown(capsys):
    assert main(["compare", str(SHOP), "b69c3ab9", "66dac600", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Branches compared\n\nFork: ebb82575 (session_info, line 10)\n\n## Branch 1: `b69c3ab9`\n")
    s, tries = _at(SHOP, "d2be939c", "66dac600")
    two = compare_markdown(s, compare_branches(s, tries))
    assert "\n\n`*` marks a file more than one branch read or modified\n\n" in two
    assert "- modified `tests/test_checkout_page.py` *: +13 −0\n" in two
    assert "- modified `shop/checkout.py`: +13 −6\n" in out
    assert "| `shell_exec` | 6 | 1 |\n" in out
    assert "- ✗ failed `python -m pytest -q`\n" in out


def _at(path, *ids):
    s = Session.open(path)
    return s, [s.index_of[i] for i in ids]


def test_bad_ids_and_too_few():
    proc = run("compare", str(SHOP), "b69c3ab9", "nope")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"pitui: {SHOP}: no entry with id 'nope'\n"
    proc = run("compare", str(SHOP), "b69c3ab9")
    assert proc.returncode == 2 and "give two or more entry ids" in proc.stderr


def _call(eid, parent, n, name, args):
    return tool_use(eid, parent, n, call("c-" + eid, name, **args))


def _result(eid, parent, n, call_entry, name, text, *, error=False, details=None):
    return result(eid, parent, n, "c-" + call_entry, name, text, error=error, details=details)


def test_failed_commands_lines_without_a_diff_and_two_roots(tmp_path):
    bang = piwriter.bash_execution_message("make", "boom", 2, truncated=False, timestamp=1795168800000)
    f = write(tmp_path / "s.jsonl", [
        user("u", None, 0, "go"),
        # one try: a command whose output says it failed though the result is no error (an
        # older Pi), an edit still waiting (its lines from its arguments), a failed `!` command
        _call("a1", "u", 1, "bash", {"command": "npm test"}),
        _result("r1", "a1", 2, "a1", "bash", "1 failing\n\nCommand exited with code 1"),
        _call("a2", "r1", 3, "edit", {"path": "/home/u/proj/x.py",
                                      "edits": [{"oldText": "a\nb\nc", "newText": "a\nB\nB2\nc"}]}),
        entry("message", "b1", "a2", 4, message=bang),
        # the other: a write, and an exit code of 0 in its output
        _call("a3", "u", 5, "write", {"path": "x.py", "content": "one\ntwo\n"}),
        _result("r3", "a3", 6, "a3", "write", "ok"),
        _call("a4", "r3", 7, "bash", {"command": "true"}),
        _result("r4", "a4", 8, "a4", "bash", "Command exited with code 0"),
        user("other", None, 9, "a second root"),
    ])
    s = Session.open(f)
    c = compare_branches(s, [s.index_of["b1"], s.index_of["r4"]])
    assert s.ids[c.fork] == "u"
    one, two = c.branches
    assert [(x.command, x.failed) for x in one.commands] == [("npm test", True), ("make", True)]
    assert [(t.path, t.added, t.removed) for t in one.modified] == [("x.py", 2, 1)]
    assert [(x.command, x.failed) for x in two.commands] == [("true", False)]
    assert [(t.path, t.added, t.removed) for t in two.modified] == [("x.py", 2, 0)]
    assert shared_paths(c) == {"x.py"}
    assert one.duration_ms == 3000 and one.stop_reason == "toolUse" and one.answer is None
    apart = compare_branches(s, [s.index_of["b1"], s.index_of["other"]])
    assert apart.fork == -1 and apart.to_json(s)["fork"] is None
    assert [len(b.entries) for b in apart.branches] == [5, 1]


def test_a_deep_chain_is_walked_without_recursion(tmp_path):
    # two tries after a 20,000-entry chain (the fork's depth is no limit)
    entries = [user("e0", None, 0)]
    for k in range(1, 20000):
        entries.append(entry("custom", f"e{k}", f"e{k - 1}", 1, customType="x"))
    entries += [user("left", "e19999", 2, "try A"), user("right", "e19999", 3, "try B")]
    s = Session.open(write(tmp_path / "deep.jsonl", entries))
    c = compare_branches(s, [s.index_of["left"], s.index_of["right"]])
    assert s.ids[c.fork] == "e19999"
    assert [[t for _, t in b.prompts] for b in c.branches] == [["try A"], ["try B"]]


def test_leaves_newest_first_and_each_kinds_first_call():
    s = Session.open(SHOP)
    assert [s.ids[i] for i in leaves(s)] == ["8d234614", "e2235cb9", "66dac600", "d2be939c", "b69c3ab9"]
    c = compare_branches(s, [s.index_of["d2be939c"], s.index_of["66dac600"]])
    first = c.branches[0].kind_first  # (the assistant messages that called them)
    assert {k: s.ids[i] for k, i in first.items()} == {"file_write": "d7eacdf2", "shell_exec": "5b55609e"}


def test_a_modified_files_item_is_its_first_change():
    # (style.css is read first, then edited: Enter on it in "Files modified" goes to the edit)
    s, tries = _at(SHOP, "b69c3ab9", "66dac600")
    tried = compare_branches(s, tries).branches[1]
    css = next(t for t in tried.files if t.path == "shop/static/style.css")
    assert (s.ids[css.first], s.ids[css.first_change]) == ("0effc6af", "ffcaab26")
    conftest = next(t for t in tried.files if t.path == "tests/conftest.py")
    assert conftest.first >= 0 and conftest.first_change == -1  # (read only)
