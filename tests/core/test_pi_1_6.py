"""What Pi 1.6.0 newly writes into sessions, read and shown (issue 32, part 5).

The three sessions in tests/fixtures/pi-written/pi-1.6.0 were written by Pi 1.6.0's own CLI
with a scripted model (tools/pi_written/headless_runs.mjs; Pi's reading of each, by
tools/pi_written/pi_reading.mjs, in its expected/ folder):
- a batch of tool calls aborted (Esc, an RPC ``abort``) before any ran: since 1.6.0 each call
  gets an "Operation aborted" result instead of none;
- ``read`` of an image by a model without image input: the image stays in the result and
  ``details.imageUnsupportedByModel`` names the model (1.6.0 no longer stores a note in the
  text);
- a provider's report of reasoning it withheld from a request (the ``diagnostics`` the OpenAI
  provider appends; scripted here, Pi's agent loop and session manager stored it): Pi's
  transcript notice shows when the count grows, not on every later reply that reports the
  same item again.
Also: provider errors stored as JSON inside JSON, made readable with the raw text kept.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import TESTS, assistant, user, write
from pitui.core.export.html import export_html
from pitui.core.export.markdown import export_markdown
from pitui.core.model.context import build_context
from pitui.core.model.notices import new_reasoning_drop, provider_error, reasoning_drop
from pitui.core.read.session import Session

FIXTURES = TESTS / "fixtures" / "pi-written" / "pi-1.6.0"
RUNS = json.loads((FIXTURES / "runs.json").read_text())


def run_file(run: str) -> Path:
    (name,) = RUNS[run]["sessionFiles"]
    return FIXTURES / name


ABORTED = run_file("rpc-abort-batch")
IMAGE = run_file("json-image-unsupported")
DROPPED = run_file("json-reasoning-dropped")


@pytest.mark.parametrize("path", [ABORTED, IMAGE, DROPPED], ids=["aborted", "image", "dropped"])
def test_read_as_pi_1_6_reads_them(path):
    exp = json.loads((FIXTURES / "expected" / f"{path.name}.json").read_text())
    s = Session.open(path)
    assert (len(s), s.types, s.leaf, s.roots) == (exp["entryCount"], exp["types"], exp["leaf"], exp["roots"])
    assert [p if p >= 0 else None for p in s.parent] == exp["parents"]
    assert json.loads(json.dumps(build_context(s))) == exp["context"]
    assert s.all_warnings == []


def _lines(pane) -> list[str]:
    return [pane.render_line(y).text.rstrip() for y in range(pane.size.height)]


async def test_calls_aborted_before_they_ran_show_as_failed_with_pis_words(make_app, settle):
    app = make_app(ABORTED)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        text = "\n".join(_lines(app.screen.pane))
    assert "▎ ✗ bash  $ python3 test_greet.py" in text
    assert "▎ ✗ read  greet.py" in text
    assert text.count("▎   Operation aborted") == 2
    assert "▎ ⊘ aborted: This operation was aborted" in text


async def test_an_image_the_model_could_not_see_says_so(make_app, settle):
    app = make_app(IMAGE)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        text = "\n".join(_lines(app.screen.pane))
    assert "▎   ▣ image image/png · 2×2 · 75 B" in text
    assert "▎   ⚠ scripted-text does not support images; it saw a placeholder instead" in text
    s = Session.open(IMAGE)
    assert "*⚠ scripted-text does not support images; it saw a placeholder instead.*" in export_markdown(s)
    assert "⚠ scripted-text does not support images; it saw a placeholder instead" in export_html(s)


def test_withheld_reasoning_is_noted_when_it_grows():
    s = Session.open(DROPPED)
    replies = [i for i in range(len(s)) if s.roles[i] == "assistant"]
    assert [reasoning_drop(s.message(i)) for i in replies] == [
        None, "OpenAI dropped 1 reasoning item: prefix_mismatch", "OpenAI dropped 1 reasoning item: prefix_mismatch"]
    # the third reply reports the same item again: Pi shows no new notice
    assert [new_reasoning_drop(s, i) for i in replies] == [None, "OpenAI dropped 1 reasoning item: prefix_mismatch", None]
    md = export_markdown(s)
    assert md.count("> ⚠ OpenAI dropped 1 reasoning item: prefix_mismatch") == 1
    assert export_html(s).count("⚠ OpenAI dropped 1 reasoning item: prefix_mismatch") == 1


async def test_the_pane_shows_the_withheld_reasoning_once(make_app, settle):
    app = make_app(DROPPED)
    async with app.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        text = "\n".join(_lines(app.screen.pane))
    assert text.count("▎ ⚠ OpenAI dropped 1 reasoning item: prefix_mismatch") == 1


def test_anthropic_and_hostile_diagnostics(tmp_path):
    def drop(kind, changes):
        return [{"type": kind, "timestamp": 1, "details": {"transformations": changes}}]

    thinking = [{"type": "thinking_dropped", "reason": "signature_mismatch"}] * 2 + [{"type": "other"}]
    assert reasoning_drop({"diagnostics": drop("anthropic_input_transformations", thinking)}) == \
        "Anthropic dropped 2 thinking blocks: signature_mismatch"
    for junk in (None, "x", [1, "a", None], [{"type": "openai_input_transformations"}],
                 drop("openai_input_transformations", "no list"), drop("openai_input_transformations", [7, None]),
                 drop("unknown_kind", [{"type": "reasoning"}])):
        assert reasoning_drop({"diagnostics": junk}) is None
    # the previous reply with a larger count of another provider's kind does not hide this one
    objs = [user("u1", None, 1),
            assistant("a1", "u1", 2, diagnostics=drop("anthropic_input_transformations", thinking)),
            user("u2", "a1", 3),
            assistant("a2", "u2", 4, diagnostics=drop("openai_input_transformations", [{"type": "reasoning"}]))]
    s = Session.open(write(tmp_path / "s.jsonl", objs))
    assert new_reasoning_drop(s, 3) == "OpenAI dropped 1 reasoning item"


GOOGLE_429 = "429 " + json.dumps({"error": {"message": json.dumps({"error": {
    "code": 429, "message": "Resource exhausted. Please try again later.", "status": "RESOURCE_EXHAUSTED"}}, indent=2),
    "code": 429, "status": "Too Many Requests"}})


@pytest.mark.parametrize("raw, short", [
    (GOOGLE_429, "429 RESOURCE_EXHAUSTED: Resource exhausted. Please try again later."),
    ('529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', "529 overloaded_error: Overloaded"),
    ('{"error":{"code":400,"message":"Invalid value","status":"INVALID_ARGUMENT"}}', "400 INVALID_ARGUMENT: Invalid value"),
    ('[{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}]',
     "503 UNAVAILABLE: The model is overloaded."),
    ("Connection closed.", "Connection closed."),
    ("400 {not json at all", "400 {not json at all"),
    ('500 {"unexpected": true}', '500 {"unexpected": true}'),
    ("500 " + "[" * 5000 + "]" * 5000, "500 " + "[" * 5000 + "]" * 5000),
])
def test_provider_errors_read_as_status_and_message(raw, short):
    error = provider_error(raw)
    assert (error.short, error.raw, error.unwrapped) == (short, raw, short != raw)


async def test_the_pane_unwraps_a_provider_error_and_keeps_the_raw_one_fold_away(make_app, settle, tmp_path):
    objs = [user("u1", None, 1, "go"),
            assistant("a1", "u1", 2, content=[], stopReason="error", errorMessage=GOOGLE_429)]
    app = make_app(write(tmp_path / "s.jsonl", objs))
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        pane = app.screen.pane
        lines = _lines(pane)
        text = "\n".join(lines)
        assert "▎ ✗ error: 429 RESOURCE_EXHAUSTED: Resource exhausted." in text
        assert "RESOURCE_EXHAUSTED\\" not in text and '"code": 429' not in text
        (y,) = [k for k, line in enumerate(lines) if "▸ the error as the provider sent it" in line]
        await pilot.click(pane, offset=(4, y))
        await settle(pilot)
        text = "\n".join(_lines(pane))
        assert "▾ the error as the provider sent it" in text
        assert '▎   429 {"error": {"message": "{\\n  \\"error\\": {\\n    \\"code\\": 429' in text
    md = export_markdown(Session.open(tmp_path / "s.jsonl"))
    assert "> **Stopped: error**: 429 RESOURCE_EXHAUSTED: Resource exhausted. Please try again later." in md
    assert "<details><summary>The error as the provider sent it</summary>" in md
