"""Taking things out of the app: ``x`` exports the branch shown to Markdown (never into
the sessions folder), ``Y`` copies the selected entry's text, ``i`` / ``p`` / ``y`` copy
the session id, the file path and the resume command."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import HEADER, assistant, entry, line, user
from pitui.core.export.markdown import export_markdown
from pitui.core.export.entry import entry_text
from pitui.ui.app import PituiApp
from pitui.ui.browser import copy_export
from pitui.ui.browser.screen import BrowserScreen
from pitui.ui.screens.export import ExportScreen

SIZE = (160, 45)


def objs() -> list[dict]:
    out = [
        user("u0", None, 0, "hello there"),
        assistant("a1", "u0", 1, content=[{"type": "thinking", "thinking": "hmm"},
                                          {"type": "text", "text": "first part. "},
                                          {"type": "toolCall", "id": "call1", "name": "read", "arguments": {"path": "x"}},
                                          {"type": "text", "text": "second part"}]),
        {"type": "message", "id": "t2", "parentId": "a1", "timestamp": "2026-11-20T10:00:02.000Z",
         "message": {"role": "toolResult", "toolCallId": "call1", "toolName": "read",
                     "content": [{"type": "text", "text": "file contents\nline 2"}], "isError": False,
                     "timestamp": 1795168802000}},
        {"type": "message", "id": "b3", "parentId": "t2", "timestamp": "2026-11-20T10:00:03.000Z",
         "message": {"role": "bashExecution", "command": "ls -l", "output": "total 0\n", "exitCode": 0,
                     "cancelled": False, "truncated": False, "timestamp": 1795168803000}},
        entry("compaction", "c4", "b3", 4, summary="what happened so far", firstKeptEntryId="b3", tokensBefore=1234),
        entry("branch_summary", "s5", "c4", 5, fromId="c4", summary="the other branch tried X"),
        entry("model_change", "m6", "s5", 6, provider="anthropic", modelId="claude-opus-4-5"),
        user("u7", "m6", 7, "the end"),
        # a second branch from u0
        user("v8", "u0", 8, "another way"),
        assistant("w9", "v8", 9, "the other answer"),
    ]
    return out


@pytest.fixture
def session_path(tmp_path) -> Path:
    proj = tmp_path / "sessions" / "--home-u-proj--"
    proj.mkdir(parents=True)
    f = proj / "2026-11-20T10-00-00-000Z_sess-1.jsonl"
    f.write_text(line(HEADER) + "\n" + "".join(line(o) + "\n" for o in objs()), encoding="utf-8")
    return f


@pytest.fixture
def clipboard(monkeypatch) -> list[str]:
    got: list[str] = []
    monkeypatch.setattr(PituiApp, "copy_to_clipboard", lambda self, text: got.append(text))
    return got


@pytest.fixture
def out_dir(tmp_path, monkeypatch) -> Path:
    """The home folder, where the export dialog starts (there is no Downloads folder in it);
    the tests run in another folder, which the dialog never offers."""
    d = tmp_path / "out"
    d.mkdir()
    monkeypatch.setenv("HOME", str(d))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return d


def browser(app: PituiApp) -> BrowserScreen:
    b = app.browser
    assert b is not None
    return b


async def select(pilot, settle, b: BrowserScreen, eid: str) -> None:
    assert b.session is not None
    assert b.branch_tree.select_entry(b.session.index_of[eid])
    await settle(pilot)


async def test_export_writes_the_branch_shown(make_app, settle, session_path, clipboard, notes, out_dir):
    app = make_app(session_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        s = b.session
        assert s is not None
        # the other branch (u0 -> v8 -> w9): the pane shows it, x exports it
        await select(pilot, settle, b, "v8")
        leaf = s.index_of["w9"]
        assert copy_export.export_leaf(b) == leaf
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen)
        want = out_dir / "sess-1-w9.md"
        assert app.screen.query_one("#export-path").value == str(want)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, ExportScreen)
        text = want.read_text(encoding="utf-8")
        assert text == export_markdown(s, leaf)
        assert clipboard == [text]
        assert any("Exported to" in n and "sess-1-w9.md" in n for n in notes)


async def test_export_default_name_uses_the_session_name(make_app, settle, tmp_path, clipboard, out_dir):
    proj = tmp_path / "sessions" / "p"
    proj.mkdir(parents=True)
    f = proj / "named.jsonl"
    rows = objs() + [entry("session_info", "n10", "u7", 10, name="Fix the RSS feed / dates")]
    f.write_text(line(HEADER) + "\n" + "".join(line(o) + "\n" for o in rows), encoding="utf-8")
    app = make_app(f)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        assert b.session is not None and b.session.name == "Fix the RSS feed / dates"
        leaf_id = b.session.ids[copy_export.export_leaf(b)]
        assert copy_export.default_export_path(b) == str(out_dir / f"Fix-the-RSS-feed-dates-{leaf_id}.md")


async def test_export_refuses_the_sessions_folder(make_app, settle, session_path, clipboard, notes, out_dir):
    app = make_app(session_path.parent.parent)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        inside = session_path.parent / "export.md"
        for bad in (str(inside), str(session_path), str(session_path.parent.parent / "x.md")):
            await pilot.press("x")
            await settle(pilot)
            box = app.screen.query_one("#export-path")
            box.value = bad
            await pilot.press("enter")
            await settle(pilot)
            assert not os.path.exists(inside)
        assert session_path.read_text(encoding="utf-8").startswith(line(HEADER))
        assert not (session_path.parent.parent / "x.md").exists()
        assert clipboard == []
        assert sum("Not exported" in n for n in notes) == 3
        # Escape cancels
        await pilot.press("x")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ExportScreen)
        assert list(out_dir.iterdir()) == []
        assert copy_export.export_to(b, str(out_dir / "ok.md")) == str(out_dir / "ok.md")


@pytest.mark.parametrize(
    "eid, want",
    [
        ("u0", "hello there"),
        ("a1", "first part. second part"),
        ("t2", "file contents\nline 2"),
        ("b3", "$ ls -l\ntotal 0"),
        ("c4", "what happened so far"),
        ("s5", "the other branch tried X"),
        ("m6", None),  # raw JSON line
    ],
)
async def test_copy_entry_per_kind(make_app, settle, session_path, clipboard, notes, eid, want):
    app = make_app(session_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        b.branch_tree.mode = "all"
        await settle(pilot)
        await select(pilot, settle, b, eid)
        await pilot.press("Y")
        await settle(pilot)
        s = b.session
        assert s is not None
        if want is None:
            want = s.raw_line(s.index_of[eid]).decode().rstrip("\n")
            assert json.loads(want)["type"] == "model_change"
        assert clipboard == [want]
        assert entry_text(s, s.index_of[eid]) == want
        assert any(f"{len(want):,} characters" in n for n in notes)


async def test_copy_id_path_and_resume(make_app, settle, session_path, clipboard, notes, monkeypatch):
    """``y`` copies ``pi --session <id>`` where Pi looks for sessions (here its agent folder
    is the test's), else the path, which Pi opens wherever it lies (issue 34)."""
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(session_path.parent.parent.parent))
    monkeypatch.delenv("PI_CODING_AGENT_SESSION_DIR", raising=False)
    app = make_app(session_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("i", "p", "y")
        await settle(pilot)
        assert clipboard == ["sess-1", str(session_path), "pi --session sess-1"]
        assert any("sess-1" in n for n in notes)


async def test_resume_copies_the_path_where_pi_would_not_find_the_id(make_app, settle, session_path, clipboard,
                                                                    monkeypatch, tmp_path):
    import shlex
    import shutil as sh

    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.delenv("PI_CODING_AGENT_SESSION_DIR", raising=False)
    app = make_app(session_path)  # (a store opened by path, not Pi's own folder)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
    assert clipboard == [f"pi --session {shlex.quote(str(session_path))}"]
    # in Pi's own folder, but another session has the same id (a copy): the path again
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(session_path.parent.parent.parent))
    copy = session_path.parent / "2026-11-21T10-00-00-000Z_sess-1.jsonl"
    sh.copyfile(session_path, copy)
    clipboard.clear()
    app = make_app(session_path.parent.parent)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        shown = app.screen.session.path
    assert clipboard == [f"pi --session {shlex.quote(shown)}"]


def test_help_lists_the_new_keys():
    from pitui.ui.bindings import KEYS

    ids = {k.id for k in KEYS if k.section}
    assert {"session.follow", "session.export_md", "session.copy_entry", "session.copy_id",
            "session.copy_path"} <= ids


@pytest.mark.slow
@pytest.mark.parametrize("query, want", [("copy the session id", "sess-1"), ("copy the session file's path", None)])
async def test_palette_copies(make_app, settle, session_path, clipboard, query, want):
    app = make_app(session_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*query)
        for _ in range(20):  # the palette searches asynchronously
            await pilot.pause(0.05)
        await pilot.press("enter")
        await settle(pilot)
        assert clipboard == [want or str(session_path)]


@pytest.mark.slow
async def test_palette_exports(make_app, settle, session_path, clipboard, out_dir):
    app = make_app(session_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"export the branch shown")
        for _ in range(20):
            await pilot.pause(0.05)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen)
        await pilot.press("enter")
        await settle(pilot)
        b = browser(app)
        assert b.session is not None
        leaf_id = b.session.ids[b.session.leaf]
        assert (out_dir / f"sess-1-{leaf_id}.md").read_text(encoding="utf-8") == clipboard[0]


async def test_default_path_leaves_the_sessions_folder(make_app, settle, session_path, monkeypatch, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(session_path.parent)
    app = make_app(session_path.parent.parent)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        assert b.session is not None
        leaf_id = b.session.ids[b.session.leaf]
        assert copy_export.default_export_path(b) == str(home / f"sess-1-{leaf_id}.md")


async def test_export_as_html_and_the_folder_is_remembered(make_app, settle, session_path, clipboard, notes,
                                                           out_dir, tmp_path):
    """``x`` starts in the home folder (here; never the folder pitui runs in), ctrl+t makes
    the path an .html one, Enter writes the HTML page; the next ``x`` starts in that folder,
    also in the next run (settings.json)."""
    from pitui.core.export.html import export_html

    app = make_app(session_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        b = browser(app)
        s = b.session
        await pilot.press("x")
        await settle(pilot)
        box = app.screen.query_one("#export-path")
        assert os.path.dirname(box.value) == str(out_dir)
        elsewhere = tmp_path / "exports"
        elsewhere.mkdir()
        box.value = str(elsewhere / "page.md")
        await pilot.press("ctrl+t")
        assert box.value == str(elsewhere / "page.html")
        await pilot.press("enter")
        await settle(pilot)
        assert (elsewhere / "page.html").read_text(encoding="utf-8") == export_html(s, copy_export.export_leaf(b))
        assert clipboard == []  # (a page is not copied)
        assert os.path.dirname(copy_export.default_export_path(b)) == str(elsewhere)
    app = make_app(session_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert os.path.dirname(copy_export.default_export_path(browser(app))) == str(elsewhere)
