"""What the benchmarks of the real app started on a store share (``app_store.py``,
``app_search.py``): each run is the benchmark script itself in a process of its own, with
the pitui tree under test on ``PYTHONPATH`` and a cache folder of its own; the trees are
taken in turns, a round at a time (the machine is shared: a load that comes and goes
falls on both), and each figure is the median of the runs.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import time
from typing import Callable

# (subprocess and pi_side are imported where used: a timed run of the script imports this
# module before its clock's start-up figures, and needs neither)

__all__ = ["argv_or_help", "compile_trees", "run_script", "in_turns", "median_of"]


def argv_or_help(doc: str | None) -> list[str]:
    """The script's arguments; with none, or ``-h``, its docstring is printed and it exits."""
    argv = sys.argv[1:]
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(doc or "")
        sys.exit(0 if argv else 2)
    return argv


def compile_trees(trees: dict[str, str]) -> None:
    """Each tree's bytecode made first: never compiled inside a timed run."""
    import subprocess

    for src in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(src, "pitui")], check=True,
                       stdout=subprocess.DEVNULL)


def run_script(script: str, args: list[str], cache: str, src: str) -> dict:
    """One run of the benchmark ``script`` with ``args`` on the tree at ``src`` and the cache
    folder ``cache``: the JSON object it prints last, with the process's wall time."""
    import pi_side

    time.sleep(1)  # (the previous run's processes are gone)
    env = {**os.environ, "PITUI_CACHE_DIR": cache, "PYTHONPATH": src}
    r = pi_side.measure_once([sys.executable, os.path.abspath(script), *args], env=env)
    if r["rc"] != 0:
        raise SystemExit(f"{os.path.basename(script)} {' '.join(args)} failed: {r['stderr'][-2000:]}")
    return {**json.loads(r["stdout"].strip().splitlines()[-1]), "wall_s": r["wall_s"]}


def in_turns(trees: dict[str, str], runs: int, caches: dict[str, str], one: Callable[[str, str], dict], *,
             fresh: bool) -> dict[str, list[dict]]:
    """``runs`` rounds, each a run of every tree in turn (``one(src, cache)``); ``fresh``:
    each run with its tree's cache folder emptied first (a cold start)."""
    got: dict[str, list[dict]] = {t: [] for t in trees}
    for _ in range(runs):
        for t, src in trees.items():
            if fresh:
                shutil.rmtree(caches[t])
                os.mkdir(caches[t])
            got[t].append(one(src, caches[t]))
    return got


def median_of(runs: list[dict], key: str) -> float | None:
    """The median of ``key`` over the runs that have it (rounded to the millisecond)."""
    vals = [r[key] for r in runs if r.get(key) is not None]
    return round(statistics.median(vals), 3) if vals else None
