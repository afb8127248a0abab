"""The models the demo user talks to, their prices, and usage in tokens and dollars."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tools import piwriter


@dataclass(frozen=True)
class Model:
    """A model and its prices, in dollars per million tokens."""

    provider: str
    id: str
    api: str
    input: float
    output: float
    cache_read: float
    cache_write: float


SONNET = Model("anthropic", "claude-sonnet-4-5", "anthropic-messages", 3, 15, 0.3, 3.75)
OPUS = Model("anthropic", "claude-opus-4-5", "anthropic-messages", 5, 25, 0.5, 6.25)
HAIKU = Model("anthropic", "claude-haiku-4-5", "anthropic-messages", 1, 5, 0.1, 1.25)
GPT5 = Model("openai", "gpt-5", "openai-responses", 1.25, 10, 0.125, 0)
GPT5_MINI = Model("openai", "gpt-5-mini", "openai-responses", 0.25, 2, 0.025, 0)
GEMINI = Model("google", "gemini-2.5-pro", "google-generative-ai", 1.25, 10, 0.31, 0)


def usage_obj(m: Model, inp: int, out: int, cr: int, cw: int, reasoning: int | None = None) -> dict:
    """Usage with its cost at the model's prices ($ per million tokens)."""
    costs = (
        (m.input / 1000000) * inp,
        (m.output / 1000000) * out,
        (m.cache_read / 1000000) * cr,
        (m.cache_write / 1000000) * cw,
    )
    return piwriter.usage(inp, out, cr, cw, costs, reasoning=reasoning)


def zero_usage() -> dict:
    """The usage of a request that failed before the model answered."""
    return piwriter.usage(0, 0, 0, 0, (0, 0, 0, 0))


def est_tokens(obj: Any) -> int:
    """A rough token count of some text or JSON (3.6 characters a token)."""
    s = obj if isinstance(obj, str) else piwriter.dumps_exact(obj)
    return max(1, int(len(s) / 3.6))
