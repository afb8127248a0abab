"""Event streams in the real app: a JSON-mode run and an RPC log opened as sessions (tree,
pane, sidebar), and the link to the session file a run says it wrote."""

from __future__ import annotations

import pytest

from helpers import assistant, user, write
from stream_files import HEADER, json_stream, rpc_log

SIZE = (220, 45)  # (a pane wide enough for the lines read whole)


def rows(widget) -> list[str]:
    return [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]


def _project(tmp_path):
    folder = tmp_path / "sessions" / "--home-demo-blog--"
    folder.mkdir(parents=True)
    return folder


async def test_a_json_mode_run_opens_as_a_session(make_app, settle, tmp_path):
    folder = _project(tmp_path)
    (folder / "run.jsonl").write_text(json_stream("List the posts"))
    app = make_app(folder / "run.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.error is None
        tree = [r.strip(" ›•") for r in rows(screen.branch_tree) if r.strip()]
        assert tree[0].startswith("[run of session 0195f3a2-")  # (cut to the tree's width)
        assert tree[1:5] == ["user: List the posts", "assistant: Let me look.", "[bash: ls posts]",
                             "assistant: Answer to: List the posts"]
        assert tree[5].startswith("[run ended · ok · stopReason stop")
        pane = "\n".join(rows(screen.pane))
        assert "✓ bash  $ ls posts" in pane
        assert "■ run ended · ok · stopReason stop · 120 tokens" in pane
        assert "hello.md" in pane


async def test_the_sidebar_lists_streams_beside_sessions(make_app, settle, tmp_path):
    folder = _project(tmp_path)
    write(folder / "2026-07-01T09-00-00-000Z_s1.jsonl", [user("u1", None, 1, "a session"), assistant("a1", "u1", 2)])
    (folder / "editor-rpc-log.jsonl").write_text(rpc_log())
    app = make_app(tmp_path / "sessions")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        shown = [r for r in rows(app.screen.session_list) if r.strip()]
        k = next(n for n, r in enumerate(shown) if r.strip(" ▌") == "First question")
        assert shown[k + 1].strip(" ▌").startswith("rpc log · ") and "6 msgs" in shown[k + 1]
        assert not any("not a Pi session" in r for r in shown)


@pytest.mark.slow
async def test_a_run_links_to_the_session_file_it_wrote(make_app, settle, tmp_path):
    folder = _project(tmp_path)
    written = write(folder / f"2026-07-01T10-00-00-000Z_{HEADER['id']}.jsonl",
                    [user("u1", None, 1, "the session Pi wrote"), assistant("a1", "u1", 2)])
    (folder / "rpc.jsonl").write_text(rpc_log(("First question",), session_file=str(written)))
    app = make_app(folder / "rpc.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = app.screen.pane
        await pilot.press("g")
        await settle(pilot)
        lines = [r.strip() for r in rows(pane)]
        (y,) = [k for k, line in enumerate(lines) if line.startswith("⏎ open session file ")]
        assert written.name.startswith(lines[y].removeprefix("⏎ open session file ").rstrip("…"))
        await pilot.click(pane, offset=(6, y))
        await settle(pilot)
        assert app.screen.session.path == str(written)


async def test_a_stream_piped_in_is_shown_as_it_comes_and_stays(make_app, settle, tmp_path):
    """``pitui -``: the app opens the stream read from standard input at once, followed;
    what comes next shows up, a message still streaming is drawn again when it ends, and
    the view stays when the stream ends."""
    import asyncio

    from pitui.core.read.stream import StreamSession

    folder = _project(tmp_path)
    write(folder / "2026-07-01T09-00-00-000Z_s1.jsonl", [user("u1", None, 1, "a session"), assistant("a1", "u1", 2)])
    data = json_stream("List the posts").encode()
    cut = data.index(b'"text_end"', data.index(b"Answer to")) - 40  # (inside the answer's deltas)
    live = StreamSession.live()
    live.feed(data[:cut])
    app = make_app(tmp_path / "sessions", live=live)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.session is live and screen.following
        assert "following" in str(screen.branch_tree.border_title)
        pane = "\n".join(rows(screen.pane))
        assert "interrupted: the stream ends before this message did" in pane  # (still streaming)
        live.feed(data[cut:])
        live.end()
        for _ in range(40):
            await asyncio.sleep(0.1)
            await settle(pilot)
            pane = "\n".join(rows(screen.pane))
            if "run ended" in pane:
                break
        assert "■ run ended · ok · stopReason stop · 120 tokens" in pane
        assert "interrupted" not in pane and "Answer to: List the posts" in pane
        assert screen.session is live and screen.error is None  # (the view stays)
        tree = [r.strip(" ›•") for r in rows(screen.branch_tree) if r.strip()]
        assert tree[-1].startswith("[run ended · ok")


async def test_a_stream_piped_in_with_no_store_hides_the_empty_sidebar(make_app, settle, tmp_path):
    """``pitui -`` where no sessions store exists: no sidebar of "0 sessions" titled with a
    folder that is not there (issue 34); `b` still shows it, and the saved layout is kept."""
    from pitui.core.read.stream import StreamSession

    live = StreamSession.live()
    live.feed(json_stream("List the posts").encode())
    app = make_app(tmp_path / "no-sessions-here", live=live)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert screen.session is live
        assert not screen.sidebar.display
        await pilot.press("b")
        await settle(pilot)
        assert screen.sidebar.display
