"""The browser screen: composes the panels and ties the tree and the pane together.

State lives where it is shown: the sidebar lists the sessions (``widgets/sidebar.py``),
the header counts the branch it is given (``widgets/header.py``), the tree moves itself
(``widgets/branch_tree.py``) and the pane holds its toggles (``pane/``). The screen owns
five plain helpers: the opener (``opener.py``), the file follower (``follower.py``), the
first paint (``ui/first_paint.py``), the panels' layout (``panels.py``) and the search in
the pane (``pane_search.py``); the keys that
take something out of the app are functions (``copy_export.py``, ``into_pi.py``).
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Input, Static

from ...core.model.meter import context_meter
from ...core.model.summary import shown_path
from ...core.text import visible
from .. import lookahead
from ..bindings import bindings_for, key_shown, session_actions
from ..first_paint import FirstPaint
from ..messages import EntryFocused, OpenFailed, OpenProgress, OpenSessionFile, Refreshed, SearchChanged, \
    SessionRead, Validated
from ..pane import MessagePane
from ..textual_internals import PaintGate
from ..widgets.branch_tree import BranchTree
from ..widgets.header import SessionHeader, ShownBranch, WarningsBadge
from ..widgets.keybar import KeyBar
from ..widgets.sidebar import SessionList, Sidebar
from ..widgets.splitter import Splitter
# (copy_export and into_pi are imported by the actions that use them: nothing on the way to
# the first screen needs them)
from .follower import FileFollower
from .opener import SessionOpener
from .pane_search import PaneSearchFlow
from .panels import WIDE_FROM, PanelLayout

if TYPE_CHECKING:
    from ...core.read.session import Session

__all__ = ["BrowserScreen", "SearchBar"]



class SearchBar(Input):
    """``/``: a one-line query for the message pane's search. Enter posts
    ``Input.Submitted``, Escape :class:`SearchBar.Cancelled`."""

    BINDINGS = bindings_for("search_bar")

    class Cancelled(Message):
        """The search was given up (Escape)."""

    def action_cancel(self) -> None:
        self.value = ""
        self.post_message(self.Cancelled())


class RightColumn(Vertical):
    """The header and the message pane (zoomed together)."""

    ALLOW_MAXIMIZE = True


class BrowserScreen(PaintGate):
    """The main screen. Keys that act on the open session live here, so they work from
    the tree and from the pane alike (the focused sidebar takes every printable key as text
    for its filter: ``SessionList.check_consume_key``)."""

    AUTO_FOCUS = "#tree"  # (from the first frame: not the sidebar first, then the tree)

    #: Classes by the screen's size class (the panels' layout is kept per class: panels.py).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE_FROM, "-wide")]

    BINDINGS = bindings_for("browser")

    #: Actions that need an open session (greyed out in the footer without one).
    SESSION_ACTIONS = session_actions("browser")

    #: Seconds without input after which what the next moves would show is drawn ahead,
    #: while the user reads (None: never): see ``ui/lookahead.py``. Stopped by the next input.
    LOOKAHEAD_SECONDS: float | None = 0.3

    #: The session is followed as Pi writes it (``F``): the tree's title says so.
    following: reactive[bool] = reactive(False, init=False)

    def __init__(self) -> None:
        super().__init__(id="browser")
        self.session: Session | None = None
        self.session_path: str | None = None
        self.error: str | None = None
        self.opener = SessionOpener(self)
        self.follower = FileFollower(self)
        self.first_paint = FirstPaint(self)
        self.panels = PanelLayout(self)
        self._pane_key: tuple[int, int] | None = None  # (id(session), leaf) shown in the pane
        self._pane_entry = -1  # the selected entry the pane was last brought to (or that it shows)
        self.pane_search = PaneSearchFlow(self)
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
        if action == "clear_search" and not self.pane_search.searching:
            return False  # escape means nothing else here: left to whatever else binds it
        if action in ("sidebar_width", "tree_width") and self.maximized is not None:
            return None  # (zoomed: the panels are not on screen; the key still typed nowhere)
        return True

    @property
    def papp(self) -> Any:
        """The app (a ``PituiApp``: its root, index, settings, live stream)."""
        return self.app

    def paint_held(self) -> bool:
        return self.first_paint.paint_held()

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield Sidebar(clock=self.papp.clock, id="sidebar")
            yield Splitter(id="sidebar-splitter")
            yield BranchTree(id="tree").data_bind(BrowserScreen.following)
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

    @property
    def infos(self) -> dict:
        """Every session the sidebar has listed so far, by path."""
        return self.sidebar.infos

    @property
    def listing_done(self) -> bool:
        return self.sidebar.listing_done

    def on_mount(self) -> None:
        self.branch_tree.selection_listener = self._tree_selected
        self.header.listing = self.sidebar.infos
        self.panels.apply()  # (before the first frame: the panels are laid out once)
        self.reload()
        self.follower.start()

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
        self.branch_tree.update_title()
        self.query_one("#right").border_title = "Messages"
        self.show_notice("Reading sessions…", f"in {shown_path(root.path)} ({root.source})")
        self.header.show_message("pitui", f"{shown_path(root.path)} ({root.source})")
        self.branch_tree.placeholder = "reading sessions…"
        self.focus_tree()
        want = app.select_path
        if want is not None and (os.path.isfile(want) or (app.live is not None and want == app.live.path)):
            # A session named on the command line opens at once; the sidebar's listing
            # waits until it is on screen (or failed to open).
            self.opener.listing_deferred = True
            if not self._resumed:
                self.first_paint.hold(self.query_one("#main"))
            self.open_session(want)
        else:
            self.sidebar.start_listing()

    # ------------------------------------------------------------------ the sessions listed
    def on_sidebar_listed(self, event: Sidebar.Listed) -> None:
        if event.root is not self.papp.root:
            return
        from ..screens.empty import EmptyScreen

        infos = event.infos
        if not infos and self.papp.live is None:  # (a stream piped in is shown all the same)
            self.app.push_screen(EmptyScreen(self.papp.root))
            return
        if not infos and not self.panels.layout.sidebar_hidden:
            # `pitui -` with no sessions store: no empty sidebar of "0 sessions" (b shows it;
            # the layout saved is left as it was)
            self.panels.set_layout(self.panels.layout.but(sidebar_hidden=True), save=False)
        if self.session_path is None:
            path = self.sidebar.first_to_open(self.papp.select_path)
            if path is not None:
                self.open_session(path)
        elif self.session is not None:
            # (a session named on the command line opens before the listing is done: its
            # header's title, the first message, comes from the listing)
            self.header.update_session()

    def on_session_header_counted(self, event: SessionHeader.Counted) -> None:
        """The open session's cost, worked out by the header: the sidebar's row shows the
        same figure."""
        session_list = self.session_list
        if session_list.costs is not None:
            session_list.set_costs({event.path: event.cost}, partial=True)

    def on_sidebar_listing_failed(self, event: Sidebar.ListingFailed) -> None:
        self.show_notice("Could not list sessions", event.reason)

    def on_session_list_leave_requested(self, event: SessionList.LeaveRequested) -> None:
        event.stop()
        if self.panels.sidebar_in_tree_place:
            self.focus_tree()  # (Escape in the sessions shown in the tree's place: the tree again)

    def on_session_list_open_requested(self, event: SessionList.OpenRequested) -> None:
        event.stop()
        self.open_session(event.path)
        self.focus_tree()

    # ------------------------------------------------------------------ opening (opener.py)
    def open_session(self, path: str, *, select_id: str | None = None, remember: bool = True,
                     force: bool = False, find: str | None = None) -> None:
        """Open ``path`` (in a worker); the tree selects ``select_id`` or the current leaf,
        and the pane then finds ``find`` (:meth:`find_in_pane`). The session left behind is
        remembered for Backspace. ``force`` reads it again even when it is the one open (a
        file that was replaced)."""
        self.opener.open(path, select_id=select_id, remember=remember, force=force, find=find)

    def on_open_progress(self, event: OpenProgress) -> None:
        self.opener.progress(event)

    def on_open_failed(self, event: OpenFailed) -> None:
        self.opener.failed(event)

    def on_session_read(self, event: SessionRead) -> None:
        self.opener.show(event)

    def on_validated(self, event: Validated) -> None:
        self.opener.validated(event)

    def on_refreshed(self, event: Refreshed) -> None:
        self.follower.refreshed(event)

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
    def forget_branch(self) -> None:
        """The session changed: the pane's branch and the numbers are worked out again,
        and the leaf the header counted is forgotten (an entry number of the session before:
        a file read again may have fewer entries, or none)."""
        self._pane_key = None
        self.header.forget(self.session)

    def tree_changed(self, layout, keep: int, *, follow: bool = False) -> None:
        """The open session's tree changed (it grew, or a damaged line left it): show
        ``layout`` keeping ``keep`` selected (or, following, the newest leaf), and the
        branch and header worked out again."""
        self.forget_branch()
        self.branch_tree.session_grew(layout, keep, follow=follow)
        self.header.show_problems(self.session.path, self.session.all_warnings, grew=True)
        self._show_branch_for(self.branch_tree.selected_entry, force_header=True)

    def on_branch_tree_layout_changed(self, event: BranchTree.LayoutChanged) -> None:
        self.branch_tree.update_title()

    def _tree_selected(self, entry: int) -> None:
        # (the tree's selection_listener, called before anything is painted: the pane is
        # drawn in the same frame as the tree's cursor; tests/ui/test_ui_keys.py counts the
        # paints)
        self.show_selection()

    def show_selection(self) -> None:
        """The pane, the header and the tree's title as the tree's selection is now: for
        each change of the tree's selection, and for callers that need the pane at once."""
        tree = self.branch_tree
        sel = tree.selected_entry
        tree.update_title()
        if self.session is not None:
            self.header.set_context(context_meter(self.session, sel))
        if self.following and sel >= 0 and sel != self.follower.follow_entry():
            self.following = False
            self.notify("Follow off (you moved the selection; F follows again)", timeout=2)
        self._show_branch_for(sel)

    def _show_branch_for(self, sel: int, force_header: bool = False) -> None:
        session = self.session
        tree = self.branch_tree
        if session is not None and sel < 0 and len(session) == 0:
            # a session of its header only (perhaps cut back to it): nothing of the branch
            # shown before may stay in the pane
            if self._pane_key != (id(session), -1):
                self._pane_key = (id(session), -1)
                self.pane.show_branch(session, [], -1)
            return
        if session is None or sel < 0 or tree.nav is None:
            return
        leaf = tree.nav.leaf_below(sel)
        tree.nav.sticky_leaf = leaf
        key = (id(session), leaf)
        pane = self.pane
        if key != self._pane_key:
            self._pane_key = key
            pane.show_leaf(session, leaf, sel)  # walks only up to the branch shown now, copies once
        elif sel != self._pane_entry:
            pane.scroll_to_entry(sel)
        self._pane_entry = sel
        header = self.header
        if leaf != header.branch_leaf or force_header:
            header.branch = ShownBranch(session, leaf, len(pane.branch))

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
        rows = tree.tree_layout.rows
        row = tree.tree_layout.nearest_row(self.session, entry)
        if not rows:
            return
        # The pane stays where the user scrolled it: the entry is taken as shown before the
        # tree's listener is told (it scrolls the pane to a selection it does not show).
        self._pane_entry = rows[max(row, 0)].entry
        tree.move_to_row(row, center=None)
        self._pane_entry = tree.selected_entry

    def follow_pane_to(self, entry: int) -> None:
        """The tree selects ``entry``, which the pane shows already (the pane stays)."""
        tree = self.branch_tree
        tree.show_entry(entry)
        self._pane_entry = tree.selected_entry

    def on_message_pane_open_session_file(self, event: OpenSessionFile) -> None:
        """A subagent's full transcript: open it (Backspace comes back, as the screen says
        once it shows: :meth:`say_how_back`)."""
        event.stop()
        self._transcript_path = event.path if event.path != self.session_path else None
        self.open_session(event.path)

    def say_how_back(self, path: str) -> None:
        """A session is shown: when it is a transcript opened from the pane, the pane's
        title says which key goes back (while it stays), and a toast says it once."""
        linked = path == self._transcript_path and bool(self.opener.history)
        self._transcript_path = None
        right = self.query_one("#right")
        key = key_shown(self.app, "session.back")
        title = f"Messages · {key} back" if linked else "Messages"
        if right.border_title != title:
            right.border_title = title
        if linked:
            self.notify(f"A subagent's transcript: {key} goes back to the session that ran it", timeout=5)

    # ------------------------------------------------------------------ the notice over the pane
    def show_notice(self, title: str, body: str = "") -> None:
        """The notice over the pane: its text as it is (no markup), controls as stand-ins."""
        title = visible(title)
        self.query_one("#notice-text", Static).update(f"{title}\n\n{visible(body, block=True)}" if body else title)
        self.cover_pane(True)

    def cover_pane(self, cover: bool) -> None:
        """Show the notice over the pane (which cannot be focused under it), or take it away."""
        pane = self.pane
        if cover and pane.has_focus:
            self.focus_tree()
        pane.can_focus = not cover
        self.query_one("#notice").display = cover

    # ------------------------------------------------------------------ search in the pane (pane_search.py)
    def action_search(self) -> None:
        self.pane_search.start()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input is self.search_bar:
            event.stop()
            self.pane_search.submitted(event.value.strip())

    def on_search_bar_cancelled(self, event: SearchBar.Cancelled) -> None:
        event.stop()
        self.pane_search.hide()

    def find_in_pane(self, text: str) -> None:
        """Go to the first hit of ``text`` in the pane (:meth:`PaneSearchFlow.find`)."""
        self.pane_search.find(text)

    def on_message_pane_search_changed(self, event: SearchChanged) -> None:
        self.pane_search.changed(event)

    def action_next_hit(self, backwards: bool) -> None:
        if self.session is not None:
            self.pane_search.goto_hit(backwards)

    def action_clear_search(self) -> None:
        self.pane.clear_search()

    # ------------------------------------------------------------------ screens over the browser
    def action_context(self) -> None:
        session, sel = self.session, self.branch_tree.selected_entry
        if session is None or sel < 0:
            return
        from ..screens.context import ContextScreen

        self.app.push_screen(ContextScreen(session, sel))

    def action_compare(self) -> None:
        """``C``: the branches of the fork selected, or this branch and one picked."""
        session, sel = self.session, self.branch_tree.selected_entry
        if session is None or sel < 0:
            return
        from ..screens.compare import open_compare

        open_compare(self, session, sel)

    def _listed_so_far(self) -> tuple[list, bool]:
        """The sessions the sidebar has listed so far, and whether that is all of them."""
        return list(self.infos.values()), self.listing_done

    def action_search_all(self) -> None:
        """Every session under the root; the chosen hit opens with its entry selected."""

        def opened(result) -> None:
            if result is None:
                return
            path, entry_id, match = result
            self.open_session(path, select_id=entry_id, find=match)
            self.focus_tree()

        from ..screens.search import SearchScreen

        app = self.papp
        self.app.push_screen(
            # (while the sidebar is still listing, the screen searches the sessions listed so
            # far, then those listed since, until the listing is done)
            SearchScreen(app.root, infos=list(self.infos.values()) if self.listing_done else self._listed_so_far,
                         clock=app.clock, index_dir=app.index.dir),
            opened,
        )

    # ------------------------------------------------------------------ the panels (panels.py)
    def on_resize(self, event: events.Resize) -> None:
        # (the defaults follow the width, and crossing into the other size class brings
        # that class's layout)
        self.panels.apply()

    def watch_maximized(self) -> None:
        # a zoomed panel takes the screen's width (app.tcss), never the width chosen for it
        self.panels.apply()

    def on_splitter_dragged(self, event: Splitter.Dragged) -> None:
        event.stop()
        self.panels.dragged(event)

    def focus_tree(self) -> None:
        self.panels.focus_tree()

    def action_toggle_sidebar(self) -> None:
        self.panels.toggle_sidebar()

    def action_sidebar_width(self, step: int) -> None:
        self.panels.sidebar_width(step)

    def action_tree_width(self, step: int) -> None:
        self.panels.tree_width(step)

    def action_reset_layout(self) -> None:
        self.panels.reset()

    def action_zoom(self) -> None:
        if self.maximized is not None:
            self.minimize()
        elif self.focused is not None:
            self.maximize(self.focused)

    # ------------------------------------------------------------------ the tree's keys (branch_tree.py)
    def action_sibling(self, step: int) -> None:
        self.branch_tree.go_sibling(step)

    def action_fork(self, step: int) -> None:
        self.branch_tree.go_fork(step)

    def action_root(self) -> None:
        self.branch_tree.go_root()

    def action_leaf(self) -> None:
        self.branch_tree.go_leaf()

    def action_user(self, step: int) -> None:
        self.branch_tree.go_user(step)

    def action_cycle_filter(self) -> None:
        self.notify(f"Filter: {self.set_filter(None)}", timeout=1.5)

    def set_filter(self, mode: str | None) -> str:
        """The tree's filter ``mode`` (None: the next one); returns it."""
        tree = self.branch_tree
        if mode is None:
            mode = tree.cycle_mode()
        else:
            tree.mode = mode
        tree.update_title()
        return mode

    # ------------------------------------------------------------------ the pane's toggles (message_pane.py)
    def action_pane_toggle(self, name: str) -> None:
        self.pane.toggle(name)

    # ------------------------------------------------------------------ the session's keys
    def action_toggle_follow(self) -> None:
        self.follower.toggle()

    def action_back(self) -> None:
        self.opener.back()

    def action_stats(self) -> None:
        self.header.show_stats()

    def action_copy_resume(self) -> None:
        from . import copy_export

        copy_export.copy_resume(self)

    def action_copy_id(self) -> None:
        from . import copy_export

        copy_export.copy_id(self)

    def action_copy_path(self) -> None:
        from . import copy_export

        copy_export.copy_path(self)

    def action_copy_entry(self) -> None:
        from . import copy_export

        copy_export.copy_entry(self)

    def action_export_markdown(self) -> None:
        from . import copy_export

        copy_export.export_markdown(self)

    def action_pager(self) -> None:
        from . import copy_export

        copy_export.pager(self)

    def action_show_warnings(self) -> None:
        from . import copy_export

        copy_export.show_warnings(self)

    def on_warnings_badge_pressed(self, event: WarningsBadge.Pressed) -> None:
        from . import copy_export

        copy_export.show_warnings(self)

    # ------------------------------------------------------------------ back into Pi (into_pi.py)
    def action_resume_in_pi(self) -> None:
        from . import into_pi

        into_pi.resume_in_pi(self)

    def action_fork_in_pi(self) -> None:
        from . import into_pi

        into_pi.fork_in_pi(self)

    def reopen_after_pi(self, path: str) -> None:
        """Pi, resumed here, exited: the session read again (Pi wrote to it), its newest
        entry selected, and the sidebar listed again."""
        if path == self.session_path:
            self.open_session(path, remember=False, force=True)
        self.relist_after_pi()

    def relist_after_pi(self) -> None:
        """The sidebar listed again now (Pi may have written a session), not at the next tick."""
        self.sidebar.relist()
