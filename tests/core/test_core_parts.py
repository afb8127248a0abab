"""core/model/parts.py: what a tool call, its result and a subagent run show, decided once,
and the pane, the HTML export and the Markdown export saying the same thing from it."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

from pitui.core.export.html import export_html
from pitui.core.export.markdown import export_markdown
from pitui.core.model.parts import (ERROR, OK, PENDING, image_facts, requested_edit, result_parts, result_text,
                                    subagent_runs, tool_args_summary, tool_state, usage_bits, usage_tokens)
from pitui.core.read.session import Session

from helpers import assistant, entry, user, write


def _png(w: int, h: int) -> str:
    head = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", w, h) + b"\x08\x06\x00\x00\x00"
    return base64.b64encode(head + b"\x00" * 40).decode()


# ---------------------------------------------------------------------------- titles


def test_tool_titles_read_as_the_pane_shows_them():
    assert tool_args_summary("bash", {"command": "npm test\nnpm run lint"}) == "$ npm test  (+1 lines)"
    assert tool_args_summary("read", {"path": "/srv/app.py", "offset": 10, "limit": 5}) == "/srv/app.py:10-14"
    assert tool_args_summary("write", {"path": "a.txt", "content": "x\ny\n"}) == "a.txt  (2 lines)"
    assert tool_args_summary("edit", {"path": "a.py", "edits": [{}, {}]}) == "a.py  (2 edits)"
    assert tool_args_summary("grep", {"pattern": "TODO", "path": "src"}) == "/TODO/ in src"
    assert tool_args_summary("web_fetch", {"url": "https://x.test"}) == '{"url":"https://x.test"}'
    assert tool_args_summary("web_fetch", {}) == "{}"


def test_a_long_title_is_cut_with_an_ellipsis_only_when_asked():
    cmd = "echo " + "a" * 500
    assert tool_args_summary("bash", {"command": cmd}) == "$ " + cmd
    assert tool_args_summary("bash", {"command": cmd}, limit=10) == "$ echo aaaaa…"
    assert tool_args_summary("other", {"k": "v" * 50}, limit=8) == '{"k":"vv…'


def test_a_bash_title_shows_escape_sequences_as_stand_ins():
    assert tool_args_summary("bash", {"command": "printf '\x1b]0;pwned\x07'"}) == "$ printf ''"
    assert tool_args_summary("bash", {"command": "a\x07b"}) == "$ a^Gb"


def test_requested_edit_lists_every_edit():
    args = {"oldText": "a\nb", "newText": "c", "edits": [{"oldText": "x", "newText": "y\nz"}, {"oldText": 1}]}
    assert requested_edit(args) == "-a\n-b\n+c\n@@\n-x\n+y\n+z"
    assert requested_edit({}) == ""


def test_tool_state():
    assert tool_state(None) is PENDING and PENDING.glyph == "…"
    assert tool_state({"isError": True}) is ERROR and ERROR.glyph == "✗"
    assert tool_state({"isError": False}) is OK and OK.glyph == "✓"


# ---------------------------------------------------------------------------- results


def test_result_parts_of_an_edit_with_truncation_images_and_usage():
    result = {
        "role": "toolResult", "toolCallId": "c1", "toolName": "edit", "isError": False,
        "content": [{"type": "text", "text": "Edited"}, {"type": "image", "mimeType": "image/png", "data": _png(4, 3)},
                    {"type": "text", "text": "twice"}],
        "details": {"diff": "+1 a", "patch": "  ", "truncation": {"truncated": True, "outputLines": 5, "totalLines": 9},
                    "fullOutputPath": "/tmp/out.txt"},
        "usage": {"input": 1, "output": 2},
    }
    r = result_parts("edit", result)
    assert r.text == "Edited\ntwice"  # text blocks a line apart, as Pi shows them
    assert (r.diff, r.patch, r.shows_diff) == ("+1 a", None, True)
    assert [image_facts(b).dims for b in r.images] == [(4, 3)]
    assert (r.truncated, r.kept_lines, r.full_output_path) == (True, (5, 9), "/tmp/out.txt")
    assert r.usage == {"input": 1, "output": 2} and r.subagents is None


def test_an_error_shows_its_text_not_its_diff():
    r = result_parts("edit", {"isError": True, "content": "no match", "details": {"diff": "+x"}})
    assert r.text == "no match" and not r.shows_diff and not r.truncated and r.kept_lines is None


def test_result_text_of_odd_content():
    assert result_text({"content": "plain"}) == "plain"
    assert result_text({"content": [{"type": "text", "text": 5}, "x", {"type": "text", "text": "ok"}]}) == "ok"
    assert result_text({"content": None}) == ""


def test_image_facts():
    assert image_facts({"type": "image", "mimeType": "image/png", "data": _png(640, 480)}).dims == (640, 480)
    gif = base64.b64encode(b"GIF89a" + struct.pack("<HH", 12, 34) + b"\x00" * 10).decode()
    assert image_facts({"mediaType": "image/gif", "data": gif}).dims == (12, 34)
    f = image_facts({"mimeType": 7, "data": "QUJD"})
    assert (f.mime, f.size, f.dims) == ("image", 3, None)
    assert image_facts({"data": "QQ=="}).size == 1


# ---------------------------------------------------------------------------- subagents and usage


def test_subagent_runs_status_bits_and_transcripts():
    details = {"mode": "parallel", "results": [
        {"agent": "worker", "exitCode": 0, "step": 1, "model": "m1", "task": "do it",
         "usage": {"input": 1200, "output": 30, "cacheRead": 5000, "cost": {"total": 0.5}, "turns": 3},
         "progressSummary": {"durationMs": 65_000}, "artifactPaths": {"jsonlPath": "/a/t.jsonl"},
         "sessionFile": "/a/s.jsonl", "messages": [{"role": "user", "content": "hi"}, "junk"]},
        {"agent": "", "exitCode": 2},
        {"agent": "w3", "error": "boom\nmore", "exitCode": 0},
        {"agent": "w4", "progress": {"status": "failed"}},
        {"agent": "w5", "progress": {"status": "running"}},
        "not a run",
    ]}
    mode, runs = subagent_runs(details)
    assert mode == "parallel"
    assert [(r.agent, r.status, r.state) for r in runs] == [
        ("worker", "✓ done", "ok"), ("agent", "✗ exit 2", "error"), ("w3", "✗ boom more", "error"),
        ("w4", "failed", "error"), ("w5", "running", "unknown")]
    first = runs[0]
    assert first.bits() == ["↑1.2k ↓30", "cache 5.0kr/0w", "$0.5000", "3 turns", "1m05s"]
    assert first.bits(cache=False) == ["↑1.2k ↓30", "$0.5000", "3 turns", "1m05s"]
    assert first.transcripts == [("transcript", "/a/t.jsonl"), ("session file", "/a/s.jsonl")]
    assert first.messages == [{"role": "user", "content": "hi"}] and first.step == 1 and first.task == "do it"
    assert runs[2].error == "boom\nmore"


def test_usage():
    assert usage_bits(None) == []
    assert usage_bits({"cost": {"total": 0}}) == []
    assert usage_bits({"output": 5}) == ["↑0 ↓5"]
    assert usage_tokens({"totalTokens": 7, "input": 100}) == 7
    assert usage_tokens({"input": 1, "output": 2, "cacheRead": 3, "cacheWrite": 4}) == 10
    assert usage_tokens({"input": "1"}) == 0  # only numbers count


# ---------------------------------------------------------------------------- the writers agree


def _session(tmp_path: Path) -> Session:
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "make test\nmake lint"}}
    sub = {"type": "toolCall", "id": "c2", "name": "subagent", "arguments": {"agent": "scout", "task": "look"}}
    objs = [
        user("u1", None, 1, "go"),
        assistant("a1", "u1", 2, content=[call, sub], stopReason="toolUse"),
        entry("message", "r1", "a1", 3, message={"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                                                  "content": [{"type": "text", "text": "ok"}], "isError": False,
                                                  "timestamp": 3}),
        entry("message", "r2", "r1", 4, message={"role": "toolResult", "toolCallId": "c2", "toolName": "subagent",
                                                  "content": [{"type": "text", "text": "found it"}], "isError": False,
                                                  "details": {"results": [{"agent": "scout", "exitCode": 3}]},
                                                  "timestamp": 4}),
    ]
    return Session.open(write(tmp_path / "s.jsonl", objs))


def test_the_exports_title_calls_and_runs_as_the_pane_does(tmp_path):
    s = _session(tmp_path)
    title = tool_args_summary("bash", {"command": "make test\nmake lint"})
    assert title == "$ make test  (+1 lines)"
    html, md = export_html(s), export_markdown(s)
    assert f'<code class="args">{title}</code>' in html
    assert f"**Tool call: bash** `{title}`" in md
    assert '<span class="bad">✗ exit 3</span>' in html
    assert "Subagent 1: scout (✗ exit 3)" in md


def test_model_label_and_plural():
    from pitui.core.model.parts import model_label, plural

    assert model_label({"model": "gpt-5", "responseModel": "gpt-5-2025-08-07"}) == "gpt-5 → gpt-5-2025-08-07"
    assert model_label({"model": "m", "responseModel": "m"}) == "m"
    assert model_label({"responseModel": "r"}) == "r"
    assert model_label({}) == ""
    assert (plural(1, "line"), plural(2, "line"), plural(1_048_570, "more line")) == (
        "1 line", "2 lines", "1,048,570 more lines")
    assert plural(2, "entry", "entries") == "2 entries" and plural(1.5, "turn") == "1.5 turns"


def test_markers_read_alike_in_the_pane_and_both_exports(tmp_path):
    from pitui.core.model.entry_parts import marker

    objs = [
        user("u1", None, 1, "go"),
        entry("model_change", "m1", "u1", 2, provider="openai", modelId="gpt-5"),
        entry("thinking_level_change", "t1", "m1", 3, thinkingLevel="high"),
        entry("context_edit", "x1", "t1", 4, targetId="u1", replacement=None),
        entry("label", "l1", "x1", 5, targetId="u1", label="start"),
        entry("session_info", "n1", "l1", 6, name="My run"),
        entry("usage", "g1", "n1", 7, kind="summary", provider="openai", model="gpt-5",
              usage={"totalTokens": 1200, "cost": {"total": 0.5}}),
    ]
    s = Session.open(write(tmp_path / "s.jsonl", objs))
    texts = {s.ids[i]: marker(s, s.entry(i)).text for i in range(1, len(s))}
    assert texts == {
        "m1": "model → openai/gpt-5",
        "t1": "thinking level → high",
        "x1": "context edit: user u1 omitted from the model's context",
        "l1": "label “start” on user u1",
        "n1": "session name: My run",
        "g1": "usage · summary · openai/gpt-5 · 1.2k tokens · $0.5000",
    }
    assert marker(s, s.entry(0)) is None  # a message is no marker
    html, md = export_html(s), export_markdown(s)
    assert "Model → <code>openai/gpt-5</code>" in html and "*Model → `openai/gpt-5`*" in md
    assert "Thinking level → <code>high</code>" in html and "*Thinking level → `high`*" in md
    assert 'Context edit: <a href="#e0"><code>user u1</code></a> omitted from the model&#x27;s context' in html
    assert "*Context edit: `user u1` omitted from the model's context*" in md
    assert "Session name: <code>My run</code>" in html
    assert "Usage · summary · <code>openai/gpt-5</code> · 1.2k tokens · $0.5000" in html


def test_message_titles_are_decided_once(tmp_path):
    from pitui.core.model.parts import role_title

    assert [role_title({"role": r}) for r in ("user", "assistant", "toolResult", "bashExecution", "system")] == [
        ("user", "user"), ("assistant", "assistant"), ("tool result", "tool"), ("bash", "tool"),
        ("system prompt", "system")]
    assert role_title({"role": "custom", "customType": "ext.note"}) == ("ext.note", "custom")
    assert role_title({"role": "weird"}) == ("weird", "other")
    bash = {"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 0, "cancelled": False,
            "truncated": False, "timestamp": 1}
    s = Session.open(write(tmp_path / "s.jsonl", [user("u1", None, 1, "go"), entry("message", "b1", "u1", 2,
                                                                                   message=bash)]))
    html, md = export_html(s), export_markdown(s)
    assert '<span class="role">Bash</span>' in html and "## Bash" in md
    assert '<span class="role">User</span>' in html and "## User" in md
