"""A cold list's files scanned by worker processes (:mod:`.listing_worker`, run by :mod:`.workers`).

Loaded only when a list has many files to read (:data:`.listing.PARALLEL_MIN_FILES`).
"""

from __future__ import annotations

import orjson

from .discovery import utf8_name
from .listing_file import Rec
from .listing_rows import rec_of, row_of
from .listing_scan import scan_info
from .workers import Workers

__all__ = ["scan_parallel", "LISTING_WORKER"]

#: The worker processes' module.
LISTING_WORKER = "pitui.core.store.listing_worker"


def scan_parallel(todo: list, workers: int):
    """Yield index rows (:class:`Rec`) for ``todo`` as ``workers`` worker processes scan
    them (:mod:`.listing_worker`, run by :mod:`.workers`), in the order they come; a worker
    that fails, or a row that cannot be read, leaves its files to be scanned here."""
    # (a file name JSON cannot carry, one that is not UTF-8, is scanned here)
    order = sorted((t for t in todo if utf8_name(t[0].path)), key=lambda t: -t[2].st_size)  # big first
    groups = [order[k::workers] for k in range(workers)]  # round-robin
    pending: dict[str, tuple] = {t[0].path: t for t in todo}
    try:
        payloads = [
            orjson.dumps([[sf.path, sf.project, sf.kind, row_of(prev).decode() if prev is not None else None]
                          for sf, prev, _ in group]) if group else None
            for group in groups
        ]
        with Workers(LISTING_WORKER, payloads) as pool:
            for _, (head, blob) in pool.messages():  # a batch: the files' heads, then their texts
                o = 0
                for path, dev, ino, size, mtime_ns, mod, err, rl, fl in orjson.loads(head):
                    row, frag = blob[o:o + rl], blob[o + rl:o + rl + fl]
                    o += rl + fl
                    task = pending.pop(path, None)
                    if task is None:
                        continue  # (not a file asked for, or one already listed)
                    sf = task[0]
                    # (the row is decoded when asked for: the app, a file that grows)
                    yield Rec(path, sf.project, sf.kind, dev, ino, size, mtime_ns, mod, err, row, frag, None)
    except Exception:
        pass  # the workers could not be run or read: what they did not deliver is read here
    for task in list(pending.values()):  # anything a worker did not deliver
        yield rec_of(scan_info(*task))

