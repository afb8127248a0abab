"""Tool kinds in the app (issue 19, part 3): ``f`` reaches the filters by kind after Pi's,
and the stats screen (``s``) shows tool calls by kind and the files the branch touched."""

from __future__ import annotations

from textual.widgets import DataTable

from helpers import build_kinds_session, tree_state

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
        # kind, its tools, calls, errors (blank: none), time: as the results say, and "~" where
        # a result says nothing and the time from its call's entry to its own is taken (the
        # helpers' entries are a second apart: src/b.py's failed edit, 3 s after its call)
        assert cells(screen.query_one("#branch-kinds", DataTable)) == [
            ["file_edit", "edit", "2", "1", "~3.0s"],
            ["file_read", "read, ls", "2", "", "~2.0s"],
            ["file_search", "grep", "1", "", "~1.0s"],
            ["shell_exec", "bash", "1", "1", "1.5s"],
            ["subagent", "subagent", "1", "", "1m00s"],
        ]
        assert cells(screen.query_one("#session-kinds", DataTable)) == [
            ["file_edit", "edit", "2", "1", "~3.0s"],
            ["file_read", "read, ls", "2", "", "~2.0s"],
            ["file_search", "grep", "1", "", "~1.0s"],
            ["file_write", "write", "1", "", "~1.0s"],
            ["shell_exec", "bash", "1", "1", "1.5s"],
            ["subagent", "subagent", "1", "", "1m00s"],
        ]
        assert screen.query_one("#session-table").display  # (two branches: each table shown)
        # path, read, written, edited, searched
        assert cells(screen.query_one("#files-table", DataTable)) == [
            [".", "", "", "", "1"],
            ["src", "", "", "", "1"],
            ["src/a.py", "1", "", "1", ""],
        ]
        assert not screen.query_one("#kinds-status").display


async def test_the_stats_screen_shows_a_one_branch_session_once(make_app, settle, tmp_path):
    """With one branch, "this branch" and "whole session" are the same tables: shown once."""
    from helpers import user, write

    project = tmp_path / "--home-u-proj--"
    project.mkdir()
    write(project / "2026-11-20T10-00-00-000Z_sess-1.jsonl", [user("u1", None, 1, "hi")])
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        headings = [str(h.render()) for h in screen.query(".stats-heading") if h.display]
        assert headings == ["The session (one branch)", "Tool calls by kind",
                            "Files touched (ls, grep and find: searched; failed calls left out)"]
        assert not screen.query_one("#session-table").display and not screen.query_one("#session-kinds").display


async def test_the_files_table_fits_the_screen_with_long_paths(make_app, settle, tmp_path):
    """At 160 columns the last header ("Searched") was cut to "Se" by a long path."""
    from helpers import user, write
    from helpers import call, result, tool_use

    project = tmp_path / "--home-u-proj--"
    project.mkdir()
    deep = "/home/u/proj/" + "/".join(f"folder{k:02d}" for k in range(30)) + "/main.py"
    write(project / "2026-11-20T10-00-00-000Z_sess-1.jsonl", [
        user("u1", None, 1, "go"), tool_use("a1", "u1", 2, call("c1", "read", path=deep)),
        result("r1", "a1", 3, "c1", "read")])
    app = make_app(tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        table = app.screen.query_one("#files-table", DataTable)
        lines = [table.render_line(y).text for y in range(2)]
        assert lines[0].rstrip().endswith("Read  Written  Edited  Searched")
        assert lines[1].lstrip().startswith("…") and lines[1].rstrip().endswith("main.py     1")
