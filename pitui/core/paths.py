"""Where pitui keeps its own files (never beside the sessions), and how it writes them.

The cache folder holds what pitui learnt from the sessions (the listing and search indexes,
saved skeletons). It is private: created ``0700``, its files ``0600`` (each written to a
temporary file made ``0600`` and renamed over the old one). A folder that belongs to another
user is not used at all (pitui then runs without caches), and one that is ours but open to
the group or others is closed (``0700``) before use, unless it is plainly a folder others
use too (sticky, like ``/tmp``; the home folder; ``/``) or one that ``$PITUI_CACHE_DIR`` or
``$PITUI_CONFIG_DIR`` names and pitui did not make (the user's own folder, its mode the
user's choice): that one is left alone and not used.

A symbolic link inside the cache folder is never followed: cache files are opened with
``O_NOFOLLOW`` (:func:`open_cache_file`, :func:`make_cache_file`), and a link found where a
cache file belongs is removed (its target untouched) and the cache rebuilt. Written files
are made beside their target and renamed over it, which replaces a link, never writes
through it.

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

__all__ = ["default_cache_dir", "cache_dir", "private_dir", "write_private", "open_cache_file", "make_cache_file",
           "notice", "take_notices"]

# The environment variables that name pitui's folders: a folder they name is the user's.
_FOLDER_VARIABLES = ("PITUI_CACHE_DIR", "PITUI_CONFIG_DIR")

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
                without: str = "running without caches", inside: bool = False) -> Path | None:
    """``path`` as a private folder, ready for pitui's own files: made ``0700`` when
    missing (``create``), its mode closed to ``0700`` when it is ours and open to others.
    None (and a :func:`notice`) when it may not be used: another user's folder, not a
    folder, a folder others use too (sticky, the home folder, ``/``: never closed), or one
    that cannot be made or closed; None without a notice when it is missing and
    ``create`` is false. A notice names the folder as ``what`` and ends with ``without``,
    what pitui does instead (the cache's words by default). ``inside``: a folder inside
    the cache folder, where a symbolic link is never followed (it is removed, with a
    notice, and the folder made anew)."""
    folder = Path(path)
    if inside and os.path.islink(folder):
        try:
            _link_removed(str(folder))
        except OSError:
            return None
    try:
        if create:
            try:
                folder.mkdir(mode=0o700, parents=True)
                return folder  # (made now, 0700 or closer: nothing to check)
            except FileExistsError:
                pass
        st = os.stat(folder)
    except FileNotFoundError:
        if create:
            notice(f"{folder}: the {what} cannot be made: {without}")
        return None
    except OSError as exc:
        notice(f"{folder}: the {what} cannot be used ({exc.strerror or exc}): {without}")
        return None
    if not stat.S_ISDIR(st.st_mode):
        notice(f"{folder}: the {what} is not a folder: {without}")
        return None
    uid = _euid()
    if uid is None:  # (no owners or modes to check: Windows)
        return folder
    if st.st_uid != uid:
        notice(f"{folder}: the {what} belongs to another user: {without}")
        return None
    if st.st_mode & 0o077:
        if st.st_mode & stat.S_ISVTX or _shared(folder) or _named_by_user(folder):
            # a folder others use too (/tmp, home, /), or the user's own: not closed, not used
            notice(f"{folder}: the {what} is open to other users and is not pitui's own: {without}")
            return None
        try:
            os.chmod(folder, 0o700)
        except OSError as exc:
            notice(f"{folder}: the {what} is open to other users and cannot be closed "
                   f"({exc.strerror or exc}): {without}")
            return None
    return folder


def _shared(path: Path) -> bool:
    real = os.path.realpath(path)
    return real in (os.path.realpath(os.path.expanduser("~")), os.path.realpath(os.sep))


def _named_by_user(path: Path) -> bool:
    """Whether ``path`` is the folder ``$PITUI_CACHE_DIR`` or ``$PITUI_CONFIG_DIR`` names (it
    was there before pitui: :func:`private_dir` makes no such check on a folder it makes)."""
    real = os.path.realpath(path)
    return any(os.environ.get(name) and os.path.realpath(os.environ[name]) == real for name in _FOLDER_VARIABLES)


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
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, (bytes, bytearray, memoryview)):
                handle.write(data)
            else:
                for piece in data:
                    handle.write(piece)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _link_removed(path: str) -> None:
    """A symbolic link (or anything but a file) where a cache file belongs: removed, its
    target left alone, and said once."""
    try:
        os.unlink(path)
    except IsADirectoryError:
        notice(f"{path}: a folder stands where a cache file belongs: running without that cache")
        raise
    notice(f"{path}: a cache file was a symbolic link or not a file; removed (its target left alone) "
           "and the cache rebuilt")


def open_cache_file(path: str | os.PathLike):
    """The cache file ``path`` open for reading, never through a symbolic link: a link (or
    anything but a regular file) there is removed, with a notice, and FileNotFoundError
    raised, as for a cache file not made yet. Other OSErrors as ``open`` raises them."""
    path = os.fspath(path)
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if os.path.islink(path):  # (ELOOP, or EMLINK on some systems)
            _link_removed(path)
            raise FileNotFoundError(path) from exc
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            fd = -1
            _link_removed(path)
            raise FileNotFoundError(path)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return open(fd, "rb")
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise


def make_cache_file(path: str | os.PathLike, *, create: bool = True) -> bool:
    """Make ``path`` a private (``0600``) regular file for a program that opens it by name
    (SQLite): a symbolic link (or anything but a file) there is removed first, with a
    notice; a missing file is made when ``create``. Its mode is set on the open file, never
    through a link. True when the file is there. Raises OSError."""
    path = os.fspath(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        _link_removed(path)
        st = None
    if st is None and not create:
        return False
    fd = os.open(path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o600)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(fd, 0o600)  # (also when an older pitui made it)
    finally:
        os.close(fd)
    return True
