"""The message pane and the context view.

``MessagePane`` draws one branch of a session with the line API: blocks are laid out
lazily (estimated heights until they come into view) and their Strips cached by
(entry, width, toggles). ``ContextScreen`` shows what the model saw at an entry (imported
when first asked for: the app's start does not need it).
"""

from typing import Any

from .message_pane import MessagePane
from .messages import EntryFocused, OpenSessionFile

__all__ = ["MessagePane", "ContextScreen", "ContextView", "EntryFocused", "OpenSessionFile"]


def __getattr__(name: str) -> Any:
    if name in ("ContextScreen", "ContextView"):
        from . import context_screen

        return getattr(context_screen, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
