#!/usr/bin/env python3
"""The real pitui app (headless) started on a whole sessions store, as `pitui STORE`: how
soon the sidebar shows its first screen, the whole store, and the newest session, and
whether the sidebar's filter keeps up with typing.

    python benchmarks/app_store.py STORE [--type WORD] [--early]      one run, one JSON line
    python benchmarks/app_store.py --bench STORE [STORE...] [--runs 3] [--pi-runs 1] [--compare SRC] [--json OUT]

One run measures, from process start (each the first repaint that shows it):
  ``first_rows_s``  the sidebar shows sessions (from the listing index when it is warm);
  ``listed_s``      the sidebar holds every session of the store (the listing done);
  ``usable_s``      the newest session is open and drawn (``app_open._usable``).
Then it types into the sidebar's filter as a user would (``/``, then WORD a key at a time,
then as many backspaces), one key every ``TYPE_GAP`` seconds, and times each key from the
event posted to the first repaint that shows the filter with it (the rows filtered): the
median and worst of those are ``filter_key_median_ms`` / ``filter_key_max_ms``.
With ``--early`` it types as soon as the first rows show, while the store is still being
listed (the cold case's worst moment for a key), instead of once all is quiet.

``--bench`` runs each store: Pi's own ``listAll`` of it (``pi_side.pi_list``: what Pi's
``/resume`` waits for before it shows a row), then ``--runs`` cold starts (an empty cache
folder each, typing early), then ``--runs`` warm starts (the cache the cold runs made,
typing once quiet); with ``--compare SRC`` the pitui source tree at SRC too (``PYTHONPATH``),
each of its runs right after this tree's; and prints the medians.
The cache is pitui's own (``PITUI_CACHE_DIR``, a fresh temporary folder): never the user's.
"""

from __future__ import annotations

import sys
import time

T0 = time.perf_counter()
CPU0 = time.thread_time()  # (this thread: the user interface's)

if __name__ == "__main__" and "--bench" not in sys.argv and len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
    # what `pitui STORE` does first: collection paused until the first session is shown
    from pitui.cli import start_reading  # noqa: E402

    start_reading([sys.argv[1]])

import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

from app_runs import argv_or_help, compile_trees, in_turns, median_of, run_script  # noqa: E402

TYPE_GAP = 0.12  # seconds between two typed keys (a quick typist)
WORD = "refactor"  # typed into the filter (a word of many generated sessions' first messages)


async def run_app(store: str, word: str, early: bool) -> dict:
    from textual import events
    from textual.screen import Screen

    from app_open import _usable, background_done
    from pitui.core.store.discovery import resolve_root
    from pitui.ui.app import PituiApp

    app = PituiApp(resolve_root(store))
    state: dict = {}
    shown: list[tuple[float, str]] = []  # (repaint time, the filter as that repaint drew it)
    quiet = asyncio.Event()
    real_refresh = Screen._compositor_refresh

    def timed_refresh(self, *a, **k):
        r = real_refresh(self, *a, **k)
        t = time.perf_counter()
        state["paints"] = state.get("paints", 0) + 1
        b = app.browser
        if b is None or self is not b:
            return r
        sl = b.session_list
        shown.append((t, sl.filter_text))
        if "first_rows" not in state and sl.session_count():
            state["first_rows"] = t
        if "listed" not in state and b.listing_done and len(sl.infos) == len(b.infos) and b.infos:
            state["listed"] = t
            state["sessions"] = len(b.infos)
        if "usable" not in state and b.session is not None and _usable(app, self, b.session.path):
            state["usable"] = t
            state["usable_cpu_s"] = time.thread_time() - CPU0
            state["paints_to_usable"] = state["paints"]
        if "first_rows" in state and (early or "usable" in state):
            quiet.set()
        return r

    Screen._compositor_refresh = timed_refresh
    out: dict = {}
    async with app.run_test(size=(160, 45), headless=True) as pilot:
        await quiet.wait()
        if not early:
            await background_done(app, pilot)
        sl = app.browser.session_list
        sl.focus()
        await pilot.pause()
        lat: list[float] = []
        keys = [("slash", "/")] + [(c, c) for c in word] + [("backspace", None)] * len(word)
        for key, char in keys:
            before = sl.filter_text
            want = before[:-1] if key == "backspace" else before + char if key != "slash" else before
            t = time.perf_counter()
            app.post_message(events.Key(key, char))
            deadline = t + 10.0
            while time.perf_counter() < deadline:
                await asyncio.sleep(0.002)
                if any(ts > t and text == want for ts, text in shown[-50:]):
                    break
            if key != "slash":  # (it only starts the filter)
                drawn = [ts for ts, text in shown if ts > t and text == want]
                lat.append((drawn[0] if drawn else time.perf_counter()) - t)
            await asyncio.sleep(max(0.0, TYPE_GAP - (time.perf_counter() - t)))
        for key in ("first_rows", "listed", "usable"):
            out[f"{key}_s"] = state[key] - T0 if key in state else None
        out["sessions"] = state.get("sessions")
        out["filter_key_median_ms"] = round(statistics.median(lat) * 1000, 1)
        out["filter_key_max_ms"] = round(max(lat) * 1000, 1)
        out["filter_keys_ms"] = [round(x * 1000, 1) for x in lat]
        if early:
            # typed while listing: wait for the whole store and the newest session
            deadline = time.perf_counter() + 120
            while "usable" not in state and time.perf_counter() < deadline:
                await asyncio.sleep(0.05)
            for key in ("listed", "usable"):
                out[f"{key}_s"] = state[key] - T0 if key in state else None
            out["sessions"] = state.get("sessions")
        # the UI thread's CPU and the screen's paints from the start to the newest session usable
        out["usable_cpu_s"] = state.get("usable_cpu_s")
        out["paints_to_usable"] = state.get("paints_to_usable")
        import resource

        out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def bench(stores: list[str], runs: int, pi_runs: int, compare: str | None = None) -> dict:
    """Each store: Pi's listAll, then cold and warm runs of this tree (and of ``compare``,
    each of its runs right after this tree's, with a cache of its own)."""
    import pi_side

    trees = {"now": REPO} | ({"before": os.path.abspath(compare)} if compare else {})
    compile_trees(trees)
    results = {}
    for store in stores:
        name = os.path.basename(os.path.normpath(store))
        pi = pi_side.pi_list(store, pi_runs) if pi_runs else None
        caches = {t: tempfile.mkdtemp(prefix="pitui-bench-") for t in trees}
        cold = in_turns(trees, runs, caches, lambda src, cache: run_script(__file__, [store, "--early"], cache, src),
                        fresh=True)
        warm = in_turns(trees, runs, caches, lambda src, cache: run_script(__file__, [store], cache, src), fresh=False)
        for c in caches.values():
            shutil.rmtree(c, ignore_errors=True)

        results[name] = {}
        for t in trees:
            row = {"pi_listAll_s": pi["median_s"] if pi else None, "sessions": cold[t][0].get("sessions")}
            for which, rs in (("cold", cold[t]), ("warm", warm[t])):
                row[which] = {k: median_of(rs, k) for k in ("first_rows_s", "listed_s", "usable_s", "usable_cpu_s",
                                                       "paints_to_usable", "filter_key_median_ms", "peak_mib")}
                row[which]["filter_key_max_ms"] = max(r["filter_key_max_ms"] for r in rs)
                row[which]["runs"] = rs
            results[name][t] = row
            print(_line(f"{name} ({t}: {trees[t]})", row), flush=True)
    return results


def _line(name: str, row: dict) -> str:
    pi = row["pi_listAll_s"]
    bits = [f"{name}: {row['sessions']} sessions" + (f"; Pi's listAll {pi:.2f} s" if pi else "")]
    for which in ("cold", "warm"):
        r = row[which]
        bits.append(f"  {which}: first rows {r['first_rows_s']} s, all listed {r['listed_s']} s, "
                    f"newest session usable {r['usable_s']} s (UI thread CPU {r['usable_cpu_s']} s, "
                    f"{r['paints_to_usable']} paints); filter key median {r['filter_key_median_ms']} ms, "
                    f"worst {r['filter_key_max_ms']} ms ({'typed while listing' if which == 'cold' else 'typed once quiet'}); "
                    f"peak {r['peak_mib']:.0f} MiB")
    return "\n".join(bits)


if __name__ == "__main__":
    argv = argv_or_help(__doc__)
    if argv[0] == "--bench":
        import argparse

        ap = argparse.ArgumentParser(prog="app_store.py --bench")
        ap.add_argument("stores", nargs="+")
        ap.add_argument("--runs", type=int, default=3)
        ap.add_argument("--pi-runs", type=int, default=1)
        ap.add_argument("--compare")
        ap.add_argument("--json")
        args = ap.parse_args(argv[1:])
        res = bench(args.stores, args.runs, args.pi_runs, args.compare)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(res, f, indent=1)
        sys.exit(0)
    word = argv[argv.index("--type") + 1] if "--type" in argv else WORD
    result = asyncio.run(run_app(argv[0], word, "--early" in argv))
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: the caller times the process
