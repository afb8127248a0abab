"""``pitui usage`` agrees with ``@ccusage/pi`` on every row of the test stores.

The expected outputs are ccusage's own, captured by ``tools/ccusage_expected.py`` (which
installs ``@ccusage/pi`` with npm; these tests never run it): every token count equal, every
cost within $0.005, the same rows, the same models in each. Where a fork copied messages
(the usage store's ``0000bbbb`` sessions), which session row keeps them follows ccusage's
file order, which is not defined: those two rows are compared together.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pitui.cli import main
from tools.ccusage_expected import RUNS, STORES, expected_path

TOKENS = ("inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens")
LABEL = {"daily": "date", "monthly": "month", "session": "sessionId"}
KEY = {"daily": "daily", "monthly": "monthly", "session": "sessions"}
FORKED = {"0000bbbb-0000-4000-8000-000000000000", "0000bbbb-0000-4000-8000-000000000001"}


def _pitui(capsys, store: Path, report: str, zone: str, monkeypatch, tmp_path, listed: bool = False) -> dict:
    """``pitui usage REPORT STORE --json``; ``listed``: after a list that read every file and
    kept their usage in the usage index kept (the report then reads no file)."""
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TZ", zone)
    if listed:
        from pitui.core.store import listing, usage_read
        from pitui.core.store.usage_index import UsageIndex

        monkeypatch.setattr(listing, "USAGE_MIN_FILES", 1)
        monkeypatch.setattr(listing, "USAGE_MIN_BYTES", 0)
        UsageIndex(tmp_path / "cache").save([])  # (the usage kept: a list keeps it up to date)
        assert main(["list", str(store), "--json"]) == 0
        capsys.readouterr()
        monkeypatch.setattr(usage_read, "_read_file", None)  # (a file read by the usage alone would fail)
    assert main(["usage", report, str(store), "--json", "--timezone", zone]) == 0
    return json.loads(capsys.readouterr().out)


def _merged_forks(rows: list[dict]) -> list[dict]:
    """The forked sessions' rows as one (their messages' owner is not defined)."""
    out, merged = [], None
    for r in rows:
        if r["sessionId"] not in FORKED:
            out.append(r)
            continue
        if merged is None:
            merged = {"sessionId": "forked", "projectPath": r["projectPath"], "lastActivity": r["lastActivity"],
                      "modelsUsed": [], "totalCost": 0.0, **{k: 0 for k in TOKENS}}
            out.append(merged)
        for k in (*TOKENS, "totalCost"):
            merged[k] += r[k]
        merged["modelsUsed"] += [m for m in r["modelsUsed"] if m not in merged["modelsUsed"]]
        merged["lastActivity"] = max(merged["lastActivity"], r["lastActivity"])
    return out


@pytest.mark.parametrize("read", ["alone", "by the listing"])
@pytest.mark.parametrize("store", sorted(STORES))
@pytest.mark.parametrize("report,zone", RUNS)
def test_usage_agrees_with_ccusage(store, report, zone, read, capsys, monkeypatch, tmp_path):
    theirs = json.loads(expected_path(store, report, zone).read_text())
    mine = _pitui(capsys, STORES[store], report, zone, monkeypatch, tmp_path, listed=read == "by the listing")
    key, label = KEY[report], LABEL[report]
    their_rows, my_rows = theirs[key], mine[key]
    if report == "session":
        their_rows, my_rows = _merged_forks(their_rows), _merged_forks(my_rows)
    assert [r[label] for r in my_rows] == [r[label] for r in their_rows] or report == "session"
    assert sorted(r[label] for r in my_rows) == sorted(r[label] for r in their_rows)
    by_label = {r[label]: r for r in my_rows}
    for t in their_rows:
        m = by_label[t[label]]
        assert {k: m[k] for k in TOKENS} == {k: t[k] for k in TOKENS}, t[label]
        assert m["totalCost"] == pytest.approx(t["totalCost"], abs=0.005), t[label]
        assert sorted(m["modelsUsed"]) == sorted(t["modelsUsed"]), t[label]
        if report != "session" or t[label] != "forked":
            mb = {b["modelName"]: b for b in m["modelBreakdowns"]}
            for b in t["modelBreakdowns"]:
                assert {k: mb[b["modelName"]][k] for k in TOKENS} == {k: b[k] for k in TOKENS}
                assert mb[b["modelName"]]["cost"] == pytest.approx(b["cost"], abs=0.005)
        if report == "session":
            assert (m["projectPath"], m["lastActivity"]) == (t["projectPath"], t["lastActivity"])
    assert {k: mine["totals"][k] for k in TOKENS} == {k: theirs["totals"][k] for k in TOKENS}
    assert mine["totals"]["totalCost"] == pytest.approx(theirs["totals"]["totalCost"], abs=0.005)
