"""Search across all sessions: a SQLite FTS5 (trigram) index beside the listing index.

What is indexed
---------------
One row per piece of searchable text, streamed line by line from each session file:

=============  ==============================================================================
kind           text
=============  ==============================================================================
user           a user message's text (string content, or its text blocks joined by newlines)
assistant      an assistant message's text blocks
thinking       an assistant message's thinking blocks
tool-call      one row per tool call: ``name key: value`` (one ``key: value`` line per
               argument; strings as they are, other values as JSON)
tool-result    a tool result's text blocks
bash           a bash execution (``!cmd`` in Pi): the command, a newline, the output
custom         custom messages (``custom_message`` entries, ``custom``/``hookMessage`` roles)
summary        compaction and branch summaries (entries and summary-role messages)
name           a ``session_info`` name (also names that were later cleared)
label          a label entry's text
cwd            the session header's cwd (entry index -1, no entry id)
id             the session header's id, which Pi's ``/resume`` search matches too (index -1)
=============  ==============================================================================

Not indexed: images, system prompts (the same text in every session), extension state
(``custom`` entries), ``context_edit`` replacements, usage and model bookkeeping.

**Long texts are capped**: a row keeps its first 64 KB (:data:`HEAD_CAP` characters) and its
last 16 KB (:data:`TAIL_CAP`), joined by ``"\\n…\\n"``. A match in the middle of a huge tool
output is therefore not found; its beginning and end (where errors and summaries sit) are.

Each row records the session file, the entry's id (as :class:`~pitui.core.read.session.Session`
names it: ``line<N>`` for version-1 files and entries without an id), the entry's index
(its position among the file's entries, as ``Session`` and the conformance corpus count
them), its kind and the text.

An event stream (``pi --mode json`` or ``rpc``, :mod:`~pitui.core.read.sniff`) is searched
as the conversation the app rebuilds from it (:func:`_stream_rows`): the same rows of the
same entries, with the app's indexes and ids; it is read again whole whenever it changes.

The index file and its updates
------------------------------
``search-v<N>.sqlite3`` in the listing index's cache folder (:func:`default_cache_dir`,
``$PITUI_CACHE_DIR``). Why FTS5 with the trigram tokenizer: it ships with Python's ``sqlite3``
(SQLite >= 3.34), it indexes every three-character sequence so it narrows *substring* queries
(Pi's search is substring search, not word search: ``oken`` finds ``token``), it folds case
the way the query does, and it needs no server, no extra package and no memory beyond SQLite's
page cache. The FTS table is ``detail=none`` (no positions: on session text a sixth of the
size of a ``detail=full`` trigram index, and a third faster to build) and contentless: the
rows' texts live in a plain table, zlib-compressed when long (about half the size), and are
handed back to FTS5 when rows are deleted. A literal is looked up as the AND of its trigrams,
a superset of the rows containing it; every candidate row is then checked exactly in Python,
so results are exact: FTS only decides which rows are worth checking. Terms shorter than
three characters, and regexes without a literal run of three characters, cannot be narrowed:
all rows are checked (slower, still exact).

Per file the index keeps ``path``, ``dev``, ``ino``, ``size``, ``mtime_ns``, where scanning
stopped and a fingerprint of the bytes read (first and last 4 KB before that point). The
same file (device and inode) with unchanged size and mtime: nothing to do. The same file
grown (Pi appends) with its fingerprint still matching is read on from where the index
stopped; anything else (another file, shrunk, same size but a new mtime, rewritten) is
indexed again from the start; files that are gone are dropped. A last line
without its newline that parses is indexed, and read again (its rows replaced) once the file
changes; one that does not parse is Pi writing it, and is read next time. Rows of file ``F``
have rowids ``F << 32 | seq``, so a file's rows are one rowid range. Memory stays bounded:
lines are streamed and rows inserted in batches. Several threads or processes may update the
same index: each file is re-checked inside the write transaction. The index is a cache: a
corrupt file (found when it is opened or in the middle of a search) is deleted and rebuilt,
with a notice (:func:`paths.notice`), and an older version's is deleted; when the cache
folder cannot be used (see :mod:`paths`) the index lives in memory for the call. The file
is private (``0600``, in a ``0700`` folder).

Queries (Pi's ``/resume`` syntax)
---------------------------------
* ``foo bar``: space-separated terms, case-insensitive substrings; all must match.
* ``"exact phrase"``: a substring with whitespace runs matching any whitespace run (Pi
  normalises whitespace in both). An unclosed quote makes the whole query plain terms, as in Pi.
* ``re:<pattern>``: one case-insensitive regex, run by RE2 (linear time: no pattern can hang
  a search; Pi uses JavaScript's syntax, which agrees on everything common, and RE2 has no
  backreferences or lookaround). A pattern RE2 refuses raises :class:`QueryError`.
* ``kind:<kind>`` (pitui's, not Pi's): only tool calls of that canonical kind, the other
  terms (or a ``re:`` after it) matched inside them; alone, every such call
  (:func:`parse_kind`).

Pi matches a query against a session's whole text (name, id, all user/assistant text joined,
cwd); pitui matches per row, and defines a session's result this way: **a session is a result
when every term matches at least one of its rows** (terms may be spread over different entries,
as in Pi); its hits are the rows matching *any* term, in file order. A regex, or a phrase, is
matched within one row (Pi would let a regex span two messages; pitui does not). Pi's fuzzy
fallback (query characters scattered in the name or cwd) is not done: every hit is a real
substring. pitui searches more than Pi does (tool calls and results, thinking, bash, summaries,
labels).

How a query runs
----------------
Results come in recency order, which needs no pass over the matches: sessions newest first
(the listing's order, Pi's: the most recently modified first), each session's hits in
entry order (header rows first). Each session is matched when its turn comes and handed out
at once; a ``limit`` stops the search there, and a caller that stops iterating (or whose
``should_stop()`` comes true, polled between sessions and every few dozen rows inside one)
ends it. No ranking, and nothing counted beyond the sessions handed out: a session's
``hit_count`` counts its own rows only.

Which sessions are worth matching: a term whose trigrams match few rows (at most
:data:`_PROBE_ROWS`) names its files up front, so a rare word or one found nowhere is
answered from FTS alone; a common word's files are not collected (that would read every row
holding it before the first result), each session is asked instead, FTS giving that file's
candidate rows only. A regex without a literal of three characters cannot be narrowed: every
row of every session is matched, by RE2 in linear time, still session by session, newest
first, and cancellable inside a session.

``search(..., use_index=False)`` reads the session files themselves with the same row reader
and matcher (:func:`_file_rows`, :func:`match_rows`): the same hits in the same order, and
nothing written.
"""

from __future__ import annotations

import os
import re
import re._constants as _sre_c  # Python's regex parser: the literal runs every match must contain
import re._parser as _sre_parse
import sqlite3
import time
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from .discovery import SessionRoot, find_session_files
from ..read.lines import file_fingerprint, iter_lines, open_regular, parse_line
from .listing import SessionIndex, SessionInfo, _utf8, default_cache_dir, list_sessions
from ..read.normalize import json_text, norm_id, norm_label
from ..read.sniff import Sniffer
from ..text import CONTROL_RE, visible
from ..paths import notice, private_dir

__all__ = [
    "Hit",
    "SessionHits",
    "Query",
    "Term",
    "QueryError",
    "IndexStats",
    "SearchIndex",
    "parse_query",
    "parse_kind",
    "describe_kinds",
    "entry_rows",
    "search",
    "match_rows",
    "update_index",
    "HEAD_CAP",
    "TAIL_CAP",
    "SCHEMA_VERSION",
    "KINDS",
]

SCHEMA_VERSION = 4  # 3: files keep dev and ino; 4: a tool call's nested arguments as text, not JSON
HEAD_CAP = 64 * 1024  # characters of a long text kept from its start
TAIL_CAP = 16 * 1024  # ... and from its end
CAP_JOIN = "\n…\n"
KINDS = (
    "user",
    "assistant",
    "thinking",
    "tool-call",
    "tool-result",
    "bash",
    "custom",
    "summary",
    "name",
    "label",
    "cwd",
    "id",
)
_KIND_CODE = {k: i for i, k in enumerate(KINDS)}
MAX_HITS = 100  # hits kept per session by default (all are counted)
CONTEXT_WIDTH = 160  # characters of context around a hit
CONTEXT_BEFORE = 48  # ... of which at most this many before the match
_SEQ_BITS = 32
_BATCH_ROWS = 2000
_BATCH_CHARS = 8 * 1024 * 1024
_TXN_CHARS = 64 * 1024 * 1024  # commit at least this often (text inserted)
_TXN_SECONDS = 2.0  # ... or this often, so readers and a cancelled update lose little
_COMPRESS_MIN = 512  # texts at least this long are stored zlib-compressed
_PROBE_ROWS = 20_000  # a term matching more rows than this narrows file by file (see candidate_files)
_STOP_EVERY = 64  # rows matched between two polls of should_stop


class QueryError(ValueError):
    """A query that cannot run (bad regex, empty query); ``str()`` is one line for the user."""


# ---------------------------------------------------------------------------- queries


def compile_user_regex(src: str):
    """``src``, a regex a user typed, compiled case-insensitively for RE2 (google-re2): it
    matches in time linear in the text, so no pattern can hang a search, however the text
    is made (``(a+)+$`` on a line of ``a`` takes Python's ``re`` exponential time). RE2 has no
    backreferences and no lookaround; such a pattern raises :class:`QueryError` with RE2's
    reason. The object has ``re``'s ``search``/``finditer`` and match ``span``/``start``/``end``."""
    import re2

    options = re2.Options()
    options.case_sensitive = False
    options.log_errors = False  # (RE2 would print every refused pattern to stderr)
    try:
        return re2.compile(src, options)
    except re2.error as exc:
        why = exc.args[0] if exc.args else exc
        if isinstance(why, bytes):
            why = why.decode("utf-8", "replace")
        raise QueryError(f"bad regex: {visible(str(why))}") from None


@dataclass(frozen=True, slots=True)
class Term:
    kind: str  # "term" | "phrase" | "regex"
    value: str  # as typed (phrases: whitespace-normalised and lowercased, as Pi does)
    pattern: re.Pattern
    fts: str | None  # an FTS5 expression every matching row satisfies, or None (no narrowing)
    needles: tuple[str, ...] = ()  # lowercase ASCII literals every match contains (a fast pre-check)


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    mode: str  # "tokens" | "regex"
    terms: tuple[Term, ...]  # (none: a ``kind:`` query alone, every call of the kinds)
    kinds: frozenset[str] = frozenset()  # ``kind:`` qualifiers, lowercase (empty: every row)


def _fts_quote(s: str) -> str:
    return '"' + s.replace('"', '""') + '"'


def _fts_literal(lit: str) -> str | None:
    """An FTS5 expression (AND of trigrams) true for every row containing ``lit``."""
    if len(lit) < 3:
        return None
    # Each gram is three characters as typed: the trigram tokenizer folds case itself, and
    # lowercasing first could make one gram two (U+0130 lowercases to two code points), which
    # FTS5 reads as a phrase query and refuses.
    grams: list[str] = []
    seen = set()
    for i in range(len(lit) - 2):
        g = lit[i : i + 3]
        if g.lower() not in seen:
            seen.add(g.lower())
            grams.append(g)
    if len(grams) > 12:  # enough to be selective; keep the expression cheap
        step = (len(grams) - 1) / 11
        grams = [grams[round(k * step)] for k in range(12)]
    return " AND ".join(_fts_quote(g) for g in grams)


def _fts_all(lits: Iterable[str]) -> str | None:
    parts = [p for p in (_fts_literal(x) for x in lits) if p]
    return " AND ".join(parts) if parts else None


def _required_literals(pattern: str) -> list[str]:
    """Literal runs that every match of ``pattern`` contains (best effort, may be empty)."""
    try:
        # Python warns where it reads RE2's syntax otherwise (``[[:digit:]]`` is a POSIX
        # class to RE2, a set and a "]" to Python): no literals are taken from such a pattern
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            parsed = _sre_parse.parse(pattern, re.IGNORECASE)
    except Exception:
        return []
    c = _sre_c
    out: list[str] = []

    def walk(items) -> None:
        run: list[str] = []

        def flush() -> None:
            if run:
                out.append("".join(run))
                run.clear()

        for op, av in items:
            if op is c.LITERAL:
                run.append(chr(av))
            elif op is c.SUBPATTERN:
                flush()
                walk(av[-1])
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
                flush()
                lo, _hi, sub = av
                if lo >= 1:
                    walk(sub)
            elif op is getattr(c, "ATOMIC_GROUP", None):
                flush()
                walk(av)
            else:  # branches, classes, anchors, backreferences ...: no required literal here
                flush()
        flush()

    try:
        walk(parsed)
    except Exception:
        return []
    return out


def _needles(lits: Iterable[str]) -> tuple[str, ...]:
    """The ASCII literals, lowercased: on ASCII text ``lit in text.lower()`` is exactly what
    a case-insensitive match needs (non-ASCII letters such as the Kelvin sign match ASCII
    ones under ``re.IGNORECASE``, so non-ASCII text is always given to the regex)."""
    return tuple(sorted({x.lower() for x in lits if x and x.isascii()}, key=len, reverse=True))


def _term(kind: str, value: str) -> Term:
    if kind == "phrase":
        words = value.split()
        pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
        return Term("phrase", " ".join(words), pattern, _fts_all(words), _needles(words))
    pattern = re.compile(re.escape(value), re.IGNORECASE)
    return Term("term", value, pattern, _fts_literal(value), _needles([value]))


_KIND_PREFIX = "kind:"


def describe_kinds() -> str:
    """What ``kind:`` accepts, for messages and help: ``kinds: file_edit (edit), file_read
    (read, ls), ...; any other tool is a kind of its own, by its name (kind:subagent)``."""
    from ..model.parts import SHELL_EXEC, TOOL_KINDS

    tools: dict[str, list[str]] = {}
    for name, kind in TOOL_KINDS.items():
        tools.setdefault(kind, []).append(name)
    tools[SHELL_EXEC].append("! commands")
    listed = ", ".join(f"{k} ({', '.join(names)})" for k, names in sorted(tools.items()))
    return f"kinds: {listed}; any other tool is a kind of its own, by its name (kind:subagent)"


def parse_kind(value: str) -> str:
    """The kind a ``kind:<value>`` qualifier names, lowercase; raises :class:`QueryError`
    (naming the kinds) for one that names none.

    The kinds are :func:`pitui.core.model.parts.tool_kind`'s: ``file_read`` (``read``,
    ``ls``), ``file_write``, ``file_edit``, ``file_search`` (``grep``, ``find``),
    ``shell_exec`` (``bash``), and any other tool's name, which is a kind of its own
    (``kind:subagent``). Case does not matter. A name of Pi's own tools (``kind:bash``) is
    refused with the kind to use instead, and so is a word close to a canonical kind
    (``kind:shell``, ``kind:file_reads``): such a word finds nothing, silently, when taken
    as a tool's name. (A tool whose name looks that much like a kind is found by its name
    as a plain term: a call's text begins with its tool's name.)

    What a ``kind:`` query matches: the **tool calls** whose tool is of that kind (each
    call's row, ``name key: value ...``), and for ``shell_exec`` also the commands a user
    ran with ``!`` in Pi (``bashExecution`` messages: they ran a shell command too; that
    row holds the command and its output, so a term may match in either). The results of
    the calls are not matched: ``kind:shell_exec npm`` finds the bash calls that ran npm,
    not the outputs that mention it."""
    import difflib

    from ..model.parts import TOOL_KINDS, tool_kind

    word = value.strip().lower()
    canonical = sorted(set(TOOL_KINDS.values()))
    tail = describe_kinds()
    if not word:
        raise QueryError(f"kind: needs a kind; {tail}")
    if word in canonical:
        return word
    if word in TOOL_KINDS:
        raise QueryError(f"{word} is a tool, not a kind: its calls are kind:{tool_kind(word)}; {tail}")
    near = [k for k in canonical if k.startswith(word)] or difflib.get_close_matches(word, canonical, 1, 0.8)
    if near:
        raise QueryError(f"unknown kind {visible(value.strip())} (did you mean kind:{near[0]}?); {tail}")
    return word


def _is_kind_word(word: str) -> bool:
    return word[: len(_KIND_PREFIX)].lower() == _KIND_PREFIX


def _kinds_of(words: Iterable[str]) -> frozenset[str]:
    """The kinds the ``kind:`` qualifiers among ``words`` name."""
    return frozenset(parse_kind(w[len(_KIND_PREFIX) :]) for w in words if _is_kind_word(w))


def _kind_filter(kinds: frozenset[str]) -> Callable[[str, str], bool]:
    """Whether a row ``(row kind, text)`` is a call of one of ``kinds`` (see :func:`parse_kind`):
    a tool-call row's text begins with its tool's name (:func:`_tool_call_text`), and the
    kind is derived from that name here, at query time (the index keeps no tool kind)."""
    from ..model.parts import SHELL_EXEC, tool_kind

    shell = SHELL_EXEC in kinds

    def keep(row_kind: str, text: str) -> bool:
        if row_kind == "tool-call":
            sp = text.find(" ")
            return tool_kind(text if sp < 0 else text[:sp]).lower() in kinds
        return shell and row_kind == "bash"

    return keep


def _kind_row_types(kinds: frozenset[str]) -> tuple[str, ...]:
    """The row kinds (:data:`KINDS`) that can hold a call of one of ``kinds``."""
    from ..model.parts import SHELL_EXEC

    return ("tool-call", "bash") if SHELL_EXEC in kinds else ("tool-call",)


def parse_query(query: str) -> Query:
    """Parse a query the way Pi's session selector does (``parseSearchQuery``), plus
    pitui's ``kind:`` qualifiers (:func:`parse_kind`): any number, anywhere among the
    words, or before a ``re:`` (``kind:shell_exec re:npm (i|ci)``); several mean any of
    those kinds. A quoted ``"kind:x"`` is a phrase, matched as text.

    Raises :class:`QueryError` for an empty query, an empty regex, a bad regex or a
    ``kind:`` that names no kind."""
    trimmed = query.strip()
    if not trimmed:
        raise QueryError("empty query")
    lead: list[str] = []  # leading ``kind:`` words, which may come before a ``re:``
    rest = trimmed
    while _is_kind_word(rest):
        word, *more = rest.split(None, 1)
        lead.append(word)
        rest = more[0] if more else ""
    if rest.startswith("re:"):
        kinds = _kinds_of(lead)
        src = rest[3:].strip()
        if not src:
            raise QueryError("empty regex")
        pattern = compile_user_regex(src)
        lits = _required_literals(src)
        return Query(query, "regex", (Term("regex", src, pattern, _fts_all(lits), _needles(lits)),), kinds)
    tokens: list[tuple[str, str]] = []
    buf: list[str] = []
    in_quote = False

    def flush(kind: str) -> None:
        v = "".join(buf).strip()
        buf.clear()
        if v:
            tokens.append((kind, v))

    for ch in trimmed:
        if ch == '"':
            if in_quote:
                flush("phrase")
                in_quote = False
            else:
                flush("term")
                in_quote = True
            continue
        if not in_quote and ch.isspace():
            flush("term")
            continue
        buf.append(ch)
    if in_quote:  # unbalanced quotes: plain whitespace tokens, quote characters included (Pi)
        tokens = [("term", t) for t in trimmed.split()]
    else:
        flush("term")
    kinds = _kinds_of(v for kind, v in tokens if kind == "term")
    terms = []
    for kind, v in tokens:
        if kind == "phrase" and not v.split():
            continue
        if kind == "term" and _is_kind_word(v):
            continue
        terms.append(_term(kind, v))
    if not terms and not kinds:
        raise QueryError("empty query")
    return Query(query, "tokens", tuple(terms), kinds)


# ---------------------------------------------------------------------------- extraction


def _cap(text: str) -> str:
    if len(text) > HEAD_CAP + TAIL_CAP:
        return text[:HEAD_CAP] + CAP_JOIN + text[-TAIL_CAP:]
    return text


def _blocks(content, block_type: str, key: str) -> str:
    if isinstance(content, str):
        return content if block_type == "text" else ""
    if not isinstance(content, list):
        return ""
    parts = []
    for b in content:
        if isinstance(b, dict) and b.get("type") == block_type:
            t = b.get(key)
            if isinstance(t, str):
                parts.append(t)
    return "\n".join(parts)


_json_text = json_text  # (never raises, however deep the value)


def _value_text(value) -> str:
    """A tool call's argument as text to search and to show a line of: a string as it is;
    the strings, numbers and keys inside a list or object one per line ("oldText: ...", so
    that a hit reads as the text and not as JSON with its escapes). Walked without
    recursion (a value may be deep)."""
    if isinstance(value, str):
        return value
    if not isinstance(value, (dict, list)):
        return _json_text(value)
    lines: list[str] = []
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        key, v = stack.pop()
        if isinstance(v, dict):
            stack.extend(reversed([(str(k), x) for k, x in v.items()]))
        elif isinstance(v, list):
            stack.extend(reversed([(key, x) for x in v]))
        else:
            text = v if isinstance(v, str) else _json_text(v)
            lines.append(f"{key}: {text}" if key else text)
    return "\n".join(lines)


def _tool_call_text(block: dict) -> str:
    name = block.get("name")
    name = name if isinstance(name, str) else _json_text(name)
    args = block.get("arguments")
    if isinstance(args, dict):
        body = "\n".join(f"{k}: {_value_text(v)}" for k, v in args.items())
    elif args is None:
        body = ""
    else:
        body = args if isinstance(args, str) else _json_text(args)
    return f"{name} {body}" if body else name


def entry_rows(obj: dict, version: int = 3) -> list[tuple[str, str]]:
    """The ``(kind, text)`` rows of one entry (capped; empty texts left out)."""
    rows: list[tuple[str, str]] = []

    def add(kind: str, text) -> None:
        if isinstance(text, str) and text.strip():
            rows.append((kind, _cap(text)))

    t = obj.get("type")
    if t == "message":
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return rows
        role = msg.get("role")
        content = msg.get("content")
        if role == "user":
            add("user", _blocks(content, "text", "text"))
        elif role == "assistant":
            add("assistant", _blocks(content, "text", "text"))
            add("thinking", _blocks(content, "thinking", "thinking"))
            if isinstance(content, list):
                for b in content:
                    if isinstance(b, dict) and b.get("type") == "toolCall":
                        add("tool-call", _tool_call_text(b))
        elif role == "toolResult":
            add("tool-result", _blocks(content, "text", "text"))
        elif role == "bashExecution":
            cmd = msg.get("command")
            out = msg.get("output")
            cmd = cmd if isinstance(cmd, str) else ""
            out = out if isinstance(out, str) else ""
            add("bash", f"{cmd}\n{out}" if out else cmd)
        elif role == "custom" or (role == "hookMessage" and version < 3):
            add("custom", _blocks(content, "text", "text"))
        elif role in ("branchSummary", "compactionSummary"):
            add("summary", msg.get("summary"))
    elif t == "custom_message":
        add("custom", _blocks(obj.get("content"), "text", "text"))
    elif t in ("compaction", "branch_summary"):
        add("summary", obj.get("summary"))
    elif t == "session_info":
        name = obj.get("name")
        add("name", name.strip() if isinstance(name, str) else None)
    elif t == "label":
        add("label", norm_label(obj.get("label"))[0])  # (as Session reads it)
    return rows


def _fts_refused(exc: sqlite3.OperationalError) -> bool:
    """Whether FTS5 refused a MATCH expression (as opposed to the database failing)."""
    return str(exc).startswith("fts5:")


def _is_corrupt(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite found the file damaged (SQLITE_CORRUPT, SQLITE_NOTADB and their
    extended codes), not merely busy, read-only or given a query it refuses."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return not isinstance(exc, sqlite3.OperationalError)
    return code & 0xFF in (11, 26)


def _i64(n: int) -> int:
    """``n`` (an unsigned 64-bit device or inode number) as SQLite's signed integer."""
    return n - (1 << 64) if n >= 1 << 63 else n


def _identity(st: os.stat_result) -> tuple[int, int, int, int]:
    """(dev, ino, size, mtime_ns) of a file as the index keeps them."""
    return _i64(st.st_dev), _i64(st.st_ino), st.st_size, st.st_mtime_ns


def _norm_id(value) -> str | None:
    """An entry's id as :class:`~pitui.core.session.Session` names it (None: it has none
    that Pi could match, and is named ``line<N>``)."""
    return norm_id(value)


# ---------------------------------------------------------------------------- the index


def _pack(text: str):
    if len(text) >= _COMPRESS_MIN:
        return zlib.compress(text.encode("utf-8", "surrogatepass"), 1)
    return text


def _unpack(data) -> str:
    if isinstance(data, bytes):
        return zlib.decompress(data).decode("utf-8", "surrogatepass")
    return data


_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS files(
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        dev INTEGER NOT NULL,
        ino INTEGER NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        scanned_to INTEGER NOT NULL,
        next_lineno INTEGER NOT NULL,
        next_entry INTEGER NOT NULL,
        next_seq INTEGER NOT NULL,
        pending_seq INTEGER,
        pending_entry INTEGER,
        version INTEGER NOT NULL,
        has_header INTEGER NOT NULL,
        fingerprint TEXT NOT NULL,
        error TEXT
    )""",
    # The rows themselves; ``data`` is the text, zlib-compressed (bytes) when it is long.
    """CREATE TABLE IF NOT EXISTS rowdata(
        id INTEGER PRIMARY KEY,
        kind INTEGER NOT NULL,
        entry INTEGER NOT NULL,
        eid TEXT,
        data NOT NULL
    )""",
    # Contentless: the trigram index only (rowid = rowdata.id); deleting needs the text back.
    """CREATE VIRTUAL TABLE IF NOT EXISTS rows USING fts5(
        text, tokenize='trigram', detail=none, columnsize=0, content=''
    )""",
)

_FILE_COLS = (
    "id, path, dev, ino, size, mtime_ns, scanned_to, next_lineno, next_entry, next_seq, pending_seq, "
    "pending_entry, version, has_header, fingerprint, error"
)


@dataclass(slots=True)
class _FileState:
    id: int
    path: str
    dev: int = 0  # (as _i64 stores them)
    ino: int = 0
    size: int = 0
    mtime_ns: int = 0
    scanned_to: int = 0
    next_lineno: int = 1
    next_entry: int = 0
    next_seq: int = 0
    pending_seq: int | None = None  # rows from this seq on came from an unterminated last line
    pending_entry: int | None = None
    version: int = 3
    has_header: int = 0
    fingerprint: str = ""
    error: str | None = None

    def values(self) -> tuple:
        return (
            self.path, self.dev, self.ino, self.size, self.mtime_ns, self.scanned_to, self.next_lineno,
            self.next_entry, self.next_seq, self.pending_seq, self.pending_entry, self.version,
            self.has_header, self.fingerprint, self.error, self.id,
        )  # fmt: skip


@dataclass
class IndexStats:
    files: int = 0  # session files considered
    indexed: int = 0  # files (re)read, wholly or from where they stopped
    reindexed: int = 0  # ... of which read again from the start (changed or shrunk)
    removed: int = 0  # files dropped because they are gone
    rows: int = 0  # rows added
    bytes: int = 0  # bytes of session files read
    seconds: float = 0.0
    cancelled: bool = False


@dataclass(frozen=True, slots=True)
class Hit:
    """One matching row: which entry, what kind of text, and a line of context."""

    entry_id: str | None  # None for header rows (cwd, id)
    entry_index: int  # -1 for header rows
    kind: str
    context: str  # one line (no newlines), cut around the first match
    spans: tuple[tuple[int, int], ...]  # matches in ``context``: (start, end), sorted

    @property
    def span(self) -> tuple[int, int]:
        return self.spans[0] if self.spans else (0, 0)

    def to_json(self) -> dict:
        return {
            "entryId": self.entry_id,
            "entryIndex": self.entry_index,
            "kind": self.kind,
            "context": self.context,
            "spans": [list(s) for s in self.spans],
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
    hit_count: int = 0  # all matching rows (``hits`` keeps at most ``max_hits``)
    info: SessionInfo | None = field(default=None, repr=False, compare=False)  # (for the whole first message)

    @property
    def title(self) -> str:
        return self.name or self.first_message

    def to_json(self) -> dict:
        from ..timeutil import ms_to_iso

        return {
            "path": _utf8(self.path),
            "id": self.session_id,
            "name": self.name,
            "firstMessage": self.info.full_first_message() if self.info is not None else self.first_message,
            "cwd": self.cwd,
            "modified": ms_to_iso(self.modified_ms),
            "hitCount": self.hit_count,
            "hits": [h.to_json() for h in self.hits],
        }


_SPACES = {9: " ", 10: " ", 13: " "}  # (same length: the spans stay where they are)


def _shown(line: str, spans: list[tuple[int, int]]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``line`` with its control characters as visible stand-ins (``core.text.visible``,
    the one rule for showing session text), and ``spans`` moved to match."""
    if CONTROL_RE.search(line) is None:
        return line, tuple(spans)
    parts: list[str] = []
    at: dict[int, int] = {}
    n = prev = 0
    for cut in sorted({0, len(line), *(x for span in spans for x in span)}):
        if cut > prev:
            parts.append(visible(line[prev:cut]))
            n += len(parts[-1])
            prev = cut
        at[cut] = n
    return "".join(parts), tuple((at[s], at[e]) for s, e in spans)


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
    a = max(ls, start - CONTEXT_BEFORE)
    b = min(le, a + CONTEXT_WIDTH)
    if b <= start and start < len(text):  # a match that starts with a newline
        b = min(len(text), start + CONTEXT_WIDTH)
    raw = text[a:b]
    stripped = raw.lstrip()
    shift = len(raw) - len(stripped)
    if shift and a + shift > start:  # never strip the match itself
        shift = max(0, start - a)
        stripped = raw[shift:]
    prefix = "…" if a > ls else ""
    suffix = "…" if b < le else ""
    line = prefix + stripped.rstrip().translate(_SPACES) + suffix
    body_end = len(prefix) + len(stripped.rstrip())
    off = len(prefix) - a - shift
    spans: list[tuple[int, int]] = []
    for k, p in enumerate(patterns):
        n = 0
        reach = fixed[k] if fixed is not None else None
        found = p.finditer(text, max(0, a + shift)) if reach is None else p.finditer(text, max(0, a + shift), b + reach)
        for m in found:
            s, e = m.span()
            if s >= b:
                break
            if e > s:
                spans.append((max(s + off, len(prefix)), min(e + off, body_end)))
                n += 1
                if n >= 20:
                    break
    if not spans and end >= start:
        spans.append((max(start + off, len(prefix)), min(max(end, start) + off, body_end)))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            if e > merged[-1][1]:
                merged[-1] = (merged[-1][0], e)
        else:
            merged.append((s, e))
    return _shown(line, merged)


def match_rows(
    rows: Iterable[tuple[str, int, str | None, str]],
    q: Query,
    max_hits: int = MAX_HITS,
    should_stop: Callable[[], bool] | None = None,
) -> tuple[list[Hit], int] | None:
    """The exact hits of ``q`` among one session's ``rows`` (``(kind, entry index, entry id,
    text)`` in file order): ``(hits, hit_count)``, the first ``max_hits`` hits kept and all
    counted, or None when some term matches none of the rows (a session is a result when
    every term matches one of its rows; its hits are the rows matching any term).
    ``kind:`` qualifiers leave out every row but the calls of those kinds; without terms,
    each such call is a hit (and a session without one is no result).
    ``should_stop()`` is polled every :data:`_STOP_EVERY` rows (a huge session, or a regex
    no trigram narrows, is a long scan): None once it is true."""
    terms = q.terms
    keep = _kind_filter(q.kinds) if q.kinds else None
    matched = [False] * len(terms)
    patterns = [t.pattern for t in terms]
    needles = [t.needles for t in terms]
    # a plain ASCII term's match in ASCII text is where its lowercase form is in the
    # lowercased text (one code point per code point, as re.IGNORECASE folds): no regex
    plain = [t.value.lower() if t.kind == "term" and t.value.isascii() else None for t in terms]
    fixed = [len(t.value) if t.kind == "term" else None for t in terms]
    hits: list[Hit] = []
    count = 0
    for n, (kind, entry, eid, text) in enumerate(rows, 1):
        if should_stop is not None and n % _STOP_EVERY == 0 and should_stop():
            return None
        if keep is not None and not keep(kind, text):
            continue
        if not terms:  # ``kind:`` alone: the call is the hit (its first line; nothing to mark)
            count += 1
            if len(hits) < max_hits:
                hits.append(Hit(eid, int(entry), kind, _context(text, 0, 0, [])[0], ()))
            continue
        ascii_text = text.isascii()  # O(1) in CPython
        low = None
        first = None  # (start, end) of the leftmost match of any term
        for k, p in enumerate(patterns):
            if ascii_text and needles[k]:
                if low is None:
                    low = text.lower()
                if plain[k] is not None:
                    at = low.find(plain[k])
                    if at >= 0:
                        matched[k] = True
                        if first is None or at < first[0]:
                            first = (at, at + len(plain[k]))
                    continue
                if not all(x in low for x in needles[k]):
                    continue
            m = p.search(text)
            if m is not None:
                matched[k] = True
                if first is None or m.start() < first[0]:
                    first = m.span()
        if first is None:
            continue
        count += 1
        if len(hits) < max_hits:
            line, spans = _context(text, first[0], first[1], patterns, fixed)
            hits.append(Hit(eid, int(entry), kind, line, spans))
    if not all(matched) or not count:
        return None
    return hits, count


def _file_rows(f, st: _FileState) -> Iterator[tuple[int, str, str, int, str | None]]:
    """The rows of the session file ``f`` from where ``st`` says reading stopped, as
    ``(seq, text, kind, entry index, entry id)``, ``st`` moved on as its lines are read
    (the index's reading and the scan without the index share it, so both see the same
    rows). A file that turns out not to be a Pi session ends the rows with ``st.error``
    set; a last line Pi is still writing ends them, to be read next time. An event stream,
    told by its first records, gives :func:`_stream_rows` instead."""
    st.error = None
    sniffer = Sniffer() if st.scanned_to == 0 else None  # (an event stream shows in its first records)
    for raw in iter_lines(f, st.scanned_to, st.next_lineno):
        if sniffer is not None and sniffer.see(raw.data, raw.terminated):
            if sniffer.kind is not None:
                yield from _stream_rows(f, st)
                return
            sniffer = None
        res = parse_line(raw.data)
        obj = res.value
        if obj is None:
            if not raw.terminated:
                break  # Pi is writing this line: read it next time
            st.scanned_to, st.next_lineno = raw.end, raw.lineno + 1
            continue
        if not st.has_header:
            if not isinstance(obj, dict) or obj.get("type") != "session" or not isinstance(obj.get("id"), str):
                st.error = "not a Pi session"
                return
            if not raw.terminated:
                break
            v = obj.get("version")
            # (any number: only whether it is below 2 or 3 matters, as in Session)
            st.version = max(-1, min(int(v), 1000)) if type(v) in (int, float) else 1
            st.has_header = 1
            cwd = obj.get("cwd")
            for kind, text in (("cwd", cwd), ("id", obj["id"])):
                if isinstance(text, str) and text:
                    yield st.next_seq, text, kind, -1, None
                    st.next_seq += 1
            st.scanned_to, st.next_lineno = raw.end, raw.lineno + 1
            continue
        if not isinstance(obj, dict) or obj.get("type") == "session":
            if not raw.terminated:
                break
            st.scanned_to, st.next_lineno = raw.end, raw.lineno + 1
            continue
        idx = st.next_entry
        if st.version < 2:
            eid = f"line{raw.lineno}"
        else:
            eid = _norm_id(obj.get("id"))
            if eid is None:
                eid = f"line{raw.lineno}"
        if not raw.terminated:
            # A complete last line without its newline: index it, read it again later.
            st.pending_seq, st.pending_entry = st.next_seq, idx
        st.next_entry += 1
        for kind, text in entry_rows(obj, st.version):
            yield st.next_seq, text, kind, idx, eid
            st.next_seq += 1
        if raw.terminated:
            st.scanned_to, st.next_lineno = raw.end, raw.lineno + 1
    if sniffer is not None:  # (a header alone may yet be a JSON-mode stream's: read whole when it grows)
        st.scanned_to, st.next_lineno = 0, 1


def _stream_rows(f, st: _FileState) -> Iterator[tuple[int, str, str, int, str | None]]:
    """:func:`_file_rows` of an event stream (``pi --mode json`` or ``rpc``): the rows of
    the conversation the app rebuilds from it, with the app's entry indexes and ids. Read
    whole every time (``st.scanned_to`` stays 0, so no fingerprint is kept and the index
    reads it again whole when it changes): a later record can change an earlier entry (a
    message that was still streaming ends)."""
    from ..read.stream import stream_entries

    header, entries = stream_entries(f, st.path)
    if not st.has_header:  # (a JSON-mode stream's header was read as a session's: its rows are out)
        for kind, text in (("cwd", header.get("cwd")), ("id", header.get("id"))):
            if isinstance(text, str) and text:
                yield st.next_seq, text, kind, -1, None
                st.next_seq += 1
    st.has_header, st.version, st.scanned_to, st.next_lineno = 1, 3, 0, 1
    for idx, obj in enumerate(entries):
        for kind, text in entry_rows(obj):
            yield st.next_seq, text, kind, idx, obj["id"]
            st.next_seq += 1
    st.next_entry = len(entries)


class SearchIndex:
    """The search index file (one SQLite connection; use one object per thread)."""

    def __init__(self, index_dir: str | os.PathLike | None = None):
        self.dir = Path(index_dir) if index_dir is not None else default_cache_dir()
        self.file = self.dir / f"search-v{SCHEMA_VERSION}.sqlite3"
        self.in_memory = False
        self.conn = self._open()

    # -------------------------------------------------------------- opening
    def _open(self) -> sqlite3.Connection:
        if private_dir(self.dir) is not None:  # (else: another user's folder; said so)
            try:
                self._remove_old_versions()
                return self._connect_file()
            except sqlite3.OperationalError:
                pass  # locked for a minute, read-only, ...: not corrupt; use memory this time
            except sqlite3.DatabaseError as exc:
                conn = self._start_again(exc)  # corrupt or foreign: it is a cache
                if conn is not None:
                    return conn
            except OSError:
                pass
        self.in_memory = True
        return self._connect(":memory:")

    def _connect_file(self) -> sqlite3.Connection:
        """The index file, made private (``0600``) first: SQLite gives its ``-wal`` and
        ``-shm`` files the mode of the database file."""
        for suffix in ("", "-wal", "-shm"):
            name = str(self.file) + suffix
            try:
                os.chmod(name, 0o600)  # (also when an older pitui made it)
            except FileNotFoundError:
                if not suffix:
                    os.close(os.open(name, os.O_WRONLY | os.O_CREAT, 0o600))
        return self._connect(str(self.file))

    def _start_again(self, exc: sqlite3.DatabaseError) -> sqlite3.Connection | None:
        """Delete the damaged index file and make a new one (None when that fails too)."""
        notice(f"{self.file}: the search index was damaged ({exc}) and is rebuilt")
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(str(self.file) + suffix)
            except OSError:
                pass
        try:
            return self._connect_file()
        except (sqlite3.Error, OSError):
            return None

    def _recover(self, exc: sqlite3.DatabaseError) -> None:
        """Damage found while the index was in use: start again with a new, empty one."""
        self.close()
        conn = None if self.in_memory else self._start_again(exc)
        if conn is None:
            self.in_memory = True
            conn = self._connect(":memory:")
        self.conn = conn

    def _remove_old_versions(self) -> None:
        for old in range(1, SCHEMA_VERSION):
            for suffix in ("", "-wal", "-shm"):
                try:
                    os.unlink(self.dir / f"search-v{old}.sqlite3{suffix}")
                except OSError:
                    pass

    @staticmethod
    def _connect(target: str) -> sqlite3.Connection:
        conn = sqlite3.connect(target, timeout=60, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA busy_timeout=60000")
            if target != ":memory:":
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA cache_size=-32000")
            conn.execute("BEGIN IMMEDIATE")
            try:
                have = conn.execute(
                    "SELECT name FROM sqlite_master WHERE name IN ('files', 'rowdata', 'rows')"
                ).fetchall()
                if len(have) != 3:
                    if have:
                        raise sqlite3.DatabaseError("incomplete schema")
                    for stmt in _SCHEMA:
                        conn.execute(stmt)
                    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                elif conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                    raise sqlite3.DatabaseError("wrong schema version")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        except BaseException:
            conn.close()
            raise
        return conn

    def close(self) -> None:
        try:
            self.conn.close()
        except sqlite3.Error:
            pass

    def __enter__(self) -> "SearchIndex":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -------------------------------------------------------------- updating
    def _state(self, path: str) -> _FileState | None:
        row = self.conn.execute(f"SELECT {_FILE_COLS} FROM files WHERE path=?", (path,)).fetchone()
        return _FileState(*row) if row else None

    def _known(self) -> dict[str, tuple[int, tuple[int, int, int, int]]]:
        """Path -> (file id, (dev, ino, size, mtime_ns)) of every indexed file."""
        return {p: (i, (d, n, s, m))
                for i, p, d, n, s, m in self.conn.execute("SELECT id, path, dev, ino, size, mtime_ns FROM files")}

    def _delete_rows(self, fid: int, from_seq: int = 0) -> None:
        """Drop a file's rows from ``from_seq`` on (the index needs each row's text back)."""
        lo = (fid << _SEQ_BITS) + from_seq
        hi = (fid + 1) << _SEQ_BITS
        conn = self.conn
        pos = lo
        while True:
            chunk = conn.execute(
                "SELECT id, data FROM rowdata WHERE id >= ? AND id < ? ORDER BY id LIMIT 500", (pos, hi)
            ).fetchall()
            if not chunk:
                break
            conn.executemany(
                "INSERT INTO rows(rows, rowid, text) VALUES ('delete', ?, ?)", [(i, _unpack(d)) for i, d in chunk]
            )
            pos = chunk[-1][0] + 1
        conn.execute("DELETE FROM rowdata WHERE id >= ? AND id < ?", (lo, hi))

    def _save_state(self, st: _FileState) -> None:
        self.conn.execute(
            "UPDATE files SET path=?, dev=?, ino=?, size=?, mtime_ns=?, scanned_to=?, next_lineno=?, next_entry=?, next_seq=?, "
            "pending_seq=?, pending_entry=?, version=?, has_header=?, fingerprint=?, error=? WHERE id=?",
            st.values(),
        )

    def _index_file_guarded(self, path: str, stats: IndexStats) -> tuple[int, int | None]:
        """:meth:`_index_file`, with a file whose reading fails (for any reason but the
        index's own) left out and marked failed: one file never fails a whole update or
        search."""
        conn = self.conn
        conn.execute("SAVEPOINT pitui_file")
        try:
            got = self._index_file(path, stats)
        except sqlite3.Error:
            conn.execute("ROLLBACK TO pitui_file")
            conn.execute("RELEASE pitui_file")
            raise
        except Exception as exc:
            conn.execute("ROLLBACK TO pitui_file")
            self._mark_failed(path, exc)
            conn.execute("RELEASE pitui_file")
            return 0, None
        conn.execute("RELEASE pitui_file")
        return got

    def _mark_failed(self, path: str, exc: Exception) -> None:
        """Record ``path`` as not searchable (until it changes), its rows dropped."""
        try:
            fst = os.stat(path)
            state = self._state(path)
            if state is None:
                cur = self.conn.execute(
                    "INSERT INTO files(path, size, mtime_ns, scanned_to, next_lineno, next_entry, next_seq, "
                    "version, has_header, fingerprint) VALUES (?, 0, 0, 0, 1, 0, 0, 3, 0, '')",
                    (path,),
                )
                state = _FileState(cur.lastrowid, path)
            else:
                self._delete_rows(state.id)
                state = _FileState(state.id, path)
            state.size, state.mtime_ns = fst.st_size, fst.st_mtime_ns
            state.error = f"cannot be read ({type(exc).__name__})"
            self._save_state(state)
        except sqlite3.Error:
            raise
        except Exception:
            pass  # (a name SQLite cannot hold: the file is tried again next time)

    def _index_file(self, path: str, stats: IndexStats) -> int:
        """(Re)index one file inside the caller's transaction: ``(characters inserted, file id)``,
        the id None when the file is not a readable session."""
        try:
            f = open_regular(path)
        except OSError:  # (NotRegular too)
            return 0, None
        with f:
            fst = os.fstat(f.fileno())
            ident = _identity(fst)
            state = self._state(path)
            if state is not None and (state.dev, state.ino, state.size, state.mtime_ns) == ident:
                return 0, (state.id if state.error is None else None)  # another updater got here first
            if (
                state is not None
                and (state.dev, state.ino) == ident[:2]  # the same file...
                and state.error is None
                and state.has_header
                and fst.st_size > state.size  # grew: same size with another mtime is a rewrite
                and 0 < state.scanned_to <= fst.st_size
                and state.fingerprint
                and file_fingerprint(path, state.scanned_to) == state.fingerprint
            ):
                if state.pending_seq is not None:
                    self._delete_rows(state.id, state.pending_seq)
                    state.next_seq = state.pending_seq
                    state.next_entry = state.pending_entry if state.pending_entry is not None else state.next_entry
                    state.pending_seq = state.pending_entry = None
            else:
                if state is None:
                    cur = self.conn.execute(
                        "INSERT INTO files(path, dev, ino, size, mtime_ns, scanned_to, next_lineno, next_entry, "
                        "next_seq, version, has_header, fingerprint) VALUES (?, 0, 0, 0, 0, 0, 1, 0, 0, 3, 0, '')",
                        (path,),
                    )
                    state = _FileState(cur.lastrowid, path)
                else:
                    self._delete_rows(state.id)
                    state = _FileState(state.id, path)
                    stats.reindexed += 1
            state.dev, state.ino, state.size, state.mtime_ns = ident
            stats.indexed += 1
            chars = self._scan(f, state, stats)
            state.fingerprint = file_fingerprint(path, state.scanned_to) if state.scanned_to else ""
            self._save_state(state)
            return chars, (state.id if state.error is None else None)

    def _scan(self, f, st: _FileState, stats: IndexStats) -> int:
        base = st.id << _SEQ_BITS
        batch: list[tuple] = []
        batch_chars = 0
        total_chars = 0
        start = st.scanned_to

        def flush() -> None:
            self.conn.executemany("INSERT INTO rows(rowid, text) VALUES (?, ?)", [(base + b[0], b[1]) for b in batch])
            self.conn.executemany(
                "INSERT INTO rowdata(id, kind, entry, eid, data) VALUES (?, ?, ?, ?, ?)",
                [(base + b[0], _KIND_CODE[b[2]], b[3], b[4], _pack(b[1])) for b in batch],
            )
            stats.rows += len(batch)

        for row in _file_rows(f, st):
            batch.append(row)
            batch_chars += len(row[1])
            if len(batch) >= _BATCH_ROWS or batch_chars >= _BATCH_CHARS:
                flush()
                total_chars += batch_chars
                batch.clear()
                batch_chars = 0
        if st.error is not None:  # not a Pi session after all: nothing of it is kept
            self._delete_rows(st.id)
            st.next_seq = 0
            return 0
        if batch:
            flush()
            total_chars += batch_chars
        if not st.has_header:
            st.error = "no session header"
        stats.bytes += max(0, st.size - start)
        return total_chars

    def _plan(self, paths: list[str], root: SessionRoot | None) -> tuple[list[str], list[int]]:
        """``(stale, gone)``: paths whose size or mtime changed (or that are new), in the
        given order; ids of indexed files under ``root`` that no longer exist."""
        known = self._known()
        stale = []
        for p in paths:
            k = known.get(p)
            if k is not None:
                try:
                    fst = os.stat(p)
                except OSError:
                    continue
                if k[1] == _identity(fst):
                    continue
            stale.append(p)
        gone: list[int] = []
        if root is not None:
            present = set(paths)
            rp = str(root.path)
            prefix = rp.rstrip(os.sep) + os.sep
            for p, k in known.items():
                if p not in present and (p == rp or p.startswith(prefix)) and not os.path.isfile(p):
                    gone.append(k[0])
        return stale, gone

    def _drop(self, gone: list[int], stats: IndexStats) -> None:
        if not gone:
            return
        with _Txn(self.conn) as txn:
            for fid in gone:
                txn.begin()
                self._delete_rows(fid)
                self.conn.execute("DELETE FROM files WHERE id=?", (fid,))
                txn.wrote(0)
        stats.removed += len(gone)

    def update(
        self,
        paths: Iterable[str],
        *,
        root: SessionRoot | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> IndexStats:
        """Bring the rows of ``paths`` up to date; drop files under ``root`` that are gone.

        ``on_progress(done, total)`` counts the files that need reading (called with
        ``(0, total)`` first when there are any). ``should_stop()`` is polled between files:
        what was indexed so far is kept. An index found damaged on the way is started again."""
        paths = list(paths)
        try:
            return self._update(paths, root, on_progress, should_stop)
        except sqlite3.DatabaseError as exc:
            if not _is_corrupt(exc):
                raise
            self._recover(exc)
        return self._update(paths, root, on_progress, should_stop)

    def _update(
        self,
        paths: list[str],
        root: SessionRoot | None,
        on_progress: Callable[[int, int], None] | None,
        should_stop: Callable[[], bool] | None,
    ) -> IndexStats:
        t0 = time.perf_counter()
        stats = IndexStats()
        paths = list(paths)
        stats.files = len(paths)
        stale, gone = self._plan(paths, root)
        self._drop(gone, stats)
        total = len(stale)
        if total and on_progress is not None:
            on_progress(0, total)
        with _Txn(self.conn) as txn:
            for done, p in enumerate(stale, 1):
                if should_stop is not None and should_stop():
                    stats.cancelled = True
                    break
                txn.begin()
                chars, _ = self._index_file_guarded(p, stats)
                txn.wrote(chars)
                if on_progress is not None:
                    on_progress(done, total)
        stats.seconds = time.perf_counter() - t0
        return stats

    # -------------------------------------------------------------- querying
    def file_ids(self) -> dict[str, int]:
        return {p: i for i, p in self.conn.execute("SELECT id, path FROM files WHERE error IS NULL")}

    def candidate_files(self, q: Query) -> set[int] | None:
        """Files that may hold a result, as far as the terms that match few rows tell (None:
        no term narrows up front, and each file is checked when its turn comes).

        Only a term's first :data:`_PROBE_ROWS` matching rows are read: a term that matches
        more (a common word) is left to the per-file check (:meth:`match_file` asks FTS for
        that file's rows only), so the first results of a common word cost what their
        files cost, not a pass over every row that holds the word."""
        cands: set[int] | None = None
        for t in q.terms:
            if t.fts is None:
                continue
            sql = "SELECT rowid >> 32 FROM rows WHERE rows MATCH ? LIMIT ?"
            try:
                got = self.conn.execute(sql, (t.fts, _PROBE_ROWS + 1)).fetchall()
            except sqlite3.OperationalError as exc:
                if not _fts_refused(exc):
                    raise
                continue  # (an expression FTS5 refuses narrows nothing: the exact match decides)
            if len(got) > _PROBE_ROWS:
                continue
            ids = {r[0] for r in got}
            cands = ids if cands is None else cands & ids
            if not cands:
                return set()
        return cands

    def match_file(
        self, fid: int, q: Query, max_hits: int = MAX_HITS, should_stop: Callable[[], bool] | None = None
    ) -> tuple[list[Hit], int] | None:
        """Exact hits of ``q`` in file ``fid``: ``(hits, hit_count)``, or None when some term
        matches none of its rows (or ``should_stop()`` came true on the way)."""
        terms = q.terms
        lo, hi = fid << _SEQ_BITS, (fid + 1) << _SEQ_BITS
        only = only_d = ""
        if q.kinds:  # only the rows that can hold such a call (the others' texts are not read)
            codes = ",".join(str(_KIND_CODE[k]) for k in _kind_row_types(q.kinds))
            only, only_d = f" AND kind IN ({codes})", f" AND d.kind IN ({codes})"
        cur = None
        if terms and all(t.fts for t in terms):
            expr = " OR ".join(f"({t.fts})" for t in terms) if len(terms) > 1 else terms[0].fts
            try:
                cur = self.conn.execute(
                    "SELECT d.kind, d.entry, d.eid, d.data FROM rows JOIN rowdata d ON d.id = rows.rowid "
                    f"WHERE rows MATCH ? AND rows.rowid >= ? AND rows.rowid < ?{only_d} ORDER BY rows.rowid",
                    (expr, lo, hi),
                )
            except sqlite3.OperationalError as exc:
                if not _fts_refused(exc):
                    raise
        if cur is None:
            cur = self.conn.execute(
                f"SELECT kind, entry, eid, data FROM rowdata WHERE id >= ? AND id < ?{only} ORDER BY id",
                (lo, hi),
            )
        return match_rows(((KINDS[k], e, i, _unpack(d)) for k, e, i, d in cur), q, max_hits, should_stop)

    def query(
        self,
        q: Query,
        infos: Iterable[SessionInfo],
        *,
        limit: int | None = None,
        max_hits: int = MAX_HITS,
        should_stop: Callable[[], bool] | None = None,
        update: bool = False,
        root: SessionRoot | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        stats: IndexStats | None = None,
    ) -> Iterator[SessionHits]:
        """Results in the order of ``infos`` (pass them newest first).

        With ``update``, files that changed are (re)indexed on the way, each just before it
        is searched, so results stream in order even while the index is being built. An
        index found damaged on the way is started again (with ``update``: it is rebuilt as
        the search goes on) and the search goes on from the sessions not yet given."""
        infos = list(infos)
        given: set[str] = set()
        for attempt in (0, 1):
            try:
                for r in self._query(q, [i for i in infos if i.path not in given],
                                     limit=None if limit is None else limit - len(given), max_hits=max_hits,
                                     should_stop=should_stop, update=update or attempt > 0, root=root,
                                     on_progress=on_progress, stats=stats):
                    given.add(r.path)
                    yield r
                return
            except sqlite3.DatabaseError as exc:
                if attempt or not _is_corrupt(exc):
                    raise
                self._recover(exc)

    def _query(
        self,
        q: Query,
        infos: list[SessionInfo],
        *,
        limit: int | None,
        max_hits: int,
        should_stop: Callable[[], bool] | None,
        update: bool,
        root: SessionRoot | None,
        on_progress: Callable[[int, int], None] | None,
        stats: IndexStats | None,
    ) -> Iterator[SessionHits]:
        stats = stats if stats is not None else IndexStats()
        stale: set[str] = set()
        if update:
            stale_list, gone = self._plan([i.path for i in infos], root)
            self._drop(gone, stats)
            stale = set(stale_list)
        fids = self.file_ids()
        cands = self.candidate_files(q)  # over what is indexed now: not used for stale files
        total = len(stale)
        done = 0
        if total and on_progress is not None:
            on_progress(0, total)
        n = 0
        with _Txn(self.conn) as txn:
            for info in infos:
                if should_stop is not None and should_stop():
                    stats.cancelled = True
                    return
                if info.path in stale:
                    txn.begin()
                    chars, fid = self._index_file_guarded(info.path, stats)
                    txn.wrote(chars)
                    done += 1
                    if on_progress is not None:
                        on_progress(done, total)
                    if fid is None:
                        continue
                else:
                    fid = fids.get(info.path)
                    if fid is None or (cands is not None and fid not in cands):
                        continue
                got = self.match_file(fid, q, max_hits, should_stop)
                if got is None:
                    continue
                txn.commit()  # never hold the write lock while the caller holds the results
                hits, count = got
                yield SessionHits(
                    info.path, info.id, info.name, info.first_message, info.cwd, info.modified_ms, hits, count, info
                )
                n += 1
                if limit is not None and n >= limit:
                    return


class _Txn:
    """Write transactions spanning several files: committed when big or old enough, before
    handing results out, and at the end; rolled back on an error."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.open = False
        self.chars = 0
        self.t0 = 0.0

    def begin(self) -> None:
        if not self.open:
            self.conn.execute("BEGIN IMMEDIATE")
            self.open = True
            self.chars = 0
            self.t0 = time.perf_counter()

    def wrote(self, chars: int) -> None:
        self.chars += chars
        if self.chars >= _TXN_CHARS or time.perf_counter() - self.t0 >= _TXN_SECONDS:
            self.commit()

    def commit(self) -> None:
        if self.open:
            self.open = False
            self.conn.execute("COMMIT")

    def __enter__(self) -> "_Txn":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None or exc_type is GeneratorExit:
            self.commit()
        elif self.open:
            self.open = False
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass


# ---------------------------------------------------------------------------- API


def _infos(root: SessionRoot, index_dir) -> list[SessionInfo]:
    listing = SessionIndex(index_dir)
    return [i for i in list_sessions(root, listing) if i.error is None]


def update_index(
    root: SessionRoot,
    *,
    index_dir: str | os.PathLike | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> IndexStats:
    """Bring the search index of every session under ``root`` up to date (see the module
    docstring); returns what was done. Safe to call from several threads or processes."""
    paths = [sf.path for sf in find_session_files(root)]
    with SearchIndex(index_dir) as idx:
        return idx.update(paths, root=root, on_progress=on_progress, should_stop=should_stop)


def search(
    root: SessionRoot,
    query: str | Query,
    *,
    index_dir: str | os.PathLike | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    limit: int | None = None,
    max_hits: int = MAX_HITS,
    update: bool = True,
    should_stop: Callable[[], bool] | None = None,
    infos: Iterable[SessionInfo] | None = None,
    use_index: bool = True,
) -> Iterator[SessionHits]:
    """Search every session under ``root``; yields one :class:`SessionHits` per matching
    session, newest session first (Pi's order), as each is found.

    Files that changed since they were indexed are (re)indexed on the way, each just before
    it is searched (``on_progress(done, total)`` counts them; ``update=False`` searches the
    index as it is), so even a first search over a large store streams its results.
    ``limit`` caps the sessions yielded, ``max_hits`` the hits kept per session
    (``hit_count`` counts them all). Raises :class:`QueryError` at once for a query that
    cannot run. Stop iterating (or make ``should_stop()`` true) to cancel; the index keeps
    what was done. ``infos``: the sessions to search, in the order wanted (default: every
    readable session under ``root``, newest first, from the listing index); an app that has
    listed them already passes its list. ``use_index=False`` reads every session file
    instead of the index (nothing is written; slower): the same hits in the same order."""
    q = query if isinstance(query, Query) else parse_query(query)
    if not use_index:
        return _scan_search(root, q, index_dir, limit, max_hits, should_stop, infos)
    return _search(root, q, index_dir, on_progress, limit, max_hits, update, should_stop, infos)


def _session_infos(root, index_dir, infos) -> list[SessionInfo]:
    if infos is None:
        return _infos(root, index_dir)
    return [i for i in infos if i.error is None]


def _search(root, q, index_dir, on_progress, limit, max_hits, update, should_stop, infos) -> Iterator[SessionHits]:
    infos = _session_infos(root, index_dir, infos)
    with SearchIndex(index_dir) as idx:
        yield from idx.query(
            q, infos, limit=limit, max_hits=max_hits, should_stop=should_stop,
            update=update, root=root, on_progress=on_progress,
        )  # fmt: skip


def _scan_search(root, q, index_dir, limit, max_hits, should_stop, infos) -> Iterator[SessionHits]:
    """:func:`search` without the index: each session file read (as the index reads it,
    :func:`_file_rows`) and matched (:func:`match_rows`) in turn."""
    n = 0
    for info in _session_infos(root, index_dir, infos):
        if should_stop is not None and should_stop():
            return
        got = _scan_file(info.path, q, max_hits, should_stop)
        if got is None:
            continue
        hits, count = got
        yield SessionHits(info.path, info.id, info.name, info.first_message, info.cwd, info.modified_ms, hits, count, info)
        n += 1
        if limit is not None and n >= limit:
            return


def _scan_file(path: str, q: Query, max_hits: int, should_stop) -> tuple[list[Hit], int] | None:
    try:
        f = open_regular(path)
    except OSError:
        return None
    st = _FileState(0, path)
    try:
        with f:
            got = match_rows(((kind, idx, eid, text) for _, text, kind, idx, eid in _file_rows(f, st)),
                             q, max_hits, should_stop)  # fmt: skip
    except Exception:  # (a file that cannot be read is left out, as the index leaves it out)
        return None
    return got if st.error is None else None
