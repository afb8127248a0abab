"""The search screen (ctrl+f): streaming results grouped by session, Enter opens a hit.

The screen is hosted by a minimal app here (the real app pushes it the same way), with the
fixed clock, UTC, HOME at the repository and a private index. Snapshots live in
``snapshots/test_ui_search/``; regenerate with ``--snapshot-update`` and look at them.
"""

from __future__ import annotations

import pytest
from textual.app import App

from pitui.core.store.discovery import resolve_root
from pitui.core.store.listing import SessionIndex, list_sessions
from pitui.core.store.search import search
from pitui.ui.screens.search import SHOWN_HITS, SearchResults, SearchScreen

from helpers import workers_done

SIZE = (120, 40)


class Host(App):
    """Pushes the search screen at start; keeps what it was dismissed with."""

    def __init__(self, screen_factory):
        super().__init__()
        self.factory = screen_factory
        self.result = "not dismissed"

    def on_mount(self) -> None:
        def done(result):
            self.result = result

        self.push_screen(self.factory(), done)


@pytest.fixture
def host(corpus_root, clock, tmp_path, ui_home):
    root = resolve_root(corpus_root)
    index_dir = tmp_path / "idx"

    def make(query: str = "", with_infos: bool = True):
        infos = list_sessions(root, SessionIndex(index_dir)) if with_infos else None
        return Host(lambda: SearchScreen(root, infos=infos, clock=clock, index_dir=index_dir, query=query))

    make.root = root
    make.index_dir = index_dir
    return make


async def _wait(pilot, settle):
    await settle(pilot)
    screen = pilot.app.screen
    for _ in range(100):
        if isinstance(screen, SearchScreen) and not screen.searching:
            break
        await pilot.pause(0.05)
        await settle(pilot)
    await pilot.pause()


def test_search_screen_snapshot(snap_compare, host, settle):
    app = host()

    async def run_before(pilot):
        await settle(pilot)
        await pilot.press(*"résumé")
        await pilot.press("enter")
        await _wait(pilot, settle)
        await pilot.press("down", "down", "down")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_results_stream_grouped_and_enter_opens(host, settle):
    app = host()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        await pilot.press(*"checkpoint-8")
        await _wait(pilot, settle)  # the debounce fires by itself
        res = screen.query_one(SearchResults)
        want = list(search(host.root, "checkpoint-8", index_dir=host.index_dir, max_hits=SearchScreen.MAX_HITS))
        assert [r.path for r in want] == [row.result.path for row in res.rows if row.kind == "session"]
        assert res.sessions == 4 and res.hits == 4
        assert [row.kind for row in res.rows] == ["session", "hit"] * 4
        assert res.cursor_row == 1  # the first hit
        status = str(screen.query_one("#search-status").render())
        assert status.startswith("4 sessions, 4 hits")
        await pilot.press("down", "down")  # the second session's title, then its hit
        assert res.cursor_row == 3
        await pilot.press("enter")
        await pilot.pause()
        # (and the text the hit matched, for the pane to find: a label's here)
        assert app.result == (want[1].path, want[1].hits[0].entry_id, "checkpoint-8")


async def test_enter_on_a_title_opens_the_session(host, settle):
    app = host(query="win-proj")
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, settle)
        res = app.screen.query_one(SearchResults)
        assert res.sessions == 4
        await pilot.press("up")  # from the first hit (the cwd) to its title line
        assert res.cursor_row == 0
        await pilot.press("enter")
        await pilot.pause()
        assert app.result == (res.rows[0].result.path, None, None)


async def test_escape_closes_with_nothing(host, settle):
    app = host(query="checkpoint")
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, settle)
        await pilot.press("escape")
        await pilot.pause()
        assert app.result is None


async def test_bad_regex_and_empty_query(host, settle):
    app = host()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press(*"re:foo(")
        await pilot.press("enter")
        await _wait(pilot, settle)
        status = screen.query_one("#search-status")
        assert str(status.render()).startswith("bad regex: missing )")
        assert status.has_class("-error")
        assert screen.query_one(SearchResults).rows == []
        for _ in range(7):
            await pilot.press("backspace")
        await _wait(pilot, settle)
        assert str(status.render()) == "Type to search every session."
        assert not status.has_class("-error")


async def test_typing_restarts_the_search(host, settle):
    app = host(with_infos=False)  # the screen lists the sessions itself
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await pilot.press(*"the")
        await pilot.pause(0.05)
        await pilot.press(*" checkpoint-3")  # before the first search is done showing
        await _wait(pilot, settle)
        res = screen.query_one(SearchResults)
        want = list(search(host.root, "the checkpoint-3", index_dir=host.index_dir, max_hits=SearchScreen.MAX_HITS,
                           fold=True))
        got = [(row.result.path, row.hit.entry_id if row.hit else None) for row in res.rows if row.kind != "more"]
        expect = []
        for r in want:
            expect.append((r.path, None))
            expect.extend((r.path, h.entry_id) for h in r.hits[:SHOWN_HITS])
        assert got == expect and res.sessions == len(want) > 0


async def test_many_hits_are_capped_per_session(host, settle):
    app = host(query="the")
    async with app.run_test(size=SIZE) as pilot:
        await _wait(pilot, settle)
        res = app.screen.query_one(SearchResults)
        more = [row for row in res.rows if row.kind == "more"]
        assert more and all(row.more == row.result.hit_count - sum(h.repeats for h in row.result.hits[:SHOWN_HITS])
                            for row in more)
        assert all(len([x for x in res.rows if x.kind == "hit" and x.result is row.result]) == SHOWN_HITS
                   for row in more)


# ---------------------------------------------------------------------------- grouping


@pytest.fixture
def runs(clock, tmp_path, ui_home):
    """The search screen over :func:`helpers.runs_store`, searched for ``pytest``."""
    from helpers import runs_store

    root = resolve_root(runs_store(tmp_path / "root"))
    infos = list_sessions(root, SessionIndex(tmp_path / "idx"))
    return lambda: Host(lambda: SearchScreen(root, infos=infos, clock=clock, index_dir=tmp_path / "idx",
                                             query="pytest"))


def _shown(res) -> list[str]:
    return [res.render_line(y).text.rstrip() for y in range(res.size.height)]


async def test_hits_grouped_by_session_three_each_folded_with_their_times(runs, settle):
    app = runs()
    async with app.run_test(size=(100, 30)) as pilot:
        await _wait(pilot, settle)
        res = app.screen.query_one(SearchResults)
        assert _shown(res)[:8] == [
            _shown(res)[0],
            "  2026-11-20 10:00         user run pytest until it passes",
            "  2026-11-20 10:01    tool call ×7 bash command: pytest -q",
            "  2026-11-20 10:05    tool call bash command: pytest -x tests/test_api.py",
            "                                … 1 more in this session · Enter lists them",
            _shown(res)[5],
            "  2026-11-20 10:00    tool call bash command: pytest -q",
            "",
        ]
        assert _shown(res)[0].startswith("run pytest until it passes  /home/u/app · ")
        assert _shown(res)[0].endswith(" · 10 hits")
        assert _shown(res)[5].startswith("tidy the parser  /home/u/lib · ") and _shown(res)[5].endswith(" · 1 hit")
        assert res.cursor_row == 1  # the first hit of the newest session


async def test_enter_on_more_lists_the_rest_of_the_session(runs, settle):
    app = runs()
    async with app.run_test(size=(100, 30)) as pilot:
        await _wait(pilot, settle)
        res = app.screen.query_one(SearchResults)
        await pilot.press("down", "down", "down")
        assert res.current.kind == "more"
        await pilot.press("enter")
        await pilot.pause()
        assert app.result == "not dismissed"  # (it opened the line, not a session)
        assert _shown(res)[1:6] == [
            "  2026-11-20 10:00         user run pytest until it passes",
            "  2026-11-20 10:01    tool call ×7 bash command: pytest -q",
            "  2026-11-20 10:05    tool call bash command: pytest -x tests/test_api.py",
            "  2026-11-20 10:09    tool call bash command: pytest --lf",
            _shown(res)[5],
        ]
        assert _shown(res)[5].startswith("tidy the parser")
        assert res.current.hit.context == "bash command: pytest --lf"  # the cursor on the hit it brought
        await pilot.press("enter")
        await pilot.pause()
        assert app.result[1:] == ("a9", "pytest")


async def test_a_key_jumps_to_the_next_session(runs, settle):
    app = runs()
    async with app.run_test(size=(100, 30)) as pilot:
        await _wait(pilot, settle)
        res = app.screen.query_one(SearchResults)
        assert res.cursor_row == 1
        await pilot.press("ctrl+down")  # (typed in the query line: it moves the results' cursor)
        assert res.current.kind == "hit" and res.current.result.path.endswith("sess-lib.jsonl")
        await pilot.press("ctrl+down")  # (the last session: it stays)
        assert res.current.result.path.endswith("sess-lib.jsonl")
        await pilot.press("ctrl+up")
        assert res.cursor_row == 1
        res.focus()
        await pilot.press("]")
        assert res.current.result.path.endswith("sess-lib.jsonl")
        await pilot.press("[")
        assert res.cursor_row == 1


def test_grouped_results_snapshot(snap_compare, runs, settle):
    async def run_before(pilot):
        await _wait(pilot, settle)
        await pilot.press("ctrl+down")
        await pilot.pause()

    assert snap_compare(runs(), terminal_size=(100, 30), run_before=run_before)


async def test_results_coming_in_any_order_are_shown_newest_first(runs, settle):
    app = runs()
    async with app.run_test(size=(100, 30)) as pilot:
        await _wait(pilot, settle)
        res = app.screen.query_one(SearchResults)
        results = [row.result for row in res.rows if row.kind == "session"]
        res.clear()
        res.add_result(results[1])  # the older first
        assert res.cursor_row == 1 and res.rows[0].result is results[1]
        res.add_result(results[0])
        assert [row.result for row in res.rows if row.kind == "session"] == results
        assert res.cursor_row == 1 and res.current.result is results[0]  # (the user had not moved)
        res.clear()
        res.add_result(results[1])
        await pilot.press("down")  # the user moved: the cursor stays on its row as rows come above it
        here = res.current
        res.add_result(results[0])
        assert res.current is here


async def test_a_hit_deep_in_a_long_tool_result_opens_at_its_line_highlighted(make_app, settle, tmp_path,
                                                                               monkeypatch):
    from helpers import assistant, entry, user, write

    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))
    project = tmp_path / "root" / "--home-u-p--"
    project.mkdir(parents=True)
    out = "\n".join(f"line {k}" + ("  zebrafish spotted here" if k == 150 else "") for k in range(300))
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "cat log"}}
    write(project / "2026-11-20T10-00-00-000Z_z.jsonl", [
        user("u1", None, 1, "look at the log"),
        assistant("a1", "u1", 2, content=[call], stopReason="toolUse"),
        entry("message", "r1", "a1", 3, message={"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                                                  "content": [{"type": "text", "text": out}], "isError": False,
                                                  "timestamp": 3}),
        assistant("a2", "r1", 4, text="done"),
    ])
    app = make_app(tmp_path / "root")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f")
        await pilot.press(*"zebrafish")
        await _wait(pilot, settle)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        pane = screen.pane
        assert screen.session.ids[screen.branch_tree.selected_entry] == "r1"  # the hit's entry: the result
        assert pane.search_query == "zebrafish" and pane.hit_count == 1
        shown = [pane.render_line(y) for y in range(pane.size.height)]
        line = next(strip for strip in shown if "line 150  zebrafish spotted here" in strip.text)
        # the match is drawn in the hit's colours
        assert any(seg.text == "zebrafish" and seg.style and seg.style.bgcolor is not None for seg in line)


async def test_a_sessions_first_hits_come_first_then_it_whole(runs, settle):
    """A big session's first hits are listed as soon as they are found (``partial``); the
    session whole then takes their place: one title, the same lines as if it came at once."""
    import dataclasses

    app = runs()
    async with app.run_test(size=(100, 30)) as pilot:
        await _wait(pilot, settle)
        res = app.screen.query_one(SearchResults)
        whole = [row.result for row in res.rows if row.kind == "session"]
        at_once = _shown(res)
        res.clear()
        hits = whole[0].hits[:4]
        first = dataclasses.replace(whole[0], hits=hits, hit_count=sum(h.repeats for h in hits),
                                    hit_count_complete=False, partial=True)  # fmt: skip
        res.add_result(first)
        res.add_result(whole[1])
        assert _shown(res)[0].endswith(" · 10+ hits") and res.sessions == 2
        assert _shown(res)[4] == "                                … 1+ more in this session · Enter lists them"
        res.add_result(whole[0])
        assert _shown(res) == at_once and (res.sessions, res.hits) == (2, 11)


async def test_results_come_while_the_app_is_still_listing_and_nothing_is_indexed(clock, tmp_path, ui_home, settle):
    """ctrl+f before the sidebar has listed every session, on a cold cache: the sessions
    listed so far are searched at once (read whole: nothing is indexed), those listed later
    when they come, and the results stand newest first."""
    from helpers import runs_store

    root = resolve_root(runs_store(tmp_path / "root"))
    every = list_sessions(root, SessionIndex(tmp_path / "listing"))
    older = [i for i in every if i.path.endswith("sess-lib.jsonl")]
    asked = []

    def listed():  # (the app's sidebar: first the older session alone, then both, done)
        asked.append(len(asked))
        return (older, False) if len(asked) < 3 else (every, True)

    idx = tmp_path / "idx"
    app = Host(lambda: SearchScreen(root, infos=listed, clock=clock, index_dir=idx, query="pytest"))
    async with app.run_test(size=(100, 30)) as pilot:
        await _wait(pilot, settle)
        res = app.screen.query_one(SearchResults)
        assert len(asked) >= 3
        titles = [row.result.path.rsplit("_", 1)[1] for row in res.rows if row.kind == "session"]
        assert titles == ["sess-app.jsonl", "sess-lib.jsonl"]  # (newest first, whatever came first)
        assert res.cursor_row == 1 and res.current.result.path.endswith("sess-app.jsonl")
        assert str(app.screen.query_one("#search-status").render()).startswith("2 sessions, 11")


async def test_the_query_it_opens_with_is_searched_once_and_done_without_waiting(host, settle, monkeypatch):
    # the Input's first Changed (its initial value) must not start the typing pause for a
    # query already searched: the screen was "searching" for a pause more after its answer
    monkeypatch.setattr(SearchScreen, "DEBOUNCE", 30.0)  # (a pause no test waits out)
    app = host(query="zebrafishnowhere")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        await workers_done(app)
        await pilot.pause()
        assert screen._timer is None  # private: the typing pause's timer
        assert not screen.searching
        assert str(screen.query_one("#search-status").render()).startswith("No matches.")
        screen.input.value = "zebrafishnowher"  # a key typed: its pause starts, the old search ends
        await pilot.pause()
        assert screen.searching and screen._timer is not None
