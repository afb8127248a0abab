"""What an agent is doing, read from the end of its session (core/live/state.py): files Pi
wrote cut at chosen entries (a tool-use turn, a tool half answered, an error, an aborted
reply, a `!` command after a reply), each with half of the next line written after the cut
(a write caught half done), and saved `pi --mode json` runs cut the same way."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pitui.core.live.board import LiveBoard
from pitui.core.live.state import read_end
from pitui.core.store.discovery import resolve_root
from pitui.core.timeutil import ms_to_iso
from helpers import FIXTURES
# written by Pi's own code: a read of two files, an error, a reply cut at its length, an
# aborted reply, subagent and bash called together (line numbers below are 1-based)
CORPUS = next((FIXTURES / "pi-corpus" / "agent" / "sessions" / "--srv-app--").glob(
    "2026-07-26T12-42-30-356Z_019f9e72*.jsonl"))
RUN = FIXTURES / "pi-written" / "streams" / "json-fix.jsonl"

# cut after line: (state, since, tool, tool since, model, context tokens, error, stop reason)
CUTS = {
    1: ("waiting", "2026-07-26T12:42:30.356Z", None, None, None, None, None, None),  # the header alone
    3: ("working", "2026-07-26T12:44:58.425Z", None, None, None, None, None, None),  # the first prompt
    4: ("working", "2026-07-26T12:44:58.425Z", ("read", "src/c.py:9"), "2026-07-26T12:45:54.660Z",
        "claude-sonnet-4-5", 79395, None, "toolUse"),  # two reads called, none answered
    5: ("working", "2026-07-26T12:44:58.425Z", ("read", "src/c.py:4"), "2026-07-26T12:45:54.660Z",
        "claude-sonnet-4-5", 79395, None, "toolUse"),  # the first answered: the second runs
    6: ("working", "2026-07-26T12:44:58.425Z", None, None, "claude-sonnet-4-5", 79395, None, "toolUse"),
    9: ("failed", "2026-07-26T12:49:28.923Z", None, None, "claude-sonnet-4-5", None,
        "overloaded_error: tab\t label session", "error"),
    12: ("failed", "2026-07-26T12:49:28.923Z", None, None, "claude-sonnet-4-5", None,
         "overloaded_error: tab\t label session", "error"),  # a name, a custom message, a usage after it
    16: ("waiting", "2026-07-26T12:52:39.376Z", None, None, "claude-sonnet-4-5", 82850, None, "length"),
    21: ("failed", "2026-07-26T12:54:43.210Z", None, None, "claude-sonnet-4-5", None, None, "aborted"),
    43: ("waiting", "2026-07-26T13:07:37.897Z", None, None, "gpt-5.1-codex", 9518, None, "stop"),  # a ! command
    46: ("working", "2026-07-26T13:09:35.984Z", ("subagent", "worker: 🚀 bug test the fix bug"),
         "2026-07-26T13:09:48.639Z", "gpt-5.1-codex", 78031, None, "toolUse"),
    47: ("working", "2026-07-26T13:09:35.984Z", ("bash", "pytest -q"), "2026-07-26T13:09:48.639Z",
         "gpt-5.1-codex", 78031, None, "toolUse"),
    50: ("waiting", "2026-07-26T13:12:48.417Z", None, None, "gpt-5.1-codex", 90367, None, "stop"),
}


def _cut(lines: list[bytes], n: int, path: Path, half: bool = True) -> int:
    """The first ``n`` lines written to ``path`` (and half of the next one); the whole lines' length."""
    whole = b"".join(line + b"\n" for line in lines[:n])
    path.write_bytes(whole + (lines[n][: len(lines[n]) // 2] if half and n < len(lines) else b""))
    return len(whole)


@pytest.mark.parametrize("n", sorted(CUTS))
def test_a_session_cut_at_an_entry_reads_as_its_agent_was_then(tmp_path, n):
    lines = CORPUS.read_bytes().split(b"\n")
    path = tmp_path / "s.jsonl"
    whole = _cut(lines, n, path)
    facts, end = read_end(str(path), path.stat().st_size)
    got = (facts.state, ms_to_iso(facts.since_ms), facts.tool, ms_to_iso(facts.tool_since_ms), facts.model,
           facts.context_tokens, facts.error_message, facts.stop_reason)
    assert got == CUTS[n]
    assert end == whole  # (the half line waits for its end)


def test_a_line_longer_than_the_reads_block_is_read_whole(tmp_path):
    """A tool's output of a megabyte between the call and the end: the call is still found."""
    lines = CORPUS.read_bytes().split(b"\n")[:4]
    from tools import piwriter

    big = piwriter.dumps(piwriter.entry("message", "big", None, "2026-07-26T12:46:00.000Z", message=piwriter.tool_result_message(
        "other", "bash", [piwriter.text_block("x" * 1_000_000)], is_error=False, timestamp=0))).encode()
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in [*lines, big]))
    facts, _end = read_end(str(path), path.stat().st_size)
    assert (facts.state, facts.tool) == ("working", ("read", "src/c.py:9"))


def test_the_working_stretch_is_not_read_again_once_known(tmp_path):
    """Told the work's start is known (the board's refresh of a session at work), the reading
    stops at the reply that called the tool: since is that reply's time."""
    lines = CORPUS.read_bytes().split(b"\n")
    path = tmp_path / "s.jsonl"
    _cut(lines, 47, path, half=False)
    facts, _end = read_end(str(path), path.stat().st_size, stretch=False)
    assert ms_to_iso(facts.since_ms) == "2026-07-26T13:09:48.639Z"


# a `pi --mode json` run (Pi wrote it): cut after line -> (state, tool, model)
RUN_CUTS = {
    7: ("working", None, None),  # the prompt
    20: ("working", None, None),  # the first reply still streaming
    42: ("working", ("bash", "python3 test_greet.py"), "scripted-1"),  # bash running, its output coming
    44: ("working", None, "scripted-1"),  # bash ended, its result message not written yet
    94: ("working", ("bash", "python3 test_greet.py && echo all passed"), "scripted-1"),  # bash and read called, read done
    136: ("waiting", None, "scripted-1"),  # agent_end
}


@pytest.mark.parametrize("n", sorted(RUN_CUTS))
def test_an_event_stream_cut_at_a_record_reads_as_its_run_was_then(tmp_path, n):
    lines = RUN.read_bytes().split(b"\n")
    path = tmp_path / "run.jsonl"
    _cut(lines, n, path)
    board = LiveBoard(resolve_root(tmp_path), window_minutes=1e9)
    now = time.time() * 1000
    board.refresh(now)
    [row] = board.rows(now)
    assert (row.log, row.state, row.tool, row.model) == ("stream", *RUN_CUTS[n])
    assert row.id == "01a2127c-c9aa-74a0-bdf3-f55c29964a9c"
    assert row.title == "The greeting test fails. Fix greet.py and check that the test passes."
