"""Not a session: an editor integration's RPC event log that ended up in the sessions
folder. Its first line is an RPC response, not a session header, so Pi refuses it."""

EDITOR_RPC_LOG = [
    {
        "id": "req-1",
        "type": "response",
        "command": "get_state",
        "success": True,
        "data": {"isStreaming": False, "thinkingLevel": "medium", "messageCount": 0},
    },
    {"id": "req-2", "type": "response", "command": "prompt", "success": True},
    {"type": "agent_start"},
    {"type": "turn_start"},
    {
        "type": "message_start",
        "message": {
            "role": "user",
            "content": "Summarize what build.py does in two sentences.",
            "timestamp": 1795203310481,
        },
    },
    {
        "type": "message_end",
        "message": {
            "role": "user",
            "content": "Summarize what build.py does in two sentences.",
            "timestamp": 1795203310481,
        },
    },
    {
        "type": "tool_execution_start",
        "toolCallId": "read_1795203312004_0",
        "toolName": "read",
        "args": {"path": "build.py"},
    },
    {
        "type": "tool_execution_end",
        "toolCallId": "read_1795203312004_0",
        "toolName": "read",
        "result": {
            "content": [
                {
                    "type": "text",
                    "text": '"""Build the blog: Markdown posts in posts/ -> HTML in public/, plus an RSS feed."""\n...',
                }
            ],
            "details": {},
        },
        "isError": False,
        "durationMs": 3,
    },
    {"type": "turn_end", "message": {"role": "assistant", "stopReason": "stop"}, "toolResults": []},
    {"type": "agent_end", "messages": [], "willRetry": False},
    {"type": "agent_settled", "aborted": False},
]
