"""The decoders the listing reads each line of a session with (``listing_scan._read_lines``): one
C call per line checks it is JSON as ``JSON.parse`` does and keeps only the few fields the
list needs (:data:`ENTRY_DECODE`), or those and the fields the usage counts, when the file's
usage is counted from the same read (:data:`USAGE_ENTRY_DECODE`, ``usage_scan.FileScan.decoded``;
the usage's own scan reads with it too). The list reads the same fields from either. Its own
module, loaded by the first scan: msgspec and these types are not needed to start the app or
to list from the index."""

from __future__ import annotations

from typing import ClassVar, Union

import msgspec

__all__ = ["ENTRY_DECODE", "USAGE_ENTRY_DECODE", "RUNS_DECODE", "UNSET"]


class _Message(msgspec.Struct):
    """The fields of an entry's message the list reads (Pi's buildSessionInfo): content
    kept undecoded, present or UNSET (Pi's ``"content" in message``)."""

    role: object = None
    timestamp: object = None
    model: object = None
    toolName: object = None
    content: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    details: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET  # (read for a subagent's result)


class _Entry(msgspec.Struct):
    """The fields of a session entry the list reads; the rest of the line is checked to be
    JSON and skipped, nothing made of it."""

    type: object = None
    timestamp: object = None
    message: _Message | None = None
    name: object = None  # (session_info)
    modelId: object = None  # (model_change)


class _UsageMessage(msgspec.Struct, gc=False, tag_field="role"):
    """An entry's message as the list and the usage read it (absent: UNSET, as ``in`` says;
    the list compares these with strings and types only, so UNSET reads as None does). One
    class a role Pi writes, told by its ``role`` (a class attribute of each): a message of
    another role, or without one, is not decoded (the line is parsed whole)."""

    timestamp: object = msgspec.UNSET
    model: object = msgspec.UNSET
    toolName: object = msgspec.UNSET
    content: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    details: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    usage: object = msgspec.UNSET
    provider: object = msgspec.UNSET
    responseModel: object = msgspec.UNSET
    isError: object = msgspec.UNSET


class _UsageBlock(msgspec.Struct, gc=False):
    """A content block of an assistant message: what a tool call is counted by."""

    type: object = None
    name: object = None


class _UsageAssistant(_UsageMessage, tag="assistant"):
    """An assistant message: its content's blocks decoded in the same pass (a content that
    is not a list of objects: the line is parsed whole)."""

    role: ClassVar[str] = "assistant"
    content: list[_UsageBlock] | msgspec.UnsetType = msgspec.UNSET


def _role(name: str) -> type:
    """The message class of role ``name`` (its fields :class:`_UsageMessage`'s)."""
    return type(f"_Usage_{name}", (_UsageMessage,), {"__annotations__": {"role": ClassVar[str]}, "role": name},
                tag=name)


_USAGE_MESSAGES = (_UsageAssistant, *map(_role, ("user", "toolResult", "system", "custom", "bashExecution",
                                                 "branchSummary", "compactionSummary", "hookMessage")))


class _UsageEntry(msgspec.Struct, gc=False):
    """A session entry as the list and the usage read it (:class:`_Entry`'s fields and the
    usage's: the tree's id and parent, a usage entry's own usage, provider and model)."""

    type: object = msgspec.UNSET
    timestamp: object = msgspec.UNSET
    message: Union[_USAGE_MESSAGES] | None = None  # type: ignore[valid-type]
    name: object = msgspec.UNSET
    modelId: object = msgspec.UNSET
    id: object = msgspec.UNSET
    parentId: object = msgspec.UNSET
    usage: object = msgspec.UNSET
    provider: object = msgspec.UNSET
    model: object = msgspec.UNSET


class _Run(msgspec.Struct, gc=False):
    """What a subagent run records of its transcripts (``parts.run_transcripts`` reads them)."""

    artifactPaths: object = None
    sessionFile: object = None


class _Runs(msgspec.Struct, gc=False):
    """A subagent result's details: its runs, the rest skipped (a result holds the runs'
    messages, often most of the line)."""

    results: list[_Run] | None = None


#: a subagent result's details to _Runs (an error where they are not of that shape: the
#: line is then parsed whole)
RUNS_DECODE = msgspec.json.Decoder(_Runs).decode

#: One line to an _Entry, or an error where the line is not JSON (the decoder is stricter
#: than JSON.parse about lone surrogate escapes, numbers past a double's range, bytes that
#: are not UTF-8 in the fields it keeps and nesting deeper than 1,000: such lines go to
#: parse_line, which reads them as JSON.parse does).
ENTRY_DECODE = msgspec.json.Decoder(_Entry).decode
UNSET = msgspec.UNSET
#: One line to a :class:`_UsageEntry` (the same refusals as :data:`ENTRY_DECODE`): what a file
#: whose usage is counted from the listing's read is read with (its lines are decoded once).
USAGE_ENTRY_DECODE = msgspec.json.Decoder(_UsageEntry).decode
