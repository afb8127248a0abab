"""``pitui check --secrets`` and ``pitui export --redact`` (issue 39): the command's lines and
exit status, a store scanned with its progress, and every export format written with each
planted secret replaced, the same secret by the same placeholder in every field."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from pitui.cli import main
from pitui.core.model.context import build_context
from pitui.core.read.session import Session
from pitui.core.secrets.scan import scan_file

from helpers import FIXTURES

SECRETS = FIXTURES / "secrets"
PLANTED = SECRETS / "planted.jsonl"
CLEAN = FIXTURES / "pi-corpus" / "agent" / "sessions" / "--home-dev-proj-beta--"


def planted() -> list[dict]:
    return json.loads((SECRETS / "planted.json").read_text(encoding="utf-8"))


def test_check_secrets_prints_each_secret_masked_and_exits_1(capsys):
    assert main(["check", "--secrets", str(PLANTED)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(planted())
    assert out[:4] == [
        f"{PLANTED}:1: gitlab-token in header: glpa…",
        f"{PLANTED}:2: openai-key in user text, entry 05ec0000: sk-p…",
        f"{PLANTED}:2: url-password in user text, entry 05ec0000: bIg…",
        f"{PLANTED}:3: jwt in thinking, entry 05ec0001: eyJh…",
    ]
    assert f"{PLANTED}:9: github-token in subagent messages, entry 05ec0007: gith…" in out
    assert f"{PLANTED}:15: private-key in branch summary, entry 05ec000d: ----…" in out
    for line, secret in zip(out, scan_file(PLANTED).secrets):  # (never more than 4 characters of a value)
        shown = line.rpartition(": ")[2]
        assert shown.endswith("…") and len(shown) <= 5 and secret.value.startswith(shown[:-1])


def test_check_secrets_json_and_exit_status(capsys, tmp_path):
    clean = sorted(CLEAN.glob("*.jsonl"))[0]
    assert main(["check", "--secrets", "--json", str(clean)]) == 0
    assert json.loads(capsys.readouterr().out) == [{"path": str(clean), "secrets": []}]
    assert main(["check", "--secrets", "--json", str(PLANTED), str(tmp_path / "gone.jsonl")]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"pitui: {tmp_path / 'gone.jsonl'}: no such file\n"
    report, = json.loads(captured.out)
    assert report["secrets"][0] == {"line": 1, "id": None, "where": "header", "kind": "gitlab-token",
                                    "preview": "glpa…"}
    assert sorted((s["line"], s["where"], s["kind"]) for s in report["secrets"]) == \
        sorted((p["line"], p["where"], p["kind"]) for p in planted())


def test_a_store_is_scanned_with_its_progress_on_a_terminal(capsys, tmp_path, monkeypatch):
    project = tmp_path / "sessions" / "--home-dev-shop--"
    project.mkdir(parents=True)
    shutil.copy(PLANTED, project / "2026-11-20T10-00-00-000Z_planted.jsonl")
    for f in CLEAN.glob("*.jsonl"):
        shutil.copy(f, project / f.name)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["check", "--secrets", str(tmp_path / "sessions")]) == 1
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == len(planted())
    assert "\rscanning 1/2 files, 0% of " in captured.err and "\rscanning 2/2 files, " in captured.err
    assert captured.err.endswith(f"\r\x1b[K{len(planted())} likely secrets in 2 files (42.5 KB)\n")


@pytest.mark.parametrize("fmt", ["markdown", "html", "json", "session"])
def test_every_export_format_redacts_every_secret(fmt, tmp_path, capsys):
    out = tmp_path / f"out.{fmt}"
    assert main(["export", str(PLANTED), "--format", fmt, "--redact", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    left = [p["kind"] for p in planted() if p["value"] in text or json.dumps(p["value"])[1:-1] in text]
    assert left == []
    assert "[REDACTED " in text
    assert main(["export", str(PLANTED), "--format", fmt, "-o", str(tmp_path / "plain")]) == 0
    assert (tmp_path / "plain").read_bytes() != out.read_bytes()


def test_a_secret_reads_the_same_in_a_call_and_in_its_result(tmp_path):
    out = tmp_path / "out.md"
    assert main(["export", str(PLANTED), "--format", "markdown", "--redact", "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "STRIPE_KEY=[REDACTED stripe-key 1] ./deploy.sh" in text  # the call's arguments
    assert "STRIPE_KEY=[REDACTED stripe-key 1]\n" in text  # its output
    assert "[REDACTED stripe-key 2]" not in text


def test_a_redacted_session_export_opens_in_pi(tmp_path):
    """What Pi 1.6.0 reads of the redacted export (``node pi_open.mjs PKG OUT``, run once on
    ``pitui export planted.jsonl --format session --redact -o OUT``, its output copied into
    pi-open-redacted.json): every entry, one root, the context; pitui reads it the same,
    with no warning."""
    out = tmp_path / "fork.jsonl"
    assert main(["export", str(PLANTED), "--format", "session", "--redact", "-o", str(out)]) == 0
    pi = json.loads((SECRETS / "pi-open-redacted.json").read_text())
    s = Session.open(out)
    assert (len(s), len(s.roots), len(build_context(s)["messages"])) == (pi["entries"], pi["roots"], pi["context"])
    assert s.all_warnings == []
    original = Session.open(PLANTED)
    assert len(s) == len(original) and len(build_context(original)["messages"]) == pi["context"]
