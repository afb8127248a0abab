"""Pi's ``/resume`` query language, parsed into terms, and what each term tells the index
about the rows that match it.

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

How a query matches a session's rows is :mod:`.search_match`'s.

What a term requires of a chunk
-------------------------------
Beside its pattern, a :class:`Term` carries what every row matching it holds, so that the
index (:mod:`.search_index`) reads only the chunks that may hold a match: an FTS5
expression, its ASCII literals lowercased (:func:`_needles`), its word-pair keys
(:func:`.search_words._pair_keys`) and, for a regex, its literals with one character
between them (:func:`_gap_filter`). A literal is looked up as the AND of the trigrams of
its runs of word characters, a space added where the literal shows a word's edge (``fix
the``: ``fix`` ends a word, ``the`` starts one): every chunk holding a row that contains the
literal satisfies it, so FTS only decides which chunks are worth reading, and results are
exact. A term with no run of three word characters (``ab``, ``日本``, ``a.b``), and a regex
without such a literal (:func:`_required_literals`), cannot be narrowed: every chunk is read.
"""

from __future__ import annotations

import re
import re._constants as _sre_c  # Python's regex parser: the literal runs every match must contain
import re._parser as _sre_parse
import warnings
from dataclasses import dataclass
from typing import Callable, Iterable

from ..text import visible
from .search_words import _WORD_CHARS, _fold, _pair_keys


class QueryError(ValueError):
    """A query that cannot run (bad regex, empty query); ``str()`` is one line for the user."""


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
    pairs: tuple[int, ...] = ()  # word-pair keys (:func:`_pair_keys`) a chunk holding a match has
    gaps: tuple = ()  # per two literals with one character between them: (key, trigrams) (:func:`_gap_filter`)


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    mode: str  # "tokens" | "regex"
    terms: tuple[Term, ...]  # (none: a ``kind:`` query alone, every call of the kinds)
    kinds: frozenset[str] = frozenset()  # ``kind:`` qualifiers, lowercase (empty: every row)
    # how hits are reported: a session's hits of one kind with the same line of context as
    # one hit with their count (:func:`.search_match.match_rows`); set by ``search(fold=True)``
    fold: bool = False


def _fts_quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


_MAX_GRAMS = 16  # trigrams in one term's expression: enough to be selective, cheap to run


def _fts_literal(lit: str) -> str | None:
    """An FTS5 expression (AND of trigrams) true for every chunk whose words can hold a
    row containing ``lit`` (case-insensitively): the trigrams of each run of word
    characters in ``lit``, with a space before it when an ASCII character that is not a
    word character comes before it in ``lit`` (the text has one there too, so a word starts
    there), and after it likewise. ``oken`` is inside some word; in ``fix the``, ``fix``
    ends a word and ``the`` starts one. None when no trigram can be had."""
    folded = _fold(lit).lower()
    grams: list[str] = []
    length = len(folded)
    start = 0
    while start < length:
        if folded[start] not in _WORD_CHARS:
            start += 1
            continue
        end = start
        while end < length and folded[end] in _WORD_CHARS:
            end += 1
        piece = (" " if start > 0 and folded[start - 1].isascii() else "") + folded[start:end] + (" " if end < length and folded[end].isascii() else "")
        grams.extend(piece[start : start + 3] for start in range(len(piece) - 2))
        start = end
    grams = list(dict.fromkeys(grams))
    if not grams:
        return None
    if len(grams) > _MAX_GRAMS:  # (spread over the literal)
        step = (len(grams) - 1) / (_MAX_GRAMS - 1)
        grams = [grams[round(index * step)] for index in range(_MAX_GRAMS)]
    return " AND ".join(_fts_quote(gram) for gram in grams)


def _fts_all(lits: Iterable[str]) -> str | None:
    parts = [expression for expression in (_fts_literal(literal) for literal in lits) if expression]
    return " AND ".join(parts) if parts else None


def _required_literals(pattern: str) -> list[str]:
    """Literal runs that every match of ``pattern`` contains (best effort, may be empty)."""
    parsed = _parsed(pattern)
    if parsed is None:
        return []
    sre = _sre_c
    out: list[str] = []

    def walk(items) -> None:
        run: list[str] = []

        def flush() -> None:
            if run:
                out.append("".join(run))
                run.clear()

        for op, av in items:
            if op is sre.LITERAL:
                run.append(chr(av))
            elif op is sre.SUBPATTERN:
                flush()
                walk(av[-1])
            elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
                flush()
                lo, _hi, sub = av
                if lo >= 1:
                    walk(sub)
            elif op is getattr(sre, "ATOMIC_GROUP", None):
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


def _parsed(pattern: str):
    """``pattern`` as Python's regex parser reads it, or None."""
    try:
        # Python warns where it reads RE2's syntax otherwise (``[[:digit:]]`` is a POSIX
        # class to RE2, a set and a "]" to Python): nothing is taken from such a pattern
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return _sre_parse.parse(pattern, re.IGNORECASE)
    except Exception:
        return None


def _one_char_gaps(pattern: str) -> list[tuple[str, str]]:
    """Literal runs that every match of ``pattern`` holds with one character between them,
    as ``(before, after)``: ``back.slash fix`` gives ``("back", "slash fix")`` (best effort)."""
    parsed = _parsed(pattern)
    if parsed is None:
        return []
    sre = _sre_c
    one = (sre.ANY, sre.IN, sre.NOT_LITERAL)
    out: list[tuple[str, str]] = []

    def walk(items) -> None:
        items = list(items)
        for index, (op, av) in enumerate(items):
            if op is sre.SUBPATTERN:
                walk(av[-1])
            elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
                if av[0] >= 1:
                    walk(av[2])
            elif op is getattr(sre, "ATOMIC_GROUP", None):
                walk(av)
            elif op in one and 0 < index < len(items) - 1 and items[index - 1][0] is sre.LITERAL and items[index + 1][0] is sre.LITERAL:
                before = index - 1
                while before > 0 and items[before - 1][0] is sre.LITERAL:
                    before -= 1
                after = index + 2
                while after < len(items) and items[after][0] is sre.LITERAL:
                    after += 1
                out.append(("".join(chr(code) for _o, code in items[before:index]), "".join(chr(code) for _o, code in items[index + 1 : after])))

    try:
        walk(parsed)
    except Exception:
        return []
    return out


def _gap_filter(before: str, after: str) -> tuple[int, tuple[tuple[str, str, str], ...]] | None:
    """What a chunk holds where ``before``, one character, then ``after`` is in a text: the
    pair key of ``before``'s last word and ``after``'s first (the character is no word
    character), or, for some word character x, the trigrams of a word holding the two
    around x (``ckx``, ``kxs``, ``xsl`` for ``back`` and ``slash``): ``(key, trigram
    triples)``. None: nothing to require (they do not end and start with two word
    characters, or a whole-word key cannot be had)."""
    left, right = _fold(before).lower(), _fold(after).lower()
    ma, mb = re.search(r"[a-z0-9_]+\Z", left), re.match(r"[a-z0-9_]+", right)
    if ma is None or mb is None or len(ma.group()) < 2 or len(mb.group()) < 2:
        return None
    keys = _pair_keys([left[max(0, ma.start() - 1) :] + " " + right[: mb.end() + 1]])
    if not keys:
        return None
    tail, head = ma.group()[-2:], mb.group()[:2]
    return keys[0], tuple((tail + char, tail[1] + char + head[0], char + head) for char in sorted(_WORD_CHARS))


def _gap_fts(trios: tuple[tuple[str, str, str], ...]) -> str:
    return " OR ".join("(" + " AND ".join(_fts_quote(group) for group in trio) + ")" for trio in trios)


def _needles(lits: Iterable[str]) -> tuple[str, ...]:
    """The ASCII literals, lowercased: on ASCII text ``lit in text.lower()`` is exactly what
    a case-insensitive match needs (non-ASCII letters such as the Kelvin sign match ASCII
    ones under ``re.IGNORECASE``, so non-ASCII text is always given to the regex)."""
    return tuple(sorted({literal.lower() for literal in lits if literal and literal.isascii()}, key=len, reverse=True))


def _term(kind: str, value: str) -> Term:
    if kind == "phrase":
        words = value.split()
        pattern = re.compile(r"\s+".join(re.escape(word) for word in words), re.IGNORECASE)
        phrase = " ".join(words)
        return Term("phrase", phrase, pattern, _fts_literal(phrase), _needles(words), _pair_keys([phrase]))
    pattern = re.compile(re.escape(value), re.IGNORECASE)
    return Term("term", value, pattern, _fts_literal(value), _needles([value]), _pair_keys([value]))


_KIND_PREFIX = "kind:"


def describe_kinds() -> str:
    """What ``kind:`` accepts, for messages and help: ``kinds: file_edit (edit), file_read
    (read, ls), ...; any other tool is a kind of its own, by its name (kind:subagent)``."""
    from ..model.tool_kinds import SHELL_EXEC, TOOL_KINDS

    tools: dict[str, list[str]] = {}
    for name, kind in TOOL_KINDS.items():
        tools.setdefault(kind, []).append(name)
    tools[SHELL_EXEC].append("! commands")
    listed = ", ".join(f"{kind} ({', '.join(names)})" for kind, names in sorted(tools.items()))
    return f"kinds: {listed}; any other tool is a kind of its own, by its name (kind:subagent)"


def parse_kind(value: str) -> str:
    """The kind a ``kind:<value>`` qualifier names, lowercase; raises :class:`QueryError`
    (naming the kinds) for one that names none.

    The kinds are :func:`pitui.core.model.tool_kinds.tool_kind`'s: ``file_read`` (``read``,
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

    from ..model.tool_kinds import TOOL_KINDS, tool_kind

    word = value.strip().lower()
    canonical = sorted(set(TOOL_KINDS.values()))
    tail = describe_kinds()
    if not word:
        raise QueryError(f"kind: needs a kind; {tail}")
    if word in canonical:
        return word
    if word in TOOL_KINDS:
        raise QueryError(f"{word} is a tool, not a kind: its calls are kind:{tool_kind(word)}; {tail}")
    near = [kind for kind in canonical if kind.startswith(word)] or difflib.get_close_matches(word, canonical, 1, 0.8)
    if near:
        raise QueryError(f"unknown kind {visible(value.strip())} (did you mean kind:{near[0]}?); {tail}")
    return word


def _is_kind_word(word: str) -> bool:
    return word[: len(_KIND_PREFIX)].lower() == _KIND_PREFIX


def _kinds_of(words: Iterable[str]) -> frozenset[str]:
    """The kinds the ``kind:`` qualifiers among ``words`` name."""
    return frozenset(parse_kind(word[len(_KIND_PREFIX) :]) for word in words if _is_kind_word(word))


def _kind_filter(kinds: frozenset[str]) -> Callable[[str, str], bool]:
    """Whether a row ``(row kind, text)`` is a call of one of ``kinds`` (see :func:`parse_kind`):
    a tool-call row's text begins with its tool's name (:func:`~.search_rows._tool_call_text`), and the
    kind is derived from that name here, at query time (the index keeps no tool kind)."""
    from ..model.tool_kinds import SHELL_EXEC, tool_kind

    shell = SHELL_EXEC in kinds

    def keep(row_kind: str, text: str) -> bool:
        if row_kind == "tool-call":
            sp = text.find(" ")
            return tool_kind(text if sp < 0 else text[:sp]).lower() in kinds
        return shell and row_kind == "bash"

    return keep


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
        gaps = tuple(gap for gap in (_gap_filter(before, after) for before, after in _one_char_gaps(src)) if gap is not None)
        term = Term("regex", src, pattern, _fts_all(lits), _needles(lits), _pair_keys(lits), gaps)
        return Query(query, "regex", (term,), kinds)
    tokens: list[tuple[str, str]] = []
    buf: list[str] = []
    in_quote = False

    def flush(kind: str) -> None:
        value = "".join(buf).strip()
        buf.clear()
        if value:
            tokens.append((kind, value))

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
        tokens = [("term", word) for word in trimmed.split()]
    else:
        flush("term")
    kinds = _kinds_of(value for kind, value in tokens if kind == "term")
    terms = []
    for kind, value in tokens:
        if kind == "phrase" and not value.split():
            continue
        if kind == "term" and _is_kind_word(value):
            continue
        terms.append(_term(kind, value))
    if not terms and not kinds:
        raise QueryError("empty query")
    return Query(query, "tokens", tuple(terms), kinds)
