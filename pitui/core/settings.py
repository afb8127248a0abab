"""pitui's settings: the few choices the app remembers from one run to the next (the
sidebar hidden, the panels' widths, costs in the sidebar), in one small JSON file in the
user's config folder.

The layout is kept per terminal-size class (:data:`WIDTH_CLASSES`): hiding the sidebar in a
narrow tmux split leaves it shown in a later wide window. The file holds one object per
class, ``{"narrow": {...}, "wide": {...}}``; a file of an older pitui (one flat layout, for
every size) is read as the wide class's.

The file is read as untrusted data: a missing, damaged, oversized or hostile file (wrong
types, numbers out of range, not a regular file) gives the defaults for what it gets wrong,
and never stops the app. It is written whole or not at all, private (``0600`` in a ``0700``
folder, as the cache is: :mod:`pitui.core.paths`); a file that cannot be written leaves one
line in :func:`pitui.core.paths.take_notices`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import orjson

from .paths import notice, private_dir, write_private
from .read.lines import open_regular

__all__ = ["Layout", "Settings", "WIDTH_CLASSES", "DESKTOP_NOTIFICATIONS", "config_dir", "settings_path", "load", "save", "pi_command",
           "SIDEBAR_WIDTH_RANGE", "TREE_SHARE_RANGE"]

FILE_NAME = "settings.json"
MAX_BYTES = 64 * 1024  # a settings file is a few lines: anything longer is not ours

#: The sidebar's width chosen by the user, in percent of the screen's width.
SIDEBAR_WIDTH_RANGE = (5.0, 60.0)
#: The tree's share of the width the tree and the pane have together, in percent.
TREE_SHARE_RANGE = (10.0, 90.0)


#: The terminal sequences a desktop notification can be asked for with (``notify_desktop``).
DESKTOP_NOTIFICATIONS = ("osc9", "osc777")

#: The terminal-size classes a layout is kept for (the app says which width is which).
WIDTH_CLASSES = ("narrow", "wide")


@dataclass(frozen=True, slots=True)
class Layout:
    """The panels as chosen for one size class. A width of None: the default, from the
    terminal's size."""

    sidebar_hidden: bool = False
    sidebar_width: float | None = None  # percent of the screen (SIDEBAR_WIDTH_RANGE)
    tree_share: float | None = None  # percent of the tree and the pane (TREE_SHARE_RANGE)

    def but(self, **changes) -> "Layout":
        """This layout with ``changes`` (widths kept inside their ranges)."""
        new = replace(self, **changes)
        return replace(new, sidebar_width=_in_range(new.sidebar_width, SIDEBAR_WIDTH_RANGE),
                       tree_share=_in_range(new.tree_share, TREE_SHARE_RANGE))


def _narrow_default() -> Layout:
    return Layout(sidebar_hidden=True)  # (the message pane keeps its room: the sidebar one key away)


@dataclass(frozen=True, slots=True)
class Settings:
    """What the app remembers: a layout per size class."""

    narrow: Layout = field(default_factory=_narrow_default)
    wide: Layout = field(default_factory=Layout)
    #: the command that runs Pi (``r`` resumes a session in it, ``R`` forks one), as a shell
    #: would split it: ``npx @earendil-works/pi-coding-agent``; None: ``pi`` on the PATH.
    #: ``$PITUI_PI_COMMAND`` comes first.
    pi_command: str | None = None
    #: the folder the last export went to (the export dialog starts there)
    export_folder: str | None = None
    #: each session's cost shown in its sidebar row (ctrl+d), in every sort
    sidebar_costs: bool = False
    #: when an agent's session moves to waiting or failed: ring the terminal's bell
    notify_bell: bool = False
    #: ... and ask the terminal for a desktop notification: "osc9" (iTerm2, WezTerm, Windows
    #: Terminal, Ghostty, foot), "osc777" (urxvt, Ghostty, foot, kitty's older form) or None
    notify_desktop: str | None = None

    def layout(self, width_class: str) -> Layout:
        return self.narrow if width_class == "narrow" else self.wide

    def with_layout(self, width_class: str, layout: Layout) -> "Settings":
        return replace(self, **{"narrow" if width_class == "narrow" else "wide": layout})


def _in_range(value: object, bounds: tuple[float, float]) -> float | None:
    """``value`` as a width inside ``bounds`` (to a thousandth: a hundredth of a cell on
    the widest screen), or None when it is not a finite number (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    lo, hi = bounds
    return round(min(hi, max(lo, float(value))), 3)


def config_dir() -> Path:
    """pitui's config folder: ``$PITUI_CONFIG_DIR``, else platformdirs' user config folder."""
    env = os.environ.get("PITUI_CONFIG_DIR")
    if env:
        return Path(env)
    from platformdirs import user_config_dir

    return Path(user_config_dir("pitui", appauthor=False))


def settings_path() -> Path:
    return config_dir() / FILE_NAME


def load(path: str | os.PathLike | None = None) -> Settings:
    """The settings in ``path`` (default :func:`settings_path`); the defaults for anything
    missing or wrong, and for a file that is missing, unreadable or not settings at all."""
    path = settings_path() if path is None else Path(path)
    try:
        with open_regular(path) as handle:  # (a FIFO or a device is never waited on)
            raw = handle.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            return Settings()
        data = orjson.loads(raw)
    except (OSError, ValueError):  # missing, unreadable, not JSON (orjson's error is a ValueError)
        return Settings()
    if not isinstance(data, dict):
        return Settings()
    command = data.get("pi_command")
    command = command if isinstance(command, str) and command.strip() else None
    folder = data.get("export_folder")
    folder = folder if isinstance(folder, str) and folder.strip() else None
    costs = data.get("sidebar_costs") is True
    bell = data.get("notify_bell") is True
    desktop = data.get("notify_desktop")
    desktop = desktop if desktop in DESKTOP_NOTIFICATIONS else None
    extra = {"pi_command": command, "export_folder": folder, "sidebar_costs": costs, "notify_bell": bell,
             "notify_desktop": desktop}
    if not any(name in data for name in WIDTH_CLASSES):  # (an older pitui's one flat layout)
        return Settings(wide=_layout(data, Layout()), **extra)
    return Settings(narrow=_layout(data.get("narrow"), _narrow_default()), wide=_layout(data.get("wide"), Layout()),
                    **extra)


def _layout(data: object, default: Layout) -> Layout:
    """The layout ``data`` holds; ``default``'s value for anything missing or wrong."""
    if not isinstance(data, dict):
        return default
    hidden = data.get("sidebar_hidden")
    return default.but(
        sidebar_hidden=hidden if isinstance(hidden, bool) else default.sidebar_hidden,
        sidebar_width=data.get("sidebar_width"),
        tree_share=data.get("tree_share"),
    )


def pi_command(settings: Settings, environ: Mapping[str, str] | None = None) -> list[str]:
    """The command that runs Pi, split as a shell would: ``$PITUI_PI_COMMAND``, else the
    settings' ``pi_command``, else ``pi``. Raises ValueError for one that cannot be split (an
    unclosed quote) or is empty."""
    import shlex

    env = os.environ if environ is None else environ
    text = env.get("PITUI_PI_COMMAND") or settings.pi_command or "pi"
    words = shlex.split(text)
    if not words:
        raise ValueError("the Pi command is empty")
    return words


def save(settings: Settings, path: str | os.PathLike | None = None) -> bool:
    """Write ``settings`` to ``path`` (default :func:`settings_path`), whole or not at all,
    private. False (and a notice) when it cannot be written."""
    path = settings_path() if path is None else Path(path)
    folder = private_dir(path.parent, what="settings folder", without="settings not saved")
    if folder is None:
        return False
    try:
        data = asdict(settings)
        for key in ("pi_command", "export_folder", "sidebar_costs", "notify_desktop", "notify_bell"):  # (once chosen)
            if data[key] is None or data[key] is False:
                del data[key]
        write_private(path, orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    except OSError as exc:
        notice(f"{path}: the settings cannot be saved ({exc.strerror or exc})")
        return False
    return True
