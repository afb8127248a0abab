"""The usage scan's lines, decoded into the fields counted (usage_scan.py's _LINE_DECODE),
read exactly as the same lines parsed whole: on every fixture and demo file, and on hostile
lines; and a line of any shape never stops the scan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import FIXTURES, REPO
from pitui.core.store import usage_scan
from pitui.core.store.usage_scan import FileScan, scan_bytes

HEAD = b'{"type":"session","version":3,"id":"s1","timestamp":"2026-11-20T10:00:00.000Z","cwd":"/p"}'


def _scan(data: bytes, whole: bool, monkeypatch=None) -> tuple[dict, dict]:
    scan = FileScan()
    if whole:
        scan.line = scan._parsed  # (every line parsed whole: the reading the decoder must match)
    scan_bytes(scan, data, 0, True)
    return scan.to_state(), scan.summary()


def _assistant(message: str, entry: str = "") -> bytes:
    return (b'{"type":"message","id":"a1","parentId":null,"timestamp":"2026-11-20T10:00:01.000Z",'
            b'"message":{"role":"assistant"' + message.encode() + b"}" + entry.encode() + b"}")


FILES = sorted([*(FIXTURES).rglob("*.jsonl"), *(REPO / "pitui" / "demo" / "sessions").rglob("*.jsonl")])


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(REPO)) for p in FILES])
def test_every_fixture_reads_the_same_decoded_or_parsed_whole(path: Path, monkeypatch):
    data = path.read_bytes()
    assert _scan(data, False, monkeypatch) == _scan(data, True, monkeypatch)


USAGE = '"usage":{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"totalTokens":18,"cost":{"total":0.5}}'
HOSTILE = [
    ',"content":[{"type":"toolCall","name":"bash"},{"type":"text","text":"hi"}],"provider":"p","model":"m",' + USAGE,
    ',"content":"a string",' + USAGE,
    ',"content":[1,2,{"type":"toolCall","name":"read"}],' + USAGE,
    ',"content":[{"type":"toolCall","name":12345678901234567890123}],' + USAGE,
    ',"content":[{"type":"toolCall","name":{"x":1}}],' + USAGE,
    ',"content":[{"type":"toolCall"}],' + USAGE,
    ',"content":null,"model":7,' + USAGE,
    ',"model":null,' + USAGE,
    ',"responseModel":"r","model":"m","provider":{"p":1},' + USAGE,
    ',"usage":{"input":"10","output":5}',
    ',"usage":{"input":1e300,"output":5}',
    ',"usage":{"input":123456789012345678901234567890,"output":5}',
    ',"usage":{"input":10,"output":5,"cost":"1"}',
    ',"usage":{"input":10,"output":5,"cost":0.25}',
    ',"usage":{"input":10,"output":5,"cost":[1]}',
    ',"usage":null',
    ',"usage":{"input":10,"output":5},"usage":{"input":1,"output":1}',
    ',"content":[{"type":"text","text":"\\ud800"}],' + USAGE,
    ',"role":"assistant",' + USAGE,
]

OTHER_LINES = [
    b'{"type":[1],"id":"x1","usage":{"input":1,"output":2}}',
    b'{"type":{"a":1},"id":"x2"}',
    b'{"type":null,"id":"x3","message":{"role":"assistant","usage":{"input":1,"output":2}}}',
    b'{"id":"x4","message":{"role":"assistant","usage":{"input":1,"output":2}}}',
    b'{"type":"message","id":"x5","message":"text"}',
    b'{"type":"message","id":"x6","message":{"role":"toolResult","toolName":7,"isError":true}}',
    b'{"type":"message","id":"x7","message":{"role":"toolResult","toolName":"bash","isError":true,'
    b'"usage":{"input":3,"output":4,"cost":{"total":0.01}}}}',
    b'{"type":"message","id":"x8","message":{"role":"toolResult","toolName":"subagent","details":{"results":'
    b'[{"usage":{"input":5,"output":6,"cost":{"total":0.2}},"model":"m","turns":3}]}}}',
    b'{"type":"usage","id":"x9","provider":"p","model":"m","usage":{"input":1,"output":1}}',
    b'{"type":"usage","id":"x10","usage":"none"}',
    b'{"type":"compaction","id":"x11","usage":{"input":9,"output":1}}',
    b'{"type":"session_info","id":"x12","name":"  named  "}',
    b'{"type":"session","id":"late header"}',
    b'{"type":"message","id":"x13","parentId":"x12","timestamp":"2026-11-20T10:00:05.000Z","message":{"role":"user",'
    b'"content":[1,"a",null]}}',
    b'{"type":"message","id":"x14","message":{"role":"user","content":"\\ud800"}}',
    b'  {"type":"message","id":"x15","message":{"role":"user"}}  ',
    b'\x0c{"type":"message","id":"x16","message":{"role":"user"}}',
    b'{"type":"message","id":"x17"',
    b'[1, 2]',
    b'"text"',
    b'{"type":"message","id":"x18","message":{"role":"assistant","content":[1,{"type":"toolCall","name":"read"}],'
    b'"usage":{"input":1,"output":1}}}',
]


def test_lines_of_any_shape_read_the_same_decoded_or_parsed_whole_and_never_stop_the_scan():
    data = HEAD + b"\n" + b"\n".join(OTHER_LINES) + b"\n"
    got = _scan(data, False)
    assert got == _scan(data, True)
    state, summary = got
    assert state["name"] == "named" and state["header_id"] == "s1"
    assert summary["tools"] == {"shell_exec": [0, 1], "7": [0, 1], "subagent": [0, 0], "file_read": [1, 0]}
    assert set(summary["byModel"]) == {"None/None", "Tools/summaries", "p/m", "m (subagent)"}


@pytest.mark.parametrize("message", HOSTILE)
def test_hostile_assistant_lines_read_the_same_decoded_or_parsed_whole(message, monkeypatch):
    line = _assistant(message)
    data = HEAD + b"\n" + line + b"\n" + line.replace(b'"a1"', b'"a2"').replace(b":01.000Z", b":02.000Z") + b"\n"
    got = _scan(data, False, monkeypatch)
    assert got == _scan(data, True, monkeypatch)
    json.dumps(got)  # (a state the cache can keep)


def test_the_decoder_is_what_reads_a_line(monkeypatch):
    """(So the tests above compare two readings, not one with itself.)"""
    seen = []
    real = usage_scan._LINE_DECODE
    monkeypatch.setattr(usage_scan, "_LINE_DECODE", lambda data: seen.append(data) or real(data))
    monkeypatch.setattr(usage_scan.FileScan, "_parsed", lambda self, data: seen.append("parsed"))
    _scan(HEAD + b"\n" + _assistant("," + USAGE) + b"\n", False)
    assert len(seen) == 2 and "parsed" not in seen


def _general_ms(value, ccusage: bool):
    """A time's epoch ms the long way: the ISO form matched, then read (what the minutes
    kept by usage_scan must give)."""
    import math

    from pitui.core.timeutil import iso_to_ms

    if type(value) is not str:
        return None
    if usage_scan._ISO.fullmatch(value) is not None:
        ms = usage_scan._canonical_ms(value)
        if ms is not None:
            return ms
    elif ccusage:
        return None
    ms = iso_to_ms(value)
    return None if math.isnan(ms) else ms


def test_times_read_from_a_minute_met_before_are_the_times_read_whole():
    import random

    rng = random.Random(36)
    values = [f"2026-11-20T10:0{rng.randrange(3)}:{rng.randrange(62):02d}.{rng.randrange(1000):03d}Z"
              for _ in range(3000)]
    values += ["2026-11-20T10:00:60.000Z", "2026-11-20T10:00:5\u0663.000Z", "2026-11-20T10:00:05.00Z",
               "2026-11-20T10:00:05.000+00:00", "2026-02-30T10:00:05.000Z", "2026-11-20T24:00:00.000Z",
               "2026-11-20T10:00:05.000z", "2026-11-20T10:00:05Z", "2026-11-20T10:00:+5.000Z",
               "2026-11-20T10:00: 5.000Z", "2026-11-20T10:00:05.+00Z", 5, None]
    for value in values * 2:  # (the second time, every minute is known)
        assert usage_scan.ccusage_timestamp(value) == _general_ms(value, True), value
        assert usage_scan._entry_ms(value) == _general_ms(value, False), value


def _listing_fed(path: Path) -> tuple[dict, dict] | None:
    """The usage of ``path`` as the listing's scan counts it, line by line from the lines it
    decodes or parses (None where that scan does not read the file as a session: the usage
    then reads the file on its own)."""
    from pitui.core.store.discovery import SessionFile
    from pitui.core.store.listing_scan import scan_info

    scan = FileScan()
    info = scan_info(SessionFile(str(path), "p", "session"), usage=scan)
    if info.error is not None or info.log != "session":
        return None
    return scan.to_state(), scan.summary()


def _without_offset(got: tuple[dict, dict]) -> tuple[dict, dict]:
    state, summary = got
    return {k: v for k, v in state.items() if k != "offset"}, summary


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(REPO)) for p in FILES])
def test_every_fixture_counts_the_same_fed_by_the_listing_as_read_alone(path: Path):
    fed = _listing_fed(path)
    if fed is not None:
        assert _without_offset(fed) == _without_offset(_scan(path.read_bytes(), False))


def test_lines_of_any_shape_count_the_same_fed_by_the_listing(tmp_path):
    lines = OTHER_LINES + [_assistant(m).replace(b'"a1"', b'"a%d"' % k) for k, m in enumerate(HOSTILE)]
    data = HEAD + b"\n" + b"\n".join(lines) + b"\n\n  \n"
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    fed = _listing_fed(path)
    assert fed is not None and fed[0]["compat"]["ts"]  # (read as a session, its usage counted)
    assert _without_offset(fed) == _without_offset(_scan(data, False))


def test_the_listing_feeds_the_usage_the_lines_it_decoded(monkeypatch, tmp_path):
    """(The decoded lines reach the usage without a second decoding.)"""
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEAD + b"\n" + _assistant("," + USAGE) + b"\n")
    monkeypatch.setattr(usage_scan, "_LINE_DECODE", None)
    monkeypatch.setattr(usage_scan.FileScan, "_parsed", None)
    fed = _listing_fed(path)
    assert fed is not None and fed[0]["compat"]["total"] == [18]
