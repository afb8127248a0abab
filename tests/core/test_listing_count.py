"""Pi's message count on lines that are not JSON, or JSON only JavaScript reads.

Pi's ``buildSessionInfo`` counts a message when ``JSON.parse`` accepts its line, a line
being what Node's readline gives (split at "\\n", "\\r\\n" and a lone "\\r"). The listing's
fast scan must agree line for line: a message line broken in its middle (a bad escape, a
raw control character, a cut) is not counted; JSON that orjson refuses but JavaScript
reads (a lone surrogate escape, ``1e400``) is.

Each case is a session (a header, a first user message at 1767225500000, then the case's
line). ``PI`` is what Pi 1.6.0's ``SessionManager.listAll`` gave for each file, recorded
from ``node`` on these bytes (its ``messageCount``; its ``modified`` is the first message's
time in every case but ``ts_float``, whose assistant message is newer).

Known limit, not pinned here: a line nested deeper than 1,000 levels (JSON.parse reads it;
pitui's parsers stop at about 1,000) is not counted."""

from __future__ import annotations

import json

import pytest

from pitui.cli import main
from pitui.core.store import listing_scan
from pitui.core.store.discovery import SessionFile
from pitui.core.store.listing_scan import scan_info

HEAD = b'{"type":"session","version":3,"id":"%s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/t"}\n'
USER = (b'{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",'
        b'"message":{"role":"user","content":"first","timestamp":1767225500000}}\n')
# a tool result in Pi's usual shape, its text (and what follows it) put between H and T
H = (b'{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":'
     b'{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":')
T = b'}],"isError":false,"timestamp":1767225600000}}'
U9 = (b'{"type":"message","id":"u9","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":'
      b'{"role":"user","content":%s,"timestamp":1767225500000}}')
ASSISTANT = (H.replace(b'"toolResult"', b'"assistant"').replace(b'"toolCallId":"c","toolName":"bash",', b'')
             + b'"x"}],"provider":"p","model":"m","timestamp":1767225700000.5}}')

CASES: dict[str, bytes] = {
    "ok": H + b'"fine"' + T,
    "bad_escape_x": H + b'"a\\x41"' + T,
    "bad_escape_u_short": H + b'"a\\u12"' + T,
    "bad_escape_U": H + b'"a\\U0041"' + T,
    "bad_escape_quote_single": H + b'"a\\\'"' + T,
    "raw_tab": H + b'"a\tb"' + T,
    "raw_nul": H + b'"a\x00b"' + T,
    "raw_1f": H + b'"a\x1fb"' + T,
    "raw_del": H + b'"a\x7fb"' + T,
    "raw_cr_in_string": H + b'"a\rb"' + T,
    "cr_between_tokens": H.replace(b'"message",', b'"message",\r') + b'"x"' + T,
    "cr_splits_two_entries": H + b'"x"' + T + b'\r' + H.replace(b'"a1"', b'"a2"') + b'"y"' + T,
    "crlf_end": H + b'"x"' + T + b'\r',
    "cr_cr_lf_end": H + b'"x"' + T + b'\r\r',
    "tab_between_tokens": H + b'\t"x"' + T,
    "ff_between_tokens": H + b'\x0c"x"' + T,
    "vt_between_tokens": H + b'\x0b"x"' + T,
    "lone_high_surrogate": H + b'"a\\ud800b"' + T,
    "lone_low_surrogate": H + b'"a\\udc00"' + T,
    "surrogate_pair": H + b'"a\\ud83d\\ude00"' + T,
    "duplicate_key": H + b'"x","text":"y"' + T,
    "duplicate_timestamp": H.replace(b'"role":"toolResult"', b'"role":"toolResult","timestamp":5') + b'"x"' + T,
    "num_1e400": H + b'"x","n":1e400' + T,
    "num_1e400_timestamp": H + b'"x"}],"isError":false,"timestamp":1e400}}',
    "num_1e400_first_message": U9 % b'[{"type":"text","text":"x","n":1e400}]',
    "num_minus_zero": H + b'"x","n":-0' + T,
    "num_leading_zero": H + b'"x","n":01' + T,
    "num_bare_dot": H + b'"x","n":1.' + T,
    "num_plus": H + b'"x","n":+1' + T,
    "num_nan": H + b'"x","n":NaN' + T,
    "num_bigint": H + b'"x","n":123456789012345678901234567890' + T,
    "trailing_comma": H + b'"x",' + T,
    "cut_in_the_middle": H + b'"abc',
    "cut_then_an_entry": H + b'"ab' + U9 % b'"hi"',
    "bom_mid_file": b"\xef\xbb\xbf" + H + b'"x"' + T,
    "bom_mid_file_before_a_user": b"\xef\xbb\xbf" + U9 % b'"x"',
    "bom_in_a_string": H + b'"a\xef\xbb\xbfb"' + T,
    "not_utf8": H + b'"a\xff\xfeb"' + T,
    "overlong_utf8": H + b'"a\xc0\xafb"' + T,
    "utf8_surrogate": H + b'"a\xed\xa0\x80b"' + T,
    "raw_u2028": H + '"a\u2028b"'.encode() + T,
    "single_quotes": H + b"'x'" + T,
    "capital_true": H + b'"x","b":True' + T,
    "text_after": H + b'"x"' + T + b"x",
    "two_objects": H + b'"x"' + T + b"{}",
    "trailing_spaces": H + b'"x"' + T + b"  ",
    "leading_spaces": b"  " + H + b'"x"' + T,
    "leading_nbsp": b"\xc2\xa0" + H + b'"x"' + T,
    "comment": H + b'"x"/*c*/' + T,
    "escaped_slash": H + b'"a\\/b"' + T,
    "upper_hex_escape": H + b'"a\\u00E9"' + T,
    "unescaped_quote": H + b'"a"b"' + T,
    "missing_colon": H + b'"x","n" 1' + T,
    "empty_key": H + b'"x","":1' + T,
    "ts_float": ASSISTANT,
}

#: Pi 1.6.0's messageCount for each case's file (the first user message included)
PI = {
    "ok": 2, "bad_escape_x": 1, "bad_escape_u_short": 1, "bad_escape_U": 1, "bad_escape_quote_single": 1,
    "raw_tab": 1, "raw_nul": 1, "raw_1f": 1, "raw_del": 2, "raw_cr_in_string": 1, "cr_between_tokens": 1,
    "cr_splits_two_entries": 3, "crlf_end": 2, "cr_cr_lf_end": 2, "tab_between_tokens": 2,
    "ff_between_tokens": 1, "vt_between_tokens": 1, "lone_high_surrogate": 2, "lone_low_surrogate": 2,
    "surrogate_pair": 2, "duplicate_key": 2, "duplicate_timestamp": 2, "num_1e400": 2, "num_1e400_timestamp": 2,
    "num_1e400_first_message": 2, "num_minus_zero": 2, "num_leading_zero": 1, "num_bare_dot": 1, "num_plus": 1,
    "num_nan": 1, "num_bigint": 2, "trailing_comma": 1, "cut_in_the_middle": 1, "cut_then_an_entry": 1,
    "bom_mid_file": 1, "bom_mid_file_before_a_user": 1, "bom_in_a_string": 2, "not_utf8": 2, "overlong_utf8": 2,
    "utf8_surrogate": 2, "raw_u2028": 2, "single_quotes": 1, "capital_true": 1, "text_after": 1,
    "two_objects": 1, "trailing_spaces": 2, "leading_spaces": 2, "leading_nbsp": 1, "comment": 1,
    "escaped_slash": 2, "upper_hex_escape": 2, "unescaped_quote": 1, "missing_colon": 1, "empty_key": 2,
    "ts_float": 2,
}
PI_MODIFIED = {"ts_float": "2026-01-01T00:01:40.000Z"}  # (every other: 2025-12-31T23:58:20.000Z)


def _write(root, name: str, line: bytes):
    folder = root / "--home-t--"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"2026-01-01T00-00-00-000Z_{name}.jsonl"
    path.write_bytes(HEAD % name.encode() + USER + line + b"\n")
    return path


def test_every_case_has_pis_answer():
    assert set(CASES) == set(PI)


@pytest.mark.parametrize("name", CASES)
def test_a_line_counts_when_json_parse_reads_it(tmp_path, monkeypatch, name):
    path = _write(tmp_path, name, CASES[name])
    sf = SessionFile(str(path), "--home-t--", "session")
    info = scan_info(sf)
    assert (info.error, info.message_count) == (None, PI[name])
    # the same, the file read in blocks (as a big file is) and mapped (as the workers read one)
    monkeypatch.setattr(listing_scan, "WHOLE_READ", 0)
    assert scan_info(sf).message_count == scan_info(sf, mapped=True).message_count == PI[name]


def test_list_json_prints_pis_count_and_time_for_every_case(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))
    for name, line in CASES.items():
        _write(tmp_path / "root", name, line)
    assert main(["list", str(tmp_path / "root"), "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert {k: r["messageCount"] for k, r in rows.items()} == PI
    assert {k: r["modified"] for k, r in rows.items()} == {
        k: PI_MODIFIED.get(k, "2025-12-31T23:58:20.000Z") for k in PI}
