"""The loop over a file's lines is written out twice, each line's work inline for speed: in
the session's quick scan (``Session._scan_heads``, read/session.py) and in the listing's
scan (``listing_scan._read_lines``). These tests keep the two copies splitting lines as
their references do, on the same odd files, each read in one block, in many blocks, and
mapped in small windows (as the worker processes read a big file):

- the quick scan as :func:`lines.iter_line_spans` (what ``Session.open(validate=True)``
  reads with): Pi's session loader splits at "\\n" only, a "\\r" before it dropped;
- the listing as Node's readline, which Pi's session list reads with: it also ends a line
  at a lone "\\r" (:func:`readline_lines` below).

A change to one copy's line splitting that the other does not get fails here.
"""

from __future__ import annotations

import os

import pytest

from helpers import HEADER, assistant, entry, line, user
from pitui.core.read import lines as lines_module
from pitui.core.read.lines import BOM, parse_line
from pitui.core.read.session import Session
from pitui.core.store import listing_scan
from pitui.core.store.discovery import SessionFile


def _b(obj) -> bytes:
    return line(obj).encode()


def _bodies() -> list[bytes]:
    """Entry lines of both kinds: message lines the quick scan reads from their head, and
    lines it parses whole (a model change, a label, an assistant without a stop reason)."""
    out = [_b(HEADER)]
    parent = None
    for k in range(60):
        if k % 7 == 3:
            obj = entry("model_change", f"m{k}", parent, k, provider="anthropic", modelId=f"model-{k}")
        elif k % 11 == 5:
            obj = entry("label", f"l{k}", parent, k, targetId="u0", label=f"label {k}")
        elif k % 2:
            obj = assistant(f"a{k}", parent, k, text="answer " * (k * 40))
        else:
            obj = user(f"u{k}", parent, k, "question " * (k * 30))
        out.append(_b(obj))
        parent = obj["id"]
    return out


def _odd_files() -> dict[str, bytes]:
    lines = _bodies()
    plain = b"\n".join(lines) + b"\n"
    return {
        "plain": plain,
        "crlf": b"\r\n".join(lines) + b"\r\n",
        "bom": BOM + plain,
        "no final newline": b"\n".join(lines),
        "final line cut": plain + lines[5][: len(lines[5]) // 2],
        "blank and white lines": b"\n".join(
            x for k, ln in enumerate(lines) for x in ([ln, b"", b"  \t", b"\x0b\x0c", b"\r"] if k % 3 == 1 else [ln])
        ) + b"\n\n  \n",
        "white space before a line": b"\n".join(lines[:1] + [b" \t" + ln for ln in lines[1:]]) + b"\n",
        # a "\r" between two JSON tokens: one line to the session loader, two halves (not
        # JSON, two warnings) to readline
        "lone carriage returns": b"\n".join(
            ln.replace(b'","parentId"', b'",\r"parentId"', 1) if k % 4 == 2 else ln for k, ln in enumerate(lines)
        ) + b"\n",
        "last line ends with a carriage return": b"\n".join(lines) + b"\r",
    }


FILES = _odd_files()


def readline_lines(data: bytes) -> list[tuple[int, int, int, bool]]:
    """``(offset, length, line number, terminated)`` of each line of ``data`` that is not
    blank, split as Node's readline splits (at "\\n", "\\r\\n" and a lone "\\r"); a BOM at the
    start is not part of the first line. A last line closed by a "\\r" alone is read as not
    yet terminated (Pi may append its "\\n")."""
    out = []
    pos = 3 if data.startswith(BOM) else 0
    lineno = 0
    while pos < len(data):
        lineno += 1
        ends = [k for k in (data.find(b"\n", pos), data.find(b"\r", pos)) if k >= 0]
        end = min(ends) if ends else len(data)
        if end == len(data) - 1 and data[end:] == b"\r":
            nxt, term = len(data), False
        elif end == len(data):
            nxt, term = end, False
        else:
            nxt = end + 2 if data[end:end + 2] == b"\r\n" else end + 1
            term = True
        text = data[pos:end]
        if text and not text.isspace():
            out.append((pos, end - pos, lineno, term))
        pos = nxt
    return out


def _listing_from_reference(data: bytes) -> tuple:
    """What the listing's scan must find in ``data``, from :func:`readline_lines`: the
    messages (lines Pi parses whose type is ``message``), the warnings (terminated lines
    that do not parse), and where the scan stops (after the last terminated line)."""
    count = warnings = 0
    scanned_to, next_lineno = 0, 1
    for k, (off, length, lineno, term) in enumerate(readline_lines(data)):
        obj = parse_line(data[off:off + length]).value
        if obj is None:
            warnings += term
        elif k and isinstance(obj, dict) and obj.get("type") == "message":
            count += 1
        if term:
            after = off + length
            scanned_to = after + (2 if data[after:after + 2] == b"\r\n" else 1)
            next_lineno = lineno + 1
    return count, warnings, scanned_to, next_lineno


@pytest.fixture(params=["whole", "blocks", "mapped"])
def reading(request, monkeypatch):
    """How the file is read: its bytes in one block, from disk in blocks of 64 KB, or mapped
    in windows of 4 KB."""
    if request.param != "whole":
        monkeypatch.setattr(lines_module, "CHUNK", 64 * 1024)
        monkeypatch.setattr(lines_module, "MAPPED_WINDOW", 4096)
        monkeypatch.setattr(listing_scan, "WHOLE_READ", 0)
    return request.param


def test_the_odd_files_span_several_blocks():
    assert len(FILES["plain"]) > 4 * 64 * 1024
    assert all(len(data.splitlines()) > 60 for data in FILES.values())


@pytest.mark.parametrize("name", FILES)
def test_the_quick_scan_splits_lines_as_the_reference_loop(tmp_path, name, reading):
    path = tmp_path / "s.jsonl"
    path.write_bytes(FILES[name])
    ref = Session.open(path, validate=True)  # (read with lines.iter_line_spans)
    quick = Session(path)
    quick._scan(validate=False, mapped=reading == "mapped")
    assert len(quick) == len(ref) > 0
    columns = ("offsets", "lengths", "linenos", "ids")
    assert [list(getattr(quick, c)) for c in columns] == [list(getattr(ref, c)) for c in columns]
    assert (quick.scanned_to, quick.next_lineno) == (ref.scanned_to, ref.next_lineno)
    assert [w.line for w in quick.warnings] == [w.line for w in ref.warnings]


@pytest.mark.parametrize("name", FILES)
def test_the_listing_splits_lines_as_readline(tmp_path, name, reading):
    path = tmp_path / "s.jsonl"
    path.write_bytes(FILES[name])
    info = listing_scan.scan_info(SessionFile(str(path), "p", "session"), mapped=reading == "mapped")
    assert info.error is None
    assert (info.message_count, info.warnings, info.scanned_to, info.next_lineno) == _listing_from_reference(
        FILES[name])


def test_the_two_loops_differ_only_at_a_lone_carriage_return(tmp_path):
    """The session loader keeps a line with a "\\r" between its tokens whole; the list reads
    its two halves, neither of them JSON."""
    data = FILES["lone carriage returns"]
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    session = Session.open(path, validate=False)
    info = listing_scan.scan_info(SessionFile(str(path), "p", "session"))
    split = sum(b'",\r"parentId"' in ln for ln in data.split(b"\n"))
    assert split > 5 and not session.warnings
    assert info.warnings == 2 * split
    messages = [ln for ln in data.split(b"\n") if b'"type":"message"' in ln]
    assert info.message_count == len(messages) - sum(b'",\r"parentId"' in ln for ln in messages)
    assert os.path.getsize(path) == info.scanned_to
