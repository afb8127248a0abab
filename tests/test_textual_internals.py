"""Textual's private names that pitui uses (all in pitui/ui/textual_internals.py) still exist.

Textual is pinned; this fails loudly, naming each missing name, when an upgrade removes one.
"""

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
