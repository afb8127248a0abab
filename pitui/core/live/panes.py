"""Which tmux pane an agent runs in: a ``pi`` process, below a pane's shell, whose working
folder is the session's ``cwd``. The panes come from ``tmux list-panes -a``, the processes
from the process table (``/proc``: each one's parent, command line and working folder), so
this works on Linux (elsewhere there is no pane to find and the caller says so).

Nothing here changes anything but which pane tmux shows (:func:`jump_to`).
"""

from __future__ import annotations

import os
import subprocess
from typing import Callable, NamedTuple

__all__ = ["Pane", "find_pane", "jump_to", "PANE_FORMAT"]

#: what ``tmux list-panes -a -F`` is asked for: the pane's id, its first process, its place
PANE_FORMAT = "#{pane_id}\t#{pane_pid}\t#{session_name}:#{window_index}.#{pane_index}"
_TIMEOUT = 5


class Pane(NamedTuple):
    id: str  # tmux's pane id, "%12"
    target: str  # session:window.pane, as tmux shows it
    pid: int  # the pi process found in it


Run = Callable[[list[str]], str]


def _run(argv: list[str]) -> str:
    """A tmux command's output (raises OSError or CalledProcessError)."""
    return subprocess.run(argv, capture_output=True, text=True, check=True, timeout=_TIMEOUT,
                          stdin=subprocess.DEVNULL).stdout


def _children(proc: str) -> dict[int, list[int]]:
    """Each process's children, from ``proc``'s table."""
    out: dict[int, list[int]] = {}
    try:
        names = os.listdir(proc)
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(os.path.join(proc, name, "stat"), "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # (the command name in parentheses may hold spaces and parentheses: fields after the last ")")
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1 and fields[1].isdigit():
            out.setdefault(int(fields[1]), []).append(int(name))
    return out


def _is_pi(proc: str, pid: int) -> bool:
    """Whether process ``pid`` runs Pi: ``pi`` itself, or node running Pi's script."""
    try:
        with open(os.path.join(proc, str(pid), "cmdline"), "rb") as handle:
            argv = handle.read().split(b"\0")
    except OSError:
        return False
    for arg in argv[:3]:
        base = os.path.basename(arg.decode("utf-8", "replace"))
        if base == "pi" or "pi-coding-agent" in arg.decode("utf-8", "replace"):
            return True
    return False


def _cwd(proc: str, pid: int) -> str | None:
    try:
        return os.readlink(os.path.join(proc, str(pid), "cwd"))
    except OSError:
        return None


def find_pane(cwd: str, *, run: Run | None = None, proc: str = "/proc") -> Pane | str:
    """The tmux pane where a ``pi`` process works in ``cwd``; else why none was found (a
    sentence to show). ``run`` runs a tmux command (tests give their own)."""
    run = run or _run
    if not cwd:
        return "the session does not say its working folder"
    try:
        listing = run(["tmux", "list-panes", "-a", "-F", PANE_FORMAT])
    except (OSError, subprocess.SubprocessError):
        return "no tmux server is running here"
    if not os.path.isdir(proc):
        return "no process table to look in (/proc)"
    children = _children(proc)
    want = os.path.realpath(cwd)
    for line in listing.splitlines():
        parts = line.split("\t")
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        pane_id, first, target = parts[0], int(parts[1]), parts[2]
        todo = [first]
        seen = set()
        while todo:  # (the pane's processes, its shell's children and theirs: a loop, not recursion)
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            if _is_pi(proc, pid) and _cwd(proc, pid) in (cwd, want):
                return Pane(pane_id, target, pid)
            todo.extend(children.get(pid, ()))
    return "no pi process runs in that folder in a tmux pane"


def jump_to(pane: Pane, *, run: Run | None = None) -> str | None:
    """Show ``pane`` in the current tmux client (its window chosen, the pane selected);
    None when done, else why not."""
    run = run or _run
    try:
        run(["tmux", "select-window", "-t", pane.id])
        run(["tmux", "select-pane", "-t", pane.id])
    except (OSError, subprocess.SubprocessError) as exc:
        return f"tmux could not show {pane.target}: {exc}"
    if os.environ.get("TMUX"):  # (pitui in tmux: its client goes to the pane's session)
        try:
            run(["tmux", "switch-client", "-t", pane.id])
        except (OSError, subprocess.SubprocessError):
            pass  # (no client to switch: the pane is chosen in its session all the same)
    return None
