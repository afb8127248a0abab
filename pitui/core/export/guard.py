"""Where an export may be written: never over a session, never among the sessions.

pitui never writes, renames or locks a session file. An export's target is the one path a
user names for pitui to write, so it is checked here, by ``pitui export -o`` and the app's
``x`` alike. A target is refused when, by its own path or by the path it resolves to
(symbolic links and ``..`` followed):

- it lies in a sessions folder: under a Pi project folder (a folder named ``--…--``, Pi's
  spelling of a cwd), under any known sessions root (those in use, Pi's default one, the
  ones ``$PI_CODING_AGENT_DIR`` and ``$PI_CODING_AGENT_SESSION_DIR`` name), under the root
  the exported session came from, in the exported session's own folder, or directly in a
  folder that holds project folders or Pi files (a root nobody named);
- it is a Pi file by its content: a file whose first record is a session header or an RPC
  log's record, whatever its name and wherever it is (a hard link to a session anywhere);
- it is the same file (device and inode) as the session exported or as any session under
  the sessions roots.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterable

from ..read.sniff import is_pi_file
from ..store.discovery import SUBAGENT_DIR, SessionRoot, find_session_files, resolve_root

__all__ = ["export_refusal", "known_roots"]


def _folder_of(root: SessionRoot) -> str:
    return os.path.realpath(root.path.parent if root.kind == "file" else root.path)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _is_project_name(name: str) -> bool:
    """Pi's name for a project folder: ``--<cwd with separators as ->--``."""
    return len(name) > 4 and name.startswith("--") and name.endswith("--")


def known_roots(environ=None) -> list[SessionRoot]:
    """Every sessions root pitui knows of without being told: the one in use by the
    environment, each that ``$PI_CODING_AGENT_SESSION_DIR`` and ``$PI_CODING_AGENT_DIR``
    name, and Pi's default one (``~/.pi/agent/sessions``)."""
    env = dict(os.environ if environ is None else environ)
    roots = [resolve_root(environ=env)]
    if env.get("PI_CODING_AGENT_SESSION_DIR"):
        roots.append(SessionRoot(Path(env["PI_CODING_AGENT_SESSION_DIR"]).expanduser(), "flat",
                                 "$PI_CODING_AGENT_SESSION_DIR"))
    if env.get("PI_CODING_AGENT_DIR"):
        roots.append(SessionRoot(Path(env["PI_CODING_AGENT_DIR"]).expanduser() / "sessions", "tree",
                                 "$PI_CODING_AGENT_DIR"))
    env.pop("PI_CODING_AGENT_SESSION_DIR", None)
    env.pop("PI_CODING_AGENT_DIR", None)
    roots.append(resolve_root(environ=env))
    return roots


def _source_folders(session_path: str) -> list[str]:
    """The folders a session came from: its own, and the sessions root above its project
    folder (``<root>/--cwd--/`` or ``<root>/--cwd--/subagent-artifacts/``)."""
    if not session_path:
        return []
    folder = os.path.dirname(os.path.realpath(session_path))
    out = [folder]
    project = os.path.dirname(folder) if os.path.basename(folder) == SUBAGENT_DIR else folder
    if _is_project_name(os.path.basename(project)):
        out.append(os.path.dirname(project))
    return out


def _project_folder_above(path: str) -> str | None:
    """The nearest folder above ``path`` named as a Pi project folder, or None."""
    folder = os.path.dirname(path)
    while True:
        if _is_project_name(os.path.basename(folder)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _holds_sessions(folder: str) -> bool:
    """Whether ``folder`` is a sessions root nobody named: it holds a Pi project folder,
    or a ``.jsonl`` file that is a Pi file (:func:`is_pi_file`, read up to the first)."""
    try:
        with os.scandir(folder) as it:
            names = [(entry.name, entry.path) for entry in it]
    except OSError:
        return False
    for name, path in names:
        if _is_project_name(name) and os.path.isdir(path):
            return True
    return any(name.endswith(".jsonl") and is_pi_file(path) for name, path in names)


def export_refusal(target: str | os.PathLike, session_path: str | os.PathLike,
                   roots: Iterable[SessionRoot]) -> str | None:
    """Why ``target`` may not be written as the export of the session at ``session_path``
    (one line for the user), or None when it may. ``roots``: the sessions roots in use;
    :func:`known_roots` are added to them."""
    session_path = os.fspath(session_path)
    roots = list(roots) + known_roots()
    absolute = os.path.abspath(os.path.expanduser(os.fspath(target)))
    real = os.path.realpath(absolute)
    named = [_folder_of(root) for root in roots] + _source_folders(session_path)
    for path in dict.fromkeys((absolute, real)):
        for folder in named:
            if _inside(path, folder) or _inside(path, os.path.abspath(folder)):
                return f"pitui never writes in a sessions folder ({folder})"
        project = _project_folder_above(path)
        if project is not None:
            return f"pitui never writes in a sessions folder ({project}, a Pi project folder)"
        if _holds_sessions(os.path.dirname(path)):
            return f"pitui never writes in a sessions folder ({os.path.dirname(path)} holds Pi sessions)"
    try:
        st = os.stat(absolute)
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
    if is_pi_file(absolute):
        return "that is a Pi session file (its first line is a session header)"
    return None
