"""A sessions store whose agents are in every state at the tests' fixed clock
(2026-11-21T12:00:00Z), for the board's screenshots and Pilot tests: each file's entries
timed before that clock and its modification time set, so the board reads the same on any
day."""

from __future__ import annotations

import os
from pathlib import Path

from pitui.core.store.discovery import encode_cwd
from pitui.core.timeutil import iso_to_ms, ms_to_iso
from tools import piwriter

NOW = iso_to_ms("2026-11-21T12:00:00.000Z")
MINUTE = 60_000
_USAGE = piwriter.usage(1200, 80, 30000, 500, (0.0036, 0.0012, 0.009, 0.001875))


class _Session:
    def __init__(self, sid: str, cwd: str, start_min: float) -> None:
        self.sid, self.cwd = sid, cwd
        self.at = NOW - start_min * MINUTE
        self.lines: list[dict] = [piwriter.header(sid, ms_to_iso(self.at), cwd)]
        self.last: str | None = None
        self.n = 0

    def _entry(self, kind: str, after_s: float, **fields) -> dict:
        self.at += after_s * 1000
        self.n += 1
        eid = f"{self.sid[:4]}{self.n:04d}"
        e = piwriter.entry(kind, eid, self.last, ms_to_iso(self.at), **fields)
        self.last = eid
        self.lines.append(e)
        return e

    def user(self, text: str, after_s: float = 1) -> None:
        self._entry("message", after_s, message=piwriter.user_message(text, int(self.at + after_s * 1000)))

    def assistant(self, content: list, stop: str, after_s: float = 20, error: str | None = None,
                  model: str = "claude-sonnet-4-5") -> None:
        self._entry("message", after_s, message=piwriter.assistant_message(
            content, api="anthropic-messages", provider="anthropic", model=model, usage=_USAGE, stop_reason=stop,
            timestamp=int(self.at + after_s * 1000), error=error))

    def result(self, call_id: str, name: str, text: str, after_s: float = 5) -> None:
        self._entry("message", after_s, message=piwriter.tool_result_message(
            call_id, name, [piwriter.text_block(text)], is_error=False, timestamp=int(self.at + after_s * 1000)))

    def name(self, name: str) -> None:
        self._entry("session_info", 0.1, name=name)

    def write(self, root: Path, written_min_ago: float) -> Path:
        folder = root / encode_cwd(self.cwd)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / piwriter.session_file_name(self.lines[0]["timestamp"], self.sid)
        piwriter.write(path, self.lines)
        when = (NOW - written_min_ago * MINUTE) / 1000
        os.utime(path, (when, when))
        return path


def board_store(root: Path) -> dict[str, Path]:
    """Five sessions under ``root``: working (bash running), waiting (named), failed (an
    error whose message holds control characters), stalled (nothing written for 14
    minutes), and one written an hour ago (not on the board). Their paths by state."""
    out = {}
    s = _Session("0199aaaa-0000-7000-8000-000000000001", "/home/u/shop", 3)
    s.user("Fix the flaky checkout test and run the whole suite")
    s.assistant([piwriter.text_block("Reading the test."),
                 piwriter.tool_call_block("toolu_a1", "read", {"path": "tests/test_checkout.py"})], "toolUse")
    s.result("toolu_a1", "read", "def test_checkout(): ...")
    s.assistant([piwriter.tool_call_block("toolu_a2", "bash", {"command": "npm test -- --runInBand"})], "toolUse",
                after_s=10)
    out["working"] = s.write(root, 0.2)

    s = _Session("0199aaaa-0000-7000-8000-000000000002", "/home/u/blog", 9)
    s.user("The RSS feed lists posts in a random order")
    s.assistant([piwriter.text_block("Sorted by date; the feed is stable now. Commit?")], "stop", after_s=300,
                model="gpt-5")
    s.name("blog: RSS order")
    out["waiting"] = s.write(root, 4)

    s = _Session("0199aaaa-0000-7000-8000-000000000003", "/home/u/api", 12)
    s.user("Add rate limiting to the \x1b[31mpublic\x1b[0m endpoints")
    s.assistant([], "error", after_s=120, error="429 rate_limit_error: too many tokens\x07\x1b]0;pwned\x07")
    out["failed"] = s.write(root, 10)

    s = _Session("0199aaaa-0000-7000-8000-000000000004", "/home/u/infra", 40)
    s.user("Apply the staging plan")
    s.assistant([piwriter.tool_call_block("toolu_d1", "bash", {"command": "terraform apply -auto-approve"})],
                "toolUse", after_s=60)
    out["stalled"] = s.write(root, 14)

    s = _Session("0199aaaa-0000-7000-8000-000000000005", "/home/u/old", 120)
    s.user("An old question")
    s.assistant([piwriter.text_block("An old answer")], "stop")
    out["old"] = s.write(root, 60)
    return out
