"""The usage counted by the listing's read of each file: where the usage is kept, a list that
reads many files fills the usage index (a report after it reads no file, and counts what a
read of its own counts); a list does not start the usage index; a grown file adds only its
new lines, whichever of the two reads it on."""

from __future__ import annotations

import shutil

import pytest

from helpers import FIXTURES, REPO, assistant, line, user, write
from pitui.core.store import listing, listing_scan, usage as usage_module, usage_read, usage_scan
from pitui.core.store.discovery import resolve_root
from pitui.core.store.listing import SessionIndex, list_json, list_sessions
from pitui.core.store.usage import load_usage, report
from pitui.core.store.usage_index import UsageIndex

STORES = {
    "usage": FIXTURES / "usage" / "sessions",
    "corpus": FIXTURES / "pi-corpus" / "agent" / "sessions",
    "demo": REPO / "pitui" / "demo" / "sessions",
    "pi-written": FIXTURES / "pi-written",
}


@pytest.fixture(autouse=True)
def _utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")


def _reports(usage) -> dict:
    return {by: report(usage, by, tz="UTC") for by in ("daily", "session", "model", "project")}


def _no_reading(monkeypatch) -> None:
    """Any read of a session file from here on fails the test."""
    for module, name in ((usage_read, "read_row"), (usage_read, "scan_both"), (listing_scan, "scan_info"),
                         (usage_module, "read_row_or_none")):
        monkeypatch.setattr(module, name, None)


def _many_is_one(monkeypatch) -> None:
    """Lists of one file read in worker processes and count the usage (where it is kept)."""
    monkeypatch.setattr(listing, "USAGE_MIN_FILES", 1)
    monkeypatch.setattr(listing, "USAGE_MIN_BYTES", 0)
    monkeypatch.setattr(listing, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(listing, "PARALLEL_MIN_BYTES", 0)


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("store", STORES, ids=list(STORES))
def test_a_list_fills_the_usage_index_kept_with_what_a_read_of_its_own_counts(store, workers, tmp_path, monkeypatch):
    root = resolve_root(str(STORES[store]))
    alone = load_usage(root, use_cache=False)
    _many_is_one(monkeypatch)
    UsageIndex(tmp_path).save([])  # (the usage kept: here of no file yet)
    list_json(root, SessionIndex(tmp_path), workers=workers)
    _no_reading(monkeypatch)
    filled = load_usage(root, cache_dir=tmp_path)
    assert filled.read == 0 and len(filled.files) == len(alone.files) > 0
    assert [(f.path, f.summary, f.keys(), f.columns()) for f in filled.files] == [
        (f.path, f.summary, f.keys(), f.columns()) for f in alone.files]
    assert _reports(filled) == _reports(alone)


def test_a_list_does_not_start_the_usage_index_nor_fill_it_for_a_few_files(tmp_path, monkeypatch):
    root = resolve_root(str(STORES["usage"]))
    list_sessions(root, SessionIndex(tmp_path))  # (a few files: the usage not counted)
    _many_is_one(monkeypatch)
    list_sessions(root, SessionIndex(tmp_path / "many"))  # (many, but no usage kept)
    assert not list(tmp_path.glob("usage-v*")) and not list(tmp_path.glob("many/usage-v*"))


def _grown_store(tmp_path):
    store = tmp_path / "sessions"
    shutil.copytree(STORES["usage"], store)
    f = write(store / "--home-dev-alpha--" / "2026-11-20T10-00-00-000Z_grows.jsonl",
              [user("u1", None, 1), assistant("a1", "u1", 2)])
    return resolve_root(str(store)), f


def _count_lines(monkeypatch) -> list:
    """The lines each usage scan is given from here on (decoded, parsed or whole)."""
    fed = []
    for name in ("decoded", "parsed_object", "_parsed"):
        real = getattr(usage_scan.FileScan, name)
        monkeypatch.setattr(usage_scan.FileScan, name,
                            lambda self, *args, _real=real, _name=name: fed.append(_name) or _real(self, *args))
    return fed


def _grow(f) -> None:
    with f.open("a") as fh:
        fh.write(line(assistant("a2", "a1", 3)) + "\n" + line(user("u2", "a2", 4)) + "\n")


@pytest.mark.parametrize("by", ["usage", "listing"])
def test_a_grown_file_adds_only_its_new_lines(by, tmp_path, monkeypatch):
    root, f = _grown_store(tmp_path)
    cache = tmp_path / "cache"
    monkeypatch.setattr(listing, "USAGE_MIN_FILES", 1)
    monkeypatch.setattr(listing, "USAGE_MIN_BYTES", 0)
    UsageIndex(cache).save([])
    list_sessions(root, SessionIndex(cache))  # (the listing fills the usage index)
    before = load_usage(root, cache_dir=cache)
    assert before.read == 0
    _grow(f)
    fed = _count_lines(monkeypatch)
    if by == "usage":
        grown = load_usage(root, cache_dir=cache)  # (read on from its own state)
    else:
        list_sessions(root, SessionIndex(cache))  # (the listing reads on, feeding the usage's state)
        assert len(fed) == 2
        _no_reading(monkeypatch)
        grown = load_usage(root, cache_dir=cache)
    assert fed == ["decoded", "decoded"]  # (the two new lines, nothing else)
    monkeypatch.undo()
    monkeypatch.setenv("TZ", "UTC")
    assert _reports(grown) == _reports(load_usage(root, use_cache=False))
    assert report(grown)["totals"]["inputTokens"] == report(before)["totals"]["inputTokens"] + 10
