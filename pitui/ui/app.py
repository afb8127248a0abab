"""The pitui app: one factory for the command line and the tests. Its default screen is
the browser (``ui/browser/``); the app holds what every screen shares: the root being
browsed, the clock, the listing index, the keymap, the settings, and toasts that are never
markup.

Everything slow runs in thread workers. The app never writes in the sessions folder; the
only files it writes are the listing index (pitui's cache folder), the settings file
(pitui's config folder), exports the user asks for, and the temporary file handed to
``$PAGER``.
"""

from __future__ import annotations

import os
import threading
import time
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App
from textual.screen import Screen

from ..core import gc_policy
from ..core import settings as settings_file
from ..core.paths import take_notices
from ..core.store.discovery import SessionRoot
from ..core.text import visible
from .agents import ALERT_STATES, AgentWatch, alert_text, desktop_sequence
from .bindings import bindings_for
from .browser.screen import BrowserScreen
from .clock import Clock, system_clock
from .messages import AgentsChanged

# (the help, context, stats and search screens, the Markdown export, the reading of an
# event stream, the listing and its index and the command palette's commands are imported
# when first used: a start that opens a session never needs them before its first screen,
# and each would add to every start: benchmarks/startup_budget.py)
if TYPE_CHECKING:
    from ..core.read.stream import StreamSession
    from ..core.store.listing import SessionIndex
    from textual.command import Provider


def _pitui_commands() -> type[Provider]:
    """pitui's commands in the palette, loaded when it first opens (Textual takes a
    function in ``COMMANDS`` for that)."""
    from .commands import PituiCommands

    return PituiCommands

__all__ = ["PituiApp", "parse_keymap", "run_app"]


class PituiApp(App):
    """pitui. ``root`` is where sessions are read; ``clock``, ``index`` and ``select_path``
    are injectable (tests pass a fixed clock and a private index). The settings are read
    from pitui's config folder (``$PITUI_CONFIG_DIR`` in tests)."""

    CSS_PATH = "app.tcss"
    TITLE = "pitui"
    COMMANDS = App.COMMANDS | {_pitui_commands}
    ALLOW_IN_MAXIMIZED_VIEW = "KeyBar"  # (zoomed, the keys stay)
    BINDINGS = bindings_for("app")

    #: When the last key or mouse event came (``time.monotonic``).
    last_input_at = 0.0
    #: The app is quitting: input that comes meanwhile is dropped (a key pressed just
    #: after ``q`` would act on screens being taken down: a dialog pushed then is mounted
    #: without its widgets).
    exiting = False
    #: How often lines about pitui's caches (rebuilt, or a cache folder not used) are
    #: looked for, to be shown as toasts (see :func:`pitui.core.paths.notice`).
    NOTICE_SECONDS = 0.5
    #: Seconds after the start when garbage collection resumes at the latest (it resumes
    #: when the first session is shown; a start that shows none ends the pause here).
    START_PAUSE_SECONDS = 2.0

    def __init__(
        self,
        root: SessionRoot,
        *,
        clock: Clock | None = None,
        index: SessionIndex | None = None,
        select_path: str | os.PathLike | None = None,
        demo: bool = False,
        live: StreamSession | None = None,
        watch_agents: bool = False,
    ) -> None:
        super().__init__()
        self.root = root
        self.clock: Clock = clock or system_clock
        self._session_index = index
        self._index_lock = threading.Lock()  # (the listing's worker may be first to ask)
        #: an event stream read as it comes (``pitui -``): opened first, followed
        self.live = live
        if live is not None:
            select_path = live.path
        if select_path is None and root.kind == "file":
            select_path = root.path
        self.select_path = os.fspath(select_path) if select_path is not None else None
        self.demo = demo
        #: What the user chose to keep from one run to the next (the panels' layout).
        self.settings: settings_file.Settings = settings_file.load()
        #: Every agent at work under the root (the board, the sidebar's marks, the toasts):
        #: followed from the start when ``watch_agents`` (the command line's app), else from
        #: the first time the board is shown.
        self.agents = AgentWatch(self)
        self.watch_agents = watch_agents
        self._settings_saved = self.settings  # (what the settings file holds)
        #: The keys remapped by ``PITUI_KEYMAP`` (binding id -> keys), as given to Textual.
        self.keymap: dict[str, str] = parse_keymap(os.environ.get("PITUI_KEYMAP", ""))

    @property
    def index(self) -> SessionIndex:
        """The sessions' listing index (pitui's cache folder unless one was given): made
        when first asked for, by the sidebar's listing, which a session named on the
        command line holds back until after its first screen. One for the app, whichever
        thread asks first."""
        with self._index_lock:
            if self._session_index is None:
                from ..core.store.listing import SessionIndex

                self._session_index = SessionIndex()
            return self._session_index

    def save_settings(self, whole: settings_file.Settings, *, save: bool = True) -> None:
        """Use ``whole`` from now on, and write it to the settings file unless ``save`` is
        false (a drag saves once, when it ends) or the file holds it already."""
        self.settings = whole
        if save and whole != self._settings_saved:
            settings_file.save(whole)  # (a notice says when it cannot be written; not tried again)
            self._settings_saved = whole

    def get_default_screen(self) -> Screen:
        return BrowserScreen()

    def notify(self, message: str, *, title: str = "", severity: Any = "information", timeout: float | None = None,
               markup: bool = False) -> None:
        """A toast, never read as markup (toasts name session ids, paths and entries: a
        ``[/]`` in an id would crash the app, an ``[@click=...]`` would run an action),
        with any control character as a visible stand-in. Every ``notify`` of a widget
        or screen comes here (``Widget.notify`` calls the app's)."""
        super().notify(visible(message, block=True), title=visible(title), severity=severity, timeout=timeout,
                       markup=False)

    def exit(self, *args: Any, **kwargs: Any) -> None:
        self.exiting = True
        super().exit(*args, **kwargs)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent) and self.exiting:
            return
        if isinstance(event, events.InputEvent) and not event.is_forwarded:
            self.last_input_at = time.monotonic()
            browser = self.browser
            if browser is not None:
                browser.schedule_lookahead()
        await super().on_event(event)

    def on_mount(self) -> None:
        gc_policy.tune_for_app()
        if self.keymap:
            self.set_keymap(self.keymap)
        self.set_timer(self.START_PAUSE_SECONDS, gc_policy.end_start_pause)
        self.set_interval(self.NOTICE_SECONDS, self.show_notices)
        if self.watch_agents:
            self.set_timer(self.START_PAUSE_SECONDS, self.agents.start)

    def on_unmount(self) -> None:
        self.agents.stop()

    def on_agents_changed(self, message: AgentsChanged) -> None:
        """The live board's news: the board screen and the sidebar's marks brought up to
        date, and a toast (a bell, a desktop notification, as the settings say) for each
        session that moved to waiting or failed."""
        from .screens.board import BoardScreen

        self.agents.take(message)
        browser = self.browser
        if browser is not None and browser.is_mounted:
            from textual.css.query import NoMatches

            try:
                browser.session_list.set_live(self.agents.states)
            except NoMatches:  # (not composed yet: the next news marks the rows)
                pass
        for screen in self.screen_stack:
            if isinstance(screen, BoardScreen):
                screen.show(message.rows, message.now_ms)
        for change in message.changes:
            activity = change.activity
            if activity.state not in ALERT_STATES or change.before == activity.state:
                continue
            title, text = alert_text(activity)
            self.notify(text, title=title, severity="error" if activity.state == "failed" else "information",
                        timeout=8)
            if self.settings.notify_bell:
                self.bell()
            if self.settings.notify_desktop:
                from .textual_internals import write_to_terminal

                write_to_terminal(self, desktop_sequence(self.settings.notify_desktop, title, text))

    def show_notices(self) -> None:
        """Toasts for what happened to pitui's caches (one line each)."""
        for line in take_notices():
            self.notify(line, severity="warning", timeout=6)

    @property
    def browser(self) -> BrowserScreen | None:
        for screen in self.screen_stack:
            if isinstance(screen, BrowserScreen):
                return screen
        return None

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def _browser_on_top(self) -> BrowserScreen | None:
        """The browser, every screen over it closed (a session chosen elsewhere opens there)."""
        browser = self.browser
        if browser is not None:
            while self.screen is not browser and len(self.screen_stack) > 1:
                self.pop_screen()
        return browser

    def action_usage(self) -> None:
        """The usage screen over whatever is shown; the session chosen there opens in the browser."""
        from .screens.usage import UsageScreen

        if isinstance(self.screen, UsageScreen):
            return

        def chosen(path: str | None) -> None:
            browser = self._browser_on_top() if path is not None else None
            if browser is not None:
                browser.open_session(path)
                browser.branch_tree.focus()

        browser = self.browser
        titles = {path: info.title for path, info in browser.infos.items()} if browser is not None else {}
        self.push_screen(UsageScreen(self.root, clock=self.clock, cache_dir=self.index.dir, titles=titles), chosen)

    def action_board(self) -> None:
        """The board of every agent at work; the session chosen there opens in the browser,
        followed."""
        from .screens.board import BoardScreen

        if isinstance(self.screen, BoardScreen):
            return
        self.agents.start(costs=True)

        def chosen(path: str | None) -> None:
            browser = self._browser_on_top() if path is not None else None
            if browser is None:
                return
            if path == browser.session_path and browser.session is not None:
                if not browser.following:
                    browser.action_toggle_follow()
            else:
                browser.following = True
                browser.open_session(path)
            browser.branch_tree.focus()

        self.push_screen(BoardScreen(self.agents), chosen)

    def switch_to_root(self, root: SessionRoot, *, demo: bool = False) -> None:
        """Browse another root (the empty screen's "open the demo")."""
        self.root = root
        self.demo = demo
        self.select_path = None
        browser = self.browser
        if browser is None:
            return
        while self.screen is not browser and len(self.screen_stack) > 1:
            self.pop_screen()
        browser.reload()


def parse_keymap(text: str) -> dict[str, str]:
    """``PITUI_KEYMAP``: ``binding-id=keys`` pairs separated by ``;`` (keys comma-separated,
    Textual key names), e.g. ``nav.next_sibling=l;nav.prev_sibling=h;tree.down=down,j``.
    The ids are listed by ``?`` (help)."""
    out: dict[str, str] = {}
    for part in text.split(";"):
        if "=" in part:
            bid, keys = part.split("=", 1)
            if bid.strip() and keys.strip():
                out[bid.strip()] = keys.strip()
    return out


def run_app(root: SessionRoot, demo: bool = False, live: StreamSession | None = None) -> int:
    """Run the app on ``root`` (called by ``pitui`` on the command line); ``live``: an
    event stream read from standard input, shown first and followed."""
    # (the demo's sessions are no agents at work: the board follows them only once shown)
    app = PituiApp(root, demo=demo, live=live, watch_agents=not demo)
    app.run()
    return app.return_code or 0
