"""The secrets fixture: a Pi session with a fake secret of every kind pitui finds, in its
real format, planted in every place of a session one can sit in, and look-alikes that are
no secret beside them (``python -m tools.secrets_fixture OUT_DIR``).

``planted.jsonl`` is the session (header, user text, assistant text, thinking, tool
arguments and output, a ``!`` command, a subagent's result and the messages of its run, custom
entries, a compaction and a branch summary); ``planted.json`` lists what is planted:
``[{"line", "where", "kind", "value"}]``, which ``pitui check --secrets`` must find, all of it
and nothing else. Every value is made here from a seeded random generator: none is real.
The look-alikes: uuids, hashes and commit ids in text, image data, thinking signatures,
tool call ids, AWS's documented example key, names of values that are not secrets.
"""

from __future__ import annotations

import base64
import json
import random
import string
import sys
from pathlib import Path

from tools import piwriter as pw

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"


class _Fakes:
    def __init__(self, seed: int = 39):
        self.rng = random.Random(seed)

    def chars(self, n: int, alphabet: str = ALNUM) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def b64url(self, raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    def key_block(self, label: str, lines: int = 6) -> str:
        body = "\n".join(self.chars(64, B64) for _ in range(lines)) + "\n" + self.chars(20, B64) + "=="
        return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"

    def jwt(self) -> str:
        head = self.b64url(b'{"alg":"HS256","typ":"JWT"}')
        payload = self.b64url(json.dumps({"sub": self.chars(12), "exp": 1893456000}).encode())
        return f"{head}.{payload}.{self.chars(43, ALNUM + '-_')}"


def build() -> tuple[list[dict], list[dict]]:
    """The session's lines, and what is planted in them."""
    f = _Fakes()
    planted: list[dict] = []
    lines: list[dict] = []

    def plant(where: str, kind: str, value: str) -> str:
        planted.append({"line": len(lines) + 1, "where": where, "kind": kind, "value": value})
        return value

    t0 = 1_794_000_000_000
    clock = iter(range(t0, t0 + 10_000_000, 1000))
    ids = iter(f"{n:08x}" for n in range(0x5ec0000, 0x5ec1000))
    parent: str | None = None

    def add(kind: str, **fields) -> str:
        """The next entry, below the last one (an extension's ``custom`` entries written as Pi
        writes them, their own fields first)."""
        nonlocal parent
        eid = next(ids)
        make = pw.custom_entry if kind in ("custom", "custom_message") else pw.entry
        lines.append(make(kind, eid, parent, pw.iso(next(clock)), **fields))
        parent = eid
        return eid

    usage = pw.usage(100, 20, 0, 0, (0.0003, 0.0003, 0.0, 0.0))

    def assistant(content: list, stop: str = "stop") -> dict:
        return pw.assistant_message(content, api="anthropic-messages", provider="anthropic",
                                    model="claude-sonnet-4-5", usage=usage, stop_reason=stop, timestamp=next(clock))

    # the header: an extra field, as old headers and extensions carried
    lines.append(pw.header("01a1f000-0000-7000-8000-000000000039", pw.iso(t0), "/home/dev/shop", deployNote=(
        "pushed with " + plant("header", "gitlab-token", "glpat-" + f.chars(20, ALNUM + "-_")))))

    # user text: a pasted key and a connection string
    openai = "sk-proj-" + f.chars(40, ALNUM + "-_") + "T3BlbkFJ" + f.chars(40, ALNUM + "-_")
    conn_pw = f.chars(14)
    add("message", message=pw.user_message(
        f"Use my key {plant('user text', 'openai-key', openai)} and the database at "
        f"Server=db.internal;Database=shop;User Id=shop;Password={plant('user text', 'url-password', conn_pw)};",
        next(clock)))

    # thinking, then assistant text, then tool calls whose arguments hold secrets
    jwt = f.jwt()
    google = "AIza" + f.chars(35, ALNUM + "-_")
    signature = base64.b64encode(f.rng.randbytes(600)).decode()
    add("message", message=assistant([
        pw.thinking_block(f"The session cookie was {plant('thinking', 'jwt', jwt)}; keep it out of logs.", signature),
        pw.text_block(f"The maps key in settings.py is {plant('assistant text', 'google-api-key', google)}."),
    ]))
    stripe = "sk_live_" + f.chars(24)
    aws_id = "AKIA" + f.chars(16, UPPER)
    aws_secret = f.chars(40, ALNUM + "/+")
    db_pw = f.chars(18)
    env_token = f.chars(40, HEX)
    call_write, call_bash = "toolu_01" + f.chars(22), "toolu_01" + f.chars(22)
    add("message", message=assistant([
        pw.tool_call_block(call_write, "write", {"path": ".env", "content": (
            f"AWS_ACCESS_KEY_ID={plant('tool arguments', 'aws-access-key', aws_id)}\n"
            f"AWS_SECRET_ACCESS_KEY={plant('tool arguments', 'aws-secret-key', aws_secret)}\n"
            f"DATABASE_URL=postgres://shop:{plant('tool arguments', 'url-password', db_pw)}@db.internal:5432/shop\n"
            f"export API_TOKEN={plant('tool arguments', 'assigned-secret', env_token)}\n"
            "DEBUG=true\n")}),
        pw.tool_call_block(call_bash, "bash", {
            "command": f"STRIPE_KEY={plant('tool arguments', 'stripe-key', stripe)} ./deploy.sh && printenv"}),
    ], stop="toolUse"))
    add("message", message=pw.tool_result_message(call_write, "write", [pw.text_block("Wrote 5 lines to .env")],
                                                  is_error=False, timestamp=next(clock)))

    # tool output: printenv and a private key read; the same Stripe key as in the call
    github = "ghp_" + f.chars(36)
    npm = "npm_" + f.chars(36)
    webhook = f"https://hooks.slack.com/services/T{f.chars(8, UPPER)}/B{f.chars(10, UPPER)}/{f.chars(24)}"
    rsa = f.key_block("RSA PRIVATE KEY")
    commit = f.chars(40, HEX)
    printenv = (
        f"deploying {commit[:7]} ({commit})\nSTRIPE_KEY={plant('tool output', 'stripe-key', stripe)}\n"
        f"GITHUB_TOKEN={plant('tool output', 'github-token', github)}\n"
        f"NPM_TOKEN={plant('tool output', 'npm-token', npm)}\n"
        f"SLACK_WEBHOOK={plant('tool output', 'slack-webhook', webhook)}\n"
        f"BUILD_ID={f.chars(8, HEX)}-{f.chars(4, HEX)}-{f.chars(4, HEX)}-{f.chars(4, HEX)}-{f.chars(12, HEX)}\n"
        f"AWS_EXAMPLE=AKIAIOSFODNN7EXAMPLE\nSHA256={f.chars(64, HEX)}\nHOME=/home/dev\n"
        f"id_rsa:\n{plant('tool output', 'private-key', rsa)}\n")
    add("message", message=pw.tool_result_message(call_bash, "bash", [pw.text_block(printenv)], is_error=False,
                                                  timestamp=next(clock)))

    # a ! command: git remote -v
    remote_pw = f.chars(20)
    add("message", message=pw.bash_execution_message(
        "git remote -v",
        f"origin\thttps://deploy:{plant('tool output', 'url-password', remote_pw)}@git.example.org/shop.git (fetch)\n",
        0, truncated=False, timestamp=next(clock)))

    # a subagent call: its result, and the messages of its run (a call and a result inside)
    pypi = "pypi-AgEIcHlwaS5vcmc" + f.chars(70, ALNUM + "-_")
    slack = f"xoxb-{f.chars(11, string.digits)}-{f.chars(13, string.digits)}-{f.chars(24)}"
    ec = f.key_block("EC PRIVATE KEY", 3)
    fine = "github_pat_" + f.chars(22) + "_" + f.chars(59)
    yaml_token = f.chars(32)
    inner_call = "toolu_01" + f.chars(22)
    call_sub = "toolu_01" + f.chars(22)
    add("message", message=assistant([pw.tool_call_block(call_sub, "subagent", {
        "agent": "scout", "task": "find where the release is published"})], stop="toolUse"))
    run_messages = [
        pw.user_message([pw.text_block(f"config.yml has:\nregistry:\n  api_token: "
                                       f"{plant('subagent messages', 'assigned-secret', yaml_token)}\n")], next(clock)),
        assistant([pw.tool_call_block(inner_call, "write", {
            "path": "keys/ec.pem", "content": plant("subagent messages", "private-key", ec)})], stop="toolUse"),
        pw.tool_result_message(inner_call, "write", [pw.text_block(
            f"wrote keys/ec.pem; token {plant('subagent messages', 'github-token', fine)}")], is_error=False,
            timestamp=next(clock)),
    ]
    add("message", message=pw.tool_result_message(call_sub, "subagent", [pw.text_block(
        f"Published with {plant('subagent result', 'pypi-token', pypi)}")], is_error=False, timestamp=next(clock),
        details={"mode": "single", "results": [{
            "agent": "scout", "task": f"post to Slack with {plant('subagent result', 'slack-token', slack)}",
            "exitCode": 0, "messages": run_messages, "model": "claude-haiku-4-5",
            "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "cost": 0.0001, "turns": 1}}]}))

    # custom entries: an extension's data (a value under a secret's name) and its message
    access = f.chars(36)
    ssh = f.key_block("OPENSSH PRIVATE KEY", 4)
    add("custom", customType="deploy-state", data={
        "target": "prod", "auth": {"accessToken": plant("custom entry", "assigned-secret", access)},
        "cacheKey": f.chars(64, HEX), "key": f.chars(32, HEX)})
    add("custom_message", customType="ssh", content=f"Added key:\n{plant('custom entry', 'private-key', ssh)}",
               display=True)

    # an image (its data only looks random) and an answer
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + f.rng.randbytes(3000)).decode()
    add("message", message=pw.user_message([pw.text_block("here is the screenshot"), pw.image_block(png)],
                                           next(clock)))
    add("message", message=assistant([pw.text_block(
        f"Commit {commit} and run {f.chars(8, HEX)}-{f.chars(4, HEX)}; use process.env.API_KEY, never the literal.")]))

    # a compaction and a branch summary
    anthropic = "sk-ant-api03-" + f.chars(93, ALNUM + "-_") + "AA"
    compaction_slack = f"xoxp-{f.chars(12, string.digits)}-{f.chars(12, string.digits)}-{f.chars(32, HEX)}"
    first_kept = parent
    add("compaction", summary=(
        f"Set up deploys. The Slack user token {plant('compaction summary', 'slack-token', compaction_slack)} "
        f"and the Anthropic key {plant('compaction summary', 'anthropic-key', anthropic)} are in .env."),
        firstKeptEntryId=first_kept, tokensBefore=120000)
    pgp = f.key_block("PGP PRIVATE KEY BLOCK", 5)
    add("branch_summary", fromId=first_kept, summary=f"Tried signing releases with\n"
                                                     f"{plant('branch summary', 'private-key', pgp)}\nthen gave up.")
    add("message", message=pw.user_message("thanks, that is all", next(clock)))
    return lines, planted


def write(out: Path) -> None:
    lines, planted = build()
    out.mkdir(parents=True, exist_ok=True)
    pw.write(out / "planted.jsonl", lines)
    (out / "planted.json").write_text(json.dumps(planted, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/secrets"))
