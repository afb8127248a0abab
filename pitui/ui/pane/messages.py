"""Messages the pane posts to the app."""

from __future__ import annotations

from textual.message import Message

__all__ = ["EntryFocused", "OpenSessionFile"]


class EntryFocused(Message, namespace="message_pane"):
    """Scrolling brought another entry to the top of the pane (posted debounced)."""

    def __init__(self, entry: int) -> None:
        super().__init__()
        self.entry = entry


class OpenSessionFile(Message, namespace="message_pane"):
    """The user asked to open a session file (a subagent's full transcript)."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
