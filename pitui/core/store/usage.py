"""What every session under a root cost: its usage index and the reports made from it.

Each session file's usage (:mod:`.usage_scan`) is kept in pitui's cache folder, keyed by the
file's path, device, inode, size and mtime (:mod:`.usage_file`): an unchanged file is not
read again, a file that only grew (Pi appends) is read on from where its scan stopped, and
anything else is read whole. Reports (``pitui usage``, the app's usage screen) are made from
there:

- ``daily``, ``weekly``, ``monthly``, ``session``, as ``@ccusage/pi`` makes its reports, so
  the numbers agree: each counted message once across all files by (its ``timestamp``, its
  total tokens), the first file by path keeping it (ccusage keeps the first it meets, in no
  defined order); its day in the time zone given (else the
  local one); ccusage's field names (``daily[]``, ``inputTokens`` ...);
- ``project`` and ``model``, the same messages by project folder and by model;
- pitui's own figures beside them, said apart: ``totalTokens``, the cache hit ratio, and of
  the sessions with usage in the period, what their stats screens count (``sessionCost``),
  the part spent on abandoned branches, subagent runs whose transcript is gone (their usage
  is in no other file), time the model took against time tools took, tool calls by kind.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Callable

import orjson

from . import usage_file
from .discovery import SessionFile, SessionRoot, find_session_files, transcript_candidates
from .usage_scan import FileScan, scan_bytes, session_id_of
from ..paths import default_cache_dir, notice, private_dir, write_private
from ..read.lines import bytes_fingerprint, open_regular
from ..read.sniff import stream_kind

__all__ = ["StoreUsage", "FileUsage", "UsageIndex", "load_usage", "report", "REPORTS", "DayOf", "normal_date",
           "model_name", "cache_hit_ratio"]

REPORTS = ("daily", "weekly", "monthly", "session", "project", "model")
_MS_QUARTER = 900_000
_NUMBERS = frozenset({int, float})
_COMPAT_TYPES = {"ts": frozenset({str}), "ms": _NUMBERS, "total": _NUMBERS, "input": _NUMBERS, "output": _NUMBERS,
                 "cache_read": _NUMBERS, "cache_write": _NUMBERS, "cost": _NUMBERS,
                 "model": frozenset({str, type(None)})}  # every time zone's offset is a whole number of quarter hours (since 1900)


@dataclass
class FileUsage:
    """One session file's usage: pitui's own figures (:meth:`.usage_scan.FileScan.summary`)
    and ccusage's messages (columns, decoded when a report needs them)."""

    path: str
    project: str  # ccusage's project: the first folder under the root (a loose file: its name)
    kind: str  # session | subagent
    session_id: str  # ccusage's: the file name after its first "_"
    header_id: str | None
    name: str | None
    summary: dict
    compat_raw: bytes  # the compatible messages' columns (JSON)

    def compat(self) -> dict:
        """The columns of :class:`.usage_scan.Compat` (empty when the cache's are damaged)."""
        try:
            c = orjson.loads(self.compat_raw)
            n = len(c["ts"])
            for k in _COMPAT_TYPES:
                if type(c[k]) is not list or len(c[k]) != n or not set(map(type, c[k])) <= _COMPAT_TYPES[k]:
                    raise ValueError(k)
        except (orjson.JSONDecodeError, TypeError, KeyError, ValueError):
            return {k: [] for k in _COMPAT_TYPES}
        return c

    @property
    def session_cost(self) -> float:
        """What the session's stats screen counts (every branch, tools, subagent runs)."""
        return sum(v[4] for v in self.summary["byModel"].values())

    @property
    def session_tokens(self) -> float:
        return sum(v[0] + v[1] + v[2] + v[3] for v in self.summary["byModel"].values())


@dataclass
class StoreUsage:
    """Every session file's usage under a root, in the listing's file order."""

    files: list[FileUsage] = field(default_factory=list)
    unreadable: int = 0  # files that could not be read (gone, not a file, no permission)
    read: int = 0  # files read this time (whole or from where they stopped)

    def skipped(self) -> dict[str, int]:
        """Usages not counted, by reason, over every file."""
        out: dict[str, int] = {}
        for f in self.files:
            for k, n in f.summary["skipped"].items():
                out[k] = out.get(k, 0) + n
        return out


def _project_of(root: SessionRoot, sf: SessionFile) -> str:
    if sf.project:
        return sf.project
    if root.kind == "project":
        return root.path.name
    return os.path.basename(sf.path)


class UsageIndex:
    """The usage index file in pitui's cache folder (:mod:`.usage_file`): read once, its
    rows taken by path; written whole (temporary file and rename) when a file was read. A
    damaged or foreign file is thrown away (with a notice) and rebuilt."""

    def __init__(self, cache_dir: str | os.PathLike | None = None, *, enabled: bool = True):
        self.dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.file = self.dir / f"usage-v{usage_file.VERSION}.bin"
        self.enabled = enabled
        self.rows: dict[str, usage_file.Row] = {}
        if enabled:
            self._load()

    def _load(self) -> None:
        if private_dir(self.dir, create=False) is None:
            if self.dir.exists():
                self.enabled = False
            return
        try:
            raw = self.file.read_bytes()
        except FileNotFoundError:
            return
        except OSError:
            return
        try:
            self.rows = {r.path: r for r in usage_file.decode(raw)}
        except usage_file.OtherVersion:
            return
        except usage_file.Damaged as exc:
            notice(f"the usage index was damaged ({exc}); it is being rebuilt")

    def save(self, rows: list[usage_file.Row]) -> None:
        if not self.enabled or private_dir(self.dir) is None:
            return
        try:
            write_private(self.file, usage_file.encode(rows))
        except OSError as exc:
            notice(f"the usage index could not be saved: {exc}")


def _read_file(path: str, prev: usage_file.Row | None, st: os.stat_result) -> tuple[FileScan, str, int]:
    """The file's scan (``prev`` read on when the file only grew), its fingerprint and the
    size read. Raises OSError."""
    with open_regular(path) as fh:
        data = fh.read()
    scan = None
    if (prev is not None and prev.dev == st.st_dev and prev.ino == st.st_ino and len(data) > prev.size
            and prev.fingerprint and bytes_fingerprint(data, prev.offset) == prev.fingerprint):
        try:
            scan = FileScan.from_state(orjson.loads(prev.state))
        except (orjson.JSONDecodeError, TypeError, KeyError):
            scan = None
    if scan is None:
        scan = FileScan()
    scan_bytes(scan, data, scan.offset, True)
    return scan, bytes_fingerprint(data, scan.offset), len(data)


def _stream_summary(path: str, summary: dict) -> dict:
    """pitui's own figures of an event stream (``pi --mode json`` or ``rpc`` output): of the
    conversation the core rebuilds from its records, as its stats screen counts them (its
    lines are not entries: the line-by-line figures do not apply)."""
    from ..model.stats import kind_stats, session_indices, session_stats, tool_calls
    from ..read.session import Session

    try:
        session = Session.open(path)
    except Exception:  # (unreadable as a stream after all: no figures of its own)
        return {**summary, "byModel": {}, "abandoned": [0, 0], "modelMs": 0, "toolMs": 0, "tools": {}, "runs": []}
    stats = session_stats(session)
    by_model = {k: [u.input, u.output, u.cache_read, u.cache_write, u.cost, u.calls] for k, u in stats.by_model.items()}
    tools = {k: [v.calls, v.errors] for k, v in kind_stats(tool_calls(session, session_indices(session),
                                                                         args=False)).items()}
    return {**summary, "byModel": by_model, "abandoned": [0, 0], "modelMs": 0, "toolMs": 0, "tools": tools,
            "runs": []}


def load_usage(root: SessionRoot, *, cache_dir: str | os.PathLike | None = None, use_cache: bool = True,
               progress: Callable[[int, int], None] | None = None,
               files: list[SessionFile] | None = None) -> StoreUsage:
    """The usage of every session file under ``root`` (the cache read and brought up to date)."""
    index = UsageIndex(cache_dir, enabled=use_cache)
    files = find_session_files(root) if files is None else files
    out = StoreUsage()
    rows: list[usage_file.Row] = []
    changed = False
    for k, sf in enumerate(files):
        if progress is not None and k % 64 == 0:
            progress(k, len(files))
        try:
            st = os.stat(sf.path)
        except OSError:
            out.unreadable += 1
            continue
        prev = index.rows.get(sf.path)
        if prev is not None and (prev.dev, prev.ino, prev.size, prev.mtime_ns) == (
                st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns):
            row = prev
        else:
            try:
                scan, fingerprint, size = _read_file(sf.path, prev, st)
            except OSError:
                out.unreadable += 1
                continue
            out.read += 1
            changed = True
            summary = scan.summary()
            state = orjson.dumps(scan.to_state())
            if stream_kind(sf.path) is not None:
                summary, state = _stream_summary(sf.path, summary), b""  # (read whole when it changes)
            summary["id"], summary["name"] = scan.header_id, scan.name
            row = usage_file.Row(sf.path, st.st_dev, st.st_ino, size, st.st_mtime_ns, scan.offset, fingerprint,
                                 orjson.dumps(summary), orjson.dumps(scan.compat.to_json()), state)
        rows.append(row)
        summary = row.summary_dict()
        out.files.append(FileUsage(sf.path, _project_of(root, sf), sf.kind, session_id_of(sf.path),
                                   summary.get("id"), summary.get("name"), summary, bytes(row.compat)))
    if changed or len(rows) != len(index.rows):
        index.save(rows)
    return out


# ---------------------------------------------------------------------------- reports


class DayOf:
    """The calendar day (``YYYY-MM-DD``) of epoch milliseconds in a time zone (None: the
    local one), as ccusage's ``toLocaleDateString('en-CA', {timeZone})``."""

    def __init__(self, tz: str | None = None):
        if tz is None:
            self._zone = None
        else:
            from zoneinfo import ZoneInfo

            self._zone = ZoneInfo(tz)  # (raises on an unknown zone: the caller says so)
        self._cache: dict[int, str] = {}

    def __call__(self, ms: float) -> str:
        q = int(ms // _MS_QUARTER)
        day = self._cache.get(q)
        if day is None:
            seconds = q * (_MS_QUARTER // 1000)
            try:
                if self._zone is None:
                    t = time.localtime(seconds)
                    day = "%04d-%02d-%02d" % (t.tm_year, t.tm_mon, t.tm_mday)
                else:
                    day = datetime.fromtimestamp(seconds, self._zone).strftime("%Y-%m-%d")
            except (OverflowError, OSError, ValueError):
                day = datetime.utcfromtimestamp(0).strftime("%Y-%m-%d") if seconds < 0 else "9999-12-31"
            self._cache[q] = day
        return day


def normal_date(text: str) -> str | None:
    """``YYYY-MM-DD`` or ``YYYYMMDD`` as ``YYYYMMDD`` (how ccusage compares them), else None."""
    digits = text.replace("-", "")
    if len(digits) != 8 or not digits.isascii() or not digits.isdigit():
        return None
    try:
        date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
    except ValueError:
        return None
    return digits


def model_name(model) -> str:
    """ccusage's name of a message's model."""
    return f"[pi] {model}" if model is not None else "unknown"


def cache_hit_ratio(input_tokens: float, cache_read: float, cache_write: float) -> float | None:
    """Cache reads over all the input the model was given (None when it was given none)."""
    whole = input_tokens + cache_read + cache_write
    return cache_read / whole if whole > 0 else None


class _Sum:
    """A report row's sums, and its models' in the order first met."""

    __slots__ = ("input", "output", "cache_write", "cache_read", "cost", "models", "last_ts", "files")

    def __init__(self):
        self.input = self.output = self.cache_write = self.cache_read = 0
        self.cost = 0.0
        self.models: dict[str, list] = {}
        self.last_ts = ""
        self.files: list[FileUsage] = []

    def add(self, model: str, inp, out, cw, cr, cost) -> None:
        self.input += inp
        self.output += out
        self.cache_write += cw
        self.cache_read += cr
        self.cost += cost
        m = self.models.get(model)
        if m is None:
            m = self.models[model] = [0, 0, 0, 0, 0.0]
        m[0] += inp
        m[1] += out
        m[2] += cw
        m[3] += cr
        m[4] += cost

    def fields(self) -> dict:
        return {"inputTokens": _num(self.input), "outputTokens": _num(self.output),
                "cacheCreationTokens": _num(self.cache_write), "cacheReadTokens": _num(self.cache_read),
                "totalCost": self.cost}

    def models_fields(self) -> dict:
        return {"modelsUsed": list(self.models),
                "modelBreakdowns": [{"modelName": k, "inputTokens": _num(v[0]), "outputTokens": _num(v[1]),
                                     "cacheCreationTokens": _num(v[2]), "cacheReadTokens": _num(v[3]), "cost": v[4]}
                                    for k, v in self.models.items()]}

    def extras(self) -> dict:
        tokens = self.input + self.output + self.cache_write + self.cache_read
        return {"totalTokens": _num(tokens),
                "cacheHitRatio": cache_hit_ratio(self.input, self.cache_read, self.cache_write)}


def _num(v):
    """A count as JSON writes it: whole numbers without a fraction."""
    return int(v) if type(v) is float and v.is_integer() and abs(v) < 2 ** 53 else v


def _week_of(day: str) -> str:
    d = date(int(day[:4]), int(day[5:7]), int(day[8:10]))
    return (d - timedelta(days=d.weekday())).isoformat()


def _session_extras(files: list[FileUsage]) -> dict:
    """pitui's own figures of some session files, summed."""
    cost = tokens = ab_cost = ab_tokens = gone_cost = gone_tokens = model_ms = tool_ms = 0.0
    tools: dict[str, dict] = {}
    skipped = 0
    for f in files:
        s = f.summary
        for v in s["byModel"].values():
            cost += v[4]
            tokens += v[0] + v[1] + v[2] + v[3]
        ab_tokens += s["abandoned"][0]
        ab_cost += s["abandoned"][1]
        model_ms += s["modelMs"]
        tool_ms += s["toolMs"]
        skipped += sum(s["skipped"].values())
        for kind, (calls, errors) in s["tools"].items():
            t = tools.get(kind)
            if t is None:
                t = tools[kind] = {"calls": 0, "errors": 0}
            t["calls"] += calls
            t["errors"] += errors
        for recorded, _model, inp, out, cr, cw, run_cost in s["runs"]:
            if not _transcript_exists(recorded, f.path):
                gone_tokens += inp + out + cr + cw
                gone_cost += run_cost
    return {"sessionCost": cost, "sessionTokens": _num(tokens), "abandonedCost": ab_cost,
            "abandonedTokens": _num(ab_tokens), "subagentGoneCost": gone_cost, "subagentGoneTokens": _num(gone_tokens),
            "modelMs": model_ms, "toolMs": tool_ms,
            "tools": dict(sorted(tools.items(), key=lambda kv: (-kv[1]["calls"], kv[0]))), "skipped": skipped}


def _transcript_exists(recorded: list, session_path: str) -> bool:
    return any(os.path.isfile(c) for r in recorded for c in transcript_candidates(r, session_path))


def report(usage: StoreUsage, by: str = "daily", *, tz: str | None = None, since: str | None = None,
           until: str | None = None, project: str | None = None, sort: str | None = None,
           order: str = "desc") -> dict | list:
    """A report as ``@ccusage/pi``'s JSON (``[]`` when nothing was used), pitui's fields
    after theirs. ``since`` / ``until``: ``YYYYMMDD`` (:func:`normal_date`), days in ``tz``;
    ``project``: only project folders whose name holds it (case-insensitive); ``sort``
    (session rows): ``cost``, ``tokens`` or ``date`` (the default, as ccusage)."""
    day_of = DayOf(tz)
    seen: set = set()
    groups: dict[object, _Sum] = {}
    used_files: list[FileUsage] = []
    want = project.casefold() if project else None
    # (by path: a project's sessions oldest first, as Pi names them, so that a message a
    # fork copied counts in the session it was first written in)
    for f in sorted(usage.files, key=lambda f: f.path):
        c = f.compat()
        if not c["ts"]:
            continue
        keep = want is None or want in f.project.casefold()
        used = False
        for ts, ms, total, inp, out, cr, cw, cost, model in zip(
                c["ts"], c["ms"], c["total"], c["input"], c["output"], c["cache_read"], c["cache_write"], c["cost"],
                c["model"]):
            key = (ts, total)
            if key in seen:
                continue
            seen.add(key)
            if not keep:
                continue
            if by == "session":
                gk = (f.project, f.session_id)
            else:
                day = day_of(ms)
                d8 = day.replace("-", "")
                if (since is not None and d8 < since) or (until is not None and d8 > until):
                    continue
                gk = (day if by == "daily" else day[:7] if by == "monthly" else _week_of(day) if by == "weekly"
                      else f.project if by == "project" else model_name(model))
            g = groups.get(gk)
            if g is None:
                g = groups[gk] = _Sum()
            g.add(model_name(model), inp, out, cw, cr, cost)
            if ts > g.last_ts:
                g.last_ts = ts
            if f not in g.files[-1:]:
                g.files.append(f)
            used = True
        if used:
            used_files.append(f)
    rows = []
    if by == "session":
        for (proj, sid), g in groups.items():
            last = day_of_ts(g.last_ts, day_of)
            d8 = last.replace("-", "")
            if (since is not None and d8 < since) or (until is not None and d8 > until):
                continue
            first = g.files[0]
            extras = _session_extras(g.files)
            rows.append({"sessionId": sid, "projectPath": proj, "source": "pi-agent", **g.fields(),
                         "lastActivity": last, **g.models_fields(), **g.extras(),
                         "path": first.path, "id": first.header_id, "name": first.name, **extras,
                         "_files": g.files})
        key = {"cost": lambda r: r["totalCost"], "tokens": lambda r: r["totalTokens"]}.get(sort or "date")
        if key is None:
            rows.sort(key=lambda r: r["lastActivity"], reverse=order == "desc")
        else:
            rows.sort(key=key, reverse=True)
        used_files = [f for r in rows for f in r.pop("_files")]
    else:
        name = {"daily": "date", "weekly": "week", "monthly": "month", "project": "project", "model": "model"}[by]
        for gk, g in groups.items():
            rows.append({name: gk, "source": "pi-agent", **g.fields(), **g.models_fields(), **g.extras()})
        if by in ("project", "model"):
            rows.sort(key=lambda r: (-r["totalCost"], r[name]))
        else:
            rows.sort(key=lambda r: r[name], reverse=order == "desc")
        if by == "model":
            for r in rows:
                del r["modelsUsed"], r["modelBreakdowns"]
    if not rows:
        return []
    totals = _Sum()
    for r in rows:
        totals.input += r["inputTokens"]
        totals.output += r["outputTokens"]
        totals.cache_write += r["cacheCreationTokens"]
        totals.cache_read += r["cacheReadTokens"]
        totals.cost += r["totalCost"]
    key = {"daily": "daily", "weekly": "weekly", "monthly": "monthly", "session": "sessions", "project": "projects",
           "model": "models"}[by]
    skipped = usage.skipped()
    return {key: rows, "totals": {**totals.fields(), **totals.extras(), **_session_extras(used_files),
                                  "sessions": len({f.path for f in used_files}),
                                  "skippedReasons": dict(sorted(skipped.items()))}}


def day_of_ts(ts: str, day_of: DayOf) -> str:
    """The day of an ISO timestamp ccusage accepted (its milliseconds worked out again)."""
    from .usage_scan import ccusage_timestamp

    ms = ccusage_timestamp(ts)
    return day_of(ms) if ms is not None else ""
