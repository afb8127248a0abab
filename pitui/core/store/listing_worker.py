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

import orjson

from .discovery import SessionFile
from .listing import _frag_of, _info_of_row, _rec_of, _row_of, scan_info


def main() -> int:
    tasks = orjson.loads(sys.stdin.buffer.read() or b"[]")
    out = sys.stdout.buffer
    for path, project, kind, prev in tasks:
        prev_info = _info_of_row(prev.encode()) if isinstance(prev, str) else None
        if isinstance(prev_info, str):
            prev_info = None
        info = scan_info(SessionFile(path, project, kind), prev_info, keep_first=True)  # (never raises)
        row = _row_of(info)
        if row is None:
            continue  # a row JSON cannot carry: the caller scans that file itself
        try:
            frag = _frag_of(info)
        except TypeError:
            frag = b""  # (made by the caller when printed)
        rec = _rec_of(info, row)  # (its identity and sort key, as the index keeps them)
        head = orjson.dumps([rec.path, rec.dev, rec.ino, rec.size, rec.mtime_ns, rec.mod, rec.err])
        out.write(b"%d %d %d\n" % (len(head), len(row), len(frag)) + head + row + frag)
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
