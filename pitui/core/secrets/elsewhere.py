"""The secrets scan of a big file in a child process.

The app checks a file of up to 32 MB whole on a thread when it is opened (the doctor's
pass and the secrets scan, ``ui/widgets/header.py``). A bigger file's secrets are looked
for here instead: the scan's RE2 pass and its JSON parsing hold the interpreter, and on the
app's thread they would slow every key for as long as the scan runs; in a child process
they run on another core. The child sends the secrets back pickled through its stdout
(our own process, started from our own code: nothing else writes that pipe).

Run as ``python -m pitui.core.secrets.elsewhere FILE`` by :func:`scan_file_elsewhere`.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from typing import Callable

from ..model.doctor import Stopped, Unreadable
from .scan import Secret, scan_file

__all__ = ["scan_file_elsewhere"]

# how often the parent asks whether it should stop the child
_POLL_S = 0.1


def scan_file_elsewhere(path: str | os.PathLike, should_stop: Callable[[], bool]) -> list[Secret]:
    """:func:`~.scan.scan_file`'s secrets of ``path``, found by a child process. Raises
    :class:`Stopped` (the child killed) when ``should_stop`` says so, and
    :class:`Unreadable` when the child could not read the file or did not finish."""
    path = os.fspath(path)
    child = subprocess.Popen([sys.executable, "-m", __name__, path], stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = b""
    try:
        while True:
            if should_stop():
                raise Stopped(path)
            try:
                out, _ = child.communicate(timeout=_POLL_S)
                break
            except subprocess.TimeoutExpired:
                continue
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    if child.returncode != 0 or not out:
        raise Unreadable(path, "the secrets scan did not finish")
    return [Secret(*fields) for fields in pickle.loads(out)]


def _main(path: str) -> int:
    if hasattr(os, "nice"):
        os.nice(10)  # a background job: the user's own work (the app's keys) comes first
    try:
        report = scan_file(path)
    except (OSError, Unreadable):
        return 2
    sys.stdout.buffer.write(pickle.dumps([tuple(secret) for secret in report.secrets]))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1]))
