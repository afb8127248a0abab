"""What the entries that are not messages show, decided once: one-line entries (markers:
a setting changed, a label, a name, a context edit, usage, an event stream's events), a
compaction's or a branch summary's parts, and the entries a Pi-based app's extension
writes (its events and input). The pane and the two exports take them from here, as they
take a message's parts from :mod:`.parts`.

The records (:class:`Marker`, :class:`SummaryParts`, :class:`AppEvent`, :class:`AppInput`)
are NamedTuples, as in :mod:`.parts` (this module is imported before the first screen).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..numbers import as_number, fmt_cost, fmt_tokens
from ..read.session import Session
from .parts import plural, session_id_or_none, usage_bits
from .summary import one_line, text_of

__all__ = ["Marker", "marker", "CUSTOM_MESSAGE", "SummaryParts", "summary_parts", "CUSTOM_ENTRY", "APP_EVENT",
           "APP_INPUT", "AppEvent", "app_event", "AppInput", "app_input", "callbacks_by_call"]


# ---------------------------------------------------------------------------- markers


class Marker(NamedTuple):
    """A one-line entry (a setting changed, a label, a name, a context edit, usage) as its
    pieces: ``(text, kind)`` with kind None for plain words, ``"value"`` for what was set
    (a writer may set it in code or bold) and ``"ref"`` for another entry's id (the
    ``ref`` field; a writer may link it). ``tone``: "muted" or "warning"."""

    kind: str
    glyph: str
    pieces: tuple[tuple[str, str | None], ...]
    tone: str = "muted"
    ref: str | None = None

    @property
    def text(self) -> str:
        return "".join(text for text, _ in self.pieces)


def _target(session: Session, target: Any) -> str:
    """Another entry named in a marker: its role (or type) and id."""
    if not isinstance(target, str):
        return str(target)
    target_index = session.index_of.get(target)
    if target_index is None:
        return f"{target} (not in this file)"
    return f"{session.roles[target_index] or session.types[target_index]} {target}"


# the glyph of an event stream's marker, by its event
_EVENT_GLYPHS = {"session": "▶", "agent_end": "■", "agent_settled": "■", "auto_retry_start": "↻", "auto_retry_end": "↻",
                 "summarization_retry_scheduled": "↻", "summarization_retry_attempt_start": "↻",
                 "compaction_start": "⊟", "compaction_end": "⊟", "auto_compaction_start": "⊟",
                 "auto_compaction_end": "⊟", "queue_update": "≡", "response": "⇠", "extension_error": "⚠"}


def marker(session: Session, entry: dict) -> Marker | None:
    """The marker of ``entry`` of ``session``; None when it is not a one-line entry."""
    kind = entry.get("type")
    if kind == "model_change":
        return Marker(kind, "⇄", (("model → ", None), (f"{entry.get('provider')}/{entry.get('modelId')}", "value")))
    if kind == "thinking_level_change":
        return Marker(kind, "◐", (("thinking level → ", None), (str(entry.get("thinkingLevel")), "value")))
    if kind == "usage":
        usage = entry.get("usage") if isinstance(entry.get("usage"), dict) else {}
        pieces = [(f"usage · {entry.get('kind') or '?'} · ", None), (f"{entry.get('provider')}/{entry.get('model')}", "value"),
                  (f" · {fmt_tokens(usage.get('totalTokens', 0))} tokens", None)]
        cost = fmt_cost(usage.get("cost"))
        if cost:
            pieces.append((f" · {cost}", None))
        return Marker(kind, "Σ", tuple(pieces))
    if kind == "label":
        target = entry.get("targetId")
        ref = target if isinstance(target, str) else None
        label = entry.get("label")
        if label:
            return Marker(kind, "⚑", (("label “", None), (str(label), "value"), ("” on ", None),
                                      (_target(session, target), "ref")), "warning", ref)
        return Marker(kind, "⚑", (("label cleared on ", None), (_target(session, target), "ref")), "muted", ref)
    if kind == "session_info":
        name = entry.get("name")
        if isinstance(name, str) and name.strip():
            return Marker(kind, "✎", (("session name: ", None), (name, "value")))
        return Marker(kind, "✎", (("session name cleared", None),))
    if kind == "stream_event":  # (what an event stream says besides messages: core/read/stream.py)
        glyph = _EVENT_GLYPHS.get(entry.get("event"), "·")
        return Marker(kind, glyph, ((str(entry.get("text") or entry.get("event")), None),),
                      "warning" if entry.get("tone") == "warning" else "muted")
    if kind == "context_edit":
        target = entry.get("targetId")
        ref = target if isinstance(target, str) else None
        what = (_target(session, target), "ref")
        rep = entry.get("replacement")
        if rep is None:
            return Marker(kind, "✂", (("context edit: ", None), what, (" omitted from the model's context", None)),
                          "warning", ref)
        content = rep.get("content") if isinstance(rep, dict) else rep
        text = one_line(text_of(content) if not isinstance(content, str) else content, 80)
        return Marker(kind, "✂", (("context edit: ", None), what, (" replaced in context with “", None), (text, "value"),
                                  ("”", None)), "warning", ref)
    return None


# ---------------------------------------------------------------------------- summaries


#: a custom message's title (an extension's message, ``custom_message`` or role ``custom``),
#: beside its ``customType``
CUSTOM_MESSAGE = "custom message"


class SummaryParts(NamedTuple):
    """A compaction or a branch summary, beside its summary text: what it replaced, what it
    kept, the files its history touched, what making it cost."""

    #: "compaction" or "branch_summary"
    kind: str
    summary: str
    tokens_before: float | None
    #: "" (not said), "nothing" (the summary replaces everything before it), "entry" (kept
    #: from ``kept_id``, an entry of this file) or "missing" (``kept_id`` is not in this file)
    kept: str
    kept_id: str | None
    #: a branch summary's branch: the entry it ended at
    from_id: str | None
    #: ``(("read", files), ("modified", files))``, each only when it has files
    files: tuple[tuple[str, tuple[str, ...]], ...]
    #: ``details`` when it is not the files' shape (a writer shows it raw), else None
    other_details: Any
    by_extension: bool
    usage: tuple[str, ...]
    #: a compaction's system prompt checkpoint: (sections, tools added), or None
    checkpoint: tuple[int, int] | None

    @property
    def kept_note(self) -> Marker | None:
        """``kept nothing from before`` / ``kept from entry <id>`` (``… (not in this file)``)."""
        if self.kept == "nothing":
            return Marker("kept", "✂", (("kept nothing from before", None),))
        if self.kept in ("entry", "missing"):
            pieces = [("kept from entry ", None), (str(self.kept_id), "ref")]
            if self.kept == "missing":
                pieces.append((" (not in this file)", None))
            return Marker("kept", "✂", tuple(pieces), ref=self.kept_id)
        return None

    @property
    def from_note(self) -> Marker | None:
        """``summary of the branch that ended at <id>``."""
        if not self.from_id:
            return None
        return Marker("from", "⎇", (("summary of the branch that ended at ", None), (self.from_id, "ref")),
                      ref=self.from_id)

    def files_text(self, cap: int | None = None) -> list[str]:
        """``read: a, b +3`` and ``modified: c``: at most ``cap`` files each, then how many more."""
        out = []
        for word, files in self.files:
            shown = files if cap is None else files[:cap]
            more = len(files) - len(shown)
            out.append(f"{word}: " + ", ".join(shown) + (f" +{more}" if more else ""))
        return out

    @property
    def checkpoint_text(self) -> str:
        if self.checkpoint is None:
            return ""
        return f"prompt checkpoint: {plural(self.checkpoint[0], 'section')}, {plural(self.checkpoint[1], 'tool')}"


def summary_parts(session: Session | None, entry: dict, own_id: str | None = None) -> SummaryParts:
    """The parts of a ``compaction`` or ``branch_summary`` entry, or of a message of role
    ``compactionSummary`` / ``branchSummary`` (the context's form, which has fewer fields).
    ``session`` decides whether a kept entry is in the file (None: not checked)."""
    kind = "branch_summary" if entry.get("type") == "branch_summary" or entry.get("role") == "branchSummary" else "compaction"
    summary = entry.get("summary")
    own_id = own_id if own_id is not None else (entry.get("id") if isinstance(entry.get("id"), str) else None)
    fk = entry.get("firstKeptEntryId")
    kept, kept_id = "", None
    if fk is not None:
        kept_id = str(fk)
        if own_id is not None and fk == own_id:
            kept = "nothing"
        elif session is not None and isinstance(fk, str) and session.index_of.get(fk) is None:
            kept = "missing"
        else:
            kept = "entry"
    from_id = entry.get("fromId")
    details = entry.get("details")
    files: list[tuple[str, tuple[str, ...]]] = []
    other = None
    if isinstance(details, dict) and any(isinstance(details.get(key), list) for key in ("readFiles", "modifiedFiles")):
        for key, word in (("readFiles", "read"), ("modifiedFiles", "modified")):
            value = details.get(key)
            if isinstance(value, list) and value:
                files.append((word, tuple(str(path) for path in value)))
    elif details is not None:
        other = details
    system = entry.get("systemMessage")
    checkpoint = None
    if isinstance(system, dict):
        secs = system.get("sections") if isinstance(system.get("sections"), dict) else {}
        tools = system.get("toolsAdded") if isinstance(system.get("toolsAdded"), list) else []
        checkpoint = (len(secs), len(tools))
    return SummaryParts(
        kind=kind,
        summary=summary if isinstance(summary, str) else "",
        tokens_before=as_number(entry.get("tokensBefore")),
        kept=kept,
        kept_id=kept_id,
        from_id=str(from_id) if from_id else None,
        files=tuple(files),
        other_details=other,
        by_extension=bool(entry.get("fromHook")),
        usage=tuple(usage_bits(entry.get("usage"))),
        checkpoint=checkpoint,
    )


# ---------------------------------------------------------------------------- Pi-based apps' entries

#: a ``custom`` entry's title (an extension's state, never in the model's context)
CUSTOM_ENTRY = "custom entry"
#: replay-only UI events a Pi-based app stores as ``custom`` entries
APP_EVENT = "assistant.event"
#: input a Pi-based app stores as ``custom_message`` entries (in the model's context)
APP_INPUT = "assistant.input"

def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


class AppEvent(NamedTuple):
    """A ``custom`` entry of customType ``assistant.event``: one UI event of the app that
    wrote the session (``chatEventType`` and its ``payload``), for replay only."""

    event_type: str
    payload: Any
    turn_id: str | None
    response_id: str | None
    #: an ``agent_callback``'s call: the tool call it resolves (``payload.toolCallId``)
    call_id: str | None
    from_agent: str | None
    from_session: str | None
    #: what the event says in words (a callback's message, an interrupt's reason), or ""
    message: str
    status: str

    @property
    def title(self) -> str:
        if self.event_type == "agent_callback":
            return "agent callback"
        return "app event"

    @property
    def facts(self) -> list[str]:
        """Short phrases beside the title: who, status, turn."""
        bits = []
        if self.from_agent:
            bits.append(f"from {self.from_agent}")
        if self.status:
            bits.append(self.status)
        if self.turn_id:
            bits.append(self.turn)
        return bits

    @property
    def turn(self) -> str:
        """The turn it belongs to: ``turn_2`` as it is, ``turn 7`` for a bare id."""
        turn = self.turn_id or ""
        return turn if turn.lower().startswith("turn") else f"turn {turn}"

    @property
    def marker(self) -> Marker | None:
        """An interrupt as a one-line marker on its turn; other events are blocks."""
        if self.event_type != "interrupt":
            return None
        pieces: list[tuple[str, str | None]] = [("interrupted", None)]
        if self.message:
            pieces.append((f" · {self.message}", None))
        if self.turn_id:
            pieces += [(" · ", None), (self.turn, "value")]
        return Marker("interrupt", "⏹", tuple(pieces), "warning")


def app_event(entry: dict) -> AppEvent | None:
    """The app event of a ``custom`` entry; None when it is another kind of custom entry."""
    if entry.get("type") != "custom" or entry.get("customType") != APP_EVENT:
        return None
    data = entry.get("data") if isinstance(entry.get("data"), dict) else {}
    payload = data.get("payload")
    pl = payload if isinstance(payload, dict) else {}
    message = next((pl[key] for key in ("message", "text", "reason") if isinstance(pl.get(key), str)), "")
    return AppEvent(
        event_type=str(data.get("chatEventType") or "event"),
        payload=payload,
        turn_id=_opt_str(data.get("turnId")),
        response_id=_opt_str(data.get("responseId")),
        call_id=_opt_str(pl.get("toolCallId")),
        from_agent=_opt_str(pl.get("fromAgentId")),
        from_session=session_id_or_none(pl.get("fromSessionId")),
        message=message,
        status=_opt_str(pl.get("status")) or "",
    )


class AppInput(NamedTuple):
    """A ``custom_message`` of customType ``assistant.input``: input another agent wrote
    (``agent``) or a callback's input the app hides (``callback``); the model saw both."""

    kind: str
    from_agent: str | None
    from_session: str | None

    @property
    def title(self) -> str:
        """The header's title: an agent's input reads as a user message from that agent."""
        if self.kind == "agent":
            return f"agent {self.from_agent}" if self.from_agent else "agent"
        if self.kind == "callback":
            return "callback input"
        return "app input"

    @property
    def facts(self) -> list[str]:
        if self.kind == "agent":
            return ["input from another agent"]
        return [f"from {self.from_agent}"] if self.from_agent else []


def app_input(entry: dict) -> AppInput | None:
    """The app input of a ``custom_message`` entry (or a context message of role
    ``custom``); None for other custom messages."""
    if entry.get("customType") != APP_INPUT or not (entry.get("type") == "custom_message" or entry.get("role") == "custom"):
        return None
    details = entry.get("details") if isinstance(entry.get("details"), dict) else {}
    return AppInput(str(details.get("kind") or "input"), _opt_str(details.get("fromAgentId")),
                    session_id_or_none(details.get("fromSessionId")))


def callbacks_by_call(session: Session) -> dict[str, list[tuple[int, AppEvent]]]:
    """Every ``agent_callback`` event of the file, by the tool call it resolves (file order).
    Worked out once per session size: only ``custom`` entries are decoded."""
    memo = session.derived.get("callbacks")
    count = len(session.types)
    if memo is not None and memo[0] == count:
        return memo[1]
    found: dict[str, list[tuple[int, AppEvent]]] = {}
    types = session.types
    for index in range(count):
        if types[index] == "custom":
            ev = app_event(session.entry(index))
            if ev is not None and ev.event_type == "agent_callback" and ev.call_id:
                found.setdefault(ev.call_id, []).append((index, ev))
    session.derived["callbacks"] = (count, found)
    return found
