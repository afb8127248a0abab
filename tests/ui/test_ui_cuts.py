"""What gives way when a line is too narrow, read off the real app's screen at many widths:
a message's header keeps its role, model and cost and drops the id first, then the token
count; the session header cuts its title at a word with ``…``, shows the current model
first and keeps the models when the cwd is long (the cwd is cut in its middle), and never
loses the word that says what a number is; the stats title is cut at a word; subagent
runs count each under its own model. Every cut ends in ``…``, measured in cells."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import DataTable

from helpers import assistant, entry, ts, user, write
from tools import piwriter
from pitui.ui.text_fit import cut_end, cut_middle, cut_segments, cut_start, cut_words
from pitui.ui.screens.stats import StatsScreen

# terminal widths the app is driven at: the pane and header widths they give cover each
# step of each line's giving way (each test checks that every step was seen)
WIDTHS = range(60, 301, 6)  # (up to where the pane, beside sidebar and tree, shows whole headers)
HEIGHT = 40

LONG_MODEL = "claude-sonnet-4-5-20250929-extended"
CWD = "/home/u/work/acme-corporation/payments-gateway"
TITLE = ("Feedly shows my posts in a random order and says the dates in feed.xml are invalid, "
         "can you fix the feed generator so that every pubDate is RFC 822 and posts come newest first")


def _ms(n: int) -> int:
    return 1795168800000 + n * 1000


def _usage(total: float, tokens: int = 12345) -> dict:
    return {"input": tokens, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": tokens,
            "cost": {"input": total, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": total}}


@pytest.fixture
def session(tmp_path) -> Path:
    """A long title, a long cwd; answers by three models (the first one's name is long),
    then a change to a fourth (the model in use at the branch's end)."""
    project = tmp_path / "--home-u-work--"
    project.mkdir()
    a1 = assistant("a1b2c3d4", "u1", 2, text="first answer", model=LONG_MODEL)
    a2 = assistant("b1b2c3d4", "u2", 4, text="second answer", model="gpt-5")
    a3 = assistant("c1b2c3d4", "u3", 6, text="third answer")
    for a, cost in ((a1, 0.0123), (a2, 0.25), (a3, 0.5)):
        a["message"]["usage"] = _usage(cost)
    header = piwriter.header("sess-cuts", "2026-11-20T10:00:00.000Z", CWD)
    return write(project / "2026-11-20T10-00-00-000Z_c.jsonl", [
        user("u1", None, 1, TITLE),
        a1,
        user("u2", "a1b2c3d4", 3, "second question"),
        a2,
        user("u3", "b1b2c3d4", 5, "third question"),
        a3,
        entry("model_change", "m1", "c1b2c3d4", 7, provider="google", modelId="gemini-2.5-pro"),
    ], header=header)


def _words(line: str) -> str:
    """A line with its runs of spaces as one (what is said, not where)."""
    return " ".join(line.split())


def _first_fitting(width: int, forms: list[str]) -> str:
    """The first form (read as ``_words`` of a line whose pieces are two spaces apart at
    least) that fits ``width`` cells."""
    for form in forms:
        if cell_len(form) <= width:
            return _words(form)
    return ""


async def _at_widths(pilot, settle):
    for width in WIDTHS:
        await pilot.resize_terminal(width, HEIGHT)
        await settle(pilot)
        yield width


def _pane_line(pane, needle: str, width: int) -> str:
    lines = [pane.render_line(y).text for y in range(pane.size.height)]
    for text in lines:
        if needle in text:
            return text
    raise AssertionError(f"no line with {needle!r} in view at {width} columns: {lines}")


@pytest.mark.slow
async def test_a_message_header_drops_its_id_then_its_tokens_and_keeps_role_model_and_cost(make_app, settle, session):
    app = make_app(session)
    seen = set()
    async with app.run_test(size=(WIDTHS[-1], HEIGHT)) as pilot:
        await settle(pilot)
        pane = app.screen.pane
        async for width in _at_widths(pilot, settle):
            line = _pane_line(pane, "assistan", width)
            assert line.startswith("▎ ")
            shown = line[2:].rstrip(" ▁▂▃▄▅▆▇█")  # (the gutter; a scrollbar at the right)
            room = pane.size.width - 2 - (1 if pane.show_vertical_scrollbar else 0)
            # each step of giving way, in order: the id, the tokens, the time; then the model is cut
            forms = [
                f"assistant  {LONG_MODEL}  12.3k tok $0.0123  10:00:02 a1b2c3d4",
                f"assistant  {LONG_MODEL}  12.3k tok $0.0123  10:00:02",
                f"assistant  {LONG_MODEL}  $0.0123  10:00:02",
                f"assistant  {LONG_MODEL}  $0.0123",
            ]
            # (the time sits at the right edge: one space from the cost at the least)
            want = _first_fitting(room + 1, forms[:3]) or _first_fitting(room, forms[3:])
            if not want:
                # then the model is cut (to 8 cells at least), then the line at its end
                model = cut_end(LONG_MODEL, max(8, room - len("assistant    $0.0123")))
                want = _words(cut_end(f"assistant  {model}  $0.0123", room))
                assert "…" in want
            assert _words(shown) == want, (width, room, line)
            seen.add(next((k for k, f in enumerate(forms) if _words(f) == want), len(forms)))
    assert seen == set(range(len(forms) + 1)), seen


@pytest.mark.slow
async def test_the_session_header_gives_way_in_order_and_cuts_with_an_ellipsis(make_app, settle, session):
    app = make_app(session)
    seen_meta, seen_usage = set(), set()
    async with app.run_test(size=(WIDTHS[-1], HEIGHT)) as pilot:
        await settle(pilot)
        header = app.screen.header
        async for _ in _at_widths(pilot, settle):
            title_w = header.query_one("#header-title")
            title = title_w.render_line(0).text.strip()
            room = title_w.content_size.width
            # the title: whole, or cut after a word with "…"
            if title != TITLE:
                assert title.endswith("…") and cell_len(title) <= room
                kept = title[:-1]
                assert TITLE.startswith(kept) and TITLE[len(kept)] == " ", (title, room)
                assert cell_len(kept) >= room // 2 - 1

            meta_w = header.query_one("#header-meta")
            meta = meta_w.render_line(0).text.strip()
            room = meta_w.content_size.width
            # the current model (the last model change) first, never a trailing comma;
            # the models fold to "+N" first, then the cwd is cut before its last two
            # folders, which stay whole (they say which project it is), then the time goes
            models = "gemini-2.5-pro, claude-sonnet-4-5, gpt-5 +1"
            tail = "acme-corporation/payments-gateway"
            assert not meta.rstrip("…").endswith(",")
            if meta == f"{CWD} · 2026-11-20 10:00 · {models}":
                seen_meta.add(0)
            elif meta == f"{CWD} · 2026-11-20 10:00 · gemini-2.5-pro +3":
                assert cell_len(f"{CWD} · 2026-11-20 10:00 · {models}") > room
                seen_meta.add(1)
            elif meta.endswith(f"{tail} · 2026-11-20 10:00 · gemini-2.5-pro +3"):
                cwd = meta[: -len(" · 2026-11-20 10:00 · gemini-2.5-pro +3")]
                assert "…" in cwd and CWD.startswith(cwd.split("…")[0])
                assert cell_len(meta) == room  # (the cut uses the room there is)
                seen_meta.add(2)
            elif meta.endswith(f"{tail} · gemini-2.5-pro +3"):
                cwd = meta[: -len(" · gemini-2.5-pro +3")]
                assert cwd == CWD or "…" in cwd  # (without the time the cwd may be whole again)
                seen_meta.add(3)
            else:  # (too narrow for the cwd's last two folders and the model)
                assert room < cell_len(f"…{tail} · gemini-2.5-pro +3")
                assert "…" in meta and cell_len(meta) <= room and meta.startswith(CWD[0])
                seen_meta.add(4)

            usage_w = header.query_one("#header-usage")
            usage = usage_w.render_line(0).text.strip()
            room = usage_w.content_size.width
            # (the context meter at the selected entry first; its long form gives way first,
            # the whole of it last)
            forms = [
                "context 12k / 200k · 6% · branch 37.0k tok $0.7623 · session 37.0k tok $0.7623 · 7/7 entries",
                "context 12k/200k 6% · branch 37.0k tok $0.7623 · session 37.0k tok $0.7623 · 7/7 entries",
                "context 12k/200k 6% · branch 37.0k tok $0.7623 · session $0.7623 · 7/7 entries",
                "context 12k/200k 6% · branch $0.7623 · session $0.7623 · 7/7 entries",
                "context 12k/200k 6% · branch $0.7623 · 7/7 entries",
                "context 12k/200k 6% · branch $0.7623",
                "branch $0.7623",
            ]
            want = _first_fitting(room, forms)
            assert usage == (want or cut_end(forms[-1], room)), (room, usage)
            seen_usage.add(forms.index(want) if want else len(forms))
    assert seen_meta >= {0, 1, 2, 3}, seen_meta
    assert seen_usage >= {0, 1, 2, 3}, seen_usage


async def test_the_stats_title_is_cut_at_a_word(make_app, settle, session):
    app = make_app(session)
    async with app.run_test(size=(100, HEIGHT)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        title_w = app.screen.query_one("#stats-title")
        title = title_w.render_line(0).text.rstrip()
        assert title == cut_words(TITLE, title_w.content_size.width)
        assert title.endswith("…") and TITLE[len(title) - 1] == " "  # (after a word, not in one)
        # one line: the note under it comes right after
        assert title_w.size.height == 1
        await pilot.resize_terminal(240, HEIGHT)
        await settle(pilot)
        assert title_w.render_line(0).text.rstrip() == TITLE


@pytest.fixture
def subagents(tmp_path) -> Path:
    """A session whose subagent call ran three agents on two models, with the sum of their
    usage on the result as well (Pi's subagent extension writes both)."""
    project = tmp_path / "--home-u-sub--"
    project.mkdir()
    runs = [
        {"agent": "worker", "task": "one", "exitCode": 0, "model": "anthropic/claude-haiku-4-5",
         "usage": {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0, "cost": 0.25, "turns": 3}},
        {"agent": "worker", "task": "two", "exitCode": 0, "model": "openai/gpt-5-mini",
         "usage": {"input": 200, "output": 20, "cacheRead": 0, "cacheWrite": 0, "cost": 0.0021, "turns": 2}},
        {"agent": "reviewer", "task": "three", "exitCode": 0, "model": "anthropic/claude-haiku-4-5",
         "usage": {"input": 300, "output": 30, "cacheRead": 0, "cacheWrite": 0, "cost": 1.25, "turns": 4}},
    ]
    call = piwriter.tool_call_block("call1", "subagent", {"tasks": [{"agent": "worker", "task": "one"}]})
    a1 = assistant("a1", "u1", 2, content=[call])
    result = piwriter.tool_result_message("call1", "subagent", [piwriter.text_block("done")], is_error=False,
                                          timestamp=_ms(3), details={"mode": "parallel", "results": runs})
    result["usage"] = {"input": 600, "output": 60, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 660,
                       "cost": {"total": 1.5021}}
    return write(project / "2026-11-20T10-00-00-000Z_s.jsonl", [
        user("u1", None, 1, "run the agents"),
        a1,
        piwriter.entry("message", "r1", "a1", ts(3), message=result),
        assistant("a2", "r1", 4, text="all done"),
    ])


def _cells(table: DataTable) -> list[list[str]]:
    return [[str(getattr(c, "plain", c)) for c in table.get_row_at(r)] for r in range(table.row_count)]


async def test_stats_give_each_subagent_model_its_row_with_costs_aligned(make_app, settle, subagents):
    app = make_app(subagents)
    async with app.run_test(size=(160, HEIGHT)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        # (one branch: its table is the session's, shown once)
        rows = _cells(app.screen.query_one("#branch-table", DataTable))
        # (the result's own usage, the runs' sum, is not counted twice; a row's calls are
        # its runs' turns; costs as everywhere, their decimal points in one column)
        assert rows == [
            ["anthropic/claude-haiku-4-5 (subagent)", "7", "400", "40", "0", "0",
             "$1.50  ", "96.0%"],
            ["anthropic/claude-sonnet-4-5", "2", "20", "40", "0", "0", "$0.0600", "3.8%"],
            ["openai/gpt-5-mini (subagent)", "2", "200", "20", "0", "0", "$0.0021", "0.1%"],
            ["Total", "11", "620", "100", "0", "0", "$1.56  ", "100.0%"],
        ]
        chart = app.screen.query_one("#branch-chart").render().plain.splitlines()
        assert [ln.split()[0] for ln in chart] == ["anthropic/claude-haiku-4-5", "anthropic/claude-sonnet-4-5",
                                                    "openai/gpt-5-mini"]
        assert [ln.split()[-2:] for ln in chart] == [["$1.50", "96.0%"], ["$0.0600", "3.8%"], ["$0.0021", "0.1%"]]
        # at 100 columns the table fits: names lose their provider, then are cut with "…"
        await pilot.press("escape")
        await pilot.resize_terminal(100, HEIGHT)
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        table = app.screen.query_one("#branch-table", DataTable)
        names = [r[0] for r in _cells(table)]
        assert names == ["claude-haiku-4-5 (subagent)", "anthropic/claude-sonnet-4-5",
                         "openai/gpt-5-mini (subagent)", "Total"]
        assert table.virtual_size.width <= table.size.width


async def test_the_header_model_list_leaves_subagents_and_tools_out(make_app, settle, subagents):
    app = make_app(subagents)
    async with app.run_test(size=(220, HEIGHT)) as pilot:
        await settle(pilot)
        meta = app.screen.header.query_one("#header-meta").render_line(0).text.strip()
        assert meta == "/home/u/proj · 2026-11-20 10:00 · claude-sonnet-4-5"
        usage = app.screen.header.query_one("#header-usage").render_line(0).text.strip()
        assert usage == "context 10 / 200k · 0% · branch 720 tok $1.56 · session 720 tok $1.56 · 4/4 entries"


async def test_wide_characters_are_cut_by_cells(make_app, settle, tmp_path):
    project = tmp_path / "--home-u-cjk--"
    project.mkdir()
    title = "漢字のタイトルはとても長いのでヘッダーの幅に収まりません " * 4
    path = write(project / "2026-11-20T10-00-00-000Z_k.jsonl", [user("u1", None, 1, title), assistant("a1", "u1", 2)])
    app = make_app(path)
    async with app.run_test(size=(120, HEIGHT)) as pilot:
        await settle(pilot)
        title_w = app.screen.header.query_one("#header-title")
        shown = title_w.render_line(0).text.rstrip()
        room = title_w.content_size.width + 1  # (the padding on the left)
        assert shown.endswith("…") and room - 2 <= cell_len(shown) <= room
        assert title.startswith(shown.strip()[:-1].rstrip())


def test_the_cutting_helpers_count_cells_and_end_in_an_ellipsis():
    assert cut_end("abcdef", 6) == "abcdef" and cut_end("abcdef", 4) == "abc…"
    assert cut_end("ab漢字漢字", 5) == "ab漢…" and cut_end("ab漢字漢字", 4) == "ab…"  # (never half a character)
    assert cut_start("~/a/b/project", 10) == "…b/project"
    assert cut_start("~/漢字/project", 10) == "…/project"
    assert cut_middle("/home/u/work/clients/acme/backend", 16) == "/home…me/backend"
    assert cut_words("Feedly shows my posts in a random order", 20) == "Feedly shows my…"
    assert cut_words("Supercalifragilistic word", 10) == "Supercali…"  # (a first word wider than half)
    assert cut_words("😀😀😀 😀😀", 8) == "😀😀😀…"
    for f in (cut_end, cut_start, cut_middle, cut_words):
        for width in range(1, 30):
            for s in ("漢字のタイトル abc def", "plain ascii text, long enough", "😀 emoji 😀 text"):
                out = f(s, width)
                assert cell_len(out) <= width and (out == s or out.endswith("…") or out.startswith("…")
                                                   or "…" in out)
    from rich.segment import Segment

    segs = cut_segments([Segment("ab"), Segment("漢字漢字")], 5)
    assert "".join(s.text for s in segs) == "ab漢…"
    assert cut_segments([Segment("ab"), Segment("漢字")], 6) == [Segment("ab"), Segment("漢字")]


@pytest.mark.slow
async def test_one_line_statuses_end_in_an_ellipsis_and_dialog_hints_wrap(make_app, settle, session):
    # the sidebar's filter line: a filter longer than the sidebar ends in "…" (at 120
    # columns: three panels)
    app = make_app(session)
    async with app.run_test(size=(120, HEIGHT)) as pilot:
        await settle(pilot)
        rows = app.screen.session_list
        rows.focus()
        await settle(pilot)
        typed = "payments-gateway-and-more-words-than-fit"
        await pilot.press(*typed)
        await settle(pilot)
        status = app.screen.query_one("#sidebar-filter")
        line = status.render_line(0).text.strip()
        room = status.content_size.width
        assert line == cut_end(f"filter: {typed}▏", room) and line.endswith("…")
        await pilot.press("escape")
        app.screen.branch_tree.focus()  # ("w" would be text for the sidebar's filter)
        await settle(pilot)
        # the warnings dialog's hint is read whole: it wraps instead of losing "Esc closes."
        await pilot.press("w")
        await settle(pilot)
        hint = app.screen.query_one("#warnings-hint")
        text = " ".join(hint.render_line(y).text.strip() for y in range(hint.size.height))
        assert text == ("Enter goes to a finding's entry. Each finding says what Pi does with it; pitui check FILE "
                        "(--secrets) prints the same. Esc closes.")
        assert "…" not in text


async def test_the_trees_notes_are_cut_with_an_ellipsis(make_app, settle, tmp_path):
    project = tmp_path / "--home-u-empty--"
    project.mkdir()
    path = write(project / "2026-11-20T10-00-00-000Z_h.jsonl", [])  # a header only
    app = make_app(path)
    async with app.run_test(size=(60, HEIGHT)) as pilot:
        await settle(pilot)
        tree = app.screen.branch_tree
        room = tree.scrollable_content_region.width
        lines = [tree.render_line(y).text.rstrip() for y in range(2)]
        assert lines == [cut_end("  no entries yet", room), cut_end("  (a header only)", room)]
        assert room >= 16 or lines[1].endswith("…")


def test_a_cut_cwd_keeps_its_last_two_folders_whole():
    from pitui.ui.widgets.header import cut_cwd

    cwd = "/Volumes/Work/clients/acme/2026/v2"
    assert cut_cwd(cwd, 40) == cwd
    assert cut_cwd(cwd, 20) == "/Volumes/Wo…/2026/v2"
    for width in range(9, len(cwd)):
        got = cut_cwd(cwd, width)
        assert got.endswith("…/2026/v2") and cwd.startswith(got[:-9]) and cell_len(got) <= width
    assert cut_cwd(cwd, 8) == cut_middle(cwd, 8)  # (too narrow for them: cut in the middle)
    assert cut_cwd("<isolated-workspace>", 12) == cut_middle("<isolated-workspace>", 12)
