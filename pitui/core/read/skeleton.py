"""What every part of reading a session shares: its entries' flag bits, the errors a file
that is not a session raises, the warnings a file's problems become, and small helpers.

A :class:`~pitui.core.read.session.Session` keeps, per entry, a skeleton of columns (id,
parent, type, role, timestamp, where its line lies, and the flag bits below); the scan
(:mod:`.scan`), the tree (:mod:`.tree`), the entries decoded on demand (:mod:`.entries`),
the skeleton as plain data (:mod:`.skeleton_state`) and the event streams (:mod:`.stream`)
all read and write them.
"""

from __future__ import annotations

from typing import Any, BinaryIO, NamedTuple

from .lines import NotRegular, open_regular

__all__ = ["CURRENT_VERSION", "INDEX_CODE", "ENTRY_TYPES", "MESSAGE_ROLES", "NotASession", "FileChanged", "SessionWarning", "open_session_file", "has_text",
           "unparsable", "repair_warnings",
           "F_ASSISTANT_TEXT", "F_ABNORMAL_STOP", "F_LAZY", "F_DAMAGED", "F_NON_UTF8", "F_CHECKED", "F_REPAIRED",
           "F_CUT"]

CURRENT_VERSION = 3

#: the array type code of entry numbers as they cross processes and are kept in the skeleton
#: cache (4 bytes each)
INDEX_CODE = "i"

#: Every type of entry a session holds: those Pi writes, and ``stream_event``, what pitui
#: makes of an event stream's records besides its messages (:mod:`.stream_builder`). Each
#: renderer (the pane, the HTML and the Markdown exports) has a table keyed by these, so a
#: new type is a row in each; tests/core/test_entry_kinds.py fails when one lacks a row.
ENTRY_TYPES = ("message", "compaction", "branch_summary", "custom_message", "custom", "model_change",
               "thinking_level_change", "context_edit", "label", "session_info", "usage", "stream_event")
#: Every role of a ``message`` entry's message, by its current name (a version 2 file's
#: ``hookMessage`` is read as ``custom``); the renderers' tables are keyed by these too.
MESSAGE_ROLES = ("user", "assistant", "toolResult", "bashExecution", "custom", "system", "branchSummary",
                 "compactionSummary")

# Flag bits per entry.
F_ASSISTANT_TEXT = 1  # an assistant message with non-blank text
F_ABNORMAL_STOP = 2  # an assistant message whose stopReason is not stop/toolUse (error, aborted, ...)
F_LAZY = 4  # skeleton came from the line head; the line has not been validated whole
F_DAMAGED = 8  # the line turned out not to parse when its body was read
F_NON_UTF8 = 16  # bytes that are not UTF-8 were replaced
F_CHECKED = 32  # the entry's fields were checked (see normalize.py) and any problems reported
F_REPAIRED = 64  # lone surrogates replaced, numbers beyond a double's range read as null (and reported)
F_CUT = 128  # values nested too deeply were cut (and reported)


class NotASession(Exception):
    """The file is not a Pi session; ``reason`` is one line for the user. ``no_header``:
    the file was read and has no session header (``line``: the line that should have been
    it, when there is one); otherwise it could not be read at all."""

    def __init__(self, path: str, reason: str, line: int | None = None, *, no_header: bool = False):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        self.line = line
        self.no_header = no_header


class FileChanged(OSError):
    """The session file is no longer the file that was read: another file took its name
    (other device or inode) or it was cut short. Its bytes are not the entries' bytes."""


class SessionWarning(NamedTuple):
    line: int | None
    message: str
    # what kind of problem it is, for ``pitui check`` (:mod:`pitui.core.model.doctor`
    # names the kinds and says what Pi does with each); "" when not said
    kind: str = ""

    def to_json(self) -> dict:
        return {"line": self.line, "message": self.message}


def open_session_file(path: str) -> BinaryIO:
    """``path`` opened for reading (a regular file only: :func:`open_regular`), or
    :class:`NotASession` saying in a few words why it cannot be read."""
    try:
        return open_regular(path)
    except NotRegular as exc:
        raise NotASession(path, str(exc).removeprefix(f"{path} "))
    except IsADirectoryError:
        raise NotASession(path, "is a directory, not a session file")
    except FileNotFoundError:
        raise NotASession(path, "no such file")
    except PermissionError:
        raise NotASession(path, "permission denied")
    except OSError as exc:
        raise NotASession(path, f"cannot be read ({exc.strerror or exc})")


def unparsable(res) -> str:
    """The kind of the warning for a line that did not parse: longer than pitui reads or
    nested too deeply for it (JavaScript reads both, up to its own limits), or not JSON at all."""
    if res.too_long:
        return "too-long"
    return "too-deep" if res.error and "depth limit" in res.error else "unparsable"


def repair_warnings(line: int, res) -> list[SessionWarning]:
    """What parsing line ``line`` (as ``res``) repaired, one warning each: lone surrogates
    shown as U+FFFD, numbers beyond a double's range (Pi's Infinity) read as missing."""
    out = []
    if res.surrogates:
        out.append(SessionWarning(line, f"line {line} has broken text (lone UTF-16 surrogates, shown as \ufffd)",
                                  "surrogates"))
    if res.huge:
        out.append(SessionWarning(line, f"line {line} has a number too large for JavaScript (Infinity to Pi, "
                                        "shown as missing)", "huge-number"))
    return out


def has_text(content: Any) -> bool:
    """Whether a message's content holds text that is not blank (a string, or a text block)."""
    if isinstance(content, str):
        return bool(content.strip())
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                text = part.get("text")
                if isinstance(text, str) and text.strip():
                    return True
    return False
