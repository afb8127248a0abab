"""Tool kinds in the app (issue 19, part 3): ``f`` reaches the filters by kind after Pi's,
and the stats screen (``s``) shows tool calls by kind and the files the branch touched."""

from __future__ import annotations

from textual.widgets import DataTable

from test_tool_kinds import build_kinds_session
from test_ui_tree_filter import tree_state

SIZE = (160, 45)


def cells(table: DataTable) -> list[list[str]]:
    return [[str(getattr(c, "plain", c)) for c in table.get_row_at(r)] for r in range(table.row_count)]


async def test_f_reaches_files_only_then_shell_only_then_default_again(make_app, settle, tmp_path):
    project = tmp_path / "--home-u-proj--"
    project.mkdir()
    build_kinds_session(project / "2026-11-20T10-00-00-000Z_sess-1.jsonl")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(*"fffff")
        await settle(pilot)
        # (the cursor's mark left out: where it lands is the filters' common rule)
        _, title, rows = tree_state(app)
        assert (title, [r.removeprefix("› ") for r in rows]) == ("Tree · files-only", [
            "• [read: /home/u/proj/src/a.py]",
            "• [edit: ./src/a.py]",
            "• [grep: /TODO/ in .]",
            "• [ls: src]",
            "• [edit: src/b.py]",
            "[write: notes.md]",
        ])
        await pilot.press("f")
        await settle(pilot)
        _, title, rows = tree_state(app)
        assert (title, [r.removeprefix("› ") for r in rows]) == ("Tree · shell-only", [
            "• [bash: npm test]",
            "[bash]: npm ci",
        ])
        await pilot.press("f")
        await settle(pilot)
        assert tree_state(app)[1] == "Tree · default"


async def test_the_stats_screen_shows_calls_by_kind_and_the_files_touched(make_app, settle, tmp_path):
    project = tmp_path / "--home-u-proj--"
    project.mkdir()
    build_kinds_session(project / "2026-11-20T10-00-00-000Z_sess-1.jsonl")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        # kind, its tools, calls, errors (blank: none), time (of the calls whose result says)
        assert cells(screen.query_one("#branch-kinds", DataTable)) == [
            ["file_edit", "edit", "2", "1", "20ms (1 of 2)"],
            ["file_read", "read, ls", "2", "", "5ms (1 of 2)"],
            ["file_search", "grep", "1", "", "—"],
            ["shell_exec", "bash", "1", "1", "1.5s"],
            ["subagent", "subagent", "1", "", "1m00s"],
        ]
        assert cells(screen.query_one("#session-kinds", DataTable)) == [
            ["file_edit", "edit", "2", "1", "20ms (1 of 2)"],
            ["file_read", "read, ls", "2", "", "5ms (1 of 2)"],
            ["file_search", "grep", "1", "", "—"],
            ["file_write", "write", "1", "", "—"],
            ["shell_exec", "bash", "1", "1", "1.5s"],
            ["subagent", "subagent", "1", "", "1m00s"],
        ]
        # path, read, written, edited, searched
        assert cells(screen.query_one("#files-table", DataTable)) == [
            [".", "", "", "", "1"],
            ["src", "", "", "", "1"],
            ["src/a.py", "1", "", "1", ""],
        ]
        assert not screen.query_one("#kinds-status").display
