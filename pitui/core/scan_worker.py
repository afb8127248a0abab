"""A worker process for opening big sessions: ``python -m pitui.core.scan_worker``.

``PATH START STOP VERSION`` (``STOP`` is ``-`` for "to the end of the file"): scans that
part with :meth:`Session.scan_part`. ``--whole PATH [--save]``: opens the whole file, builds
its tree, walks the current leaf's path and lays out the tree in the default filter (for
one worker beside a starting user interface, which then only has to load the result);
with ``--save`` it then keeps them in the skeleton cache (:mod:`skeleton_cache`);
``--save-only`` (at low priority) only does that.
Writes the pickled result to standard output; progress goes to standard error as one
decimal byte count per line. Plain subprocesses (rather than multiprocessing) keep the
caller's ``__main__`` out of it and stay safe beside threads.
"""

from __future__ import annotations

import gc
import os
import pickle
import sys

from .session import Session


def main(argv: list[str]) -> int:
    gc.disable()  # a short life making big structures and no garbage worth collecting
    err = sys.stderr
    if argv[0] == "--whole":
        from .treeview import layout_tree

        if "--save-only" in argv and hasattr(os, "nice"):
            os.nice(10)  # a background job: the user's own work comes first

        path = argv[1]
        s = Session.open(path, validate=False, progress=lambda done, total: (err.write(f"{done}\n"), err.flush()))
        if s.leaf >= 0:
            s.path_to(s.leaf)
        layout = layout_tree(s, "default", frozenset())
        result = {"ok": True, "file_size": s.file_size, "session": s.to_state(), "layout": layout.to_state()}
    else:
        path, start, stop, version = argv
        start_i = int(start)
        stop_i = None if stop == "-" else int(stop)

        def progress(done: int, total: int) -> None:
            err.write(f"{done - start_i}\n")
            err.flush()

        result = Session.scan_part(path, start_i, stop_i, int(version), progress=progress)
    if "--save-only" not in argv:
        out = sys.stdout.buffer
        out.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
        out.flush()
    if argv[0] == "--whole" and ("--save" in argv or "--save-only" in argv):
        # Done for the caller (closing our output ends its wait); then keep the
        # skeleton for the next open of this file.
        sys.stdout.close()
        sys.stderr.close()
        from . import skeleton_cache

        skeleton_cache.save(s, layout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
