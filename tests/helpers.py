"""Small builders for synthetic Pi session files used across tests.

The entries and lines come from the repository's one session writer, ``tools/piwriter.py``;
these add the tests' fixed clock and defaults (one session id, one model, one usage).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from pitui.core.store.discovery import encode_cwd
from tools import piwriter, session_walk

# Where the tests' files are, for a test in any of tests/' folders
TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURES = TESTS / "fixtures"


def header(session_id: str = "sess-1", cwd: str = "/home/u/proj", timestamp: str = "2026-11-20T10:00:00.000Z",
           **extra) -> dict:
    """A session's header line (``version=None``: Pi's first format, without one)."""
    return piwriter.header(session_id, timestamp, cwd, **extra)


HEADER = header()


def ts(n: int) -> str:
    """An entry timestamp n seconds after 2026-11-20T10:00:00Z (days later too)."""
    return piwriter.iso(_ms(n))


def _ms(n: int) -> int:
    """A message timestamp (epoch milliseconds) n seconds after 2026-11-20T10:00:00Z."""
    return 1795168800000 + n * 1000


line = piwriter.dumps


def user(eid, parent, n, text="hello"):
    return piwriter.entry("message", eid, parent, ts(n), message=piwriter.user_message(text, _ms(n)))


def _usage() -> dict:
    # literal costs: the sum 0.01 + 0.02 is not 0.03 in floats
    return {"input": 10, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 30,
            "cost": {"input": 0.01, "output": 0.02, "cacheRead": 0, "cacheWrite": 0, "total": 0.03}}


def assistant(eid, parent, n, text="hi", model="claude-sonnet-4-5", content=None, **extra):
    msg = piwriter.assistant_message(
        content if content is not None else [piwriter.text_block(text)],
        api="anthropic-messages", provider="anthropic", model=model, usage=_usage(), stop_reason="stop",
        timestamp=_ms(n))
    msg.update(extra)
    return piwriter.entry("message", eid, parent, ts(n), message=msg)


def entry(etype, eid, parent, n, **fields):
    return piwriter.entry(etype, eid, parent, ts(n), **fields)


def message_entry(eid, parent, n, message: dict) -> dict:
    """A ``message`` entry holding ``message`` as it is."""
    return entry("message", eid, parent, n, message=message)


# ------------------------------------------------------------------ messages on their own
# (for message_entry and chain; their timestamps are 0 unless given, as in the pane's tests)

#: The usage an assistant message of the pane's tests carries (tokens and cost shown in its header).
SHORT_USAGE = {"totalTokens": 1200, "cost": {"total": 0.01}}


def user_msg(text: str, timestamp: int = 0) -> dict:
    """A user message: ``text`` as one text block."""
    return piwriter.user_message([piwriter.text_block(text)], timestamp)


def assistant_msg(*blocks, stop: str = "stop", provider: str | None = "anthropic",
                  model: str | None = "claude-sonnet-4-5", usage: dict | None = SHORT_USAGE, timestamp: int = 0,
                  **extra) -> dict:
    """An assistant message without ``api`` (as Pi wrote them before it had one): each of
    ``blocks`` a content block, a string a text block; a provider, model or usage of None
    is left out; ``extra`` fields come last."""
    msg: dict = {"role": "assistant",
                 "content": [piwriter.text_block(b) if isinstance(b, str) else b for b in blocks]}
    for key, value in (("provider", provider), ("model", model), ("usage", usage)):
        if value is not None:
            msg[key] = value
    msg.update(stopReason=stop, timestamp=timestamp, **extra)
    return msg


def result_msg(cid: str, name: str, text: str, is_error: bool = False, timestamp: int = 0, **extra) -> dict:
    """A tool result: ``text`` as one text block; ``extra`` fields come last."""
    msg = piwriter.tool_result_message(cid, name, [piwriter.text_block(text)], is_error=is_error, timestamp=timestamp)
    msg.update(extra)
    return msg


def chain(messages: list[dict]) -> list[dict]:
    """Entries for a linear conversation, ids e0, e1, ... a second apart from 10:00:00 (within
    the hour): a dict with a ``type`` is an entry's own fields, any other a message."""
    out = []
    parent = None
    for k, m in enumerate(messages):
        eid = f"e{k}"
        at = f"2026-11-20T10:{k // 60 % 60:02d}:{k % 60:02d}.000Z"
        if "type" in m:
            out.append({"id": eid, "parentId": parent, "timestamp": at, **m})
        else:
            out.append(piwriter.entry("message", eid, parent, at, message=m))
        parent = eid
    return out


def write(path: Path, objs, header=HEADER, trailing_newline=True) -> Path:
    """A session file: the header (none when None), then each entry; a string is written as
    the raw line it is. Its folder is made if need be."""
    lines = ([header] if header is not None else []) + list(objs)
    path.parent.mkdir(parents=True, exist_ok=True)
    return piwriter.write(path, lines, final_newline=trailing_newline)


def pane_app(session=None, selected: int = 0, leaf: int | None = None, *, draw_at_once: bool = True, **attrs):
    """A new app holding only the message pane (``app.pane``). Given a session, it shows the
    branch through ``leaf`` (the newest leaf below ``selected`` unless given) from
    ``selected``, focused, with ``attrs`` set on the pane first; without one it shows nothing
    until the test asks. It keeps the entries the pane reports focused and the session files
    it asks to open (``focused_entries``, ``opened``). With ``draw_at_once`` every block is
    drawn at once (no "drawing…" placeholders racing the test); otherwise as in the app."""
    from textual.app import App, ComposeResult

    from pitui.ui.pane import MessagePane

    class PaneApp(App):  # (the name is in the snapshots' titles)
        CSS = "MessagePane { height: 1fr; }"

        def __init__(self) -> None:
            super().__init__()
            self.focused_entries: list[int] = []
            self.opened: list[str] = []

        def compose(self) -> ComposeResult:
            yield MessagePane(id="pane")

        def on_mount(self) -> None:
            pane = self.pane
            if draw_at_once:
                pane.async_bytes = None
            for name, value in attrs.items():
                setattr(pane, name, value)
            if session is not None:
                shown_leaf = session.newest_leaf_below(selected) if leaf is None else leaf
                pane.show_branch(session, session.path_to(shown_leaf), selected)
                pane.focus()

        def on_message_pane_entry_focused(self, event: MessagePane.EntryFocused) -> None:
            self.focused_entries.append(event.entry)

        def on_message_pane_open_session_file(self, event: MessagePane.OpenSessionFile) -> None:
            self.opened.append(event.path)

        @property
        def pane(self) -> MessagePane:
            return self.query_one(MessagePane)

    return PaneApp()


def read_listing_index(cache: Path) -> tuple[dict, list[dict], list[bytes]]:
    """The listing index in ``cache`` as (columns, rows as dicts of SessionInfo fields,
    each row's stored output), to damage and write back with :func:`write_listing_index`."""
    import orjson

    from pitui.core.store import listing_file, listing_index, listing_rows

    recs = listing_file.decode((cache / f"index-v{listing_index.INDEX_VERSION}.bin").read_bytes(), listing_index.INDEX_VERSION)
    cols = {k: [getattr(r, k) for r in recs] for k in ("path", "project", "kind", "dev", "ino", "size", "mtime_ns",
                                                       "mod", "err")}
    rows = [dict(zip(listing_rows.FIELDS, orjson.loads(bytes(r.row)))) for r in recs]
    return cols, rows, [bytes(r.frag) for r in recs]


def write_listing_index(cache: Path, cols: dict, rows: list, frags: list[bytes], *, raw_rows: bool = False) -> None:
    """Write a listing index (with a right checksum) of ``cols``, ``rows`` (dicts of fields,
    made arrays in the fields' order; or with ``raw_rows`` any value, dumped as it is) and
    ``frags``: whatever they hold, as a hostile file could."""
    import orjson

    from pitui.core.store import listing_file, listing_index, listing_rows

    texts = [orjson.dumps(r if raw_rows else [r.get(k) for k in listing_rows.FIELDS]) for r in rows]
    if isinstance(cols, dict) and "row" not in cols:
        cols = {**cols, "row": [len(t) for t in texts], "frag": [len(f) for f in frags]}
    blob = [x for pair in zip(texts, frags) for x in pair]
    data = b"".join(listing_file.frame(orjson.dumps(cols), blob, listing_index.INDEX_VERSION))
    (cache / f"index-v{listing_index.INDEX_VERSION}.bin").write_bytes(data)


def same_results_of_two_indexes(root, a_dir, b_dir, queries) -> None:
    """Every one of ``queries`` gives exactly the same results from the index in ``a_dir``
    as from the one in ``b_dir`` (both as they are: not updated by the search)."""
    from pitui.core.store.discovery import resolve_root
    from pitui.core.store.search import search

    r = resolve_root(root)
    for q in queries:
        a = full_results(search(r, q, index_dir=a_dir, max_hits=10**9, update=False))
        assert a == full_results(search(r, q, index_dir=b_dir, max_hits=10**9, update=False)), q


def full_results(results) -> list:
    """Everything search results say: each session, its hit count (and whether it counts
    them all), and each hit with its context and spans (to compare two searches exactly)."""
    return [(r.path, r.hit_count, r.hit_count_complete,
             [(h.entry_index, h.entry_id, h.kind, h.context, h.spans) for h in r.hits]) for r in results]  # fmt: skip


def runs_store(root: Path) -> Path:
    """A sessions root of two projects for search's grouping: the newer session ran the
    same ``pytest -q`` seven times (and two other pytest commands, and asked for it once);
    the older one ran it once. Returns ``root``."""
    newer = root / "--home-u-app--"
    older = root / "--home-u-lib--"
    newer.mkdir(parents=True)
    older.mkdir(parents=True)

    def call(eid, parent, n, command):
        block = piwriter.tool_call_block("c-" + eid, "bash", {"command": command})
        return assistant(eid, parent, n, content=[block], stopReason="toolUse")

    commands = ["pytest -q"] * 4 + ["pytest -x tests/test_api.py"] + ["pytest -q"] * 3 + ["pytest --lf"]
    entries, parent = [user("u0", None, 0, "run pytest until it passes")], "u0"
    for k, command in enumerate(commands, 1):
        entries.append(call(f"a{k}", parent, k * 60, command))
        parent = f"a{k}"
    entries.append(assistant("done", parent, 900, text="All green."))
    app_header = piwriter.header("sess-app", "2026-11-20T10:00:00.000Z", "/home/u/app")
    write(newer / "2026-11-20T10-00-00-000Z_sess-app.jsonl", entries, header=app_header)
    lib_header = piwriter.header("sess-lib", "2026-11-19T09:00:00.000Z", "/home/u/lib")
    write(older / "2026-11-19T09-00-00-000Z_sess-lib.jsonl",
          [user("v0", None, 0, "tidy the parser"), call("b1", "v0", 30, "pytest -q")], header=lib_header)
    return root


async def workers_done(app, seconds: float = 60.0) -> None:
    """``await app.workers.wait_for_complete()``, bounded: a worker still running after
    ``seconds`` fails the test by name instead of hanging the whole run."""
    import asyncio

    try:
        await asyncio.wait_for(app.workers.wait_for_complete(), seconds)
    except asyncio.TimeoutError:
        running = [f"{w.name} ({w.state.name})" for w in app.workers if not w.is_finished]
        raise AssertionError(f"workers still running after {seconds:g} s: {running}") from None


def app_screen_text(app) -> str:
    """The text of the app's whole screen as the user reads it (the screenshot's SVG
    without its markup)."""
    import re
    from html import unescape

    return unescape(re.sub(r"<[^>]+>", "", app.export_screenshot())).replace("\xa0", " ")


def dialog_text(screen) -> str:
    """The warnings dialog's text as it reads: its title and hint, then its rows (each one's
    whole text, however the dialog wraps it)."""
    from textual.widgets import OptionList, Static

    lines = [str(st.render()) for st in screen.query(Static)]
    lines += [str(option.prompt) for option in screen.query_one(OptionList).options]
    return "\n".join(lines)


def call(cid, name, **args):
    return piwriter.tool_call_block(cid, name, args)


def result(eid, parent, n, cid, name, text="ok", *, error=False, duration=None, details=None):
    return entry("message", eid, parent, n, message=piwriter.tool_result_message(
        cid, name, [piwriter.text_block(text)], is_error=error, timestamp=_ms(n), details=details,
        duration_ms=duration))


def bash_run(eid, parent, n, command):
    return entry("message", eid, parent, n, message=piwriter.bash_execution_message(
        command, "out", 0, truncated=False, timestamp=_ms(n)))


def tool_use(eid, parent, n, *calls, text=None):
    content = ([piwriter.text_block(text)] if text else []) + list(calls)
    return assistant(eid, parent, n, content=content, stopReason="toolUse")


def build_kinds_session(path):
    """A session with every tool kind, a failed call, times on some results, and a fork: the
    other branch writes a file and holds a user's ``!`` command; the current leaf is a5."""
    return write(path, [
        user("u1", None, 1, "fix the tests"),
        tool_use("b1", "u1", 2, call("d1", "write", path="notes.md", content="x\n")),
        result("rd1", "b1", 3, "d1", "write"),
        bash_run("x1", "rd1", 4, "npm ci"),
        tool_use("a1", "u1", 5, call("c1", "read", path="/home/u/proj/src/a.py"),
                 call("c2", "bash", command="npm test"), text="Looking first."),
        result("r1", "a1", 6, "c1", "read", duration=5),
        result("r2", "r1", 7, "c2", "bash", "1 failed", error=True, duration=1500),
        tool_use("a2", "r2", 8, call("c3", "edit", path="./src/a.py", oldText="a", newText="b")),
        result("r3", "a2", 9, "c3", "edit", details={"durationMs": 20}),
        tool_use("a3", "r3", 10, call("c4", "grep", pattern="TODO"), call("c5", "ls", path="src"),
                 call("c6", "edit", path="src/b.py", oldText="x", newText="y")),
        result("r4", "a3", 11, "c4", "grep"),
        result("r5", "r4", 12, "c5", "ls"),
        result("r6", "r5", 13, "c6", "edit", "no match", error=True),
        tool_use("a4", "r6", 14, call("c7", "subagent", agent="worker", task="run it")),
        result("r7", "a4", 15, "c7", "subagent", duration=60_000),
        assistant("a5", "r7", 16, "Done."),
    ])


def two_roots(path: Path) -> Path:
    """A first conversation with a fork, then a second root holding the current leaf."""
    return write(path, [
        user("u1", None, 1, "first conversation"),
        assistant("a1", "u1", 2, "answer one"),
        user("u2", "a1", 3, "follow up"),
        assistant("a2", "u2", 4, "answer two"),
        user("u2b", "a1", 5, "other follow up"),
        assistant("a2b", "u2b", 6, "other answer"),
        entry("label", "l1", "a2b", 7, targetId="u2", label="kept"),
        user("v1", None, 8, "second conversation"),
        assistant("b1", "v1", 9, "second answer"),
        user("v2", "b1", 10, "second follow"),
    ])


def tree_state(app) -> tuple[str, str, list[str]]:
    """The open session's file name, the tree's title and its rows' texts, as on screen."""
    screen = app.screen
    tree = screen.branch_tree
    rows = [tree.render_line(y).text.strip() for y in range(tree.scrollable_content_region.height)]
    return Path(screen.session_path).name, str(tree.border_title), [r for r in rows if r]


class SessionWalk:
    """``tools/session_walk.py`` as a process writing one session under ``root`` as Pi
    does: ``walk("tool_call")`` returns once the step is on disk (the live board's tests)."""

    def __init__(self, root: Path) -> None:
        folder = root / encode_cwd(session_walk.CWD)
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"2026-11-29T07-00-00-000Z_{session_walk.SESSION_ID}.jsonl"
        self.proc = subprocess.Popen([sys.executable, "-m", "tools.session_walk", str(self.path)], cwd=REPO,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def __call__(self, command: str) -> None:
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "ok"

    def close(self) -> None:
        self.proc.stdin.close()
        assert self.proc.wait(timeout=30) == 0
