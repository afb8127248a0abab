"""A cold list's files scanned by worker processes (:mod:`.listing_worker`, run by :mod:`.workers`).

Loaded only when a list has many files to read (:data:`.listing.PARALLEL_MIN_FILES`). Given
the usage index, the workers count each file's usage from the same read
(:func:`.usage_read.scan_both`) and send its usage row with its listing row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

import orjson

from .discovery import utf8_name
from .listing_file import Rec
from .listing_rows import rec_of, row_of
from .listing_scan import scan_info
from .workers import Workers

if TYPE_CHECKING:
    from . import usage_file
    from .usage_index import UsageIndex

__all__ = ["scan_parallel", "LISTING_WORKER"]

#: The worker processes' module.
LISTING_WORKER = "pitui.core.store.listing_worker"


def scan_parallel(todo: list, workers: int, usage: UsageIndex | None = None) -> Iterator[
        tuple[Rec, usage_file.Row | None]]:
    """Yield index rows (:class:`Rec`) for ``todo`` (``(file, previous row or None, stat)``)
    as ``workers`` worker processes scan them (:mod:`.listing_worker`, run by
    :mod:`.workers`), in the order they come, each with its usage row when ``usage`` is
    given (the previous ones in ``usage.rows``; else None); a worker that fails, or a row
    that cannot be read, leaves its files to be scanned here."""
    # (a file name JSON cannot carry, one that is not UTF-8, is scanned here)
    order = sorted((task for task in todo if utf8_name(task[0].path)),
                   key=lambda task: -task[2].st_size)  # big first
    groups = [order[worker::workers] for worker in range(workers)]  # round-robin
    pending: dict[str, tuple] = {task[0].path: task for task in todo}
    prev_rows = usage.grown((sf.path, st) for sf, _, st in todo) if usage is not None else {}
    if usage is not None:
        from . import usage_file
        from .usage_read import scan_both

        cache = str(usage.dir) if usage.enabled else ""
    try:
        payloads = [
            orjson.dumps({"usage": cache if usage is not None else None, "tasks": [
                [sf.path, sf.project, sf.kind, row_of(prev).decode() if prev is not None else None,
                 usage.head_of(prev_rows.get(sf.path)) if usage is not None else None]
                for sf, prev, _ in group]}) if group else None
            for group in groups
        ]
        with Workers(LISTING_WORKER, payloads) as pool:
            for _, (head, blob) in pool.messages():  # a batch: the files' heads, then their texts
                at = 0
                for path, dev, ino, size, mtime_ns, mod, err, rl, fl, usage_head in orjson.loads(head):
                    row, frag = blob[at:at + rl], blob[at + rl:at + rl + fl]
                    at += rl + fl
                    usage_row = None
                    if usage_head is not None:
                        texts = []
                        for length in usage_head[6:]:
                            texts.append(blob[at:at + length])
                            at += length
                        usage_row = usage_file.Row(path, *usage_head[:6], *texts,
                                                   usage_file.check_summary(orjson.loads(texts[0])))
                    task = pending.pop(path, None)
                    if task is None:
                        continue  # (not a file asked for, or one already listed)
                    sf = task[0]
                    # (the row is decoded when asked for: the app, a file that grows)
                    rec = Rec(path, sf.project, sf.kind, dev, ino, size, mtime_ns, mod, err, row, frag, None)
                    if usage is not None and usage_row is None:  # (a file the worker could not read)
                        from .usage_read import read_row_or_none

                        usage_row = read_row_or_none(path, prev_rows.get(path), usage)
                    yield rec, usage_row
    except Exception:
        pass  # the workers could not be run or read: what they did not deliver is read here
    for sf, prev, st in list(pending.values()):  # anything a worker did not deliver
        if usage is None:
            yield rec_of(scan_info(sf, prev, st)), None
        else:
            info, usage_row = scan_both(sf, prev, prev_rows.get(sf.path), usage, st)
            yield rec_of(info), usage_row

