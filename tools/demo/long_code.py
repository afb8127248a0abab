"""The code the agent writes in the long story: discount codes with expiry dates and usage
limits, their redemption counts, and the tests for both."""

DISCOUNTS_PY_B = '''"""Discount codes customers can enter at checkout."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal


class InvalidCode(ValueError):
    """Raised for a code we don't know, or one that can no longer be used."""


class ExpiredCode(InvalidCode):
    """The code's last day has passed."""


class CodeUsedUp(InvalidCode):
    """The code has been redeemed ``max_uses`` times."""


@dataclass(frozen=True)
class Discount:
    code: str
    percent_off: Decimal = Decimal("0")
    free_shipping: bool = False
    expires: date | None = None  # last day the code can be used
    max_uses: int | None = None

    def apply(self, subtotal: Decimal) -> Decimal:
        """The amount taken off ``subtotal`` (never more than the subtotal)."""
        return min(subtotal * self.percent_off / 100, subtotal)


CODES: dict[str, Discount] = {
    "SAVE10": Discount("SAVE10", percent_off=Decimal("10")),
    "MARKET20": Discount("MARKET20", percent_off=Decimal("20"), max_uses=50),
    "SUMMER25": Discount("SUMMER25", percent_off=Decimal("25"), expires=date(2026, 9, 30)),
    "FREESHIP": Discount("FREESHIP", free_shipping=True),
}


def lookup(code: str, *, today: date = None, uses: Mapping[str, int] | None = None) -> Discount:
    """Find a usable discount; codes are case-insensitive and surrounding spaces are ignored."""
    key = code.strip().upper()
    try:
        discount = CODES[key]
    except KeyError:
        raise InvalidCode(f"Unknown discount code: {code.strip()!r}") from None
    today = today or date.today()
    if discount.expires is not None and today >= discount.expires:
        raise ExpiredCode(f"{key} expired on {discount.expires:%d %B %Y}")
    if discount.max_uses is not None and (uses or {}).get(key, 0) >= discount.max_uses:
        raise CodeUsedUp(f"{key} has already been used {discount.max_uses} times")
    return discount
'''

REDEMPTIONS_PY = '''"""How often each discount code was redeemed (a small JSON file)."""
from __future__ import annotations

import json
from pathlib import Path

from flask import current_app


def _path() -> Path:
    return Path(current_app.config.get("REDEMPTIONS_PATH", "data/redemptions.json"))


def counts() -> dict[str, int]:
    path = _path()
    return json.loads(path.read_text()) if path.exists() else {}


def count(code: str) -> int:
    return counts().get(code)


def record(code: str) -> None:
    data = counts()
    data[code] = data.get(code, 0) + 1
    _path().write_text(json.dumps(data, indent=2, sort_keys=True) + "\\n")
'''

TEST_DISCOUNTS_PY = """from datetime import date

import pytest

from shop import redemptions
from shop.discounts import CodeUsedUp, ExpiredCode, lookup


def test_code_still_works_on_its_last_day():
    assert lookup("SUMMER25", today=date(2026, 9, 30)).code == "SUMMER25"


def test_expired_code_is_rejected():
    with pytest.raises(ExpiredCode, match="expired on 30 September 2026"):
        lookup("SUMMER25", today=date(2026, 10, 1))


def test_used_up_code_is_rejected():
    with pytest.raises(CodeUsedUp):
        lookup("MARKET20", uses={"MARKET20": 50})


def test_code_below_its_limit_still_works():
    assert lookup("market20", uses={"MARKET20": 49}).code == "MARKET20"


def test_redemptions_are_counted(app):
    with app.app_context():
        redemptions.record("MARKET20")
        redemptions.record("MARKET20")
        assert redemptions.count("MARKET20") == 2
"""
