"""A session file as the search index cuts it, into chunks of whole lines with their words,
and the rows of chunks read back from the file.

Cutting a file
--------------
A file is cut into **chunks** of whole lines (a chunk closes once its rows hold
:data:`CHUNK_CHARS` characters; the header line is a chunk of its own): :func:`_chunks`,
from where the file's state (:class:`~.search_rows._FileState`) says reading stopped. Per
chunk the index keeps its bytes ``[start, end)``, its first line's number, how many lines it
spans, the index of its first entry and whether it is *dense* (every line one entry: no
blank, bad or header line, and no line whose raw JSON hides ASCII text behind a ``\\u``
escape or holds a letter that folds to an ASCII one, see :func:`_unsafe`), the offsets of
its lines whose text pitui makes (tool calls, labels: :data:`_MADE_KINDS`), and its words
and word-pair bitmap (:mod:`.search_words`). Chunks without words are left out. A worker
process (:mod:`.search_worker`) cuts a new file whole (:func:`_index_whole`) into what JSON
can carry; its result is checked whole (:func:`_ready`) before any of it is written.

Reading chunks back
-------------------
A chunk is read back with ``pread`` (:class:`_ChunkRows`), from its offsets. In a dense chunk the lines worth
parsing are found in the raw bytes first (:func:`_chosen_lines`): a line is parsed only if
it holds, lowercased, the pieces of some term's literals that a JSON writer writes as they
are (a tool call's row, whose text pitui makes, is checked more loosely); the others are
never parsed. Their rows are matched exactly by :func:`.search_match.match_rows`, as the
scan matches them. A chunk whose bytes are no longer whole lines where they were raises
:class:`_Changed` (the index then reads the file whole).
"""

from __future__ import annotations

import array
import base64
import dataclasses
import os
import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from ..read.lines import LONG_LINE, file_fingerprint, open_regular, parse_line
from .search_query import Query
from .search_rows import _FileState, _entry_time, _file_lines, _identity, _norm_id, entry_rows
from .search_words import _has_fold, _words_of, _words_text


CHUNK_CHARS = 256 * 1024  # a chunk closes once its rows hold this many characters of text


@dataclass
class IndexStats:
    """What an update of the index did (:meth:`.search_index.SearchIndex.update`); the chunks
    made count their rows into it."""

    files: int = 0  # session files considered
    indexed: int = 0  # files (re)read, wholly or from where they stopped
    reindexed: int = 0  # ... of which read again from the start (changed or shrunk)
    removed: int = 0  # files dropped because they are gone
    rows: int = 0  # rows added
    bytes: int = 0  # bytes of session files read
    seconds: float = 0.0
    cancelled: bool = False


# A line whose raw JSON may hold, case-insensitively, a printable ASCII text its bytes do
# not show: one with a \\u escape of a printable ASCII character (or of a letter in
# search_words._FOLDS), or with the UTF-8 of a letter in _FOLDS. A chunk with such a line
# is not dense: its lines are all parsed.
_UNSAFE_ESC = (b"002", b"003", b"004", b"005", b"006", b"007")
_UNSAFE_ESC4 = (b"212a", b"017f", b"0131", b"0130")
_ESCAPE = re.compile(rb"\\u(?!00[01])")  # (escapes of control characters, common in tool output, hide no word)


def _unsafe(data: bytes) -> bool:
    """Whether the raw line ``data`` holds a \\u escape of a printable ASCII character (or
    of a letter in :data:`~.search_words._FOLDS`; the letters themselves are found in the rows' texts,
    :func:`_has_fold`)."""
    if b"\\u" not in data:  # (most lines: found by a byte search, faster than the regex's scan)
        return False
    match = _ESCAPE.search(data)
    while match is not None:
        hexdigits = data[match.end() : match.end() + 4].lower()
        if hexdigits[:3] in _UNSAFE_ESC or hexdigits in _UNSAFE_ESC4:
            return True
        match = _ESCAPE.search(data, match.end())
    return False


def _chunks(handle, st: _FileState, stats: IndexStats) -> Iterator[tuple]:
    """The chunks of a file from where ``st`` says reading stopped, as ``(start, end,
    first entry, first line number, lines, dense, made, words text, pair bitmap)``: whole lines, each chunk closed
    once its rows hold :data:`CHUNK_CHARS` characters; the header line is a chunk of its
    own. Chunks without words are left out (no query can want their lines)."""
    cur = None  # [start, end, entry, lineno, dense, words, chars, last lineno]

    def close():
        words, pairs = _words_of(cur[5]) if cur[5] else (None, b"")
        if words:
            return (cur[0], cur[1], cur[2], cur[3], cur[7] - cur[3] + 1, cur[4], cur[8], _words_text(words), pairs)
        return None

    for off, nxt, lineno, idx, _eid, rows, data, _when in _file_lines(handle, st):
        if data == LONG_LINE:
            # (a line read past: in no chunk, or reading a chunk back would read it all)
            if cur is not None:
                got = close()
                if got:
                    yield got
                cur = None
            continue
        header = idx == -1
        if cur is not None and (header or cur[6] >= CHUNK_CHARS):
            got = close()
            if got:
                yield got
            cur = None
        if cur is None:
            first = st.next_entry if idx is None or header else idx
            cur = [off, nxt, first, lineno, not header and not st.stream, [], 0, lineno - 1, []]
        cur[1] = nxt
        if cur[4] and (idx is None or header or lineno != cur[7] + 1 or _unsafe(data)):
            cur[4] = False
        cur[7] = lineno
        texts = cur[5]
        made = False
        for kind, text in rows:
            made = made or kind in _MADE_KINDS
            texts.append(text)
            cur[6] += len(text)
            stats.rows += 1
            if cur[4] and _has_fold(text):
                cur[4] = False
        if made:
            cur[8].append(off - cur[0])
        if header:
            got = close()
            if got:
                yield got
            cur = None
    if cur is not None and st.error is None:
        got = close()
        if got:
            yield got


def _index_whole(path: str) -> dict | None:
    """A file indexed from its start, without the index (what a worker process does, see
    :mod:`.search_worker`): its identity, state, chunks and counts, as JSON can carry them;
    None when it cannot be opened."""
    try:
        handle = open_regular(path)
    except OSError:
        return None
    with handle:
        ident = _identity(os.fstat(handle.fileno()))
        st = _FileState(0, path)
        stats = IndexStats()
        chunks = [(*chunk[:8], base64.b64encode(chunk[8]).decode("ascii")) for chunk in _chunks(handle, st, stats)]
    if st.error is not None:  # not a Pi session after all: nothing of it is kept
        chunks = []
    elif not st.has_header:
        st.error = "no session header"
    fingerprint = file_fingerprint(path, st.scanned_to) if st.scanned_to else ""
    state = [st.scanned_to, st.next_lineno, st.next_entry, st.pending_entry, st.version, st.has_header, st.stream,
             fingerprint, st.error]  # fmt: skip
    return {"ident": ident, "state": state, "chunks": chunks, "rows": stats.rows, "bytes": ident[2]}


def _ready(done: dict) -> tuple:
    """A worker's result (:func:`_index_whole`) checked and in the shapes written, before
    anything is: ``(identity, state fields, chunks, rows, bytes)``; raises on a bad one."""
    ident = tuple(int(field) for field in done["ident"])
    fields = tuple(done["state"])
    chunks = [tuple(char) for char in done["chunks"]]
    if len(ident) != 4 or len(fields) != 9 or any(len(chunk) != 9 or not isinstance(chunk[7], str) for chunk in chunks):
        raise ValueError("not a worker's result")
    chunks = [(*chunk[:8], base64.b64decode(chunk[8], validate=True)) for chunk in chunks]
    for chunk in chunks:
        array.array("I", chunk[6])  # (offsets that do not fit raise here, before anything is written)
    return ident, fields, chunks, int(done["rows"]), int(done["bytes"])


# A needle is looked for in a raw line in pieces. Strict pieces: cut where a JSON writer
# may escape a character (quote, backslash, slash, control and non-ASCII characters); in a
# dense chunk (no line with :func:`_unsafe` escapes) such a piece of a row's text is in its
# line's bytes as it is, unless pitui made that part of the text: a tool call's row ("name
# key: value", numbers written again) and a label that is no string. In those lines
# (:data:`_MADE_KINDS`, whose offsets a chunk keeps), the loose pieces are looked for
# instead: runs of letters and "_".
_STRICT_CUT = re.compile(r'["\\/]+|[^\x20-\x7e]+')
_LOOSE_CUT = re.compile(r"[^a-z_]+")
_MADE_KINDS = frozenset(("tool-call", "label"))


def _pieces(needles: Iterable[str], cut: re.Pattern) -> tuple[bytes, ...]:
    got = {piece for needle in needles for piece in cut.split(needle) if piece}
    return tuple(piece.encode("ascii") for piece in sorted(got, key=len, reverse=True))


# Whitespace between a phrase's words as a dense chunk's raw JSON may write it: a space, a
# character above ASCII (as UTF-8: U+00A0, U+2028, ...), a \\t-style or \\u escape (lowercased).
_RAW_SPACE = rb"(?:[ \x80-\xff]|\\[bfnrt]|\\u[0-9a-f]{4})+"
_RAW_SAFE = re.compile(r"[\x20-\x7e]+")  # (a word of these is written as it is, unless it holds " \\ /)


def _raw_phrase(term) -> re.Pattern | None:
    """For a phrase whose words a JSON writer writes as they are, a bytes regex that a
    dense chunk's lowercased raw line matches wherever a row of it holds the phrase: the
    words with :data:`_RAW_SPACE` between them (None for any other term)."""
    if term.kind != "phrase":
        return None
    words = term.value.split()
    if not all(_RAW_SAFE.fullmatch(word) and not any(char in word for char in '"\\/') for word in words):
        return None
    return re.compile(_RAW_SPACE.join(re.escape(word.lower().encode("ascii")) for word in words))


def _line_filter(query: Query) -> list[tuple] | None:
    """What a raw JSON line (lowercased) must hold to be worth parsing for ``query``: for any
    one term, every strict piece of its needles (and, for a phrase, its words with only
    whitespace between them, :func:`_raw_phrase`), or (in a line holding a tool call or a
    label) every loose piece (None in place of the loose pieces: the same as the strict
    ones). None: every line is read (a term without a piece to look for)."""
    if not query.terms:  # ``kind:`` alone: the lines that hold calls (or ``!`` commands)
        from ..model.tool_kinds import SHELL_EXEC

        alts = [((b"toolcall",), None, None)]
        if SHELL_EXEC in query.kinds:
            alts.append(((b"bashexecution",), None, None))
        return alts
    alts = []
    for term in query.terms:
        strict, loose = _pieces(term.needles, _STRICT_CUT), _pieces(term.needles, _LOOSE_CUT)
        if not strict or not loose:
            return None  # (a row may match this term without a piece to look for)
        alts.append((strict, None if strict == loose else loose, _raw_phrase(term)))
    return alts


def _chosen_lines(data: bytes, alts, made: Iterable[int]) -> list[int]:
    """Offsets in ``data`` (whole lines) of the lines that may hold a row of interest, as
    :func:`_line_filter` tells; ``made``: the offsets of the lines whose text pitui makes
    (tool calls, labels), where loose pieces are looked for. Found by searching the whole
    block, not line by line."""
    low = data.lower()
    find, rfind = low.find, low.rfind
    count = len(low)
    chosen = set()

    def scan(first: bytes, check) -> None:
        pos = find(first)
        while pos >= 0:
            ls = rfind(b"\n", 0, pos) + 1
            le = find(b"\n", pos)
            if le < 0:
                le = count
            if check(ls, le):
                chosen.add(ls)
            pos = find(first, le + 1) if le < count else -1

    made = list(made)
    for strict, loose, phrase in alts:
        if phrase is None:
            scan(strict[0], lambda ls, le, ps=strict[1:]: all(find(piece, ls, le) >= 0 for piece in ps))
        else:  # (a line pitui makes the text of is looked at below, for its loose pieces)
            scan(strict[0], lambda ls, le, rx=phrase: rx.search(low, ls, le) is not None)
        if loose is not None or phrase is not None:
            loose = loose or strict
            for ls in made:
                le = find(b"\n", ls)
                if le < 0:
                    le = count
                if all(find(piece, ls, le) >= 0 for piece in loose):
                    chosen.add(ls)
    return sorted(chosen)


class _Changed(Exception):
    """A file no longer holds what its chunks say."""


class _ChunkRows:
    """The rows of ``chunks`` (``(start, end, entry, lineno, lines, dense, made)``, in file
    order) of the session file ``f``, as :func:`~.search_match.match_rows` takes them,
    reading only the lines a filter (:func:`_line_filter`) keeps where a chunk is dense.
    Iterating raises :class:`_Changed` when a chunk's bytes are not whole lines where they
    were; a true ``stopped[0]()`` ends it (``stopped`` then gets a second item).

    ``per_term``: for each of ``q``'s terms, the starts of the chunks that may hold it
    (None: any chunk may). Once the matcher needs only some of the terms
    (:meth:`narrow`), the chunks after the one being read are those that may hold one of
    them, and their lines are filtered for those terms only."""

    def __init__(self, handle, st: _FileState, chunks: list, query: Query, stopped: list, per_term: list | None = None):
        self.f, self.st, self.q, self.stopped, self.per_term = handle, st, query, stopped, per_term
        self.chunks = list(chunks)
        self.alts = _line_filter(query)
        self.at = 0  # the chunk being read

    def narrow(self, terms: list[int]) -> None:
        """From the next chunk on, read only what may hold one of ``terms`` (indexes in ``q.terms``)."""
        self.alts = _line_filter(dataclasses.replace(self.q, terms=tuple(self.q.terms[term] for term in terms)))
        if self.per_term is not None and all(self.per_term[term] is not None for term in terms):
            wanted = set().union(*(self.per_term[term] for term in terms))
            rest = [chunk for chunk in self.chunks[self.at + 1 :] if chunk[0] in wanted]
            self.chunks = self.chunks[: self.at + 1] + rest

    def __iter__(self) -> Iterator[tuple[str, int, str | None, str, str | None]]:
        while self.at < len(self.chunks):
            if self.stopped and self.stopped[0]():
                self.stopped.append(True)
                return
            yield from _rows_of_chunk(self.f, self.st, self.chunks[self.at], self.alts)
            self.at += 1


def _rows_of_chunk(handle, st: _FileState, chunk: tuple, alts) -> Iterator[tuple[str, int, str | None, str, str | None]]:
    """The rows of one chunk (see :class:`_ChunkRows`)."""
    fd = handle.fileno()
    start, end, entry, lineno, _lines, dense, made, *_ = chunk
    if not dense:
        if start > 0 and os.pread(fd, 1, start - 1) != b"\n":
            raise _Changed
        sub = _FileState(st.id, st.path, scanned_to=start, next_lineno=lineno, next_entry=entry,
                         version=st.version, has_header=st.has_header if start > 0 else 0)  # fmt: skip
        for _o, _n, _l, idx, eid, rows, _d, when in _file_lines(handle, sub, stop=end, sniff=False):
            for kind, text in rows:
                yield kind, idx, eid, text, when
        return
    data = os.pread(fd, end - start + 1, start - 1)  # (a dense chunk never starts a file)
    if len(data) != end - start + 1 or data[:1] != b"\n" or not (data.endswith(b"\n") or end == st.size):
        raise _Changed
    data = data[1:]
    if alts is None:
        starts = [0]
        at = data.find(b"\n")
        while 0 <= at < len(data) - 1:
            starts.append(at + 1)
            at = data.find(b"\n", at + 1)
    else:
        starts = _chosen_lines(data, alts, array.array("I", made) if made else ())
    lines_before = 0  # lines before ``prev``
    prev = 0
    for ls in starts:
        lines_before += data.count(b"\n", prev, ls)
        prev = ls
        le = data.find(b"\n", ls)
        if le < 0:
            le = len(data)
        line = data[ls:le]
        if line.endswith(b"\r"):
            line = line[:-1]
        obj = parse_line(line).value
        if not isinstance(obj, dict):
            continue  # (the file changed under the same size and time)
        line_number = lineno + lines_before
        eid = f"line{line_number}" if st.version < 2 else (_norm_id(obj.get("id")) or f"line{line_number}")
        when = _entry_time(obj)
        for kind, text in entry_rows(obj, st.version):
            yield kind, entry + lines_before, eid, text, when
