"""The HTML export on hostile Markdown (issue 17): it finishes on text made to be slow, and
nothing in a message becomes live HTML.

The slow inputs run in a subprocess with a generous timeout: the hand-written converter this
replaced took 34 s on a 3,000-space heading and never finished on 20,000; a regression fails
here instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from helpers import assistant, user, write
from pitui.core.export.html import export_html, render_markdown
from pitui.core.read.session import Session

SLOW = {
    "heading of 3,000 spaces": "#" + " " * 3000 + "x",
    "heading of 20,000 spaces": "# a" + " " * 20000 + "b\n" * 3,
    "20,000 stars": "*" * 20000,
    "20,000 underscores": "_" * 20000,
    "bold pairs unclosed": "**a " * 20000,
    "code spans unclosed": "`a " * 20000,
    "brackets": "[" * 20000 + "]" * 20000,
    "nested quotes": ">" * 20000 + " x",
    "nested lists": "".join(" " * (2 * k) + "- x\n" for k in range(2000)),
    "table of many columns": "|" + "a|" * 5000 + "\n|" + "-|" * 5000 + "\n|" + "b|" * 5000,
}


@pytest.mark.parametrize("text", SLOW.values(), ids=SLOW.keys())
def test_markdown_made_to_be_slow_exports(tmp_path, text):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1, "hi"), assistant("a1", "u1", 2, text)])
    got = subprocess.run([sys.executable, "-m", "pitui.cli", "export", str(f), "--format", "html"],
                         capture_output=True, timeout=60, env={**os.environ, "PITUI_CACHE_DIR": str(tmp_path / "c")})
    assert got.returncode == 0, got.stderr
    assert got.stdout.rstrip().endswith(b"</html>")


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


EVIL = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    "[click][r]\n\n[r]: javascript:alert(1)",
    "<javascript:alert(1)>",
    "![x](javascript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    '<a href="javascript:alert(1)">x</a>',
    "<iframe src=//evil></iframe>",
    "`<b>` **<i>x</i>**",
    "| <b>a</b> |\n|---|\n| <svg onload=alert(1)> |",
    "```\"><script>x</script>\ncode\n```",
]


@pytest.mark.parametrize("text", EVIL)
def test_nothing_in_a_message_becomes_live_html(text):
    p = _Tags()
    p.feed(render_markdown(text))
    allowed = {"p", "code", "pre", "strong", "em", "s", "blockquote", "ul", "ol", "li", "div", "table", "thead",
               "tbody", "tr", "th", "td", "h3", "h4", "h5", "h6", "hr", "br"}
    assert {t for t, _ in p.tags} <= allowed
    for tag, attrs in p.tags:
        for name, value in attrs:
            assert name in ("class", "start", "style"), (tag, name, value)
            assert "javascript" not in (value or "").lower()


def test_the_whole_page_has_no_live_html_from_a_message(tmp_path):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1, "\n\n".join(EVIL)), assistant("a1", "u1", 2, "\n\n".join(EVIL))])
    page = export_html(Session.open(f))
    p = _Tags()
    p.feed(page)
    assert [t for t, _ in p.tags].count("script") == 1  # the page's own (folding, the theme)
    assert all(t not in ("img", "iframe", "svg") for t, _ in p.tags)
    # the page's own anchors only: to its entries
    assert all(dict(attrs)["href"].startswith("#") for t, attrs in p.tags if t == "a")
    # (the page's own fold buttons are its only handlers)
    assert {v for _, attrs in p.tags for n, v in attrs if n.startswith("on")} == {"pituiFold(true)", "pituiFold(false)"}


def test_control_characters_in_markdown_stay_harmless():
    h = render_markdown("# title \x1b]52;c;SGk=\x07 end\n\ntext \x9b2J and \x00 nul")
    assert not any(c in h for c in "\x1b\x07\x9b\x00")
    assert "title" in h and "end" in h and "nul" in h


def test_image_data_of_many_spaces_then_a_bad_character_exports(tmp_path):
    """Issue 33, hole 4: the image check once backtracked over every space (20 KB took 7 s,
    200 KB about 4 minutes); it is linear, and the image is refused as not base64."""
    image = {"type": "image", "mimeType": "image/png", "data": " " * 200_000 + "!"}
    good = {"type": "image", "mimeType": "image/png", "data": "aGVs\nbG8=  \n"}
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1, "hi"),
                                     assistant("a1", "u1", 2, content=[image, good])])
    got = subprocess.run([sys.executable, "-m", "pitui.cli", "export", str(f), "--format", "html"],
                         capture_output=True, timeout=60, env={**os.environ, "PITUI_CACHE_DIR": str(tmp_path / "c")})
    assert got.returncode == 0, got.stderr
    page = got.stdout.decode()
    assert page.count("image not shown (not base64 image/png)") == 1
    assert page.count('src="data:image/png;base64,aGVsbG8="') == 1
