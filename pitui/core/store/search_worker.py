"""Cold search indexing in worker processes: ``python -m pitui.core.store.search_worker``.

The worker reads a JSON array of session file paths on standard input and writes, for
each in that order, one JSON line: what :func:`pitui.core.store.search_chunks._index_whole` made
of it (its chunks and words, and the file's state), or ``null`` (the caller indexes that
file itself). The caller (:func:`indexed_in_workers`) hands the files out round-robin and
takes the results back in the order it gave, while it writes them to the index. Plain
subprocesses (rather than multiprocessing) keep the caller's ``__main__`` out of it and
stay safe beside threads.
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from typing import Iterator

import orjson

#: Index in worker processes when at least this many new files (and bytes) need reading.
PARALLEL_MIN_FILES = 16
PARALLEL_MIN_BYTES = 48 * 1024 * 1024


def main() -> int:
    from .search_chunks import _index_whole

    paths = orjson.loads(sys.stdin.buffer.read() or b"[]")
    out = sys.stdout.buffer
    for path in paths:
        try:
            got = orjson.dumps(_index_whole(path))
        except Exception:  # (the caller indexes it itself, and says what went wrong)
            got = b"null"
        out.write(got + b"\n")
        out.flush()
    return 0


def indexed_in_workers(paths: list[str], workers: int) -> Iterator[tuple[str, dict | None]]:
    """``(path, result or None)`` for each of ``paths`` in that order, as ``workers``
    worker processes index them (None: not delivered; the caller indexes it). Closing
    the iterator stops the workers."""
    groups = [paths[k::workers] for k in range(workers)]
    procs: list[subprocess.Popen] = []
    queues: list[queue.Queue] = []
    try:
        for group in groups:
            q: queue.Queue = queue.Queue()
            queues.append(q)
            if not group:
                continue
            try:
                proc = subprocess.Popen([sys.executable, "-m", "pitui.core.store.search_worker"],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            except OSError:
                q.put(None)
                continue
            procs.append(proc)
            threading.Thread(target=_pump, args=(proc, orjson.dumps(group), q), daemon=True).start()
        done = [False] * workers
        for i, path in enumerate(paths):
            k = i % workers
            got = None
            if not done[k]:
                line = queues[k].get()
                if line is None:
                    done[k] = True  # (that worker ended early: the rest of its files are the caller's)
                else:
                    try:
                        got = orjson.loads(line)
                    except ValueError:
                        got = None
            yield path, got
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


def _pump(proc: subprocess.Popen, payload: bytes, q: queue.Queue) -> None:
    """Give the worker its paths and put each line it writes into ``q`` (None at its end)."""
    try:
        proc.stdin.write(payload)
        proc.stdin.close()
        for line in proc.stdout:
            q.put(line)
    except (OSError, ValueError):
        pass
    finally:
        q.put(None)


if __name__ == "__main__":
    sys.exit(main())
