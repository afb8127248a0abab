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
    meta = orjson.dumps([[row.path, row.dev, row.ino, row.size, row.mtime_ns, row.offset, row.fingerprint,
                          len(row.summary), len(row.keys), len(row.columns)] for row in rows])
    return framed.frame(MAGIC, meta, [text for row in rows for text in (row.summary, row.keys, row.columns)],
                        VERSION)


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
    for fields in meta:
        if type(fields) is not list or len(fields) != len(_TYPES) or not all(
                type(value) is want for value, want in zip(fields, _TYPES)):
            raise Damaged("a row is not one")
        lens = fields[7:]
        if any(length < 0 for length in lens):
            raise Damaged("a row's length is negative")
        texts = []
        for length in lens:
            texts.append(raw[at:at + length])
            at += length
        rows.append(Row(*fields[:7], *texts))
    if at != len(raw):
        raise Damaged("its rows' lengths do not add up to its blob")
    try:
        return [row._replace(parsed=check_summary(orjson.loads(row.summary))) for row in rows]
    except (orjson.JSONDecodeError, TypeError, ValueError, KeyError) as exc:
        raise Damaged(f"a row's figures are damaged ({exc})") from None


def check_summary(summary) -> dict:
    """A summary, its shape checked as :mod:`.usage` reads it (raises ValueError when wrong)."""
    num = (int, float)
    ok = (type(summary) is dict and type(summary["byModel"]) is dict
          and all(type(sums) is list and len(sums) == 6 and all(type(number) in num for number in sums)
                  for sums in summary["byModel"].values())
          and type(summary["abandoned"]) is list and len(summary["abandoned"]) == 2
          and all(type(number) in num for number in summary["abandoned"])
          and type(summary["modelMs"]) in num and type(summary["toolMs"]) in num
          and type(summary["tools"]) is dict
          and all(type(counts) is list and len(counts) == 2 and all(type(number) is int for number in counts)
                  for counts in summary["tools"].values())
          and type(summary["runs"]) is list
          and all(type(run) is list and len(run) == 7 and type(run[0]) is list
                  and all(type(path) is str for path in run[0]) and all(type(number) in num for number in run[2:])
                  for run in summary["runs"])
          and type(summary["skipped"]) is dict and all(type(count) is int for count in summary["skipped"].values())
          and type(summary.get("id")) in (str, type(None)) and type(summary.get("name")) in (str, type(None)))
    if not ok:
        raise ValueError("wrong types")
    return summary
