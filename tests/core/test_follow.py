"""Following a session Pi is writing: no entry lost or duplicated, whatever the timing."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from helpers import HEADER, assistant, entry, line, user
from pitui.core.store.listing import SessionIndex, list_sessions
from pitui.core.store.discovery import resolve_root
from pitui.core.read.session import Session

WRITER = r"""
import os, random, sys, time
src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rnd = random.Random(seed)
data = open(src, "rb").read()
pos = 0
with open(dst, "ab", buffering=0) as f:
    while pos < len(data):
        n = rnd.choice([1, 2, 7, 40, 300, 1500, 5000, 30000])
        f.write(data[pos:pos + n])
        pos += n
        if rnd.random() < 0.5:
            time.sleep(rnd.choice([0, 0.001, 0.003, 0.008]))
"""


def _session_lines(n: int, big_every: int = 17) -> list[str]:
    objs = [user("e0", None, 0, "start")]
    for i in range(1, n):
        parent = f"e{i - 1}"
        if i % 5 == 0:
            objs.append(assistant(f"e{i}", parent, i, "x" * (100_000 if i % big_every == 0 else 50)))
        elif i % 11 == 0:
            objs.append(entry("label", f"e{i}", parent, i, targetId="e0", label=f"L{i}"))
        else:
            objs.append(user(f"e{i}", parent, i, f"message {i} with \u2028 and \"quotes\""))
    return [line(o) for o in objs]


@pytest.mark.parametrize("validate", [False, True], ids=["lazy", "validating"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_follow_with_a_live_writer(tmp_path, seed, validate):
    lines = _session_lines(400)
    src = tmp_path / "src.jsonl"
    src.write_text(line(HEADER) + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    dst = tmp_path / "live.jsonl"
    dst.write_bytes(b"")
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(src), str(dst), str(seed)])
    session = None
    seen_counts = []
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            done = writer.poll() is not None
            if session is None:
                try:
                    session = Session.open(dst, validate=validate)
                except Exception:
                    session = None  # no header yet (empty or half-written first line)
            else:
                session.refresh(validate=validate)
            if session is not None:
                # at every moment: a prefix of the real entries, in order, no duplicates
                n = len(session)
                assert session.ids == [f"e{i}" for i in range(n)]
                assert session.parent == [-1] + list(range(n - 1))
                seen_counts.append(n)
            if done:
                break
        session.refresh(validate=validate)
    finally:
        writer.kill()
        writer.wait()
    assert len(session) == 400
    assert session.ids == [f"e{i}" for i in range(400)]
    assert session.leaf == 399 and session.path_to(399)[0] == 0
    assert session.labels == {0: "L396"}
    assert session.warnings == []  # half-written lines are never reported as damage
    assert seen_counts == sorted(seen_counts)  # the view only ever grows
    assert len(set(seen_counts)) > 3  # it really was followed while being written
    assert session.message(399)["content"] == "message 399 with \u2028 and \"quotes\""


def test_listing_index_follows_growth(tmp_path):
    root = tmp_path / "sessions"
    (root / "--p--").mkdir(parents=True)
    p = root / "--p--" / "s.jsonl"
    lines = _session_lines(60)
    p.write_text(line(HEADER) + "\n" + "\n".join(lines[:30]) + "\n" + lines[30][:25], encoding="utf-8")
    index = SessionIndex(tmp_path / "cache")
    (info,) = list_sessions(resolve_root(root), index)
    first = info.message_count
    with open(p, "a", encoding="utf-8") as f:
        f.write(lines[30][25:] + "\n" + "\n".join(lines[31:]) + "\n")
    (info,) = list_sessions(resolve_root(root), index)
    full = list_sessions(resolve_root(root), None)[0]
    assert info.message_count == full.message_count > first
    assert info.modified_ms == full.modified_ms and info.first_message == full.first_message


def test_refresh_a_snapshot_then_adopt_leaves_the_original_untouched_meanwhile(tmp_path):
    """The app refreshes a snapshot in a worker; the session it draws from does not change
    until the snapshot is adopted (on the UI thread), then it is the grown session."""
    lines = _session_lines(50)
    p = tmp_path / "s.jsonl"
    p.write_text(line(HEADER) + "\n" + "\n".join(lines[:20]) + "\n" + lines[20][:10], encoding="utf-8")
    s = Session.open(p, validate=False)
    before = (list(s.ids), list(s.parent), dict(s.children), len(s.flags))
    with open(p, "a", encoding="utf-8") as f:
        f.write(lines[20][10:] + "\n" + "\n".join(lines[21:]) + "\n")
    snap = s.snapshot()
    assert snap.refresh() == 30
    assert (s.ids, s.parent, s.children, len(s.flags)) == before  # untouched while drawn from
    s.adopt(snap)
    assert s.ids == [f"e{i}" for i in range(50)] and s.leaf == 49 and s.path_to(49)[0] == 0
    assert s.refresh() == 0
