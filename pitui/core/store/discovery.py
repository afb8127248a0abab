"""Where sessions live, and which files under a root are sessions."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, NamedTuple

__all__ = ["SessionRoot", "SessionFile", "resolve_root", "session_argument", "find_session_files", "find_session_by_id", "encode_cwd",
           "SUBAGENT_DIR", "transcript_candidates", "utf8_name"]

SUBAGENT_DIR = "subagent-artifacts"


# (a NamedTuple rather than a frozen dataclass: several times quicker to make as this module
# loads, before the first screen: benchmarks/startup_budget.py)
class SessionRoot(NamedTuple):
    """A place to look for sessions.

    ``kind``: ``tree`` (a sessions folder of ``--<cwd>--`` project folders, plus loose files),
    ``flat`` (a folder of session files, as Pi's ``--session-dir``), ``project`` (one project
    folder) or ``file`` (one session file).
    """

    path: Path
    kind: str
    source: str  # how it was chosen, for messages like "no sessions in ... (from $PI_...)"

    @property
    def prefix(self) -> str:
        """How the path of every file under this folder starts (the folder, a separator)."""
        return str(self.path) + os.sep

    def holds(self, path: str) -> bool:
        """Whether a session file at ``path`` is one this root lists, by its path alone: the
        file itself, a file directly in a flat folder, anything under a tree or project."""
        if self.kind == "file":
            return path == str(self.path)
        prefix = self.prefix
        return path.startswith(prefix) and (self.kind != "flat" or os.sep not in path[len(prefix):])


# (a NamedTuple rather than a frozen dataclass: several times quicker to make as this module
# loads, before the first screen: benchmarks/startup_budget.py)
class SessionFile(NamedTuple):
    path: str
    project: str  # the project folder's name ('' for loose files and flat roots)
    kind: str  # "session" or "subagent" (a transcript in <project>/subagent-artifacts/)


def encode_cwd(cwd: str) -> str:
    """Pi's folder name for a cwd: ``--`` + cwd without its leading separator, ``/\\:`` as ``-``."""
    body = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    for ch in "/\\:":
        body = body.replace(ch, "-")
    return f"--{body}--"


def resolve_root(
    path: str | os.PathLike | None = None,
    session_dir: str | os.PathLike | None = None,
    environ: Mapping[str, str] | None = None,
) -> SessionRoot:
    """The sessions root, first that applies: PATH, ``--session-dir``,
    ``$PI_CODING_AGENT_SESSION_DIR``, ``$PI_CODING_AGENT_DIR/sessions``, ``~/.pi/agent/sessions``."""
    env = os.environ if environ is None else environ
    if path is not None:
        expanded = Path(path).expanduser()
        if expanded.is_file() or (expanded.exists() and not expanded.is_dir()):  # (a FIFO or a device: refused when read)
            return SessionRoot(expanded, "file", "argument")
        if expanded.is_dir() and _looks_like_project(expanded):
            return SessionRoot(expanded, "project", "argument")
        return SessionRoot(expanded, "tree", "argument")
    if session_dir is not None:
        return SessionRoot(Path(session_dir).expanduser(), "flat", "--session-dir")
    if env.get("PI_CODING_AGENT_SESSION_DIR"):
        return SessionRoot(Path(env["PI_CODING_AGENT_SESSION_DIR"]).expanduser(), "flat", "$PI_CODING_AGENT_SESSION_DIR")
    if env.get("PI_CODING_AGENT_DIR"):
        return SessionRoot(Path(env["PI_CODING_AGENT_DIR"]).expanduser() / "sessions", "tree", "$PI_CODING_AGENT_DIR")
    home = Path(env.get("HOME") or Path.home())
    return SessionRoot(home / ".pi" / "agent" / "sessions", "tree", "default")


def session_argument(path: str, session_id: str, *, id_is_shared: bool = False,
                     environ: Mapping[str, str] | None = None) -> str:
    """What to give ``pi --session`` for the session file at ``path``: its id where Pi, run
    with this environment, looks for sessions (its own sessions folder holds the file, and no
    other session listed has that id), else the path, which Pi opens wherever it lies."""
    if not session_id or id_is_shared:
        return path
    pi_root = resolve_root(None, None, environ)
    try:
        real = os.path.realpath(path)
        holds = pi_root.holds(path) or pi_root._replace(path=Path(os.path.realpath(pi_root.path))).holds(real)
    except (OSError, ValueError):
        holds = False
    return session_id if holds else path


def _looks_like_project(path: Path) -> bool:
    name = path.name
    if len(name) > 4 and name.startswith("--") and name.endswith("--"):
        return True
    # A folder holding session files and no project folders is treated as one project.
    try:
        with os.scandir(path) as it:
            has_jsonl = False
            for dir_entry in it:
                if dir_entry.name.startswith("--") and dir_entry.is_dir():
                    return False
                if dir_entry.name.endswith(".jsonl"):
                    has_jsonl = True
            return has_jsonl
    except OSError:
        return False


def _jsonl_in(folder: str) -> list[str]:
    try:
        with os.scandir(folder) as it:
            return sorted(
                (dir_entry.path for dir_entry in it if dir_entry.name.endswith(".jsonl") and _is_file(dir_entry)),
                reverse=True,
            )
    except OSError:
        return []


def _is_file(dir_entry: os.DirEntry) -> bool:
    try:
        return dir_entry.is_file()
    except OSError:
        return False


def _project_files(folder: str, project: str) -> list[SessionFile]:
    out = [SessionFile(path, project, "session") for path in _jsonl_in(folder)]
    sub = os.path.join(folder, SUBAGENT_DIR)
    if os.path.isdir(sub):
        out.extend(SessionFile(path, project, "subagent") for path in _jsonl_in(sub))
    return out


def transcript_candidates(recorded: str, session_path: str) -> list[str]:
    """Where a subagent transcript that a session records (a run's ``jsonlPath`` or
    ``sessionFile``) may be, first to try first: the path as recorded (``~`` expanded; a
    relative one from the session's folder), then its name in the session's own
    ``subagent-artifacts`` folder (sessions copied from another machine, or moved, keep
    their transcripts there under other absolute paths)."""
    expanded = os.path.expanduser(recorded)
    folder = os.path.dirname(session_path)
    out = []
    if os.path.isabs(expanded):
        out.append(expanded)
    elif folder:
        out.append(os.path.join(folder, expanded))
    if folder:
        out.append(os.path.join(folder, SUBAGENT_DIR, os.path.basename(expanded)))
    return out


def utf8_name(path: str) -> bool:
    """Whether the file name ``path`` is valid UTF-8, so that JSON can carry it to a worker
    process and SQLite can hold it as text: a name whose bytes are not holds surrogates
    (the caller reads such a file itself)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def find_session_files(root: SessionRoot) -> list[SessionFile]:
    """Every session file under ``root``: project folders (symlinks followed), loose files,
    and ``subagent-artifacts/*.jsonl`` transcripts inside project folders."""
    root_path = str(root.path)
    if root.kind == "file":
        return [SessionFile(root_path, root.path.parent.name if root.path.parent.name.startswith("--") else "", "session")]
    if root.kind == "flat":
        return [SessionFile(path, "", "session") for path in _jsonl_in(root_path)]
    if root.kind == "project":
        return _project_files(root_path, root.path.name)
    out: list[SessionFile] = []
    try:
        with os.scandir(root_path) as it:
            entries = sorted(it, key=lambda dir_entry: dir_entry.name)
    except OSError:
        return []
    for dir_entry in entries:
        try:
            is_dir = dir_entry.is_dir()  # follows symlinks
        except OSError:
            continue
        if is_dir:
            out.extend(_project_files(dir_entry.path, dir_entry.name))
        elif dir_entry.name.endswith(".jsonl") and _is_file(dir_entry):
            out.append(SessionFile(dir_entry.path, "", "session"))
    return out


def find_session_by_id(near: str | os.PathLike, session_id: str) -> str | None:
    """The file of session ``session_id`` (named ``<time>_<id>.jsonl`` by Pi), looked for
    beside the session file ``near``, then in the other project folders of its sessions
    root; None when not found. ``session_id`` must already be a plain id (letters, digits,
    ``-``, ``_``; see ``core.model.parts.session_id_or_none``): nothing here builds a path
    or a pattern from it."""
    suffix = f"_{session_id}.jsonl"
    folder = os.path.dirname(os.path.abspath(os.fspath(near)))
    found = _file_ending(folder, suffix)
    if found is not None:
        return found
    root = os.path.dirname(folder)
    try:
        with os.scandir(root) as it:
            projects = sorted(dir_entry.path for dir_entry in it if dir_entry.name.startswith("--") and dir_entry.is_dir() and dir_entry.path != folder)
    except OSError:
        return None
    for project in projects:
        found = _file_ending(project, suffix)
        if found is not None:
            return found
    return None


def _file_ending(folder: str, suffix: str) -> str | None:
    try:
        with os.scandir(folder) as it:
            names = sorted(dir_entry.name for dir_entry in it if dir_entry.name.endswith(suffix) and dir_entry.is_file())
    except OSError:
        return None
    return os.path.join(folder, names[0]) if names else None
