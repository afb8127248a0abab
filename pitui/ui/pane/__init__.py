"""The message pane and the context view.

``MessagePane`` draws one branch of a session with the line API: blocks are laid out
lazily (estimated heights until they come into view) and their Strips cached by
(entry, width, toggles). ``ContextScreen`` shows what the model saw at an entry.
"""

from .context_screen import ContextScreen, ContextView
from .message_pane import MessagePane
from .messages import EntryFocused, OpenSessionFile

__all__ = ["MessagePane", "ContextScreen", "ContextView", "EntryFocused", "OpenSessionFile"]
