"""Where pitui keeps its own files (never beside the sessions), and how it writes them.

The cache folder holds what pitui learnt from the sessions (the listing and search indexes,
saved skeletons). It is private: created ``0700``, its files ``0600`` (each written to a
temporary file made ``0600`` and renamed over the old one). A folder that belongs to another
user is not used at all (pitui then runs without caches), and one that is ours but open to
the group or others is closed (``0700``) before use, unless it is plainly a folder others
use too (sticky, like ``/tmp``; the home folder; ``/``): that one is left alone and not used.

What goes wrong with a cache is never an error: a damaged cache is rebuilt, a folder that
may not be used is left alone. Each such event leaves one line in :func:`take_notices`,
which the command line prints on standard error and the app shows as a toast.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterable
from pathlib import Path

__all__ = ["default_cache_dir", "cache_dir", "private_dir", "write_private", "notice", "take_notices"]

_notices: list[str] = []
_said: set[str] = set()
_lock = threading.Lock()


def notice(message: str) -> None:
    """Keep one line for the user (said once per process, however often it happens)."""
    with _lock:
        if message not in _said:
            _said.add(message)
            _notices.append(message)


def take_notices() -> list[str]:
    """The lines kept by :func:`notice` since the last call (oldest first)."""
    with _lock:
        got = _notices[:]
        _notices.clear()
        return got


def _forget_notices() -> None:
    """Forget every line, said or not (for tests)."""
    with _lock:
        _notices.clear()
        _said.clear()


def default_cache_dir() -> Path:
    """pitui's cache folder: ``$PITUI_CACHE_DIR``, else platformdirs' user cache folder."""
    env = os.environ.get("PITUI_CACHE_DIR")
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("pitui", appauthor=False))


def _euid() -> int | None:
    return os.geteuid() if hasattr(os, "geteuid") else None


def private_dir(path: str | os.PathLike, *, create: bool = True, what: str = "cache folder",
                without: str = "running without caches") -> Path | None:
    """``path`` as a private folder, ready for pitui's own files: made ``0700`` when
    missing (``create``), its mode closed to ``0700`` when it is ours and open to others.
    None (and a :func:`notice`) when it may not be used: another user's folder, not a
    folder, a folder others use too (sticky, the home folder, ``/``: never closed), or one
    that cannot be made or closed; None without a notice when it is missing and
    ``create`` is false. A notice names the folder as ``what`` and ends with ``without``,
    what pitui does instead (the cache's words by default)."""
    p = Path(path)
    try:
        if create:
            p.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.stat(p)
    except FileNotFoundError:
        if create:
            notice(f"{p}: the {what} cannot be made: {without}")
        return None
    except OSError as exc:
        notice(f"{p}: the {what} cannot be used ({exc.strerror or exc}): {without}")
        return None
    if not stat.S_ISDIR(st.st_mode):
        notice(f"{p}: the {what} is not a folder: {without}")
        return None
    uid = _euid()
    if uid is None:  # (no owners or modes to check: Windows)
        return p
    if st.st_uid != uid:
        notice(f"{p}: the {what} belongs to another user: {without}")
        return None
    if st.st_mode & 0o077:
        if st.st_mode & stat.S_ISVTX or _shared(p):
            # a folder others use too (/tmp, home, /): not closed, not used
            notice(f"{p}: the {what} is open to other users and is not pitui's own: {without}")
            return None
        try:
            os.chmod(p, 0o700)
        except OSError as exc:
            notice(f"{p}: the {what} is open to other users and cannot be closed "
                   f"({exc.strerror or exc}): {without}")
            return None
    return p


def _shared(p: Path) -> bool:
    real = os.path.realpath(p)
    return real in (os.path.realpath(os.path.expanduser("~")), os.path.realpath(os.sep))


def cache_dir(*, create: bool = True) -> Path | None:
    """The cache folder (:func:`default_cache_dir`) when it may be used (:func:`private_dir`)."""
    return private_dir(default_cache_dir(), create=create)


def write_private(target: str | os.PathLike, data: bytes | Iterable[bytes]) -> None:
    """Write ``data`` (bytes, or pieces of it one after the other) to ``target`` whole or
    not at all: a temporary file beside it, made ``0600``, renamed over it. Raises OSError."""
    import tempfile

    target = Path(target)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")  # made 0600
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(data, (bytes, bytearray, memoryview)):
                f.write(data)
            else:
                for piece in data:
                    f.write(piece)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
