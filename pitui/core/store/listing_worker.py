"""A worker process for cold listing scans: ``python -m pitui.core.store.listing_worker``.

Reads a JSON array of tasks ``[path, project, kind, previous row (the index's JSON array, as
text) or null]`` on standard input and writes one frame per file as each is scanned:
``b"<head length> <row length> <output length>\\n"``, the head (a JSON array: path, device,
inode, size, mtime, the sort key), the row (the index's JSON array of its fields), its
``pitui list --json`` object (what the index keeps: ``listing.py``, ``listing_file.py``). Plain subprocesses
(rather than multiprocessing) keep the caller's ``__main__`` out of it and stay safe beside
threads.
"""

from __future__ import annotations

import sys
import time

import orjson

from .discovery import SessionFile
from .listing import _frag_of, _info_of_row, _rec_of, _row_of, scan_info


#: Frames are written in batches of about this many bytes (or what was scanned in
#: :data:`FLUSH_SECONDS`): one pipe write, and one wake-up of the caller, per batch.
FLUSH_BYTES = 64 * 1024
FLUSH_SECONDS = 0.05


def main() -> int:
    tasks = orjson.loads(sys.stdin.buffer.read() or b"[]")
    out = sys.stdout.buffer
    pending: list[bytes] = []
    size = 0
    last = time.monotonic()
    for path, project, kind, prev in tasks:
        prev_info = _info_of_row(prev.encode()) if isinstance(prev, str) else None
        if isinstance(prev_info, str):
            prev_info = None
        info = scan_info(SessionFile(path, project, kind), prev_info, keep_first=True, mapped=True)  # (never raises)
        row = _row_of(info)
        if row is None:
            continue  # a row JSON cannot carry: the caller scans that file itself
        try:
            frag = _frag_of(info)
        except TypeError:
            frag = b""  # (made by the caller when printed)
        rec = _rec_of(info, row)  # (its identity and sort key, as the index keeps them)
        head = orjson.dumps([rec.path, rec.dev, rec.ino, rec.size, rec.mtime_ns, rec.mod, rec.err])
        frame = b"%d %d %d\n" % (len(head), len(row), len(frag)) + head + row + frag
        pending.append(frame)
        size += len(frame)
        now = time.monotonic()
        if size >= FLUSH_BYTES or now - last >= FLUSH_SECONDS:
            out.write(b"".join(pending))
            out.flush()
            pending.clear()
            size, last = 0, now
    out.write(b"".join(pending))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
