"""Textual's private names that pitui uses (all in pitui/ui/textual_internals.py) still exist.

Textual is pinned; this fails loudly, naming each missing name, when an upgrade removes one.
"""

import pytest
from textual.app import App
from textual.widget import Widget

from pitui.ui import textual_internals


async def test_every_private_name_used_exists():
    app = App()
    async with app.run_test():
        widget = Widget()
        await app.screen.mount(widget)
        assert textual_internals.missing_names(widget, app.screen) == []


def test_no_private_textual_name_is_used_outside_the_module():
    """Every other ui module keeps off Textual's private names (the list in NAMES)."""
    import pathlib
    import re

    names = [n for _, n in textual_internals.NAMES] + list(textual_internals.INSTANCE_NAMES) + list(
        textual_internals.SCREEN_INSTANCE_NAMES) + list(textual_internals.APP_INSTANCE_NAMES)
    pattern = re.compile(r"\.(" + "|".join(map(re.escape, names)) + r")\b")
    ui = pathlib.Path(textual_internals.__file__).parent
    offenders = [f"{p.relative_to(ui)}:{n}" for p in ui.rglob("*.py") if p.name != "textual_internals.py"
                 for n, line in enumerate(p.read_text().splitlines(), 1) if pattern.search(line)]
    assert offenders == []


def _assigned_private_names(tree) -> dict[str, set[str]]:
    """Per class in a module's syntax tree: the private names it sets on ``self``."""
    import ast

    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            names = found.setdefault(node.name, set())
            for sub in ast.walk(node):
                targets = sub.targets if isinstance(sub, ast.Assign) else (
                    [sub.target] if isinstance(sub, (ast.AnnAssign, ast.AugAssign)) else [])
                for t in targets:
                    if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                            and t.attr.startswith("_") and not t.attr.startswith("__")):
                        names.add(t.attr)
    return found


@pytest.mark.slow
def test_no_pitui_attribute_shadows_a_textual_one():
    """A pitui widget, screen or app that sets a private name its Textual base also uses
    (SearchScreen's `_running` was MessagePump's, read by is_running and at shutdown) breaks
    Textual silently. Every private name a pitui class sets on self is checked against the
    names its Textual bases set or define."""
    import ast
    import importlib
    import inspect
    import pathlib
    import pkgutil

    import textual

    import pitui.ui

    textual_names: dict[tuple[str, str], set[str]] = {}
    for path in pathlib.Path(textual.__file__).parent.rglob("*.py"):
        module = ".".join(path.relative_to(pathlib.Path(textual.__file__).parent.parent).with_suffix("").parts)
        for cls, names in _assigned_private_names(ast.parse(path.read_text(encoding="utf-8"))).items():
            textual_names[(module, cls)] = names
    offenders = []
    for info in pkgutil.walk_packages(pitui.ui.__path__, "pitui.ui."):
        module = importlib.import_module(info.name)
        source = inspect.getsource(module)
        own = _assigned_private_names(ast.parse(source))
        for cls_name, names in own.items():
            cls = getattr(module, cls_name, None)
            if not inspect.isclass(cls):
                continue
            bases = [k for k in cls.__mro__ if k.__module__.split(".")[0] == "textual"]
            theirs = set()
            for base in bases:
                theirs |= textual_names.get((base.__module__, base.__name__), set())
                theirs |= {n for n in vars(base) if n.startswith("_") and not n.startswith("__")}
            offenders += [f"{info.name}.{cls_name}.{n}" for n in sorted(names & theirs)]
    assert offenders == []
