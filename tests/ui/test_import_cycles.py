"""No import circle among pitui's ui modules: every import counts, at the top, under
``TYPE_CHECKING`` or inside a function (a circle there still ties two modules together,
and the next move of either breaks the other)."""

from __future__ import annotations

import ast
import pathlib

import pitui

ROOT = pathlib.Path(pitui.__file__).parent.parent


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in (ROOT / "pitui").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(name: str, path: pathlib.Path, modules: dict[str, pathlib.Path]) -> set[str]:
    """The pitui modules ``name`` imports, in any place."""
    got: set[str] = set()
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            got.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            got.add(module)
            got.update(f"{module}.{a.name}" for a in node.names)
    return {m for m in got if m in modules and m != name}


def _circles(prefix: str) -> list[list[str]]:
    """The groups of modules under ``prefix`` that import each other round in a circle."""
    modules = _modules()
    names = sorted(m for m in modules if m == prefix or m.startswith(prefix + "."))
    edges = {m: sorted(_imports(m, modules[m], modules) & set(names)) for m in names}
    # Tarjan's strongly connected components, without recursion
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in names:
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(edges[start]))]
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(edges[target])))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        circles.append(sorted(group))
    return circles


def test_no_import_circle_in_the_ui():
    assert _circles("pitui.ui") == []
