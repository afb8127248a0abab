"""Event streams of ``pi --mode json`` and ``pi --mode rpc`` for the tests, record for record
as Pi 1.5.2's ``json.md`` gives them (JSON as ``JSON.stringify`` writes it: compact, keys
in Pi's order)."""

from __future__ import annotations

import json

USAGE = {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120,
         "cost": {"input": 0.0003, "output": 0.0003, "cacheRead": 0, "cacheWrite": 0, "total": 0.0006}}
HEADER = {"type": "session", "version": 3, "id": "0195f3a2-1111-7000-8000-00000000abcd",
          "timestamp": "2026-07-01T10:00:00.000Z", "cwd": "/home/demo/blog"}


def line(rec: dict) -> str:
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False) + "\n"


def user(text: str, ts: int) -> dict:
    return {"role": "user", "content": text, "timestamp": ts}


def assistant(content: list, ts: int, stop: str = "stop", **more) -> dict:
    return {"role": "assistant", "content": content, "api": "anthropic-messages", "provider": "anthropic",
            "model": "claude-sonnet-4-5", "usage": USAGE, "stopReason": stop, "timestamp": ts, **more}


def tool_result(tcid: str, name: str, text: str, ts: int, is_error: bool = False) -> dict:
    return {"role": "toolResult", "toolCallId": tcid, "toolName": name, "content": [{"type": "text", "text": text}],
            "details": {}, "isError": is_error, "timestamp": ts}


def message(msg: dict) -> list[dict]:
    """message_start and message_end of a message (an assistant's with its text deltas)."""
    out = []
    if msg["role"] == "assistant":
        out.append({"type": "message_start", "message": {**msg, "content": [], "stopReason": "pending"}})
        for k, block in enumerate(msg["content"]):
            if block["type"] == "text":
                out.append({"type": "message_update", "usage": USAGE,
                            "assistantMessageEvent": {"type": "text_start", "contentIndex": k}})
                out.append({"type": "message_update", "usage": USAGE,
                            "assistantMessageEvent": {"type": "text_delta", "contentIndex": k, "delta": block["text"]}})
                out.append({"type": "message_update", "usage": USAGE,
                            "assistantMessageEvent": {"type": "text_end", "contentIndex": k, "content": block["text"]}})
    else:
        out.append({"type": "message_start", "message": msg})
    out.append({"type": "message_end", "message": msg})
    return out


def run(prompt: str, t0: int, *, tool: bool = True) -> list[dict]:
    """One prompt's run: the user's message, a bash call and its result, the answer."""
    recs: list[dict] = [{"type": "agent_start"}, {"type": "turn_start"}]
    recs += message(user(prompt, t0))
    calls = []
    if tool:
        call = {"type": "toolCall", "id": f"call_{t0}", "name": "bash", "arguments": {"command": "ls posts"}}
        first = assistant([{"type": "text", "text": "Let me look."}, call], t0 + 1000, "toolUse")
        recs += message(first)
        recs.append({"type": "tool_execution_start", "toolCallId": call["id"], "toolName": "bash",
                     "args": call["arguments"]})
        result = tool_result(call["id"], "bash", "hello.md\nworld.md", t0 + 2000)
        recs.append({"type": "tool_execution_end", "toolCallId": call["id"], "toolName": "bash",
                     "result": {"content": result["content"], "details": {}}, "isError": False, "durationMs": 42})
        recs += message(result)
        recs.append({"type": "turn_end", "message": first, "toolResults": [result]})
        recs.append({"type": "turn_start"})
        calls = [first, result]
    answer = assistant([{"type": "text", "text": f"Answer to: {prompt}"}], t0 + 3000)
    recs += message(answer)
    recs.append({"type": "turn_end", "message": answer, "toolResults": []})
    recs.append({"type": "agent_end", "messages": [user(prompt, t0)] + calls + [answer], "willRetry": False})
    recs.append({"type": "agent_settled", "aborted": False})
    return recs


def json_stream(prompt: str = "List the posts", t0: int = 1782900000000) -> str:
    return "".join(line(r) for r in [HEADER] + run(prompt, t0))


def rpc_log(prompts: tuple[str, ...] = ("First question", "Second question"), t0: int = 1782900000000,
            session_file: str | None = None) -> str:
    state = {"model": None, "thinkingLevel": "medium", "isStreaming": False, "sessionId": HEADER["id"],
             "messageCount": 0}
    if session_file is not None:
        state["sessionFile"] = session_file
    recs: list[dict] = [{"id": "req-1", "type": "response", "command": "get_state", "success": True, "data": state}]
    for k, p in enumerate(prompts):
        recs.append({"id": f"req-{k + 2}", "type": "response", "command": "prompt", "success": True})
        recs += run(p, t0 + k * 60_000, tool=k == 0)
    return "".join(line(r) for r in recs)
