"""A session's rows matched against a query: whether the session is a result, and its hits,
each with a line of context.

Pi matches a query against a session's whole text (name, id, all user/assistant text joined,
cwd); pitui matches per row, and defines a session's result this way: **a session is a result
when every term matches at least one of its rows** (terms may be spread over different entries,
as in Pi); its hits are the rows matching *any* term, in file order. A regex, or a phrase, is
matched within one row (Pi would let a regex span two messages; pitui does not). Pi's fuzzy
fallback (query characters scattered in the name or cwd) is not done: every hit is a real
substring. pitui searches more than Pi does (tool calls and results, thinking, bash, summaries,
labels).

:func:`match_rows` matches the rows the index reads back from a file's chunks
(:mod:`.search_index`) and the rows of a whole file (:func:`_scan_file`, the search without
the index, and the index's fallback for a file it cannot use) alike: the same hits in the
same order. A hit's line of context shows control characters as visible stand-ins
(:func:`_shown`).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Iterator

from ..read.lines import open_regular
from ..text import shown_as_is, visible
from .session_info import SessionInfo, utf8_path
from .search_query import Query, _kind_filter
from .search_rows import _FileState, _file_rows


MAX_HITS = 100  # hits kept per session by default (counted one past that)
BIG_SESSION = 8 * 1024 * 1024  # bytes of a session file from which search's first_hits apply (_first_hits)
CONTEXT_WIDTH = 160  # characters of context around a hit
CONTEXT_BEFORE = 48  # ... of which at most this many before the match
_STOP_EVERY = 64  # rows matched between two polls of should_stop


@dataclass(frozen=True, slots=True)
class Hit:
    """One matching row: which entry, what kind of text, and a line of context."""

    entry_id: str | None  # None for header rows (cwd, id)
    entry_index: int  # -1 for header rows
    kind: str
    context: str  # one line (no newlines), cut around the first match
    spans: tuple[tuple[int, int], ...]  # matches in ``context``: (start, end), sorted
    timestamp: str | None = None  # the entry's (the header's for header rows), as written
    repeats: int = 1  # rows of this kind with this same line folded into this hit (``Query.fold``)

    @property
    def span(self) -> tuple[int, int]:
        return self.spans[0] if self.spans else (0, 0)

    def to_json(self) -> dict:
        return {
            "entryId": self.entry_id,
            "entryIndex": self.entry_index,
            "kind": self.kind,
            "context": self.context,
            "spans": [list(span) for span in self.spans],
            "timestamp": self.timestamp,
        }


@dataclass
class SessionHits:
    """The hits of one session, with what the result list shows about the session."""

    path: str
    session_id: str | None
    name: str | None
    first_message: str
    cwd: str
    modified_ms: float | None
    hits: list[Hit] = field(default_factory=list)
    hit_count: int = 0  # matching rows counted (``hits`` keeps at most ``max_hits``)
    info: SessionInfo | None = field(default=None, repr=False, compare=False)  # (for the whole first message)
    # whether ``hit_count`` counts every matching row (False: counting stopped there, one row
    # past the hits kept, and the session may hold more: see search_match.match_rows)
    hit_count_complete: bool = True
    # the session's first hits, handed out while the rest are looked for: the same session
    # comes later, whole (a new object; see search.search's ``first_hits``)
    partial: bool = False

    @property
    def title(self) -> str:
        return self.name or self.first_message

    def to_json(self) -> dict:
        from ..timeutil import ms_to_iso

        return {
            "path": utf8_path(self.path),
            "id": self.session_id,
            "name": self.name,
            "firstMessage": self.info.full_first_message() if self.info is not None else self.first_message,
            "cwd": self.cwd,
            "modified": ms_to_iso(self.modified_ms),
            "hitCount": self.hit_count,
            "hitCountComplete": self.hit_count_complete,
            "hits": [hit.to_json() for hit in self.hits],
        }


_SPACES = {9: " ", 10: " ", 13: " "}  # (same length: the spans stay where they are)


def _shown(line: str, spans: list[tuple[int, int]]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``line`` with its control characters as visible stand-ins (``core.text.visible``,
    the one rule for showing session text), and ``spans`` moved to match."""
    if shown_as_is(line):
        return line, tuple(spans)
    parts: list[str] = []
    at: dict[int, int] = {}
    count = prev = 0
    for cut in sorted({0, len(line), *(edge for span in spans for edge in span)}):
        if cut > prev:
            parts.append(visible(line[prev:cut]))
            count += len(parts[-1])
            prev = cut
        at[cut] = count
    return "".join(parts), tuple((at[start], at[end]) for start, end in spans)


def _context(
    text: str, start: int, end: int, patterns: list[re.Pattern], fixed: list[int | None] | None = None
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """One line of ``text`` around the match ``start:end``, and the matches inside it.
    ``fixed[k]``: the length of every match of ``patterns[k]`` when that is fixed (a plain
    term's), so that looking for its matches stops at the line's end, not the text's."""
    ls = text.rfind("\n", 0, start) + 1
    le = text.find("\n", max(start, end - 1) if end > start else start)
    if le < 0:
        le = len(text)
    left = max(ls, start - CONTEXT_BEFORE)
    right = min(le, left + CONTEXT_WIDTH)
    if right <= start and start < len(text):  # a match that starts with a newline
        right = min(len(text), start + CONTEXT_WIDTH)
    raw = text[left:right]
    stripped = raw.lstrip()
    shift = len(raw) - len(stripped)
    if shift and left + shift > start:  # never strip the match itself
        shift = max(0, start - left)
        stripped = raw[shift:]
    prefix = "…" if left > ls else ""
    suffix = "…" if right < le else ""
    line = prefix + stripped.rstrip().translate(_SPACES) + suffix
    body_end = len(prefix) + len(stripped.rstrip())
    off = len(prefix) - left - shift
    spans: list[tuple[int, int]] = []
    for index, pattern in enumerate(patterns):
        count = 0
        reach = fixed[index] if fixed is not None else None
        found = pattern.finditer(text, max(0, left + shift)) if reach is None else pattern.finditer(text, max(0, left + shift), right + reach)
        for match in found:
            span_start, span_end = match.span()
            if span_start >= right:
                break
            if span_end > span_start:
                spans.append((max(span_start + off, len(prefix)), min(span_end + off, body_end)))
                count += 1
                if count >= 20:
                    break
    if not spans and end >= start:
        spans.append((max(start + off, len(prefix)), min(max(end, start) + off, body_end)))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for span_start, span_end in spans:
        if merged and span_start <= merged[-1][1]:
            if span_end > merged[-1][1]:
                merged[-1] = (merged[-1][0], span_end)
        else:
            merged.append((span_start, span_end))
    return _shown(line, merged)


def match_rows(
    rows: Iterable[tuple[str, int, str | None, str, str | None]],
    query: Query,
    max_hits: int = MAX_HITS,
    should_stop: Callable[[], bool] | None = None,
    count_to: int | None = None,
) -> tuple[list[Hit], int, bool] | None:
    """The exact hits of ``query`` among one session's ``rows`` (``(kind, entry index, entry id,
    text, timestamp)`` in file order): ``(hits, hit_count, all_counted)``, the first
    ``max_hits`` hits kept, or None when some term matches none of the rows (a session is a
    result when every term matches one of its rows; its hits are the rows matching *any* term).

    ``q.fold``: a row whose kind and line of context are those of a hit kept before it is
    counted in that hit's ``repeats`` instead (594 runs of the same command are one hit);
    ``max_hits`` and ``count_to`` then count different hits, the rows folded into the hits
    kept are counted on until ``count_to`` different ones are found.

    ``count_to``: counting stops at that many matching rows (None: every one is counted,
    and ``all_counted`` is True). Once it is reached, the rest of the rows are only looked
    at for the terms not matched yet (the session is a result only if each matches some
    row), and ``all_counted`` is False: there may be more matching rows than ``hit_count``.
    When ``rows`` has a ``narrow(terms)`` method (:class:`~.search_chunks._ChunkRows`), it is
    told then which terms (their indexes in ``q.terms``) are still looked for, so that it
    reads only what may hold them. The scan of a whole file and the index's chunks stop at
    the same row, so both give the same result.

    ``kind:`` qualifiers leave out every row but the calls of those kinds; without terms,
    each such call is a hit (and a session without one is no result).
    ``should_stop()`` is polled every :data:`_STOP_EVERY` rows (a huge session, or a regex
    no trigram narrows, is a long scan): None once it is true."""
    got = None
    for got in match_steps(rows, query, max_hits, should_stop, count_to):
        pass
    return got[:3] if got is not None else None


def match_steps(
    rows: Iterable[tuple[str, int, str | None, str, str | None]],
    query: Query,
    max_hits: int = MAX_HITS,
    should_stop: Callable[[], bool] | None = None,
    count_to: int | None = None,
    first_hits: int | None = None,
) -> Iterator[tuple[list[Hit], int, bool, bool]]:
    """:func:`match_rows` step by step: ``(hits, hit_count, all_counted, partial)``, the
    last one its result (``partial`` False; nothing when it is None). ``first_hits``: once
    that many hits are kept and every term has matched, while more rows are to be read, a
    first step is given with them (``partial`` True, a copy of the hits so far), so that a
    session's first hits can be shown while the rest are looked for."""
    terms = query.terms
    keep = _kind_filter(query.kinds) if query.kinds else None
    matched = [False] * len(terms)
    patterns = [term.pattern for term in terms]
    needles = [term.needles for term in terms]
    # a plain ASCII term's match in ASCII text is where its lowercase form is in the
    # lowercased text (one code point per code point, as re.IGNORECASE folds): no regex
    plain = [term.value.lower() if term.kind == "term" and term.value.isascii() else None for term in terms]
    fixed = [len(term.value) if term.kind == "term" else None for term in terms]
    active = range(len(terms))  # the terms each row is matched against
    counting = True  # (False once count_to rows are counted: only the terms not yet matched are looked for)
    hits = _Kept(max_hits, query.fold)
    wait = first_hits if first_hits is not None and first_hits < max_hits else None  # (the first step not given yet)
    count = 0
    for number, (kind, entry, eid, text, when) in enumerate(rows, 1):
        if should_stop is not None and number % _STOP_EVERY == 0 and should_stop():
            return
        if keep is not None and not keep(kind, text):
            continue
        if not terms:  # ``kind:`` alone: the call is the hit (its first line; nothing to mark)
            count += 1
            if hits.add(eid, entry, kind, text, when, None) == count_to:
                yield hits.done(), count, False, False
                return
            if wait is not None and wait <= len(hits.hits) < max_hits:
                wait = None
                yield list(hits.done()), count, False, True
            continue
        ascii_text = text.isascii()  # O(1) in CPython
        low = None
        first = None  # (start, end) of the leftmost match of any term
        for term_index in active:
            if ascii_text and needles[term_index]:
                if low is None:
                    low = text.lower()
                if plain[term_index] is not None:
                    at = low.find(plain[term_index])
                    if at >= 0:
                        matched[term_index] = True
                        if first is None or at < first[0]:
                            first = (at, at + len(plain[term_index]))
                    continue
                if not all(needle in low for needle in needles[term_index]):
                    continue
            match = patterns[term_index].search(text)
            if match is not None:
                matched[term_index] = True
                if first is None or match.start() < first[0]:
                    first = match.span()
        if first is None:
            continue
        if not counting:
            active = [term_index for term_index in active if not matched[term_index]]
            if not active:
                yield hits.done(), count, False, False
                return
            continue
        count += 1
        found = hits.add(eid, entry, kind, text, when, (first, patterns, fixed))
        if wait is not None and wait <= len(hits.hits) < max_hits and found != count_to and all(matched):
            wait = None
            yield list(hits.done()), count, False, True
        if found == count_to:
            active = [term_index for term_index in active if not matched[term_index]]
            if not active:
                yield hits.done(), count, False, False
                return
            counting = False
            narrow = getattr(rows, "narrow", None)
            if narrow is not None:
                narrow(active)
    if all(matched) and count:
        yield hits.done(), count, counting, False


class _Kept:
    """The hits :func:`match_rows` keeps of a session: the first ``max_hits``; with ``fold``,
    the first ``max_hits`` different ones (kind and line of context), each counting the rows
    folded into it."""

    __slots__ = ("hits", "max_hits", "seen", "repeats", "different")

    def __init__(self, max_hits: int, fold: bool):
        self.hits: list[Hit] = []
        self.max_hits = max_hits
        self.seen: dict[tuple[str, str], int] | None = {} if fold else None  # (kind, line) -> place in hits
        self.repeats: list[int] = []
        self.different = 0  # hits found (folded ones once): what ``count_to`` is compared with

    def add(self, eid, entry, kind: str, text: str, when, match) -> int:
        """Keep (or fold) a matching row's hit; ``match``: ``(span, patterns, fixed)`` of its
        first match for :func:`_context` (None: nothing to mark). Returns the hits found so
        far (with ``fold``, a row folded into a hit kept before is not a new one)."""
        if self.seen is None and len(self.hits) >= self.max_hits:
            self.different += 1
            return self.different
        if match is None:
            line, spans = _context(text, 0, 0, [])[0], ()
        else:
            (start, end), patterns, fixed = match
            line, spans = _context(text, start, end, patterns, fixed)
        if self.seen is not None:
            at = self.seen.get((kind, line))
            if at is not None:
                self.repeats[at] += 1
                return self.different
            self.different += 1
            if len(self.hits) >= self.max_hits:
                return self.different
            self.seen[(kind, line)] = len(self.hits)
            self.repeats.append(1)
        else:
            self.different += 1
        self.hits.append(Hit(eid, int(entry), kind, line, spans, when))
        return self.different

    def done(self) -> list[Hit]:
        if self.seen is None:
            return self.hits
        return [hit if count == 1 else replace(hit, repeats=count) for hit, count in zip(self.hits, self.repeats)]


def _in_turns(found: Iterator[tuple], limit: int | None, should_stop, before_yield=None) -> Iterator[SessionHits]:
    """The results of ``found``'s sessions (``(info, steps)``, newest first; steps as
    :func:`match_steps` gives them) in turn: each session's first step as it comes; a big
    session whose first step is its first hits (``partial``) is read on once every other
    session has had its turn (the first screen of results is not kept waiting by the rest
    of a few huge sessions), then handed out whole. ``limit`` counts sessions at their first
    step; ``before_yield()`` is called before each result is handed out."""
    later = []
    count = 0
    for info, steps in found:
        steps = _finished(steps)
        step = next(steps, None)
        if step is None:
            continue
        if before_yield is not None:
            before_yield()
        yield _result(info, step)
        if step[3]:
            later.append((info, steps))
        count += 1
        if limit is not None and count >= limit:
            break
    for info, steps in later:
        if should_stop is not None and should_stop():
            return
        for step in steps:
            if before_yield is not None:
                before_yield()
            yield _result(info, step)


def _first_hits(info: SessionInfo, first_hits: int | None) -> int | None:
    """``first_hits`` for a big session (:data:`BIG_SESSION`), None for another: a small one is
    read through at once."""
    return first_hits if info.size >= BIG_SESSION else None


def _result(info: SessionInfo, step: tuple) -> SessionHits:
    hits, count, complete, partial = step
    return SessionHits(info.path, info.id, info.name, info.first_message, info.cwd, info.modified_ms, hits, count,
                       info, complete, partial)  # fmt: skip


def _finished(steps: Iterator[tuple]) -> Iterator[tuple]:
    """``steps`` (:func:`~.search_match.match_steps`), a first step that no whole result
    follows (the file could not be read on) given again as the result."""
    last = None
    for last in steps:
        yield last
    if last is not None and last[3]:
        yield (*last[:3], False)


def count_to_of(max_hits: int, count_all: bool) -> int | None:
    """Where counting a session's hits stops: one row past the hits kept (so that a result
    says whether there are more than it shows), or nowhere (``count_all``)."""
    return None if count_all or max_hits >= sys.maxsize else max_hits + 1


def _scan_file(path: str, query: Query, max_hits: int, should_stop, count_to: int | None,
               first_hits: int | None = None) -> Iterator[tuple]:
    """The exact hits of ``query`` in the session file ``path``, its rows read from the start,
    step by step as :func:`match_steps` gives them (nothing when it cannot be read: it is
    left out)."""
    try:
        handle = open_regular(path)
    except OSError:
        return
    with handle:
        yield from _match_open_file(handle, path, query, max_hits, should_stop, count_to, first_hits)


def _match_open_file(handle, path: str, query: Query, max_hits: int, should_stop, count_to: int | None,
                     first_hits: int | None = None) -> Iterator[tuple]:
    """The exact hits of ``query`` in the open session file ``handle``, its rows read from the start
    (:func:`match_steps`)."""
    st = _FileState(0, path)
    steps = match_steps(_file_rows(handle, st), query, max_hits, should_stop, count_to, first_hits)
    while True:
        try:
            got = next(steps)
        except StopIteration:
            return
        except Exception:  # (a file that cannot be read is left out, as the index leaves it out)
            return
        if st.error is None and st.has_header:
            yield got
