#!/usr/bin/env python3
"""The Pi side of pitui's benchmarks, and the measurement helper both sides use.

Pi's own session code (``@earendil-works/pi-coding-agent`` 1.5.2) is installed by
``<repo>/../shared/pi-reference/setup.sh`` into ``benchmarks/.pi-reference`` (git-ignored), then
timed with that folder's ``pi_open.mjs`` (open one session the way Pi does) and
``pi_list.mjs`` (list every session under a root the way Pi's /resume (All) does).

``measure(cmd, runs=3)`` times any command: each run happens in a fresh Python wrapper
process that starts the command, waits for it, and reads ``getrusage(RUSAGE_CHILDREN)``:
that rusage covers exactly one child (the wrapper has no other), so ``ru_maxrss`` is the
command's own peak RSS rather than a maximum over every child this process ever waited for.
(Linux counts the RSS of the process image the command was exec'ed from, i.e. the small
wrapper, too; that is ~10 MiB, below any figure measured here.)  Wall time is taken in the
wrapper around spawn..wait, so Python's start-up is not included.

CLI::

    python benchmarks/pi_side.py [open FILE | list ROOT | all] [--runs N] [--json]

``all`` (the default) uses the inputs made by ``benchmarks/gen.py`` under ``benchmarks/data``.
If node, npm or the shared pi-reference folder is missing, it prints ``skipped: <reason>``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
DATA = os.path.join(BENCH, "data")
INSTALL_DIR = os.path.join(BENCH, ".pi-reference")

_WRAPPER = r"""
import json, resource, subprocess, sys, time
cmd = json.loads(sys.argv[1])
t0 = time.perf_counter()
p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
json.dump({"wall": wall, "maxrss_kib": ru.ru_maxrss, "cpu": ru.ru_utime + ru.ru_stime,
           "rc": p.returncode, "stdout": p.stdout.decode("utf-8", "replace")[-4000:],
           "stderr": p.stderr.decode("utf-8", "replace")[-4000:]}, sys.stdout)
"""


class MeasureError(RuntimeError):
    pass


def measure_once(cmd: list[str], cwd: str | None = None, env: dict | None = None) -> dict:
    """Run cmd once in a fresh wrapper; returns wall seconds, peak RSS (MiB), CPU seconds,
    return code and (the tail of) stdout/stderr."""
    w = subprocess.run([sys.executable, "-c", _WRAPPER, json.dumps(list(cmd))], cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if w.returncode != 0:
        raise MeasureError(f"measurement wrapper failed: {w.stderr.decode(errors='replace')[-2000:]}")
    r = json.loads(w.stdout)
    return {"wall_s": r["wall"], "peak_mib": r["maxrss_kib"] / 1024, "cpu_s": r["cpu"], "rc": r["rc"],
            "stdout": r["stdout"], "stderr": r["stderr"]}


def measure(cmd: list[str], runs: int = 3, *, warmup: int = 0, cwd: str | None = None,
            env: dict | None = None, check: bool = True) -> dict:
    """Time cmd ``runs`` times (after ``warmup`` untimed runs), each in its own wrapper.

    Returns ``{"median_s", "min_s", "runs": [wall s...], "peak_mib" (max over runs), "peak_mib_runs",
    "cpu_s" (median user+sys of the command), "stdout" (last run)}``.  With check=True a
    non-zero exit status raises MeasureError."""
    for _ in range(warmup):
        measure_once(cmd, cwd, env)
    rs = []
    for _ in range(runs):
        r = measure_once(cmd, cwd, env)
        if check and r["rc"] != 0:
            raise MeasureError(f"{cmd!r} exited with {r['rc']}: {r['stderr'][-2000:]}")
        rs.append(r)
    walls = [r["wall_s"] for r in rs]
    return {"median_s": statistics.median(walls), "min_s": min(walls), "runs": walls,
            "peak_mib": max(r["peak_mib"] for r in rs), "peak_mib_runs": [r["peak_mib"] for r in rs],
            "cpu_s": statistics.median(r["cpu_s"] for r in rs), "stdout": rs[-1]["stdout"]}


# ----------------------------------------------------------------------------------------------
# Pi's reference code
# ----------------------------------------------------------------------------------------------

def reference_dir() -> str:
    """Pi's reference scripts: ``$PITUI_PI_REFERENCE``, else ``../shared/pi-reference`` beside
    the repository (a git worktree elsewhere names it with the variable)."""
    if os.environ.get("PITUI_PI_REFERENCE"):
        return os.environ["PITUI_PI_REFERENCE"]
    return os.path.normpath(os.path.join(REPO, "..", "shared", "pi-reference"))


def setup_pi(install_dir: str = INSTALL_DIR, quiet: bool = False) -> str | None:
    """Install Pi's session code (idempotent); returns the package dir, or None (after
    printing "skipped: <reason>") when it can't be had."""
    ref = reference_dir()

    def skip(reason: str):
        if not quiet:
            print(f"skipped: {reason}", file=sys.stderr)
        return None

    if not os.path.isfile(os.path.join(ref, "setup.sh")):
        return skip(f"no Pi reference scripts at {ref}")
    if not shutil.which("node"):
        return skip("node not found")
    pkg = os.path.join(install_dir, "pkg")
    if not os.path.isfile(os.path.join(pkg, "dist", "core", "session-manager.js")):
        if not shutil.which("npm"):
            return skip("npm not found (needed once, to install Pi's session code)")
        p = subprocess.run(["bash", os.path.join(ref, "setup.sh"), install_dir],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode != 0 or not os.path.isfile(os.path.join(pkg, "dist", "core", "session-manager.js")):
            return skip(f"setup.sh failed: {p.stdout.decode(errors='replace')[-1500:]}")
    return os.path.abspath(pkg)


def _pi(script: str, pkg: str, target: str, runs: int) -> dict:
    r = measure(["node", os.path.join(reference_dir(), script), pkg, os.path.abspath(target)], runs)
    try:
        r["result"] = json.loads(r["stdout"].strip().splitlines()[-1])
    except (ValueError, IndexError):
        r["result"] = None
    return r


def pi_open(file: str, runs: int = 3, pkg: str | None = None) -> dict | None:
    """Median wall time / peak RSS of Pi opening FILE (SessionManager.open on a copy, getTree,
    buildSessionContext); ``result`` holds Pi's counts {entries, roots, context}."""
    pkg = pkg or setup_pi()
    return _pi("pi_open.mjs", pkg, file, runs) if pkg else None


def pi_list(root: str, runs: int = 3, pkg: str | None = None) -> dict | None:
    """Median wall time / peak RSS of Pi listing every session under ROOT (SessionManager.listAll
    per project folder, as /resume (All) does); ``result`` holds {sessions}."""
    pkg = pkg or setup_pi()
    return _pi("pi_list.mjs", pkg, root, runs) if pkg else None


# ----------------------------------------------------------------------------------------------
# Default inputs (from benchmarks/gen.py)
# ----------------------------------------------------------------------------------------------

def _marker(which: str) -> dict | None:
    try:
        with open(os.path.join(DATA, which, ".gen-marker.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def big_file() -> str | None:
    m = _marker("big")
    return os.path.join(DATA, "big", m["file"]) if m else None


def store_root() -> str | None:
    return os.path.join(DATA, "store") if _marker("store") else None


def _fmt(label: str, r: dict) -> str:
    runs = ", ".join(f"{x:.2f}" for x in r["runs"])
    return (f"{label}: {r['median_s']:.2f} s median wall ({runs}), {r['peak_mib']:.0f} MiB peak, "
            f"{r['cpu_s']:.2f} s CPU -> {json.dumps(r.get('result'))}")


def main(argv=None):
    ap = argparse.ArgumentParser(description="Time Pi's own session code on the benchmark inputs.")
    ap.add_argument("what", nargs="?", default="all", choices=["open", "list", "all"])
    ap.add_argument("target", nargs="?", help="FILE for open, ROOT for list (default: benchmarks/data)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    a = ap.parse_args(argv)
    pkg = setup_pi()
    if not pkg:
        return 0
    out = {}
    if a.what in ("open", "all"):
        f = a.target if a.what == "open" and a.target else big_file()
        if not f:
            print("skipped: no big session (run: python benchmarks/gen.py big)", file=sys.stderr)
        else:
            out["open"] = pi_open(f, a.runs, pkg)
            out["open"]["file"] = f
            m = _marker("big")
            if m and a.what == "all" and out["open"]["result"] and out["open"]["result"]["entries"] != m["entries"]:
                print(f"WARNING: Pi counts {out['open']['result']['entries']} entries, gen.py wrote {m['entries']}",
                      file=sys.stderr)
    if a.what in ("list", "all"):
        root = a.target if a.what == "list" and a.target else store_root()
        if not root:
            print("skipped: no store (run: python benchmarks/gen.py store)", file=sys.stderr)
        else:
            out["list"] = pi_list(root, a.runs, pkg)
            out["list"]["root"] = root
    if a.json:
        for r in out.values():
            r.pop("stdout", None)
        json.dump(out, sys.stdout, indent=1)
        print()
    else:
        for k, r in out.items():
            print(_fmt(f"Pi {k}", r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
