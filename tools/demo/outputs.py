"""What the demo's commands print: pytest runs (plain, and in a random order that breaks the
order-dependent tests) and a day of the shop's production log."""

from __future__ import annotations

import random
import re
from datetime import datetime, timezone

from tools.demo.fs import FS
from tools.demo.ids import Gen
from tools.piwriter import ms_of


def pytest_q(
    total: int, failed: list[str] | None = None, secs: float = 0.41, fail_blocks: str = "", width: int = 72
) -> str:
    """``python -m pytest -q`` output with progress dots."""
    failed = failed or []
    marks = ["."] * total
    for i in range(len(failed)):
        marks[(7 + 13 * i) % total] = "F"
    out = []
    for i in range(0, total, width):
        chunk = "".join(marks[i : i + width])
        pct = int(100 * min(total, i + width) / total)
        out.append(f"{chunk.ljust(width)} [{pct:3d}%]")
    text_ = "\n".join(out) + "\n"
    if failed:
        text_ += "=================================== FAILURES ===================================\n" + fail_blocks
        text_ += "=========================== short test summary info ============================\n"
        for f in failed:
            text_ += f"FAILED {f}\n"
        text_ += f"{len(failed)} failed, {total - len(failed)} passed in {secs:.2f}s\n"
    else:
        text_ += f"{total} passed in {secs:.2f}s\n"
    return text_


def simulate_seed_run(fs: FS, seed: int) -> tuple[str, list[str]]:
    """``pytest -v --randomly-seed=N``: shuffled order, order-dependent failures."""
    rng = random.Random(seed * 7919)
    modules = sorted(p for p in fs.files if p.startswith("tests/test_"))
    rng.shuffle(modules)
    order: list[str] = []
    for m in modules:
        names = re.findall(r"^def (test_\w+)", fs.files[m], re.M)
        rng.shuffle(names)
        order += [f"{m}::{n}" for n in names]
    pos = {t: i for i, t in enumerate(order)}
    fails: dict[str, str] = {}
    o_first = "tests/test_orders.py::test_first_order_number_of_the_day"
    o_inc = "tests/test_orders.py::test_order_numbers_increase"
    if pos[o_inc] < pos[o_first]:
        fails[o_first] = "AssertionError: assert '20261102-0003' == '20261102-0001'"
    digest = "tests/test_emails.py::test_digest_lists_products_alphabetically"
    skips = "tests/test_emails.py::test_digest_skips_products_announced_before"
    if pos[skips] < pos[digest]:
        fails[digest] = "AssertionError: assert ['- Market te...graph print'] == ['- Enamel mu...graph print']"
    empty = "tests/test_reports.py::test_empty_week_has_no_orders"
    sums = "tests/test_reports.py::test_report_sums_revenue"
    if pos[sums] < pos[empty]:
        fails[empty] = "assert 2 == 0"
    head = f"""============================= test session starts ==============================
platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0 -- /home/demo/shop/.venv/bin/python
cachedir: .pytest_cache
Using --randomly-seed={seed}
rootdir: /home/demo/shop
configfile: pyproject.toml
testpaths: tests
plugins: randomly-3.15.0
collecting ... collected {len(order)} items

"""
    rows = []
    for i, t in enumerate(order, 1):
        status = "FAILED" if t in fails else "PASSED"
        line = f"{t} {status}"
        pct = f"[{int(100 * i / len(order)):3d}%]"
        rows.append(line + " " * max(1, 80 - len(line) - len(pct)) + pct)
    body = head + "\n".join(rows) + "\n\n"
    secs = 0.6 + rng.random() * 0.25
    if fails:
        body += "=================================== FAILURES ===================================\n"
        for t in sorted(fails, key=pos.get):
            name = t.split("::")[1]
            bar = "_" * max(3, (78 - len(name)) // 2)
            body += f"{bar} {name} {bar}\n"
            if t == o_first:
                body += f"""
    def {name}():
>       assert next_order_number(date(2026, 11, 2)) == "20261102-0001"
E       AssertionError: assert '20261102-0003' == '20261102-0001'
E
E         - 20261102-0001
E         ?             ^
E         + 20261102-0003
E         ?             ^

tests/test_orders.py:21: AssertionError
"""
            elif t == digest:
                body += f"""
    def {name}():
        digest = weekly_digest({{"Risograph print", "Enamel mug", "Market tee"}})
>       assert digest.splitlines()[1:] == ["- Enamel mug", "- Market tee", "- Risograph print"]
E       AssertionError: assert ['- Market te...graph print'] == ['- Enamel mu...graph print']
E
E         At index 0 diff: '- Market tee' != '- Enamel mug'
E         Right contains one more item: '- Risograph print'

tests/test_emails.py:16: AssertionError
"""
            else:
                body += f"""
    def {name}():
>       assert weekly_report(date.today()).orders == 0
E       assert 2 == 0
E        +  where 2 = Report(start=datetime.date(2026, 11, 9), end=datetime.date(2026, 11, 16), orders=2, revenue=Decimal('36.50')).orders
E        +    where Report(...) = weekly_report(datetime.date(2026, 11, 16))

tests/test_reports.py:8: AssertionError
"""
        body += "=========================== short test summary info ============================\n"
        for t in sorted(fails, key=pos.get):
            body += f"FAILED {t} - {fails[t]}"[:120] + "\n"
        summary = f" {len(fails)} failed, {len(order) - len(fails)} passed in {secs:.2f}s "
    else:
        summary = f" {len(order)} passed in {secs:.2f}s "
    pad = (80 - len(summary)) // 2
    body += "=" * pad + summary + "=" * (80 - pad - len(summary)) + "\n"
    return body, list(fails)


UAS = [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 15; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
]


def production_log(g: Gen) -> str:
    """journalctl output of the shop's gunicorn service for one day."""
    t = ms_of("2026-11-15T07:02:11.000Z")
    end = ms_of("2026-11-16T07:40:00.000Z")
    lines = []
    pid = 812
    codes = ["SAVE10", "SUMMER25", "MARKET20", "FREESHIP", "SUMMER25", "SAVE10"]
    while t < end:
        t += g.randint(20, 240) * 1000
        ip = f"{g.choice([81, 88, 91, 176, 213])}.{g.randint(1, 254)}.{g.randint(1, 254)}.{g.randint(1, 254)}"
        ua = g.rng.choice(UAS)
        visit = [("GET", "/", 200, 2411), ("GET", "/cart", 200, 1834)]
        if g.rng.random() < 0.45:
            sku = g.rng.choice(["MUG-01", "TEE-02", "PRT-03"])
            visit = [
                ("GET", "/", 200, 2411),
                ("POST", f"/cart/add/{sku}", 302, 199),
                ("GET", "/cart", 200, 1987),
                ("GET", "/checkout", 200, 3120),
            ]
            if g.rng.random() < 0.5:
                visit += [("POST", "/checkout/code", 302, 207), ("GET", "/checkout", 200, 3388)]
            if g.rng.random() < 0.6:
                visit += [("POST", "/checkout", 302, 205), ("GET", "/cart", 200, 1702)]
        for method, path, status, size in visit:
            t += g.randint(1500, 40000)
            local = datetime.fromtimestamp(t / 1000 + 3600, tz=timezone.utc)
            stamp = local.strftime("%b %d %H:%M:%S")
            clf = local.strftime("%d/%b/%Y:%H:%M:%S +0100")
            lines.append(
                f'{stamp} market-stall gunicorn[{pid}]: {ip} - - [{clf}] "{method} {path} HTTP/1.1" {status} {size} "-" "{ua}"'
            )
            if path == "/checkout/code":
                code = g.rng.choice(codes)
                lines.append(
                    f"{stamp} market-stall gunicorn[{pid}]: [{local:%Y-%m-%d %H:%M:%S} +0100] [{pid}] [INFO] shop.views: discount code {code} applied"
                )
    return "\n".join(lines) + "\n"
