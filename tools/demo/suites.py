"""The shop's legacy unittest suites, described once: rendered as unittest classes (the
project's tests before the long session) and as plain pytest (what the agent writes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Suite:
    module: str  # tests/test_<module>.py
    cls: str
    imports: list[str]  # stdlib lines first, then "from shop..." lines
    fixtures: list[tuple[str, str]]
    tests: list[tuple[str, list[Any]]]


def _sub(code: str, names: list[str], style: str) -> str:
    for n in names:
        code = code.replace("{" + n + "}", ("self." + n) if style == "unittest" else n)
    return code


def _assert_lines(item: Any, style: str) -> list[str]:
    if isinstance(item, str):
        return [item]
    kind, *a = item
    if style == "unittest":
        simple = {
            "eq": "assertEqual",
            "ne": "assertNotEqual",
            "lt": "assertLess",
            "true": "assertTrue",
            "false": "assertFalse",
            "none": "assertIsNone",
            "in": "assertIn",
            "notin": "assertNotIn",
        }
        if kind in simple:
            return [f"self.{simple[kind]}({', '.join(a)})"]
        if kind == "len":
            return [f"self.assertEqual(len({a[0]}), {a[1]})"]
        if kind == "almost":
            return [f"self.assertAlmostEqual({a[0]}, {a[1]}, places=2)"]
        if kind == "raises":
            return [f"with self.assertRaises({a[0]}):", f"    {a[1]}"]
        if kind == "raises_match":
            return [f"with self.assertRaisesRegex({a[0]}, {a[1]}):", f"    {a[2]}"]
    else:
        if kind == "eq":
            return [f"assert {a[0]} == {a[1]}"]
        if kind == "ne":
            return [f"assert {a[0]} != {a[1]}"]
        if kind == "lt":
            return [f"assert {a[0]} < {a[1]}"]
        if kind == "true":
            return [f"assert {a[0]}"]
        if kind == "false":
            return [f"assert not {a[0]}"]
        if kind == "none":
            return [f"assert {a[0]} is None"]
        if kind == "in":
            return [f"assert {a[0]} in {a[1]}"]
        if kind == "notin":
            return [f"assert {a[0]} not in {a[1]}"]
        if kind == "len":
            return [f"assert len({a[0]}) == {a[1]}"]
        if kind == "almost":
            return [f"assert {a[0]} == pytest.approx({a[1]}, abs=0.01)"]
        if kind == "raises":
            return [f"with pytest.raises({a[0]}):", f"    {a[1]}"]
        if kind == "raises_match":
            return [f"with pytest.raises({a[0]}, match={a[1]}):", f"    {a[2]}"]
    raise ValueError(kind)


def _uses(lines: list[str], names: list[str]) -> list[str]:
    joined = "\n".join(lines)
    return [n for n in names if "{" + n + "}" in joined]


def render_unittest(s: Suite) -> str:
    std = [i for i in s.imports if not i.startswith("from shop")]
    own = [i for i in s.imports if i.startswith("from shop")]
    names = [n for n, _ in s.fixtures]
    out = ["import unittest"] + std + [""] + own + ["", "", f"class {s.cls}(unittest.TestCase):"]
    if s.fixtures:
        out.append("    def setUp(self):")
        for n, expr in s.fixtures:
            out.append(f"        self.{n} = {_sub(expr, names, 'unittest')}")
        out.append("")
    for i, (tname, body) in enumerate(s.tests):
        out.append(f"    def test_{tname}(self):")
        for item in body:
            for line in _assert_lines(item, "unittest"):
                out.append("        " + _sub(line, names, "unittest"))
        if i < len(s.tests) - 1:
            out.append("")
    return "\n".join(out) + "\n"


def render_pytest(s: Suite) -> str:
    std = [i for i in s.imports if not i.startswith("from shop")]
    own = [i for i in s.imports if i.startswith("from shop")]
    names = [n for n, _ in s.fixtures]
    bodies = []
    needs_pytest = bool(s.fixtures)
    for tname, body in s.tests:
        lines = []
        for item in body:
            if not isinstance(item, str) and item[0] in ("raises", "raises_match", "almost"):
                needs_pytest = True
            lines += _assert_lines(item, "pytest")
        bodies.append((tname, lines))
    out: list[str] = []
    if std:
        out += std + [""]
    if needs_pytest:
        out += ["import pytest", ""]
    out += own
    for n, expr in s.fixtures:
        deps = _uses([expr], names)
        out += ["", "", "@pytest.fixture", f"def {n}({', '.join(deps)}):", f"    return {_sub(expr, names, 'pytest')}"]
    for tname, lines in bodies:
        params = _uses(lines, names)
        out += ["", "", f"def test_{tname}({', '.join(params)}):"]
        out += ["    " + _sub(line, names, "pytest") for line in lines]
    return "\n".join(out) + "\n"
