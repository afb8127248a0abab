"""The long story, order-dependent tests fixed by three subagent workers in parallel: one
per piece of module-level state; the third cannot verify its fix while the others edit."""

from __future__ import annotations

from tools.demo.blocks import Out, call, text, think
from tools.demo.fs import FS, count_tests
from tools.demo.models import GPT5_MINI, HAIKU, usage_obj
from tools.demo.session import Session
from tools.demo.subagents import SubRun, final_text, start_subagent, subagent_result
from tools.demo.truncation import bash_out

# The reports worker's change to tests/test_reports.py; the chain run moves it to conftest.py.
R_OLD = "from shop.reports import ORDERS, record_order, weekly_report\n"
R_NEW = "from shop.reports import ORDERS, record_order, weekly_report\n\n\n@pytest.fixture(autouse=True)\ndef clear_orders():\n    yield\n    ORDERS.clear()\n"
R_IMP_OLD = "from decimal import Decimal\n\nfrom shop.reports"
R_IMP_NEW = "from decimal import Decimal\n\nimport pytest\n\nfrom shop.reports"


def parallel_fixes(s: Session, fs: FS, adir: str, artifacts: list[tuple[str, Session]]) -> dict:
    """The parallel run and its result (returned: the chain run condenses it later); the
    transcripts to write go to ``artifacts``."""
    par_id = s.g.hexn(8)
    tasks = [
        (
            "worker",
            "Make tests/test_orders.py independent of test order: shop/orders.py advances a module-level itertools.count. Reset it for every test in tests/test_orders.py (monkeypatch); don't change next_order_number()'s signature. Verify with 10 random seeds.",
        ),
        (
            "worker",
            "shop/emails.py keeps a module-level _announced set, so tests/test_emails.py depends on test order. Reset it for every test in tests/test_emails.py. Verify with 10 random seeds.",
        ),
        (
            "worker",
            "tests/test_reports.py::test_empty_week_has_no_orders depends on test order because shop.reports.ORDERS is module-level. Make the reports tests independent of order. Verify with 10 random seeds.",
        ),
    ]
    par_call = call("subagent", {"tasks": [{"agent": a_, "task": t_} for a_, t_ in tasks]})
    s.assistant([text("The scout confirms it: three pieces of module-level state. One worker per test:"), par_call])
    start_t = s.t + 1200
    o_imp_old = "from datetime import date, datetime, timedelta\n"
    o_imp_new = "import itertools\nfrom datetime import date, datetime, timedelta\n"
    o_old = "from shop.orders import Order, next_order_number\n"
    o_new = 'from shop import orders\nfrom shop.orders import Order, next_order_number\n\n\n@pytest.fixture(autouse=True)\ndef fresh_sequence(monkeypatch):\n    monkeypatch.setattr(orders, "_sequence", itertools.count(1))\n'
    e_imp_old = "from decimal import Decimal\n\nfrom shop.emails import order_confirmation, weekly_digest\n"
    e_imp_new = 'from decimal import Decimal\n\nimport pytest\n\nfrom shop import emails\nfrom shop.emails import order_confirmation, weekly_digest\n\n\n@pytest.fixture(autouse=True)\ndef nothing_announced_yet(monkeypatch):\n    monkeypatch.setattr(emails, "_announced", set())\n'
    par_runs: list[SubRun] = []
    for i, (agent, task) in enumerate(tasks):
        s.t = start_t
        sub = start_subagent(s, agent, task, GPT5_MINI if i == 1 else HAIKU, 60 + i)
        if i == 0:
            c1 = call("read", {"path": "tests/test_orders.py", "limit": 20})
            sub.turn([c1], [fs.read("tests/test_orders.py", None, 20)])
            c = call(
                "edit",
                {
                    "path": "tests/test_orders.py",
                    "edits": [{"oldText": o_imp_old, "newText": o_imp_new}, {"oldText": o_old, "newText": o_new}],
                },
            )
            sub.turn([c], [fs.edit("tests/test_orders.py", (o_imp_old, o_imp_new), (o_old, o_new))])
            c = call(
                "bash",
                {
                    "command": "for s in $(seq 1 10); do python -m pytest -q --randomly-seed=$s tests/test_orders.py | tail -1; done | sort | uniq -c"
                },
            )
            sub.turn([c], [bash_out("     10 4 passed in 0.04s\n", duration=(4200, 5600))])
            sub.assistant(
                [
                    text(
                        "Added an autouse `fresh_sequence` fixture to `tests/test_orders.py` that monkeypatches `shop.orders._sequence` with a new `itertools.count(1)` for every test. 10/10 random seeds pass."
                    )
                ]
            )
        elif i == 1:
            c1 = call("read", {"path": "tests/test_emails.py"})
            sub.turn(
                [think("Reset the set with monkeypatch so it is restored afterwards."), c1],
                [fs.read("tests/test_emails.py")],
            )
            c = call("edit", {"path": "tests/test_emails.py", "oldText": e_imp_old, "newText": e_imp_new})
            sub.turn([c], [fs.edit("tests/test_emails.py", (e_imp_old, e_imp_new))])
            c = call(
                "bash",
                {
                    "command": "for s in $(seq 1 10); do python -m pytest -q --randomly-seed=$s tests/test_emails.py | tail -1; done | sort | uniq -c"
                },
            )
            sub.turn([c], [bash_out("     10 4 passed in 0.03s\n", duration=(3900, 5100))])
            sub.assistant(
                [
                    text(
                        "`tests/test_emails.py` now has an autouse fixture `nothing_announced_yet` that gives every test an empty `_announced` set. 10/10 random seeds pass."
                    )
                ]
            )
        else:
            c1 = call("read", {"path": "tests/test_reports.py"})
            sub.turn([c1], [fs.read("tests/test_reports.py")])
            c = call(
                "edit",
                {
                    "path": "tests/test_reports.py",
                    "edits": [{"oldText": R_IMP_OLD, "newText": R_IMP_NEW}, {"oldText": R_OLD, "newText": R_NEW}],
                },
            )
            sub.turn(
                [think("Clear ORDERS after every test in this module so nothing leaks into the empty-week test."), c],
                [fs.edit("tests/test_reports.py", (R_IMP_OLD, R_IMP_NEW), (R_OLD, R_NEW))],
            )
            c = call(
                "bash",
                {
                    "command": "for s in $(seq 1 10); do python -m pytest -q --randomly-seed=$s | tail -1; done | sort | uniq -c"
                },
            )
            k = count_tests(fs)
            sub.turn(
                [c],
                [
                    bash_out(
                        f"      6 1 failed, {k - 1} passed in 0.74s\n      4 {k} passed in 0.71s\n",
                        duration=(9800, 12500),
                    )
                ],
            )
            c = call(
                "bash",
                {
                    "command": "for s in $(seq 1 10); do python -m pytest -q --randomly-seed=$s | grep ^FAILED; done | sort | uniq -c"
                },
            )
            sub.turn(
                [c],
                [
                    bash_out(
                        "      4 FAILED tests/test_orders.py::test_first_order_number_of_the_day - AssertionError: assert '20261102-0003' == '20261102-0001'\n      2 FAILED tests/test_emails.py::test_digest_lists_products_alphabetically - AssertionError: assert ['- Market te...\n",
                        duration=(9900, 12800),
                    )
                ],
            )
            sub.assistant(
                [
                    text(
                        "My change is in place (autouse `clear_orders` fixture in `tests/test_reports.py`), and **test_reports.py did not fail in any of the 10 runs**. "
                        "But I can't give you a clean verification: 6/10 whole-suite runs failed in `tests/test_orders.py` and `tests/test_emails.py`, "
                        "which I was told not to touch and which seem to be changing while I run. Reporting this as a failure so you can re-check."
                    )
                ]
            )
        r = SubRun(
            agent,
            task,
            sub.model,
            sub,
            exit_code=1 if i == 2 else 0,
            error="verification failed: 6/10 random seeds had failures (tests/test_orders.py, tests/test_emails.py)"
            if i == 2
            else None,
            artifact_base=f"{par_id}_{agent}_{i}",
            write_transcript=i != 0,
        )
        par_runs.append(r)
    s.t = max(r.session.t for r in par_runs) + 500
    results = [subagent_result(r, adir) for r in par_runs]
    ok = sum(1 for r in par_runs if r.exit_code == 0)
    par_text = f"Parallel: {ok}/{len(par_runs)} succeeded\n\n" + "\n\n".join(
        f"[{r.agent} {i + 1}] {'✓' if r.exit_code == 0 else '✗ exit ' + str(r.exit_code)}\n{final_text(r)}"
        for i, r in enumerate(par_runs)
    )
    total_usage = usage_obj(
        HAIKU,
        sum(x["usage"]["input"] for x in results),
        sum(x["usage"]["output"] for x in results),
        sum(x["usage"]["cacheRead"] for x in results),
        sum(x["usage"]["cacheWrite"] for x in results),
    )
    total_usage["cost"]["total"] = sum(x["usage"]["cost"] for x in results)
    par_result = s.result(
        par_call,
        Out(
            par_text,
            details={
                "mode": "parallel",
                "results": results,
                "progressSummary": {
                    "toolCount": sum(x["progressSummary"]["toolCount"] for x in results),
                    "tokens": sum(x["progressSummary"]["tokens"] for x in results),
                    "durationMs": max(x["progressSummary"]["durationMs"] for x in results),
                },
                "artifacts": {"dir": adir, "files": [x["artifactPaths"] for x in results]},
            },
            duration=(0, 1),
        ),
    )
    m = par_result["message"]
    m["durationMs"] = max(x["progressSummary"]["durationMs"] for x in results)
    # nested model work is reported as the tool result's own usage (before isError, like Pi)
    par_result["message"] = (
        {k: m[k] for k in ("role", "toolCallId", "toolName", "content", "details")}
        | {"usage": total_usage}
        | {k: m[k] for k in ("isError", "durationMs", "timestamp")}
    )
    for r in par_runs:
        if r.write_transcript:
            artifacts.append((r.artifact_base, r.session))
    return par_result
