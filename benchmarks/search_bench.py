#!/usr/bin/env python3
"""Searching the benchmark store: the first results of each query form, beside grep.

    python benchmarks/search_bench.py [--store store|storebig|PATH]... [--runs 5] [--compare SRC]
                                      [--json OUT] [--skip-cold]

Each figure is a whole process, `pitui search QUERY STORE --limit 20` (20 sessions, newest
first, each with its hits), with the search index warm, the median of ``--runs``: the time
from its start to the 20th hit line it prints (its **first 20 hits**, what a screen shows
first; the whole output when there are fewer), and to its exit. Beside it, in the same rounds,
one full ``grep -rliF`` pass over the store for a word found nowhere (the cost of reading every
byte once, page cache warm): the target is at most half of it. Runs are taken in turns (grep,
then each query, round after round), so a drift in the machine's speed touches all alike.

``--store``: a sessions root, or the name of a store under ``benchmarks/data`` (made by
``gen.py`` when missing), several times for several (default: ``store``); ``storebig`` is
the store whose four newest sessions are 229 MB each (issue 32).

``--compare SRC``: also run the pitui source tree at SRC (``PYTHONPATH=SRC``, e.g. an older
commit unpacked with ``git archive``) in the same rounds, each query's two runs back to back.
Both query the same index when the schema is the same (``SCHEMA_VERSION``), else each its own.

Once per tree, first, each in an empty cache of its own (``--skip-cold`` leaves it out): the index built
from nothing (`pitui search` of a word found nowhere with an empty cache; the listing index
made first, untimed, so that only the search index is timed), and its size beside the
store's; just before it, Pi's own ``listAll`` of the same store (``pi_side.pi_list``, one
run), the time the issue's target is a ratio of (<= 1.5x).
"""

from __future__ import annotations

import argparse
import json
import os
import re
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

PY = sys.executable
LIMIT = 20
NOWHERE = "zebrafish"  # (no generated session holds it; checked by the run: no results)


def queries(store: str) -> list[tuple[str, str]]:
    """(form, query): what people type first, and the forms of Pi's query language."""
    files = sorted(f for _, _, fs in os.walk(store) for f in fs if f.endswith(".jsonl"))
    rare = files[len(files) // 2].rsplit("_", 1)[1][:-len(".jsonl")][-12:]  # one session's id
    return [
        ("one common word", "parser"),
        ("several common words", "refactor parser"),
        ("a phrase", '"fix the"'),
        ("re: with a literal", "re:pars(er|ing)"),
        ("re: without a literal", "re:[0-9]{4}-[0-9]{2}"),
        ("a rare word (one session's id)", rare),
        ("no match", NOWHERE),
        ("re: no match, every trigram common", "re:back.slash fix"),
        ("a phrase, no match, every word common", '"fix slash"'),
        ("a kind: qualifier (the bash calls that ran npm)", "kind:shell_exec npm"),
    ]


def _schema(src: str) -> int:
    store = os.path.join(src, "pitui", "core", "store")
    # (older trees: search_index.py, before that search.py)
    name = next(n for n in ("search_db.py", "search_index.py", "search.py") if os.path.exists(os.path.join(store, n)))
    text = open(os.path.join(store, name), encoding="utf-8").read()
    return int(re.search(r"^SCHEMA_VERSION = (\d+)", text, re.M).group(1))


def _env(src: str, cache: str) -> dict:
    return {**os.environ, "PYTHONPATH": src, "PITUI_CACHE_DIR": cache}


_HIT_LINE = re.compile(rb"^ +(#\d+|header) ")  # (a hit's line in `pitui search`'s output)


def _search(src: str, cache: str, query: str, store: str) -> dict:
    """One run: wall seconds to exit and to the ``LIMIT``-th hit line printed (``first_s``;
    the exit when fewer), the command's CPU seconds and peak memory."""
    # (run from the tree itself: ``python -m`` puts the working folder first on sys.path)
    cmd = [PY, "-m", "pitui.cli", "search", query, store, "--limit", str(LIMIT)]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=src, env=_env(src, cache), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    hits, first = 0, None
    for line in p.stdout:
        if _HIT_LINE.match(line):
            hits += 1
            if hits == LIMIT:
                first = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    p.stdout.close()
    p.stderr.close()
    return {"wall_s": wall, "first_s": first if first is not None else wall, "cpu_s": ru.ru_utime + ru.ru_stime,
            "peak_mib": ru.ru_maxrss / 1024, "rc": p.returncode, "stderr": err}


def _sessions_shown(src: str, cache: str, query: str, store: str) -> int:
    """How many sessions the timed command lists (counted from a run of its own: the
    wrapper keeps only the end of the output)."""
    r = subprocess.run([PY, "-m", "pitui.cli", "search", query, store, "--limit", str(LIMIT), "--json"],
                       cwd=src, env=_env(src, cache), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    return len(json.loads(r.stdout))


def cold_build(src: str, store: str, cache: str) -> dict:
    subprocess.run([PY, "-m", "pitui.cli", "list", store, "--json"], cwd=src, env=_env(src, cache),
                   stdout=subprocess.DEVNULL, check=True)
    pi = pi_side.pi_list(store, runs=1)
    r = _search(src, cache, NOWHERE, store)
    index = [os.path.join(cache, f) for f in os.listdir(cache) if f.startswith("search-v")]
    store_bytes = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(store) for f in fs
                      if f.endswith(".jsonl"))  # fmt: skip
    index_bytes = sum(os.path.getsize(f) for f in index)
    return {"seconds": r["wall_s"], "cpu_s": r["cpu_s"], "peak_mib": r["peak_mib"], "index_mb": index_bytes / 1e6,
            "store_mb": store_bytes / 1e6, "ratio": index_bytes / store_bytes,
            "pi_list_s": pi["median_s"] if pi else None}


def bench_search(store: str, runs: int = 5, compare: str | None = None, cold: bool = True) -> dict:
    """The figures described in the module docstring, as a dict."""
    trees = {"now": REPO}
    if compare:
        trees["before"] = os.path.abspath(compare)
    for src in trees.values():
        subprocess.run([PY, "-m", "compileall", "-q", os.path.join(src, "pitui")], check=True,
                       stdout=subprocess.DEVNULL)
    out: dict = {"load_before": os.getloadavg()}
    base = tempfile.mkdtemp(prefix="pitui-search-bench-")
    try:
        return _bench(store, runs, trees, base, cold, out)
    finally:
        shutil.rmtree(base, ignore_errors=True)  # (the index of the store: hundreds of MB)


def _bench(store: str, runs: int, trees: dict, base: str, cold: bool, out: dict) -> dict:
    caches: dict = {}
    for name, src in trees.items():
        same = [n for n in caches if _schema(trees[n]) == _schema(src)]
        if same:
            caches[name] = caches[same[0]]  # (its queries run on the same index)
            if cold:  # (its own cold build timed all the same, in a cache thrown away after)
                scratch = os.path.join(base, name + "-cold")
                os.makedirs(scratch, mode=0o700)  # (pitui refuses a cache folder open to others)
                out.setdefault("cold", {})[name] = cold_build(src, store, scratch)
                shutil.rmtree(scratch, ignore_errors=True)
            continue
        caches[name] = os.path.join(base, name)
        os.makedirs(caches[name], mode=0o700)
        if cold:
            out.setdefault("cold", {})[name] = cold_build(src, store, caches[name])
        else:
            subprocess.run([PY, "-m", "pitui.cli", "search", NOWHERE, store], cwd=src, env=_env(src, caches[name]),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)  # fmt: skip
    qs = queries(store)
    for name, src in trees.items():  # warm: the page cache and the index's pages
        for _, q in qs:
            _search(src, caches[name], q, store)
    grep = ["grep", "-rliF", NOWHERE + "-nowhere", store]
    times: dict = {"grep": []}
    shown: dict = {}
    for _ in range(runs):
        times["grep"].append(pi_side.measure_once(grep)["wall_s"])
        for form, q in qs:
            for name, src in trees.items():
                r = _search(src, caches[name], q, store)
                if r["rc"] != 0:
                    raise pi_side.MeasureError(f"{name}: pitui search {q!r} failed: {r['stderr'][-500:]}")
                times.setdefault((form, name), []).append(r["wall_s"])
                times.setdefault((form, name, "first"), []).append(r["first_s"])
                times.setdefault((form, name, "cpu"), []).append(r["cpu_s"])
                times.setdefault((form, name, "mib"), []).append(r["peak_mib"])
    for form, q in qs:
        for name, src in trees.items():
            shown[(form, name)] = _sessions_shown(src, caches[name], q, store)
    grep_s = statistics.median(times["grep"])
    rows = []
    for form, q in qs:
        row = {"form": form, "query": q}
        for name in trees:
            first = times[(form, name, "first")]
            row[name] = {"median_s": statistics.median(times[(form, name)]), "runs": times[(form, name)],
                         "first_s": statistics.median(first), "first_runs": first,
                         "first_x_grep": statistics.median(first) / grep_s,
                         "cpu_s": statistics.median(times[(form, name, "cpu")]),
                         "peak_mib": max(times[(form, name, "mib")]), "sessions": shown[(form, name)],
                         "x_grep": statistics.median(times[(form, name)]) / grep_s}  # fmt: skip
        rows.append(row)
    out.update({"grep": {"median_s": grep_s, "runs": times["grep"]}, "queries": rows, "runs": runs,
                "load_after": os.getloadavg(), "trees": trees})  # fmt: skip
    return out


def report(res: dict, markdown: bool = False) -> str:
    lines = []
    names = list(res["trees"])
    g = res["grep"]["median_s"]
    if markdown:
        head = " | ".join(f"{n}: first {LIMIT} hits / whole, s (x grep)" for n in names)
        lines.append(f"| query (`--limit {LIMIT}`) | {head} | sessions shown |")
        lines.append("|---" * (2 + len(names)) + "|")
        for row in res["queries"]:
            cells = " | ".join(f"{row[n]['first_s']:.2f} ({row[n]['first_x_grep']:.2f}x) / "
                               f"{row[n]['median_s']:.2f} ({row[n]['x_grep']:.2f}x)" for n in names)
            lines.append(f"| {row['form']}: `{row['query']}` | {cells} | {row[names[0]]['sessions']} |")
        lines.append(f"| one `grep -rliF` pass, a word found nowhere | {g:.2f} s | | |")
    else:
        lines.append(f"store: {res.get('store', '?')}")
        for row in res["queries"]:
            cells = "; ".join(f"{n} first {LIMIT} hits {row[n]['first_s']:.2f} s ({row[n]['first_x_grep']:.2f}x grep; "
                              f"{_spread(row[n]['first_runs'])}), whole {row[n]['median_s']:.2f} s "
                              f"({row[n]['x_grep']:.2f}x; {_spread(row[n]['runs'])}), "
                              f"{row[n]['cpu_s']:.2f} s CPU, {row[n]['peak_mib']:.0f} MiB" for n in names)
            lines.append(f"{row['form']} {row['query']!r}: {cells}; {row[names[0]]['sessions']} sessions shown")
        lines.append(f"grep -rliF over the store: {g:.2f} s (runs {', '.join(f'{x:.2f}' for x in res['grep']['runs'])})"
                     "  [target: first results <= 0.5x]")
    for name, c in res.get("cold", {}).items():
        pi = c.get("pi_list_s")
        vs = f"; Pi's listAll just before: {pi:.1f} s ({c['seconds'] / pi:.2f}x)" if pi else ""
        lines.append(f"{name}: index built cold: {c['seconds']:.1f} s ({c['cpu_s']:.1f} s CPU, {c['peak_mib']:.0f} MiB)"
                     f"{vs}; index {c['index_mb']:.1f} MB for a {c['store_mb']:.0f} MB store ({c['ratio']:.3f}x)")
    lines.append("load average: before %.1f %.1f %.1f, after %.1f %.1f %.1f" % (*res["load_before"], *res["load_after"]))
    return "\n".join(lines)


def _spread(runs: list[float]) -> str:
    return f"{min(runs):.2f}-{max(runs):.2f}"


def _store_path(arg: str) -> str:
    """A sessions root given as a path, or by its name under benchmarks/data (made first)."""
    if os.path.sep in arg or arg.startswith("."):
        return os.path.abspath(arg)
    if pi_side._marker(arg) is None:
        subprocess.run([PY, os.path.join(BENCH, "gen.py"), arg], check=True)
    return os.path.join(pi_side.DATA, arg)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--compare", metavar="SRC", help="another pitui source tree, run in the same rounds")
    ap.add_argument("--skip-cold", action="store_true", help="do not time the index built from nothing")
    ap.add_argument("--store", action="append",
                    help="a sessions root or a store's name under benchmarks/data, made on first use "
                    "(default: store; several: each in turn)")
    ap.add_argument("--json", metavar="OUT", help="also write all figures as JSON to OUT")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    every = {}
    for arg in args.store or ["store"]:
        store = _store_path(arg)
        res = bench_search(store, args.runs, args.compare, cold=not args.skip_cold)
        res["store"] = store
        every[store] = res
        print(report(res, args.markdown), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(every if len(every) > 1 else res, f, indent=2, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
