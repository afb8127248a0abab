"""Command palette (ctrl+p): every keyed action, each filter mode, and sessions by title."""

from __future__ import annotations

from functools import partial
from typing import Callable, Iterator

from textual.command import DiscoveryHit, Hit, Hits, Provider

__all__ = ["PituiCommands"]

MAX_SESSIONS = 2000


class PituiCommands(Provider):
    """Commands built from the screen the palette was opened on."""

    def _commands(self) -> Iterator[tuple[str, str, Callable[[], object]]]:
        from .app import BrowserScreen
        from .help import _all_bindings
        from .sidebar import SessionList
        from .tree_view import BranchTree

        screen = self.screen
        if not isinstance(screen, BrowserScreen):
            return
        app = self.app
        keymap = getattr(app, "_keymap", {}) or {}
        bindings = _all_bindings()
        tree_ids = {b.id for b in BranchTree.BINDINGS if getattr(b, "id", None)}
        list_ids = {b.id for b in SessionList.BINDINGS if getattr(b, "id", None)}
        skip = {"tree.down", "tree.up", "tree.page_down", "tree.page_up", "sidebar.down", "sidebar.up",
                "sidebar.page_down", "sidebar.page_up", "sidebar.first", "sidebar.last", "app.help"}
        for bid, b in bindings.items():
            if bid in skip:
                continue
            if bid in tree_ids:
                target = screen.query_one(BranchTree)
            elif bid in list_ids:
                target = screen.query_one(SessionList)
            elif bid.startswith("app."):
                target = app
            else:
                target = screen
            keys = keymap.get(bid, b.key).split(",")[0]
            key = app.get_key_display(type(b)(keys, b.action))
            text = b.tooltip or b.description
            yield text, f"key: {key}", partial(target.run_action, b.action)
        yield "Help: every key", "key: ?", app.action_help  # type: ignore[attr-defined]
        from ..core.model.layout import FILTERS

        for mode in FILTERS:
            yield f"Tree filter: {mode}", "what the tree shows", partial(screen.set_filter, mode)
        n = 0
        for info in screen.infos.values():
            if info.error is not None:
                continue
            title = " ".join((info.name or info.first_message).split())[:80]
            yield f"Open session: {title}", info.cwd or info.path, partial(screen.open_session, info.path)
            n += 1
            if n >= MAX_SESSIONS:
                break

    async def discover(self) -> Hits:
        for text, help_text, callback in self._commands():
            if text.startswith("Open session:"):
                continue
            yield DiscoveryHit(text, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, help_text, callback in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), callback, help=help_text)
