"""Two Pi event streams saved in the blog's sessions folder, record for record as Pi 1.5.2's
``json.md`` gives them (pitui opens them as sessions: ``pitui/core/read/stream.py``):

- ``editor-rpc-log.jsonl``: an editor integration's ``pi --mode rpc`` log, no header: its
  ``get_state`` and ``prompt`` responses and two prompts' runs in one conversation;
- ``headless-link-check.jsonl``: ``pi -p --mode json "…"`` run from a script, its output
  saved: the session header, then the run's events, an overloaded provider retried on the
  way.

And one file that is neither: an evaluation tool's results (``EVAL_RESULTS``), listed as
not a session.
"""

from __future__ import annotations

from tools import piwriter
from tools.demo.models import GEMINI, usage_obj
from tools.demo.places import BLOG
from tools.demo.story_blog import BUILD_PY


def _assistant(content: list, ts: int, stop: str, inp: int, out: int, cached: int = 0) -> dict:
    return piwriter.assistant_message(content, api=GEMINI.api, provider=GEMINI.provider, model=GEMINI.id,
                                      usage=usage_obj(GEMINI, inp, out, cached, 0), stop_reason=stop, timestamp=ts)


def _message(msg: dict) -> list[dict]:
    """A message's records: an assistant's streamed (its text blocks as deltas, its tool
    calls as they end), any other one started and ended."""
    recs: list[dict] = []
    if msg["role"] == "assistant":
        u = msg["usage"]
        recs.append({"type": "message_start", "message": {**msg, "content": [], "stopReason": "stop"}})
        for k, block in enumerate(msg["content"]):
            if block["type"] == "text":
                text = block["text"]
                cut = len(text) // 2
                recs.append({"type": "message_update", "usage": u,
                             "assistantMessageEvent": {"type": "text_start", "contentIndex": k}})
                for delta in (text[:cut], text[cut:]):
                    recs.append({"type": "message_update", "usage": u, "assistantMessageEvent": {
                        "type": "text_delta", "contentIndex": k, "delta": delta}})
                recs.append({"type": "message_update", "usage": u,
                             "assistantMessageEvent": {"type": "text_end", "contentIndex": k, "content": text}})
            elif block["type"] == "toolCall":
                recs.append({"type": "message_update", "usage": u, "assistantMessageEvent": {
                    "type": "toolcall_start", "contentIndex": k, "id": block["id"], "toolName": block["name"]}})
                recs.append({"type": "message_update", "usage": u, "assistantMessageEvent": {
                    "type": "toolcall_end", "contentIndex": k, "toolCall": block}})
    else:
        recs.append({"type": "message_start", "message": msg})
    recs.append({"type": "message_end", "message": msg})
    return recs


def _tool(call: dict, text: str, ts: int, duration: int) -> tuple[list[dict], dict]:
    """A tool call's execution records and its result message."""
    result = piwriter.tool_result_message(call["id"], call["name"], [piwriter.text_block(text)], is_error=False,
                                          timestamp=ts, duration_ms=duration)
    recs = [{"type": "tool_execution_start", "toolCallId": call["id"], "toolName": call["name"],
             "args": call["arguments"]},
            {"type": "tool_execution_end", "toolCallId": call["id"], "toolName": call["name"],
             "result": {"content": result["content"], "details": {}}, "isError": False, "durationMs": duration}]
    return recs + _message(result), result


def _run(prompt: str, t0: int, call: dict, output: str, answer: str, *, retry: bool = False) -> list[dict]:
    """One prompt's run: the prompt, one tool call and its result, the answer."""
    asked = piwriter.user_message(prompt, t0)
    recs: list[dict] = [{"type": "agent_start"}, {"type": "turn_start"}] + _message(asked)
    if retry:
        recs.append({"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "delayMs": 2000,
                     "errorMessage": "503 The model is overloaded. Please try again later."})
        recs.append({"type": "auto_retry_end", "success": True, "attempt": 1})
    first = _assistant([call], t0 + 1523, "toolUse", 2310, 41)
    recs += _message(first)
    tool_recs, result = _tool(call, output, t0 + 1531, 8)
    recs += tool_recs
    recs.append({"type": "turn_end", "message": first, "toolResults": [result]})
    last = _assistant([piwriter.text_block(answer)], t0 + 4870, "stop", 2795, 96, 2048)
    recs += [{"type": "turn_start"}] + _message(last)
    recs.append({"type": "turn_end", "message": last, "toolResults": []})
    recs.append({"type": "agent_end", "messages": [asked, first, result, last], "willRetry": False})
    recs.append({"type": "agent_settled", "aborted": False})
    return recs


def editor_rpc_log() -> list[dict]:
    t0 = 1795194760481  # (2026-11-20 17:12, before the blog session: the demo opens that, the newest)
    state = {"model": {"provider": GEMINI.provider, "id": GEMINI.id}, "thinkingLevel": "medium",
             "isStreaming": False, "sessionId": "01a1fa7f-3c20-7d41-9e6a-2b8c0f5d7e13", "messageCount": 0}
    recs: list[dict] = [{"id": "req-1", "type": "response", "command": "get_state", "success": True, "data": state},
                        {"id": "req-2", "type": "response", "command": "prompt", "success": True}]
    recs += _run("Summarize what build.py does in two sentences.", t0,
                 piwriter.tool_call_block("read_1795194762004_0", "read", {"path": "build.py"}), BUILD_PY,
                 "build.py turns the Markdown posts in posts/ into HTML pages in public/. It also writes an RSS "
                 "feed, public/feed.xml.")
    recs.append({"id": "req-3", "type": "response", "command": "prompt", "success": True})
    recs += _run("Which function writes feed.xml?", t0 + 95_000,
                 piwriter.tool_call_block("grep_1795194856581_0", "grep", {"pattern": "feed.xml", "path": "build.py"}),
                 "build.py:61:    (OUT / \"feed.xml\").write_text(rss(posts))",
                 "`main()` writes it, with the text `rss(posts)` builds.")
    return recs


def headless_run() -> list[dict]:
    t0 = 1795159821907  # (2026-11-20 07:30, a morning job)
    header = piwriter.header("01a1fa9d-8e51-7b02-a3c4-6d1e2f9b0c57", piwriter.iso(t0 - 412), BLOG)
    recs: list[dict] = [header]
    recs += _run("Check every post for internal links that point nowhere; list them, change nothing.", t0,
                 piwriter.tool_call_block("bash_1795159823430_0", "bash", {
                     "command": "grep -on '](/posts/[a-z0-9-]*)' posts/*.md | sort -u"}),
                 "posts/cast-iron-care.md:12:](/posts/seasoning-101)\nposts/airpress-vs-v60.md:3:](/posts/v60)\n",
                 "Two internal links point nowhere:\n\n- `posts/cast-iron-care.md:12` links `/posts/seasoning-101`\n"
                 "- `posts/airpress-vs-v60.md:3` links `/posts/v60`\n\nI changed nothing.", retry=True)
    return recs


#: not a Pi file at all: an evaluation tool's results, saved beside the shop's sessions
EVAL_RESULTS = [
    {"case": "checkout-applies-coupon", "model": "claude-sonnet-4-5", "passed": True, "seconds": 41.2},
    {"case": "checkout-rejects-expired-coupon", "model": "claude-sonnet-4-5", "passed": False, "seconds": 63.9},
]

EDITOR_RPC_LOG = editor_rpc_log()
HEADLESS_RUN = headless_run()
