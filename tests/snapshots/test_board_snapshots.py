"""The board of agents at work (``a``) as screenshots at 100x30 and 160x45, on a store whose
sessions are in every state at the fixed clock (tests/board_store.py; UTC, HOME at the
repository). SVGs in snapshots/test_board_snapshots/: look at each before committing one.
"""

from __future__ import annotations

import pytest

from board_store import board_store


@pytest.fixture(autouse=True)
def _home(ui_home):
    return ui_home


async def _board_shown(pilot, settle, rows: int) -> None:
    """``a`` pressed, and the board showing the store's ``rows`` sessions with their costs."""
    await settle(pilot)
    await pilot.press("a")
    for _ in range(200):
        await pilot.pause(0.05)
        board = pilot.app.screen
        if len(getattr(board, "rows", ())) == rows and all(a.cost is not None for a in board.rows):
            break
    await settle(pilot)


@pytest.mark.parametrize("size", [(100, 30), (160, 45)])
def test_the_board_of_agents_at_work(snap_compare, make_app, settle, tmp_path, size):
    board_store(tmp_path)
    app = make_app(tmp_path)

    async def run_before(pilot):
        await _board_shown(pilot, settle, 4)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
