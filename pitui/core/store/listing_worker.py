"""A worker process for cold listing scans: ``python -m pitui.core.store.listing_worker``.

Its payload (:mod:`.workers`) is a JSON object: ``tasks``, each ``[path, project, kind,
previous row (the index's JSON array, as text) or null, the usage's previous row or
null]``, and ``usage``: pitui's cache folder when the files' usage is wanted too (``""``:
wanted, with no cache to keep scan states in), else null. It writes the files' rows as they
are scanned, in batches, one message of two parts each: the heads (a JSON array of one array
per file: path, device, inode, size, mtime, the sort key, whether it failed, its row's
length, its output's length, and its usage row's head or null), then the texts (per file its
row, the index's JSON array of its fields, its ``pitui list --json`` object: what the index
keeps, ``listing_rows.py``, ``listing_file.py``; then its usage row's three texts,
``usage_file.py``). The usage is counted from the same read of each line
(:func:`.usage_read.scan_both`); the usage's scan states are kept in the cache by the worker
itself (:meth:`.usage_index.UsageIndex.keep_state`).
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
    task = orjson.loads(workers.payload() or b"{}")
    cache = task.get("usage")
    usage_index = None
    if cache is not None:
        from .usage_index import UsageIndex
        from .usage_read import scan_both

        usage_index = UsageIndex(cache or None, enabled=bool(cache), load=False)
    heads: list[list] = []
    texts: list[bytes] = []
    size = 0
    last = time.monotonic()
    for path, project, kind, prev, prev_usage in task.get("tasks") or ():
        prev_info = info_of_row(prev.encode()) if isinstance(prev, str) else None
        if isinstance(prev_info, str):
            prev_info = None
        sf = SessionFile(path, project, kind)
        usage_row = None
        if usage_index is None:
            info = scan_info(sf, prev_info, keep_first=True, mapped=True)  # (never raises)
        else:
            prev_row = usage_index.head_row(path, prev_usage)
            info, usage_row = scan_both(sf, prev_info, prev_row, usage_index, keep_first=True, mapped=True)
        row = row_of(info)
        if row is None:
            continue  # a row JSON cannot carry: the caller scans that file itself
        try:
            frag = frag_of(info)
        except TypeError:
            frag = b""  # (made by the caller when printed)
        rec = rec_of(info, row)  # (its identity and sort key, as the index keeps them)
        usage_head = None
        if usage_row is not None:
            usage_head = [*usage_row[1:7], len(usage_row.summary), len(usage_row.keys), len(usage_row.columns)]
            texts.extend((row, frag, usage_row.summary, usage_row.keys, usage_row.columns))
            size += len(usage_row.summary) + len(usage_row.keys) + len(usage_row.columns)
        else:
            texts.extend((row, frag))
        heads.append([rec.path, rec.dev, rec.ino, rec.size, rec.mtime_ns, rec.mod, rec.err, len(row), len(frag),
                      usage_head])
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
