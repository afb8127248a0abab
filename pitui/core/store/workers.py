"""Worker processes, each given a payload, their messages read as they come: both sides.

The cold builds that run in worker processes use it: the listing's scan
(:mod:`.listing_worker`, results taken in any order) and the search index's
(:mod:`.search_worker`, results taken in the order the caller gave). A worker is
``python -m <module>``: it reads its payload from standard input (:func:`payload`) and
writes messages to standard output (:func:`write`). A message is a line of its parts'
lengths (decimal, separated by spaces), then the parts back to back.

The caller's side is :class:`Workers`. Every worker's input is written (non-blocking) and its
output read in one select loop, in the caller's thread, whenever the caller asks for a
message: a full pipe one way never blocks the other, and no thread is needed. A worker that
cannot start, dies, or writes something that is not a message has *ended*: the messages it
finished are kept, one it did not finish is dropped, and what it did not deliver is the
caller's to do. Closing (or leaving the ``with`` block, also on an exception, or closing a
generator that is inside it) kills the workers still running and reaps them all. Plain
subprocesses (rather than multiprocessing) keep the caller's ``__main__`` out of it and stay
safe beside threads.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from typing import TYPE_CHECKING, BinaryIO, Iterator, Sequence

if TYPE_CHECKING:
    import subprocess

__all__ = ["Workers", "payload", "write"]

#: Bytes read from a worker's output at a time.
READ_SIZE = 1 << 20
#: Pipes are widened to this (Linux; up to the system's limit), so that a worker writes on
#: while the caller is busy, and its payload goes in one write.
PIPE_SIZE = 1 << 20
#: A worker whose output holds this many bytes without a line break is not writing messages.
MAX_HEAD = 4096


# ----------------------------------------------------------------------------- the worker's side
def payload() -> bytes:
    """This worker's payload: all of its standard input."""
    return sys.stdin.buffer.read()


def write(*parts: bytes, out: BinaryIO | None = None) -> None:
    """Write one message of ``parts`` to standard output (or ``out``), and flush it."""
    if out is None:
        out = sys.stdout.buffer
    out.write(b" ".join([b"%d" % len(part) for part in parts]) + b"\n" + b"".join(parts))
    out.flush()


# ----------------------------------------------------------------------------- the caller's side
def _widen(*files) -> None:
    try:
        import fcntl

        for file in files:
            fcntl.fcntl(file.fileno(), fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    except (ImportError, AttributeError, OSError):
        pass  # (not Linux, or over the limit: the pipes keep their size)


class Workers:
    """``python -m module`` once per payload (``None``: no worker in that place), each fed its
    payload on standard input. Read with :meth:`messages` (any order) or :meth:`next_of`
    (worker by worker, in each worker's order); use as a context manager, or :meth:`close`."""

    def __init__(self, module: str, payloads: Sequence[bytes | None]):
        import selectors  # (here: a worker imports this module for its side only)

        count = len(payloads)
        self.procs: list[subprocess.Popen | None] = [None] * count
        self._held: list[deque[list[bytes]]] = [deque() for _ in range(count)]
        self._bufs = [bytearray() for _ in range(count)]
        self._open = [False] * count  # (its output is still being read)
        self._live = 0
        self._sel = selectors.DefaultSelector()
        try:
            for worker, data in enumerate(payloads):
                if data is not None:
                    self._start(worker, module, data)
        except BaseException:
            self.close()
            raise

    def _start(self, worker: int, module: str, data: bytes) -> None:
        import selectors
        import subprocess

        try:
            proc = subprocess.Popen([sys.executable, "-m", module], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError:
            return  # (it cannot start: its share is the caller's)
        self.procs[worker] = proc
        _widen(proc.stdin, proc.stdout)
        self._sel.register(proc.stdout, selectors.EVENT_READ, (worker, None))
        self._open[worker] = True
        self._live += 1
        if data:
            os.set_blocking(proc.stdin.fileno(), False)
            self._sel.register(proc.stdin, selectors.EVENT_WRITE, (worker, [memoryview(data), 0]))
        else:
            proc.stdin.close()

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def ended(self, worker: int) -> bool:
        """Whether ``worker``'s output has ended (or it never started): what it did not
        deliver by then (its messages held are still given), it never will."""
        return not self._open[worker]

    def messages(self) -> Iterator[tuple[int, list[bytes]]]:
        """``(worker, parts)`` for every message, as they come, until every worker has ended."""
        held = self._held
        while True:
            for worker, queue in enumerate(held):
                while queue:
                    yield worker, queue.popleft()
            if not self._live:
                return
            self._pump(None)

    def next_of(self, worker: int) -> list[bytes] | None:
        """``worker``'s next message (the others' are held until asked for), or None once
        it has ended with no message left."""
        queue = self._held[worker]
        if queue:
            if self._live:
                self._pump(0)  # (take in what the others wrote meanwhile: they write on)
        else:
            while not queue and self._open[worker]:
                self._pump(None)
        return queue.popleft() if queue else None

    def close(self) -> None:
        """Kill the workers still running, reap them all, close their pipes."""
        for worker, proc in enumerate(self.procs):
            if proc is None:
                continue
            for pipe in (proc.stdin, proc.stdout):
                self._forget(pipe)
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass
            self._open[worker] = False
        self._live = 0
        self._sel.close()

    # -- the select loop
    def _pump(self, timeout: float | None) -> None:
        """Write what the workers can take and read what they wrote, waiting up to
        ``timeout`` (None: until something happens) when nothing is ready."""
        for key, _ in self._sel.select(timeout):
            worker, job = key.data
            if job is None:
                self._read(worker, key.fileobj)
            else:
                self._write(worker, key.fileobj, job)

    def _write(self, worker: int, handle, job: list) -> None:
        data, at = job
        try:
            at += os.write(handle.fileno(), data[at:])
        except BlockingIOError:
            return
        except OSError:  # (it has stopped reading: it ended, or will)
            at = len(data)
        job[1] = at
        if at >= len(data):
            self._forget(handle)
            try:
                handle.close()
            except OSError:
                pass

    def _read(self, worker: int, handle) -> None:
        try:
            chunk = os.read(handle.fileno(), READ_SIZE)
        except OSError:
            chunk = b""
        if not chunk:
            self._end(worker)
            return
        buf = self._bufs[worker]
        buf += chunk
        held = self._held[worker]
        at = 0
        try:
            with memoryview(buf) as mv:
                while True:
                    nl = buf.find(b"\n", at, at + MAX_HEAD)
                    if nl < 0:
                        if len(buf) - at >= MAX_HEAD:
                            raise ValueError("not a message")
                        break
                    sizes = [int(field) for field in bytes(mv[at:nl]).split()]
                    end = nl + 1 + sum(sizes)
                    if min(sizes, default=0) < 0:
                        raise ValueError("not a message")
                    if len(buf) < end:
                        break
                    parts = []
                    offset = nl + 1
                    for size in sizes:
                        parts.append(bytes(mv[offset:offset + size]))
                        offset += size
                    held.append(parts)
                    at = end
        except ValueError:  # (not this module's messages: it is stopped, its share the caller's)
            proc = self.procs[worker]
            if proc is not None and proc.poll() is None:
                proc.kill()
            self._end(worker)
            return
        del buf[:at]

    def _end(self, worker: int) -> None:
        proc = self.procs[worker]
        if proc is not None:
            self._forget(proc.stdout)
            self._forget(proc.stdin)
        if self._open[worker]:
            self._open[worker] = False
            self._live -= 1
        self._bufs[worker] = bytearray()  # (a message it did not finish is dropped)

    def _forget(self, handle) -> None:
        try:
            self._sel.unregister(handle)
        except (KeyError, ValueError):
            pass
