"""Two branches of the checkout story, both from its "core-done" answer: the checkout page
(the longest branch, itself forked once more at a todo list) and an idea that is tried,
summarised as a branch, and dropped."""

from __future__ import annotations

import base64

from tools.demo.blocks import call, image_block, text, think
from tools.demo.checkout_code import (
    CHECKOUT_FORM_NEW,
    CHECKOUT_FORM_OLD,
    CHECKOUT_HTML_NEW,
    CHECKOUT_HTML_OLD,
    CHECKOUT_PAGE_TESTS,
    CHECKOUT_PAGE_TESTS_MOCK,
    STYLE_NEW,
    STYLE_OLD,
    VIEWS_CODE_NEW,
    VIEWS_CODE_OLD,
)
from tools.demo.fs import FS, count_tests, line_of
from tools.demo.models import GPT5, SONNET, usage_obj
from tools.demo.outputs import pytest_q
from tools.demo.png import checkout_screenshot_png
from tools.demo.session import Session
from tools.demo.truncation import bash_out


def checkout_page(s: Session, fs: FS, n: int, plan: dict, core_done: dict) -> int:
    """The code form on the checkout page, a mobile fix from a screenshot, page tests (a
    first attempt abandoned at the todo list), labels, two commits. Returns the test count."""
    s.user(
        "Nice. Now let customers enter a code on the checkout page, and show the discount as its own row in the totals."
    )
    c1, c2 = call("read", {"path": "shop/views.py"}), call("read", {"path": "shop/templates/checkout.html"})
    s.turn([c1, c2], [fs.read("shop/views.py"), fs.read("shop/templates/checkout.html")])
    imp_old = "from flask import Blueprint, flash, redirect, render_template, session, url_for\n"
    imp_new = "from flask import (\n    Blueprint,\n    current_app,\n    flash,\n    redirect,\n    render_template,\n    request,\n    session,\n    url_for,\n)\n"
    imp2_old = "from .checkout import compute_totals\n"
    imp2_new = "from .checkout import compute_totals\nfrom .discounts import Discount, InvalidCode, lookup\n"
    c = call(
        "edit",
        {
            "path": "shop/views.py",
            "edits": [
                {"oldText": imp_old, "newText": imp_new},
                {"oldText": imp2_old, "newText": imp2_new},
                {"oldText": VIEWS_CODE_OLD, "newText": VIEWS_CODE_NEW},
            ],
        },
    )
    s.turn(
        [
            think(
                "Store the code (not the Discount) in the session so it survives redirects; re-validate it on every request "
                "in case we remove a code while someone has it in their session."
            ),
            c,
        ],
        [fs.edit("shop/views.py", (imp_old, imp_new), (imp2_old, imp2_new), (VIEWS_CODE_OLD, VIEWS_CODE_NEW))],
    )
    c = call(
        "edit",
        {
            "path": "shop/templates/checkout.html",
            "edits": [
                {"oldText": CHECKOUT_HTML_OLD, "newText": CHECKOUT_HTML_NEW},
                {"oldText": CHECKOUT_FORM_OLD, "newText": CHECKOUT_FORM_NEW},
            ],
        },
    )
    s.turn(
        [c],
        [
            fs.edit(
                "shop/templates/checkout.html",
                (CHECKOUT_HTML_OLD, CHECKOUT_HTML_NEW),
                (CHECKOUT_FORM_OLD, CHECKOUT_FORM_NEW),
            )
        ],
    )
    c = call("bash", {"command": "python -m pytest -q && flask --app shop routes"})
    s.turn(
        [c],
        [
            bash_out(
                pytest_q(n, secs=0.61)
                + """Endpoint          Methods  Rule
----------------  -------  -----------------------
shop.add_to_cart  POST     /cart/add/<sku>
shop.apply_code   POST     /checkout/code
shop.checkout     GET      /checkout
shop.place_order  POST     /checkout
shop.show_cart    GET      /cart
static            GET      /static/<path:filename>
""",
                duration=(1800, 3100),
            )
        ],
    )
    s.assistant(
        [
            text(
                """The checkout page now has a **Discount code** form above *Place order*:

- `POST /checkout/code` validates the code with `lookup()`, stores the normalized code in the session and redirects back with a flash message (`Code SAVE10 applied.` or `Sorry, 'NOPE' is not a valid code.`).
- `checkout()` and `place_order()` both use `current_discount()`, which drops a code from the session if it stops being valid.
- The totals table shows a green **Discount (SAVE10)** row between subtotal and shipping, only when there is a discount.

Try it with `flask --app shop run --debug` and add a mug or two."""
            )
        ]
    )
    s.model_change(GPT5)
    s.thinking_change("high")
    png = base64.b64encode(checkout_screenshot_png()).decode()
    s.user(
        [
            text(
                "On my phone the discount row wraps and the amount drops to a second line, see the screenshot. Can you fix that?"
            ),
            image_block(png),
        ]
    )
    c = call("read", {"path": "shop/static/style.css"})
    s.turn(
        [
            think(
                "**Diagnosing the wrap**\n\nThe screenshot shows the third row (the discount row, light red) with its amount pushed onto a second line. "
                'The label "Discount (SAVE10)" is longer than the others, and the amount cell has no `white-space: nowrap`, so on a narrow '
                'viewport the browser wraps inside the amount ("−2.50" / "€"). Let me check the CSS.'
            ),
            c,
        ],
        [fs.read("shop/static/style.css")],
    )
    c = call("edit", {"path": "shop/static/style.css", "oldText": STYLE_OLD, "newText": STYLE_NEW})
    s.turn(
        [
            think(
                "**Fix**\n\nKeep amounts on one line (`nowrap`), use tabular figures so the column lines up, and let the *label* wrap "
                "anywhere on very small screens instead. Also give the discount row its green colour here instead of inline styles."
            ),
            c,
        ],
        [fs.edit("shop/static/style.css", (STYLE_OLD, STYLE_NEW))],
    )
    s.assistant(
        [
            text(
                "Fixed in `shop/static/style.css`:\n\n"
                "- `.totals .amount` gets `white-space: nowrap` so `−2.50 €` never splits, plus `font-variant-numeric: tabular-nums` so the amounts line up.\n"
                "- Below 30rem the **label** column may wrap instead (`overflow-wrap: anywhere`).\n"
                "- `.totals .discount td` is green, matching the flash messages.\n\n"
                "No template changes were needed."
            )
        ]
    )
    todo = [
        {"id": 1, "text": "Discount model and lookup()", "done": True},
        {"id": 2, "text": "compute_totals() with discount", "done": True},
        {"id": 3, "text": "Code form on checkout page", "done": True},
        {"id": 4, "text": "Tests for the checkout page", "done": False},
        {"id": 5, "text": "Commit", "done": False},
    ]
    s.custom("todo-list", {"items": todo, "updatedBy": "agent"})
    s.custom_message(
        "todo-list",
        "Todo list: 3 of 5 done\n\n- [x] Discount model and lookup()\n- [x] compute_totals() with discount\n- [x] Code form on checkout page\n- [ ] Tests for the checkout page\n- [ ] Commit",
        True,
        {"done": 3, "total": 5},
    )
    todo_msg = s.leaf
    # The first attempt at page tests (abandoned: mocks instead of the test client).
    s.user("Add a test for the code form on the checkout page.")
    c = call("write", {"path": "tests/test_checkout_page.py", "content": CHECKOUT_PAGE_TESTS_MOCK})
    s.turn(
        [
            think("A focused unit test: patch `session` and `request` in the views module and call the view directly."),
            c,
        ],
        [fs.write("tests/test_checkout_page.py", CHECKOUT_PAGE_TESTS_MOCK)],
    )
    c = call("bash", {"command": "python -m pytest -q tests/test_checkout_page.py"})
    s.turn(
        [c],
        [
            bash_out(
                """F                                                                        [100%]
=================================== FAILURES ===================================
____________________ test_apply_code_stores_code_in_session ____________________

    def test_apply_code_stores_code_in_session():
        fake_session = {}
        with mock.patch.object(views, "session", fake_session), mock.patch.object(
            views, "request"
        ) as request:
            request.form = {"code": "save10"}
>           views.apply_code()

tests/test_checkout_page.py:11:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
shop/views.py:49: in apply_code
    flash(f"Code {discount.code} applied.")
.venv/lib/python3.12/site-packages/flask/helpers.py:320: in flash
    flashes = session.get("_flashes", [])
.venv/lib/python3.12/site-packages/werkzeug/local.py:318: in __get__
    obj = instance._get_current_object()
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

    def _get_current_object() -> T:
        try:
            return get_name(local.get())
        except LookupError:
>           raise RuntimeError(unbound_message) from None
E           RuntimeError: Working outside of request context.
E
E           This typically means that you attempted to use functionality that needed
E           an active HTTP request. Consult the documentation on testing for
E           information about how to avoid this problem.

.venv/lib/python3.12/site-packages/werkzeug/local.py:519: RuntimeError
=========================== short test summary info ============================
FAILED tests/test_checkout_page.py::test_apply_code_stores_code_in_session - RuntimeError: Working outside of request context.
1 failed in 0.21s
""",
                exit_code=1,
                duration=(700, 1300),
            )
        ],
    )
    s.assistant(
        [
            think(
                "`flash()` uses Flask's own session proxy, which my patch doesn't cover. Patching flash too would make this test mostly mocks."
            ),
            text(
                "That fails because `flash()` reaches for Flask's real session, which needs a request context. I could patch `flash` as well, "
                "but then the test mostly tests the mocks. Using the Flask test client from `tests/conftest.py` would be more honest. "
                "Want me to switch to that?"
            ),
        ]
    )
    # /tree: back to the prompt, edited -> second fork (at the todo-list message).
    s.goto(todo_msg)
    s.model_change(SONNET)
    s.thinking_change("medium")
    s.user("Add a test for the code form on the checkout page. Use the `client` fixture from conftest, no mocking.")
    c = call("read", {"path": "tests/conftest.py"})
    s.turn([c], [fs.read("tests/conftest.py")])
    c = call("write", {"path": "tests/test_checkout_page.py", "content": CHECKOUT_PAGE_TESTS})
    s.turn(
        [
            think(
                "Two mugs = 25.00 €: SAVE10 gives 2.50 € off. With FREESHIP: 25.00 + 0 shipping + 2.00 VAT = 27.00 €. "
                "Use the real routes so the session cookie does the work."
            ),
            c,
        ],
        [fs.write("tests/test_checkout_page.py", CHECKOUT_PAGE_TESTS)],
    )
    n = count_tests(fs)
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn([c], [bash_out(pytest_q(n, secs=0.77), duration=(1500, 2600))])
    s.assistant(
        [
            text(
                "Added `tests/test_checkout_page.py` with three tests that go through the real routes with the test client:\n\n"
                "1. a valid code (`save10`) shows the **Discount (SAVE10)** row with `−2.50 €`;\n"
                "2. an unknown code is rejected with a flash message and no discount row;\n"
                "3. `FREESHIP` is still applied when the order is placed (27.00 € for two mugs).\n\n"
                f"The whole suite passes ({n} tests)."
            )
        ]
    )
    s.label(plan["id"], "plan")
    s.label(core_done["id"], "core-done")
    s.bash_exec(
        "git status --short",
        " M shop/checkout.py\n M shop/static/style.css\n M shop/templates/checkout.html\n M shop/views.py\n M tests/test_checkout.py\n?? shop/discounts.py\n?? tests/test_checkout_page.py\n",
        0,
    )
    s.custom_message(
        "git-status",
        "Working tree on branch feature/discounts: 5 modified, 2 untracked files (shop/discounts.py, tests/test_checkout_page.py).",
        False,
        {"branch": "feature/discounts", "modified": 5, "untracked": 2, "ahead": 0},
    )
    s.user("Great. Commit it as two commits: the discount logic with its tests, then the checkout page and CSS.")
    c = call(
        "bash",
        {
            "command": 'git add shop/discounts.py shop/checkout.py tests/test_checkout.py && git commit -q -m "Add discount codes to compute_totals" && git log --oneline -1'
        },
    )
    s.turn([c], [bash_out("3f9c2a1 Add discount codes to compute_totals\n", duration=(90, 240))])
    c = call(
        "bash",
        {
            "command": 'git add shop/views.py shop/templates/checkout.html shop/static/style.css tests/test_checkout_page.py && git commit -q -m "Checkout: discount code form and discount row" && git log --oneline -3'
        },
    )
    s.turn(
        [c],
        [
            bash_out(
                "b71e04d Checkout: discount code form and discount row\n3f9c2a1 Add discount codes to compute_totals\n9a41c07 Free shipping from 50 €\n",
                duration=(90, 240),
            )
        ],
    )
    s.assistant(
        [
            text(
                "Committed on `feature/discounts`:\n\n```\nb71e04d Checkout: discount code form and discount row\n3f9c2a1 Add discount codes to compute_totals\n```\n\nThe working tree is clean."
            )
        ]
    )
    s.custom("todo-list", {"items": [dict(i, done=True) for i in todo], "updatedBy": "agent"})
    return n


def dropped_idea(s: Session, fs: FS, n: int, core_done: dict) -> None:
    """A branch summary of the page branch, then codes from URLs: labelled, made, reverted."""
    s.branch_summary(
        core_done["id"],
        """The user explored a different conversation branch before returning here.
Summary of that exploration:

## Goal
Let customers enter discount codes on the checkout page and show the discount as its own row.

## Constraints & Preferences
- Tests should use the Flask test client from `tests/conftest.py`, no mocking.
- Two commits: logic + tests, then page + CSS.

## Progress
### Done
- [x] `POST /checkout/code` (`apply_code`) stores the normalized code in the session; `current_discount()` re-validates it.
- [x] Discount row and code form in `shop/templates/checkout.html`.
- [x] Mobile layout fix in `shop/static/style.css` (`white-space: nowrap` on amounts).
- [x] `tests/test_checkout_page.py` (3 tests), whole suite green.
- [x] Committed as `3f9c2a1` and `b71e04d` on `feature/discounts`.

### In Progress
- (none)

### Blocked
- (none)

## Key Decisions
- **Store the code, not the Discount, in the session**: it is re-validated on every request.

## Next Steps
1. (none, the feature is complete)

<read-files>
shop/templates/checkout.html
tests/conftest.py
</read-files>

<modified-files>
shop/static/style.css
shop/templates/checkout.html
shop/views.py
tests/test_checkout_page.py
</modified-files>""",
        {
            "readFiles": ["shop/templates/checkout.html", "tests/conftest.py"],
            "modifiedFiles": [
                "shop/static/style.css",
                "shop/templates/checkout.html",
                "shop/views.py",
                "tests/test_checkout_page.py",
            ],
        },
        usage_obj(SONNET, 18422, 612, 0, 0),
    )
    y_user = s.user(
        "Different idea: marketing wants newsletter links like /checkout?code=SAVE10 that apply the code automatically. How hard is that?"
    )
    off = line_of(fs, "shop/views.py", '@bp.get("/checkout")')
    c = call("read", {"path": "shop/views.py", "offset": off, "limit": 8})
    s.turn([c], [fs.read("shop/views.py", off, 8)])
    s.assistant(
        [
            text(
                """Small. `checkout()` would accept the code from the query string and reuse the same validation as the form:

```diff
 @bp.get("/checkout")
 def checkout():
     cart = current_cart()
     if not cart.lines:
         return redirect(url_for("shop.show_cart"))
+    if code := request.args.get("code"):
+        try:
+            session["discount_code"] = lookup(code).code
+        except InvalidCode:
+            flash(f"Sorry, {code.strip()!r} is not a valid code.")
     totals = compute_totals(cart, current_discount())
```

One thing to check first: if a CDN caches `/checkout` **without** the query string, everyone would get the same page. Is that the case?"""
            )
        ]
    )
    s.label(y_user["id"], "url-codes")
    s.user("Our CDN caches by full URL, so that's fine. Do it.")
    url_old = """        return redirect(url_for("shop.show_cart"))
    totals = compute_totals(cart, current_discount())"""
    url_new = """        return redirect(url_for("shop.show_cart"))
    if code := request.args.get("code"):
        try:
            session["discount_code"] = lookup(code).code
        except InvalidCode:
            flash(f"Sorry, {code.strip()!r} is not a valid code.")
    totals = compute_totals(cart, current_discount())"""
    c = call("edit", {"path": "shop/views.py", "oldText": url_old, "newText": url_new})
    s.turn([c], [fs.edit("shop/views.py", (url_old, url_new))])
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn([c], [bash_out(pytest_q(n, secs=0.74), duration=(1500, 2600))])
    s.assistant(
        [
            text(
                "Done: `/checkout?code=SAVE10` now applies the code (invalid codes get the usual flash message). Tests still pass."
            )
        ]
    )
    s.user(
        "Marketing just told me their newsletter tool strips query strings from links. Let's drop the idea, please revert it."
    )
    c = call("bash", {"command": "git checkout -- shop/views.py && git status --short"})
    fs.edit("shop/views.py", (url_new, url_old))
    s.turn([c], [bash_out("", duration=(40, 120))])
    s.assistant([text("Reverted `shop/views.py`; the working tree is clean again.")])
    s.label(y_user["id"], None)
