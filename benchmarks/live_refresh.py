#!/usr/bin/env python3
"""What a refresh of the live board costs when nothing changed: CPU milliseconds of
``LiveBoard.refresh`` over a whole store (every folder's time compared, the files written in
the last day and a quarter of the others statted, no file opened: what polling does each
second), of a full look (every file statted: what the board does every 15 s besides file
notifications), and of a refresh told by notifications that nothing was written
(``LiveBoard.tick``: the clock only).

    python benchmarks/live_refresh.py [--store NAME] [--rounds N] [--compare SRC]

The board is made and primed (its first refresh stats every file, reads the ends of the
sessions written in the window: none in a generated store) before the rounds; each round is
one refresh, timed with ``time.process_time`` (CPU, which depends little on the machine's
load) and ``time.perf_counter``. ``--compare SRC`` measures another source tree too, in
turns, each side in its own process (a tree without ``pitui.core.live`` is skipped).
Prints the median, p95 and worst per side; the issue's budget is 50 ms of CPU on 15,000
sessions.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)


def measure(store: str, rounds: int) -> dict:
    """One side's figures, in this process (the pitui imported is the first on sys.path)."""
    from pitui.core.live.board import LiveBoard
    from pitui.core.store.discovery import resolve_root

    board = LiveBoard(resolve_root(store))
    now = time.time() * 1000
    start = time.process_time()
    board.refresh(now)
    prime = time.process_time() - start
    cpu, wall, tick, full = [], [], [], []
    for k in range(rounds):
        now = time.time() * 1000
        c0, w0 = time.process_time(), time.perf_counter()
        board.refresh(now)
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
        c0 = time.process_time()
        board.tick(now)
        tick.append((time.process_time() - c0) * 1000)
        if k % 5 == 0:
            c0 = time.process_time()
            board.refresh(now, full=True)
            full.append((time.process_time() - c0) * 1000)
    return {"files": len(board._files), "prime_cpu_ms": prime * 1000, "cpu_ms": cpu, "wall_ms": wall,
            "tick_cpu_ms": tick, "full_cpu_ms": full}


def _side(src: str, store: str, rounds: int) -> dict | None:
    code = ("import sys, json; sys.path.insert(0, %r); sys.path.insert(1, %r); import live_refresh; "
            "print(json.dumps(live_refresh.measure(%r, %d)))") % (src, BENCH, store, rounds)
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=src)
    except subprocess.CalledProcessError as exc:
        print(f"{src}: {exc.stderr.strip().splitlines()[-1] if exc.stderr.strip() else exc}", file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def _summary(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
    return f"median {statistics.median(values):.1f} ms, p95 {p95:.1f} ms, worst {values[-1]:.1f} ms"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--store", default="store15k", help="a store in benchmarks/data (default store15k)")
    p.add_argument("--rounds", type=int, default=100, help="refreshes per turn (default 100)")
    p.add_argument("--turns", type=int, default=3, help="turns per side (default 3)")
    p.add_argument("--compare", metavar="SRC", help="another source tree, measured in turns with this one")
    args = p.parse_args()
    store = os.path.join(BENCH, "data", args.store)
    if not os.path.isdir(store):
        print(f"no store {store}: python benchmarks/gen.py {args.store}", file=sys.stderr)
        return 2
    sides = {"this tree": REPO}
    if args.compare:
        sides[f"compare ({args.compare})"] = os.path.abspath(args.compare)
    got: dict[str, dict] = {name: {"cpu_ms": [], "wall_ms": [], "tick_cpu_ms": [], "full_cpu_ms": [], "prime_cpu_ms": []}
                            for name in sides}
    files = {}
    for _turn in range(args.turns):
        for name, src in sides.items():
            res = _side(src, store, args.rounds)
            if res is None:
                continue
            files[name] = res["files"]
            for key in ("cpu_ms", "wall_ms", "tick_cpu_ms", "full_cpu_ms"):
                got[name][key].extend(res[key])
            got[name]["prime_cpu_ms"].append(res["prime_cpu_ms"])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"store {args.store}, load {load:.1f}, {args.turns} turns x {args.rounds} refreshes per side")
    for name, g in got.items():
        if not g["cpu_ms"]:
            print(f"{name}: not measured")
            continue
        print(f"{name}: {files[name]} files")
        print(f"  refresh, nothing changed, CPU: {_summary(g['cpu_ms'])}; wall: {_summary(g['wall_ms'])}")
        print(f"  notified tick (clock only), CPU: {_summary(g['tick_cpu_ms'])}")
        if g["full_cpu_ms"]:
            print(f"  full look (every file statted), CPU: {_summary(g['full_cpu_ms'])}")
        print(f"  first refresh (priming), CPU: median {statistics.median(g['prime_cpu_ms']):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
