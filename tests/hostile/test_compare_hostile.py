"""The comparison of branches (``pitui compare``, ``C``) on a session whose every string
carries escape sequences, C1 controls, bidi overrides, line breaks and markup: the plain
text and Markdown forms show stand-ins, ``--json`` is exact JSON with them escaped, one
value never fakes a row of its own, and the screen hands no session text to a markup
parser."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from helpers import assistant, entry, user, write
from pitui.core.read.session import Session
from pitui.ui.screens.compare import CompareScreen
from tools import piwriter

EVIL = "HOSTILE[bold]x[/]\x1b]52;c;SGFja2Vk\x07\x1b[2J\x9b2J\x00\x7f\r\nsecond line\u202etxt[@click=app.quit]q[/]"
# control characters no output may carry (its own newlines apart)
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _session(tmp_path):
    bash = piwriter.tool_call_block("c1", "bash", {"command": "make " + EVIL})
    edit = piwriter.tool_call_block("c2", "edit", {"path": "src/" + EVIL, "oldText": "a", "newText": EVIL})
    odd = piwriter.tool_call_block("c3", "tool" + EVIL, {})
    results = [
        piwriter.tool_result_message("c1", "bash", [piwriter.text_block(EVIL + "\nCommand exited with code 2")],
                                     is_error=True, timestamp=1795168800000),
        piwriter.tool_result_message("c2", "edit", [piwriter.text_block("ok")], is_error=False,
                                     timestamp=1795168800000, details={"diff": "+1 " + EVIL + "\n-1 a"}),
    ]
    return write(tmp_path / "evil.jsonl", [
        user("u", None, 0, "start"),
        user("p1", "u", 1, EVIL),
        assistant("a1", "p1", 2, content=[bash, edit, odd], stopReason="toolUse"),
        entry("message", "r1", "a1", 3, message=results[0]),
        entry("message", "r2", "r1", 4, message=results[1]),
        entry("label", "l1", "r2", 5, targetId="a1", label=EVIL),
        assistant("left", "l1", 6, text=EVIL, stopReason=EVIL),
        entry("branch_summary", "b1", "u", 7, fromId="left", summary=EVIL),
        user("right", "b1", 8, EVIL),
    ])


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pitui.cli", *args], capture_output=True, timeout=120)


def test_every_form_shows_stand_ins_and_no_value_fakes_a_row(tmp_path):
    f = str(_session(tmp_path))
    for form in ((), ("--markdown",)):
        got = _run("compare", f, "left", "right", *form)
        assert got.returncode == 0 and got.stderr == b""
        text = got.stdout.decode()
        assert not _CONTROL.findall(text), form
        assert "HOSTILE[bold]x[/]^[]52;c;SGFja2Vk^G^[[2J\\x9b2J^@^?^M^Jsecond line\\u202etxt" in text
    plain = _run("compare", f, "left", "right").stdout.decode().splitlines()
    # (the prompt, the answer, the command, the path, the tool, the label, the stop reason and
    # the summary: each one row, none starting with the text after its line break)
    assert not [row for row in plain if row.startswith("second line")]
    assert "  commands  ✗ make HOSTILE[bold]x[/]^[]52;c;SGFja2Vk^G^[[2J\\x9b2J^@^? second line\\u202etxt" \
           "[@click=app.quit]q[/]" in plain
    as_json = _run("compare", f, "left", "right", "--json")
    assert as_json.returncode == 0 and not _CONTROL.findall(as_json.stdout.decode())
    out = json.loads(as_json.stdout)
    left = out["branches"][0]
    assert left["prompts"] == [EVIL] and left["answer"] == EVIL and left["stopReason"] == EVIL
    assert left["commands"] == [{"command": "make " + EVIL, "failed": True}]
    assert left["files"]["modified"] == [{"path": "src/" + EVIL, "added": 1, "removed": 1}]
    assert left["labels"] == [{"id": "a1", "label": EVIL}] and left["summary"] == EVIL
    assert set(left["tools"]) == {"shell_exec", "file_edit", "tool" + EVIL}


async def test_the_screen_gives_no_session_text_to_a_markup_parser(tmp_path, settle, monkeypatch):
    import rich.markup
    import textual.markup
    from textual.app import App

    seen: list[str] = []

    def spy(fn):
        def wrapped(markup, *args, **kwargs):
            if isinstance(markup, str) and "HOSTILE" in markup:
                seen.append(markup)
            return fn(markup, *args, **kwargs)

        return wrapped

    monkeypatch.setattr(textual.markup, "to_content", spy(textual.markup.to_content))
    monkeypatch.setattr(rich.markup, "render", spy(rich.markup.render))
    s = Session.open(_session(tmp_path))

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(CompareScreen(s, [s.index_of["left"], s.index_of["right"]]))

    app = Host()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        for key in ("down", "down", "space", "right", "space", "left", "end", "space"):
            await pilot.press(key)
            await settle(pilot)
        assert app.is_running and isinstance(app.screen, CompareScreen)
    assert not seen
