"""Messages' Markdown is drawn by Rich with one parser for all (``markdown._Markdown``) and
fenced code by pitui's own code block (``markdown._Fence``), built straight from the lexer's
tokens. Both must look exactly as Rich's own ``Markdown`` and ``CodeBlock`` (its ``Syntax``:
one cell of padding on the theme's background), cell for cell, in every case a message can
bring: any language or none, tabs, wide characters, blank lines, control characters, code
inside lists and quotes, prose around it, both themes and narrow widths. One difference on
purpose: a code line longer than the width is never wrapped (Rich wraps it), it is cut and
ends in ``CUT_MARK`` (a command or a URL stays one line)."""

from __future__ import annotations

import io

import pytest
from rich.cells import cell_len
from rich.console import Console
from rich.markdown import Markdown
from rich.segment import Segment

from pitui.ui.pane.markdown import CUT_MARK, _Markdown, _PlainFenceMarkdown
from pitui.ui.pane.canvas import Out, RenderCtx

SAMPLES = {
    "python": "```python\ndef f(x):\n\treturn {'a': x}  # comment\n\n\nclass C:  pass\n```",
    "json": '```json\n{"a": [1, 2.5, null, true], "b": "x\\ty"}\n```',
    "bash": "```bash\nfor f in *.py; do echo \"$f\" | wc -l; done\n```",
    "broken json": "```json\n// not json\nprint(f\"{x!r}\")  # Ελληνικά\n```",
    "no language": "```\nplain line\n  indented\n```",
    "unknown language": "```nosuchlanguage\nx = 1\n```",
    "info string": "```python title=a.py\nx = 1\n```",
    "tilde": "~~~ts\nconst a: number = 1;\n~~~",
    "indented code": "para\n\n    indented code\n    more\n",
    "empty": "```python\n```",
    "leading blank lines": "```python\n\n\nx = 1\n```",
    "trailing spaces": "```python\nx = 1      \ny = 2\n```",
    "long line": "```python\n" + "value = call(" + ", ".join(f"argument_{i}" for i in range(30)) + ")\n```",
    "long word": "```\n" + "x" * 300 + "\n```",
    "long trailing whitespace": "```\nabc" + " " * 200 + "\n```",
    "wide characters": "```python\ns = '漢字かな交じり文' * 3  # 全角\nt = '😀😀😀'\n```",
    "wide long": "```\n" + "漢字" * 60 + "\n```",
    "control characters": "```python\na = 1\x07\x08\rb = 2\x0b\x0c\n```",
    "tabs": "```go\nfunc main() {\n\tif x {\n\t\treturn\t// done\n\t}\n}\n```",
    "in a list": "- item\n\n  ```python\n  x = [1, 2, 3]\n  ```\n- next",
    "in a quote": "> quoted\n>\n> ```bash\n> ls -la\n> ```",
    "two fences": "a\n\n```python\nx = 1\n```\n\nb\n\n```diff\n-old\n+new\n```",
    "unclosed": "```python\nx = 1\ny = 2",
    # the rest of a message around code, through the same (shared) parser
    "prose": "# Title\n\nSome *em* **strong** ~~gone~~ `code` [link](http://x.y) <kbd>K</kbd>\n\n"
             "| a | b |\n|---|:-:|\n| 1 | `2` |\n\n1. one\n2. two\n   - nested\n\n---\n\n## Sub\n> q",
}


def _cells(lines: list[list[Segment]]) -> list[list[tuple[str, object]]]:
    """Each line as its cells: (character, style)."""
    out = []
    for line in lines:
        row = []
        for seg in line:
            if seg.control:
                continue
            for ch in seg.text:
                row.append((ch, seg.style))
        out.append(row)
    return out


def _draw(md: Markdown, width: int) -> list[list[tuple[str, object]]]:
    console = Console(file=io.StringIO(), width=width, force_terminal=True, color_system="truecolor",
                      highlight=False, markup=False)
    opts = console.options.update(width=width, min_width=width, max_width=width, height=None)
    return _cells(console.render_lines(md, opts, pad=True))


@pytest.mark.parametrize("theme", ["monokai", "friendly"])
@pytest.mark.parametrize("width", [80, 37, 12, 4])
@pytest.mark.parametrize("name", list(SAMPLES))
def test_fenced_code_looks_exactly_as_rich_draws_it(name, width, theme):
    src = SAMPLES[name]
    ours = _draw(_Markdown(src, code_theme=theme, hyperlinks=False), width)
    rich = _draw(Markdown(src, code_theme=theme, hyperlinks=False), width)
    if not any(ch == CUT_MARK for line in ours for ch, _ in line):
        assert ours == rich
        return
    # a code line too long for the width: cut (one line), where Rich wraps it (several)
    assert len(ours) < len(rich)
    assert all(cell_len("".join(ch for ch, _ in line)) == width for line in ours)


@pytest.mark.parametrize("width", [80, 40, 13])
def test_a_long_code_line_is_cut_with_a_mark_never_wrapped(width):
    command = "git clone https://github.com/example-organisation/a-long-repository-name.git && cd it"
    src = f"```bash\n{command}\necho short\n```"
    ours = _draw(_Markdown(src, code_theme="monokai", hyperlinks=False), width)
    whole = _draw(Markdown(src, code_theme="monokai", hyperlinks=False), 200)  # (Rich, wide enough)
    assert len(ours) == 4  # a blank, the two lines, a blank: nothing wrapped
    room = width - 2  # (a cell of padding on each side)
    cut = ours[1]
    assert len(cut) == width and cut[room][0] == CUT_MARK
    assert "".join(ch for ch, _ in cut[1:room]) == command[: room - 1]
    assert cut[1:room] == whole[1][1:room]  # coloured as Rich colours the whole line
    assert "".join(ch for ch, _ in ours[2]).strip() == "echo short"


@pytest.mark.parametrize("width", [80, 12])
def test_fences_put_off_are_plain_and_still_look_as_rich_draws_plain_code(width):
    src = SAMPLES["python"] + "\n\n" + SAMPLES["bash"]
    md = _PlainFenceMarkdown(src, code_theme="monokai", hyperlinks=False)
    md.plain_fences = {"python"}
    ours = _draw(md, width)
    plain = src.replace("```python", "```text", 1)
    # (at 12 columns its lines are cut, not wrapped as Rich does: drawn as ours draws text)
    reference = Markdown if width == 80 else _Markdown
    assert ours == _draw(reference(plain, code_theme="monokai", hyperlinks=False), width)
    assert ours != _draw(Markdown(src, code_theme="monokai", hyperlinks=False), width)


def test_a_fence_is_drawn_in_the_pane_with_its_colours():
    """Through the pane's own drawing (``Out.markdown``): the code's tokens are coloured by
    the theme and sit on its background, padded by one cell."""
    from pitui.ui.pane.palette import DEFAULT_PALETTE

    ctx = RenderCtx(palette=DEFAULT_PALETTE, console=Console(file=io.StringIO(), width=40,
                                                                    force_terminal=True))
    out = Out(ctx, 40)
    out.markdown("```python\ndef f():\n    return 1\n```")
    texts = [s.text for s in out.result().strips]
    assert [t.rstrip() for t in texts] == ["", " def f():", "     return 1", ""]
    line = out.result().strips[1]
    segs = [s for s in line if s.text.strip()]
    assert segs[0].text == "def" and segs[0].style.color is not None
    assert {s.style.bgcolor for s in line} == {segs[0].style.bgcolor}
