#!/usr/bin/env python3
"""The search screen (ctrl+f) of the real pitui app (headless) on a whole sessions store: how
soon a query's first results show, with the search index cold and warm.

    python benchmarks/app_search.py STORE [--query Q] [--cold]       one run, one JSON line
    python benchmarks/app_search.py --bench STORE [--runs 3] [--compare SRC] [--query Q] [--json OUT]

One run starts the app on STORE as `pitui STORE` does (``PITUI_CACHE_DIR`` says which cache),
presses ctrl+f and types the query a key at a time, as a user would:
  cold (``--cold``, an empty cache folder): as soon as the sidebar shows its first rows,
      while the store is still being listed and nothing is indexed (a new install's first
      search);
  warm (the cache a cold run left, its search index brought up to date first, untimed):
      once the app is quiet.
Timed from the last key typed (the screen's own pause before it searches included) to the
first repaint that shows a result (``first_result_s``), and to the repaint that shows the
search done (``done_s``; cold runs stop waiting after ``COLD_DONE_WAIT`` seconds: the whole
store read while it is indexed takes longer, and the first results are what is measured).

``--bench`` runs ``--runs`` cold runs, then as many warm ones, with ``--compare SRC`` the
pitui source tree at SRC too (``PYTHONPATH``), each of its runs right after this tree's (runs in
turns, so a drift in the machine's load touches both alike); prints the medians.
"""

from __future__ import annotations

import sys
import time

T0 = time.perf_counter()

import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

from app_runs import argv_or_help, compile_trees, in_turns, median_of, run_script  # noqa: E402

QUERY = "pytest"  # (a command many generated sessions ran, some hundreds of times)
COLD_DONE_WAIT = 30.0
TYPE_GAP = 0.08  # seconds between two typed keys


async def run_app(store: str, query: str, cold: bool) -> dict:
    from textual.screen import Screen

    from pitui.core.store.discovery import resolve_root
    from pitui.ui.app import PituiApp
    from pitui.ui.screens.search import SearchResults, SearchScreen

    app = PituiApp(resolve_root(store))
    shown: list[tuple[float, int, bool]] = []  # (repaint time, results shown, search under way)
    first_rows = asyncio.Event()
    real_refresh = Screen._compositor_refresh

    def timed_refresh(self, *a, **k):
        r = real_refresh(self, *a, **k)
        if isinstance(self, SearchScreen):
            shown.append((time.perf_counter(), self.query_one(SearchResults).sessions, self.searching))
        else:
            b = app.browser
            if b is not None and self is b and b.session_list.session_count():
                first_rows.set()
        return r

    Screen._compositor_refresh = timed_refresh
    out: dict = {}
    async with app.run_test(size=(160, 45), headless=True) as pilot:
        await asyncio.wait_for(first_rows.wait(), 120)
        if not cold:
            from app_open import background_done

            await background_done(app, pilot)
        await pilot.press("ctrl+f")
        await pilot.pause()
        for ch in query:
            await pilot.press(ch)
            await asyncio.sleep(TYPE_GAP)
        typed = time.perf_counter()
        out["listed_when_typed"] = app.browser.listing_done if app.browser is not None else None
        deadline = typed + (COLD_DONE_WAIT if cold else 120)
        first = done = None
        while time.perf_counter() < deadline:
            await asyncio.sleep(0.01)
            if first is None:
                first = next((t for t, n, _ in shown if t > typed and n), None)
            if first is not None:
                done = next((t for t, n, busy in shown if t > first and not busy), None)
                if done is not None:
                    break
        screen = app.screen
        out["first_result_s"] = round(first - typed, 3) if first is not None else None
        out["done_s"] = round(done - typed, 3) if done is not None else None
        out["sessions_shown"] = screen.query_one(SearchResults).sessions if isinstance(screen, SearchScreen) else 0
    return out


def _index(store: str, cache: str, src: str) -> None:
    """The cache's search index brought up to date (untimed), as a warm run finds it."""
    env = {**os.environ, "PITUI_CACHE_DIR": cache, "PYTHONPATH": src}
    subprocess.run([sys.executable, "-m", "pitui.cli", "search", "zebrafish", store], cwd=src, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)


def bench(store: str, runs: int, compare: str | None, query: str) -> dict:
    trees = {"now": REPO} | ({"before": os.path.abspath(compare)} if compare else {})
    compile_trees(trees)
    caches = {t: tempfile.mkdtemp(prefix="pitui-search-bench-") for t in trees}
    args = [store, "--query", query]
    load = [os.getloadavg()]
    try:
        cold = in_turns(trees, runs, caches, lambda src, cache: run_script(__file__, [*args, "--cold"], cache, src),
                        fresh=True)
        for t, src in trees.items():
            _index(store, caches[t], src)
        warm = in_turns(trees, runs, caches, lambda src, cache: run_script(__file__, args, cache, src), fresh=False)
    finally:
        for c in caches.values():
            shutil.rmtree(c, ignore_errors=True)
    load.append(os.getloadavg())
    got = {t: {"cold": cold[t], "warm": warm[t]} for t in trees}

    res = {"trees": trees, "query": query, "load": load, "results": got}
    for t in trees:
        for which in ("cold", "warm"):
            rs = got[t][which]
            firsts = [r["first_result_s"] for r in rs]
            print(f"{t} {which}: first result median {median_of(rs, 'first_result_s')} s (runs {firsts}), "
                  f"done median {median_of(rs, 'done_s')} s", flush=True)
    print("load average before %.1f %.1f %.1f, after %.1f %.1f %.1f" % (*load[0], *load[1]))
    return res


if __name__ == "__main__":
    argv = argv_or_help(__doc__)
    import argparse

    if argv[0] == "--bench":
        ap = argparse.ArgumentParser(prog="app_search.py --bench")
        ap.add_argument("store")
        ap.add_argument("--runs", type=int, default=3)
        ap.add_argument("--compare")
        ap.add_argument("--query", default=QUERY)
        ap.add_argument("--json")
        args = ap.parse_args(argv[1:])
        res = bench(args.store, args.runs, args.compare, args.query)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(res, f, indent=1)
        sys.exit(0)
    ap = argparse.ArgumentParser(prog="app_search.py")
    ap.add_argument("store")
    ap.add_argument("--query", default=QUERY)
    ap.add_argument("--cold", action="store_true")
    args = ap.parse_args(argv)
    result = asyncio.run(run_app(args.store, args.query, args.cold))
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: the caller times the process
