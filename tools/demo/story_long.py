"""The long story (session B): expiry dates and usage limits for the discount
codes, mypy fixes, then the test suite migrated to pytest (story_long_migration.py) and its
order-dependent tests hunted with subagents (story_long_flaky.py, story_long_workers.py,
story_long_chain.py). Here: the session's start and the order of its parts."""

from __future__ import annotations

from tools.demo.blocks import call, text, think
from tools.demo.fs import FS, count_tests, line_of
from tools.demo.long_code import DISCOUNTS_PY_B, REDEMPTIONS_PY, TEST_DISCOUNTS_PY
from tools.demo.models import SONNET, usage_obj
from tools.demo.outputs import production_log, pytest_q
from tools.demo.places import SHOP
from tools.demo.prompt import tool_decls
from tools.demo.session import Session
from tools.demo.shop_files import BASE_TOOLS, shop_system_prompt
from tools.demo.story_long_chain import chain_and_commit
from tools.demo.story_long_flaky import random_order_runs, scout
from tools.demo.story_long_migration import migrate
from tools.demo.story_long_workers import parallel_fixes
from tools.demo.subagents import artifacts_dir
from tools.demo.truncation import bash_out


def build_session_b(fs: FS, artifacts: list[tuple[str, Session]]) -> Session:
    """The session, made on the shop's files ``fs`` as the checkout story left them; the
    subagents' transcripts to write go to ``artifacts``."""
    s = Session(
        cwd=SHOP, start="2026-11-16T08:47:12.208Z", seed=1116, model=SONNET, thinking_level="medium", usage_scale=3.2
    )
    sysmsg = s.system(sections=shop_system_prompt(BASE_TOOLS), tools_added=tool_decls(BASE_TOOLS))
    log = production_log(s.g)
    s.bash_exec(
        "ssh market-stall journalctl -u shop --since yesterday --no-pager",
        log,
        0,
        full_path=f"/tmp/pi-bash-{s.g.hexn(16)}.log",
    )
    s.user(
        "See the end of that log: people are still using SUMMER25, which should have ended on September 30. "
        "Codes need an expiry date (last valid day), and MARKET20 should only work for the first 50 orders. Please add both."
    )
    c1 = call("read", {"path": "shop/discounts.py"})
    c2 = call("grep", {"pattern": r"lookup\(|current_discount", "path": "shop"})
    s.turn(
        [
            think(
                "Two features: an expiry date per code and a usage limit. The expiry is a property of the code; the usage count is state "
                "that must survive restarts, so it can't live in the CODES dict. There's no database, products are a JSON file, so a small "
                "JSON file for redemption counts fits the project. Let me look at the current code and where lookup() is called."
            ),
            c1,
            c2,
        ],
        [fs.read("shop/discounts.py"), fs.grep(r"lookup\(|current_discount", "shop")],
    )
    s.assistant(
        [],
        stop="error",
        error='529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CVpX3r9WqnGk4hT7s2mYd"}',
    )
    s.tick(2, 3)
    c = call("write", {"path": "shop/discounts.py", "content": DISCOUNTS_PY_B})
    s.turn(
        [
            text(
                "Plan: `Discount` gets `expires` (last valid day) and `max_uses`; `lookup()` raises `ExpiredCode` / `CodeUsedUp`, both "
                "subclasses of `InvalidCode` so existing `except InvalidCode` blocks keep working. Redemption counts go into a small JSON file."
            ),
            c,
        ],
        [fs.write("shop/discounts.py", DISCOUNTS_PY_B)],
    )
    c = call("write", {"path": "shop/redemptions.py", "content": REDEMPTIONS_PY})
    s.turn([c], [fs.write("shop/redemptions.py", REDEMPTIONS_PY)])
    c = call("read", {"path": "shop/views.py"})
    s.turn(
        [
            text(
                "Now the views: `apply_code()` has to pass the redemption counts, and `place_order()` has to record a redemption."
            ),
            c,
        ],
        [fs.read("shop/views.py")],
    )
    v_imp_old = "from .discounts import Discount, InvalidCode, lookup\n"
    v_imp_new = (
        "from . import redemptions\nfrom .discounts import CodeUsedUp, Discount, ExpiredCode, InvalidCode, lookup\n"
    )
    v_cur_old = "        return lookup(code)\n    except InvalidCode:"
    v_cur_new = "        return lookup(code, uses=redemptions.counts())\n    except InvalidCode:"
    v_apply_old = """    code = request.form.get("code", "")
    try:
        discount = lookup(code)
    except InvalidCode:
        flash(f"Sorry, {code.strip()!r} is not a valid code.")"""
    v_apply_new = """    code = request.form.get("code")
    try:
        discount = lookup(code, uses=redemptions.counts())
    except ExpiredCode:
        flash(f"Sorry, {code.strip().upper()} has expired.")
    except CodeUsedUp:
        flash(f"Sorry, {code.strip().upper()} has been fully redeemed.")
    except InvalidCode:
        flash(f"Sorry, {code.strip()!r} is not a valid code.")"""
    v_place_old = """    totals = compute_totals(current_cart(), current_discount())
    session.pop("cart", None)"""
    v_place_new = """    discount = current_discount()
    totals = compute_totals(current_cart(), discount)
    if discount is not None:
        redemptions.record(discount.code)
    session.pop("cart", None)
    session.pop("discount_code", None)"""
    c = call(
        "edit",
        {
            "path": "shop/views.py",
            "edits": [
                {"oldText": v_imp_old, "newText": v_imp_new},
                {"oldText": v_cur_old, "newText": v_cur_new},
                {"oldText": v_apply_old, "newText": v_apply_new},
                {"oldText": v_place_old, "newText": v_place_new},
            ],
        },
    )
    s.turn(
        [c],
        [
            fs.edit(
                "shop/views.py",
                (v_imp_old, v_imp_new),
                (v_cur_old, v_cur_new),
                (v_apply_old, v_apply_new),
                (v_place_old, v_place_new),
            )
        ],
    )
    cf_old = '    return create_app({"TESTING": True, "PRODUCTS_PATH": str(products)})'
    cf_new = (
        "    return create_app(\n"
        '        {\n            "TESTING": True,\n            "PRODUCTS_PATH": str(products),\n'
        '            "REDEMPTIONS_PATH": str(tmp_path / "redemptions.json"),\n        }\n    )'
    )
    c = call("read", {"path": "tests/conftest.py"})
    s.turn([c], [fs.read("tests/conftest.py")])
    c1 = call("edit", {"path": "tests/conftest.py", "oldText": cf_old, "newText": cf_new})
    c2 = call("write", {"path": "tests/test_discounts.py", "content": TEST_DISCOUNTS_PY})
    s.turn(
        [text("Tests must not write `data/redemptions.json` in the repo, so the test app gets its own path:"), c1, c2],
        [fs.edit("tests/conftest.py", (cf_old, cf_new)), fs.write("tests/test_discounts.py", TEST_DISCOUNTS_PY)],
    )
    n = count_tests(fs)
    fail_b = '''____________________ test_code_still_works_on_its_last_day _____________________

    def test_code_still_works_on_its_last_day():
>       assert lookup("SUMMER25", today=date(2026, 9, 30)).code == "SUMMER25"

tests/test_discounts.py:10:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

code = 'SUMMER25'

    def lookup(code: str, *, today: date = None, uses: Mapping[str, int] | None = None) -> Discount:
        """Find a usable discount; codes are case-insensitive and surrounding spaces are ignored."""
        key = code.strip().upper()
        try:
            discount = CODES[key]
        except KeyError:
            raise InvalidCode(f"Unknown discount code: {code.strip()!r}") from None
        today = today or date.today()
        if discount.expires is not None and today >= discount.expires:
>           raise ExpiredCode(f"{key} expired on {discount.expires:%d %B %Y}")
E           shop.discounts.ExpiredCode: SUMMER25 expired on 30 September 2026

shop/discounts.py:50: ExpiredCode
'''
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn(
        [c],
        [
            bash_out(
                pytest_q(
                    n,
                    [
                        "tests/test_discounts.py::test_code_still_works_on_its_last_day - shop.discounts.ExpiredCode: SUMMER25 expired on 30 September 2026"
                    ],
                    0.83,
                    fail_b,
                ),
                exit_code=1,
                duration=(1700, 2900),
            )
        ],
    )
    exp_old = "today >= discount.expires"
    c = call("edit", {"path": "shop/discounts.py", "oldText": exp_old, "newText": "today > discount.expires"})
    s.turn(
        [
            think(
                "`expires` is the last valid day, so the check must be `>`, not `>=`. The test is right, the code is off by one day."
            ),
            c,
        ],
        [fs.edit("shop/discounts.py", (exp_old, "today > discount.expires"))],
    )
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn([c], [bash_out(pytest_q(n, secs=0.79), duration=(1600, 2700))])
    s.assistant(
        [
            text(
                """Both limits are in place:

- **Expiry**: `Discount.expires` is the *last valid day* (inclusive). `SUMMER25` now has `expires=date(2026, 9, 30)`, so it's rejected from October 1st with *"Sorry, SUMMER25 has expired."*
- **Usage limit**: `MARKET20` has `max_uses=50`. `shop/redemptions.py` keeps the counts in `data/redemptions.json`; `place_order()` records a redemption and clears the code from the session.
- `ExpiredCode` and `CodeUsedUp` subclass `InvalidCode`, so `current_discount()` silently drops a code that expired while it sat in someone's session.

5 new tests in `tests/test_discounts.py`; the suite is green. You'll want to add `data/redemptions.json` to your backups on the server."""
            )
        ]
    )
    # mypy, run by the user
    l_disc = line_of(fs, "shop/discounts.py", "def lookup(")
    l_view = line_of(fs, "shop/views.py", "discount = lookup(code, uses=")
    l_red = line_of(fs, "shop/redemptions.py", "return counts().get(code)")
    mypy_out = (
        f'shop/redemptions.py:{l_red}: error: Incompatible return value type (got "int | None", expected "int")  [return-value]\n'
        f'shop/discounts.py:{l_disc}: error: Incompatible default for argument "today" (default has type "None", argument has type "date")  [assignment]\n'
        f"shop/discounts.py:{l_disc}: note: PEP 484 prohibits implicit Optional. Accordingly, mypy has changed its default to no_implicit_optional=True\n"
        f"shop/discounts.py:{l_disc}: note: Use https://github.com/hauntsaninja/no_implicit_optional to automatically upgrade your codebase\n"
        f'shop/views.py:{l_view}: error: Argument 1 to "lookup" has incompatible type "str | None"; expected "str"  [arg-type]\n'
        "Found 3 errors in 3 files (checked 12 source files)\n"
    )
    s.bash_exec("python -m mypy shop", mypy_out, 1)
    s.user("mypy isn't happy. Fix those.")
    c1 = call(
        "edit",
        {
            "path": "shop/redemptions.py",
            "oldText": "    return counts().get(code)",
            "newText": "    return counts().get(code, 0)",
        },
    )
    c2 = call(
        "edit",
        {"path": "shop/discounts.py", "oldText": "*, today: date = None,", "newText": "*, today: date | None = None,"},
    )
    c3 = call(
        "edit",
        {
            "path": "shop/views.py",
            "oldText": '    code = request.form.get("code")\n',
            "newText": '    code = request.form.get("code", "")\n',
        },
    )
    s.turn(
        [
            think(
                "All three are real: `count()` returns None for a code that was never redeemed, the `today` default needs `| None`, and "
                '`request.form.get("code")` can be None (the old code had a `""` default, I dropped it).'
            ),
            c1,
            c2,
            c3,
        ],
        [
            fs.edit("shop/redemptions.py", ("    return counts().get(code)", "    return counts().get(code, 0)")),
            fs.edit("shop/discounts.py", ("*, today: date = None,", "*, today: date | None = None,")),
            fs.edit(
                "shop/views.py", ('    code = request.form.get("code")\n', '    code = request.form.get("code", "")\n')
            ),
        ],
    )
    c = call("bash", {"command": "python -m mypy shop && python -m pytest -q"})
    s.turn(
        [c], [bash_out("Success: no issues found in 12 source files\n" + pytest_q(n, secs=0.81), duration=(5200, 7900))]
    )
    s.assistant(
        [
            text(
                "Fixed all three:\n\n"
                "1. `redemptions.count()` returns `0` for codes that were never redeemed (it returned `None`).\n"
                "2. `lookup(..., today: date | None = None)`.\n"
                '3. `apply_code()` uses `request.form.get("code", "")` again; I had dropped the default.\n\n'
                "`mypy shop` is clean and the tests pass."
            )
        ]
    )

    migrate(s, fs, sysmsg)
    # the user goes for lunch; the cache warmer keeps the prompt cache alive once
    s.tick(4 * 60 + 20)
    s.usage_entry("cache_warm", SONNET, usage_obj(SONNET, 0, 0, s.usage.ctx, 0))
    s.tick(47 * 60)

    random_order_runs(s, fs)
    adir = artifacts_dir(s)
    scout(s, fs, adir, artifacts)
    par_result = parallel_fixes(s, fs, adir, artifacts)
    chain_and_commit(s, fs, adir, artifacts, par_result)
    return s
