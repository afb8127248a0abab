"""The browser screen: composes the panels and ties the tree and the pane together. The
jobs around them are parts mixed in from this package (see ``__init__.py``)."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Input, Static

from ...core import settings as settings_file
from ...core.model.meter import context_meter
from ...core.model.summary import shown_path
from ...core.text import visible
from .. import lookahead
from ..bindings import bindings_for, key_shown
from ..messages import EntryFocused, OpenSessionFile, SessionCosts
from ..pane import MessagePane
from ..textual_internals import PaintGate
from ..widgets.branch_tree import BranchTree
from ..widgets.header import SessionHeader
from ..widgets.keybar import KeyBar
from ..widgets.sidebar import SessionList, Sidebar
from ..widgets.splitter import Splitter
from .actions import Actions
from .following import Following
from .header_stats import HeaderStats
from .listing import Listing
from .loading import Loading
from .panels import WIDE_FROM, Panels
from .take_away import TakeAway
from . import into_pi

if TYPE_CHECKING:
    from ..app import PituiApp

__all__ = ["BrowserScreen", "SearchBar"]


#: A session file bigger than this that keeps changing has its cost in the sidebar read again
#: at most once every BIG_COST_SECONDS (each time is a read of the whole file).
BIG_COST_BYTES = 32 * 1024 * 1024
BIG_COST_SECONDS = 60.0


class SearchBar(Input):
    """``/``: a one-line query for the message pane's search."""

    BINDINGS = bindings_for("search_bar")

    def action_cancel(self) -> None:
        self.value = ""
        self.screen.hide_search()  # type: ignore[attr-defined]


class RightColumn(Vertical):
    """The header and the message pane (zoomed together)."""

    ALLOW_MAXIMIZE = True


class BrowserScreen(Listing, Loading, Following, HeaderStats, Actions, TakeAway, Panels, PaintGate):
    """The main screen. Keys that act on the open session live here, so they work from
    the tree and from the pane alike (the focused sidebar takes every printable key as text
    for its filter: ``SessionList.check_consume_key``)."""

    AUTO_FOCUS = "#tree"  # (from the first frame: not the sidebar first, then the tree)

    #: Classes by the screen's size class (the panels' layout is kept per class: panels.py).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_FROM, "-wide")]

    BINDINGS = bindings_for("browser")

    #: Actions that need an open session (greyed out in the footer without one).
    SESSION_ACTIONS = frozenset({
        "cycle_filter", "sibling", "fork", "root", "leaf", "user", "toggle_thinking", "toggle_tool_output",
        "toggle_hidden", "search", "next_hit", "context", "copy_resume", "pager", "show_warnings", "stats",
        "toggle_follow", "export_markdown", "copy_entry", "copy_id", "copy_path", "resume_in_pi", "fork_in_pi", "compare",
    })

    #: Seconds without input after which what the next moves would show is drawn ahead,
    #: while the user reads (None: never): see ``ui/lookahead.py``. Stopped by the next input.
    LOOKAHEAD_SECONDS: float | None = 0.3

    def __init__(self) -> None:
        super().__init__(id="browser")
        self._init_listing()
        self._init_loading()
        self._init_following()
        self._init_header_stats()
        self._big_costs: dict[str, float] = {}  # a big file's path -> when its cost was last read
        self._pane_key: tuple[int, int] | None = None  # (id(session), leaf) shown in the pane
        self._from_pane = False  # the tree moves because the pane did: the pane stays
        self._search_origin: Any = None  # the widget focused before the search bar
        self._searching = False  # the pane has a query (SearchChanged)
        self._goto_first_hit = False  # the pane's search under way goes to its first hit when it has one
        self._pane_search_said = True  # (False: the count, or that there is no match, is yet to be told)
        self._resumed = False  # has been the screen on top
        self._lookahead_timer: Timer | None = None
        self._transcript_path: str | None = None  # opened from the pane's link, not shown yet
        # the width's class from the start (Textual sets it on the first resize, after a
        # first layout at other widths: the pane would be laid out twice)
        width = self.app.size.width
        self.add_class([name for at, name in self.HORIZONTAL_BREAKPOINTS if width >= at][-1])

    def on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed:
            # The first time on top, just mounted: each widget was styled as it was
            # mounted, and Textual would style them all again. Later resumes (after a
            # dialog) restyle as usual.
            self._resumed = True
            event.refresh_styles = False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.SESSION_ACTIONS and self.session is None:
            return None
        if action == "clear_search" and not self._searching:
            return False  # escape means nothing else here: left to whatever else binds it
        if action in ("sidebar_width", "tree_width") and self.maximized is not None:
            return None  # (zoomed: the panels are not on screen; the key still typed nowhere)
        return True

    @property
    def papp(self) -> "PituiApp":
        return self.app  # type: ignore[return-value]

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield Sidebar(clock=self.papp.clock, id="sidebar")
            yield Splitter(id="sidebar-splitter")
            yield BranchTree(id="tree")
            yield Splitter(id="tree-splitter")
            with RightColumn(id="right"):
                yield SessionHeader(id="header")
                # The notice lies over the pane (a layer of its own) rather than taking
                # turns with it: the pane keeps its size, so a session opened behind the
                # notice is laid out once, in the frame that shows it.
                with Vertical(id="pane-box"):
                    yield MessagePane(id="pane")
                    with VerticalScroll(id="notice"):
                        yield Static("", id="notice-text", markup=False)
                yield SearchBar(placeholder="search this branch (Enter: find, Esc: cancel)", id="search")
        yield KeyBar()

    @property
    def branch_tree(self) -> BranchTree:
        return self.query_one(BranchTree)

    @property
    def pane(self) -> MessagePane:
        return self.query_one("#pane", MessagePane)

    @property
    def sidebar(self) -> Sidebar:
        return self.query_one(Sidebar)

    @property
    def session_list(self) -> SessionList:
        return self.query_one(SessionList)

    @property
    def header(self) -> SessionHeader:
        return self.query_one(SessionHeader)

    @property
    def search_bar(self) -> SearchBar:
        return self.query_one(SearchBar)

    def on_mount(self) -> None:
        # The tree calls the selection handler at once (no message round trip): the pane
        # is drawn in the same frame as the tree, from the first session shown on.
        self.branch_tree.selection_hook = self.on_branch_tree_selection_changed
        self._init_panels()  # (before the first frame: the panels are laid out once)
        self.session_list.show_costs = self.papp.settings.sidebar_costs
        self.reload()
        self.set_interval(self.WATCH_SECONDS, self._watch_tick)
        self.set_interval(self.RELIST_SECONDS, self._relist_tick)

    def reload(self) -> None:
        """(Re)start on the app's root: list its sessions and open the newest."""
        app = self.papp
        root = app.root
        self.session = None
        self.session_path = None
        self.error = None
        self._pane_key = None
        self.branch_tree.clear()
        self.session_list.open_path = None
        self.session_list.costs = None  # (another root's: asked for again once it is listed)
        self.session_list.set_infos([])
        self.session_list.loose_label = shown_path(root.path) if root.kind == "flat" else "(no project folder)"
        self.sidebar.border_title = "Sessions · demo" if app.demo else "Sessions"
        self.sidebar.border_subtitle = Content(shown_path(root.path))  # (a str would be read as markup)
        self._update_tree_title()
        self.query_one("#right").border_title = "Messages"
        self.show_notice("Reading sessions…", f"in {shown_path(root.path)} ({root.source})")
        self.header.show_message("pitui", f"{shown_path(root.path)} ({root.source})")
        self.branch_tree.placeholder = "reading sessions…"
        self.focus_tree()
        want = app.select_path
        if want is not None and (os.path.isfile(want) or (app.live is not None and want == app.live.path)):
            # A session named on the command line opens at once; the sidebar's listing
            # waits until it is on screen (or failed to open).
            self._listing_deferred = True
            if not self._resumed:
                self._hold()
            self.open_session(want)
        else:
            self.start_listing()

    # ------------------------------------------------------------------ drawing ahead
    def schedule_lookahead(self) -> None:
        """Draw ahead once there has been no input for LOOKAHEAD_SECONDS (the app calls
        this on every input)."""
        if self.LOOKAHEAD_SECONDS is not None and self._lookahead_timer is None:
            self._lookahead_timer = self.set_timer(self.LOOKAHEAD_SECONDS, self._look_ahead)

    def _look_ahead(self) -> None:
        self._lookahead_timer = None
        quiet = self.LOOKAHEAD_SECONDS or 0.0
        since = getattr(self.app, "last_input_at", 0.0)
        wait = quiet - (time.monotonic() - since)
        if wait > 0.005:
            self._lookahead_timer = self.set_timer(wait, self._look_ahead)
            return
        lookahead.look_ahead(self, since)

    # ------------------------------------------------------------------ tree <-> pane
    def _forget_branch(self) -> None:
        """The session changed: the pane's branch and the numbers are worked out again,
        and the leaf the header counted is forgotten (an entry number of the session before:
        a file read again may have fewer entries, or none)."""
        self._pane_key = None
        self._branch_leaf = -1
        self._forget_stats()

    def _tree_changed(self, layout, keep: int, *, follow: bool = False) -> None:
        """The open session's tree changed (it grew, or a damaged line left it): show
        ``layout`` keeping ``keep`` selected (or, following, the newest leaf), and the
        branch and header worked out again."""
        self._forget_branch()
        self.branch_tree.session_grew(layout, keep, follow=follow)
        self.header.show_problems(self.session.path, self.session.all_warnings, grew=True)
        self._show_branch_for(self.branch_tree.selected_entry, force_header=True)

    def _update_tree_title(self) -> None:
        tree = self.branch_tree
        title = f"Tree · {tree.mode}" + (" · following" if self.following else "")
        if tree.tree_layout is not None and tree.tree_layout.rows:
            subtitle = f"{tree.cursor_row + 1}/{tree.row_count}"
        else:
            subtitle = ""
        # (setting the title repaints the whole tree, even to the same text; the
        # subtitle, which changes with every move, only its line: set_subtitle)
        if tree.border_title != title:
            tree.border_title = title
        tree.set_subtitle(subtitle)

    def on_branch_tree_layout_changed(self, event: BranchTree.LayoutChanged) -> None:
        self._update_tree_title()

    def on_branch_tree_selection_changed(self, event: BranchTree.SelectionChanged) -> None:
        self._update_tree_title()
        if self.session is not None:
            self.header.set_context(context_meter(self.session, event.entry))
        if self.following and event.entry >= 0 and event.entry != self._follow_entry():
            self.following = False
            self._update_tree_title()
            self.notify("Follow off (you moved the selection; F follows again)", timeout=2)
        if self._from_pane:
            return
        self._show_branch_for(event.entry)

    def _show_branch_for(self, sel: int, force_header: bool = False) -> None:
        s = self.session
        tree = self.branch_tree
        if s is not None and sel < 0 and len(s) == 0:
            # a session of its header only (perhaps cut back to it): nothing of the branch
            # shown before may stay in the pane
            if self._pane_key != (id(s), -1):
                self._pane_key = (id(s), -1)
                self.pane.show_branch(s, [], -1)
            return
        if s is None or sel < 0 or tree.nav is None:
            return
        leaf = tree.nav.leaf_below(sel)
        tree.nav.sticky_leaf = leaf
        key = (id(s), leaf)
        pane = self.pane
        if key == self._pane_key:
            pane.scroll_to_entry(sel)
        else:
            self._pane_key = key
            pane.show_leaf(s, leaf, sel)  # walks only up to the branch shown now, copies once
        if leaf != self._branch_leaf or force_header:
            self._branch_leaf = leaf
            self._update_header()
            self._schedule_stats()

    def on_message_pane_entry_focused(self, event: EntryFocused) -> None:
        """The pane scrolled so another entry is at its top: follow it in the tree."""
        tree = self.branch_tree
        if self.session is None or tree.tree_layout is None:
            return
        entry = event.entry
        if entry is None or entry < 0:
            return
        pane = self.pane
        # Follow only the user's own scrolling (not the echo of our scroll_to_entry, nor
        # a branch end that cannot reach the top), and not within the selected block.
        if not (pane.has_focus or pane.mouse_hover):
            return
        sel = tree.selected_entry
        if sel >= 0 and pane.block_of(sel) is not None and pane.block_of(sel) == pane.block_of(entry):
            return
        row = tree.tree_layout.nearest_row(self.session, entry)
        self._from_pane = True
        try:
            tree.move_to_row(row, center=None)
        finally:
            self._from_pane = False

    def on_message_pane_open_session_file(self, event: OpenSessionFile) -> None:
        """A subagent's full transcript: open it (Backspace comes back, as the screen says
        once it shows: :meth:`say_how_back`)."""
        event.stop()
        self._transcript_path = event.path if event.path != self.session_path else None
        self.open_session(event.path)

    def say_how_back(self, path: str) -> None:
        """A session is shown: when it is a transcript opened from the pane, the pane's
        title says which key goes back (while it stays), and a toast says it once."""
        linked = path == self._transcript_path and bool(self._history)
        self._transcript_path = None
        right = self.query_one("#right")
        key = key_shown(self.app, "session.back")
        title = f"Messages · {key} back" if linked else "Messages"
        if right.border_title != title:
            right.border_title = title
        if linked:
            self.notify(f"A subagent's transcript: {key} goes back to the session that ran it", timeout=5)

    def on_session_list_leave_requested(self, event: SessionList.LeaveRequested) -> None:
        event.stop()
        if self.sidebar_in_tree_place:
            self.focus_tree()  # (Escape in the sessions shown in the tree's place: the tree again)

    def on_session_list_open_requested(self, event: SessionList.OpenRequested) -> None:
        event.stop()
        self.open_session(event.path)
        self.focus_tree()

    def on_session_list_costs_wanted(self, event: SessionList.CostsWanted) -> None:
        """The sidebar's costs: every session's from the usage index, or those of the files
        that changed since, each read again (on a worker). The open session's comes with
        its header's figures (:meth:`on_stats_ready`); a big file is read again at most
        once every :data:`BIG_COST_SECONDS`."""
        event.stop()
        app = self.papp
        root, cache_dir, paths = app.root, app.index.dir, event.paths
        if paths is not None:
            now = time.monotonic()
            paths = [p for p in paths if p != self.session_path and now - self._big_costs.get(p, -1e9) >= BIG_COST_SECONDS]

        def work() -> None:
            from ...core.store.usage import file_spent, load_usage

            if paths is None:
                usage = load_usage(root, cache_dir=cache_dir)
                self.post_message(SessionCosts({f.path: f.session_cost for f in usage.files}))
                return
            costs = {}
            for path in paths:
                try:
                    if os.path.getsize(path) > BIG_COST_BYTES:
                        self._big_costs[path] = time.monotonic()
                    costs[path] = file_spent(path)[1]
                except OSError:
                    continue
            self.post_message(SessionCosts(costs, partial=True))

        if paths is None or paths:
            self.run_worker(work, thread=True, group="session-costs", exclusive=paths is None, exit_on_error=False)

    def on_session_costs(self, message: SessionCosts) -> None:
        self.session_list.set_costs(message.costs, partial=message.partial)

    def on_session_list_costs_toggled(self, event: SessionList.CostsToggled) -> None:
        """Ctrl+D: the choice kept in settings.json."""
        event.stop()
        from dataclasses import replace

        whole = replace(self.papp.settings, sidebar_costs=event.shown)
        self.papp.settings = whole
        if settings_file.save(whole):
            self._settings_saved = whole

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.search_pane(event.value.strip())

    # ------------------------------------------------------------------ the notice over the pane
    def show_notice(self, title: str, body: str = "") -> None:
        """The notice over the pane: its text as it is (no markup), controls as stand-ins."""
        title = visible(title)
        self.query_one("#notice-text", Static).update(f"{title}\n\n{visible(body, block=True)}" if body else title)
        self._cover_pane(True)

    def _cover_pane(self, cover: bool) -> None:
        """Show the notice over the pane (which cannot be focused under it), or take it away."""
        pane = self.pane
        if cover and pane.has_focus:
            self.focus_tree()
        pane.can_focus = not cover
        self.query_one("#notice").display = cover

    # ------------------------------------------------------------------ back into Pi (into_pi.py)
    def action_resume_in_pi(self) -> None:
        into_pi.resume_in_pi(self)

    def action_fork_in_pi(self) -> None:
        into_pi.fork_in_pi(self)

    def reopen_after_pi(self, path: str) -> None:
        """Pi, resumed here, exited: the session read again (Pi wrote to it), its newest
        entry selected, and the sidebar listed again."""
        if path == self.session_path:
            self.open_session(path, remember=False, force=True)
        self.relist_after_pi()

    def relist_after_pi(self) -> None:
        """The sidebar listed again now (Pi may have written a session), not at the next tick."""
        self._relist_tick()
