"""Both exports end with the files the branch touched (issue 19, part 3)."""

from __future__ import annotations

from helpers import assistant, user, write
from pitui.core.export.html import export_html
from pitui.core.export.markdown import export_markdown
from pitui.core.read.session import Session
from helpers import build_kinds_session, call, result, tool_use


def test_the_markdown_transcript_ends_with_the_files_the_branch_touched(tmp_path):
    s = Session.open(build_kinds_session(tmp_path / "s.jsonl"))
    md = export_markdown(s)
    assert md.endswith(
        "\n---\n\n## Files touched\n\n"
        "*By this branch's calls: `ls`, `grep` and `find` count as searched; failed calls are left out.*\n\n"
        "- `.`: searched\n"
        "- `src`: searched\n"
        "- `src/a.py`: read, edited\n")
    # the other branch: the file it wrote
    other = export_markdown(s, s.index_of["x1"])
    assert other.endswith("## Files touched\n\n"
                          "*By this branch's calls: `ls`, `grep` and `find` count as searched; failed calls are left out.*"
                          "\n\n- `notes.md`: written\n")


def test_the_html_page_ends_with_the_files_the_branch_touched(tmp_path):
    s = Session.open(build_kinds_session(tmp_path / "s.jsonl"))
    page = export_html(s)
    section = page[page.index("</main>") + len("</main>"):page.index("<script>")]
    assert section == (
        '<section class="files-touched"><h2>Files touched</h2><p class="note">By this branch\'s calls: '
        "<code>ls</code>, <code>grep</code> and <code>find</code> count as searched; failed calls are left out.</p>"
        "<ul><li><code>.</code> searched</li><li><code>src</code> searched</li>"
        "<li><code>src/a.py</code> read, edited</li></ul></section>")


def test_no_section_when_the_branch_touched_no_file(tmp_path):
    s = Session.open(write(tmp_path / "s.jsonl", [
        user("u1", None, 1), tool_use("a1", "u1", 2, call("c1", "bash", command="ls")),
        result("r1", "a1", 3, "c1", "bash"), assistant("a2", "r1", 4, "ok")]))
    assert "Files touched" not in export_markdown(s)
    assert "files-touched\"" not in export_html(s)


def test_a_hostile_path_stays_one_safe_line(tmp_path):
    path = "a\nb\x1b[31m<i>.py"
    s = Session.open(write(tmp_path / "s.jsonl", [
        user("u1", None, 1), tool_use("a1", "u1", 2, call("c1", "read", path=path)),
        result("r1", "a1", 3, "c1", "read")]))
    md = export_markdown(s)
    last = md.rstrip("\n").rsplit("\n", 1)[-1]
    assert last.startswith("- `a") and last.endswith("`: read") and "\x1b" not in last
    page = export_html(s)
    assert "<i>.py" not in page and "\x1b" not in page
    assert "&lt;i&gt;.py</code> read</li>" in page
