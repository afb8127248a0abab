"""Capture ``@ccusage/pi``'s reports of the test stores as the expected output of ``pitui usage``.

``python -m tools.ccusage_expected`` installs ``@ccusage/pi`` (the version below) with npm into
a temporary folder, writes the usage test store (:mod:`tools.usage_store`) into
``tests/fixtures/usage/sessions``, and runs ``ccusage-pi daily|monthly|session --json
--piPath STORE --timezone TZ`` (``TZ`` set too) on it and on the corpus
(``tests/fixtures/pi-corpus/agent/sessions``), saving each output as
``tests/fixtures/usage/expected/<store>-<report>-<zone>.json``. ``tests/cli/test_usage_agreement.py``
compares ``pitui usage`` with them; the tests never run npm. Both stores sit in a folder
named ``sessions``: ccusage names a session's project by the folder after the first path
segment called so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from .usage_store import write_store

CCUSAGE = "@ccusage/pi@18.0.11"
REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
STORES = {"corpus": FIXTURES / "pi-corpus" / "agent" / "sessions", "store": FIXTURES / "usage" / "sessions"}
#: (report, time zone) captured for every store
RUNS = [("daily", "UTC"), ("monthly", "UTC"), ("session", "UTC"), ("daily", "America/Los_Angeles"),
        ("daily", "Asia/Kolkata")]


def expected_path(store: str, report: str, zone: str) -> Path:
    return FIXTURES / "usage" / "expected" / f"{store}-{report}-{zone.replace('/', '_')}.json"


def main() -> int:
    write_store(STORES["store"])
    with tempfile.TemporaryDirectory(prefix="ccusage-") as tmp:
        subprocess.run(["npm", "install", "--prefix", tmp, "--no-audit", "--no-fund", CCUSAGE], check=True,
                       stdout=subprocess.DEVNULL)
        binary = Path(tmp) / "node_modules" / ".bin" / "ccusage-pi"
        for store, path in STORES.items():
            for report, zone in RUNS:
                done = subprocess.run([str(binary), report, "--json", "--piPath", str(path), "--timezone", zone],
                                      check=True, capture_output=True, text=True, env={**os.environ, "TZ": zone})
                data = json.loads(done.stdout)
                out = expected_path(store, report, zone)
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(json.dumps(data, indent=2) + "\n")
                print(f"{out.relative_to(REPO)}: {len(data.get('daily') or data.get('monthly') or data.get('sessions') or [])} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
