"""The usage index's file: per session file, its identity and three JSON texts.

Framed as every index file is (:mod:`.framed`: ``pitui-usage <version>``, the lengths and a
CRC), then the meta (a JSON list of rows: path, device, inode, size, mtime in ns, bytes
read, the fingerprint of what was read, and the lengths of the row's three texts) and the
blob (each row's texts one after the other: its summary; its compatible messages' dedupe
keys and their sums by quarter hour and model; the messages' columns). Every field's type
is checked when read. The summary is decoded for every row (small), the keys and sums when
a report reads them, the columns only when the report must compare a file's messages one by
one. Each file's scan state, read only when that file
grew, is a file of its own beside this one (:mod:`.usage`).
"""

from __future__ import annotations

from typing import NamedTuple

import orjson

from . import framed
from .framed import Damaged, OtherVersion

__all__ = ["Row", "encode", "decode", "check_summary", "VERSION", "Damaged", "OtherVersion"]

VERSION = 4  # 2: scan states in files of their own; sums by quarter hour and model; 3: timestamps apart;
# 4: each message's dedupe key (timestamp and total) apart
MAGIC = b"pitui-usage "


class Row(NamedTuple):
    path: str
    dev: int
    ino: int
    size: int
    mtime_ns: int
    offset: int  # bytes read (the end of the last whole line)
    fingerprint: str  # of the bytes read (core/read/lines.py)
    summary: bytes  # JSON: pitui's own figures, the header's id and the session's name
    keys: bytes  # JSON: the dedupe keys of the messages ccusage counts, and their sums
    columns: bytes  # JSON: those messages' other columns
    parsed: dict | None = None  # the summary decoded (and checked)

    def summary_dict(self) -> dict:
        return self.parsed if self.parsed is not None else orjson.loads(self.summary)


def encode(rows: list[Row]) -> list[bytes]:
    meta = orjson.dumps([[r.path, r.dev, r.ino, r.size, r.mtime_ns, r.offset, r.fingerprint,
                          len(r.summary), len(r.keys), len(r.columns)] for r in rows])
    return framed.frame(MAGIC, meta, [x for r in rows for x in (r.summary, r.keys, r.columns)], VERSION)


_TYPES = (str, int, int, int, int, int, str, int, int, int)


def decode(raw: bytes) -> list[Row]:
    """The rows of an index file. Raises :class:`OtherVersion` or :class:`Damaged`."""
    start, meta_len = framed.unframe(memoryview(raw), MAGIC, VERSION, "usage index")
    try:
        meta = orjson.loads(raw[start:start + meta_len])
    except orjson.JSONDecodeError:
        raise Damaged("its rows are not JSON") from None
    if type(meta) is not list:
        raise Damaged("its rows are not a list")
    rows = []
    at = start + meta_len
    for m in meta:
        if type(m) is not list or len(m) != len(_TYPES) or not all(type(v) is t for v, t in zip(m, _TYPES)):
            raise Damaged("a row is not one")
        lens = m[7:]
        if any(x < 0 for x in lens):
            raise Damaged("a row's length is negative")
        texts = []
        for n in lens:
            texts.append(raw[at:at + n])
            at += n
        rows.append(Row(*m[:7], *texts))
    if at != len(raw):
        raise Damaged("its rows' lengths do not add up to its blob")
    try:
        return [r._replace(parsed=check_summary(orjson.loads(r.summary))) for r in rows]
    except (orjson.JSONDecodeError, TypeError, ValueError, KeyError) as exc:
        raise Damaged(f"a row's figures are damaged ({exc})") from None


def check_summary(s) -> dict:
    """A summary, its shape checked as :mod:`.usage` reads it (raises ValueError when wrong)."""
    num = (int, float)
    ok = (type(s) is dict and type(s["byModel"]) is dict
          and all(type(v) is list and len(v) == 6 and all(type(x) in num for x in v) for v in s["byModel"].values())
          and type(s["abandoned"]) is list and len(s["abandoned"]) == 2
          and all(type(x) in num for x in s["abandoned"])
          and type(s["modelMs"]) in num and type(s["toolMs"]) in num
          and type(s["tools"]) is dict
          and all(type(v) is list and len(v) == 2 and all(type(x) is int for x in v) for v in s["tools"].values())
          and type(s["runs"]) is list
          and all(type(r) is list and len(r) == 7 and type(r[0]) is list and all(type(p) is str for p in r[0])
                  and all(type(x) in num for x in r[2:]) for r in s["runs"])
          and type(s["skipped"]) is dict and all(type(v) is int for v in s["skipped"].values())
          and type(s.get("id")) in (str, type(None)) and type(s.get("name")) in (str, type(None)))
    if not ok:
        raise ValueError("wrong types")
    return s
