"""Search results: which and in what order, for every query form, through the index and
without it; stopping at a limit; a file indexed in two halves; cancelling (issue 21).

Sessions come newest first (the listing's order, Pi's), each session's hits in entry order.
"""

from __future__ import annotations

import os
import threading
import time

import pytest
from textual.app import App

from helpers import FIXTURES, HEADER, full_results, user, write
from pitui.core.store import search_match
from pitui.core.store.discovery import resolve_root
from pitui.core.store.listing import SessionIndex, list_sessions
from pitui.core.store.search import search, update_index

CORPUS = FIXTURES / "pi-corpus" / "agent" / "sessions"
BIG = "2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl"
OTHER = "2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl"

# query form -> (query, sessions, hits in all, the first sessions: (file, hits, first 3 hits))
FORMS = {
    "one common word": ("the", 35, 2271, [
        ("2026-07-27T01-17-46-642Z_legacy-202-1.jsonl", 5, [(1, "assistant"), (2, "user"), (11, "user")]),
        ("2026-07-27T00-53-52-576Z_legacy-202-0.jsonl", 7, [(2, "user"), (5, "assistant"), (6, "user")]),
        ("2026-07-26T22-53-28-020Z_019fa0a1-52c6-7764-9ff2-3d86c310d892.jsonl", 98,
         [(1, "user"), (3, "tool-result"), (6, "user")]),
    ]),
    "several words": ("read file", 2, 650, [
        (BIG, 457, [(0, "user"), (1, "tool-call"), (1, "tool-call")]),
        (OTHER, 193, [(3, "user"), (4, "assistant"), (4, "tool-call")]),
    ]),
    "a phrase": ('"the file"', 2, 29, [
        (BIG, 11, [(372, "assistant"), (386, "thinking"), (428, "user")]),
        (OTHER, 18, [(27, "assistant"), (685, "tool-result"), (698, "assistant")]),
    ]),
    "a regex with a literal": ("re:fun.tion", 2, 173, [
        (BIG, 97, [(2, "tool-result"), (3, "tool-result"), (6, "assistant")]),
        (OTHER, 76, [(5, "tool-result"), (6, "tool-result"), (35, "assistant")]),
    ]),
    "a regex without one": (r"re:\d+\.\d+", 2, 133, [
        (BIG, 87, [(2, "tool-result"), (3, "tool-result"), (18, "assistant")]),
        (OTHER, 46, [(60, "tool-result"), (66, "tool-result"), (90, "tool-result")]),
    ]),
    "a rare word": ("haiku", 1, 3, [
        (BIG, 3, [(2, "tool-result"), (776, "tool-result"), (781, "tool-call")]),
    ]),
    "header rows": ("legacy", 3, 9, [
        ("2026-07-27T01-17-46-642Z_legacy-202-1.jsonl", 3, [(-1, "cwd"), (-1, "id"), (15, "summary")]),
        ("2026-07-27T00-53-52-576Z_legacy-202-0.jsonl", 3, [(-1, "cwd"), (-1, "id"), (28, "summary")]),
        ("2026-04-16T18-18-40-692Z_legacy-101-0.jsonl", 3, [(-1, "cwd"), (-1, "id"), (21, "summary")]),
    ]),
    "no match": ("zebrafishqq", 0, 0, []),
}


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("form", FORMS)
def test_each_query_form_finds_exactly_these(form, corpus_index):
    query, sessions, hits, first = FORMS[form]
    got = list(search(resolve_root(CORPUS), query, index_dir=corpus_index, max_hits=3, count_all=True))
    assert (len(got), sum(r.hit_count for r in got)) == (sessions, hits)
    assert [(os.path.basename(r.path), r.hit_count, [(h.entry_index, h.kind) for h in r.hits])
            for r in got[: len(first)]] == first  # fmt: skip


@pytest.mark.parametrize("form", FORMS)
def test_the_index_and_a_scan_without_it_agree(form, corpus_index, tmp_path, monkeypatch):
    """The same hits, contexts and order, read from the index or from the files; the scan
    writes no index."""
    query = FORMS[form][0]
    root = resolve_root(CORPUS)
    indexed = full_results(search(root, query, index_dir=corpus_index, max_hits=10**9))
    scanned = full_results(search(root, query, index_dir=tmp_path / "none", max_hits=10**9, use_index=False))
    assert indexed == scanned
    for max_hits in (1, 3):  # (counting stops one hit past those kept: at the same row either way)
        few = search(root, query, index_dir=corpus_index, max_hits=max_hits)
        assert full_results(few) == full_results(search(root, query, max_hits=max_hits, use_index=False)), max_hits
    # private: every session counts as big, so that its first hits may come first
    monkeypatch.setattr(search_match, "BIG_SESSION", 0)
    for use_index in (True, False):  # a big session's first hits handed out first: the session whole later
        steps = list(search(root, query, index_dir=corpus_index, max_hits=5, first_hits=2, use_index=use_index))
        whole = [r for r in steps if not r.partial]
        assert full_results(whole) == full_results(search(root, query, index_dir=corpus_index, max_hits=5))
        for k, r in enumerate(steps):
            if r.partial:
                after = next(x for x in steps[k + 1 :] if x.path == r.path)
                assert (after.partial, r.hits) == (False, after.hits[: len(r.hits)]), query
                assert len(r.hits) >= 2 and not r.hit_count_complete, query
    assert not (tmp_path / "none").exists() or not any(p.name.startswith("search-") for p in (tmp_path / "none").iterdir())


def test_newest_session_first_then_entry_order(corpus_index):
    root = resolve_root(CORPUS)
    order = [i.path for i in list_sessions(root, SessionIndex(corpus_index)) if i.error is None]
    got = list(search(root, "the", index_dir=corpus_index, max_hits=10**9))
    paths = [r.path for r in got]
    assert paths == [p for p in order if p in set(paths)]
    for r in got:
        at = [h.entry_index for h in r.hits]
        assert at == sorted(at)


@pytest.mark.parametrize("form", ["one common word", "a regex without one", "header rows"])
def test_a_limit_gives_the_first_results(form, corpus_index):
    root = resolve_root(CORPUS)
    query = FORMS[form][0]
    every = full_results(search(root, query, index_dir=corpus_index))
    for k in (1, 2):
        assert full_results(search(root, query, index_dir=corpus_index, limit=k)) == every[:k]
        assert full_results(search(root, query, limit=k, use_index=False)) == every[:k]


# ---------------------------------------------------------------------------- two halves


@pytest.mark.parametrize("cut", ["between lines", "inside a line"])
def test_an_index_built_in_two_halves_equals_one_built_at_once(cut, tmp_path):
    """Pi appends to a session: the index reads on from where it stopped. A file indexed
    half-written (cut between two lines, or in the middle of one, as Pi writes it) and then
    again once whole holds what an index of the whole file holds: every row (``re:.``
    matches every row), and the same results for each query form."""
    data = (CORPUS / "--Users-badlogic-workspaces-pi-mono--" / BIG).read_bytes()
    at = data.index(b"\n", len(data) // 2) + 1
    if cut == "inside a line":
        at += 40
    root = tmp_path / "root"
    (root / "--p--").mkdir(parents=True)
    f = root / "--p--" / BIG
    f.write_bytes(data[:at])
    halves, once = tmp_path / "halves", tmp_path / "once"
    first = update_index(resolve_root(root), index_dir=halves)
    assert first.indexed == 1
    with open(f, "ab") as fh:
        fh.write(data[at:])
    second = update_index(resolve_root(root), index_dir=halves)
    assert (second.indexed, second.reindexed) == (1, 0) and 0 < second.bytes < len(data)
    update_index(resolve_root(root), index_dir=once)
    r = resolve_root(root)
    for query in ["re:.", *(q for q, *_ in FORMS.values())]:
        a = full_results(search(r, query, index_dir=halves, max_hits=10**9, update=False))
        b = full_results(search(r, query, index_dir=once, max_hits=10**9, update=False))
        assert a == b, query
    every = list(search(r, "re:.", index_dir=once, max_hits=10**9, update=False))
    assert len(every) == 1 and every[0].hit_count > 1000


# ---------------------------------------------------------------------------- cancelling


def _long_session(tmp_path, n=600):
    objs = [HEADER]
    parent = None
    for k in range(n):
        eid = f"u{k:07d}"
        objs.append(user(eid, parent, k, f"message {k} about a parser"))
        parent = eid
    root = tmp_path / "root"
    (root / "--p--").mkdir(parents=True)
    write(root / "--p--" / "2026-01-01T00-00-00-000Z_long.jsonl", objs)
    return resolve_root(root)


@pytest.mark.parametrize("use_index", [True, False])
def test_a_search_stops_inside_a_long_session(use_index, tmp_path):
    """``should_stop`` is heard within a session, not only between sessions: a regex that
    no trigram narrows reads every row of every session, and a 20 MB session must not hold
    a cancelled search for its whole length."""
    root = _long_session(tmp_path)
    idx = tmp_path / "idx"
    update_index(root, index_dir=idx)
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 1  # the search has started this session: cancel it

    got = list(search(root, r"re:\d", index_dir=idx, should_stop=stop, use_index=use_index))
    assert got == [] and len(calls) == 2
    assert len(list(search(root, r"re:\d", index_dir=idx, use_index=use_index))) == 1


def test_a_cancelled_search_gives_no_more_results(corpus_index):
    stop = threading.Event()
    got = []
    for r in search(resolve_root(CORPUS), "the", index_dir=corpus_index, should_stop=stop.is_set):
        got.append(r)
        stop.set()
    assert len(got) == 1


# ---------------------------------------------------------------------------- CLI


def test_cli_says_more_after_the_limit_and_scans_without_the_index(capsys, tmp_path):
    from pitui.cli import main

    assert main(["search", "legacy", str(CORPUS), "--limit", "2"]) == 0
    out = capsys.readouterr()
    assert out.out.count(".jsonl\n") == 2
    assert "more sessions match (--limit 2 shows the newest 2)" in out.err
    assert main(["search", "legacy", str(CORPUS), "--limit", "3"]) == 0
    out3 = capsys.readouterr()
    assert out3.out.count(".jsonl\n") == 3 and "more" not in out3.err
    assert main(["search", "legacy", str(CORPUS), "--limit", "3", "--no-index"]) == 0
    assert capsys.readouterr().out == out3.out


# ---------------------------------------------------------------------------- the screen


class Host(App):
    def __init__(self, screen):
        super().__init__()
        self.search_screen = screen

    def on_mount(self) -> None:
        self.push_screen(self.search_screen)


async def test_a_new_query_cancels_the_old_one_and_shows_only_its_hits(
    corpus_root, clock, tmp_path, ui_home, settle, monkeypatch
):
    """Typing a new query while the old one is still searching: keys are taken at once,
    the first of them tells the old search to stop (before the pause that starts the new
    one), and only the new query's results are listed."""
    from pitui.ui.screens import search as screen_mod
    from pitui.ui.screens.search import SHOWN_HITS, SearchResults, SearchScreen

    root = resolve_root(corpus_root)
    idx = tmp_path / "idx"
    update_index(root, index_dir=idx)
    real = screen_mod.search_while_indexing
    old_running, old_stopped = threading.Event(), threading.Event()

    def slow_for_the(root_, q, **kw):
        if q.text.strip() != "the":
            yield from real(root_, q, **kw)
            return
        it = real(root_, q, **kw)
        yield next(it)  # one result, then a long search the user will not wait for
        old_running.set()
        for _ in range(3000):  # (at most half a minute: a test that fails must not hang)
            if kw["should_stop"]():
                break
            time.sleep(0.01)
        old_stopped.set()
        # a search that goes on regardless: its results must not show
        yield from real(root_, q, **{**kw, "should_stop": None})

    monkeypatch.setattr(screen_mod, "search_while_indexing", slow_for_the)
    monkeypatch.setattr(SearchScreen, "DEBOUNCE", 60.0)  # the new search starts with Enter only
    screen = SearchScreen(root, clock=clock, index_dir=idx)
    app = Host(screen)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"the")
        await pilot.press("enter")
        for _ in range(200):
            if old_running.is_set():
                break
            await pilot.pause(0.02)
        assert old_running.is_set()
        t0 = time.perf_counter()
        await pilot.press("ctrl+a", "ctrl+k", *"haiku")
        assert screen.input.value == "haiku" and time.perf_counter() - t0 < 2
        for _ in range(200):
            if old_stopped.is_set():
                break
            await pilot.pause(0.02)
        assert old_stopped.is_set()  # by the keys alone
        await pilot.press("enter")
        for _ in range(200):
            if "Searching" not in str(screen.query_one("#search-status").render()):
                break
            await pilot.pause(0.02)
        await pilot.pause(0.2)
        await settle(pilot)
        assert old_stopped.is_set()
        res = screen.query_one(SearchResults)
        want = list(real(root, "haiku", index_dir=idx, max_hits=SearchScreen.MAX_HITS, fold=True))
        got = [(row.result.path, row.hit.entry_id if row.hit else None) for row in res.rows if row.kind != "more"]
        expect = []
        for r in want:
            expect.append((r.path, None))
            expect.extend((r.path, h.entry_id) for h in r.hits[:SHOWN_HITS])
        assert got == expect and res.sessions == 1
        assert str(screen.query_one("#search-status").render()) == "1 session, 3 hits"
