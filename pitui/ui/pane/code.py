"""Code in the pane: Pygments lexers found fast (and made ready on a worker, so that the
UI thread never compiles one). Rich's Markdown, whose fenced code they draw, is in
:mod:`.markdown`."""

from __future__ import annotations

import os
import re
from typing import Any

__all__ = [
    "lexer_class_for_filename",
    "lexer_ready",
    "prepare_lexers",
]



_LEXERS: dict[str, Any] = {}
_THEMES: dict[str, Any] = {}


_FN_INDEX: tuple | None = None
_READY_LEXERS: set = set()  # lexer classes used once (their regular expressions compiled)
_READY_ALIASES: set[str] = set()  # fence languages whose lexer is ready (see prepare_lexers)


def _fn_index() -> tuple:
    """Pygments' file name patterns, indexed: ``*.ext`` patterns by their suffix, plain
    names by name, and the few others compiled; lexer aliases; each lexer's module; the
    longest suffix.
    Pygments' own lookup compiles all ~900 patterns on its first call (~0.3 s) and tries
    each on every call. Lexers of Pygments plugins are not looked for (that imports
    ``importlib.metadata`` and scans every installed package, ~0.1 s)."""
    global _FN_INDEX
    if _FN_INDEX is None:
        import fnmatch

        from pygments.lexers._mapping import LEXERS

        suffixes: dict[str, list] = {}
        names: dict[str, list] = {}
        others: list = []
        aliases: dict[str, str] = {}
        modules: dict[str, str] = {}
        for mod, name, lexer_aliases, patterns, _mimes in LEXERS.values():
            modules[name] = mod
            for alias in lexer_aliases:
                aliases.setdefault(alias, name)
            for pat in patterns:
                if pat.startswith("*.") and not any(char in pat[1:] for char in "*?["):
                    suffixes.setdefault(pat[1:], []).append((name, pat))
                elif not any(char in pat for char in "*?["):
                    names.setdefault(pat, []).append((name, pat))
                else:
                    others.append((name, pat, re.compile(fnmatch.translate(pat)).match))
        _FN_INDEX = (suffixes, names, others, aliases, modules, max(map(len, suffixes)))
    return _FN_INDEX


def _candidates(path: str) -> list[tuple[str, str]]:
    """(lexer name, pattern) of every Pygments lexer whose file patterns match ``path``."""
    suffixes, names, others, _aliases, _modules, longest = _fn_index()
    fn = os.path.basename(path)
    found: list[tuple[str, str]] = list(names.get(fn, ()))
    # (only the suffixes no longer than the longest pattern's: a name of a million dots from
    # a session would otherwise cost a million slices of it)
    dot = fn.find(".", max(0, len(fn) - longest))
    while dot >= 0:
        found.extend(suffixes.get(fn[dot:], ()))
        dot = fn.find(".", dot + 1)
    found.extend((name, pat) for name, pat, match in others if match(fn))
    return found


def _loaded(names) -> bool:
    """Whether the modules of these lexers are imported (finding a class is cheap then)."""
    import sys

    modules = _fn_index()[4]
    return all(modules[name] in sys.modules for name in names)


def lexer_class_for_filename(path: str):
    """The Pygments lexer class for a file name, exactly as Pygments'
    ``find_lexer_class_for_filename(path)`` picks it among its own lexers (None when
    there is none)."""
    from pygments.lexers import find_lexer_class

    found = _candidates(path)
    matches = [(cls, pat) for cls, pat in ((find_lexer_class(name), pat) for name, pat in found) if cls is not None]
    if not matches:
        return None
    return max(matches, key=lambda candidate: (candidate[0].priority + (0.5 if "*" not in candidate[1] else 0), candidate[0].__name__))[0]


def _lexer_class_by_name(name: str):
    """The class of ``pygments.lexers.get_lexer_by_name(name)`` among Pygments' own
    lexers (None when it is not one of them)."""
    from pygments.lexers import find_lexer_class

    lname = _fn_index()[3].get(name.lower())
    return find_lexer_class(lname) if lname is not None else None


def _class_ready(cls) -> bool:
    """Whether making a lexer of class ``cls`` is cheap now (a regex lexer compiles its
    token tables the first time one is made)."""
    if cls in _READY_LEXERS:
        return True
    from pygments.lexer import RegexLexer

    return not (isinstance(cls, type) and issubclass(cls, RegexLexer)) or "_tokens" in cls.__dict__


def _ext_of(path: str) -> str:
    return os.path.splitext(path)[1].lower() or os.path.basename(path).lower()


def lexer_ready(item: tuple) -> bool:
    """Whether a lexer a draw put off (``("file", path)`` or ``("alias", language)``)
    can be had at once now."""
    kind, what = item
    return _ext_of(what) in _LEXERS if kind == "file" else what.lower() in _READY_ALIASES


def prepare_lexers(items) -> None:
    """Find and make the lexers that draws put off (on a worker thread: their modules are
    imported and their regular expressions compiled the first time)."""
    for kind, what in items:
        try:
            if kind == "file":
                _lexer_for(what)
            else:
                _fence_lexer(what)
        except Exception:
            pass
        if kind == "alias":
            _READY_ALIASES.add(what.lower())


_FENCE_RE = re.compile(r"^[ \t]{0,3}(?:`{3,}|~{3,})[ \t]*([^\s`]+)", re.M)


def _fences_not_ready(src: str, pending: set) -> set[str] | None:
    """The languages of ``src``'s fenced code whose lexer is not ready (they go to
    ``pending``): those fences are drawn plain for now."""
    if "```" not in src and "~~~" not in src:
        return None
    out = set()
    aliases = _fn_index()[3]
    for name in set(_FENCE_RE.findall(src)):
        low = name.lower()
        if low in _READY_ALIASES:
            continue
        lname = aliases.get(low)
        if lname is None:
            continue  # not a Pygments lexer of its own: left to Rich
        if _loaded((lname,)):
            try:
                from pygments.lexers import find_lexer_class

                if _class_ready(find_lexer_class(lname)):
                    _READY_ALIASES.add(low)
                    continue
            except Exception:
                continue
        pending.add(("alias", name))
        out.add(name)
    return out


_FENCE_LEXERS: dict[str, Any] = {}  # fence language (lower case) -> lexer
_SYNTAX_THEMES: dict[str, Any] = {}


def _fence_lexer(name: str):
    """The lexer Rich's ``Syntax`` would use for a fence in ``name`` (made once: Rich looks
    it up among all of Pygments' lexers and plugins for every fence it draws). Plain text
    when Pygments has no lexer of that name; lexers of Pygments plugins are not looked for
    (see ``_fn_index``)."""
    key = name.lower()
    lexer = _FENCE_LEXERS.get(key)
    if lexer is None:
        from pygments.lexers.special import TextLexer

        try:
            cls = _lexer_class_by_name(key) or TextLexer
            lexer = cls(stripnl=False, ensurenl=True, tabsize=4)
            _READY_LEXERS.add(cls)
        except Exception:
            lexer = TextLexer(stripnl=False, ensurenl=True, tabsize=4)
        _FENCE_LEXERS[key] = lexer
    return lexer


def _lexer_for(path: str, lazy: bool = False):
    """A Pygments lexer for a file name, or None (cached by extension). With ``lazy``,
    ``("file", path)`` instead when finding or making it would be slow (a lexer module
    to import, or regular expressions to compile): see ``prepare_lexers``."""
    ext = _ext_of(path)
    if ext in _LEXERS:
        return _LEXERS[ext]
    if lazy and _FN_INDEX is None:
        return ("file", path)  # (the index of file names is made with the lexer, off this thread)
    try:
        if lazy and not _loaded(name for name, _pat in _candidates(path)):
            return ("file", path)
        cls = lexer_class_for_filename(path)
    except Exception:
        cls = None
    if cls is None or cls.name in ("Text only", "Text output"):
        _LEXERS[ext] = None
        return None
    if lazy and not _class_ready(cls):
        return ("file", path)
    try:
        lexer = cls(stripnl=False, ensurenl=False)
        _READY_LEXERS.add(cls)
    except Exception:
        lexer = None
    _LEXERS[ext] = lexer
    return lexer

