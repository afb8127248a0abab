"""Text cut to a width: the one place that does it, for every row, header and title.

Every cut ends in ``…`` (at the end, at the start or in the middle, by what the text is),
and widths are terminal cells, not code points: a CJK character or an emoji is two cells,
and a cut never splits one (the row is then one cell short rather than holding half a
character). :func:`first_fit` picks, among ever shorter forms of a line, the first that
fits: how a header drops its least useful pieces first and keeps the words that say what
a number is. :class:`FitLine` is a line of text made again for each width it is drawn at.
"""

from __future__ import annotations

from typing import Callable, Iterable

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Span, Text
from textual.strip import Strip
from textual.widget import Widget

from ..core.model.summary import cut_words as _cut_words
from .cells import ELLIPSIS, _head_len, cut_end, cut_middle, cut_start

__all__ = ["ELLIPSIS", "cell_len", "cut_end", "cut_start", "cut_middle", "cut_words", "cut_text", "cut_segments",
           "first_fit", "FitLine"]

def cut_words(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, cut at the end of a word and ``…`` when it is
    longer (mid-word only when that would keep less than half): the core's rule
    (``core.model.summary.cut_words``), measured in cells."""
    return _cut_words(text, width, cell_len)


def cut_text(text: Text, width: int) -> Text:
    """A rich ``Text`` in at most ``width`` cells, its styles kept: cut at the end with
    ``…`` in the style of the last character kept. ``text`` itself is left alone."""
    if text.cell_len <= width:
        return text
    if width <= 0:
        return Text()
    head = _head_len(text.plain, width - 1)
    out = text[:head]
    out.append(ELLIPSIS)
    # (the spans that styled the last character kept style the ellipsis too)
    out.spans = [Span(sp.start, head + 1, sp.style) if sp.end == head else sp for sp in out.spans]
    return out


def cut_segments(segments: Iterable[Segment], width: int, style: Style | None = None) -> list[Segment]:
    """A line of segments in at most ``width`` cells, ``…`` (in ``style``, else that of the
    last segment) ending it when it is longer."""
    segments = list(segments)
    if sum(cell_len(text) for text, _, _ in segments) <= width:
        return segments
    if width <= 0:
        return []
    last = style if style is not None else (segments[-1][1] if segments else None)
    kept = list(Strip(segments).crop(0, width - 1))
    # (a wide character split by the crop becomes spaces: the row keeps its width)
    return kept + [Segment(ELLIPSIS, last)]


def first_fit(width: int, forms: Iterable[Text]) -> Text:
    """The first of ``forms`` (the fullest first, each shorter than the one before) that
    fits ``width`` cells; the last one cut at its end when none does."""
    last = Text()
    for form in forms:
        if form.cell_len <= width:
            return form
        last = form
    return cut_text(last, width)


class FitLine(Widget):
    """One line of text made for its width each time it is drawn (a resize makes it
    again): ``show`` gives it the function that makes it, from the width in cells. A line
    shown again as it was (the header's title when another branch is selected) is not
    repainted."""

    DEFAULT_CSS = "FitLine { height: 1; }"

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._make: Callable[[int], Text] = lambda width: Text()
        self._made: tuple[int, Text] | None = None  # (the width, the line made for it)

    def show(self, make: Callable[[int], Text]) -> None:
        self._make = make
        made = self._made
        width = self.content_size.width
        if made is not None and made[0] == width > 0:
            line = make(width)
            if _same_look(line, made[1]):
                return
            self._made = (width, line)
        else:
            self._made = None
        self.refresh()

    def render(self) -> Text:
        width = self.content_size.width
        made = self._made
        if made is None or made[0] != width:
            made = self._made = (width, self._make(width))
        return made[1]


def _same_look(line: Text, other: Text) -> bool:
    """Whether two lines read and look the same (rich's ``==`` leaves out the base style)."""
    return line.plain == other.plain and line.style == other.style and line.spans == other.spans and line.justify == other.justify
