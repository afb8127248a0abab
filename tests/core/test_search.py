"""Search across sessions: the FTS5 index, Pi's query syntax, incremental updates, the CLI."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from helpers import FIXTURES, HEADER, assistant, entry, header, line, user, write
from pitui.core.store import search as S
from pitui.core.store import search_chunks, search_match, search_query, search_rows, search_words
from pitui.core.store.discovery import SessionRoot, find_session_files, resolve_root
from pitui.core.store.listing import SessionIndex, list_sessions
from pitui.core.store.search import (
    HEAD_CAP,
    TAIL_CAP,
    QueryError,
    SearchIndex,
    entry_rows,
    parse_query,
    search,
    update_index,
)
from pitui.core.read.session import NotASession, Session

CORPUS = FIXTURES / "pi-corpus" / "agent" / "sessions"


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def corpus_cache(tmp_path_factory):
    """One index of the corpus shared by the read-only corpus tests."""
    d = tmp_path_factory.mktemp("corpus-cache")
    update_index(resolve_root(CORPUS), index_dir=d)
    return d


def run(query, root=CORPUS, index_dir=None, **kw):
    r = root if isinstance(root, SessionRoot) else resolve_root(root)
    return list(search(r, query, index_dir=index_dir, **kw))


_ROWS_CACHE: dict = {}


def _all_rows(root):
    """Every session's rows, read with ``Session`` (which numbers and names entries)."""
    key = str(root)
    if key not in _ROWS_CACHE:
        infos = [i for i in list_sessions(resolve_root(root), None) if i.error is None]
        out = []
        for info in infos:
            try:
                s = Session.open(info.path, validate=True)
            except NotASession:
                continue
            rows = [("cwd", s.header.get("cwd"), -1, None), ("id", s.header["id"], -1, None)]
            rows = [r for r in rows if isinstance(r[1], str) and r[1]]
            for i in range(len(s.ids)):
                for kind, text in entry_rows(s.entry(i), s.version):
                    rows.append((kind, text, i, s.ids[i]))
            out.append((info.path, rows))
        _ROWS_CACHE[key] = out
    return _ROWS_CACHE[key]


def brute_force(query: str, root=CORPUS):
    """The expected results, computed without the index: every row matched in Python."""
    q = parse_query(query)
    out = []
    for path, rows in _all_rows(root):
        matched = [False] * len(q.terms)
        hits = []
        for kind, text, i, eid in rows:
            hit = False
            for k, t in enumerate(q.terms):
                if t.pattern.search(text):
                    matched[k] = hit = True
            if hit:
                hits.append((i, eid, kind))
        if all(matched):
            out.append((path, hits))
    return out


def shape(results):
    return [(r.path, [(h.entry_index, h.entry_id, h.kind) for h in r.hits]) for r in results]


# ---------------------------------------------------------------------------- basics


def test_sqlite_has_fts5_trigram():
    c = sqlite3.connect(":memory:")
    c.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram', detail=none)")
    c.execute("INSERT INTO t VALUES ('say Hello')")
    assert c.execute("SELECT rowid FROM t WHERE t MATCH '\"ell\" AND \"hel\"'").fetchall() == [(1,)]


def test_parse_query_like_pi():
    q = parse_query('  foo "Exact   Phrase" bar ')
    assert [(t.kind, t.value) for t in q.terms] == [("term", "foo"), ("phrase", "Exact Phrase"), ("term", "bar")]
    assert q.terms[1].pattern.search("an exact\n\tphrase here")
    assert not q.terms[1].pattern.search("exactphrase")
    # unbalanced quote: plain whitespace tokens, quote characters kept (Pi's fallback)
    q = parse_query('foo "bar baz')
    assert [(t.kind, t.value) for t in q.terms] == [("term", "foo"), ("term", '"bar'), ("term", "baz")]
    q = parse_query("re: Fo+\\.x ")
    assert q.mode == "regex" and q.terms[0].pattern.search("xfOOO.X")
    assert parse_query('""  x').terms[0].value == "x"
    for bad, reason in (("", "empty query"), ("   ", "empty query"), ("re:", "empty regex"), ('""', "empty query")):
        with pytest.raises(QueryError, match=reason):
            parse_query(bad)
    with pytest.raises(QueryError, match="bad regex"):
        parse_query("re:foo(")


def test_fts_narrowing_is_a_superset():
    assert parse_query("ab").terms[0].fts is None  # too short for trigrams
    assert parse_query("abc").terms[0].fts == '"abc"'
    # a phrase's words are runs of word characters: "bc" starts a word, so " bc" is a trigram
    # of the words indexed (each word has a space on both sides); "fix" ends one
    assert parse_query('"a bc"').terms[0].fts == '" bc"'
    assert parse_query('"fix the"').terms[0].fts == '"fix" AND "ix " AND " th" AND "the"'
    assert parse_query("a.b").terms[0].fts is None
    # private: the literals a regex needs, unit-tested (the index query built from them is
    # the superset checked above and below)
    assert search_query._required_literals(r"foo(bar|baz)+qux\d") == ["foo", "ba", "qux"]
    assert search_query._required_literals(r"(?:hello)?world") == ["world"]
    assert search_query._required_literals(r"x{2,}abc") == ["x", "abc"]
    assert search_query._required_literals(r"a|bcd") == []
    assert parse_query("re:a.*b").terms[0].fts is None


def test_entry_rows_kinds():
    tc = {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": "ls -la", "timeout": 5}}
    rows = entry_rows(
        assistant("a", None, 1, content=[
            {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "hi"}, tc,
            {"type": "text", "text": "there"}])
    )  # fmt: skip
    assert rows == [("assistant", "hi\nthere"), ("thinking", "hmm"), ("tool-call", "bash command: ls -la\ntimeout: 5")]
    assert entry_rows(user("u", None, 1, [{"type": "text", "text": "a"}, {"type": "image", "data": "x"}])) == [
        ("user", "a")
    ]
    tr = {"type": "message", "message": {"role": "toolResult", "content": [{"type": "text", "text": "out"}]}}
    assert entry_rows(tr) == [("tool-result", "out")]
    bash = {"type": "message", "message": {"role": "bashExecution", "command": "make", "output": "ok"}}
    assert entry_rows(bash) == [("bash", "make\nok")]
    hook = {"type": "message", "message": {"role": "hookMessage", "content": "h"}}
    assert entry_rows(hook, version=2) == [("custom", "h")] and entry_rows(hook, version=3) == []
    assert entry_rows({"type": "custom_message", "content": "c"}) == [("custom", "c")]
    assert entry_rows({"type": "compaction", "summary": "s1"}) == [("summary", "s1")]
    assert entry_rows({"type": "branch_summary", "summary": "s2"}) == [("summary", "s2")]
    assert entry_rows({"type": "message", "message": {"role": "branchSummary", "summary": "s3"}}) == [("summary", "s3")]
    assert entry_rows({"type": "session_info", "name": "  Nm "}) == [("name", "Nm")]
    assert entry_rows({"type": "session_info", "name": ""}) == []
    assert entry_rows({"type": "label", "label": "L"}) == [("label", "L")]
    assert entry_rows({"type": "custom", "data": {"x": "secret"}}) == []
    assert entry_rows({"type": "message", "message": {"role": "system", "content": "sys"}}) == []


def test_long_texts_are_capped_head_and_tail():
    body = "H" * HEAD_CAP + "MIDDLE" + "x" * 100_000 + "T" * TAIL_CAP
    tr = {"type": "message", "message": {"role": "toolResult", "content": [{"type": "text", "text": body}]}}
    [(kind, text)] = entry_rows(tr)
    assert kind == "tool-result"
    assert text == "H" * HEAD_CAP + "\n…\n" + "T" * TAIL_CAP
    short = "y" * (HEAD_CAP + TAIL_CAP)
    assert entry_rows({"type": "label", "label": short}) == [("label", short)]


# ---------------------------------------------------------------------------- corpus


QUERIES = [
    "résumé",
    "RÉSUMÉ",
    "TUI",
    '"new line"',
    '"tab parser"',
    "tool branch",
    "日本語 emoji",
    "ab",
    'quote"',
    'foo "bar',
    "re:back\\\\slash",
    "re:^make",
    "re:checkpoint-[78]$",
    "re:(?i)TUI-renderer",
    "web_fetch example.invalid",
    "checkpoint-8 compaction",
    "win-proj",
    "019d96",
]


@pytest.mark.parametrize("query", QUERIES)
def test_corpus_results_are_exact(query, corpus_cache):
    got = run(query, index_dir=corpus_cache, max_hits=10**9)
    assert shape(got) == brute_force(query)
    for r in got:
        assert r.hit_count == len(r.hits)
        for h in r.hits:
            assert "\n" not in h.context
            assert h.spans and all(0 <= s < e <= len(h.context) for s, e in h.spans)


def test_corpus_has_results_for_every_kind(corpus_cache):
    kinds = set()
    for q in ("the", "re:.", "checkpoint", "019", "-"):
        for r in run(q, index_dir=corpus_cache, max_hits=10**9):
            kinds.update(h.kind for h in r.hits)
    assert kinds == set(S.KINDS)


def _label_entries(label):
    out = {}
    for f in CORPUS.rglob("*.jsonl"):
        for raw in f.read_bytes().splitlines():
            try:
                o = json.loads(raw)
            except ValueError:
                continue
            if isinstance(o, dict) and o.get("type") == "label" and o.get("label") == label:
                out.setdefault(str(f), []).append(o["id"])
    return out


def test_label_hits(corpus_cache):
    got = run("checkpoint-8", index_dir=corpus_cache)
    want = _label_entries("checkpoint-8")
    assert len(want) == 4
    assert {r.path: [h.entry_id for h in r.hits] for r in got} == want
    assert all(h.kind == "label" and h.context == "checkpoint-8" and h.spans == ((0, 12),) for r in got for h in r.hits)
    # case-insensitive, and the same as a regex
    assert shape(run("CHECKPOINT-8", index_dir=corpus_cache)) == shape(got)
    assert shape(run("re:Checkpoint-8$", index_dir=corpus_cache)) == shape(got)


def test_name_hits(corpus_cache):
    got = run('"tool branch branch"', index_dir=corpus_cache)
    named = [r for r in got if any(h.kind == "name" for h in r.hits)]
    assert len(got) == 2 and len(named) == 1
    r = named[0]
    assert r.name == "tool branch branch" and r.title == r.name
    assert [(h.kind, h.context) for h in r.hits] == [("name", "tool branch branch")]
    other = next(r for r in got if r is not named[0])
    assert other.name != r.name
    s = Session.open(r.path)
    i = r.hits[0].entry_index
    assert s.ids[i] == r.hits[0].entry_id and s.types[i] == "session_info"


def test_cwd_hits(corpus_cache):
    got = run("win-proj", index_dir=corpus_cache)
    assert sorted(os.path.basename(os.path.dirname(r.path)) for r in got) == ["--C--code-win-proj--"] * 4
    for r in got:
        assert [(h.kind, h.entry_index, h.entry_id) for h in r.hits] == [("cwd", -1, None)]
        assert r.hits[0].context == r.cwd


def test_terms_may_be_spread_over_entries(corpus_cache):
    # one term in the cwd, the other in a label: the session matches, both rows are hits
    got = run("win-proj checkpoint-8", index_dir=corpus_cache)
    assert len(got) == 2
    for r in got:
        assert [h.kind for h in r.hits] == ["cwd", "label"]


def test_results_newest_first_with_listing_metadata(corpus_cache):
    got = run("the", index_dir=corpus_cache)
    infos = {i.path: i for i in list_sessions(resolve_root(CORPUS), SessionIndex(corpus_cache))}
    mods = [infos[r.path].modified_ms for r in got]
    assert mods == sorted(mods, reverse=True)
    for r in got:
        i = infos[r.path]
        assert (r.session_id, r.cwd, r.name, r.first_message) == (i.id, i.cwd, i.name, i.first_message)


def test_limit_and_max_hits(corpus_cache):
    all_ = run("the", index_dir=corpus_cache)
    assert len(all_) > 5
    assert shape(run("the", index_dir=corpus_cache, limit=3)) == shape(all_[:3])
    assert all_[0].hit_count == 5 and all_[0].hit_count_complete
    # counting stops one row past the hits kept: the session says it holds more, not how many
    r = run("the", index_dir=corpus_cache, limit=1, max_hits=2)[0]
    assert (len(r.hits), r.hit_count, r.hit_count_complete) == (2, 3, False)
    assert r.hits == all_[0].hits[:2]
    r = run("the", index_dir=corpus_cache, limit=1, max_hits=2, count_all=True)[0]
    assert (len(r.hits), r.hit_count, r.hit_count_complete) == (2, 5, True)
    r = run("the", index_dir=corpus_cache, limit=1, max_hits=4)[0]
    assert (len(r.hits), r.hit_count, r.hit_count_complete) == (4, 5, False)
    r = run("the", index_dir=corpus_cache, limit=1, max_hits=5)[0]
    assert (len(r.hits), r.hit_count, r.hit_count_complete) == (5, 5, True)


def test_context_is_one_line_around_the_match(corpus_cache):
    [r] = [r for r in run('"tui-renderer.ts in full"', index_dir=corpus_cache) if r.hits[0].entry_index == 0]
    h = r.hits[0]
    assert h.kind == "user" and h.context.startswith("…") and len(h.context) <= search_match.CONTEXT_WIDTH + 2
    assert [h.context[s:e] for s, e in h.spans] == ["tui-renderer.ts in full"]


def test_context_spans():
    pats = [parse_query("needle").terms[0].pattern]
    text = "first line\n" + "x" * 100 + " Needle and needle\nlast"
    start = text.index("Needle")
    # private: the context line of a hit, unit-tested on its edges (run() shows it above)
    line_, spans = search_match._context(text, start, start + 6, pats)
    assert line_.startswith("…") and "\n" not in line_
    assert [line_[s:e] for s, e in spans] == ["Needle", "needle"]
    line_, spans = search_match._context("\tneedle\tx", 1, 7, pats)
    assert line_ == "needle x" and spans == ((0, 6),)


# ---------------------------------------------------------------------------- incremental


def _tree(tmp_path, names=None):
    """A sessions tree in tmp_path with copies of corpus files."""
    root = tmp_path / "sessions"
    proj = root / "--home-dev-proj-alpha--"
    proj.mkdir(parents=True)
    src = sorted((CORPUS / "--home-dev-proj-alpha--").glob("*.jsonl"))
    for f in src[:3]:
        shutil.copy(f, proj / f.name)
    return root, sorted(proj.glob("*.jsonl"))


GRAMS = ("the", "ssi", "ion", "tab", "res", "ume", "zeb", "fis", "pla", "quo", "kka", "wom", "日本語", "/ho")


def _row_count(index_dir):
    """Rows readable through the index (every live chunk's rows, read back from its file),
    after checking that the trigram index finds every chunk whose words hold a gram."""
    with SearchIndex(index_dir) as idx:
        c = idx.conn
        c.execute("INSERT INTO words(words) VALUES ('integrity-check')")
        n = 0
        words: dict[int, set] = {}
        # private: each chunk's rows read back, and its words made again, to check the FTS table
        for fid, path, stream in c.execute("SELECT id, path, stream FROM files WHERE error IS NULL").fetchall():
            st = idx.writer.state_of(fid)
            for cid, *chunk in c.execute("SELECT id, start, end, entry, lineno, lines, dense, made FROM chunks "
                                         "WHERE file=? ORDER BY start", (fid,)).fetchall():
                w: set = set()
                with open(path, "rb") as f:
                    rows = list(search_rows._file_rows(f, search_rows._FileState(0, path)) if stream
                                else search_chunks._rows_of_chunk(f, st, tuple(chunk), None))
                for *_, text in rows:
                    search_words._add_words(text, w)
                words[cid] = {x.decode() for x in w}
                n += 0 if stream else len(rows)
            if stream:
                with open(path, "rb") as f:
                    n += len(list(search_rows._file_rows(f, search_rows._FileState(0, path))))
        for g in GRAMS:
            if len(g) < 3 or not g.isalpha() or not g.isascii():
                continue
            found = {r[0] for r in c.execute("SELECT rowid FROM words WHERE words MATCH ?", (f'"{g}"',))}
            assert found >= {i for i, ws in words.items() if any(g in x for x in ws)}, g
        return n


def _fresh(root, query):
    """The same search on a brand-new index: what an incremental index must equal."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        return shape(run(query, root, index_dir=d, max_hits=10**9)), _rows_after(root, d)


def _rows_after(root, d):
    update_index(resolve_root(root), index_dir=d)
    return _row_count(d)


def _last_id(path: Path) -> str:
    return json.loads(path.read_bytes().splitlines()[-1])["id"]


def test_nested_tool_arguments_read_as_text_not_json():
    # an edit's edits[] (and any list or object argument) is searched and shown as its
    # strings, one per line with its key: a hit's line reads "oldText: beta", not JSON's
    # "[{\"oldText\":\"alpha\\nbeta\"...". Walked without recursion.
    tc = {"type": "toolCall", "id": "t1", "name": "edit", "arguments": {
        "path": "a.py", "edits": [{"oldText": "alpha\nbeta", "newText": "gamma"}, {"oldText": 1, "n": None}]}}
    rows = entry_rows(assistant("a", None, 1, content=[tc]))
    assert rows == [("tool-call", "edit path: a.py\nedits: oldText: alpha\nbeta\nnewText: gamma\noldText: 1\nn: null")]
    deep: list = ["bottom"]
    for _ in range(50_000):
        deep = [deep]
    deep_call = {"type": "toolCall", "id": "t2", "name": "x", "arguments": {"v": deep}}
    assert entry_rows(assistant("a", None, 1, content=[deep_call])) == [("tool-call", "x v: bottom")]


def test_grown_file_is_read_on_and_nothing_duplicates(tmp_path):
    root, files = _tree(tmp_path)
    idx = tmp_path / "idx"
    st1 = update_index(resolve_root(root), index_dir=idx)
    assert st1.indexed == 3 and st1.reindexed == 0
    before = run("résumé", root, index_dir=idx, max_hits=10**9)
    assert run("zebrafish", root, index_dir=idx) == []
    f = files[0]
    last = _last_id(f)
    with open(f, "a", encoding="utf-8") as fh:
        fh.write(line(user("zz000001", last, 1, "a Zebrafish and a résumé")) + "\n")
        fh.write(line(entry("label", "zz000002", "zz000001", 2, targetId="zz000001", label="fish-label")) + "\n")
    st2 = update_index(resolve_root(root), index_dir=idx)
    assert (st2.indexed, st2.reindexed, st2.rows) == (1, 0, 2)
    got = run("zebrafish", root, index_dir=idx)
    assert len(got) == 1 and got[0].path == str(f)
    s = Session.open(f)
    n = len(s.ids)
    assert [(h.entry_index, h.entry_id, h.kind) for h in got[0].hits] == [(n - 2, "zz000001", "user")]
    assert [h.kind for h in run("fish-label", root, index_dir=idx)[0].hits] == ["label"]
    after = run("résumé", root, index_dir=idx, max_hits=10**9)
    by_path = {r.path: r for r in before}
    for r in after:
        extra = 1 if r.path == str(f) else 0
        assert r.hit_count == by_path[r.path].hit_count + extra
    # the incremental index equals a fresh one, row for row
    fresh_shape, fresh_rows = _fresh(root, "résumé")
    assert shape(after) == fresh_shape
    assert _row_count(idx) == fresh_rows
    # nothing changed: nothing read
    assert update_index(resolve_root(root), index_dir=idx).indexed == 0


def test_unterminated_last_line(tmp_path):
    root, files = _tree(tmp_path)
    idx = tmp_path / "idx"
    f = files[1]
    last = _last_id(f)
    update_index(resolve_root(root), index_dir=idx)
    # Pi is writing a line: half of it, no newline yet -> not indexed, read later
    whole = line(user("pp000001", last, 1, "platypus one"))
    with open(f, "a", encoding="utf-8") as fh:
        fh.write(whole[:30])
    assert run("platypus", root, index_dir=idx) == []
    with open(f, "a", encoding="utf-8") as fh:
        fh.write(whole[30:])  # complete JSON, still no newline: indexed (as Session reads it)
    assert [h.entry_id for h in run("platypus", root, index_dir=idx)[0].hits] == ["pp000001"]
    with open(f, "a", encoding="utf-8") as fh:  # the newline, and one more line
        fh.write("\n" + line(user("pp000002", "pp000001", 2, "platypus two")) + "\n")
    got = run("platypus", root, index_dir=idx)
    s = Session.open(f)
    n = len(s.ids)
    assert [(h.entry_index, h.entry_id) for h in got[0].hits] == [(n - 2, "pp000001"), (n - 1, "pp000002")]
    fresh_shape, fresh_rows = _fresh(root, "platypus")
    assert shape(got) == fresh_shape and _row_count(idx) == fresh_rows


def test_shrunk_or_rewritten_file_is_reindexed(tmp_path):
    root, files = _tree(tmp_path)
    idx = tmp_path / "idx"
    f = files[2]
    f.write_bytes(f.read_bytes() + (line(user("qq000001", _last_id(f), 1, "quokka")) + "\n").encode())
    assert len(run("quokka", root, index_dir=idx)) == 1
    # shrink: drop the last line
    data = f.read_bytes().splitlines(keepends=True)
    f.write_bytes(b"".join(data[:-1]))
    st = update_index(resolve_root(root), index_dir=idx)
    assert (st.indexed, st.reindexed) == (1, 1)
    assert run("quokka", root, index_dir=idx) == []
    # same size, other content (and mtime): a rewrite, read again from the start
    raw = f.read_bytes()
    pos = raw.index(b'"cwd":"') + 7
    f.write_bytes(raw[:pos] + b"Q" + raw[pos + 1 :])
    os.utime(f, ns=(os.stat(f).st_atime_ns, os.stat(f).st_mtime_ns + 10**9))
    st = update_index(resolve_root(root), index_dir=idx)
    assert (st.indexed, st.reindexed) == (1, 1)
    assert len(run("Qhome/dev", root, index_dir=idx)) == 1
    # a prefix changed but the file grew: the fingerprint catches it
    grown = raw.replace(b'"cwd":"/', b'"cwd":"W', 1) + (line(user("qq000002", None, 1, "wombat")) + "\n").encode()
    f.write_bytes(grown)
    st = update_index(resolve_root(root), index_dir=idx)
    assert (st.indexed, st.reindexed) == (1, 1)
    assert len(run("Whome/dev", root, index_dir=idx)) == 1
    fresh_shape, fresh_rows = _fresh(root, "the")
    assert shape(run("the", root, index_dir=idx, max_hits=10**9)) == fresh_shape
    assert _row_count(idx) == fresh_rows


def test_deleted_file_is_dropped(tmp_path):
    root, files = _tree(tmp_path)
    idx = tmp_path / "idx"
    assert len(run("the", root, index_dir=idx)) == 3
    rows_before = _row_count(idx)
    files[0].unlink()
    st = update_index(resolve_root(root), index_dir=idx)
    assert st.removed == 1
    got = run("the", root, index_dir=idx)
    assert len(got) == 2 and str(files[0]) not in {r.path for r in got}
    with SearchIndex(idx) as si:
        assert str(files[0]) not in si.file_ids()
    assert _row_count(idx) < rows_before
    assert _row_count(idx) == _fresh(root, "the")[1]


def test_other_roots_are_kept(tmp_path):
    root, files = _tree(tmp_path)
    idx = tmp_path / "idx"
    update_index(resolve_root(root), index_dir=idx)
    # searching one file as the root keeps the other files' rows
    st = update_index(resolve_root(files[0]), index_dir=idx)
    assert st.removed == 0 and st.indexed == 0
    with SearchIndex(idx) as si:
        assert len(si.file_ids()) == 3
    assert [r.path for r in run("the", files[0], index_dir=idx)] == [str(files[0])]


def test_not_sessions_and_damaged_files(tmp_path):
    root = tmp_path / "s"
    root.mkdir()
    (root / "empty.jsonl").write_bytes(b"")
    write(root / "nohead.jsonl", [user("u1", None, 1, "orphan text")], header=None)
    ok = write(
        root / "ok.jsonl",
        ["{not json", user("u1", None, 1, "kiwi one"), "[1,2]", line(HEADER), user("u2", "u1", 2, "kiwi two")],
    )
    got = run("kiwi", root)
    assert [r.path for r in got] == [str(ok)]
    assert [(h.entry_index, h.entry_id) for h in got[0].hits] == [(0, "u1"), (1, "u2")]
    assert run("orphan", root) == []
    # the empty file becomes a session: indexed from the start
    write(root / "empty.jsonl", [user("e1", None, 1, "kiwi three")])
    assert len(run("kiwi", root)) == 2


def test_version1_ids_are_line_numbers(tmp_path):
    root = tmp_path / "s"
    root.mkdir()
    v1 = header("old", "/x", "2026-01-01T00:00:00.000Z", version=None)
    f = write(root / "v1.jsonl", [
        {"type": "message", "timestamp": "2026-01-01T00:00:01.000Z",
         "message": {"role": "user", "content": "lynx", "timestamp": 1}},
        "",
        {"type": "message", "timestamp": "2026-01-01T00:00:02.000Z",
         "message": {"role": "hookMessage", "content": "lynx hook", "timestamp": 2}},
    ], header=v1)  # fmt: skip
    got = run("lynx", root)
    assert [(h.entry_index, h.entry_id, h.kind) for h in got[0].hits] == [(0, "line2", "user"), (1, "line4", "custom")]
    assert Session.open(f).ids == ["line2", "line4"]


def test_corrupt_index_is_rebuilt(tmp_path):
    root, _ = _tree(tmp_path)
    idx = tmp_path / "idx"
    idx.mkdir()
    (idx / f"search-v{S.SCHEMA_VERSION}.sqlite3").write_bytes(b"this is not a database" * 100)
    assert len(run("the", root, index_dir=idx)) == 3
    with SearchIndex(idx) as si:
        assert not si.in_memory


def test_unwritable_cache_falls_back_to_memory(tmp_path):
    root, _ = _tree(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert len(run("the", root, index_dir=blocker / "sub")) == 3


def test_cancel_keeps_what_was_done(tmp_path):
    root, _ = _tree(tmp_path)
    idx = tmp_path / "idx"
    calls = []
    st = update_index(resolve_root(root), index_dir=idx, should_stop=lambda: len(calls) >= 2,
                      on_progress=lambda d, t: calls.append((d, t)))  # fmt: skip
    assert st.cancelled and calls == [(0, 3), (1, 3)] and st.indexed == 1
    st = update_index(resolve_root(root), index_dir=idx)
    assert st.indexed == 2 and not st.cancelled
    assert _row_count(idx) == _fresh(root, "the")[1]


def test_concurrent_updates_do_not_duplicate(tmp_path):
    root, _ = _tree(tmp_path)
    idx = tmp_path / "idx"
    errors = []

    def work():
        try:
            update_index(resolve_root(root), index_dir=idx)
        except Exception as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert _row_count(idx) == _fresh(root, "the")[1]


def test_search_streams_results(tmp_path):
    root, _ = _tree(tmp_path)
    it = search(resolve_root(root), "the", index_dir=tmp_path / "idx")
    first = next(it)
    assert first.hits
    it.close()


def test_bad_query_raises_at_once():
    with pytest.raises(QueryError):
        search(resolve_root(CORPUS), "re:(")


# ---------------------------------------------------------------------------- CLI


def cli(argv, capsys):
    from pitui.cli import main

    rc = main(["search", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_text_and_json(capsys, corpus_cache, monkeypatch):
    monkeypatch.setenv("PITUI_CACHE_DIR", str(corpus_cache))
    rc, out, err = cli(["checkpoint-8", str(CORPUS)], capsys)
    assert rc == 0 and err == ""
    blocks = out.strip().split("\n\n")
    assert len(blocks) == 4
    for b in blocks:
        lines = b.splitlines()
        assert lines[0].endswith(", 1 hit)")
        assert lines[1].endswith(".jsonl")
        assert lines[2].split()[3:] == ["label", "checkpoint-8"]
    # each hit with its entry's local time (UTC here)
    assert blocks[0].splitlines()[2] == "  2026-07-26 19:42    #70 label       checkpoint-8"
    rc, out, _ = cli(["checkpoint-8", str(CORPUS), "--json", "--limit", "2"], capsys)
    data = json.loads(out)
    assert rc == 0 and len(data) == 2
    assert set(data[0]) == {"path", "id", "name", "firstMessage", "cwd", "modified", "hitCount", "hitCountComplete",
                            "hits"}
    assert data[0]["hits"][0] == {
        "entryId": data[0]["hits"][0]["entryId"], "entryIndex": data[0]["hits"][0]["entryIndex"],
        "kind": "label", "context": "checkpoint-8", "spans": [[0, 12]], "timestamp": "2026-07-26T19:42:38.140Z",
    }  # fmt: skip
    rc, out, err = cli(["zzzz-no-such-text", str(CORPUS)], capsys)
    assert rc == 0 and out == "" and "no matches" in err


def test_cli_session_dir(capsys, tmp_path):
    flat = tmp_path / "flat"
    flat.mkdir()
    shutil.copy(next((CORPUS / "--srv-app--").glob("*.jsonl")), flat / "a.jsonl")
    rc, out, _ = cli(["/srv/app", "--session-dir", str(flat), "--json"], capsys)
    assert rc == 0 and [d["path"] for d in json.loads(out)] == [str(flat / "a.jsonl")]


def test_cli_bad_input(capsys, tmp_path):
    rc, out, err = cli(["re:foo(", str(CORPUS)], capsys)
    assert rc == 2 and out == ""
    assert err == "pitui: re:foo(: bad regex: missing ): foo(\n"  # (RE2's reason)
    rc, _, err = cli(["x", str(tmp_path / "nope")], capsys)
    assert rc == 2 and err == f"pitui: {tmp_path / 'nope'}: no such file or folder\n"
    rc, _, err = cli(["", str(CORPUS)], capsys)
    assert rc == 2 and err == "pitui: : empty query\n"


def test_fixtures_untouched():
    assert not list(CORPUS.rglob("*.sqlite3*"))
    assert all(sf.path.endswith(".jsonl") for sf in find_session_files(resolve_root(CORPUS)))


def test_case_folding_beyond_ascii(tmp_path):
    # re.IGNORECASE lets the Kelvin sign match "k" and long s match "s": the fast ASCII
    # pre-check must not hide such rows
    root = tmp_path / "s"
    root.mkdir()
    write(root / "a.jsonl", [user("u1", None, 1, "\u212aelvin and \u017ftop"), user("u2", "u1", 2, "KELVIN STOP")])
    got = run("kelvin stop", root)
    assert [(h.entry_id, h.context) for h in got[0].hits] == [
        ("u1", "\u212aelvin and \u017ftop"),
        ("u2", "KELVIN STOP"),
    ]
    assert search_query._needles(["AbC", "ß", "x"]) == ("abc", "x")  # private: the folded needles, unit-tested


def test_old_index_versions_are_removed(tmp_path):
    idx = tmp_path / "idx"
    idx.mkdir()
    old = idx / "search-v1.sqlite3"
    old.write_bytes(b"old")
    SearchIndex(idx).close()
    assert not old.exists() and (idx / f"search-v{S.SCHEMA_VERSION}.sqlite3").exists()


def test_search_given_infos(tmp_path, corpus_cache):
    infos = list_sessions(resolve_root(CORPUS), SessionIndex(corpus_cache))
    oldest_first = sorted(infos, key=lambda i: i.modified_ms or 0)
    got = list(search(resolve_root(CORPUS), "checkpoint-8", index_dir=corpus_cache, infos=oldest_first))
    assert [r.path for r in got] == [r.path for r in reversed(run("checkpoint-8", index_dir=corpus_cache))]
