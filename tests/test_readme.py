"""The README's two commands are the ones that work: CI runs the same test command."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _ci_test_cmd() -> str:
    m = re.search(r'^TEST_CMD="(.*)"$', (REPO / ".ci" / "run").read_text(), re.M)
    assert m, ".ci/run defines TEST_CMD"
    return m.group(1)


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", text, re.S)]


def test_readme_shows_the_test_command_ci_runs():
    assert _ci_test_cmd() in _readme_commands()


def test_readme_shows_the_demo_command():
    assert "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/pitui --demo" in _readme_commands()
