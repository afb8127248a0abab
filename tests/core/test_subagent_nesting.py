"""Subagent transcripts nested under the session that ran them: what the listing records
(the transcripts a session's subagent runs name, read without parsing every line), how a
transcript finds its session (the pane's rule: the path as recorded, else its name in the
session's own ``subagent-artifacts`` folder), and the sidebar's rows built from that."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from helpers import _ms, assistant, entry, line, read_listing_index, user, write, write_listing_index
from pitui.core.model.summary import cut_words
from pitui.core.store import listing_scan
from pitui.core.store.discovery import SessionRoot, resolve_root, transcript_candidates
from pitui.core.store.listing import INDEX_VERSION, SessionIndex, list_sessions, subagent_parents
from pitui.ui.widgets.sidebar import build_items
from tools import piwriter

CWD = "/home/u/shop"
PROJECT = "--home-u-shop--"


def header(sid: str, n: int = 0) -> dict:
    return piwriter.header(sid, f"2026-11-20T10:0{n}:00.000Z", CWD)


def subagent_call(eid: str, parent: str, n: int, call_id: str, agent: str, task: str) -> dict:
    block = piwriter.tool_call_block(call_id, "subagent", {"agent": agent, "task": task})
    return assistant(eid, parent, n, content=[block], stopReason="toolUse")


def subagent_result(eid: str, parent: str, n: int, call_id: str, runs: list[dict]) -> dict:
    msg = piwriter.tool_result_message(call_id, "subagent", [piwriter.text_block("done")], is_error=False,
                                       timestamp=_ms(n), details={"mode": "single", "results": runs})
    return entry("message", eid, parent, n, message=msg)


def run(agent: str, jsonl: str | None = None, session_file: str | None = None) -> dict:
    r: dict = {"agent": agent, "task": "look", "exitCode": 0, "messages": []}
    if session_file:
        r["sessionFile"] = session_file
    if jsonl:
        r["artifactPaths"] = {"inputPath": jsonl[:-6] + "_input.md", "jsonlPath": jsonl}
    return r


@pytest.fixture
def shop(tmp_path) -> Path:
    """A sessions root: one project holding a session that ran two subagents (one named by
    the absolute path of the machine it ran on, one by its sessionFile), another session,
    and three transcripts: the two runs' and one no session names."""
    root = tmp_path / "sessions"
    project = root / PROJECT
    arts = project / "subagent-artifacts"
    arts.mkdir(parents=True)
    elsewhere = "/home/someone/.pi/agent/sessions/--home-u-shop--/subagent-artifacts/"
    write(project / "2026-11-20T10-00-00-000Z_parent.jsonl", [
        user("u1", None, 1, "have a scout look, then a worker fix it"),
        subagent_call("a1", "u1", 2, "c1", "scout", "look"),
        subagent_result("r1", "a1", 3, "c1", [run("scout", jsonl=elsewhere + "aaaa_scout.jsonl",
                                                  session_file="/tmp/pi-subagent-session-x/run-0/s.jsonl")]),
        subagent_call("a2", "r1", 4, "c2", "worker", "fix"),
        subagent_result("r2", "a2", 5, "c2", [run("worker", session_file="/tmp/pi-x/run-0/bbbb_worker.jsonl")]),
        assistant("a3", "r2", 6, text="all done"),
    ], header=header("parent"))
    write(project / "2026-11-20T10-01-00-000Z_other.jsonl", [user("u1", None, 1, "something else")],
          header=header("other", 1))
    for name, task in (("aaaa_scout", "Task: look"), ("bbbb_worker", "Task: fix"), ("cccc_lost", "Task: lost")):
        write(arts / f"{name}.jsonl", [user("s1", None, 10, task), assistant("s2", "s1", 11, text="ok")],
              header=header(name, 2))
    return root


def paths(root: Path) -> dict[str, str]:
    project = root / PROJECT
    arts = project / "subagent-artifacts"
    return {"parent": str(project / "2026-11-20T10-00-00-000Z_parent.jsonl"),
            "other": str(project / "2026-11-20T10-01-00-000Z_other.jsonl"),
            "scout": str(arts / "aaaa_scout.jsonl"), "worker": str(arts / "bbbb_worker.jsonl"),
            "lost": str(arts / "cccc_lost.jsonl")}


# ---------------------------------------------------------------------------- the listing


def test_a_session_records_the_transcripts_its_subagent_runs_name(shop):
    infos = {i.path: i for i in list_sessions(resolve_root(str(shop)))}
    p = paths(shop)
    assert infos[p["parent"]].subagent_transcripts == [
        "/home/someone/.pi/agent/sessions/--home-u-shop--/subagent-artifacts/aaaa_scout.jsonl",
        "/tmp/pi-subagent-session-x/run-0/s.jsonl",
        "/tmp/pi-x/run-0/bbbb_worker.jsonl",
    ]
    assert infos[p["other"]].subagent_transcripts == []
    assert infos[p["parent"]].message_count == 6  # (the results parsed are counted once)


def test_each_transcript_finds_the_session_that_ran_it_and_a_lost_one_none(shop):
    p = paths(shop)
    parents = subagent_parents(list_sessions(resolve_root(str(shop))))
    assert {t: s.path for t, s in parents.items()} == {p["scout"]: p["parent"], p["worker"]: p["parent"]}


def test_a_transcript_at_the_path_recorded_is_linked_in_another_folder_only_by_that_path(tmp_path):
    project = tmp_path / PROJECT
    (project / "subagent-artifacts").mkdir(parents=True)
    transcript = project / "subagent-artifacts" / "run.jsonl"
    write(transcript, [user("s1", None, 1, "Task: x")], header=header("t"))
    parent = write(project / "p.jsonl", [
        user("u1", None, 1, "go"), subagent_call("a1", "u1", 2, "c1", "w", "x"),
        subagent_result("r1", "a1", 3, "c1", [run("w", jsonl=str(transcript))]),
    ], header=header("p"))
    infos = list_sessions(SessionRoot(project, "project", "argument"))
    assert {t: s.path for t, s in subagent_parents(infos).items()} == {str(transcript): str(parent)}
    # the same name recorded by a session of another folder is not this transcript
    assert transcript_candidates("/x/subagent-artifacts/run.jsonl", "/elsewhere/--p--/s.jsonl") == [
        "/x/subagent-artifacts/run.jsonl", "/elsewhere/--p--/subagent-artifacts/run.jsonl"]


def test_transcript_candidates_follow_the_recorded_path_then_the_sessions_folder(monkeypatch):
    monkeypatch.setenv("HOME", "/home/me")
    assert transcript_candidates("~/t/a.jsonl", "/r/--p--/s.jsonl") == [
        "/home/me/t/a.jsonl", "/r/--p--/subagent-artifacts/a.jsonl"]
    assert transcript_candidates("sub/a.jsonl", "/r/--p--/s.jsonl") == [
        "/r/--p--/sub/a.jsonl", "/r/--p--/subagent-artifacts/a.jsonl"]
    assert transcript_candidates("/abs/a.jsonl", "") == ["/abs/a.jsonl"]


def test_a_result_in_another_key_order_is_read_too(tmp_path):
    """A line whose shape is not Pi's usual one is parsed whole: its transcripts count."""
    project = tmp_path / PROJECT
    project.mkdir()
    msg = {"toolName": "subagent", "role": "toolResult", "toolCallId": "c1", "content": [],
           "details": {"results": [run("w", jsonl="/x/a.jsonl")]}, "isError": False, "timestamp": _ms(3)}
    odd = {"message": msg, "type": "message", "id": "r1", "parentId": "a1", "timestamp": "2026-11-20T10:00:03.000Z"}
    f = write(project / "p.jsonl", [user("u1", None, 1, "go"), subagent_call("a1", "u1", 2, "c1", "w", "x"), odd],
              header=header("p"))
    [info] = list_sessions(SessionRoot(project, "project", "argument"))
    assert info.path == str(f) and info.subagent_transcripts == ["/x/a.jsonl"]


def test_results_of_other_tools_are_not_parsed(tmp_path, monkeypatch):
    """The listing is on the start-up path: no tool result is parsed whole, a subagent's
    neither (the decoder reads its runs' transcripts from its details)."""
    project = tmp_path / PROJECT
    project.mkdir()
    entries = [user("u1", None, 1, "go")]
    parent = "u1"
    for k in range(40):
        call = piwriter.tool_call_block(f"c{k}", "bash", {"command": "ls"})
        entries.append(assistant(f"a{k}", parent, 2 + 2 * k, content=[call], stopReason="toolUse"))
        msg = piwriter.tool_result_message(f"c{k}", "bash", [piwriter.text_block("x" * 5000)], is_error=False,
                                           timestamp=_ms(3 + 2 * k))
        entries.append(entry("message", f"r{k}", f"a{k}", 3 + 2 * k, message=msg))
        parent = f"r{k}"
    entries += [subagent_call("s1", parent, 100, "cs", "w", "x"),
                subagent_result("s2", "s1", 101, "cs", [run("w", jsonl="/x/a.jsonl")])]
    write(project / "p.jsonl", entries, header=header("p"))
    parsed: list[bytes] = []
    real = listing_scan.parse_line

    def counting(data):
        parsed.append(bytes(data))
        return real(data)

    monkeypatch.setattr(listing_scan, "parse_line", counting)
    [info] = list_sessions(SessionRoot(project, "project", "argument"))
    assert info.subagent_transcripts == ["/x/a.jsonl"] and info.message_count == 83
    kinds = [orjson.loads(d).get("type") + ":" + orjson.loads(d).get("message", {}).get("role", "") for d in parsed]
    assert kinds == ["session:", "message:user"]


def test_odd_runs_give_the_transcripts_a_parse_of_the_whole_line_gives(tmp_path):
    """A subagent result whose runs are not all objects, or name a transcript oddly, is
    read as parsing the whole line reads it: what is there, in order, once each."""
    project = tmp_path / PROJECT
    project.mkdir()
    odd = [run("a", jsonl="/x/a.jsonl", session_file="/x/s.jsonl"), "not a run", 7,
           {"artifactPaths": "not an object", "sessionFile": "/x/t.jsonl"},
           {"artifactPaths": {"jsonlPath": 5}, "sessionFile": None}, run("b", jsonl="/x/a.jsonl")]
    entries = [user("u1", None, 1, "go"), subagent_call("s1", "u1", 2, "cs", "w", "x"),
               subagent_result("s2", "s1", 3, "cs", odd),
               subagent_result("s3", "s2", 4, "cs", [run("c", session_file="/x/u.jsonl")])]
    write(project / "p.jsonl", entries, header=header("p"))
    [info] = list_sessions(SessionRoot(project, "project", "argument"))
    assert info.message_count == 4
    assert info.subagent_transcripts == ["/x/a.jsonl", "/x/s.jsonl", "/x/t.jsonl", "/x/u.jsonl"]


def test_a_session_that_grew_adds_the_transcripts_of_its_new_runs(shop, tmp_path):
    index = SessionIndex(tmp_path / "cache")
    p = paths(shop)
    list_sessions(resolve_root(str(shop)), index)
    with open(p["other"], "a") as f:
        f.write(line(subagent_call("a1", "u1", 2, "c9", "w", "x")) + "\n")
        f.write(line(subagent_result("r1", "a1", 3, "c9", [run("w", jsonl="/y/cccc_lost.jsonl")])) + "\n")
    infos = list_sessions(resolve_root(str(shop)), index)
    other = next(i for i in infos if i.path == p["other"])
    assert other.subagent_transcripts == ["/y/cccc_lost.jsonl"] and other.message_count == 3
    assert subagent_parents(infos)[p["lost"]].path == p["other"]


def test_the_index_keeps_the_transcripts_and_rebuilds_an_older_one(shop, tmp_path):
    cache = tmp_path / "cache"
    index = SessionIndex(cache)
    list_sessions(resolve_root(str(shop)), index)
    assert INDEX_VERSION >= 6  # (7: event streams listed as what they are)
    again = SessionIndex(cache)
    assert again.get(paths(shop)["parent"]).subagent_transcripts[0].endswith("aaaa_scout.jsonl")
    # an index of version 5 (rows without the field) is not read: its rows would say "none"
    (cache / f"index-v{INDEX_VERSION}.bin").unlink()
    (cache / "index-v5.json").write_bytes(orjson.dumps({"version": 5, "rows": []}))
    assert SessionIndex(cache).get(paths(shop)["parent"]) is None


def test_an_index_row_whose_transcripts_are_not_strings_is_thrown_away(shop, tmp_path, capsys):
    cache = tmp_path / "cache"
    list_sessions(resolve_root(str(shop)), SessionIndex(cache))
    cols, rows, frags = read_listing_index(cache)
    rows[0]["subagent_transcripts"] = [1]
    write_listing_index(cache, cols, rows, frags)
    index = SessionIndex(cache)
    assert index.get(rows[0]["path"]) is None
    assert "not a string" in (index.load_error or "")


# ---------------------------------------------------------------------------- the sidebar's rows


def test_build_items_nests_transcripts_under_their_session_and_marks_a_lost_one(shop):
    p = paths(shop)
    items = build_items(list_sessions(resolve_root(str(shop))))
    got = [(it.kind, os.path.basename(it.key), it.depth, it.unlinked) for it in items]
    assert got[0] == ("project", PROJECT, 0, False)
    rows = got[1:]
    parent_at = rows.index(("session", os.path.basename(p["parent"]), 0, False))
    kids = rows[parent_at + 1 : parent_at + 3]
    assert sorted(kids) == [("session", "aaaa_scout.jsonl", 1, False), ("session", "bbbb_worker.jsonl", 1, False)]
    assert ("session", "cccc_lost.jsonl", 0, True) in rows
    assert ("session", os.path.basename(p["other"]), 0, False) in rows
    assert len(rows) == 5


def test_a_transcript_whose_session_is_filtered_out_stays_linked(shop):
    items = build_items(list_sessions(resolve_root(str(shop))), query="Task: look")
    assert [(os.path.basename(it.key), it.depth, it.unlinked) for it in items if it.kind == "session"] == [
        ("aaaa_scout.jsonl", 0, False)]


# ---------------------------------------------------------------------------- cuts


@pytest.mark.parametrize("text,limit,want", [
    ("These tests fail only in some random orders", 40, "These tests fail only in some random…"),
    ("hello world foo", 12, "hello world…"),  # (the next character is a space: the word is whole)
    ("hello world foo", 11, "hello…"),
    ("tests/test_reports.py::test_empty_week_has_no_orders", 20, "tests/test_reports.…"),  # (no space: mid-word)
    ("short", 5, "short"),
    ("abcdef", 1, "…"),
])
def test_cut_words(text, limit, want):
    got = cut_words(text, limit)
    assert got == want and len(got) <= limit


def test_cut_words_counts_cells_when_asked():
    from rich.cells import cell_len

    got = cut_words("日本語 の テキスト です", 12, cell_len)
    assert got == "日本語 の…" and cell_len(got) <= 12
