"""pitui names things: a one-letter name is allowed only in the few hot loops listed below.

Every name the code assigns counts (assignment and loop targets, comprehension variables,
function and lambda parameters; ``self``, ``cls`` and ``_`` aside). Outside the allowlist the
count may only go down: new code says what a name holds (``entry``, ``offset``, ``width``…).
A local name costs the same in CPython whatever its length, so speed is no reason for ``i``.
"""

from __future__ import annotations

import ast
from collections import Counter
from functools import cache
from pathlib import Path

import pitui

ROOT = Path(pitui.__file__).parent

#: ``(module under pitui/, function)``: functions whose one-letter names stay, each a loop
#: that runs per line of a big file or per cell drawn, written as the algorithm is known.
ALLOWED: dict[tuple[str, str], str] = {
    ("ui/pane/branch_model.py", "BranchModel.estimate_blocks"):
        "every block's estimated height from the skeleton, comprehensions over every entry of a branch",
}

#: One-letter names outside ALLOWED when this test was written (most of them ``y``, a line of
#: the scrolled area, where Textual's own methods call it so); lower it as names improve.
MOST_OUTSIDE = 24

#: The share of one-letter names overall (ALLOWED included) never goes above this.
MOST_SHARE = 0.005


@cache
def _one_letter_names() -> tuple[Counter, Counter, int, int]:
    """``({(module, function): count outside ALLOWED}, the same inside, one-letter names,
    all names)``; ``function`` is the qualified name (``Class.method``, ``outer.inner``)."""
    outside: Counter = Counter()
    inside: Counter = Counter()
    one = total = 0
    for path in sorted(ROOT.rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        stack: list[tuple[ast.AST, str]] = [(tree, "")]
        while stack:
            node, function = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                function = node.name if not function else f"{function}.{node.name}"
            name = None
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                name = node.id
            elif isinstance(node, ast.arg):
                name = node.arg
            if name is not None and name not in ("self", "cls", "_"):
                total += 1
                if len(name) == 1:
                    one += 1
                    (inside if (module, function) in ALLOWED else outside)[(module, function)] += 1
            stack.extend((child, function) for child in ast.iter_child_nodes(node))
    return outside, inside, one, total


def test_new_code_names_things():
    outside, _, _, _ = _one_letter_names()
    count = sum(outside.values())
    worst = ", ".join(f"{module}:{function or '<module>'} ({n})" for (module, function), n in outside.most_common(8))
    assert count <= MOST_OUTSIDE, (
        f"{count} one-letter names outside the hot loops allowed (at most {MOST_OUTSIDE}); "
        f"name what they hold. Most in: {worst}")


def test_one_letter_names_are_few():
    _, _, one, total = _one_letter_names()
    assert one / total <= MOST_SHARE, f"{one} of {total} assigned names are one letter ({one / total:.1%})"


def test_allowed_functions_still_need_it():
    """An allowlist entry whose function is gone, renamed or has no one-letter name left is
    dropped, not kept."""
    _, inside, _, _ = _one_letter_names()
    stale = [key for key in ALLOWED if not inside[key]]
    assert not stale, f"allowlisted functions without one-letter names (drop them): {stale}"
