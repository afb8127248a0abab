"""One entry of a session as a user takes it away: the text ``Y`` copies, and the file ``e``
hands to ``$PAGER`` (the exact line, then a pretty-printed copy)."""

from __future__ import annotations

import errno
import json
import os
import re
import tempfile

from ..paths import cache_dir
from ..model.summary import text_of
from ..read.session import Session
from ..store.discovery import SessionRoot

__all__ = ["entry_text", "write_entry_file", "safe_name"]


def safe_name(text: str, limit: int = 60) -> str:
    """``text`` as a file-name part: letters, digits, ``.``, ``_``, ``-``."""
    out = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")
    return out[:limit].rstrip("-.") or "session"


def entry_text(session: Session, index: int) -> str:
    """What ``Y`` copies: a message's text blocks, a tool result's output, a shell
    command and its output, a compaction's or branch summary's summary; else the raw line."""
    entry = session.entry(index)
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message") if isinstance(entry.get("message"), dict) else {}
        role = message.get("role")
        if role in ("user", "assistant", "toolResult", "custom"):
            text = text_of(message.get("content"))
            if text:
                return text
        elif role == "bashExecution":
            return f"$ {message.get('command', '')}\n{message.get('output', '')}".rstrip("\n")
    elif kind in ("compaction", "branch_summary"):
        summ = entry.get("summary")
        if isinstance(summ, str):
            return summ
    elif kind == "custom_message":
        text = text_of(entry.get("content"))
        if text:
            return text
    return session.raw_line(index).decode("utf-8", "replace").rstrip("\r\n")


def write_entry_file(session: Session, index: int, root: SessionRoot) -> str:
    """The entry's exact line (and a pretty-printed copy) in a temporary file outside
    the sessions folder. Returns its path."""
    tmpdir = tempfile.gettempdir()
    rootp = os.path.realpath(str(root.path if root.kind != "file" else root.path.parent))
    if os.path.realpath(tmpdir) == rootp or os.path.realpath(tmpdir).startswith(rootp + os.sep):
        private = cache_dir()
        if private is None:
            raise OSError(errno.EACCES, "no folder to write it to outside the sessions folder")
        tmpdir = str(private)
    # (read before the file is made: a session file that is gone leaves nothing behind)
    raw = session.raw_line(index)
    pretty = json.dumps(session.entry(index), indent=2, ensure_ascii=False, default=str).encode()
    fd, path = tempfile.mkstemp(prefix="pitui-entry-", suffix=".txt", dir=tmpdir)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(
                f"{session.path}, line {session.linenos[index]} (entry {session.ids[index]}), exactly as in the file:\n\n".encode()
            )
            handle.write(raw.rstrip(b"\r\n") + b"\n\n")
            handle.write(b"Pretty-printed:\n\n")
            handle.write(pretty + b"\n")
    except BaseException:
        os.unlink(path)
        raise
    return path
