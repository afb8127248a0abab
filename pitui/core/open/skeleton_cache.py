"""Big sessions read once are opened again from a saved skeleton.

After a big file is read (by a worker process), its skeleton, tree and default layout
(:meth:`Session.to_state`, :meth:`TreeLayout.to_state`) are saved in pitui's cache folder,
one file per session file, the newest :data:`KEEP` kept. Opening that file again loads
them (a tenth of a second instead of a whole read) and then reads only what Pi appended
since, exactly as a running pitui follows a growing session.

A saved skeleton is used only for the same file (device and inode), no shorter than when
it was saved, whose bytes just before the point the skeleton reached are still the same
(a hash of the last 4 KiB): a file rewritten since is read afresh. A damaged or foreign
cache file is ignored. Nothing here writes anywhere but the cache folder.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import TYPE_CHECKING

from ..paths import default_cache_dir

if TYPE_CHECKING:  # imported where used: usable() runs before pitui FILE's worker starts
    from ..read.session import Session
    from ..model.layout import TreeLayout

__all__ = ["CACHE_VERSION", "KEEP", "cache_file", "save", "load", "usable"]

CACHE_VERSION = 3  # 2: entry numbers in 4 bytes, no children lists (made from the parents); 3: the
# skeleton normalised (timestamps strings or None, ids strings: a skeleton of an older pitui may not be)
KEEP = 8  # skeleton files kept (each ~40 bytes an entry: ~9 MB for 54,000 entries)
_TAIL = 4096


def _folder() -> Path:
    return default_cache_dir() / "skeletons"


def cache_file(path: str | os.PathLike) -> Path:
    """Where the skeleton of ``path`` is kept."""
    key = hashlib.sha1(os.path.abspath(os.fspath(path)).encode("utf-8", "surrogateescape")).hexdigest()
    return _folder() / f"{key}.pickle"


def _tail_hash(path: str, end: int) -> str | None:
    from ..read.lines import read_span

    start = max(0, end - _TAIL)
    try:
        data = read_span(path, start, end - start)
    except OSError:
        return None
    if len(data) != end - start:
        return None
    return hashlib.sha1(data).hexdigest()


def _stamp(session: Session) -> dict | None:
    try:
        st = os.stat(session.path)
    except OSError:
        return None
    tail = _tail_hash(session.path, session.scanned_to)
    if tail is None:
        return None
    return {"v": CACHE_VERSION, "path": os.path.abspath(session.path), "dev": st.st_dev, "ino": st.st_ino,
            "scanned_to": session.scanned_to, "tail": tail}


def save(session: Session, layout: TreeLayout | None = None) -> bool:
    """Save ``session`` (and its default ``layout``) for the next open. Atomic; keeps the
    newest :data:`KEEP` files. False when it could not (nothing is raised)."""
    try:
        stamp = _stamp(session)
        if stamp is None:
            return False
        stamp["session"] = session.to_state()
        stamp["layout"] = layout.to_state() if layout is not None else None
        target = cache_file(session.path)
        target.parent.mkdir(parents=True, exist_ok=True)
        import tempfile

        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".pickle")
        try:
            with os.fdopen(fd, "wb") as f:
                pickle.dump(stamp, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, target)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        _prune(target.parent)
        return True
    except Exception:
        return False


def _prune(folder: Path) -> None:
    try:
        files = sorted(folder.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in files[KEEP:]:
        try:
            old.unlink()
        except OSError:
            pass


def _read(path: str) -> dict | None:
    try:
        with open(cache_file(path), "rb") as f:
            stamp = pickle.load(f)
    except Exception:  # none, damaged, or from another version of pitui
        return None
    if not isinstance(stamp, dict) or stamp.get("v") != CACHE_VERSION:
        return None
    return stamp


def _fits(stamp: dict, path: str) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    return (stamp.get("path") == os.path.abspath(path) and stamp.get("dev") == st.st_dev
            and stamp.get("ino") == st.st_ino and st.st_size >= stamp.get("scanned_to", 1 << 62)
            and _tail_hash(path, stamp["scanned_to"]) == stamp.get("tail"))


def usable(path: str | os.PathLike) -> bool:
    """Whether a saved skeleton may serve ``path`` (a quick check that one exists for a
    non-empty file; :func:`load` checks that it fits the file as it is now)."""
    try:
        st = os.stat(path)
        return cache_file(path).stat().st_mtime > 0 and st.st_size > 0
    except OSError:
        return False


def load(path: str | os.PathLike) -> tuple[Session, TreeLayout | None] | None:
    """The session of ``path`` from its saved skeleton, read on to the file's end, with the
    saved default layout when nothing was appended since; None when there is none that
    fits the file as it is now."""
    from ..read.session import Session
    from ..model.layout import TreeLayout

    path = os.fspath(path)
    stamp = _read(path)
    if stamp is None or not _fits(stamp, path):
        return None
    try:
        session = Session.from_state(stamp["session"])
        layout = TreeLayout.from_state(stamp["layout"]) if stamp.get("layout") is not None else None
    except Exception:
        return None
    if session.path != path:
        session.path = path
    if session.refresh():
        layout = None  # entries were appended: the tree changed
    return session, layout
