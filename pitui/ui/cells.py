"""Text cut to a number of terminal cells, needing only Rich's cell table (no Textual): the
cuts of :mod:`pitui.ui.text_fit` (which re-exports them) and of ``pitui list``, whose rows must
fit a terminal without loading the app. Widths are cells, not code points: a CJK character
or an emoji is two, and a cut never splits one (the text is then one cell short)."""

from __future__ import annotations

from rich.cells import cell_len, get_character_cell_size

__all__ = ["ELLIPSIS", "cell_len", "cut_end", "cut_start", "cut_middle"]

ELLIPSIS = "…"


def _head_len(s: str, cells: int) -> int:
    """How many characters of ``s`` fill at most ``cells`` cells from its start."""
    if s.isascii():
        return min(len(s), max(0, cells))
    total = 0
    for k, ch in enumerate(s):
        total += get_character_cell_size(ch)
        if total > cells:
            return k
    return len(s)


def _tail_start(s: str, cells: int) -> int:
    """Where the end of ``s`` that fills at most ``cells`` cells starts."""
    if s.isascii():
        return max(0, len(s) - max(0, cells))
    total = 0
    for k in range(len(s) - 1, -1, -1):
        total += get_character_cell_size(s[k])
        if total > cells:
            return k + 1
    return 0


def cut_end(s: str, width: int) -> str:
    """``s`` in at most ``width`` cells: its start and ``…`` when it is longer."""
    if cell_len(s) <= width:
        return s
    if width <= 0:
        return ""
    return s[: _head_len(s, width - 1)] + ELLIPSIS


def cut_start(s: str, width: int) -> str:
    """``s`` in at most ``width`` cells: ``…`` and its end when it is longer (a path, whose
    last folder says the most)."""
    if cell_len(s) <= width:
        return s
    if width <= 0:
        return ""
    return ELLIPSIS + s[_tail_start(s, width - 1):]


def cut_middle(s: str, width: int) -> str:
    """``s`` in at most ``width`` cells: a third of the room for its start, ``…``, the rest
    for its end (a path keeps its root and its last folders)."""
    if cell_len(s) <= width:
        return s
    if width <= 0:
        return ""
    head = (width - 1) // 3
    start = s[: _head_len(s, head)]
    return start + ELLIPSIS + s[_tail_start(s, width - 1 - cell_len(start)):]
