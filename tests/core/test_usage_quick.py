"""The usage screen's figures kept with what they came from (core/store/usage_quick.py): the
same store, period and zone find them; any change to a file, the period or the zone does
not; a damaged or hostile file of them is ignored."""

from __future__ import annotations

import os
import shutil

import orjson
import pytest

from helpers import FIXTURES
from pitui.core.store import usage_quick
from pitui.core.store.discovery import find_session_files, resolve_root
from pitui.core.store.usage import Overview, load_usage, overview

STORE = FIXTURES / "usage" / "sessions"


@pytest.fixture
def store(tmp_path):
    shutil.copytree(STORE, tmp_path / "sessions")
    return resolve_root(str(tmp_path / "sessions"))


def _period(root, **kw) -> str:
    return usage_quick.period_key(str(root.path), **{"since": None, "until": None, "project": None, "tz": None,
                                                     "top": 50, **kw})


def _key(root, **kw) -> str:
    return usage_quick.store_key(usage_quick.files_digest(find_session_files(root)), _period(root, **kw))


def test_figures_kept_come_back_whole_for_the_same_store_period_and_zone(store, tmp_path):
    figures = overview(load_usage(store, cache_dir=tmp_path / "c"), since=None, until=None)
    assert figures.totals
    usage_quick.put(tmp_path / "c", _key(store), _period(store), usage_quick.Quick(figures.to_json(), 7, 2))
    got = usage_quick.get(tmp_path / "c", _key(store), _period(store))
    assert (got.files, got.skipped, got.exact) == (7, 2, True)
    assert Overview.from_json(got.figures) == figures
    assert usage_quick.get(tmp_path / "c", _key(store, since="20260101")) is None
    assert usage_quick.get(tmp_path / "c", _key(store, since="20260101"), _period(store, since="20260101")) is None


def test_after_a_change_the_last_figures_of_the_period_come_back_said_so(store, tmp_path):
    figures = overview(load_usage(store, cache_dir=tmp_path / "c"), since=None, until=None).to_json()
    usage_quick.put(tmp_path / "c", _key(store), _period(store), usage_quick.Quick(figures, 7, 2))
    path = find_session_files(store)[0].path
    with open(path, "ab") as f:
        f.write(b"\n")
    assert usage_quick.get(tmp_path / "c", _key(store)) is None
    got = usage_quick.get(tmp_path / "c", _key(store), _period(store))
    assert (got.figures, got.exact) == (figures, False)
    other = resolve_root(str(tmp_path))  # (another store's period: not its figures)
    assert usage_quick.get(tmp_path / "c", None, _period(other)) is None


def test_any_change_to_a_file_or_the_zone_is_another_key(store, monkeypatch):
    before = _key(store)
    assert _key(store) == before
    path = find_session_files(store)[0].path
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    touched = _key(store)
    assert touched != before
    with open(path, "ab") as f:
        f.write(b"\n")
    assert _key(store) not in (before, touched)
    now = _key(store)
    monkeypatch.setenv("TZ", "Asia/Kolkata")
    import time

    time.tzset()
    try:
        assert _key(store) != now
    finally:
        monkeypatch.undo()
        time.tzset()
    os.unlink(path)
    assert _key(store) != now


@pytest.mark.parametrize("text", [
    b"not json", b"[]", b'{"entries": {}}', b'{"entries": [1, "x"]}',
    b'{"entries": [{"key": "K", "figures": {"days": [["2026-01-01", "1"]], "totals": {}, "models": [], '
    b'"projects": [], "sessions": [], "projects_all": []}, "files": 1, "skipped": 0}]}',
    b'{"entries": [{"key": "K", "figures": {"days": [], "totals": {"totalCost": "$1"}, "models": [], '
    b'"projects": [], "sessions": [], "projects_all": []}, "files": 1, "skipped": 0}]}',
    b'{"entries": [{"key": "K", "figures": {"days": [], "totals": {}, "models": [{"model": 3, "totalCost": 1}], '
    b'"projects": [], "sessions": [], "projects_all": []}, "files": 1, "skipped": 0}]}',
    b'{"entries": [{"key": "K", "figures": {"days": [], "totals": {}, "models": [], "projects": [], '
    b'"sessions": [{"sessionCost": 1}], "projects_all": []}, "files": 1, "skipped": 0}]}',
    b'{"entries": [{"key": "K", "figures": {"days": [], "totals": {}, "models": [], "projects": [], '
    b'"sessions": [], "projects_all": []}, "files": "1", "skipped": 0}]}',
])
def test_a_damaged_or_hostile_file_of_figures_is_ignored(tmp_path, text):
    (tmp_path / f"usage-screen-v{usage_quick.VERSION}.json").write_bytes(text)
    assert usage_quick.get(tmp_path, "K") is None


def test_the_file_keeps_the_last_few_keys(tmp_path):
    empty = Overview([], {}, [], [], [], []).to_json()
    for k in range(usage_quick.KEEP + 3):
        usage_quick.put(tmp_path, f"K{k}", "P", usage_quick.Quick(empty, k, 0))
    kept = orjson.loads((tmp_path / f"usage-screen-v{usage_quick.VERSION}.json").read_bytes())["entries"]
    assert [e["key"] for e in kept] == [f"K{k}" for k in range(usage_quick.KEEP + 2, 2, -1)]
    assert usage_quick.get(tmp_path, "K0") is None and usage_quick.get(tmp_path, "K10").files == 10
