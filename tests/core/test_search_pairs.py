"""Which word follows which (issue 21): the index keeps, per chunk, the pairs of adjacent
words, so that a phrase or a regex whose words are all common but never next to each other
reads no chunk. What a user would notice if it went wrong: a hit missed. Each test compares
the index's results with a scan of the files without it."""

from __future__ import annotations

import pytest

from helpers import assistant, entry, full_results, same_results_of_two_indexes, user, write
from pitui.core.store import search_chunks  # private: the chunk size, made small
from pitui.core.store import search_words  # private: the pair keys and bitmaps, unit-tested
from pitui.core.store.discovery import resolve_root
from pitui.core.store.search import SearchIndex, parse_query, search, update_index

# phrases and regexes whose words the sessions below hold, adjacent or not
QUERIES = [
    '"slash fix"', '"fix slash"', "re:back.slash fix", "re:back slash fix", '"back slash fix"', "re:ck.sla",
    '"a fix"', '"x a fix"', '"fix a"', '"a b c"', '"slash\tfix"', "re:slash\\s+fix", "re:slash\\nfix",
    '"kelvin stop"', '"\u212aelvin stop"', '"long stop"', "re:\u017ftop.now", '"stop now"', '"fix: 1"',
    '"name a"', '"slash fix: 1"', "re:a: back", '"back slash"', "re:ash fi", "slash fix", '"sla fix"',
    "re:back.lash", "re:backs.ash", "re:k.l",
]


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))


def agree(root, index_dir, queries=QUERIES):
    r = resolve_root(root)
    for q in queries:
        a = full_results(search(r, q, index_dir=index_dir, max_hits=10**9, update=False))
        b = full_results(search(r, q, max_hits=10**9, use_index=False))
        assert a == b, q


def _never_adjacent(path, n=40):
    """Every entry holds "slash" and "fix" (and "back"), never one after the other."""
    objs = []
    for k in range(n):
        objs.append(user(f"u{k}", None, k, f"fix the slash {k} and back to it, slash again then fix"))
    path.parent.mkdir(parents=True, exist_ok=True)
    write(path, objs)


def _adjacent(path):
    """The same words, next to each other in a few places: in a made tool-call text
    ("name a: back slash\\nfix: 1"), across a newline, with short words and folded letters."""
    objs = [user(f"u{k}", None, k, f"fix the slash {k} and back to it, slash again then fix") for k in range(20)]
    objs += [
        assistant("a1", "u19", 30, content=[{"type": "toolCall", "id": "c1", "name": "name",
                                             "arguments": {"a": "back slash", "fix": 1}}]),
        user("u30", "a1", 31, "x a fix and a b c, then slash\nfix"),
        user("u31", "u30", 32, "the \u212aELVIN stop and a long \u017ftop now, a backslash"),
        entry("label", "l1", "u31", 33, targetId="u31", label="back\u00a0slash fix"),
    ]
    objs += [user(f"v{k}", None, 40 + k, f"fix the slash {k} and back to it, slash again then fix") for k in range(20)]
    path.parent.mkdir(parents=True, exist_ok=True)
    write(path, objs)


@pytest.mark.parametrize("chunk", [1500, search_chunks.CHUNK_CHARS])
def test_words_present_never_adjacent_read_no_chunk(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(search_chunks, "CHUNK_CHARS", chunk)
    root = tmp_path / "s"
    _never_adjacent(root / "--p--" / "2026-11-20T10-00-00-000Z_a.jsonl")
    idx = tmp_path / "idx"
    update_index(resolve_root(root), index_dir=idx)
    with SearchIndex(idx) as si:
        for q in ('"slash fix"', "re:back.slash fix", '"fix slash"', "re:slash.fix"):
            got = si.candidates(parse_query(q))
            assert got and all(v is not None for v in got.values()), q  # (FTS alone names every file)
            # private: what is read back once the pair bitmaps have spoken
            assert [si.narrowed(v) for v in got.values()] == [[]] * len(got), q
        got = si.candidates(parse_query('"fix the"'))
        assert all(si.narrowed(v) for v in got.values())
    agree(root, idx)


@pytest.mark.parametrize("chunk", [1500, search_chunks.CHUNK_CHARS])
def test_adjacent_words_are_found(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(search_chunks, "CHUNK_CHARS", chunk)
    root = tmp_path / "s"
    f = root / "--p--" / "2026-11-20T10-00-00-000Z_a.jsonl"
    _adjacent(f)
    idx = tmp_path / "idx"
    update_index(resolve_root(root), index_dir=idx)
    agree(root, idx)
    r = resolve_root(root)
    found = {q: [h.entry_id for res in search(r, q, index_dir=idx, max_hits=10**9, update=False) for h in res.hits]
             for q in ('"slash fix"', '"back slash fix"', '"kelvin stop"', '"a b c"', '"x a fix"', "re:\u017ftop.now",
                       "re:back.lash")}
    assert found == {'"slash fix"': ["a1", "u30", "l1"], '"back slash fix"': ["a1", "l1"], '"kelvin stop"': ["u31"],
                     '"a b c"': ["u30"], '"x a fix"': ["u30"], "re:\u017ftop.now": ["u31"],
                     "re:back.lash": ["u31"]}


def test_grown_in_two_halves_equals_built_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(search_chunks, "CHUNK_CHARS", 1500)
    src = tmp_path / "src.jsonl"
    _adjacent(src)
    data = src.read_bytes()
    root = tmp_path / "s"
    (root / "--p--").mkdir(parents=True)
    f = root / "--p--" / "2026-11-20T10-00-00-000Z_a.jsonl"
    at = data.index(b"toolCall") - 30  # (inside the tool call's line)
    f.write_bytes(data[:at])
    halves, once = tmp_path / "halves", tmp_path / "once"
    update_index(resolve_root(root), index_dir=halves)
    agree(root, halves)
    f.write_bytes(data)
    st = update_index(resolve_root(root), index_dir=halves)
    assert (st.indexed, st.reindexed) == (1, 0)
    update_index(resolve_root(root), index_dir=once)
    same_results_of_two_indexes(root, halves, once, QUERIES)
    agree(root, halves)


def test_a_search_that_builds_the_index_agrees(tmp_path, monkeypatch):
    """A file indexed by the search itself is narrowed by its own chunks' pairs."""
    monkeypatch.setattr(search_chunks, "CHUNK_CHARS", 1500)
    root = tmp_path / "s"
    _adjacent(root / "--p--" / "2026-11-20T10-00-00-000Z_a.jsonl")
    _never_adjacent(root / "--p--" / "2026-11-20T09-00-00-000Z_b.jsonl")
    r = resolve_root(root)
    for q in QUERIES:
        a = full_results(search(r, q, index_dir=tmp_path / f"idx{QUERIES.index(q)}", max_hits=10**9))
        assert a == full_results(search(r, q, max_hits=10**9, use_index=False)), q


def test_pair_keys_of_a_literal():
    """Private: the keys a literal's text must hold; none where a word's end or start is
    not known (a short first or last run), none across a non-ASCII character."""
    keys = search_words._pair_keys
    assert len(keys(["slash fix"])) == 1
    assert keys(["a fix"]) == () and keys(["fix a"]) == () and keys(["ab"]) == ()
    assert len(keys(["x a fix"])) == 1 and len(keys([" a fix"])) == 1
    assert keys(["slash\u00e9fix"]) == ()
    assert keys(["Slash FIX"]) == keys(["slash fix"]) == keys(["slash. fix"])
    assert keys(["\u212aelvin stop"]) == keys(["kelvin stop"])


@pytest.mark.parametrize("n", [2, 3, 50, 2_000, 60_000])
def test_a_chunks_bitmap_holds_every_adjacent_pair(n):
    """Private: whatever the size its bitmap is folded to (few words or very many), a
    chunk's bitmap has the bit of each pair of adjacent words in it (no hit missed)."""
    import random

    rnd = random.Random(n)
    letters = "abcdefghijklmnopqrstuvwxyz0123456789_"
    words = ["".join(rnd.choice(letters) for _ in range(rnd.randint(1, 9))) for _ in range(n)]
    texts = [" ".join(words[k : k + 7]) for k in range(0, n, 7)]
    _, bits = search_words._words_of(texts)
    assert bits and len(bits) & (len(bits) - 1) == 0  # (a power of two bytes)
    for text in texts:
        row = text.split()
        for a, b in zip(row, row[1:]):
            assert search_words._may_pair(bits, search_words._pair_keys([f"{a} {b}"])), (a, b)
