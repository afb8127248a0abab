"""Entries a Pi-based app writes into Pi's extension slots (issue 19, section 2): `custom`
entries of customType `assistant.event` (replay-only UI events) and `custom_message` entries
of customType `assistant.input` (input from another agent, or a callback's hidden input).
The two sessions were written by Pi's own SessionManager (tools/pi_written/
extension_sessions.mjs) and ship in the demo; Pi's reading of each is in
tests/fixtures/pi-written/expected (tools/pi_written/pi_reading.mjs)."""

from __future__ import annotations

import json
import shutil

import pytest

from helpers import FIXTURES, REPO, entry, user, write
from pitui.core.export.html import export_html
from pitui.core.export.markdown import export_markdown
from pitui.core.model.context import build_context
from pitui.core.model.parts import session_id_or_none
from pitui.core.model.entry_parts import app_event, app_input, callbacks_by_call
from pitui.core.read.session import Session
from pitui.core.store.discovery import find_session_by_id
from pitui.ui.pane.scroller import BlockScroller
from pitui.ui.screens.context import ContextScreen

DEMO = REPO / "pitui" / "demo" / "sessions" / "--home-demo-assistant--"
PLANNER = DEMO / "2026-11-12T09-30-04-634Z_01a1cf17-becd-7396-b5cc-096b1032081b.jsonl"
RESEARCHER = DEMO / "2026-11-12T09-30-09-268Z_01a1cf17-d0e7-7396-b5cc-096dbf313a51.jsonl"
EXPECTED = FIXTURES / "pi-written" / "expected"
SIZE = (160, 45)


@pytest.mark.parametrize("path", [PLANNER, RESEARCHER], ids=["planner", "researcher"])
def test_read_as_pi_reads_them(path):
    exp = json.loads((EXPECTED / f"{path.name}.json").read_text())
    s = Session.open(path)
    assert (len(s), s.types, s.leaf, s.roots) == (exp["entryCount"], exp["types"], exp["leaf"], exp["roots"])
    assert [p if p >= 0 else None for p in s.parent] == exp["parents"]
    assert {str(k): v for k, v in s.children.items()} == exp["children"]
    # the hidden callback input is in the model's context; the app's events are not
    assert json.loads(json.dumps(build_context(s))) == exp["context"]


def test_the_parts_of_each_entry():
    s = Session.open(PLANNER)
    events = [app_event(s.entry(i)) for i in range(len(s)) if s.types[i] == "custom"]
    assert [(e.event_type, e.title, e.facts) for e in events] == [
        ("interrupt", "app event", ["turn_2"]),
        ("interaction_request", "app event", ["turn_2"]),
        ("agent_callback", "agent callback", ["from researcher", "done", "turn_3"]),
    ]
    assert events[0].marker.text == "interrupted · user pressed stop · turn_2"
    assert events[2].call_id == "toolu_ask_01" and events[2].from_session == "01a1cf17-d0e7-7396-b5cc-096dbf313a51"
    (callback,) = callbacks_by_call(s)["toolu_ask_01"]
    assert s.ids[callback[0]] == "446db39e"
    hidden = app_input(s.entry(s.types.index("custom_message")))
    assert (hidden.kind, hidden.title, hidden.facts) == ("callback", "callback input", ["from researcher"])
    r = Session.open(RESEARCHER)
    agent = app_input(r.entry(0))
    assert (agent.kind, agent.title, agent.facts, agent.from_session) == (
        "agent", "agent planner", ["input from another agent"], "01a1cf17-becd-7396-b5cc-096b1032081b")
    # other custom types keep the generic rendering
    assert app_event({"type": "custom", "customType": "other.thing", "data": {}}) is None
    assert app_input({"type": "custom_message", "customType": "other.thing"}) is None


def test_a_hostile_session_id_names_no_file(tmp_path):
    assert session_id_or_none("../../etc/passwd") is None
    assert session_id_or_none("*") is None
    assert session_id_or_none("01a1cf17-d0e7") == "01a1cf17-d0e7"
    # found beside the session, then in the root's other project folders
    (tmp_path / "--a--").mkdir()
    (tmp_path / "--b--").mkdir()
    near = write(tmp_path / "--a--" / "2026_x.jsonl", [user("u1", None, 1)])
    other = write(tmp_path / "--b--" / "2026-11-12T09-30-09-268Z_abc-1.jsonl", [user("u1", None, 1)])
    assert find_session_by_id(near, "abc-1") == str(other)
    assert find_session_by_id(near, "abc-2") is None


def test_the_exports_show_them():
    s = Session.open(PLANNER)
    md = export_markdown(s)
    assert ("↩ *callback · from researcher · done · turn_3 · 2026-11-12 09:30:41 UTC*: Postgres 17 adds failover "
            "slots (`sync_replication_slots`) and `pg_createsubscriber`.") in md
    assert "*Interrupted · user pressed stop · `turn_2`*" in md
    assert "### App event\n*2026-11-12 09:30:32 UTC · `interaction_request` · turn_2*" in md
    assert "### Agent callback\n*2026-11-12 09:30:41 UTC · from researcher · done · turn_3*" in md
    assert ("### Callback input\n*2026-11-12 09:30:44 UTC · from researcher · hidden in the app (display: false) · "
            "from session `01a1cf17-d0e7-7396-b5cc-096dbf313a51`*") in md
    html = export_html(s)
    cb = s.index_of["446db39e"]
    assert f'↩ <a href="#e{cb}">callback</a> <span class="muted">from researcher · done · turn_3 · ' in html
    assert '<span class="role">Agent callback</span>' in html
    assert "Interrupted · user pressed stop · <code>turn_2</code>" in html
    assert '<span class="role">Callback input</span>' in html
    r = export_markdown(Session.open(RESEARCHER))
    assert "## Agent planner\n*2026-11-12 09:30:34 UTC · input from another agent · from session " in r


def _lines(pane) -> list[str]:
    return [pane.render_line(y).text.rstrip() for y in range(pane.size.height)]


async def test_the_pane_draws_them_and_h_shows_the_hidden_callback(make_app, settle, tmp_path):
    root = tmp_path / "sessions"
    shutil.copytree(DEMO, root / DEMO.name)
    app = make_app(root / DEMO.name / PLANNER.name)
    async with app.run_test(size=(240, 80)) as pilot:
        await settle(pilot)
        pane = app.screen.pane
        text = "\n".join(_lines(pane))
        # the callback under the call it resolves, the interrupt as a marker, the callback itself
        call = text.index("▎ ✓ agents_message")
        under = text.index("▎ ↩ callback · from researcher · done · turn_3 · 09:30:41 · Postgres 17 adds failover")
        assert call < under
        assert "▎ ⏹ interrupted · user pressed stop · turn_2 " in text
        assert "▎ app event  interaction_request  turn_2 " in text
        assert "▎ agent callback  from researcher  done  turn_3 " in text
        assert "▎ resolves the call toolu_ask_01" in text
        assert "callback input" not in text
        await pilot.press("h")
        await settle(pilot)
        text = "\n".join(_lines(pane))
        assert "▎ callback input  from researcher  hidden (display: false) " in text
        assert "▎ Callback from researcher (msg_7f3a):" in text


async def test_the_context_view_always_shows_the_hidden_callback(make_app, settle, tmp_path):
    app = make_app(PLANNER)
    async with app.run_test(size=(160, 80)) as pilot:
        await settle(pilot)
        await pilot.press("G", "c")
        await settle(pilot)
        assert isinstance(app.screen, ContextScreen)
        view = app.screen.query_one(BlockScroller)
        text = "\n".join(view.render_line(y).text for y in range(view.size.height))
        assert "▎ callback input  from researcher  hidden " in text
        assert "▎ Callback from researcher (msg_7f3a):" in text


async def test_an_agents_input_links_to_the_session_it_came_from(make_app, settle, tmp_path):
    root = tmp_path / "sessions"
    shutil.copytree(DEMO, root / DEMO.name)
    app = make_app(root / DEMO.name / RESEARCHER.name)
    async with app.run_test(size=(220, 45)) as pilot:
        await settle(pilot)
        pane = app.screen.pane
        lines = _lines(pane)
        assert lines[0].startswith("▎ agent planner  input from another agent ")
        (y,) = [k for k, line in enumerate(lines) if line.startswith("▎ from session ")]
        assert lines[y].endswith("⏎ open")
        await pilot.click(pane, offset=(4, y))
        await settle(pilot)
        assert app.screen.session.path == str(root / DEMO.name / PLANNER.name)


def test_a_callback_for_no_call_and_an_unknown_event(tmp_path):
    objs = [user("u1", None, 1, "go"),
            entry("custom", "e1", "u1", 2, customType="assistant.event",
                  data={"chatEventType": "agent_callback", "payload": {"toolCallId": "nope", "message": "late"}}),
            entry("custom", "e2", "e1", 3, customType="assistant.event", data="not a dict")]
    s = Session.open(write(tmp_path / "s.jsonl", objs))
    md = export_markdown(s)
    assert "*Resolves the call `nope`.*" in md
    assert "### App event\n*2026-11-20 10:00:03 UTC · `event`*" in md
