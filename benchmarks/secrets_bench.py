#!/usr/bin/env python3
"""How fast pitui finds secrets, and how Yelp's detect-secrets does on the same files.

    python benchmarks/secrets_bench.py FILE [--rounds N]
    python benchmarks/secrets_bench.py --store ROOT
    python benchmarks/secrets_bench.py --detect-secrets FILE...

``FILE``: ``pitui check --secrets FILE`` and ``benchmarks/app_open.py FILE`` (the app opened
on it, to a usable screen) as fresh processes, in turns for ``--rounds`` rounds; prints each
one's wall-time median and the scan's ratio to the open (issue 39 asks for at most 2).
``--store ROOT``: ``pitui check --secrets ROOT`` once, wall time, files and megabytes.
``--detect-secrets FILE...``: detect-secrets' own scan of the files with its default plugins
(``SecretsCollection.scan_file`` in ``default_settings``) beside pitui's (``scan_file``), in
this process: time, megabytes a second, findings by kind (detect-secrets is an optional
install: ``pip install detect-secrets``). Run it on tests/fixtures/secrets/planted.jsonl for
recall and on the corpus for precision.
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
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
    return time.perf_counter() - t


def _open_s(path: str) -> float:
    """``app_open.py FILE``'s start to a usable screen, with an empty cache folder (no saved
    skeleton), as ``compare_open.py`` runs it."""
    time.sleep(2)  # (the previous run's background work is over)
    cache = tempfile.mkdtemp(prefix="pitui-bench-")
    try:
        out = subprocess.run([sys.executable, str(HERE / "app_open.py"), path], capture_output=True, text=True,
                             cwd=REPO, env={**os.environ, "PITUI_CACHE_DIR": cache})
        return json.loads(out.stdout.strip().splitlines()[-1])["usable_s"]
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def bench_file(path: str, rounds: int) -> dict:
    scans, opens = [], []
    for _ in range(rounds):
        scans.append(_wall([sys.executable, "-m", "pitui.cli", "check", "--secrets", path]))
        opens.append(_open_s(path))
    scan, opened = statistics.median(scans), statistics.median(opens)
    return {"file": path, "mb": round(os.path.getsize(path) / 1e6, 1), "scan_s": round(scan, 2),
            "scans": [round(x, 2) for x in scans], "open_s": round(opened, 2), "opens": [round(x, 2) for x in opens],
            "scan_over_open": round(scan / opened, 2), "load": os.getloadavg()[0]}


def bench_store(root: str) -> dict:
    from pitui.core.store.discovery import find_session_files, resolve_root

    files = find_session_files(resolve_root(root))
    size = sum(os.path.getsize(f.path) for f in files)
    wall = _wall([sys.executable, "-m", "pitui.cli", "check", "--secrets", root])
    return {"root": root, "files": len(files), "mb": round(size / 1e6, 1), "scan_s": round(wall, 2),
            "mb_per_s": round(size / 1e6 / wall, 1), "load": os.getloadavg()[0]}


def bench_detect_secrets(paths: list[str]) -> dict:
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    from pitui.core.secrets.scan import scan_file

    size = sum(os.path.getsize(p) for p in paths)
    found = SecretsCollection()
    t = time.perf_counter()
    with default_settings():
        for p in paths:
            found.scan_file(p)
    theirs_s = time.perf_counter() - t
    theirs = Counter(s.type for _, s in found)
    t = time.perf_counter()
    ours = Counter(s.kind for p in paths for s in scan_file(p).secrets)
    ours_s = time.perf_counter() - t
    hostile = {}
    from detect_secrets.core.scan import scan_line

    from pitui.core.secrets.patterns import find_in_text

    for n in (5_000, 10_000, 20_000):  # (a line of one long word of secret names: quadratic for a backtracking engine)
        line = "password_" * (n // 9)
        t = time.perf_counter()
        with default_settings():
            list(scan_line(line))
        theirs_line = time.perf_counter() - t
        t = time.perf_counter()
        find_in_text(line)
        hostile[n] = {"detect_secrets_s": round(theirs_line, 3), "pitui_s": round(time.perf_counter() - t, 4)}
    return {"files": len(paths), "mb": round(size / 1e6, 2), "hostile_line": hostile,
            "detect_secrets": {"s": round(theirs_s, 2), "mb_per_s": round(size / 1e6 / theirs_s, 2),
                               "findings": sum(theirs.values()), "by_kind": dict(theirs.most_common())},
            "pitui": {"s": round(ours_s, 3), "mb_per_s": round(size / 1e6 / ours_s, 1),
                      "findings": sum(ours.values()), "by_kind": dict(ours.most_common())}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--store", metavar="ROOT")
    ap.add_argument("--detect-secrets", action="store_true")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    if args.store:
        print(json.dumps(bench_store(args.store)))
    elif args.detect_secrets:
        print(json.dumps(bench_detect_secrets(args.files), indent=1))
    else:
        for path in args.files:
            print(json.dumps(bench_file(path, args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
