"""The usage screen's figures as last worked out, kept with what they came from.

A usage screen opened on a store where nothing changed since shows them at once, before the
usage index is read and the figures are worked out again from it (:func:`.usage.overview`:
seconds at 15,000 sessions). What they came from is a key: every session file's path and
identity (device, inode, size, mtime in ns, as the usage index keys its rows), the index's
version, the period, the project filter, the time zone and how many sessions are shown. Any
change in these (a session grew, was added or removed, another day began) is another key, and
the figures are worked out from the index as before; meanwhile the screen may show the last
figures kept for the same store and period, said to be updating (:func:`get`'s ``exact``).
(One input is not in the key: whether a
subagent run's transcript recorded outside the store still exists; such a file deleted shows
in the figures once anything else changes.)

One small JSON file in pitui's cache folder holding the last :data:`KEEP` keys' figures,
written whole (temporary file and rename). A file that is damaged, of another version or of
the wrong shape is ignored (and written again): every value the screen reads is checked.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

from . import usage_file
from .discovery import SessionFile
from ..paths import open_cache_file, private_dir, write_private

__all__ = ["Quick", "files_digest", "period_key", "store_key", "get", "put", "KEEP"]

VERSION = 1
KEEP = 8
MAX_BYTES = 4 * 1024 * 1024  # (a few periods' figures: anything bigger is not ours)


@dataclass
class Quick:
    """Figures kept: the screen's :class:`.usage.Overview` as JSON, the number of session
    files and of usages not counted (its status line); ``exact``: kept under the key asked
    for (else: the last kept for that store and period, before the store changed)."""

    figures: dict
    files: int
    skipped: int
    exact: bool = True


def _file(cache_dir: str | os.PathLike) -> Path:
    return Path(cache_dir) / f"usage-screen-v{VERSION}.json"


def _zone() -> list:
    """The local time zone as the days are counted in it."""
    return [os.environ.get("TZ"), list(time.tzname), time.timezone, time.altzone]


def period_key(root: str, *, since: str | None, until: str | None, project: str | None, tz: str | None,
               top: int) -> str:
    """The key of a store's figures for that period and filter, in that zone, whatever its
    files hold."""
    return hashlib.blake2b(orjson.dumps([VERSION, usage_file.VERSION, root, since, until, project, tz, top, _zone()]),
                           digest_size=20).hexdigest()


def store_key(digest: str | None, period: str) -> str | None:
    """The key of the figures of the files of ``digest`` (:func:`files_digest`) for the
    ``period`` (:func:`period_key`); None with no digest."""
    if digest is None:
        return None
    return hashlib.blake2b(f"{digest} {period}".encode(), digest_size=20).hexdigest()


def files_digest(files: list[SessionFile]) -> str | None:
    """What the figures of ``files`` come from, in a few bytes: each file's path, project
    folder, kind and identity (None when a file cannot be looked at)."""
    digest = hashlib.blake2b(digest_size=20)
    stat = os.stat
    for sf in files:
        try:
            st = stat(sf.path)
        except OSError:
            return None
        digest.update(b"%s\0%s\0%s\0%d %d %d %d\n" % (sf.path.encode("utf-8", "surrogateescape"),
                                                    sf.project.encode("utf-8", "surrogateescape"), sf.kind.encode(),
                                                    st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
    return digest.hexdigest()


def _load(cache_dir: str | os.PathLike) -> dict:
    try:
        with open_cache_file(_file(cache_dir)) as fh:
            raw = fh.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            return {}
        data = orjson.loads(raw)
    except (OSError, ValueError):
        return {}
    return data if type(data) is dict and type(data.get("entries")) is list else {}


def get(cache_dir: str | os.PathLike | None, key: str | None, period: str | None = None) -> Quick | None:
    """The figures kept under ``key``; else, with ``period``, the last kept for it (not
    ``exact``); None: none, or not of the right shape."""
    if cache_dir is None or (key is None and period is None):
        return None
    entries = [entry for entry in _load(cache_dir).get("entries", ()) if type(entry) is dict]
    found = next((entry for entry in entries if key is not None and entry.get("key") == key), None)
    exact = found is not None
    if found is None and period is not None:
        found = next((entry for entry in entries if entry.get("period") == period), None)  # (the newest first)
    if found is None:
        return None
    figures, files, skipped = found.get("figures"), found.get("files"), found.get("skipped")
    if type(files) is int and type(skipped) is int and _figures_ok(figures):
        return Quick(figures, files, skipped, exact)
    return None


def put(cache_dir: str | os.PathLike | None, key: str | None, period: str, quick: Quick) -> None:
    """Keep ``quick`` under ``key`` for ``period`` (with the last :data:`KEEP` others); a
    cache that cannot be written only costs the next screen its wait."""
    if cache_dir is None or key is None or private_dir(cache_dir) is None:
        return
    kept = [entry for entry in _load(cache_dir).get("entries", ()) if type(entry) is dict and entry.get("key") != key]
    entries = [{"key": key, "period": period, "figures": quick.figures, "files": quick.files,
                "skipped": quick.skipped}, *kept][:KEEP]
    try:
        write_private(_file(cache_dir), orjson.dumps({"entries": entries}))
    except (OSError, TypeError):
        pass


_NUM = (int, float)


def _is(value, *types) -> bool:
    return type(value) in types


def _figures_ok(figures) -> bool:
    """Whether ``figures`` holds every value the usage screen reads, of its type."""
    if type(figures) is not dict:
        return False
    try:
        days, totals = figures["days"], figures["totals"]
        if not all(type(day) is list and len(day) == 2 and _is(day[0], str) and _is(day[1], *_NUM) for day in days):
            return False
        if type(totals) is not dict:
            return False
        if totals:
            for name in ("totalCost", "totalTokens", "cacheReadTokens", "cacheCreationTokens", "abandonedCost",
                         "subagentGoneCost", "modelMs", "toolMs"):
                if not _is(totals[name], *_NUM):
                    return False
            if not _is(totals["sessions"], int) or not _is(totals["cacheHitRatio"], *_NUM, type(None)):
                return False
            tools = totals["tools"]
            if type(tools) is not dict or not all(
                    type(kind) is dict and _is(kind["calls"], int) and _is(kind["errors"], int)
                    for kind in tools.values()):
                return False
        if not all(type(model) is dict and _is(model["model"], str) and _is(model["totalCost"], *_NUM)
                   for model in figures["models"]):
            return False
        if not all(type(project) is dict and _is(project["project"], str) and _is(project["totalCost"], *_NUM)
                   for project in figures["projects"]):
            return False
        for row in figures["sessions"]:
            if type(row) is not dict or not (_is(row["sessionCost"], *_NUM) and _is(row["sessionTokens"], *_NUM)
                                             and _is(row["lastActivity"], str) and _is(row["projectPath"], str)
                                             and _is(row["sessionId"], str) and _is(row["path"], str)
                                             and _is(row["name"], str, type(None))):
                return False
        return type(figures["projects_all"]) is list and all(_is(name, str) for name in figures["projects_all"])
    except (KeyError, TypeError, AttributeError):
        return False
