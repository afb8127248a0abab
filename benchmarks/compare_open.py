#!/usr/bin/env python3
"""Two pitui source trees and Pi's own open of one session, taken in turns.

    python benchmarks/app_open.py FILE --compare SRC [--rounds 5] [--keys 3] [--skip-pi] [--json OUT]

Each round runs, in an order that alternates from round to round: ``benchmarks/app_open.py
FILE`` on this tree (``now``) and on SRC (``before``, ``PYTHONPATH=SRC``; this tree's
script for both, so both are timed alike: it also runs trees from before ``core/`` had
folders), each with an empty cache folder (a first open), and Pi's ``SessionManager.open``
of the same file (``pi_side.pi_open``). With ``--keys N`` each
tree also runs once more per round with ``--keys N`` for key latency (a separate process, so
that the first run's wall time is start to usable screen alone). Both trees' bytecode is
compiled first (as ``pip install`` leaves it).

Figures per tree, the median over rounds and the range: the whole process to a usable screen
(wall, as ``run.py``'s paired figure), ``startup_s`` (app_open.py's first line to the
session handed to the browser: imports, the app built, composed and mounted), ``usable_s``
(to the usable screen), the CPU time of the user interface's thread to those two and to the
steps between (the file's read started, the imports done, the first paint), the app's
peak memory and its worker's, key median and p95; and the ratio of each round's process
wall to Pi's open in that round.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

import pi_side  # noqa: E402

FIELDS = ("wall_s", "startup_s", "usable_s", "read_started_cpu_s", "imported_cpu_s", "startup_cpu_s",
          "first_paint_cpu_s", "usable_cpu_s", "paints_to_usable", "peak_mib_app", "peak_mib_one_worker",
          "key_median_ms", "key_p95_ms")


def _run(src: str, file: str, extra: list[str], neutral: str) -> dict:
    """One app_open.py run on the tree at ``src`` with an empty cache folder."""
    time.sleep(2)  # the previous run's background work (saving a skeleton) is over
    cache = tempfile.mkdtemp(prefix="pitui-bench-")
    try:
        env = {**os.environ, "PYTHONPATH": src, "PITUI_CACHE_DIR": cache}
        r = pi_side.measure_once([sys.executable, os.path.join(BENCH, "app_open.py"), file, *extra],
                                 cwd=neutral, env=env)
        if r["rc"] != 0:
            raise SystemExit(f"{src}: app_open.py failed: {r['stderr'][-2000:]}")
        return {**json.loads(r["stdout"].strip().splitlines()[-1]), "wall_s": r["wall_s"]}
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def compare(file: str, src: str, rounds: int, keys: int, pi: bool) -> dict:
    trees = {"now": REPO, "before": os.path.abspath(src)}
    for path in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(path, "pitui")], check=True,
                       stdout=subprocess.DEVNULL)
    pkg = pi_side.setup_pi(quiet=True) if pi else None
    neutral = tempfile.mkdtemp(prefix="pitui-bench-cwd-")  # (the cwd would come before PYTHONPATH)
    got: dict = {t: [] for t in trees}
    pi_runs: list[float] = []
    loads = [os.getloadavg()[0]]
    for k in range(rounds):
        order = ["now", "before", "pi"] if k % 2 == 0 else ["pi", "before", "now"]
        row: dict = {}
        for who in order:
            if who == "pi":
                if pkg:
                    r = pi_side.pi_open(file, 1, pkg)
                    pi_runs.append(r["median_s"])
                continue
            r = _run(trees[who], file, [], neutral)
            if keys:
                r.update({f: v for f, v in _run(trees[who], file, ["--keys", str(keys)], neutral).items()
                          if f.startswith("key")})
            row[who] = r
        for t in trees:
            if pkg:
                row[t]["x_pi"] = row[t]["wall_s"] / pi_runs[-1]
            got[t].append(row[t])
        loads.append(os.getloadavg()[0])
        print(f"round {k + 1}: " + "; ".join(
            f"{t} {row[t]['wall_s']:.3f} s (startup {row[t]['startup_s']:.3f}, usable {row[t]['usable_s']:.3f}"
            + (f", {row[t]['x_pi']:.3f}x Pi" if pkg else "") + ")" for t in trees)
            + (f"; Pi {pi_runs[-1]:.2f} s" if pkg else "") + f"; load {loads[-1]:.1f}", flush=True)
    shutil.rmtree(neutral, ignore_errors=True)

    def spread(vals: list[float]) -> dict:
        return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "runs": vals}

    out: dict = {"file": file, "rounds": rounds, "load_average_1min": loads, "trees": trees,
                 "pi_open_s": spread(pi_runs) if pi_runs else None}
    for t in trees:
        out[t] = {f: spread([r[f] for r in got[t] if r.get(f) is not None])
                  for f in FIELDS + ("x_pi",) if any(r.get(f) is not None for r in got[t])}
    return out


def report(res: dict) -> str:
    def cell(s: dict, unit: str, digits: int) -> str:
        return f"{s['median']:.{digits}f}{unit} ({s['min']:.{digits}f}-{s['max']:.{digits}f})"

    lines = [f"{res['rounds']} rounds in turns; load average {min(res['load_average_1min']):.1f}-"
             f"{max(res['load_average_1min']):.1f}; medians (range)"]
    if res["pi_open_s"]:
        lines.append(f"  Pi's open: {cell(res['pi_open_s'], ' s', 2)}")
    for t in ("now", "before"):
        r = res[t]
        bits = [f"process to usable {cell(r['wall_s'], ' s', 3)}", f"start-up {cell(r['startup_s'], ' s', 3)}",
                f"usable {cell(r['usable_s'], ' s', 3)}",
                f"UI thread CPU to the read started {cell(r['read_started_cpu_s'], ' s', 3)}, the imports done "
                f"{cell(r['imported_cpu_s'], ' s', 3)}, start-up {cell(r['startup_cpu_s'], ' s', 3)}, the first paint "
                f"{cell(r['first_paint_cpu_s'], ' s', 3)}, usable {cell(r['usable_cpu_s'], ' s', 3)}",
                f"paints to usable {cell(r['paints_to_usable'], '', 0)}" if "paints_to_usable" in r else "",
                f"peak {cell(r['peak_mib_app'], ' MiB', 0)} + worker {cell(r['peak_mib_one_worker'], ' MiB', 0)}"]
        if "key_median_ms" in r:
            bits.append(f"keys median {cell(r['key_median_ms'], ' ms', 1)}, p95 {cell(r['key_p95_ms'], ' ms', 1)}")
        if "x_pi" in r:
            bits.append(f"x Pi's open {cell(r['x_pi'], 'x', 3)}")
        lines.append(f"  {t} ({res['trees'][t]}): " + "; ".join(bit for bit in bits if bit))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="app_open.py FILE --compare SRC", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--compare", metavar="SRC", required=True, help="another pitui source tree")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--keys", type=int, default=0, help="key latency rounds per run (0: no key runs)")
    ap.add_argument("--skip-pi", action="store_true")
    ap.add_argument("--json", metavar="OUT")
    args = ap.parse_args(argv)
    res = compare(os.path.abspath(args.file), args.compare, args.rounds, args.keys, not args.skip_pi)
    print(report(res))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
