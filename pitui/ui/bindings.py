"""Every key binding of pitui, in one table.

Each row says which widget or screen holds the binding (``target``), its id (what
``PITUI_KEYMAP='id=key;…'`` remaps), its keys, the action, the short label the footer
shows, the longer text the help screen and the command palette show, and the help section
it is listed under. Widgets take their ``BINDINGS`` from :func:`bindings_for`; the help
screen (``?``), the command palette and the footer are all derived from the same rows, so
a key is added, renamed or documented in one place. (harlequin's ``actions.py`` is the
model.)
"""

from __future__ import annotations

from typing import NamedTuple

from textual.binding import Binding

from .pane_toggles import PANE_TOGGLES, PaneToggle

__all__ = ["Key", "KEYS", "EXTRA_HELP", "SECTIONS", "NOTES", "bindings_for", "by_id", "in_palette", "key_shown",
           "session_actions", "keymap_of"]


# (a NamedTuple rather than a frozen dataclass: several times quicker to make as this module
# loads, before the first screen: benchmarks/startup_budget.py)
class Key(NamedTuple):
    target: str  # where the binding lives: app, browser, tree, sidebar, pane, … (see TARGETS)
    id: str  # binding id (PITUI_KEYMAP); unique
    keys: str  # Textual key names, comma-separated
    action: str
    label: str  # the footer's short label
    text: str = ""  # what it does, for help and the palette (the label when empty)
    section: str | None = None  # help section; None: not listed in help
    show: bool = False  # in the footer
    key_display: str | None = None
    palette: bool = True  # offered in the command palette (when its target is on screen)
    priority: bool = False  # checked before the focused widget sees the key (Textual's priority)
    anytime: bool = False  # a browser key of the session's sections that works with no session open

    def binding(self) -> Binding:
        return Binding(self.keys, self.action, self.label, show=self.show, key_display=self.key_display,
                       id=self.id, tooltip=self.text, priority=self.priority)

    @property
    def what(self) -> str:
        return self.text or self.label


# Help sections, in the order the help screen lists them.
MOVE, BRANCHES, MESSAGES, SESSION, SIDEBAR, LAYOUT, APP = (
    "Move in the tree", "Branches", "Messages", "Session", "Sidebar (focused: every printable key types into its filter)", "Layout",
    "App")


def _toggle_key(toggle: PaneToggle) -> Key:
    """The key of one of the message pane's toggles (the browser hands it to the pane)."""
    return Key("browser", f"view.{toggle.name}", toggle.keys, f"pane_toggle('{toggle.name}')", toggle.label,
               toggle.text, section=MESSAGES, show=toggle.show)


KEYS: tuple[Key, ...] = (
    # ------------------------------------------------------------------ the tree
    Key("tree", "tree.down", "down,j", "cursor_down", "Down", section=MOVE, palette=False),
    Key("tree", "tree.up", "up,k", "cursor_up", "Up", section=MOVE, palette=False),
    Key("tree", "tree.page_down", "pagedown", "page_down", "Page down", section=MOVE, palette=False),
    Key("tree", "tree.page_up", "pageup", "page_up", "Page up", section=MOVE, palette=False),
    Key("tree", "tree.first", "home", "first", "First row", section=MOVE),
    Key("tree", "tree.last", "end", "last", "Last row", section=MOVE),
    Key("browser", "tree.filter", "f", "cycle_filter", "Filter",
        "Cycle the tree filter: default, no-tools, user-only, labeled-only, all, files-only, shell-only",
        section=BRANCHES, show=True),
    Key("browser", "nav.prev_sibling", "left_square_bracket", "sibling(-1)", "Branch",
        "Previous sibling branch at the nearest fork", section=BRANCHES, show=True, key_display="[ ]"),
    Key("browser", "nav.next_sibling", "right_square_bracket", "sibling(1)", "Next branch",
        "Next sibling branch at the nearest fork", section=BRANCHES),
    Key("browser", "nav.prev_fork", "left_curly_bracket", "fork(-1)", "Fork",
        "Previous fork on the branch (above the selection)", section=BRANCHES, show=True, key_display="{ }"),
    Key("browser", "nav.next_fork", "right_curly_bracket", "fork(1)", "Next fork",
        "Next fork on the branch (below the selection)", section=BRANCHES),
    Key("tree", "tree.fold", "enter,space", "toggle_fold", "Fold",
        "Fold or unfold the branch at the selection (or the branch it is in)", section=BRANCHES, show=True),
    Key("browser", "branch.compare", "C", "compare", "Compare",
        "Compare branches: on a fork, its branches; elsewhere, this branch and one you pick (files, commands, "
        "tokens, cost, how each ended)", section=BRANCHES),
    Key("browser", "nav.root", "g", "root", "Root", "The root of the selection's tree", section=MOVE),
    Key("browser", "nav.leaf", "G", "leaf", "Leaf", "The leaf of the branch shown", section=MOVE),
    Key("browser", "nav.prev_user", "u", "user(-1)", "User", "Previous user message on the branch", section=MOVE,
        show=True, key_display="u U"),
    Key("browser", "nav.next_user", "U", "user(1)", "Next user message", "Next user message on the branch",
        section=MOVE),
    # ------------------------------------------------------------------ the message pane
    *(_toggle_key(toggle) for toggle in PANE_TOGGLES),  # (t, o, h: their rows are in pane_toggles.py)
    Key("browser", "search.start", "slash", "search", "Search", "Search the branch in the message pane",
        section=MESSAGES, show=True),
    Key("browser", "search.next", "n", "next_hit(False)", "Next hit", "Next search hit", section=MESSAGES),
    Key("browser", "search.prev", "N", "next_hit(True)", "Previous hit", "Previous search hit", section=MESSAGES),
    Key("browser", "search.clear", "escape", "clear_search", "Clear search",
        "End the search in the pane: highlights gone, folds opened for a hit closed", section=MESSAGES,
        anytime=True),
    Key("browser", "view.zoom", "z", "zoom", "Zoom", "Zoom the focused panel to the whole screen, or back",
        section=MESSAGES, anytime=True),
    Key("pane", "pane.cursor_down", "down", "cursor_down", "Next",
        "In the pane: the cursor to the next message, fold or transcript link",
        section=MESSAGES, palette=False),
    Key("pane", "pane.cursor_up", "up", "cursor_up", "Previous",
        "In the pane: the cursor to the previous message, fold or transcript link",
        section=MESSAGES, palette=False),
    Key("pane", "pane.fold", "enter", "toggle_fold", "Open",
        "In the pane: open or close the fold at the cursor, or open the transcript there",
        section=MESSAGES, show=True, palette=False),
    Key("pane", "pane.scroll_down", "j", "scroll_down", "Scroll down", "In the pane: scroll a line down",
        section=MESSAGES, palette=False),
    Key("pane", "pane.scroll_up", "k", "scroll_up", "Scroll up", "In the pane: scroll a line up",
        section=MESSAGES, palette=False),
    # ------------------------------------------------------------------ the session
    Key("browser", "session.context", "c", "context", "Context", "What the model saw at the selected entry",
        section=SESSION, show=True),
    Key("browser", "session.stats", "s", "stats", "Stats",
        "Tokens and cost per model, for the branch and the whole session", section=SESSION),
    Key("browser", "session.copy", "y", "copy_resume", "Copy", "Copy `pi --session …` (resume it in Pi) to the clipboard",
        section=SESSION, show=True),
    Key("browser", "session.resume", "r", "resume_in_pi", "Resume",
        "Resume the session in Pi, in its folder (the app steps aside until Pi exits)", section=SESSION),
    Key("browser", "session.fork", "R", "fork_in_pi", "Fork in Pi",
        "Fork the session at the selected entry into a new Pi session, and resume that in Pi", section=SESSION),
    Key("browser", "session.pager", "e", "pager", "Raw", "The selected entry's line in $PAGER", section=SESSION),
    Key("browser", "session.warnings", "w", "show_warnings", "Warnings",
        "What was wrong in the file (damaged lines, orphans, duplicate ids), by line", section=SESSION),
    Key("browser", "session.back", "backspace", "back", "Back",
        "Back to the session opened before (e.g. after a subagent's transcript)", section=SESSION, anytime=True),
    Key("browser", "search.all", "ctrl+f", "search_all", "All sessions", "Search every session (Enter opens the hit)",
        section=SESSION, show=True, anytime=True),
    Key("browser", "session.follow", "F", "toggle_follow", "Follow",
        "Follow the session as Pi writes it: keep the newest entry selected and in view", section=SESSION, show=True),
    Key("browser", "session.export_md", "x", "export_markdown", "Export",
        "Export the branch shown to a Markdown file or an HTML page (asks where)", section=SESSION),
    Key("browser", "session.copy_entry", "Y", "copy_entry", "Copy entry",
        "Copy the selected entry's text to the clipboard", section=SESSION),
    Key("browser", "session.copy_id", "i", "copy_id", "Copy id", "Copy the session id to the clipboard",
        section=SESSION),
    Key("browser", "session.copy_path", "p", "copy_path", "Copy path", "Copy the session file's path to the clipboard",
        section=SESSION),
    # ------------------------------------------------------------------ the sidebar
    Key("sidebar", "sidebar.down", "down", "cursor_down", "Down", palette=False),
    Key("sidebar", "sidebar.up", "up", "cursor_up", "Up", palette=False),
    Key("sidebar", "sidebar.page_down", "pagedown", "page_down", "Page down", palette=False),
    Key("sidebar", "sidebar.page_up", "pageup", "page_up", "Page up", palette=False),
    Key("sidebar", "sidebar.first", "home", "first", "First", palette=False),
    Key("sidebar", "sidebar.last", "end", "last", "Last", palette=False),
    Key("sidebar", "sidebar.open", "enter", "open", "Open", "Open the session (or fold the project)",
        section=SIDEBAR, show=True),
    Key("sidebar", "sidebar.sort", "ctrl+s", "toggle_sort", "Sort",
        "Sort by recent, by name or by cost (each session's cost shown)", section=SIDEBAR,
        show=True),
    Key("sidebar", "sidebar.named", "ctrl+n", "toggle_named", "Named only", "Show named sessions only",
        section=SIDEBAR, show=True),
    Key("sidebar", "sidebar.costs", "ctrl+d", "toggle_costs", "Costs",
        "Show or hide each session's cost in its row, in every sort (remembered)", section=SIDEBAR),
    Key("sidebar", "sidebar.clear", "escape", "clear_filter", "Clear filter", section=SIDEBAR),
    # (q and ? type into the filter there: Textual's ctrl+q quits, shown here so the footer
    # says so; a priority binding, as Textual's own, which would otherwise hide it)
    Key("sidebar", "sidebar.quit", "ctrl+q", "app.quit", "Quit", "Quit pitui (q types into the filter here)",
        section=SIDEBAR, show=True, palette=False, priority=True),
    # ------------------------------------------------------------------ the panels
    Key("browser", "layout.sidebar", "b", "toggle_sidebar", "Sidebar",
        "Hide or show the sidebar (remembered per terminal size); below 120 columns the sessions take the "
        "tree's place, and Enter or Esc brings the tree back", section=LAYOUT),
    Key("browser", "layout.sidebar_narrower", "less_than_sign", "sidebar_width(-1)", "Sidebar narrower",
        "Make the sidebar narrower (remembered; dragging the gap between panels does it too)", section=LAYOUT,
        key_display="<"),
    Key("browser", "layout.sidebar_wider", "greater_than_sign", "sidebar_width(1)", "Sidebar wider",
        "Make the sidebar wider (remembered)", section=LAYOUT, key_display=">"),
    Key("browser", "layout.tree_narrower", "minus", "tree_width(-1)", "Tree narrower",
        "Make the tree narrower and the message pane wider (remembered)", section=LAYOUT, key_display="-"),
    Key("browser", "layout.tree_wider", "plus,equals_sign", "tree_width(1)", "Tree wider",
        "Make the tree wider and the message pane narrower (remembered)", section=LAYOUT, key_display="+"),
    Key("browser", "layout.reset", "0", "reset_layout", "Default widths",
        "Panel widths back to the defaults for the terminal's size", section=LAYOUT),
    # ------------------------------------------------------------------ the app
    Key("app", "app.quit", "q", "quit", "Quit", "Quit pitui", section=APP, show=True),
    Key("app", "app.help", "question_mark,f1", "help", "Help", "Every key, explained (f1 in the sidebar too)",
        section=APP, show=True, palette=False),
    Key("app", "app.usage", "dollar_sign", "usage", "Usage",
        "What every session cost: spend per day, by model and project, the costliest sessions, tool calls, cache",
        section=APP, show=True, key_display="$"),
    Key("app", "app.board", "a", "board", "Agents",
        "Which agent needs you: every session written lately, working, waiting for you, failed or stalled, "
        "with the tool running (Enter opens one, followed; t its tmux pane)", section=APP, show=True),
    # ------------------------------------------------------------------ dialogs and other screens
    Key("search_bar", "search.cancel", "escape", "cancel", "Cancel", show=True, palette=False),
    Key("export", "export.cancel", "escape", "cancel", "Cancel", show=True, palette=False),
    Key("export", "export.format", "ctrl+t", "switch_format", "Markdown/HTML",
        "In the export dialog: switch the file's ending between .md and .html", show=True, palette=False),
    Key("export", "export.redact", "ctrl+r", "toggle_redact", "Redact",
        "In the export dialog: replace the session's likely secrets by placeholders, or not", show=True,
        palette=False),
    Key("empty", "empty.demo", "d", "demo", "Open the demo", show=True, palette=False),
    Key("empty", "empty.quit", "q", "app.quit", "Quit", show=True, palette=False),
    Key("help", "help.close", "escape,q,question_mark", "close", "Close", show=True, palette=False),
    Key("warnings", "warnings.close", "escape,q,w", "dismiss_screen", "Close", show=True, palette=False),
    Key("stats", "stats.close", "escape", "close", "Close", show=True, palette=False),
    Key("stats", "stats.close_q", "q", "close", "Close", palette=False),
    Key("stats", "stats.close_s", "s", "close", "Close", palette=False),
    Key("context", "context.close", "escape", "close", "Close", show=True, palette=False),
    Key("compare", "compare.close", "escape,q,C", "close", "Close", show=True, palette=False),
    # (priority: the columns' scrolling container would take right and left as scrolling)
    Key("compare", "compare.next_column", "right,tab", "column(1)", "Next branch", palette=False, priority=True),
    Key("compare", "compare.prev_column", "left,shift+tab", "column(-1)", "Previous branch", palette=False,
        priority=True),
    Key("compare_pick", "compare_pick.close", "escape,q", "close", "Cancel", show=True, palette=False),
    Key("compare_list", "compare_list.down", "down,j", "cursor_down", "Down", palette=False),
    Key("compare_list", "compare_list.up", "up,k", "cursor_up", "Up", palette=False),
    Key("compare_list", "compare_list.page_down", "pagedown", "page_down", "Page down", palette=False),
    Key("compare_list", "compare_list.page_up", "pageup", "page_up", "Page up", palette=False),
    Key("compare_list", "compare_list.first", "home", "first", "First", palette=False),
    Key("compare_list", "compare_list.last", "end", "last", "Last", palette=False),
    Key("compare_list", "compare_list.choose", "enter", "choose", "Go to", show=True, palette=False),
    Key("compare_list", "compare_list.open", "space", "open", "Open", show=True, palette=False),
    Key("usage", "usage.close", "escape,q,dollar_sign", "close", "Close", show=True, palette=False),
    Key("board", "board.close", "escape,q,a", "close", "Close", show=True, palette=False),
    Key("board", "board.pane", "t", "pane", "tmux pane",
        "On the board: show the tmux pane the chosen session's pi runs in", show=True, palette=False),
    Key("board", "board.bell", "b", "toggle_bell", "Bell",
        "On the board: ring the bell when a session moves to waiting or failed, or not", show=True, palette=False),
    Key("board", "board.desktop", "d", "cycle_desktop", "Desktop",
        "On the board: a desktop notification (OSC 9, OSC 777, off) when a session moves to waiting or failed",
        show=True, palette=False),
    Key("usage", "usage.week", "1", "period('7')", "7 days", show=True, palette=False),
    Key("usage", "usage.month30", "2", "period('30')", "30 days", show=True, palette=False),
    Key("usage", "usage.this_month", "3", "period('month')", "This month", show=True, palette=False),
    Key("usage", "usage.all", "4", "period('all')", "All", show=True, palette=False),
    Key("usage", "usage.filter", "slash", "filter", "Project", show=True, palette=False),
    Key("context_view", "context.thinking", "t", "flip_toggle('thinking')", "Thinking", "Fold or unfold all thinking",
        show=True, palette=False),
    Key("context_view", "context.output", "o", "flip_toggle('tool_output')", "Output", "Tool output cut to a few lines, or full",
        show=True, palette=False),
    Key("search_all", "search_all.close", "escape", "close", "Close", show=True, palette=False),
    Key("search_all", "search_all.down", "down", "results('cursor_down')", "Down", palette=False),
    Key("search_all", "search_all.up", "up", "results('cursor_up')", "Up", palette=False),
    Key("search_all", "search_all.page_down", "pagedown", "results('page_down')", "Page down", palette=False),
    Key("search_all", "search_all.page_up", "pageup", "results('page_up')", "Page up", palette=False),
    Key("search_all", "search_all.next_session", "ctrl+down", "results('next_session')", "Next session", palette=False),
    Key("search_all", "search_all.previous_session", "ctrl+up", "results('previous_session')", "Previous session",
        palette=False),
    Key("search_results", "search_results.down", "down", "cursor_down", "Down", palette=False),
    Key("search_results", "search_results.up", "up", "cursor_up", "Up", palette=False),
    Key("search_results", "search_results.page_down", "pagedown", "page_down", "Page down", palette=False),
    Key("search_results", "search_results.page_up", "pageup", "page_up", "Page up", palette=False),
    Key("search_results", "search_results.first", "home", "first", "First", palette=False),
    Key("search_results", "search_results.last", "end", "last", "Last", palette=False),
    Key("search_results", "search_results.open", "enter", "choose", "Open", palette=False),
    Key("search_results", "search_results.next_session", "ctrl+down,right_square_bracket", "next_session",
        "Next session", palette=False),
    Key("search_results", "search_results.previous_session", "ctrl+up,left_square_bracket", "previous_session",
        "Previous session", palette=False),
)

#: Keys Textual handles itself, listed in help beside the table's.
EXTRA_HELP: dict[str, list[tuple[str, str]]] = {
    LAYOUT: [("drag a gap", "Drag the gap between two panels to resize them (remembered per terminal size, as the "
                            "keys' changes are, in settings.json in pitui's config folder)")],
    APP: [("tab / shift+tab", "Move between the panels shown: focus starts in the tree, Tab goes on to the "
                              "message pane, then the sidebar; the focused panel has a heavy border"),
          ("ctrl+p", "Command palette: every action, filter modes, sessions by name")],
}

SECTIONS: tuple[str, ...] = (MOVE, BRANCHES, MESSAGES, SESSION, SIDEBAR, LAYOUT, APP)

NOTES = """\
[ and ] switch between the branches of the nearest fork. On the first entry of a branch they
go to its previous / next sibling; on a fork they go to the fork's branches (from the one the
pane shows); anywhere else, to the siblings of the branch you are in at the nearest fork above.
{ and } jump to the previous / next fork (an entry with several branches) on the branch the
pane shows. g and G go to the root and to the leaf of that branch; u and U to the previous /
next user message on it. The filter (f) decides which entries are rows: default, no-tools,
user-only, labeled-only, all (Pi's), then files-only (each call that read, wrote, edited or
searched files, once: as its result, or as its message while it has none) and shell-only
(bash calls likewise, and your own ! commands); a hidden entry's children hang from its
nearest shown ancestor.
The pane shows the branch through the selection: the one already shown while the selection
stays on it, else Pi's current branch or the newest leaf below the selection."""

_BY_ID = {key.id: key for key in KEYS}
assert len(_BY_ID) == len(KEYS), "binding ids are unique"


def bindings_for(target: str) -> list[Binding]:
    """The ``BINDINGS`` of the widget or screen called ``target`` in the table."""
    return [key.binding() for key in KEYS if key.target == target]


def session_actions(target: str = "browser") -> frozenset[str]:
    """The actions of ``target`` that need an open session (greyed out in the footer
    without one): its keys listed under the tree, branch, message and session sections,
    but those marked ``anytime``."""
    return frozenset(key.action.split("(", 1)[0] for key in KEYS if key.target == target and not key.anytime
                     and key.section in (MOVE, BRANCHES, MESSAGES, SESSION))


def by_id(binding_id: str) -> Key | None:
    return _BY_ID.get(binding_id)


def key_shown(app, binding_id: str) -> str:
    """How the (first) key of binding ``binding_id`` is shown (``⌫``), remapped as the app's
    keymap says."""
    key = _BY_ID[binding_id]
    keys = keymap_of(app).get(binding_id, key.keys).split(",")[0].strip()
    return app.get_key_display(Binding(keys, key.action))


def keymap_of(app) -> dict[str, str]:
    """The keys ``app`` was told to remap (binding id -> keys: ``PituiApp.keymap``)."""
    return getattr(app, "keymap", None) or {}


def in_palette() -> list[Key]:
    """The keys the command palette offers (its actions run on their target)."""
    return [key for key in KEYS if key.palette]
