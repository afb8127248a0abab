"""The shop's unittest suites, first part: carts, orders, payments and the shop's other
rules (the list is in two files only to keep them short; suites_site.py has the rest)."""

from __future__ import annotations

from tools.demo.suites import Suite

SUITES_SHOP: list[Suite] = [
    Suite(
        "cart",
        "CartTests",
        ["from decimal import Decimal", "from shop.cart import Cart"],
        [("cart", "Cart()")],
        [
            ("new_cart_is_empty", [("len", "{cart}.lines", "0"), ("eq", "{cart}.count", "0")]),
            (
                "adding_same_sku_merges_lines",
                [
                    '{cart}.add("MUG-01", "Enamel mug", Decimal("12.50"))',
                    '{cart}.add("MUG-01", "Enamel mug", Decimal("12.50"), 2)',
                    ("len", "{cart}.lines", "1"),
                    ("eq", "{cart}.count", "3"),
                ],
            ),
            (
                "remove_drops_the_line",
                [
                    '{cart}.add("TEE-02", "Market tee", Decimal("24.00"))',
                    '{cart}.remove("TEE-02")',
                    ("eq", "{cart}.lines", "[]"),
                ],
            ),
            (
                "session_roundtrip_keeps_decimals",
                [
                    '{cart}.add("TEE-02", "Market tee", Decimal("24.00"))',
                    "restored = Cart.from_session({cart}.to_session())",
                    ("eq", "restored.lines[0].price", 'Decimal("24.00")'),
                ],
            ),
            (
                "line_amount_multiplies_quantity",
                [
                    '{cart}.add("MUG-01", "Enamel mug", Decimal("12.50"), 3)',
                    ("eq", "{cart}.lines[0].amount", 'Decimal("37.50")'),
                ],
            ),
        ],
    ),
    Suite(
        "inventory",
        "InventoryTests",
        ["from shop.inventory import Inventory, OutOfStock"],
        [("inv", 'Inventory({"MUG-01": 3, "TEE-02": 0})')],
        [
            ("reserve_decrements_available", ['{inv}.reserve("MUG-01", 2)', ("eq", '{inv}.available("MUG-01")', "1")]),
            ("reserving_more_than_stock_raises", [("raises", "OutOfStock", '{inv}.reserve("MUG-01", 5)')]),
            ("sold_out_items_are_not_available", [("false", '{inv}.is_available("TEE-02")')]),
            (
                "release_returns_stock",
                ['{inv}.reserve("MUG-01", 3)', '{inv}.release("MUG-01", 1)', ("eq", '{inv}.available("MUG-01")', "1")],
            ),
            ("unknown_sku_has_no_stock", [("eq", '{inv}.available("NOPE-99")', "0")]),
        ],
    ),
    Suite(
        "orders",
        "OrderTests",
        [
            "from datetime import date, datetime, timedelta",
            "from decimal import Decimal",
            "from shop.orders import Order, next_order_number",
        ],
        [("placed", "datetime(2026, 11, 2, 10, 30)"), ("order", 'Order("20261102-0001", {placed}, Decimal("31.40"))')],
        [
            ("first_order_number_of_the_day", [("eq", "next_order_number(date(2026, 11, 2))", '"20261102-0001"')]),
            (
                "order_numbers_increase",
                [
                    "first = next_order_number(date(2026, 11, 2))",
                    "second = next_order_number(date(2026, 11, 2))",
                    ("lt", "first", "second"),
                ],
            ),
            (
                "order_is_late_after_three_days",
                [("true", "{order}.is_late(now={placed} + timedelta(days=3, minutes=1))")],
            ),
            ("fresh_order_is_not_late", [("false", "{order}.is_late(now={placed} + timedelta(hours=5))")]),
        ],
    ),
    Suite(
        "payments",
        "PaymentTests",
        ["from decimal import Decimal", "from shop.payments import FakeGateway, PaymentError, charge, refund"],
        [("gateway", "FakeGateway()")],
        [
            (
                "charge_sends_amount_in_cents",
                ['charge({gateway}, "tok_visa", Decimal("12.50"))', ("eq", '{gateway}.calls[0]["amount"]', "1250")],
            ),
            (
                "declined_card_raises",
                [("raises", "PaymentError", 'charge({gateway}, "tok_declined", Decimal("10.00"))')],
            ),
            (
                "refund_cannot_exceed_charge",
                [
                    'payment = charge({gateway}, "tok_visa", Decimal("10.00"))',
                    ("raises_match", "PaymentError", '"exceeds"', 'refund({gateway}, payment, Decimal("10.01"))'),
                ],
            ),
            (
                "partial_refund_is_recorded",
                [
                    'payment = charge({gateway}, "tok_visa", Decimal("30.00"))',
                    'refund({gateway}, payment, Decimal("12.00"))',
                    ("eq", "payment.refunded", 'Decimal("12.00")'),
                ],
            ),
        ],
    ),
    Suite(
        "shipping",
        "ShippingTests",
        ["from decimal import Decimal", "from shop.shipping import rate_for"],
        [],
        [
            ("domestic_flat_rate", [("eq", 'rate_for("DE", grams=800)', 'Decimal("4.95")')]),
            ("eu_rate", [("eq", 'rate_for("FR", grams=800)', 'Decimal("9.90")')]),
            ("heavy_parcels_pay_surcharge", [("eq", 'rate_for("DE", grams=5200)', 'Decimal("8.45")')]),
            ("unknown_country_raises", [("raises", "KeyError", 'rate_for("ZZ", grams=100)')]),
        ],
    ),
    Suite(
        "taxes",
        "TaxTests",
        ["from decimal import Decimal", "from shop.taxes import vat_for"],
        [],
        [
            ("standard_rate", [("eq", 'vat_for("mug", "DE")', 'Decimal("0.19")')]),
            ("prints_are_reduced_rate", [("eq", 'vat_for("print", "DE")', 'Decimal("0.07")')]),
            ("no_vat_outside_the_eu", [("eq", 'vat_for("mug", "CH")', 'Decimal("0")')]),
        ],
    ),
    Suite(
        "currency",
        "CurrencyTests",
        ["from decimal import Decimal", "from shop.currency import UnknownCurrency, convert"],
        [],
        [
            ("eur_to_chf", [("almost", 'convert(Decimal("19.99"), "EUR", "CHF")', "18.79")]),
            ("same_currency_is_identity", [("eq", 'convert(Decimal("5.00"), "EUR", "EUR")', 'Decimal("5.00")')]),
            ("unknown_currency_raises", [("raises", "UnknownCurrency", 'convert(Decimal("1"), "EUR", "XYZ")')]),
        ],
    ),
    Suite(
        "emails",
        "EmailTests",
        ["from decimal import Decimal", "from shop.emails import order_confirmation, weekly_digest"],
        [],
        [
            (
                "confirmation_mentions_order_number",
                [("in", '"20261102-0001"', 'order_confirmation("20261102-0001", Decimal("31.40"))')],
            ),
            (
                "confirmation_shows_total",
                [("in", '"31.40 €"', 'order_confirmation("20261102-0001", Decimal("31.40"))')],
            ),
            (
                "digest_lists_products_alphabetically",
                [
                    'digest = weekly_digest({"Risograph print", "Enamel mug", "Market tee"})',
                    ("eq", "digest.splitlines()[1:]", '["- Enamel mug", "- Market tee", "- Risograph print"]'),
                ],
            ),
            (
                "digest_skips_products_announced_before",
                ['weekly_digest({"Enamel mug"})', ("eq", 'weekly_digest({"Enamel mug"})', '"New this week:"')],
            ),
        ],
    ),
    Suite(
        "users",
        "UserTests",
        ["from shop.users import User, normalize_email"],
        [],
        [
            ("email_is_lowercased_and_trimmed", [("eq", 'normalize_email("  Ana@Example.COM ")', '"ana@example.com"')]),
            ("display_name_falls_back_to_email", [("eq", 'User(email="ana@example.com").display_name', '"ana"')]),
            ("blank_email_is_rejected", [("raises", "ValueError", 'normalize_email("   ")')]),
        ],
    ),
    Suite(
        "auth",
        "AuthTests",
        ["from shop.auth import hash_password, verify_password"],
        [("hashed", 'hash_password("correct horse")')],
        [
            ("correct_password_verifies", [("true", 'verify_password("correct horse", {hashed})')]),
            ("wrong_password_fails", [("false", 'verify_password("battery staple", {hashed})')]),
            ("hashes_are_salted", [("ne", "{hashed}", 'hash_password("correct horse")')]),
        ],
    ),
    Suite(
        "search",
        "SearchTests",
        ["from shop.search import search"],
        [("names", '["Enamel mug", "Market tee", "Risograph print", "Tote bag"]')],
        [
            ("finds_by_word", [("eq", 'search({names}, "mug")', '["Enamel mug"]')]),
            ("is_case_insensitive", [("eq", 'search({names}, "TEE")', '["Market tee"]')]),
            ("empty_query_returns_everything", [("eq", 'search({names}, "")', "{names}")]),
            ("no_results", [("eq", 'search({names}, "poster")', "[]")]),
        ],
    ),
    Suite(
        "reviews",
        "ReviewTests",
        ["from shop.reviews import Review, average_rating"],
        [],
        [
            ("average_is_rounded_to_one_decimal", [("eq", "average_rating([Review(5), Review(4), Review(4)])", "4.3")]),
            ("no_reviews_means_no_average", [("none", "average_rating([])")]),
            ("rating_must_be_one_to_five", [("raises", "ValueError", "Review(6)")]),
        ],
    ),
    Suite(
        "wishlist",
        "WishlistTests",
        ["from shop.wishlist import Wishlist"],
        [("wishlist", "Wishlist()")],
        [
            ("add_item", ['{wishlist}.add("PRT-03")', ("in", '"PRT-03"', "{wishlist}")]),
            ("no_duplicates", ['{wishlist}.add("PRT-03")', '{wishlist}.add("PRT-03")', ("len", "{wishlist}", "1")]),
            ("removing_a_missing_item_is_a_no_op", ['{wishlist}.remove("MUG-01")', ("len", "{wishlist}", "0")]),
        ],
    ),
    Suite(
        "reports",
        "ReportTests",
        [
            "from datetime import date",
            "from decimal import Decimal",
            "from shop.reports import ORDERS, record_order, weekly_report",
        ],
        [],
        [
            ("empty_week_has_no_orders", [("eq", "weekly_report(date.today()).orders", "0")]),
            (
                "orders_outside_the_week_are_ignored",
                [
                    "ORDERS.clear()",
                    'record_order(date(2026, 11, 1), Decimal("18.00"))',
                    ("eq", "weekly_report(date(2026, 11, 8)).orders", "0"),
                ],
            ),
            (
                "report_sums_revenue",
                [
                    "ORDERS.clear()",
                    'record_order(date(2026, 11, 12), Decimal("24.00"))',
                    'record_order(date(2026, 11, 14), Decimal("12.50"))',
                    ("eq", "weekly_report(date(2026, 11, 15)).revenue", 'Decimal("36.50")'),
                ],
            ),
        ],
    ),
    Suite(
        "invoices",
        "InvoiceTests",
        [
            "from datetime import date",
            "from decimal import Decimal",
            "from shop.invoices import invoice_number, render_invoice",
        ],
        [],
        [
            ("number_has_year_prefix", [("eq", "invoice_number(date(2026, 11, 2), 42)", '"INV-2026-00042"')]),
            (
                "lines_are_rendered",
                [("in", '"Enamel mug  x2  25.00 €"', 'render_invoice([("Enamel mug", 2, Decimal("12.50"))])')],
            ),
            ("vat_line_is_present", [("in", '"incl. VAT"', 'render_invoice([("Market tee", 1, Decimal("24.00"))])')]),
        ],
    ),
    Suite(
        "newsletter",
        "NewsletterTests",
        ["from shop.newsletter import Subscribers, unsubscribe_token, verify_token"],
        [("subs", "Subscribers()")],
        [
            (
                "subscribe_normalizes_email",
                ['{subs}.subscribe(" Ana@Example.com")', ("in", '"ana@example.com"', "{subs}")],
            ),
            (
                "double_subscribe_is_idempotent",
                ['{subs}.subscribe("ana@example.com")', '{subs}.subscribe("ana@example.com")', ("len", "{subs}", "1")],
            ),
            ("token_roundtrip", [("eq", 'verify_token(unsubscribe_token("ana@example.com"))', '"ana@example.com"')]),
        ],
    ),
    Suite(
        "slugs",
        "SlugTests",
        ["from shop.slugs import slugify"],
        [],
        [
            ("plain_ascii", [("eq", 'slugify("Enamel Mug")', '"enamel-mug"')]),
            ("accents_are_folded", [("eq", 'slugify("Crème brûlée print")', '"creme-brulee-print"')]),
            ("repeated_separators_collapse", [("eq", 'slugify("Tote -- bag!!")', '"tote-bag"')]),
            ("empty_title_gets_placeholder", [("eq", 'slugify("???")', '"item"')]),
        ],
    ),
    Suite(
        "pagination",
        "PaginationTests",
        ["from shop.pagination import Page, paginate"],
        [("items", "list(range(1, 24))")],
        [
            (
                "first_page",
                [("eq", "paginate({items}, page=1, per_page=10)", "Page(items=list(range(1, 11)), page=1, pages=3)")],
            ),
            ("last_page_is_partial", [("eq", "paginate({items}, page=3, per_page=10).items", "[21, 22, 23]")]),
            ("page_out_of_range_raises", [("raises", "ValueError", "paginate({items}, page=4, per_page=10)")]),
        ],
    ),
    Suite(
        "returns",
        "ReturnTests",
        ["from datetime import date", "from shop.returns import can_return"],
        [("delivered", "date(2026, 10, 20)")],
        [
            ("within_thirty_days", [("true", "can_return({delivered}, today=date(2026, 11, 18))")]),
            ("after_thirty_days", [("false", "can_return({delivered}, today=date(2026, 11, 20))")]),
            ("sale_items_are_final", [("false", "can_return({delivered}, today=date(2026, 10, 21), on_sale=True)")]),
        ],
    ),
    Suite(
        "gift_cards",
        "GiftCardTests",
        ["from decimal import Decimal", "from shop.gift_cards import GiftCard, InsufficientBalance"],
        [("card", 'GiftCard("GC-7Q2M", Decimal("25.00"))')],
        [
            (
                "partial_redemption_keeps_balance",
                ['{card}.redeem(Decimal("10.00"))', ("eq", "{card}.balance", 'Decimal("15.00")')],
            ),
            ("redeeming_too_much_raises", [("raises", "InsufficientBalance", '{card}.redeem(Decimal("25.01"))')]),
            (
                "balance_never_goes_negative",
                ['{card}.redeem(Decimal("25.00"))', ("eq", "{card}.balance", 'Decimal("0.00")')],
            ),
        ],
    ),
    Suite(
        "loyalty",
        "LoyaltyTests",
        ["from decimal import Decimal", "from shop.loyalty import points_for, tier_for"],
        [],
        [
            ("one_point_per_full_euro", [("eq", 'points_for(Decimal("31.90"))', "31")]),
            ("bronze_below_100_points", [("eq", "tier_for(99)", '"bronze"')]),
            ("silver_from_100_points", [("eq", "tier_for(100)", '"silver"')]),
            ("gold_from_500_points", [("eq", "tier_for(500)", '"gold"')]),
        ],
    ),
    Suite(
        "stock_alerts",
        "StockAlertTests",
        ["from shop.stock_alerts import low_stock"],
        [("stock", '{"MUG-01": 40, "TEE-02": 5, "PRT-03": 2}')],
        [
            ("lists_items_below_threshold", [("eq", "low_stock({stock}, threshold=5)", '["PRT-03", "TEE-02"]')]),
            ("nothing_low", [("eq", "low_stock({stock}, threshold=1)", "[]")]),
        ],
    ),
    Suite(
        "images",
        "ImageTests",
        ["from shop.images import thumbnail_name"],
        [],
        [
            ("adds_size_suffix", [("eq", 'thumbnail_name("mug.jpg", 320)', '"mug-320w.jpg"')]),
            ("keeps_directories", [("eq", 'thumbnail_name("prints/riso.png", 640)', '"prints/riso-640w.png"')]),
        ],
    ),
    Suite(
        "prices",
        "PriceTests",
        ["from decimal import Decimal", "from shop.prices import format_price"],
        [],
        [
            ("uses_comma_and_euro_sign", [("eq", 'format_price(Decimal("12.5"))', '"12,50 €"')]),
            ("thousands_separator", [("eq", 'format_price(Decimal("1249"))', '"1.249,00 €"')]),
            ("negative_amounts_for_refunds", [("eq", 'format_price(Decimal("-3.2"))', '"−3,20 €"')]),
        ],
    ),
]
