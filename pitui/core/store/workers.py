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
    out.write(b" ".join([b"%d" % len(p) for p in parts]) + b"\n" + b"".join(parts))
    out.flush()


# ----------------------------------------------------------------------------- the caller's side
def _widen(*files) -> None:
    try:
        import fcntl

        for f in files:
            fcntl.fcntl(f.fileno(), fcntl.F_SETPIPE_SZ, PIPE_SIZE)
    except (ImportError, AttributeError, OSError):
        pass  # (not Linux, or over the limit: the pipes keep their size)


class Workers:
    """``python -m module`` once per payload (``None``: no worker in that place), each fed its
    payload on standard input. Read with :meth:`messages` (any order) or :meth:`next_of`
    (worker by worker, in each worker's order); use as a context manager, or :meth:`close`."""

    def __init__(self, module: str, payloads: Sequence[bytes | None]):
        import selectors  # (here: a worker imports this module for its side only)

        n = len(payloads)
        self.procs: list[subprocess.Popen | None] = [None] * n
        self._held: list[deque[list[bytes]]] = [deque() for _ in range(n)]
        self._bufs = [bytearray() for _ in range(n)]
        self._open = [False] * n  # (its output is still being read)
        self._live = 0
        self._sel = selectors.DefaultSelector()
        try:
            for k, data in enumerate(payloads):
                if data is not None:
                    self._start(k, module, data)
        except BaseException:
            self.close()
            raise

    def _start(self, k: int, module: str, data: bytes) -> None:
        import selectors
        import subprocess

        try:
            proc = subprocess.Popen([sys.executable, "-m", module], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError:
            return  # (it cannot start: its share is the caller's)
        self.procs[k] = proc
        _widen(proc.stdin, proc.stdout)
        self._sel.register(proc.stdout, selectors.EVENT_READ, (k, None))
        self._open[k] = True
        self._live += 1
        if data:
            os.set_blocking(proc.stdin.fileno(), False)
            self._sel.register(proc.stdin, selectors.EVENT_WRITE, (k, [memoryview(data), 0]))
        else:
            proc.stdin.close()

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def ended(self, k: int) -> bool:
        """Whether worker ``k``'s output has ended (or it never started): what it did not
        deliver by then (its messages held are still given), it never will."""
        return not self._open[k]

    def messages(self) -> Iterator[tuple[int, list[bytes]]]:
        """``(worker, parts)`` for every message, as they come, until every worker has ended."""
        held = self._held
        while True:
            for k, q in enumerate(held):
                while q:
                    yield k, q.popleft()
            if not self._live:
                return
            self._pump(None)

    def next_of(self, k: int) -> list[bytes] | None:
        """Worker ``k``'s next message (the others' are held until asked for), or None once
        it has ended with no message left."""
        q = self._held[k]
        if q:
            if self._live:
                self._pump(0)  # (take in what the others wrote meanwhile: they write on)
        else:
            while not q and self._open[k]:
                self._pump(None)
        return q.popleft() if q else None

    def close(self) -> None:
        """Kill the workers still running, reap them all, close their pipes."""
        for k, proc in enumerate(self.procs):
            if proc is None:
                continue
            for f in (proc.stdin, proc.stdout):
                self._forget(f)
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            for f in (proc.stdin, proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass
            self._open[k] = False
        self._live = 0
        self._sel.close()

    # -- the select loop
    def _pump(self, timeout: float | None) -> None:
        """Write what the workers can take and read what they wrote, waiting up to
        ``timeout`` (None: until something happens) when nothing is ready."""
        for key, _ in self._sel.select(timeout):
            k, job = key.data
            if job is None:
                self._read(k, key.fileobj)
            else:
                self._write(k, key.fileobj, job)

    def _write(self, k: int, f, job: list) -> None:
        data, at = job
        try:
            at += os.write(f.fileno(), data[at:])
        except BlockingIOError:
            return
        except OSError:  # (it has stopped reading: it ended, or will)
            at = len(data)
        job[1] = at
        if at >= len(data):
            self._forget(f)
            try:
                f.close()
            except OSError:
                pass

    def _read(self, k: int, f) -> None:
        try:
            chunk = os.read(f.fileno(), READ_SIZE)
        except OSError:
            chunk = b""
        if not chunk:
            self._end(k)
            return
        buf = self._bufs[k]
        buf += chunk
        held = self._held[k]
        at = 0
        try:
            with memoryview(buf) as mv:
                while True:
                    nl = buf.find(b"\n", at, at + MAX_HEAD)
                    if nl < 0:
                        if len(buf) - at >= MAX_HEAD:
                            raise ValueError("not a message")
                        break
                    sizes = [int(s) for s in bytes(mv[at:nl]).split()]
                    end = nl + 1 + sum(sizes)
                    if min(sizes, default=0) < 0:
                        raise ValueError("not a message")
                    if len(buf) < end:
                        break
                    parts = []
                    o = nl + 1
                    for s in sizes:
                        parts.append(bytes(mv[o:o + s]))
                        o += s
                    held.append(parts)
                    at = end
        except ValueError:  # (not this module's messages: it is stopped, its share the caller's)
            proc = self.procs[k]
            if proc is not None and proc.poll() is None:
                proc.kill()
            self._end(k)
            return
        del buf[:at]

    def _end(self, k: int) -> None:
        proc = self.procs[k]
        if proc is not None:
            self._forget(proc.stdout)
            self._forget(proc.stdin)
        if self._open[k]:
            self._open[k] = False
            self._live -= 1
        self._bufs[k] = bytearray()  # (a message it did not finish is dropped)

    def _forget(self, f) -> None:
        try:
            self._sel.unregister(f)
        except (KeyError, ValueError):
            pass
