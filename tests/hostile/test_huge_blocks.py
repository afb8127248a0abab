"""One huge message never stalls the pane (issue 17): a 10 MB message took 28 s to draw and a
100 MB one never finished. What one text draws is capped (TEXT_CAP characters; Markdown
past MARKDOWN_CAP is drawn as plain wrapped text), and a marker line counts the rest.
Its action (enter, a click) draws all of it, on a worker, as light rows, piece by piece: the
same action while it draws gives it up, and q quits at once. ``e`` shows the whole entry in
$PAGER. Searching the pane still sees the whole text.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from helpers import assistant, user, write
from pitui.ui.pane.pieces import _output_lines
from pitui.ui.pane.canvas import CUT_LINES, TEXT_CAP, UNCAP, DrawStopped, Out, RenderCtx
from pitui.ui.pane.palette import DEFAULT_PALETTE

MB = 1_000_000


def _out(**kw) -> Out:
    console = Console(width=100, file=io.StringIO(), force_terminal=True, color_system="truecolor")
    return Out(RenderCtx(console=console, palette=DEFAULT_PALETTE, **kw), 100)


def _texts(out: Out) -> list[str]:
    return ["".join(seg.text for seg in strip) for strip in out.strips]


TEXTS = {
    "markdown lines": ("word " * 15 + "\n") * (10 * MB // 76),
    "one 10 MB line": "x" * (10 * MB),
}


@pytest.mark.parametrize("method", ["markdown", "wrap", "plain"])
@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
def test_a_10_mb_text_draws_a_capped_part_and_counts_the_rest(method, text):
    out = _out(toggles=frozenset({"tool_output"}))
    getattr(out, method)(text)
    lines = _texts(out)
    # at most the cap's worth of characters, wrapped at the width
    assert len(lines) <= TEXT_CAP // 80 + text[: TEXT_CAP].count("\n") + 2
    assert lines[-1].strip() == f"… {len(text) - TEXT_CAP:,} more characters (enter: draw all · e: $PAGER)"


def test_a_text_under_the_cap_is_drawn_whole_with_no_marker():
    out = _out()
    out.wrap("y" * 1000)
    assert not any("more characters" in t for t in _texts(out))
    assert sum(t.count("y") for t in _texts(out)) == 1000


def test_a_100_mb_tool_result_in_full_output_is_capped_with_its_lines_counted():
    text = ("z" * 99 + "\n") * MB  # 100 MB, a million lines
    out = _out(toggles=frozenset({"tool_output"}))
    _output_lines(out, text, "k")
    lines = _texts(out)
    drawn = TEXT_CAP // 100  # (the lines inside the character cap)
    assert len(lines) == drawn + 1
    assert lines[-1].strip() == f"… {MB - drawn:,} more lines (enter: draw all · e: $PAGER)"
    folded = _out()
    _output_lines(folded, text, "k")
    assert _texts(folded)[-1].strip() == f"… {MB - CUT_LINES:,} more lines (o)"


def test_one_100_mb_line_of_output_says_how_much_is_not_drawn():
    out = _out(toggles=frozenset({"tool_output"}))
    _output_lines(out, "q" * (100 * MB), "k")
    assert _texts(out)[-1].strip() == f"… {100 * MB - TEXT_CAP:,} more characters (enter: draw all · e: $PAGER)"


def test_text_mode_keeps_the_whole_text_for_search():
    out = _out(text_mode=True)
    out.markdown("a" * (2 * TEXT_CAP) + " NEEDLE")
    assert out.texts and out.texts[0].endswith("NEEDLE")


async def test_the_app_opens_a_session_with_a_10_mb_message_and_q_quits(tmp_path, make_app, settle):
    f = write(tmp_path / "big.jsonl", [user("u1", None, 1, TEXTS["markdown lines"]),
                                       assistant("a1", "u1", 2, "x" * (10 * MB)), user("u2", "a1", 3, "last")])
    app = make_app(f)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        b = app.browser
        assert b.session is not None and len(b.session) == 3
        await pilot.press("g")  # to the root: the 10 MB message drawn first
        await settle(pilot)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code in (0, None)


# ----------------------------------------------------------------------------- drawing all of it
def _row_texts(out: Out) -> list[str]:
    r = out.result()
    return [r.strip(i).text for i in range(r.height)]


@pytest.mark.slow
def test_drawn_whole_a_10_mb_text_has_every_line_and_ends_with_the_line_that_caps_it_again():
    text = "".join(f"line {i:07d} " + "word " * 12 + "\n" for i in range(10 * MB // 75))
    out = _out(inverted=frozenset({UNCAP}))
    out.wrap(text)
    rows = _row_texts(out)
    assert rows[-1].strip() == f"▴ less (the first {TEXT_CAP:,} characters)"
    numbered = [r.split()[1] for r in rows if r.startswith("line ")]
    assert numbered == [f"{i:07d}" for i in range(10 * MB // 75)]  # every line, in order, once
    assert all(len(r) <= 100 for r in rows)
    # the light rows draw exactly as the capped drawing's strips do
    capped = _out()
    capped.wrap(text)
    assert _texts(capped)[:2000] == rows[:2000]


@pytest.mark.slow
def test_drawn_whole_100_mb_of_tool_output_shows_every_line():
    text = ("z" * 99 + "\n") * MB
    out = _out(toggles=frozenset({"tool_output"}), inverted=frozenset({UNCAP}))
    _output_lines(out, text, "k")
    r = out.result()
    assert r.height == MB + 1
    assert r.strip(MB - 1).text.strip() == "z" * 99
    assert r.strip(MB).text.strip() == f"▴ less (the first {TEXT_CAP:,} characters)"


def test_a_drawing_of_all_of_it_stops_between_pieces_when_asked():
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 2

    out = _out(inverted=frozenset({UNCAP}), should_stop=stop)
    with pytest.raises(DrawStopped):
        out.plain("x" * (50 * MB))
    assert len(asked) == 3  # asked between pieces: three pieces drawn of 250
    assert out.result().height <= 3 * TEXT_CAP // 100


def _big_message_session(tmp_path, size=2 * MB):
    text = "".join(f"line {i:07d} " + "word " * 12 + "\n" for i in range(size // 75))
    return write(tmp_path / "big.jsonl", [user("u1", None, 1, "show me"), assistant("a1", "u1", 2, text),
                                         user("u2", "a1", 3, "thanks")])


def _screen(app) -> str:
    import re
    from html import unescape

    return unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")


async def test_enter_on_the_marker_draws_all_of_it_and_enter_on_the_last_line_caps_it_again(
        tmp_path, make_app, settle):
    app = make_app(_big_message_session(tmp_path))
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await pilot.press("tab", "end")  # the pane, at the end of the branch
        await settle(pilot)
        marker = "more characters (enter: draw all · e: $PAGER)"
        assert marker in _screen(app) and "line 0002703" not in _screen(app)
        await pilot.press("enter")
        await settle(pilot)
        screen = _screen(app)
        # the text goes on where the marker was
        assert "line 0002702" in screen and "line 0002703" in screen and marker not in screen
        await pilot.press("end")
        await settle(pilot)
        screen = _screen(app)
        assert f"line {2 * MB // 75 - 1:07d}" in screen and "▴ less (the first 200,000 characters)" in screen
        await pilot.press("enter")
        await settle(pilot)
        assert marker in _screen(app)


def _slow_drawing(monkeypatch):
    """Each piece of a drawing of all of it takes a while (a slow machine), so it is seen
    under way."""
    import time

    check = Out.check

    def slow(self):
        time.sleep(0.2)
        check(self)

    monkeypatch.setattr(Out, "check", slow)


async def test_enter_again_while_it_draws_gives_the_drawing_up(tmp_path, make_app, settle, monkeypatch):
    app = make_app(_big_message_session(tmp_path))
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await pilot.press("tab", "end")
        await settle(pilot)
        _slow_drawing(monkeypatch)
        await pilot.press("enter")
        await pilot.pause()
        assert "⋯ drawing all of it (enter: stop)" in _screen(app)
        await pilot.press("enter")
        await settle(pilot)
        screen = _screen(app)
        assert "more characters (enter: draw all · e: $PAGER)" in screen
        assert "drawing all of it" not in screen and "line 0002703" not in screen


async def test_q_while_it_draws_quits(tmp_path, make_app, settle, monkeypatch):
    text = ("z" * 99 + "\n") * (20 * MB // 100)
    f = write(tmp_path / "out.jsonl", [
        user("u1", None, 1, "run it"),
        assistant("a1", "u1", 2, content=[{"type": "toolCall", "id": "c1", "name": "bash",
                                           "arguments": {"command": "cat big.log"}}], stopReason="toolUse"),
        {"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2026-11-20T10:00:03.000Z",
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                     "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 3}},
        assistant("a2", "r1", 4, "done")])
    app = make_app(f)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await pilot.press("o", "tab", "end")
        await settle(pilot)
        assert "more lines (enter: draw all · e: $PAGER)" in _screen(app)
        _slow_drawing(monkeypatch)
        await pilot.press("enter")
        await pilot.pause()
        assert "⋯ drawing all of it (enter: stop)" in _screen(app)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code in (0, None)
