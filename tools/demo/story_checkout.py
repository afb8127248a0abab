"""The checkout story (session A, "Discount codes at checkout"): named, labelled, forked
at an aborted first attempt and three ways at its "core-done" answer. Here: the trunk up
to that answer, and the last branch from it (a CHANGELOG entry), whose entries end the
file; the other two are in story_checkout_branches.py."""

from __future__ import annotations

from tools.demo.blocks import call, text, think
from tools.demo.checkout_code import (
    CHECKOUT_TOTALS_NEW,
    CHECKOUT_TOTALS_OLD,
    COMPUTE_BUGGY,
    COMPUTE_OLD,
    DISCOUNTS_PY,
    NEW_CHECKOUT_TESTS,
    PYTEST_FAIL_A,
)
from tools.demo.fs import FS, count_tests, line_of
from tools.demo.models import SONNET, usage_obj
from tools.demo.outputs import pytest_q
from tools.demo.places import SHOP
from tools.demo.prompt import tool_decls
from tools.demo.session import Session
from tools.demo.shop_files import BASE_TOOLS, shop_system_prompt
from tools.demo.story_checkout_branches import checkout_page, dropped_idea
from tools.demo.truncation import bash_out


def build_session_a(fs: FS) -> Session:
    """The session, made on the shop's files ``fs`` (which it changes)."""
    s = Session(cwd=SHOP, start="2026-11-14T09:12:03.417Z", seed=1114, model=SONNET, thinking_level="medium")
    s.system(sections=shop_system_prompt(BASE_TOOLS), tools_added=tool_decls(BASE_TOOLS))
    s.user(
        "I'd like to add discount codes to the checkout: percentage codes like SAVE10 and a FREESHIP code. "
        "Have a look at how the totals are computed first and tell me how you'd do it. Don't change anything yet."
    )
    c1, c2 = call("ls", {"path": "."}), call("read", {"path": "shop/checkout.py"})
    s.turn(
        [think("Let me look at the project layout and the checkout code before proposing anything."), c1, c2],
        [fs.ls(".", extra=(".git/", ".venv/", "logs/")), fs.read("shop/checkout.py")],
    )
    c = call("grep", {"pattern": "compute_totals|Totals", "path": "."})
    s.turn([c], [fs.grep("compute_totals|Totals", ".")])
    plan = s.assistant(
        [
            text(
                """## How totals work today

`compute_totals(cart)` in `shop/checkout.py` sums the cart lines, decides shipping (free from **50 €**, otherwise a flat **4.95 €**), adds 8 % VAT and rounds with `money()`. It's called from two places in `shop/views.py`: the checkout page and `place_order`.

## Proposal

1. **New module `shop/discounts.py`** with a small frozen dataclass and a lookup function:

   ```python
   @dataclass(frozen=True)
   class Discount:
       code: str
       percent_off: Decimal = Decimal("0")
       free_shipping: bool = False
   ```

   `lookup(code)` normalizes the input (`" save10 "` → `SAVE10`) and raises `InvalidCode` for unknown codes.
2. **`compute_totals(cart, discount=None)`**: take the discount off the subtotal *before* VAT, keep a separate `discount` field on `Totals` so the template can show it as its own row.
3. **Tests** in `tests/test_checkout.py` for a percentage code, `FREESHIP`, and an unknown code.

| Step | File | Change |
|------|------|--------|
| 1 | `shop/discounts.py` | new |
| 2 | `shop/checkout.py` | `discount` parameter + field |
| 3 | `tests/test_checkout.py` | 4 new tests |

One question before I start: should the free-shipping threshold look at the subtotal **before** or **after** the discount? I'd use *after*, otherwise a 52 € cart with SAVE10 pays 46.80 € and still ships free."""
            )
        ]
    )
    info = s.session_info("Discount codes at checkout")

    # First attempt: the user asks for a JSON file, then interrupts (aborted).
    s.user("After. Go ahead, but load the codes from data/discounts.json so we can change them without a deploy.")
    s.assistant(
        [
            think(
                "The user wants codes in a JSON file. `catalog.py` already loads `data/products.json` with a cached `_load()`; "
                'I can mirror that, but the cache means edits to the JSON still need a restart, so "without a deploy" is only half true. '
                "I should mention that and"
            ),
            text("I'll add `data/discounts.json` and load it the same way `catalog.py` loads the products, with"),
        ],
        stop="aborted",
        error="Request was aborted",
        usage=usage_obj(SONNET, 9, 96, s.usage.ctx - 1200, 1190),
    )
    # /tree: back to before that prompt, edited and resubmitted -> a fork at the session_info entry.
    s.goto(info["id"])
    s.user(
        "After the discount, agreed. Keep the codes in a dict in the module for now, we only have four "
        "(SAVE10, MARKET20, SUMMER25 and FREESHIP). Go ahead."
    )
    c = call("write", {"path": "shop/discounts.py", "content": DISCOUNTS_PY})
    s.turn(
        [think("Start with the new module, then wire it into compute_totals, then tests."), c],
        [fs.write("shop/discounts.py", DISCOUNTS_PY)],
    )
    imp_old = "from .cart import Cart\n"
    imp_new = "from .cart import Cart\nfrom .discounts import Discount\n"
    c = call("edit", {"path": "shop/checkout.py", "oldText": imp_old, "newText": imp_new})
    s.turn([c], [fs.edit("shop/checkout.py", (imp_old, imp_new))])
    c = call(
        "edit",
        {
            "path": "shop/checkout.py",
            "oldText": CHECKOUT_TOTALS_OLD
            + "\n\n\ndef money(value: Decimal) -> Decimal:\n    return value.quantize(CENT, rounding=ROUND_HALF_UP)\n\n\n"
            + COMPUTE_OLD,
            "newText": CHECKOUT_TOTALS_NEW
            + "\n\n\ndef money(value: Decimal) -> Decimal:\n    return value.quantize(CENT, rounding=ROUND_HALF_UP)\n\n\n"
            + COMPUTE_BUGGY,
        },
    )
    s.turn(
        [c],
        [
            fs.edit(
                "shop/checkout.py",
                (
                    CHECKOUT_TOTALS_OLD
                    + "\n\n\ndef money(value: Decimal) -> Decimal:\n    return value.quantize(CENT, rounding=ROUND_HALF_UP)\n\n\n"
                    + COMPUTE_OLD,
                    CHECKOUT_TOTALS_NEW
                    + "\n\n\ndef money(value: Decimal) -> Decimal:\n    return value.quantize(CENT, rounding=ROUND_HALF_UP)\n\n\n"
                    + COMPUTE_BUGGY,
                ),
            )
        ],
    )
    t_imports_old = (
        "from decimal import Decimal\n\nfrom shop.cart import Cart\nfrom shop.checkout import compute_totals\n"
    )
    t_imports_new = "from decimal import Decimal\n\nimport pytest\n\nfrom shop.cart import Cart\nfrom shop.checkout import compute_totals\nfrom shop.discounts import InvalidCode, lookup\n"
    t_tail_old = '    totals = compute_totals(make_cart("10.06"))\n    assert totals.tax == Decimal("0.80")\n'
    c = call(
        "edit",
        {
            "path": "tests/test_checkout.py",
            "edits": [
                {"oldText": t_imports_old, "newText": t_imports_new},
                {"oldText": t_tail_old, "newText": t_tail_old + NEW_CHECKOUT_TESTS},
            ],
        },
    )
    s.turn(
        [c],
        [
            fs.edit(
                "tests/test_checkout.py", (t_imports_old, t_imports_new), (t_tail_old, t_tail_old + NEW_CHECKOUT_TESTS)
            )
        ],
    )
    n = count_tests(fs)
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn(
        [c],
        [
            bash_out(
                pytest_q(
                    n,
                    [
                        "tests/test_checkout.py::test_discount_can_drop_order_below_free_shipping - AssertionError: assert Decimal('0') == Decimal('4.95')"
                    ],
                    0.62,
                    PYTEST_FAIL_A,
                ),
                exit_code=1,
                duration=(1400, 2600),
            )
        ],
    )
    wrong_old = "    free = subtotal >= FREE_SHIPPING_OVER or (discount and discount.free_shipping)"
    c = call(
        "edit",
        {
            "path": "shop/checkout.py",
            "oldText": wrong_old,
            "newText": "    free = discounted >= FREE_SHIPPING_OVER or (discount and discount.free_shipping)",
        },
    )
    s.turn(
        [
            think(
                "Exactly the case I asked about: the threshold still looks at `subtotal`. The tax is already computed on "
                "`discounted`, so only the `free` line is wrong. I wrote this line a minute ago, so I'll edit it from memory."
            ),
            text("The free-shipping check still uses the pre-discount subtotal. Fixing that:"),
            c,
        ],
        [fs.edit("shop/checkout.py", (wrong_old, "x"))],
    )
    off = line_of(fs, "shop/checkout.py", "def compute_totals")
    c = call("read", {"path": "shop/checkout.py", "offset": off, "limit": 12})
    s.turn(
        [text("My `oldText` didn't match; let me look at the exact lines."), c], [fs.read("shop/checkout.py", off, 12)]
    )
    right_old = "    free = subtotal >= FREE_SHIPPING_OVER or (discount is not None and discount.free_shipping)"
    right_new = "    free = discounted >= FREE_SHIPPING_OVER or (discount is not None and discount.free_shipping)"
    c = call("edit", {"path": "shop/checkout.py", "oldText": right_old, "newText": right_new})
    s.turn([c], [fs.edit("shop/checkout.py", (right_old, right_new))])
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn([c], [bash_out(pytest_q(n, secs=0.58), duration=(1300, 2400))])
    core_done = s.assistant(
        [
            text(
                """Done, all tests pass.

**What changed**

- `shop/discounts.py` (new): `Discount`, the four codes in `CODES`, and `lookup()` which raises `InvalidCode`.
- `shop/checkout.py`: `compute_totals(cart, discount=None)`; `Totals` has a new `discount` field. The discount is taken off **before** VAT and before the free-shipping check.
- `tests/test_checkout.py`: 4 new tests.

Worked examples (they're the new tests):

| Cart | Code | Discount | Shipping | Total |
|-----:|------|---------:|---------:|------:|
| 60.00 € | SAVE10 | 6.00 € | 0.00 € | 58.32 € |
| 52.00 € | SAVE10 | 5.20 € | 4.95 € | 55.49 € |
| 10.00 € | FREESHIP | 0.00 € | 0.00 € | 10.80 € |

Nothing calls `compute_totals()` with a discount yet, so the shop behaves exactly as before until we wire it into the checkout page."""
            )
        ]
    )
    # three branches from "core-done": the checkout page (the longest), the dropped idea, and
    # the CHANGELOG, back at "core-done" without a summary: its entries end the file
    n = checkout_page(s, fs, n, plan, core_done)
    dropped_idea(s, fs, n, core_done)
    s.goto(core_done["id"])
    s.user("Write a CHANGELOG entry for the discount codes, under a new 0.5.0 (unreleased) heading.")
    c = call("read", {"path": "CHANGELOG.md"})
    s.turn([c], [fs.read("CHANGELOG.md")])
    cl_old = "# Changelog\n\n## 0.4.0 (2026-10-30)\n"
    cl_new = (
        "# Changelog\n\n## 0.5.0 (unreleased)\n\n"
        "- Discount codes at checkout: percentage codes (`SAVE10`, `MARKET20`, `SUMMER25`) and `FREESHIP`.\n"
        "  Discounts are taken off before VAT and before the free-shipping threshold.\n\n"
        "## 0.4.0 (2026-10-30)\n"
    )
    c = call("edit", {"path": "CHANGELOG.md", "oldText": cl_old, "newText": cl_new})
    s.turn([c], [fs.edit("CHANGELOG.md", (cl_old, cl_new))])
    s.marks = {"core_done": core_done["id"], "plan": plan["id"]}
    s.assistant(
        [
            text(
                "Added to `CHANGELOG.md`:\n\n```markdown\n## 0.5.0 (unreleased)\n\n"
                "- Discount codes at checkout: percentage codes (`SAVE10`, `MARKET20`, `SUMMER25`) and `FREESHIP`.\n"
                "  Discounts are taken off before VAT and before the free-shipping threshold.\n```"
            )
        ]
    )
    return s
