"""A Pi agent at work, as its session file sees it: a process that appends one session's
entries step by step, as Pi appends them (each entry one line, appended and flushed; on
request a line written in two parts, as a reader may catch a write half done), walking the
session through every state the board shows.

Run ``python -m tools.session_walk FILE`` (FILE's folder must exist) and write commands on
its standard input, one a line; it answers ``ok`` (flushed) once each is on disk:

- a step's name (:data:`STEPS`): its entries appended whole;
- ``STEP/half``: the step's first line up to its middle, no newline (a write half done);
- ``rest``: the rest of what ``/half`` began, and the step's other lines.

Entry times are the wall clock's (a board keeps sessions written lately). The tests of the
board and of ``pitui status`` drive it (tests/test_live_*.py).
"""

from __future__ import annotations

import sys
import time

from tools import piwriter

SESSION_ID = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
CWD = "/home/u/shop"
_USAGE = piwriter.usage(1200, 80, 30000, 500, (0.0036, 0.0012, 0.009, 0.001875))


class Walk:
    """The session's entries so far: each step appends its own, chained by parent id."""

    def __init__(self) -> None:
        self.n = 0
        self.last: str | None = None

    def _id(self) -> str:
        self.n += 1
        return f"e{self.n:07x}"

    def _now(self) -> tuple[str, int]:
        ms = int(time.time() * 1000)
        return piwriter.iso(ms), ms

    def entry(self, kind: str, **fields) -> dict:
        eid = self._id()
        stamp, _ms = self._now()
        e = piwriter.entry(kind, eid, self.last, stamp, **fields)
        self.last = eid
        return e

    def message(self, msg: dict) -> dict:
        return self.entry("message", message=msg)

    def assistant(self, content: list, stop: str, error: str | None = None) -> dict:
        _stamp, ms = self._now()
        return self.message(piwriter.assistant_message(
            content, api="anthropic-messages", provider="anthropic", model="claude-sonnet-4-5", usage=_USAGE,
            stop_reason=stop, timestamp=ms, error=error))

    def user(self, text: str) -> dict:
        return self.message(piwriter.user_message(text, self._now()[1]))

    # ------------------------------------------------------------------ the steps

    def start(self) -> list[dict]:
        """The header, the model chosen, the first prompt: working (the model answering)."""
        stamp, _ms = self._now()
        head = piwriter.header(SESSION_ID, stamp, CWD)
        return [head, self.entry("model_change", provider="anthropic", modelId="claude-sonnet-4-5"),
                self.user("Fix the flaky checkout test")]

    def tool_call(self) -> list[dict]:
        """A reply that calls bash: working, the tool running."""
        return [self.assistant([piwriter.text_block("Running the tests first."),
                                piwriter.tool_call_block("toolu_01", "bash", {"command": "npm test"})], "toolUse")]

    def tool_result(self) -> list[dict]:
        """The tool's result: working (the model answering)."""
        _stamp, ms = self._now()
        return [self.message(piwriter.tool_result_message(
            "toolu_01", "bash", [piwriter.text_block("1 failing")], is_error=False, timestamp=ms))]

    def reply(self) -> list[dict]:
        """A reply that ends its turn: waiting for you."""
        return [self.assistant([piwriter.text_block("The test waits on a timer; fixed. Shall I commit?")], "stop")]

    def named(self) -> list[dict]:
        """The session named (no change of state)."""
        return [self.entry("session_info", name="checkout flake")]

    def prompt(self) -> list[dict]:
        """Another prompt: working again."""
        return [self.user("Yes, and run the whole suite")]

    def error(self) -> list[dict]:
        """A reply the provider refused: failed."""
        return [self.assistant([], "error", error="429 rate_limit_error: Number of request tokens has exceeded "
                               "your per-minute rate limit")]

    def aborted(self) -> list[dict]:
        """A prompt, then a reply the user stopped: failed (aborted)."""
        return [self.user("Try again"), self.assistant([piwriter.text_block("Running")], "aborted",
                                                       error="Request was aborted")]


STEPS = ("start", "tool_call", "tool_result", "reply", "named", "prompt", "error", "aborted")


def _append(path: str, data: bytes) -> None:
    with open(path, "ab") as f:  # (as Pi's appendFileSync: opened, written, closed)
        f.write(data)
        f.flush()


def main(argv: list[str]) -> int:
    path = argv[0]
    walk = Walk()
    held: list[bytes] = []  # what a /half step has still to write
    for command in sys.stdin:
        command = command.strip()
        if command == "rest":
            _append(path, b"".join(held))
            held = []
        elif command.removesuffix("/half") in STEPS:
            step = command.removesuffix("/half")
            lines = [(piwriter.dumps(e) + "\n").encode() for e in getattr(walk, step)()]
            if command.endswith("/half"):
                first = lines[0]
                half = len(first) // 2
                _append(path, first[:half])
                held = [first[half:], *lines[1:]]
            else:
                _append(path, b"".join(lines))
        else:
            print(f"unknown command {command!r}", file=sys.stderr, flush=True)
            return 2
        print("ok", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
