"""The message pane's toggles (``t`` thinking, ``o`` tool output, ``h`` hidden messages),
one row each in :data:`PANE_TOGGLES`.

Everything else about a toggle is derived from its row: its key in the keys table
(``bindings.py``: the footer, the help screen, the command palette, the keys greyed out
with no session open), its attribute on the pane (``pane.show_thinking``), the toast the
key shows, the bit a drawn block records when it used the toggle and the field it fills in
the render cache's key (``pane/scroller.py``), and the user's own folds a flip forgets.
The drawing code asks ``out.toggled('<name>')`` (``pane/canvas.py``). A new toggle is a row
here plus the drawing that reads it. (This module imports nothing: ``bindings.py`` reads it
as the app starts.)
"""

from __future__ import annotations

from typing import Callable, NamedTuple

__all__ = ["PaneToggle", "PANE_TOGGLES", "DRAWN_TOGGLES", "BY_NAME", "DEP_OF", "ALL_TOGGLE_DEPS"]


class PaneToggle(NamedTuple):
    name: str  # the key's action is ``pane_toggle('<name>')``, its binding id ``view.<name>``
    keys: str  # Textual key names, comma-separated
    label: str  # the footer's short label
    text: str  # what it does, for help and the palette
    toast: str  # what the toast of a flip calls it ("Thinking: on")
    words: tuple[str, str] = ("off", "on")  # the toast's words for off and on
    attr: str | None = None  # the pane's attribute for it, a bool (``pane.show_thinking``)
    show: bool = False  # its key in the footer
    #: It changes how blocks are drawn (the drawing code asks ``out.toggled(name)``). False:
    #: it changes which entries are blocks (``hidden``: ``MessagePane._toggled`` builds
    #: the branch's blocks again).
    drawn: bool = True
    #: Which of the user's own folds a flip forgets (by the fold key's last part): the
    #: toggle overrides them.
    forgets: Callable[[str], bool] | None = None


#: The kinds of fold a tool call's output has (its output, diff, command, content, arguments).
_OUTPUT_FOLDS = frozenset({"out", "diff", "cmd", "content", "args", "json"})

PANE_TOGGLES: tuple[PaneToggle, ...] = (
    PaneToggle("thinking", "t", "Thinking", "Show or fold thinking blocks", "Thinking", attr="show_thinking",
               show=True, forgets=lambda kind: kind.startswith("think")),
    PaneToggle("tool_output", "o", "Output", "Tool output: a few lines, or all of it", "Tool output",
               ("short", "full"), attr="full_tool_output", show=True,
               forgets=lambda kind: kind in _OUTPUT_FOLDS or kind.startswith("sub")),
    PaneToggle("hidden", "h", "Hidden msgs", "Show custom messages marked display:false", "Hidden messages",
               attr="show_hidden", drawn=False),
)

BY_NAME: dict[str, PaneToggle] = {toggle.name: toggle for toggle in PANE_TOGGLES}
assert len(BY_NAME) == len(PANE_TOGGLES), "toggle names are unique"

#: The toggles that change how blocks are drawn, in the order of the render cache key's
#: ``toggles`` field.
DRAWN_TOGGLES: tuple[PaneToggle, ...] = tuple(toggle for toggle in PANE_TOGGLES if toggle.drawn)

#: Each drawn toggle's bit in ``Rendered.deps`` (bit 0 is ``canvas.DEP_QUERY``).
DEP_OF: dict[str, int] = {toggle.name: 2 << index for index, toggle in enumerate(DRAWN_TOGGLES)}
ALL_TOGGLE_DEPS = sum(DEP_OF.values())
