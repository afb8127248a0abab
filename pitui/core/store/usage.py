"""What every session under a root cost: its usage index and the reports made from it.

Each session file's usage (:mod:`.usage_scan`) is kept in pitui's cache folder, keyed by the
file's path, device, inode, size and mtime (:mod:`.usage_file`, :mod:`.usage_index`): an
unchanged file is not read again, a file that only grew (Pi appends) is read on from where
its scan stopped, and anything else is read whole (many files by the listing's worker
processes, each line read once for its usage and its listing row: :mod:`.usage_read`).
Reports (``pitui usage``, the app's usage screen) are made from there:

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

import math
import os
import time
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from itertools import chain
from operator import itemgetter
from typing import Callable

import orjson

from . import usage_file
from .discovery import SessionFile, SessionRoot, find_session_files, transcript_candidates
from .usage_index import UsageIndex
from .usage_read import read_row, read_row_or_none
from .usage_scan import QUARTER_MS, Compat, session_id_of
from ..model.cost import spent

#: Many files to read whole (a cold index) are read by the listing's worker processes,
#: their listing rows made from the same read: at least this many files and bytes.
USAGE_MIN_FILES = 24
USAGE_MIN_BYTES = 64 * 1024 * 1024

__all__ = ["StoreUsage", "FileUsage", "UsageIndex", "load_usage", "file_spent", "report", "overview", "Overview", "REPORTS", "DayOf", "normal_date",
           "model_name", "cache_hit_ratio"]

REPORTS = ("daily", "weekly", "monthly", "session", "project", "model")
_NUMBERS = frozenset({int, float})
_STR = frozenset({str})
_MODEL = (str, type(None))
_COLUMN_TYPES = {"ts": _STR, "ms": _NUMBERS, "total": _NUMBERS, "input": _NUMBERS, "output": _NUMBERS,
                 "cache_read": _NUMBERS, "cache_write": _NUMBERS, "cost": _NUMBERS, "model": frozenset(_MODEL)}
_EMPTY_KEYS = {"keys": [], "buckets": [], "last": "", "unique": True}
_LIST, _SEVEN, _INT, _MODEL_TYPES = frozenset({list}), frozenset({7}), frozenset({int}), frozenset(_MODEL)


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
    keys_raw: bytes  # the compatible messages' timestamps and sums (JSON)
    columns_raw: bytes  # their other columns (JSON)

    def keys(self) -> dict:
        """The compatible messages' dedupe keys and sums (:meth:`.usage_scan.Compat.keys_json`;
        empty when the cache's are damaged)."""
        try:
            got = orjson.loads(self.keys_raw)
            buckets = got["buckets"]
            # (each bucket's shape and types checked a column at a time, at C speed)
            if (type(got["keys"]) is not list or not set(map(type, got["keys"])) <= _STR
                    or type(got["last"]) is not str or type(got["unique"]) is not bool
                    or type(buckets) is not list or not set(map(type, buckets)) <= _LIST
                    or not set(map(len, buckets)) <= _SEVEN
                    or not set(map(type, map(itemgetter(0), buckets))) <= _INT
                    or not set(map(type, map(itemgetter(1), buckets))) <= _MODEL_TYPES
                    or not set(map(type, chain.from_iterable(map(itemgetter(slice(2, 7)), buckets)))) <= _NUMBERS):
                raise ValueError("keys")
        except (orjson.JSONDecodeError, TypeError, KeyError, ValueError):
            return _EMPTY_KEYS
        return got

    def columns(self) -> Compat | None:
        """The compatible messages, checked (None when the cache's are damaged)."""
        try:
            got = orjson.loads(self.columns_raw)
            count = len(got["ts"])
            for name in Compat.COLUMNS:
                col = got[name]
                if type(col) is not list or len(col) != count or not set(map(type, col)) <= _COLUMN_TYPES[name]:
                    return None
        except (orjson.JSONDecodeError, TypeError, KeyError):
            return None
        return Compat.from_json(got)

    def gone(self) -> tuple[float, float]:
        """Tokens and cost of this session's subagent runs whose transcript is in no file
        (looked for once per load: where the run records it, then in the session's
        ``subagent-artifacts``)."""
        got = self.__dict__.get("_gone")
        if got is None:
            tokens = cost = 0.0
            for recorded, _model, inp, out, cr, cw, run_cost in self.summary["runs"]:
                if not _transcript_exists(recorded, self.path):
                    tokens += inp + out + cr + cw
                    cost += run_cost
            got = self.__dict__["_gone"] = (tokens, cost)
        return got

    @property
    def session_cost(self) -> float:
        """What the session's header and stats screen show (every branch, tools, subagent
        runs): :func:`..model.cost.spent` of its sums per model, as they add them."""
        return spent(self.summary["byModel"].values())[1]

    @property
    def session_tokens(self) -> float:
        return spent(self.summary["byModel"].values())[0]


@dataclass
class StoreUsage:
    """Every session file's usage under a root, in the listing's file order."""

    files: list[FileUsage] = field(default_factory=list)
    unreadable: int = 0  # files that could not be read (gone, not a file, no permission)
    read: int = 0  # files read this time (whole or from where they stopped)
    _kept: list | None = field(default=None, repr=False)  # (see kept())

    def kept(self) -> list[tuple["FileUsage", list, str]]:
        """Each file's sums of the messages it alone holds, and its latest one's timestamp,
        by path (a project's sessions oldest first, as Pi names them, so that a message a
        fork copied counts in the session it was first written in); worked out once.

        Each message counts once, by (timestamp, total tokens). Where no message of a file
        was met before (nearly always), its own sums are taken whole; where one was, its
        messages are compared one by one with those met before."""
        if self._kept is not None:
            return self._kept
        out = []
        seen: set[str] = set()  # the dedupe keys met (usage_scan.dedupe_key)
        for file in sorted(self.files, key=lambda file: file.path):
            got = file.keys()
            keys = got["keys"]
            if not keys:
                continue
            if got["unique"] and seen.isdisjoint(keys):
                out.append((file, got["buckets"], got["last"]))
                seen.update(keys)
                continue
            if seen.issuperset(keys):
                continue  # (a copy: every message of it was met before)
            cols = file.columns()
            if cols is None or len(cols.ts) != len(keys):
                continue
            keep = []
            for key in keys:
                keep.append(key not in seen)
                seen.add(key)
            out.append((file, cols.buckets(keep), max((ts for ts, kept in zip(cols.ts, keep) if kept), default="")))
        self._kept = out
        return out

    def skipped(self) -> dict[str, int]:
        """Usages not counted, by reason, over every file."""
        out: dict[str, int] = {}
        for file in self.files:
            for reason, count in file.summary["skipped"].items():
                out[reason] = out.get(reason, 0) + count
        return out


def _project_of(root: SessionRoot, sf: SessionFile) -> str:
    if sf.project:
        return sf.project
    if root.kind == "project":
        return root.path.name
    return os.path.basename(sf.path)


def file_spent(path: str) -> tuple[float, float]:
    """``(tokens, cost)`` of one session file read now, whole (the header's and the usage
    screen's figure: :func:`..model.cost.spent`). Raises OSError."""
    row = read_row(path, None, UsageIndex(enabled=False))
    return spent(row.summary_dict()["byModel"].values())


def load_usage(root: SessionRoot, *, cache_dir: str | os.PathLike | None = None, use_cache: bool = True,
               progress: Callable[[int, int], None] | None = None,
               files: list[SessionFile] | None = None, parallel: bool = True) -> StoreUsage:
    """The usage of every session file under ``root``: the usage index read and brought up
    to date. A file that only grew is read on from its kept state; many files to read whole
    (a cold index) are read by the listing's worker processes, which make their listing
    rows from the same read (kept in the listing index too: :func:`_read_with_listing`)."""
    index = UsageIndex(cache_dir, enabled=use_cache)
    files = find_session_files(root) if files is None else files
    out = StoreUsage()
    rows: dict[str, usage_file.Row] = {}
    whole: list[tuple[SessionFile, os.stat_result]] = []
    grown: list[tuple[str, usage_file.Row]] = []
    for sf in files:
        try:
            st = os.stat(sf.path)
        except OSError:
            out.unreadable += 1
            continue
        prev = index.rows.get(sf.path)
        if prev is not None and (prev.dev, prev.ino, prev.size, prev.mtime_ns) == (
                st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns):
            rows[sf.path] = prev
        elif prev is not None and prev.dev == st.st_dev and prev.ino == st.st_ino and st.st_size > prev.size:
            grown.append((sf.path, prev))
        else:
            whole.append((sf, st))
    workers = min(4, os.cpu_count() or 1)
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        if progress is not None and (done % 16 == 0 or done == len(whole) + len(grown)):
            progress(done, len(whole) + len(grown))

    if parallel and workers > 1 and len(whole) >= USAGE_MIN_FILES and sum(
            st.st_size for _, st in whole) >= USAGE_MIN_BYTES:
        got = _read_with_listing(whole, index, workers, cache_dir, use_cache)
    else:
        got = ((sf.path, read_row_or_none(sf.path, None, index)) for sf, _ in whole)
    for path, row in (*((path, read_row_or_none(path, prev, index)) for path, prev in grown), *got):
        tick()
        if row is None:
            out.unreadable += 1
        else:
            rows[path] = row
            out.read += 1
    for sf in files:
        row = rows.get(sf.path)
        if row is None:
            continue
        summary = row.summary_dict()
        out.files.append(FileUsage(sf.path, _project_of(root, sf), sf.kind, session_id_of(sf.path),
                                   summary.get("id"), summary.get("name"), summary, row.keys, row.columns))
    if out.read or len(rows) != len(index.rows):
        index.save([rows[file.path] for file in out.files])
    return out


def _read_with_listing(whole: list[tuple[SessionFile, os.stat_result]], index: UsageIndex, workers: int,
                       cache_dir: str | os.PathLike | None, use_cache: bool):
    """``(path, usage row or None when unreadable)`` of files read whole by the listing's
    worker processes (:func:`.listing_parallel.scan_parallel`), as they come. Their listing
    rows, made from the same read, are put in the listing index (in ``cache_dir``, when
    ``use_cache``) where its rows of those files are not of them as they are now."""
    from .listing_index import SessionIndex
    from .listing_parallel import scan_parallel

    listing = SessionIndex(cache_dir) if use_cache else None
    try:
        for rec, row in scan_parallel([(sf, None, st) for sf, st in whole], workers, index):
            if listing is not None:
                listing.put_changed(rec)
            yield rec.path, row
    finally:
        if listing is not None:
            listing.save()


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
        self._offsets: dict[int, int | None] = {}  # UTC day -> the zone's offset all day (None: it changes)
        self._names: dict[int, str] = {}  # days since 1970 -> "YYYY-MM-DD"

    def __call__(self, ms: float) -> str:
        return self.quarter(int(ms // QUARTER_MS))

    def _offset(self, seconds: int) -> int:
        if self._zone is None:
            return time.localtime(seconds).tm_gmtoff
        return int(datetime.fromtimestamp(seconds, self._zone).utcoffset().total_seconds())

    def quarter(self, quarter: int) -> str:
        """The day of quarter hour ``quarter`` since 1970 (every zone's days start on one)."""
        day = self._cache.get(quarter)
        if day is not None:
            return day
        seconds = quarter * (QUARTER_MS // 1000)
        utc_day = seconds // 86400
        try:
            if utc_day not in self._offsets:  # (the zone's offset, when one offset holds all that day)
                first, last = self._offset(utc_day * 86400), self._offset(utc_day * 86400 + 86399)
                self._offsets[utc_day] = first if first == last else None
            offset = self._offsets[utc_day]
            if offset is None:
                offset = self._offset(seconds)
            local_day = (seconds + offset) // 86400
            day = self._names.get(local_day)
            if day is None:
                day = self._names[local_day] = (date(1970, 1, 1) + timedelta(days=local_day)).isoformat()
        except (OverflowError, OSError, ValueError):
            day = "1970-01-01" if seconds < 0 else "9999-12-31"
        self._cache[quarter] = day
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
        sums = self.models.get(model)
        if sums is None:
            sums = self.models[model] = [0, 0, 0, 0, 0.0]
        sums[0] += inp
        sums[1] += out
        sums[2] += cw
        sums[3] += cr
        sums[4] += cost

    def fields(self) -> dict:
        return {"inputTokens": _num(self.input), "outputTokens": _num(self.output),
                "cacheCreationTokens": _num(self.cache_write), "cacheReadTokens": _num(self.cache_read),
                "totalCost": self.cost}

    def models_fields(self) -> dict:
        return {"modelsUsed": list(self.models),
                "modelBreakdowns": [{"modelName": name, "inputTokens": _num(sums[0]), "outputTokens": _num(sums[1]),
                                     "cacheCreationTokens": _num(sums[2]), "cacheReadTokens": _num(sums[3]),
                                     "cost": sums[4]}
                                    for name, sums in self.models.items()]}

    def extras(self) -> dict:
        tokens = self.input + self.output + self.cache_write + self.cache_read
        return {"totalTokens": _num(tokens),
                "cacheHitRatio": cache_hit_ratio(self.input, self.cache_read, self.cache_write)}


def _num(value):
    """A count as JSON writes it: whole numbers without a fraction."""
    return int(value) if type(value) is float and value.is_integer() and abs(value) < 2 ** 53 else value


def _week_of(day: str) -> str:
    the_day = date(int(day[:4]), int(day[5:7]), int(day[8:10]))
    return (the_day - timedelta(days=the_day.weekday())).isoformat()


def _session_extras(files: list[FileUsage]) -> dict:
    """pitui's own figures of some session files, summed."""
    tokens = ab_cost = ab_tokens = gone_cost = gone_tokens = model_ms = tool_ms = 0.0
    tools: dict[str, dict] = {}
    skipped = 0
    costs = []
    for file in files:
        summary = file.summary
        file_tokens, file_cost = spent(summary["byModel"].values())
        tokens += file_tokens
        costs.append(file_cost)
        ab_tokens += summary["abandoned"][0]
        ab_cost += summary["abandoned"][1]
        model_ms += summary["modelMs"]
        tool_ms += summary["toolMs"]
        skipped += sum(summary["skipped"].values())
        for kind, (calls, errors) in summary["tools"].items():
            sums = tools.get(kind)
            if sums is None:
                sums = tools[kind] = {"calls": 0, "errors": 0}
            sums["calls"] += calls
            sums["errors"] += errors
        gone = file.gone()
        gone_tokens += gone[0]
        gone_cost += gone[1]
    return {"sessionCost": math.fsum(costs), "sessionTokens": _num(tokens), "abandonedCost": ab_cost,
            "abandonedTokens": _num(ab_tokens), "subagentGoneCost": gone_cost, "subagentGoneTokens": _num(gone_tokens),
            "modelMs": model_ms, "toolMs": tool_ms,
            "tools": dict(sorted(tools.items(), key=lambda kv: (-kv[1]["calls"], kv[0]))), "skipped": skipped}


def _transcript_exists(recorded: list, session_path: str) -> bool:
    return any(os.path.isfile(candidate) for path in recorded
               for candidate in transcript_candidates(path, session_path))


def report(usage: StoreUsage, by: str = "daily", *, tz: str | None = None, since: str | None = None,
           until: str | None = None, project: str | None = None, sort: str | None = None,
           order: str = "desc") -> dict | list:
    """A report as ``@ccusage/pi``'s JSON (``[]`` when nothing was used), pitui's fields
    after theirs. ``since`` / ``until``: ``YYYYMMDD`` (:func:`normal_date`), days in ``tz``;
    ``project``: only project folders whose name holds it (case-insensitive); ``sort``
    (session rows): ``cost``, ``tokens`` or ``date`` (the default, as ccusage)."""
    return reports(usage, (by,), tz=tz, since=since, until=until, project=project, sort=sort, order=order)[by]


_ROW_NAME = {"daily": "date", "weekly": "week", "monthly": "month", "project": "project", "model": "model"}
_REPORT_KEY = {"daily": "daily", "weekly": "weekly", "monthly": "monthly", "session": "sessions",
               "project": "projects", "model": "models"}


def reports(usage: StoreUsage, bys: tuple[str, ...], *, tz: str | None = None, since: str | None = None,
            until: str | None = None, project: str | None = None, sort: str | None = None,
            order: str = "desc") -> dict[str, dict | list]:
    """:func:`report` of each of ``bys`` (same arguments), by report name, from one pass over
    the store's sums."""
    day_of = DayOf(tz)
    groups: dict[str, dict[object, _Sum]] = {by: {} for by in bys}
    dated = [by for by in bys if by != "session"]
    sessions = groups.get("session")
    dated_files: list[FileUsage] = []  # (the files with usage in the period)
    want = project.casefold() if project else None
    for file, buckets, last in usage.kept():
        if want is not None and want not in file.project.casefold():
            continue
        used = False
        for quarter, model, inp, out, cw, cr, cost in buckets:
            name = model_name(model)
            if sessions is not None:
                group = sessions.get((file.project, file.session_id))
                if group is None:
                    group = sessions[(file.project, file.session_id)] = _Sum()
                group.add(name, inp, out, cw, cr, cost)
                if not group.files or group.files[-1] is not file:
                    group.files.append(file)
                    if last > group.last_ts:
                        group.last_ts = last
            if not dated:
                continue
            day = day_of.quarter(quarter)
            if since is not None or until is not None:
                d8 = day.replace("-", "")
                if (since is not None and d8 < since) or (until is not None and d8 > until):
                    continue
            for by in dated:
                group_key = (day if by == "daily" else day[:7] if by == "monthly" else _week_of(day)
                             if by == "weekly" else file.project if by == "project" else name)
                group = groups[by].get(group_key)
                if group is None:
                    group = groups[by][group_key] = _Sum()
                group.add(name, inp, out, cw, cr, cost)
            used = True
        if used:
            dated_files.append(file)
    skipped = usage.skipped()
    dated_extras = None
    out: dict[str, dict | list] = {}
    for by in bys:
        rows = []
        if by == "session":
            for (proj, sid), group in groups[by].items():
                last = day_of_ts(group.last_ts, day_of)
                d8 = last.replace("-", "")
                if (since is not None and d8 < since) or (until is not None and d8 > until):
                    continue
                first = group.files[0]
                extras = _session_extras(group.files)
                rows.append({"sessionId": sid, "projectPath": proj, "source": "pi-agent", **group.fields(),
                             "lastActivity": last, **group.models_fields(), **group.extras(),
                             "path": first.path, "id": first.header_id, "name": first.name, **extras,
                             "_files": group.files})
            key = {"cost": lambda row: row["totalCost"],
                   "tokens": lambda row: row["totalTokens"]}.get(sort or "date")
            if key is None:
                rows.sort(key=lambda row: row["lastActivity"], reverse=order == "desc")
            else:
                rows.sort(key=key, reverse=True)
            used_files = [file for row in rows for file in row.pop("_files")]
            extras = _session_extras(used_files) if rows else None
        else:
            name = _ROW_NAME[by]
            for group_key, group in groups[by].items():
                rows.append({name: group_key, "source": "pi-agent", **group.fields(), **group.models_fields(),
                             **group.extras()})
            if by in ("project", "model"):
                rows.sort(key=lambda row: (-row["totalCost"], row[name]))
            else:
                rows.sort(key=lambda row: row[name], reverse=order == "desc")
            if by == "model":
                for row in rows:
                    del row["modelsUsed"], row["modelBreakdowns"]
            used_files = dated_files
            if rows and dated_extras is None:
                dated_extras = _session_extras(dated_files)
            extras = dated_extras
        if not rows:
            out[by] = []
            continue
        totals = _Sum()
        for row in rows:
            totals.input += row["inputTokens"]
            totals.output += row["outputTokens"]
            totals.cache_write += row["cacheCreationTokens"]
            totals.cache_read += row["cacheReadTokens"]
            totals.cost += row["totalCost"]
        out[by] = {_REPORT_KEY[by]: rows, "totals": {**totals.fields(), **totals.extras(), **extras,
                                                     "sessions": len({file.path for file in used_files}),
                                                     "skippedReasons": dict(sorted(skipped.items()))}}
    return out


def day_of_ts(ts: str, day_of: DayOf) -> str:
    """The day of an ISO timestamp ccusage accepted (its milliseconds worked out again)."""
    from .usage_scan import ccusage_timestamp

    ms = ccusage_timestamp(ts)
    return day_of(ms) if ms is not None else ""


@dataclass
class Overview:
    """What the usage screen shows of a period: spend per day (every day of the period, zero
    where nothing was spent), the totals (:func:`report`'s, pitui's figures among them), by
    model and by project (costliest first), the costliest sessions."""

    days: list[tuple[str, float]]
    totals: dict
    models: list[dict]
    projects: list[dict]
    sessions: list[dict]
    projects_all: list[str]  # every project folder with usage (the filter's choices)

    def to_json(self) -> dict:
        return {"days": [list(day) for day in self.days], "totals": self.totals, "models": self.models,
                "projects": self.projects, "sessions": self.sessions, "projects_all": self.projects_all}

    @classmethod
    def from_json(cls, data: dict) -> "Overview":
        """(``data`` checked by :mod:`.usage_quick`.)"""
        return cls([(day, cost) for day, cost in data["days"]], data["totals"], data["models"], data["projects"],
                   data["sessions"], data["projects_all"])


def overview(usage: StoreUsage, *, since: str | None, until: str | None, project: str | None = None,
             tz: str | None = None, top: int = 50) -> Overview:
    """The usage screen's figures (``since`` / ``until``: ``YYYYMMDD``; None: from the first
    day spent / to the last)."""
    got = reports(usage, ("daily", "model", "project", "session"), tz=tz, since=since, until=until, project=project,
                  sort="cost", order="asc")
    daily = got["daily"]
    if not daily:
        return Overview([], {}, [], [], [], sorted({file.project for file in usage.files}))
    spent = {row["date"]: row["totalCost"] for row in daily["daily"]}
    first = since or min(spent).replace("-", "")
    last = until or max(spent).replace("-", "")
    day = date(int(first[:4]), int(first[4:6]), int(first[6:]))
    end = date(int(last[:4]), int(last[4:6]), int(last[6:]))
    days = []
    while day <= end:
        key = day.isoformat()
        days.append((key, spent.get(key, 0.0)))
        day += timedelta(days=1)
    models, projects, sessions = got["model"], got["project"], got["session"]
    return Overview(days, daily["totals"], models["models"] if models else [],
                    projects["projects"] if projects else [], sessions["sessions"][:top] if sessions else [],
                    sorted({file.project for file in usage.files}))
