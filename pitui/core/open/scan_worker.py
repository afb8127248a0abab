"""A worker process for opening big sessions: ``python -m pitui.core.open.scan_worker``.

``PATH START STOP VERSION`` (``STOP`` is ``-`` for "to the end of the file"): scans that
part with :meth:`Session.scan_part` and writes the pickled result to standard output;
progress goes to standard error as one decimal byte count per line.

``--stream PATH CHUNK_BYTES [--save]``: reads the whole file, sending its entries while it
reads: a stream of frames (8-byte little-endian length, then a pickle) ``("chunk",
(done_bytes, columns))`` every ``CHUNK_BYTES`` of the file or more (:meth:`Session.columns`),
then ``("tree", {"rest", "tree"})`` (:meth:`Session.rest_state`, :meth:`Session.tree_state`)
and a last ``("end", layout)`` (the default :meth:`TreeLayout.to_state`): for one worker
beside a starting user interface, which only has to append chunks as they come and load
the rest. With ``--save`` the worker then
keeps them in the skeleton cache (:mod:`skeleton_cache`) for the next open, at low
priority; ``--whole PATH --save-only`` only does that.

Plain subprocesses (rather than multiprocessing) keep the caller's ``__main__`` out of it
and stay safe beside threads.

Pickle is used here only on a pipe between pitui and a worker pitui itself started (or
forked), never on anything read from disk: what crosses was made by our own code a moment
before, in our own process tree. Files on disk (the skeleton cache) are data-only
(:mod:`skeleton_cache`).
"""

from __future__ import annotations

import gc
import os
import pickle
import sys

from ..read.session import Session
from ..model.layout import TreeLayout, layout_tree


def _send(out, kind: str, payload) -> None:
    data = pickle.dumps((kind, payload), protocol=pickle.HIGHEST_PROTOCOL)
    out.write(len(data).to_bytes(8, "little"))
    out.write(data)
    out.flush()


def _stream(path: str, chunk_bytes: int) -> tuple[Session, TreeLayout]:
    out = sys.stdout.buffer
    session = Session(path)
    sent = 0

    def progress(done: int, total: int) -> None:
        nonlocal sent
        count = len(session.ids)
        if count > sent:
            _send(out, "chunk", (done, session.columns(sent, count)))
            sent = count

    # (the scan reports progress once more at its end: the last entries go then)
    session._scan(validate=False, progress=progress, build=False, progress_every=chunk_bytes, mapped=True)
    # The tree, the leaf's path and the layout are made here too: loading them takes the
    # caller (a starting user interface, busy) a third of the time of making them. The
    # tree goes first, to be loaded there while the layout is made here.
    session._build_tree()
    if session.leaf >= 0:
        session.path_to(session.leaf)
    _send(out, "tree", {"rest": session.rest_state(), "tree": session.tree_state()})
    layout = layout_tree(session, "default", frozenset())
    _send(out, "end", layout.to_state())
    return session, layout


def _lower_priority() -> None:
    if hasattr(os, "nice"):
        os.nice(10)  # a background job: the user's own work comes first


def _save(session: Session, layout: TreeLayout | None = None) -> None:
    from . import skeleton_cache

    if layout is None:
        if session.leaf >= 0:
            session.path_to(session.leaf)
        layout = layout_tree(session, "default", frozenset())
    skeleton_cache.save(session, layout)


def main(argv: list[str]) -> int:
    gc.disable()  # a short life making big structures and no garbage worth collecting
    err = sys.stderr
    if argv[0] == "--stream":
        session, layout = _stream(argv[1], max(1, int(argv[2])))
        if "--save" in argv:
            # Done for the caller (closing our output ends its wait); then keep the
            # skeleton for the next open of this file.
            sys.stdout.close()
            sys.stderr.close()
            _lower_priority()
            _save(session, layout)
        return 0
    if argv[0] == "--whole":  # --save-only
        _lower_priority()
        session = Session.open(argv[1], validate=False)
        _save(session)
        return 0
    path, start, stop, version = argv
    start_i = int(start)
    stop_i = None if stop == "-" else int(stop)

    def progress(done: int, total: int) -> None:
        err.write(f"{done - start_i}\n")
        err.flush()

    result = Session.scan_part(path, start_i, stop_i, int(version), progress=progress, mapped=True)
    out = sys.stdout.buffer
    out.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
