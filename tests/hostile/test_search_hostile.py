"""Search on hostile patterns and text (issue 17): no pattern hangs a search, in the command
line or in the app, and no query ends in a traceback.

Patterns that take Python's ``re`` exponential time run in a subprocess with a generous
timeout, so a regression fails here instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import HEADER, assistant, user, write
from pitui.core.store.discovery import resolve_root
from pitui.core.store.listing import SessionIndex, list_sessions
from pitui.core.store.search import QueryError, parse_query
from pitui.ui.screens.search import SearchResults, SearchScreen

PROJECT = "--home-u-proj--"
SENTENCE = "this is an ordinary sentence that a user might well have typed into the agent today!"


@pytest.fixture
def store(tmp_path) -> Path:
    root = tmp_path / "sessions"
    d = root / PROJECT
    d.mkdir(parents=True)
    write(d / "2026-11-20T10-00-00-000Z_a.jsonl",
          [user("u1", None, 1, "a" * 41 + "!"), assistant("a1", "u1", 2, SENTENCE)], header=HEADER)
    write(d / "2026-11-20T11-00-00-000Z_b.jsonl",
          [user("u1", None, 1, "a trip to İstanbul in May"), assistant("a1", "u1", 2, "Straße and ﬁle")],
          header={**HEADER, "id": "s-b"})
    return root


def _cli(store: Path, tmp_path: Path, query: str, *options: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PITUI_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-m", "pitui.cli", "search", query, str(store), *options],
                          capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("pattern", [r"re:(a+)+$", r"re:(\w+\s?)+$", r"re:(a|aa)+$", r"re:(.*a){20}"])
def test_catastrophic_patterns_answer(store, tmp_path, pattern):
    # Python's re takes exponential time on these (never returned on the 41 a's); RE2 is linear
    got = _cli(store, tmp_path, pattern)
    assert got.returncode == 0, got.stderr
    assert got.stderr in ("", f"pitui: {pattern}: no matches\n")


def test_the_catastrophic_pattern_finds_what_it_should(store, tmp_path):
    got = _cli(store, tmp_path, r"re:(\w+\s?)+!$", "--json")
    assert got.returncode == 0
    assert "ordinary sentence" in got.stdout and "2026-11-20T10-00-00-000Z_a.jsonl" in got.stdout


def test_re2_syntax_python_reads_otherwise_still_finds(store, tmp_path):
    # [[:digit:]] is a POSIX class to RE2; Python's parser (used to narrow the search) reads a
    # set and a literal "]", which no text here holds
    got = _cli(store, tmp_path, "re:[[:digit:]]{2}!$", "--json")
    assert got.returncode == 0 and got.stderr == ""
    assert "2026-11-20T10-00-00-000Z_a.jsonl" not in got.stdout
    got = _cli(store, tmp_path, "re:tr[[:alpha:]]p", "--json")
    assert got.returncode == 0 and got.stderr == "" and "trip to" in got.stdout


@pytest.mark.parametrize("pattern, why", [(r"re:(a)\1", "invalid escape sequence: \\1"),
                                          (r"re:(?=a)b", "invalid perl operator: (?="),
                                          (r"re:(?<!a)b", "invalid perl operator: (?<!")])
def test_patterns_re2_refuses_are_one_line(store, tmp_path, pattern, why):
    got = _cli(store, tmp_path, pattern)
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr == f"pitui: {pattern}: bad regex: {why}\n"


def test_a_dotted_capital_i_is_found(store, tmp_path):
    # 'İ' lowercases to two code points: the FTS5 trigram query once became a phrase query,
    # which this index refuses ("fts5: phrase queries are not supported")
    for query in ("İstanbul", '"to İstanbul"', "re:İstanbul"):
        got = _cli(store, tmp_path, query, "--json")
        assert got.returncode == 0, (query, got.stderr)
        assert "2026-11-20T11-00-00-000Z_b.jsonl" in got.stdout, query


@pytest.mark.parametrize("query", ['"', '""', "*", "^", "NEAR", "AND OR", '" AND "', "x*", "(", ")",
                                  "İİİ", "ﬁle", "straße", "re:[[:alpha:]]+", "re:\\p{Greek}"])
def test_odd_queries_answer_or_say_why_in_one_line(store, tmp_path, query):
    got = _cli(store, tmp_path, query)
    assert got.returncode in (0, 2), got.stderr
    if got.returncode == 2:
        assert got.stderr.count("\n") == 1 and "Traceback" not in got.stderr
    else:
        assert got.stderr in ("", f"pitui: {query}: no matches\n")


def test_parse_query_refuses_with_query_error():
    with pytest.raises(QueryError, match="bad regex"):
        parse_query(r"re:(a)\1")
    for query in ("\x00", "re:\x00", "re:\x1b]52;c;SGk=\x07("):  # (a NUL cannot be in argv)
        try:
            parse_query(query)
        except QueryError as exc:
            assert "\x1b" not in str(exc) and "\x07" not in str(exc)
    assert parse_query(r"re:(a+)+$").terms[0].pattern.search("a" * 41 + "!") is None


async def test_ctrl_f_with_a_catastrophic_pattern_answers_and_escape_closes(store, tmp_path, clock, settle):
    from textual.app import App

    pattern = r"re:(\w+\s?)+$"  # exponential for Python's re on SENTENCE (its "!" fails the $)
    # (run in this process: fail here, rather than hang below, if the engine ever changes)
    assert type(parse_query(pattern).terms[0].pattern).__module__.startswith("re2")

    root = resolve_root(str(store))
    index_dir = tmp_path / "idx"
    infos = list_sessions(root, SessionIndex(index_dir))

    class Host(App):
        result = "not dismissed"

        def on_mount(self) -> None:
            def done(result):
                self.result = result

            self.push_screen(SearchScreen(root, infos=infos, clock=clock, index_dir=index_dir,
                                          query=pattern), done)

    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        for _ in range(200):
            if not screen.searching:
                break
            await pilot.pause(0.05)
        assert not screen.searching
        status = screen.query_one("#search-status")
        assert not status.has_class("-error"), str(status.render())
        # every row it found ends in a word (the sentence, ending in "!", is not one of them)
        hits = [r.hit for r in screen.query_one(SearchResults).rows if r.hit is not None]
        assert hits and all("ordinary sentence" not in h.context for h in hits)
        await pilot.press("escape")
        await pilot.pause()
        assert app.result is None


def test_a_session_the_index_cannot_take_is_read_whole_and_the_user_told(store, tmp_path, monkeypatch, capsys):
    """Indexing a file raised (a bug on some content, or a library missing): the file is
    still searched, read whole, at this search and the next, and one line says so. Before,
    it was left out and the search said "no matches"."""
    from pitui.cli import main
    from pitui.core.paths import _forget_notices, take_notices
    from pitui.core.store import search as search_mod
    from pitui.core.store.search_update import IndexWriter

    real = IndexWriter._index_file

    def failing(self, path, stats):
        if path.endswith("_a.jsonl"):
            raise ImportError("No module named 'numpy'")
        return real(self, path, stats)

    monkeypatch.setattr(IndexWriter, "_index_file", failing)
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))
    take_notices()
    root = resolve_root(str(store))
    scan = [(r.path, r.hits) for r in search_mod.search(root, "ordinary", use_index=False)]
    assert [os.path.basename(p) for p, _ in scan] == ["2026-11-20T10-00-00-000Z_a.jsonl"]
    for _ in range(2):  # indexed now (and failing), then known as failed
        assert [(r.path, r.hits) for r in search_mod.search(root, "ordinary")] == scan
        assert [(r.path, r.hits) for r in search_mod.search(root, "Straße")][0][0].endswith("_b.jsonl")
    assert take_notices() == ["some sessions could not be indexed for search (ImportError): each search reads them whole"]
    # the command line finds it and says so (a process of its own would say it afresh)
    _forget_notices()
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache2"))
    assert main(["search", "ordinary", str(store)]) == 0
    out = capsys.readouterr()
    assert "ordinary sentence" in out.out and "could not be indexed for search (ImportError)" in out.err


# Issue 33, hole 10: U+2028 and U+2029 are line breaks to JavaScript and to tools that split
# text into lines (Python's str.splitlines among them). In a hit's one line of context they
# let a session forge a row of its own ("path:line: ..."); they are shown as stand-ins, as a
# newline is.
FORGED = "needle here\u2028/etc/passwd:1: root needle\u2029/x.jsonl:9: forged"


@pytest.mark.parametrize("options", [(), ("--no-index",)], ids=["index", "no-index"])
def test_line_separators_in_a_hit_forge_no_row(tmp_path, options):
    root = tmp_path / "sessions"
    d = root / PROJECT
    d.mkdir(parents=True)
    f = write(d / "2026-11-20T10-00-00-000Z_a.jsonl", [user("u1", None, 1, FORGED)], header=HEADER)
    got = _cli(root, tmp_path, "needle", *options)
    assert got.returncode == 0 and got.stderr == ""
    assert got.stdout.splitlines() == got.stdout.split("\n")[:-1]  # no line break but the newline
    assert got.stdout.split("\n")[1:] == [
        str(f),
        "  2026-11-20 10:00     #0 user        needle here\\u2028/etc/passwd:1: root needle\\u2029/x.jsonl:9: forged",
        "",
    ]
