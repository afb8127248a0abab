"""The message pane: one branch of a session, drawn with the line API.

Blocks are laid out lazily (estimated heights until they come into view) and their Strips
cached by (entry, width, toggles). The context view (``ui/screens/context.py``) draws its
messages with the same pieces.
"""

from .message_pane import BranchShape, MessagePane, prepare_branch

__all__ = ["MessagePane", "BranchShape", "prepare_branch"]
