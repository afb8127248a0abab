"""Secrets in the app (issue 39): the header's badge when the session holds likely secrets,
``w`` listing them with the doctor's findings (Enter goes to the entry), and ``x`` asking
whether to replace them in the export."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pitui.ui.app import PituiApp
from pitui.ui.screens.export import ExportScreen
from pitui.ui.widgets import header
from pitui.ui.widgets.header import SecretsBadge, WarningsBadge, WarningsScreen

from helpers import FIXTURES, dialog_text, workers_done

SIZE = (160, 45)
PLANTED = FIXTURES / "secrets" / "planted.jsonl"
CLEAN = FIXTURES / "pi-corpus" / "agent" / "sessions" / "--home-dev-proj-beta--"


def planted() -> list[dict]:
    return json.loads((FIXTURES / "secrets" / "planted.json").read_text(encoding="utf-8"))


@pytest.fixture
def store(tmp_path) -> Path:
    """A store of the planted session alone."""
    project = tmp_path / "sessions" / "--home-dev-shop--"
    project.mkdir(parents=True)
    shutil.copy(PLANTED, project / "2026-11-20T10-00-00-000Z_01a1f000-0000-7000-8000-000000000039.jsonl")
    return tmp_path / "sessions"


@pytest.fixture
def out_dir(tmp_path, monkeypatch) -> Path:
    """The home folder, where the export dialog starts."""
    d = tmp_path / "out"
    d.mkdir()
    monkeypatch.setenv("HOME", str(d))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.setattr(PituiApp, "copy_to_clipboard", lambda self, text: None)
    return d


@pytest.fixture(autouse=True)
def _nothing_checked_before():
    header._CHECKED.clear()  # (files checked by another test are known by their path, size and time)
    yield
    header._CHECKED.clear()


def badge_text(app) -> str:
    badge = app.screen.query_one(SecretsBadge)
    return "" if badge.has_class("-empty") else str(badge.render())


async def test_the_header_says_the_session_holds_secrets(make_app, settle, store):
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert badge_text(app) == f"⚠ {len(planted())} likely secrets w"
        assert app.screen.query_one("#header-warnings", WarningsBadge).has_class("-empty")


@pytest.mark.parametrize("big", [False, True], ids=["checked-whole-on-a-thread", "secrets-in-a-child"])
async def test_the_header_checks_the_file_after_the_first_paint(make_app, settle, store, monkeypatch, big):
    """Opening a session, the header's check of the file (a thread reading it whole, or for
    a big file a child process looking for secrets) starts once the session is painted:
    neither takes the interpreter or a core from the first screen. The badge still comes."""
    from textual.screen import Screen

    from pitui.ui.browser.opener import SessionOpener

    monkeypatch.setattr(SessionOpener, "BACKGROUND_DELAY", 0.05)  # (the app's own order: off in make_app)
    if big:
        monkeypatch.setattr(header, "BACKGROUND_CHECK_BYTES", 100)
        header._SECRETS_ONLY.clear()
    name = "_scan_secrets_elsewhere" if big else "_check_whole_file"
    real_check = getattr(header.SessionHeader, name)
    real_paint = Screen._compositor_refresh
    painted: list[bool] = []  # (each paint: whether the session was on the screen painted)
    painted_at_check: list[int] = []

    def paint(self, *args, **kwargs):
        real_paint(self, *args, **kwargs)
        painted.append(getattr(self, "session", None) is not None)

    def check(self, path, key):
        painted_at_check.append(sum(painted))
        return real_check(self, path, key)

    monkeypatch.setattr(Screen, "_compositor_refresh", paint)
    monkeypatch.setattr(header.SessionHeader, name, check)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.pause(0.2)
        await settle(pilot)
        assert len(painted_at_check) == 1 and painted_at_check[0] >= 1
        assert badge_text(app) == f"⚠ {len(planted())} likely secrets w"
    header._SECRETS_ONLY.clear()


async def test_no_badge_on_a_session_without_secrets(make_app, settle):
    app = make_app(sorted(CLEAN.glob("*.jsonl"))[0])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert badge_text(app) == ""


async def test_w_lists_the_secrets_and_enter_goes_to_the_entry(make_app, settle, store):
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = app.browser
        b.branch_tree.select_entry(b.session.index_of["05ec000e"])  # (the last entry)
        await settle(pilot)
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, WarningsScreen)
        shown = dialog_text(app.screen)
        assert f"{len(planted())} likely secrets in 2026-11-20T10-00-00-000Z_01a1f000" in shown
        assert "     line 2  secret: openai-key in user text, entry 05ec0000: sk-p…" in shown
        assert "    line 14  secret: anthropic-key in compaction summary, entry 05ec000c: sk-a…" in shown
        assert not [p for p in planted() if p["value"] in shown]
        await pilot.press("down", "enter")  # (the second row: the OpenAI key in the first user message)
        await settle(pilot)
        assert not isinstance(app.screen, WarningsScreen)
        assert b.session.ids[b.branch_tree.selected_entry] == "05ec0000"
        await pilot.press("w")
        await settle(pilot)
        await pilot.press("end", "enter")  # (the last row: the private key in the branch summary)
        await settle(pilot)
        assert b.session.ids[b.branch_tree.selected_entry] == "05ec000d"


async def test_x_asks_whether_to_redact_and_does_as_told(make_app, settle, store, out_dir):
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen)
        said = app.screen.query_one("#export-redact")
        assert str(said.render()) == (f"The session holds {len(planted())} likely secrets (w lists them): each is "
                                      "replaced by [REDACTED kind n] (ctrl+r: keep them)")
        await pilot.press("enter")
        await settle(pilot)
        written, = out_dir.iterdir()
        text = written.read_text(encoding="utf-8")
        assert "[REDACTED stripe-key 1]" in text
        assert not [p for p in planted() if p["value"] in text]
        written.unlink()
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("ctrl+r")
        assert str(app.screen.query_one("#export-redact").render()).endswith(
            "written as they are (ctrl+r: replace them)")
        await pilot.press("enter")
        await settle(pilot)
        written, = out_dir.iterdir()
        text = written.read_text(encoding="utf-8")
        assert "[REDACTED" not in text and "STRIPE_KEY=sk_live_" in text


async def test_x_does_not_ask_when_there_is_none(make_app, settle, out_dir):
    app = make_app(sorted(CLEAN.glob("*.jsonl"))[0])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen)
        assert not app.screen.query("#export-redact")
        assert app.screen.redact is False


async def test_a_big_file_is_checked_for_secrets_when_asked(make_app, settle, store, out_dir, monkeypatch):
    """A file too big for the background check whose child-process scan has not answered
    yet (here: never) has no badge; `x` says its secrets are not known yet and redacts by
    default, finding them as it exports; `w` checks it whole."""
    monkeypatch.setattr(header, "BACKGROUND_CHECK_BYTES", 0)
    monkeypatch.setattr(header.SessionHeader, "_scan_secrets_elsewhere", lambda self, path, key: None)
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert badge_text(app) == ""
        await pilot.press("x")
        await settle(pilot)
        assert str(app.screen.query_one("#export-redact").render()).startswith(
            "The session was not checked for secrets yet (w checks it): each is replaced by")
        await pilot.press("enter")
        await settle(pilot)
        written, = out_dir.iterdir()
        assert not [p for p in planted() if p["value"] in written.read_text(encoding="utf-8")]
        await pilot.press("w")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert badge_text(app) == f"⚠ {len(planted())} likely secrets w"


async def test_a_big_file_gets_its_secrets_badge_from_a_child_process(make_app, settle, store, monkeypatch):
    # a file over the size checked whole on a thread: its secrets are looked for in a child
    # process (the doctor's findings still wait for w), and x knows them
    monkeypatch.setattr(header, "BACKGROUND_CHECK_BYTES", 100)
    header._SECRETS_ONLY.clear()
    app = make_app(store)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await workers_done(app)
        await pilot.pause()
        assert badge_text(app) == f"⚠ {len(planted())} likely secrets w"
        path = app.browser.session.path
        assert header._CHECKED == {}  # (not checked whole: w still does that)
        found = app.screen.query_one(header.SessionHeader).known_secrets(path)
        assert sorted(s.value for s in found) == sorted(p["value"] for p in planted())
    header._SECRETS_ONLY.clear()
