"""What the model saw at an entry: Pi's ``buildSessionContext`` there, drawn with the
pane's renderers (compaction applied, context edits applied)."""

from __future__ import annotations

import builtins
from typing import Any, Hashable

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ...core.model.context import build_context, context_entry_indices, project_entry
from ...core.read.session import Session
from ..pane.canvas import CUT_LINES, fmt_time, Out
from ..pane.renderers import group_messages, message_header, render_message
from ..pane.scroller import BlockScroller
from ..bindings import bindings_for
from ...core.text import visible

__all__ = ["ContextScreen", "ContextView"]


def _size(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list):
        return sum(_size(item) for item in value)
    if isinstance(value, dict):
        return sum(_size(item) for key, item in value.items() if key not in ("data", "thinkingSignature"))
    return 8


def _sources(session: Session, entry: int) -> list[tuple[str, str | None]] | None:
    """For each context message, the entry it came from and whether a context edit changed
    it (the same walk as ``build_context``; None if that cannot be told)."""
    try:
        _, selected = context_entry_indices(session, entry)
        types, ids = session.types, session.ids
        edits: dict[str, dict] = {}
        for index in selected:
            if types[index] == "context_edit":
                obj = session.entry(index)
                target = obj.get("targetId")
                edits[target if isinstance(target, str) else str(target)] = obj
        out: list[tuple[str, str | None]] = []
        for position, index in enumerate(selected):
            if position > 0 and types[index] == "compaction":
                continue
            edit = edits.get(ids[index])
            for _ in project_entry(session.entry(index), edit):
                out.append((ids[index], "edited" if edit is not None else None))
        return out
    except Exception:
        return None


class ContextView(BlockScroller):
    """A list of context messages (an assistant message with its tool results is one block)."""

    BINDINGS = bindings_for("context_view")

    DEFAULT_CSS = """
    ContextView {
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
    }
    """

    def __init__(self, messages: list[Any], sources: list[tuple[str, str | None]] | None = None, *,
                 id: str | None = None):
        super().__init__(id=id)
        msgs = [message for message in messages if isinstance(message, dict)]
        # where each message came from: (entry id, "edited" | "omitted" | None)
        self._source_of = (
            {builtins.id(message): src for message, src in zip(msgs, sources)} if sources and len(sources) == len(msgs) else {}
        )
        self._groups = group_messages(msgs)
        self._set_blocks(list(range(len(self._groups))))
        self._sizes = [_size(message) + sum(_size(result) for result in res) for message, res in self._groups]

    def _block_key(self, block: int) -> Hashable:
        return ("ctx", block)

    def _block_cost(self, block: int) -> int:
        message, res = self._groups[block]
        return _size(message) + (sum(_size(result) for result in res) if self.full_tool_output else 0)

    def _estimate(self, block: int, width: int) -> int:
        message, res = self._groups[block]
        inner = max(20, width - 4)
        return 2 + min(40, self._sizes[block] // (inner * 2) + 1) + len(res) * (CUT_LINES // 2 + 1)

    def _draw_item(self, block: int, out: Out) -> None:
        palette = out.p
        message, res = self._groups[block]
        role = message.get("role")
        gutter = {"user": palette.user, "assistant": palette.assistant, "toolResult": palette.tool, "bashExecution": palette.tool,
                  "system": palette.system, "custom": palette.custom, "branchSummary": palette.summary,
                  "compactionSummary": palette.summary}.get(role, palette.muted)
        out.push("▎ ", Style(color=gutter.color))
        try:
            ts = message.get("timestamp")
            src = self._source_of.get(id(message))
            tags = [("edited in context", palette.warning + Style(italic=True))] if src and src[1] == "edited" else []
            if role != "compactionSummary":
                message_header(out, message, time=fmt_time(ts) if ts else "", entry_id=src[0] if src else f"#{block + 1}",
                               tags=tags)
            render_message(out, message, f"c{block}", [(None, result) for result in res], 0)
        finally:
            out.pop()
        out.blank()


class ContextScreen(ModalScreen):
    """Exactly what the model saw at ``entry``: thinking level, model and every message."""

    BINDINGS = bindings_for("context")

    DEFAULT_CSS = """
    ContextScreen {
        align: center middle;
    }
    ContextScreen > #context-box {
        width: 100%;
        height: 100%;
        border: round $primary;
        background: $surface;
        padding: 0 1;
    }
    ContextScreen #context-title {
        height: auto;
        color: $text;
        text-style: bold;
    }
    ContextScreen #context-note {
        height: auto;
        color: $text-muted;
    }
    ContextScreen ContextView {
        height: 1fr;
        background: $surface;
    }
    """

    def __init__(self, session: Session, entry: int, *, name: str | None = None, id: str | None = None):
        super().__init__(name=name, id=id)
        self.session = session
        self.entry = entry
        self.context = build_context(session, entry)
        self.sources = _sources(session, entry)

    def compose(self) -> ComposeResult:
        ctx = self.context
        msgs = ctx.get("messages") or []
        model = ctx.get("model") or {}
        model_s = f"{model.get('provider')}/{model.get('modelId')}" if isinstance(model, dict) and model else "(none)"
        level = ctx.get("thinkingLevel", "(unset)")
        eid = self.session.ids[self.entry] if 0 <= self.entry < len(self.session) else "?"
        title = Text()
        title.append("What the model saw at ")
        title.append(visible(eid), Style(bold=True))
        note = Text()
        note.append(f"{len(msgs)} message{'s' if len(msgs) != 1 else ''}")
        note.append(" · model ")
        note.append(visible(model_s), Style(bold=True))
        note.append(" · thinking ")
        note.append(visible(level), Style(bold=True))
        note.append(" · compaction and context edits applied · t thinking · o output · Esc closes")
        with Vertical(id="context-box"):
            yield Static(title, id="context-title")
            yield Static(note, id="context-note")
            yield ContextView(msgs, self.sources, id="context-view")

    def on_mount(self) -> None:
        self.query_one(ContextView).focus()

    def action_close(self) -> None:
        self.dismiss()
