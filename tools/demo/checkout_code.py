"""The code the agent writes and edits in the checkout story: the discounts module, the
checkout's totals, views, template, styles and tests, before and after."""

DISCOUNTS_PY = '''"""Discount codes customers can enter at checkout."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


class InvalidCode(ValueError):
    """Raised for a code we don't know."""


@dataclass(frozen=True)
class Discount:
    code: str
    percent_off: Decimal = Decimal("0")
    free_shipping: bool = False

    def apply(self, subtotal: Decimal) -> Decimal:
        """The amount taken off ``subtotal`` (never more than the subtotal)."""
        return min(subtotal * self.percent_off / 100, subtotal)


CODES: dict[str, Discount] = {
    "SAVE10": Discount("SAVE10", percent_off=Decimal("10")),
    "MARKET20": Discount("MARKET20", percent_off=Decimal("20")),
    "SUMMER25": Discount("SUMMER25", percent_off=Decimal("25")),
    "FREESHIP": Discount("FREESHIP", free_shipping=True),
}


def lookup(code: str) -> Discount:
    """Find a discount; codes are case-insensitive and surrounding spaces are ignored."""
    try:
        return CODES[code.strip().upper()]
    except KeyError:
        raise InvalidCode(f"Unknown discount code: {code.strip()!r}") from None
'''

CHECKOUT_TOTALS_OLD = """@dataclass(frozen=True)
class Totals:
    subtotal: Decimal
    shipping: Decimal
    tax: Decimal
    total: Decimal"""

CHECKOUT_TOTALS_NEW = """@dataclass(frozen=True)
class Totals:
    subtotal: Decimal
    discount: Decimal
    shipping: Decimal
    tax: Decimal
    total: Decimal"""

COMPUTE_OLD = """def compute_totals(cart: Cart) -> Totals:
    subtotal = sum((line.price * line.quantity for line in cart.lines), Decimal("0"))
    shipping = Decimal("0") if subtotal >= FREE_SHIPPING_OVER else FLAT_SHIPPING
    tax = money(subtotal * TAX_RATE)
    total = money(subtotal + shipping + tax)
    return Totals(subtotal=money(subtotal), shipping=shipping, tax=tax, total=total)"""

COMPUTE_BUGGY = """def compute_totals(cart: Cart, discount: Discount | None = None) -> Totals:
    subtotal = sum((line.price * line.quantity for line in cart.lines), Decimal("0"))
    off = money(discount.apply(subtotal)) if discount else Decimal("0")
    discounted = subtotal - off
    free = subtotal >= FREE_SHIPPING_OVER or (discount is not None and discount.free_shipping)
    shipping = Decimal("0") if free else FLAT_SHIPPING
    tax = money(discounted * TAX_RATE)
    total = money(discounted + shipping + tax)
    return Totals(
        subtotal=money(subtotal), discount=off, shipping=shipping, tax=tax, total=total
    )"""

NEW_CHECKOUT_TESTS = """

def test_percent_code_is_taken_off_before_tax():
    totals = compute_totals(make_cart("60.00"), lookup("SAVE10"))
    assert totals.discount == Decimal("6.00")
    assert totals.tax == Decimal("4.32")
    assert totals.total == Decimal("58.32")


def test_discount_can_drop_order_below_free_shipping():
    totals = compute_totals(make_cart("52.00"), lookup("SAVE10"))
    assert totals.discount == Decimal("5.20")
    assert totals.shipping == Decimal("4.95")
    assert totals.total == Decimal("55.49")


def test_freeship_code_waives_shipping():
    totals = compute_totals(make_cart("10.00"), lookup(" freeship "))
    assert totals.shipping == Decimal("0")
    assert totals.total == Decimal("10.80")


def test_unknown_code_raises():
    with pytest.raises(InvalidCode, match="SAVE100"):
        lookup("SAVE100")
"""

PYTEST_FAIL_A = """____________ test_discount_can_drop_order_below_free_shipping ____________

    def test_discount_can_drop_order_below_free_shipping():
        totals = compute_totals(make_cart("52.00"), lookup("SAVE10"))
        assert totals.discount == Decimal("5.20")
>       assert totals.shipping == Decimal("4.95")
E       AssertionError: assert Decimal('0') == Decimal('4.95')
E        +  where Decimal('0') = Totals(subtotal=Decimal('52.00'), discount=Decimal('5.20'), shipping=Decimal('0'), tax=Decimal('3.74'), total=Decimal('50.54')).shipping

tests/test_checkout.py:38: AssertionError
"""

VIEWS_CODE_OLD = """@bp.get("/checkout")
def checkout():
    cart = current_cart()
    if not cart.lines:
        return redirect(url_for("shop.show_cart"))
    return render_template("checkout.html", cart=cart, totals=compute_totals(cart))


@bp.post("/checkout")
def place_order():
    totals = compute_totals(current_cart())"""

VIEWS_CODE_NEW = """def current_discount() -> Discount | None:
    code = session.get("discount_code")
    if not code:
        return None
    try:
        return lookup(code)
    except InvalidCode:
        session.pop("discount_code", None)
        return None


@bp.get("/checkout")
def checkout():
    cart = current_cart()
    if not cart.lines:
        return redirect(url_for("shop.show_cart"))
    totals = compute_totals(cart, current_discount())
    return render_template("checkout.html", cart=cart, totals=totals, code=session.get("discount_code"))


@bp.post("/checkout/code")
def apply_code():
    code = request.form.get("code", "")
    try:
        discount = lookup(code)
    except InvalidCode:
        flash(f"Sorry, {code.strip()!r} is not a valid code.")
    else:
        session["discount_code"] = discount.code
        current_app.logger.info("discount code %s applied", discount.code)
        flash(f"Code {discount.code} applied.")
    return redirect(url_for("shop.checkout"))


@bp.post("/checkout")
def place_order():
    totals = compute_totals(current_cart(), current_discount())"""

CHECKOUT_HTML_OLD = """  <tr class="subtotal"><td>Subtotal</td><td class="amount">{{ totals.subtotal }} €</td></tr>
  <tr><td>Shipping</td><td class="amount">{{ totals.shipping }} €</td></tr>"""

CHECKOUT_HTML_NEW = """  <tr class="subtotal"><td>Subtotal</td><td class="amount">{{ totals.subtotal }} €</td></tr>
  {% if totals.discount %}
  <tr class="discount"><td>Discount ({{ code }})</td><td class="amount">−{{ totals.discount }} €</td></tr>
  {% endif %}
  <tr><td>Shipping</td><td class="amount">{{ totals.shipping }} €</td></tr>"""

CHECKOUT_FORM_OLD = """</table>
<form method="post" action="{{ url_for('shop.place_order') }}">"""

CHECKOUT_FORM_NEW = """</table>
<form class="code" method="post" action="{{ url_for('shop.apply_code') }}">
  <label for="code">Discount code</label>
  <input id="code" name="code" value="{{ code or '' }}" autocomplete="off">
  <button type="submit">Apply</button>
</form>
<form method="post" action="{{ url_for('shop.place_order') }}">"""

CHECKOUT_PAGE_TESTS_MOCK = """from unittest import mock

from shop import views


def test_apply_code_stores_code_in_session():
    fake_session = {}
    with mock.patch.object(views, "session", fake_session), mock.patch.object(
        views, "request"
    ) as request:
        request.form = {"code": "save10"}
        views.apply_code()
    assert fake_session["discount_code"] == "SAVE10"
"""

CHECKOUT_PAGE_TESTS = """def add_mug(client):
    client.post("/cart/add/MUG-01")
    client.post("/cart/add/MUG-01")


def test_valid_code_shows_discount_row(client):
    add_mug(client)
    client.post("/checkout/code", data={"code": "save10"})
    page = client.get("/checkout").get_data(as_text=True)
    assert "Discount (SAVE10)" in page
    assert "−2.50 €" in page


def test_invalid_code_is_rejected(client):
    add_mug(client)
    response = client.post("/checkout/code", data={"code": "NOPE"}, follow_redirects=True)
    page = response.get_data(as_text=True)
    assert "is not a valid code" in page
    assert "Discount (" not in page


def test_code_survives_until_order_is_placed(client):
    add_mug(client)
    client.post("/checkout/code", data={"code": "FREESHIP"})
    response = client.post("/checkout", follow_redirects=True)
    assert "Your order total was 27.00 €" in response.get_data(as_text=True)
"""

STYLE_OLD = """.totals .amount {
  text-align: right;
}"""

STYLE_NEW = """.totals .amount {
  text-align: right;
  white-space: nowrap;
  font-variant-numeric: tabular-nums;
}

.totals .discount td {
  color: #1b7a3d;
}

@media (max-width: 30rem) {
  .totals td:first-child {
    overflow-wrap: anywhere;
  }
}"""
