"""The tree filter (f) is each session's own: a session opened for the first time shows the
default filter, whatever the session before had; one opened again shows the filter it was
left with (for the app's run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assistant, tree_state, user, write

SIZE = (160, 45)


@pytest.fixture
def two_sessions(tmp_path) -> tuple[Path, Path]:
    project = tmp_path / "--home-u-proj--"
    project.mkdir()
    older = write(project / "2026-11-20T09-00-00-000Z_older.jsonl", [
        user("o1", None, 1, "older question"),
        assistant("o2", "o1", 2, "older answer"),
    ])
    newer = write(project / "2026-11-20T10-00-00-000Z_newer.jsonl", [
        user("n1", None, 3601, "newer question"),
        assistant("n2", "n1", 3602, "newer answer"),
    ])
    return older, newer


async def _open_from_sidebar(pilot, settle, key: str) -> None:
    """Focus the sidebar, move its cursor with ``key`` and open that session, then come
    back to the tree."""
    pilot.app.screen.session_list.focus()
    await pilot.press(key, "enter")
    await settle(pilot)
    pilot.app.screen.branch_tree.focus()
    await settle(pilot)


@pytest.mark.slow
async def test_each_session_keeps_its_own_tree_filter(make_app, settle, two_sessions):
    older, newer = two_sessions
    app = make_app(older.parent.parent)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert tree_state(app) == (newer.name, "Tree · default", ["• user: newer question", "› • assistant: newer answer"])
        await pilot.press("f", "f")
        await settle(pilot)
        assert tree_state(app) == (newer.name, "Tree · user-only", ["› • user: newer question"])
        # another session: at the default filter, not the one left behind
        await _open_from_sidebar(pilot, settle, "down")
        assert tree_state(app) == (older.name, "Tree · default", ["• user: older question", "› • assistant: older answer"])
        await pilot.press("f")
        await settle(pilot)
        assert tree_state(app)[1] == "Tree · no-tools"
        # back to the first: its own filter again; then the second: its own
        await pilot.press("backspace")
        await settle(pilot)
        assert tree_state(app) == (newer.name, "Tree · user-only", ["› • user: newer question"])
        await _open_from_sidebar(pilot, settle, "down")
        assert tree_state(app)[:2] == (older.name, "Tree · no-tools")
