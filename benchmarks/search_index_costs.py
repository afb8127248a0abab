#!/usr/bin/env python3
"""What the search index's parts cost: its size and cold build time at several chunk sizes,
and how many chunks each benchmark query reads back.

    python benchmarks/search_index_costs.py [--store ROOT] [--chunks 65536,131072,262144]

Each size builds the index from nothing in this one process (``update_index`` without its
worker processes, which would use the default size), with the store's pages cached. Beside it, what the FTS table would be
if it held each chunk's rows' whole text (every trigram occurrence tokenized) instead of
its distinct words, measured on the first ``--sample`` files. Then what the chunks' word
pairs cost (``--pairs N``: every Nth file, one process): distinct words and pair keys a
chunk, and the CPU of splitting the words alone against the words and the pair bitmap.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(BENCH))
sys.path.insert(0, BENCH)

import pi_side  # noqa: E402
import search_bench  # noqa: E402
from pitui.core.store import search as S  # noqa: E402
from pitui.core.store import search_chunks as C  # noqa: E402
from pitui.core.store import search_rows as R  # noqa: E402
from pitui.core.store import search_words as W  # noqa: E402
from pitui.core.store import search_worker  # noqa: E402
from pitui.core.store.discovery import resolve_root  # noqa: E402
from pitui.core.read.lines import open_regular  # noqa: E402


def one_size(store: str, chunk: int) -> dict:
    C.CHUNK_CHARS = chunk
    search_worker.PARALLEL_MIN_FILES = 10**9
    d = tempfile.mkdtemp(prefix="pitui-costs-")
    try:
        t0 = time.perf_counter()
        S.update_index(resolve_root(store), index_dir=d)
        secs = time.perf_counter() - t0
        f = os.path.join(d, f"search-v{S.SCHEMA_VERSION}.sqlite3")
        c = sqlite3.connect(f)
        chunks = c.execute("SELECT count(*) FROM chunks").fetchone()[0]
        pairs_mb = (c.execute("SELECT sum(length(bits)) FROM pairs").fetchone()[0] or 0) / 1e6
        reads = {}
        with S.SearchIndex(d) as si:
            for form, q in search_bench.queries(store):
                got = si.candidates(S.parse_query(q))
                if got is None:
                    reads[form] = chunks
                else:
                    kept = [si.narrowed(v) for v in got.values()]
                    reads[form] = sum(len(v) for v in kept if v is not None)
        c.close()
        return {"chunk": chunk, "seconds": secs, "mb": os.path.getsize(f) / 1e6, "chunks": chunks, "reads": reads,
                "pairs_mb": pairs_mb}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def text_vs_words(store: str, sample: int) -> dict:
    """FTS size of the same chunks as whole text and as distinct words, first ``sample`` files."""
    C.CHUNK_CHARS = 128 * 1024
    files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(store) for f in fs if f.endswith(".jsonl"))[:sample]
    out = {}
    for how in ("words", "text"):
        d = tempfile.mkdtemp(prefix="pitui-costs-")
        c = sqlite3.connect(os.path.join(d, "x.sqlite3"))
        c.execute("CREATE VIRTUAL TABLE w USING fts5(t, tokenize='trigram case_sensitive 1', detail=none, "
                  "columnsize=0, content='')")
        t0 = time.perf_counter()
        rowid = 0
        for p in files:
            with open_regular(p) as f:
                st = R._FileState(0, p)
                parts: list[str] = []
                n = 0
                for *_, rows, _data, _when in R._file_lines(f, st):
                    for _k, text in rows:
                        parts.append(text)
                        n += len(text)
                    if n >= C.CHUNK_CHARS:
                        rowid += 1
                        c.execute("INSERT INTO w(rowid, t) VALUES (?, ?)", (rowid, _as(how, parts)))
                        parts, n = [], 0
                if parts:
                    rowid += 1
                    c.execute("INSERT INTO w(rowid, t) VALUES (?, ?)", (rowid, _as(how, parts)))
        c.commit()
        secs = time.perf_counter() - t0
        c.close()
        out[how] = {"seconds": secs, "mb": os.path.getsize(os.path.join(d, "x.sqlite3")) / 1e6}
        shutil.rmtree(d, ignore_errors=True)
    out["store_mb"] = sum(os.path.getsize(p) for p in files) / 1e6
    return out


def pair_costs(store: str, every: int) -> dict:
    """Every ``every``-th file's chunks (as the index cuts them): distinct words and pair
    keys a chunk, and the CPU of the words alone (split, set) against ``_words_of`` (the
    words and the pair bitmap)."""
    import array

    files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(store) for f in fs if f.endswith(".jsonl"))[::every]
    texts: list[list[str]] = []
    real = C._words_of
    C._words_of = lambda t: (texts.append(list(t)), real(t))[1]
    try:
        for p in files:
            C._index_whole(p)
    finally:
        C._words_of = real
    datas = []
    for t in texts:
        joined = "\n".join(t)
        datas.append(joined.encode("ascii") if joined.isascii() else W._fold(joined).encode("utf-8", "surrogatepass"))
    t0 = time.process_time()
    words = [set(d.translate(W._WORD_TABLE).split()) for d in datas]
    t1 = time.process_time()
    for t in texts:
        real(t)
    t2 = time.process_time()
    keys = 0
    for d in datas:
        seq = d.translate(W._WORD_TABLE).split()
        two = W._Two()
        nums = array.array("I")
        nums.frombytes(b"".join(map(two.__getitem__, seq))[2:-2])
        keys += len(set(nums))
    n = len(texts)
    bits = sum(len(real(t)[1]) for t in texts)
    return {"files": len(files), "chunks": n, "words": sum(map(len, words)) / n, "keys": keys / n,
            "words_s": t1 - t0, "both_s": t2 - t1, "bitmap_mb": bits / 1e6}


def _as(how: str, texts: list[str]) -> str:
    if how == "text":
        return "\n".join(texts).lower()
    words: set = set()
    for t in texts:
        W._add_words(t, words)
    return W._words_text(words)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store")
    ap.add_argument("--chunks", default="65536,131072,262144")
    ap.add_argument("--sample", type=int, default=150)
    ap.add_argument("--pairs", type=int, default=10, metavar="N", help="word pairs measured on every Nth file")
    args = ap.parse_args(argv)
    store = os.path.abspath(args.store) if args.store else pi_side.store_root()
    size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(store) for f in fs if f.endswith(".jsonl"))
    print(f"store: {size / 1e6:.0f} MB; load {os.getloadavg()[0]:.1f}")
    for chunk in (int(x) for x in args.chunks.split(",") if x):
        r = one_size(store, chunk)
        reads = ", ".join(f"{k.split(' (')[0]}: {v}" for k, v in r["reads"].items())
        print(f"CHUNK_CHARS {chunk}: built in {r['seconds']:.1f} s, {r['mb']:.1f} MB ({r['mb'] * 1e6 / size:.3f}x), "
              f"{r['chunks']} chunks, pair bitmaps {r['pairs_mb']:.1f} MB; chunks a query reads: {reads}")
    tw = text_vs_words(store, args.sample)
    print(f"first {args.sample} files ({tw['store_mb']:.0f} MB), FTS of the chunks' whole text: "
          f"{tw['text']['mb']:.1f} MB in {tw['text']['seconds']:.1f} s; of their distinct words: "
          f"{tw['words']['mb']:.1f} MB in {tw['words']['seconds']:.1f} s (one process)")
    if args.pairs:
        pc = pair_costs(store, args.pairs)
        print(f"every {args.pairs}th file ({pc['files']} files, {pc['chunks']} chunks): {pc['words']:.0f} distinct "
              f"words and {pc['keys']:.0f} distinct pair keys a chunk; CPU of the words alone {pc['words_s']:.2f} s, "
              f"of the words and the pair bitmaps {pc['both_s']:.2f} s; bitmaps {pc['bitmap_mb']:.1f} MB")
    print(f"load after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
