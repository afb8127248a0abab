"""A Pi event stream's records made into the session entries Pi would have written: the
output of ``pi --mode json`` (a session header, then events) or a saved ``pi --mode rpc``
log (responses and events, no header), rebuilt by :class:`StreamBuilder`:

- ``message_end`` gives each message as Pi finished it; ``message_start`` and the
  ``message_update`` deltas are used only for a message that never ended, which is shown
  as interrupted (``stopReason: "aborted"`` and an ``errorMessage`` saying so);
- ``tool_execution_end`` gives a tool result its ``durationMs`` and ``isError``; a result
  whose ``toolResult`` message never came is made from it;
- a compaction that succeeded is a compaction entry; thinking-level and name changes
  and the entries extensions append are the session entries Pi would have written; so is
  the ``bashExecution`` message of a command the user ran through RPC (its output, exit
  code and all but the command itself, which went to Pi's stdin);
- the results of tools called together are kept in the order of their ``toolResult``
  messages (the calls' order), not the order the tools ended in; an entry appended to the
  session file names entries by the file's ids, which are mapped to the rebuilt ones;
- everything else a run says (its outcome at ``agent_end``, retries, queues, compactions
  that failed or were aborted, RPC responses, extension errors) is a ``stream_event``
  entry: a one-line marker (:func:`pitui.core.model.entry_parts.marker`).

Every entry hangs below the previous one: a run is one linear branch, and the prompts of
one RPC process continue one conversation (the agent keeps its context between them, as
the session file Pi writes for them does), so they make one chain too. A command that
starts another session (``new_session``, ``switch_session``, ``fork``, ``clone``) starts
a new root.

:class:`~pitui.core.read.stream.StreamSession` reads a stream with it.
"""

from __future__ import annotations

import math
from typing import Any

import orjson

from .sniff import kind_of_records
from ..timeutil import ms_to_iso

__all__ = ["StreamBuilder", "STREAM_EVENT", "describe"]

#: the type of the entries that hold what a stream says besides messages
STREAM_EVENT = "stream_event"

# RPC commands after which the process works on another session
_NEW_SESSION_COMMANDS = frozenset({"new_session", "switch_session", "fork", "clone"})
# records that say nothing the rebuilt conversation does not already show
_QUIET = frozenset({"agent_start", "turn_start", "turn_end", "message_update", "tool_execution_update",
                    "bash_execution_update", "summarization_retry_finished"})


# a streaming message's deltas: the kind of block each adds to, and the field it grows
_DELTA_KIND = {"text_delta": "text", "thinking_delta": "thinking", "toolcall_delta": "toolCall"}
_DELTA_FIELD = {"text": "text", "thinking": "thinking", "toolCall": "_json"}
_START_KIND = {"text_start": "text", "thinking_start": "thinking"}


def _empty_block(kind: str) -> dict:
    """A content block of ``kind`` before its deltas (a tool call's arguments grow as JSON text)."""
    if kind == "toolCall":
        return {"type": "toolCall", "arguments": {}, "_json": ""}
    return {"type": kind, kind: ""}


def _num(value: Any) -> float | None:
    return float(value) if type(value) in (int, float) and math.isfinite(value) else None


def _secs(ms: Any) -> str:
    number = _num(ms)
    if number is None:
        return "?"
    return f"{number / 1000:.1f}s" if number < 10_000 else f"{round(number / 1000)}s"


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else orjson.dumps(value).decode() if value is not None else ""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _last_assistant(messages: Any) -> dict | None:
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            return message
    return None


def _tokens(usage: Any) -> str:
    if not isinstance(usage, dict):
        return ""
    total = _num(usage.get("totalTokens"))
    if total is None:
        return ""
    return f"{int(total):,} tokens"


def describe(rec: dict, last_assistant: dict | None) -> tuple[str, str] | None:
    """What record ``rec`` says, as ``(text, tone)`` (tone ``"muted"`` or ``"warning"``);
    None when it says nothing worth a marker. ``last_assistant``: the run's last assistant
    message, for an ``agent_end`` that lists no messages."""
    kind = rec.get("type")
    if kind == "agent_end":
        message = _last_assistant(rec.get("messages")) or last_assistant
        bits = ["run ended"]
        warn = False
        if message is None:
            bits.append("no reply")
        else:
            stop = message.get("stopReason")
            err = message.get("errorMessage")
            ok = stop in ("stop", "toolUse", None) and not err
            warn = not ok
            bits.append("ok" if ok else "not ok")
            if isinstance(stop, str):
                bits.append(f"stopReason {stop}")
            if err:
                bits.append(f"error: {_short(err)}")
            tok = _tokens(message.get("usage"))
            if tok:
                bits.append(tok)
        if rec.get("willRetry") is True:
            bits.append("will retry")
        return " · ".join(bits), "warning" if warn else "muted"
    if kind == "agent_settled":
        return ("settled: the run was aborted", "warning") if rec.get("aborted") is True else None
    if kind == "auto_retry_start":
        return (f"retry {rec.get('attempt', '?')}/{rec.get('maxAttempts', '?')} in {_secs(rec.get('delayMs'))}: "
                f"{_short(rec.get('errorMessage'))}", "warning")
    if kind == "auto_retry_end":
        if rec.get("success") is True:
            return f"retry succeeded (attempt {rec.get('attempt', '?')})", "muted"
        return f"retries failed: {_short(rec.get('finalError'))}", "warning"
    if kind in ("compaction_start", "auto_compaction_start"):
        return f"compaction started ({_short(rec.get('reason') or '?')})", "muted"
    if kind in ("compaction_end", "auto_compaction_end"):
        if rec.get("aborted") is True:
            return "compaction aborted", "warning"
        return f"compaction failed: {_short(rec.get('errorMessage') or 'no result')}", "warning"
    if kind == "summarization_retry_scheduled":
        return (f"summary retry {rec.get('attempt', '?')}/{rec.get('maxAttempts', '?')} in {_secs(rec.get('delayMs'))}: "
                f"{_short(rec.get('errorMessage'))}", "warning")
    if kind == "summarization_retry_attempt_start":
        return f"summary retried ({_short(rec.get('source') or '?')})", "muted"
    if kind == "queue_update":
        steering = rec.get("steering") if isinstance(rec.get("steering"), list) else []
        follow = rec.get("followUp") if isinstance(rec.get("followUp"), list) else []
        text = f"queue: {len(steering)} steering, {len(follow)} follow-up"
        queued = [_short(item, 60) for item in steering + follow]
        if queued:
            text += ": " + " | ".join(queued)
        return text, "muted"
    if kind == "extension_error":
        return (f"extension error in {_short(rec.get('extensionPath'))} ({_short(rec.get('event'))}): "
                f"{_short(rec.get('error'))}", "warning")
    if kind == "response":
        cmd = _short(rec.get("command") or "?", 60)
        if rec.get("success") is False:
            return f"RPC {cmd}: failed: {_short(rec.get('error'))}", "warning"
        data = rec.get("data") if isinstance(rec.get("data"), dict) else {}
        if cmd == "get_state":
            bits = [f"RPC {cmd}"]
            for key in ("sessionFile", "sessionId", "thinkingLevel"):
                if isinstance(data.get(key), str):
                    bits.append(f"{key} {_short(data[key])}")
            return " · ".join(bits), "muted"
        return f"RPC {cmd}: ok", "muted"
    if kind in _QUIET or kind in ("message_start", "message_end", "tool_execution_start", "tool_execution_end",
                                  "entry_appended", "session_info_changed", "thinking_level_changed"):
        return None
    return f"{_short(kind, 60)} {_short({key: value for key, value in rec.items() if key != 'type'}, 100)}", "muted"


class StreamBuilder:
    """Stream records in, session entries out, as they come (see the module's text).
    :meth:`add` takes each record; :meth:`entries` gives the entries so far, with any
    message still open shown as interrupted."""

    def __init__(self) -> None:
        #: (entry, line of the record that gave it, the record's bytes)
        self.out: list[tuple[dict, int, bytes]] = []
        self.last_id: str | None = None
        self.last_ts: str | None = None
        self.header: dict | None = None
        self.kind: str | None = None  # STREAM or RPC_LOG, once known
        self.first_types: list[str | None] = []
        #: session files the run names (its header's id, get_state's sessionFile)
        self.session_files: list[str] = []
        self.session_ids: list[str] = []
        self._open: dict | None = None  # the message started and not ended: its parts
        # tool call id -> what tool_execution_* said, and "order": when it was first named
        self._tools: dict[str, dict] = {}
        # tool call id -> (the result made from tool_execution_end, its line, bytes, id):
        # shown until its toolResult message ends, which takes its place (see _tool_end)
        self._pending: dict[str, tuple[dict, int, bytes, str]] = {}
        # session-file entry id -> the id of the entry rebuilt for it (see _appended)
        self._alias: dict[str, str] = {}
        self._last_kept: str | None = None  # the last entry that Pi's session file has too
        self._last_assistant: dict | None = None
        self._ids: set[str] = set()

    # ------------------------------------------------------------ entries
    def _new_id(self, line: int) -> str:
        eid = f"L{line}"
        number = 1
        while eid in self._ids:
            number += 1
            eid = f"L{line}.{number}"
        self._ids.add(eid)
        return eid

    def _append(self, entry: dict, line: int, raw: bytes, eid: str | None = None) -> int:
        stamp = entry.pop("timestamp", None)
        stored = {"type": entry.pop("type"), "id": eid or self._new_id(line), "parentId": self.last_id,
                  "timestamp": stamp if isinstance(stamp, str) else self.last_ts}
        stored.update(entry)
        self.last_id = stored["id"]
        if stored["type"] != STREAM_EVENT:
            self._last_kept = stored["id"]
        if isinstance(stored["timestamp"], str):
            self.last_ts = stored["timestamp"]
        self.out.append((stored, line, raw))
        return len(self.out) - 1

    def _event(self, rec: dict, line: int, raw: bytes, text: str, tone: str, **more: Any) -> None:
        self._append({"type": STREAM_EVENT, "event": rec.get("type"), "text": text, "tone": tone, **more,
                      "record": rec}, line, raw)

    def _message(self, msg: dict, line: int, raw: bytes, eid: str | None = None) -> int:
        ts = _num(msg.get("timestamp"))
        stamp = ms_to_iso(ts) if ts is not None else None
        if msg.get("role") == "assistant":
            self._last_assistant = msg
        return self._append({"type": "message", "timestamp": stamp, "message": msg}, line, raw, eid)

    # ------------------------------------------------------------ records
    def add(self, rec: Any, line: int, raw: bytes) -> str | None:
        """Take record ``rec`` (line ``line``, bytes ``raw``). Returns a warning's text when
        the record is not one a stream holds."""
        if not isinstance(rec, dict):
            return f"line {line} is not a JSON object and is skipped"
        kind = rec.get("type")
        if len(self.first_types) < 2:  # (what the stream is shows in its first two records)
            self.first_types.append(kind if isinstance(kind, str) else None)
            self.kind = kind_of_records(*(self.first_types + [None])[:2])
        if kind == "session" and self.header is None and not self.out and not self.first_types[1:]:
            self.header = rec
            sid = rec.get("id")
            bits = ["run of session"]
            more = {}
            if isinstance(sid, str):
                self.session_ids.append(sid)
                bits.append(_short(sid, 60))
                more["sessionId"] = sid
            if isinstance(rec.get("cwd"), str):
                bits.append(f"in {_short(rec['cwd'], 80)}")
            stamp = rec.get("timestamp")
            self._append({"type": STREAM_EVENT, "event": "session", "text": " ".join(bits), "tone": "muted",
                          **more, "record": rec, **({"timestamp": stamp} if isinstance(stamp, str) else {})},
                         line, raw)
            return None
        if not isinstance(kind, str):
            return f"line {line} has no type and is skipped"
        if kind == "message_start":
            self._end_open(interrupted=True)
            msg = rec.get("message")
            if not (isinstance(msg, dict) and msg.get("role") == "toolResult"):
                self._flush_pending()
            if isinstance(msg, dict):
                self._open = {"message": msg, "line": line, "raw": raw, "blocks": {}, "grown": {},
                              "usage": None}
            return None
        if kind == "message_update":
            self._update(rec)
            return None
        if kind == "message_end":
            msg = rec.get("message")
            if not isinstance(msg, dict):
                return f"line {line}: message_end without a message is skipped"
            eid = None
            if self._open is not None and self._open["message"].get("role") == msg.get("role"):
                eid = self._new_id(self._open["line"])  # (the id the message had while it streamed)
            self._open = None
            if msg.get("role") != "toolResult":
                self._flush_pending()
            self._finished(msg, line, raw, eid)
            return None
        if kind == "tool_execution_start":
            tcid = rec.get("toolCallId")
            if isinstance(tcid, str):
                self._tool(tcid)["start"] = rec
            return None
        if kind == "tool_execution_end":
            self._tool_end(rec, line, raw)
            return None
        if kind == "session_info_changed":
            name = rec.get("name")
            self._append({"type": "session_info", **({"name": name} if isinstance(name, str) else {})}, line, raw)
            return None
        if kind == "thinking_level_changed":
            self._append({"type": "thinking_level_change", "thinkingLevel": rec.get("level")}, line, raw)
            return None
        if kind == "entry_appended":
            entry = rec.get("entry")
            if isinstance(entry, dict) and isinstance(entry.get("type"), str) and entry.get("type") != "session":
                self._appended(entry, line, raw)
            return None
        if kind in ("compaction_end", "auto_compaction_end") and isinstance(rec.get("result"), dict):
            res = rec["result"]
            comp = {"type": "compaction", "summary": res.get("summary"),
                    "firstKeptEntryId": self._mapped(res.get("firstKeptEntryId")), "tokensBefore": res.get("tokensBefore")}
            if "details" in res:
                comp["details"] = res["details"]
            self._append(comp, line, raw)
            return None
        if kind == "response":
            data = rec.get("data") if isinstance(rec.get("data"), dict) else {}
            if rec.get("command") == "get_state":
                if isinstance(data.get("sessionFile"), str):
                    self.session_files.append(data["sessionFile"])
                if isinstance(data.get("sessionId"), str):
                    self.session_ids.append(data["sessionId"])
            if rec.get("command") in _NEW_SESSION_COMMANDS and rec.get("success") is not False:
                self.last_id = None  # (the next entries are another session's: a new root)
            if rec.get("command") == "bash" and rec.get("success") is True and data:
                # a command the user ran (RPC ``bash``): the bashExecution message Pi keeps.
                # Pi's stdout says its output, never the command (it was on stdin).
                self._message({"role": "bashExecution", **data}, line, raw)
                return None
        if kind in ("turn_end", "agent_end"):
            self._flush_pending()
        if kind == "agent_end":
            self._end_open(interrupted=True)
        said = describe(rec, self._last_assistant)
        if said is not None:
            more = {}
            if kind == "response" and rec.get("command") == "get_state":
                data = rec.get("data") if isinstance(rec.get("data"), dict) else {}
                for key in ("sessionFile", "sessionId"):
                    if isinstance(data.get(key), str):
                        more[key] = data[key]
            self._event(rec, line, raw, *said, **more)
        if kind == "agent_end":
            self._last_assistant = None
        return None

    def _finished(self, msg: dict, line: int, raw: bytes, eid: str | None) -> None:
        if msg.get("role") == "toolResult" and isinstance(msg.get("toolCallId"), str):
            tcid = msg["toolCallId"]
            tool = self._tools.get(tcid, {})
            end = tool.get("end")
            if end is not None and "durationMs" in end and "durationMs" not in msg:
                msg = {**msg, "durationMs": end["durationMs"]}
            pending = self._pending.pop(tcid, None)
            if pending is not None:
                eid = pending[3]  # (the id the result was shown with until now)
        self._message(msg, line, raw, eid)

    def _appended(self, entry: dict, line: int, raw: bytes) -> None:
        """An entry an extension (or Pi: a context edit) appended to the session file. It
        names entries by their ids in that file, which the stream never shows: its parent
        is the last entry the file has (the last one rebuilt here that is not a stream's
        marker), and the ids it points at (``targetId``) are mapped to the rebuilt ones."""
        pid = entry.get("parentId")
        if isinstance(pid, str) and self._last_kept is not None:
            self._alias.setdefault(pid, self._last_kept)
        stored = {key: value for key, value in entry.items() if key not in ("id", "parentId")}
        if "targetId" in stored:
            stored["targetId"] = self._mapped(stored["targetId"])
        at = self._append(stored, line, raw)
        if isinstance(entry.get("id"), str):
            self._alias[entry["id"]] = self.out[at][0]["id"]

    def _mapped(self, eid: Any) -> Any:
        """The rebuilt entry that session-file id ``eid`` names, when known (else ``eid``)."""
        return self._alias.get(eid, eid) if isinstance(eid, str) else eid

    def _tool(self, tcid: str) -> dict:
        """What tool_execution_* said of call ``tcid`` so far."""
        tool = self._tools.get(tcid)
        if tool is None:
            tool = self._tools[tcid] = {"order": len(self._tools)}
        return tool

    def _pending_in_order(self) -> list[tuple[dict, int, bytes, str]]:
        """The results made from tool_execution_end still waiting for their messages, in
        the order the tools started (the calls' order)."""
        return [self._pending[call_id] for call_id in sorted(self._pending, key=lambda call_id: self._tools[call_id]["order"])]

    def _flush_pending(self) -> None:
        """Keep the results made from tool_execution_end whose toolResult message never
        came (the turn went on without it)."""
        if not self._pending:
            return
        for msg, line, raw, eid in self._pending_in_order():
            self._message(msg, line, raw, eid)
        self._pending = {}

    def _tool_end(self, rec: dict, line: int, raw: bytes) -> None:
        """A tool finished: its result, shown after the entries so far until its
        toolResult message ends. (Tools called together run at once and end in any order;
        their results' messages come after, in the calls' order, as Pi's session file has
        them.)"""
        tcid = rec.get("toolCallId")
        if not isinstance(tcid, str):
            return
        self._tool(tcid)["end"] = rec
        result = rec.get("result") if isinstance(rec.get("result"), dict) else {}
        content = result.get("content")
        msg = {"role": "toolResult", "toolCallId": tcid, "toolName": rec.get("toolName"),
               "content": content if isinstance(content, list) else [], "isError": rec.get("isError") is True}
        if "details" in result:
            msg["details"] = result["details"]
        if "durationMs" in rec:
            msg["durationMs"] = rec["durationMs"]
        self._pending[tcid] = (msg, line, raw, self._new_id(line))

    # ------------------------------------------------------------ a message still streaming
    def _update(self, rec: dict) -> None:
        op = self._open
        ev = rec.get("assistantMessageEvent")
        if op is None or not isinstance(ev, dict):
            return
        if isinstance(rec.get("usage"), dict):
            op["usage"] = rec["usage"]
        content_index = ev.get("contentIndex")
        if type(content_index) is not int:
            return
        blocks = op["blocks"]
        et = ev.get("type")
        if et in _DELTA_KIND:
            if not isinstance(ev.get("delta"), str):
                return
            kind = _DELTA_KIND[et]
            content_block = blocks.get(content_index)
            if content_block is None:
                content_block = blocks[content_index] = _empty_block(kind)
            field = _DELTA_FIELD[kind]
            if isinstance(content_block.get(field), str):
                # (kept as pieces, joined when the message is shown: adding each delta to
                # the string made the whole string again, quadratic in a long message)
                op["grown"].setdefault(content_index, {}).setdefault(field, []).append(ev["delta"])
            return
        if et == "toolcall_start":
            block = {"type": "toolCall", "id": ev.get("id"), "name": ev.get("toolName"), "arguments": {}, "_json": ""}
        elif et in _START_KIND:
            block = _empty_block(_START_KIND[et])
        elif et == "text_end" and isinstance(ev.get("content"), str):
            block = {"type": "text", "text": ev["content"]}
        elif et == "thinking_end" and isinstance(ev.get("content"), str):
            block = {"type": "thinking", "thinking": ev["content"]}
        elif et == "toolcall_end" and isinstance(ev.get("toolCall"), dict):
            block = dict(ev["toolCall"])
        else:
            return
        blocks[content_index] = block
        op["grown"].pop(content_index, None)  # (the deltas before it are in the new block, or dropped)

    def _partial(self) -> dict | None:
        """The message still open, as far as it came, marked as interrupted."""
        op = self._open
        if op is None:
            return None
        msg = dict(op["message"])
        if msg.get("role") == "assistant":
            content = []
            grown = op["grown"]
            for key in sorted(op["blocks"]):
                block = dict(op["blocks"][key])
                for field, pieces in grown.get(key, {}).items():
                    pieces[:] = ["".join(pieces)]  # (once: a live stream shows the message often)
                    block[field] += pieces[0]
                js = block.pop("_json", None)
                if js:
                    try:
                        args = orjson.loads(js)
                        if isinstance(args, dict):
                            block["arguments"] = args
                    except orjson.JSONDecodeError:
                        block["arguments"] = {"(partial)": js}
                content.append(block)
            if content or not isinstance(msg.get("content"), list):
                msg["content"] = content
            if op["usage"] is not None:
                msg["usage"] = op["usage"]
        msg["stopReason"] = "aborted"
        msg["errorMessage"] = "interrupted: the stream ends before this message did"
        return msg

    def _end_open(self, *, interrupted: bool) -> None:
        op = self._open
        if op is None or not interrupted:
            return
        msg = self._partial()
        self._open = None
        if msg is not None:
            self._message(msg, op["line"], op["raw"])

    @property
    def streaming_role(self) -> str | None:
        """The role of the message still streaming (started, not ended), or None."""
        if self._open is None:
            return None
        role = self._open["message"].get("role")
        return role if isinstance(role, str) else None

    def entries(self, *, open_message: bool = True) -> list[tuple[dict, int, bytes]]:
        """Every entry so far: then the results of tools that ended and whose messages did
        not come yet, and a message still open last (interrupted; left out when not
        ``open_message``: the board reads a stream still written, not one that ended)."""
        if (self._open is None or not open_message) and not self._pending:
            return self.out
        more: list[tuple[dict, int, bytes]] = []
        parent = self.last_id
        for msg, line, raw, eid in self._pending_in_order():
            more.append((_message_entry(msg, eid, parent, self.last_ts), line, raw))
            parent = eid
        if self._open is not None and open_message:
            msg = self._partial()
            more.append((_message_entry(msg, f"L{self._open['line']}", parent, self.last_ts), self._open["line"],
                         self._open["raw"]))
        return self.out + more


def _message_entry(msg: dict | None, eid: str, parent: str | None, last_ts: str | None) -> dict:
    """A message entry not kept yet (still streaming, or waiting for its message_end)."""
    entry = {"type": "message", "id": eid, "parentId": parent, "timestamp": last_ts, "message": msg}
    ts = _num(msg.get("timestamp")) if msg else None
    if ts is not None:
        entry["timestamp"] = ms_to_iso(ts)
    return entry

