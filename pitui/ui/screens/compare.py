"""``C``: which try was better. The branches of a fork side by side (stacked when the
terminal is narrower than :data:`SIDE_BY_SIDE_FROM`), each summed up from the entry after
the fork to its leaf by ``core/model/compare.py`` (on a worker): prompts, last answer, tool
calls by kind, files read and modified, shell commands, tokens, cost, duration, stop reason,
labels and the summary Pi wrote when the branch was left. Files more than one branch touched
stand out. Enter on an item closes the screen on that entry of that branch; space opens or
closes an item's whole text.

On a fork, ``C`` compares its branches; on any other entry, the branch through it with one
the user picks from the session's other leaves (:class:`LeafPickScreen`; with only one other
leaf, that one). Session text is shown as it is stored, every control character a visible
stand-in (``core.text.visible``), drawn as segments: never read as markup.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rich.segment import Segment
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.containers import HorizontalScroll, Vertical
from textual.geometry import Offset
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static
from textual.worker import get_current_worker

from ...core.export.compare import calls_text, entries_text, fork_text, tokens_text
from ...core.model.compare import BranchFacts, Comparison, compare_branches, leaves, shared_paths
from ...core.model.summary import one_line, summarize
from ...core.numbers import fmt_cost, fmt_duration
from ...core.read.session import Session
from ...core.text import visible
from ..bindings import bindings_for, key_shown
from ..text_fit import cell_len
from ..messages import ComparisonFailed, ComparisonWorkedOut
from ..widgets.line_list import LineList, nearest_selectable

__all__ = ["CompareScreen", "CompareList", "LeafPickScreen", "open_compare", "go_to_entry", "SIDE_BY_SIDE_FROM"]

#: from this many columns the branches are side by side; below, one above the other
SIDE_BY_SIDE_FROM = 120
#: side by side, a branch's column is at least this wide (more branches than fit scroll sideways)
COLUMN_MIN = 52
#: the mark beside a file more than one branch touched
SHARED = "◆"
#: an item's whole text, opened: at most this many lines of it
OPEN_LINES = 200
#: an item's entry the tree does not show: how far down its branch a shown one is looked for
_LOOK_AFTER = 64


class _Row(NamedTuple):
    """One line of a list: pieces of safe text, each with its component class; the entry
    Enter goes to (-1: not an item) on the branch ending at ``leaf``; an item whose whole
    text space opens has its ``key`` and that ``text``."""

    pieces: tuple[tuple[str, str], ...]
    target: int = -1
    leaf: int = -1
    key: tuple | None = None
    text: str | None = None
    branch: int = 0  # its branch's number (from 1; 0: between branches)

    @property
    def selectable(self) -> bool:
        return self.target >= 0


def _line(*pieces: tuple[str, str], **kw: Any) -> _Row:
    return _Row(tuple(pieces), **kw)


def _wrapped(text: str, width: int, console) -> list[str]:
    """``text``'s lines, each safe to show and wrapped to ``width`` cells, at most
    :data:`OPEN_LINES` of them."""
    out: list[str] = []
    for raw in text.replace("\t", "    ").split("\n"):
        safe = visible(raw)
        if not safe:
            out.append("")
        else:
            out += [line.plain.rstrip() for line in Text(safe).wrap(console, max(8, width))]
        if len(out) >= OPEN_LINES:
            return out[:OPEN_LINES] + ["…"]
    return out


def _packed(facts: list[str], width: int) -> list[str]:
    """``facts`` joined by `` · `` on as few lines of ``width`` cells as hold them whole."""
    lines: list[str] = []
    for fact in facts:
        if lines and cell_len(lines[-1]) + 3 + cell_len(fact) <= width:
            lines[-1] += " · " + fact
        else:
            lines.append(fact)
    return lines


def branch_rows(session: Session, number: int, branch: BranchFacts, shared: set[str], opened: set[tuple],
                width: int, console) -> list[_Row]:
    """The rows of branch ``number`` (from 1): its heading and figures, then each section's
    items; an item in ``opened`` shown whole, wrapped to ``width``."""
    leaf = branch.leaf
    rows: list[_Row] = []
    title = [(f"Branch {number} · {visible(session.ids[leaf])}", "title")]
    if branch.current:
        title.append(("  current", "current"))
    rows.append(_line(*title))
    usage = branch.usage
    figures = [entries_text(branch), fmt_cost(usage.cost, zero="$0"), fmt_duration(branch.duration_ms, fine=True) or "no time",
               f"stop: {visible(branch.stop_reason)}" if branch.stop_reason else "no stop reason"]
    rows += [_line((line, "meta")) for line in _packed(figures, width)]
    rows += [_line((line, "meta")) for line in _packed(tokens_text(usage).split(" · "), width)]

    def section(name: str, items: list[_Row]) -> None:
        rows.append(_line(("", "meta")))
        rows.append(_line((name, "section")))
        rows.extend(items or [_line(("  none", "none"))])

    def text_item(kind: str, entry: int, text: str, mark: tuple[str, str] = ("  ", "meta")) -> list[_Row]:
        """An item of one line (``mark``, then ``text`` on one line), or, opened, of
        ``text``'s lines wrapped."""
        key = (number, kind, entry)
        if key not in opened:
            return [_line(mark, (one_line(text, 400), "text"), target=entry, leaf=leaf, key=key, text=text)]
        lines = _wrapped(text, width - 2, console)
        first = _line(mark, (lines[0] if lines else "", "text"), target=entry, leaf=leaf, key=key, text=text)
        return [first] + [_line(("  ", "meta"), (line, "text")) for line in lines[1:]]

    if branch.labels:
        section("Labels", [_line(("  ", "meta"), (one_line(label, 200), "label"), target=index, leaf=leaf)
                           for index, label in branch.labels])
    section(f"Prompts ({len(branch.prompts)})",
            [row for index, text in branch.prompts for row in text_item("prompt", index, text, ("› ", "meta"))])
    section("Last answer", text_item("answer", *branch.answer) if branch.answer else [])
    kind_w = max((cell_len(visible(kind)) for kind in branch.tools), default=0)
    section("Tool calls", [_line(("  ", "meta"), (visible(kind).ljust(kind_w), "kind"),
                                 ("  " + calls_text(stats), "error" if stats.errors else "meta"),
                                 target=branch.kind_first.get(kind, -1), leaf=leaf) for kind, stats in branch.tools.items()])

    def path(touched) -> tuple[tuple[str, str], ...]:
        if touched.path in shared:
            return ((f"{SHARED} ", "shared"), (visible(touched.path), "shared"))
        return (("  ", "meta"), (visible(touched.path), "path"))

    section("Files read", [_line(*path(touched), target=touched.first, leaf=leaf) for touched in branch.read])
    section("Files modified", [_line(*path(touched), (f"  +{touched.added}", "added"), (f" −{touched.removed}", "removed"),
                                     target=touched.first_change, leaf=leaf) for touched in branch.modified])
    section(f"Commands ({len(branch.commands)})",
            [row for command in branch.commands
             for row in text_item("command", command.entry, command.command, ("✗ ", "error") if command.failed else ("✓ ", "ok"))])
    section("Summary written when it was left", text_item("summary", *branch.summary) if branch.summary else [])
    return [row._replace(branch=number) for row in rows]


class CompareList(LineList):
    """One branch's rows (or every branch's, one above the other), the cursor on its items."""

    COMPONENT_CLASSES = {
        "compare-list--cursor", "compare-list--cursor-blurred", "compare-list--title", "compare-list--current",
        "compare-list--meta", "compare-list--section", "compare-list--none", "compare-list--text",
        "compare-list--kind", "compare-list--path", "compare-list--shared", "compare-list--added",
        "compare-list--removed", "compare-list--ok", "compare-list--error", "compare-list--label",
    }
    CURSOR_CLASSES = ("compare-list--cursor", "compare-list--cursor-blurred")
    LINES_ABOVE_CURSOR = 1  # (the section's name above its first item)

    DEFAULT_CSS = """
    CompareList { background: $surface; overflow-x: hidden; scrollbar-size-vertical: 1; height: 1fr; }
    CompareList > .compare-list--cursor { background: $block-cursor-background; }
    CompareList > .compare-list--cursor-blurred { background: $block-cursor-blurred-background; }
    CompareList > .compare-list--title { color: $text; text-style: bold; }
    CompareList > .compare-list--current { color: $text-success; text-style: bold; }
    CompareList > .compare-list--meta { color: $text-muted; }
    CompareList > .compare-list--section { color: $text-accent; text-style: bold; }
    CompareList > .compare-list--none { color: $text-muted; text-style: italic; }
    CompareList > .compare-list--text { color: $text; }
    CompareList > .compare-list--kind { color: $text-accent; }
    CompareList > .compare-list--path { color: $text; }
    CompareList > .compare-list--shared { color: $text-warning; text-style: bold; }
    CompareList > .compare-list--added { color: $text-success; }
    CompareList > .compare-list--removed { color: $text-error; }
    CompareList > .compare-list--ok { color: $text-success; }
    CompareList > .compare-list--error { color: $text-error; }
    CompareList > .compare-list--label { color: $text-warning; }
    """

    BINDINGS = bindings_for("compare_list")

    class Chosen(Message):
        """Enter or a click on an item: ``entry`` on the branch ending at ``leaf``."""

        def __init__(self, leaf: int, entry: int) -> None:
            super().__init__()
            self.leaf = leaf
            self.entry = entry

    class OpenToggled(Message):
        """Space on an item: its whole text opened or closed (``key``)."""

        def __init__(self, key: tuple) -> None:
            super().__init__()
            self.key = key

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.rows: list[_Row] = []
        self.cursor_row = -1

    def set_rows(self, rows: list[_Row], keep: tuple | None = None) -> None:
        """Show ``rows``; the cursor on the item whose key or target is ``keep`` (its
        ``(key, target)``), else on the first item."""
        self.rows = rows
        at = -1
        if keep is not None:
            at = next((index for index, row in enumerate(rows) if row.selectable and (row.key, row.target) == keep), -1)
        if at < 0:
            at = next((index for index, row in enumerate(rows) if row.selectable), -1)
        self.cursor_row = at
        self._update_virtual_size()
        if at >= 0:
            self._scroll_to_cursor()
        self.refresh()

    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def current(self) -> _Row | None:
        return self.rows[self.cursor_row] if 0 <= self.cursor_row < len(self.rows) else None

    def _cursor_target(self, row: int, direction: int) -> int | None:
        """``row`` kept within the rows, on to the next item in ``direction`` (else back to
        the nearest one before it)."""
        target = super()._cursor_target(row, direction)
        return None if target is None else nearest_selectable(self.rows, target, direction)

    def to_branch(self, step: int) -> None:
        """The cursor to the first item of the next (``step`` 1) or previous branch."""
        row = self.current
        if row is None:
            return
        want = row.branch + step
        at = next((index for index, row in enumerate(self.rows) if row.branch == want and row.selectable), None)
        if at is not None:
            self._put_cursor(at)

    def _row_line(self, row: int, sub: int, width: int) -> list[Segment]:
        return [Segment(text, self._style("compare-list--" + name)) for text, name in self.rows[row].pieces]

    def _row_clicked(self, row: int, at: Offset, event: events.Click) -> None:
        if self.rows[row].selectable:
            self._put_cursor(row)
            self.action_choose()

    def action_choose(self) -> None:
        row = self.current
        if row is not None and row.selectable:
            self.post_message(self.Chosen(row.leaf, row.target))

    def action_open(self) -> None:
        row = self.current
        if row is not None and row.key is not None and row.text is not None:
            if cell_len(one_line(row.text, 400)) > self.scrollable_content_region.width - 2 or "\n" in row.text.strip():
                self.post_message(self.OpenToggled(row.key))


class CompareScreen(ModalScreen):
    """The comparison of the branches ending at ``leaves``; dismissed with ``(leaf, entry)``
    when an item is chosen, else None."""

    BINDINGS = bindings_for("compare")

    DEFAULT_CSS = """
    CompareScreen { align: center middle; }
    CompareScreen > #compare-box {
        width: 100%; height: 100%; border: round $primary; border-title-color: $text; border-title-style: bold;
        border-subtitle-color: $text-muted; background: $surface; padding: 0 1;
    }
    CompareScreen #compare-fork { height: auto; color: $text-muted; }
    CompareScreen #compare-status { height: auto; color: $text-muted; padding: 1 0; }
    CompareScreen #compare-columns { height: 1fr; }
    CompareScreen #compare-columns > CompareList { width: 1fr; border: round $panel; }
    CompareScreen #compare-columns > CompareList:focus { border: heavy $accent; }
    """

    def __init__(self, session: Session, leaves: list[int], *, id: str | None = None):
        super().__init__(id=id)
        self.session = session
        self.leaves = leaves
        self.comparison: Comparison | None = None
        self.opened: set[tuple] = set()
        self._wide: bool | None = None

    def compose(self) -> ComposeResult:
        box = Vertical(id="compare-box")
        box.border_title = f"Branches compared ({len(self.leaves)})"
        app = self.app
        box.border_subtitle = (f"{key_shown(app, 'compare_list.choose')} go to · {key_shown(app, 'compare_list.open')} "
                               f"open · {key_shown(app, 'compare.next_column')} {key_shown(app, 'compare.prev_column')} "
                               f"branch · {key_shown(app, 'compare.close')} close")
        with box:
            yield Static("", id="compare-fork", markup=False)
            yield Static("computing…", id="compare-status", markup=False)
            yield HorizontalScroll(id="compare-columns")

    def on_mount(self) -> None:
        self._compute(self.session, self.leaves)

    @work(thread=True, exclusive=True, group="compare-screen", exit_on_error=False)
    def _compute(self, session: Session, leaves: list[int]) -> None:
        worker = get_current_worker()
        try:
            comparison = compare_branches(session, leaves)
        except Exception as exc:  # noqa: BLE001 - shown to the user, never fatal
            if not worker.is_cancelled:
                self.post_message(ComparisonFailed(f"{type(exc).__name__}: {exc}"))
            return
        if not worker.is_cancelled:
            self.post_message(ComparisonWorkedOut(comparison))

    def on_comparison_failed(self, message: ComparisonFailed) -> None:
        self.query_one("#compare-status", Static).update(f"Could not compare the branches: {visible(message.reason)}")

    async def on_comparison_worked_out(self, message: ComparisonWorkedOut) -> None:
        self.comparison = message.comparison
        self.query_one("#compare-status").display = False
        shared = shared_paths(self.comparison)
        note = f"fork: {fork_text(self.session, self.comparison)} · counted after it"
        if shared:
            note += f" · {SHARED} touched by " + ("both" if len(self.leaves) == 2 else "more than one")
        self.query_one("#compare-fork", Static).update(note)
        await self._lay_out(force=True)

    # ------------------------------------------------------------------ the columns
    @property
    def lists(self) -> list[CompareList]:
        return list(self.query(CompareList))

    async def _lay_out(self, force: bool = False) -> None:
        """The lists: one per branch side by side, or one for all (stacked) when narrow."""
        wide = self.app.size.width >= SIDE_BY_SIDE_FROM
        if self.comparison is None or (wide == self._wide and not force):
            return
        self._wide = wide
        columns = self.query_one("#compare-columns", HorizontalScroll)
        columns.set_class(not wide, "-stacked")
        had = self.lists
        focused = next((index for index, lst in enumerate(had) if lst.has_focus), 0)
        count = len(self.comparison.branches) if wide else 1
        if len(had) != count:
            await columns.remove_children()
            had = [CompareList() for _ in range(count)]
            await columns.mount_all(had)
        self._size_columns()
        self.call_after_refresh(self._fill)
        had[min(focused, count - 1)].focus()

    def _size_columns(self) -> None:
        """Side by side, the columns share the width, each at least :data:`COLUMN_MIN`
        wide: as many as fit are on screen, the rest scrolled to."""
        lists = self.lists
        if len(lists) < 2:
            for lst in lists:
                lst.styles.width = "1fr"
            return
        room = self.app.size.width - 4  # (the box's border and padding)
        shown = max(1, min(len(lists), room // COLUMN_MIN))
        for lst in lists:
            lst.styles.width = room // shown

    def _fill(self, keep: dict[int, tuple] | None = None) -> None:
        """Each list's rows, worked out for its width."""
        comparison = self.comparison
        if comparison is None:
            return
        shared = shared_paths(comparison)
        console = self.app.console
        lists = self.lists
        for index, lst in enumerate(lists):
            width = lst.scrollable_content_region.width or 40
            if len(lists) == 1:
                rows: list[_Row] = []
                for number, branch in enumerate(comparison.branches, 1):
                    if number > 1:
                        rows += [_line(("", "meta")), _line(("─" * (width - 1), "meta"))]
                    rows += branch_rows(self.session, number, branch, shared, self.opened, width, console)
            else:
                rows = branch_rows(self.session, index + 1, comparison.branches[index], shared, self.opened, width, console)
            lst.set_rows(rows, (keep or {}).get(index))

    async def on_resize(self, event: events.Resize) -> None:
        if self._wide is not None and (self.app.size.width >= SIDE_BY_SIDE_FROM) != self._wide:
            await self._lay_out()
        elif self.comparison is not None:
            self._size_columns()
            self.call_after_refresh(self._fill, self._kept())

    def _kept(self) -> dict[int, tuple]:
        out = {}
        for index, lst in enumerate(self.lists):
            row = lst.current
            if row is not None:
                out[index] = (row.key, row.target)
        return out

    def on_compare_list_open_toggled(self, message: CompareList.OpenToggled) -> None:
        message.stop()
        self.opened ^= {message.key}
        self._fill(self._kept())

    def on_compare_list_chosen(self, message: CompareList.Chosen) -> None:
        message.stop()
        self.workers.cancel_group(self, "compare-screen")
        self.dismiss((message.leaf, message.entry))

    def action_column(self, step: int) -> None:
        """The next (``step`` 1) or previous branch: its column, or, stacked, its first item."""
        lists = self.lists
        if len(lists) == 1:
            lists[0].to_branch(step)
            return
        if not lists:
            return
        at = next((index for index, lst in enumerate(lists) if lst.has_focus), 0)
        target = lists[(at + step) % len(lists)]
        self.set_focus(target)  # (at once: a key typed right after goes to it)
        target.scroll_visible(animate=False)

    def action_close(self) -> None:
        self.workers.cancel_group(self, "compare-screen")
        self.dismiss(None)


class LeafPickScreen(ModalScreen):
    """The branch to compare the selection's with: every other leaf of the session, newest
    first, each with what its last entry says; dismissed with the leaf chosen, else None."""

    BINDINGS = bindings_for("compare_pick")

    DEFAULT_CSS = """
    LeafPickScreen { align: center middle; }
    LeafPickScreen > #pick-box {
        width: 90%; max-width: 110; height: 70%; border: round $primary; border-title-color: $text;
        border-title-style: bold; border-subtitle-color: $text-muted; background: $surface; padding: 0 1;
    }
    LeafPickScreen #pick-note { height: auto; color: $text-muted; }
    """

    def __init__(self, session: Session, mine: int, others: list[int]):
        super().__init__()
        self.session = session
        self.mine = mine
        self.others = others

    def compose(self) -> ComposeResult:
        session = self.session
        box = Vertical(id="pick-box")
        box.border_title = "Compare with which branch?"
        box.border_subtitle = (f"{key_shown(self.app, 'compare_list.choose')} compare · "
                               f"{key_shown(self.app, 'compare_pick.close')} cancel")
        with box:
            yield Static(f"this branch ends at {visible(session.ids[self.mine])}; the others, newest first:",
                         id="pick-note", markup=False)
            yield CompareList(id="pick-list")

    def on_mount(self) -> None:
        session = self.session
        rows = []
        for leaf in self.others:
            pieces = [(visible(session.ids[leaf]), "kind"), ("  " + one_line(summarize(session, leaf).line, 300), "text")]
            if leaf == session.leaf:
                pieces.insert(1, ("  current", "current"))
            rows.append(_line(*pieces, target=leaf, leaf=leaf))
        lst = self.query_one(CompareList)
        lst.set_rows(rows)
        lst.focus()

    def on_compare_list_chosen(self, message: CompareList.Chosen) -> None:
        message.stop()
        self.dismiss(message.leaf)

    def on_compare_list_open_toggled(self, message: CompareList.OpenToggled) -> None:
        message.stop()

    def action_close(self) -> None:
        self.dismiss(None)


# ---------------------------------------------------------------------------- from the browser


def open_compare(browser: Any, session: Session, selected: int) -> None:
    """``C`` on ``selected``: its branches when it is a fork (as the tree shows it: a row
    whose entry the filter hides is no fork of its own, its children hang from the row
    above), else its branch and another."""
    tree = browser.branch_tree
    shown = tree.tree_layout.visible_children.get(selected, ()) if tree.tree_layout is not None else ()
    kids = shown if len(shown) >= 2 else session.children_of(selected)

    def chosen(result) -> None:
        if result is not None:
            go_to_entry(browser, session, *result)

    if len(kids) >= 2:
        browser.app.push_screen(CompareScreen(session, [session.newest_leaf_below(child) for child in kids]), chosen)
        return
    mine = tree.nav.leaf_below(selected) if tree.nav is not None else session.newest_leaf_below(selected)
    others = [leaf for leaf in leaves(session) if leaf != mine]
    if not others:
        browser.notify("One branch: nothing to compare it with", timeout=2)
        return
    if len(others) == 1:
        browser.app.push_screen(CompareScreen(session, [mine, others[0]]), chosen)
        return

    def picked(leaf) -> None:
        if leaf is not None:
            browser.app.push_screen(CompareScreen(session, [mine, leaf]), chosen)

    browser.app.push_screen(LeafPickScreen(session, mine, others), picked)


def go_to_entry(browser: Any, session: Session, leaf: int, entry: int) -> None:
    """``entry`` selected in the tree, the pane on the branch ending at ``leaf``."""
    if browser.session is not session:
        return  # (another session was opened meanwhile)
    tree = browser.branch_tree
    if tree.nav is None or tree.tree_layout is None:
        return
    tree.nav.sticky_leaf = leaf
    # An entry the tree's filter hides (a message of tool calls only, as Pi's tree hides
    # it): the first one shown after it on the branch (its result), else the one before.
    shown = tree.tree_layout.visible_parent
    path = session.path_to(leaf)
    try:
        at = path.index(entry)
    except ValueError:  # (not on the branch: the session changed under the screen)
        at = -1
    target = next((node for node in path[at:at + _LOOK_AFTER] if node in shown), None) if at >= 0 else None
    if target is None or not tree.select_entry(target):
        tree.move_to_row(tree.tree_layout.nearest_row(session, entry))
    browser.focus_tree()
