"""The message pane's toggles are one row each (``pitui/ui/pane_toggles.py``): every toggle
declared there has its key in the footer and the help screen, greyed out with no session,
its toast, its attribute on the pane, and its field in the render cache's key."""

import io

import pytest
from rich.console import Console

from helpers import assistant, user, write
from pitui.ui.bindings import MESSAGES, by_id
from pitui.ui.browser.screen import BrowserScreen
from pitui.ui.pane import MessagePane
from pitui.ui.pane.canvas import DEP_QUERY, Out, RenderCtx
from pitui.ui.pane.palette import DEFAULT_PALETTE
from pitui.ui.pane.scroller import BlockScroller, StateKey
from pitui.ui.pane_toggles import DEP_OF, DRAWN_TOGGLES, PANE_TOGGLES
from pitui.ui.screens.help import help_sections

NAMES = [toggle.name for toggle in PANE_TOGGLES]


@pytest.mark.parametrize("toggle", PANE_TOGGLES, ids=NAMES)
def test_each_toggle_has_its_browser_key(toggle):
    key = by_id(f"view.{toggle.name}")
    assert key is not None
    assert (key.target, key.keys, key.action, key.label, key.text, key.section, key.show) == (
        "browser", toggle.keys, f"pane_toggle('{toggle.name}')", toggle.label, toggle.text, MESSAGES, toggle.show)
    assert key.id in [binding.id for binding in BrowserScreen.BINDINGS]
    assert "pane_toggle" in BrowserScreen.SESSION_ACTIONS  # (greyed out with no session open)
    if toggle.attr is not None:
        assert isinstance(getattr(MessagePane, toggle.attr), property)


async def test_help_and_the_footer_list_every_toggle_and_its_key_flips_it_with_a_toast(make_app, settle, notes,
                                                                                      tmp_path):
    path = write(tmp_path / "--home-u-p--" / "2026-11-20T10-00-00-000Z_t.jsonl", [
        user("u1", None, 1, "a question"),
        assistant("a1", "u1", 2, content=[{"type": "thinking", "thinking": "a thought"}, {"type": "text", "text": "yes"}]),
    ])
    app = make_app(path)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        listed = {bid: (keys, what) for section, rows in help_sections(app) for keys, what, bid in rows
                  if section == MESSAGES}
        footer = {binding.id for _, binding, enabled, _ in app.active_bindings.values() if binding.show and enabled}
        pane = app.screen.pane
        for toggle in PANE_TOGGLES:
            assert listed[f"view.{toggle.name}"] == (toggle.keys, toggle.text)
            assert (f"view.{toggle.name}" in footer) == toggle.show
            for on in (True, False):
                notes.clear()
                await pilot.press(toggle.keys.split(",")[0])
                await settle(pilot)
                assert pane.is_on(toggle.name) is on
                if toggle.attr is not None:
                    assert getattr(pane, toggle.attr) is on
                assert notes == [f"{toggle.toast}: {toggle.words[on]}"]


@pytest.mark.parametrize("toggle", DRAWN_TOGGLES, ids=[toggle.name for toggle in DRAWN_TOGGLES])
def test_a_drawn_toggle_has_its_field_in_the_render_cache_key(toggle):
    """A block that asked for the toggle keeps its state in its key (a flip draws it
    again); a block that did not has None there (a flip keeps its drawing)."""
    console = Console(width=60, file=io.StringIO(), force_terminal=True)
    out = Out(RenderCtx(console=console, palette=DEFAULT_PALETTE, toggles=frozenset({toggle.name})), 60)
    assert out.toggled(toggle.name) is True
    asked = out.result().deps
    assert asked & DEP_OF[toggle.name] and not asked & DEP_QUERY
    index = DRAWN_TOGGLES.index(toggle)
    for value in (True, False):
        values = tuple(value if t is toggle else not value for t in DRAWN_TOGGLES)
        key = StateKey("block", 60, ("look", 1), values, frozenset(), None)
        # private: how the pane refines a block's key once it knows what the drawing asked
        assert BlockScroller._refine(key, asked).toggles == tuple(
            value if i == index else None for i in range(len(DRAWN_TOGGLES)))
        assert BlockScroller._refine(key, 0).toggles == (None,) * len(DRAWN_TOGGLES)


def test_every_drawn_toggle_has_its_own_bit():
    bits = [DEP_OF[toggle.name] for toggle in DRAWN_TOGGLES]
    assert len(set(bits)) == len(bits) and all(bit & (bit - 1) == 0 and bit != DEP_QUERY for bit in bits)
