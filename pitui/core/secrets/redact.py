"""Secrets masked in what leaves the machine: every export's ``--redact``, and ``x``'s.

A :class:`Redactor` is made from a file's secrets (:func:`~.scan.scan_file`): each secret
value gets a placeholder naming its kind, numbered per kind in the order the values first
stand in the file (``[REDACTED github-token 1]``), and every occurrence of the value, in
any field, is replaced by it: a key in a tool call's arguments and in its result read the
same. :func:`redacted` gives a session whose entries are read through it, so that every
exporter (Markdown, HTML, JSON, a session file) writes the redacted text without knowing.

Replacing is one RE2 search of all the values at once (linear in the text).
"""

from __future__ import annotations

import threading
from typing import Any, Iterable

import orjson

from ..read.lines import parse_line
from ..read.entries import LRU
from ..read.session import Session
from ..read.stream import StreamSession
from .scan import Secret

__all__ = ["Redactor", "redacted"]


def _json_line(value: Any) -> bytes:
    """``value`` as ``JSON.stringify`` writes a line (compact, keys in their order)."""
    import json

    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):  # (a huge integer)
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


class Redactor:
    """Placeholders for a file's secrets, and their replacement in text, values and lines."""

    def __init__(self, secrets: Iterable[Secret]):
        self.placeholders: dict[str, str] = {}
        counts: dict[str, int] = {}
        for secret in secrets:
            if secret.value in self.placeholders:
                continue
            counts[secret.kind] = counts.get(secret.kind, 0) + 1
            self.placeholders[secret.value] = f"[REDACTED {secret.kind} {counts[secret.kind]}]"
        self._text = self._bytes = None
        if self.placeholders:
            import re2

            options = re2.Options()
            options.log_errors = False
            options.max_mem = 64 << 20
            # (longest first: a value inside a longer one is replaced as part of it)
            values = sorted(self.placeholders, key=len, reverse=True)
            self._text = re2.compile("|".join(re2.escape(value) for value in values), options)
            # the values as they stand in a JSON line (escaped as JSON.stringify escapes),
            # and any \u escape: a line holding neither holds no value
            forms = [orjson.dumps(value)[1:-1] for value in values]
            self._bytes = re2.compile(b"|".join(re2.escape(form) for form in forms) + rb"|\\u", options)

    def __bool__(self) -> bool:
        return bool(self.placeholders)

    def text(self, text: str) -> str:
        """``text`` with every secret replaced by its placeholder, where it stands alone:
        a value with a letter or digit right before or after it is part of another word
        (a URL's password ``hunter2`` is not replaced in ``hunter2000``)."""
        if self._text is None or not text:
            return text

        def placeholder(match) -> str:
            start, end = match.span()
            if (start and text[start - 1].isalnum()) or (end < len(text) and text[end].isalnum()):
                return match.group()
            return self.placeholders[match.group()]

        return self._text.sub(placeholder, text)

    def value(self, value: Any) -> Any:
        """A copy of a parsed JSON ``value`` with every string (and object key) redacted;
        what holds no secret is shared, not copied. A loop over a stack, whatever the depth."""
        if self._text is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if not isinstance(value, (dict, list)):
            return value
        root: list[Any] = [value]
        # (container, key or index in it, its value): each container copied once on the way
        stack: list[tuple[Any, Any, Any]] = [(root, 0, value)]
        while stack:
            holder, slot, item = stack.pop()
            if isinstance(item, str):
                new = self.text(item)
                if new is not item:
                    holder[slot] = new
            elif isinstance(item, dict):
                copy = {self.text(key) if isinstance(key, str) else key: child for key, child in item.items()}
                holder[slot] = copy
                stack.extend((copy, key, child) for key, child in copy.items() if isinstance(child, (str, dict, list)))
            elif isinstance(item, list):
                copy = list(item)
                holder[slot] = copy
                stack.extend((copy, index, child) for index, child in enumerate(copy) if isinstance(child, (str, dict, list)))
        return root[0]

    def line(self, data: bytes) -> bytes:
        """A JSONL line with every secret replaced: the line itself when it holds none, else
        parsed, redacted and written again as ``JSON.stringify`` writes it (a line that is
        not JSON has the values' JSON forms replaced in its bytes)."""
        if self._bytes is None or self._bytes.search(data) is None:
            return data
        res = parse_line(data)
        if res.value is None:
            return self._bytes.sub(self._raw_placeholder, data)
        return _json_line(self.value(res.value))

    def _raw_placeholder(self, match) -> bytes:
        form = match.group()
        data, (start, end) = match.string, match.span()
        if form == b"\\u" or (start and data[start - 1:start].isalnum()) or data[end:end + 1].isalnum():
            return form
        return orjson.dumps(self.placeholders[orjson.loads(b'"' + form + b'"')])[1:-1]


class _RedactedSession(Session):
    """A session file read through a :class:`Redactor` (see :func:`redacted`)."""

    _redactor: Redactor

    def _read(self, offset: int, length: int) -> bytes:
        return self._redactor.line(super()._read(offset, length))

    def raw_lines(self, indices, limit: int | None = None):
        for index, data in super().raw_lines(indices, limit):
            yield index, self._redactor.line(data)


class _RedactedStream(StreamSession):
    """An event stream read through a :class:`Redactor` (its entries redacted when made)."""

    _redactor: Redactor


def redacted(session: Session, redactor: Redactor) -> Session:
    """A view of ``session`` whose every entry, raw line, header, name and label reads with
    the secrets of ``redactor`` replaced. It shares the skeleton (ids, offsets, the tree) and
    has caches of its own: ``session`` itself, which the app shows, is left as it was."""
    cls = _RedactedStream if isinstance(session, StreamSession) else _RedactedSession
    view = cls.__new__(cls)
    view.__dict__.update(session.__dict__)
    view._redactor = redactor
    view._cache = LRU()
    view._lock = threading.RLock()
    view._path_lock = threading.Lock()
    view._path_tree = None
    view.derived = {}
    view._calls_found = {}
    view.flags = bytearray(session.flags)
    view.warnings = list(session.warnings)
    view.header = redactor.value(session.header)
    view.name = redactor.text(session.name) if session.name is not None else None
    view.label_by_target = {key: redactor.value(value) for key, value in session.label_by_target.items()}
    if isinstance(view, StreamSession):
        view._entries = [redactor.value(entry) for entry in session._entries]
    return view
