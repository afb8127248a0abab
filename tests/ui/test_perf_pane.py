"""The message pane's cost per key is O(what is in view + what changed), never O(branch).

No timings here: the per-block functions are counted (estimates, block objects, draws) on
a 50,000-entry branch while the pane shows it, toggles, shows it again, and moves to a
sibling branch; and what it shows is checked against a pane built from scratch."""

from __future__ import annotations

import contextlib
import random

import pytest

import pitui.ui.pane.branch_model as bm
from pitui.core.read.session import Session
from pitui.ui.pane import MessagePane
from pitui.ui.pane.heights import Heights
from pitui.ui.pane.code import lexer_class_for_filename

from helpers import assistant_msg, call, entry, header, pane_app, result_msg, user, user_msg, workers_done, write
from helpers import message_entry as msg
from tools.piwriter import thinking_block

SIZE = (120, 40)
N = 50_000
USAGE = {"totalTokens": 100, "cost": {"total": 0.001}}  # (each assistant message's)


def _entries(n: int, prefix: str, parent: str | None, k0: int) -> list[dict]:
    """A conversation of ``n`` entries: users, assistants with thinking and a call, tool
    results of many sizes, answers; now and then a label, a model change, a hidden custom
    message, a context edit; a compaction and a system message in the middle."""
    out = []
    for j in range(n):
        k = k0 + j
        eid = f"{prefix}{j}"
        m = j % 8
        if j == n // 2:
            e = entry("compaction", eid, parent, k, summary="earlier work", firstKeptEntryId=f"{prefix}{n // 2 - 40}",
                      tokensBefore=90_000)
        elif j == n // 2 - 20:
            e = msg(eid, parent, k, {"role": "system", "content": "You are Pi.", "timestamp": 0})
        elif j % 997 == 5:
            e = entry("label", eid, parent, k, targetId=f"{prefix}{j - 3}", label=f"mark {j}")
        elif j % 1499 == 7:
            e = entry("custom_message", eid, parent, k, customType="note", content="hidden note", display=False)
        elif j % 2003 == 9:
            e = entry("model_change", eid, parent, k, provider="anthropic", modelId="claude-opus-4-1")
        elif j % 3001 == 11:
            e = entry("context_edit", eid, parent, k, targetId=f"{prefix}{j - 8}", replacement=None)
        elif m == 0:
            e = msg(eid, parent, k, user_msg(f"question {j}"))
        elif m in (1, 4):
            e = msg(eid, parent, k, assistant_msg(
                thinking_block("let me see\nyes"), f"step {j}", call(f"c{prefix}{j}", "bash", command=f"ls {j}"),
                stop="toolUse", usage=USAGE))
        elif m in (2, 5):
            size = (j * 7919) % 50 * (40 if j % 3 else 400)
            e = msg(eid, parent, k, result_msg(f"c{prefix}{j - 1}", "bash", "x" * size + "\nend"))
        else:
            e = msg(eid, parent, k, assistant_msg(f"done {j} " * (j % 40), usage=USAGE))
        out.append(e)
        parent = eid
    return out


@pytest.fixture(scope="module")
def big_session(tmp_path_factory) -> Session:
    """50,000 entries on one branch, a sibling branch 300 entries from its end and
    another forked near the start."""
    main = _entries(N, "e", None, 0)
    late = _entries(200, "s", f"e{N - 300}", N)
    early = _entries(300, "t", "e20", N + 200)
    path = tmp_path_factory.mktemp("perf") / "big.jsonl"
    return Session.open(write(path, main + late + early, header=header("perf", "/home/dev/perf")))


class Counts:
    """Counts the per-block work of the pane: blocks estimated, block objects made
    (what a block looks like), blocks drawn."""

    # private: the work per key is what this file pins, and it shows nowhere but in the
    # calls of the pane's per-block functions (render_count misses draws on workers)

    def __init__(self, monkeypatch):
        self.estimated = 0
        self.made = 0
        self.drawn = 0
        real_estimate = bm.BranchModel.estimate_blocks
        real_block = bm._Block
        real_draw = MessagePane._draw

        def estimate(model, b0, b1, width, full):
            self.estimated += max(0, b1 - b0)
            return real_estimate(model, b0, b1, width, full)

        def block(*args, **kw):
            self.made += 1
            return real_block(*args, **kw)

        def draw(pane, item, ctx, width):
            self.drawn += 1
            return real_draw(pane, item, ctx, width)

        monkeypatch.setattr(bm.BranchModel, "estimate_blocks", estimate)
        monkeypatch.setattr(bm, "_Block", block)
        monkeypatch.setattr(MessagePane, "_draw", draw)

    def reset(self) -> None:
        self.estimated = self.made = self.drawn = 0


@contextlib.asynccontextmanager
async def running_pane():
    """``async with running_pane() as (pilot, pane)``: the message pane of a running pane
    app, laid out at SIZE."""
    app = pane_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        yield pilot, app.pane


def _fresh(session: Session, branch: list[int], width: int, hidden: bool = False) -> MessagePane:
    """A pane that has only ever seen ``branch`` (not mounted: blocks and estimates only)."""
    # private: an unmounted pane's blocks are worked out from the branch model's own steps
    p = MessagePane()
    p.model.built_hidden = hidden
    p.model.session = session
    p.model.tree = session.parent
    p.model.update_branch(branch, 0, p.model.codes_of(session, branch, 0))
    p.model.update_decorations()
    return p


def _same_layout(pane: MessagePane, session: Session, leaf: int) -> None:
    """The pane shows exactly what a pane built from scratch for ``leaf`` would."""
    # private: blocks reused after a fork must equal those made from scratch field by
    # field (bounds, kinds, keys, estimates), the pane's internals, without drawing them
    branch = session.path_to(leaf)
    assert pane.branch == branch
    pane._exact_estimates()  # (what the pane shows once the blocks with rough estimates have exact ones)
    width = pane.scrollable_content_region.width
    fresh = _fresh(session, branch, width, pane.show_hidden)
    n = fresh.block_count
    assert pane.block_count == n
    assert list(pane.model.bstart) == list(fresh.model.bstart) and bytes(pane.model.bkind) == bytes(fresh.model.bkind)
    for b in list(range(0, n, max(1, n // 500))) + list(range(max(0, n - 50), n)):
        assert pane._blocks[b].key == fresh._blocks[b].key, b
    for i in branch[:: max(1, len(branch) // 500)] + branch[-60:]:
        assert pane.block_of(i) == fresh.block_of(i), i
    for full in (False, True):
        assert pane.model.ensure_estimates(width, full) == fresh.model.ensure_estimates(width, full)
    # the layout: every height is its real one (drawn) or the estimate; tops add up
    est = fresh._base_heights(width) if not pane.full_tool_output else None
    if est is not None:
        for b in range(0, n, max(1, n // 300)):
            real = pane._hcache[pane._state_key(b)] if pane._measured[b] else est[b]
            assert pane.block_height(b) == real, b
    for b in range(0, n, max(1, n // 50)):
        assert pane.block_top(b) == sum(pane.block_height(x) for x in range(b)), b


@pytest.mark.slow
async def test_big_branch_costs_what_is_in_view(big_session, monkeypatch):
    s = big_session
    leaf = s.index_of[f"e{N - 1}"]
    branch = s.path_to(leaf)
    assert len(branch) == N
    counts = Counts(monkeypatch)
    async with running_pane() as (pilot, pane):
        view = pane.scrollable_content_region.height

        # first show: the last blocks estimated (in bulk) and the others given a rough
        # estimate, only what is in view drawn; a moment later the others' exact
        # estimates, in bulk: every block estimated once, and the view where it was
        pane.show_leaf(s, leaf, branch[N // 3])
        await pilot.pause()
        nblocks = pane.block_count
        assert nblocks > 30_000
        assert counts.estimated == pane.model.QUICK_TAIL
        assert counts.drawn <= view
        assert counts.made <= 3 * view
        assert pane.entry_at_top() == branch[N // 3]
        top = round(pane.scroll_y) - pane.block_top(pane.block_of(branch[N // 3]))
        await pilot.pause(pane.EXACT_DELAY + 0.2)
        assert counts.estimated == nblocks
        assert counts.drawn <= view
        assert pane.entry_at_top() == branch[N // 3]
        assert round(pane.scroll_y) - pane.block_top(pane.block_of(branch[N // 3])) == top
        _same_layout(pane, s, leaf)
        # while the user reads, the estimates for the other state of `o` are worked out
        # (from the long results only: no block is estimated again)
        # private: estimates worked out ahead are a speed trick with no public face
        pane.model.est.pop(True, None)
        pane._base_heights(pane.scrollable_content_region.width)
        counts.reset()
        await pilot.pause(1.2)
        assert set(pane.model.est) == {False, True}
        assert counts.estimated == 0

        # the same branch again (the app echoing a selection in view): nothing at all
        counts.reset()
        y = round(pane.scroll_y)
        pane.show_leaf(s, leaf, branch[N // 3])
        pane.show_branch(s, s.path_to(leaf), branch[N // 3])
        await pilot.pause()
        assert (counts.estimated, counts.made, counts.drawn) == (0, 0, 0)
        assert round(pane.scroll_y) == y

        # toggles: no block estimated again; what is drawn again is what is in view
        for attr in ("show_thinking", "full_tool_output", "show_thinking", "full_tool_output"):
            counts.reset()
            top = pane.entry_at_top()
            setattr(pane, attr, not getattr(pane, attr))
            await pilot.pause()
            assert counts.estimated == 0, attr
            assert counts.drawn <= view, attr
            assert counts.made <= 3 * view, attr
            assert pane.block_of(pane.entry_at_top()) == pane.block_of(top), attr  # the same block on top
        _same_layout(pane, s, leaf)

        # scrolling by a line or a page draws only the blocks coming into view
        counts.reset()
        for _ in range(5):
            pane.scroll_to(y=pane.scroll_y + 1, animate=False, immediate=True)
            await pilot.pause()
        assert counts.drawn <= 2 and counts.estimated == 0
        counts.reset()
        pane.action_page_down()
        await pilot.pause()
        assert counts.drawn <= view and counts.estimated == 0

        # a sibling branch 300 entries from the end: only the blocks after the fork
        sib = s.index_of["s199"]
        sib_branch = s.path_to(sib)
        counts.reset()
        pane.show_leaf(s, sib, s.index_of["s10"])
        await pilot.pause()
        assert pane.entry_at_top() == s.index_of["s10"]
        # the new part only (200 entries and a group before), for each state of the
        # tool output toggle seen so far
        assert counts.estimated <= 2 * 210
        assert counts.drawn <= view
        assert counts.made <= 3 * view
        assert pane.branch == sib_branch
        _same_layout(pane, s, sib)

        # and back, with show_branch given the whole path
        counts.reset()
        pane.show_branch(s, s.path_to(leaf), branch[-100])
        await pilot.pause()
        assert pane.entry_at_top() == branch[-100]
        assert counts.estimated <= 2 * 310
        assert counts.made <= 3 * view
        _same_layout(pane, s, leaf)

        # a branch forked near the root costs its own length, not the other's
        early = s.index_of["t299"]
        counts.reset()
        pane.show_leaf(s, early, early)
        await pilot.pause()
        assert counts.estimated <= 2 * 310
        _same_layout(pane, s, early)
        counts.reset()
        pane.show_leaf(s, leaf, leaf)
        await pilot.pause()
        assert counts.estimated <= 2 * N  # the long branch again: its blocks after the fork
        _same_layout(pane, s, leaf)
        assert round(pane.scroll_y) == pane.max_scroll_y or pane.entry_at_top() == leaf

        # a new width estimates every block once, in bulk (the last ones first)
        counts.reset()
        await pilot.resize_terminal(90, 40)
        await pilot.pause(pane.EXACT_DELAY + 0.2)
        assert counts.estimated == pane.block_count
        assert counts.drawn <= 2 * view


async def test_a_long_branch_shows_its_end_at_once_and_its_exact_heights_after(big_session, monkeypatch):
    """A branch of more blocks than QUICK_BLOCKS shown at its end (a session's first
    screen) is drawn with the estimates of its last blocks alone, the others rough; a
    moment later every block has its exact estimate and nothing on screen moved: the same
    lines, still the end of the branch. A short branch gets its exact estimates at once."""
    s = big_session
    leaf = s.index_of[f"e{N - 1}"]
    counts = Counts(monkeypatch)
    async with running_pane() as (pilot, pane):
        height = pane.scrollable_content_region.height
        pane.show_leaf(s, leaf, leaf)
        await pilot.pause()
        assert counts.estimated == pane.model.QUICK_TAIL
        first = [pane.render_line(y).text for y in range(height)]
        assert round(pane.scroll_y) == pane.max_scroll_y
        await pilot.pause(pane.EXACT_DELAY + 0.2)
        assert counts.estimated == pane.block_count
        assert [pane.render_line(y).text for y in range(height)] == first
        assert round(pane.scroll_y) == pane.max_scroll_y
        _same_layout(pane, s, leaf)

        # a short branch (the one forked near the start: 300 entries after it)
        early = s.index_of["t299"]
        pane.show_leaf(s, early, early)
        await pilot.pause()
        assert pane.block_count < pane.model.QUICK_BLOCKS
        # private: the pane's model says which estimates are rough
        assert not any(pane.model.est_rough.values())


async def test_hidden_toggle_and_labels_rebuild_correctly(big_session):
    s = big_session
    leaf = s.index_of[f"e{N - 1}"]
    async with running_pane() as (pilot, pane):
        pane.show_leaf(s, leaf, s.index_of["e1500"])
        await pilot.pause()
        n = pane.block_count
        pane.show_hidden = True
        await pilot.pause()
        assert pane.block_count > n  # the hidden custom messages are blocks now
        _same_layout(pane, s, leaf)
        pane.show_hidden = False
        await pilot.pause()
        assert pane.block_count == n
        _same_layout(pane, s, leaf)
        # the hidden message belongs to the block after it
        hidden = s.index_of["e1506"]
        assert s.types[hidden] == "custom_message"
        assert pane.block_of(hidden) == pane.block_of(s.index_of["e1507"])


def test_heights_match_a_plain_list():
    rnd = random.Random(7)
    for n in (0, 1, 2, 127, 128, 129, 1000, 5000):
        hs = [rnd.choice((1, 1, 2, 3, 9, 40)) for _ in range(n)]
        h = Heights(hs)
        for _ in range(60):
            if n:
                b = rnd.randrange(n)
                hs[b] = rnd.choice((1, 2, 5, 70))
                h.set(b, hs[b])
            assert h.total == sum(hs)
            for b in rnd.sample(range(n), min(n, 20)):
                top = sum(hs[:b])
                assert h.top(b) == top
                assert h.block_at(top) == b
                assert h.block_at(top + hs[b] - 1) == b
            assert h.block_at(-5) == (0 if n else -1)
            assert h.block_at(sum(hs) + 3) == n - 1


def test_lexer_lookup_is_pygments_own():
    """(Pygments would also look at plugins' lexers: none are installed here.)"""
    from pygments.lexers import find_lexer_class_for_filename, get_all_lexers

    names = {"a.py", "x.h", "Makefile", "foo.tar.gz", "notes.unknown", "CMakeLists.txt", "Dockerfile", ".bashrc",
             "a.b.c.ts", "README", ".py", "page.php4", "x.1"}
    for _name, _aliases, patterns, _mimes in get_all_lexers(plugins=False):
        for pat in patterns:
            names.add(pat.replace("*", "file").replace("?", "x").replace("[", "").replace("]", ""))
    for name in sorted(names):
        assert lexer_class_for_filename(name) is (find_lexer_class_for_filename(name) or None), name


def test_lexer_lookup_of_a_path_of_a_million_dots():
    """Issue 33, hole 4: a tool call's path from a session, all dots, was looked up by every
    suffix it has (a million slices of a million characters); only suffixes as long as a
    pattern's are looked at."""
    assert lexer_class_for_filename("/x/" + "." * 1_000_000 + "py").__name__ == "PythonLexer"
    assert lexer_class_for_filename("/x/" + "." * 1_000_000) is None


def test_path_to_keeps_the_last_path(big_session):
    s = big_session

    def walk(i):
        out = []
        while i >= 0:
            out.append(i)
            i = s.parent[i]
        return out[::-1]

    rnd = random.Random(3)
    picks = [s.index_of[f"e{N - 1}"], s.index_of["s199"], s.leaf, s.index_of[f"e{N - 1}"], s.index_of["t299"], 0, s.index_of["e30"], s.leaf, -1]
    picks += [rnd.randrange(len(s)) for _ in range(30)]
    for i in picks:
        p = s.path_to(i)
        assert p == walk(i), i
        p.append(-7)  # a copy: the caller may change it
        assert s.path_to(i) == walk(i), i


def test_lexers_are_prepared_off_the_ui_thread():
    """With lazy lexers a draw never imports a lexer module nor compiles its regular
    expressions: it asks for them, and prepare_lexers (a worker's job) makes them."""
    from pitui.ui.pane.code import _fences_not_ready, _lexer_for, lexer_ready, prepare_lexers

    path = "src/main.nim"  # a lexer no other test uses
    item = _lexer_for(path, lazy=True)
    assert item == ("file", path)
    assert not lexer_ready(item)
    prepare_lexers([item])
    assert lexer_ready(item)
    lexer = _lexer_for(path, lazy=True)
    assert type(lexer) is lexer_class_for_filename(path)
    # fenced code in Markdown: the language's lexer is put off the same way
    pending: set = set()
    assert _fences_not_ready("see\n\n```haskell\nmain = 1\n```\n", pending) == {"haskell"}
    assert pending == {("alias", "haskell")}
    prepare_lexers(pending)
    assert _fences_not_ready("```haskell\nx\n```", set()) == set()


def test_the_file_name_index_is_made_off_the_ui_thread(monkeypatch):
    """Pygments' index of file-name patterns (its ~600 lexers' patterns gone through, some
    compiled) is made by prepare_lexers too: a lazy draw before it exists puts the file off
    rather than making it on the user interface's thread."""
    from pitui.ui.pane import code

    monkeypatch.setattr(code, "_FN_INDEX", None)
    path = "build/rules.mk"
    item = code._lexer_for(path, lazy=True)
    assert item == ("file", path) and code._FN_INDEX is None
    code.prepare_lexers([item])
    assert code._FN_INDEX is not None and code.lexer_ready(item)
    assert type(code._lexer_for(path, lazy=True)) is lexer_class_for_filename(path)


async def test_code_is_drawn_plain_until_its_lexer_is_ready(tmp_path):
    """In the app (drawing on workers allowed), code whose lexer is not ready is drawn
    plain at once; the block is drawn again, highlighted, when a worker made the lexer."""
    path = tmp_path / "s.jsonl"
    code = "\n".join(f"(define (f{k} x) (* x {k}))" for k in range(4))
    entries = [
        user("u", None, 0, "read it"),
        msg("a", "u", 1, assistant_msg(call("c1", "read", path="lib/tools.rkt"), stop="toolUse", provider="p",
                                       model="m", usage={})),
        msg("r", "a", 2, result_msg("c1", "read", code)),
    ]
    s = Session.open(write(path, entries, header=header("lex", "/home/dev")))
    async with running_pane() as (pilot, pane):
        pane.async_bytes = MessagePane.ASYNC_BYTES  # as in the app
        pane.show_leaf(s, 2, 0)
        b = pane.block_of(1)

        def code_on_screen():
            strips = [pane.render_line(y) for y in range(pane.scrollable_content_region.height)]
            return [strip for strip in strips if "define" in strip.text]

        first = code_on_screen()
        assert len(first) == 4
        # private: which lexer a draw waits for, and the draws still waiting, show nowhere
        assert pane._rendered(b).pending_lexers == {("file", "lib/tools.rkt")}
        for _ in range(100):
            await workers_done(pilot.app)
            await pilot.pause(0.02)
            if not pane.worker_drawing.provisional:
                break
        assert not pane._rendered(b).pending_lexers
        again = code_on_screen()
        assert [s.text for s in again] == [s.text for s in first]
        styles = lambda strips: {seg.style for strip in strips for seg in strip if "define" in seg.text}  # noqa: E731
        assert styles(again) != styles(first)  # highlighted now


def test_render_cache_is_bounded_by_lines_and_keeps_what_is_recent():
    from textual.strip import Strip

    from pitui.ui.pane import worker_drawing as drawing
    from pitui.ui.pane.canvas import Rendered

    # private: the cache's bounds are its tuning, read here to check it keeps them
    cache = drawing.RenderCache()
    keep = drawing._RENDER_KEEP
    for k in range(1000):
        cache.put(("b", k), Rendered([Strip([])] * (1 + k % 50)))
        assert cache.lines == sum(r.height for r in cache.values())
        assert len(cache) <= drawing._RENDER_CACHE
        assert cache.lines <= drawing._RENDER_CACHE_LINES or len(cache) <= keep
        assert ("b", k) in cache
    # a huge block does not push out the blocks used just before it
    recent = list(cache)[-(keep - 1):]
    cache.put(("huge",), Rendered([Strip([])] * 20_000))
    assert all(k in cache for k in recent) and ("huge",) in cache
    cache.pop(("huge",))
    assert cache.lines == sum(r.height for r in cache.values())
    cache.clear()
    assert cache.lines == 0 and not cache
