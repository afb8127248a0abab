"""One huge message never stalls the pane (issue 17): a 10 MB message took 28 s to draw and a
100 MB one never finished. What one text draws is capped (render.TEXT_CAP characters; Markdown
past render.MARKDOWN_CAP is drawn as plain wrapped text), and a marker line counts the rest
and says where all of it is (``e``: the whole entry in $PAGER). Searching the pane still sees
the whole text.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from helpers import assistant, user, write
from pitui.ui.pane import render
from pitui.ui.pane.palette import DEFAULT_PALETTE
from pitui.ui.pane.render import Out, RenderCtx

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
    out = _out(full_output=True)
    getattr(out, method)(text)
    lines = _texts(out)
    # at most the cap's worth of characters, wrapped at the width
    assert len(lines) <= render.TEXT_CAP // 80 + text[: render.TEXT_CAP].count("\n") + 2
    assert lines[-1].strip() == f"… {len(text) - render.TEXT_CAP:,} more characters (e: all of it in $PAGER)"


def test_a_text_under_the_cap_is_drawn_whole_with_no_marker():
    out = _out()
    out.wrap("y" * 1000)
    assert not any("more characters" in t for t in _texts(out))
    assert sum(t.count("y") for t in _texts(out)) == 1000


def test_a_100_mb_tool_result_in_full_output_is_capped_with_its_lines_counted():
    text = ("z" * 99 + "\n") * MB  # 100 MB, a million lines
    out = _out(full_output=True)
    render._output_lines(out, text, "k")
    lines = _texts(out)
    drawn = render.TEXT_CAP // 100  # (the lines inside the character cap)
    assert len(lines) == drawn + 1
    assert lines[-1].strip() == f"… {MB - drawn} more lines not drawn"
    folded = _out()
    render._output_lines(folded, text, "k")
    assert _texts(folded)[-1].strip() == f"… {MB - render.CUT_LINES} more lines (o)"


def test_one_100_mb_line_of_output_says_how_much_is_not_drawn():
    out = _out(full_output=True)
    render._output_lines(out, "q" * (100 * MB), "k")
    assert _texts(out)[-1].strip() == f"… {100 * MB - render.TEXT_CAP:,} more characters (e: all of it in $PAGER)"


def test_text_mode_keeps_the_whole_text_for_search():
    out = _out(text_mode=True)
    out.markdown("a" * (2 * render.TEXT_CAP) + " NEEDLE")
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
