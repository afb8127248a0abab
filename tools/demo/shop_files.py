"""The "shop" project, a small Flask storefront: its files as the demo sessions start, and
the system prompt Pi builds in it (with its AGENTS.md)."""

from __future__ import annotations

from tools.demo.places import SHOP
from tools.demo.prompt import system_sections
from tools.demo.suites import render_unittest
from tools.demo.suites_shop import SUITES_SHOP
from tools.demo.suites_site import SUITES_SITE

SHOP_AGENTS_MD = """# shop

Small Flask storefront for the Saturday market stall (mugs, tees, prints).

- Python 3.12, Flask 3, no ORM: products live in `data/products.json`.
- Money is always `decimal.Decimal`, rounded with `shop.checkout.money()`.
- Run the tests with `python -m pytest -q`. Keep them fast.
- Don't add dependencies without asking."""

SHOP_FILES: dict[str, str] = {
    "AGENTS.md": SHOP_AGENTS_MD + "\n",
    "README.md": """# shop

The web shop for our market stall.

    python -m venv .venv && . .venv/bin/activate
    pip install -e '.[dev]'
    flask --app shop run --debug
""",
    "CHANGELOG.md": """# Changelog

## 0.4.0 (2026-10-30)

- Free shipping from 50 € (was 60 €).
- Cart remembers quantities when you add the same product twice.

## 0.3.0 (2026-09-12)

- VAT is shown as its own line at checkout.
""",
    "pyproject.toml": """[project]
name = "shop"
version = "0.4.0"
requires-python = ">=3.12"
dependencies = ["flask>=3.0"]

[project.optional-dependencies]
dev = ["pytest>=8", "mypy>=1.11", "freezegun>=1.5"]

[tool.pytest.ini_options]
testpaths = ["tests"]
""",
    "data/products.json": """[
  {"sku": "MUG-01", "name": "Enamel mug", "price": "12.50", "stock": 40},
  {"sku": "TEE-02", "name": "Market tee", "price": "24.00", "stock": 12},
  {"sku": "PRT-03", "name": "Risograph print", "price": "18.00", "stock": 25}
]
""",
    "shop/__init__.py": """from flask import Flask


def create_app(config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.from_mapping(SECRET_KEY="dev", PRODUCTS_PATH="data/products.json")
    if config:
        app.config.update(config)

    from . import views

    app.register_blueprint(views.bp)
    return app
""",
    "shop/cart.py": '''"""Shopping cart, kept in the Flask session."""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


@dataclass
class Line:
    sku: str
    name: str
    price: Decimal
    quantity: int = 1

    @property
    def amount(self) -> Decimal:
        return self.price * self.quantity


@dataclass
class Cart:
    lines: list[Line] = field(default_factory=list)

    def add(self, sku: str, name: str, price: Decimal, quantity: int = 1) -> None:
        for line in self.lines:
            if line.sku == sku:
                line.quantity += quantity
                return
        self.lines.append(Line(sku, name, price, quantity))

    def remove(self, sku: str) -> None:
        self.lines = [line for line in self.lines if line.sku != sku]

    @property
    def count(self) -> int:
        return sum(line.quantity for line in self.lines)

    def to_session(self) -> list[dict]:
        return [
            {"sku": l.sku, "name": l.name, "price": str(l.price), "quantity": l.quantity}
            for l in self.lines
        ]

    @classmethod
    def from_session(cls, data: list[dict] | None) -> Cart:
        cart = cls()
        for item in data or []:
            cart.add(item["sku"], item["name"], Decimal(item["price"]), item["quantity"])
        return cart
''',
    "shop/catalog.py": """import json
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path

from flask import abort, current_app


@dataclass(frozen=True)
class Product:
    sku: str
    name: str
    price: Decimal
    stock: int


@cache
def _load(path: str) -> dict:
    raw = json.loads(Path(path).read_text())
    return {
        item["sku"]: Product(item["sku"], item["name"], Decimal(item["price"]), item["stock"])
        for item in raw
    }


def get_product(sku: str) -> Product:
    products = _load(current_app.config["PRODUCTS_PATH"])
    if sku not in products:
        abort(404)
    return products[sku]
""",
    "shop/checkout.py": '''"""Checkout: turns a cart into an order total."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from .cart import Cart

TAX_RATE = Decimal("0.08")
FREE_SHIPPING_OVER = Decimal("50.00")
FLAT_SHIPPING = Decimal("4.95")
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Totals:
    subtotal: Decimal
    shipping: Decimal
    tax: Decimal
    total: Decimal


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def compute_totals(cart: Cart) -> Totals:
    subtotal = sum((line.price * line.quantity for line in cart.lines), Decimal("0"))
    shipping = Decimal("0") if subtotal >= FREE_SHIPPING_OVER else FLAT_SHIPPING
    tax = money(subtotal * TAX_RATE)
    total = money(subtotal + shipping + tax)
    return Totals(subtotal=money(subtotal), shipping=shipping, tax=tax, total=total)
''',
    "shop/views.py": """from flask import Blueprint, flash, redirect, render_template, session, url_for

from .cart import Cart
from .catalog import get_product
from .checkout import compute_totals

bp = Blueprint("shop", __name__)


def current_cart() -> Cart:
    return Cart.from_session(session.get("cart"))


@bp.post("/cart/add/<sku>")
def add_to_cart(sku: str):
    product = get_product(sku)
    cart = current_cart()
    cart.add(product.sku, product.name, product.price)
    session["cart"] = cart.to_session()
    flash(f"Added {product.name} to your cart.")
    return redirect(url_for("shop.show_cart"))


@bp.get("/cart")
def show_cart():
    return render_template("cart.html", cart=current_cart())


@bp.get("/checkout")
def checkout():
    cart = current_cart()
    if not cart.lines:
        return redirect(url_for("shop.show_cart"))
    return render_template("checkout.html", cart=cart, totals=compute_totals(cart))


@bp.post("/checkout")
def place_order():
    totals = compute_totals(current_cart())
    session.pop("cart", None)
    flash(f"Thanks! Your order total was {totals.total} €.")
    return redirect(url_for("shop.show_cart"))
""",
    "shop/templates/base.html": """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{% block title %}{% endblock %} · Market Stall</title>
  <link rel="stylesheet" href="{{ url_for('static', filename='style.css') }}">
</head>
<body>
  {% for message in get_flashed_messages() %}
  <p class="flash">{{ message }}</p>
  {% endfor %}
  {% block content %}{% endblock %}
</body>
</html>
""",
    "shop/templates/cart.html": """{% extends "base.html" %}
{% block title %}Your cart{% endblock %}
{% block content %}
<h1>Your cart</h1>
{% if cart.lines %}
<ul class="cart">
  {% for line in cart.lines %}
  <li>{{ line.name }} &times; {{ line.quantity }}</li>
  {% endfor %}
</ul>
<a class="button" href="{{ url_for('shop.checkout') }}">Checkout</a>
{% else %}
<p>Your cart is empty.</p>
{% endif %}
{% endblock %}
""",
    "shop/templates/checkout.html": """{% extends "base.html" %}
{% block title %}Checkout{% endblock %}
{% block content %}
<h1>Checkout</h1>
<table class="totals">
  {% for line in cart.lines %}
  <tr>
    <td>{{ line.name }} &times; {{ line.quantity }}</td>
    <td class="amount">{{ line.amount }} €</td>
  </tr>
  {% endfor %}
  <tr class="subtotal"><td>Subtotal</td><td class="amount">{{ totals.subtotal }} €</td></tr>
  <tr><td>Shipping</td><td class="amount">{{ totals.shipping }} €</td></tr>
  <tr><td>VAT (8%)</td><td class="amount">{{ totals.tax }} €</td></tr>
  <tr class="total"><td>Total</td><td class="amount">{{ totals.total }} €</td></tr>
</table>
<form method="post" action="{{ url_for('shop.place_order') }}">
  <button type="submit">Place order</button>
</form>
{% endblock %}
""",
    "shop/static/style.css": """body {
  font-family: system-ui, sans-serif;
  max-width: 40rem;
  margin: 2rem auto;
  padding: 0 1rem;
}

.flash {
  background: #eef7ee;
  padding: .5rem 1rem;
  border-radius: 4px;
}

.totals {
  width: 100%;
  border-collapse: collapse;
}

.totals td {
  padding: .4rem .2rem;
  border-bottom: 1px solid #ddd;
}

.totals .amount {
  text-align: right;
}

.totals .total td {
  font-weight: 600;
  border-top: 2px solid #333;
}
""",
    "tests/conftest.py": """import pytest

from shop import create_app


@pytest.fixture
def app(tmp_path):
    products = tmp_path / "products.json"
    products.write_text(
        '[{"sku": "MUG-01", "name": "Enamel mug", "price": "12.50", "stock": 40},'
        ' {"sku": "TEE-02", "name": "Market tee", "price": "24.00", "stock": 12}]'
    )
    return create_app({"TESTING": True, "PRODUCTS_PATH": str(products)})


@pytest.fixture
def client(app):
    return app.test_client()
""",
    "tests/test_checkout.py": """from decimal import Decimal

from shop.cart import Cart
from shop.checkout import compute_totals


def make_cart(*prices: str) -> Cart:
    cart = Cart()
    for i, price in enumerate(prices):
        cart.add(f"SKU-{i}", f"Item {i}", Decimal(price))
    return cart


def test_small_order_pays_flat_shipping():
    totals = compute_totals(make_cart("10.00"))
    assert totals.shipping == Decimal("4.95")
    assert totals.tax == Decimal("0.80")
    assert totals.total == Decimal("15.75")


def test_free_shipping_from_fifty_euros():
    totals = compute_totals(make_cart("30.00", "20.00"))
    assert totals.shipping == Decimal("0")
    assert totals.total == Decimal("54.00")


def test_tax_is_rounded_half_up():
    totals = compute_totals(make_cart("10.06"))
    assert totals.tax == Decimal("0.80")
""",
}

# The legacy unittest suites (the long session migrates them to pytest), then the modules
# they test that the stories read or change.
SUITES = SUITES_SHOP + SUITES_SITE

for _suite in SUITES:
    SHOP_FILES[f"tests/test_{_suite.module}.py"] = render_unittest(_suite)

SHOP_FILES["shop/pagination.py"] = """from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    page: int
    pages: int


def paginate(items: list[T], page: int, per_page: int = 20) -> Page[T]:
    pages = max(1, ceil(len(items) / per_page))
    if not 1 <= page <= pages:
        raise ValueError(f"page {page} out of range 1..{pages}")
    start = (page - 1) * per_page
    return Page(items[start : start + per_page], page, pages)
"""

SHOP_FILES["shop/rate_limit.py"] = '''"""A tiny sliding-window rate limiter for the code form."""
from __future__ import annotations

import time
from collections import defaultdict, deque
from collections.abc import Callable


class RateLimiter:
    def __init__(self, limit: int, per_seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.per_seconds = per_seconds
        self.clock = clock
        self._hits: dict[str, deque[float]] = defaultdict(deque)

    def allow(self, client: str) -> bool:
        now = self.clock()
        hits = self._hits[client]
        while hits and now - hits[0] >= self.per_seconds:
            hits.popleft()
        if len(hits) >= self.limit:
            return False
        hits.append(now)
        return True
'''

SHOP_FILES["shop/webhooks.py"] = '''"""Signed webhooks from the payment provider."""
import hashlib
import hmac


class InvalidSignature(Exception):
    pass


def sign(body: bytes, secret: bytes) -> str:
    return hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify(body: bytes, signature: str, secret: bytes) -> None:
    if not hmac.compare_digest(sign(body, secret), signature):
        raise InvalidSignature("signature mismatch")
'''

SHOP_FILES["shop/orders.py"] = '''"""Orders and order numbers."""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal

LATE_AFTER = timedelta(days=3)
_sequence = itertools.count(1)


@dataclass
class Order:
    number: str
    placed_at: datetime
    total: Decimal

    def is_late(self, now: datetime | None = None) -> bool:
        return (now or datetime.now()) - self.placed_at > LATE_AFTER


def next_order_number(today: date | None = None) -> str:
    today = today or date.today()
    return f"{today:%Y%m%d}-{next(_sequence):04d}"
'''

SHOP_FILES["shop/emails.py"] = '''"""Plain-text emails."""
from decimal import Decimal


def order_confirmation(number: str, total: Decimal) -> str:
    return (
        f"Thanks for your order {number}!\\n"
        f"Total: {total} €\\n"
        "We ship within two working days."
    )


_announced: set[str] = set()


def weekly_digest(product_names: set[str]) -> str:
    """The "new this week" email; every product is announced only once."""
    new = sorted(product_names - _announced)
    _announced.update(new)
    return "\\n".join(["New this week:"] + [f"- {name}" for name in new])
'''

SHOP_FILES["shop/reports.py"] = '''"""Weekly sales report for the stall's newsletter."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

ORDERS: list[tuple[date, Decimal]] = []


@dataclass(frozen=True)
class Report:
    start: date
    end: date
    orders: int
    revenue: Decimal


def record_order(day: date, total: Decimal) -> None:
    ORDERS.append((day, total))


def weekly_report(end: date) -> Report:
    start = end - timedelta(days=7)
    week = [total for day, total in ORDERS if start < day <= end]
    return Report(start, end, len(week), sum(week, Decimal("0")))
'''


SHOP_FILES["shop/invoices.py"] = '''"""Plain-text invoices."""
from datetime import date
from decimal import Decimal


def invoice_number(day: date, seq: int) -> str:
    return f"INV-{day:%Y}-{seq:05d}"


def render_invoice(lines: list[tuple[str, int, Decimal]]) -> str:
    total = sum((price * qty for _, qty, price in lines), Decimal("0"))
    rows = [f"{name}  x{qty}  {price * qty:.2f} €" for name, qty, price in lines]
    return "\\n".join(rows + [f"Total {total:.2f} € (incl. VAT)"])
'''


def shop_system_prompt(tools: list[str], skills: str | None = None) -> dict:
    """The system prompt's sections in the shop, its AGENTS.md as project context."""
    return system_sections(tools, SHOP, [(f"{SHOP}/AGENTS.md", SHOP_AGENTS_MD)], skills)


#: The tools the shop sessions start with.
BASE_TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"]
