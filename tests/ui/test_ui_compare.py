"""``C``: the branches of a fork compared (pitui/ui/screens/compare.py). Snapshots in
snapshots/test_ui_compare/ at 160x45 (side by side) and 100x30 (stacked), UTC and a fixed
clock (conftest.py); regenerate with ``--snapshot-update`` and look at every changed SVG."""

from __future__ import annotations

import pytest
from textual.app import App

from helpers import FIXTURES, app_screen_text, assistant, entry, user, write
from pitui.core.read.session import Session
from pitui.ui.screens.compare import CompareList, CompareScreen, LeafPickScreen
from tools import piwriter

SHOP = FIXTURES / "compare" / "shop-discounts.jsonl"
# the last fork of the shop session: the checkout page's test written with mocks (it failed)
# and with the Flask client (it passed, then two commits)
TRIES = ("d2be939c", "66dac600")


class Host(App):
    """A bare app showing the comparison of ``leaves`` over an empty screen."""

    def __init__(self, session: Session, leaves: list[int]):
        super().__init__()
        self.session = session
        self.leaves = leaves
        self.result = "not dismissed"

    def on_mount(self) -> None:
        def done(result) -> None:
            self.result = result

        self.push_screen(CompareScreen(self.session, self.leaves), done)


def _host(ids=TRIES) -> Host:
    s = Session.open(SHOP)
    return Host(s, [s.index_of[i] for i in ids])


@pytest.mark.parametrize("size", [(160, 45), (100, 30)], ids=["160x45", "100x30"])
def test_snapshot_two_tries(snap_compare, settle, size):
    async def run_before(pilot):
        await settle(pilot)

    assert snap_compare(_host(), terminal_size=size, run_before=run_before)


def _items(lst: CompareList) -> list[str]:
    return ["".join(t for t, _ in r.pieces) for r in lst.rows if r.selectable]


async def test_side_by_side_from_120_columns_stacked_below(settle):
    app = _host()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        lists = list(app.screen.query(CompareList))
        assert len(lists) == 2 and lists[0].has_focus
        assert "◆ tests/test_checkout_page.py  +13 −0" in _items(lists[0])
        assert "◆ tests/test_checkout_page.py  +26 −0" in _items(lists[1])
        assert "✗ python -m pytest -q tests/test_checkout_page.py" in _items(lists[0])
        await pilot.press("right")
        assert lists[1].has_focus
        await pilot.press("left")
        assert lists[0].has_focus
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        lists = list(app.screen.query(CompareList))
        assert len(lists) == 1
        first = lists[0].current
        assert first is not None and first.branch == 1
        await pilot.press("right")  # (stacked: to the other branch's first item)
        assert lists[0].current.branch == 2
        assert "".join(t for t, _ in lists[0].current.pieces).startswith("› Add a test for the code form")


async def test_space_opens_an_items_whole_text_and_enter_chooses(settle):
    app = _host()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        right = list(app.screen.query(CompareList))[1]
        await pilot.press("right", "down", "down")  # the second try's last answer
        row = right.current
        assert row.key[1] == "answer"
        before = len(right.rows)
        await pilot.press("space")
        assert len(right.rows) == before + 7  # (its 8 lines: blank ones and the fence's too)
        assert right.current.key == row.key  # the cursor stays on the item
        text = app_screen_text(app)
        assert "b71e04d Checkout: discount code form and discount row" in text
        await pilot.press("space")
        assert len(right.rows) == before
        await pilot.press("enter")
        s = app.session
        assert app.result == (s.index_of["66dac600"], row.target)
        assert s.roles[row.target] == "assistant"


async def _c_on(pilot, settle, entry_id: str) -> Session:
    """The app's session with ``entry_id`` selected in the tree and C pressed."""
    await settle(pilot)
    s = pilot.app.browser.session
    assert pilot.app.browser.branch_tree.select_entry(s.index_of[entry_id])
    await settle(pilot)
    await pilot.press("C")
    await settle(pilot)
    return s


async def test_c_on_a_fork_compares_its_branches_and_enter_goes_to_the_entry(make_app, settle):
    app = make_app(SHOP)
    async with app.run_test(size=(160, 45)) as pilot:
        s = await _c_on(pilot, settle, "15024e60")
        browser = app.browser
        tree = browser.branch_tree
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        assert [s.ids[i] for i in screen.leaves] == list(TRIES)
        left = list(screen.query(CompareList))[0]
        # down to the failed command of the first try, and Enter: that entry, on that branch
        for _ in range(len(left.rows)):
            if "".join(t for t, _ in left.current.pieces).startswith("✗"):
                break
            await pilot.press("down")
        target = left.current.target
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is browser
        # (the call's message is not a row of the tree, as in Pi's: its result is selected)
        assert s.parent[tree.selected_entry] == target and s.roles[tree.selected_entry] == "toolResult"
        assert browser._pane_key == (id(s), s.index_of["d2be939c"])
        assert tree.has_focus
        # the fork of three: three columns, the third scrolled to
        assert tree.select_entry(s.index_of["30e5bd9d"])
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)
        lists = list(app.screen.query(CompareList))
        assert len(lists) == 3
        await pilot.press("right", "right")
        assert lists[2].has_focus
        await pilot.press("escape")
        assert app.screen is browser


async def test_c_elsewhere_picks_the_other_branch(make_app, settle):
    app = make_app(SHOP)
    async with app.run_test(size=(160, 45)) as pilot:
        s = await _c_on(pilot, settle, "b69c3ab9")
        browser = app.browser
        pick = app.screen
        assert isinstance(pick, LeafPickScreen)
        listed = pick.query_one(CompareList)
        # every other leaf, newest first; the session's current one says so
        assert [s.ids[r.target] for r in listed.rows] == ["8d234614", "e2235cb9", "66dac600", "d2be939c"]
        assert "  current" in [t for t, _ in listed.rows[0].pieces]
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        assert [s.ids[i] for i in app.screen.leaves] == ["b69c3ab9", "66dac600"]
        await pilot.press("q")
        assert app.screen is browser


async def test_one_branch_says_there_is_nothing_to_compare(make_app, settle, tmp_path, notes):
    f = write(tmp_path / "one.jsonl", [user("u", None, 0), assistant("a", "u", 1)])
    app = make_app(f)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)
        assert app.screen is app.browser
        assert "One branch: nothing to compare it with" in notes


async def test_hostile_text_is_shown_as_it_is_stored(settle, tmp_path):
    evil = "[bold red]x[/] \x1b[2J\x1b]0;pwned\x07 \u202etxt"
    call = piwriter.tool_call_block("c1", "bash", {"command": "rm -rf / " + evil})
    write_call = piwriter.tool_call_block("c2", "write", {"path": "[link=x]p[/link]\x1b[31m.py", "content": "a\n"})
    f = write(tmp_path / "evil.jsonl", [
        user("u", None, 0, "start"),
        user("p1", "u", 1, evil),
        assistant("a1", "p1", 2, content=[call, write_call], stopReason="toolUse"),
        entry("label", "l1", "a1", 3, targetId="a1", label=evil),
        user("p2", "u", 4, "other"),
    ])
    s = Session.open(f)
    app = Host(s, [s.index_of["l1"], s.index_of["p2"]])
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        text = app_screen_text(app)
        assert "› [bold red]x[/] ^[[2J^[]0;pwned^G \\u202etxt" in text
        assert "rm -rf / [bold red]x[/] ^[[2J" in text
        assert "[link=x]p[/link]^[[31m.py" in text
        assert "\x1b" not in text


async def test_more_branches_than_fit_scroll_sideways(settle):
    app = _host(("8d234614", "e2235cb9", "66dac600", "b69c3ab9"))  # (the first fork's four tries)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        lists = list(app.screen.query(CompareList))
        # (three fit, each 52 wide; the fourth starts past the screen's right edge)
        assert [(lst.region.x, lst.region.width) for lst in lists] == [(2, 52), (54, 52), (106, 52), (158, 52)]
        await pilot.press("right", "right", "right")  # (typed at once: each goes to the column it moved to)
        await settle(pilot)
        assert lists[3].has_focus
        assert [lst.region.x for lst in lists] == [-50, 2, 54, 106]  # (scrolled to it)
        assert lists[3].rows[1].pieces == (("2 entries after the fork · $0.0085 · 8.7s", "meta"),)


async def test_a_long_command_opens_whole(settle):
    app = _host()
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        right = list(app.screen.query(CompareList))[1]
        await pilot.press("right")
        for _ in range(len(right.rows)):
            if "".join(t for t, _ in right.current.pieces).startswith("✓ git add shop/discounts.py"):
                break
            await pilot.press("down")
        before = len(right.rows)
        await pilot.press("space")
        assert len(right.rows) == before + 2  # (its 145 characters on three lines of 73, at words)
        at = right.cursor_row
        shown = ["".join(t for t, _ in r.pieces) for r in right.rows[at:at + 3]]
        assert shown == ["✓ git add shop/discounts.py shop/checkout.py tests/test_checkout.py && git",
                         '  commit -q -m "Add discount codes to compute_totals" && git log --oneline', "  -1"]


async def test_c_on_a_row_the_tree_shows_as_a_fork(make_app, settle):
    # The session's first fork is its title (session_info), which the default filter hides:
    # the tree draws the fork at the plan above it, and C there compares those branches.
    app = make_app(SHOP)
    async with app.run_test(size=(160, 45)) as pilot:
        s = await _c_on(pilot, settle, "31b460ea")
        assert s.children_of(s.index_of["31b460ea"]) == [s.index_of["ebb82575"]]
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        assert [s.ids[i] for i in screen.leaves] == ["8d234614", "b69c3ab9"]
        assert s.ids[screen.comparison.fork] == "ebb82575"
