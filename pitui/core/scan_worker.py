"""A worker process for parallel opening: ``python -m pitui.core.scan_worker``.

Arguments: ``PATH START STOP VERSION`` (``STOP`` is ``-`` for "to the end of the file").
Scans that part with :meth:`Session.scan_part` and writes the pickled result to standard
output; progress goes to standard error as one decimal byte count per line. Plain
subprocesses (rather than multiprocessing) keep the caller's ``__main__`` out of it and
stay safe beside threads.
"""

from __future__ import annotations

import pickle
import sys

from .session import Session


def main(argv: list[str]) -> int:
    path, start, stop, version = argv
    start_i = int(start)
    stop_i = None if stop == "-" else int(stop)
    err = sys.stderr

    def progress(done: int, total: int) -> None:
        err.write(f"{done - start_i}\n")
        err.flush()

    part = Session.scan_part(path, start_i, stop_i, int(version), progress=progress)
    out = sys.stdout.buffer
    out.write(pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
