#!/usr/bin/env python3
"""The cold listing's scan alone: CPU seconds of ``scan_info`` (and the row a worker sends)
over N files of a store, in one process, as a listing worker does it.

    python benchmarks/list_scan.py STORE [--files 2000] [--rounds 3] [--compare SRC]

The files are a fixed sample (seeded) of the store's, read once first (so that the page
cache holds them); each round times this tree, then ``--compare SRC`` (another pitui source
tree), each in a fresh process, in turns. CPU time, not wall time: on a shared machine it
depends little on the load. What the whole list costs beside Pi: ``run.py --only list``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)

ONE = r"""
import os, random, sys, time
from pitui.core.store.discovery import SessionFile
try:
    from pitui.core.store.listing_rows import frag_of, rec_of, row_of
    from pitui.core.store.listing_scan import scan_info
except ImportError:  # (a tree from before listing.py was split, for --compare)
    from pitui.core.store.listing import _frag_of as frag_of, _rec_of as rec_of, _row_of as row_of, scan_info
store, n = sys.argv[1], int(sys.argv[2])
files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(store) for f in fs if f.endswith(".jsonl"))
random.Random(1).shuffle(files)
files = files[:n]
for f in files:
    with open(f, "rb") as fh:
        fh.read()
t = time.process_time()
for f in files:
    info = scan_info(SessionFile(f, "p", "session"), keep_first=True, mapped=True)
    rec_of(info, row_of(info))
    frag_of(info)
print(time.process_time() - t, sum(os.path.getsize(f) for f in files))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store")
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--compare", metavar="SRC", help="another pitui source tree, timed in turns")
    a = ap.parse_args(argv)
    trees = {"this tree": REPO} | ({"compare": os.path.abspath(a.compare)} if a.compare else {})
    got: dict[str, list[float]] = {t: [] for t in trees}
    neutral = os.path.dirname(REPO)  # (python -c puts the cwd first on the path)
    for k in range(a.rounds):
        for name, src in (trees.items() if k % 2 == 0 else reversed(list(trees.items()))):
            out = subprocess.run([sys.executable, "-c", ONE, a.store, str(a.files)], cwd=neutral, check=True,
                                 env={**os.environ, "PYTHONPATH": src}, capture_output=True, text=True).stdout
            cpu, size = out.split()
            got[name].append(float(cpu))
            print(f"{name}: {float(cpu):.3f} s CPU, {a.files} files, {int(size) / 1e6:.1f} MB", flush=True)
    for name, xs in got.items():
        med = statistics.median(xs)
        print(f"{name}: median {med:.3f} s ({min(xs):.3f}-{max(xs):.3f}), {med / a.files * 1e3:.3f} ms a file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
