"""What the session list shows of one file: Pi's ``SessionInfo``, plus pitui's extras.

:class:`SessionInfo` is one row of the list: made by the scan of a file
(:mod:`.listing_scan`), kept in the listing index (:mod:`.listing_rows` encodes it), and
printed as ``pitui list --json`` gives it (:meth:`SessionInfo.to_pi_json`, Pi's keys
first). The index keeps a first message's first :data:`FIRST_MESSAGE_CHARS` characters
(what the lists show; a whole first message can be megabytes) and where its line lies;
:meth:`SessionInfo.full_first_message` reads the rest from the file when ``list --json``
gives Pi's ``firstMessage``. :func:`subagent_parents` nests subagent transcripts under the
sessions that ran them, from the rows alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from .discovery import transcript_candidates
from ..read.lines import parse_line, read_span
from ..read.normalize import json_text
from ..timeutil import ms_to_iso

__all__ = ["SessionInfo", "NO_MESSAGES", "FIRST_MESSAGE_CHARS", "FIRST_MESSAGE_LEAD", "subagent_parents", "text_of",
           "bounded", "utf8_path"]

#: Characters of a first message the index keeps (after its leading white space, of which
#: at most FIRST_MESSAGE_LEAD more): the lists show its first line's first 300 or fewer.
FIRST_MESSAGE_CHARS = 512
FIRST_MESSAGE_LEAD = 4096

#: Pi's first message of a session with no user message
NO_MESSAGES = "(no messages)"


@dataclass
class SessionInfo:
    """What the session list shows for one file (Pi's SessionInfo, plus pitui's extras)."""

    path: str
    project: str = ""
    kind: str = "session"  # session | subagent
    #: what the file holds: "session", or an event stream: "stream" (``pi --mode json``),
    #: "rpc log" (``pi --mode rpc``) (core/read/sniff.py)
    log: str = "session"
    id: str | None = None
    cwd: str = ""
    name: str | None = None
    parent_session_path: str | None = None  # header parentSession, exactly as Pi lists it
    forked_from: str | None = None  # parentSession, or its old name branchedFrom
    created_ms: float | None = None
    modified_ms: float | None = None
    message_count: int = 0
    first_message: str = NO_MESSAGES  # its first FIRST_MESSAGE_CHARS (see full_first_message)
    model: str | None = None  # the last model named (assistant message or model change)
    error: str | None = None  # why the file is not a readable session
    warnings: int = 0  # lines that did not parse
    size: int = 0
    mtime_ns: int = 0
    dev: int = 0  # (with ino, size and mtime_ns: the file as it was read)
    ino: int = 0
    # scan state, so a file that grew is read on from here
    scanned_to: int = 0
    next_lineno: int = 1
    last_activity_ms: float | None = None
    header_ms: float | None = None
    fingerprint: str = ""
    extra: dict = field(default_factory=dict)
    # where the first message's line lies when first_message holds only its start
    first_message_at: int = -1
    first_message_len: int = 0
    #: the transcripts this session's subagent runs record (``parts.run_transcripts``), as
    #: recorded: what :func:`subagent_parents` nests transcripts by
    subagent_transcripts: list[str] = field(default_factory=list)

    def full_first_message(self) -> str:
        """The whole first message (Pi's ``firstMessage``): :attr:`first_message` when it
        holds it all, else read from the file again (its start, when the file no longer
        holds the same line)."""
        if self.first_message_at < 0:
            return self.first_message
        whole = self.__dict__.get("_whole_first")  # (held by a cold worker's scan)
        if whole is not None:
            return whole
        try:
            data = read_span(self.path, self.first_message_at, self.first_message_len)
            msg = parse_line(data).value
            text = text_of(msg["message"]["content"])  # (checked by the scan that found it)
        except Exception:  # gone, replaced, unreadable: what the index holds
            return self.first_message
        return text if isinstance(text, str) and text.startswith(self.first_message) else self.first_message

    def to_pi_json(self) -> dict:
        """The listing object of ``pitui list --json`` (Pi's SessionInfo keys first). A path
        that is not UTF-8 (its bytes kept as surrogates by Python) has them as U+FFFD, as
        Node reads such a name."""
        return {
            "path": utf8_path(self.path),
            "id": self.id,
            "cwd": self.cwd,
            "name": self.name,
            "parentSessionPath": self.parent_session_path,
            "created": ms_to_iso(self.created_ms),
            "modified": ms_to_iso(self.modified_ms),
            "messageCount": self.message_count,
            "firstMessage": self.full_first_message(),
            "forkedFrom": self.forked_from,
            "project": self.project,
            "kind": self.kind,
            "log": self.log,
            "model": self.model,
            "error": self.error,
            "warnings": self.warnings,
        }

    @property
    def title(self) -> str:
        return self.name or self.first_message


def utf8_path(path: str) -> str:
    """``path`` without the surrogates Python keeps undecodable bytes of a name as."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return path


def _js_string(value) -> str:
    """``String(value)`` as JavaScript's ``Array.join`` makes it (null/undefined: "")."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json_text(value)


def text_of(content) -> str | None:
    """Pi's extractTextContent: a string, or text blocks joined by a space."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            block.get("text") if isinstance(block.get("text"), str) else _js_string(block.get("text"))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    return None


def bounded(text: str) -> str:
    """The start of a first message that the index keeps (see FIRST_MESSAGE_CHARS)."""
    if len(text) <= FIRST_MESSAGE_CHARS:
        return text
    lead = min(len(text) - len(text.lstrip()), FIRST_MESSAGE_LEAD)
    return text[: lead + FIRST_MESSAGE_CHARS]


def subagent_parents(infos: Iterable[SessionInfo]) -> dict[str, SessionInfo]:
    """Each subagent transcript listed in ``infos`` whose session is listed too, by path:
    the session whose subagent runs record it, where the pane finds it
    (:func:`discovery.transcript_candidates`: the recorded path, or its name in the
    session's ``subagent-artifacts`` folder). Worked out from the index rows alone."""
    infos = list(infos)
    transcripts = {info.path for info in infos if info.kind == "subagent"}
    if not transcripts:
        return {}
    out: dict[str, SessionInfo] = {}
    for info in infos:
        if info.kind != "session" or info.error is not None:
            continue
        for recorded in info.subagent_transcripts:
            for cand in transcript_candidates(recorded, info.path):
                if cand in transcripts:
                    out.setdefault(cand, info)
                    break
    return out
