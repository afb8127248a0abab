"""The long story's end: a chain run (a worker moves the reports cleanup into conftest.py,
a reviewer approves it), the parallel result condensed with a context edit, a last check,
a `!!` command kept out of the context, and three commits."""

from __future__ import annotations

from tools.demo.blocks import Out, call, text, think
from tools.demo.fs import FS, count_tests
from tools.demo.models import HAIKU, SONNET
from tools.demo.session import Session
from tools.demo.story_long_workers import R_IMP_NEW, R_IMP_OLD, R_NEW, R_OLD
from tools.demo.subagents import SubRun, final_text, start_subagent, subagent_result
from tools.demo.truncation import bash_out
from tools.piwriter import ms_of


def chain_and_commit(s: Session, fs: FS, adir: str, artifacts: list[tuple[str, Session]], par_result: dict) -> None:
    """The chain run and the end of the session; ``par_result`` is the parallel run's result."""
    chain_id = s.g.hexn(8)
    step1_task = (
        "Three workers just fixed order-dependent tests in parallel; the reports worker couldn't verify because the other two were still editing. "
        "Now: move the ORDERS cleanup from tests/test_reports.py into tests/conftest.py so it runs before every test in every module, "
        "then verify the whole suite with 20 random seeds."
    )
    step2_task = "Review this change for correctness and side effects, reply approve or request changes:\n\n{previous}"
    chain_call = call(
        "subagent", {"chain": [{"agent": "worker", "task": step1_task}, {"agent": "reviewer", "task": step2_task}]}
    )
    s.assistant(
        [
            text(
                "Orders and emails are fixed. The reports worker's change looks fine, its verification just ran while the other two were editing. "
                "Chaining a worker to make the cleanup global and re-verify, and a reviewer to check it:"
            ),
            chain_call,
        ]
    )
    s.t += 900
    sub1 = start_subagent(s, "worker", step1_task, HAIKU, 71)
    cf_old2 = "@pytest.fixture\ndef client(app):\n    return app.test_client()\n"
    cf_new2 = (
        cf_old2
        + '\n\n@pytest.fixture(autouse=True)\ndef clean_report_orders():\n    """shop.reports.ORDERS is module-level; start every test with an empty list."""\n    ORDERS.clear()\n'
    )
    cf_imp_old = "from shop import create_app\n"
    cf_imp_new = "from shop import create_app\nfrom shop.reports import ORDERS\n"
    c1 = call(
        "edit",
        {
            "path": "tests/conftest.py",
            "edits": [{"oldText": cf_imp_old, "newText": cf_imp_new}, {"oldText": cf_old2, "newText": cf_new2}],
        },
    )
    c2 = call(
        "edit",
        {
            "path": "tests/test_reports.py",
            "edits": [{"oldText": R_NEW, "newText": R_OLD}, {"oldText": R_IMP_NEW, "newText": R_IMP_OLD}],
        },
    )
    sub1.turn(
        [c1, c2],
        [
            fs.edit("tests/conftest.py", (cf_imp_old, cf_imp_new), (cf_old2, cf_new2)),
            fs.edit("tests/test_reports.py", (R_NEW, R_OLD), (R_IMP_NEW, R_IMP_OLD)),
        ],
    )
    n = count_tests(fs)
    c = call(
        "bash",
        {
            "command": "for s in $(seq 1 20); do python -m pytest -q --randomly-seed=$s | tail -1 | cut -d' ' -f1-2; done | sort | uniq -c"
        },
    )
    sub1.turn([c], [bash_out(f"     20 {n} passed\n", duration=(18000, 21000))])
    sub1.assistant(
        [
            text(
                f"""Changed:

- `tests/conftest.py`: new autouse fixture `clean_report_orders` that clears `shop.reports.ORDERS` **before** every test, in every module.
- `tests/test_reports.py`: removed the module-local `clear_orders` fixture (now redundant).

Verification: 20/20 random seeds pass ({n} tests each)."""
            )
        ]
    )
    step1 = SubRun("worker", step1_task, HAIKU, sub1, step=1, artifact_base=f"{chain_id}_worker_0")
    s.t = sub1.t + 300
    sub2 = start_subagent(s, "reviewer", step2_task.replace("{previous}", final_text(step1)), SONNET, 72)
    c1 = call("bash", {"command": "git diff -- tests/conftest.py"})
    diff_txt = (
        "diff --git a/tests/conftest.py b/tests/conftest.py\nindex 4be91c2..d0a7e13 100644\n--- a/tests/conftest.py\n+++ b/tests/conftest.py\n"
        "@@ -1,6 +1,7 @@\n import pytest\n \n from shop import create_app\n+from shop.reports import ORDERS\n \n \n @pytest.fixture\n"
        "@@ -22,3 +23,9 @@ def app(tmp_path):\n @pytest.fixture\n def client(app):\n     return app.test_client()\n+\n+\n+@pytest.fixture(autouse=True)\n"
        '+def clean_report_orders():\n+    """shop.reports.ORDERS is module-level; start every test with an empty list."""\n+    ORDERS.clear()\n'
    )
    c2 = call("grep", {"pattern": "ORDERS|record_order", "path": "shop"})
    sub2.turn([c1, c2], [bash_out(diff_txt, duration=(40, 90)), fs.grep("ORDERS|record_order", "shop")])
    sub2.assistant(
        [
            think(
                "The fixture is correct and cheap. Clearing before (not after) each test is the right choice: it protects every test "
                "regardless of what ran earlier. The underlying design, a module-level list as the order store, is still there though."
            ),
            text(
                """**Verdict: approve**

1. Clearing *before* each test is right: it doesn't rely on other tests cleaning up after themselves.
2. Autouse in `conftest.py` costs one `list.clear()` per test, which is negligible.
3. Follow-up, not blocking: `ORDERS` in `shop/reports.py` is process-global state in production too (gunicorn workers each have their own copy, so the weekly report only sees the orders of one worker). It should come from the order storage instead."""
            ),
        ]
    )
    step2 = SubRun("reviewer", step2_task, SONNET, sub2, step=2, artifact_base=f"{chain_id}_reviewer_1")
    s.t = sub2.t + 400
    chain_results = [subagent_result(step1, adir), subagent_result(step2, adir)]
    s.result(
        chain_call,
        Out(
            final_text(step2),
            details={
                "mode": "chain",
                "results": chain_results,
                "chainAgents": ["worker", "reviewer"],
                "totalSteps": 2,
                "artifacts": {"dir": adir, "files": [x["artifactPaths"] for x in chain_results]},
            },
            duration=(0, 1),
        ),
    )
    s.lines[-1]["message"]["durationMs"] = sub2.t - ms_of(sub1.header["timestamp"])
    artifacts.extend([(step1.artifact_base, sub1), (step2.artifact_base, sub2)])
    s.context_edit(
        par_result["id"],
        {
            "content": [
                text(
                    "[condensed] Parallel run: test_orders fixed (autouse fixture resets shop.orders._sequence), test_emails fixed "
                    "(autouse fixture resets shop.emails._announced). test_reports changed but not verified; redone by the chain run below."
                )
            ]
        },
    )
    c = call(
        "bash",
        {
            "command": "for s in $(seq 21 40); do python -m pytest -q --randomly-seed=$s | tail -1 | cut -d' ' -f1-2; done | sort | uniq -c"
        },
    )
    s.turn([text("Verifying with 20 new seeds:"), c], [bash_out(f"     20 {n} passed\n", duration=(19000, 23000))])
    s.assistant(
        [
            text(
                f"""All three order-dependent tests are fixed; 20 new random seeds all pass ({n} tests each).

| Test | Cause | Fix |
|------|-------|-----|
| `test_orders.py::test_first_order_number_of_the_day` | module-level `_sequence` counter | autouse fixture resets it |
| `test_emails.py::test_digest_lists_products_alphabetically` | module-level `_announced` set | autouse fixture resets it |
| `test_reports.py::test_empty_week_has_no_orders` | module-level `ORDERS` list | `conftest.py` clears it before every test |

The reviewer flagged a real production issue for later: **`ORDERS` is per-process**, so with several gunicorn workers the weekly report only sees part of the orders."""
            )
        ]
    )
    s.bash_exec(
        "git log --oneline -5",
        "b71e04d Checkout: discount code form and discount row\n3f9c2a1 Add discount codes to compute_totals\n9a41c07 Free shipping from 50 €\n5c3d8e2 Cart: merge lines with the same SKU\n0e6b1fa Show VAT as its own line\n",
        0,
        exclude=True,
    )
    s.user(
        "Commit in three commits: expiry and usage limits, the pytest migration, then pytest-randomly with the order fixes."
    )
    c = call(
        "bash",
        {
            "command": 'git add shop/discounts.py shop/redemptions.py shop/views.py tests/test_discounts.py && git commit -q -m "Discount codes: expiry dates and usage limits" && '
            "git add tests/ ':!tests/conftest.py' ':!tests/test_orders.py' ':!tests/test_emails.py' && git commit -q -m \"tests: migrate unittest suites to plain pytest\" && "
            'git add pyproject.toml tests/conftest.py tests/test_orders.py tests/test_emails.py && git commit -q -m "Run tests in random order; fix order-dependent tests" && '
            "git log --oneline -4"
        },
    )
    s.turn(
        [c],
        [
            bash_out(
                "e4a90b3 Run tests in random order; fix order-dependent tests\nc18f5d7 tests: migrate unittest suites to plain pytest\n7d2b6e9 Discount codes: expiry dates and usage limits\nb71e04d Checkout: discount code form and discount row\n",
                duration=(300, 700),
            )
        ],
    )
    s.assistant(
        [
            text(
                "Committed:\n\n```\ne4a90b3 Run tests in random order; fix order-dependent tests\nc18f5d7 tests: migrate unittest suites to plain pytest\n"
                "7d2b6e9 Discount codes: expiry dates and usage limits\n```\n\n"
                "Note that `tests/conftest.py` went into the last commit, so it also carries the `REDEMPTIONS_PATH` setting from the first one. "
                "If you want the history to be exact I can split that hunk with `git add -p` and amend."
            )
        ]
    )
