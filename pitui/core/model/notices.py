"""What Pi says about a message beside its content: a provider's error made readable, the
reasoning a provider withheld from a request, an image a model could not see.

Each is worked out here once for the three writers (the pane, the HTML and the Markdown
export). Text is returned as the session holds it; each writer makes it safe for its medium.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from ..read.session import Session

__all__ = ["ProviderError", "provider_error", "reasoning_drop", "new_reasoning_drop", "image_unsupported_note"]


# ---------------------------------------------------------------------------- provider errors

#: how many JSON documents inside each other an error message is unwrapped through
_NEST_LIMIT = 4


@dataclass(frozen=True, slots=True)
class ProviderError:
    """A provider's error message: ``short`` is what a reader needs (status, code, message),
    ``raw`` the message as stored. ``short == raw`` when there was nothing to unwrap."""

    short: str
    raw: str

    @property
    def unwrapped(self) -> bool:
        return self.short != self.raw


def _json_value(text: str) -> Any:
    text = text.strip()
    if not text.startswith(("{", "[")):
        return None
    try:
        return orjson.loads(text)
    except (orjson.JSONDecodeError, RecursionError):
        return None


def _error_object(value: Any) -> dict | None:
    """The innermost object that says what went wrong, through ``{"error": {...}}`` wrappers
    and messages that are JSON themselves (Google's errors arrive as JSON inside a message)."""
    for _ in range(_NEST_LIMIT):
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if not isinstance(value, dict):
            return None
        inner = value.get("error")
        if isinstance(inner, dict):
            value = inner
        message = value.get("message")
        nested = _json_value(message) if isinstance(message, str) else None
        if nested is None:
            return value
        value = nested
    return value if isinstance(value, dict) else None


def provider_error(message: str) -> ProviderError:
    """``429 {"error":{"message":"{\\n \\"error\\": {\\"code\\": 429, \\"message\\": \\"Resource
    exhausted.\\", \\"status\\": \\"RESOURCE_EXHAUSTED\\"}}"}}`` reads as ``429
    RESOURCE_EXHAUSTED: Resource exhausted.``: a leading status, then the innermost error's
    status or type and its message. A message holding no JSON is returned as it is."""
    text = message.strip()
    brace = min((offset for offset in (text.find("{"), text.find("[")) if offset >= 0), default=-1)
    if brace < 0:
        return ProviderError(message, message)
    head, body = text[:brace].strip(), _json_value(text[brace:])
    found = _error_object(body)
    if found is None:
        return ProviderError(message, message)
    what = found.get("message")
    what = what.strip() if isinstance(what, str) else ""
    kind = next((found[key] for key in ("status", "type", "code") if isinstance(found.get(key), str) and found[key]), "")
    code = found.get("code")
    if not head and isinstance(code, int) and not isinstance(code, bool):
        head = str(code)
    if kind and kind == head:
        kind = ""
    label = " ".join(part for part in (head, kind) if part)
    if not what and not kind:
        return ProviderError(message, message)
    short = f"{label}: {what}" if label and what else (label or what)
    return ProviderError(short, message)


# ---------------------------------------------------------------------------- withheld reasoning

#: the diagnostics Pi 1.6 stores on an assistant message when a provider withheld reasoning
#: from the request that produced it: diagnostic type -> (provider, the transformation type
#: that counts, singular and plural noun), as Pi's transcript notice names them
_REASONING_DROPS = {
    "anthropic_input_transformations": ("Anthropic", "thinking_dropped", "thinking block", "thinking blocks"),
    "openai_input_transformations": ("OpenAI", "reasoning", "reasoning item", "reasoning items"),
}


def _drop(msg: dict) -> tuple[str, int, list[str]] | None:
    """``(diagnostic type, count, reasons)`` of the first withheld-reasoning diagnostic."""
    diagnostics = msg.get("diagnostics")
    if not isinstance(diagnostics, list):
        return None
    for diagnostic in diagnostics:
        if not isinstance(diagnostic, dict):
            continue
        kind = _REASONING_DROPS.get(diagnostic.get("type"))
        details = diagnostic.get("details")
        changes = details.get("transformations") if isinstance(details, dict) else None
        if kind is None or not isinstance(changes, list):
            continue
        dropped = [change for change in changes if isinstance(change, dict) and change.get("type") == kind[1]]
        if not dropped:
            continue
        reasons: list[str] = []
        for change in dropped:
            reason = change.get("reason")
            if isinstance(reason, str) and reason not in reasons:
                reasons.append(reason)
        return diagnostic["type"], len(dropped), reasons
    return None


def reasoning_drop(msg: dict) -> str | None:
    """``OpenAI dropped 2 reasoning items: prefix_mismatch``, Pi's words for the reasoning a
    provider withheld from the request behind this message, or None."""
    found = _drop(msg)
    if found is None:
        return None
    kind, count, reasons = found
    provider, _, one, many = _REASONING_DROPS[kind]
    why = f": {', '.join(reasons)}" if reasons else ""
    return f"{provider} dropped {count} {one if count == 1 else many}{why}"


#: assistant messages walked up from an entry to find the one before it (a bound, not depth
#: recursion: the walk is a loop)
_WALK_LIMIT = 10_000


def new_reasoning_drop(session: Session, index: int) -> str | None:
    """The notice for assistant entry ``index`` when it reports more withheld reasoning than the
    assistant message before it on its branch, else None. A provider reports a withheld block
    again on every later request that replays it, so Pi shows the notice only when the count
    grows; the message before is an ancestor, so the answer is the same on every branch."""
    msg = session.message(index)
    found = _drop(msg) if msg else None
    if found is None:
        return None
    node, steps = session.parent[index], 0
    while node >= 0 and steps < _WALK_LIMIT:
        if session.types[node] == "message" and session.roles[node] == "assistant":
            previous = _drop(session.message(node) or {})
            if previous is not None and previous[0] == found[0] and found[1] <= previous[1]:
                return None
            break
        node, steps = session.parent[node], steps + 1
    return reasoning_drop(msg)


# ---------------------------------------------------------------------------- images


def image_unsupported_note(result: dict) -> str | None:
    """Pi 1.6's ``read`` of an image for a model without image input keeps the image in the
    result and says so in ``details.imageUnsupportedByModel``: the note Pi shows beside it."""
    details = result.get("details")
    model = details.get("imageUnsupportedByModel") if isinstance(details, dict) else None
    if not isinstance(model, str) or not model:
        return None
    return f"{model} does not support images; it saw a placeholder instead"
