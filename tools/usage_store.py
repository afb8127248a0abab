"""A small sessions store for the usage tests: ``python -m tools.usage_store OUT``.

Written with :mod:`tools.piwriter`, the same every time. It holds what makes counting usage
hard, each where ``@ccusage/pi`` and ``pitui usage`` must agree: messages near midnight
(their day depends on the time zone), months and weeks apart, several models, a session
forked into a copy (the copied messages count once), an abandoned branch, a subagent run
with its transcript in ``subagent-artifacts`` and one whose transcript is gone, timestamps
with an offset or without milliseconds, a usage without ``totalTokens``, without a cost or
without a model, a ``usage`` entry, and messages both tools refuse (a count that is a
string, a missing ``output``, a cost that is a string or a number, a ``cost.total`` that is
a string, a timestamp that is not ISO, a model that is not a string, a line that is not
JSON). ``tools/ccusage_expected.py`` captures ccusage's reports of it.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from . import piwriter as pw

PROJECTS = {"alpha": "/home/dev/alpha", "beta": "/home/dev/beta", "gamma": "/srv/gamma"}
MODELS = [("anthropic", "claude-sonnet-4-5", "anthropic-messages"), ("openai", "gpt-5.1-codex", "openai-responses"),
          ("google", "gemini-3-pro", "google-generative-ai")]


def _usage(k: int) -> dict:
    inp, out, cr, cw = 100 + 37 * k, 20 + 11 * k, 1000 * (k % 7), 300 * (k % 3)
    return pw.usage(inp, out, cr, cw, (inp * 3e-6, out * 15e-6, cr * 0.3e-6, cw * 3.75e-6))


def _session(folder: Path, sid: str, start_ms: int, turns: int, model_at: int, *, seed: int,
             extra: list | None = None, branch_at: int | None = None, subagent: dict | None = None) -> Path:
    """A session of ``turns`` user/assistant pairs (a tool call each), five minutes apart."""
    head_iso = pw.iso(start_ms)
    lines: list = [pw.header(sid, head_iso, "/" + folder.name.strip("-").replace("-", "/"))]
    parent = None
    t = start_ms
    n = 0
    fork_parent = None
    for k in range(turns):
        t += 300_000
        n += 1
        uid = f"{seed:02d}u{k:05d}"
        lines.append(pw.entry("message", uid, parent, pw.iso(t), message=pw.user_message(f"step {k}", t)))
        if k == branch_at:
            fork_parent = uid
        provider, model, api = MODELS[(model_at + k // 3) % len(MODELS)]
        aid = f"{seed:02d}a{k:05d}"
        t += 7_000 + 1000 * k
        call = f"call_{seed}_{k}"
        tool = ("read", "bash", "edit")[k % 3]
        lines.append(pw.entry("message", aid, uid, pw.iso(t), message=pw.assistant_message(
            [pw.text_block(f"answer {k}"), pw.tool_call_block(call, tool, {"path": f"f{k}.py"})], api=api,
            provider=provider, model=model, usage=_usage(seed * 13 + k), stop_reason="toolUse", timestamp=t)))
        t += 2_000
        rid = f"{seed:02d}r{k:05d}"
        lines.append(pw.entry("message", rid, aid, pw.iso(t), message=pw.tool_result_message(
            call, tool, [pw.text_block("ok")], is_error=k % 4 == 3, timestamp=t)))
        parent = rid
    if fork_parent is not None:
        # a try abandoned at turn branch_at: another answer to its user message, after
        # which the session went on from the first answer
        tb = pw.ms_of(lines[2 + 3 * branch_at]["timestamp"]) + 1_000
        lines.insert(4 + 3 * branch_at, pw.entry("message", f"{seed:02d}b00000", fork_parent, pw.iso(tb),
                     message=pw.assistant_message([pw.text_block("a try")], api="anthropic-messages",
                                                  provider="anthropic", model="claude-opus-4-5",
                                                  usage=_usage(seed * 31), stop_reason="stop", timestamp=tb)))
    if subagent is not None:
        t += 60_000
        call = f"call_{seed}_sub"
        aid, rid = f"{seed:02d}s00000", f"{seed:02d}s00001"
        lines.append(pw.entry("message", aid, parent, pw.iso(t), message=pw.assistant_message(
            [pw.tool_call_block(call, "subagent", {"agent": "scout", "task": "look"})], api="anthropic-messages",
            provider="anthropic", model="claude-sonnet-4-5", usage=_usage(seed * 7), stop_reason="toolUse",
            timestamp=t)))
        t += 90_000
        lines.append(pw.entry("message", rid, aid, pw.iso(t), message=pw.tool_result_message(
            call, "subagent", [pw.text_block("found it")], is_error=False, timestamp=t,
            details={"mode": "single", "results": [subagent]})))
        parent = rid
    for e in extra or ():
        lines.append(e)
    folder.mkdir(parents=True, exist_ok=True)
    return pw.write(folder / pw.session_file_name(head_iso, sid), lines)


def _bad_lines(seed: int, parent: str, day_ms: int) -> list:
    """Messages both tools refuse, and usages they count despite an odd shape."""
    out: list = []

    def msg(k: int, usage, *, ts: str | None = None, model=..., t_type=...) -> dict:
        t = day_ms + 60_000 * k
        m = {"role": "assistant", "content": [pw.text_block(f"odd {k}")], "api": "anthropic-messages",
             "provider": "anthropic"}
        if model is not ...:
            m["model"] = model
        m["usage"] = usage
        m["stopReason"] = "stop"
        m["timestamp"] = t
        e = pw.entry("message", f"{seed:02d}x{k:05d}", parent, ts or pw.iso(t), message=m)
        if t_type is not ...:
            e["type"] = t_type
        return e

    good = _usage(seed)
    # counted by both: no totalTokens, no cost, no cacheRead, no model, an offset, no milliseconds
    no_total = {k: v for k, v in good.items() if k != "totalTokens"}
    out.append(msg(1, no_total, model="claude-sonnet-4-5"))
    out.append(msg(2, {"input": 10, "output": 5}, model="claude-sonnet-4-5"))
    out.append(msg(3, {**good, "totalTokens": 999_999}))
    out.append(msg(4, _usage(seed + 1), ts="2026-03-01T23:30:00+05:30", model="gpt-5.1-codex"))
    out.append(msg(5, _usage(seed + 2), ts="2026-03-31T23:59:59Z", model="gpt-5.1-codex"))
    out.append(msg(6, {**_usage(seed + 3), "cost": {}}, model="gemini-3-pro"))
    # refused by both
    out.append(msg(10, {**good, "input": "100"}, model="claude-sonnet-4-5"))
    out.append(msg(11, {"input": 5}, model="claude-sonnet-4-5"))
    out.append(msg(12, {**good, "cost": "0.5"}, model="claude-sonnet-4-5"))
    out.append(msg(13, {**good, "cost": 0.5}, model="claude-sonnet-4-5"))
    out.append(msg(14, {**good, "cost": {"total": "0.5"}}, model="claude-sonnet-4-5"))
    out.append(msg(15, _usage(seed + 4), ts="2026-03-02 10:00:00Z", model="claude-sonnet-4-5"))
    out.append(msg(16, _usage(seed + 5), ts="yesterday", model="claude-sonnet-4-5"))
    out.append(msg(17, _usage(seed + 6), model=42))
    out.append(msg(18, _usage(seed + 7), model=None))
    out.append(msg(19, {**good, "cacheRead": None}, model="claude-sonnet-4-5"))
    out.append('{"type":"message","id":"broken","parentId":null,"timestamp":"2026-03-02T10:00:00.000Z","message":{')
    return out


def write_store(out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    alpha, beta, gamma = (out / pw.project_dir(c) for c in PROJECTS.values())
    day = pw.ms_of("2026-02-27T21:40:00.000Z")  # days and a month end apart, near midnight in most zones
    for k in range(4):
        _session(alpha, f"0000aaaa-0000-4000-8000-00000000000{k}", day + k * 86_400_000 * 3 + k * 3_600_000,
                 4 + k, k, seed=k + 1, branch_at=2 if k == 1 else None)
    src = _session(beta, "0000bbbb-0000-4000-8000-000000000000", day + 40 * 86_400_000, 6, 1, seed=10)
    # a fork: a copy of the first lines of that session under a new header (Pi's /fork)
    lines = src.read_text().splitlines()
    fork_head = pw.header("0000bbbb-0000-4000-8000-000000000001", pw.iso(day + 41 * 86_400_000), "/home/dev/beta",
                          parent_session=str(src))
    fork = beta / pw.session_file_name(pw.iso(day + 41 * 86_400_000), "0000bbbb-0000-4000-8000-000000000001")
    pw.write(fork, [fork_head, *lines[1:10]])
    transcript_name = "0000cccc-run.jsonl"
    _session(gamma / "subagent-artifacts", "0000cccc-0000-4000-8000-00000000000f", day + 60 * 86_400_000, 2, 2,
             seed=20)
    shutil.move(str(next((gamma / "subagent-artifacts").glob("*.jsonl"))), gamma / "subagent-artifacts" /
                transcript_name)
    run_usage = {"input": 400, "output": 90, "cacheRead": 2000, "cacheWrite": 0, "cost": 0.0123, "turns": 3}
    _session(gamma, "0000cccc-0000-4000-8000-000000000001", day + 60 * 86_400_000, 3, 0, seed=21, subagent={
        "agent": "scout", "task": "look", "model": "claude-haiku-4-5", "exitCode": 0, "usage": run_usage,
        "artifactPaths": {"jsonlPath": f"/elsewhere/{transcript_name}"}})
    _session(gamma, "0000cccc-0000-4000-8000-000000000002", day + 61 * 86_400_000, 2, 1, seed=22, subagent={
        "agent": "scout", "task": "gone", "model": "claude-haiku-4-5", "exitCode": 0, "usage": run_usage,
        "artifactPaths": {"jsonlPath": "/elsewhere/0000cccc-gone.jsonl"}})
    odd_day = day + 2 * 86_400_000
    _session(gamma, "0000cccc-0000-4000-8000-000000000003", odd_day, 2, 2, seed=23,
             extra=_bad_lines(23, "23r00001", odd_day + 3_600_000) + [
                 pw.entry("usage", "23y00000", "23r00001", pw.iso(odd_day + 7_200_000), kind="compaction",
                          provider="anthropic", model="claude-sonnet-4-5", usage=_usage(99))])


if __name__ == "__main__":
    write_store(Path(sys.argv[1]))
