"""Cold search indexing in worker processes: ``python -m pitui.core.store.search_worker``.

The worker's payload (:mod:`.workers`) is a JSON array of session file paths; it writes, for
each in that order, one message: what :func:`pitui.core.store.search_chunks._index_whole`
made of it as JSON (its chunks and words, and the file's state), or ``null`` (the caller
indexes that file itself). The caller (:func:`indexed_in_workers`) hands the files out round-robin
and takes the results back in the order it gave, while it writes them to the index.
"""

from __future__ import annotations

import sys
from typing import Iterator

import orjson

from . import workers as _workers

#: Index in worker processes when at least this many new files (and bytes) need reading.
PARALLEL_MIN_FILES = 16
PARALLEL_MIN_BYTES = 48 * 1024 * 1024
#: The worker processes' module.
SEARCH_WORKER = "pitui.core.store.search_worker"


def main() -> int:
    from .search_chunks import _index_whole

    paths = orjson.loads(_workers.payload() or b"[]")
    for path in paths:
        try:
            got = orjson.dumps(_index_whole(path))
        except Exception:  # (the caller indexes it itself, and says what went wrong)
            got = b"null"
        _workers.write(got)
    return 0


def indexed_in_workers(paths: list[str], workers: int) -> Iterator[tuple[str, dict | None]]:
    """``(path, result or None)`` for each of ``paths`` in that order, as ``workers``
    worker processes index them (None: not delivered; the caller indexes it). Closing
    the iterator stops the workers."""
    groups = [paths[start::workers] for start in range(workers)]
    with _workers.Workers(SEARCH_WORKER, [orjson.dumps(group) if group else None for group in groups]) as pool:
        for index, path in enumerate(paths):
            msg = pool.next_of(index % workers)  # (None once that worker ended: the rest of its files are the caller's)
            got = None
            if msg is not None and len(msg) == 1:
                try:
                    got = orjson.loads(msg[0])
                except ValueError:
                    pass
            yield path, got


if __name__ == "__main__":
    sys.exit(main())
