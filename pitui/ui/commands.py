"""Command palette (ctrl+p): every keyed action, each filter mode, and sessions by title."""

from __future__ import annotations

from functools import partial
from typing import Callable, Iterator

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .bindings import in_palette, key_shown

__all__ = ["PituiCommands"]

MAX_SESSIONS = 2000


class PituiCommands(Provider):
    """Commands built from the screen the palette was opened on."""

    def _commands(self) -> Iterator[tuple[str, str, Callable[[], object]]]:
        screen = self.screen
        if screen.id != "browser":  # (the browser screen's; no palette commands elsewhere)
            return
        app = self.app
        targets = {"app": app, "browser": screen, "tree": screen.query_one("#tree"),
                   "sidebar": screen.query_one("SessionList")}
        for key in in_palette():
            target = targets.get(key.target)
            if target is None:
                continue
            yield key.what, f"key: {key_shown(app, key.id)}", partial(target.run_action, key.action)
        yield "Help: every key", "key: ?", app.action_help  # type: ignore[attr-defined]
        from ..core.model.layout import FILTERS

        for mode in FILTERS:
            yield f"Tree filter: {mode}", "what the tree shows", partial(screen.set_filter, mode)
        count = 0
        for info in screen.infos.values():
            if info.error is not None:
                continue
            title = " ".join((info.name or info.first_message).split())[:80]
            yield f"Open session: {title}", info.cwd or info.path, partial(screen.open_session, info.path)
            count += 1
            if count >= MAX_SESSIONS:
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
