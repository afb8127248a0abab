#!/usr/bin/env python3
"""What comparing branches costs (``C``, ``pitui compare``), and the tool calls it counts
with: CPU seconds in one process, on one session.

    python benchmarks/branches_bench.py FILE [--rounds 3] [--compare SRC]

Each round opens FILE, then times ``tool_calls`` over every entry (as the usage scan and the
stats screen's whole-session table call it, arguments not read; then as its branch table,
arguments read), and ``compare_branches`` of the newest and the oldest leaf (the trees
before ``core/model/compare.py`` have no comparison: only the calls are timed there). This
tree and ``--compare SRC`` (another pitui source tree) run in turns, each in a fresh
process. CPU time, not wall time: on a shared machine it depends little on the load.
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
import sys, time
from pitui.core.read.session import Session
from pitui.core.model.stats import session_indices, tool_calls
s = Session.open(sys.argv[1])
every = session_indices(s)
t = time.process_time()
tool_calls(s, every, args=False)
bare = time.process_time() - t
t = time.process_time()
tool_calls(s, every, args=True)
full = time.process_time() - t
try:
    from pitui.core.model.compare import compare_branches, leaves
except ImportError:  # (a tree from before the comparison)
    print(bare, full, -1, "")
    raise SystemExit
tips = leaves(s)
t = time.process_time()
c = compare_branches(s, [tips[0], tips[-1]])
print(bare, full, time.process_time() - t, "+".join(str(len(b.entries)) for b in c.branches))
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--compare", metavar="SRC", help="another pitui source tree, timed in turns")
    a = ap.parse_args(argv)
    path = os.path.abspath(a.file)
    trees = {"this tree": REPO} | ({"compare": os.path.abspath(a.compare)} if a.compare else {})
    got: dict[str, list[tuple[float, float, float]]] = {t: [] for t in trees}
    neutral = os.path.dirname(REPO)  # (python -c puts the cwd first on the path)
    for k in range(a.rounds):
        for name, src in (trees.items() if k % 2 == 0 else reversed(list(trees.items()))):
            out = subprocess.run([sys.executable, "-c", ONE, path], cwd=neutral, check=True,
                                 env={**os.environ, "PYTHONPATH": src}, capture_output=True, text=True).stdout
            bare, full, compare, sizes = (out.split() + [""])[:4]
            got[name].append((float(bare), float(full), float(compare)))
            said = f", compare {float(compare):.3f} s (branches of {sizes} entries)" if float(compare) >= 0 else ""
            print(f"{name}: tool_calls {float(bare):.3f} s bare, {float(full):.3f} s with arguments{said}", flush=True)
    for name, xs in got.items():
        meds = [statistics.median(x[k] for x in xs) for k in range(3)]
        tail = f", compare {meds[2]:.3f} s" if meds[2] >= 0 else ""
        print(f"{name}: median CPU: tool_calls {meds[0]:.3f} s bare, {meds[1]:.3f} s with arguments{tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
