"""Search inside event streams (``pi --mode json`` runs and ``pi --mode rpc`` logs): the
conversation pitui rebuilds from the records is what is searched, through the index and
the scan without it alike, with the entry indexes and ids the app shows; the search
screen opens a stream's hit on its entry; the demo's two streams are found by the CLI."""

from __future__ import annotations

import json

import pytest

from pitui.core.read.stream import StreamSession
from pitui.core.store.discovery import resolve_root
from pitui.core.store.search import search
from stream_files import HEADER, assistant, json_stream, line, message, rpc_log, run, user


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))


def _folder(tmp_path):
    folder = tmp_path / "sessions" / "--home-demo-blog--"
    folder.mkdir(parents=True)
    return folder


def _hits(root, query, index_dir, use_index=True):
    """``{path: [(kind, entry index, entry id, context), ...]}`` in the order given."""
    got = search(resolve_root(root), query, index_dir=index_dir, use_index=use_index)
    return [(r.path, [(h.kind, h.entry_index, h.entry_id, h.context) for h in r.hits]) for r in got]


def _both(root, query, index_dir):
    """The hits through the index and through the scan, which must be the same."""
    indexed = _hits(root, query, index_dir)
    scanned = _hits(root, query, index_dir, use_index=False)
    assert indexed == scanned
    return indexed


WORDS = [  # (a word, the kind of its row, the role of the entry it is in)
    ("Frobnicate", "user", "user"),  # the prompt
    ("Let me look", "assistant", "assistant"),  # the first answer's text
    ("ls posts", "tool-call", "assistant"),  # the bash call's command
    ("world.md", "tool-result", "toolResult"),  # its output
]


@pytest.mark.parametrize("make", [
    lambda: json_stream("Frobnicate the posts"),
    lambda: rpc_log(("Frobnicate the posts", "Second question")),
], ids=["json-mode", "rpc-log"])
@pytest.mark.parametrize("word, kind, role", WORDS)
def test_a_stream_is_found_by_its_prompt_answer_call_and_result(tmp_path, make, word, kind, role):
    folder = _folder(tmp_path)
    path = folder / "run.jsonl"
    path.write_text(make())
    app_view = StreamSession.open(path)
    got = _both(tmp_path / "sessions", word, tmp_path / "idx")
    assert [p for p, _ in got] == [str(path)]
    ((k, idx, eid, context),) = [h for h in got[0][1] if h[0] == kind]
    # the entry the app shows at that index, with that id, holds the word
    assert app_view.ids[idx] == eid
    assert app_view.roles[idx] == role
    assert word.lower() in json.dumps(app_view.entry(idx)).lower()
    assert word.lower() in context.lower()


def test_a_streams_header_rows_and_an_rpc_logs_session_id(tmp_path):
    folder = _folder(tmp_path)
    (folder / "run.jsonl").write_text(json_stream("A run"))
    (folder / "rpc.jsonl").write_text(rpc_log(("An RPC prompt",)))
    # the header's cwd: only the JSON-mode run has one
    got = _both(tmp_path / "sessions", "/home/demo/blog", tmp_path / "idx")
    assert got == [(str(folder / "run.jsonl"), [("cwd", -1, None, "/home/demo/blog")])]
    # the session id: the run's header, the RPC log's get_state response (as the listing names it)
    got = _both(tmp_path / "sessions", HEADER["id"], tmp_path / "idx")
    assert sorted(p for p, _ in got) == sorted([str(folder / "run.jsonl"), str(folder / "rpc.jsonl")])
    assert all(hits == [("id", -1, None, HEADER["id"])] for _, hits in got)


def test_several_runs_of_an_rpc_log_are_each_found_on_their_entry(tmp_path):
    folder = _folder(tmp_path)
    path = folder / "rpc.jsonl"
    path.write_text(rpc_log(("First question", "Second question", "Third question")))
    app_view = StreamSession.open(path)
    got = _both(tmp_path / "sessions", "question", tmp_path / "idx")
    hits = got[0][1]
    assert [(k, c) for k, _, _, c in hits if k == "user"] == [
        ("user", "First question"), ("user", "Second question"), ("user", "Third question")]
    assert [app_view.ids[i] for _, i, _, _ in hits] == [eid for _, _, eid, _ in hits]
    assert [i for _, i, _, _ in hits] == sorted(i for _, i, _, _ in hits)  # (in entry order)


def _growing_run() -> tuple[bytes, bytes]:
    """A JSON-mode run cut while its answer streams (the deltas so far say "Half an
    answer"), and the rest of it, where the answer ends with more text."""
    recs = [HEADER] + run("Check the links", 1782900000000, tool=False)
    final = "Half an answer, then the zebrafish at the end"
    for r in recs:
        if r["type"] == "message_update" and r["assistantMessageEvent"]["type"] == "text_delta":
            r["assistantMessageEvent"]["delta"] = "Half an answer"
        if r["type"] in ("message_update",) and r["assistantMessageEvent"]["type"] == "text_end":
            r["assistantMessageEvent"]["content"] = final
        if r["type"] == "message_end" and r["message"]["role"] == "assistant":
            r["message"] = {**r["message"], "content": [{"type": "text", "text": final}]}
    data = "".join(line(r) for r in recs).encode()
    cut = data.index(b'"text_end"')
    cut = data.rindex(b"\n", 0, cut) + 1  # (after the last delta: the answer never ended, yet)
    return data[:cut], data[cut:]


@pytest.mark.parametrize("use_index", [True, False], ids=["index", "scan"])
def test_a_stream_that_grew_is_found_with_its_new_text(tmp_path, use_index):
    folder = _folder(tmp_path)
    path = folder / "run.jsonl"
    head, rest = _growing_run()
    path.write_bytes(head)
    root, idx = tmp_path / "sessions", tmp_path / "idx"
    ((_, before),) = _hits(root, "Half an answer", idx, use_index)
    ((kind, at, eid, context),) = before
    assert kind == "assistant" and context == "Half an answer"  # (the message still streaming)
    assert _hits(root, "zebrafish", idx, use_index) == []
    with open(path, "ab") as f:
        f.write(rest)
    ((_, after),) = _hits(root, "zebrafish", idx, use_index)
    # the same entry (the one the app showed as interrupted), now with the text it ended with
    assert after == [("assistant", at, eid, "Half an answer, then the zebrafish at the end")]
    assert StreamSession.open(path).ids[at] == eid
    assert _hits(root, "zebrafish", idx, use_index) == _hits(root, "zebrafish", idx, not use_index)


def test_a_run_caught_with_only_its_header_is_found_once_it_goes_on(tmp_path):
    """A JSON-mode run's header alone reads as a session's; the index must not read on
    after it as a session when the events come."""
    folder = _folder(tmp_path)
    path = folder / "run.jsonl"
    data = json_stream("Frobnicate the posts").encode()
    first = data.index(b"\n") + 1
    path.write_bytes(data[:first])
    root, idx = tmp_path / "sessions", tmp_path / "idx"
    assert _hits(root, "Frobnicate", idx) == []
    with open(path, "ab") as f:
        f.write(data[first:])
    got = _both(root, "Frobnicate", idx)
    assert [(k, c) for k, _, _, c in got[0][1]] == [("user", "Frobnicate the posts"),
                                                     ("assistant", "Answer to: Frobnicate the posts")]


def test_a_session_and_a_stream_in_one_folder_are_each_read_as_what_they_are(tmp_path):
    from helpers import assistant as session_assistant
    from helpers import user as session_user
    from helpers import write

    folder = _folder(tmp_path)
    write(folder / "2026-07-01T09-00-00-000Z_s1.jsonl",
          [session_user("u1", None, 1, "zebra in a session"), session_assistant("a1", "u1", 2)])
    recs = [HEADER] + message(user("zebra in a stream", 1782900000000)) + message(
        assistant([{"type": "text", "text": "ok"}], 1782900001000))
    (folder / "run.jsonl").write_text("".join(line(r) for r in recs))
    got = _both(tmp_path / "sessions", "zebra", tmp_path / "idx")
    assert sorted((p.rsplit("/", 1)[1], [(k, c) for k, _, _, c in h]) for p, h in got) == [
        ("2026-07-01T09-00-00-000Z_s1.jsonl", [("user", "zebra in a session")]),
        ("run.jsonl", [("user", "zebra in a stream")]),
    ]


# ---------------------------------------------------------------------------- the app


def _rows(widget) -> list[str]:
    return [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]


async def test_the_search_screen_lists_a_stream_hit_and_enter_opens_its_entry(make_app, settle, tmp_path):
    from helpers import assistant as session_assistant
    from helpers import user as session_user
    from helpers import write
    from pitui.ui.screens.search import SearchResults, SearchScreen

    folder = _folder(tmp_path)
    write(folder / "2026-07-01T09-00-00-000Z_s1.jsonl",
          [session_user("u1", None, 1, "a session about nothing"), session_assistant("a1", "u1", 2)])
    path = folder / "editor-rpc-log.jsonl"
    path.write_text(rpc_log(("First question", "Second question")))
    app_view = StreamSession.open(path)
    result = next(i for i, r in enumerate(app_view.roles) if r == "toolResult")
    app = make_app(tmp_path / "sessions")
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f")
        await pilot.press(*"world.md")
        await settle(pilot)
        for _ in range(100):
            if isinstance(app.screen, SearchScreen) and not app.screen.searching:
                break
            await pilot.pause(0.05)
            await settle(pilot)
        shown = [r.strip() for r in _rows(app.screen.query_one(SearchResults)) if r.strip()]
        assert shown[0].startswith("First question")  # (the log's title: its first prompt)
        # (its line with the match, after its time)
        assert shown[1] == "2026-07-01 10:00  tool result world.md", shown
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert screen.session.path == str(path)
        assert screen.session.ids[screen.branch_tree.selected_entry] == app_view.ids[result]
        assert "world.md" in "\n".join(_rows(screen.pane))


# ---------------------------------------------------------------------------- the demo


@pytest.mark.parametrize("no_index", [[], ["--no-index"]], ids=["index", "scan"])
def test_the_demos_streams_are_found_by_the_cli(capsys, no_index):
    from pitui.cli import main
    from pitui.demo import DEMO_ROOT

    blog = DEMO_ROOT / "--home-demo-blog--"
    assert main(["search", "nowhere", str(DEMO_ROOT), "--json", *no_index]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [d["path"] for d in got] == [str(blog / "headless-link-check.jsonl")]
    assert got[0]["hits"][0]["kind"] == "user"
    assert got[0]["hits"][0]["context"].startswith("Check every post for internal links that point nowhere")
    assert main(["search", '"Which function writes feed.xml"', str(DEMO_ROOT), "--json", *no_index]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [d["path"] for d in got] == [str(blog / "editor-rpc-log.jsonl")]
    assert [h["kind"] for h in got[0]["hits"]] == ["user"]
    app_view = StreamSession.open(blog / "editor-rpc-log.jsonl")
    hit = got[0]["hits"][0]
    assert app_view.ids[hit["entryIndex"]] == hit["entryId"]
    assert app_view.entry(hit["entryIndex"])["message"]["content"] == "Which function writes feed.xml?"
