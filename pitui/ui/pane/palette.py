"""Colours for the message pane, taken from the app's Textual theme."""

from __future__ import annotations

from typing import NamedTuple

from rich.style import Style
from rich.theme import Theme
from textual.color import Color

__all__ = ["Palette", "palette_from_variables", "DEFAULT_PALETTE", "markdown_theme"]


# (a NamedTuple rather than a frozen dataclass: several times quicker to make as this module
# loads, before the first screen: benchmarks/startup_budget.py)
class Palette(NamedTuple):
    name: str
    dark: bool
    fg: Style
    muted: Style  # secondary text: times, ids, fold lines
    faint: Style  # gutters, rules
    user: Style
    assistant: Style
    tool: Style
    system: Style
    custom: Style
    summary: Style  # compaction and branch summaries
    error: Style
    warning: Style
    success: Style
    label: Style
    thinking: Style
    diff_add: Style
    diff_del: Style
    diff_hunk: Style
    link: Style
    hit: Style  # a search hit
    hit_current: Style  # the search hit next_hit went to
    code_theme: str


def _c(value: str | None, fallback: str) -> Color:
    try:
        return Color.parse(value) if value else Color.parse(fallback)
    except Exception:
        return Color.parse(fallback)


def palette_from_variables(variables: dict[str, str], name: str = "", dark: bool = True) -> Palette:
    bg = _c(variables.get("background"), "#121212" if dark else "#efefef")
    fg = _c(variables.get("foreground"), "#e0e0e0" if dark else "#202020")

    def over(color: Color) -> str:
        # Colours may carry alpha; flatten onto the background so Rich gets plain RGB.
        return (bg + color).hex if color.a < 1 else color.hex

    def text(key: str, fallback: str) -> str:
        return over(_c(variables.get(key), fallback))

    muted = bg.blend(fg, 0.62).hex
    faint = bg.blend(fg, 0.32).hex
    primary = text("text-primary", "#57A5E2")
    accent = text("text-accent", "#FFC473")
    error = text("text-error", "#D17E92")
    warning = text("text-warning", "#FFC473")
    success = text("text-success", "#8AD4A1")
    secondary = text("text-secondary", "#5684A5")
    hit_bg = over(_c(variables.get("warning"), "#FEA62B"))
    hit_fg = bg.hex
    return Palette(
        name=name,
        dark=dark,
        fg=Style(color=fg.hex),
        muted=Style(color=muted),
        faint=Style(color=faint),
        user=Style(color=primary, bold=True),
        assistant=Style(color=success, bold=True),
        tool=Style(color=accent),
        system=Style(color=secondary, bold=True),
        custom=Style(color=warning),
        summary=Style(color=primary),
        error=Style(color=error),
        warning=Style(color=warning),
        success=Style(color=success),
        label=Style(color=hit_fg, bgcolor=accent, bold=True),
        thinking=Style(color=muted, italic=True),
        diff_add=Style(color=success),
        diff_del=Style(color=error),
        diff_hunk=Style(color=_c("#56b6c2" if dark else "#0f7c8c", "#56b6c2").hex),
        link=Style(color=primary, underline=True),
        hit=Style(color=hit_fg, bgcolor=hit_bg),
        hit_current=Style(color=hit_fg, bgcolor=error, bold=True),
        code_theme="monokai" if dark else "friendly",
    )


DEFAULT_PALETTE = palette_from_variables({}, "default", True)


_MARKDOWN_THEMES: dict[Palette, Theme] = {}


def markdown_theme(palette: Palette) -> Theme:
    """Rich's Markdown styles in the palette's colours, for dark and light themes alike.
    Rich's own draw an h2 magenta and underlined (it read as an error) and inline code on
    black (a dark block on a light theme)."""
    theme = _MARKDOWN_THEMES.get(palette)
    if theme is None:
        bold = Style(bold=True)
        theme = _MARKDOWN_THEMES[palette] = Theme({
            "markdown.h1": palette.fg + Style(bold=True, underline=True),
            "markdown.h2": palette.fg + bold,
            "markdown.h3": palette.fg + Style(bold=True, italic=True),
            "markdown.h4": palette.muted + bold,
            "markdown.h5": palette.muted + Style(italic=True),
            "markdown.h6": palette.muted,
            "markdown.h7": palette.muted + Style(italic=True),
            "markdown.code": palette.tool,
            "markdown.code_block": palette.fg,
            "markdown.block_quote": palette.muted + Style(italic=True),
            "markdown.list": palette.muted,
            "markdown.item.number": palette.muted,
            "markdown.hr": palette.faint,
            "markdown.link": palette.link,
            "markdown.link_url": palette.link,
            "markdown.table.border": palette.faint,
            "markdown.table.header": palette.fg + bold,
            "markdown.kbd": palette.tool + bold,
        })
    return theme
