"""The long story, the unittest suites migrated to pytest file by file: a long thinking
block, a response cut off at the output limit, and an automatic compaction halfway."""

from __future__ import annotations

import re

from tools.demo.blocks import call, error_out, text, think
from tools.demo.fs import FS, count_tests
from tools.demo.models import SONNET, usage_obj
from tools.demo.outputs import pytest_q
from tools.demo.session import Session
from tools.demo.shop_files import SUITES
from tools.demo.suites import Suite, render_pytest
from tools.demo.truncation import bash_out

MIGRATION_THINKING = """The user wants every unittest-style file under tests/ converted to plain pytest, one file at a time, running each file after converting it.

Let me think about what the conversion involves and what could go wrong, because there are about twenty files and I want one consistent, mechanical approach instead of improvising per file.

1. Structure. Each file has a single `unittest.TestCase` subclass. `setUp` assigns attributes (`self.cart = Cart()`); those become `@pytest.fixture` functions with the same name, and the test methods become module-level functions that take the fixtures they use as parameters. Fixtures built from other attributes (in test_orders.py `self.order` is built from `self.placed`) become fixtures that take the other fixture as a parameter. A test should only request the fixtures it actually uses, otherwise the signatures get noisy.

2. Assertions. `assertEqual(a, b)` → `assert a == b`, `assertTrue(x)` → `assert x`, `assertFalse(x)` → `assert not x`, `assertIn(a, b)` → `assert a in b`, `assertIsNone(x)` → `assert x is None`, `assertLess(a, b)` → `assert a < b`, `assertRaises(E)` → `pytest.raises(E)`, `assertRaisesRegex(E, r)` → `pytest.raises(E, match=r)`. Plain asserts get pytest's assertion rewriting, so failure output gets better, not worse.

3. `assertAlmostEqual(a, b, places=2)`. The literal translation is `a == pytest.approx(b, abs=0.01)`, but the actual value is a Decimal and the expected one a float. I'm not sure approx copes with Decimal minus float; it might raise a TypeError. If that happens I'll compare against an exact `Decimal` instead, which is better anyway: AGENTS.md says money is always Decimal.

4. Imports. Drop `import unittest`, add `import pytest` only where fixtures, `raises` or `approx` are used, keep the grouping stdlib / third party / first party.

5. Order. unittest runs the methods of a class alphabetically with a fresh `setUp` each time; pytest runs module-level functions in file order. The methods are already in a sensible order in the files, so converted tests keep running in the same order. But any module-level state (a global counter, a global list) would make tests order-dependent; if something fails only after conversion, that's the first thing to check.

6. Process. read → write the converted file (a complete rewrite is clearer than a dozen edits when nearly every line changes) → `python -m pytest -q tests/test_x.py`. Tiny files can go in pairs. At the end, run the whole suite once.

First, the list of files: find for test_*.py, and grep for `unittest` to see which ones still need converting. test_checkout.py, test_checkout_page.py and test_discounts.py are pytest already."""


def migrate(s: Session, fs: FS, sysmsg: dict) -> None:
    """The migration; ``sysmsg`` is the entry of the session's system message (the compaction
    carries it as its checkpoint)."""
    s.thinking_change("high")
    s.user(
        "While we're at it: most of tests/ is still unittest-style classes from the old codebase. Migrate everything under tests/ to "
        "plain pytest, one file at a time, and run each file after converting it."
    )
    c1 = call("find", {"pattern": "test_*.py", "path": "tests"})
    c2 = call("grep", {"pattern": "import unittest", "path": "tests", "literal": True})
    s.turn([think(MIGRATION_THINKING), c1, c2], [fs.find("test_*.py", "tests"), fs.grep("import unittest", "tests")])
    todo_files = [su for su in SUITES]
    s.assistant(
        [
            text(
                f"{len(todo_files)} files to convert; `test_checkout.py`, `test_checkout_page.py` and `test_discounts.py` are already pytest. "
                "I'll go alphabetically-ish, starting with the simplest ones."
            )
        ],
        think_secs=(1.5, 3),
    )
    s.thinking_change("medium")

    converted: list[str] = []
    kept_marker: dict[str, str] = {}

    def convert(suite: Suite, *, note: str | None = None, length_first: bool = False) -> None:
        path = f"tests/test_{suite.module}.py"
        new = render_pytest(suite)
        c = call("read", {"path": path})
        blocks = ([text(note)] if note else []) + [c]
        a = s.turn(blocks, [fs.read(path)])
        kept_marker[suite.module] = a["id"]
        if length_first:
            cut = new[: int(len(new) * 0.62)]
            c = call("write", {"path": path, "content": cut})
            s.assistant([c], stop="length", think_secs=(40, 55))
            s.result(
                c,
                error_out(
                    'Tool call "write" was not executed: the response hit the output token limit, so its arguments may be truncated. '
                    "Re-issue the tool call with complete arguments.",
                    duration=(0, 1),
                ),
            )
            c = call("write", {"path": path, "content": new})
            s.turn([text("The response was cut off mid-file. Writing it again in full:"), c], [fs.write(path, new)])
        else:
            c = call("write", {"path": path, "content": new})
            s.turn([c], [fs.write(path, new)])
        converted.append(path)

    def run(paths: list[str], out: str | None = None, code: int = 0) -> None:
        k = sum(len(re.findall(r"^def test_", fs.files[p], re.M)) for p in paths)
        c = call("bash", {"command": "python -m pytest -q " + " ".join(paths)})
        s.turn([c], [bash_out(out or pytest_q(k, secs=0.03 + 0.012 * k), exit_code=code, duration=(600, 1400))])

    by_name = {su.module: su for su in SUITES}

    def pair(a: str, b: str, note: str | None = None) -> None:
        sa, sb = by_name[a], by_name[b]
        pa, pb = f"tests/test_{a}.py", f"tests/test_{b}.py"
        c1, c2 = call("read", {"path": pa}), call("read", {"path": pb})
        blocks = ([text(note)] if note else []) + [c1, c2]
        first = s.turn(blocks, [fs.read(pa), fs.read(pb)])
        kept_marker[a] = kept_marker[b] = first["id"]
        na, nb = render_pytest(sa), render_pytest(sb)
        c1, c2 = call("write", {"path": pa, "content": na}), call("write", {"path": pb, "content": nb})
        s.turn([c1, c2], [fs.write(pa, na), fs.write(pb, nb)])
        converted.extend([pa, pb])
        run([pa, pb])

    def module_read(path: str, note: str) -> None:
        c = call("read", {"path": path})
        s.turn([text(note), c], [fs.read(path)])

    def full_run() -> None:
        k = count_tests(fs)
        c = call("bash", {"command": "python -m pytest -q"})
        s.turn(
            [text("Whole suite as a checkpoint:"), c],
            [bash_out(pytest_q(k, secs=0.6 + k / 400), duration=(1500, 2800))],
        )

    convert(by_name["cart"], note="Starting with `test_cart.py`.")
    run(["tests/test_cart.py"])
    convert(by_name["inventory"])
    run(["tests/test_inventory.py"])
    convert(
        by_name["orders"],
        note="`test_orders.py` has a fixture that depends on another one (`order` is built from `placed`).",
    )
    run(["tests/test_orders.py"])
    convert(by_name["payments"], length_first=True)
    run(["tests/test_payments.py"])
    pair("shipping", "taxes", note="Two small ones together.")
    convert(by_name["currency"], note="`test_currency.py` is the one with `assertAlmostEqual`.")
    cur_fail = """F..                                                                      [100%]
=================================== FAILURES ===================================
_______________________________ test_eur_to_chf ________________________________

    def test_eur_to_chf():
>       assert convert(Decimal("19.99"), "EUR", "CHF") == pytest.approx(18.79, abs=0.01)

tests/test_currency.py:9:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
.venv/lib/python3.12/site-packages/_pytest/python_api.py:417: in __eq__
    return super().__eq__(actual)
.venv/lib/python3.12/site-packages/_pytest/python_api.py:151: in __eq__
    return all(
.venv/lib/python3.12/site-packages/_pytest/python_api.py:155: in <genexpr>
    a == self._approx_scalar(x) for a, x in self._yield_comparisons(actual)
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

    def __eq__(self, actual) -> bool:
>       result: bool = abs(self.expected - actual) <= self.tolerance
E       TypeError: unsupported operand type(s) for -: 'float' and 'decimal.Decimal'

.venv/lib/python3.12/site-packages/_pytest/python_api.py:455: TypeError
=========================== short test summary info ============================
FAILED tests/test_currency.py::test_eur_to_chf - TypeError: unsupported operand type(s) for -: 'float' and 'decimal.Decimal'
1 failed, 2 passed in 0.09s
"""
    run(["tests/test_currency.py"], cur_fail, 1)
    ap_old = '    assert convert(Decimal("19.99"), "EUR", "CHF") == pytest.approx(18.79, abs=0.01)'
    ap_new = '    assert convert(Decimal("19.99"), "EUR", "CHF") == Decimal("18.79")'
    c = call("edit", {"path": "tests/test_currency.py", "oldText": ap_old, "newText": ap_new})
    s.turn(
        [
            text(
                "As suspected, `pytest.approx` with a float can't be compared to a `Decimal`. `convert()` already rounds to cents, "
                "so an exact comparison is the better test anyway:"
            ),
            c,
        ],
        [fs.edit("tests/test_currency.py", (ap_old, ap_new))],
    )
    run(["tests/test_currency.py"])
    convert(by_name["emails"])
    run(["tests/test_emails.py"])
    convert(by_name["users"])
    run(["tests/test_users.py"])
    convert(by_name["auth"], note="`test_auth.py`: `hashed` is computed in `setUp`, so it becomes a fixture too.")
    run(["tests/test_auth.py"])
    full_run()
    s.user(
        "Quick question while you're at it: why do you rewrite whole files with write instead of editing them?",
        typing=(8, 20),
    )
    s.assistant(
        [
            text(
                "Because nearly every line changes: the class goes away, `setUp` becomes fixtures, every method loses `self` and every "
                "assertion changes form. As edits that would be 10–20 replacements per file, each of which must match exactly; one "
                "`write` with the complete new file is easier to review and can't half-apply. For small, local changes (like the "
                "`pytest.approx` fix in `test_currency.py`) I use `edit`."
            )
        ]
    )
    convert(by_name["search"])
    run(["tests/test_search.py"])
    module_read(
        "shop/pagination.py", "`test_pagination.py` compares whole `Page` objects; checking that `Page` supports `==`:"
    )
    convert(by_name["pagination"], note="`Page` is a frozen dataclass, so equality works the same under pytest.")
    run(["tests/test_pagination.py"])
    convert(by_name["reviews"])
    run(["tests/test_reviews.py"])
    convert(by_name["wishlist"])
    run(["tests/test_wishlist.py"])
    convert(by_name["reports"], note="`test_reports.py` works on the module-level `ORDERS` list; converting it as-is.")
    run(["tests/test_reports.py"])
    convert(by_name["invoices"])
    run(["tests/test_invoices.py"])
    convert(by_name["addresses"])
    run(["tests/test_addresses.py"])
    convert(by_name["bundles"])
    run(["tests/test_bundles.py"])
    full_run()
    convert(by_name["csv_export"], note="`test_csv_export.py` imports `csv` and `io` from the stdlib; they stay.")
    run(["tests/test_csv_export.py"])
    convert(by_name["feeds"])
    run(["tests/test_feeds.py"])

    # --- automatic compaction (context over the threshold) ------------------
    first_kept = kept_marker["bundles"]
    remaining = [su.module for su in SUITES if f"tests/test_{su.module}.py" not in converted]
    done_list = ", ".join(f"`{p.split('/')[1]}`" for p in converted)
    read_files = ["shop/pagination.py"]  # everything else that was read was also modified
    modified = sorted(
        set(converted)
        | {"shop/discounts.py", "shop/redemptions.py", "shop/views.py", "tests/conftest.py", "tests/test_discounts.py"}
    )
    summary = f"""## Goal
1. Discount codes: expiry dates and a usage limit for MARKET20 (done).
2. Migrate all unittest-style test files under `tests/` to plain pytest, one file at a time, running each file after converting it.

## Constraints & Preferences
- Money is always `Decimal` (AGENTS.md); no new dependencies without asking.
- Convert one file at a time and run it right after.

## Progress
### Done
- [x] `Discount.expires` (last valid day, inclusive) and `Discount.max_uses`; `ExpiredCode` and `CodeUsedUp` subclass `InvalidCode`.
- [x] `shop/redemptions.py` stores counts in `data/redemptions.json`; tests use `REDEMPTIONS_PATH` from `tests/conftest.py`.
- [x] `python -m mypy shop` is clean.
- [x] Converted and passing: {done_list}.

### In Progress
- [ ] Converting the remaining {len(remaining)} files: {", ".join(f"`test_{m}.py`" for m in remaining)}.

### Blocked
- (none)

## Key Decisions
- **Rewrite each file with `write`**: nearly every line changes, so a full rewrite is clearer than many edits.
- **`setUp` attributes become fixtures**; tests only request the fixtures they use.
- **Exact `Decimal` instead of `pytest.approx`** in `test_currency.py`: approx with a float expected value raised `TypeError` against `Decimal`.

## Next Steps
1. Convert the remaining files the same way.
2. Run the whole suite once at the end.

## Critical Context
- Some modules keep module-level state (`shop/orders.py` `_sequence`, `shop/reports.py` `ORDERS`, `shop/emails.py` `_announced`); the tests only pass because they run in file order.

<read-files>
{chr(10).join(read_files)}
</read-files>

<modified-files>
{chr(10).join(modified)}
</modified-files>"""
    tokens_before = s.last_context_tokens()
    s.compaction(
        summary,
        first_kept,
        {"readFiles": read_files, "modifiedFiles": modified},
        sysmsg["message"],
        usage_obj(SONNET, tokens_before - 2300, 1480, 0, 0),
    )

    convert(by_name["markdown"], note="Continuing with the remaining files.")
    run(["tests/test_markdown.py"])
    module_read(
        "shop/rate_limit.py",
        "`test_rate_limit.py` fakes the clock through a list in `setUp`; checking how the limiter reads time:",
    )
    convert(
        by_name["rate_limit"],
        note="The clock is injected, so the fake clock simply becomes a fixture the `limiter` fixture depends on.",
    )
    run(["tests/test_rate_limit.py"])
    convert(by_name["sales"])
    run(["tests/test_sales.py"])
    convert(by_name["settings"])
    run(["tests/test_settings.py"])
    pair("sitemap", "tags")
    module_read("shop/webhooks.py", "`test_webhooks.py`: does `verify()` return a value or raise?")
    convert(
        by_name["webhooks"],
        note="`verify()` returns `None` and raises `InvalidSignature`, so the happy-path test has no assert; keeping it that way.",
    )
    run(["tests/test_webhooks.py"])
    convert(by_name["newsletter"])
    run(["tests/test_newsletter.py"])
    convert(by_name["slugs"])
    run(["tests/test_slugs.py"])
    convert(by_name["returns"])
    run(["tests/test_returns.py"])
    convert(by_name["gift_cards"])
    run(["tests/test_gift_cards.py"])
    convert(by_name["loyalty"])
    run(["tests/test_loyalty.py"])
    convert(by_name["stock_alerts"])
    run(["tests/test_stock_alerts.py"])
    convert(by_name["images"])
    run(["tests/test_images.py"])
    convert(by_name["prices"])
    run(["tests/test_prices.py"])
    convert(by_name["analytics"], note="Last one: `test_analytics.py`.")
    run(["tests/test_analytics.py"])
    c = call("grep", {"pattern": "unittest", "path": "tests"})
    s.turn([text("All files converted. Checking nothing still imports unittest:"), c], [fs.grep("unittest", "tests")])
    n = count_tests(fs)
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn([c], [bash_out(pytest_q(n, secs=0.94), duration=(1900, 3100))])
    s.assistant(
        [
            text(
                f"""All {len(SUITES)} files are plain pytest now and the whole suite passes ({n} tests).

What changed, mechanically:

- `unittest.TestCase` classes → module-level `test_*` functions
- `setUp` attributes → `@pytest.fixture`s (tests only request what they use)
- `self.assert*` → plain `assert`, `assertRaises`/`assertRaisesRegex` → `pytest.raises(..., match=...)`
- one real fix: `test_currency.py` compares against an exact `Decimal` instead of `pytest.approx`

One caveat: a few modules keep **module-level state** (`_sequence` in `shop/orders.py`, `ORDERS` in `shop/reports.py`, `_announced` in `shop/emails.py`). Their tests pass because pytest runs them in file order; they might not in a different order."""
            )
        ]
    )
