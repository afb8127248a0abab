"""One session file's usage, read line by line and read on from where it stopped when it grows.

Two readings come out of one pass:

- **ccusage's** (the columns of :class:`Compat`): every assistant message that
  ``@ccusage/pi`` counts, as it counts it (its schema: the entry's ``timestamp`` an ISO
  string of its exact form, ``type`` absent or ``message``, ``message.model`` a string when
  present, the usage's numbers as :func:`..model.cost.usage_figures` reads them with a cost
  object), with the timestamp and total tokens it dedupes by. Store-wide sums dedupe these
  across files (:mod:`.usage`).
- **pitui's own**, of this file alone: what the session's stats screen counts (every
  entry's :func:`..model.cost.entry_usages`, an id used again counting once, the later
  entry winning, as :func:`..model.stats.session_stats`), the part of it on branches off
  the current path (abandoned tries), subagent runs' usage with where their transcripts
  may be, time the model took against time tools took, tool calls by kind and their
  errors; and the assistant messages the compatible reading refused, by reason.

Each line is decoded once by msgspec into the few fields counted (:data:`_LINE_DECODE`, the
listing's wider decoder: an entry's type, id, parent, time, its message's role, usage,
model, tool name and error, an assistant's tool calls), the rest of it checked to be JSON
and skipped, nothing made of it; a line msgspec refuses (among them a message of a role Pi
does not write, or an assistant's content that is not a list of objects), or one that needs
more (a subagent's result: its runs), is parsed whole (:meth:`FileScan._parsed`, JSON.parse's
reading where orjson is stricter) and read the same way from the object. The listing's scan
gives its lines to :meth:`FileScan.decoded` and :meth:`FileScan.parsed_object` as it reads
them (:mod:`.usage_read`): one read for both. A line that is not JSON counts nothing, as Pi
skips it. Lines are split as Node's ``readline`` splits them (``\\n``, ``\\r\\n`` or a
lone ``\\r``) and trimmed, as ccusage reads them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import eq

import msgspec
import orjson

from .listing_decoder import USAGE_ENTRY_DECODE
from ..model.cost import (MAX_COST, MAX_TOKENS, TOOLS_KEY, USAGE_TYPES, Figures, assistant_key, entry_usages,
                          model_key, text_or_none,
                          usage_figures)
from ..model.parts import run_transcripts
from ..model.tool_kinds import TOOL_KINDS, tool_kind, tool_name
from ..read.lines import parse_line
from ..timeutil import iso_to_ms

__all__ = ["FileScan", "Compat", "scan_bytes", "ccusage_timestamp", "session_id_of", "dedupe_key", "QUARTER_MS"]

#: a quarter of an hour: every time zone's offset is a whole number of them (since 1900)
QUARTER_MS = 900_000

# ccusage's timestamp: YYYY-MM-DDTHH:MM:SS[.mmm] then Z or ±HH:MM, nothing around it
_ISO = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{3})?(?:Z|[+-][0-9]{2}:[0-9]{2})")
# JavaScript's String.prototype.trim: white space and line ends, U+FEFF among them
_JS_SPACE = "\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
            "\u2028\u2029\u202f\u205f\u3000\ufeff"


#: A line to the fields counted, the listing's decoder (an error where it is not JSON to
#: msgspec or not an object of that shape: the line is then parsed whole, :meth:`FileScan._parsed`).
_LINE_DECODE = USAGE_ENTRY_DECODE
_UNSET = msgspec.UNSET
_INT = frozenset({int})
_DECODE_ERRORS = (msgspec.DecodeError, msgspec.ValidationError)


def _given(value):
    """A decoded field's value as ``dict.get`` gives it (absent: None)."""
    return None if value is _UNSET else value


def _figures(usage, _int=int, _float=float, _dict=dict, _max_tokens=MAX_TOKENS, _max_cost=MAX_COST,
             _new=tuple.__new__) -> Figures | str:
    """:func:`..model.cost.usage_figures`, the shape Pi writes (every count a whole number,
    the cost an object whose total is a number, all in range) read at once. (Run for every
    usage of a store: names it reads are bound as defaults.)"""
    if type(usage) is _dict:
        get = usage.get
        inp, out, cache_read, cache_write, total = (get("input"), get("output"), get("cacheRead"),
                                                    get("cacheWrite"), get("totalTokens"))
        cost = get("cost")
        if (type(inp) is _int and type(out) is _int and type(cache_read) is _int and type(cache_write) is _int
                and type(total) is _int and type(cost) is _dict):
            spent = cost.get("total", 0)
            if ((type(spent) is _float or type(spent) is _int) and 0 <= spent <= _max_cost
                    and 0 <= inp <= _max_tokens and 0 <= out <= _max_tokens and 0 <= cache_read <= _max_tokens
                    and 0 <= cache_write <= _max_tokens and 0 <= total <= _max_tokens):
                return _new(Figures, (inp, out, cache_read, cache_write, total, spent, True))
    return usage_figures(usage)


_DAY_MS: dict[str, int] = {}  # "YYYY-MM-DD" -> its start in epoch ms (UTC)


def _canonical_ms(value: str) -> int | None:
    """Epoch ms of ``YYYY-MM-DDTHH:MM:SS.mmmZ`` (as Pi writes times) already matched by
    :data:`_ISO`, at the cost of a few slices; None for any other form."""
    if len(value) != 24 or value[23] != "Z":
        return None
    day = _DAY_MS.get(value[:10])
    if day is None:
        ms = iso_to_ms(value[:10] + "T00:00:00.000Z")
        if math.isnan(ms) or len(_DAY_MS) > 100_000:
            return None
        day = _DAY_MS[value[:10]] = int(ms)
    hours, minutes, seconds = int(value[11:13]), int(value[14:16]), int(value[17:19])
    if hours > 23 or minutes > 59 or seconds > 59:
        return None  # (ISO's 24:00 and leap seconds: the general reading decides)
    return day + ((hours * 60 + minutes) * 60 + seconds) * 1000 + int(value[20:23])


# Pi's times of one minute share their first 17 characters ("2026-11-20T10:00:"): each such
# start met, with the minute's epoch ms; the seconds and milliseconds after it read by
# lookup, which also checks they are digits in range. A minute not met yet whose day was
# (a day is kept once a time matched whole by _ISO read it) is read by lookups too.
_MINUTE_MS: dict[str, int] = {}
_HOUR_MS = {f"{hour:02d}": hour * 3_600_000 for hour in range(24)}
_MINUTE_OF_HOUR_MS = {f"{minute:02d}": minute * 60_000 for minute in range(60)}
_SECOND_MS = {f"{second:02d}": second * 1000 for second in range(60)}
_MILLIS = {f"{millis:03d}": millis for millis in range(1000)}


def _known_minute_ms(value: str) -> int | None:
    """Epoch ms of ``YYYY-MM-DDTHH:MM:SS.mmmZ`` whose minute or day was met before (None:
    neither, or not of that form)."""
    if len(value) == 24 and value[19] == "." and value[23] == "Z":
        seconds, millis = _SECOND_MS.get(value[17:19]), _MILLIS.get(value[20:23])
        if seconds is None or millis is None:
            return None
        base = _MINUTE_MS.get(value[:17])
        if base is None:
            day = _DAY_MS.get(value[:10])
            if day is None or value[10] != "T" or value[13] != ":" or value[16] != ":":
                return None
            hour, minute = _HOUR_MS.get(value[11:13]), _MINUTE_OF_HOUR_MS.get(value[14:16])
            if hour is None or minute is None:
                return None
            base = day + hour + minute
            if len(_MINUTE_MS) < 200_000:
                _MINUTE_MS[value[:17]] = base
        return base + seconds + millis
    return None


def _iso_ms(value: str) -> int | None:
    """Epoch ms of a time that matches :data:`_ISO`, in Pi's form (else None); its minute
    kept for :func:`_known_minute_ms`."""
    ms = _canonical_ms(value)
    if ms is not None and len(_MINUTE_MS) < 200_000:
        _MINUTE_MS[value[:17]] = ms - _SECOND_MS[value[17:19]] - int(value[20:23])
    return ms


def ccusage_timestamp(value) -> float | None:
    """Epoch milliseconds of an entry's ``timestamp`` when ccusage accepts it (its exact
    ISO form, a real date), else None."""
    if type(value) is not str:
        return None
    ms = _known_minute_ms(value)
    if ms is not None:
        return ms
    if _ISO.fullmatch(value) is None:
        return None
    ms = _iso_ms(value)
    if ms is not None:
        return ms
    ms = iso_to_ms(value)
    return None if math.isnan(ms) else ms


def _entry_ms(value) -> int | float | None:
    """Epoch milliseconds of any entry's ``timestamp`` the core reads (None: none)."""
    if type(value) is not str:
        return None
    ms = _known_minute_ms(value)
    if ms is not None:
        return ms
    if _ISO.fullmatch(value) is not None:
        ms = _iso_ms(value)
        if ms is not None:
            return ms
    ms = iso_to_ms(value)
    return None if math.isnan(ms) else ms


def dedupe_key(ts: str, total) -> str:
    """What ccusage counts a message once by, ``pi:<timestamp>:<total tokens>``, as one
    string: the timestamp as written, the total as JavaScript's ``String`` writes a number
    (a whole float without its ``.0``)."""
    if type(total) is float and total.is_integer():
        total = int(total)
    return f"{ts} {total!r}"


def session_id_of(path: str) -> str:
    """ccusage's session id: the file name without ``.jsonl``, after its first ``_``."""
    name = path.rsplit("/", 1)[-1]
    if name.endswith(".jsonl"):
        name = name[:-6]
    underscore = name.find("_")
    return name[underscore + 1:] if underscore >= 0 else name


@dataclass
class Compat:
    """The messages ccusage counts in one file, in file order, as columns."""

    ts: list = field(default_factory=list)  # the entry's timestamp, as written (the dedupe key)
    ms: list = field(default_factory=list)  # its epoch milliseconds
    total: list = field(default_factory=list)  # total tokens (the dedupe key)
    input: list = field(default_factory=list)
    output: list = field(default_factory=list)
    cache_read: list = field(default_factory=list)
    cache_write: list = field(default_factory=list)
    cost: list = field(default_factory=list)
    model: list = field(default_factory=list)  # message.model, or None

    COLUMNS = ("ts", "ms", "total", "input", "output", "cache_read", "cache_write", "cost", "model")

    def add(self, ts: str, ms: float, figures: Figures, model) -> None:
        self.ts.append(ts)
        self.ms.append(ms)
        self.total.append(figures.total_tokens)
        self.input.append(figures.input)
        self.output.append(figures.output)
        self.cache_read.append(figures.cache_read)
        self.cache_write.append(figures.cache_write)
        self.cost.append(figures.cost)
        self.model.append(model)

    def __len__(self) -> int:
        return len(self.ts)

    def to_json(self) -> dict:
        return {name: getattr(self, name) for name in self.COLUMNS}

    def keys_json(self) -> dict:
        """What a report reads of every file: each message's dedupe key (:func:`dedupe_key`),
        :meth:`buckets`, the latest timestamp (``last``) and whether no message is there
        twice (``unique``)."""
        if set(map(type, self.total)) <= _INT:  # (Pi's whole counts: each key made at C speed)
            keys = list(map("{} {}".format, self.ts, self.total))
        else:
            keys = list(map(dedupe_key, self.ts, self.total))
        return {"keys": keys, "buckets": self.buckets(), "last": max(self.ts, default=""),
                "unique": len(set(keys)) == len(keys)}

    @classmethod
    def from_json(cls, data: dict) -> "Compat":
        return cls(**{name: data[name] for name in cls.COLUMNS})

    def buckets(self, keep: list[bool] | None = None) -> list[list]:
        """The messages summed by quarter hour (every time zone's day starts on one) and
        model: ``[quarter, model, input, output, cacheWrite, cacheRead, cost]``, in the
        order first met; ``keep``: only those messages. A report reads these, not each
        message, for a file none of whose messages it met before."""
        out: dict[tuple, list] = {}
        rows = zip(self.ms, self.model, self.input, self.output, self.cache_write, self.cache_read, self.cost)
        if keep is not None:
            rows = compress(rows, keep)
        for ms, model, inp, output, cache_write, cache_read, cost in rows:
            key = (int(ms // QUARTER_MS), model)
            bucket = out.get(key)
            if bucket is None:
                bucket = out[key] = [key[0], model, 0, 0, 0, 0, 0.0]
            bucket[2] += inp
            bucket[3] += output
            bucket[4] += cache_write
            bucket[5] += cache_read
            bucket[6] += cost
        return list(out.values())


@dataclass
class FileScan:
    """What one file's lines said so far, kept whole so a grown file is read on from
    :attr:`offset` (its summary is :meth:`summary`)."""

    offset: int = 0  # bytes read: the end of the last whole line
    header_id: str | None = None
    name: str | None = None
    compat: Compat = field(default_factory=Compat)
    skipped: dict = field(default_factory=dict)  # reason -> assistant messages ccusage's reading refused
    # the tree: every entry with an id, in file order
    ids: list = field(default_factory=list)
    parents: list = field(default_factory=list)  # parentId, or None
    times: list = field(default_factory=list)  # epoch ms, or None
    roles: list = field(default_factory=list)  # "a" assistant, "t" tool result, "" other
    # pitui's own usages: [entry index, key, input, output, cacheRead, cacheWrite, cost, calls]
    usages: list = field(default_factory=list)
    # subagent runs with a usage: [entry index, [transcripts as recorded], tokens, cost]
    runs: list = field(default_factory=list)
    tools: dict = field(default_factory=dict)  # kind -> [calls, errors]

    STATE = ("offset", "header_id", "name", "skipped", "ids", "parents", "times", "roles", "usages", "runs", "tools")

    def to_state(self) -> dict:
        state = {name: getattr(self, name) for name in self.STATE}
        state["compat"] = self.compat.to_json()
        return state

    @classmethod
    def from_state(cls, state: dict) -> "FileScan":
        scan = cls(**{name: state[name] for name in cls.STATE})
        scan.compat = Compat.from_json(state["compat"])
        return scan

    # ------------------------------------------------------------------ reading

    def _skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def _entry(self, eid, pid, ts, role: str) -> int:
        self.ids.append(eid)
        self.parents.append(pid if type(pid) is str else None)
        self.times.append(_entry_ms(ts))
        self.roles.append(role)
        return len(self.ids) - 1

    def _own(self, index: int, key: str, figures, calls: int = 1) -> None:
        if type(figures) is str:
            return  # (the assistant messages' are counted in ``skipped``, by the compatible reading)
        self.usages.append([index, key, figures.input, figures.output, figures.cache_read, figures.cache_write,
                            figures.cost, calls])

    def _tool(self, name: str, error: bool, call: bool) -> None:
        kind = tool_kind(name)
        counts = self.tools.get(kind)
        if counts is None:
            counts = self.tools[kind] = [0, 0]
        if call:
            counts[0] += 1
        if error:
            counts[1] += 1

    def line(self, data: bytes) -> None:
        """One line (without its line end): decoded into the fields counted, else (a line
        msgspec refuses, or one that needs more: a subagent's result, a name of another type)
        parsed whole, as :meth:`_object` reads it."""
        try:
            entry = _LINE_DECODE(data)
        except _DECODE_ERRORS:
            return self._parsed(data)
        self.decoded(entry, data)

    def decoded(self, entry, data) -> None:
        """A line (``data``: its bytes, or a view of them) as the line decoder read it
        (``entry``: :data:`.listing_decoder.USAGE_ENTRY_DECODE`'s, the listing's reading of the same
        line); parsed whole where it needs more (a subagent's result, tool calls that are
        not all objects, a name of another type). (Run for every line of a store: its
        steps are written out here rather than called.)"""
        etype = entry.type
        if etype is _UNSET:
            etype = None
        if etype == "session":
            if self.header_id is None and not self.ids and type(entry.id) is str:
                self.header_id = entry.id
            return
        message = entry.message
        role = None
        if message is not None:
            role = message.role
            if role is _UNSET:
                role = None
        names = ()
        is_message = etype == "message"
        assistant = role == "assistant" and (etype is None or is_message)
        result = is_message and role == "toolResult"
        if result:
            tool = message.toolName
            if tool == "subagent" or not (tool is _UNSET or tool is None or type(tool) is str):
                return self._parsed(bytes(data))  # (its runs read from its details; a name str() makes)
        elif assistant:
            blocks = message.content  # (decoded with the line: a list of objects, else the line is parsed)
            if blocks is not _UNSET:
                names = []
                for block in blocks:
                    if block.type == "toolCall":
                        name = block.name
                        if name is not None and type(name) is not str:
                            return self._parsed(bytes(data))
                        names.append(name or "tool")
        elif etype == "session_info" and type(entry.name) is str:
            self.name = entry.name.strip() or None
        eid = entry.id
        index = -1
        ts = entry.timestamp
        if ts is _UNSET:
            ts = None
        ms = None  # (the time's epoch ms, where it is in Pi's form and its minute or day was met before)
        if type(eid) is str:  # (an entry of the tree: self._entry, written out)
            ids = self.ids
            ids.append(eid)
            pid = entry.parentId
            self.parents.append(pid if type(pid) is str else None)
            if type(ts) is str:
                ms = _known_minute_ms(ts)
            self.times.append(ms if ms is not None else _entry_ms(ts))
            self.roles.append("a" if is_message and role == "assistant" else "t" if result else "")
            index = len(ids) - 1
        if assistant:
            model, provider, response_model = message.model, message.provider, message.responseModel
            key_model = (response_model if type(response_model) is str else None) or (
                model if type(model) is str else None)
            self._counted(names, message.usage is not _UNSET, _given(message.usage), is_message, ts,
                          f"{provider if type(provider) is str else None}/{key_model}",  # (model_key)
                          model is not _UNSET, _given(model),
                          entry.type is not _UNSET and type(entry.type) is not str, index, ms)
        elif result:  # (self._tool, written out)
            name = str(message.toolName or "tool")
            kind = TOOL_KINDS.get(name, name)
            counts = self.tools.get(kind)
            if counts is None:
                counts = self.tools[kind] = [0, 0]
            if message.isError is True:
                counts[1] += 1
            if type(message.usage) is dict:
                self._own(index, TOOLS_KEY, _figures(message.usage), 1)
        elif not is_message:
            if etype == "usage" and entry.usage is not _UNSET:
                self._own(index, model_key(text_or_none(entry.provider), text_or_none(entry.model)),
                          usage_figures(_given(entry.usage)), 1)
            elif type(etype) is str and etype in USAGE_TYPES and type(entry.usage) is dict:
                self._own(index, TOOLS_KEY, usage_figures(entry.usage), 1)

    def parsed_object(self, obj: dict) -> None:
        """A line parsed whole (by the listing, as ``JSON.parse`` reads it) into the object
        ``obj``: read as :meth:`_parsed` reads it."""
        self._object(obj)

    def _parsed(self, data: bytes) -> None:
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            text = data.decode("utf-8", "replace").strip(_JS_SPACE)
            if not text:
                return
            obj = parse_line(text.encode("utf-8", "surrogatepass")).value
        if type(obj) is not dict:
            return
        self._object(obj)

    def _object(self, entry: dict) -> None:
        etype = entry.get("type")
        if etype == "session":
            if self.header_id is None and not self.ids and type(entry.get("id")) is str:
                self.header_id = entry["id"]
            return
        if etype == "session_info" and type(entry.get("name")) is str:
            self.name = entry["name"].strip() or None
        eid = entry.get("id")
        message = entry.get("message")
        role = message.get("role") if type(message) is dict else None
        index = -1
        if type(eid) is str:
            index = self._entry(eid, entry.get("parentId"), entry.get("timestamp"),
                                "a" if etype == "message" and role == "assistant" else
                                "t" if etype == "message" and role == "toolResult" else "")
        if role == "assistant" and (etype is None or etype == "message"):
            self._assistant(entry, message, index)
        elif etype == "message" and role == "toolResult":
            self._tool(tool_name(None, message), message.get("isError") is True, False)
            self._runs(message, index)
            for key, figures, calls in entry_usages(entry):
                self._own(index, key, figures, calls)
        elif etype != "message":
            for key, figures, calls in entry_usages(entry):
                self._own(index, key, figures, calls)

    def _assistant(self, entry: dict, message: dict, index: int) -> None:
        content = message.get("content")
        names = [tool_name(block, None) for block in content
                 if type(block) is dict and block.get("type") == "toolCall"] if type(content) is list else []
        odd_types = (("type" in entry and type(entry["type"]) is not str)
                     or ("role" in message and type(message["role"]) is not str))
        self._counted(names, "usage" in message, message.get("usage"), entry.get("type") == "message",
                      entry.get("timestamp"), assistant_key(message), "model" in message, message.get("model"),
                      odd_types, index)

    def _counted(self, tools: list[str], has_usage: bool, usage, is_message: bool, ts, key: str, has_model: bool,
                 model, odd_types: bool, index: int, ms: int | None = None) -> None:
        """An assistant message: its tool calls (by name), its usage in pitui's own figures
        (under ``key``, when its entry is a ``message``) and, where ccusage's schema takes
        it, in ccusage's (``odd_types``: its entry's ``type`` or its ``role`` is there and
        not a string)."""
        if tools:
            calls_by_kind = self.tools
            for name in tools:  # (self._tool, written out)
                kind = TOOL_KINDS.get(name, name)
                counts = calls_by_kind.get(kind)
                if counts is None:
                    counts = calls_by_kind[kind] = [0, 0]
                counts[0] += 1
        if not has_usage:
            return
        figures = _figures(usage)
        if type(figures) is str:
            self._skip(figures)
            return
        if is_message:  # (pitui's own reading: entry_usages' of an assistant message; self._own)
            self.usages.append([index, key, figures.input, figures.output, figures.cache_read, figures.cache_write,
                                figures.cost, 1])
        # ccusage's schema, beyond the usage's own numbers (``ms``: the time read already,
        # in Pi's form, which ccusage's takes)
        if ms is None:
            ms = ccusage_timestamp(ts)
        if ms is None:
            self._skip("timestamp is not an ISO time")
        elif not figures.strict:
            self._skip("a cost or count of another type")
        elif (model is not None or has_model) and type(model) is not str:
            self._skip("model is not a string")
        elif odd_types:
            self._skip("type is not a string")
        else:
            self.compat.add(ts, ms, figures, model)

    def _runs(self, message: dict, index: int) -> None:
        details = message.get("details")
        if (message.get("toolName") != "subagent" or type(details) is not dict
                or type(details.get("results")) is not list):
            return
        for run in details["results"]:
            if type(run) is not dict or type(run.get("usage")) is not dict:
                continue
            figures = usage_figures(run["usage"])
            if type(figures) is str:
                continue
            self.runs.append([index, [path for _what, path in run_transcripts(run)], str(run.get("model") or "?"),
                              figures.input, figures.output, figures.cache_read, figures.cache_write, figures.cost])

    # ------------------------------------------------------------------ the file's figures

    def summary(self) -> dict:
        """pitui's own figures of the file (JSON): ``byModel`` (key -> [input, output,
        cacheRead, cacheWrite, cost, calls]), ``abandoned`` ([tokens, cost] of usages off
        the current path), ``modelMs`` / ``toolMs``, ``tools``, ``runs``, ``skipped``."""
        count = len(self.ids)
        # (whole lists at C speed: an id used again maps to its later entry, as a dict made in
        # order keeps the last; a parent that is None or no entry's id is -1)
        index_of = dict(zip(self.ids, range(count)))
        live = list(map(eq, map(index_of.__getitem__, self.ids), range(count)))
        parent = list(map(index_of.get, self.parents, repeat(-1)))
        # the current path: from the last entry up (a cycle is walked once)
        on_path = bytearray(count)
        at = count - 1
        while 0 <= at and not on_path[at]:
            on_path[at] = 1
            up = parent[at]
            at = up if up != at else -1
        by_model: dict[str, list] = {}
        abandoned = [0.0, 0.0]
        for index, key, inp, out, cr, cw, cost, calls in self.usages:
            if index >= 0 and not live[index]:
                continue
            row = by_model.get(key)
            if row is None:
                row = by_model[key] = [0, 0, 0, 0, 0.0, 0]
            row[0] += inp
            row[1] += out
            row[2] += cr
            row[3] += cw
            row[4] += cost
            row[5] += calls
            if index >= 0 and not on_path[index]:
                abandoned[0] += inp + out + cr + cw
                abandoned[1] += cost
        model_ms = tool_ms = 0.0
        times = self.times
        for role, alive, up, at_time in zip(self.roles, live, parent, times):
            if not role or not alive or up < 0 or at_time is None:
                continue
            up_time = times[up]
            if up_time is None:
                continue
            took = at_time - up_time
            if took > 0:
                if role == "a":
                    model_ms += took
                else:
                    tool_ms += took
        by_model = {key: sums for key, sums in by_model.items()
                    if sums[4] > 0 or sums[0] + sums[1] + sums[2] + sums[3] > 0}
        runs = [run[1:] for run in self.runs if run[0] < 0 or live[run[0]]]
        return {"byModel": by_model, "abandoned": abandoned, "modelMs": model_ms, "toolMs": tool_ms,
                "tools": self.tools, "runs": runs, "skipped": self.skipped}


def scan_bytes(scan: FileScan, data, start: int, final: bool) -> None:
    """Read the lines of ``data`` (the file's bytes, or its mapping) from ``start`` on into
    ``scan``. ``final``: the last line counts even without its line end (the file is read
    to its end; :attr:`FileScan.offset` stays before such a line, to read it again when the
    file grows)."""
    pos = start
    end = len(data)
    find = data.find
    line = scan.line
    while pos < end:
        nl = find(b"\n", pos)
        if nl < 0:
            if final:
                _split_cr(line, bytes(data[pos:end]))
            break
        chunk = data[pos:nl]
        if b"\r" in chunk:
            _split_cr(line, bytes(chunk))
        else:
            line(bytes(chunk))
        pos = nl + 1
        scan.offset = pos


def _split_cr(line, chunk: bytes) -> None:
    """A line holding ``\\r``: readline's lines (a lone ``\\r`` ends a line too)."""
    for piece in chunk.split(b"\r"):
        if piece:
            line(piece)

