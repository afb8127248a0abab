"""Several roots in the branch tree, drawn as Pi's ``/tree`` draws them.

A session can hold more than one root: a second ``parentId: null`` entry (Pi's
``resetLeaf``), an orphan whose parent is missing, a ``parentId`` cycle (pitui breaks it at
its earliest entry, which becomes a root; Pi's tree leaves the cycle out). Pi then treats the
roots as children of a virtual root: each at the top level without a connector, the one
holding the current leaf first, its children one level in. The expected rows below are Pi's
(``TreeList`` of Pi 1.5.2's ``tree-selector.js`` rendered on the same files by
``tools/pi_tree.mjs``, the cursor column left out); each row is the layout's prefix, fold
mark and path mark and the entry's summary, as the tree widget draws them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assistant, entry, two_roots, user, write
from pitui.core.model.layout import layout_tree
from pitui.core.model.summary import summarize
from pitui.core.read.session import Session


def rows(s: Session, mode: str = "default", folded: tuple[str, ...] = ()) -> list[str]:
    """The tree's rows as Pi draws them (without the cursor's column)."""
    layout = layout_tree(s, mode, frozenset(s.index_of[x] for x in folded))
    out = []
    for r in layout.rows:
        label = s.label_of(r.entry)
        summ = summarize(s, r.entry)
        out.append(r.prefix() + r.fold_mark + r.path_mark + (f"[{label}] " if label else "") + summ.prefix + summ.text)
    return out


def orphan(path: Path) -> Path:
    """An entry whose parent is in no line of the file: a root of its own."""
    return write(path, [
        user("u1", None, 1, "start"),
        assistant("a1", "u1", 2, "reply"),
        user("o1", "gone", 3, "orphan prompt"),
        assistant("o2", "o1", 4, "orphan reply"),
        user("u2", "a1", 5, "continue"),
        assistant("a2", "u2", 6, "done"),
    ])


def cycle(path: Path, broken: bool = False) -> Path:
    """c1 and c2 each other's parent (c3 below them); ``broken``: c1 a root instead, which
    is how pitui shows the cycle (and what Pi draws for such a file)."""
    return write(path, [
        user("u1", None, 1, "start"),
        assistant("a1", "u1", 2, "reply"),
        user("c1", None if broken else "c2", 3, "cycle one"),
        assistant("c2", "c1", 4, "cycle two"),
        user("c3", "c2", 5, "below cycle"),
        user("c4", "c2", 6, "beside it"),
        user("u2", "a1", 7, "continue"),
    ])


def hidden_root(path: Path) -> Path:
    """A second root the default filter hides (a model change): its two children are shown
    at the top level, beside the first root, as Pi shows them."""
    return write(path, [
        user("u1", None, 1, "first"),
        assistant("a1", "u1", 2, "reply"),
        entry("model_change", "m1", None, 3, provider="anthropic", modelId="claude-opus-4-5"),
        user("x1", "m1", 4, "left"),
        user("x2", "m1", 5, "right"),
        assistant("y2", "x2", 6, "right reply"),
    ])


SECOND_FIRST = ["• user: second conversation", "   • assistant: second answer", "   • user: second follow"]
FIRST = [
    "user: first conversation",
    "   assistant: answer one",
    "   ├⊟ [kept] user: follow up",
    "   │     assistant: answer two",
    "   └⊟ user: other follow up",
    "         assistant: other answer",
]


@pytest.mark.parametrize(("mode", "folded", "want"), [
    # the root holding the leaf first; each root at the top level, without a connector
    ("default", (), SECOND_FIRST + FIRST),
    ("no-tools", (), SECOND_FIRST + FIRST),
    ("all", (), SECOND_FIRST + FIRST + ["         [label: kept]"]),
    # fewer rows: a fork's connectors under a root sit in the first column
    ("user-only", (), [
        "• user: second conversation", "   • user: second follow",
        "user: first conversation", "├─ [kept] user: follow up", "└─ user: other follow up",
    ]),
    # one root left: no indent at all
    ("labeled-only", (), ["[kept] user: follow up"]),
    # a folded root shows ⊞ before its text (it has no connector to show it in)
    ("default", ("u1",), SECOND_FIRST + ["⊞ user: first conversation"]),
    ("default", ("v1",), ["⊞ • user: second conversation"] + FIRST),
    ("user-only", ("u1",), ["• user: second conversation", "   • user: second follow", "⊞ user: first conversation"]),
    # a fork folded inside the second root
    ("default", ("u2",), SECOND_FIRST + [
        "user: first conversation", "   assistant: answer one", "   ├⊞ [kept] user: follow up",
        "   └⊟ user: other follow up", "         assistant: other answer",
    ]),
])
def test_two_roots_as_pi_draws_them(tmp_path, mode, folded, want):
    assert rows(Session.open(two_roots(tmp_path / "s.jsonl")), mode, folded) == want


@pytest.mark.parametrize(("mode", "folded", "want"), [
    ("default", (), [
        "• user: start", "   • assistant: reply", "   • user: continue", "   • assistant: done",
        "user: orphan prompt", "   assistant: orphan reply",
    ]),
    ("default", ("o1",), [
        "• user: start", "   • assistant: reply", "   • user: continue", "   • assistant: done",
        "⊞ user: orphan prompt",
    ]),
    ("user-only", (), ["• user: start", "   • user: continue", "user: orphan prompt"]),
])
def test_an_orphan_is_a_root_beside_the_first(tmp_path, mode, folded, want):
    s = Session.open(orphan(tmp_path / "s.jsonl"))
    assert rows(s, mode, folded) == want
    assert any("parent gone not found" in w.message for w in s.all_warnings)


@pytest.mark.parametrize(("mode", "folded", "want"), [
    ("default", (), [
        "• user: start", "   • assistant: reply", "   • user: continue",
        "user: cycle one", "   assistant: cycle two", "   ├─ user: below cycle", "   └─ user: beside it",
    ]),
    ("default", ("c1",), ["• user: start", "   • assistant: reply", "   • user: continue", "⊞ user: cycle one"]),
    ("user-only", (), [
        "• user: start", "   • user: continue", "user: cycle one", "├─ user: below cycle", "└─ user: beside it",
    ]),
])
def test_a_broken_cycle_is_a_root_drawn_as_pi_draws_that_root(tmp_path, mode, folded, want):
    s = Session.open(cycle(tmp_path / "s.jsonl"))
    assert rows(s, mode, folded) == want
    # the same rows as Pi's for the file where the cycle's earliest entry is a root
    assert rows(Session.open(cycle(tmp_path / "b.jsonl", broken=True)), mode, folded) == want
    assert [w.message for w in s.all_warnings] == [
        "line 4: parentId cycle through 2 entries (c1 → c2); c1 is shown as a root"
    ]


@pytest.mark.parametrize(("mode", "folded", "want"), [
    # the hidden root's children take its place, at the top level, the leaf's first
    ("default", (), ["• user: right", "   • assistant: right reply", "user: left", "user: first", "   assistant: reply"]),
    ("default", ("x2",), ["⊞ • user: right", "user: left", "user: first", "   assistant: reply"]),
    ("all", (), [
        "• [model: claude-opus-4-5]", "├⊟ • user: right", "│     • assistant: right reply", "└─ user: left",
        "user: first", "   assistant: reply",
    ]),
])
def test_a_root_the_filter_hides_leaves_its_children_at_the_top(tmp_path, mode, folded, want):
    assert rows(Session.open(hidden_root(tmp_path / "s.jsonl")), mode, folded) == want


def test_deep_roots_are_laid_out_without_recursion(tmp_path):
    """Two roots, each a chain 12,000 entries deep, then an orphan: one row each, the
    chains' rows one level in, in Pi's order (the leaf's root first)."""
    depth = 12_000
    objs = [user("r0", None, 0, "old root")]
    objs += [user(f"r{k}", f"r{k - 1}", k, "old") for k in range(1, depth)]
    objs.append(user("o0", "missing", depth, "orphan"))
    objs.append(user("n0", None, depth + 1, "new root"))
    objs += [user(f"n{k}", f"n{k - 1}", depth + 1 + k, "new") for k in range(1, depth)]
    s = Session.open(write(tmp_path / "s.jsonl", objs))
    layout = layout_tree(s)
    assert len(layout.rows) == 2 * depth + 1
    got = [(s.ids[r.entry], r.prefix(), r.connector, r.active) for r in layout.rows]
    assert got[0] == ("n0", "", "", True) and got[depth] == ("r0", "", "", False) and got[-1] == ("o0", "", "", False)
    assert {g[1:] for g in got[1:depth]} == {("   ", "", True)}
    assert {g[1:] for g in got[depth + 1 : 2 * depth]} == {("   ", "", False)}
