"""The context meter (issue 34): how full the model's context was at the selected entry,
as Pi's footer says it, for any entry of any branch."""

from __future__ import annotations

from helpers import assistant, entry, user, write
from pitui.core.model.meter import ContextMeter, context_meter, model_window
from pitui.core.read.session import Session


def _usage(inp, read=0, write_=0, out=500):
    return {"input": inp, "output": out, "cacheRead": read, "cacheWrite": write_, "totalTokens": inp + read + write_ + out,
            "cost": {"total": 0.01}}


def _session(tmp_path):
    return Session.open(write(tmp_path / "s.jsonl", [
        user("u1", None, 1, "go"),
        assistant("a1", "u1", 2, usage=_usage(1000, 200_000, 52_000)),         # 253k of 1M (gemini)
        user("u2", "a1", 3, "more"),
        assistant("a2", "u2", 4, stopReason="aborted", usage=_usage(9, 0, 0)),  # skipped, as Pi does
        assistant("a3", "u2", 5, usage=_usage(0, 0, 0, out=0)),                  # reports nothing: skipped
        entry("compaction", "c1", "a3", 6, summary="s", firstKeptEntryId="u2", tokensBefore=180_000),
        user("u3", "c1", 7, "after"),
        assistant("a4", "u3", 8, model="claude-sonnet-4-5", usage=_usage(30_000)),
        assistant("b1", "u1", 9, model="no-such-model", usage=_usage(5_000)),     # another branch
    ]))


def test_the_meter_at_each_entry(tmp_path):
    s = _session(tmp_path)
    # (the helpers' replies are Anthropic's; the first one's model is set to a Gemini one here)
    assert context_meter(s, s.index_of["u1"]) is None  # no reply above it yet
    s.message(s.index_of["a1"])["model"] = "gemini-2.5-pro"
    s.message(s.index_of["a1"])["provider"] = "google"
    got = {eid: context_meter(s, s.index_of[eid]) for eid in ("a1", "u2", "a2", "a3", "c1", "u3", "a4", "b1")}
    assert got["a1"] == ContextMeter(253_000, 1_048_576)
    assert got["u2"] == got["a2"] == got["a3"] == got["a1"]  # the aborted and the empty reply do not count
    # after the compaction the count is unknown until the next reply, as in Pi's footer
    assert got["c1"] == got["u3"] == ContextMeter(None, 1_048_576, 180_000)
    assert got["a4"] == ContextMeter(30_000, 200_000)
    assert got["b1"] == ContextMeter(5_000, None)
    assert [m.text() for m in (got["a1"], got["u3"], got["a4"], got["b1"])] == [
        "253k / 1.05M · 24%", "? / 1.05M · compacted at 180k", "30k / 200k · 15%", "5k"]
    assert got["a1"].text(short=True) == "253k/1.05M 24%"


def test_a_providers_own_window_and_hostile_values(tmp_path):
    assert model_window("azure", "gpt-6.2-sol") == 1_050_000
    assert model_window("openai-codex", "gpt-6.2-sol") == 500_000
    assert model_window("openai", "claude-sonnet-4-5") == model_window(None, "claude-sonnet-4-5") == 200_000
    assert model_window("x", {"not": "a name"}) is None
    s = Session.open(write(tmp_path / "h.jsonl", [
        user("u1", None, 1),
        assistant("a1", "u1", 2, usage={"input": "lots", "cacheRead": -5, "cacheWrite": 1e300}),
        assistant("a2", "a1", 3, usage="none"),
        entry("compaction", "c1", "a2", 4, summary="s", firstKeptEntryId="a2", tokensBefore="many"),
    ]))
    assert context_meter(s, 1) == ContextMeter(int(1e300), 200_000)
    assert context_meter(s, 3) == ContextMeter(None, 200_000, None)
    assert context_meter(s, 99) is None


async def test_the_header_shows_the_meter_of_the_selected_entry(make_app, settle, tmp_path):
    s = _session(tmp_path)
    app = make_app(s.path)
    async with app.run_test(size=(220, 40)) as pilot:
        await settle(pilot)
        usage = app.screen.header.query_one("#header-usage")

        def line() -> str:
            return usage.render_line(0).text.strip()

        assert line().startswith("context 5k · branch ")  # the leaf: b1, the newest
        tree = app.screen.branch_tree
        tree.select_entry(s.index_of["u3"])
        await settle(pilot)
        assert line().startswith("context ?/200k · branch ")  # (the short form, in a pane this wide)
