"""pitui's caches are caches: damaged ones are rebuilt (one line says so), they hold data
only (a planted file never runs code), and they are private (a ``0700`` folder of ``0600``
files; another user's folder is not used at all)."""

from __future__ import annotations

import json
import os
import pickle
import random
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import HEADER, assistant, read_listing_index, user, write, write_listing_index
from pitui.core import paths
from pitui.core.open import skeleton_cache
from pitui.core.store.discovery import resolve_root
from pitui.core.store.listing import INDEX_VERSION, SessionIndex, list_sessions
from pitui.core.open.parallel import ParallelOpen
from pitui.core.store.search import SCHEMA_VERSION, SearchIndex, search
from pitui.core.read.session import Session
from pitui.core.settings import Settings


def _store(tmp_path: Path, n: int = 30) -> Path:
    """A sessions root of ``n`` sessions with enough text for a search index of many pages."""
    root = tmp_path / "sessions"
    for k in range(n):
        objs, prev = [], None
        for m in range(1, 25):
            eid = f"e{m}"
            text = f"session {k} message {m} " + " ".join(f"word{(k * 31 + m * 7 + j) % 997}" for j in range(50))
            objs.append(user(eid, prev, m, text) if m % 2 else assistant(eid, prev, m, text))
            prev = eid
        folder = root / f"--home-u-p{k % 3}--"
        folder.mkdir(parents=True, exist_ok=True)
        write(folder / f"2026-11-20T10-00-{k:02d}-000Z_s{k}.jsonl", objs, header={**HEADER, "id": f"sess-{k}"})
    return root


def _cli(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PITUI_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "pitui.cli", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def _overwrite_middle(path: Path, seed: int = 1) -> None:
    """Random bytes over the middle third of a file (pages inside it, the header kept)."""
    size = path.stat().st_size
    rnd = random.Random(seed)
    with open(path, "r+b") as f:
        f.seek(size // 3)
        f.write(bytes(rnd.randrange(256) for _ in range(size // 3)))


# ---------------------------------------------------------------------------- search index


def test_a_search_index_damaged_inside_is_rebuilt_with_one_line(tmp_path):
    root, cache = _store(tmp_path), tmp_path / "cache"
    first = _cli("search", "word5", str(root), "--json", cache=cache)
    assert first.returncode == 0 and first.stderr == ""
    want = json.loads(first.stdout)
    assert len(want) > 5
    db = cache / f"search-v{SCHEMA_VERSION}.sqlite3"
    _overwrite_middle(db)
    got = _cli("search", "word5", str(root), "--json", cache=cache)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout) == want
    lines = got.stderr.splitlines()
    assert len(lines) == 1 and "search index" in lines[0] and "rebuilt" in lines[0]
    again = _cli("search", "word5", str(root), "--json", cache=cache)
    assert again.returncode == 0 and again.stderr == "" and json.loads(again.stdout) == want


def test_a_search_index_that_is_not_a_database_is_rebuilt_with_one_line(tmp_path):
    root, cache = _store(tmp_path, 4), tmp_path / "cache"
    cache.mkdir(mode=0o700)
    (cache / f"search-v{SCHEMA_VERSION}.sqlite3").write_bytes(b"this is not a database" * 500)
    got = _cli("search", "word5", str(root), cache=cache)
    assert got.returncode == 0 and "session 0 message" in got.stdout
    lines = got.stderr.splitlines()
    assert len(lines) == 1 and "search index" in lines[0] and "rebuilt" in lines[0]


def test_damage_found_in_the_middle_of_a_search_loses_no_result(tmp_path, monkeypatch):
    """SQLite finds the index damaged after some results were handed out: the index is
    started again and the rest still come, each once."""
    root, idx = _store(tmp_path), tmp_path / "idx"
    r = resolve_root(root)
    want = [h.path for h in search(r, "word5", index_dir=idx)]
    assert len(want) > 5
    orig, calls = SearchIndex.match_file, []

    def match_file(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            exc = sqlite3.DatabaseError("database disk image is malformed")
            exc.sqlite_errorcode = 11  # SQLITE_CORRUPT, as SQLite sets it
            raise exc
        return orig(self, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "match_file", match_file)
    assert [h.path for h in search(r, "word5", index_dir=idx)] == want
    assert len(calls) > len(want)
    assert [n for n in paths.take_notices() if "search index" in n] != []


# ---------------------------------------------------------------------------- listing index


def _index_file(cache: Path) -> Path:
    return cache / f"index-v{INDEX_VERSION}.bin"


def _cols(fn):
    """A damage to the index's columns (read whenever the index is)."""
    def damage(cols, rows, frags):
        return fn(cols), rows, frags
    return damage


def _rows(fn):
    """A damage to each row (read when a row is decoded: the app, `pitui list`)."""
    def damage(cols, rows, frags):
        return cols, [fn(r) for r in rows], frags
    return damage


COLUMN_DAMAGE = [
    pytest.param(_cols(lambda c: {**c, "mtime_ns": ["yesterday"] * len(c["mtime_ns"])}), id="mtime-a-string"),
    pytest.param(_cols(lambda c: {**c, "size": [str(x) for x in c["size"]]}), id="size-a-string"),
    pytest.param(_cols(lambda c: {**c, "path": [None] * len(c["path"])}), id="path-null"),
    pytest.param(_cols(lambda c: {k: v for k, v in c.items() if k != "path"}), id="no-path"),
    pytest.param(_cols(lambda c: list(c.values())), id="columns-a-list"),
    pytest.param(_cols(lambda c: {**c, "kind": c["kind"][1:]}), id="a-column-short"),
]
ROW_DAMAGE = [
    pytest.param(_rows(lambda r: {**r, "message_count": None}), id="count-null"),
    pytest.param(_rows(lambda r: {**r, "first_message": ["x"]}), id="text-a-list"),
    pytest.param(_rows(lambda r: {**r, "subagent_transcripts": [1]}), id="transcripts-not-strings"),
    pytest.param(_rows(lambda r: {**r, "ino": "x"}), id="ino-a-string"),
]


@pytest.mark.parametrize("damage", COLUMN_DAMAGE + ROW_DAMAGE)
def test_a_listing_index_with_wrong_types_is_rebuilt_with_one_line(tmp_path, damage):
    root, cache = _store(tmp_path, 5), tmp_path / "cache"
    first = _cli("list", str(root), "--json", cache=cache)
    text = _cli("list", str(root), cache=cache)
    assert first.returncode == 0 and first.stderr == "" and text.stderr == ""
    write_listing_index(cache, *damage(*read_listing_index(cache)))
    # the text list decodes every row: a damaged column or row is found, said once, and
    # the list is the same
    got = _cli("list", str(root), cache=cache)
    assert got.returncode == 0, got.stderr
    assert got.stdout == text.stdout
    lines = got.stderr.splitlines()
    assert len(lines) == 1 and "listing index" in lines[0] and "rebuilt" in lines[0]
    # ... and written again whole
    rebuilt = SessionIndex(cache)
    _, rows, _ = read_listing_index(cache)
    assert rebuilt.load_error is None and len(rows) == 5 and all(rebuilt.get(r["path"]) for r in rows)
    again = _cli("list", str(root), "--json", cache=cache)
    assert again.returncode == 0 and again.stderr == "" and again.stdout == first.stdout


@pytest.mark.parametrize("damage", COLUMN_DAMAGE)
def test_damaged_columns_are_found_by_the_json_list_too(tmp_path, damage):
    root, cache = _store(tmp_path, 5), tmp_path / "cache"
    first = _cli("list", str(root), "--json", cache=cache)
    write_listing_index(cache, *damage(*read_listing_index(cache)))
    got = _cli("list", str(root), "--json", cache=cache)
    assert got.returncode == 0 and got.stdout == first.stdout
    lines = got.stderr.splitlines()
    assert len(lines) == 1 and "listing index" in lines[0] and "rebuilt" in lines[0]


@pytest.mark.parametrize("cut", [
    pytest.param(lambda b: b[:-7], id="cut-short"),
    pytest.param(lambda b: b[:len(b) // 2] + bytes([b[len(b) // 2] ^ 1]) + b[len(b) // 2 + 1:], id="one-bit"),
    pytest.param(lambda b: b"\x00garbage{", id="garbage"),
    pytest.param(lambda b: b.replace(b"\n", b" ", 2), id="no-lengths-line"),
])
def test_a_damaged_listing_index_file_is_rebuilt_with_one_line(tmp_path, cut):
    root, cache = _store(tmp_path, 5), tmp_path / "cache"
    first = _cli("list", str(root), "--json", cache=cache)
    _index_file(cache).write_bytes(cut(_index_file(cache).read_bytes()))
    got = _cli("list", str(root), "--json", cache=cache)
    assert got.returncode == 0 and got.stdout == first.stdout
    lines = got.stderr.splitlines()
    assert len(lines) == 1 and "listing index" in lines[0] and "rebuilt" in lines[0]
    assert SessionIndex(cache).load_error is None


def test_a_stored_output_holding_a_control_character_is_not_printed(tmp_path):
    """A hostile index (its checksum right) whose stored output holds a raw escape: the
    list is made from the files, with one line saying so; no raw control byte is printed."""
    root, cache = _store(tmp_path, 5), tmp_path / "cache"
    first = _cli("list", str(root), "--json", cache=cache)
    cols, rows, frags = read_listing_index(cache)
    frags[0] = frags[0].replace(b'"id": "', b'"id": "\x1b[31m', 1)
    write_listing_index(cache, cols, rows, frags)
    got = _cli("list", str(root), "--json", cache=cache)
    assert got.returncode == 0 and got.stdout == first.stdout and "\x1b" not in got.stdout
    assert "listing index" in got.stderr and "control character" in got.stderr


async def test_the_app_starts_on_damaged_caches_and_says_so(make_app, settle, tmp_path, monkeypatch):
    from pitui.ui.app import PituiApp

    notes: list[str] = []
    orig = PituiApp.notify
    monkeypatch.setattr(PituiApp, "notify", lambda self, m, *a, **k: (notes.append(str(m)), orig(self, m, *a, **k)))
    root, cache = _store(tmp_path, 5), tmp_path / "cache"
    list_sessions(resolve_root(root), SessionIndex(cache))
    cols, rows, frags = read_listing_index(cache)
    rows[0]["size"] = "big"
    write_listing_index(cache, cols, rows, frags)
    app = make_app(root, index=SessionIndex(cache))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.show_notices()
        await settle(pilot)
        b = app.browser
        assert b is not None and len(b.infos) == 5 and b.session is not None
        assert [n for n in notes if "listing index" in n and "rebuilt" in n] != []


# ---------------------------------------------------------------------------- skeleton cache


def _big(tmp_path: Path) -> Path:
    objs, prev = [], None
    for m in range(1, 80):
        eid = f"e{m}"
        objs.append(user(eid, prev, m, f"question {m} " + "x" * 300) if m % 2
                    else assistant(eid, prev, m, f"answer {m}"))
        prev = eid
    return write(tmp_path / "s.jsonl", objs)


def _open(f: Path) -> ParallelOpen:
    return ParallelOpen(f, min_bytes=0, jobs=1, whole=True)


class _Planted:
    """Unpickling this runs code: it writes a marker file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"echo ran > {self.marker}",))


def test_a_planted_cache_file_never_runs(tmp_path):
    f = _big(tmp_path)
    marker = tmp_path / "marker"
    planted = pickle.dumps({"v": 2, "path": str(f), "x": _Planted(marker)})
    target = skeleton_cache.cache_file(f)
    target.parent.mkdir(parents=True, exist_ok=True)
    for p in (target, target.with_suffix(".pickle")):  # (also where pitui kept it before)
        p.write_bytes(planted)
    po = _open(f)
    s = po.result()
    assert not marker.exists()
    assert not po.from_cache and s.ids == Session.open(f).ids
    # thrown away (with a line saying so), and a real one saved in its place
    assert any("skeleton" in n for n in paths.take_notices())
    _wait_for(lambda: target.exists() and target.read_bytes().startswith(skeleton_cache.MAGIC))
    assert not marker.exists()


def _wait_for(cond, seconds: float = 20) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < deadline
        time.sleep(0.02)


@pytest.mark.parametrize("damage", ["cut", "garbage", "body", "flipped"])
def test_a_damaged_skeleton_is_ignored_and_rebuilt(tmp_path, damage):
    f = _big(tmp_path)
    s = Session.open(f, validate=False)
    assert skeleton_cache.save(s)
    target = skeleton_cache.cache_file(f)
    good = target.read_bytes()
    if damage == "cut":
        target.write_bytes(good[: len(good) // 2])
    elif damage == "garbage":
        target.write_bytes(os.urandom(len(good)))
    elif damage == "body":
        target.write_bytes(good[:40] + os.urandom(len(good) - 40))
    else:
        data = bytearray(good)
        data[len(data) // 2] ^= 0x40
        target.write_bytes(bytes(data))
    po = _open(f)
    got = po.result()
    assert not po.from_cache and got.ids == s.ids and got.parent == s.parent
    assert any("damaged skeleton" in n for n in paths.take_notices())
    _wait_for(lambda: target.exists() and target.read_bytes() != good[: len(good) // 2])
    again = _open(f)
    assert again.result().ids == s.ids and again.from_cache


def test_skeleton_files_hold_data_only(tmp_path):
    f = _big(tmp_path)
    assert skeleton_cache.save(Session.open(f, validate=False))
    data = skeleton_cache.cache_file(f).read_bytes()
    assert data.startswith(skeleton_cache.MAGIC)
    with pytest.raises(Exception):
        pickle.loads(data)


# ---------------------------------------------------------------------------- the folder


def _mode(p: Path) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def test_the_cache_folder_is_private_and_so_are_its_files(tmp_path, monkeypatch):
    cache = tmp_path / "a" / "cache"
    monkeypatch.setenv("PITUI_CACHE_DIR", str(cache))
    root = _store(tmp_path, 3)
    f = _big(tmp_path)
    old = os.umask(0)  # (the folder and files are private whatever the umask)
    try:
        assert _cli("list", str(root), cache=cache).returncode == 0
        assert _cli("search", "word5", str(root), cache=cache).returncode == 0
        assert skeleton_cache.save(Session.open(f, validate=False))
    finally:
        os.umask(old)
    assert _mode(cache) == 0o700 and _mode(cache / "skeletons") == 0o700
    files = [p for p in cache.rglob("*") if p.is_file()]
    assert {p.name.split(".")[-1] for p in files} >= {"bin", "sqlite3", "skeleton"}
    assert all(_mode(p) == 0o600 for p in files), [(p, oct(_mode(p))) for p in files]


def test_an_open_cache_folder_of_pitui_is_closed(tmp_path):
    """pitui's own folder (platformdirs', no $PITUI_CACHE_DIR) found open: closed to 0700."""
    cache = tmp_path / "xdg" / "pitui"
    cache.mkdir(parents=True)
    os.chmod(cache, 0o777)
    root = _store(tmp_path, 2)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    env.pop("PITUI_CACHE_DIR", None)
    got = subprocess.run([sys.executable, "-m", "pitui.cli", "list", str(root)], capture_output=True, text=True,
                         env=env, timeout=120)
    assert got.returncode == 0 and got.stderr == ""
    assert _mode(cache) == 0o700
    assert _mode(_index_file(cache)) == 0o600


@pytest.mark.parametrize("variable", ["PITUI_CACHE_DIR", "PITUI_CONFIG_DIR"])
def test_an_open_folder_the_user_named_is_left_alone(tmp_path, monkeypatch, variable):
    """Issue 33, hole 8: a folder $PITUI_CACHE_DIR or $PITUI_CONFIG_DIR names, open to
    others and not made by pitui, was chmod-ed to 0700: its mode is the user's. It is left
    as it is and not used (one line says so); a folder pitui makes there is private."""
    from pitui.core import settings

    mine = tmp_path / "mine"
    mine.mkdir()
    os.chmod(mine, 0o755)
    monkeypatch.setenv(variable, str(mine))
    root = _store(tmp_path, 2)
    if variable == "PITUI_CACHE_DIR":
        assert len(list_sessions(resolve_root(root), SessionIndex())) == 2
        assert [h.path for h in search(resolve_root(root), "word5")] != []
        assert not skeleton_cache.save(Session.open(_big(tmp_path), validate=False))
        what, without = "cache folder", "running without caches"
    else:
        assert settings.save(Settings()) is False
        what, without = "settings folder", "settings not saved"
    assert _mode(mine) == 0o755 and list(mine.iterdir()) == []
    assert paths.take_notices() == [f"{mine}: the {what} is open to other users and is not pitui's own: {without}"]
    made = tmp_path / "made" / "here"
    monkeypatch.setenv(variable, str(made))
    if variable == "PITUI_CACHE_DIR":
        assert len(list_sessions(resolve_root(root), SessionIndex())) == 2
    else:
        assert settings.save(Settings()) is True
    assert _mode(made) == 0o700 and paths.take_notices() == []


# Issue 33, hole 8: cache files replaced by symbolic links. SQLite's files were chmod-ed
# through them (their targets made 0600), a dangling link made pitui create and fill a
# database outside the cache, and the listing index and skeletons were read through them.
# A link in the cache folder is never followed: it is removed (its target untouched), with
# one line, and the cache rebuilt.
def _victim(tmp_path: Path, name: str, data: bytes = b"the user's own file\n") -> Path:
    v = tmp_path / "outside" / name
    v.parent.mkdir(exist_ok=True)
    v.write_bytes(data)
    os.chmod(v, 0o644)
    return v


def _link_notices(path) -> list[str]:
    return [n for n in paths.take_notices() if n.startswith(f"{path}: a cache file was a symbolic link")]


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
def test_a_search_index_file_that_is_a_link_is_not_followed(tmp_path, suffix):
    root, cache = _store(tmp_path, 4), tmp_path / "cache"
    want = [h.path for h in search(resolve_root(root), "word5", index_dir=tmp_path / "other")]
    cache.mkdir(mode=0o700)
    victim = _victim(tmp_path, "victim")
    name = cache / f"search-v{SCHEMA_VERSION}.sqlite3{suffix}"
    name.symlink_to(victim)
    assert [h.path for h in search(resolve_root(root), "word5", index_dir=cache)] == want
    assert _mode(victim) == 0o644 and victim.read_bytes() == b"the user's own file\n"
    assert not name.is_symlink() and (not name.exists() or _mode(name) == 0o600)
    assert len(_link_notices(name)) == 1


def test_a_dangling_link_at_the_search_index_makes_nothing_outside(tmp_path):
    root, cache = _store(tmp_path, 4), tmp_path / "cache"
    cache.mkdir(mode=0o700)
    outside = tmp_path / "outside" / "planted.sqlite3"
    outside.parent.mkdir()
    db = cache / f"search-v{SCHEMA_VERSION}.sqlite3"
    db.symlink_to(outside)
    got = _cli("search", "word5", str(root), cache=cache)
    assert got.returncode == 0 and "session 0 message" in got.stdout
    assert list(outside.parent.iterdir()) == []
    assert not db.is_symlink() and _mode(db) == 0o600 and db.stat().st_size > 0
    assert got.stderr.splitlines() == [f"pitui: {db}: a cache file was a symbolic link or not a file; removed "
                                       "(its target left alone) and the cache rebuilt"]


def test_a_listing_index_that_is_a_link_is_not_read(tmp_path):
    root, cache = _store(tmp_path, 3), tmp_path / "cache"
    assert _cli("list", str(root), cache=tmp_path / "other").returncode == 0
    planted = _victim(tmp_path, "index.bin", _index_file(tmp_path / "other").read_bytes())
    cache.mkdir(mode=0o700)
    _index_file(cache).symlink_to(planted)
    got = _cli("list", str(root), "--json", cache=cache)
    assert got.returncode == 0 and len(json.loads(got.stdout)) == 3
    assert got.stderr.splitlines() == [f"pitui: {_index_file(cache)}: a cache file was a symbolic link or not a "
                                       "file; removed (its target left alone) and the cache rebuilt"]
    assert not _index_file(cache).is_symlink() and _mode(_index_file(cache)) == 0o600
    assert _mode(planted) == 0o644 and planted.read_bytes() == _index_file(tmp_path / "other").read_bytes()


def test_a_skeleton_that_is_a_link_is_not_read(tmp_path):
    f = _big(tmp_path)
    assert skeleton_cache.save(Session.open(f, validate=False))
    target = skeleton_cache.cache_file(f)
    planted = _victim(tmp_path, "skeleton", target.read_bytes())
    target.unlink()
    target.symlink_to(planted)
    assert skeleton_cache.load(f) is None
    assert not target.exists() and len(_link_notices(target)) == 1
    assert _mode(planted) == 0o644


def test_a_skeletons_folder_that_is_a_link_is_not_written_into(tmp_path):
    f = _big(tmp_path)
    elsewhere = tmp_path / "outside"
    elsewhere.mkdir(mode=0o700)
    folder = skeleton_cache.cache_file(f).parent
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.symlink_to(elsewhere, target_is_directory=True)
    assert skeleton_cache.save(Session.open(f, validate=False))
    assert list(elsewhere.iterdir()) == []
    assert not folder.is_symlink() and skeleton_cache.cache_file(f).is_file()
    assert len(_link_notices(folder)) == 1




def test_a_shared_folder_is_neither_closed_nor_used(tmp_path, monkeypatch):
    """A folder such as /tmp (sticky, open to all) named as the cache folder: pitui does
    not take it over (no chmod), and runs without caches."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    monkeypatch.setenv("PITUI_CACHE_DIR", str(shared))
    root = _store(tmp_path, 2)
    assert len(list_sessions(resolve_root(root), SessionIndex())) == 2
    assert os.stat(shared).st_mode & 0o7777 == 0o1777 and list(shared.iterdir()) == []
    assert [n for n in paths.take_notices() if "not pitui's own" in n] != []


def test_a_cache_folder_of_another_user_is_not_used(tmp_path, monkeypatch):
    cache = tmp_path / "theirs"
    cache.mkdir()
    root = _store(tmp_path, 3)
    want = [h.path for h in search(resolve_root(root), "word5", index_dir=tmp_path / "ours")]
    monkeypatch.setenv("PITUI_CACHE_DIR", str(cache))
    # private: another user's folder, faked (a test cannot chown one to another user)
    monkeypatch.setattr(paths, "_euid", lambda: os.stat(cache).st_uid + 1)
    infos = list_sessions(resolve_root(root), SessionIndex())
    assert len(infos) == 3
    assert [h.path for h in search(resolve_root(root), "word5")] == want and want
    f = _big(tmp_path)
    assert not skeleton_cache.save(Session.open(f, validate=False))
    assert list(cache.iterdir()) == []
    notes = paths.take_notices()
    assert notes == [f"{cache}: the cache folder belongs to another user: running without caches"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a folder away")
def test_the_cli_runs_without_another_users_cache_folder(tmp_path):
    cache = tmp_path / "theirs"
    cache.mkdir(mode=0o755)
    os.chown(cache, 65534, 65534)
    root = _store(tmp_path, 3)
    for args in (("list", str(root)), ("search", "word5", str(root))):
        got = _cli(*args, cache=cache)
        assert got.returncode == 0 and got.stdout
        assert got.stderr.splitlines() == [f"pitui: {cache}: the cache folder belongs to another user: "
                                           "running without caches"]
    assert list(cache.iterdir()) == []


async def test_ctrl_f_on_a_damaged_search_index_finds_everything_and_says_so(make_app, settle, tmp_path, monkeypatch):
    from pitui.ui.app import PituiApp
    from pitui.ui.screens.search import SearchScreen

    notes: list[str] = []
    orig = PituiApp.notify
    monkeypatch.setattr(PituiApp, "notify", lambda self, m, *a, **k: (notes.append(str(m)), orig(self, m, *a, **k)))
    root, cache = _store(tmp_path), tmp_path / "cache"
    want = {h.path for h in search(resolve_root(root), "word5", index_dir=cache)}
    _overwrite_middle(cache / f"search-v{SCHEMA_VERSION}.sqlite3")
    app = make_app(root, index=SessionIndex(cache))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+f", *"word5", "enter")
        for _ in range(300):
            await settle(pilot)
            screen = app.screen
            if isinstance(screen, SearchScreen) and not screen.searching:
                break
        assert isinstance(app.screen, SearchScreen)
        assert {row.result.path for row in app.screen.results.rows if row.kind == "session"} == want
        app.show_notices()
        assert [n for n in notes if "search index" in n and "rebuilt" in n] != []
