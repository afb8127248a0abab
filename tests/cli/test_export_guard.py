"""An export never overwrites a session: ``pitui export -o`` and the app's ``x`` refuse a
target that is a session file by any name (a hard link, a symbolic link) or that lies in a
sessions folder; ``x`` asks before it overwrites any other file that exists."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import assistant, user, write
from pitui.ui.app import PituiApp
from pitui.ui.screens.export import ExportScreen

SIZE = (120, 40)


@pytest.fixture
def store(tmp_path) -> Path:
    """Pi's sessions root ($PI_CODING_AGENT_DIR/sessions) with two sessions."""
    root = tmp_path / "agent" / "sessions"
    for k in (1, 2):
        folder = root / f"--home-u-p{k}--"
        folder.mkdir(parents=True)
        write(folder / f"2026-11-20T10-00-0{k}-000Z_s{k}.jsonl",
              [user("u1", None, 1, f"question {k}"), assistant("a1", "u1", 2, f"answer {k}")])
    return root


def _sessions(root: Path) -> list[Path]:
    return sorted(root.rglob("*.jsonl"))


def _state(root: Path) -> dict:
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in _sessions(root)}


def _export(session: Path, out: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(tmp_path / "agent"), "PITUI_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("PI_CODING_AGENT_SESSION_DIR", None)
    return subprocess.run([sys.executable, "-m", "pitui.cli", "export", str(session), "--format", "markdown",
                           "-o", str(out), *extra], capture_output=True, text=True, env=env, timeout=120)


def _refused(r: subprocess.CompletedProcess, out: Path) -> None:
    assert r.returncode == 2, r.stderr
    assert r.stdout == "" and len(r.stderr.splitlines()) == 1 and r.stderr.startswith(f"pitui: {out}: not written")


def test_export_onto_a_hard_link_of_the_session_is_refused(tmp_path, store):
    s = _sessions(store)[0]
    link = tmp_path / "elsewhere" / "link.md"
    link.parent.mkdir()
    os.link(s, link)
    before = _state(store)
    r = _export(s, link, tmp_path)
    _refused(r, link)
    assert "session file itself" in r.stderr
    assert _state(store) == before


def test_export_onto_a_hard_link_of_another_session_is_refused(tmp_path, store):
    first, second = _sessions(store)
    copy = tmp_path / "copies" / "copy.jsonl"
    copy.parent.mkdir()
    copy.write_bytes(first.read_bytes())
    link = tmp_path / "out.md"
    os.link(second, link)
    before = _state(store)
    r = _export(copy, link, tmp_path)
    _refused(r, link)
    assert str(second) in r.stderr
    assert _state(store) == before


def test_export_onto_a_symbolic_link_to_a_session_is_refused(tmp_path, store):
    s = _sessions(store)[0]
    link = tmp_path / "link.md"
    link.symlink_to(s)
    before = _state(store)
    _refused(_export(s, link, tmp_path), link)
    assert _state(store) == before


@pytest.mark.parametrize("where", ["root", "project", "root-by-dotdot"])
def test_export_into_the_sessions_folder_is_refused(tmp_path, store, where):
    s = _sessions(store)[0]
    out = {"root": store / "x.md", "project": s.parent / "x.md",
           "root-by-dotdot": s.parent / ".." / "y.md"}[where]
    r = _export(s, out, tmp_path)
    _refused(r, out)
    assert "sessions folder" in r.stderr
    assert not out.exists()


def test_export_into_the_sessions_own_folder_is_refused(tmp_path, store):
    """A session outside every sessions root: its own folder is kept out of too."""
    folder = tmp_path / "loose"
    folder.mkdir()
    s = write(folder / "s.jsonl", [user("u1", None, 1, "hello")])
    out = folder / "s.md"
    _refused(_export(s, out, tmp_path), out)
    assert not out.exists()


@pytest.fixture
def other_root(tmp_path) -> Path:
    """A sessions root nobody names (not $PI_CODING_AGENT_DIR's, not Pi's default one):
    ``--home-u-a--/a.jsonl`` and ``--home-u-b--/b.jsonl``."""
    root = tmp_path / "elsewhere" / "sessions"
    for name in ("a", "b"):
        folder = root / f"--home-u-{name}--"
        folder.mkdir(parents=True)
        write(folder / f"2026-11-20T10-00-00-000Z_{name}.jsonl",
              [user("u1", None, 1, f"question {name}"), assistant("a1", "u1", 2, f"answer {name}")])
    return root


def test_export_onto_a_session_in_a_sibling_project_of_another_root_is_refused(tmp_path, other_root):
    """Issue 33, hole 1: ``export A -o B``, B a session in a sibling project folder of a
    root that is not the default one, was replaced by A's Markdown."""
    a, b = _sessions(other_root)
    before = _state(other_root)
    r = _export(a, b, tmp_path)
    _refused(r, b)
    assert "sessions folder" in r.stderr
    assert _state(other_root) == before


@pytest.mark.parametrize("where", ["sibling project", "inside a project", "source root"])
def test_export_into_a_sessions_folder_of_another_root_is_refused(tmp_path, other_root, where):
    """A new file is not written among the sessions of a root nobody named either: in a
    ``--…--`` project folder (or under one), or in the root the exported session came from."""
    a, b = _sessions(other_root)
    out = {"sibling project": b.parent / "x.md", "inside a project": b.parent / "notes" / "x.md",
           "source root": other_root / "x.md"}[where]
    out.parent.mkdir(exist_ok=True)
    r = _export(a, out, tmp_path)
    _refused(r, out)
    assert "sessions folder" in r.stderr
    assert not out.exists()


def test_export_beside_project_folders_is_refused_whoever_exports(tmp_path, store, other_root):
    """A folder that holds Pi project folders is a sessions root, even when the session
    exported comes from elsewhere."""
    out = other_root / "x.md"
    r = _export(_sessions(store)[0], out, tmp_path)
    _refused(r, out)
    assert not out.exists()


def test_export_through_a_symbolic_link_to_a_session_anywhere_is_refused(tmp_path, store, other_root):
    """``-o`` a symbolic link pointing at a session of a root nobody named."""
    b = _sessions(other_root)[1]
    link = tmp_path / "link.md"
    link.symlink_to(b)
    before = _state(other_root)
    _refused(_export(_sessions(store)[0], link, tmp_path), link)
    assert _state(other_root) == before


def test_export_through_a_dangling_link_into_a_project_folder_is_refused(tmp_path, store, other_root):
    """A symbolic link to a file not made yet, in a project folder: writing through it
    would put a file among the sessions."""
    target = _sessions(other_root)[1].parent / "new.md"
    link = tmp_path / "link.md"
    link.symlink_to(target)
    _refused(_export(_sessions(store)[0], link, tmp_path), link)
    assert not target.exists()


def test_export_onto_a_hard_link_of_a_session_anywhere_is_refused(tmp_path, store):
    """A hard link of a session that lies under no root at all: told by its header."""
    keep = tmp_path / "kept" / "session.jsonl"
    keep.parent.mkdir()
    keep.write_bytes(_sessions(store)[1].read_bytes())
    link = tmp_path / "out" / "link.md"
    link.parent.mkdir()
    os.link(keep, link)
    before = keep.read_bytes()
    r = _export(_sessions(store)[0], link, tmp_path)
    _refused(r, link)
    assert "session header" in r.stderr
    assert keep.read_bytes() == before


def test_export_elsewhere_is_written(tmp_path, store):
    s = _sessions(store)[0]
    out = tmp_path / "out.md"
    out.write_text("an older export")
    r = _export(s, out, tmp_path)
    assert r.returncode == 0 and r.stderr == ""
    assert "question 1" in out.read_text()


def test_export_into_a_missing_folder_says_so_in_one_line(tmp_path, store):
    s = _sessions(store)[0]
    out = tmp_path / "no" / "such" / "folder.md"
    r = _export(s, out, tmp_path)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "cannot be written" in r.stderr


# ---------------------------------------------------------------------------- the app


@pytest.fixture
def notes(monkeypatch) -> list[str]:
    got: list[str] = []
    orig = PituiApp.notify

    def notify(self, message, *args, **kwargs):
        got.append(str(message))
        return orig(self, message, *args, **kwargs)

    monkeypatch.setattr(PituiApp, "notify", notify)
    monkeypatch.setattr(PituiApp, "copy_to_clipboard", lambda self, text: None)
    return got


async def _type_path(pilot, settle, app, path: Path) -> None:
    """``x``, then the path typed over the default one."""
    await pilot.press("x")
    await settle(pilot)
    assert isinstance(app.screen, ExportScreen)
    box = app.screen.query_one("#export-path")
    box.value = ""
    await pilot.press(*str(path))


@pytest.mark.slow
async def test_x_refuses_a_hard_link_of_the_session(make_app, settle, tmp_path, store, notes, monkeypatch):
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    s = _sessions(store)[0]
    link = tmp_path / "link.md"
    os.link(s, link)
    before = _state(store)
    app = make_app(s)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _type_path(pilot, settle, app, link)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, ExportScreen)
        assert [n for n in notes if "Not exported" in n and "session file" in n] != []
    assert _state(store) == before


@pytest.mark.slow
async def test_x_asks_before_it_overwrites_a_file(make_app, settle, tmp_path, store, notes, monkeypatch):
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "agent"))
    out = tmp_path / "mine.md"
    out.write_text("keep me")
    app = make_app(_sessions(store)[0])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # Enter once: asked, nothing written; Escape: still nothing written
        await _type_path(pilot, settle, app, out)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen)
        assert "exists" in str(app.screen.query_one("#export-title").render())
        assert out.read_text() == "keep me"
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ExportScreen) and out.read_text() == "keep me"
        # Enter, then another path typed: asked again for that one (not written)
        await _type_path(pilot, settle, app, out)
        await pilot.press("enter", "backspace", "d", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ExportScreen) and out.read_text() == "keep me"
        await pilot.press("escape")
        await settle(pilot)
        # Enter twice: overwritten
        await _type_path(pilot, settle, app, out)
        await pilot.press("enter")
        await settle(pilot)
        assert out.read_text() == "keep me"
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, ExportScreen)
        assert "question 1" in out.read_text()
        # a new file is written at the first Enter
        new = tmp_path / "new.md"
        await _type_path(pilot, settle, app, new)
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, ExportScreen) and "question 1" in new.read_text()
