"""Shared test setup: snapshot location, a fixed clock and time zone, private caches,
no cursor blink, and helpers to build and settle the app."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import settings

# Fuzz tests (tests/hostile/test_fuzz_hostile.py): a fixed seed and a bounded number of examples in
# the normal run; `pytest --hypothesis-profile=long` for deep runs.
settings.register_profile("default", max_examples=30, deadline=None, derandomize=True)
settings.register_profile("long", max_examples=2000, deadline=None)
settings.load_profile("default")

REPO = Path(__file__).resolve().parent.parent
CORPUS_ROOT = REPO / "tests" / "fixtures" / "pi-corpus" / "agent" / "sessions"
SNAPSHOT_DIR = REPO / "snapshots"
FIXED_NOW = "2026-11-21T12:00:00Z"

# Snapshots live in the top-level snapshots/<test module>/ folder, not beside the tests.
try:
    from pytest_textual_snapshot import SVGImageExtension

    def _snapshot_dirname(cls, *, test_location) -> str:
        return str(SNAPSHOT_DIR / test_location.basename)

    SVGImageExtension.dirname = classmethod(_snapshot_dirname)  # type: ignore[method-assign]
except ImportError:  # pragma: no cover - the snapshot plugin is a test extra
    pass


def _demo_root_path() -> Path:
    """The packaged demo sessions (a test that wants them fails if they are missing)."""
    from pitui.demo import DEMO_ROOT

    p = Path(DEMO_ROOT)
    assert p.is_dir() and any(p.rglob("*.jsonl")), f"no demo sessions in {p}"
    return p


@pytest.fixture(autouse=True)
def _fixed_environment(monkeypatch, tmp_path_factory):
    """UTC, a private listing index and config folder, and no blinking cursors."""
    monkeypatch.setenv("TZ", "UTC")
    if hasattr(time, "tzset"):
        time.tzset()
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path_factory.mktemp("pitui-cache")))
    monkeypatch.setenv("PITUI_CONFIG_DIR", str(tmp_path_factory.mktemp("pitui-config")))
    from pitui.core import paths

    paths._forget_notices()  # (lines about an earlier test's caches; private: a reset for tests only)
    try:
        from textual.widgets import Input, TextArea
    except ImportError:  # pragma: no cover
        yield
        return
    for cls in (Input, TextArea):
        orig = cls.__init__

        def init(self, *args, __orig=orig, __cls=cls, **kwargs):
            __orig(self, *args, **kwargs)
            self.set_reactive(__cls.cursor_blink, False)

        monkeypatch.setattr(cls, "__init__", init)
    yield
    if hasattr(time, "tzset"):
        time.tzset()


@pytest.fixture
def fixed_now() -> str:
    return FIXED_NOW


@pytest.fixture
def clock():
    """The fixed clock (2026-11-21T12:00:00Z) the app is given in tests."""
    from pitui.ui.clock import fixed_clock

    return fixed_clock(FIXED_NOW)


@pytest.fixture
def demo_root() -> Path:
    return _demo_root_path()


@pytest.fixture
def corpus_root() -> Path:
    return CORPUS_ROOT


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory):
    """A search index of the conformance corpus, built once per test module."""
    from pitui.core.store.discovery import resolve_root
    from pitui.core.store.search import update_index

    d = tmp_path_factory.mktemp("corpus-index")
    update_index(resolve_root(CORPUS_ROOT), index_dir=d)
    return d


@pytest.fixture
def ui_home(monkeypatch):
    """HOME at the repository, so paths the app shows read ``~/tests/...`` on any clone."""
    monkeypatch.setenv("HOME", str(REPO))
    return REPO


@pytest.fixture
def make_app(clock, tmp_path_factory, monkeypatch):
    """``make_app(path_or_root, **kwargs)``: the app as the CLI builds it, with the fixed
    clock, a private index, the stats debounce and the background delay off (deterministic
    headers) and the message
    pane drawing every block at once (no "drawing…" placeholders racing a screenshot)."""
    from pitui.core.store.discovery import SessionRoot, resolve_root
    from pitui.core.store.listing import SessionIndex
    from pitui.ui import app as app_module
    from pitui.ui.pane import scroller

    monkeypatch.setattr(scroller.BlockScroller, "ASYNC_BYTES", None)

    def make(where, **kwargs):
        root = where if isinstance(where, SessionRoot) else resolve_root(str(where))
        kwargs.setdefault("clock", clock)
        kwargs.setdefault("index", SessionIndex(tmp_path_factory.mktemp("index")))
        return app_module.PituiApp(root, **kwargs)

    from pitui.ui.browser.opener import SessionOpener
    from pitui.ui.widgets.header import SessionHeader

    monkeypatch.setattr(SessionHeader, "STATS_DELAY", 0)
    monkeypatch.setattr(SessionOpener, "BACKGROUND_DELAY", 0)
    yield make


async def _settle(pilot, rounds: int = 50) -> None:
    """Wait until no worker runs and the screen is idle (workers start workers)."""
    from textual.worker import WorkerCancelled, WorkerFailed

    from helpers import workers_done

    app = pilot.app
    for _ in range(rounds):
        try:
            await workers_done(app)
        except (WorkerCancelled, WorkerFailed):
            pass  # superseded (exclusive) workers; failures surface in the app's state
        await pilot.pause()
        if all(w.is_finished for w in app.workers):
            await pilot.pause()
            if all(w.is_finished for w in app.workers):
                break
    await pilot.pause()


@pytest.fixture
def settle():
    """``await settle(pilot)``: every worker finished and messages processed."""
    return _settle


@pytest.fixture
def notes(monkeypatch) -> list[str]:
    """Every toast the app shows in the test, as text (the toasts still show)."""
    from pitui.ui.app import PituiApp

    got: list[str] = []
    orig = PituiApp.notify

    def notify(self, message, *args, **kwargs):
        got.append(str(message))
        return orig(self, message, *args, **kwargs)

    monkeypatch.setattr(PituiApp, "notify", notify)
    return got
