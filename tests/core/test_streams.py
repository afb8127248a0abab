"""Event streams of ``pi --mode json`` and ``pi --mode rpc`` read as sessions (core)."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from pitui.core.export.markdown import export_markdown
from pitui.core.model.context import context_entry_indices
from pitui.core.model.entry_parts import marker
from pitui.core.model.summary import summarize
from pitui.core.read.open import open_session
from pitui.core.read.session import Session
from pitui.core.read.sniff import RPC_LOG, STREAM, stream_kind
from pitui.core.read.stream import LineSplitter, StreamSession
from pitui.core.read.stream_builder import StreamBuilder

from stream_files import HEADER, USAGE, json_stream, line, rpc_log


def _rows(s: Session) -> list[str]:
    return [summarize(s, i).line for i in s.path_to(s.leaf)]


def test_json_stream_rebuilds_the_conversation(tmp_path):
    p = tmp_path / "run.jsonl"
    p.write_text(json_stream())
    assert stream_kind(p) == STREAM
    s = open_session(p)
    assert isinstance(s, StreamSession) and s.stream_kind == STREAM
    assert s.warnings == []
    assert len(s.roots) == 1
    assert _rows(s) == [
        f"[run of session {HEADER['id']} in /home/demo/blog]",
        "user: List the posts",
        "assistant: Let me look.",
        "[bash: ls posts]",
        "assistant: Answer to: List the posts",
        "[run ended · ok · stopReason stop · 120 tokens]",
    ]
    result = s.message(3)
    assert result["durationMs"] == 42 and result["isError"] is False
    assert s.find_tool_call(3)[1]["id"] == result["toolCallId"]
    # the messages are message_end's, whole
    assert s.message(4)["usage"] == USAGE and s.message(4)["content"] == [{"type": "text", "text": "Answer to: List the posts"}]
    # the model's context: the messages
    _, ctx = context_entry_indices(s)
    assert [s.roles[i] for i in ctx if s.types[i] == "message"] == ["user", "assistant", "toolResult", "assistant"]


def test_rpc_log_with_two_prompts_is_one_chain(tmp_path):
    p = tmp_path / "rpc.jsonl"
    p.write_text(rpc_log())
    assert stream_kind(p) == RPC_LOG
    s = open_session(p)
    assert s.stream_kind == RPC_LOG and s.warnings == []
    assert len(s.roots) == 1  # the second prompt continues the same conversation
    rows = _rows(s)
    assert rows[0].startswith("[RPC get_state · sessionId ")
    assert [r for r in rows if r.startswith("user: ")] == ["user: First question", "user: Second question"]
    assert rows.count("[RPC prompt: ok]") == 2
    assert sum(1 for r in rows if r.startswith("[run ended · ok")) == 2


def test_a_new_session_command_starts_a_new_root(tmp_path):
    text = rpc_log(("One",)) + line({"id": "req-9", "type": "response", "command": "new_session", "success": True,
                                     "data": {"cancelled": False}})
    from stream_files import run

    text += "".join(line(r) for r in run("Two", 1782900600000, tool=False))
    p = tmp_path / "rpc.jsonl"
    p.write_text(text)
    s = open_session(p)
    assert len(s.roots) == 2
    assert _rows(s)[:2] == ["[RPC new_session: ok]", "user: Two"]


@pytest.mark.parametrize("command", ["fork", "new_session"])
def test_a_failed_new_session_command_keeps_one_conversation(tmp_path, command):
    """Pi answers a ``fork`` or ``new_session`` it could not do with ``success: false``
    and goes on in the same session: the next prompt continues the conversation (one
    root), and the failure shows as a warning."""
    from stream_files import run

    text = rpc_log(("One",)) + line({"id": "req-9", "type": "response", "command": command, "success": False,
                                     "error": "Entry not found"})
    text += "".join(line(r) for r in run("Two", 1782900600000, tool=False))
    p = tmp_path / "rpc.jsonl"
    p.write_text(text)
    s = open_session(p)
    assert len(s.roots) == 1
    rows = _rows(s)
    assert rows[1:] == [
        "[RPC prompt: ok]", "user: One", "assistant: Let me look.", "[bash: ls posts]", "assistant: Answer to: One",
        "[run ended · ok · stopReason stop · 120 tokens]",
        f"[RPC {command}: failed: Entry not found]",
        "user: Two", "assistant: Answer to: Two", "[run ended · ok · stopReason stop · 120 tokens]"]
    assert marker(s, s.entry(s.path_to(s.leaf)[7])).tone == "warning"


def test_a_tool_that_failed_without_its_result_message_shows_as_failed(tmp_path):
    """A ``tool_execution_end`` with ``isError: true`` whose ``toolResult`` message never
    came (the run was stopped): the result rebuilt from it is an error, as the export shows."""
    from stream_files import assistant as stream_assistant, message, user as stream_user

    call = {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "ls posts"}}
    first = stream_assistant([{"type": "text", "text": "Let me look."}, call], 1782900001000, "toolUse")
    recs = [HEADER, {"type": "agent_start"}, {"type": "turn_start"}] + message(stream_user("List", 1782900000000))
    recs += message(first) + [
        {"type": "tool_execution_start", "toolCallId": "call_1", "toolName": "bash", "args": call["arguments"]},
        {"type": "tool_execution_end", "toolCallId": "call_1", "toolName": "bash",
         "result": {"content": [{"type": "text", "text": "ls: posts: No such file"}], "details": {}},
         "isError": True, "durationMs": 7},
        {"type": "turn_end", "message": first, "toolResults": []}]
    p = tmp_path / "run.jsonl"
    p.write_text("".join(line(r) for r in recs))
    s = open_session(p)
    assert _rows(s)[1:] == ["user: List", "assistant: Let me look.", "[bash: ls posts]"]
    assert s.message(3)["isError"] is True
    assert "**Result** (bash) — **error**\n\n```\nls: posts: No such file\n```" in export_markdown(s)


@pytest.mark.parametrize("aborted", [True, False])
def test_a_run_settled_after_an_abort_says_so(tmp_path, aborted):
    """``agent_settled`` with ``aborted: true`` is a warning row; a run that settled
    normally adds nothing."""
    recs = [HEADER, {"type": "agent_start"}, {"type": "agent_settled", "aborted": aborted}]
    p = tmp_path / "run.jsonl"
    p.write_text("".join(line(r) for r in recs))
    s = open_session(p)
    if not aborted:
        assert _rows(s)[1:] == []
        return
    assert _rows(s)[1:] == ["[settled: the run was aborted]"]
    assert marker(s, s.entry(s.leaf)).tone == "warning"
    assert "*Settled: the run was aborted*" in export_markdown(s)


def test_malformed_record_is_a_warning_and_the_rest_shows(tmp_path):
    lines = json_stream().splitlines(keepends=True)
    lines.insert(4, '{"type":"message_end","message":{"role":\n')
    p = tmp_path / "run.jsonl"
    p.write_text("".join(lines))
    s = open_session(p)
    assert [(w.line, w.message) for w in s.warnings] == [(5, "line 5 is not valid JSON and is skipped")]
    assert "user: List the posts" in _rows(s)
    assert _rows(s)[-1].startswith("[run ended · ok")


def test_a_message_that_never_ended_is_shown_interrupted(tmp_path):
    lines = json_stream().splitlines(keepends=True)
    # cut the stream after the answer's text deltas (before its text_end and message_end)
    cut = next(k for k, l in enumerate(lines) if '"text_end"' in l and "Answer to" in l)
    p = tmp_path / "run.jsonl"
    p.write_text("".join(lines[:cut]))
    s = open_session(p)
    msg = s.message(s.leaf)
    assert msg["role"] == "assistant" and msg["stopReason"] == "aborted"
    assert msg["content"] == [{"type": "text", "text": "Answer to: List the posts"}]
    assert "interrupted" in msg["errorMessage"]


def test_events_become_markers(tmp_path):
    recs = [HEADER,
            {"type": "thinking_level_changed", "level": "high"},
            {"type": "session_info_changed", "name": "Blog run"},
            {"type": "queue_update", "steering": ["also check drafts"], "followUp": []},
            {"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 2000, "errorMessage": "529 overloaded"},
            {"type": "auto_retry_end", "success": True, "attempt": 2},
            {"type": "compaction_start", "reason": "threshold"},
            {"type": "compaction_end", "reason": "threshold", "result": {
                "summary": "Earlier: the posts were listed.", "firstKeptEntryId": "abc", "tokensBefore": 150000,
                "estimatedTokensAfter": 32000, "details": {}}, "aborted": False, "willRetry": False},
            {"type": "entry_appended", "entry": {"type": "custom", "id": "x1", "parentId": None,
                                                 "timestamp": "2026-07-01T10:00:05.000Z", "customType": "my.ext",
                                                 "data": {"n": 1}}},
            {"type": "extension_error", "extensionPath": "/ext.ts", "event": "tool_call", "error": "boom"},
            {"type": "agent_end", "messages": [{"role": "assistant", "content": [], "stopReason": "error",
                                                "errorMessage": "overloaded", "usage": USAGE}], "willRetry": False}]
    p = tmp_path / "run.jsonl"
    p.write_text("".join(line(r) for r in recs))
    s = open_session(p)
    assert s.warnings == []
    assert s.name == "Blog run"
    assert _rows(s)[1:] == [
        "[thinking: high]",
        "[title: Blog run]",
        "[queue: 1 steering, 0 follow-up: also check drafts]",
        "[retry 1/3 in 2.0s: 529 overloaded]",
        "[retry succeeded (attempt 2)]",
        "[compaction started (threshold)]",
        "[compaction: 150k tokens]",
        "[my.ext]",
        "[extension error in /ext.ts (tool_call): boom]",
        "[run ended · not ok · stopReason error · error: overloaded · 120 tokens]",
    ]
    last = s.entry(s.leaf)
    m = marker(s, last)
    assert m is not None and m.tone == "warning"


def test_splitter_keeps_every_record_at_any_split():
    text = (json_stream() + rpc_log()).encode()
    # a U+2028 inside a string is no record boundary
    text = text.replace(b"Let me look.", "Let me\u2028look.".encode())
    want = [l for l in text.split(b"\n") if l]
    rng = random.Random(7)
    for _ in range(50):
        sp = LineSplitter()
        got = []
        k = 0
        while k < len(text):
            n = rng.randint(1, 200)
            got += [raw for _, _, raw in sp.feed(text[k:k + n])]
            k += n
        assert got == want and sp.pending == b""


def test_live_stream_grows_with_what_is_fed():
    s = StreamSession.live()
    data = json_stream().encode()
    cut = data.index(b'"text_end"') - 30
    s.feed(data[:cut])
    assert s.refresh() > 0
    assert s.message(s.leaf)["stopReason"] == "aborted"  # (still streaming: shown as far as it came)
    s.feed(data[cut:-1])  # (the last LF not yet)
    s.end()
    s.refresh()
    assert _rows(s)[-1].startswith("[run ended · ok")
    assert s.warnings == []


def test_listing_says_what_each_file_is(tmp_path, monkeypatch):
    """A session, a JSON-mode stream and an RPC log in one project folder: each listed as
    what it is, the streams titled by their first prompt."""
    from helpers import assistant, user, write
    from pitui.core.store.discovery import resolve_root
    from pitui.core.store.listing import SessionIndex, list_sessions

    folder = tmp_path / "sessions" / "--home-demo-blog--"
    folder.mkdir(parents=True)
    write(folder / "2026-07-01T09-00-00-000Z_s1.jsonl", [user("u1", None, 1, "a session"), assistant("a1", "u1", 2)])
    (folder / "run.jsonl").write_text(json_stream("Headless question"))
    (folder / "editor.jsonl").write_text(rpc_log())
    index = SessionIndex(tmp_path / "cache")
    for _ in ("cold", "warm"):
        infos = {i.path.rsplit("/", 1)[1]: i for i in list_sessions(resolve_root(str(tmp_path / "sessions")), index)}
        run, rpc, sess = infos["run.jsonl"], infos["editor.jsonl"], infos["2026-07-01T09-00-00-000Z_s1.jsonl"]
        assert (run.error, run.log, run.title, run.message_count, run.id) == (
            None, "stream", "Headless question", 4, HEADER["id"])
        assert (rpc.error, rpc.log, rpc.title, rpc.message_count) == (None, "rpc log", "First question", 6)
        assert (sess.error, sess.log, sess.title, sess.message_count) == (None, "session", "a session", 2)
        assert run.model == "claude-sonnet-4-5"


def test_a_stream_listed_while_only_its_header_was_written(tmp_path):
    """Listed when only its header was there, a JSON-mode stream is a stream once its
    events come."""
    from pitui.core.store.discovery import SessionFile
    from pitui.core.store.listing_scan import scan_info

    p = tmp_path / "run.jsonl"
    text = json_stream()
    p.write_text(text.splitlines(keepends=True)[0])
    first = scan_info(SessionFile(str(p), "x", "session"))
    assert first.log == "session" and first.message_count == 0
    p.write_text(text)
    again = scan_info(SessionFile(str(p), "x", "session"), first)
    assert again.log == "stream" and again.message_count == 4


def test_exports_show_the_events_as_markers(tmp_path):
    from pitui.core.export.markdown import export_markdown

    p = tmp_path / "rpc.jsonl"
    p.write_text(rpc_log())
    s = open_session(p)
    md = export_markdown(s, s.leaf)
    assert "*RPC prompt: ok*" in md and "*Run ended · ok · stopReason stop · 120 tokens*" in md
    assert "First question" in md and "Second question" in md and "[stream_event]" not in md



WRITER = r"""
import random, sys, time
data = open(sys.argv[1], "rb").read()
rng = random.Random(int(sys.argv[2]))
k = 0
while k < len(data):
    n = rng.randint(1, 400)
    sys.stdout.buffer.write(data[k:k + n])
    sys.stdout.flush()
    k += n
    time.sleep(rng.random() * 0.004)
"""


def test_a_stream_piped_in_by_a_writer_that_pauses_anywhere(tmp_path):
    """A writer process sends a JSON-mode run and then an RPC log in pieces cut at random
    points (inside records, inside UTF-8 characters), pausing between them; read on a
    thread as ``pitui -`` reads standard input and taken in while it comes, the stream
    ends up exactly the session the saved file is."""
    import subprocess
    import sys
    import threading
    import time

    text = json_stream("Ünïcode prompt ✓ \u2028 kept") + "".join(rpc_log().splitlines(keepends=True)[1:])
    saved = tmp_path / "run.jsonl"
    saved.write_bytes(text.encode())
    want = open_session(saved)
    for seed in (1, 2):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(saved), str(seed)], stdout=subprocess.PIPE)
        live = StreamSession.live()
        reader = threading.Thread(target=live.read_from, args=(proc.stdout.fileno(),))
        reader.start()
        seen = set()
        deadline = time.monotonic() + 60  # (a test that fails must not hang)
        while time.monotonic() < deadline:
            ended = live.ended
            if live.has_news():
                live.refresh()
                seen.add(len(live))
            if ended and not live.has_news():
                break
            time.sleep(0.002)
        reader.join(timeout=30)
        proc.wait(timeout=30)
        assert len(seen) > 3  # (it was shown while it came)
        assert live.warnings == []
        assert [live.entry(i) for i in range(len(live))] == [want.entry(i) for i in range(len(want))]
        assert _rows(live) == _rows(want)


def test_a_subagent_transcript_that_is_a_stream_lists_as_one(tmp_path):
    """pi-subagents' transcripts (artifactPaths.jsonlPath) are JSON-mode streams: listed as
    subagent transcripts with their task as the title and their messages counted."""
    from pitui.core.store.discovery import resolve_root
    from pitui.core.store.listing import list_sessions

    arts = tmp_path / "sessions" / "--home-demo-blog--" / "subagent-artifacts"
    arts.mkdir(parents=True)
    (arts / "aaaa_scout.jsonl").write_text(json_stream("Task: find the feed code"))
    [info] = list_sessions(resolve_root(str(tmp_path / "sessions")), None)
    assert (info.kind, info.log, info.title, info.message_count, info.error) == (
        "subagent", "stream", "Task: find the feed code", 4, None)


def test_pitui_dash_says_why_without_a_terminal_for_keys(tmp_path):
    """``pitui -`` reads the stream from standard input and its keys from /dev/tty: run
    with no terminal at all (a new session has none), it says so in one line, exit 2."""
    import os
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "pitui.cli", "-"], input=json_stream().encode(),
                          capture_output=True, start_new_session=True, timeout=60,
                          env={**os.environ, "PITUI_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith("pitui: -: no terminal to read keys from (/dev/tty: ")


def test_a_long_message_that_never_ends_is_rebuilt_in_linear_time():
    """Issue 33, hole 5: each delta of a message still streaming made its whole text again
    (quadratic: 400,000 one-emoji deltas took 25 s, a million would take minutes). Text,
    thinking and a tool call's arguments, each grown by many small deltas, the message
    never ended: shown whole, as interrupted."""
    n = 1_000_000
    b = StreamBuilder()
    b.add(HEADER, 1, b"")
    b.add({"type": "message_start", "message": {"role": "assistant", "content": [], "stopReason": "pending",
                                                "timestamp": 1782900000000}}, 2, b"")

    def update(event: dict) -> dict:
        return {"type": "message_update", "assistantMessageEvent": event}

    records = [update({"type": "thinking_start", "contentIndex": 0})]
    records += [update({"type": "thinking_delta", "contentIndex": 0, "delta": "€"})] * 1000
    records += [update({"type": "text_start", "contentIndex": 1})]
    records += [update({"type": "text_delta", "contentIndex": 1, "delta": "😀"})] * n
    records += [update({"type": "toolcall_start", "contentIndex": 2, "id": "c1", "toolName": "bash"}),
                update({"type": "toolcall_delta", "contentIndex": 2, "delta": '{"command":"'})]
    records += [update({"type": "toolcall_delta", "contentIndex": 2, "delta": "x"})] * 1000
    records += [update({"type": "toolcall_delta", "contentIndex": 2, "delta": '"}'})]
    for k, rec in enumerate(records):
        assert b.add(rec, 3 + k, b"") is None
    msg = b.entries()[-1][0]["message"]
    assert msg["content"] == [{"type": "thinking", "thinking": "€" * 1000}, {"type": "text", "text": "😀" * n},
                              {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "x" * 1000}}]
    assert msg["stopReason"] == "aborted" and msg["errorMessage"] == "interrupted: the stream ends before this message did"
    # a live stream shows the message again as more comes: the same, and what came since
    b.add(update({"type": "text_delta", "contentIndex": 1, "delta": "!"}), 3 + len(records), b"")
    assert b.entries()[-1][0]["message"]["content"][1]["text"] == "😀" * n + "!"


@pytest.mark.slow
def test_many_tool_runs_are_rebuilt_in_linear_time(tmp_path):
    """Issue 33, hole 5: every message and turn's end sorted the results waiting for their
    messages by the order of every tool run so far (quadratic: 30,000 runs took 38 s of
    CPU; run here in a subprocess with a timeout). Each run's result, its message never
    coming, is kept at its turn's end, in order (check finds each an orphan)."""
    n = 60_000
    recs = [line(HEADER)]
    for k in range(n):
        recs.append(line({"type": "tool_execution_start", "toolCallId": f"c{k}", "toolName": "bash"}))
        recs.append(line({"type": "tool_execution_end", "toolCallId": f"c{k}", "toolName": "bash",
                          "result": {"content": [{"type": "text", "text": f"out {k}"}]}, "isError": False}))
        recs.append(line({"type": "turn_end"}))
    p = tmp_path / "run.jsonl"
    p.write_text("".join(recs))
    got = subprocess.run([sys.executable, "-m", "pitui.cli", "check", str(p)], capture_output=True, timeout=60,
                         env={**os.environ, "PITUI_CACHE_DIR": str(tmp_path / "c")})
    assert got.returncode == 1, got.stderr
    found = got.stdout.decode().splitlines()
    assert len(found) == n
    assert found[0].startswith(f"{p}:3: orphan-result: orphan: no call c0 in this file")
    assert found[-1].startswith(f"{p}:{3 * n}: orphan-result: orphan: no call c{n - 1} in this file")
