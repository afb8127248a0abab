"""One bad file breaks nothing but its own row (issue 17): every entry is validated and
normalised once, at the core's edge (``pitui/core/read/normalize.py``, through
``Session.entry``), and every reader of session files keeps one file's problem to that file.

Covered here: a lone surrogate in one session (which made ``list``, ``list --json``, every
``search`` and the sidebar fail for the whole store), an entry timestamp of the wrong type
(which crashed the app a second after opening), a line nested 2,000 deep (a RecursionError
in ``export`` and ``search``), ids of every JSON type, a file name that is not UTF-8, and
every field of every entry kind holding a value of the wrong type.
"""

from __future__ import annotations

import copy
import io
import json
import os
from pathlib import Path

import orjson
import pytest

from helpers import HEADER, app_screen_text, assistant, entry, line, message_entry, ts, user, write
from pitui.cli import main
from pitui.core.model.context import build_context
from pitui.core.store.discovery import SessionFile, resolve_root
from pitui.core.export.html import export_html
from pitui.core.export.json import export_json
from pitui.core.export.markdown import export_markdown
from pitui.core.store.listing import SessionIndex, list_sessions
from pitui.core.store.listing_scan import scan_info
from pitui.core.store.search import SearchIndex, entry_rows, search
from pitui.core.read.session import Session
from pitui.core.model.stats import branch_stats, session_stats
from pitui.core.model.summary import summarize
from pitui.core.model.layout import layout_tree

PROJECT = "--home-u-proj--"


def _session_file(root: Path, name: str, objs, header=None) -> Path:
    d = root / PROJECT
    d.mkdir(parents=True, exist_ok=True)
    return write(d / name, objs, header=header or HEADER)


def _surrogate_line(eid: str, parent, n: int, words: str) -> str:
    """A user message whose text holds ``\\ud800``, a lone surrogate escape, as Pi's
    JSON.stringify writes broken UTF-16."""
    return line(user(eid, parent, n, "SURROGATE " + words)).replace("SURROGATE", "\\ud800")


@pytest.fixture
def surrogate_store(tmp_path) -> Path:
    """Three sessions; the newest one's first message holds a lone surrogate."""
    root = tmp_path / "sessions"
    _session_file(root, "2026-11-20T09-00-00-000Z_a.jsonl", [user("a1", None, 1, "alpha question"),
                                                             assistant("a2", "a1", 2, "alpha answer")],
                  {**HEADER, "id": "sess-a"})
    _session_file(root, "2026-11-20T10-00-00-000Z_b.jsonl", [user("b1", None, 61, "beta question"),
                                                             assistant("b2", "b1", 62, "beta answer")],
                  {**HEADER, "id": "sess-b"})
    _session_file(root, "2026-11-20T11-00-00-000Z_bad.jsonl", [_surrogate_line("c1", None, 121, "gamma question"),
                                                               assistant("c2", "c1", 122, "gamma answer")],
                  {**HEADER, "id": "sess-bad"})
    return root


def _out(capsysbinary) -> str:
    return capsysbinary.readouterr().out.decode("utf-8")


# ----------------------------------------------------------------------------- surrogates
def test_a_lone_surrogate_in_one_session_lists_and_searches_the_whole_store(surrogate_store, capsysbinary):
    root = str(surrogate_store)
    assert main(["list", root]) == 0
    out = _out(capsysbinary)
    assert "alpha question" in out and "beta question" in out
    assert "\ufffd gamma question" in out  # the bad file's row, its broken text shown as U+FFFD

    assert main(["list", root, "--json"]) == 0
    rows = json.loads(_out(capsysbinary))
    assert {r["id"]: r["firstMessage"] for r in rows} == {
        "sess-a": "alpha question", "sess-b": "beta question", "sess-bad": "\ufffd gamma question"}
    assert all(r["error"] is None for r in rows)

    assert main(["list", root]) == 0  # warm, from the index the first run wrote
    assert "\ufffd gamma question" in _out(capsysbinary)

    for query, want in (("question", {"sess-a", "sess-b", "sess-bad"}), ("alpha", {"sess-a"}),
                        ("gamma", {"sess-bad"}), ("\ufffd", {"sess-bad"})):
        assert main(["search", query, root, "--json"]) == 0, query
        assert {r["id"] for r in json.loads(_out(capsysbinary))} == want, query
    assert main(["search", "answer", root]) == 0
    assert "gamma answer" in _out(capsysbinary)


def test_a_lone_surrogate_is_read_as_u_fffd_with_a_warning(tmp_path, capsysbinary):
    f = _session_file(tmp_path, "s.jsonl", [_surrogate_line("c1", None, 1, "broken"), assistant("c2", "c1", 2)])
    for validate in (False, True):
        s = Session.open(f, validate=validate)
        assert s.entry(0)["message"]["content"] == "\ufffd broken"
        s.validate_lazy_lines()
        assert [(w.line, "surrogate" in w.message) for w in s.all_warnings] == [(2, True)]
    for fmt in ("json", "markdown", "html"):
        assert main(["export", str(f), "--format", fmt]) == 0, fmt
        assert "\ufffd broken" in _out(capsysbinary), fmt


def test_a_number_beyond_64_bits_beside_a_lone_surrogate_exports_in_every_format(tmp_path, capsysbinary):
    # JSON.stringify writes 2**64 as 18446744073709552000. A line orjson refuses (for its
    # surrogate) is read by the standard library, which kept such a number as an int that no
    # JSON writer downstream could write back: export json failed with a traceback.
    e = user("c1", None, 1, "broken")
    e["message"]["details"] = 18446744073709552000
    f = _session_file(tmp_path, "s.jsonl", [line(e).replace("broken", "\\ud800 broken"), assistant("c2", "c1", 2)])
    assert Session.open(f).entry(0)["message"]["details"] == 1.8446744073709552e19  # as orjson reads it
    for fmt in ("json", "markdown", "html"):
        assert main(["export", str(f), "--format", fmt]) == 0, fmt
        assert "\ufffd broken" in _out(capsysbinary), fmt


# Issue 33, hole 3: a line holding a lone surrogate escape and an integer of 400 digits. Pi's
# JSON.parse reads the line (the number as Infinity: Pi opens every entry of the file); orjson
# refuses both, and the standard library, which read the line instead, ended every reader
# with an OverflowError: check and export with a traceback, list and the app with the whole
# file unreadable. pitui reads the line as Pi does, the number as missing (null: what Pi's
# JSON.stringify writes for Infinity; no timestamp, count or cost can be infinite), with one
# warning for each thing it repaired on that line.
def _huge_number_file(folder: Path, surrogate: bool = True) -> Path:
    bad = user("u2", "u1", 2, "broken text")
    bad["message"]["timestamp"] = "HUGE"
    text = line(bad).replace('"HUGE"', "9" * 400)
    if surrogate:
        text = text.replace("broken text", "broken \\ud800 text")
    return _session_file(folder, "2026-11-20T10-00-00-000Z_huge.jsonl",
                         [user("u1", None, 1, "first question"), text, assistant("a1", "u2", 3, "the answer")])


def test_a_number_beyond_a_double_beside_a_lone_surrogate_loses_only_its_line_to_warnings(tmp_path, capsys):
    f = _huge_number_file(tmp_path)
    s = Session.open(f, validate=True)
    assert s.ids == ["u1", "u2", "a1"]  # as Pi opens it
    assert s.entry(1)["message"]["content"] == "broken \ufffd text"
    assert s.entry(1)["message"]["timestamp"] is None
    assert [(w.line, w.kind) for w in s.all_warnings] == [(3, "surrogates"), (3, "huge-number")]

    assert main(["check", str(f)]) == 1
    out, err = capsys.readouterr()
    assert err == ""
    assert out.splitlines() == [
        f"{f}:3: surrogates: the line has broken text (lone UTF-16 surrogates, shown as \ufffd) "
        "(Pi: loads the text as it is; a request that holds it sends broken UTF-16 to the provider)",
        f"{f}:3: huge-number: the line has a number too large for JavaScript (Infinity to Pi, shown as missing) "
        "(Pi: reads the number as Infinity, which it writes back as null)",
    ]
    for fmt in ("json", "markdown", "html"):
        assert main(["export", str(f), "--format", fmt]) == 0, fmt
        out, err = capsys.readouterr()
        assert err == "" and "first question" in out and "broken \ufffd text" in out and "the answer" in out, fmt

    assert main(["list", str(tmp_path), "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert (row["error"], row["messageCount"], row["firstMessage"]) == (None, 3, "first question")


@pytest.mark.parametrize("number", ["9" * 400, "-" + "9" * 400, "1e400", "-2.5e309"],
                         ids=["400-digits", "minus-400-digits", "1e400", "-2.5e309"])
def test_a_number_beyond_a_double_alone_keeps_its_line(tmp_path, number):
    """Without a surrogate on its line (orjson refuses the number alone): Pi keeps the entry,
    and so does pitui (it was skipped as not JSON)."""
    f = _huge_number_file(tmp_path, surrogate=False)
    f.write_bytes(f.read_bytes().replace(b"9" * 400, number.encode()))
    for validate in (False, True):
        s = Session.open(f, validate=validate)
        s.validate_lazy_lines()
        assert s.ids == ["u1", "u2", "a1"]
        assert s.entry(1)["message"]["timestamp"] is None
        assert [(w.line, w.kind) for w in s.all_warnings] == [(3, "huge-number")]


async def test_the_app_opens_a_file_with_a_number_beyond_a_double(make_app, settle, tmp_path):
    from pitui.ui.widgets.header import WarningsScreen

    _session_file(tmp_path, "2026-11-20T09-00-00-000Z_old.jsonl", [user("o1", None, 1, "older session")])
    _huge_number_file(tmp_path)
    app = make_app(tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        b = app.browser
        assert b.listing_done
        assert all(i.error is None for i in b.infos.values())
        assert b.session is not None and b.session.path.endswith("_huge.jsonl")
        screen = app_screen_text(app)
        assert "first question" in screen and "broken \ufffd text" in screen and "the answer" in screen
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, WarningsScreen)
        assert [(f.line, f.kind) for f in app.screen.findings] == [(3, "surrogates"), (3, "huge-number")]


async def test_the_sidebar_shows_every_row_of_a_store_with_a_surrogate(make_app, settle, surrogate_store):
    from pitui.ui.widgets.header import WarningsScreen

    app = make_app(surrogate_store)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        b = app.browser
        assert b.listing_done
        infos = {os.path.basename(i.path): i for i in b.infos.values()}
        assert set(infos) == {"2026-11-20T09-00-00-000Z_a.jsonl", "2026-11-20T10-00-00-000Z_b.jsonl",
                              "2026-11-20T11-00-00-000Z_bad.jsonl"}
        assert all(i.error is None for i in infos.values())
        assert b.session is not None and b.session.path.endswith("_bad.jsonl")  # the newest, opened
        await pilot.press("w")
        await settle(pilot)
        assert isinstance(app.screen, WarningsScreen)
        assert [(f.line, f.kind) for f in app.screen.findings] == [(2, "surrogates")]


# ----------------------------------------------------------------------------- timestamps
@pytest.mark.parametrize("value", [{"at": 1}, [1, 2], True, 1e300, 10**20, -1e16, 253402300800000],
                         ids=["object", "list", "bool", "1e300", "1e20", "-1e16", "year-10000"])
async def test_a_timestamp_of_the_wrong_type_opens_and_stays_open(make_app, settle, tmp_path, value):
    root = tmp_path / "sessions"
    _session_file(root, "2026-11-20T09-00-00-000Z_old.jsonl", [user("o1", None, 1, "older session")])
    bad = user("u1", None, 1, "first question")
    bad["timestamp"] = value
    second = assistant("a1", "u1", 2, "an answer")
    second["timestamp"] = value
    third = user("u2", "a1", 3, "second question")
    third["message"]["timestamp"] = value
    _session_file(root, "2026-11-20T10-00-00-000Z_new.jsonl", [bad, second, third])
    app = make_app(root)  # the bad session is the newest: opened at start
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.pause(2.0)  # (it crashed about a second after opening)
        await settle(pilot)
        b = app.browser
        assert b.session is not None and b.session.path.endswith("_new.jsonl")
        screen = app_screen_text(app)
        assert "first question" in screen and "an answer" in screen and "second question" in screen
        s = b.session
        assert all(t is None or isinstance(t, str) for t in s.timestamps)
        warned = [w for w in s.all_warnings if "timestamp" in w.message]
        number = type(value) in (int, float)  # (a number is what a message's own timestamp is)
        assert sorted({w.line for w in warned}) == ([2, 3] if number else [2, 3, 4])


# ----------------------------------------------------------------------------- deep nesting
def _deep_file(tmp_path: Path) -> Path:
    deep = ('{"type":"custom","id":"deep","parentId":"u1","timestamp":"' + ts(2) + '","customType":"x",'
            '"data":' + "[" * 2000 + '"needle deep"' + "]" * 2000 + "}")
    return _session_file(tmp_path, "deep.jsonl", [user("u1", None, 1, "needle question"), deep,
                                                   assistant("a1", "u1", 3, "needle answer")])


def test_a_line_nested_2000_deep_is_skipped_with_a_warning(tmp_path, capsysbinary):
    f = _deep_file(tmp_path)
    s = Session.open(f, validate=False)
    assert s.ids == ["u1", "a1"]
    assert [(w.line, w.message) for w in s.all_warnings] == [
        (3, "line 3 is nested more than 1,024 levels deep and is skipped")]
    assert main(["export", str(f), "--format", "json"]) == 0
    data = json.loads(_out(capsysbinary))
    assert [e["id"] for e in data["entries"]] == ["u1", "a1"]
    assert data["warnings"] == [{"line": 3, "message": "line 3 is nested more than 1,024 levels deep and is skipped"}]
    assert main(["export", str(f), "--format", "markdown"]) == 0
    md = _out(capsysbinary)
    assert "needle question" in md and "needle answer" in md and "needle deep" not in md
    assert main(["export", str(f), "--format", "html"]) == 0
    html = _out(capsysbinary)
    assert "needle answer" in html and "nested more than 1,024 levels deep" in html
    assert main(["search", "needle", str(tmp_path), "--json"]) == 0
    hits = json.loads(_out(capsysbinary))[0]["hits"]
    assert [h["entryId"] for h in hits] == ["u1", "a1"]
    assert main(["search", "re:needle", str(tmp_path)]) == 0
    assert main(["list", str(tmp_path)]) == 0


def test_values_nested_deeper_than_pitui_draws_are_cut_with_a_warning(tmp_path, capsysbinary):
    """Nested 600 deep (which orjson reads, but no encoder writes back): cut at 128 levels."""
    args = {"x": json.loads("[" * 600 + "1" + "]" * 600)}
    call = {"type": "toolCall", "id": "t1", "name": "deep_tool", "arguments": args}
    f = _session_file(tmp_path, "s.jsonl", [user("u1", None, 1), assistant("a1", "u1", 2, content=[call])])
    for validate in (False, True):
        s = Session.open(f, validate=validate)
        s.validate_lazy_lines()
        orjson.dumps(s.entry(1))  # (orjson writes at most 255 levels)
        s._cache.clear()  # private: the decoded entries forgotten, so the entry is read again
        s.entry(1)  # (read again: reported once)
        assert [w.message for w in s.all_warnings] == [
            "line 3: message.content[0].arguments.x" + "[0]" * 7 + "… is nested more than 128 levels deep; cut there"]
    for fmt in ("json", "markdown", "html"):
        assert main(["export", str(f), "--format", fmt]) == 0, fmt
    assert main(["search", "deep_tool", str(tmp_path)]) == 0
    assert "deep_tool" in _out(capsysbinary)


@pytest.mark.parametrize("levels, cut", [(128, False), (129, True)])
def test_a_value_nested_exactly_128_levels_deep_is_kept_and_129_is_cut(tmp_path, levels, cut):
    """Counting the entry as the first level: a list at level 128 is kept whole, one at
    level 129 is cut (the one warning names it)."""
    # entry (1) > message (2) > content (3) > the call (4) > arguments (5) > x (6) > ...
    innermost = ["deepest"]
    value = innermost
    for _ in range(levels - 6):
        value = [value]
    call = {"type": "toolCall", "id": "t1", "name": "deep_tool", "arguments": {"x": value}}
    f = _session_file(tmp_path, "s.jsonl", [user("u1", None, 1), assistant("a1", "u1", 2, content=[call])])
    for validate in (False, True):
        s = Session.open(f, validate=validate)
        got = s.entry(1)["message"]["content"][0]["arguments"]["x"]
        for _ in range(levels - 7):
            got = got[0]
        warnings = [w.message for w in s.all_warnings]
        if cut:
            assert got == ["(nested more than 128 levels deep: not shown)"]
            assert warnings == ["line 3: message.content[0].arguments.x" + "[0]" * 7
                                + "… is nested more than 128 levels deep; cut there"]
        else:
            assert got == [["deepest"]] and warnings == []


def test_content_blocks_that_are_not_objects_are_dropped_after_their_warning(tmp_path):
    """A content list keeps only its blocks that are objects: what the warnings say was
    ignored is gone from the entry every reader gets (the exports, the context)."""
    content = [7, "loose text", {"type": "text", "text": "kept words"}, None]
    f = _session_file(tmp_path, "s.jsonl", [message_entry("u1", None, 1, {"role": "user", "content": content,
                                                                         "timestamp": 1795168801000})])
    for validate in (False, True):
        s = Session.open(f, validate=validate)
        assert s.entry(0)["message"]["content"] == [{"type": "text", "text": "kept words"}]
        assert [w.message for w in s.all_warnings] == [
            "line 2: message.content[0] is a number, not an object (a content block); ignored",
            "line 2: message.content[1] is a string, not an object (a content block); ignored",
            "line 2: message.content[3] is null, not an object (a content block); ignored"]
    assert export_json(s)["context"]["messages"][0]["content"] == [{"type": "text", "text": "kept words"}]


def test_a_label_set_to_0_or_false_clears_it_and_the_string_0_sets_it(tmp_path):
    """Pi sets a label when its value is true in JavaScript: ``0`` and ``false`` clear it
    (each with a warning), the string ``"0"`` is a label."""
    objs = [user("u1", None, 1), entry("label", "l1", "u1", 2, targetId="u1", label="first")]
    f = _session_file(tmp_path, "a.jsonl", objs + [entry("label", "l2", "l1", 3, targetId="u1", label=0)])
    s = Session.open(f)
    assert s.labels == {} and s.label_of(0) is None
    assert [w.message for w in s.all_warnings] == ["line 4: label is a number, not a string; the label is cleared"]
    assert summarize(s, 0).line == "user: hello"
    f = _session_file(tmp_path, "b.jsonl", objs + [entry("label", "l2", "l1", 3, targetId="u1", label=False)])
    assert Session.open(f).labels == {}
    f = _session_file(tmp_path, "c.jsonl", objs + [entry("label", "l2", "l1", 3, targetId="u1", label="0")])
    assert Session.open(f).labels == {0: "0"}


# ----------------------------------------------------------------------------- ids
ID_VALUES = {"number": 5, "float": 2.5, "true": True, "false": False, "null": None, "object": {"k": 1},
             "list": [1], "empty": ""}


def test_ids_and_parent_ids_of_every_json_type(tmp_path, capsysbinary):
    """Numbers and true/false read as their JSON text (Pi matches ids by value, so a
    number parentId finds the number id); objects and lists match nothing (a parentId one
    makes a root, an id one is named by its line); every one a warning with its line."""
    objs = [user("root", None, 1, "root text")]
    for k, (name, value) in enumerate(ID_VALUES.items()):
        parent = user("p-" + name, "root", 10 + k, f"parent {name}")
        parent["id"] = value
        child = user("c-" + name, "root", 30 + k, f"child {name}")
        child["parentId"] = value
        objs += [parent, child]
    f = _session_file(tmp_path, "ids.jsonl", objs)
    s = Session.open(f, validate=False)
    assert len(s) == 1 + 2 * len(ID_VALUES)
    assert all(isinstance(i, str) for i in s.ids)
    assert all(p is None or isinstance(p, str) for p in s.parent_ids)
    by_text = {s.entry(i)["message"]["content"]: i for i in range(len(s))}
    for name, want_id, found in (("number", "5", True), ("float", "2.5", True), ("true", "true", True),
                                 ("false", "false", True), ("empty", "", True)):
        p, c = by_text[f"parent {name}"], by_text[f"child {name}"]
        assert s.ids[p] == want_id and s.entry(p)["id"] == want_id, name
        assert (s.parent[c] == p) is found, name  # the child found its parent by value
    for name in ("null", "object", "list"):
        p, c = by_text[f"parent {name}"], by_text[f"child {name}"]
        assert s.ids[p] == f"line{s.linenos[p]}", name  # no id Pi could match: named by its line
        assert c in s.roots and s.parent_ids[c] is None, name  # null/object/list parent: a root
    warned = {(w.line, w.message.split(";")[0]) for w in s.all_warnings}
    for name, value in ID_VALUES.items():
        if name in ("null", "empty"):
            continue
        p, c = by_text[f"parent {name}"], by_text[f"child {name}"]
        kind = {"number": "a number", "float": "a number", "true": "true/false", "false": "true/false",
                "object": "an object", "list": "a list"}[name]
        assert (s.linenos[p], f"line {s.linenos[p]}: id is {kind}, not a string") in warned, name
        assert (s.linenos[c], f"line {s.linenos[c]}: parentId is {kind}, not a string") in warned, name
    # a search hit names the entry as the session does
    assert main(["search", "\"parent number\"", str(tmp_path), "--json"]) == 0
    hit = json.loads(_out(capsysbinary))[0]["hits"][0]
    assert hit["entryId"] == "5" and s.index_of["5"] == hit["entryIndex"]
    assert main(["search", "\"parent object\"", str(tmp_path), "--json"]) == 0
    hit = json.loads(_out(capsysbinary))[0]["hits"][0]
    assert s.ids[hit["entryIndex"]] == hit["entryId"] == f"line{s.linenos[by_text['parent object']]}"
    assert main(["export", str(f), "--format", "json"]) == 0
    data = json.loads(_out(capsysbinary))
    assert all(isinstance(e["id"], str) for e in data["entries"])


# ----------------------------------------------------------------------------- file names
def test_a_file_name_that_is_not_utf8_stays_in_its_own_row(tmp_path, capsysbinary):
    root = tmp_path / "sessions"
    _session_file(root, "2026-11-20T09-00-00-000Z_ok.jsonl", [user("a1", None, 1, "plain question")])
    weird = os.fsdecode(b"2026-11-20T10-00-00-000Z_\xff.jsonl")
    _session_file(root, weird, [user("b1", None, 1, "weird question")])
    assert main(["list", str(root), "--json"]) == 0
    rows = json.loads(_out(capsysbinary))
    assert sorted(os.path.basename(r["path"]) for r in rows) == [
        "2026-11-20T09-00-00-000Z_ok.jsonl", "2026-11-20T10-00-00-000Z_\ufffd.jsonl"]
    assert main(["list", str(root)]) == 0  # (the index was written without that row)
    assert "weird question" in _out(capsysbinary)
    assert main(["search", "plain", str(root), "--json"]) == 0
    assert [r["firstMessage"] for r in json.loads(_out(capsysbinary))] == ["plain question"]
    # the index cannot hold its name: it is read whole at each search, and found
    assert main(["search", "question", str(root), "--json"]) == 0
    assert [r["firstMessage"] for r in json.loads(_out(capsysbinary))] == ["weird question", "plain question"]


def test_listing_workers_keep_a_failing_file_to_its_row(tmp_path, monkeypatch):
    """Through worker processes and in this one: a file whose scan raises is its own row."""
    import pitui.core.store.listing as listing
    import pitui.core.store.listing_scan as listing_scan

    root = tmp_path / "sessions"
    for k in range(4):
        _session_file(root, f"2026-11-20T0{k}-00-00-000Z_s{k}.jsonl", [user(f"u{k}", None, k, f"question {k}")])
    real = listing_scan._scan_info  # private: a failing scan injected where a file is read

    def flaky(sf, prev, st, *rest):
        if sf.path.endswith("_s2.jsonl"):
            raise RecursionError("maximum recursion depth exceeded")
        return real(sf, prev, st, *rest)

    monkeypatch.setattr(listing_scan, "_scan_info", flaky)
    infos = list_sessions(resolve_root(str(root)), None)
    assert len(infos) == 4
    bad = [i for i in infos if i.error]
    assert [os.path.basename(i.path) for i in bad] == ["2026-11-20T02-00-00-000Z_s2.jsonl"]
    assert bad[0].error.startswith("cannot be read (RecursionError")
    monkeypatch.setattr(listing, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(listing, "PARALLEL_MIN_BYTES", 0)
    assert len(list_sessions(resolve_root(str(root)), None, workers=2)) == 4


# ----------------------------------------------------------------------------- first messages
def test_the_listing_index_keeps_a_bounded_first_message(tmp_path, capsysbinary):
    from pitui.core.store.session_info import FIRST_MESSAGE_CHARS

    root = tmp_path / "sessions"
    long_text = "start of it " + "word " * 200_000 + "the end"
    f = _session_file(root, "2026-11-20T09-00-00-000Z_a.jsonl", [user("u1", None, 1, long_text)])
    cache = Path(os.environ["PITUI_CACHE_DIR"])
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "index-v3.json").write_bytes(b'{"version": 3, "rows": []}')  # (whole first messages: removed)
    assert main(["list", str(root), "--json"]) == 0
    assert json.loads(_out(capsysbinary))[0]["firstMessage"] == long_text
    [index] = cache.glob("index-v*")
    assert index.name != "index-v3.json" and index.stat().st_size < 10_000  # (it held the whole megabyte)
    row = SessionIndex(cache).get(str(f))
    assert row is not None and row.first_message == long_text[:FIRST_MESSAGE_CHARS]
    assert main(["list", str(root), "--json"]) == 0  # warm: from the index, the rest from the file
    assert json.loads(_out(capsysbinary))[0]["firstMessage"] == long_text
    assert main(["search", "start", str(root), "--json"]) == 0
    assert json.loads(_out(capsysbinary))[0]["firstMessage"] == long_text


# ----------------------------------------------------------------------------- every field
def _usage() -> dict:
    return {"input": 10, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 30,
            "cost": {"input": 0.01, "output": 0.02, "cacheRead": 0, "cacheWrite": 0, "total": 0.03}}


def _msg_entry(message: dict) -> dict:
    return message_entry("bad", "a0", 5, message)


def _kinds() -> dict[str, dict]:
    """One well-formed entry of each kind the format names (the docs' shapes)."""
    m = 1795168805000
    return {
        "user": _msg_entry({"role": "user", "content": [{"type": "text", "text": "hello"},
                                                          {"type": "image", "data": "iVBORw0KGgo=",
                                                           "mimeType": "image/png"}], "timestamp": m}),
        "assistant": _msg_entry({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm", "redacted": False},
            {"type": "text", "text": "answer"},
            {"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": "ls"}}],
            "api": "anthropic-messages", "provider": "anthropic", "model": "claude", "responseModel": "claude-x",
            "usage": _usage(), "stopReason": "toolUse", "errorMessage": "none", "thinkingLevel": "high",
            "timestamp": m}),
        "toolResult": _msg_entry({"role": "toolResult", "toolCallId": "t0", "toolName": "bash",
                                  "content": [{"type": "text", "text": "out"}], "details": {"diff": "+a"},
                                  "usage": _usage(), "isError": False, "timestamp": m}),
        "bashExecution": _msg_entry({"role": "bashExecution", "command": "ls", "output": "a b", "exitCode": 0,
                                     "cancelled": False, "truncated": False, "fullOutputPath": "/tmp/o",
                                     "excludeFromContext": False, "timestamp": m}),
        "custom-role": _msg_entry({"role": "custom", "customType": "ext", "content": "injected", "display": True,
                                   "details": {"a": 1}, "timestamp": m}),
        "branchSummary": _msg_entry({"role": "branchSummary", "summary": "went left", "fromId": "a0",
                                     "timestamp": m}),
        "compactionSummary": _msg_entry({"role": "compactionSummary", "summary": "earlier", "tokensBefore": 500,
                                         "timestamp": m}),
        "system": _msg_entry({"role": "system", "content": "you are", "sections": {"preamble": "p"},
                              "toolsAdded": [{"name": "read"}], "toolsRemoved": [{"name": "write"}],
                              "timestamp": m}),
        "model_change": entry("model_change", "bad", "a0", 5, provider="openai", modelId="gpt"),
        "thinking_level_change": entry("thinking_level_change", "bad", "a0", 5, thinkingLevel="high"),
        "usage": entry("usage", "bad", "a0", 5, kind="cache_warm", provider="anthropic", model="claude",
                       usage=_usage()),
        "compaction": entry("compaction", "bad", "a0", 5, summary="before", firstKeptEntryId="u0",
                            tokensBefore=5000, systemMessage={"role": "system", "content": "sys", "timestamp": m},
                            usage=_usage(), details={"readFiles": ["a"]}, fromHook=False),
        "context_edit": entry("context_edit", "bad", "a0", 5, targetId="u0",
                              replacement={"content": "replaced"}),
        "branch_summary": entry("branch_summary", "bad", "a0", 5, fromId="a0", summary="other branch",
                                usage=_usage(), details={"readFiles": []}, fromHook=False),
        "custom": entry("custom", "bad", "a0", 5, customType="ext", data={"count": 1}),
        "custom_message": entry("custom_message", "bad", "a0", 5, customType="ext", content="shown",
                                display=True, details={"x": 1}),
        "label": entry("label", "bad", "a0", 5, targetId="u0", label="checkpoint"),
        "session_info": entry("session_info", "bad", "a0", 5, name="a name"),
    }


S, N, B, O, L, ID, C = "string", "number", "bool", "object", "list", "id", "content"
_MSG = {"message": O, "message.role": S, "message.timestamp": N}
FIELDS: dict[str, dict[str, str]] = {
    "user": {"id": ID, "parentId": ID, "type": S, "timestamp": S, **_MSG, "message.content": C,
             "message.content[0]": O, "message.content[0].type": S, "message.content[0].text": S,
             "message.content[1].data": S, "message.content[1].mimeType": S},
    "assistant": {**_MSG, "message.content": C, "message.api": S, "message.provider": S, "message.model": S,
                  "message.responseModel": S, "message.usage": O, "message.usage.input": N,
                  "message.usage.totalTokens": N, "message.usage.cost": O, "message.usage.cost.total": N,
                  "message.stopReason": S, "message.errorMessage": S, "message.thinkingLevel": S,
                  "message.content[0].thinking": S, "message.content[0].redacted": B,
                  "message.content[2].id": ID, "message.content[2].name": S,
                  "message.content[2].arguments": O},
    "toolResult": {"message.toolCallId": ID, "message.toolName": S, "message.content": C, "message.details": O,
                   "message.usage": O, "message.isError": B},
    "bashExecution": {"message.command": S, "message.output": S, "message.exitCode": N, "message.cancelled": B,
                      "message.truncated": B, "message.fullOutputPath": S, "message.excludeFromContext": B},
    "custom-role": {"message.customType": S, "message.content": C, "message.display": B},
    "branchSummary": {"message.summary": S, "message.fromId": ID},
    "compactionSummary": {"message.summary": S, "message.tokensBefore": N},
    "system": {"message.content": C, "message.sections": O, "message.sections.preamble": S,
               "message.toolsAdded": L, "message.toolsRemoved": L},
    "model_change": {"id": ID, "parentId": ID, "type": S, "timestamp": S, "provider": S, "modelId": S},
    "thinking_level_change": {"thinkingLevel": S},
    "usage": {"kind": S, "provider": S, "model": S, "usage": O, "usage.output": N},
    "compaction": {"summary": S, "firstKeptEntryId": ID, "tokensBefore": N, "systemMessage": O,
                   "systemMessage.content": C, "usage": O, "details": O, "fromHook": B},
    "context_edit": {"targetId": ID, "replacement": O, "replacement.content": C},
    "branch_summary": {"fromId": ID, "summary": S, "usage": O, "details": O, "fromHook": B},
    "custom": {"customType": S},
    "custom_message": {"customType": S, "content": C, "display": B},
    "label": {"id": ID, "parentId": ID, "targetId": ID, "label": S},
    "session_info": {"name": S, "timestamp": S},
}
WRONG: dict[str, list] = {
    S: [7, True, {"k": "v"}, ["x"]],
    N: ["7", True, {"k": 1}, [7]],
    B: [1, "yes", {"k": True}, [True]],
    O: [7, "text", True, [1, 2]],
    L: [7, "text", True, {"k": 1}],
    ID: [7, True, {"k": 1}, ["x"]],
    C: [7, True, {"type": "text", "text": "not in a list"}],
}


def _cases():
    for kind, fields in FIELDS.items():
        for path, want in fields.items():
            values = list(WRONG[want])
            if path == "message.content[0]":
                values = [7, "text", True, [1], None]  # (a block, in a list: null is not one)
            elif path.endswith("usage.cost"):
                values = values[1:]  # (a cost may be a bare number: some tools write the total alone)
            for k, value in enumerate(values):
                yield pytest.param(kind, path, value, True, id=f"{kind}-{path}-{k}")
            if path != "message.content[0]":
                yield pytest.param(kind, path, None, False, id=f"{kind}-{path}-null")  # null: as if absent


def _set(obj: dict, path: str, value) -> None:
    keys: list = []
    for part in path.split("."):
        name, _, rest = part.partition("[")
        keys.append(name)
        if rest:
            keys.append(int(rest.rstrip("]")))
    node = obj
    for k in keys[:-1]:
        node = node[k]
    node[keys[-1]] = value


def _draw_branch(session: Session, leaf: int) -> list[str]:
    """The pane's own drawing of the branch to ``leaf``, every toggle on, as text lines."""
    from rich.console import Console

    from pitui.ui.pane.branch_model import model_for
    from pitui.ui.pane.entry_drawer import EntryDrawer
    from pitui.ui.pane.palette import DEFAULT_PALETTE
    from pitui.ui.pane.canvas import Out, RenderCtx
    from pitui.ui.pane_toggles import BY_NAME

    model = model_for(session, leaf, True)
    ctx = RenderCtx(console=Console(file=io.StringIO(), width=100, force_terminal=True), palette=DEFAULT_PALETTE,
                    toggles=frozenset(BY_NAME))
    lines: list[str] = []
    # private: every block of the branch model drawn headless (its blocks have a public
    # face only on a mounted pane)
    for b in range(len(model.bstart)):
        out = Out(ctx, 100)
        EntryDrawer(session).draw(model.block(b), out)
        lines += [s.text for s in out.result().strips]
    return lines


def _draw_context(session: Session, entry: int) -> list[str]:
    """The context screen's own drawing of what the model saw at ``entry``."""
    from rich.console import Console

    from pitui.ui.screens.context import ContextView, _sources
    from pitui.ui.pane.palette import DEFAULT_PALETTE
    from pitui.ui.pane.canvas import Out, RenderCtx
    from pitui.ui.pane_toggles import BY_NAME

    view = ContextView(build_context(session, entry)["messages"], _sources(session, entry))
    ctx = RenderCtx(console=Console(file=io.StringIO(), width=100, force_terminal=True), palette=DEFAULT_PALETTE,
                    toggles=frozenset(BY_NAME))
    lines: list[str] = []
    for b in range(view.block_count):
        out = Out(ctx, 100)
        view._draw_item(b, out)  # private: drawn headless, into our own Out (the view is not mounted)
        lines += [s.text for s in out.result().strips]
    return lines


@pytest.mark.parametrize("kind, path, value, warned", list(_cases()))
def test_a_field_of_the_wrong_type_is_one_warning_and_breaks_nothing(tmp_path, kind, path, value, warned):
    """``value`` in field ``path`` of an entry of ``kind`` (null: as if absent, no warning).
    Opened quick and validating, every entry summarised, the branches drawn by the pane and
    the context screen, stats, all three exports, the listing and search: nothing raises,
    and one warning names the field, with its line."""
    bad = copy.deepcopy(_kinds()[kind])
    _set(bad, path, value)
    objs = [user("u0", None, 1, "the question"), assistant("a0", "u0", 2, "the answer"), bad,
            user("after", "bad", 9, "after it")]
    f = _session_file(tmp_path / "sessions", "2026-11-20T10-00-00-000Z_s.jsonl", objs)
    bad_line = 4  # (the header is line 1)
    for validate in (False, True):
        s = Session.open(f, validate=validate)
        assert len(s) == 4
        for i in range(len(s)):
            summarize(s, i)
            s.entry(i)
        layout_tree(s, "all")
        text = "\n".join(_draw_branch(s, 1) + _draw_branch(s, 2) + _draw_branch(s, 3))
        assert "the question" in text and "after it" in text
        session_stats(s)
        branch_stats(s)
        for i in range(len(s)):
            _draw_context(s, i)
        orjson.dumps(export_json(s), option=orjson.OPT_INDENT_2)
        export_markdown(s, s.leaf)
        export_html(s, s.leaf)
        s.validate_lazy_lines()
        mine = [w for w in s.all_warnings if w.line == bad_line]
        assert all(w.message.startswith(f"line {bad_line}") for w in mine)
        named = [w for w in mine if w.message.startswith(f"line {bad_line}: {path} is ")
                 or (path == "message.content[0]" and "content[0] is" in w.message)]
        assert len(named) == (1 if warned else 0), [w.message for w in s.all_warnings]
        orjson.dumps(s.entry(2))
    info = scan_info(SessionFile(str(f), PROJECT, "session"))
    assert info.error is None and info.first_message == "the question"
    obj = orjson.loads(f.read_bytes().splitlines()[bad_line - 1])
    entry_rows(obj)
    with SearchIndex(tmp_path / "cache") as idx:
        idx.update([str(f)])
    got = list(search(resolve_root(str(tmp_path / "sessions")), "question", index_dir=tmp_path / "cache"))
    assert [r.path for r in got] == [str(f)]


# ----------------------------------------------------------------------------- the app
async def test_one_row_that_cannot_be_drawn_leaves_the_rest_of_the_sidebar(make_app, settle, surrogate_store,
                                                                           monkeypatch):
    from pitui.ui.widgets.sidebar import SessionList

    real = SessionList._item_line  # private: a row that fails to draw, injected

    def flaky(self, it, sub, width):
        if it.info is not None and it.info.path.endswith("_b.jsonl"):
            raise ValueError("a row that cannot be drawn")
        return real(self, it, sub, width)

    monkeypatch.setattr(SessionList, "_item_line", flaky)
    app = make_app(surrogate_store)
    async with app.run_test(size=(200, 45)) as pilot:  # (a sidebar of 40: its rows whole)
        await settle(pilot)
        screen = app_screen_text(app)
        assert "alpha question" in screen and "\ufffd gamma question" in screen
        assert "2026-11-20T10-00-00-000Z_b.json" in screen and "⚠ cannot be shown (ValueError)" in screen


async def test_a_header_date_beyond_what_python_holds_opens(make_app, settle, tmp_path, monkeypatch):
    """9999-12-31 23:59 UTC is year 10000 fourteen hours east: shown as "?"."""
    import time

    monkeypatch.setenv("TZ", "Etc/GMT-14")
    time.tzset()
    f = _session_file(tmp_path, "s.jsonl", [user("u1", None, 1, "late question")],
                      {**HEADER, "timestamp": "9999-12-31T23:59:00.000Z"})
    app = make_app(f)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        assert app.browser.session is not None
        screen = app_screen_text(app)
        assert "late question" in screen and "/home/u/proj · ? · " in screen  # (the header's meta line)


def test_export_json_gives_the_entries_as_normalised(tmp_path, capsysbinary):
    """A wrong-typed field is absent from the context, its warning says so; ids and
    timestamps are strings, as pitui reads them."""
    a = assistant("a1", "u1", 2, "an answer")
    a["message"]["model"] = {"name": "claude"}
    a["id"] = 7
    a["timestamp"] = 1795168802000
    u2 = user("u2", 7, 3, "and then")
    f = _session_file(tmp_path, "s.jsonl", [user("u1", None, 1, "a question"), a, u2],
                      {**HEADER, "cwd": ["/", "home"]})
    assert main(["export", str(f), "--format", "json"]) == 0
    data = json.loads(_out(capsysbinary))
    assert "cwd" not in data["header"]
    assert data["entries"][1] == {"id": "7", "parentId": "u1", "type": "message",
                                  "timestamp": "2026-11-20T10:00:02.000Z"}
    assert data["entries"][2]["parentId"] == "7" and data["children"]["7"] == ["u2"]
    messages = data["context"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert "model" not in messages[1] and messages[1]["provider"] == "anthropic"
    assert data["context"]["model"] == {"provider": "anthropic"}
    assert data["warnings"] == [
        {"line": 1, "message": "line 1: header cwd is a list, not a string; ignored"},
        {"line": 3, "message": "line 3: id is a number, not a string; read as 7"},
        {"line": 3, "message": "line 3: timestamp is a number, not a string; read as 2026-11-20T10:00:02.000Z"},
        {"line": 3, "message": "line 3: message.model is an object, not a string; ignored"},
        {"line": 4, "message": "line 4: parentId is a number, not a string; read as 7"},
    ]


@pytest.mark.parametrize("etype", [["message"], None, "label", "an_extension_type"])
def test_a_message_on_an_entry_that_is_not_a_message_entry_is_normalised_too(tmp_path, etype):
    """Whoever shows an entry takes its ``message`` as one, whatever the entry's type."""
    odd = {"type": etype, "id": "odd", "parentId": "u0", "timestamp": ts(2),
           "message": {"role": {"id": 1}, "content": 5, "timestamp": "late"}}
    if etype is None:
        del odd["type"]
    f = _session_file(tmp_path, "s.jsonl", [user("u0", None, 1, "the question"), odd])
    s = Session.open(f, validate=False)
    assert "the question" in "\n".join(_draw_branch(s, 1))
    summarize(s, 1)
    export_html(s, 1)
    assert s.entry(1)["message"] == {}
    assert [w.message.split(";")[0] for w in s.all_warnings if "message" in w.message] == [
        "line 3: message.role is an object, not a string", "line 3: message.timestamp is a string, not a number",
        "line 3: message.content is a number, not text or a list of blocks"]
