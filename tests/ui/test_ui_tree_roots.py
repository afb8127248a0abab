"""The branch tree in the app: several roots drawn as Pi draws them (each at the top level,
not nested in the one before), and a folded row saying how many rows it hides."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import assistant, user, write
from helpers import two_roots

SIZE = (160, 45)


@pytest.fixture
def two_roots_file(tmp_path) -> Path:
    project = tmp_path / "--home-u-proj--"
    project.mkdir()
    return two_roots(project / "2026-11-20T10-00-00-000Z_roots.jsonl")


def tree_lines(tree) -> list[str]:
    """The tree's rows as on screen, trailing blanks cut, up to the first empty row."""
    out = []
    for y in range(tree.scrollable_content_region.height):
        text = tree.render_line(y).text.rstrip()
        if not text:
            break
        out.append(text)
    return out


async def test_two_roots_are_drawn_side_by_side_as_in_pi(make_app, settle, two_roots_file):
    app = make_app(two_roots_file)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.branch_tree
        # the leaf's root first; the other root at the top level too, its text where the
        # first root's mark is (not two columns in, as if it were nested in the first)
        assert tree_lines(tree) == [
            "  • user: second conversation",
            "     • assistant: second answer",
            "›    • user: second follow",
            "  user: first conversation",
            "     assistant: answer one",
            "     ├⊟ [kept] user: follow up",
            "     │     assistant: answer two",
            "     └⊟ user: other follow up",
            "           assistant: other answer",
        ]
        await pilot.press("down", "enter")  # fold the first conversation's root
        await settle(pilot)
        assert tree_lines(tree) == [
            "  • user: second conversation",
            "     • assistant: second answer",
            "     • user: second follow",
            "› ⊞ user: first conversation (+5)",
        ]
        # a click on the root's ⊞ opens it again
        await pilot.click(tree, offset=(2 + tree.scrollable_content_region.x - tree.region.x, 3 + 1))
        await settle(pilot)
        assert len(tree_lines(tree)) == 9 and tree_lines(tree)[3] == "› user: first conversation"
        # a fork folded inside it says what it hides too
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert tree_lines(tree)[5:] == ["›    ├⊞ [kept] user: follow up (+1)", "     └⊟ user: other follow up",
                                        "           assistant: other answer"]


async def test_a_folded_row_keeps_its_count_when_its_text_is_cut(make_app, settle, tmp_path):
    project = tmp_path / "--home-u-proj--"
    project.mkdir()
    long = "a prompt far longer than the tree is wide " * 6
    f = write(project / "2026-11-20T10-00-00-000Z_long.jsonl", [
        user("u1", None, 1, "start"),
        assistant("a1", "u1", 2, "reply"),
        user("u2", "a1", 3, long),
        assistant("a2", "u2", 4, "one"),
        user("u3", "a2", 5, "two"),
        user("w2", "a1", 6, "the other way"),
    ])
    app = make_app(f)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        tree = app.screen.branch_tree
        await pilot.press("home", "down", "down", "down", "enter")  # u2, below the leaf's branch
        await settle(pilot)
        line = tree_lines(tree)[3]
        assert line.startswith("› └⊞ user: a prompt far longer") and line.endswith("… (+2)")
        assert len(line) <= tree.scrollable_content_region.width


@pytest.fixture
def deep_forks_file(tmp_path) -> Path:
    """Forty forks, each nested in the one before: every branch point sends the
    conversation one level deeper (a retry kept beside each answer)."""
    project = tmp_path / "--home-u-proj--"
    project.mkdir()
    objs, parent, n = [], None, 0
    for depth in range(40):
        u, a, retry = f"u{depth:02d}", f"a{depth:02d}", f"r{depth:02d}"
        objs.append(user(u, parent, n, f"question {depth} about the deep fork, in words enough to fill a row"))
        objs.append(assistant(a, u, n + 1, f"answer {depth}"))
        objs.append(assistant(retry, u, n + 2, f"retry {depth}"))
        parent, n = a, n + 3
    return write(project / "2026-11-20T10-00-00-000Z_deep.jsonl", objs)


@pytest.mark.parametrize("size", [(160, 45), (220, 60)])
async def test_a_deep_fork_keeps_room_for_its_rows_text(make_app, settle, deep_forks_file, size):
    from pitui.ui.widgets.branch_tree import GUIDES_MOST

    app = make_app(deep_forks_file)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        tree = app.screen.branch_tree
        tree.focus()
        await pilot.press("home")
        await settle(pilot)
        width = tree.scrollable_content_region.width
        seen_deep = False
        for _ in range(6):  # (a page at a time, down to the deepest rows)
            for line in tree_lines(tree):
                text_at = min(line.find(w) for w in ("user:", "assistant:") if w in line)
                assert text_at <= 2 + GUIDES_MOST + 2, line  # (the cursor column, the guides, "• ")
                assert text_at <= 2 + width // 3 + 2, line
                seen_deep |= line[2:].startswith("…")
            await pilot.press("pagedown")
            await settle(pilot)
        assert seen_deep  # (rows deeper than the guides shown: their nearest guides after "…")
