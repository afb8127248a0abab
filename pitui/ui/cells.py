"""Text cut to a number of terminal cells, needing only Rich's cell table (no Textual): the
cuts of :mod:`pitui.ui.text_fit` (which re-exports them) and of ``pitui list``, whose rows must
fit a terminal without loading the app. Widths are cells, not code points: a CJK character
or an emoji is two, and a cut never splits one (the text is then one cell short)."""

from __future__ import annotations

from rich.cells import cell_len, get_character_cell_size

__all__ = ["ELLIPSIS", "cell_len", "cut_end", "cut_start", "cut_middle"]

ELLIPSIS = "…"


def _head_len(text: str, cells: int) -> int:
    """How many characters of ``text`` fill at most ``cells`` cells from its start."""
    if text.isascii():
        return min(len(text), max(0, cells))
    total = 0
    for index, ch in enumerate(text):
        total += get_character_cell_size(ch)
        if total > cells:
            return index
    return len(text)


def _tail_start(text: str, cells: int) -> int:
    """Where the end of ``text`` that fills at most ``cells`` cells starts."""
    if text.isascii():
        return max(0, len(text) - max(0, cells))
    total = 0
    for index in range(len(text) - 1, -1, -1):
        total += get_character_cell_size(text[index])
        if total > cells:
            return index + 1
    return 0


def cut_end(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: its start and ``…`` when it is longer."""
    if cell_len(text) <= width:
        return text
    if width <= 0:
        return ""
    return text[: _head_len(text, width - 1)] + ELLIPSIS


def cut_start(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: ``…`` and its end when it is longer (a path, whose
    last folder says the most)."""
    if cell_len(text) <= width:
        return text
    if width <= 0:
        return ""
    return ELLIPSIS + text[_tail_start(text, width - 1):]


def cut_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: a third of the room for its start, ``…``, the rest
    for its end (a path keeps its root and its last folders)."""
    if cell_len(text) <= width:
        return text
    if width <= 0:
        return ""
    head = (width - 1) // 3
    start = text[: _head_len(text, head)]
    return start + ELLIPSIS + text[_tail_start(text, width - 1 - cell_len(start)):]
