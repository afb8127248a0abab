"""A file that lost its session header (issue 34): Pi refuses it, and so do `pitui list`,
`export` and `check`; the app shows what it holds, read-only, under a banner saying so."""

from __future__ import annotations

from helpers import assistant, user, write
from pitui.cli import main
from pitui.core.read.session import NotASession, Session


def _headerless(tmp_path):
    folder = tmp_path / "sessions" / "--proj--"
    folder.mkdir(parents=True)
    return write(folder / "2026-11-20T10-00-00-000Z_lost.jsonl",
                 [user("u1", None, 1, "the header went missing"), assistant("a1", "u1", 2, "still here")], header=None)


def test_pitui_still_refuses_it_where_pi_does(tmp_path, capsys):
    path = _headerless(tmp_path)
    try:
        Session.open(path)
        raise AssertionError("opened")
    except NotASession as exc:
        assert exc.no_header
    assert main(["export", str(path), "--format", "markdown"]) == 2
    s = Session.open_headerless(path)
    assert (s.headerless, s.ids, s.leaf, s.id) == (True, ["u1", "a1"], 1, "lost")
    assert [(w.line, w.message) for w in s.all_warnings] == [
        (1, "line 1: no session header: Pi will not open this file")]


async def test_the_app_shows_what_it_holds_under_a_banner(make_app, settle, tmp_path, notes):
    path = _headerless(tmp_path)
    app = make_app(tmp_path / "sessions")
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.screen.open_session(str(path))
        await settle(pilot)
        screen = app.screen
        assert screen.session is not None and screen.session.headerless
        title = screen.header.query_one("#header-title").render_line(0).text
        assert title.startswith("⚠ No session header, Pi won't open it")
        text = "\n".join(screen.pane.render_line(y).text for y in range(screen.pane.size.height))
        assert "the header went missing" in text and "still here" in text
        await pilot.press("r")  # (Pi would refuse it: not run)
        await settle(pilot)
    assert any("Pi will not open this file" in n for n in notes)
