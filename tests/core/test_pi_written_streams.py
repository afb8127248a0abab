"""Event streams written by Pi's own CLI (``pi -p --mode json`` and ``pi --mode rpc``, Pi
1.5.2 with a scripted model: tools/pi_written/headless_runs.mjs), read by pitui and checked
against the session file the same run wrote: what Pi itself says the conversation was.

The fixtures (tests/fixtures/pi-written/streams) are the runs' stdout byte for byte, the
session files Pi wrote, side by side as a user may keep them, and runs.json (what was sent
to Pi, and which session files appeared during each run)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import TESTS
from pitui.core.model.context import build_context
from pitui.core.read.open import open_session
from pitui.core.read.session import Session
from pitui.core.read.sniff import RPC_LOG, STREAM, stream_kind
from pitui.core.read.stream import StreamSession
from pitui.core.read.stream_builder import STREAM_EVENT
from pitui.core.store.discovery import find_session_by_id

FIXTURES = TESTS / "fixtures" / "pi-written" / "streams"
RUNS = json.loads((FIXTURES / "runs.json").read_text())
# (entries Pi writes when it creates a session, before any run: no event says them)
_SESSION_START = ("model_change", "thinking_level_change")


@pytest.fixture
def folder(tmp_path) -> Path:
    """The runs and the session files in a project folder of a sessions root."""
    dest = tmp_path / "sessions" / "--tmp-pitui-headless-greet--"
    shutil.copytree(FIXTURES, dest)
    (dest / "runs.json").unlink()
    return dest


def _records(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_bytes().split(b"\n") if x.strip()]


def _written(folder: Path, run: str) -> list[Session]:
    """The session files the run wrote, first written first."""
    return [open_session(folder / name) for name in RUNS[run]["sessionFiles"]]


def _branches(s: Session) -> list[list[int]]:
    """Each root's branch: in a stream, one for each session the run worked on."""
    return [s.path_to(s.newest_leaf_below(r)) for r in s.roots]


def _persisted(s: Session, path: list[int] | None = None) -> list[int]:
    """The entries of a branch of ``s`` (its current one by default) that are entries of Pi's
    session file (not a stream's markers, not the settings Pi writes before the run starts)."""
    path = s.path_to(s.leaf) if path is None else path
    out = [i for i in path if s.types[i] != STREAM_EVENT]
    if not isinstance(s, StreamSession):
        k = 0
        while k < len(out) and s.types[out[k]] in _SESSION_START:
            k += 1
        out = out[k:]
    return out


@pytest.mark.parametrize("run", sorted(RUNS))
def test_the_stream_is_read_as_the_run_it_records(folder, run):
    path = folder / f"{run}.jsonl"
    kind = STREAM if RUNS[run]["mode"] == "json" else RPC_LOG
    assert stream_kind(path) == kind
    s = open_session(path)
    assert isinstance(s, StreamSession) and s.stream_kind == kind
    assert s.warnings == []
    files = _written(folder, run)
    assert all(f.warnings == [] and not isinstance(f, StreamSession) for f in files)
    # one linear branch for each session the run worked on
    assert len(s.roots) == len(files) and sum(map(len, _branches(s))) == len(s.ids)


@pytest.mark.parametrize("run", sorted(RUNS))
def test_the_conversation_is_the_one_pi_wrote_to_its_session_file(folder, run):
    """Entry for entry, the stream's conversation is the session file's: the same messages
    (message_end's, whole), the same extension entries, names, thinking levels and
    compactions, in the same order."""
    s = open_session(folder / f"{run}.jsonl")
    files = _written(folder, run)
    assert len(_branches(s)) == len(files)
    for branch, f in zip(_branches(s), files):
        _same_entries(s, _persisted(s, branch), f, _persisted(f))


def _same_entries(s: Session, ours: list[int], f: Session, pis: list[int]) -> None:
    assert [(s.types[i], s.roles[i]) for i in ours] == [(f.types[j], f.roles[j]) for j in pis]
    for i, j in zip(ours, pis):
        a, b = s.entry(i), f.entry(j)
        t = a["type"]
        if t == "message":
            ma, mb = a["message"], b["message"]
            if ma["role"] == "bashExecution":
                # (a user's command in an RPC log: Pi's stdout says its output, not the command)
                mb = {k: v for k, v in mb.items() if k not in ("command", "timestamp")}
                ma = {k: v for k, v in ma.items() if k not in ("command", "timestamp")}
            assert ma == mb
        elif t == "custom":
            assert (a["customType"], a["data"]) == (b["customType"], b["data"])
        elif t == "context_edit":
            # the entry it edits is the same one: its place in the conversation
            assert ours.index(s.ids.index(a["targetId"])) == pis.index(f.ids.index(b["targetId"]))
            assert a["replacement"] == b["replacement"]
        elif t == "session_info":
            assert a["name"] == b["name"]
        elif t == "thinking_level_change":
            assert a["thinkingLevel"] == b["thinkingLevel"]
        elif t == "compaction":
            assert (a["summary"], a["tokensBefore"]) == (b["summary"], b["tokensBefore"])
        else:
            raise AssertionError(f"an entry of type {t} to compare")


@pytest.mark.parametrize("run", ["json-fix", "json-retry", "json-failed", "rpc-new-session"])
def test_the_model_context_is_the_one_pi_builds_from_its_file(folder, run):
    s = open_session(folder / f"{run}.jsonl")
    for root, f in zip(s.roots, _written(folder, run)):
        assert build_context(s, s.newest_leaf_below(root))["messages"] == build_context(f)["messages"]


@pytest.mark.parametrize("run", ["json-fix", "json-retry", "rpc", "rpc-new-session"])
def test_tool_results_pair_with_their_calls_and_tell_duration_and_error(folder, run):
    path = folder / f"{run}.jsonl"
    ends = {r["toolCallId"]: r for r in _records(path) if r["type"] == "tool_execution_end"}
    s = open_session(path)
    results = [i for i in s.path_to(s.leaf) if s.roles[i] == "toolResult"]
    assert len(results) == len(ends)
    for i in results:
        msg = s.message(i)
        end = ends[msg["toolCallId"]]
        assert msg["durationMs"] == end["durationMs"] and msg["isError"] is end["isError"]
        j, call = s.find_tool_call(i)
        assert call["id"] == msg["toolCallId"] and call["name"] == end["toolName"]
        assert s.roles[j] == "assistant" and j < i


def _events(s: Session, event: str) -> list[str]:
    return [s.entry(i)["text"] for i in range(len(s.ids)) if s.types[i] == STREAM_EVENT and s.entry(i)["event"] == event]


def test_the_runs_outcomes(folder):
    fix = open_session(folder / "json-fix.jsonl")
    (written,) = _written(folder, "json-fix")
    last = written.message(_persisted(written)[-1])
    assert _events(fix, "agent_end") == [f"run ended · ok · stopReason stop · {last['usage']['totalTokens']:,} tokens"]
    # one command failed (the test, before the fix): an error result, the run still ok
    assert sum(1 for i in fix.path_to(fix.leaf) if fix.roles[i] == "toolResult" and fix.message(i)["isError"]) == 1

    failed = open_session(folder / "json-failed.jsonl")
    (outcome,) = _events(failed, "agent_end")
    assert outcome.startswith("run ended · not ok · stopReason error · error: 401 ")
    (written,) = _written(folder, "json-failed")
    assert written.message(_persisted(written)[-1])["stopReason"] == "error"

    retry = open_session(folder / "json-retry.jsonl")
    first, second = _events(retry, "agent_end")
    assert first.startswith("run ended · not ok · stopReason error · error: 529 ") and first.endswith("will retry")
    assert second.startswith("run ended · ok · stopReason stop")
    assert _events(retry, "auto_retry_start")[0].startswith("retry 1/3 in 0.3s: 529 ")
    assert _events(retry, "auto_retry_end") == ["retry succeeded (attempt 1)"]

    rpc = open_session(folder / "rpc.jsonl")
    assert [t.split(" · ")[1] for t in _events(rpc, "agent_end")] == ["ok", "ok", "ok"]
    assert _events(rpc, "queue_update")[0] == "queue: 1 steering, 0 follow-up: Stop after this test; don't fix anything yet."
    assert _events(rpc, "compaction_start") == ["compaction started (manual)"]

    two = open_session(folder / "rpc-new-session.jsonl")
    assert [t.split(" · ")[1] for t in _events(two, "agent_end")] == ["ok", "ok"]
    assert "RPC new_session: ok" in _events(two, "response")


@pytest.mark.parametrize("run", sorted(RUNS))
def test_the_run_names_the_session_file_it_wrote(folder, run):
    """The header's id (JSON mode) and get_state's sessionId and sessionFile (RPC) name the
    session file the run wrote; the file is found beside the stream, as the pane links it.
    (An RPC log names a session only where get_state was asked: the one rpc-new-session
    left after new_session.)"""
    names = RUNS[run]["sessionFiles"][-1:] if run == "rpc-new-session" else RUNS[run]["sessionFiles"]
    files = [open_session(folder / name) for name in names]
    s = open_session(folder / f"{run}.jsonl")
    assert s.session_ids == [f.header["id"] for f in files]
    if RUNS[run]["mode"] == "json":
        assert s.header["id"] == files[0].header["id"] and s.header["cwd"] == files[0].header["cwd"]
    else:
        assert [Path(p).name for p in s.session_files] == names
    for sid, name in zip(s.session_ids, names):
        assert find_session_by_id(folder / f"{run}.jsonl", sid) == str(folder / name)


SIZE = (220, 50)


def _rows(widget) -> list[str]:
    return [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]


async def test_the_app_opens_a_run_pi_wrote(make_app, settle, folder):
    app = make_app(folder / "json-fix.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.error is None
        screen.branch_tree.focus()
        await pilot.press("z")  # (the tree zoomed: its rows whole, the pane has the room otherwise)
        await settle(pilot)
        tree = [r.strip(" ›•") for r in _rows(screen.branch_tree) if r.strip()]
        assert tree[0].startswith(f"[run of session {_records(folder / 'json-fix.jsonl')[0]['id'][:20]}")
        assert tree[1:4] == ["[system prompt]: 2 sections +read,bash,edit,write",
                             "user: The greeting test fails. Fix greet.py and check that the test passes.",
                             "assistant: Let me look at the greeting code."]
        assert "[edit: greet.py]" in tree and "[write: NOTES.md]" in tree
        assert tree[-1].startswith("[run ended · ok · stopReason stop")


def test_a_compaction_in_a_stream_keeps_pis_summary(folder):
    """Pi names a compaction's first kept entry by its id in the session file, which the
    stream never shows: the summary and what came after it are Pi's; the entries it kept
    from before cannot be known from the stream."""
    s = open_session(folder / "rpc.jsonl")
    (f,) = _written(folder, "rpc")
    ours, pis = build_context(s)["messages"], build_context(f)["messages"]
    (summary,) = [m for m in pis if m["role"] == "compactionSummary"]
    # (a compaction_end record has no time: the entry has the stream's last one)
    assert ours[0]["role"] == "compactionSummary" and {**ours[0], "timestamp": 0} == {**summary, "timestamp": 0}
    assert ours[1:] == pis[-2:]


def test_a_users_command_in_an_rpc_log_is_its_bash_execution(folder):
    """RPC ``bash``: the response gives the output Pi kept as a bashExecution message; the
    command itself went to Pi's stdin, and the tree says so."""
    from pitui.core.model.summary import summarize

    s = open_session(folder / "rpc.jsonl")
    (i,) = [i for i in s.path_to(s.leaf) if s.roles[i] == "bashExecution"]
    assert s.message(i)["output"] == 'def greet(name):\n    return f"Hello {name}!"\n' and s.message(i)["exitCode"] == 0
    assert summarize(s, i).line == "[bash]: (command not in the log)"
    assert not any(t.startswith("RPC bash") for t in _events(s, "response"))


def test_results_of_tools_run_together_keep_their_ids_while_the_run_goes_on(folder):
    """A live run: a tool's result shows when the tool ends (before its message comes),
    and keeps its place and id when the message comes, in the calls' order."""
    data = (folder / "json-fix.jsonl").read_bytes()
    lines = data.split(b"\n")
    # (cut after both tools called together ended, before their toolResult messages)
    cut = max(k for k, x in enumerate(lines) if b'"tool_execution_end","toolCallId":"call_bash_test2"' in x) + 1
    live = StreamSession.live()
    live.feed(b"\n".join(lines[:cut]) + b"\n")
    live.refresh()
    path = live.path_to(live.leaf)
    shown = {live.message(i)["toolCallId"]: live.ids[i] for i in path[-2:]}
    assert [live.message(i)["toolCallId"] for i in path[-2:]] == ["call_bash_test2", "call_read_test"]
    live.feed(b"\n".join(lines[cut:]))
    live.end()
    live.refresh()
    done = {live.message(i)["toolCallId"]: live.ids[i] for i in live.path_to(live.leaf)
            if live.roles[i] == "toolResult" and live.message(i)["toolCallId"] in shown}
    assert done == shown


async def test_the_sidebar_lists_each_run_beside_the_session_it_wrote(make_app, settle, folder):
    """Streams and session files mixed in one folder are each read as what they are: every
    run is listed as its stream (or RPC log) and as the session files it wrote, a run that
    wrote one with the same title (its name, else its first prompt) and number of messages."""
    import re

    app = make_app(folder.parent)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = [r.strip(" ▌") for r in _rows(app.screen.session_list) if r.strip()][1:]  # (below the project)
        listed = list(zip(shown[::2], shown[1::2]))  # (title, what it is · when · msgs · model)
        streams = [(t, m) for t, m in listed if m.startswith(("stream · ", "rpc log · "))]
        sessions = [(t, m) for t, m in listed if (t, m) not in streams]
        assert sorted(m.split(" · ")[0] for _, m in streams) == sorted(
            "stream" if r["mode"] == "json" else "rpc log" for r in RUNS.values())
        assert len(sessions) == sum(len(r["sessionFiles"]) for r in RUNS.values())
        msgs = lambda m: re.search(r"(\d+) msgs", m).group(1)  # noqa: E731
        for run in (r for r in RUNS if len(RUNS[r]["sessionFiles"]) == 1):
            (f,) = _written(folder, run)
            first = f.name or f.message(next(i for i in _persisted(f) if f.roles[i] == "user"))["content"][0]["text"]
            ours = [msgs(m) for t, m in streams if first.startswith(t.rstrip("…"))]
            pis = [msgs(m) for t, m in sessions if first.startswith(t.rstrip("…"))]
            assert ours == pis and len(ours) == 1


@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_run_fed_as_it_comes_ends_as_the_file_reads(folder, run):
    """``pi … | pitui -``: the same bytes fed in pieces cut anywhere (inside records, inside
    UTF-8 characters), taken in after each piece, end as the file is read whole."""
    import random

    data = (folder / f"{run}.jsonl").read_bytes()
    whole = open_session(folder / f"{run}.jsonl")
    rng = random.Random(run)
    cuts = sorted(rng.sample(range(1, len(data)), 60))
    live = StreamSession.live()
    for a, b in zip([0] + cuts, cuts + [len(data)]):
        live.feed(data[a:b])
        live.refresh()
        assert live.warnings == []
    live.end()
    live.refresh()
    assert live.ids == whole.ids and live.parent_ids == whole.parent_ids
    assert [live.entry(i) for i in range(len(live.ids))] == [whole.entry(i) for i in range(len(whole.ids))]
