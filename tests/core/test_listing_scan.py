"""The cold listing's scan of one file (``listing_scan.scan_info``): a small file read whole and
taken as one block gives the same row as the file read in blocks from disk, and what it
finds (a message's count, time and model, each line read by the entry decoder) is what
parsing every line finds, on the corpus and on odd files. Lines that are not JSON only in
their middle: tests/core/test_listing_count.py."""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path

import pytest

from helpers import FIXTURES, HEADER, assistant, entry, line, user
from pitui.core.read import lines as lines_module
from pitui.core.read.lines import BOM, iter_line_blocks, parse_line
from pitui.core.store import listing_scan
from pitui.core.store.discovery import SessionFile
from pitui.core.store.listing_scan import scan_info
from pitui.core.store.session_info import NO_MESSAGES, bounded, text_of
from pitui.core.timeutil import iso_to_ms

CORPUS = sorted(p for p in FIXTURES.rglob("*.jsonl"))


def _row(path: Path, **kw) -> dict:
    info = scan_info(SessionFile(str(path), "p", "session"), **kw)
    got = dataclasses.asdict(info)
    got.pop("extra")
    return got


def _rows_three_ways(path: Path, monkeypatch) -> dict:
    """The row of ``path`` read whole at once, with its stat given (opened the plain way),
    read in blocks from the file, and mapped (as the workers read a big file), there in
    blocks of a few lines: all the same."""
    whole = _row(path)
    assert _row(path, st=os.stat(path)) == whole
    with monkeypatch.context() as m:
        m.setattr(listing_scan, "WHOLE_READ", 0)  # (every file read in blocks from disk)
        assert _row(path) == whole
        assert _row(path, mapped=True) == whole
        m.setattr(lines_module, "MAPPED_WINDOW", 256)
        assert _row(path, mapped=True) == whole
    return whole


def _parsed_every_line(path: Path) -> dict:
    """What the list shows of a session whose header is its first line, every line parsed
    (the way Pi reads it): the reference for what the scan finds in place."""
    data = path.read_bytes().removeprefix(BOM)
    lines = data.split(b"\n")
    out = {"message_count": 0, "last_activity_ms": None, "model": None, "name": None,
           "first_message": NO_MESSAGES, "warnings": 0}
    for k, raw in enumerate(lines[1:], start=1):
        raw = raw.removesuffix(b"\r")
        if not raw.strip():
            continue
        obj = parse_line(raw).value
        if obj is None:
            out["warnings"] += k < len(lines) - 1  # (a cut last line is not yet a warning)
            continue
        if not isinstance(obj, dict):
            continue
        if obj.get("type") == "session_info":
            name = obj.get("name")
            out["name"] = (name.strip() or None) if isinstance(name, str) else None
        elif obj.get("type") == "model_change" and isinstance(obj.get("modelId"), str):
            out["model"] = obj["modelId"]
        elif obj.get("type") == "message":
            out["message_count"] += 1
            msg = obj.get("message")
            if not (isinstance(msg, dict) and msg.get("role") in ("user", "assistant") and "content" in msg):
                continue
            ts = msg.get("timestamp")
            act = float(ts) if type(ts) in (int, float) else iso_to_ms(obj.get("timestamp"))
            if not math.isnan(act) and (out["last_activity_ms"] is None or act > out["last_activity_ms"]):
                out["last_activity_ms"] = act
            if msg["role"] == "assistant" and isinstance(msg.get("model"), str):
                out["model"] = msg["model"]
            if msg["role"] == "user" and out["first_message"] == NO_MESSAGES:
                text = text_of(msg.get("content"))
                if text:
                    out["first_message"] = bounded(text)
    return out


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_corpus_files_read_whole_in_blocks_or_mapped_give_one_row(path, monkeypatch):
    row = _rows_three_ways(path, monkeypatch)
    if row["error"] is None and row["log"] == "session" and path.read_bytes().startswith(b'{"type":"session"'):
        assert {k: row[k] for k in _parsed_every_line(path)} == _parsed_every_line(path)


def _b(obj) -> bytes:
    return line(obj).encode()


def _odd_files(d: Path) -> dict[str, Path]:
    msgs = [user("u1", None, 1, "first «question»"), assistant("a1", "u1", 2, model="m-one"),
            user("u2", "a1", 3, "second"), assistant("a2", "u2", 4, model="m-two")]
    lines = [_b(HEADER)] + [_b(o) for o in msgs]
    f: dict[str, bytes] = {
        "no header": b"\n".join(lines[1:]) + b"\n",
        "header only": lines[0] + b"\n",
        "empty": b"",
        "cut last line": b"\n".join(lines) + b"\n" + lines[2][: len(lines[2]) // 2],
        "whole last line unterminated": b"\n".join(lines),
        "crlf": b"\r\n".join(lines) + b"\r\n",
        "bom": BOM + b"\n".join(lines) + b"\n",
        "blank lines": b"\n".join([lines[0], b"", b"   ", lines[1], b"\t", lines[2], b"\r", lines[3], lines[4]]) + b"\n  ",
        "not utf-8": b"\n".join(lines[:2] + [lines[2].replace(b"m-one", b"m-\xff\xfeone"),
                                            lines[3].replace(b"second", b"sec\xc3ond")]) + b"\n",
        "control bytes": b"\n".join(lines + [
            _b(user("u3", "a2", 5, "esc \x1b[31m nul \x00 c1 \x85 ls \u2028 end")),
            b"\x00\x1b[0m", b'{"type":"message",\x1b}']) + b"\n",
        "glued onto a cut line": b"\n".join(lines[:2] + [lines[2][:300] + lines[4], lines[3]]) + b"\n",
        "two timestamps in the tail": b"\n".join(lines + [
            lines[4].replace(b',"timestamp":1795', b',"timestamp":1,"timestamp":1795')]) + b"\n",
        "a duplicate timestamp, the last one older": b"\n".join(lines + [
            lines[4].replace(b',"timestamp":1795', b',"timestamp":9999999999999,"timestamp":1795')]) + b"\n",
        "two models in the tail": b"\n".join(lines + [
            lines[4].replace(b'"provider":"anthropic"', b'"provider":"x","model":"m-early","provider":"anthropic"')]) + b"\n",
        "a nested provider and model": b"\n".join(lines + [_b(assistant(
            "a3", "a2", 6, model="m-outer", content=[{"type": "toolCall", "id": "t", "name": "edit",
                                                      "arguments": {"provider": "p", "model": "m-inner"}}]))]) + b"\n",
        "the last assistant names no model": b"\n".join(lines + [
            lines[2].replace(b'"provider":"anthropic","model":"m-one",', b"")]) + b"\n",
        "names and model changes": b"\n".join(lines + [
            _b(entry("session_info", "i1", "a2", 5, name="  named  ")),
            _b(entry("model_change", "c1", "i1", 6, provider="p", modelId="m-three")),
            _b(entry("session_info", "i2", "c1", 7, name=" "))]) + b"\n",
        "long first message": b"\n".join([lines[0], _b(user("u1", None, 1, "  " + "long «text» " * 60_000))]
                                         + lines[2:]) + b"\n",
        "bigger than a whole read": b"\n".join(lines + [_b(assistant(f"b{k}", "a2", 5 + k, text="x" * 200_000))
                                                      for k in range(7)]) + b"\n",
    }
    assert len(f["bigger than a whole read"]) > listing_scan.WHOLE_READ
    d.mkdir(exist_ok=True)
    out = {}
    for k, (name, data) in enumerate(f.items()):
        out[name] = d / f"odd{k}.jsonl"
        out[name].write_bytes(data)
    return out


def test_odd_files_read_whole_in_blocks_or_mapped_give_one_row(tmp_path, monkeypatch):
    files = _odd_files(tmp_path / "odd")
    rows = {name: _rows_three_ways(p, monkeypatch) for name, p in files.items()}
    for name, p in files.items():
        if rows[name]["error"] is None and p.read_bytes().startswith(b'{"type":"session"'):
            assert {k: rows[name][k] for k in _parsed_every_line(p)} == _parsed_every_line(p), name
    assert rows["no header"]["error"] == "line 1 should be a session header but is 'message' (not a Pi session)"
    assert rows["empty"]["error"] == "empty file"
    assert rows["header only"]["message_count"] == 0 and rows["header only"]["error"] is None
    cut = rows["cut last line"]
    assert (cut["message_count"], cut["warnings"]) == (4, 0)
    assert cut["scanned_to"] == files["cut last line"].read_bytes().rfind(b"\n") + 1  # (read on from there)
    whole = rows["whole last line unterminated"]
    assert (whole["message_count"], whole["model"]) == (4, "m-two")
    assert whole["scanned_to"] < files["whole last line unterminated"].stat().st_size  # (read again when it ends)
    for name in ("crlf", "bom", "blank lines"):
        assert (rows[name]["message_count"], rows[name]["model"], rows[name]["warnings"]) == (4, "m-two", 0), name
        assert rows[name]["first_message"] == "first «question»", name
    assert rows["not utf-8"]["message_count"] == 3 and rows["not utf-8"]["warnings"] == 0
    assert rows["not utf-8"]["model"] == "m-\ufffd\ufffdone"
    assert rows["control bytes"]["message_count"] == 5 and rows["control bytes"]["warnings"] == 2
    assert rows["glued onto a cut line"]["message_count"] == 2 and rows["glued onto a cut line"]["warnings"] == 1
    assert rows["two models in the tail"]["model"] == "m-two"
    # Pi keeps a duplicate key's last value
    assert rows["a duplicate timestamp, the last one older"]["last_activity_ms"] < 9999999999999
    assert rows["a nested provider and model"]["model"] == "m-outer"
    assert rows["the last assistant names no model"]["model"] == "m-two"
    names = rows["names and model changes"]
    assert (names["name"], names["model"]) == (None, "m-three")
    long = rows["long first message"]
    assert long["first_message"].startswith("  long «text» ") and long["first_message_at"] > 0
    assert rows["bigger than a whole read"]["message_count"] == 11


def test_a_file_in_memory_is_one_block_of_the_lines_read_from_disk(tmp_path):
    """``iter_line_blocks`` over a file's bytes: the lines, offsets and unterminated last
    line of the same file read from disk, from any start."""
    p = tmp_path / "f"
    data = BOM + b"".join(b"y" * (k * 53 % 170) + b"\n" for k in range(60)) + b"last"
    p.write_bytes(data)

    def lines_of(src, start):
        out = []
        for buf, pos, limit, base, whole in iter_line_blocks(src, start):
            out.append((base + pos, bytes(buf[pos:limit]), whole))
        return b"".join(b for _, b, _ in out), out[0][0] if out else None, out[-1][2] if out else None

    for start in (0, 3, 57, len(data) - 4, len(data)):
        with open(p, "rb") as f:
            assert lines_of(data, start) == lines_of(f, start), start
    assert list(iter_line_blocks(b"")) == [] and list(iter_line_blocks(BOM)) == []
