"""Drawing one block of the message pane: the entries it holds, each by the renderer of
its kind (``render.py``), with what the branch says about it (in the model's context or
not, a context edit's mark, its label). Runs on any thread: it holds the session and the
block, never the pane's changing state."""

from __future__ import annotations

import os
from typing import Any

from rich.style import Style
from rich.text import Text

from ...core.model.doctor import call_or_why
from ...core.model.notices import new_reasoning_drop
from ...core.model.parts import session_id_or_none
from ...core.model.entry_parts import (CUSTOM_ENTRY, CUSTOM_MESSAGE, AppEvent, AppInput, app_event, app_input,
                                       callbacks_by_call, marker, summary_parts)
from ...core.store.discovery import find_session_by_id
from ...core.read.session import Session
from ...core.text import clean, visible
from .branch_model import _Block
from .pieces import GIVE_ID, GIVE_TIME, file_link, render_content, render_header, render_marker
from .canvas import Out, _field, date_of, fmt_time
from .renderers import (message_header, render_assistant, render_bash_execution, render_branch_summary, render_compaction,
                     render_custom_entry, render_json_body, render_message, render_tool_results)

__all__ = ["EntryDrawer"]


class EntryDrawer:
    """Draws the blocks of one session (safe to run off the main thread: it holds the
    session and the block, never the pane's changing state)."""

    def __init__(self, session: Session):
        self.s = session
        self._session_files: dict[str, str | None] = {}  # session id -> its file, when found

    def _call_for(self, entry: int | None, msg: dict) -> dict | str | None:
        """The call of tool result ``entry`` (``msg``), or why there is none above it: its
        call is on another branch, or in no entry of the file (an orphan)."""
        if entry is None or self.s is None:
            return None
        return call_or_why(self.s, entry)

    def _message_of(self, index: int) -> dict:
        entry = self.s.entry(index)
        message = entry.get("message")
        if "pituiError" in entry or not isinstance(message, dict):
            return {
                "role": "toolResult",
                "toolCallId": None,
                "isError": True,
                "content": [],
                "pituiError": str(entry.get("pituiError") or f"line {self.s.linenos[index]} is not a message"),
            }
        return message

    def draw(self, blk: _Block, out: Out) -> None:
        session = self.s
        palette = out.p
        index = blk.entries[0]
        entry = session.entry(index)
        if out.ctx.text_mode:  # only the searchable text: no headers, gutters or times
            if blk.kind == "marker":
                self._draw_marker(out, index, entry, ())
            else:
                msg = entry.get("message") if isinstance(entry.get("message"), dict) else None
                self._draw_entry(out, blk, index, entry, msg, entry.get("type"), "", "", [])
            return
        when = session.timestamps[index]
        time = fmt_time(when, blk.prev_ts is None or date_of(when) != date_of(blk.prev_ts))
        eid = session.ids[index]
        right = [(time, palette.muted, GIVE_TIME), (eid, palette.faint, GIVE_ID)]
        if blk.kind == "marker":
            out.push("  ", Style())
            try:
                self._draw_marker(out, index, entry, right)
            finally:
                out.pop()
            return
        tags = []
        if blk.label:
            tags.append(("⚑ " + visible(blk.label), palette.label))
        if blk.mark == "omitted":
            tags.append(("omitted from context", palette.warning + Style(italic=True)))
        elif blk.mark == "edited":
            tags.append(("edited in context", palette.warning + Style(italic=True)))
        if not blk.in_context:
            tags.append(("outside context", palette.muted + Style(italic=True)))
        if blk.first_out:
            note = Text("┄┄ outside the model's context after compaction ┄┄", palette.muted + Style(italic=True))
            out.line(note, chrome=True)
        kind = entry.get("type")
        msg = entry.get("message") if isinstance(entry.get("message"), dict) else None
        if "pituiError" in entry:
            gutter = palette.warning
        elif blk.kind in ("assistant",):
            gutter = palette.assistant
        elif blk.kind == "results":
            gutter = palette.tool
        elif msg is not None:
            gutter = {"user": palette.user, "system": palette.system, "custom": palette.custom, "bashExecution": palette.tool}.get(
                msg.get("role"), palette.muted)
        elif kind == "custom_message":
            gutter = palette.custom
        elif kind in ("compaction", "branch_summary"):
            gutter = palette.summary
        else:
            gutter = palette.muted
        gutter = Style(color=gutter.color)
        if not blk.in_context:
            out.push("┆ ", palette.faint)
        else:
            out.push("▎ ", gutter)
        try:
            self._draw_entry(out, blk, index, entry, msg, kind, time, eid, tags)
        finally:
            out.pop()
        out.blank()

    def _draw_entry(self, out: Out, blk: _Block, index: int, entry: dict, msg: dict | None, kind: Any, time: str,
                    eid: str, tags: list) -> None:
        session = self.s
        palette = out.p
        right = [(time, palette.muted, GIVE_TIME), (eid, palette.faint, GIVE_ID)]
        key = f"e{index}"
        if "pituiError" in entry:
            render_header(out, "⚠ damaged entry", palette.warning + Style(bold=True), [(f"line {session.linenos[index]}", palette.muted)],
                          right, tags)
            out.wrap(Text(clean(entry.get("pituiError"), block=True), palette.warning))
            out.wrap(Text("Pi skips this line; it is shown here so nothing goes missing.", palette.muted), chrome=True)
            return
        if blk.kind == "assistant":
            message = msg or {}
            message_header(out, message, time=time, entry_id=eid, tags=tags)
            results = [(index, self._message_of(index)) for index in blk.entries[1:]]
            render_assistant(out, message, results, key, 0, self._call_for, callbacks_for=self._callbacks_for,
                             notice=new_reasoning_drop(session, index))
            return
        if blk.kind == "results":
            render_header(out, "tool results", palette.tool + Style(bold=True),
                          [("(their call is not right above)", palette.muted)], right, tags)
            results = [(index, self._message_of(index)) for index in blk.entries]
            render_tool_results(out, results, key, self._call_for)
            return
        draw = ENTRY_DRAW.get(kind) if isinstance(kind, str) else None
        (draw or EntryDrawer._draw_fields)(self, out, index, entry, msg, key, time, eid, right, tags)

    # Each entry type's drawing (:data:`ENTRY_DRAW`), all with one signature: the entry
    # ``i`` (``e``, its message ``msg`` when it has one), its fold key, time and id, the
    # header's right side and tags.
    def _draw_message(self, out: Out, index: int, entry: dict, msg: dict | None, key: str, time: str, eid: str,
                      right, tags) -> None:
        palette = out.p
        if msg is None:
            render_header(out, "message", palette.muted, [], right, tags)
            render_json_body(out, entry.get("message"), key)
            return
        role = msg.get("role")
        if role == "bashExecution":
            render_header(out, "! bash", palette.tool + Style(bold=True), [("run by the user", palette.muted)], right,
                          tags + ([("excluded from context", palette.muted + Style(italic=True))]
                                  if msg.get("excludeFromContext") else []))
            render_bash_execution(out, msg, key)
            return
        if role == "custom":
            self._custom(out, msg, right, tags)
            return
        message_header(out, msg, time=time, entry_id=eid, tags=tags)
        render_message(out, msg, key, (), 0, self._call_for)

    def _draw_custom_message(self, out: Out, index: int, entry: dict, msg: dict | None, key: str, time: str, eid: str,
                             right, tags) -> None:
        self._custom(out, entry, right, tags)

    def _custom(self, out: Out, item: dict, right, tags) -> None:
        """A custom message: a ``custom_message`` entry, or a message of role ``custom``
        (the same fields): an app's input, or a header and its content."""
        inp = app_input(item)
        if inp is not None:
            self._app_input(out, inp, item.get("display"), item.get("content"), right, tags)
            return
        self._custom_header(out, item.get("customType"), item.get("display"), right, tags)
        render_content(out, item.get("content"))

    def _draw_compaction(self, out: Out, index: int, entry: dict, msg: dict | None, key: str, time: str, eid: str,
                         right, tags) -> None:
        render_compaction(out, summary_parts(self.s, entry), key=key, right=right)
        if tags:
            render_header(out, "", out.p.muted, [], [], tags)

    def _draw_branch_summary(self, out: Out, index: int, entry: dict, msg: dict | None, key: str, time: str, eid: str,
                             right, tags) -> None:
        render_header(out, "branch summary", out.p.summary + Style(bold=True), [], right, tags)
        render_branch_summary(out, summary_parts(self.s, entry), key)

    def _draw_custom(self, out: Out, index: int, entry: dict, msg: dict | None, key: str, time: str, eid: str,
                     right, tags) -> None:
        palette = out.p
        ev = app_event(entry)
        if ev is not None:
            self._app_event(out, ev, key, right, tags)
            return
        render_header(out, CUSTOM_ENTRY, palette.custom + Style(bold=True),
                      [(str(entry.get("customType") or "?"), palette.custom)], right, tags)
        render_custom_entry(out, entry.get("data"), key)

    def _draw_fields(self, out: Out, index: int, entry: dict, msg: dict | None, key: str, time: str, eid: str,
                     right, tags) -> None:
        """An entry of a type drawn as a one-line marker block (branch_model.py), or unknown,
        should it stand as an entry of its own: its type and its fields."""
        render_header(out, str(entry.get("type")), out.p.muted + Style(bold=True), [], right, tags)
        render_json_body(out, {key: value for key, value in entry.items() if key not in ("type", "id", "parentId", "timestamp")}, key)

    def _custom_header(self, out: Out, ctype: Any, display: Any, right, tags) -> None:
        palette = out.p
        tags = list(tags)
        if display is False:
            tags.insert(0, ("hidden (display: false)", palette.muted + Style(italic=True)))
        render_header(out, CUSTOM_MESSAGE, palette.custom + Style(bold=True), [(str(ctype or "?"), palette.custom)], right, tags)

    # ------------------------------------------------------------ a Pi-based app's entries
    def _app_input(self, out: Out, inp: AppInput, display: Any, content: Any, right, tags) -> None:
        """Input another agent wrote reads as a user message from that agent; a callback's
        input (hidden by the app) as a custom message."""
        palette = out.p
        tags = list(tags)
        if display is False:
            tags.insert(0, ("hidden (display: false)", palette.muted + Style(italic=True)))
        style = palette.user if inp.kind == "agent" else palette.custom
        render_header(out, inp.title, style + Style(bold=True), [(fact, palette.muted) for fact in inp.facts], right, tags)
        render_content(out, content)
        self._session_link(out, inp.from_session)

    def _app_event(self, out: Out, ev: AppEvent, key: str, right, tags) -> None:
        """An interrupt is a marker on its turn; a callback says what it answered; any other
        event shows its payload."""
        palette = out.p
        marker = ev.marker
        if marker is not None:
            render_marker(out, marker.glyph, marker.text, palette.warning, right)
            if tags:
                render_header(out, "", palette.muted, [], [], tags)
            return
        render_header(out, ev.title, palette.custom + Style(bold=True),
                      [(fact, palette.muted) for fact in [ev.event_type if ev.title == "app event" else ""] + ev.facts if fact],
                      right, tags)
        if ev.event_type == "agent_callback":
            if ev.call_id and not out.ctx.text_mode:
                out.line(Text(f"resolves the call {_field(ev.call_id)}", palette.muted), chrome=True)
            if ev.message:
                out.markdown(ev.message)
            self._session_link(out, ev.from_session)
            return
        render_json_body(out, ev.payload, key)

    def _session_link(self, out: Out, session_id: str | None) -> None:
        """The session another agent wrote from: a link to open it when its file is here."""
        if out.ctx.text_mode or not session_id:
            return
        if session_id not in self._session_files:
            self._session_files[session_id] = find_session_by_id(self.s.path, session_id)
        file_link(out, "from session ", session_id, self._session_files[session_id])

    def _run_session_link(self, out: Out, entry: dict) -> None:
        """The session file an event stream's run says it wrote (get_state's sessionFile,
        its header's id): a link to open it when that file is here."""
        if out.ctx.text_mode:
            return
        file, sid = entry.get("sessionFile"), session_id_or_none(entry.get("sessionId"))
        key = f"file:{file}" if isinstance(file, str) else sid
        if key is None:
            return
        if key not in self._session_files:
            found = file if isinstance(file, str) and os.path.isfile(file) else None
            if found is None and sid is not None:
                found = find_session_by_id(self.s.path, sid)
            self._session_files[key] = found
        found = self._session_files[key]
        if found:
            # (what opens it first: a long name is cut at the pane's edge)
            text = Text("  ⏎ open", out.p.tool)
            text.append(" session file ", out.p.muted)
            text.append(_field(os.path.basename(found)), out.p.link)
            out.line(text, chrome=True, action=("open", found))

    def _callbacks_for(self, call_id: str) -> list[tuple[str, AppEvent]]:
        """The callbacks that resolve tool call ``call_id``, each with its time."""
        session = self.s
        return [(fmt_time(session.timestamps[index]), ev) for index, ev in callbacks_by_call(session).get(call_id, ())]

    def _draw_marker(self, out: Out, index: int, entry: dict, right) -> None:
        palette = out.p
        session = self.s
        kind = entry.get("type")
        if "pituiError" in entry:
            render_marker(out, "⚠", f"damaged line {session.linenos[index]}: {entry.get('pituiError')}", palette.warning, right)
        elif (found := marker(session, entry)) is not None:
            render_marker(out, found.glyph, found.text, palette.warning if found.tone == "warning" else palette.muted, right)
            if kind == "stream_event":
                self._run_session_link(out, entry)
        else:
            render_marker(out, "·", str(kind), palette.muted, right)


#: Each entry type's drawing as an entry block (every type in
#: :data:`~pitui.core.read.skeleton.ENTRY_TYPES`: a new type is a row here and in the
#: exports' tables; tests/core/test_entry_kinds.py). The one-line types are marker blocks
#: (branch_model.py, drawn by ``_draw_marker``), never entry blocks.
ENTRY_DRAW = {
    "message": EntryDrawer._draw_message,
    "compaction": EntryDrawer._draw_compaction,
    "branch_summary": EntryDrawer._draw_branch_summary,
    "custom_message": EntryDrawer._draw_custom_message,
    "custom": EntryDrawer._draw_custom,
    "model_change": EntryDrawer._draw_fields,
    "thinking_level_change": EntryDrawer._draw_fields,
    "context_edit": EntryDrawer._draw_fields,
    "label": EntryDrawer._draw_fields,
    "session_info": EntryDrawer._draw_fields,
    "usage": EntryDrawer._draw_fields,
    "stream_event": EntryDrawer._draw_fields,
}
