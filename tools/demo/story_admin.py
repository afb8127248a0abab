"""The admin story (session C, "Discount codes: admin overview"): forked from the checkout
story with /fork at its "core-done" answer (the header's parentSession), renamed, and
continued with another model: a read-only admin page, a failing template test and its fix."""

from __future__ import annotations

from tools.demo.blocks import call, text, think
from tools.demo.fork import fork_session
from tools.demo.fs import FS, count_tests
from tools.demo.models import OPUS
from tools.demo.outputs import pytest_q
from tools.demo.session import Session
from tools.demo.truncation import bash_out

ADMIN_PY = '''"""Read-only admin pages, protected with HTTP basic auth."""
from __future__ import annotations

import hmac

from flask import Blueprint, Response, current_app, render_template, request

from . import redemptions
from .discounts import CODES

bp = Blueprint("admin", __name__, url_prefix="/admin")


@bp.before_request
def require_password() -> Response | None:
    auth = request.authorization
    expected = current_app.config.get("ADMIN_PASSWORD")
    if expected and auth and hmac.compare_digest(auth.password or "", expected):
        return None
    return Response("Login required", 401, {"WWW-Authenticate": 'Basic realm="shop admin"'})


@bp.get("/discounts")
def discounts():
    uses = redemptions.counts()
    rows = [(d, uses.get(d.code, 0)) for d in sorted(CODES.values(), key=lambda d: d.code)]
    return render_template("admin_discounts.html", rows=rows)
'''

ADMIN_HTML = """{% extends "base.html" %}
{% block title %}Discount codes{% endblock %}
{% block content %}
<h1>Discount codes</h1>
<table class="totals">
  <tr><th>Code</th><th>Discount</th><th>Expires</th><th>Used</th></tr>
  {% for d, used in rows %}
  <tr>
    <td><code>{{ d.code }}</code></td>
    <td>{% if d.free_shipping %}free shipping{% else %}{{ d.percent_off }} %{% endif %}</td>
    <td>{{ d.expires.strftime("%d %b %Y") }}</td>
    <td class="amount">{{ used }}{% if d.max_uses %} / {{ d.max_uses }}{% endif %}</td>
  </tr>
  {% endfor %}
</table>
{% endblock %}
"""

TEST_ADMIN_PY = """import base64

import pytest


@pytest.fixture
def admin(app):
    app.config["ADMIN_PASSWORD"] = "s3cret"
    token = base64.b64encode(b"admin:s3cret").decode()
    client = app.test_client()
    client.environ_base["HTTP_AUTHORIZATION"] = f"Basic {token}"
    return client


def test_admin_requires_password(client):
    assert client.get("/admin/discounts").status_code == 401


def test_admin_lists_every_code(admin):
    page = admin.get("/admin/discounts").get_data(as_text=True)
    for code in ("FREESHIP", "MARKET20", "SAVE10", "SUMMER25"):
        assert code in page


def test_admin_shows_expiry_and_limits(admin):
    page = admin.get("/admin/discounts").get_data(as_text=True)
    assert "30 Sep 2026" in page
    assert "0 / 50" in page
"""


def build_session_c(fs: FS, a: Session) -> Session:
    s = fork_session(
        a, a.marks["core_done"], start="2026-11-18T15:31:40.052Z", seed=1118, model=OPUS, thinking_level="high"
    )
    s.session_info("Discount codes: admin overview")
    s.model_change(OPUS)
    s.thinking_change("high")
    s.user(
        "Let's add a read-only admin page at /admin/discounts that lists every code with its discount, expiry and how often it's been "
        "used. Protect it with HTTP basic auth, password from an ADMIN_PASSWORD config value."
    )
    c1 = call("find", {"pattern": "*.html", "path": "shop/templates"})
    c2 = call("read", {"path": "shop/discounts.py"})
    s.turn(
        [
            think(
                "Since this session was forked, the code has moved on: codes have `expires` and `max_uses` now and there is "
                "`shop/redemptions.py`. Let me re-read discounts.py instead of trusting the earlier context, and see which templates exist."
            ),
            c1,
            c2,
        ],
        [fs.find("*.html", "shop/templates"), fs.read("shop/discounts.py")],
    )
    c = call("read", {"path": "shop/__init__.py"})
    s.turn([c], [fs.read("shop/__init__.py")])
    c1 = call("write", {"path": "shop/admin.py", "content": ADMIN_PY})
    c2 = call("write", {"path": "shop/templates/admin_discounts.html", "content": ADMIN_HTML})
    s.turn(
        [
            think(
                "Basic auth in a `before_request` hook on its own blueprint keeps the shop views untouched. Compare with "
                "`hmac.compare_digest` so the check is constant-time, and refuse everything if ADMIN_PASSWORD isn't configured."
            ),
            c1,
            c2,
        ],
        [fs.write("shop/admin.py", ADMIN_PY), fs.write("shop/templates/admin_discounts.html", ADMIN_HTML)],
    )
    reg_old = "    from . import views\n\n    app.register_blueprint(views.bp)\n"
    reg_new = (
        "    from . import admin, views\n\n    app.register_blueprint(views.bp)\n    app.register_blueprint(admin.bp)\n"
    )
    c1 = call("edit", {"path": "shop/__init__.py", "oldText": reg_old, "newText": reg_new})
    c2 = call("write", {"path": "tests/test_admin.py", "content": TEST_ADMIN_PY})
    s.turn([c1, c2], [fs.edit("shop/__init__.py", (reg_old, reg_new)), fs.write("tests/test_admin.py", TEST_ADMIN_PY)])
    c = call("bash", {"command": "python -m pytest -q tests/test_admin.py"})
    s.turn(
        [c],
        [
            bash_out(
                """.FF                                                                      [100%]
=================================== FAILURES ===================================
__________________________ test_admin_lists_every_code _________________________

admin = <FlaskClient <Flask 'shop'>>

    def test_admin_lists_every_code(admin):
>       page = admin.get("/admin/discounts").get_data(as_text=True)

tests/test_admin.py:20:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
shop/templates/admin_discounts.html:10: in top-level template code
    <td>{{ d.expires.strftime("%d %b %Y") }}</td>
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

>   ???
E   jinja2.exceptions.UndefinedError: 'None' has no attribute 'strftime'

.venv/lib/python3.12/site-packages/jinja2/environment.py:485: UndefinedError
_______________________ test_admin_shows_expiry_and_limits _____________________

admin = <FlaskClient <Flask 'shop'>>

    def test_admin_shows_expiry_and_limits(admin):
>       page = admin.get("/admin/discounts").get_data(as_text=True)
E   jinja2.exceptions.UndefinedError: 'None' has no attribute 'strftime'
=========================== short test summary info ============================
FAILED tests/test_admin.py::test_admin_lists_every_code - jinja2.exceptions.UndefinedError: 'None' has no attribute 'strftime'
FAILED tests/test_admin.py::test_admin_shows_expiry_and_limits - jinja2.exceptions.UndefinedError: 'None' has no attribute 'strftime'
2 failed, 1 passed in 0.24s
""",
                exit_code=1,
                duration=(800, 1500),
            )
        ],
    )
    h_old = '    <td>{{ d.expires.strftime("%d %b %Y") }}</td>'
    h_new = '    <td>{{ d.expires.strftime("%d %b %Y") if d.expires else "never" }}</td>'
    c = call("edit", {"path": "shop/templates/admin_discounts.html", "oldText": h_old, "newText": h_new})
    s.turn(
        [text("Only `SUMMER25` has an expiry date; the others have `None`."), c],
        [fs.edit("shop/templates/admin_discounts.html", (h_old, h_new))],
    )
    n = count_tests(fs)
    c = call("bash", {"command": "python -m pytest -q"})
    s.turn([c], [bash_out(pytest_q(n, secs=0.93), duration=(1600, 2800))])
    s.assistant(
        [
            text(
                """`/admin/discounts` is in place:

```
Code      Discount        Expires       Used
FREESHIP  free shipping   never         0
MARKET20  20 %            never         0 / 50
SAVE10    10 %            never         0
SUMMER25  25 %            30 Sep 2026   0
```

- `shop/admin.py`: a separate `admin` blueprint; a `before_request` hook checks HTTP basic auth against `ADMIN_PASSWORD` with `hmac.compare_digest`. Without a configured password every request gets **401**.
- `shop/templates/admin_discounts.html`: reuses the `.totals` table style.
- `tests/test_admin.py`: 3 tests (401 without credentials, all codes listed, expiry and limit shown).

Set the password on the server with `export FLASK_ADMIN_PASSWORD=...` and `app.config.from_prefixed_env()`, or tell me how you configure the app there and I'll wire it up."""
            )
        ]
    )
    return s
