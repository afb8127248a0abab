"""The exports treat a subagent's output and thinking as the pane does: as Markdown (the
HTML renders it, the Markdown export keeps it as Markdown rather than in a code fence)."""

from __future__ import annotations

from helpers import _ms, assistant, entry, user, write
from pitui.core.export.html import export_html
from pitui.core.export.markdown import export_markdown
from pitui.core.read.session import Session
from tools import piwriter

OUTPUT = "Root causes:\n\n1. **orders**: `_sequence` is module state."
THINKING = "The **usage count** is state."


def session(tmp_path) -> Session:
    call = piwriter.tool_call_block("c1", "subagent", {"agent": "scout", "task": "look"})
    run = {"agent": "scout", "task": "look", "exitCode": 0, "messages": []}
    result = piwriter.tool_result_message("c1", "subagent", [piwriter.text_block(OUTPUT)], is_error=False,
                                          timestamp=_ms(3), details={"mode": "single", "results": [run]})
    content = [piwriter.thinking_block(THINKING), call]
    return Session.open(write(tmp_path / "s.jsonl", [
        user("u1", None, 1, "go"),
        assistant("a1", "u1", 2, content=content, stopReason="toolUse"),
        entry("message", "r1", "a1", 3, message=result),
    ]))


def test_html_renders_subagent_output_and_thinking_as_markdown(tmp_path):
    page = export_html(session(tmp_path))
    assert "<strong>orders</strong>: <code>_sequence</code> is module state." in page
    assert "<strong>usage count</strong>" in page
    assert "**orders**" not in page and "**usage count**" not in page


def test_markdown_export_keeps_subagent_output_as_markdown(tmp_path):
    md = export_markdown(session(tmp_path))
    assert "\n" + OUTPUT + "\n" in md  # as written, not inside a code fence
    before = md[: md.index(OUTPUT)].rstrip()
    assert not before.endswith("```")
    assert THINKING in md
