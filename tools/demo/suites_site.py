"""The shop's unittest suites, second part: addresses, feeds, rate limits, webhooks and the
rest of the site."""

from __future__ import annotations

from tools.demo.suites import Suite

SUITES_SITE: list[Suite] = [
    Suite(
        "addresses",
        "AddressTests",
        ["from shop.addresses import Address, InvalidPostcode"],
        [],
        [
            (
                "german_postcode_has_five_digits",
                [("raises", "InvalidPostcode", 'Address("Ana Weber", "Marktplatz 3", "1234", "Leipzig", "DE")')],
            ),
            (
                "postcode_whitespace_is_stripped",
                [("eq", 'Address("Ana Weber", "Marktplatz 3", " 04109 ", "Leipzig", "DE").postcode', '"04109"')],
            ),
            (
                "label_has_country_line_abroad",
                [("in", '"FRANCE"', 'Address("Luc Martin", "2 rue Cler", "75007", "Paris", "FR").label()')],
            ),
        ],
    ),
    Suite(
        "bundles",
        "BundleTests",
        ["from decimal import Decimal", "from shop.bundles import Bundle"],
        [("bundle", 'Bundle("Starter set", [Decimal("12.50"), Decimal("24.00")], percent_off=Decimal("15"))')],
        [
            ("bundle_price_is_discounted", [("eq", "{bundle}.price", 'Decimal("31.03")')]),
            ("savings_are_shown", [("eq", "{bundle}.savings", 'Decimal("5.47")')]),
            ("empty_bundle_is_rejected", [("raises", "ValueError", 'Bundle("Nothing", [])')]),
        ],
    ),
    Suite(
        "csv_export",
        "CsvExportTests",
        ["import csv", "import io", "from decimal import Decimal", "from shop.csv_export import export_orders"],
        [("rows", '[("20261102-0001", "ana@example.com", Decimal("31.40"))]')],
        [
            (
                "header_row",
                [("eq", "next(csv.reader(io.StringIO(export_orders({rows}))))", '["number", "email", "total"]')],
            ),
            ("totals_use_a_dot", [("in", '"31.40"', "export_orders({rows})")]),
            ("no_rows_still_has_header", [("eq", "export_orders([]).strip()", '"number,email,total"')]),
        ],
    ),
    Suite(
        "feeds",
        "FeedTests",
        ["from datetime import datetime, timezone", "from shop.feeds import product_feed"],
        [("items", '[("Enamel mug", "/p/enamel-mug", datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc))]')],
        [
            ("feed_is_rss_2", [("in", "'<rss version=\"2.0\"'", "product_feed({items})")]),
            (
                "item_has_absolute_link",
                [("in", '"<link>https://market-stall.example/p/enamel-mug</link>"', "product_feed({items})")],
            ),
            ("dates_are_rfc_822", [("in", '"Mon, 02 Nov 2026 09:00:00 +0000"', "product_feed({items})")]),
        ],
    ),
    Suite(
        "markdown",
        "MarkdownTests",
        ["from shop.markdown import render"],
        [],
        [
            ("bold", [("eq", 'render("**hand made**")', '"<p><strong>hand made</strong></p>"')]),
            ("html_is_escaped", [("eq", 'render("<script>")', '"<p>&lt;script&gt;</p>"')]),
            ("blank_lines_split_paragraphs", [("eq", 'render("a\\n\\nb").count("<p>")', "2")]),
        ],
    ),
    Suite(
        "rate_limit",
        "RateLimitTests",
        ["from shop.rate_limit import RateLimiter"],
        [("clock", "[1000.0]"), ("limiter", "RateLimiter(limit=3, per_seconds=60, clock=lambda: {clock}[0])")],
        [
            ("allows_up_to_the_limit", [("true", 'all({limiter}.allow("10.0.0.1") for _ in range(3))')]),
            (
                "blocks_after_the_limit",
                ["for _ in range(3):", '    {limiter}.allow("10.0.0.1")', ("false", '{limiter}.allow("10.0.0.1")')],
            ),
            (
                "window_slides",
                [
                    "for _ in range(3):",
                    '    {limiter}.allow("10.0.0.1")',
                    "{clock}[0] += 61",
                    ("true", '{limiter}.allow("10.0.0.1")'),
                ],
            ),
            (
                "limits_are_per_client",
                ["for _ in range(3):", '    {limiter}.allow("10.0.0.1")', ("true", '{limiter}.allow("10.0.0.2")')],
            ),
        ],
    ),
    Suite(
        "sales",
        "SaleTests",
        ["from datetime import date", "from decimal import Decimal", "from shop.sales import Sale, sale_price"],
        [("sale", 'Sale("Black Friday", date(2026, 11, 27), date(2026, 11, 30), percent_off=Decimal("30"))')],
        [
            (
                "price_during_sale",
                [("eq", 'sale_price(Decimal("24.00"), {sale}, date(2026, 11, 28))', 'Decimal("16.80")')],
            ),
            (
                "price_outside_sale",
                [("eq", 'sale_price(Decimal("24.00"), {sale}, date(2026, 12, 1))', 'Decimal("24.00")')],
            ),
            ("sale_end_date_is_inclusive", [("true", "{sale}.active(date(2026, 11, 30))")]),
        ],
    ),
    Suite(
        "settings",
        "SettingsTests",
        ["from shop.settings import Settings"],
        [],
        [
            ("defaults", [("eq", "Settings.from_env({}).currency", '"EUR"')]),
            ("debug_flag_parsing", [("true", 'Settings.from_env({"SHOP_DEBUG": "yes"}).debug')]),
            (
                "bad_port_raises",
                [("raises_match", "ValueError", '"SHOP_PORT"', 'Settings.from_env({"SHOP_PORT": "eighty"})')],
            ),
        ],
    ),
    Suite(
        "sitemap",
        "SitemapTests",
        ["from shop.sitemap import sitemap_xml"],
        [("urls", '["/", "/cart", "/p/enamel-mug"]')],
        [
            ("lists_every_url", [("eq", 'sitemap_xml({urls}).count("<url>")', "3")]),
            (
                "urls_are_absolute",
                [("in", '"<loc>https://market-stall.example/p/enamel-mug</loc>"', "sitemap_xml({urls})")],
            ),
            ("has_xml_declaration", [("true", 'sitemap_xml({urls}).startswith("<?xml")')]),
        ],
    ),
    Suite(
        "tags",
        "TagTests",
        ["from shop.tags import parse_tags"],
        [],
        [
            ("comma_separated", [("eq", 'parse_tags("ceramics, kitchen")', '["ceramics", "kitchen"]')]),
            ("duplicates_and_case", [("eq", 'parse_tags("Kitchen,kitchen , KITCHEN")', '["kitchen"]')]),
            ("empty_string", [("eq", 'parse_tags("")', "[]")]),
        ],
    ),
    Suite(
        "webhooks",
        "WebhookTests",
        ["from shop.webhooks import InvalidSignature, sign, verify"],
        [("secret", 'b"whsec_test"'), ("body", 'b\'{"event": "payment.succeeded"}\'')],
        [
            ("valid_signature", ["verify({body}, sign({body}, {secret}), {secret})  # raises on mismatch"]),
            (
                "tampered_body_is_rejected",
                [("raises", "InvalidSignature", 'verify({body} + b" ", sign({body}, {secret}), {secret})')],
            ),
            (
                "wrong_secret_is_rejected",
                [("raises", "InvalidSignature", 'verify({body}, sign({body}, b"other"), {secret})')],
            ),
        ],
    ),
    Suite(
        "analytics",
        "AnalyticsTests",
        ["from shop.analytics import PageViews"],
        [("views", "PageViews()")],
        [
            (
                "counts_views_per_path",
                ['{views}.hit("/cart")', '{views}.hit("/cart")', ("eq", '{views}.count("/cart")', "2")],
            ),
            (
                "query_strings_are_ignored",
                ['{views}.hit("/?utm_source=newsletter")', ("eq", '{views}.count("/")', "1")],
            ),
            (
                "top_pages",
                [
                    '{views}.hit("/a")',
                    '{views}.hit("/b")',
                    '{views}.hit("/b")',
                    ("eq", "{views}.top(1)", '[("/b", 2)]'),
                ],
            ),
        ],
    ),
]
