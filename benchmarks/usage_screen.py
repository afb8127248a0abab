#!/usr/bin/env python3
"""The usage screen (``$``) in the real app (headless) on a whole store: how soon it shows its
first figures.

    python benchmarks/usage_screen.py STORE                  one run, one JSON line
    python benchmarks/usage_screen.py --bench STORE [STORE...] [--runs 3] [--json OUT]

One run starts the app on STORE (its caches in ``PITUI_CACHE_DIR``; its clock on the day
after the newest session's name, so that the screen's 30 days hold the store's last month),
waits until the listing is done and the app is quiet, posts ``$``, and times from the key to the first repaint of the
usage screen that shows its figures (``first_figures_s``), and the process's CPU time spent
in that wait. ``--bench`` runs each store, in turns, with one cache folder made by a first
run (the listing index, the usage index and the screen's figures all made):

- ``warm``: nothing changed since;
- ``index warm``: the figures kept by the last screen removed (the usage index read and the
  figures worked out from it: what a screen waits for after any change to the store);
- ``grown``: the biggest session grew by one message since (read on from where the usage
  index stopped, then the figures worked out; the file is cut back to its size after).

The cache is pitui's own (a fresh temporary folder): never the user's.
"""

from __future__ import annotations

import asyncio
import glob
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


def store_today(store: str) -> float:
    """Epoch ms of noon UTC the day after the newest session began (Pi names a file after the
    time it began: ``2026-08-27T05-03-09-262Z_<id>.jsonl``)."""
    from datetime import datetime, timedelta, timezone

    names = [os.path.basename(p) for p in glob.glob(os.path.join(store, "*", "*.jsonl"))]
    newest = max(n[:10] for n in names if n[:4].isdigit())
    day = datetime.strptime(newest, "%Y-%m-%d").replace(tzinfo=timezone.utc) + timedelta(days=1, hours=12)
    return day.timestamp() * 1000


async def _quiet(app, pilot) -> None:
    """Wait until the app's workers are done (one cancelled on the way is waited past)."""
    from textual.worker import WorkerCancelled

    for _ in range(20):
        await asyncio.sleep(0.5)
        try:
            await asyncio.wait_for(app.workers.wait_for_complete(), 120)
            break
        except (asyncio.TimeoutError, WorkerCancelled):
            continue
    await pilot.pause()


async def run_app(store: str) -> dict:
    from textual import events
    from textual.screen import Screen

    from pitui.core.store.discovery import resolve_root
    from pitui.ui.app import PituiApp
    from pitui.ui.screens.usage import UsageScreen

    today = store_today(store)
    app = PituiApp(resolve_root(store), clock=lambda: today)
    state: dict = {}
    real_refresh = Screen._compositor_refresh

    def timed_refresh(self, *a, **k):
        r = real_refresh(self, *a, **k)
        if isinstance(self, UsageScreen) and self.figures is not None and "shown" not in state:
            state["shown"] = time.perf_counter()
            state["shown_cpu"] = time.process_time()
        return r

    Screen._compositor_refresh = timed_refresh
    async with app.run_test(size=(160, 45), headless=True) as pilot:
        deadline = time.perf_counter() + 600
        while not (app.browser is not None and app.browser.listing_done) and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        await _quiet(app, pilot)
        t, cpu = time.perf_counter(), time.process_time()
        app.post_message(events.Key("dollar_sign", "$"))
        while "shown" not in state and time.perf_counter() < deadline:
            await asyncio.sleep(0.002)
        screen = app.screen
        out = {"first_figures_s": state["shown"] - t if "shown" in state else None,
               "first_figures_cpu_s": state["shown_cpu"] - cpu if "shown" in state else None,
               "total": str(screen.query_one("#usage-totals").render()) if isinstance(screen, UsageScreen) else None}
        import resource

        out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _one(store: str, cache: str) -> dict:
    import pi_side

    time.sleep(1)  # (the previous run's processes are gone)
    env = {**os.environ, "PITUI_CACHE_DIR": cache, "PYTHONPATH": REPO, "TZ": "UTC"}
    r = pi_side.measure_once([sys.executable, os.path.abspath(__file__), store], env=env)
    if r["rc"] != 0:
        raise SystemExit(f"usage_screen.py {store} failed: {r['stderr'][-2000:]}")
    return json.loads(r["stdout"].strip().splitlines()[-1])


def bench(stores: list[str], runs: int) -> dict:
    from run import _grow_once, _restore

    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(REPO, "pitui")], check=True,
                   stdout=subprocess.DEVNULL)
    results = {}
    for store in stores:
        name = os.path.basename(os.path.normpath(store))
        cache = tempfile.mkdtemp(prefix="pitui-bench-")
        try:
            first = _one(store, cache)  # (the caches made: listing, usage index, the figures kept)
            biggest = max(glob.glob(os.path.join(store, "*", "*.jsonl")), key=os.path.getsize)
            got: dict = {"warm": [], "index warm": [], "grown": []}
            for k in range(runs):
                got["warm"].append(_one(store, cache))
                for f in glob.glob(os.path.join(cache, "usage-screen-v*.json")):
                    os.unlink(f)
                got["index warm"].append(_one(store, cache))
                size, mtime_ns = _grow_once(biggest, k)
                try:
                    got["grown"].append(_one(store, cache))
                finally:
                    _restore(biggest, size, mtime_ns)
                _one(store, cache)  # (the index and figures as before the file grew)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        row = {"first_run": first}
        for which, rs in got.items():
            vals = [r["first_figures_s"] for r in rs if r["first_figures_s"] is not None]
            row[which] = {"median_s": round(statistics.median(vals), 3) if vals else None,
                          "runs": [r["first_figures_s"] for r in rs],
                          "cpu_s": round(statistics.median(r["first_figures_cpu_s"] or 0 for r in rs), 3),
                          "peak_mib": max(r["peak_mib"] for r in rs), "total": rs[-1]["total"]}
        results[name] = row
        print(f"{name}: " + "; ".join(f"{w} {row[w]['median_s']} s (runs {row[w]['runs']}, CPU {row[w]['cpu_s']} s, "
                                      f"peak {row[w]['peak_mib']:.0f} MiB)" for w in got), flush=True)
    return results


def main() -> int:
    if "--bench" in sys.argv:
        import argparse

        ap = argparse.ArgumentParser(prog="usage_screen.py --bench")
        ap.add_argument("--bench", action="store_true")
        ap.add_argument("stores", nargs="+")
        ap.add_argument("--runs", type=int, default=3)
        ap.add_argument("--json")
        args = ap.parse_args()
        print(f"load average: {os.getloadavg()}", flush=True)
        out = bench(args.stores, args.runs)
        print(f"load average: {os.getloadavg()}")
        if args.json:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=2)
        return 0
    print(json.dumps(asyncio.run(run_app(sys.argv[1]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
