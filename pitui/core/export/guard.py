"""Where an export may be written: never over a session, never among the sessions.

pitui never writes, renames or locks a session file. An export's target is the one path a
user names for pitui to write, so it is checked here, by ``pitui export -o`` and the app's
``x`` alike: a target is refused when it lies in a sessions folder (a sessions root, or the
folder of the session exported), or when it is the same file (device and inode) as the
session exported or as any session under the sessions roots, whatever its path (a hard
link, a symbolic link, ``..`` on the way).
"""

from __future__ import annotations

import os
import stat
from typing import Iterable

from ..store.discovery import SessionRoot, find_session_files

__all__ = ["export_refusal"]


def _folder_of(root: SessionRoot) -> str:
    return os.path.realpath(root.path.parent if root.kind == "file" else root.path)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def export_refusal(target: str | os.PathLike, session_path: str | os.PathLike,
                   roots: Iterable[SessionRoot]) -> str | None:
    """Why ``target`` may not be written as the export of the session at ``session_path``
    (one line for the user), or None when it may. ``roots``: the sessions roots to keep
    out of (those in use; the caller adds Pi's default one)."""
    roots = list(roots)
    t = os.path.abspath(os.path.expanduser(os.fspath(target)))
    real = os.path.realpath(t)
    session_folder = os.path.dirname(os.path.realpath(session_path))
    for folder in [_folder_of(r) for r in roots] + [session_folder]:
        if _inside(real, folder):
            return f"pitui never writes in a sessions folder ({folder})"
    try:
        st = os.stat(t)
    except OSError:
        return None  # not there (or not reachable: writing it will say why)
    if stat.S_ISDIR(st.st_mode):
        return "that is a folder"
    if not stat.S_ISREG(st.st_mode):
        return None  # (a terminal, /dev/null, a pipe: no session is written through it)
    me = (st.st_dev, st.st_ino)
    try:
        sst = os.stat(session_path)
        if (sst.st_dev, sst.st_ino) == me:
            return "that is the session file itself (another name for it)"
    except OSError:
        pass
    for root in roots:
        for sf in find_session_files(root):
            try:
                other = os.stat(sf.path)
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == me:
                return f"that is a session file (another name for {sf.path})"
    return None
