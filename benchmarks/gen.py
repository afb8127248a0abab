#!/usr/bin/env python3
"""Deterministic generators of Pi session files for pitui's benchmarks.

Standard library only.  Two inputs:

``big``
    One realistic session of >= 229,000,000 bytes (> 218 MiB) and >= 54,400 entries, the shape
    of the file behind Pi's published figures ("a 218 MB session with 54,388 entries"), with a
    parent chain ~53,600 deep: ``<out>/big/--home-bench-big--/<ts>_<uuid>.jsonl``.
``store``
    A sessions root of 1,524 sessions, ~1.0 GB in total, across 40 project folders
    ``<out>/store/--home-bench-pN--/<ts>_<uuid>.jsonl`` (sizes skewed: most 50 KB - 1 MB, 38 of
    5-30 MB, ~100 of 15-50 KB), some named, some with in-file forks, a few forked from another
    file (header ``parentSession``).  File mtimes are set to each session's last entry.

The files are written the way Pi 1.5.2's ``SessionManager`` writes them, by the repository's
one session writer, ``tools/piwriter.py`` (version-3 header, compact JSON, key order of
``SessionManager.append*``: ``{"type","id","parentId","timestamp",...}``; custom entries put
``customType``/``data`` first as Pi does).  Content mimics real
sessions: thinking blocks with signatures, bash/read/edit/write/grep tool calls and results
(most results a few hundred bytes, some 100 KB - 3 MB), text full of quotes, backslashes,
newlines, tabs, non-ASCII, emoji and ANSI escapes, assistant usage with cost, forks, branch
summaries, compactions with system checkpoints, labels, names, model and thinking changes.

``storebig``
    A sessions root of 1,524 sessions (~1.0 GB) whose **four newest sessions are big** (each
    made as ``big`` is, ~229 MB, with its own seed, cwd and start), the other 1,520 small
    (log-uniform 12-200 KB, ~58 KB on average, 40 project folders): long agent runs are
    usually both the newest and the largest sessions a user has (issue 32: search).

``store15k``, ``store50k``
    Sessions roots of 15,000 sessions (~750 MB, 60 project folders) and 50,000 sessions
    (~2.5 GB, 200 project folders): copies of a pool of 1,000 small generated sessions
    (12-200 KB, ~50 KB on average), each with its own id, file name, header time and cwd.
``store15kmix``
    A sessions root of 15,000 sessions (~750 MB, 60 project folders) made of copies of the
    Pi-written files of ``tests/fixtures/pi-corpus`` (sessions of every kind Pi writes:
    forks, compactions, branch summaries, images, subagent results, version-1 files, damaged
    lines, and Pi's author's two real sessions of 1-2.4 MB, ~0.6% of the copies), each with
    its own header id, time and cwd: the shape of a real store, where
    ``store15k`` is pitui's generator's writing alone.

Usage::

    python benchmarks/gen.py big|store|storebig|store15k|store50k|store15kmix|all [--out benchmarks/data] [--jobs N] [--force]

Each output directory gets a marker ``.gen-marker.json`` (generator version, parameters, and
what was written: files, bytes, entries).  When the marker matches, generation is skipped.
Output is byte-for-byte deterministic for a given generator version and parameters.
"""
from __future__ import annotations

import argparse
import base64
import json
import math
import os
import random
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor

# the repository root, for tools/ (this file runs as a script: python benchmarks/gen.py)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tools import piwriter  # noqa: E402
from tools.piwriter import iso  # noqa: E402

GEN_VERSION = 1
MARKER = ".gen-marker.json"

BIG_PARAMS = {
    "seed": 218,
    "entries": 54_400,  # minimum number of entries (header not counted)
    "bytes": 229_000_000,  # minimum file size: > 218 MiB (228.6e6 bytes), so ">= 218 MB" either way
    "cwd": "/home/bench/big",
    "start": "2026-09-01T08:00:00.000Z",
    "forks": 7,
    "compactions": 3,
    "labels": 16,
    "big_range": [100_000, 3_000_000],
}

#: Stores of many small sessions (issue 21: listing at ten times the size): a pool of sessions
#: generated once, then written as copies, each with its own session id, file name, header
#: time and cwd, under many project folders (see copies_store).
COPIES_PARAMS = {
    "store15k": {"seed": 15000, "sessions": 15_000, "projects": 60, "pool": 1000, "mean_bytes": 41_500,
                 "start": "2025-10-01T00:00:00.000Z"},
    "store50k": {"seed": 50000, "sessions": 50_000, "projects": 200, "pool": 1000, "mean_bytes": 41_500,
                 "start": "2025-10-01T00:00:00.000Z"},
}

STORE_PARAMS = {
    "seed": 1524,
    "sessions": 1524,
    "projects": 40,
    "total_bytes": 975_000_000,  # targets; sessions overshoot theirs by ~3% on average (~1.0 GB written)
    "big_sessions": 38,  # 5-30 MB each
    "tiny_sessions": 120,  # 15-50 KB each; the rest 50 KB - 1 MB
    "start": "2025-10-01T00:00:00.000Z",
}

#: Stores of copies of the Pi-written corpus (see mix_store).
MIX_PARAMS = {
    "store15kmix": {"seed": 15001, "sessions": 15_000, "projects": 60, "big_share": 0.006,
                    "big_bytes": 500_000, "corpus": "tests/fixtures/pi-corpus/agent/sessions"},
}

#: A store whose newest sessions are the biggest (issue 32): ``big_newest`` sessions made as
#: ``big`` is (BIG_PARAMS but for seed, cwd, start and name), starting a day apart after
#: every small session has ended, and ``sessions - big_newest`` small ones (log-uniform
#: 12-200 KB, scaled to ``small_total_bytes``) spread over ``projects`` folders.
STOREBIG_PARAMS = {
    "seed": 960,
    "sessions": 1524,
    "projects": 40,
    "big_newest": 4,
    "small_total_bytes": 88_000_000,
    "start": "2025-10-01T00:00:00.000Z",  # small sessions start within 330 days of this
    "big_start": "2026-09-01T08:00:00.000Z",  # the first big one (each lasts about 40 days)
}


def _dump_line(obj) -> bytes:
    return (piwriter.dumps(obj) + "\n").encode("utf-8")


def uuid7(rng: random.Random, ms: int) -> str:
    h = f"{ms & 0xFFFFFFFFFFFF:012x}"
    a = rng.getrandbits(12)
    b = (rng.getrandbits(62)) | (0b10 << 62)
    bh = f"{b:016x}"
    return f"{h[:8]}-{h[8:12]}-7{a:03x}-{bh[:4]}-{bh[4:]}"


# --------------------------------------------------------------------------------------------
# Text pools (built once per process, from a fixed seed)
# --------------------------------------------------------------------------------------------

_WORDS = """
the a to of and in is for that this it with on be as we can not should if from by are or but
session entry parent tree branch leaf root compaction summary label model provider token usage
cost context message assistant user tool result thinking signature parser reader index offset
line byte buffer stream chunk file path folder project cwd header version migrate render view
widget screen scroll list search filter sort query cache memory lazy load open close read write
edit grep bash test tests check build lint type error warning fix bug refactor rename move split
merge extract inline function method class module import export const let return async await
promise callback event handler listener state store reducer action dispatch update patch diff
hunk commit push pull rebase stash worktree config option flag argument parameter value key map
array object string number boolean null undefined json jsonl utf8 escape quote backslash newline
tab unicode emoji ansi color style theme layout width height terminal textual rich python node
typescript javascript rust go shell script pipeline benchmark profile latency throughput fast
slow large small huge tiny fork clone resume continue abort retry timeout signal process child
""".split()
_UNI = ["naïve", "café", "Größe", "日本語", "テスト", "中文字符", "résumé", "Ελληνικά", "über",
        "🚀", "✅", "❌", "⚠️", "🎉", "👍", "→", "—", "“quoted”", "«guillemets»", "½", "∑", "µs",
        "🧵", "🔥", "Ω", "fa\u00e7ade", "smörgåsbord", "Привет", "안녕하세요", "🤖"]
_IDENTS = """sessionManager entries byId leafId parentId buildTree loadEntries parseLine readChunk
offsets lineIndex renderRow viewport scrollTop cursor selected filterText matches totalTokens
costTotal modelId provider thinkingLevel compaction firstKept summary labelsById getBranch
appendEntry flush decoder buffer pending header stats mtime children roots depth width rows
cols theme palette styles widget onKey onMount refresh invalidate cache lru size limit""".split()
_TYPES = ["string", "number", "boolean", "SessionEntry", "TreeNode[]", "Map<string, Entry>",
          "Promise<void>", "Record<string, unknown>", "AgentMessage[]", "Uint8Array", "null"]
_DIRS = ["src", "src/core", "src/ui", "src/modes", "src/tools", "test", "packages/agent/src",
         "packages/ai/src", "packages/tui/src", "docs", "scripts", "pitui/core", "pitui/ui", "tests"]
_NAMES = ["session-manager", "agent-session", "tree", "renderer", "parser", "index", "utils",
          "config", "main", "cli", "model-registry", "compaction", "messages", "theme", "keys",
          "footer", "editor", "bash-executor", "export-html", "settings", "auth", "router"]
_EXTS = [".ts", ".ts", ".ts", ".tsx", ".py", ".py", ".md", ".json", ".mjs"]


class Pools:
    def __init__(self, seed: int = 12345):
        r = random.Random(seed)
        self.r = r
        self.files = sorted({f"{r.choice(_DIRS)}/{r.choice(_NAMES)}{r.choice(_EXTS)}" for _ in range(400)})
        self.sentences = [self._sentence() for _ in range(3000)]
        self.code = [self._code_line() for _ in range(6000)]
        self.log = [self._log_line() for _ in range(6000)]
        self.grep = [f"{r.choice(self.files)}:{r.randint(1, 3000)}:{r.choice(self.code).strip()}" for _ in range(4000)]
        self.json = [self._json_line() for _ in range(3000)]
        # Most real tool output is plain ASCII (which also keeps it compact in JS and Python
        # strings); a quarter of the outputs draw from the full pools, with non-ASCII lines.
        self.ascii = {id(pool): [x for x in pool if x.isascii()] for pool in (self.code, self.log, self.grep, self.json)}
        # average bytes per line as stored (JSON-escaped UTF-8, plus the escaped newline)
        self.avg = {id(pool): sum(len(piwriter.dumps(x).encode()) for x in pool) / len(pool)
                    for pool in (self.code, self.log, self.grep, self.json, *self.ascii.values())}

    def word(self) -> str:
        r = self.r
        x = r.random()
        if x < 0.0015:
            return r.choice(_UNI)
        if x < 0.06:
            return f"`{r.choice(_IDENTS)}`"
        if x < 0.08:
            return r.choice(self.files)
        return r.choice(_WORDS)

    def _sentence(self) -> str:
        r = self.r
        words = [self.word() for _ in range(r.randint(5, 22))]
        words[0] = words[0][:1].upper() + words[0][1:]
        s = " ".join(words)
        x = r.random()
        if x < 0.08:
            s += f' "{r.choice(_WORDS)} {r.choice(_WORDS)}"'
        elif x < 0.12:
            s += " C:\\Users\\dev\\" + r.choice(_NAMES)
        return s + r.choice([".", ".", ".", ":", "?", "!"])

    def _code_line(self) -> str:
        r = self.r
        ind = "\t" * r.choice([0, 1, 1, 2, 2, 3, 4])
        sp = "    " * r.choice([0, 1, 2, 3])
        a, b, c = r.choice(_IDENTS), r.choice(_IDENTS), r.choice(_IDENTS)
        w = r.choice(_WORDS)
        t = r.randrange(16)
        if t == 0:
            return f'{ind}const {a} = {b}.{c}("{w}");'
        if t == 1:
            return f'{ind}if ({a} === null) return "{w}\\n";'
        if t == 2:
            return f"{ind}const re = /^\\s*(\\d+)\\.(\\w+)\\s*$/;"
        if t == 3:
            return f"{ind}// {r.choice(self.sentences)}"
        if t == 4:
            return f'import {{ {a}, type {b} }} from "./{r.choice(_NAMES)}.js";'
        if t == 5:
            return f'{ind}const p = "C:\\\\Users\\\\{w}\\\\{r.choice(_NAMES)}";'
        if t == 6:
            return f"{sp}def {a}(self, {b}: str) -> dict[str, int]:"
        if t == 7:
            return f'{sp}return {{"{w}": {r.randint(0, 9999)}, "{c}": None}}'
        if t == 8:
            return ""
        if t == 9:
            return f"{ind}{a}({b}: {r.choice(_TYPES)}): {r.choice(_TYPES)} {{"
        if t == 10:
            return f"{ind}}}"
        if t == 11:
            return f"{ind}throw new Error(`Entry ${{{a}}} not found: \"{w}\"`);"
        if t == 12:
            return f"{sp}print(f\"{{{a}!r}}\\t{w}\", file=sys.stderr)  # {r.choice(_UNI) if r.random() < 0.1 else w}"
        if t == 13:
            return f"{ind}for (const {a} of this.{b}.values()) {{"
        if t == 14:
            return f"{ind}this.{a} = new Map<string, {r.choice(_TYPES)}>();"
        return f"{ind}await {a}.{c}({b}, {{ {w}: true, limit: {r.randint(1, 500)} }});"

    def _log_line(self) -> str:
        r = self.r
        f = r.choice(self.files)
        t = r.randrange(16)
        if t == 14:
            return f"{'│   ' * r.randint(0, 3)}{r.choice(['├── ', '└── '])}{r.choice(_NAMES)}{r.choice(_EXTS)}"
        if t == 15:
            n = r.randint(0, 40)
            return f" {r.choice(_NAMES)} {'━' * n}{'─' * (40 - n)} {n * 5 // 2}% • {r.randint(1, 99)} MB/s → eta {r.randint(0, 59)}s"
        if t == 0:
            return f"\u001b[32m✓\u001b[39m {f} \u001b[2m({r.randint(1, 80)} tests)\u001b[22m \u001b[33m{r.randint(1, 900)}ms\u001b[39m"
        if t == 1:
            return f'\u001b[31m✗\u001b[39m {r.choice(self.sentences)[:60]} \u001b[31m→ expected "{r.choice(_WORDS)}" to equal "{r.choice(_WORDS)}"\u001b[39m'
        if t == 2:
            return f"[{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}] INFO  {r.choice(self.sentences)}"
        if t == 3:
            return f"npm warn deprecated {r.choice(_NAMES)}@{r.randint(0, 9)}.{r.randint(0, 40)}.{r.randint(0, 20)}: {r.choice(self.sentences)}"
        if t == 4:
            return f"    at {r.choice(_IDENTS).capitalize()}.{r.choice(_IDENTS)} ({f}:{r.randint(1, 2000)}:{r.randint(1, 80)})"
        if t == 5:
            return (f"{f}({r.randint(1, 2000)},{r.randint(1, 80)}): error TS{r.randint(2000, 2999)}: Argument of type "
                    f"'\"{r.choice(_WORDS)}\"' is not assignable to parameter of type '{r.choice(_TYPES)}'.")
        if t == 6:
            return f"{r.getrandbits(28):07x} {r.choice(self.sentences)}"
        if t == 7:
            return f"{r.choice(_NAMES)}\t{r.randint(0, 10**7)}\t2026-0{r.randint(1, 9)}-{r.randint(10, 28)}"
        if t == 8:
            return f"🚀 Deployed {r.choice(_NAMES)} in {r.randint(1, 99)}.{r.randint(0, 9)}s ✅"
        if t == 9:
            return f"Downloading {r.choice(_NAMES)} {r.randint(0, 100)}%\r"
        if t == 10:
            return f"\u001b[1m\u001b[33mwarning\u001b[39m\u001b[22m: unused variable `{r.choice(_IDENTS)}` in \\\\?\\C:\\src\\{r.choice(_NAMES)}.rs"
        if t == 11:
            return f" {r.randint(1, 9)} files changed, {r.randint(1, 900)} insertions(+), {r.randint(1, 900)} deletions(-)"
        if t == 12:
            return r.choice(self.code)
        return f"{f}: {r.choice(self.sentences)}"

    def _json_line(self) -> str:
        r = self.r
        return f'  "{r.choice(_IDENTS)}": "{r.choice(self.sentences)[:70].replace(chr(34), chr(92) + chr(34))}",'


_POOLS: Pools | None = None


def pools() -> Pools:
    global _POOLS
    if _POOLS is None:
        _POOLS = Pools()
    return _POOLS


# --------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------

# provider, model, api, $/Mtok input, output, cacheRead, cacheWrite
MODELS = [
    ("anthropic", "claude-opus-4-5", "anthropic-messages", 5.0, 25.0, 0.5, 6.25),
    ("anthropic", "claude-sonnet-4-5", "anthropic-messages", 3.0, 15.0, 0.3, 3.75),
    ("openai", "gpt-5.1-codex", "openai-responses", 1.25, 10.0, 0.125, 0.0),
    ("google", "gemini-3-pro", "google-generative-ai", 2.0, 12.0, 0.2, 0.0),
]
LEVELS = ["off", "minimal", "low", "medium", "high"]


# --------------------------------------------------------------------------------------------
# One session
# --------------------------------------------------------------------------------------------


class SessionGen:
    """Builds one session file the way Pi appends entries, with a size/entry-count target."""

    FLUSH = 16 * 1024 * 1024

    def __init__(self, seed: int, path: str, cwd: str, start_ms: int, *, min_entries: int,
                 min_bytes: int, big_range: tuple[int, int], big_share: float, forks: int = 0,
                 compactions: int = 0, labels: int = 0, name: str | None = None,
                 parent_session: str | None = None, model: int = 0, thinking: bool = True,
                 session_id: str | None = None):
        self.r = random.Random(seed)
        self.session_id = session_id or uuid7(self.r, start_ms)
        self.p = pools()
        self.path = path
        self.cwd = cwd
        self.now = start_ms
        self.min_entries = min_entries
        self.min_bytes = min_bytes
        self.big_lo, self.big_hi = big_range
        self.big_mean = (self.big_hi - self.big_lo) / math.log(self.big_hi / self.big_lo)
        self.big_share = big_share
        self.n_forks, self.n_compactions, self.n_labels = forks, compactions, labels
        self.name = name
        self.parent_session = parent_session
        self.model = MODELS[model]
        self.level = "medium" if thinking else "off"
        self.ids: set[str] = set()
        self.branch: list[str] = []  # ids root..leaf of the current branch
        self.user_pos: list[int] = []  # positions in self.branch of user messages
        self.chunks: list[bytes] = []
        self.pending = 0
        self.bytes = 0
        self.small_bytes = 0
        self.small_entries = 0
        self.entries = 0
        self.big_outputs = 0
        self.forks_done = 0
        self.counts: dict[str, int] = {}
        self.ctx_tokens = 8000
        self.read_files: list[str] = []
        self.modified_files: list[str] = []
        self.fh = open(path, "wb")

    # -- low level ---------------------------------------------------------------------------
    def _new_id(self) -> str:
        while True:
            i = f"{self.r.getrandbits(32):08x}"
            if i not in self.ids:
                self.ids.add(i)
                return i

    def _emit(self, obj, big: bool = False):
        b = _dump_line(obj)
        n = len(b)
        self.chunks.append(b)
        self.pending += n
        self.bytes += n
        if obj.get("type") != "session":
            self.entries += 1
            if not big:
                self.small_bytes += n
                self.small_entries += 1
        key = obj["type"] if obj["type"] != "message" else "message:" + obj["message"]["role"]
        self.counts[key] = self.counts.get(key, 0) + 1
        if self.pending >= self.FLUSH:
            self.fh.write(b"".join(self.chunks))
            self.chunks.clear()
            self.pending = 0

    def _tick(self, lo: float, hi: float) -> int:
        self.now += int(self.r.uniform(lo, hi) * 1000)
        return self.now

    def _entry(self, typ: str, body: dict, *, big: bool = False, custom_first: dict | None = None) -> str:
        eid = self._new_id()
        parent = self.branch[-1] if self.branch else None
        if custom_first is not None:  # Pi's custom/custom_message key order
            obj = piwriter.custom_entry(typ, eid, parent, iso(self.now), **custom_first)
        else:
            obj = piwriter.entry(typ, eid, parent, iso(self.now), **body)
        self._emit(obj, big)
        self.branch.append(eid)
        return eid

    def _message(self, msg: dict, big: bool = False) -> str:
        return self._entry("message", {"message": msg}, big=big)

    # -- text --------------------------------------------------------------------------------
    def size(self, lo: int, hi: int) -> int:
        """A log-uniform size in [lo, hi] (most small, a few large, as in real sessions)."""
        return int(math.exp(self.r.uniform(math.log(lo), math.log(hi))))

    def prose(self, lo: int, hi: int) -> str:
        r = self.r
        target = self.size(lo, hi)
        out, n = [], 0
        while n < target:
            s = r.choice(self.p.sentences)
            out.append(s)
            n += len(s) + 1
        return " ".join(out)

    def markdown(self, lo: int, hi: int) -> str:
        r = self.r
        target = self.size(lo, hi)
        parts, n = [], 0
        while n < target:
            x = r.random()
            if x < 0.45:
                s = self.prose(80, 400)
            elif x < 0.7:
                s = "\n".join(f"- {r.choice(self.p.sentences)}" for _ in range(r.randint(2, 6)))
            elif x < 0.85:
                lang = r.choice(["ts", "python", "bash", "json"])
                s = f"```{lang}\n" + "\n".join(r.choices(self.p.code, k=r.randint(3, 25))) + "\n```"
            elif x < 0.93:
                s = f"## {r.choice(self.p.sentences)[:50]}"
            else:
                s = "| file | change |\n|---|---|\n" + "\n".join(
                    f"| `{r.choice(self.p.files)}` | {r.choice(self.p.sentences)[:40]} |" for _ in range(r.randint(2, 5)))
            parts.append(s)
            n += len(s) + 2
        return "\n\n".join(parts)

    def lines(self, pool: list[str], nbytes: int) -> str:
        if self.r.random() >= 0.25:
            pool = self.p.ascii[id(pool)]
        k = max(1, round(nbytes / self.p.avg[id(pool)]))
        return "\n".join(self.r.choices(pool, k=k))

    def signature(self) -> str:
        return base64.b64encode(self.r.randbytes(self.size(250, 2500))).decode()

    def call_id(self) -> str:
        r = self.r
        alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        tail = "".join(r.choices(alpha, k=24))
        if self.model[0] == "openai":
            return f"call_{tail}|fc_{r.getrandbits(120):030x}"
        return f"toolu_01{tail[:22]}"

    def usage(self, out_tokens: int, fresh: int) -> dict:
        r = self.r
        _, _, _, pin, pout, pcr, pcw = self.model
        self.ctx_tokens = min(195_000, self.ctx_tokens + fresh)
        inp = r.choice([0, r.randint(100, 5000)]) if self.model[0] == "anthropic" else r.randint(100, 9000)
        cache_write = r.randint(100, max(101, min(fresh, 40_000))) if pcw else 0
        cache_read = max(1000, self.ctx_tokens - inp - cache_write)
        out = max(20, out_tokens)
        costs = (inp * pin / 1e6, out * pout / 1e6, cache_read * pcr / 1e6, cache_write * pcw / 1e6)
        return piwriter.usage(inp, out, cache_read, cache_write, costs)

    # -- size control ------------------------------------------------------------------------
    def want_big(self) -> int:
        """Size of a big tool output to produce now, or 0.  Spreads big outputs so that the
        file reaches min_bytes about when it reaches min_entries."""
        r = self.r
        small_avg = self.small_bytes / max(1, self.small_entries)
        remaining = max(0, self.min_entries - self.entries)
        deficit = self.min_bytes - self.bytes - small_avg * remaining
        if self.big_share <= 0 or deficit <= 0:
            return 0
        results_left = remaining * 0.4 + 1
        p = min(0.5, deficit / self.big_mean / results_left)
        if r.random() >= p:
            return 0
        size = int(math.exp(r.uniform(math.log(self.big_lo), math.log(self.big_hi))))
        return max(self.big_lo, min(size, int(deficit * 1.1) + self.big_lo))

    def done(self) -> bool:
        return self.entries >= self.min_entries and self.bytes >= self.min_bytes

    # -- entries -----------------------------------------------------------------------------
    def header(self):
        self._emit(piwriter.header(self.session_id, iso(self.now), self.cwd, parent_session=self.parent_session))

    def system_message(self, full: bool = True):
        r = self.r
        tools = ["read", "bash", "edit", "write", "grep", "find", "ls"]
        if full:
            sections = {
                "preamble": "You are an expert coding assistant operating inside pi, a coding agent harness. "
                + self.prose(1500, 4000),
                "tools": "<tools>\n" + "\n".join(f"- {t}: {r.choice(self.p.sentences)}" for t in tools) + "\n</tools>",
                "guidelines": "\n".join(f"- {r.choice(self.p.sentences)}" for _ in range(12)),
                "context": f"<project_context path=\"{self.cwd}/AGENTS.md\">\n{self.markdown(500, 3000)}\n</project_context>",
                "cwd": f"Current working directory: {self.cwd}",
            }
            added = [{"name": t, "description": self.prose(100, 600), "parameters": {
                "type": "object", "properties": {
                    "path": {"type": "string", "description": "Path to the file (relative or absolute)"},
                    "limit": {"type": "number", "description": "Maximum number of lines to read"}},
                "required": ["path"]}} for t in tools]
            msg = piwriter.system_message("", self.now, sections=sections, tools_added=added)
        else:
            msg = piwriter.system_message(
                "", self.now, sections={"skills": f"<skills>\n{self.prose(200, 800)}\n</skills>", "context": None},
                tools_removed=[{"name": "find"}])
        self._message(msg)
        self.system = msg

    def model_change(self, idx: int):
        self.model = MODELS[idx]
        self._tick(2, 30)
        self._entry("model_change", {"provider": self.model[0], "modelId": self.model[1]})

    def thinking_change(self, level: str):
        self.level = level
        self._tick(1, 20)
        self._entry("thinking_level_change", {"thinkingLevel": level})

    def user(self):
        r = self.r
        self._tick(20, 900)
        x = r.random()
        if x < 0.06:
            text = self.prose(30, 200) + "\n\n```\n" + self.lines(r.choice([self.p.log, self.p.code]), r.randint(2000, 20000)) + "\n```"
        else:
            text = self.prose(15, 900)
        if r.random() < 0.2:
            content = text
        else:
            content = [piwriter.text_block(text)]
            if r.random() < 0.004:
                content.append(piwriter.image_block(base64.b64encode(r.randbytes(r.randint(15_000, 90_000))).decode()))
        self.user_pos.append(len(self.branch))
        self._message(piwriter.user_message(content, self.now - r.randint(1, 30)))

    def bash_execution(self):
        r = self.r
        self._tick(5, 120)
        out = self.lines(self.p.log, r.randint(100, 3000))
        self._message(piwriter.bash_execution_message(
            r.choice(BASH_COMMANDS), out, r.choice([0, 0, 0, 1]), truncated=False,
            timestamp=self.now - r.randint(100, 5000), exclude_from_context=False))

    def tool_call(self) -> tuple[dict, str]:
        r = self.r
        f = f"{self.cwd}/{r.choice(self.p.files)}"
        name = r.choices(["bash", "read", "edit", "write", "grep"], weights=[38, 30, 20, 5, 7])[0]
        if name == "bash":
            args = {"command": r.choice(BASH_COMMANDS).replace("$CWD", self.cwd)}
            if r.random() < 0.2:
                args["timeout"] = r.choice([30, 60, 120, 600])
        elif name == "read":
            args = {"path": f}
            if r.random() < 0.3:
                args["offset"] = r.randint(1, 2000)
                args["limit"] = r.choice([50, 100, 200, 400])
            self.read_files.append(f)
        elif name == "edit":
            args = {"path": f, "oldText": "\n".join(r.choices(self.p.code, k=r.randint(1, 12))),
                    "newText": "\n".join(r.choices(self.p.code, k=r.randint(1, 14)))}
            self.modified_files.append(f)
        elif name == "write":
            args = {"path": f, "content": self.lines(self.p.code, r.randint(500, 12000))}
            self.modified_files.append(f)
        else:
            args = {"pattern": r.choice(_IDENTS) + r.choice(["", "\\(", "\\s*=", "|" + r.choice(_IDENTS)]),
                    "path": f"{self.cwd}/{r.choice(_DIRS)}"}
            if r.random() < 0.4:
                args["glob"] = "*.ts"
        return piwriter.tool_call_block(self.call_id(), name, args), name

    def tool_result(self, call: dict, name: str):
        r = self.r
        self._tick(0.05, 25)
        big = self.want_big()
        details = None
        is_error = False
        args = call["arguments"]
        if name == "bash":
            if big:
                text = self.lines(self.p.log, big)
                total_lines = text.count("\n") + 1
                details = {"truncation": {"truncated": True, "truncatedBy": "bytes", "totalLines": total_lines,
                                          "totalBytes": len(text), "outputLines": total_lines, "outputBytes": len(text),
                                          "lastLinePartial": False, "firstLineExceedsLimit": False,
                                          "maxLines": 2000, "maxBytes": 51200},
                           "fullOutputPath": f"/tmp/pi-bash-{r.getrandbits(64):016x}.log"}
            else:
                text = self.lines(self.p.log, self.size(40, 5000))
                if r.random() < 0.1:
                    is_error = True
                    text += f"\n\nCommand exited with code {r.choice([1, 1, 2, 127])}"
        elif name == "read":
            if big:
                text = self.lines(r.choice([self.p.code, self.p.json]), big)
            elif r.random() < 0.05:
                is_error = True
                text = f"ENOENT: no such file or directory, access '{args['path']}'"
            else:
                text = self.lines(self.p.code, self.size(100, 8000))
        elif name == "grep":
            text = self.lines(self.p.grep, big or self.size(60, 3000))
        elif name == "edit":
            if big:
                text = self.lines(self.p.code, big)
            elif r.random() < 0.08:
                is_error = True
                text = (f"Could not find the exact text in {args['path']}. The old text must match exactly "
                        "including all whitespace and newlines.")
            else:
                text = f"Successfully replaced text in {args['path']}."
                ln = r.randint(1, 1500)
                diff = ["     ..."] + [f"{ln + i:>5}   {c}" for i, c in enumerate(r.choices(self.p.code, k=3))]
                diff += [f"-{ln + 3:>4}   {c}" for c in args["oldText"].split("\n")]
                diff += [f"+{ln + 3:>4}   {c}" for c in args["newText"].split("\n")]
                diff += ["     ..."]
                details = {"diff": "\n".join(diff), "firstChangedLine": ln + 3}
        else:  # write
            text = (self.lines(self.p.code, big) if big
                    else f"Successfully wrote {len(args['content'].encode())} bytes to {args['path']}")
        msg = piwriter.tool_result_message(call["id"], name, [piwriter.text_block(text)], details=details,
                                           is_error=is_error, timestamp=self.now - r.randint(0, 40))
        if big:
            self.big_outputs += 1
        self._message(msg, big=bool(big))
        self.ctx_tokens += min(len(text) // 4, 30_000)

    def assistant(self, final: bool) -> list[tuple[dict, str]]:
        r = self.r
        start = self._tick(0.5, 5)
        self._tick(2, 90)
        content = []
        if self.level != "off" and r.random() < (0.7 if final else 0.3):
            content.append(piwriter.thinking_block(self.prose(60, 3000), self.signature()))
        calls = []
        if final:
            content.append(piwriter.text_block(self.markdown(100, 5000)))
        else:
            if r.random() < 0.35:
                content.append(piwriter.text_block(self.prose(20, 250)))
            for _ in range(r.choices([1, 2, 3], weights=[80, 15, 5])[0]):
                call, name = self.tool_call()
                content.append(call)
                calls.append((call, name))
        out_tokens = sum(len(piwriter.dumps(b)) for b in content) // 4
        provider, model, api = self.model[0], self.model[1], self.model[2]
        msg = piwriter.assistant_message(content, api=api, provider=provider, model=model,
                                         usage=self.usage(out_tokens, r.randint(200, 6000)),
                                         stop_reason="toolUse" if calls else "stop", timestamp=start,
                                         thinking_level=self.level)
        x = r.random()
        if x < 0.006:
            msg["content"] = content[:1] if content and content[0]["type"] == "thinking" else []
            msg["stopReason"] = "error"
            msg["errorMessage"] = r.choice(['529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
                                            "terminated", "fetch failed: ECONNRESET"])
            calls = []
        elif x < 0.009:
            msg["content"] = content[:1] if content and content[0]["type"] == "thinking" else []
            msg["stopReason"] = "aborted"
            msg["errorMessage"] = "Request was aborted"
            calls = []
        self._message(msg)
        return calls

    def turn(self):
        r = self.r
        if r.random() < 0.01:
            self.bash_execution()
        self.user()
        steps = min(40, int(r.expovariate(1 / 5)) + 1)
        for i in range(steps):
            calls = self.assistant(final=False)
            if not calls:  # error / aborted: the turn ends
                return
            for call, name in calls:
                self.tool_result(call, name)
            if self.done():  # wrap the turn up early once the targets are met
                break
        self.assistant(final=True)

    def fork(self):
        """Go back to an earlier user message (Pi's /tree: re-edit a prompt) and continue from
        its parent, sometimes with a branch summary of the abandoned path."""
        r = self.r
        if len(self.user_pos) < 3:
            return
        back = r.randint(1, min(12, len(self.user_pos) - 1))
        pos = self.user_pos[-back]
        old_leaf = self.branch[-1]
        del self.branch[pos:]
        self.forks_done += 1
        self.user_pos = [p for p in self.user_pos if p < pos]
        self._tick(10, 300)
        if r.random() < 0.6:
            self._entry("branch_summary", {
                "fromId": old_leaf,
                "summary": "The user explored an alternative approach on another branch.\n\n" + self.markdown(300, 2500),
                "details": {"readFiles": sorted(set(self.read_files[-6:])), "modifiedFiles": sorted(set(self.modified_files[-4:]))},
                "usage": self.usage(400, 500), "fromHook": False})

    def compaction(self):
        r = self.r
        if len(self.user_pos) < 3:
            return
        kept = self.branch[self.user_pos[-r.randint(1, min(3, len(self.user_pos)))]]
        self._tick(20, 120)
        sysmsg = {k: v for k, v in self.system.items()}
        sysmsg["timestamp"] = self.now
        summary = ("## Goal\n" + self.prose(200, 600) + "\n\n## Progress\n" +
                   "\n".join(f"- [x] {r.choice(self.p.sentences)}" for _ in range(r.randint(5, 20))) +
                   "\n\n## Key decisions\n" + self.markdown(1000, 6000) + "\n\n## Next steps\n" +
                   "\n".join(f"{i + 1}. {r.choice(self.p.sentences)}" for i in range(r.randint(2, 6))))
        self._entry("compaction", {
            "summary": summary, "firstKeptEntryId": kept,
            "tokensBefore": min(self.ctx_tokens, r.randint(150_000, 198_000)),
            "details": {"readFiles": sorted(set(self.read_files[-30:])), "modifiedFiles": sorted(set(self.modified_files[-20:]))},
            "usage": self.usage(1500, 2000), "fromHook": False, "systemMessage": sysmsg})
        self.read_files.clear()
        self.modified_files.clear()
        self.ctx_tokens = 12_000

    def label(self, i: int):
        r = self.r
        self._tick(2, 60)
        target = r.choice(self.branch[max(0, len(self.branch) - 400):])
        body = {"targetId": target}
        if r.random() < 0.9:
            body["label"] = r.choice([f"checkpoint-{i}", "good state", "before refactor", "tests green ✅",
                                      "bug repro", f"v0.{i}", "ask about this"])
        self._entry("label", body)

    def session_info(self, name: str):
        self._tick(1, 30)
        self._entry("session_info", {"name": name})

    def usage_entry(self):
        self._tick(1, 10)
        self._entry("usage", {"kind": "cache_warm", "provider": self.model[0], "model": self.model[1],
                              "usage": self.usage(20, 100)})

    def custom_entry(self):
        r = self.r
        self._tick(0.1, 5)
        self._entry("custom", {}, custom_first={"customType": "todo-list", "data": {
            "items": [{"text": r.choice(self.p.sentences), "done": r.random() < 0.5} for _ in range(r.randint(1, 6))]}})

    # -- whole session -----------------------------------------------------------------------
    def run(self) -> dict:
        r = self.r
        self.header()
        self.model_change(MODELS.index(self.model))
        self.thinking_change(self.level)
        self.system_message()
        # schedule events by entry count
        est = self.min_entries
        events = []
        for _ in range(self.n_forks):
            events.append((int(est * r.uniform(0.05, 0.97)), "fork"))
        for i in range(self.n_compactions):
            events.append((int(est * (i + 1) / (self.n_compactions + 1) * r.uniform(0.9, 1.1)), "compaction"))
        for _ in range(self.n_labels):
            events.append((int(est * r.uniform(0.02, 0.99)), "label"))
        if self.name:
            events.append((int(est * r.uniform(0.0, 0.1)), "name"))
            if est > 5000:
                events.append((int(est * 0.6), "rename"))
        if est > 2000:
            for i, m in enumerate(r.sample(range(len(MODELS)), 3)):
                events.append((int(est * (0.2 + 0.25 * i)), f"model{m}"))
            events.append((int(est * 0.5), "thinkinghigh"))
            events.append((int(est * 0.75), "system"))
            events.append((int(est * 0.4), "usage"))
            events.append((int(est * 0.3), "custom"))
        events.sort()
        ei = 0
        n_label = 0
        while not self.done():
            self.turn()
            while ei < len(events) and events[ei][0] <= self.entries:
                kind = events[ei][1]
                ei += 1
                if kind == "fork":
                    self.fork()
                elif kind == "compaction":
                    self.compaction()
                elif kind == "label":
                    n_label += 1
                    self.label(n_label)
                elif kind == "name":
                    self.session_info(self.name)
                elif kind == "rename":
                    self.session_info(self.name + " (part 2)")
                elif kind.startswith("model"):
                    self.model_change(int(kind[5:]))
                elif kind == "thinkinghigh":
                    self.thinking_change("high")
                elif kind == "system":
                    self._tick(1, 10)
                    self.system_message(full=False)
                elif kind == "usage":
                    self.usage_entry()
                elif kind == "custom":
                    self.custom_entry()
        self.fh.write(b"".join(self.chunks))
        self.fh.close()
        mtime = self.now / 1000
        os.utime(self.path, (mtime, mtime))
        return {"path": self.path, "bytes": self.bytes, "entries": self.entries, "big_outputs": self.big_outputs,
                "forks": self.forks_done, "leaf_depth": len(self.branch), "counts": self.counts}


BASH_COMMANDS = [
    "npm test", "npm run check", "git status", "git diff --stat", "ls -la src",
    'rg -n "parentId" src | head -50', "cd $CWD && npx vitest run test/session.test.ts 2>&1 | tail -40",
    "python -m pytest -x -q", "cat package.json | jq '.dependencies'", "git log --oneline -20",
    "npx tsc --noEmit -p .", 'find . -name "*.jsonl" -size +10M', "wc -l src/**/*.ts",
    "cargo build --release 2>&1", "make -j4 2>&1 | tail -100", "du -sh ~/.pi/agent/sessions/*",
    "grep -rn 'TODO' --include=*.py .", "node scripts/bench.mjs --runs 5", "echo \"$PATH\" | tr ':' '\\n'",
]


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


def _file_name(start_ms: int, sid: str) -> str:
    return piwriter.session_file_name(iso(start_ms), sid)


def _gen_one(job: dict) -> dict:
    """Worker: generate one session file described by job (plain data, picklable)."""
    sid = uuid7(random.Random(job["seed"]), job["start_ms"])
    path = os.path.join(job["dir"], _file_name(job["start_ms"], sid))
    return SessionGen(job["seed"] + 1, path, job["cwd"], job["start_ms"], session_id=sid, **job["kw"]).run()


def big_jobs(out: str) -> list[dict]:
    p = BIG_PARAMS
    d = os.path.join(out, "big", piwriter.project_dir(p["cwd"]))
    os.makedirs(d, exist_ok=True)
    return [{"seed": p["seed"], "start_ms": piwriter.ms_of(p["start"]), "dir": d, "cwd": p["cwd"],
             "kw": {"min_entries": p["entries"], "min_bytes": p["bytes"], "big_range": tuple(p["big_range"]),
                    "big_share": 0.6, "forks": p["forks"], "compactions": p["compactions"],
                    "labels": p["labels"], "name": "Rewrite the session store and tree view 🌳", "model": 0}}]


SMALL_AVG = 1500  # approximate bytes per ordinary (non-big) entry, used to size sessions


def store_jobs(out: str) -> list[dict]:
    p = STORE_PARAMS
    r = random.Random(p["seed"])
    n = p["sessions"]
    sizes = []
    for i in range(n):
        if i < p["big_sessions"]:
            lo, hi = 5e6, 30e6
        elif i < p["big_sessions"] + p["tiny_sessions"]:
            lo, hi = 15e3, 50e3
        else:
            lo, hi = 50e3, 1e6
        sizes.append(math.exp(r.uniform(math.log(lo), math.log(hi))))
    r.shuffle(sizes)
    # scale the ordinary ones so the total comes out at total_bytes
    fixed = sum(s for s in sizes if s >= 5e6 or s < 50e3)
    rest = sum(s for s in sizes if 50e3 <= s < 5e6)
    k = (p["total_bytes"] - fixed) / rest
    sizes = [s if (s >= 5e6 or s < 50e3) else s * k for s in sizes]
    # skewed project popularity
    weights = [1 / (j + 1) ** 0.9 for j in range(p["projects"])]
    start0 = piwriter.ms_of(p["start"])
    jobs = []
    for i, size in enumerate(sizes):
        proj = r.choices(range(p["projects"]), weights=weights)[0]
        cwd = f"/home/bench/p{proj}"
        d = os.path.join(out, "store", piwriter.project_dir(cwd))
        start_ms = start0 + int(r.uniform(0, 330 * 86400_000))
        size = int(size)
        big = size >= 5e6
        if big:
            big_range, share = (100_000, 3_000_000), 0.6
        elif size > 300e3:
            big_range, share = (8_000, 120_000), 0.35
        else:
            big_range, share = (5_000, 40_000), 0.2
        min_entries = max(6, int(size * (1 - share) / SMALL_AVG))
        kw = {"min_entries": min_entries, "min_bytes": size, "big_range": big_range, "big_share": share,
              "forks": (r.randint(1, 4) if r.random() < 0.3 else 0) if size > 100e3 else 0,
              "compactions": int(size // 4e6) if size > 2e6 else 0,
              "labels": r.randint(1, 6) if r.random() < 0.2 else 0,
              "name": r.choice(SESSION_NAMES) if r.random() < 0.4 else None,
              "parent_session": None,
              "model": r.randrange(len(MODELS)), "thinking": r.random() < 0.8}
        job = {"seed": p["seed"] * 100_000 + i * 7, "start_ms": start_ms, "dir": d, "cwd": cwd, "kw": kw,
               "project": proj}
        jobs.append(job)
    # a few sessions forked from another session of the same project (header parentSession)
    for job in jobs:
        if r.random() < 0.04:
            mates = [j for j in jobs if j["project"] == job["project"] and j is not job and j["start_ms"] < job["start_ms"]]
            if mates:
                job["kw"]["parent_session"] = "<parent>"
                job["parent_of"] = jobs.index(r.choice(mates))
    for job in jobs:
        os.makedirs(job["dir"], exist_ok=True)
    return jobs


def storebig_jobs(out: str) -> list[dict]:
    """The jobs of ``storebig`` (:data:`STOREBIG_PARAMS`): its small sessions, then its big
    newest ones."""
    p = STOREBIG_PARAMS
    r = random.Random(p["seed"])
    n_small = p["sessions"] - p["big_newest"]
    sizes = [math.exp(r.uniform(math.log(12e3), math.log(200e3))) for _ in range(n_small)]
    k = p["small_total_bytes"] / sum(sizes)
    weights = [1 / (j + 1) ** 0.9 for j in range(p["projects"])]
    start0 = piwriter.ms_of(p["start"])
    jobs = []
    for i, size in enumerate(sizes):
        size = int(size * k)
        proj = r.choices(range(p["projects"]), weights=weights)[0]
        cwd = f"/home/bench/p{proj}"
        kw = {"min_entries": max(6, int(size * 0.8 / SMALL_AVG)), "min_bytes": size, "big_range": (5_000, 40_000),
              "big_share": 0.2, "forks": (r.randint(1, 3) if r.random() < 0.2 else 0) if size > 60e3 else 0,
              "compactions": 0, "labels": r.randint(1, 3) if r.random() < 0.1 else 0,
              "name": r.choice(SESSION_NAMES) if r.random() < 0.4 else None,
              "parent_session": None, "model": r.randrange(len(MODELS)), "thinking": r.random() < 0.8}
        jobs.append({"seed": p["seed"] * 100_000 + i * 7, "start_ms": start0 + int(r.uniform(0, 330 * 86400_000)),
                     "dir": os.path.join(out, "storebig", piwriter.project_dir(cwd)), "cwd": cwd, "kw": kw})
    b = BIG_PARAMS
    big0 = piwriter.ms_of(p["big_start"])
    for i in range(p["big_newest"]):
        cwd = f"/home/bench/p{i}"
        kw = {"min_entries": b["entries"], "min_bytes": b["bytes"], "big_range": tuple(b["big_range"]),
              "big_share": 0.6, "forks": b["forks"], "compactions": b["compactions"], "labels": b["labels"],
              "name": f"{r.choice(SESSION_NAMES)} (long run {i + 1})", "model": i % len(MODELS)}
        jobs.append({"seed": p["seed"] * 100_000 + 90_000 + i * 7, "start_ms": big0 + i * 86400_000,
                     "dir": os.path.join(out, "storebig", piwriter.project_dir(cwd)), "cwd": cwd, "kw": kw})
    for job in jobs:
        os.makedirs(job["dir"], exist_ok=True)
    return jobs


SESSION_NAMES = ["Fix flaky tests", "Refactor auth module", "Add dark theme", "Investigate memory leak 🐛",
                 "Port CLI to Rust", "Docs: session format", "Speed up tree rendering", "Release 1.5 prep",
                 "Migrate to uuidv7", "Bisect perf regression", "Implement /resume search", "Größenänderung fix",
                 "日本語 input handling", "Clean up \"legacy\" paths", "Hotfix: crash on empty file"]


def _resolve_parents(jobs: list[dict]):
    """parentSession names the parent's file as Pi writes it: an absolute path, here the one it
    would have in ~/.pi/agent/sessions of user "bench" (independent of --out, so that the
    output is the same wherever it is written; the file itself is in the same folder)."""
    for job in jobs:
        if "parent_of" in job:
            pj = jobs[job["parent_of"]]
            sid = uuid7(random.Random(pj["seed"]), pj["start_ms"])
            job["kw"]["parent_session"] = (f"/home/bench/.pi/agent/sessions/{os.path.basename(pj['dir'])}/"
                                           f"{_file_name(pj['start_ms'], sid)}")


def _marker_params(which: str) -> dict:
    return {"generator_version": GEN_VERSION, "which": which,
            "params": ({"big": BIG_PARAMS, "storebig": STOREBIG_PARAMS}.get(which) or COPIES_PARAMS.get(which)
                       or MIX_PARAMS.get(which, STORE_PARAMS))}


def pool_jobs(which: str, pool_dir: str) -> list[dict]:
    """The pool a copies store is written from: small sessions, log-uniform 12-200 KB scaled
    to the store's mean size, in one folder."""
    p = COPIES_PARAMS[which]
    r = random.Random(p["seed"])
    sizes = [math.exp(r.uniform(math.log(12e3), math.log(200e3))) for _ in range(p["pool"])]
    k = p["mean_bytes"] / (sum(sizes) / len(sizes))
    start0 = piwriter.ms_of(p["start"])
    os.makedirs(pool_dir, exist_ok=True)
    jobs = []
    for i, size in enumerate(sizes):
        size = int(size * k)
        kw = {"min_entries": max(6, int(size * 0.8 / SMALL_AVG)), "min_bytes": size, "big_range": (5_000, 40_000),
              "big_share": 0.2, "forks": 0, "compactions": 0,
              "labels": r.randint(1, 3) if r.random() < 0.1 else 0,
              "name": r.choice(SESSION_NAMES) if r.random() < 0.4 else None,
              "parent_session": None, "model": r.randrange(len(MODELS)), "thinking": r.random() < 0.8}
        jobs.append({"seed": p["seed"] * 100_000 + i * 7, "start_ms": start0 + int(r.uniform(0, 330 * 86400_000)),
                     "dir": pool_dir, "cwd": "/home/bench/pool", "kw": kw})
    return jobs


def copies_store(which: str, out: str, pool: list[dict]) -> list[dict]:
    """Write ``which`` from the generated ``pool`` (results of _gen_one): each copy is a
    pool session (chosen at random) whose header line is replaced (a new uuidv7 id, a
    header time up to a day after the pool session's, the project's cwd), written as
    ``<project>/<time>_<id>.jsonl``; its mtime is the pool file's plus the same shift. The
    entries are the pool session's own (so copies of one pool session share their last
    activity, hence their ``modified``)."""
    p = COPIES_PARAMS[which]
    r = random.Random(p["seed"] + 1)
    weights = [1 / (j + 1) ** 0.9 for j in range(p["projects"])]
    texts = []
    for res in sorted(pool, key=lambda x: x["path"]):
        with open(res["path"], "rb") as f:
            head, rest = f.read().split(b"\n", 1)
        h = json.loads(head)
        texts.append((piwriter.ms_of(h["timestamp"]), os.stat(res["path"]).st_mtime, rest, res["entries"]))
    out_rows = []
    made = set()
    for i in range(p["sessions"]):
        start, mtime, rest, entries = texts[r.randrange(len(texts))]
        proj = r.choices(range(p["projects"]), weights=weights)[0]
        cwd = f"/home/bench/p{proj}"
        d = os.path.join(out, which, piwriter.project_dir(cwd))
        if d not in made:
            os.makedirs(d, exist_ok=True)
            made.add(d)
        shift = r.randrange(0, 86400_000)
        sid = uuid7(r, start + shift)
        head = _dump_line(piwriter.header(sid, iso(start + shift), cwd))
        path = os.path.join(d, _file_name(start + shift, sid))
        with open(path, "wb") as f:
            f.write(head)
            f.write(rest)
        t = mtime + shift / 1000
        os.utime(path, (t, t))
        out_rows.append({"path": path, "bytes": len(head) + len(rest), "entries": entries, "forks": 0,
                         "counts": {}})
    return out_rows


def mix_store(which: str, out: str) -> dict:
    """Write ``which`` from the corpus files Pi wrote (MIX_PARAMS): each copy is a corpus
    session chosen at random (one of its files of ``big_bytes`` or more with probability
    ``big_share``, else one of the others), under a project chosen as in copies_store, with
    its header line rewritten (a new uuidv7 id, a time up to a day after the original's,
    the project's cwd; a fork's ``parentSession``/``branchedFrom`` names an earlier copy in
    the same folder, by the path Pi would have written) and every other line as Pi wrote it.
    Its mtime is its header time plus an hour. Returns the marker's fields."""
    p = MIX_PARAMS[which]
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), p["corpus"])
    sources = []
    for dp, _, fs in sorted(os.walk(root)):
        for f in sorted(fs):
            if f.endswith(".jsonl"):
                with open(os.path.join(dp, f), "rb") as fh:
                    head, _, rest = fh.read().partition(b"\n")
                sources.append((json.loads(head), rest))
    small = [x for x in sources if len(x[1]) < p["big_bytes"]]
    big = [x for x in sources if len(x[1]) >= p["big_bytes"]]
    r = random.Random(p["seed"])
    weights = [1 / (j + 1) ** 0.9 for j in range(p["projects"])]
    d0 = os.path.join(out, which)
    made: dict[str, list[str]] = {}  # folder -> the paths Pi would have written its files at
    files = total = 0
    for _ in range(p["sessions"]):
        head, rest = r.choice(big if r.random() < p["big_share"] else small)
        proj = r.choices(range(p["projects"]), weights=weights)[0]
        cwd = f"/home/bench/p{proj}"
        folder = piwriter.project_dir(cwd)
        d = os.path.join(d0, folder)
        if folder not in made:
            os.makedirs(d, exist_ok=True)
            made[folder] = []
        start = piwriter.ms_of(head["timestamp"]) + r.randrange(0, 86400_000)
        sid = uuid7(r, start)
        h = dict(head, id=sid, timestamp=iso(start), cwd=cwd)
        for key in ("parentSession", "branchedFrom"):
            if key in h and made[folder]:
                h[key] = r.choice(made[folder])
        name = _file_name(start, sid)
        line = _dump_line(h)
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(line)
            f.write(rest)
        os.utime(path, (start / 1000 + 3600, start / 1000 + 3600))
        made[folder].append(f"/home/bench/.pi/agent/sessions/{folder}/{name}")
        files += 1
        total += len(line) + len(rest)
    return {"files": files, "bytes": total, "projects": len(made), "big_copies_share": p["big_share"]}


def _read_marker(d: str) -> dict | None:
    try:
        with open(os.path.join(d, MARKER)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def up_to_date(out: str, which: str) -> bool:
    m = _read_marker(os.path.join(out, which))
    if not m or {k: m.get(k) for k in ("generator_version", "which", "params")} != _marker_params(which):
        return False
    # the files must still be there with the recorded total size
    root = os.path.join(out, which)
    total = 0
    for dp, _, fs in os.walk(root):
        total += sum(os.path.getsize(os.path.join(dp, f)) for f in fs if f.endswith(".jsonl"))
    return total == m.get("bytes")


def generate(which_list: list[str], out: str, jobs_n: int | None = None, force: bool = False) -> dict:
    todo = [w for w in which_list if force or not up_to_date(out, w)]
    for w in which_list:
        if w not in todo:
            print(f"{w}: up to date ({os.path.join(out, w)})", file=sys.stderr)
    if not todo:
        return {}
    copies = [w for w in todo if w in COPIES_PARAMS]
    mixes = [w for w in todo if w in MIX_PARAMS]
    todo = [w for w in todo if w not in COPIES_PARAMS and w not in MIX_PARAMS]
    summary = {}
    for w in mixes:
        summary[w] = _generate_mix(w, out)
    for w in copies:
        summary[w] = _generate_copies(w, out, jobs_n)
    if not todo:
        return summary
    plans = {}
    for w in todo:
        d = os.path.join(out, w)
        if os.path.isdir(d):
            shutil.rmtree(d)
        plans[w] = {"big": big_jobs, "storebig": storebig_jobs}.get(w, store_jobs)(out)
        if w == "store":
            _resolve_parents(plans[w])
    t0 = time.perf_counter()
    flat = [(w, j) for w, js in plans.items() for j in js]
    # biggest first, for even load across workers
    flat.sort(key=lambda wj: -wj[1]["kw"]["min_bytes"])
    results: dict[str, list[dict]] = {w: [] for w in plans}
    n = jobs_n or os.cpu_count() or 1
    if n == 1:
        for w, j in flat:
            results[w].append(_gen_one(j))
    else:
        with ProcessPoolExecutor(n) as ex:
            for (w, _), res in zip(flat, ex.map(_gen_one, [j for _, j in flat], chunksize=4)):
                results[w].append(res)
    elapsed = time.perf_counter() - t0
    for w, rs in results.items():
        rs.sort(key=lambda x: x["path"])
        root = os.path.join(out, w)
        m = _marker_params(w)
        m.update({"files": len(rs), "bytes": sum(x["bytes"] for x in rs), "entries": sum(x["entries"] for x in rs),
                  "generated_in_s": round(elapsed, 1)})
        if w == "big":
            x = rs[0]
            m.update({"file": os.path.relpath(x["path"], root), "big_outputs": x["big_outputs"], "forks": x["forks"],
                      "leaf_depth": x["leaf_depth"], "counts": dict(sorted(x["counts"].items()))})
        else:
            m.update({"projects": len({os.path.dirname(x["path"]) for x in rs}),
                      "largest": max(x["bytes"] for x in rs), "smallest": min(x["bytes"] for x in rs),
                      "named": sum(1 for x in rs if x["counts"].get("session_info")),
                      "with_forks": sum(1 for x in rs if x["forks"]),
                      "with_branch_summaries": sum(1 for x in rs if x["counts"].get("branch_summary"))})
        with open(os.path.join(root, MARKER), "w") as f:
            json.dump(m, f, indent=1, ensure_ascii=False)
        summary[w] = m
        print(f"{w}: {m['files']} files, {m['bytes'] / 1e6:.1f} MB, {m['entries']} entries "
              f"({elapsed:.1f} s wall for this batch)", file=sys.stderr)
    return summary


def _generate_copies(which: str, out: str, jobs_n: int | None) -> dict:
    t0 = time.perf_counter()
    d = os.path.join(out, which)
    pool_dir = os.path.join(out, f".pool-{which}")
    for x in (d, pool_dir):
        if os.path.isdir(x):
            shutil.rmtree(x)
    jobs = pool_jobs(which, pool_dir)
    n = jobs_n or os.cpu_count() or 1
    if n == 1:
        pool = [_gen_one(j) for j in jobs]
    else:
        with ProcessPoolExecutor(n) as ex:
            pool = list(ex.map(_gen_one, jobs, chunksize=16))
    rs = copies_store(which, out, pool)
    shutil.rmtree(pool_dir)
    m = _marker_params(which)
    m.update({"files": len(rs), "bytes": sum(x["bytes"] for x in rs), "entries": sum(x["entries"] for x in rs),
              "generated_in_s": round(time.perf_counter() - t0, 1),
              "projects": len({os.path.dirname(x["path"]) for x in rs}),
              "largest": max(x["bytes"] for x in rs), "smallest": min(x["bytes"] for x in rs),
              "pool_named": sum(1 for x in pool if x["counts"].get("session_info"))})
    with open(os.path.join(d, MARKER), "w") as f:
        json.dump(m, f, indent=1, ensure_ascii=False)
    print(f"{which}: {m['files']} files, {m['bytes'] / 1e6:.1f} MB, {m['entries']} entries "
          f"({m['generated_in_s']:.1f} s wall)", file=sys.stderr)
    return m


def _generate_mix(which: str, out: str) -> dict:
    t0 = time.perf_counter()
    d = os.path.join(out, which)
    if os.path.isdir(d):
        shutil.rmtree(d)
    m = _marker_params(which)
    m.update(mix_store(which, out))
    m["generated_in_s"] = round(time.perf_counter() - t0, 1)
    with open(os.path.join(d, MARKER), "w") as f:
        json.dump(m, f, indent=1, ensure_ascii=False)
    print(f"{which}: {m['files']} files, {m['bytes'] / 1e6:.1f} MB ({m['generated_in_s']:.1f} s wall)", file=sys.stderr)
    return m


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("which", choices=["big", "store", "storebig", "store15k", "store50k", "store15kmix", "all"],
                    help="all: big and store (the other stores only when named)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: CPU count)")
    ap.add_argument("--force", action="store_true", help="regenerate even if the marker matches")
    a = ap.parse_args(argv)
    which = ["big", "store"] if a.which == "all" else [a.which]
    generate(which, a.out, a.jobs, a.force)


if __name__ == "__main__":
    main()
