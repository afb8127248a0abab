#!/usr/bin/env python3
"""pitui's benchmarks, side by side with Pi's own session code, in one run.

    python benchmarks/run.py [--runs N] [--json OUT] [--markdown]

Inputs come from ``benchmarks/gen.py`` (generated on first use): a 200+ MB session with
50,000+ entries, and a store of ~1,500 sessions / ~1 GB. Each figure is the median of N runs
(default 3), each run a fresh process; peak memory is that process's max RSS. Pi's figures
come from ``benchmarks/pi_side.py`` (skipped, with the reason, where node is missing).

Figures:
  open     the real app, headless, from process start to a usable screen (tree drawn, the
           leaf's branch shown in the pane; memory: the app's peak + its worker's), then
           navigation key latency in that session; Pi: SessionManager.open + getTree +
           buildSessionContext on the same file. First opens (empty cache) and re-opens
           (the skeleton saved by the first open).
  choose   the app started on the store, then the big session chosen: to a usable screen.
  paired   first opens and Pi's opens taken in turns (--pairs N): the median of the
           pairs' ratios (the machine's speed drifts over minutes; a pair's two runs are
           seconds apart).
  open-core  the parallel open (what the app uses, without the skeleton cache) + tree
           layout only, in a fresh process.
  list-cold  `pitui list ROOT --json` with an empty cache; Pi: listAll over the store.
  list-warm  the same with the index filled and nothing changed.
  list-grow  one session appended to (Pi appends), then listed: read from where the index stopped.
  --only list  the listing alone on several stores (--stores store,store15k,store50k,store15kmix):
           Pi's listAll and pitui's cold / warm / grown list of the whole store, for this
           tree and --compare SRC, in turns in each round (the grown file is cut back to its
           old size after); a cold list's ratio to Pi is taken against Pi's run in its own
           round, and the rounds' median and range are reported, with CPU seconds.
  --only usage  `pitui usage daily` cold / warm / after one session grew, beside
           `ccusage-pi daily` on the same store in turns (benchmarks/usage_bench.py).
  search   `pitui search Q STORE --limit 20` for each query form, index warm: to its first 20
           hits and to its exit, beside one `grep -rliF` pass over the store; the index built
           cold and its size (benchmarks/search_bench.py; `--only search` runs it alone, on
           --stores, default store,storebig: the newest four sessions 229 MB each).
  startup  what `pitui` imports before its first screen, by group (textual, rich, pitui.core,
           pitui.ui, ...) against the start-up budget (benchmarks/startup_budget.py; `--only
           startup` runs it alone, with --compare SRC beside another tree).
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
sys.path.insert(1, REPO)  # for tools/, the session writer

import pi_side  # noqa: E402
import search_bench  # noqa: E402
import startup_budget  # noqa: E402
from tools import piwriter  # noqa: E402

PY = sys.executable

CORE_OPEN = r"""
import sys, time, json
t = time.perf_counter()
from pitui.core.open.parallel import ParallelOpen
from pitui.core.model.layout import layout_tree
s = ParallelOpen(sys.argv[1], use_cache=False).result()
layout = layout_tree(s, "default")
print(json.dumps({"entries": len(s), "rows": len(layout.rows), "in_process_s": time.perf_counter() - t}))
"""


def ensure_inputs() -> tuple[str, str]:
    big, store = pi_side.big_file(), pi_side.store_root()
    if big is None or store is None:
        subprocess.run([PY, os.path.join(BENCH, "gen.py"), "all"], check=True)
        big, store = pi_side.big_file(), pi_side.store_root()
    return big, store


def _app(args: list[str], cache: str) -> dict:
    import time

    time.sleep(2)  # the previous run's background work (saving a skeleton) is over
    env = {**os.environ, "PITUI_CACHE_DIR": cache}
    r = pi_side.measure_once([PY, os.path.join(BENCH, "app_open.py"), *args], env=env)
    r["result"] = json.loads(r["stdout"].strip().splitlines()[-1])
    return r


def bench_open(big: str, store: str, runs: int) -> dict:
    """First opens each with an empty cache folder; re-opens with the skeleton the first
    open saved (its worker saves it after the app has what it needs, so a pause first)."""
    import time

    def summary(rs: list[dict], key: str | None = None) -> dict:
        vals = [r["result"][key] if key else r["wall_s"] for r in rs]
        return {"median_s": statistics.median(vals), "runs": vals,
                "peak_mib": max(r["result"]["peak_mib_app"] for r in rs),
                "peak_mib_worker": max(r["result"]["peak_mib_one_worker"] for r in rs)}

    first = [_app([big], tempfile.mkdtemp(prefix="pitui-bench-")) for _ in range(runs)]
    chose = [_app([big, "--choose", store], tempfile.mkdtemp(prefix="pitui-bench-")) for _ in range(runs)]
    warm = tempfile.mkdtemp(prefix="pitui-bench-")
    _app([big], warm)
    time.sleep(2)
    again = [_app([big], warm) for _ in range(runs)]
    chose_again = [_app([big, "--choose", store], warm) for _ in range(runs)]
    keys = _app([big, "--keys", "3"], warm)["result"]
    core = pi_side.measure([PY, "-c", CORE_OPEN, big], runs,
                           env={**os.environ, "PITUI_CACHE_DIR": tempfile.mkdtemp(prefix="pitui-bench-")})
    return {
        "app": summary(first),
        "choose": summary(chose, "open_to_usable_s"),
        "app_again": summary(again),
        "choose_again": summary(chose_again, "open_to_usable_s"),
        "keys": keys,
        "core": core,
    }


def bench_paired(big: str, pkg: str, pairs: int) -> dict:
    """Pi's open and pitui's first open of the big file taken in turns, ``pairs`` times
    (Pi first in one pair, pitui first in the next): this machine's speed drifts by tens
    of percent over minutes, so each ratio is of two runs made a few seconds apart."""
    rows = []
    for k in range(pairs):
        got: dict = {}
        for who in (("pi", "pitui") if k % 2 == 0 else ("pitui", "pi")):
            if who == "pi":
                r = pi_side.pi_open(big, 1, pkg)
                got["pi"] = r["median_s"] if r else None
            else:
                got["pitui"] = _app([big], tempfile.mkdtemp(prefix="pitui-bench-"))["wall_s"]
        if got["pi"]:
            rows.append(got)
    ratios = [r["pitui"] / r["pi"] for r in rows]
    return {
        "pairs": rows,
        "ratios": ratios,
        "ratio_median": statistics.median(ratios) if ratios else None,
        "pi_median_s": statistics.median(r["pi"] for r in rows) if rows else None,
        "pitui_median_s": statistics.median(r["pitui"] for r in rows) if rows else None,
    }


def bench_list(store: str, runs: int) -> dict:
    cmd = [PY, "-m", "pitui.cli", "list", store, "--json"]
    cold_runs, warm_runs, grow_runs = [], [], []
    for _ in range(runs):
        cache = tempfile.mkdtemp(prefix="pitui-bench-")
        env = {**os.environ, "PITUI_CACHE_DIR": cache}
        cold_runs.append(pi_side.measure_once(cmd, env=env))
        warm_runs.append(pi_side.measure_once(cmd, env=env))
        shutil.rmtree(cache, ignore_errors=True)
    # growth: copy the store's biggest project folder, list, append to one session, list again
    grow_root = tempfile.mkdtemp(prefix="pitui-grow-")
    try:
        folder = max(
            (os.path.join(store, d) for d in os.listdir(store) if os.path.isdir(os.path.join(store, d))),
            key=lambda d: sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)),
        )
        shutil.copytree(folder, os.path.join(grow_root, os.path.basename(folder)))
        target = max(
            (os.path.join(grow_root, os.path.basename(folder), f) for f in os.listdir(os.path.join(grow_root, os.path.basename(folder)))),
            key=os.path.getsize,
        )
        with open(target, "rb") as f:
            lines = f.read().splitlines()
        last = json.loads(lines[-1])
        for k in range(runs):
            cache = tempfile.mkdtemp(prefix="pitui-bench-")
            env = {**os.environ, "PITUI_CACHE_DIR": cache}
            pi_side.measure_once([PY, "-m", "pitui.cli", "list", grow_root, "--json"], env=env)
            entry = piwriter.entry("message", f"grow{k:04d}", last.get("id"), "2026-11-21T12:00:00.000Z",
                                   message=piwriter.user_message("appended", 1795262400000))
            with open(target, "ab") as f:
                f.write((piwriter.dumps(entry) + "\n").encode())
            grow_runs.append(pi_side.measure_once([PY, "-m", "pitui.cli", "list", grow_root, "--json"], env=env))
            shutil.rmtree(cache, ignore_errors=True)
        grow_size = os.path.getsize(target)
    finally:
        shutil.rmtree(grow_root, ignore_errors=True)

    def summary(rs):
        return {"median_s": statistics.median(r["wall_s"] for r in rs), "runs": [r["wall_s"] for r in rs],
                "peak_mib": max(r["peak_mib"] for r in rs)}

    out = {"cold": summary(cold_runs), "warm": summary(warm_runs), "grow": summary(grow_runs),
           "grow_file_mb": grow_size / 1e6}
    return out


def _grow_target(store: str) -> str:
    """The newest session file whose last line is whole (ends with a newline and parses: a
    store of copies holds damaged files too), appended to for the grown figure."""
    files = sorted((os.path.join(dp, f) for dp, _, fs in os.walk(store) for f in fs if f.endswith(".jsonl")),
                   key=lambda p: os.stat(p).st_mtime_ns, reverse=True)
    for path in files:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - 65536))
            tail = f.read()
        try:
            if tail.endswith(b"\n") and isinstance(json.loads(tail.splitlines()[-1]), dict):
                return path
        except ValueError:
            continue
    raise SystemExit(f"{store}: no session file ends with a whole line")


def _grow_once(target: str, k: int) -> tuple[int, int]:
    """Append one user message to ``target`` (as Pi appends); returns what to restore."""
    st = os.stat(target)
    with open(target, "rb") as f:
        f.seek(max(0, st.st_size - 65536))
        last = json.loads(f.read().splitlines()[-1])
    entry = piwriter.entry("message", f"grow{k:04d}", last.get("id"), "2026-11-21T12:00:00.000Z",
                           message=piwriter.user_message("appended", 1795262400000))
    with open(target, "ab") as f:
        f.write((piwriter.dumps(entry) + "\n").encode())
    return st.st_size, st.st_mtime_ns


def _restore(target: str, size: int, mtime_ns: int) -> None:
    with open(target, "r+b") as f:
        f.truncate(size)
    os.utime(target, ns=(mtime_ns, mtime_ns))


def store_stats(store: str) -> tuple[int, float]:
    n = total = 0
    for dp, _, fs in os.walk(store):
        for f in fs:
            if f.endswith(".jsonl"):
                n += 1
                total += os.path.getsize(os.path.join(dp, f))
    return n, total / 1e6


def bench_list_stores(stores: list[str], runs: int, pkg: str | None, compare: str | None,
                      pi_runs: int | None) -> list[dict]:
    """For each store: Pi's listAll and pitui's `list ROOT --json` cold (empty cache), warm
    (nothing changed) and grown (one session appended to, in the store itself, then cut back
    to its old size and mtime), for this tree and ``compare`` (another source tree, run with
    PYTHONPATH), taken in turns in the same rounds: each round runs Pi's listAll (first in
    even rounds, last in odd ones) beside each tree's cold list, so that a cold list's ratio
    to Pi is taken within its round (the machine's load drifts over minutes) and the median
    of the rounds' ratios is reported, with their range and the CPU seconds of both."""
    trees = {"after": REPO}
    if compare:
        trees["before"] = os.path.abspath(compare)
    neutral = tempfile.mkdtemp(prefix="pitui-bench-cwd-")  # (python -m puts the cwd before PYTHONPATH)
    out = []
    for store in stores:
        n, mb = store_stats(store)
        print(f"{os.path.basename(store)}: {n} sessions, {mb:.0f} MB", flush=True)
        reps = pi_runs if pi_runs is not None else (runs if n < 20_000 else 1)
        pi_cmd = (["node", os.path.join(pi_side.reference_dir(), "pi_list.mjs"), pkg, os.path.abspath(store)]
                  if pkg else None)
        pis: list[dict] = []
        target = _grow_target(store)
        got: dict = {t: {"cold": [], "warm": [], "grow": [], "cold_cpu": [], "ratio": [], "peak_mib": 0}
                     for t in trees}
        caches = {}

        def pi_once():
            r = pi_side.measure_once(pi_cmd, cwd=neutral)
            assert r["rc"] == 0, r["stderr"]
            pis.append(r)
            print(f"  Pi listAll: {r['wall_s']:.2f} s ({r['cpu_s']:.2f} s CPU)", flush=True)

        for k in range(runs):
            with_pi = pi_cmd is not None and k < reps
            if with_pi and k % 2 == 0:
                pi_once()
            cold_at = {}
            for t, src in (trees.items() if k % 2 == 0 else reversed(list(trees.items()))):
                env = {**os.environ, "PYTHONPATH": src}
                cmd = [PY, "-m", "pitui.cli", "list", store, "--json"]
                shutil.rmtree(caches.get(t, "/nonexistent"), ignore_errors=True)
                caches[t] = tempfile.mkdtemp(prefix="pitui-bench-")
                env["PITUI_CACHE_DIR"] = caches[t]
                r = pi_side.measure_once(cmd, cwd=neutral, env=env)
                assert r["rc"] == 0, r["stderr"]
                got[t]["cold"].append(r["wall_s"])
                got[t]["cold_cpu"].append(r["cpu_s"])
                cold_at[t] = r["wall_s"]
                got[t]["peak_mib"] = max(got[t]["peak_mib"], r["peak_mib"])
                for _ in range(2):
                    r = pi_side.measure_once(cmd, cwd=neutral, env=env)
                    got[t]["warm"].append(r["wall_s"])
                size, mtime = _grow_once(target, k)
                try:
                    r = pi_side.measure_once(cmd, cwd=neutral, env=env)
                    got[t]["grow"].append(r["wall_s"])
                finally:
                    _restore(target, size, mtime)
                pi_side.measure_once(cmd, cwd=neutral, env=env)  # (the file as it was, in the index again)
            if with_pi and k % 2 == 1:
                pi_once()
            if with_pi:
                for t, c in cold_at.items():
                    got[t]["ratio"].append(c / pis[-1]["wall_s"])
        for t in trees:
            shutil.rmtree(caches.get(t, "/nonexistent"), ignore_errors=True)
        pi_wall = [r["wall_s"] for r in pis]
        row = {"store": os.path.basename(store), "sessions": n, "mb": mb,
               "pi": statistics.median(pi_wall) if pis else None, "pi_runs": pi_wall or None,
               "pi_cpu": statistics.median(r["cpu_s"] for r in pis) if pis else None,
               "pi_peak_mib": max(r["peak_mib"] for r in pis) if pis else None}
        for t, g in got.items():
            row[t] = {k: statistics.median(g[k]) for k in ("cold", "warm", "grow", "cold_cpu")}
            row[t]["runs"] = {k: g[k] for k in ("cold", "warm", "grow", "cold_cpu")}
            row[t]["cold_ratio"] = statistics.median(g["ratio"]) if g["ratio"] else None
            row[t]["cold_ratio_runs"] = g["ratio"]
            row[t]["peak_mib"] = g["peak_mib"]
        out.append(row)
        print(list_report([row]), flush=True)
    return out


def list_report(rows: list[dict], markdown: bool = False) -> str:
    def ratio(x, pi):
        return f"{x / pi:.3f}x" if pi else "n/a"

    def cold_ratio(r):  # the median of the rounds' ratios (each cold list beside Pi's run in its round)
        rs = r.get("cold_ratio_runs") or []
        if not rs:
            return "n/a"
        return f"{r['cold_ratio']:.3f}x" + (f" ({min(rs):.3f}-{max(rs):.3f})" if len(rs) > 1 else "")

    lines = []
    if markdown:
        lines.append("| store | Pi listAll | tree | cold (x Pi, rounds' range) | cold CPU (x Pi's) | warm (x Pi) "
                     "| after one session grew (x Pi) |")
        lines.append("|---|---|---|---|---|---|---|")
    for row in rows:
        pi = row["pi"]
        for t in ("before", "after"):
            if t not in row:
                continue
            r = row[t]
            c, w, g, cpu = r["cold"], r["warm"], r["grow"], r.get("cold_cpu")
            cpu_ratio = ratio(cpu, row.get("pi_cpu")) if cpu is not None else "n/a"
            if markdown:
                lines.append(f"| {row['store']} ({row['sessions']:,} sessions, {row['mb']:,.0f} MB) | "
                             f"{pi:.2f} s | {t} | {c:.2f} s ({cold_ratio(r)}) | {cpu:.2f} s ({cpu_ratio}) | "
                             f"{w:.3f} s ({ratio(w, pi)}) | {g:.3f} s ({ratio(g, pi)}) |" if pi else
                             f"| {row['store']} | skipped | {t} | {c:.2f} s | {cpu:.2f} s | {w:.3f} s | {g:.3f} s |")
            else:
                lines.append(f"  {row['store']} {t}: cold {c:.2f} s ({cold_ratio(r)}; CPU {cpu:.2f} s, "
                             f"{cpu_ratio} Pi's), warm {w:.3f} s ({ratio(w, pi)}), grown {g:.3f} s "
                             f"({ratio(g, pi)})  [<= 0.25x, <= 0.03x]; runs {r['runs']}; peak {r['peak_mib']:.0f} MiB")
        if pi:
            lines.append(f"  {row['store']} Pi listAll: {pi:.2f} s median (runs {row['pi_runs']}), "
                         f"CPU {row['pi_cpu']:.2f} s, peak {row['pi_peak_mib']:.0f} MiB")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=7,
                    help="first opens paired with Pi's open, taken in turns (0: none)")
    ap.add_argument("--json", metavar="OUT", help="also write all figures as JSON to OUT")
    ap.add_argument("--markdown", action="store_true", help="print the README table")
    ap.add_argument("--skip-pi", action="store_true")
    ap.add_argument("--only", choices=("all", "search", "list", "startup", "usage"), default="all",
                    help="search: only the search figures (benchmarks/search_bench.py); list: only the "
                    "listing figures, for each of --stores; startup: only the import budget "
                    "(benchmarks/startup_budget.py)")
    ap.add_argument("--stores", default=None,
                    help="with --only list or search: stores under benchmarks/data (comma-separated; gen.py makes "
                    "them; default store,store15k,store50k for list, store,storebig for search)")
    ap.add_argument("--compare", metavar="SRC",
                    help="with --only list, search or startup: another pitui source tree, in the same rounds")
    ap.add_argument("--pi-runs", type=int, default=None,
                    help="with --only list: Pi's listAll runs per store, one a round (default: every round; 1 from 20,000 sessions)")
    args = ap.parse_args(argv)
    if args.only == "list":
        stores = []
        for name in (args.stores or "store,store15k,store50k").split(","):
            if pi_side._marker(name) is None:
                subprocess.run([PY, os.path.join(BENCH, "gen.py"), name], check=True)
            stores.append(os.path.join(pi_side.DATA, name))
        for src in [REPO] + ([args.compare] if args.compare else []):
            subprocess.run([PY, "-m", "compileall", "-q", os.path.join(src, "pitui")], check=True,
                           stdout=subprocess.DEVNULL)
        pkg = None if args.skip_pi else pi_side.setup_pi(quiet=True)
        print(f"load average: {os.getloadavg()}", flush=True)
        rows = bench_list_stores(stores, args.runs, pkg, args.compare, args.pi_runs)
        print(f"load average: {os.getloadavg()}")
        print(list_report(rows))
        if args.markdown:
            print(list_report(rows, markdown=True))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(rows, f, indent=2)
        return 0
    if args.only == "startup":
        return startup_budget.main(["--runs", str(max(args.runs, 15))] + (["--json", args.json] if args.json else [])
                                   + (["--compare", args.compare] if args.compare else []))
    if args.only == "usage":
        import usage_bench

        return usage_bench.main(["--runs", str(args.runs)] + (["--json", args.json] if args.json else []))
    if args.only == "search":
        stores = [x for name in (args.stores or "store,storebig").split(",") for x in ("--store", name)]
        return search_bench.main(stores + ["--runs", str(max(args.runs, 5))] + (["--markdown"] if args.markdown else [])
                                 + (["--json", args.json] if args.json else [])
                                 + (["--compare", args.compare] if args.compare else []))
    big, store = ensure_inputs()
    # pitui as pip installs it: with its bytecode compiled (where PYTHONDONTWRITEBYTECODE
    # is set, an editable checkout would otherwise compile its source on every start)
    subprocess.run([PY, "-m", "compileall", "-q", os.path.join(REPO, "pitui")], check=True,
                   stdout=subprocess.DEVNULL)
    size_mb = os.path.getsize(big) / 1e6
    folders = [os.path.join(store, d) for d in os.listdir(store) if os.path.isdir(os.path.join(store, d))]
    files = [os.path.join(d, f) for d in folders for f in os.listdir(d) if f.endswith(".jsonl")]
    nfiles = len(files)
    store_mb = sum(os.path.getsize(f) for f in files) / 1e6
    print(f"inputs: {big} ({size_mb:.0f} MB); store {store} ({nfiles} sessions, {store_mb:.0f} MB)", flush=True)

    pi_open = pi_list = None
    if not args.skip_pi:
        pkg = pi_side.setup_pi(quiet=True)
        if pkg:
            pi_open = pi_side.pi_open(big, args.runs, pkg)
            pi_list = pi_side.pi_list(store, args.runs, pkg)
    paired = bench_paired(big, pkg, args.pairs) if (pi_open and args.pairs > 0) else None
    op = bench_open(big, store, args.runs)
    ls = bench_list(store, args.runs)
    sr = search_bench.bench_search(store, max(args.runs, 5))
    budget = startup_budget.budget({"now": REPO}, 15)

    rows = []

    def add(what, ours_s, ours_mib, pi_s, pi_mib, target):
        ratio = f"{ours_s / pi_s:.2f}x" if pi_s else "n/a"
        mem = f"{ours_mib / pi_mib:.2f}x" if (pi_mib and ours_mib) else "n/a"
        rows.append((what, ours_s, ours_mib, pi_s, pi_mib, ratio, mem, target))

    pis = lambda r: (r["median_s"], r["peak_mib"]) if r else (None, None)  # noqa: E731
    po_s, po_m = pis(pi_open)
    pl_s, pl_m = pis(pi_list)
    add(f"`pitui FILE`: the {size_mb:.0f} MB session to a usable screen, first open (whole process)",
        op["app"]["median_s"], op["app"]["peak_mib"] + op["app"]["peak_mib_worker"], po_s, po_m,
        "<= 0.25x time, <= 0.5x memory")
    add("the same, opened again (saved skeleton)", op["app_again"]["median_s"],
        op["app_again"]["peak_mib"], po_s, po_m, "")
    add("choosing it in a running pitui, first open (choice -> usable screen)", op["choose"]["median_s"], None,
        po_s, po_m, "<= 0.25x time")
    add("the same, opened again (saved skeleton)", op["choose_again"]["median_s"], None, po_s, po_m, "")
    add("open: parallel read + tree layout (core, whole process)", op["core"]["median_s"], op["core"]["peak_mib"],
        po_s, po_m, "")
    add(f"list {nfiles} sessions cold", ls["cold"]["median_s"], ls["cold"]["peak_mib"], pl_s, pl_m, "<= 0.25x")
    add(f"list {nfiles} sessions warm", ls["warm"]["median_s"], ls["warm"]["peak_mib"], pl_s, pl_m, "<= 0.03x")
    add(f"list after one {ls['grow_file_mb']:.0f} MB session grew", ls["grow"]["median_s"], ls["grow"]["peak_mib"],
        None, None, "reads only the new bytes")
    keys = op["keys"]
    print()
    for what, s, m, ps, pm, ratio, mem, target in rows:
        pis_txt = f"{ps:.2f} s / {pm:.0f} MiB" if ps else "skipped"
        mib = f" / {m:.0f} MiB" if m else ""
        print(f"{what}: pitui {s:.2f} s{mib}; Pi {pis_txt}; time {ratio}, memory {mem}  [{target}]")
    print(f"keys in the {keys['entries']}-entry session: median {keys['key_median_ms']} ms, "
          f"p95 {keys['key_p95_ms']} ms, max {keys['key_max_ms']} ms  [target: every key <= 50 ms]")
    print(f"  per key (median ms): {keys['keys']}")
    if paired and paired["ratios"]:
        rs = paired["ratios"]
        print(f"first open paired with Pi's open, {len(rs)} pairs taken in turns: pitui median "
              f"{paired['pitui_median_s']:.2f} s, Pi median {paired['pi_median_s']:.2f} s; ratio median "
              f"{paired['ratio_median']:.2f}x (pairs {min(rs):.2f}x-{max(rs):.2f}x, "
              f"{sum(r <= 0.25 for r in rs)} of {len(rs)} at or under 0.25x)")
    print(search_bench.report(sr))
    print(startup_budget.report(budget, 12))
    if args.markdown:
        print()
        print(search_bench.report(sr, markdown=True))
        print()
        print("| benchmark | pitui | Pi 1.5.2 | time ratio | memory ratio | target |")
        print("|---|---|---|---|---|---|")
        for what, s, m, ps, pm, ratio, mem, target in rows:
            pi_txt = f"{ps:.2f} s, {pm:.0f} MiB" if ps else "skipped"
            mib = f", {m:.0f} MiB" if m else ""
            print(f"| {what} | {s:.2f} s{mib} | {pi_txt} | {ratio} | {mem} | {target} |")
        if paired and paired["ratios"]:
            rs = paired["ratios"]
            print(f"| the first open again, paired with Pi's open ({len(rs)} pairs taken in turns; ratio: "
                  f"median of the pairs', range) | {paired['pitui_median_s']:.2f} s | {paired['pi_median_s']:.2f} s | "
                  f"{paired['ratio_median']:.2f}x ({min(rs):.2f}-{max(rs):.2f}) | | <= 0.25x |")
        print(f"| key press in the {keys['entries']:,}-entry session (median / p95 / max) | "
              f"{keys['key_median_ms']} / {keys['key_p95_ms']} / {keys['key_max_ms']} ms | | | | <= 50 ms |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pi_open": pi_open, "pi_list": pi_list, "open": op, "list": ls, "paired": paired, "search": sr}, f,
                      indent=2, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
