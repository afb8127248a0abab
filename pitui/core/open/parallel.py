"""Opening a big session on several cores.

A single Python thread reads a 200 MB session in about half a second; the app's own
thread would slow it down further (and be slowed down by it). So a big file is cut at
line boundaries into one part per core, each part is scanned by a worker process
(:mod:`pitui.core.open.scan_worker`), and the parts are put together here into exactly the
session a sequential scan reads (the conformance tests open the corpus both ways).

:class:`ParallelOpen` starts the workers at once and is finished later, so ``pitui FILE``
can start reading before the user interface is even imported (:func:`prestart`).
Anything unusual (no workers, a worker that fails, a file rewritten meanwhile) falls back
to the plain sequential :meth:`Session.open`.
"""

from __future__ import annotations

import contextlib
import os
import pickle  # (only for frames on the pipe from our own worker processes: see scan_worker)
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING, Callable

from ..gc_policy import gc_paused

try:
    import fcntl
except ImportError:  # not on this system
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:
    import subprocess

    from ..read.session import Session
    from ..model.layout import TreeLayout

# The session code, the skeleton cache and subprocess are imported where they are used,
# not here: ``pitui FILE`` starts the worker before anything else is imported (prestart),
# and every millisecond before that delays the whole open.

__all__ = ["ParallelOpen", "prestart", "cancel_prestart", "start", "PARALLEL_MIN_BYTES"]

# Smaller files are read in the calling thread: starting a worker costs ~0.07 s.
PARALLEL_MIN_BYTES = 48 * 1024 * 1024
# At least this much of the file per worker.
PART_MIN_BYTES = 24 * 1024 * 1024
MAX_JOBS = 8
# One worker reading the whole file sends its entries every this many bytes read: small
# enough that they are taken in here while it reads on, big enough that a chunk costs
# little (~2,000 entries of a big session).
STREAM_CHUNK_BYTES = 8 * 1024 * 1024


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _jobs_for(size: int, jobs: int | None, part_min: int) -> int:
    if jobs is None:
        jobs = min(cpu_count(), MAX_JOBS)
    return max(1, min(jobs, size // max(1, part_min)))


def _next_line_start(fd: int, pos: int, limit: int) -> int | None:
    """The offset just after the first newline at or after ``pos`` (before ``limit``)."""
    while pos < limit:
        chunk = os.pread(fd, min(256 * 1024, limit - pos), pos)
        if not chunk:
            return None
        newline = chunk.find(b"\n")
        if newline >= 0:
            return pos + newline + 1
        pos += len(chunk)
    return None


class ParallelOpen:
    """One open of ``path`` in progress. :meth:`result` finishes it (in any thread)."""

    def __init__(self, path: str | os.PathLike, *, jobs: int | None = None, min_bytes: int | None = None,
                 part_min: int | None = None, whole: bool = False, use_cache: bool = True,
                 freeze: bool = False, fork: bool = False):
        self.path = os.fspath(path)
        self._freeze = freeze  # see gc_paused
        self._fork = fork  # see _spawn
        self._unpin: frozenset[int] | None = None  # see _cores_apart
        self._procs: list[subprocess.Popen | _ForkedWorker] = []
        self._bounds: list[tuple[int, int | None]] = []
        self._head: Session | None = None
        self._cancelled = False
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._finished = threading.Event()  # _done is set (see finish_in_background)
        self._done: tuple[Session | None, BaseException | None] = (None, None)
        # a streamed session whose tree is loaded (its layout may still be on the way),
        # and who waits for it (see when_tree)
        self._tree_lock = threading.Lock()
        self._tree_session: Session | None = None
        self._tree_waiters: list[Callable[[Session], None]] = []
        #: tree layouts already made, by filter (see :meth:`finish_in_background`)
        self.layouts: dict[str, TreeLayout] = {}
        self.size = 0
        #: one worker reads the whole file and also builds the tree and the default layout
        self.whole = False
        #: the session came from a saved skeleton (see :mod:`skeleton_cache`)
        self.from_cache = False
        self._try_cache = False
        self._save = use_cache
        self._args = (jobs, PARALLEL_MIN_BYTES if min_bytes is None else min_bytes,
                      PART_MIN_BYTES if part_min is None else part_min, whole)
        self._start_safely(use_cache)

    def _start_safely(self, use_cache: bool) -> None:
        try:
            self._start(*self._args, use_cache)
        except Exception:  # the sequential open will say what is wrong
            self._kill()
            self._procs = []

    @property
    def workers(self) -> list[subprocess.Popen | _ForkedWorker]:
        """The worker processes reading the file (a copy; none when it is read here)."""
        return list(self._procs)

    @property
    def parallel(self) -> bool:
        """True when worker processes were started (or a saved skeleton is to be loaded)."""
        return bool(self._procs) or self._try_cache

    def _start(self, jobs: int | None, min_bytes: int, part_min: int, whole: bool, use_cache: bool) -> None:
        st = os.stat(self.path)
        self.size = st.st_size
        if st.st_size < min_bytes or jobs == 0:
            return
        from ..read.sniff import stream_kind

        if stream_kind(self.path) is not None:
            return  # an event stream: read whole here (open_session)
        # Even one part goes to a worker process: the caller's thread shares its
        # interpreter with the user interface, which would slow both down.
        parts = _jobs_for(st.st_size, jobs, part_min)
        stream = whole and parts == 1
        # A worker to be forked is started before the saved skeleton is looked for: it
        # begins reading at once while this process imports the cache's code and looks
        # (and it is stopped again at once when a skeleton is there).
        fork_first = stream and self._fork and _can_fork()
        if use_cache and not fork_first and _skeleton_cache().usable(self.path):
            self._try_cache = True  # result() loads it (and starts the workers if it does not fit)
            return
        if stream:
            self.whole = True
            self._procs.append(self._spawn(["--stream", self.path, str(STREAM_CHUNK_BYTES)] + (["--save"] if self._save else []), stderr=False,
                                           apart=fork_first))
            if fork_first and use_cache and _skeleton_cache().usable(self.path):
                for proc in self._procs:
                    proc.kill_now()  # type: ignore[union-attr]
                self._procs = []
                self._unpin_threads()  # (no worker to keep apart: the skeleton is loaded here)
                self.whole = False
                self._try_cache = True
            return
        from ..read.session import Session

        head = Session.read_header(self.path, sniffed=True)
        if head.version < 2 or head.scanned_to >= st.st_size:
            return
        start = head.scanned_to
        bounds: list[int] = [start]
        fd = os.open(self.path, os.O_RDONLY)
        try:
            span = st.st_size - start
            for part in range(1, parts):
                part_end = _next_line_start(fd, start + span * part // parts, st.st_size)
                if part_end is None or part_end <= bounds[-1] or part_end >= st.st_size:
                    break
                bounds.append(part_end)
        finally:
            os.close(fd)
        self._head = head
        self._bounds = [(start, end) for start, end in zip(bounds, bounds[1:])] + [(bounds[-1], None)]
        for part_start, part_end in self._bounds:
            self._procs.append(self._spawn([self.path, str(part_start), "-" if part_end is None else str(part_end), str(head.version)]))

    def _spawn(self, args: list[str], stderr: bool = True, apart: bool = False) -> subprocess.Popen | _ForkedWorker:
        if self._fork and _can_fork():
            cores = _cores_apart() if apart else None
            proc: subprocess.Popen | _ForkedWorker = _fork_worker(args, stderr, cores)
            if cores is not None:
                self._unpin = cores[0] | cores[1]
        else:
            import subprocess

            proc = subprocess.Popen(
                [sys.executable, "-m", "pitui.core.open.scan_worker", *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if stderr else subprocess.DEVNULL,
            )
        if fcntl is not None and hasattr(fcntl, "F_SETPIPE_SZ"):
            # a 1 MiB pipe: the result crosses in a few reads, not a hundred 64 KiB ones
            # (each read waits for the interpreter lock while the UI thread runs)
            try:
                fcntl.fcntl(proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)  # type: ignore[union-attr]
            except OSError:
                pass
        return proc

    def _save_in_background(self) -> None:
        """Keep the skeleton for the next open: the parts were joined here, and saving
        them from this process would take the user interface's interpreter for a tenth
        of a second, so a low-priority worker reads the file again and saves it."""
        import subprocess

        try:
            subprocess.Popen(
                [sys.executable, "-m", "pitui.core.open.scan_worker", "--whole", self.path, "--save-only"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            pass

    def cancel(self) -> None:
        """Stop the workers (the open is no longer wanted)."""
        self._cancelled = True
        self._kill()

    def _kill(self) -> None:
        for proc in self._procs:
            try:
                proc.kill()
            except OSError:
                pass

    def _unpin_threads(self) -> None:
        """This process's threads back on every core it may use, once the worker kept
        apart from them (:func:`_cores_apart`) has sent the session."""
        cores, self._unpin = self._unpin, None
        if cores is not None:
            _set_cores_of_all_threads(cores)

    def finish_in_background(self) -> None:
        """Collect and join the parts on a thread of this process as they come, and lay out
        the tree in the default filter, so that :meth:`result` finds it all done (``pitui
        FILE``: while the user interface is still starting)."""

        def run() -> None:
            try:
                session = self._result(None)
                self.layout(session, "default")
                self._done = (session, None)
            except BaseException as exc:  # handed to result()
                self._done = (None, exc)
            self._unpin_threads()  # (before the session is handed over and shown)
            self._finished.set()
            # A forked worker is this process's child to wait for, here, after the
            # session is handed over (a streaming one goes on to save the skeleton).
            for proc in self._procs:
                if isinstance(proc, _ForkedWorker):
                    proc.wait()

        self._thread = threading.Thread(target=run, name="pitui-open", daemon=True)
        self._thread.start()

    def layout(self, session: Session, mode: str) -> TreeLayout:
        """``session``'s tree layout in filter ``mode`` (made here unless a worker or the
        skeleton cache already made it), with the current leaf's path walked too (the
        session keeps it), so that neither is left to the user interface's thread."""
        from ..model.layout import layout_tree

        got = self.layouts.get(mode)
        with gc_paused(self._freeze):
            if got is None:
                got = self.layouts[mode] = layout_tree(session, mode, frozenset())
            if session.leaf >= 0:
                session.path_to(session.leaf)
        return got

    def result(self, progress: Callable[[int, int], None] | None = None) -> Session:
        """The opened session (the sequential :meth:`Session.open` when the parallel way
        cannot be taken). Raises :class:`NotASession` as that does. :meth:`when_tree`
        hears of it sooner."""
        if self._thread is not None:
            self._finished.wait()
            session, exc = self._done
            if exc is not None:
                raise exc
            assert session is not None
            return session
        return self._result(progress)

    def when_tree(self, on_tree: Callable[[Session], None]) -> None:
        """Call ``on_tree`` once a streamed session's tree is loaded: here and now if it
        is, else in the thread that loads it, when it does (never, when the open takes
        another way): while the worker still lays the tree out, time for the caller to
        work on the session. Ask before waiting for :meth:`result`."""
        with self._tree_lock:
            session = self._tree_session
            if session is None:
                self._tree_waiters.append(on_tree)
                return
        on_tree(session)

    def _tree_ready(self, session: Session) -> None:
        with self._tree_lock:
            self._tree_session = session
            waiters, self._tree_waiters = self._tree_waiters, []
        for waiter in waiters:
            try:
                waiter(session)
            except Exception:
                pass  # the caller's business: the open goes on

    def _result(self, progress: Callable[[int, int], None] | None) -> Session:
        from ..read.open import open_session

        with self._lock:
            if self._try_cache:
                self._try_cache = False
                with gc_paused(self._freeze):
                    got = _skeleton_cache().load(self.path)
                if got is not None:
                    session, layout = got
                    if layout is not None:
                        self.layouts["default"] = layout
                    self.from_cache = True
                    return session
                self._start_safely(False)  # no saved skeleton fits the file now: read it
            if self.whole:
                streamed = self._collect_stream(progress)
                if streamed is not None:
                    return streamed
                parts = None
            else:
                parts = self._collect(progress) if self._procs else None
            if parts is None:
                if self._cancelled:
                    raise RuntimeError("cancelled")
                return open_session(self.path, validate=False, progress=progress)
            with gc_paused(self._freeze):
                head = self._head
                assert head is not None
                head.add_parts(parts)
            if self._save:
                self._save_in_background()
            return head

    def _collect_stream(self, progress: Callable[[int, int], None] | None) -> Session | None:
        """The session a ``--stream`` worker sends: its chunks of entries appended as they
        come (while the worker reads on), then its tree (loaded while the worker lays it
        out), then the default layout. None if the worker failed or the file shrank
        meanwhile."""
        from ..read.session import Session
        from ..model.layout import TreeLayout

        proc = self._procs[0]
        read = proc.stdout.read  # type: ignore[union-attr]
        session = Session(self.path)
        tree = False
        while not self._cancelled:
            head = read(8)
            if len(head) < 8:
                return None  # the worker failed (the sequential open says why)
            size = int.from_bytes(head, "little")
            data = read(size)
            if len(data) < size:
                return None
            try:
                kind, payload = pickle.loads(data)
            except Exception:
                return None
            if kind == "chunk":
                done, columns = payload
                session.extend_columns(columns)
                if progress is not None:
                    progress(min(done, self.size), self.size)
            elif kind == "tree" and not tree:
                if payload["rest"].get("file_size", 0) < self.size:
                    return None  # rewritten while it was read
                if progress is not None:
                    progress(self.size, self.size)
                with gc_paused(self._freeze):
                    session.finish_stream(payload["rest"], payload["tree"])
                tree = True
                self._tree_ready(session)
            elif kind == "end" and tree:
                with gc_paused(self._freeze):
                    self.layouts["default"] = TreeLayout.from_state(payload, checked=False)
                return session
            else:
                return None
        return None

    def _collect(self, progress: Callable[[int, int], None] | None) -> list[dict] | None:
        import selectors

        procs = self._procs
        outs = [bytearray() for _ in procs]
        errs = [bytearray() for _ in procs]
        done = [0] * len(procs)
        sel = selectors.DefaultSelector()
        try:
            for worker, proc in enumerate(procs):
                assert proc.stdout is not None and proc.stderr is not None
                sel.register(proc.stdout, selectors.EVENT_READ, (worker, outs))
                sel.register(proc.stderr, selectors.EVENT_READ, (worker, errs))
            open_pipes = 2 * len(procs)
            while open_pipes:
                for key, _ in sel.select(timeout=1.0):
                    worker, bufs = key.data
                    data = os.read(key.fd, 1 << 20)
                    if not data:
                        sel.unregister(key.fileobj)
                        open_pipes -= 1
                        continue
                    bufs[worker] += data
                    if bufs is errs and progress is not None:
                        lines = bytes(errs[worker]).split(b"\n")
                        last = [line for line in lines[:-1] if line.strip().isdigit()]
                        if last:
                            done[worker] = int(last[-1])
                            errs[worker] = bytearray(lines[-1])
                            base = 0 if self._head is None else self._head.scanned_to
                            progress(min(base + sum(done), self.size), self.size)
                if self._cancelled:
                    return None
        finally:
            sel.close()
        parts = []
        for worker, proc in enumerate(procs):
            # Not waited for: a whole-file worker saves the skeleton after closing its
            # output. A worker that failed wrote no whole result (pickle.loads says so).
            rc = proc.poll()
            if rc is not None and rc != 0:
                return None
            try:
                part = pickle.loads(bytes(outs[worker]))
            except Exception:
                return None
            if not isinstance(part, dict) or not part.get("ok"):
                return None
            parts.append(part)
        # A file rewritten while the parts were read: the parts do not fit together.
        if any(part["file_size"] < self.size for part in parts):
            return None
        return parts


def _skeleton_cache():
    from . import skeleton_cache

    return skeleton_cache


def _can_fork() -> bool:
    # Only before any other thread runs (a forked child gets only the forking thread, and
    # locks others held stay held), and on Linux (elsewhere forking without exec is
    # unsafe once system frameworks are loaded, or impossible).
    return sys.platform.startswith("linux") and hasattr(os, "fork") and threading.active_count() == 1


def _cores_apart() -> tuple[frozenset[int], frozenset[int]] | None:
    """For the one worker forked beside a starting user interface: a core of its own
    (the last this process may use), and the others for this process (both together are
    given back to it once the session is in). The first screen waits for the worker's
    read; kept apart, the interface's threads never take the worker's core meanwhile, nor
    it theirs (docs/performance.md). None where cores cannot be chosen or there are fewer
    than two."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    try:
        allowed = frozenset(os.sched_getaffinity(0))
    except OSError:
        return None
    if len(allowed) < 2:
        return None
    mine = frozenset((max(allowed),))
    return mine, allowed - mine


def _set_cores_of_all_threads(cores: frozenset[int]) -> None:
    """Every thread of this process allowed on ``cores`` (a thread started meanwhile
    inherits its starter's cores, so the threads are looked at twice)."""
    for _ in range(2):
        try:
            tids = [int(tid) for tid in os.listdir("/proc/self/task")]
        except OSError:
            tids = [0]
        for tid in tids:
            with contextlib.suppress(OSError):
                if os.sched_getaffinity(tid) != cores:
                    os.sched_setaffinity(tid, cores)


class _ForkedWorker:
    """A scan worker forked from this process rather than started as a new interpreter:
    the parts of :class:`subprocess.Popen` used here. ``pitui FILE`` forks its worker
    before it imports the user interface: the worker begins reading ~0.1 s sooner, and
    the interpreter's start and the session code's imports are not done twice on a
    machine with few cores."""

    def __init__(self, pid: int, stdout, stderr) -> None:
        self.pid = pid
        self.stdout = stdout
        self.stderr = stderr
        self.returncode: int | None = None
        self._lock = threading.Lock()

    def poll(self) -> int | None:
        with self._lock:  # (never held while waiting: poll answers at once)
            if self.returncode is None:
                try:
                    pid, status = os.waitpid(self.pid, os.WNOHANG)
                except ChildProcessError:  # waited for elsewhere: its status is lost
                    self.returncode = 0
                else:
                    if pid:
                        self.returncode = os.waitstatus_to_exitcode(status)
            return self.returncode

    def wait(self) -> int:
        while self.poll() is None:
            time.sleep(0.02)
        return self.returncode  # type: ignore[return-value]

    def kill(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)

    def kill_now(self) -> None:
        """Kill the child and wait for it here (only while no other thread waits for it)."""
        self.kill()
        with self._lock:
            if self.returncode is None:
                try:
                    _, status = os.waitpid(self.pid, 0)
                except ChildProcessError:
                    self.returncode = -signal.SIGKILL
                else:
                    self.returncode = os.waitstatus_to_exitcode(status)


def _fork_worker(args: list[str], stderr: bool,
                 cores: tuple[frozenset[int], frozenset[int]] | None = None) -> _ForkedWorker:
    """Run :func:`scan_worker.main` with ``args`` in a forked child, its standard output
    (and error, with ``stderr``) piped here, as a started worker's would be. With
    ``cores`` (:func:`_cores_apart`), the child runs on the first set and this process
    (one thread yet: see :func:`_can_fork`) on the second."""
    from . import scan_worker  # (imported here, so the child starts with it)

    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe() if stderr else (-1, os.open(os.devnull, os.O_WRONLY))
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()  # (or the child would write what is buffered again)
    pid = os.fork()
    if pid == 0:  # the child: never returns to the caller's code
        rc = 1
        try:
            if cores is not None:
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(0, cores[0])
            os.close(out_r)
            if err_r >= 0:
                os.close(err_r)
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(out_w, 1)
            os.dup2(err_w, 2)
            for fd in (null, out_w, err_w):
                os.close(fd)
            # the worker writes to sys.stdout/stderr: make them these pipes, whatever
            # this process had made of them
            sys.stdout = open(1, "w", encoding="utf-8")
            sys.stderr = open(2, "w", encoding="utf-8")
            rc = scan_worker.main(args)
        except BaseException:
            pass
        finally:
            os._exit(rc)
    os.close(out_w)
    os.close(err_w)
    if cores is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, cores[1])
    return _ForkedWorker(pid, open(out_r, "rb"), open(err_r, "rb") if err_r >= 0 else None)


_pending: dict[str, ParallelOpen] = {}
_pending_lock = threading.Lock()


def prestart(path: str | os.PathLike, jobs: int | None = None, freeze: bool = False) -> None:
    """Start reading ``path`` now (``pitui FILE`` calls this before it imports the user
    interface); the next :func:`start` of the same file takes it over. By default
    one core is left to the user interface's start-up (on two cores: one worker that
    also lays out the tree); parts are joined on a thread meanwhile. Workers are forked
    from this process when that is safe (see :class:`_ForkedWorker`)."""
    if jobs is None:
        jobs = max(1, min(cpu_count(), MAX_JOBS) - 1)
    opener = ParallelOpen(path, jobs=jobs, whole=True, freeze=freeze, fork=True)
    opener.finish_in_background()
    with _pending_lock:
        old = _pending.pop(opener.path, None)
        _pending[opener.path] = opener
    if old is not None:
        old.cancel()


def prestarted() -> dict[str, ParallelOpen]:
    """The reads :func:`prestart` began that no :func:`start` took over yet, by path (a copy)."""
    with _pending_lock:
        return dict(_pending)


def cancel_prestart(path: str | os.PathLike) -> None:
    """Stop the read :func:`prestart` began for ``path`` (it is not wanted after all)."""
    with _pending_lock:
        pending = _pending.pop(os.fspath(path), None)
    if pending is not None:
        pending.cancel()


def start(path: str | os.PathLike, freeze: bool = False) -> ParallelOpen:
    """The open of ``path`` started by :func:`prestart`, or a new one. A file that grew
    meanwhile is still read right (the last part reads to its end); one that shrank is
    noticed by the parts and read again the usual way."""
    key = os.fspath(path)
    with _pending_lock:
        pending = _pending.pop(key, None)
    return pending if pending is not None else ParallelOpen(key, freeze=freeze)
