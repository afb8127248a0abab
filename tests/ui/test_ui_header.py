"""The session's header line, as a user reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

SIZE = (160, 45)


@pytest.mark.slow
async def test_the_header_says_what_a_fork_was_forked_from(make_app, settle):
    # the demo's admin session was forked (/fork) from the checkout one; its parentSession
    # is a path on the machine that made the demo, so the listing finds it by file name
    from pitui.demo import DEMO_ROOT

    fork = Path(DEMO_ROOT) / "--home-demo-shop--" / "2026-11-18T15-31-40-052Z_01a1ef48-fb94-7715-8560-38ad6bc4bdce.jsonl"
    app = make_app(Path(DEMO_ROOT))
    async with app.run_test(size=(240, 45)) as pilot:  # (a header wide enough for the whole fork title)
        await settle(pilot)
        app.screen.open_session(str(fork))
        await settle(pilot)
        meta = str(app.screen.query_one("#header-meta").render())
        assert "fork of Discount codes at checkout" in meta
