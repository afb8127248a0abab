"""The message pane and the context view: snapshots of every kind of entry, and behaviour
(scrolling to entries, search, toggles, focus reports, lazy layout on 10,000 entries)."""

from __future__ import annotations

from pathlib import Path

from pitui.core.read.session import Session
from pitui.ui.pane import MessagePane, prepare_branch
from pitui.ui.screens.context import ContextScreen
from pitui.ui.pane.canvas import CUT_LINES

from helpers import FIXTURES, call, chain, header, pane_app, workers_done, write
from helpers import assistant_msg as assistant
from helpers import result_msg as result
from helpers import user_msg as user

CORPUS = FIXTURES / "pi-corpus" / "agent" / "sessions"
SIZE = (120, 40)
PANE_HEADER = header("pane-test", "/home/dev/test")


def corpus_file(prefix: str) -> Path:
    found = sorted(CORPUS.glob(f"*/{prefix}*.jsonl"))
    assert found, prefix
    return found[0]


def open_corpus(prefix: str) -> Session:
    return Session.open(corpus_file(prefix))


def lines_of(pane: MessagePane, b: int) -> list[str]:
    return [ln.rstrip() for ln in pane.block_lines(b)]


def first_entries(pane: MessagePane) -> list[int]:
    """The first entry of each block, in block order (every block shows at least one)."""
    first: dict[int, int] = {}
    for i in pane.branch:
        b = pane.block_of(i)
        if b is not None:
            first.setdefault(b, i)
    return [first[b] for b in range(pane.block_count)]


def fold_keys(pane: MessagePane, b: int) -> list[str]:
    return [a[1] for a in pane.block_actions(b).values() if a[0] == "fold"]


def screen_text(pane: MessagePane) -> list[str]:
    return [pane.render_line(y).text.rstrip() for y in range(pane.scrollable_content_region.height)]


# ---------------------------------------------------------------------------- snapshots


def test_snapshot_user_image_and_markers(snap_compare):
    # a user message with an image, an error stop, model and thinking-level markers
    s = open_corpus("2026-04-16T12-01-53-500Z")
    assert snap_compare(pane_app(s, selected=52), terminal_size=SIZE)


def test_snapshot_tools_thinking_folded(snap_compare):
    # web_fetch error, edit diff, thinking folded, bash with truncation note, Markdown code
    s = open_corpus("2026-04-16T12-01-53-500Z")
    assert snap_compare(pane_app(s, selected=1), terminal_size=SIZE)


def test_snapshot_thinking_unfolded(snap_compare):
    s = open_corpus("2026-04-16T12-01-53-500Z")
    assert snap_compare(pane_app(s, selected=5, show_thinking=True), terminal_size=SIZE)


def test_snapshot_read_grep_and_errors(snap_compare):
    # read (with an image and an error), grep, find, ls, write
    s = open_corpus("2026-07-26T12-02-43-899Z")
    assert snap_compare(pane_app(s, selected=2), terminal_size=SIZE)


def test_snapshot_full_tool_output(snap_compare, tmp_path):
    long = "\n".join(f"line {k}: " + "x" * (k % 7) for k in range(1, 16))
    entries = chain([
        user("run it"),
        assistant(call("c1", "bash", command="seq 15"), call("c2", "read", path="src/app.py", offset=10, limit=20),
                  stop="toolUse"),
        result("c1", "bash", long, details={"truncation": {"truncated": True, "totalLines": 4000, "outputLines": 15},
                                            "fullOutputPath": "/tmp/pi-bash-1234.log"}),
        result("c2", "read", "def main():\n    return 1\n\n\nclass App:\n    name = 'x'\n    size = 3\n    ok = True\n"),
        assistant("Both done."),
    ])
    s = Session.open(write(tmp_path / "s.jsonl", entries, header=PANE_HEADER))

    async def expand(pilot):
        pilot.app.pane.full_tool_output = True
        await pilot.pause()

    assert snap_compare(pane_app(s, selected=1), terminal_size=SIZE, run_before=expand)


def test_snapshot_bash_truncation(snap_compare):
    # a real session: bash truncation with fullOutputPath, a user `!` bash run at the end
    s = open_corpus("2025-12-09T00-53-29-825Z")
    assert snap_compare(pane_app(s, selected=995), terminal_size=SIZE)


def test_snapshot_bash_execution(snap_compare):
    # exit 1, excluded from context
    s = open_corpus("2026-04-16T15-32-10-720Z")
    assert snap_compare(pane_app(s, selected=25), terminal_size=SIZE)


def test_snapshot_custom_hidden_folded(snap_compare):
    # custom entry (assistant.event) and a display:false custom message, hidden
    s = open_corpus("2026-07-26T16-01-16-366Z")
    assert snap_compare(pane_app(s, selected=18), terminal_size=SIZE)


def test_snapshot_custom_hidden_shown(snap_compare):
    s = open_corpus("2026-07-26T16-01-16-366Z")
    assert snap_compare(pane_app(s, selected=18, show_hidden=True), terminal_size=SIZE)


def test_snapshot_system_message(snap_compare):
    # the first system message (sections, tools) and a later one patching sections
    s = open_corpus("2026-07-26T12-02-43-899Z")

    async def unfold_second(pilot):
        pane = pilot.app.pane
        b = pane.block_of(11)
        key = fold_keys(pane, b)[0]
        pane.toggle_fold(b, key)
        pane.scroll_to_entry(11)
        await pilot.pause()

    assert snap_compare(pane_app(s, selected=11), terminal_size=SIZE, run_before=unfold_second)


def test_snapshot_compaction_boundary(snap_compare):
    # history before the compaction marked outside the context; an edited entry; the boundary
    s = open_corpus("2026-07-26T13-38-47-137Z")
    assert snap_compare(pane_app(s, selected=0), terminal_size=SIZE)


def test_snapshot_branch_summary(snap_compare):
    s = open_corpus("2026-07-26T12-02-43-899Z")
    assert snap_compare(pane_app(s, selected=33), terminal_size=SIZE)


def test_snapshot_context_edit_omitted(snap_compare):
    # a usage entry, an entry omitted from the context and the edit's marker
    s = open_corpus("2026-07-26T09-39-22-207Z")
    assert snap_compare(pane_app(s, selected=76), terminal_size=SIZE)


def test_snapshot_subagent_parallel_unfolded(snap_compare):
    s = open_corpus("2026-07-26T09-11-13-741Z")

    async def unfold(pilot):
        pane = pilot.app.pane
        b = pane.block_of(3)
        keys = [k for k in fold_keys(pane, b) if ":sub" in k]
        assert len(keys) == 3
        pane.toggle_fold(b, keys[0])
        pane.toggle_fold(b, keys[1])
        pane.scroll_to_entry(3)
        await pilot.pause()

    assert snap_compare(pane_app(s, selected=3), terminal_size=SIZE, run_before=unfold)


def test_snapshot_damaged_entry(snap_compare, tmp_path):
    big = "y" * 40_000
    entries = chain([user("before"), assistant(call("c1", "bash", command="cat big"), stop="toolUse"),
                     result("c1", "bash", big), assistant("after"), user(big), assistant("end")])
    path = write(tmp_path / "s.jsonl", entries, header=PANE_HEADER)
    # Damage two big lines after their head: the fast scan accepts them, reading the body fails.
    lines = path.read_text().split("\n")
    lines[3] = lines[3].replace("yyyy", 'yy"yy', 1)
    lines[5] = lines[5].replace("yyyy", 'yy"yy', 1)
    path.write_text("\n".join(lines))
    s = Session.open(path, validate=False)
    assert snap_compare(pane_app(s, selected=0), terminal_size=SIZE)


def test_snapshot_context_screen(snap_compare):
    s = open_corpus("2026-07-26T13-38-47-137Z")

    async def open_context(pilot):
        pilot.app.push_screen(ContextScreen(s, 40))
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(pane_app(s, selected=40), terminal_size=SIZE, run_before=open_context)


# ---------------------------------------------------------------------------- behaviour


async def test_scroll_to_entry_puts_block_at_top():
    s = open_corpus("2026-04-16T12-50-30-937Z")
    app = pane_app(s, selected=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.pane
        branch = pane.branch
        primaries = first_entries(pane)
        targets = [primaries[len(primaries) // 2], primaries[3], primaries[-8], primaries[1]]
        for i in targets:
            pane.scroll_to_entry(i)
            await pilot.pause()
            b = pane.block_of(i)
            assert round(pane.scroll_y) == pane.block_top(b), i
            assert pane.entry_at_top() == i
        # a tool result is drawn in its call's block: scrolling to it shows that block
        results = [i for i in branch if s.roles[i] == "toolResult"]
        r = results[len(results) // 2]
        pane.scroll_to_entry(r)
        await pilot.pause()
        b = pane.block_of(r)
        call_entry = first_entries(pane)[b]
        assert s.roles[call_entry] == "assistant" and call_entry < r
        top = pane.block_top(b)
        assert top <= round(pane.scroll_y) < top + pane.block_height(b)


async def test_show_branch_selected_at_top_and_reshow_keeps_position():
    s = open_corpus("2026-07-26T22-53-28-020Z")
    leaf = s.newest_leaf_below(40)
    app = pane_app(s, selected=40, leaf=leaf)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.pane
        assert pane.entry_at_top() == 40
        pane.scroll_to(y=pane.scroll_y + 5, animate=False)
        await pilot.pause()
        y = round(pane.scroll_y)
        # the same branch again, selected still in view: nothing moves
        pane.show_branch(s, s.path_to(leaf), 40)
        await pilot.pause()
        assert round(pane.scroll_y) == y
        # selected out of view: it goes to the top
        pane.show_branch(s, s.path_to(leaf), 0)
        await pilot.pause()
        assert round(pane.scroll_y) == 0


async def test_toggles_change_rendering(tmp_path):
    long = "\n".join(f"out {k}" for k in range(20))
    entries = chain([
        user("go"),
        assistant({"type": "thinking", "thinking": "first\nsecond\nthird"}, "Answer.", call("c1", "bash", command="ls"),
                  stop="toolUse"),
        result("c1", "bash", long),
        {"type": "custom_message", "customType": "ext.state", "content": "secret note", "display": False},
        assistant("done"),
    ])
    s = Session.open(write(tmp_path / "s.jsonl", entries, header=PANE_HEADER))
    app = pane_app(s, selected=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.pane
        b = pane.block_of(1)
        folded = lines_of(pane, b)
        assert any("▸ thinking (3 lines)" in ln for ln in folded)
        assert not any("second" in ln for ln in folded)
        assert any(f"… {20 - CUT_LINES} more lines (o)" in ln for ln in folded)
        assert not any("out 19" in ln for ln in folded)
        assert pane.block_count == 3  # user, assistant+result, assistant (the hidden message is not drawn)

        pane.show_thinking = True
        await pilot.pause()
        unfolded = lines_of(pane, b)
        assert any("▾ thinking (3 lines)" in ln for ln in unfolded)
        assert any("second" in ln for ln in unfolded)

        pane.full_tool_output = True
        await pilot.pause()
        full = lines_of(pane, b)
        assert any("out 19" in ln for ln in full) and not any("more lines" in ln for ln in full)
        assert pane.block_height(b) == len(full)

        pane.show_hidden = True
        await pilot.pause()
        assert pane.block_count == 4
        hb = pane.block_of(3)
        text = "\n".join(lines_of(pane, hb))
        assert "secret note" in text and "hidden (display: false)" in text

        # clicking a fold line opens just that fold
        pane.show_thinking = False
        pane.full_tool_output = False
        await pilot.pause()
        line = next(ln for ln, a in pane.block_actions(b).items() if a[0] == "fold" and "think" in a[1])
        y = pane.block_top(b) + line - round(pane.scroll_y)
        await pilot.click(MessagePane, offset=(4, y))
        await pilot.pause()
        assert any("second" in ln for ln in lines_of(pane, b))


async def test_search_counts_hits_and_next_hit_walks_them(tmp_path):
    entries = chain([
        user("find the Needle please"),
        assistant({"type": "thinking", "thinking": "where is the needle?"}, "No needle here."),
        user("nothing"),
        assistant(call("c1", "bash", command="grep -r NEEDLE ."), stop="toolUse"),
        result("c1", "bash", "\n".join(["a"] * 10 + ["needle at line 11"])),
        assistant("done"),
    ])
    s = Session.open(write(tmp_path / "s.jsonl", entries, header=PANE_HEADER))
    app = pane_app(s, selected=0)
    async with app.run_test(size=(100, 12)) as pilot:
        await pilot.pause()
        pane = app.pane
        # user 1, thinking 1 + text 1, command 1 + output 1 (the blocks matched in slices:
        # a few at once, the rest in turns)
        pane.search("NEEDLE")
        for _ in range(1000):
            if pane.search_complete:
                break
            await pilot.pause(0.01)
        assert pane.hit_count == 5
        visited = [pane.next_hit() for _ in range(5)]
        assert visited == [0, 1, 1, 4, 4]  # the command and the output: the bash call's result entry
        await pilot.pause()
        # the hit in the cut output is shown (its fold opened by the hit) and highlighted
        b = pane.block_of(3)
        assert any("needle at line 11" in ln for ln in lines_of(pane, b))
        assert any("needle at line 11" in ln for ln in screen_text(pane))
        assert pane.next_hit() == 0  # wraps
        assert pane.next_hit(backwards=True) == 4
        # the thinking hit opened the folded thinking
        assert any("where is the needle?" in ln for ln in lines_of(pane, pane.block_of(1)))
        pane.search("no such text")
        for _ in range(1000):
            if pane.search_complete:
                break
            await pilot.pause(0.01)
        assert pane.hit_count == 0
        assert pane.next_hit() is None
        assert pane.search("") == 0


async def test_entry_focused_posted_after_scrolling():
    s = open_corpus("2026-04-16T12-01-53-500Z")
    app = pane_app(s, selected=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.pane
        target = first_entries(pane)[5]
        pane.scroll_to(y=pane.block_top(5), animate=False)
        await pilot.pause(0.4)
        assert app.focused_entries and app.focused_entries[-1] == target
        # a programmatic scroll_to_entry is not echoed back
        n = len(app.focused_entries)
        pane.scroll_to_entry(first_entries(pane)[8])
        await pilot.pause(0.4)
        assert len(app.focused_entries) == n


async def test_subagent_transcript_offers_to_open(tmp_path):
    folder = tmp_path / "--home-dev-x--"
    (folder / "subagent-artifacts").mkdir(parents=True)
    artifact = folder / "subagent-artifacts" / "5f316403_worker.jsonl"
    artifact.write_text("{}\n")
    details = {"mode": "single", "results": [{
        "agent": "worker", "task": "fix it", "exitCode": 0, "model": "claude-sonnet-4-6",
        "messages": [user("fix it"), assistant("fixed")],
        "usage": {"input": 100, "output": 20, "cost": 0.01, "turns": 1},
        "artifactPaths": {"jsonlPath": "/elsewhere/subagent-artifacts/5f316403_worker.jsonl"},
    }]}
    entries = chain([user("delegate"), assistant(call("c1", "subagent", agent="worker", task="fix it"), stop="toolUse"),
                     result("c1", "subagent", "fixed", details=details), assistant("ok")])
    s = Session.open(write(folder / "s.jsonl", entries, header=PANE_HEADER))
    app = pane_app(s, selected=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.pane
        b = pane.block_of(1)
        opens = [(ln, a) for ln, a in pane.block_actions(b).items() if a[0] == "open"]
        assert opens and opens[0][1][1] == str(artifact)
        # the user clicks that line
        y = pane.block_top(b) + opens[0][0] - round(pane.scroll_y)
        assert 0 <= y < pane.scrollable_content_region.height
        await pilot.click(MessagePane, offset=(4, y))
        await pilot.pause()
        assert app.opened == [str(artifact)]


def _big_session(path: Path, n: int) -> Path:
    msgs = []
    for k in range(n):
        m = k % 4
        if m == 0:
            msgs.append(user(f"question {k}\n\nwith a second paragraph"))
        elif m == 1:
            msgs.append(assistant({"type": "thinking", "thinking": "hmm\nyes"}, f"Answer {k} with **bold**",
                                  call(f"c{k}", "bash", command="ls -la"), stop="toolUse"))
        elif m == 2:
            msgs.append(result(f"c{k - 1}", "bash", "\n".join(f"line {j}" for j in range(20))))
        else:
            msgs.append(assistant(f"Done {k}."))
    return write(path, chain(msgs), header=PANE_HEADER)


async def test_ten_thousand_entries_render_lazily(tmp_path):
    s = Session.open(_big_session(tmp_path / "big.jsonl", 10_000))
    app = pane_app(s, selected=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.pane
        assert pane.block_count == 7_500
        assert pane.render_count < 30
        await pilot.press("end")
        await pilot.pause()
        assert round(pane.scroll_y) == pane.max_scroll_y
        assert any("Done 9999." in ln for ln in screen_text(pane))
        await pilot.press("home")
        await pilot.pause()
        assert round(pane.scroll_y) == 0
        assert pane.entry_at_top() == 0
        pane.scroll_to_entry(5001)
        await pilot.pause()
        assert pane.entry_at_top() == 5001
        for _ in range(5):
            await pilot.press("pagedown")
        for _ in range(10):
            await pilot.press("pageup")
        await pilot.pause()
        # only what came into view was rendered
        assert pane.render_count < 200, pane.render_count
        assert pane.measured_count < 200


def test_every_corpus_entry_draws():
    """Every block of every branch of the corpus draws without a renderer error: the blocks
    the pane would show for each leaf, drawn by the pane's own drawer at its width, with no
    app around them (the toggles each a drawing setting, as the pane passes them)."""
    from rich.console import Console

    from pitui.ui.pane.branch_model import model_for
    from pitui.ui.pane.entry_drawer import EntryDrawer
    from pitui.ui.pane.canvas import Out, RenderCtx
    from pitui.ui.pane.palette import DEFAULT_PALETTE
    from pitui.ui.pane_toggles import BY_NAME

    console = Console(width=100, color_system="truecolor", force_terminal=True, emoji=False, highlight=False,
                      markup=False)
    for f in sorted(CORPUS.glob("*/*.jsonl")):
        s = Session.open(f)
        drawer = EntryDrawer(s)
        leaves = [i for i in range(len(s)) if not s.children_of(i)]
        modes = [False, True] if len(s) < 300 else [False]  # (every toggle off, or every one on)
        for leaf in leaves:
            for on in modes:
                ctx = RenderCtx(console=console, palette=DEFAULT_PALETTE, toggles=frozenset(BY_NAME) if on else frozenset())
                model = model_for(s, leaf, on)
                for b in range(len(model.bstart)):  # (the branch's blocks, as the pane has them)
                    out = Out(ctx, 96)
                    drawer.draw(model.block(b), out)
                    assert out.result().strips, (f.name, leaf, b)


async def test_slow_blocks_draw_on_a_worker_and_the_view_stays_put(tmp_path):
    md = "\n\n".join(f"## Part {k}\n\nSome *text* for part {k}.\n\n```python\ndef f{k}():\n    return {k}\n```"
                     for k in range(150))
    tail = [m for k in range(30) for m in (user(f"more {k}"), assistant(f"reply {k}"))]
    entries = chain([user("explain"), assistant(md), user("thanks"), assistant("you're welcome")] + tail)
    s = Session.open(write(tmp_path / "s.jsonl", entries, header=PANE_HEADER))
    assert s.lengths[1] > MessagePane.ASYNC_BYTES
    app = pane_app(s, selected=3, async_bytes=MessagePane.ASYNC_BYTES)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.pane
        assert pane.entry_at_top() == 3
        # scrolling up into the big block: a placeholder at once, drawn on a worker thread
        pane.scroll_to(y=pane.scroll_y - 5, animate=False)
        b = pane.block_of(1)
        assert any("drawing this entry" in ln for ln in lines_of(pane, b)) or not pane.drawing
        for _ in range(100):
            await workers_done(app)
            await pilot.pause(0.02)
            if not pane.drawing:
                break
        text = lines_of(pane, b)
        assert any("Part 149" in ln for ln in text)
        assert pane.block_height(b) == len(text) > 150
        # the real height replaced the estimate above the view: the view did not move
        assert pane.entry_at_top() == 1
        top = pane.block_top(pane.block_of(3))
        assert round(pane.scroll_y) == top - 5


async def test_what_counts_as_slow_is_the_text_drawn_not_the_line(tmp_path):
    """A short reply whose line is long (a long thinking folded away, its signature, a
    write call's file cut to a few lines) is drawn at once; it goes to a worker only when
    what is drawn is long: thinking shown, or the call's arguments shown in full."""
    thinking = {"type": "thinking", "thinking": "pondering the layout. " * 400, "thinkingSignature": "Zm9v" * 2000}
    write_call = call("c1", "write", path="src/big.py", content="x = 1\n" * 2000)
    entries = chain([user("go"), assistant(thinking, "Done: a short answer.", write_call, stop="toolUse"),
                     result("c1", "write", "wrote it"), user("thanks"), assistant("welcome")])
    s = Session.open(write(tmp_path / "s.jsonl", entries, header=PANE_HEADER))
    assert s.lengths[1] > 4 * MessagePane.ASYNC_BYTES
    app = pane_app(s, selected=1, async_bytes=MessagePane.ASYNC_BYTES)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.pane
        b = pane.block_of(1)
        # private: how costly a block is to draw decides where it is drawn; once the
        # cost passes ASYNC_BYTES, whether the screen shows it drawn yet races the worker
        assert pane._block_cost(b) < MessagePane.ASYNC_BYTES
        assert any("Done: a short answer." in ln for ln in lines_of(pane, b))  # drawn here and now
        assert not pane.drawing
        pane.show_thinking = True
        assert pane._block_cost(b) > MessagePane.ASYNC_BYTES
        pane.show_thinking = False
        pane.full_tool_output = True
        assert pane._block_cost(b) > MessagePane.ASYNC_BYTES


async def test_context_screen_shows_what_the_model_saw():
    s = open_corpus("2026-07-26T13-38-47-137Z")
    app = pane_app(s, selected=40)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = ContextScreen(s, 40)
        app.push_screen(screen)
        await pilot.pause()
        await pilot.pause()
        view = screen.query_one("#context-view")
        msgs = screen.context["messages"]
        assert 0 < view.block_count <= len(msgs)
        # the compaction summary stands first after the prompt checkpoint, and the user
        # message a context edit replaced shows its replacement, marked, with its entry id
        text = "\n".join("\n".join(lines_of(view, b)) for b in range(view.block_count))
        assert "compaction" in text
        assert "edited: branch" in text and "edited in context" in text and "95060bc1" in text
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not screen


async def test_stop_reasons_redacted_thinking_and_images(tmp_path):
    img = {"type": "image", "data": "A" * 1002 + "==", "mimeType": "image/jpeg"}
    entries = chain([
        {"role": "user", "content": [{"type": "text", "text": "look"}, img], "timestamp": 0},
        assistant({"type": "thinking", "thinking": "", "thinkingSignature": "enc", "redacted": True}, "Hm.",
                  stop="error", errorMessage="overloaded_error: try later"),
        assistant("partial", stop="aborted"),
        assistant("long", stop="length"),
    ])
    s = Session.open(write(tmp_path / "s.jsonl", entries, header=PANE_HEADER))
    app = pane_app(s, selected=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.pane
        text = [ln for b in range(pane.block_count) for ln in lines_of(pane, b)]
        joined = "\n".join(text)
        assert "image image/jpeg · 751 B" in joined  # decoded: 1004 base64 chars, 2 of them padding
        assert "thinking (redacted)" in joined
        assert "✗ error: overloaded_error: try later" in joined
        assert "⊘ aborted" in joined
        assert "output length limit" in joined


def _pane_view(pane: MessagePane) -> tuple:
    """What the pane shows of its branch: its blocks, their heights and the view."""
    # private: the branch model's fields (entry codes, block bounds and kinds, the facts a
    # block is drawn with) must match field by field; nothing public shows them all undrawn
    return (pane.branch, bytes(pane.model.codes), list(pane.model.bstart), list(pane.model.bend), bytes(pane.model.bkind),
            pane.model.override, pane.model.spec, pane.model.edits, pane.model.first_out,
            [pane.block_height(b) for b in range(pane.block_count)],
            round(pane.scroll_y), pane.virtual_size.height)


async def test_a_branch_prepared_in_another_thread_shows_as_one_worked_out_here():
    """The app's open thread works out the first branch's blocks and estimates while the
    session is still being opened (prepare_branch); the pane then shows exactly what
    it would have worked out itself, here for sessions with compactions, hidden custom
    messages, context edits, labels and subagent runs."""
    import threading

    # private: whether the prepared model was taken (not made again) is a speed trick that
    # shows nowhere else: the pane's _prepared slot and the identity of its block arrays
    for prefix in ("2026-07-26T12-02-43-899Z", "2026-07-26T13-38-47-137Z", "2026-07-26T16-01-16-366Z",
                   "2026-07-26T09-39-22-207Z", "2026-04-16T12-01-53-500Z", "2025-12-09T00-53-29-825Z"):
        views = []
        for prepared in (False, True):
            s = open_corpus(prefix)
            app = pane_app()
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                pane = app.pane
                if prepared:
                    made: list = []
                    shape = pane.branch_shape()
                    t = threading.Thread(target=lambda: made.append(prepare_branch(s, s.leaf, shape)))
                    t.start()
                    t.join()
                    model = made[0]
                    pane.adopt_prepared(s, s.leaf, model)
                pane.show_leaf(s, s.leaf, s.leaf)
                await pilot.pause()
                assert pane._prepared is None  # taken (or, unprepared, never there)
                if prepared:
                    assert pane.model.bstart is model.bstart  # the prepared blocks, not made again
                views.append(_pane_view(pane))
        assert views[0] == views[1], prefix


async def test_a_prepared_branch_is_not_taken_when_it_no_longer_fits():
    """Prepared for another leaf, or before "show hidden" changed: the pane works the
    branch out itself (and shows it right)."""
    s = open_corpus("2026-07-26T16-01-16-366Z")
    other = next(i for i in range(len(s)) if not s.children.get(i) and i != s.leaf)
    app = pane_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.pane
        model = prepare_branch(s, other, pane.branch_shape())
        pane.adopt_prepared(s, other, model)  # (private below: which model the pane shows is a speed trick)
        pane.show_leaf(s, s.leaf, s.leaf)
        await pilot.pause()
        assert pane.model.bstart is not model.bstart and pane.branch == s.path_to(s.leaf)
        got = _pane_view(pane)
    app = pane_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.pane
        pane.show_leaf(s, s.leaf, s.leaf)
        await pilot.pause()
        assert _pane_view(pane) == got
    # hidden custom messages: prepared folded, shown unfolded
    views = []
    for prepared in (False, True):
        s = open_corpus("2026-07-26T16-01-16-366Z")
        app = pane_app()
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            pane = app.pane
            if prepared:
                model = prepare_branch(s, s.leaf, pane.branch_shape())
                pane.adopt_prepared(s, s.leaf, model)
            pane.show_hidden = True
            await pilot.pause()
            pane.show_leaf(s, s.leaf, s.leaf)
            await pilot.pause()
            if prepared:
                assert pane.model.bstart is not model.bstart
            views.append(_pane_view(pane))
    assert views[0] == views[1]


async def test_one_line_cut_is_one_line_and_the_model_is_pis(tmp_path):
    # "… 1 more line", not "1 more lines"; the header's model is `model` as Pi records it,
    # with the model that answered only when it is another
    msg = assistant("ok", call("c1", "bash", command="seq 7"), stop="toolUse", model="gpt-5",
                    responseModel="gpt-5-2025-08-07")
    same = assistant("done", model="claude-x", responseModel="claude-x")
    entries = chain([user("go"), msg, result("c1", "bash", "\n".join(str(k) for k in range(CUT_LINES + 1))), same])
    s = Session.open(write(tmp_path / "s.jsonl", entries, header=PANE_HEADER))
    app = pane_app(s, selected=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        pane = app.pane
        first = lines_of(pane, pane.block_of(1))
        assert any("… 1 more line (o)" in ln for ln in first)
        assert any("gpt-5 → gpt-5-2025-08-07" in ln for ln in first)
        last = lines_of(pane, pane.block_of(3))
        assert any("claude-x" in ln for ln in last) and not any("→" in ln for ln in last)


def test_markdown_headings_and_inline_code_read_well_on_light_and_dark_themes():
    # Rich's own styles drew an h2 magenta and underlined (read as an error) and inline
    # code on black (a dark block on a light theme)
    import io

    from rich.console import Console

    from pitui.ui.pane.canvas import Out, RenderCtx
    from pitui.ui.pane.palette import palette_from_variables

    for dark in (True, False):
        palette = palette_from_variables({}, "t", dark)
        console = Console(width=60, file=io.StringIO(), force_terminal=True, color_system="truecolor")
        out = Out(RenderCtx(console=console, palette=palette), 60)
        out.markdown("## Summary\n\nRun `make test` now.")
        segs = [seg for strip in out.strips for seg in strip if seg.text.strip()]
        heading = next(seg for seg in segs if "Summary" in seg.text)
        code = next(seg for seg in segs if "make test" in seg.text)
        assert heading.style.bold and not heading.style.underline
        assert heading.style.color.triplet.hex == palette.fg.color.triplet.hex
        assert code.style.bgcolor is None and code.style.color == palette.tool.color
