#!/usr/bin/env python3
"""``pitui usage daily`` beside ``ccusage-pi daily`` on the same store, in the same run.

    python benchmarks/usage_bench.py [--store NAME] [--runs N] [--json OUT]
    (or: python benchmarks/run.py --only usage)

``@ccusage/pi`` (the version ``tools/ccusage_expected.py`` pins) is installed with npm into a
temporary folder. Each round runs, in turns: ``ccusage-pi daily --json --piPath STORE``,
``pitui usage daily STORE --json`` with an empty cache (cold), the same again (warm:
nothing changed), and after one session grew by a message (read on from where the index
stopped; the file is cut back to its old size after). Time zone UTC for both. Each figure
is the median of the rounds; memory is the peak RSS of the process or of its largest worker
process (the wrapper's RUSAGE_CHILDREN). The totals of both are printed, to show they agree;
with ``--agree``, the ``daily`` and ``monthly`` reports of both (and ``session`` with
``--agree-sessions``: on a store without copies of sessions, where which session keeps a copied
message is not defined) are compared row by row after the timed rounds: every token count
equal, every cost within $0.005.
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

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
sys.path.insert(1, REPO)

import pi_side  # noqa: E402
from run import _grow_once, _restore  # noqa: E402
from tools.ccusage_expected import CCUSAGE  # noqa: E402

PY = sys.executable


def install_ccusage(into: str) -> str:
    subprocess.run(["npm", "install", "--prefix", into, "--no-audit", "--no-fund", CCUSAGE], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.join(into, "node_modules", ".bin", "ccusage-pi")


def _totals(stdout_tail: str) -> dict | None:
    """The ``totals`` object that ends a report's JSON (the wrapper keeps the output's tail)."""
    at = stdout_tail.rfind('"totals": ')
    if at < 0:
        return None
    try:
        return json.loads(stdout_tail[at + len('"totals": '):].rstrip()[:-1])
    except ValueError:
        return None


def _biggest_session(store: str) -> str:
    files = [os.path.join(dp, f) for dp, _, fs in os.walk(store) for f in fs if f.endswith(".jsonl")]
    return max(files, key=os.path.getsize)


def bench(store: str, runs: int) -> dict:
    tmp = tempfile.mkdtemp(prefix="pitui-usage-bench-")
    neutral = tempfile.mkdtemp(prefix="pitui-bench-cwd-")
    try:
        ccusage = install_ccusage(tmp)
        env = {**os.environ, "TZ": "UTC", "PYTHONPATH": REPO}
        pitui = [PY, "-m", "pitui.cli", "usage", "daily", store, "--json", "--timezone", "UTC"]
        theirs = [ccusage, "daily", "--json", "--piPath", store, "--timezone", "UTC"]
        target = _biggest_session(store)
        figures: dict[str, list] = {"ccusage": [], "cold": [], "warm": [], "grow": []}
        totals = {}
        for k in range(runs):
            r = pi_side.measure_once(theirs, cwd=neutral, env=env)
            figures["ccusage"].append(r)
            totals["ccusage"] = _totals(r["stdout"])
            cache = os.path.join(tmp, f"cache{k}")
            cenv = {**env, "PITUI_CACHE_DIR": cache}
            r = pi_side.measure_once(pitui, cwd=neutral, env=cenv)
            figures["cold"].append(r)
            figures["warm"].append(pi_side.measure_once(pitui, cwd=neutral, env=cenv))
            totals["pitui"] = _totals(r["stdout"])
            size, mtime_ns = _grow_once(target, k)
            try:
                figures["grow"].append(pi_side.measure_once(pitui, cwd=neutral, env=cenv))
            finally:
                _restore(target, size, mtime_ns)
            shutil.rmtree(cache, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(neutral, ignore_errors=True)
    out = {}
    for name, rs in figures.items():
        out[name] = {"median_s": statistics.median(r["wall_s"] for r in rs), "runs": [r["wall_s"] for r in rs],
                     "cpu_s": statistics.median(r["cpu_s"] for r in rs), "peak_mib": max(r["peak_mib"] for r in rs)}
    base, base_cpu = out["ccusage"]["median_s"], out["ccusage"]["cpu_s"]
    for name in ("cold", "warm", "grow"):
        out[name]["ratio"] = out[name]["median_s"] / base
        out[name]["cpu_ratio"] = out[name]["cpu_s"] / base_cpu if base_cpu else None
    out["totals"] = totals
    return out


def agree(store: str, reports: tuple[str, ...]) -> list[str]:
    """Each of ``reports`` by both tools on ``store`` (UTC), compared row by row; the rows
    that differ (none: they agree)."""
    tmp = tempfile.mkdtemp(prefix="pitui-usage-agree-")
    try:
        ccusage = install_ccusage(tmp)
        env = {**os.environ, "TZ": "UTC", "PYTHONPATH": REPO, "PITUI_CACHE_DIR": os.path.join(tmp, "cache")}
        label = {"daily": ("daily", "date"), "monthly": ("monthly", "month"), "session": ("sessions", "sessionId")}
        bad = []
        for name in reports:
            theirs = json.loads(subprocess.run([ccusage, name, "--json", "--piPath", store, "--timezone", "UTC"],
                                               env=env, capture_output=True, check=True).stdout)
            ours = json.loads(subprocess.run([PY, "-m", "pitui.cli", "usage", name, store, "--json", "--timezone",
                                              "UTC"], env=env, capture_output=True, check=True).stdout)
            key, row = label[name]
            a = {r[row]: r for r in theirs[key]}
            b = {r[row]: r for r in ours[key]}
            if set(a) != set(b):
                bad.append(f"{name}: rows {sorted(set(a) ^ set(b))[:5]} in one only")
            for k in set(a) & set(b):
                for f in ("inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens"):
                    if a[k][f] != b[k][f]:
                        bad.append(f"{name} {k} {f}: ccusage {a[k][f]}, pitui {b[k][f]}")
                if abs(a[k]["totalCost"] - b[k]["totalCost"]) > 0.005:
                    bad.append(f"{name} {k} cost: ccusage {a[k]['totalCost']}, pitui {b[k]['totalCost']}")
            print(f"agree {name}: {len(a)} rows compared, {len(bad)} differences so far", flush=True)
        return bad
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def report(store: str, out: dict) -> str:
    n, mb = sum(1 for dp, _, fs in os.walk(store) for f in fs if f.endswith(".jsonl")), sum(
        os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(store) for f in fs if f.endswith(".jsonl")) / 1e6
    lines = [f"{os.path.basename(store)}: {n} sessions, {mb:.0f} MB",
             "| usage daily | time (median) | ratio | CPU time (user+sys, workers too) | CPU ratio | peak memory |",
             "|---|---|---|---|---|---|",
             f"| ccusage-pi daily --json | {out['ccusage']['median_s']:.2f} s | 1x | {out['ccusage']['cpu_s']:.2f} s | 1x "
             f"| {out['ccusage']['peak_mib']:.0f} MiB |"]
    for name, what in (("cold", "pitui usage, cold (empty cache)"), ("warm", "pitui usage, warm"),
                       ("grow", "pitui usage, one session grew")):
        f = out[name]
        cpu_ratio = f"{f['cpu_ratio']:.3f}x" if f["cpu_ratio"] is not None else "?"
        lines.append(f"| {what} | {f['median_s']:.2f} s | {f['ratio']:.3f}x | {f['cpu_s']:.2f} s | {cpu_ratio} "
                     f"| {f['peak_mib']:.0f} MiB |")
    t = out["totals"]
    if t.get("ccusage") and t.get("pitui"):
        lines.append(f"totals: ccusage ${t['ccusage']['totalCost']:.2f}, {t['ccusage']['inputTokens']:,} input; "
                     f"pitui ${t['pitui']['totalCost']:.2f}, {t['pitui']['inputTokens']:,} input")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", default="store", help="a store under benchmarks/data (gen.py makes it)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--agree", action="store_true", help="compare the daily and monthly reports row by row too")
    ap.add_argument("--agree-sessions", action="store_true", help="and the session report (a store without copies)")
    ap.add_argument("--skip-timing", action="store_true", help="only compare (with --agree)")
    args = ap.parse_args(argv)
    if pi_side._marker(args.store) is None:
        subprocess.run([PY, os.path.join(BENCH, "gen.py"), args.store], check=True)
    store = os.path.join(pi_side.DATA, args.store)
    subprocess.run([PY, "-m", "compileall", "-q", os.path.join(REPO, "pitui")], check=True, stdout=subprocess.DEVNULL)
    out = {}
    if not args.skip_timing:
        print(f"load average: {os.getloadavg()}", flush=True)
        out = bench(store, args.runs)
        print(f"load average: {os.getloadavg()}")
        print(report(store, out))
    if args.agree:
        bad = agree(store, ("daily", "monthly") + (("session",) if args.agree_sessions else ()))
        print("\n".join(bad[:40]) if bad else "every row agrees")
        out["agree"] = bad
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
