"""The ``kind:`` search qualifier (issue 19, canonical tool kinds): ``kind:shell_exec npm``
finds the bash calls that ran npm; through the index and through a scan without it, the same
hits in the same order; the CLI; the search screen.
"""

from __future__ import annotations

import json
import os
from collections import Counter

import orjson
import pytest

from helpers import FIXTURES, full_results
from pitui.core.model.tool_kinds import tool_kind
from pitui.core.store.discovery import resolve_root
from pitui.core.store.search import QueryError, parse_query, search

CORPUS = FIXTURES / "pi-corpus" / "agent" / "sessions"
BIG = "2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl"
OTHER = "2025-11-20T23-33-50-805Z_d703a1a9-1b7b-4fb1-b512-c9738b1fe617.jsonl"
SRV = "2026-07-26T22-53-28-020Z_019fa0a1-52c6-7764-9ff2-3d86c310d892.jsonl"
ALPHA = "2026-07-26T21-28-13-791Z_019fa052-e2d8-7764-9ff2-3d8544ba4203.jsonl"

# query -> (sessions, hits in all, the first sessions: (file, hits, first 3 hits as (entry, row kind, context)))
FORMS = {
    "kind:shell_exec npm": (2, 110, [
        (BIG, 47, [(69, "tool-call", "…mmand: cd /Users/badlogic/workspaces/pi-mono && npm run check"),
                   (83, "tool-call", "…mmand: cd /Users/badlogic/workspaces/pi-mono && npm run check"),
                   (97, "tool-call", "…mmand: cd /Users/badlogic/workspaces/pi-mono && npm run check")]),
        (OTHER, 63, [(59, "tool-call", "bash command: cd packages/coding-agent && npm run check"),
                     (65, "tool-call", "bash command: cd packages/coding-agent && npm run build 2>&1 | tail -20"),
                     (113, "tool-call", 'bash command: cd packages/coding-agent && npm run check 2>&1 | grep "wrap-ansi"')]),
    ]),
    "kind:shell_exec": (29, 494, [
        (SRV, 13, [(7, "tool-call", "bash command: ls -la"), (16, "bash", "make test"),
                   (64, "tool-call", "bash command: ls -la")]),
        (ALPHA, 3, [(24, "tool-call", "bash command: rg TODO src"), (47, "tool-call", "bash command: git status"),
                    (66, "bash", "make test")]),
    ]),
    "kind:subagent": (25, 61, [
        (SRV, 6, [(28, "tool-call", "subagent agent: worker"), (39, "tool-call", "subagent agent: worker"),
                  (81, "tool-call", "subagent agent: worker")]),
    ]),
    "kind:shell_exec re:npm (run|test)": (2, 108, [
        (BIG, 47, [(69, "tool-call", "…mmand: cd /Users/badlogic/workspaces/pi-mono && npm run check"),
                   (83, "tool-call", "…mmand: cd /Users/badlogic/workspaces/pi-mono && npm run check"),
                   (97, "tool-call", "…mmand: cd /Users/badlogic/workspaces/pi-mono && npm run check")]),
    ]),
    "kind:file_read kind:file_edit src": (31, 553, [
        (SRV, 20, [(2, "tool-call", "edit path: src/a.py"), (2, "tool-call", "read path: src/c.py"),
                   (7, "tool-call", "edit path: src/a.py")]),
    ]),
    'kind:shell_exec "make test"': (7, 10, [
        (SRV, 2, [(16, "bash", "make test"), (73, "bash", "make test")]),
    ]),
    "kind:file_search": (30, 188, [
        (SRV, 11, [(20, "tool-call", "find pattern: *.py"), (28, "tool-call", "grep pattern: TODO"),
                   (37, "tool-call", "find pattern: *.py")]),
    ]),
    "kind:file_write zebrafishqq": (0, 0, []),
}  # fmt: skip


def calls_in_corpus() -> Counter:
    """Calls per canonical kind, counted from the files themselves (not through the search):
    each toolCall block by its tool's kind, and each ``!`` command (bashExecution) as shell_exec."""
    got: Counter = Counter()
    for f in CORPUS.rglob("*.jsonl"):
        for line in f.read_bytes().splitlines():
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            msg = obj.get("message") if isinstance(obj, dict) and obj.get("type") == "message" else None
            if not isinstance(msg, dict):
                continue
            if msg.get("role") == "bashExecution":
                got["shell_exec"] += 1
            elif msg.get("role") == "assistant" and isinstance(msg.get("content"), list):
                for b in msg["content"]:
                    if isinstance(b, dict) and b.get("type") == "toolCall":
                        got[tool_kind(b["name"])] += 1
    return got


# ---------------------------------------------------------------------------- exact results


@pytest.mark.parametrize("query", FORMS)
def test_each_kind_query_finds_exactly_these(query, corpus_index):
    sessions, hits, first = FORMS[query]
    got = list(search(resolve_root(CORPUS), query, index_dir=corpus_index, max_hits=3, count_all=True))
    assert (len(got), sum(r.hit_count for r in got)) == (sessions, hits)
    assert [(os.path.basename(r.path), r.hit_count, [(h.entry_index, h.kind, h.context) for h in r.hits])
            for r in got[: len(first)]] == first  # fmt: skip


@pytest.mark.parametrize("query", [*FORMS, "kind:FILE_EDIT", "kind:web_fetch", "kind:SubAgent worker"])
def test_the_index_and_a_scan_without_it_agree(query, corpus_index, tmp_path):
    root = resolve_root(CORPUS)
    indexed = full_results(search(root, query, index_dir=corpus_index, max_hits=10**9))
    scanned = full_results(search(root, query, index_dir=tmp_path / "none", max_hits=10**9, use_index=False))
    assert indexed == scanned
    for k in (1, 2):  # a limit gives the first results, either way
        assert full_results(search(root, query, index_dir=corpus_index, limit=k, max_hits=10**9)) == indexed[:k]
        assert full_results(search(root, query, limit=k, max_hits=10**9, use_index=False)) == indexed[:k]


def test_a_kind_alone_lists_every_call_of_that_kind(corpus_index):
    """Counted from the files: every call of each kind is one hit, and nothing else is."""
    want = calls_in_corpus()
    assert want["shell_exec"] == 494 and want["subagent"] == 61  # (the corpus has all kinds)
    root = resolve_root(CORPUS)
    for kind in ("file_read", "file_write", "file_edit", "file_search", "shell_exec", "subagent", "web_fetch"):
        got = list(search(root, f"kind:{kind}", index_dir=corpus_index, max_hits=10**9))
        assert sum(r.hit_count for r in got) == want[kind], kind
        assert {h.kind for r in got for h in r.hits} <= {"tool-call", "bash"}
        assert all(h.spans == () for r in got for h in r.hits)  # (nothing typed to mark)


def test_calls_not_their_results(corpus_index):
    """``kind:shell_exec npm`` finds the bash calls that ran npm: the results that mention npm
    (build output), found by ``npm`` alone, are not hits; and no call of another kind is."""
    root = resolve_root(CORPUS)
    plain = [h for r in search(root, "npm", index_dir=corpus_index, max_hits=10**9) for h in r.hits]
    assert {"tool-result", "tool-call"} <= {h.kind for h in plain}
    got = [h for r in search(root, "kind:shell_exec npm", index_dir=corpus_index, max_hits=10**9) for h in r.hits]
    assert got and all(h.kind == "tool-call" and h.context.startswith(("bash command:", "…")) for h in got)
    assert all("npm" in h.context.lower() for h in got)
    bash_calls = [h for h in plain if h.kind == "tool-call" and h.context.startswith("bash ")]
    assert len(got) > len(bash_calls) > 0  # (some contexts are cut before "bash": counted above)
    assert len(got) < len(plain)


def test_a_users_bang_command_is_shell_exec(corpus_index):
    """A command the user ran with ``!`` (bashExecution) ran a shell: kind:shell_exec has it."""
    root = resolve_root(CORPUS)
    got = list(search(root, 'kind:shell_exec "make test"', index_dir=corpus_index, max_hits=10**9))
    assert {h.kind for r in got for h in r.hits} == {"bash"}
    assert not list(search(root, 'kind:file_read "make test"', index_dir=corpus_index))


# ---------------------------------------------------------------------------- the query


def test_parse_kind_qualifiers():
    q = parse_query("kind:Shell_Exec npm")
    assert q.kinds == {"shell_exec"} and [(t.kind, t.value) for t in q.terms] == [("term", "npm")]
    q = parse_query('npm KIND:file_read "a phrase" kind:file_edit')
    assert q.kinds == {"file_read", "file_edit"}
    assert [(t.kind, t.value) for t in q.terms] == [("term", "npm"), ("phrase", "a phrase")]
    q = parse_query("kind:subagent")
    assert q.kinds == {"subagent"} and q.terms == ()
    q = parse_query("kind:shell_exec\tre:npm (i|ci)")
    assert q.mode == "regex" and q.kinds == {"shell_exec"} and q.terms[0].value == "npm (i|ci)"
    assert q.terms[0].pattern.search("NPM CI")
    # a quoted "kind:..." is text; a re: first makes the rest a regex (Pi's syntax)
    q = parse_query('"kind:shell_exec" npm')
    assert q.kinds == frozenset() and [t.value for t in q.terms] == ["kind:shell_exec", "npm"]
    q = parse_query("re:kind:x")
    assert q.kinds == frozenset() and q.terms[0].value == "kind:x"
    with pytest.raises(QueryError, match="empty regex"):
        parse_query("kind:shell_exec re:")


@pytest.mark.parametrize("query, why", [
    ("kind:bash npm", "bash is a tool, not a kind: its calls are kind:shell_exec"),
    ("kind:READ", "read is a tool, not a kind: its calls are kind:file_read"),
    ("kind:shell", "unknown kind shell (did you mean kind:shell_exec?)"),
    ("kind:file_reads x", "unknown kind file_reads (did you mean kind:file_read?)"),
    ("kind: npm", "kind: needs a kind"),
])  # fmt: skip
def test_a_kind_that_names_none_is_refused_with_the_kinds(query, why):
    with pytest.raises(QueryError) as exc:
        parse_query(query)
    msg = str(exc.value)
    assert msg.startswith(why)
    assert msg.endswith(
        "kinds: file_edit (edit), file_read (read, ls), file_search (grep, find), file_write (write), "
        "shell_exec (bash, ! commands); any other tool is a kind of its own, by its name (kind:subagent)"
    )
    with pytest.raises(QueryError):  # at once, before any session is read
        search(resolve_root(CORPUS), query, use_index=False)


def test_any_other_tool_is_its_own_kind():
    assert parse_query("kind:web_fetch").kinds == {"web_fetch"}
    assert parse_query("kind:agents_message x").kinds == {"agents_message"}


# ---------------------------------------------------------------------------- the CLI


def cli(argv, capsys):
    from pitui.cli import main

    rc = main(["search", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_finds_the_bash_calls_that_ran_npm(capsys, corpus_index, monkeypatch):
    monkeypatch.setenv("PITUI_CACHE_DIR", str(corpus_index))
    for extra in ([], ["--no-index"]):
        rc, out, err = cli(["kind:shell_exec npm", str(CORPUS), "--limit", "1", "--max-hits", "2", *extra], capsys)
        assert rc == 0
        assert err == "pitui: more sessions match (--limit 1 shows the newest 1)\n"
        lines = out.splitlines()
        assert lines[1] == str(CORPUS / "--Users-badlogic-workspaces-pi-mono--" / BIG)
        # (the human output folds the same line of the same kind into one hit, with its count,
        # and counts up to the first different hit past those it lists)
        assert lines[0].endswith("(/Users/badlogic/workspaces/pi-mono, 50w, 17+ hits)")
        assert lines[2:] == [
            "  2025-12-08 23:01    #69 tool-call   …mmand: cd /Users/badlogic/workspaces/pi-mono && npm run check  ×15",
            "  2025-12-08 23:20   #331 tool-call   …mmand: cd /Users/badlogic/workspaces/pi-mono && npm run check"
            " 2>&1 | head -50",
            "  ... 1+ more hits (--max-hits 0 lists and counts them all)",
        ]
    rc, out, _ = cli(["kind:shell_exec npm", str(CORPUS), "--limit", "1", "--max-hits", "47"], capsys)
    lines = out.splitlines()[2:]
    assert "more hits" not in out and out.splitlines()[0].endswith(", 47 hits)")  # (all 47 calls kept: no more)
    assert sum(int(line.rsplit("×", 1)[1]) if "  ×" in line else 1 for line in lines) == 47
    rc, out, _ = cli(["kind:subagent", str(CORPUS), "--json", "--limit", "1"], capsys)
    data = json.loads(out)
    assert rc == 0 and data[0]["hitCount"] == 6
    assert data[0]["hits"][0] == {"entryId": data[0]["hits"][0]["entryId"], "entryIndex": 28, "kind": "tool-call",
                                  "context": "subagent agent: worker", "spans": [],
                                  "timestamp": data[0]["hits"][0]["timestamp"]}  # fmt: skip


def test_cli_unknown_kind(capsys):
    rc, out, err = cli(["kind:bash npm", str(CORPUS)], capsys)
    assert rc == 2 and out == ""
    assert err.startswith("pitui: kind:bash npm: bash is a tool, not a kind: its calls are kind:shell_exec; kinds: ")
    assert "shell_exec (bash, ! commands)" in err and "(kind:subagent)" in err


def test_cli_help_names_the_qualifier(capsys):
    from pitui.cli import main

    with pytest.raises(SystemExit):
        main(["search", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "kind:KIND" in out and "kind:shell_exec npm" in out


# ---------------------------------------------------------------------------- the search screen


async def _searched(pilot, settle):
    from pitui.ui.screens.search import SearchScreen

    await settle(pilot)
    for _ in range(100):
        screen = pilot.app.screen
        if isinstance(screen, SearchScreen) and not screen.searching:
            break
        await pilot.pause(0.05)
        await settle(pilot)
    await pilot.pause()


@pytest.mark.slow
async def test_the_search_screen_finds_a_kind_query(make_app, settle, corpus_root):
    """ctrl+f, ``kind:shell_exec npm``: the bash calls, labelled tool calls, npm marked; Enter
    opens the session at the call."""
    from pitui.ui.screens.search import SearchResults, SearchScreen

    app = make_app(corpus_root)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f")
        await pilot.press(*"kind:shell_exec npm")
        await _searched(pilot, settle)
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        res = screen.query_one(SearchResults)
        # 47 calls in one session, 63 in the other, all counted (fewer than 50 different lines
        # each); 3 listed per session, the same command folded into one line with its count
        assert (res.sessions, res.hits) == (2, 110)
        assert str(screen.query_one("#search-status").render()) == "2 sessions, 110 hits"
        assert [r.kind for r in res.rows].count("hit") == 6 and [r.kind for r in res.rows].count("more") == 2
        shown = [res.render_line(y).text for y in range(res.size.height)]
        assert shown[0].startswith("alright, read @packages/coding-agent/src/main.ts")
        assert shown[1].rstrip() == ("  2025-12-08 23:01    tool call ×17 …mmand: cd /Users/badlogic/workspaces/pi-mono"
                                     " && npm run check")
        line = res.render_line(1)
        assert any(seg.text == "npm" and seg.style and seg.style.bgcolor is not None for seg in line)
        assert sum("tool call" in s for s in shown) == 6 and not any("tool result" in s for s in shown)
        await pilot.press("enter")
        await settle(pilot)
        browser = app.screen
        assert browser.session.path.endswith(BIG)
        # the call's entry is #69; the tree draws a call on its result's row (#70), which
        # is selected, and the pane finds npm in it
        assert browser.session.ids[69] == "line71" and browser.session.ids[70] == "line72"
        assert browser.branch_tree.selected_entry == 70
        assert browser.pane.search_query == "npm" and browser.pane.hit_count >= 1


async def test_the_search_screen_says_why_a_kind_is_refused(make_app, settle, corpus_root):
    from pitui.ui.screens.search import SearchResults

    app = make_app(corpus_root)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f")
        await pilot.press(*"kind:bash", "enter")
        await _searched(pilot, settle)
        status = str(app.screen.query_one("#search-status").render())
        assert status.startswith("bash is a tool, not a kind: its calls are kind:shell_exec; kinds: file_edit (edit)")
        assert app.screen.query_one(SearchResults).sessions == 0
        for _ in "bash":
            await pilot.press("backspace")
        await pilot.press(*"subagent", "enter")
        await _searched(pilot, settle)
        res = app.screen.query_one(SearchResults)
        assert (res.sessions, res.hits) == (25, 61)
        assert str(app.screen.query_one("#search-status").render()) == "25 sessions, 61 hits"
