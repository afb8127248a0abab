"""The session doctor (``pitui check``, and ``w`` in the app): every finding on a small file
built to have it, what Pi does with it, the command's output and exit status, the corpus
read without false findings, and the pane's words for a tool result without its call."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pitui.cli import main
from pitui.core.model.doctor import KINDS, check_file
from tools import piwriter

from helpers import FIXTURES, HEADER, assistant, dialog_text, entry, line, ts, user, write
from helpers import result as tool_result

CORPUS = FIXTURES / "pi-corpus" / "agent" / "sessions"
SIZE = (140, 40)


def call(eid, parent, n, *calls, stop="toolUse"):
    """An assistant entry making ``calls`` (``(call id, tool name)`` pairs)."""
    blocks = [piwriter.tool_call_block(cid, name, {"command": "ls"}) for cid, name in calls]
    return assistant(eid, parent, n, content=blocks, stopReason=stop)


def result(eid, parent, n, cid, name="bash"):
    return tool_result(eid, parent, n, cid, name, "out")


def found(path) -> list[tuple]:
    """``(kind, line, entry id)`` of each finding of ``path``."""
    return [(f.kind, f.line, f.entry_id) for f in check_file(path).findings]


def only(path):
    findings = check_file(path).findings
    assert len(findings) == 1, findings
    return findings[0]


# ----------------------------------------------------------------------------- each finding
def test_a_clean_session_has_no_findings(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), call("a1", "u1", 2, ("t1", "bash")),
                                     result("r1", "a1", 3, "t1"), assistant("a2", "r1", 4),
                                     entry("label", "l1", "a2", 5, targetId="u1", label="start")])
    assert found(f) == []


def test_lines_that_do_not_parse_are_skipped_by_pi(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), '{"type":"message",', user("u2", "u1", 3)])
    got = only(f)
    assert (got.kind, got.line, got.entry_id) == ("unparsable", 3, None)
    assert got.message == "the line is not valid JSON and is skipped"
    assert got.pi == "skips the line"


def test_a_last_line_cut_short_is_a_finding(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), "", '{"type":"message","id":"u2'],
              trailing_newline=False)
    got = only(f)
    assert (got.kind, got.line) == ("unparsable", 4)
    assert "no newline" in got.message and "adds the missing newline" in got.pi


def test_a_last_line_without_newline_that_parses_is_fine(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), user("u2", "u1", 2)], trailing_newline=False)
    assert found(f) == []


def test_values_that_are_no_object_say_what_pi_keeps(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), "null", "[1, 2]"])
    assert found(f) == [("not-an-object", 3, None), ("not-an-object", 4, None)]
    assert "no leaf and an empty context" in check_file(f).findings[0].pi


def test_a_line_nested_too_deeply_for_pitui_is_read_by_pi(tmp_path):
    deep = '{"type":"custom","customType":"x","data":' + "[" * 1100 + "]" * 1100 + ',"id":"c1","parentId":"u1"}'
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), deep])
    got = only(f)
    assert (got.kind, got.line) == ("too-deep", 3)
    assert got.pi.startswith("reads the line whole")


@pytest.mark.parametrize("lines, reason", [
    ([line(user("u1", None, 1))], "should be a session header but is 'message'"),
    ([line({"type": "session", "id": 5})], "has no string id"),
    (["{oops", ""], "no session header line"),
])
def test_a_file_without_its_header_is_refused_by_pi(tmp_path, lines, reason):
    f = tmp_path / "s.jsonl"
    f.write_text("\n".join(lines) + "\n")
    got = only(f)
    assert got.kind == "missing-header" and reason in got.message
    assert got.pi == "refuses to open the file (not a valid session)"


def test_an_empty_file_is_one_pi_starts_over(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_bytes(b"")
    got = only(f)
    assert (got.kind, got.line, got.message) == ("missing-header", None, "empty file")
    assert "starts a new session" in got.pi


def test_a_second_header_is_ignored(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), HEADER])
    assert found(f) == [("extra-header", 3, None)]


def test_duplicate_ids_keep_the_later_entry(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), user("u2", "u1", 2), user("u2", "u1", 3)])
    got = only(f)
    assert (got.kind, got.line, got.entry_id) == ("duplicate-id", 3, "u2")
    assert "used again on line 4" in got.message and "keeps the later entry" in got.pi


def test_a_missing_parent_makes_a_root(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), user("u2", "gone", 2)])
    got = only(f)
    assert (got.kind, got.line, got.entry_id) == ("missing-parent", 3, "u2")
    assert "parent gone not found" in got.message and "shows it as a root" in got.pi


def test_a_cycle_above_the_last_entry_hangs_pi(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), user("u2", "u3", 2), user("u3", "u2", 3)])
    got = only(f)
    assert (got.kind, got.line, got.entry_id) == ("parent-cycle", 3, "u2")
    assert got.pi.startswith("hangs when it opens the session")


def test_a_cycle_off_the_last_branch_is_left_out_of_pis_tree(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), user("u2", "u3", 2), user("u3", "u2", 3),
                                     user("u4", "u1", 4)])
    got = only(f)
    assert got.kind == "parent-cycle" and got.pi == KINDS["parent-cycle"]


def test_an_entry_that_is_its_own_parent(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), user("u2", "u2", 2)])
    got = only(f)
    assert (got.kind, got.line, got.entry_id) == ("self-parent", 3, "u2")
    assert got.pi.startswith("hangs when it opens the session")
    f = write(tmp_path / "t.jsonl", [user("u1", None, 1), user("u2", "u2", 2), user("u3", "u1", 3)])
    assert only(f).pi == KINDS["self-parent"]


def test_orphan_results_say_whether_the_call_is_anywhere(tmp_path):
    f = write(tmp_path / "s.jsonl", [
        user("u1", None, 1),
        call("a1", "u1", 2, ("t1", "bash")),  # (the last of its branch: not an unanswered call)
        result("r1", "u1", 3, "t1"),  # (its call is a sibling: on another branch)
        result("r2", "r1", 4, "t9"),  # (no call t9 anywhere)
        call("a2", "u1", 5, ("t2", "bash")),
        result("r3", "a2", 6, "t2"),
    ])
    got = check_file(f).findings
    assert [(g.kind, g.line, g.entry_id, g.message) for g in got] == [
        ("orphan-result", 4, "r1", "call t1 is on another branch (line 3), not above this result"),
        ("orphan-result", 5, "r2", "orphan: no call t9 in this file"),
    ]
    assert got[0].pi.startswith("loads it with a broken tool pairing")


def test_unanswered_calls_on_a_branch_that_went_on(tmp_path):
    f = write(tmp_path / "s.jsonl", [
        user("u1", None, 1),
        call("a1", "u1", 2, ("t1", "bash"), ("t2", "read")),
        result("r1", "a1", 3, "t1"),
        result("r2", "r1", 4, "t2", "read"),
        user("u2", "a1", 5),  # a branch from the call, without its results
        call("a3", "r2", 6, ("t3", "bash")),  # the last entry: the session stopped at the call
        call("a4", "u2", 7, ("t4", "bash"), stop="aborted"),  # an aborted turn: pi-ai drops it
        user("u3", "a4", 8),
    ])
    assert [(g.kind, g.line, g.message) for g in check_file(f).findings] == [
        ("unanswered-call", 3, "tool call t1 (bash) has no result on the branch through u2"),
        ("unanswered-call", 3, "tool call t2 (read) has no result on the branch through u2"),
    ]
    assert "No result provided" in check_file(f).findings[0].pi


def test_a_compaction_keeping_an_entry_off_its_branch(tmp_path):
    def compaction(eid, parent, n, kept):
        return entry("compaction", eid, parent, n, summary="s", firstKeptEntryId=kept, tokensBefore=10)

    f = write(tmp_path / "s.jsonl", [
        user("u1", None, 1), user("u2", "u1", 2), user("x1", "u1", 3),
        compaction("c1", "u2", 4, "u2"),  # on its branch: fine
        compaction("c2", "c1", 5, "c2"),  # its own id: keeps nothing, as Pi writes it
        compaction("c3", "c2", 6, "x1"),  # on another branch
        compaction("c4", "c3", 7, "nowhere"),
    ])
    got = check_file(f).findings
    assert [(g.kind, g.line, g.entry_id) for g in got] == [("compaction-target", 7, "c3"),
                                                           ("compaction-target", 8, "c4")]
    assert "x1 (line 4) is not on the compaction's branch" in got[0].message
    assert "nowhere is no entry of this file" in got[1].message
    assert got[0].pi == "keeps nothing from before the compaction but its summary"


def test_a_label_of_a_missing_entry(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), entry("label", "l1", "u1", 2, targetId="zz", label="x")])
    got = only(f)
    assert (got.kind, got.line, got.entry_id) == ("label-target", 3, "l1")
    assert got.message == "label of entry zz, which is not in this file"


def test_wrong_field_types(tmp_path):
    bad = user("u2", "u1", 2)
    bad["message"]["content"] = 5
    bad["timestamp"] = {"at": 1}
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), bad])
    got = check_file(f).findings
    assert [(g.kind, g.line, g.entry_id) for g in got] == [("field-type", 3, "u2")] * 2
    assert {g.message for g in got} == {"timestamp is an object, not a string; ignored",
                                       "message.content is a number, not text or a list of blocks; ignored"}
    assert got[0].pi == KINDS["field-type"]


def test_an_entry_without_an_id(tmp_path):
    e = user("u2", "u1", 2)
    del e["id"]
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), e])
    got = only(f)
    assert (got.kind, got.line) == ("no-id", 3)
    assert "no leaf id" in got.pi


def test_broken_text_lone_surrogates_and_bytes_not_utf8(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_bytes((line(HEADER) + "\n" + line(user("u1", None, 1, "a\ud800b")) + "\n").encode("utf-8", "surrogatepass")
                  .replace(b"\xed\xa0\x80", b"\\ud800")
                  + line(user("u2", "u1", 2, "caf\xe9")).encode("latin-1") + b"\n")
    assert found(f) == [("surrogates", 2, "u1"), ("not-utf8", 3, "u2")]


def test_a_number_beyond_a_double(tmp_path):
    """JavaScript reads 1e400 as Infinity; pitui shows it as missing and says so."""
    e = user("u2", "u1", 2)
    e["message"]["timestamp"] = "HUGE"
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), line(e).replace('"HUGE"', "1e400")])
    got = only(f)
    assert (got.kind, got.line, got.entry_id) == ("huge-number", 3, "u2")
    assert got.pi == KINDS["huge-number"]


def test_a_line_longer_than_pitui_reads(tmp_path):
    """A run of NUL bytes past MAX_LINE (a hole in a sparse file): read past, one finding;
    Pi cannot open a file with a line past V8's longest string (checked with Pi 1.6.0 on a
    600 MB line: RangeError: Invalid string length)."""
    from pitui.core.read.lines import MAX_LINE

    f = tmp_path / "s.jsonl"
    head = (line(HEADER) + "\n" + line(user("u1", None, 1)) + "\n").encode()
    with open(f, "wb") as out:
        out.write(head)
        out.truncate(len(head) + MAX_LINE + 1)
    with open(f, "ab") as out:
        out.write(b"\n" + (line(user("u2", "u1", 2)) + "\n").encode())
    got = only(f)
    assert (got.kind, got.line, got.entry_id) == ("too-long", 3, None)
    assert got.message == f"the line is longer than {MAX_LINE >> 20} MB and is skipped"
    assert got.pi == KINDS["too-long"]


def test_every_kind_has_a_test_file_here():
    import re

    text = Path(__file__).read_text()
    for kind in KINDS:
        assert re.search(rf'"{kind}"', text.split("def test_every_kind")[0]), kind


# ----------------------------------------------------------------------------- the corpus
def test_the_corpus_has_only_true_findings():
    """Files Pi wrote: only their damaged lines (made so), and tool calls left without a
    result on a branch that went on (the corpus branches at random entries, some right
    after a call; one real session was compacted in the middle of a call)."""
    files = sorted(CORPUS.glob("*/*.jsonl"))
    assert len(files) > 30
    kinds = {}
    for f in files:
        for g in check_file(f).findings:
            kinds.setdefault(g.kind, []).append((f.name, g.line))
    assert set(kinds) <= {"unparsable", "unanswered-call"}, kinds
    damaged = {name for name, _ in kinds["unparsable"]}
    assert damaged == {f.name for f in files if "damaged" in f.name or _has_bad_line(f)}


def _has_bad_line(f: Path) -> bool:
    for raw in f.read_bytes().split(b"\n"):
        if raw.strip():
            try:
                json.loads(raw)
            except ValueError:
                return True
    return False


# ----------------------------------------------------------------------------- the command
def _two_files(tmp_path):
    clean = write(tmp_path / "clean.jsonl", [user("u1", None, 1)])
    bad = write(tmp_path / "bad.jsonl", [user("u1", None, 1), user("u\x1b[31m", "gone", 2)])
    return clean, bad


def test_check_exits_0_when_clean_1_with_findings_2_when_unreadable(tmp_path, capsys):
    clean, bad = _two_files(tmp_path)
    assert main(["check", str(clean)]) == 0
    assert capsys.readouterr().out == ""
    assert main(["check", str(clean), str(bad)]) == 1
    out = capsys.readouterr().out
    # a linter's line, the file's control characters made visible
    assert out == (f"{bad}:3: missing-parent: parent gone not found; shown as a root (orphan) "
                   f"(Pi: {KINDS['missing-parent']})\n")
    assert main(["check", str(clean), str(tmp_path / "nope.jsonl"), str(bad)]) == 2  # the worst
    got = capsys.readouterr()
    assert got.err == f"pitui: {tmp_path / 'nope.jsonl'}: no such file\n"
    assert "missing-parent" in got.out
    assert main(["check", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_check_json_gives_the_same_findings(tmp_path, capsys):
    clean, bad = _two_files(tmp_path)
    bad2 = write(tmp_path / "bad2.jsonl", [user("u1", None, 1), user("u2\x1b", "u1", 2), "{"])
    assert main(["check", "--json", str(clean), str(bad), str(bad2)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data == [
        {"path": str(clean), "findings": []},
        {"path": str(bad), "findings": [{"kind": "missing-parent", "line": 3, "id": "u\x1b[31m",
                                         "message": "parent gone not found; shown as a root (orphan)",
                                         "pi": KINDS["missing-parent"]}]},
        {"path": str(bad2), "findings": [{"kind": "unparsable", "line": 4, "id": None,
                                          "message": "the line is not valid JSON and is skipped",
                                          "pi": "skips the line"}]},
    ]


def test_the_output_of_check_acts_on_no_terminal(tmp_path, capsys):
    _, bad = _two_files(tmp_path)
    main(["check", str(bad)])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "u^[[31m" not in out  # (the id is not in this message)
    f = write(tmp_path / "c.jsonl", [user("u1", None, 1), result("r\x9b1", "u1", 2, "t\x1b]0;x\x07")])
    assert main(["check", str(f)]) == 1
    out = capsys.readouterr().out
    assert "orphan: no call t^[]0;x^G in this file" in out
    assert "\x1b" not in out and "\x07" not in out


def test_line_separators_in_a_finding_forge_no_row(tmp_path, capsys):
    """Issue 33, hole 10: a parent id holding U+2028 (a line break to tools that split on
    it) would make its finding read as two, the second a forged ``path:line:`` row."""
    e = user("u2", "zz\u2028/etc/shadow:3: missing-parent: forged\u2029", 2)
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), e])
    assert main(["check", str(f)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines() == out.split("\n")[:-1]  # no line break but the newline
    assert out == (f"{f}:3: missing-parent: parent zz\\u2028/etc/shadow:3: missing-parent: forged\\u2029 not found; "
                   f"shown as a root (orphan) (Pi: {KINDS['missing-parent']})\n")


# ----------------------------------------------------------------------------- the app
def _orphans(tmp_path) -> Path:
    root = tmp_path / "sessions" / piwriter.project_dir("/home/u/proj")
    root.mkdir(parents=True)
    return write(root / piwriter.session_file_name(ts(0), "sess-1"), [
        user("u1", None, 1, "first question"),
        call("a1", "u1", 2, ("t1", "bash")),
        result("r1", "u1", 3, "t1"),
        result("r2", "r1", 4, "t9"),
    ])


def _pane_lines(app) -> list[str]:
    from pitui.ui.pane import MessagePane

    pane = app.screen.query_one(MessagePane)
    return [pane.render_line(y).text.rstrip() for y in range(pane.scrollable_content_region.height)]


async def test_the_pane_says_why_a_result_has_no_call_above_it(make_app, settle, tmp_path):
    app = make_app(_orphans(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = "\n".join(_pane_lines(app))
        assert "(call t1 is on another branch)" in text
        assert "(orphan: no call t9 in this file)" in text
        assert "call not on this branch" not in text


async def test_w_shows_the_findings_of_check(make_app, settle, tmp_path, capsys):
    from pitui.ui.widgets.header import WarningsScreen

    path = _orphans(tmp_path)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, WarningsScreen)
        shown = dialog_text(app.screen)
        assert f"2 findings in {os.path.basename(path)}" in shown
        main(["check", str(path)])
        for out_line in capsys.readouterr().out.splitlines():  # the same texts as pitui check
            where, _, text = out_line.removeprefix(f"{path}:").partition(": ")
            assert f"{'line ' + where:>11}  {text}" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, WarningsScreen)


def test_tool_pairing_reads_lines_in_any_key_order_and_escapes(tmp_path):
    """Pi's own lines are read from their head; any other shape is parsed whole, so the
    findings are the same."""
    def reordered(e: dict) -> str:
        return json.dumps(dict(reversed(list(e.items()))))

    f = write(tmp_path / "s.jsonl", [
        user("u1", None, 1),
        '{"type":"message","id":"a1","parentId":"u1","timestamp":"' + ts(2) + '","message":{"role":"assistant",'
        '"content":[{"type":"tool\\u0043all","id":"t\\"1","name":"bash","arguments":{}}],"stopReason":"toolUse"}}',
        reordered(result("r1", "a1", 3, 't"1')),
        reordered(result("r2", "r1", 4, "t9")),
        user("u2", "a1", 5),
    ])
    assert [(g.kind, g.line, g.message) for g in check_file(f).findings] == [
        ("unanswered-call", 3, 'tool call t"1 (bash) has no result on the branch through u2'),
        ("orphan-result", 5, "orphan: no call t9 in this file"),
    ]


def test_a_check_stops_when_asked(tmp_path):
    """The dialog stops its check when it closes (a big file's check is seconds of work)."""
    from pitui.core.model.doctor import Stopped

    f = write(tmp_path / "s.jsonl", [user("u1", None, 1)])
    with pytest.raises(Stopped):
        check_file(f, should_stop=lambda: True)
    assert check_file(f, should_stop=lambda: False).findings == []


def test_a_call_is_found_anywhere_in_the_file_past_other_mentions_of_its_id(tmp_path):
    from pitui.core.read.session import Session

    f = write(tmp_path / "s.jsonl", [
        user("u1", None, 1, 'the id "t1" in a message'),
        result("r0", "u1", 2, "t1"),
        call("a1", "u1", 3, ("t0", "read"), ("t1", "bash")),
    ])
    s = Session.open(f)
    got = s.call_anywhere("t1")
    assert got is not None and s.ids[got[0]] == "a1" and got[1]["name"] == "bash"
    assert s.call_anywhere("t9") is None
    assert s.call_anywhere('"t1') is None


async def test_w_says_when_the_file_is_gone(make_app, settle, tmp_path):
    path = _orphans(tmp_path)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        path.unlink()
        await pilot.press("w")
        await settle(pilot)
        shown = dialog_text(app.screen)
        assert f"{os.path.basename(path)} cannot be read" in shown and "no such file" in shown


async def test_the_header_badge_counts_the_checks_findings_however_the_session_was_opened(
        make_app, settle, tmp_path, monkeypatch):
    """Opening reads no further than it must (here it meets one damaged line); the check finds
    more (two orphan-ish results). The badge says the check's count from the start, on the
    first open and when the session is opened again (issue 34: it said 1 warning, then 3
    findings, for the same file); a file too big to check in the background shows what
    opening met until `w` checks it, and then the same count as the list."""
    from pitui.ui.widgets import header
    from pitui.ui.widgets.header import WarningsBadge, WarningsScreen

    path = _orphans(tmp_path)
    with open(path, "a") as f:
        f.write("{not json\n")
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        badge = app.screen.query_one(WarningsBadge)
        assert str(badge.render()) == "⚠ 3 findings (lines 4, 5, 6) w"
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, WarningsScreen)
        shown = dialog_text(app.screen)
        assert f"3 findings in {os.path.basename(path)}" in shown
        assert "Opening the file met 1 problem; this check reads every line and follows every branch." in shown
    header._CHECKED.clear()
    monkeypatch.setattr(header, "BACKGROUND_CHECK_BYTES", 0)
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        badge = app.screen.query_one(WarningsBadge)
        assert str(badge.render()) == "⚠ 1 warning (line 6) w"
        await pilot.press("w")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert str(badge.render()) == "⚠ 3 findings (lines 4, 5, 6) w"
    app = make_app(path)  # (opened again, unchanged: the count known)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert str(app.screen.query_one(WarningsBadge).render()) == "⚠ 3 findings (lines 4, 5, 6) w"


async def test_a_clean_check_clears_the_badge(make_app, settle, tmp_path):
    from pitui.ui.widgets.header import WarningsBadge

    root = tmp_path / "sessions" / piwriter.project_dir("/home/u/proj")
    root.mkdir(parents=True)
    path = write(root / piwriter.session_file_name(ts(0), "sess-2"), [user("u1", None, 1, "hi")])
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        badge = app.screen.query_one(WarningsBadge)
        assert not badge.display
        await pilot.press("w")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert not badge.display
