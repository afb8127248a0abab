"""Context at an entry (Pi's buildSessionContext), listing rules, and stats."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import assistant, entry, message_entry as msg, ts, user, write
from pitui.core.model.context import build_context, context_entry_indices
from pitui.core.store.discovery import SessionFile, resolve_root, find_session_files
from pitui.core.store.listing import SessionIndex, list_sessions
from pitui.core.store.listing_scan import scan_info
from pitui.core.read.session import Session
from pitui.core.model.stats import TOOLS_KEY, branch_stats, session_stats

SYS = {"role": "system", "content": "", "sections": {"preamble": "P"}, "timestamp": 1}


def test_compaction_system_message_summary_kept_range_and_after(tmp_path):
    objs = [
        msg("s0", None, 0, SYS),
        user("u1", "s0", 1, "old"),
        msg("s1", "u1", 2, dict(SYS, sections={"extra": "E"})),
        user("u2", "s1", 3, "kept"),
        assistant("a2", "u2", 4, "kept answer"),
        entry("compaction", "c1", "a2", 5, summary="SUM", firstKeptEntryId="u2", tokensBefore=42000,
              systemMessage={"role": "system", "content": "checkpoint", "timestamp": 9}),
        user("u3", "c1", 6, "after"),
    ]
    s = Session.open(write(tmp_path / "s.jsonl", objs))
    ctx = build_context(s)
    roles = [m["role"] for m in ctx["messages"]]
    # system checkpoint, summary, kept entries (system message s1 among them dropped), after
    assert roles == ["system", "compactionSummary", "user", "assistant", "user"]
    assert ctx["messages"][1] == {"role": "compactionSummary", "summary": "SUM", "tokensBefore": 42000,
                                  "timestamp": 1795168805000}
    assert ctx["model"] == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    assert ctx["thinkingLevel"] == "off"
    path, selected = context_entry_indices(s)
    assert path == [0, 1, 2, 3, 4, 5, 6] and selected == [5, 3, 4, 6]


def test_compaction_keeping_nothing(tmp_path):
    objs = [user("u1", None, 1), entry("compaction", "c1", "u1", 2, summary="S", firstKeptEntryId="c1", tokensBefore=1),
            user("u2", "c1", 3)]
    ctx = build_context(Session.open(write(tmp_path / "s.jsonl", objs)))
    assert [m["role"] for m in ctx["messages"]] == ["compactionSummary", "user"]


def test_branch_summary_custom_message_settings_and_missing_content(tmp_path):
    objs = [
        user("u1", None, 1),
        entry("thinking_level_change", "t1", "u1", 2, thinkingLevel="high"),
        entry("model_change", "m1", "t1", 3, provider="openai", modelId="gpt-5"),
        entry("branch_summary", "b1", "m1", 4, fromId="zz", summary="left branch"),
        entry("branch_summary", "b2", "b1", 5, fromId="zz", summary=""),  # no text: no message
        entry("custom_message", "cm", "b2", 6, customType="ext", content="injected", display=False),
        {"type": "message", "id": "u2", "parentId": "cm", "timestamp": ts(7), "message": {"role": "user", "timestamp": 7}},
        entry("custom", "x1", "u2", 8, customType="state", data={"a": 1}),
    ]
    ctx = build_context(Session.open(write(tmp_path / "s.jsonl", objs)))
    assert ctx["thinkingLevel"] == "high"
    assert ctx["model"] == {"provider": "openai", "modelId": "gpt-5"}
    assert ctx["messages"][1] == {"role": "branchSummary", "summary": "left branch", "fromId": "zz",
                                  "timestamp": 1795168804000}
    assert ctx["messages"][2] == {"role": "custom", "customType": "ext", "content": "injected", "display": False,
                                  "timestamp": 1795168806000}
    assert ctx["messages"][3] == {"role": "user", "timestamp": 7, "content": []}
    assert len(ctx["messages"]) == 4


def test_context_edits_latest_wins_and_are_branch_relative(tmp_path):
    objs = [
        user("u1", None, 1, "question"),
        assistant("a1", "u1", 2, "long answer"),
        entry("context_edit", "e1", "a1", 3, targetId="a1", replacement={"content": "short"}),
        entry("context_edit", "e2", "e1", 4, targetId="u1", replacement=None),
        user("u2", "e2", 5, "next"),
    ]
    s = Session.open(write(tmp_path / "s.jsonl", objs))
    ctx = build_context(s)
    assert [m["role"] for m in ctx["messages"]] == ["assistant", "user"]
    assert ctx["messages"][0]["content"] == [{"type": "text", "text": "short"}]
    # before the edits, the originals are back
    before = build_context(s, 1)
    assert before["messages"][0]["content"] == "question"
    assert before["messages"][1]["content"] == [{"type": "text", "text": "long answer"}]
    # raw history is untouched
    assert s.message(1)["content"] == [{"type": "text", "text": "long answer"}]


def test_listing_rules(tmp_path):
    d = tmp_path / "--home-u-proj--"
    d.mkdir()
    p = write(d / "a.jsonl", [
        entry("model_change", "m", None, 0, provider="openai", modelId="gpt-5"),
        {"type": "message", "id": "x", "parentId": "m", "timestamp": ts(1),
         "message": {"role": "user", "content": [{"type": "image", "data": "AA", "mimeType": "image/png"}], "timestamp": 5}},
        user("u1", "x", 2, [{"type": "text", "text": "first"}, {"type": "text", "text": "words"}]),
        assistant("a1", "u1", 3, "ok"),
        msg("t1", "a1", 4, {"role": "toolResult", "toolCallId": "c", "toolName": "bash", "content": [], "isError": False,
                            "timestamp": 99999999999999}),
        entry("session_info", "n", "t1", 5, name=" Named "),
    ])
    info = scan_info(SessionFile(str(p), d.name, "session"))
    assert info.first_message == "first words"
    assert info.message_count == 4
    assert info.name == "Named"
    assert info.modified_ms == 1795168800000 + 3000  # newest user/assistant time; tool results do not count
    assert info.model == "claude-sonnet-4-5"
    empty = write(d / "b.jsonl", [])
    e = scan_info(SessionFile(str(empty), d.name, "session"))
    assert e.first_message == "(no messages)" and e.modified_ms == 1795168800000.0  # header time


def test_listing_index_reads_a_grown_file_from_where_it_stopped(tmp_path, monkeypatch):
    root = tmp_path / "sessions"
    d = root / "--p--"
    d.mkdir(parents=True)
    p = write(d / "s.jsonl", [user("u1", None, 1, "hello")])
    index = SessionIndex(tmp_path / "cache")
    (info,) = list_sessions(resolve_root(root), index)
    assert info.message_count == 1
    stopped = info.scanned_to
    with open(p, "a") as f:
        f.write('{"type":"message","id":"a1","parentId":"u1","timestamp":"' + ts(2) + '","message":'
                '{"role":"assistant","content":[],"provider":"p","model":"m2","timestamp":1795168802000}}\n')
    calls = []
    import pitui.core.store.listing_scan as listing_scan

    real = listing_scan.iter_line_blocks
    monkeypatch.setattr(listing_scan, "iter_line_blocks", lambda f, start=0, *a, **k: calls.append(start) or real(f, start, *a, **k))
    index2 = SessionIndex(tmp_path / "cache")
    (info2,) = list_sessions(resolve_root(root), index2)
    assert calls == [stopped]  # read on from the old end, not from the start
    assert info2.message_count == 2 and info2.model == "m2"
    # a rewritten (shrunk) file is read again from the start
    write(p, [user("u9", None, 1, "rewritten")])
    calls.clear()
    (info3,) = list_sessions(resolve_root(root), SessionIndex(tmp_path / "cache"))
    assert calls == [0] and info3.first_message == "rewritten" and info3.message_count == 1


def test_corrupt_index_is_rebuilt(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    idx = SessionIndex(cache)
    idx.file.write_bytes(b"\x00garbage{")
    idx = SessionIndex(cache)
    assert idx.load_error and idx.get("x") is None


def test_discovery_projects_symlinks_loose_and_subagents(tmp_path):
    root = tmp_path / "sessions"
    (root / "--a--" / "subagent-artifacts").mkdir(parents=True)
    write(root / "--a--" / "s1.jsonl", [])
    write(root / "--a--" / "subagent-artifacts" / "run.jsonl", [])
    write(root / "loose.jsonl", [])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    write(elsewhere / "s2.jsonl", [])
    os.symlink(elsewhere, root / "--b--")
    found = {(os.path.basename(f.path), f.project, f.kind) for f in find_session_files(resolve_root(root))}
    assert found == {("s1.jsonl", "--a--", "session"), ("run.jsonl", "--a--", "subagent"),
                     ("loose.jsonl", "", "session"), ("s2.jsonl", "--b--", "session")}


def test_root_resolution_order(tmp_path):
    env = {"HOME": "/home/x", "PI_CODING_AGENT_DIR": "/agent", "PI_CODING_AGENT_SESSION_DIR": "/flat"}
    assert resolve_root(None, "/sd", env).path.as_posix() == "/sd"
    assert resolve_root(None, None, env).kind == "flat"
    env.pop("PI_CODING_AGENT_SESSION_DIR")
    assert resolve_root(None, None, env).path.as_posix() == "/agent/sessions"
    env.pop("PI_CODING_AGENT_DIR")
    r = resolve_root(None, None, env)
    assert r.path.as_posix() == "/home/x/.pi/agent/sessions" and r.kind == "tree"


def test_which_files_a_root_lists_by_their_paths():
    from pitui.core.store.discovery import SessionRoot

    tree, flat = SessionRoot(Path("/s"), "tree", ""), SessionRoot(Path("/s"), "flat", "")
    project, one = SessionRoot(Path("/s/--p--"), "project", ""), SessionRoot(Path("/s/a.jsonl"), "file", "")
    assert [tree.holds(p) for p in ("/s/--p--/a.jsonl", "/s/a.jsonl", "/sx/a.jsonl", "/s")] == [True, True, False, False]
    assert [flat.holds(p) for p in ("/s/a.jsonl", "/s/--p--/a.jsonl", "/sx/a.jsonl")] == [True, False, False]
    assert [project.holds(p) for p in ("/s/--p--/a.jsonl", "/s/--p--/subagent-artifacts/r.jsonl", "/s/a.jsonl")] == [
        True, True, False]
    assert [one.holds(p) for p in ("/s/a.jsonl", "/s/a.jsonl2", "/s")] == [True, False, False]


def test_stats_per_session_branch_and_model(tmp_path):
    objs = [
        user("u1", None, 1),
        assistant("a1", "u1", 2),
        assistant("a2", "u1", 3, model="gpt-5"),  # another branch
        entry("usage", "k1", "a1", 4, kind="cache_warm", provider="anthropic", model="claude-sonnet-4-5",
              usage={"input": 0, "output": 0, "cacheRead": 100, "cacheWrite": 0, "cost": {"total": 0.5}}),
        entry("compaction", "c1", "k1", 5, summary="s", firstKeptEntryId="c1", tokensBefore=1,
              usage={"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.25}}),
    ]
    s = Session.open(write(tmp_path / "s.jsonl", objs))
    total = session_stats(s)
    assert round(total.total.cost, 6) == 0.81
    assert set(total.by_model) == {"anthropic/claude-sonnet-4-5", "anthropic/gpt-5", TOOLS_KEY}
    branch = branch_stats(s)  # u1 a1 k1 c1
    assert round(branch.total.cost, 6) == 0.78
    assert branch.by_model["anthropic/claude-sonnet-4-5"].cache_read == 100
