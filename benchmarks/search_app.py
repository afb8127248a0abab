#!/usr/bin/env python3
"""The app's search screen (ctrl+f) on a store: how soon each query form lists its first 20
hits, headless, index warm.

    python benchmarks/search_app.py [--store storebig] [--runs 3] [--compare SRC] [--json OUT]

One run is a fresh process: the search screen over the store (its sessions listed first,
from the warm listing index, as the app has them when ctrl+f is pressed), opened with the
query already typed, as `SearchScreen(query=...)` starts it; timed from the screen's mount
(the search's start) to the first check (every 5 ms) that finds 20 hit lines in its results
(``first_s``; the search's end when it lists fewer) and to the search's end (``done_s``).
The query forms are search_bench's. ``--compare SRC``: the pitui source tree at SRC too
(``PYTHONPATH``), each query's runs of both trees back to back, round after round. The
indexes are made first (untimed) in a temporary cache folder, or ``--cache DIR`` is used.
"""

from __future__ import annotations

import argparse
import asyncio
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

FIRST = 20  # hit lines listed: a screenful


async def _one(store: str, query: str) -> dict:
    """One run in this process (the tree on ``sys.path``)."""
    from textual.app import App

    from pitui.core.store.discovery import resolve_root
    from pitui.core.store.listing import SessionIndex, list_sessions
    from pitui.ui.screens.search import SearchResults, SearchScreen

    root = resolve_root(store)
    infos = list(list_sessions(root, SessionIndex()))
    marks: dict = {}

    class Host(App):
        def on_mount(self) -> None:
            marks["t0"] = time.perf_counter()
            self.push_screen(SearchScreen(root, infos=infos, query=query))

    app = Host()
    async with app.run_test(size=(160, 45)) as pilot:
        while "done" not in marks:
            await asyncio.sleep(0.005)
            screen = app.screen
            if not isinstance(screen, SearchScreen):
                continue
            res = screen.query_one(SearchResults)
            now = time.perf_counter() - marks["t0"]
            if "first" not in marks and sum(row.kind == "hit" for row in res.rows) >= FIRST:
                marks["first"] = now
            if not screen.searching and now > 0.05:
                marks["done"] = now
        await pilot.pause()
    hits = sum(row.kind == "hit" for row in res.rows)
    return {"first_s": marks.get("first", marks["done"]), "done_s": marks["done"], "hit_lines": hits,
            "sessions": res.sessions}


def _run(src: str, cache: str, store: str, query: str) -> dict:
    env = {**os.environ, "PYTHONPATH": src, "PITUI_CACHE_DIR": cache}
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", store, query], cwd=src, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)  # fmt: skip
    return json.loads(out.stdout.splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--one", nargs=2, metavar=("STORE", "QUERY"), help=argparse.SUPPRESS)
    ap.add_argument("--store", default="storebig", help="a sessions root or a store's name under benchmarks/data")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--compare", metavar="SRC")
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--cache", metavar="DIR", help="a pitui cache folder to use as it is (default: a new one, "
                    "filled first)")
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(asyncio.run(_one(*args.one))))
        return 0
    import search_bench

    store = search_bench._store_path(args.store)
    trees = {"now": REPO, **({"before": os.path.abspath(args.compare)} if args.compare else {})}
    cache = args.cache or tempfile.mkdtemp(prefix="pitui-search-app-")
    try:
        subprocess.run([sys.executable, "-m", "pitui.cli", "search", search_bench.NOWHERE, store], cwd=REPO,
                       env={**os.environ, "PITUI_CACHE_DIR": cache}, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)  # fmt: skip
        qs = search_bench.queries(store)
        got: dict = {}
        for _ in range(args.runs):
            for form, q in qs:
                for name, src in trees.items():
                    got.setdefault((form, name), []).append(_run(src, cache, store, q))
    finally:
        if not args.cache:
            shutil.rmtree(cache, ignore_errors=True)
    rows = []
    for form, q in qs:
        row = {"form": form, "query": q}
        for name in trees:
            rs = got[(form, name)]
            first = [r["first_s"] for r in rs]
            done = [r["done_s"] for r in rs]
            row[name] = {"first_s": statistics.median(first), "first_runs": first, "done_s": statistics.median(done),
                         "done_runs": done, "hit_lines": rs[-1]["hit_lines"], "sessions": rs[-1]["sessions"]}
        rows.append(row)
        cells = "; ".join(f"{n} first {FIRST} hit lines {row[n]['first_s']:.2f} s ({min(row[n]['first_runs']):.2f}-"
                          f"{max(row[n]['first_runs']):.2f}), done {row[n]['done_s']:.2f} s, "
                          f"{row[n]['sessions']} sessions" for n in trees)
        print(f"{form} {q!r}: {cells}", flush=True)
    print("load average: %.1f %.1f %.1f" % os.getloadavg())
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"store": store, "trees": trees, "queries": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
