"""The listing counts messages as Pi does on files damaged the way crashes damage them: a
line cut short with the next entry written onto it does not parse, so Pi skips it and does
not count it. The listing's fast path (a line judged by its head and tail) must not count
it either."""

from __future__ import annotations

import json

from helpers import assistant, entry, line, result, user, write
from pitui.core.store.discovery import resolve_root
from pitui.core.store.listing import SessionIndex, list_sessions


def _pi_count(path) -> int:
    """Pi's messageCount: lines that parse, of type message (the header not counted)."""
    n = 0
    for raw in path.read_bytes().split(b"\n")[1:]:
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        n += isinstance(obj, dict) and obj.get("type") == "message"
    return n


def _result(eid, parent, n, text):
    return result(eid, parent, n, "c1", "bash", text)


def test_a_line_cut_short_with_an_entry_written_onto_it_is_not_counted(tmp_path, monkeypatch):
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "root" / "--home-u-proj--"
    project.mkdir(parents=True)
    big = "x" * 50_000
    lines = [
        user("u1", None, 1, "first"),
        # an assistant message cut short, then a whole user message on the same line
        line(assistant("a1", "u1", 2, text="cut here"))[:60] + line(user("u2", "u1", 3, "again")),
        # a big tool result cut short, then a model change (the line ends in a single })
        line(_result("r1", "u2", 4, big))[:30_000] + line(entry("model_change", "m1", "u2", 5, provider="p",
                                                                  modelId="m")),
        # a tool result cut short, then a whole tool result: ends "}}" like a good one
        line(_result("r2", "u2", 6, "out"))[:80] + line(_result("r3", "u2", 7, big)),
        assistant("a2", "u2", 8, text="whole"),
    ]
    path = write(project / "2026-11-20T10-00-00-000Z_s.jsonl", lines)
    assert _pi_count(path) == 2
    (info,) = list_sessions(resolve_root(str(tmp_path / "root")), SessionIndex())
    assert info.message_count == 2
    assert info.warnings == 3
