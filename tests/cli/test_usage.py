"""``pitui usage``: what it counts, pitui's own figures, bad input, the index, the tables.

The agreement with ``@ccusage/pi`` itself is in ``test_usage_agreement.py``.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from helpers import FIXTURES, REPO, assistant, entry, line, user, write
from pitui.cli import main
from pitui.cli.usage import usage_table
from pitui.core.model.cost import usage_figures
from pitui.core.model.stats import session_stats
from pitui.core.numbers import fmt_cost
from pitui.core.read.open import open_session
from pitui.core.read.session import NotASession, Session
from pitui.core.store.discovery import resolve_root
from pitui.core.store.usage import load_usage, report

CORPUS = FIXTURES / "pi-corpus" / "agent" / "sessions"
STORE = FIXTURES / "usage" / "sessions"
DEMO = REPO / "pitui" / "demo" / "sessions"
PI_WRITTEN = FIXTURES / "pi-written"


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PITUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TZ", "UTC")


def _usage_json(capsys, *args) -> dict:
    assert main(["usage", *args, "--json", "-z", "UTC"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("root", [CORPUS, STORE, DEMO, PI_WRITTEN], ids=["corpus", "usage-store", "demo", "pi-written"])
def test_each_sessions_cost_is_what_its_stats_screen_counts(root, tmp_path):
    """One reading of a usage and one total (core/model/cost.py's usage_figures and spent):
    the usage index's figure of a session (the usage screen, the sidebar) and the stats
    screen's (``s``, the header) are the same number, so never shown two ways (before
    spent, a branched session read $0.3622 in its header and $0.3621 on the usage screen)."""
    usage = load_usage(resolve_root(str(root)), cache_dir=tmp_path / "c")
    assert usage.files
    for f in usage.files:
        try:
            session = open_session(f.path)
        except NotASession:  # (the demo's eval results: no figures)
            assert (f.session_cost, f.summary["byModel"]) == (0, {})
            continue
        stats = session_stats(session)
        assert (f.session_cost, f.session_tokens) == (stats.total.cost, stats.total.tokens), f.path
        assert fmt_cost(f.session_cost) == fmt_cost(stats.total.cost), f.path
        assert {k: v[4] for k, v in f.summary["byModel"].items()} == {k: u.cost for k, u in stats.by_model.items()}, \
            f.path


def test_pituis_own_figures_of_the_usage_store(capsys):
    out = _usage_json(capsys, "session", str(STORE), "--sort", "cost")
    by_id = {r["sessionId"]: r for r in out["sessions"]}
    # the abandoned try (another answer at turn 2 of 0000aaaa-…-01): its usage, not on the path
    branched = by_id["0000aaaa-0000-4000-8000-000000000001"]
    try_usage = usage_figures({"input": 100 + 37 * 62, "output": 20 + 11 * 62, "cacheRead": 1000 * (62 % 7),
                               "cacheWrite": 300 * (62 % 3), "cost": {"total": 0.0}})
    assert branched["abandonedTokens"] == try_usage.total_tokens
    assert branched["abandonedCost"] > 0
    # (the odd messages of …-03 answer one result side by side: all but the last are off the path)
    assert all(r["abandonedCost"] == 0 for k, r in by_id.items() if k not in (
        "0000aaaa-0000-4000-8000-000000000001", "0000cccc-0000-4000-8000-000000000003"))
    # a subagent run whose transcript is in subagent-artifacts is not counted again; the
    # one whose transcript is gone is
    assert by_id["0000cccc-0000-4000-8000-000000000001"]["subagentGoneCost"] == 0
    gone = by_id["0000cccc-0000-4000-8000-000000000002"]
    assert (gone["subagentGoneTokens"], gone["subagentGoneCost"]) == (2490, 0.0123)
    assert out["totals"]["subagentGoneCost"] == 0.0123
    # tool calls by kind, errors from the results (every fourth result of the generator fails)
    assert out["totals"]["tools"]["file_read"] == {"calls": 15, "errors": 5}
    assert out["totals"]["tools"]["subagent"] == {"calls": 2, "errors": 0}
    # sorted by cost, costliest first
    costs = [r["totalCost"] for r in out["sessions"]]
    assert costs == sorted(costs, reverse=True)
    assert out["totals"]["cacheHitRatio"] == pytest.approx(
        out["totals"]["cacheReadTokens"] / (out["totals"]["inputTokens"] + out["totals"]["cacheReadTokens"]
                                            + out["totals"]["cacheCreationTokens"]))


def test_session_rows_carry_the_file_the_header_id_and_the_name(tmp_path, capsys):
    f = write(tmp_path / "--p--" / "2026-11-20T10-00-00-000Z_sess-1.jsonl", [
        user("u1", None, 1), assistant("a1", "u1", 2),
        entry("session_info", "n1", "a1", 3, name="Fix the \x1b[31mbuild")])
    out = _usage_json(capsys, "session", str(tmp_path))
    (row,) = out["sessions"]
    assert (row["sessionId"], row["projectPath"], row["path"], row["id"], row["name"]) == (
        "sess-1", "--p--", str(f), "sess-1", "Fix the \x1b[31mbuild")
    assert (row["inputTokens"], row["outputTokens"], row["totalTokens"], row["totalCost"]) == (10, 20, 30, 0.03)
    # the human table shows the name safely
    assert main(["usage", "session", str(tmp_path), "-z", "UTC"]) == 0
    text = capsys.readouterr().out
    assert "Fix the ^[[31mbuild" in text and "\x1b" not in text


def _odd(eid: str, parent: str, n: int, usage, **message) -> dict:
    a = assistant(eid, parent, n)
    a["message"]["usage"] = usage
    a["message"].update(message)
    return a


BAD = [
    ("strings", {"input": "10", "output": 20}, "input or output is not a number"),
    ("negative", {"input": -10, "output": 20}, "a token count is negative or absurd"),
    ("absurd", {"input": 1e300, "output": 20}, "a token count is negative or absurd"),
    ("missing", {"output": 20}, "input or output is not a number"),
    ("null count", {"input": 1, "output": 2, "cacheRead": None}, "a cost or count of another type"),
    ("cost string", {"input": 1, "output": 2, "cost": "0.5"}, "a cost or count of another type"),
    ("cost bare number", {"input": 1, "output": 2, "cost": 0.5}, "a cost or count of another type"),
    ("cost total object", {"input": 1, "output": 2, "cost": {"total": {"usd": 1}}}, "a cost or count of another type"),
    ("cost total string", {"input": 1, "output": 2, "cost": {"total": "1"}}, "a cost or count of another type"),
    ("cost negative", {"input": 1, "output": 2, "cost": {"total": -1}}, "cost is negative or absurd"),
    ("cost absurd", {"input": 1, "output": 2, "cost": {"total": 1e300}}, "cost is negative or absurd"),
    ("usage a list", [1, 2], "usage is not an object"),
    ("usage a string", "lots", "usage is not an object"),
]


@pytest.mark.parametrize("name,usage,reason", BAD, ids=[b[0] for b in BAD])
def test_a_bad_usage_is_skipped_and_counted_never_a_crash(name, usage, reason, tmp_path, capsys):
    write(tmp_path / "--p--" / "2026-11-20T10-00-00-000Z_s.jsonl", [
        user("u1", None, 1), assistant("a1", "u1", 2), _odd("a2", "a1", 3, usage)])
    out = _usage_json(capsys, str(tmp_path))
    (day,) = out["daily"]
    assert (day["inputTokens"], day["outputTokens"], day["totalCost"]) == (10, 20, 0.03)
    assert out["totals"]["skippedReasons"] == {reason: 1}
    assert main(["usage", str(tmp_path), "-z", "UTC"]) == 0
    err = capsys.readouterr().err
    assert err == f"pitui: 1 messages' usage not counted (1 {reason})\n"
    # the stats screen reads it as the usage index's own figures do (a field of the wrong
    # type as absent, a bare cost as the total; bad numbers not at all)
    path = next(tmp_path.glob("*/*.jsonl"))
    stats = session_stats(Session.open(path))
    (f,) = load_usage(resolve_root(str(tmp_path))).files
    assert (f.session_cost, f.session_tokens) == (stats.total.cost, stats.total.tokens)
    assert stats.total.cost == (0.53 if name == "cost bare number" else 0.03)


@pytest.mark.parametrize("stamp", ["2026-11-20 10:00:03Z", "2026-11-20T10:00:03.5Z", "2026-13-01T00:00:00Z",
                                   "2026-11-20T10:00:03", "１２３", 1795168803000, None])
def test_a_timestamp_ccusage_refuses_is_skipped_and_counted(stamp, tmp_path, capsys):
    bad = assistant("a2", "a1", 3)
    bad["timestamp"] = stamp
    write(tmp_path / "s.jsonl", [user("u1", None, 1), assistant("a1", "u1", 2), bad])
    out = _usage_json(capsys, str(tmp_path))
    assert out["totals"]["inputTokens"] == 10
    assert out["totals"]["skippedReasons"] == {"timestamp is not an ISO time": 1}


def test_lines_that_do_not_parse_or_are_cut_short_never_crash(tmp_path, capsys):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), assistant("a1", "u1", 2), "{not json", "\x00\xff",
                                      '{"type":"message","message":[]}', "[]", "null", "1e999"])
    with f.open("ab") as fh:
        fh.write(b'{"type":"message","id":"a9","parentId":"a1","timestamp":"2026-11-20T10:00:09.000Z","mess')
    out = _usage_json(capsys, str(tmp_path))
    assert out["totals"]["inputTokens"] == 10


def test_the_same_message_in_two_files_counts_once(tmp_path, capsys):
    lines = [user("u1", None, 1), assistant("a1", "u1", 2)]
    write(tmp_path / "--p--" / "2026-11-20T10-00-00-000Z_a.jsonl", lines)
    write(tmp_path / "--q--" / "2026-11-21T10-00-00-000Z_b.jsonl", lines + [assistant("a2", "a1", 5)])
    out = _usage_json(capsys, "project", str(tmp_path))
    assert [(r["project"], r["inputTokens"]) for r in out["projects"]] == [("--p--", 10), ("--q--", 10)]
    assert out["totals"]["inputTokens"] == 20


def test_a_grown_file_is_read_on_and_a_replaced_one_read_again(tmp_path, capsys):
    f = write(tmp_path / "s.jsonl", [user("u1", None, 1), assistant("a1", "u1", 2)])
    assert _usage_json(capsys, str(tmp_path))["totals"]["inputTokens"] == 10
    with f.open("a") as fh:
        fh.write(line(assistant("a2", "a1", 3)) + "\n")
    root = resolve_root(str(tmp_path))
    usage = load_usage(root)
    assert (usage.read, usage.files[0].summary["byModel"]["anthropic/claude-sonnet-4-5"][5]) == (1, 2)
    assert report(usage)["totals"]["inputTokens"] == 20
    again = load_usage(root)
    assert again.read == 0 and report(again)["totals"]["inputTokens"] == 20
    # the same size, other bytes: read whole again
    text = f.read_text().replace('"input":10', '"input":11')
    st = f.stat()
    f.write_text(text)
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert report(load_usage(root))["totals"]["inputTokens"] == 22


def test_a_damaged_usage_index_is_rebuilt_with_a_notice(tmp_path, capsys):
    write(tmp_path / "s.jsonl", [user("u1", None, 1), assistant("a1", "u1", 2)])
    _usage_json(capsys, str(tmp_path))
    (index,) = (tmp_path / "cache").glob("usage-v*.bin")
    data = bytearray(index.read_bytes())
    data[-5] ^= 0xFF
    index.write_bytes(bytes(data))
    assert main(["usage", str(tmp_path), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["totals"]["inputTokens"] == 10
    assert "usage index was damaged" in captured.err


def test_since_until_project_and_bad_arguments(tmp_path, capsys):
    for k, day in enumerate(("2026-11-19", "2026-11-20", "2026-11-21")):
        a = assistant(f"a{k}", None, k)
        a["timestamp"] = f"{day}T12:00:00.000Z"
        write(tmp_path / ("--alpha--" if k else "--beta--") / f"{day}T10-00-00-000Z_s{k}.jsonl", [a])
    out = _usage_json(capsys, str(tmp_path), "--since", "20261120", "--until", "2026-11-20")
    assert [r["date"] for r in out["daily"]] == ["2026-11-20"]
    out = _usage_json(capsys, "monthly", str(tmp_path), "--project", "ALPH")
    assert out["monthly"][0]["inputTokens"] == 20
    assert _usage_json(capsys, str(tmp_path), "--since", "2027-01-01") == []
    assert main(["usage", str(tmp_path), "--since", "yesterday"]) == 2
    assert capsys.readouterr().err == "pitui: yesterday: --since wants a day as YYYY-MM-DD or YYYYMMDD\n"
    assert main(["usage", str(tmp_path), "--timezone", "Mars/Olympus"]) == 2
    assert capsys.readouterr().err == "pitui: Mars/Olympus: not a time zone\n"
    assert main(["usage", "hourly", str(tmp_path)]) == 2
    assert main(["usage", str(tmp_path / "missing")]) == 2


def test_weekly_model_and_project_reports(capsys):
    weekly = _usage_json(capsys, "weekly", str(STORE))
    daily = _usage_json(capsys, "daily", str(STORE))
    assert weekly["totals"]["totalCost"] == pytest.approx(daily["totals"]["totalCost"])
    assert all(r["week"] <= d for r in weekly["weekly"] for d in [r["week"]])
    models = _usage_json(capsys, "model", str(STORE))
    costs = [r["totalCost"] for r in models["models"]]
    assert costs == sorted(costs, reverse=True) and len(costs) == 5
    assert sum(r["totalCost"] for r in models["models"]) == pytest.approx(daily["totals"]["totalCost"])


def test_the_daily_table_piped_is_80_wide_without_colour(capsys):
    assert main(["usage", "monthly", str(CORPUS), "-z", "UTC"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "Month        Input     Output  Cache write   Cache read       Tokens     Cost",
        "─────────────────────────────────────────────────────────────────────────────",
        "2026-07  1,086,853    671,570    4,222,988   19,750,219   25,731,630   $35.10",
        "2026-04    691,026    411,764    2,689,093   11,747,649   15,539,532   $21.86",
        "2025-12      3,689    187,895    1,685,320   54,693,675   56,570,579   $42.60",
        "2025-11      1,049     83,156    4,296,232   43,229,469   47,609,906   $30.33",
        "─────────────────────────────────────────────────────────────────────────────",
        "Total    1,782,617  1,354,385   12,893,633  129,421,012  145,451,647  $129.88",
    ]


def test_tables_fit_their_width_and_show_small_costs_to_the_hundredth_of_a_cent():
    data = {"daily": [{"date": "2026-11-20", "inputTokens": 1, "outputTokens": 2, "cacheCreationTokens": 0,
                       "cacheReadTokens": 0, "totalTokens": 3, "totalCost": 0.0042, "modelsUsed": ["[pi] m"],
                       "modelBreakdowns": []}],
            "totals": {"inputTokens": 1, "outputTokens": 2, "cacheCreationTokens": 0, "cacheReadTokens": 0,
                       "totalTokens": 3, "totalCost": 0.0042}}
    for width in (40, 60, 100):
        lines = usage_table("daily", data, width=width)
        assert max(map(len, lines)) <= width
        assert lines[2].endswith("$0.0042") or lines[2].endswith("m")


@pytest.mark.parametrize("zone", ["UTC", "America/Los_Angeles", "Asia/Kathmandu", "Australia/Lord_Howe", None])
def test_the_day_of_a_time_is_the_zones_on_both_sides_of_daylight_saving(zone):
    from datetime import datetime, timedelta, timezone
    from zoneinfo import ZoneInfo

    from pitui.core.store.usage import DayOf

    day_of = DayOf(zone)
    start = datetime(2026, 3, 1, tzinfo=timezone.utc)
    for k in range(0, 60 * 24 * 90, 7):  # every seventh minute of three months around the spring changes
        t = start + timedelta(minutes=k)
        want = t.astimezone(ZoneInfo(zone) if zone else None).strftime("%Y-%m-%d")
        assert day_of(t.timestamp() * 1000) == want, t


def test_worker_processes_read_what_the_caller_would(tmp_path, monkeypatch):
    """A cold read of many files goes to the listing's worker processes: the same rows, the
    same states (a file that then grows is read on from where the worker stopped), and the
    listing rows made from the same read kept in the listing index (a list after it reads
    no file)."""
    from pitui.core.store import listing_scan, usage as usage_module
    from pitui.core.store.listing import SessionIndex, list_sessions

    root = resolve_root(str(STORE))
    alone = load_usage(root, cache_dir=tmp_path / "alone", parallel=False)
    assert not list(tmp_path.glob("alone/index-v*"))  # (read alone: no listing)
    monkeypatch.setattr(usage_module, "USAGE_MIN_FILES", 1)
    monkeypatch.setattr(usage_module, "USAGE_MIN_BYTES", 0)
    pooled = load_usage(root, cache_dir=tmp_path / "pooled")
    assert pooled.read == len(pooled.files) == len(alone.files)
    assert [(f.path, f.summary, f.keys(), f.columns()) for f in pooled.files] == [
        (f.path, f.summary, f.keys(), f.columns()) for f in alone.files]
    assert len(list((tmp_path / "pooled").glob("usage-state-v*/*.json"))) == len(pooled.files)
    fresh = [i.to_pi_json() for i in list_sessions(root, SessionIndex(tmp_path / "fresh"))]
    monkeypatch.setattr(listing_scan, "scan_info", None)  # (a list that read a file would fail)
    assert [i.to_pi_json() for i in list_sessions(root, SessionIndex(tmp_path / "pooled"))] == fresh
