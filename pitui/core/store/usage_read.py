"""One session file's usage row (:mod:`.usage_file`): read by the listing's scan of the file, or alone.

The listing reads each line of a file once (:func:`.listing_scan.scan_info`); given the
file's usage scan it counts the usage from the same decoded lines (:func:`scan_both`): one
read makes the file's listing row and its usage row. Where the listing does not read the
file as a session (an event stream, a file with no header first, a failure), or does not
start where the usage's scan stopped (one of the two indexes is behind the other), the
usage reads the file on its own (:func:`read_row`), whole or on from where its scan
stopped. Either way a grown file's scan is read on from its kept state: only its new lines
are read.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import orjson

from . import usage_file
from .usage_scan import FileScan, scan_bytes
from ..read.lines import bytes_fingerprint, open_regular
from ..read.sniff import stream_kind_of

if TYPE_CHECKING:
    from .discovery import SessionFile
    from .session_info import SessionInfo
    from .usage_index import UsageIndex

__all__ = ["read_row", "read_row_or_none", "scan_both", "row_of_scan"]


def _read_file(path: str, prev: usage_file.Row | None, st: os.stat_result,
               index: UsageIndex) -> tuple[FileScan, str, int, bool]:
    """The file's scan (``prev``'s read on when the file only grew), its fingerprint, the
    size read and whether it is an event stream. Raises OSError."""
    with open_regular(path) as fh:
        data = fh.read()
    scan = None
    if (prev is not None and prev.dev == st.st_dev and prev.ino == st.st_ino and len(data) > prev.size
            and prev.fingerprint and bytes_fingerprint(data, prev.offset) == prev.fingerprint):
        scan = index.state(prev)
    if scan is None:
        scan = FileScan()
    scan_bytes(scan, data, scan.offset, True)
    return scan, bytes_fingerprint(data, scan.offset), len(data), stream_kind_of(data) is not None


def _stream_summary(path: str, summary: dict) -> dict:
    """pitui's own figures of an event stream (``pi --mode json`` or ``rpc`` output): of the
    conversation the core rebuilds from its records, as its stats screen counts them (its
    lines are not entries: the line-by-line figures do not apply)."""
    from ..model.stats import kind_stats, session_indices, session_stats, tool_calls
    from ..read.open import open_session

    try:
        session = open_session(path)
    except Exception:  # (unreadable as a stream after all: no figures of its own)
        return {**summary, "byModel": {}, "abandoned": [0, 0], "modelMs": 0, "toolMs": 0, "tools": {}, "runs": []}
    stats = session_stats(session)
    by_model = {key: [sums.input, sums.output, sums.cache_read, sums.cache_write, sums.cost, sums.calls]
                for key, sums in stats.by_model.items()}
    calls_by_kind = kind_stats(tool_calls(session, session_indices(session), args=False))
    tools = {kind: [calls.calls, calls.errors] for kind, calls in calls_by_kind.items()}
    return {**summary, "byModel": by_model, "abandoned": [0, 0], "modelMs": 0, "toolMs": 0, "tools": tools,
            "runs": []}


def read_row(path: str, prev: usage_file.Row | None, index: UsageIndex) -> usage_file.Row:
    """The index row of the file at ``path`` read alone (``prev``'s scan read on when the
    file only grew), its scan state kept. Raises OSError."""
    st = os.stat(path)
    scan, fingerprint, size, stream = _read_file(path, prev, st, index)
    return row_of_scan(path, (st.st_dev, st.st_ino, size, st.st_mtime_ns), scan, fingerprint, index, stream)


def read_row_or_none(path: str, prev: usage_file.Row | None, index: UsageIndex) -> usage_file.Row | None:
    """:func:`read_row`, None where the file cannot be read."""
    try:
        return read_row(path, prev, index)
    except OSError:
        return None


def row_of_scan(path: str, identity: tuple[int, int, int, int], scan: FileScan, fingerprint: str,
                index: UsageIndex, stream: bool = False) -> usage_file.Row:
    """The index row of a file read up to ``scan.offset`` (``identity``: its device, inode,
    size and mtime in ns; ``fingerprint``: of the bytes read), its scan state kept (an event
    stream's is not: it is read whole when it changes)."""
    summary = scan.summary()
    state = orjson.dumps({"path": path, "offset": scan.offset, "fingerprint": fingerprint, "scan": scan.to_state()})
    if stream:
        summary, state = _stream_summary(path, summary), b""
    summary["id"], summary["name"] = scan.header_id, scan.name
    index.keep_state(path, state)
    return usage_file.Row(path, *identity, scan.offset, fingerprint, orjson.dumps(summary),
                          orjson.dumps(scan.compat.keys_json()), orjson.dumps(scan.compat.to_json()), summary)


def scan_both(sf: SessionFile, prev_info: SessionInfo | None, prev_row: usage_file.Row | None, index: UsageIndex,
              st: os.stat_result | None = None, *, keep_first: bool = False,
              mapped: bool = False) -> tuple[SessionInfo, usage_file.Row | None]:
    """The listing's row of ``sf`` and its usage row, from one read of its lines where the
    two can share it (see the module's docstring); the usage row None where the file
    cannot be read. ``prev_info``: the listing's row to read on from (the file grew);
    ``prev_row``: the usage's (the file grew: its kept state read on from); ``st``, as
    :func:`.listing_scan.scan_info` takes it."""
    from .listing_scan import scan_info  # (loaded by the first file read)

    scan = None
    if prev_info is not None and prev_row is not None and (prev_row.offset, prev_row.fingerprint) == (
            prev_info.scanned_to, prev_info.fingerprint):
        scan = index.state(prev_row)  # (both read on from the same line)
    fed = FileScan() if scan is None else scan
    info = scan_info(sf, prev_info, st, keep_first=keep_first, mapped=mapped, usage=fed)
    if info.error is None and info.log == "session" and info.id is not None and fed.offset == info.scanned_to:
        return info, row_of_scan(sf.path, (info.dev, info.ino, info.size, info.mtime_ns), fed, info.fingerprint,
                                 index)
    # (not read as a session, or not from where the usage stopped: the usage reads it alone)
    return info, read_row_or_none(sf.path, prev_row, index)



