"""Making session text safe to show: the one place that decides it.

Everything read from a session file is untrusted: tool output holds whatever a web page, a
build or ``cat`` of a binary printed, and names, labels, ids and paths are free text. No
such string may reach a terminal as a control sequence. :func:`visible` turns every control
character into a visible stand-in (``^[`` for ESC, ``^?`` for DEL, ``\\x9b`` for a C1
control, the way ``less`` and Pi's own TUI show them; ``\\u202e`` for a bidi control, which
would show text in another order than it is stored; in a row, ``\\u2028`` for the line
separator, a line break to many tools) and leaves printable Unicode alone.
Lone surrogates (which Pi's ``JSON.stringify`` writes for broken UTF-16) become U+FFFD.

:func:`strip_ansi` drops whole, well-formed escape sequences first, for text such as tool
output where colour codes are common and showing them as ``^[[32m`` would only be noise; any
control character it leaves is still made visible by :func:`visible`.

Every path from session data to the screen or to human-readable command-line output goes
through :func:`visible` (or :func:`clean`, which does both). ``--json`` output stays exact.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

__all__ = ["visible", "strip_ansi", "clean", "has_controls", "shown_as_is", "json_safe", "CONTROL_RE", "BIDI_CONTROLS", "text_lines",
           "json_compact", "json_pretty"]

# The explicit bidirectional formatting characters: embeddings and overrides (U+202A-U+202E)
# and isolates (U+2066-U+2069). Raw, they make a terminal or a browser show text in another
# order than it is stored ("Trojan Source": a command that reads as harmless and is not), and
# an override left open reorders whatever follows it, pitui's own text too.
BIDI_CONTROLS = "\u202a-\u202e\u2066-\u2069"
# C0 controls, DEL, C1 controls, the bidi controls, the Unicode line and paragraph separators
# (U+2028, U+2029: line breaks to JavaScript and to many tools that split text into lines)
# and lone surrogates: everything :func:`visible` replaces in a row.
CONTROL_RE = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI_CONTROLS}\u2028\u2029\ud800-\udfff]")

# Characters whose width on screen depends on the terminal, so that a row measured by the
# width table can spill past its panel: the zero width joiner (U+200D, which some
# terminals draw as one glyph of a joined emoji sequence and others as each part), the
# emoji presentation selector VS16 (U+FE0F, one cell or two), the regional indicators of
# flags (U+1F1E6-U+1F1FF) and the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0, blank
# and zero to two cells wide). Shown (not copied) as what every terminal draws alike: the
# joiner and the selector dropped (each emoji of a sequence its own glyph), a flag's
# letters (``US``), a filler's code (``\u3164``).
_UNEVEN = "\u200d\ufe0f\U0001f1e6-\U0001f1ff\u115f\u1160\u3164\uffa0"
# what visible() replaces: in a row, CONTROL_RE's characters and those; in a block of text
# that keeps its lines, the same but tab, newline and the separators
_SHOW_RE = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI_CONTROLS}\u2028\u2029\ud800-\udfff{_UNEVEN}]")
_SHOW_BLOCK_RE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI_CONTROLS}\ud800-\udfff{_UNEVEN}]")
# the same for ASCII text (most of it: code, English), whose only controls are C0 and DEL
_SHOW_ASCII_RE = re.compile("[\x00-\x1f\x7f]")
_SHOW_ASCII_BLOCK_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f]")

# CSI (ESC [ … final), OSC (ESC ] … BEL or ST), and two-character escapes.
_ANSI_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")


def _stand_in(match: re.Match) -> str:
    code = ord(match.group())
    if code < 0x20:
        return "^" + chr(code + 0x40)  # ^@ … ^_ (ESC is ^[)
    if code == 0x7F:
        return "^?"
    if code <= 0x9F:
        return f"\\x{code:02x}"
    if code == 0x200D or code == 0xFE0F:
        return ""
    if 0x1F1E6 <= code <= 0x1F1FF:
        return chr(code - 0x1F1E6 + 0x41)  # a flag's letter
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"  # a lone surrogate
    return f"\\u{code:04x}"  # a line separator, a bidi control, a Hangul filler: \u2028, \u202e


def visible(value: Any, *, block: bool = False) -> str:
    """``value`` as text that is safe to write to a terminal.

    Control characters become visible stand-ins, and the few characters terminals draw at
    different widths become what they all draw alike (see ``_UNEVEN``). With ``block`` (a multi-line block of
    text), newlines and tabs are kept and ``\\r\\n`` reads as one newline; without it (a
    row, a title, a field), they are stand-ins too, and so are U+2028 and U+2029 (``\\u2028``,
    ``\\u2029``: line breaks to any tool that splits on them), so one value can never fake
    a second row. ``None`` is the empty string; other non-strings are shown with ``str``.
    """
    if not isinstance(value, str):
        value = "" if value is None else str(value)
    ascii_only = value.isascii()
    if block:
        pattern = _SHOW_ASCII_BLOCK_RE if ascii_only else _SHOW_BLOCK_RE
        if pattern.search(value) is None:
            return value
        if "\r\n" in value:
            value = value.replace("\r\n", "\n")
        return pattern.sub(_stand_in, value)
    pattern = _SHOW_ASCII_RE if ascii_only else _SHOW_RE
    if pattern.search(value) is None:
        return value
    return pattern.sub(_stand_in, value)


def strip_ansi(value: str) -> str:
    """``value`` without well-formed ANSI escape sequences (colours, titles, cursor moves)."""
    return _ANSI_RE.sub("", value) if "\x1b" in value else value


def clean(value: Any, *, block: bool = False) -> str:
    """:func:`strip_ansi`, then :func:`visible`: for program output such as tool results."""
    if not isinstance(value, str):
        value = "" if value is None else str(value)
    return visible(strip_ansi(value), block=block)


# DEL, the C1 controls and the bidi controls in UTF-8 (U+0080..U+009F are C2 80..C2 9F,
# U+202A..U+202E E2 80 AA..AE, U+2066..U+2069 E2 81 A6..A9; C2 and E2 are never continuation
# bytes, so this cannot match inside another character).
_JSON_C1_RE = re.compile(rb"\x7f|\xc2[\x80-\x9f]|\xe2(?:\x80[\xaa-\xae]|\x81[\xa6-\xa9])")
_JSON_BIDI_RE = re.compile(rb"\xe2(?:\x80[\xaa-\xae]|\x81[\xa6-\xa9])")


def _has_c1(data: bytes) -> bool:
    """Whether UTF-8 ``data`` holds a C1 control (``\\xc2`` then ``\\x80``-``\\x9f``)."""
    position = data.find(b"\xc2")
    while position >= 0:
        if position + 1 < len(data) and 0x80 <= data[position + 1] <= 0x9f:
            return True
        position = data.find(b"\xc2", position + 1)
    return False


def json_safe(data: bytes) -> bytes:
    """UTF-8 JSON text ``data`` with DEL, C1 and bidi controls written as ``\\u`` escapes.

    JSON writers escape only C0 controls; DEL and C1 (U+009B is a one-byte CSI to many
    terminals) pass raw, and so do the bidi controls (which reorder what a terminal shows);
    they can only stand inside strings. Escaped, the JSON value is exactly the same
    (``--json`` output round-trips) and no byte of it acts on a terminal it is printed to."""
    if (b"\x7f" not in data and not _has_c1(data)  # (found at memory speed: the usual case)
            and (b"\xe2" not in data or _JSON_BIDI_RE.search(data) is None)):
        return data
    return _JSON_C1_RE.sub(lambda match: b"\\u%04x" % ord(match.group().decode()), data)


def shown_as_is(value: str) -> bool:
    """Whether :func:`visible` (a row) leaves ``value`` as it is."""
    return (_SHOW_ASCII_RE if value.isascii() else _SHOW_RE).search(value) is None


def has_controls(value: str) -> bool:
    """Whether ``value`` holds any character :func:`visible` would replace (tests, checks)."""
    return CONTROL_RE.search(value) is not None


def text_lines(text: str) -> list[str]:
    """The lines of ``text`` (split on LF), trailing line breaks dropped: none for ""."""
    text = text.rstrip("\n")
    return text.split("\n") if text else []


def json_compact(value: Any) -> str:
    """A value from a session as one line of JSON (``str`` of it when JSON cannot hold it,
    as an integer past 64 bits)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)


def json_pretty(value: Any) -> str:
    """A value from a session as indented JSON (``str`` of it when JSON cannot hold it)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)
