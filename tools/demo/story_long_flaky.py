"""The long story, hunting order-dependent tests: twenty runs in random order, the failures
counted from the full log (and the huge result hidden with a context edit), the subagent
extension enabled (the system prompt patched), and a scout that finds the causes."""

from __future__ import annotations

from tools.demo.blocks import Out, call, text
from tools.demo.fs import FS, line_of
from tools.demo.models import HAIKU
from tools.demo.outputs import simulate_seed_run
from tools.demo.prompt import SNIPPETS, tool_decls
from tools.demo.session import Session
from tools.demo.subagents import SubRun, final_text, start_subagent, subagent_result
from tools.demo.truncation import bash_out
from tools.piwriter import ms_of


def random_order_runs(s: Session, fs: FS) -> None:
    """pytest-randomly with twenty seeds, the failures counted; then the subagent extension."""
    s.user(
        "Good point about the module-level state. Add pytest-randomly to the dev extras and run the suite with 20 different seeds, "
        "let's see what breaks.",
        typing=(20, 40),
    )
    py_old = 'dev = ["pytest>=8", "mypy>=1.11", "freezegun>=1.5"]'
    py_new = 'dev = ["pytest>=8", "pytest-randomly>=3.15", "mypy>=1.11", "freezegun>=1.5"]'
    c1 = call("edit", {"path": "pyproject.toml", "oldText": py_old, "newText": py_new})
    c2 = call("bash", {"command": "pip install -q -e '.[dev]' && python -m pytest --version"})
    s.turn([c1, c2], [fs.edit("pyproject.toml", (py_old, py_new)), bash_out("pytest 8.3.3\n", duration=(6200, 9400))])
    runs = []
    all_fails: dict[str, int] = {}
    last_fails: list[str] = []
    for seed in range(1, 21):
        out, fails = simulate_seed_run(fs, seed)
        runs.append(out)
        last_fails = fails
        for f in fails:
            all_fails[f] = all_fails.get(f, 0) + 1
    log_path = f"/tmp/pi-bash-{s.g.hexn(16)}.log"
    c = call("bash", {"command": 'for seed in $(seq 1 20); do python -m pytest -v --randomly-seed="$seed"; done 2>&1'})
    s.turn(
        [c], [bash_out("".join(runs), exit_code=1 if last_fails else 0, full_path=log_path, duration=(21000, 26000))]
    )
    big_result = s.leaf
    counts_txt = "".join(f"{v:7d} {k}\n" for k, v in sorted(all_fails.items(), key=lambda kv: (-kv[1], kv[0])))
    c = call("bash", {"command": f"grep -h '^FAILED' {log_path} | cut -d' ' -f2 | sort | uniq -c | sort -rn"})
    s.turn(
        [text("The output was truncated, but the full log is on disk. Counting failures per test:"), c],
        [bash_out(counts_txt, duration=(20, 60))],
    )
    s.context_edit(big_result, None)
    rows = "\n".join(
        f"| `{k.split('/')[1]}` | {v} / 20 |" for k, v in sorted(all_fails.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    s.assistant(
        [
            text(
                f"""Random order breaks exactly the three modules with module-level state; everything else passed in all 20 runs:

| Test | Failed |
|------|-------:|
{rows}

Each one fails only in some orders, so these are order dependencies, not timing problems."""
            )
        ]
    )
    # the subagent extension gets enabled: the prompt and tools change
    skills = (
        "<skills>\nThe following skills provide specialized instructions for specific tasks.\nUse the read tool to load a skill's file when the task matches its description.\n\n"
        "<available_skills>\n  <skill>\n    <name>flaky-tests</name>\n    <description>Diagnose and fix order-dependent or timing-dependent tests.</description>\n"
        "    <location>/home/demo/.pi/agent/skills/flaky-tests/SKILL.md</location>\n  </skill>\n</available_skills>\n</skills>"
    )
    new_tools = ["read", "bash", "edit", "write", "grep", "find", "subagent"]
    s.system(
        sections={
            "tools": "<tools>\n"
            + "\n".join(f"- {t}: {SNIPPETS[t]}" for t in new_tools)
            + "\n\nAdditional tools may be available.\n</tools>",
            "docs": None,
            "skills": skills,
        },
        tools_added=tool_decls(["subagent"]),
        tools_removed=[{"name": "ls"}],
    )
    s.user("Have a scout find out why each of them depends on the order, then let workers fix them in parallel.")


def scout(s: Session, fs: FS, adir: str, artifacts: list[tuple[str, Session]]) -> None:
    """A single subagent run: a scout reads the three modules and reports the causes."""
    run_id = s.g.hexn(8)
    scout_task = (
        "These tests fail only in some random orders (pytest-randomly): tests/test_orders.py::test_first_order_number_of_the_day, "
        "tests/test_emails.py::test_digest_lists_products_alphabetically, tests/test_reports.py::test_empty_week_has_no_orders. "
        "Find the root cause of each, with file:line references. Don't change any files."
    )
    scout_call = call("subagent", {"agent": "scout", "task": scout_task})
    s.assistant([scout_call])
    sub = start_subagent(s, "scout", scout_task, HAIKU, 51)
    c1, c2, c3 = (
        call("read", {"path": "shop/orders.py"}),
        call("read", {"path": "shop/emails.py"}),
        call("read", {"path": "shop/reports.py"}),
    )
    sub.turn([c1, c2, c3], [fs.read("shop/orders.py"), fs.read("shop/emails.py"), fs.read("shop/reports.py")])
    c = call("grep", {"pattern": r"_sequence|_announced|ORDERS", "path": "."})
    sub.turn([c], [fs.grep(r"_sequence|_announced|ORDERS", ".")])
    l_seq = line_of(fs, "shop/orders.py", "_sequence = itertools.count(1)")
    l_ann = line_of(fs, "shop/emails.py", "_announced: set[str] = set()")
    l_ord = line_of(fs, "shop/reports.py", "ORDERS: list")
    sub.assistant(
        [
            text(
                f"""Root causes (no files changed). All three are module-level state shared between tests:

1. **test_orders.py::test_first_order_number_of_the_day**: `shop/orders.py:{l_seq}` creates `_sequence = itertools.count(1)` at import time. Every `next_order_number()` call advances it for the rest of the process, so the test only sees `-0001` if it runs before `test_order_numbers_increase`.
2. **test_emails.py::test_digest_lists_products_alphabetically**: `shop/emails.py:{l_ann}` keeps `_announced`, the set of products already announced. After `test_digest_skips_products_announced_before` has run, "Enamel mug" is never listed again in that process.
3. **test_reports.py::test_empty_week_has_no_orders**: `shop/reports.py:{l_ord}` keeps `ORDERS` as a module-level list. The test doesn't clear it and asks for `weekly_report(date.today())`; if `test_report_sums_revenue` ran first, its orders (12 and 14 November) are inside this week."""
            )
        ]
    )
    scout = SubRun("scout", scout_task, HAIKU, sub, artifact_base=f"{run_id}_scout")
    s.t = sub.t + 400
    res = subagent_result(scout, adir)
    s.result(
        scout_call,
        Out(
            final_text(scout),
            details={"mode": "single", "results": [res], "artifacts": {"dir": adir, "files": [res["artifactPaths"]]}},
            duration=(0, 1),
        ),
    )
    s.lines[-1]["message"]["durationMs"] = sub.t - ms_of(sub.header["timestamp"])
    artifacts.append((scout.artifact_base, sub))
