"""A worker process for the usage index's cold reads: ``python -m pitui.core.store.usage_worker``.

Its payload (:mod:`.workers`) is a JSON object: ``cache`` (pitui's cache folder, or null
without one) and ``paths`` (session files to read whole). For each file it writes one
message: a head (JSON: the index row's path, device, inode, size, mtime, bytes read and
fingerprint; ``[path, null]`` when the file cannot be read), then the row's three texts
(:mod:`.usage_file`). It keeps each file's scan state in the cache itself
(:meth:`.usage.UsageIndex.keep_state`).
"""

from __future__ import annotations

import sys

import orjson

from . import workers
from .usage import UsageIndex, read_row


def main() -> int:
    task = orjson.loads(workers.payload() or b"{}")
    cache = task.get("cache")
    index = UsageIndex(cache, enabled=cache is not None) if cache is not None else UsageIndex(enabled=False)
    for path in task.get("paths") or ():
        try:
            row = read_row(path, None, index)
        except OSError:
            workers.write(orjson.dumps([path, None]))
            continue
        workers.write(orjson.dumps([row.path, row.dev, row.ino, row.size, row.mtime_ns, row.offset, row.fingerprint]),
                      row.summary, row.keys, row.columns)
    return 0


if __name__ == "__main__":
    sys.exit(main())
