"""Content blocks of messages, and what a tool call returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tools import piwriter

text = piwriter.text_block
image_block = piwriter.image_block


def think(s: str) -> dict:
    """A thinking block; its signature is added when the assistant message is made."""
    return piwriter.thinking_block(s)


def call(name: str, args: dict) -> dict:
    """A tool call; its id is assigned when the assistant message is added."""
    return piwriter.tool_call_block(None, name, args)


@dataclass
class Out:
    """The outcome of a tool call, as Pi's tool would return it."""

    text: str
    details: Any = None
    is_error: bool = False
    duration: tuple[int, int] = (4, 40)


def error_out(msg: str, duration: tuple[int, int] = (2, 12)) -> Out:
    # createErrorToolResult(): details are an empty object
    return Out(msg, details={}, is_error=True, duration=duration)
