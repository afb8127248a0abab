"""Property-based fuzzing with hostile sessions (hypothesis).

Sessions are built from the entry shapes of Pi's format doc, every field either a hostile
string (control sequences, Textual markup, lone surrogates, bidi overrides and isolates,
line separators, clusters terminals draw at other widths, long runs of white space) or a
value of any JSON type (numbers past 64 bits and past a double's range too), plus damaged,
non-UTF-8 and deeply nested lines, and tails of NUL bytes. For each, the core reads every entry and
every view of it, the message pane's drawing code draws every block in every toggle, and
every command-line output is produced. Nothing may raise; `list`, `export` (every format)
and `search` exit 0, or 2 with one line on stderr; no control character reaches any drawn
line or human-readable output; `--json` output stays valid JSON; the sessions folder is
byte-identical afterwards.

The normal run uses a fixed seed and a bounded number of examples (profile ``default``);
``pytest --hypothesis-profile=long tests/hostile/test_fuzz_hostile.py`` runs many more.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
from pathlib import Path

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pitui.core.text import BIDI_CONTROLS, CONTROL_RE

CTRL_OUT = CONTROL_RE  # no control character at all in a drawn line or a field (bidi controls too)
BIDI = re.compile(f"[{BIDI_CONTROLS}]")
ALLOWED_IN_TEXT = {"\n", "\t"}  # (human output keeps its own newlines and tabs)
# a block of text (a Markdown export, the pane's lines of a message) keeps the line and
# paragraph separators as text does; only one-line outputs show them as stand-ins
SEPARATORS = {"\u2028", "\u2029"}

PAYLOADS = [
    "\x1b]52;c;SGFja2Vk\x07", "\x1b]0;title\x07", "\x1b[2J", "\x9b2J", "\x07", "\x00", "\x7f", "\r",
    "a\nb", "[bold]x", "[/]", "[@click=app.screenshot('x.jsonl','/tmp')]c[/]", "[link=http://x]l[/link]",
    "\ud800", "\udfff", "İstanbul", "*", "\"", "\\", "",
    # bidi overrides and isolates, line separators (issue 33)
    "\u202e", "cat \u202ehs.hsab|moc.live lruc #\u202c", "\u2066x\u2069", "\u202a\u202b\u202d\u2067\u2068",
    "\u2028", "\u2029", "a\u2028b",
    # clusters terminals draw at other widths
    "\u2764\ufe0f", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f1fa\U0001f1f8", "\u3164\u115f\u1160\uffa0",
    # long runs of white space
    " " * 5000, "\t" * 2000, "\n" * 1000, "\r\n" * 500, "\u3000" * 2000, " " * 3000 + "x",
]

hostile_text = st.one_of(
    st.sampled_from(PAYLOADS),
    st.text(alphabet=st.characters(codec=None, categories=None, exclude_characters=()), max_size=24),
    st.lists(st.sampled_from(PAYLOADS), min_size=1, max_size=4).map("".join),
)
# numbers past 64 bits and past a double's range (JavaScript reads those as Infinity)
huge_number = st.sampled_from([2**64 + 1, -(2**70), 10**30, 10**309, -(10**400), 1.7976931348623157e308])
scalar = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**63), max_value=2**64),
                   st.floats(allow_nan=False, allow_infinity=False), hostile_text, huge_number)
any_value = st.recursive(scalar, lambda c: st.one_of(st.lists(c, max_size=3),
                                                     st.dictionaries(hostile_text, c, max_size=3)),
                         max_leaves=6)


def field(good):
    """A well-typed hostile value most of the time, any JSON value sometimes."""
    return st.one_of(good, good, good, any_value)


text_block = st.fixed_dictionaries({"type": st.just("text"), "text": field(hostile_text)})
thinking_block = st.fixed_dictionaries({"type": st.just("thinking"), "thinking": field(hostile_text),
                                        "thinkingSignature": field(hostile_text)})
image_block = st.fixed_dictionaries({"type": st.just("image"), "data": field(st.just("aGVsbG8=")),
                                     "mimeType": field(hostile_text)})
tool_call = st.fixed_dictionaries({
    "type": st.just("toolCall"), "id": field(st.sampled_from(["c1", "c2"])),
    "name": field(st.sampled_from(["bash", "read", "edit", "write", "grep", "find", "ls", "subagent"]) | hostile_text),
    "arguments": field(st.fixed_dictionaries({}, optional={"command": hostile_text, "path": hostile_text,
                                                           "oldText": hostile_text, "newText": hostile_text,
                                                           "pattern": hostile_text, "task": hostile_text})),
})
usage = field(st.fixed_dictionaries({"input": field(st.integers(0, 10**6)), "output": field(st.integers(0, 10**6)),
                                     "cacheRead": st.integers(0, 10), "cacheWrite": st.integers(0, 10),
                                     "totalTokens": field(st.integers(0, 10**6)),
                                     "cost": field(st.fixed_dictionaries({"total": field(st.floats(0, 10))}))}))
content = field(st.one_of(hostile_text, st.lists(st.one_of(text_block, image_block), max_size=3)))

messages = st.one_of(
    st.fixed_dictionaries({"role": st.just("user"), "content": content, "timestamp": field(st.integers(0, 2**41))}),
    st.fixed_dictionaries({
        "role": st.just("assistant"),
        "content": field(st.lists(st.one_of(text_block, thinking_block, tool_call), max_size=4)),
        "provider": field(hostile_text), "model": field(hostile_text), "usage": usage,
        "stopReason": field(st.sampled_from(["stop", "toolUse", "error", "aborted"]) | hostile_text),
        "errorMessage": field(hostile_text), "timestamp": field(st.integers(0, 2**41))}),
    st.fixed_dictionaries({
        "role": st.just("toolResult"), "toolCallId": field(st.sampled_from(["c1", "c2", "zz"])),
        "toolName": field(hostile_text), "content": content, "isError": field(st.booleans()),
        "details": field(st.fixed_dictionaries({}, optional={
            "diff": hostile_text, "truncation": any_value,
            "results": st.lists(st.fixed_dictionaries({"agent": hostile_text, "task": hostile_text,
                                                       "messages": any_value}), max_size=2)}))}),
    st.fixed_dictionaries({"role": st.just("bashExecution"), "command": field(hostile_text),
                           "output": field(hostile_text), "exitCode": field(st.integers(-1, 255))}),
    st.fixed_dictionaries({"role": st.just("custom"), "customType": field(hostile_text), "content": content,
                           "display": field(st.booleans())}),
    st.fixed_dictionaries({"role": st.just("system"), "content": field(hostile_text),
                           "sections": field(st.dictionaries(hostile_text, hostile_text, max_size=3))}),
    st.fixed_dictionaries({"role": hostile_text, "content": content}),
)

entry_bodies = st.one_of(
    st.fixed_dictionaries({"type": st.just("message"), "message": field(messages)}),
    st.fixed_dictionaries({"type": st.just("model_change"), "provider": field(hostile_text),
                           "modelId": field(hostile_text)}),
    st.fixed_dictionaries({"type": st.just("thinking_level_change"), "thinkingLevel": field(hostile_text)}),
    st.fixed_dictionaries({"type": st.just("compaction"), "summary": field(hostile_text),
                           "firstKeptEntryId": field(st.sampled_from(["e0", "e1", "nope"])),
                           "tokensBefore": field(st.integers(0, 10**6))}),
    st.fixed_dictionaries({"type": st.just("branch_summary"), "summary": field(hostile_text),
                           "fromId": field(hostile_text)}),
    st.fixed_dictionaries({"type": st.just("custom"), "customType": field(hostile_text), "data": any_value}),
    st.fixed_dictionaries({"type": st.just("custom_message"), "customType": field(hostile_text), "content": content,
                           "display": field(st.booleans()), "details": any_value}),
    st.fixed_dictionaries({"type": st.just("label"), "targetId": field(st.sampled_from(["e0", "e1"])),
                           "label": field(hostile_text)}),
    st.fixed_dictionaries({"type": st.just("session_info"), "name": field(hostile_text)}),
    st.fixed_dictionaries({"type": st.just("context_edit"), "targetId": field(st.sampled_from(["e0", "e1"])),
                           "replacement": any_value}),
    st.fixed_dictionaries({"type": hostile_text, "payload": any_value}),
)

odd_lines = st.sampled_from([
    b"{not json", b"\xff\xfe broken bytes", b"[" * 3000 + b"]" * 3000,
    b'{"type":"message","id":"deep","parentId":null,"message":' + b'{"a":' * 2500 + b"1" + b"}" * 2500 + b"}",
    b"42", b'"a string"', b"null",
    b'{"type":"message","id":"n","parentId":null,"timestamp":' + b"9" * 400 + b"}",
    b'{"type":"message","id":"z"' + b"\x00" * 4096,
    b" " * 8192, b"\t" * 4096 + b"{}",
])


@st.composite
def sessions(draw):
    header = {"type": "session", "version": draw(st.sampled_from([3, 3, 3, 2, 1])),
              "id": draw(field(st.sampled_from(["s-1", "abc[/]", "\x1b]52;c;SGk=\x07"]))),
              "timestamp": draw(field(st.just("2026-11-20T10:00:00.000Z"))),
              "cwd": draw(field(hostile_text))}
    if draw(st.booleans()):
        header["parentSession"] = draw(field(hostile_text))
    lines: list[bytes] = [] if draw(st.integers(0, 9)) == 0 else [_dump(header)]
    n = draw(st.integers(1, 8))
    for k in range(n):
        if draw(st.integers(0, 6)) == 0:
            lines.append(draw(odd_lines))
            continue
        body = draw(entry_bodies)
        parent = f"e{k - 1}" if k else None
        if draw(st.integers(0, 5)) == 0:
            parent = draw(field(st.sampled_from(["e0", "missing", f"e{k}"])))
        eid = f"e{k}" if draw(st.integers(0, 6)) else draw(any_value)
        ts = draw(field(st.just(f"2026-11-20T10:00:{k:02d}.000Z")))
        lines.append(_dump({"type": body.pop("type"), "id": eid, "parentId": parent, "timestamp": ts, **body}))
    # (a partial last line: no final newline; a tail of NUL bytes, as a file cut and
    # extended by a crash leaves)
    return lines, draw(st.booleans()), draw(st.sampled_from([b"", b"", b"", b"\x00" * 4096, b"\n" + b"\x00" * 70000]))


def _dump(obj) -> bytes:
    # JSON as Pi's JSON.stringify writes it: lone surrogates as \\uXXXX escapes
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass").replace(
        b"\xed\xa0\x80", b"\\ud800").replace(b"\xed\xbf\xbf", b"\\udfff")


def _tree_hash(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


class _Out(io.TextIOWrapper):
    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", errors="strict")

    def isatty(self) -> bool:  # as a terminal: the human form of every output
        return True

    def data(self) -> bytes:
        self.flush()
        return self.buffer.getvalue()  # type: ignore[attr-defined]


def _run_cli(argv: list[str]) -> tuple[int, bytes, bytes]:
    from pitui.cli import main

    out, err = _Out(), _Out()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse
            rc = exc.code if isinstance(exc.code, int) else 2
    return rc, out.data(), err.data()


OWN_STYLES = ("\x1b[1;33m", "\x1b[0m")  # pitui search's own highlight of a match, on a terminal


def _assert_no_controls(data: bytes, what: str, block: bool = False) -> None:
    text = data.decode("utf-8")  # (output is UTF-8: a lone surrogate could not be encoded)
    for style in OWN_STYLES:
        text = text.replace(style, "")
    bad = {c for c in CTRL_OUT.findall(text)} - ALLOWED_IN_TEXT - (SEPARATORS if block else set())
    assert not bad, f"{what}: control characters {sorted(map(hex, map(ord, bad)))} in {text[:300]!r}"


def _check_core(path: Path) -> None:
    from pitui.core.model.context import build_context
    from pitui.core.model.layout import FILTERS, layout_tree
    from pitui.core.model.stats import branch_stats, session_stats
    from pitui.core.model.summary import summarize
    from pitui.core.read.session import NotASession, Session

    try:
        s = Session.open(str(path))
    except NotASession:
        return
    for mode in FILTERS:
        layout_tree(s, mode, frozenset())
    for i in range(len(s)):
        s.entry(i)
        summ = summarize(s, i)
        for part in (summ.prefix, summ.text):
            assert not CTRL_OUT.search(part), (part, i)
        build_context(s, i)
        branch_stats(s, i)
    session_stats(s)
    _draw_every_block(s)


def _draw_every_block(s) -> None:
    """The message pane's drawing of every entry of the current branch, in every toggle,
    with the text of every line checked."""
    from rich.console import Console

    from pitui.ui.pane.branch_model import model_for
    from pitui.ui.pane.entry_drawer import EntryDrawer
    from pitui.ui.pane.canvas import Out, RenderCtx
    from pitui.ui.pane.palette import DEFAULT_PALETTE
    from pitui.ui.pane_toggles import BY_NAME

    for on in (False, True):  # (every toggle off, or every one on)
        m = model_for(s, s.leaf, on)
        # private: every block of the branch model drawn headless (its blocks have a public
        # face only on a mounted pane)
        for b in range(len(m.bstart)):
            console = Console(width=80, file=io.StringIO(), force_terminal=True, color_system="truecolor")
            ctx = RenderCtx(console=console, palette=DEFAULT_PALETTE, toggles=frozenset(BY_NAME) if on else frozenset())
            out = Out(ctx, 80)
            EntryDrawer(s).draw(m.block(b), out)
            for strip in out.strips:
                text = "".join(seg.text for seg in strip)
                assert not set(CTRL_OUT.findall(text)) - SEPARATORS, repr(text)


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(sessions())
def test_hostile_sessions_never_crash_leak_controls_or_write(tmp_path_factory, session):
    lines, partial, nul_tail = session
    root = tmp_path_factory.mktemp("store")
    project = root / "--home-u-proj--"
    project.mkdir()
    path = project / "2026-11-20T10-00-00-000Z_s-1.jsonl"
    path.write_bytes(b"\n".join(lines) + (b"" if partial else b"\n") + nul_tail)
    before = _tree_hash(root)
    cache = tmp_path_factory.mktemp("cache")
    old = os.environ.get("PITUI_CACHE_DIR")
    os.environ["PITUI_CACHE_DIR"] = str(cache)
    try:
        _check_core(path)
        runs = [["list", str(root)], ["list", str(root), "--json"],
                ["search", "a", str(root)], ["search", "re:(a+)+$", str(root)], ["search", "İstanbul", str(root)]]
        runs += [["export", str(path), "--format", f] for f in ("markdown", "json", "html")]
        for argv in runs:
            rc, out, err = _run_cli(argv)
            assert rc in (0, 2), (argv, rc, err)
            if rc == 2:
                assert err.count(b"\n") == 1, (argv, err)
            _assert_no_controls(err, f"{argv} stderr")
            if "--json" in argv or argv[-1] == "json":
                if rc == 0:
                    orjson.loads(out)
            elif argv[-1] != "html":
                _assert_no_controls(out, f"{argv} stdout", block=argv[-1] == "markdown")
            else:  # (the page's own text is never reordered: no bidi control reaches it raw)
                assert not BIDI.search(out.decode("utf-8")), argv
    finally:
        if old is None:
            os.environ.pop("PITUI_CACHE_DIR", None)
        else:
            os.environ["PITUI_CACHE_DIR"] = old
    assert _tree_hash(root) == before
