"""Small builders for synthetic Pi session files used across tests."""

from __future__ import annotations

import json
from pathlib import Path

HEADER = {"type": "session", "version": 3, "id": "sess-1", "timestamp": "2026-11-20T10:00:00.000Z", "cwd": "/home/u/proj"}


def ts(n: int) -> str:
    """An entry timestamp n seconds after 2026-11-20T10:00:00Z."""
    h, rem = divmod(n, 3600)
    m, s = divmod(rem, 60)
    return f"2026-11-20T{10 + h:02d}:{m:02d}:{s:02d}.000Z"


def line(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def user(eid, parent, n, text="hello"):
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": ts(n),
            "message": {"role": "user", "content": text, "timestamp": 1795168800000 + n * 1000}}


def assistant(eid, parent, n, text="hi", model="claude-sonnet-4-5", content=None, **extra):
    msg = {"role": "assistant", "content": content if content is not None else [{"type": "text", "text": text}],
           "api": "anthropic-messages", "provider": "anthropic", "model": model,
           "usage": {"input": 10, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 30,
                     "cost": {"input": 0.01, "output": 0.02, "cacheRead": 0, "cacheWrite": 0, "total": 0.03}},
           "stopReason": "stop", "timestamp": 1795168800000 + n * 1000}
    msg.update(extra)
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": ts(n), "message": msg}


def entry(etype, eid, parent, n, **fields):
    return {"type": etype, "id": eid, "parentId": parent, "timestamp": ts(n), **fields}


def write(path: Path, objs, header=HEADER, trailing_newline=True) -> Path:
    lines = ([line(header)] if header is not None else []) + [o if isinstance(o, str) else line(o) for o in objs]
    text = "\n".join(lines) + ("\n" if trailing_newline else "")
    path.write_text(text, encoding="utf-8")
    return path


def bare_pane_app():
    """A new app holding only the message pane, showing nothing until the test asks, and
    drawing every block at once (no "drawing…" placeholders racing the test)."""
    from textual.app import App, ComposeResult

    from pitui.ui.pane import MessagePane

    class BarePaneApp(App):
        CSS = "MessagePane { height: 1fr; }"

        def compose(self) -> ComposeResult:
            yield MessagePane(id="pane")

        def on_mount(self) -> None:
            self.query_one(MessagePane).async_bytes = None

        @property
        def pane(self) -> MessagePane:
            return self.query_one(MessagePane)

    return BarePaneApp()
