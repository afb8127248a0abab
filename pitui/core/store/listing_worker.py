"""A worker process for cold listing scans: ``python -m pitui.core.store.listing_worker``.

Its payload (:mod:`.workers`) is a JSON array of tasks ``[path, project, kind, previous row
(the index's JSON array, as text) or null]``; it writes the files' rows as they are scanned,
in batches, one message of two parts each: the heads (a JSON array of one array per file:
path, device, inode, size, mtime, the sort key, whether it failed, its row's length, its
output's length), then the texts (per file its row, the index's JSON array of its fields,
and its ``pitui list --json`` object: what the index keeps, ``listing_rows.py``,
``listing_file.py``).
"""

from __future__ import annotations

import sys
import time

import orjson

from . import workers
from .discovery import SessionFile
from .listing_rows import frag_of, info_of_row, rec_of, row_of
from .listing_scan import scan_info

#: A batch is written when its texts reach about this many bytes, or when it holds what was
#: scanned in :data:`FLUSH_SECONDS`: one pipe write, and one wake-up of the caller, a batch.
FLUSH_BYTES = 64 * 1024
FLUSH_SECONDS = 0.05


def main() -> int:
    tasks = orjson.loads(workers.payload() or b"[]")
    heads: list[list] = []
    texts: list[bytes] = []
    size = 0
    last = time.monotonic()
    for path, project, kind, prev in tasks:
        prev_info = info_of_row(prev.encode()) if isinstance(prev, str) else None
        if isinstance(prev_info, str):
            prev_info = None
        info = scan_info(SessionFile(path, project, kind), prev_info, keep_first=True, mapped=True)  # (never raises)
        row = row_of(info)
        if row is None:
            continue  # a row JSON cannot carry: the caller scans that file itself
        try:
            frag = frag_of(info)
        except TypeError:
            frag = b""  # (made by the caller when printed)
        rec = rec_of(info, row)  # (its identity and sort key, as the index keeps them)
        heads.append([rec.path, rec.dev, rec.ino, rec.size, rec.mtime_ns, rec.mod, rec.err, len(row), len(frag)])
        texts.append(row)
        texts.append(frag)
        size += len(row) + len(frag)
        now = time.monotonic()
        if size >= FLUSH_BYTES or now - last >= FLUSH_SECONDS:
            _write(heads, texts)
            size, last = 0, now
    _write(heads, texts)
    return 0


def _write(heads: list, texts: list) -> None:
    if heads:
        workers.write(orjson.dumps(heads), b"".join(texts))
        heads.clear()
        texts.clear()


if __name__ == "__main__":
    sys.exit(main())
