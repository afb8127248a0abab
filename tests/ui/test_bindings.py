"""One table of bindings (pitui.ui.bindings): every widget's keys, the help screen and the
command palette come from it."""

import pytest

from pitui.ui.app import PituiApp
from pitui.ui.browser.screen import BrowserScreen, SearchBar
from pitui.ui.screens.empty import EmptyScreen
from pitui.ui.screens.export import ExportScreen
from pitui.ui.bindings import KEYS, SECTIONS
from pitui.ui.widgets.header import WarningsScreen
from pitui.ui.screens.help import HelpScreen, help_sections
from pitui.ui.screens.context import ContextScreen, ContextView
from pitui.ui.pane.scroller import BlockScroller
from pitui.ui.screens.search import SearchResults, SearchScreen
from pitui.ui.widgets.sidebar import SessionList
from pitui.ui.screens.stats import StatsScreen
from pitui.ui.screens.board import BoardScreen
from pitui.ui.screens.usage import UsageScreen
from pitui.ui.widgets.branch_tree import BranchTree
from pitui.ui.screens.compare import CompareList, CompareScreen, LeafPickScreen

TARGETS = {"app": PituiApp, "browser": BrowserScreen, "tree": BranchTree, "sidebar": SessionList,
           "pane": BlockScroller, "search_bar": SearchBar, "export": ExportScreen, "empty": EmptyScreen,
           "help": HelpScreen, "warnings": WarningsScreen, "stats": StatsScreen, "context": ContextScreen,
           "context_view": ContextView, "search_all": SearchScreen, "search_results": SearchResults,
           "usage": UsageScreen, "compare": CompareScreen, "compare_pick": LeafPickScreen,
           "compare_list": CompareList, "board": BoardScreen}


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_each_widget_has_exactly_its_rows_of_the_table(target):
    own = [b for b in TARGETS[target].BINDINGS]
    assert [b.id for b in own] == [k.id for k in KEYS if k.target == target]
    for b in own:
        k = next(k for k in KEYS if k.id == b.id)
        assert (b.key, b.action, b.description, b.show, b.tooltip) == (k.keys, k.action, k.label, k.show, k.text)


def test_every_target_in_the_table_is_a_widget():
    assert {k.target for k in KEYS} == set(TARGETS)


async def test_help_lists_every_row_with_a_section_under_it_remapped(tmp_path, monkeypatch):
    from pitui.core.store.discovery import SessionRoot

    monkeypatch.setenv("PITUI_KEYMAP", "nav.next_sibling=l")
    app = PituiApp(SessionRoot(tmp_path, "dir", "test"))
    async with app.run_test():
        sections = help_sections(app)
        assert [t for t, _ in sections] == list(SECTIONS)
        listed = {bid: keys for _, rows in sections for keys, _, bid in rows if bid}
        assert set(listed) == {k.id for k in KEYS if k.section}
        assert listed["nav.next_sibling"] == "l"
