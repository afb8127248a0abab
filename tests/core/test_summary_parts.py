"""Compactions, branch summaries and custom messages: what they show is decided once
(``core/model/parts.py``) and the pane, the HTML export and the Markdown export say the same."""

from __future__ import annotations

from pitui.core.export.html import export_html
from pitui.core.export.markdown import export_markdown
from pitui.core.model.entry_parts import summary_parts
from pitui.core.read.session import Session
from pitui.ui.pane.message_pane import MessagePane

from helpers import assistant, entry, pane_app, user, write

FILES = [f"src/f{k}.py" for k in range(8)]


def _session(tmp_path) -> Session:
    objs = [
        user("u1", None, 1, "start"),
        assistant("a1", "u1", 2, "working"),
        entry("compaction", "c1", "a1", 3, summary="## Goal\nShip it.", firstKeptEntryId="a1", tokensBefore=52000,
              details={"readFiles": FILES, "modifiedFiles": ["src/main.py"]},
              usage={"input": 4700, "output": 632, "cost": {"total": 0.0788}}),
        user("u2", "c1", 4, "again"),
        entry("branch_summary", "b1", "u2", 5, summary="Tried **X**.", fromId="a1", details={"note": "kept"}),
        entry("custom_message", "m1", "b1", 6, customType="ext.note", content="from the extension", display=True),
        entry("compaction", "c2", "m1", 7, summary="Again.", firstKeptEntryId="gone", tokensBefore=9000),
    ]
    return Session.open(write(tmp_path / "s.jsonl", objs))


def test_summary_parts(tmp_path):
    s = _session(tmp_path)
    c1 = summary_parts(s, s.entry(s.index_of["c1"]))
    assert (c1.kind, c1.tokens_before, c1.kept, c1.kept_id) == ("compaction", 52000, "entry", "a1")
    assert c1.kept_note.text == "kept from entry a1"
    assert c1.files_text(6) == ["read: " + ", ".join(FILES[:6]) + " +2", "modified: src/main.py"]
    assert c1.usage == ("↑4.7k ↓632", "$0.0788")
    assert c1.other_details is None
    c2 = summary_parts(s, s.entry(s.index_of["c2"]))
    assert c2.kept_note.text == "kept from entry gone (not in this file)"
    b1 = summary_parts(s, s.entry(s.index_of["b1"]))
    assert (b1.kind, b1.from_note.text, b1.files, b1.other_details) == (
        "branch_summary", "summary of the branch that ended at a1", (), {"note": "kept"})
    own = summary_parts(None, {"type": "compaction", "id": "c9", "firstKeptEntryId": "c9", "summary": ""})
    assert own.kept_note.text == "kept nothing from before"
    # the context's form (a message of role compactionSummary) has fewer fields
    msg = summary_parts(None, {"role": "compactionSummary", "summary": "S", "tokensBefore": 10})
    assert (msg.kind, msg.tokens_before, msg.kept_note, msg.files) == ("compaction", 10, None, ())
    checkpoint = summary_parts(None, {"type": "compaction", "systemMessage": {"sections": {"a": 1, "b": 2},
                                                                              "toolsAdded": [{}]}})
    assert checkpoint.checkpoint_text == "prompt checkpoint: 2 sections, 1 tool"


def test_the_exports_say_what_the_summaries_kept_and_touched(tmp_path):
    s = _session(tmp_path)
    md = export_markdown(s)
    assert "*kept from entry `a1` · read: " + ", ".join(f"`{f}`" for f in FILES) + " · modified: `src/main.py` · " \
           "summary usage: ↑4.7k ↓632 · $0.0788*" in md
    assert "*summary of the branch that ended at `a1`*" in md
    assert '"note": "kept"' in md
    assert "*kept from entry `gone` (not in this file)*" in md
    assert "### Custom message `ext.note`" in md
    html = export_html(s)
    a1 = s.index_of["a1"]
    assert f'Kept from entry <a href="#e{a1}"><code>a1</code></a>' in html
    assert "Kept from entry <code>gone</code> (not in this file)" in html
    assert f'Summary of the branch that ended at <a href="#e{a1}"><code>a1</code></a>' in html
    assert "summary usage: ↑4.7k ↓632 · $0.0788" in html
    assert '<span class="label-line">modified</span> <code>src/main.py</code>' in html
    assert '<span class="role">Custom message</span>' in html and "Extension message" not in html


async def test_the_pane_says_the_same(tmp_path):
    s = _session(tmp_path)
    app = pane_app(s, leaf=s.leaf)
    async with app.run_test(size=(200, 80)) as pilot:
        await pilot.pause()
        pane = app.query_one(MessagePane)
        text = "\n".join(pane.render_line(y).text.rstrip() for y in range(pane.scrollable_content_region.height))
    assert "kept from entry a1 · read: " + ", ".join(FILES[:6]) + " +2 · modified: src/main.py" in text
    assert "summary usage: ↑4.7k ↓632 · $0.0788" in text
    assert "summary of the branch that ended at a1" in text
    assert "kept from entry gone (not in this file)" in text
    assert "┆ custom message  ext.note  outside context " in text
    assert "┆ {\n┆   \"note\": \"kept\"\n┆ }" in text  # a branch summary's other details, as JSON


async def test_summaries_an_extension_wrote_say_so_everywhere(tmp_path):
    """A compaction or branch summary with ``fromHook: true`` (an extension wrote it, not
    Pi's own summariser) is marked so in the pane, the HTML and the Markdown export."""
    s = Session.open(write(tmp_path / "s.jsonl", [
        user("u1", None, 1, "start"),
        assistant("a1", "u1", 2, "working"),
        entry("compaction", "c1", "a1", 3, summary="Compacted.", firstKeptEntryId="a1", tokensBefore=52000,
              fromHook=True),
        user("u2", "c1", 4, "again"),
        entry("branch_summary", "b1", "u2", 5, summary="Tried X.", fromId="a1", fromHook=True),
        entry("branch_summary", "b2", "b1", 6, summary="Tried Y.", fromId="a1", fromHook=False),
    ]))
    assert [summary_parts(s, s.entry(i)).by_extension for i in (2, 4, 5)] == [True, True, False]
    md = export_markdown(s)
    assert "*by an extension · kept from entry `a1`*" in md
    assert "*by an extension · summary of the branch that ended at `a1`*" in md
    assert md.count("by an extension") == 2
    html = export_html(s)
    assert html.count('by an extension') == 2
    app = pane_app(s, leaf=s.leaf)
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.pause()
        pane = app.query_one(MessagePane)
        text = "\n".join(pane.render_line(y).text.rstrip() for y in range(pane.scrollable_content_region.height))
    assert "━━━ ⇣ compaction · 52.0k tokens before (extension) ━━━" in text
    assert "summary of the branch that ended at a1 · by an extension" in text
    assert text.count("by an extension") == 1
