"""A worker process for opening big sessions: ``python -m pitui.core.scan_worker``.

``PATH START STOP VERSION`` (``STOP`` is ``-`` for "to the end of the file"): scans that
part with :meth:`Session.scan_part` and writes the pickled result to standard output;
progress goes to standard error as one decimal byte count per line.

``--stream PATH CHUNK_BYTES [--save]``: reads the whole file, sending its entries while it reads: a
stream of frames (8-byte little-endian length, then a pickle) ``("chunk", (done_bytes,
columns))`` every ``CHUNK_BYTES`` of the file or more (:meth:`Session.columns`) and a last ``("end",
rest_state)``. The caller builds the tree from them (for one worker beside a starting user
interface, which only has to append chunks as they come). With ``--save`` the worker then
builds the tree and the default layout itself, at low priority, and keeps them in the
skeleton cache (:mod:`skeleton_cache`) for the next open; ``--whole PATH --save-only``
does only that.

Plain subprocesses (rather than multiprocessing) keep the caller's ``__main__`` out of it
and stay safe beside threads.
"""

from __future__ import annotations

import gc
import os
import pickle
import sys

from .session import Session

def _send(out, kind: str, payload) -> None:
    data = pickle.dumps((kind, payload), protocol=pickle.HIGHEST_PROTOCOL)
    out.write(len(data).to_bytes(8, "little"))
    out.write(data)
    out.flush()


def _stream(path: str, chunk_bytes: int) -> Session:
    out = sys.stdout.buffer
    s = Session(path)
    sent = 0

    def progress(done: int, total: int) -> None:
        nonlocal sent
        n = len(s.ids)
        if n > sent:
            _send(out, "chunk", (done, s.columns(sent, n)))
            sent = n

    s._scan(validate=False, progress=progress, build=False, progress_every=chunk_bytes)
    if len(s.ids) > sent:
        _send(out, "chunk", (s.scanned_to, s.columns(sent, len(s.ids))))
    _send(out, "end", s.rest_state())
    return s


def _lower_priority() -> None:
    if hasattr(os, "nice"):
        os.nice(10)  # a background job: the user's own work comes first


def _save(s: Session, built: bool) -> None:
    from . import skeleton_cache
    from .treeview import layout_tree

    if not built:
        s._build_tree()
    if s.leaf >= 0:
        s.path_to(s.leaf)
    skeleton_cache.save(s, layout_tree(s, "default", frozenset()))


def main(argv: list[str]) -> int:
    gc.disable()  # a short life making big structures and no garbage worth collecting
    err = sys.stderr
    if argv[0] == "--stream":
        s = _stream(argv[1], max(1, int(argv[2])))
        if "--save" in argv:
            # Done for the caller (closing our output ends its wait); then keep the
            # skeleton for the next open of this file.
            sys.stdout.close()
            sys.stderr.close()
            _lower_priority()
            _save(s, built=False)
        return 0
    if argv[0] == "--whole":  # --save-only
        _lower_priority()
        s = Session.open(argv[1], validate=False)
        _save(s, built=True)
        return 0
    path, start, stop, version = argv
    start_i = int(start)
    stop_i = None if stop == "-" else int(stop)

    def progress(done: int, total: int) -> None:
        err.write(f"{done - start_i}\n")
        err.flush()

    result = Session.scan_part(path, start_i, stop_i, int(version), progress=progress)
    out = sys.stdout.buffer
    out.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
