"""Big sessions read once are opened again from a saved skeleton.

After a big file is read (by a worker process), its skeleton, tree and default layout
(:meth:`Session.to_state`, :meth:`TreeLayout.to_state`) are saved in pitui's cache folder,
one file per session file, the newest :data:`KEEP` kept. Opening that file again loads
them (a tenth of a second instead of a whole read) and then reads only what Pi appended
since, exactly as a running pitui follows a growing session.

A saved skeleton is used only for the same file (device and inode), no shorter than when
it was saved, not rewritten in place (the same size with another modification time), and
whose bytes just before the point the skeleton reached are still the same (a hash of the
last 4 KiB): a file rewritten since is read afresh. Nothing here writes anywhere but the
cache folder (see :mod:`paths`: private, and not used at all when it is another user's).

The file holds data only, never code: it is read without ``pickle`` (which would run
whatever a planted file asked for). Its layout::

    magic (16 bytes) | format version (u32) | CRC-32 of all that follows (u32) |
    number of parts N (u32) | N part lengths (u64 each) | the parts

Part 0 is a JSON object: the stamp (which file, as it was) and, for the session's state and
the layout's, each value's form and the parts holding it: JSON (orjson) for strings, dicts
and lists, raw bytes for the integer columns (``array``), a table and an index column for
columns of few distinct strings (entry types, roles) and for the tree's shared gutter
tuples. A file that is cut short, fails its checksum or does not decode into a session of
consistent sizes is thrown away (with a notice) and the session is read afresh.
"""

from __future__ import annotations

import hashlib
import os
import struct
import zlib
from array import array
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..paths import cache_dir, default_cache_dir, notice, open_cache_file, private_dir, write_private

if TYPE_CHECKING:  # imported where used: usable() runs before pitui FILE's worker starts
    from ..read.session import Session
    from ..model.layout import TreeLayout

__all__ = ["CACHE_VERSION", "KEEP", "cache_file", "save", "load", "usable"]

CACHE_VERSION = 5  # 2: entry numbers in 4 bytes, no children lists (made from the parents); 3: the
# skeleton normalised (timestamps strings or None, ids strings: a skeleton of an older pitui may not be);
# 4: a data-only framed file (no pickle), the stamp with size and mtime_ns; 5: warnings keep their kind
KEEP = 8  # skeleton files kept (each ~40 bytes an entry: ~9 MB for 54,000 entries)
_TAIL = 4096
_SUFFIX = ".skeleton"
MAGIC = b"\x89pitui-skeleton\n"
_HEAD = struct.Struct("<16sIII")  # magic, version, CRC-32 of the rest, number of parts
_ARRAY_CODES = frozenset("bBhHiIlLqQ")
_MAX_PARTS = 4096


def _folder() -> Path:
    return default_cache_dir() / "skeletons"


def cache_file(path: str | os.PathLike) -> Path:
    """Where the skeleton of ``path`` is kept."""
    key = hashlib.sha1(os.path.abspath(os.fspath(path)).encode("utf-8", "surrogateescape")).hexdigest()
    return _folder() / f"{key}{_SUFFIX}"


def _tail_hash(path: str, end: int) -> str | None:
    from ..read.lines import read_span

    start = max(0, end - _TAIL)
    try:
        data = read_span(path, start, end - start)
    except OSError:
        return None
    if len(data) != end - start:
        return None
    return hashlib.sha1(data).hexdigest()


def _stamp(session: Session) -> dict | None:
    """Which file ``session`` was read from, as it was then; None when another file has
    its name now."""
    try:
        st = os.stat(session.path)
    except OSError:
        return None
    if (st.st_dev, st.st_ino) != (session.file_dev, session.file_ino):
        return None
    tail = _tail_hash(session.path, session.scanned_to)
    if tail is None:
        return None
    return {"v": CACHE_VERSION, "path": os.path.abspath(session.path), "dev": st.st_dev, "ino": st.st_ino,
            "size": session.file_size, "mtime_ns": session.file_mtime_ns, "scanned_to": session.scanned_to,
            "tail": tail}


# ---------------------------------------------------------------------------- encoding


class _Parts:
    def __init__(self) -> None:
        self.parts: list[bytes] = [b""]  # (0: the index, filled in last)

    def add(self, data: bytes) -> int:
        self.parts.append(data)
        return len(self.parts) - 1

    def json(self, value: Any) -> int:
        import orjson

        # (a dataclass is not data this format knows: refused rather than made a dict)
        return self.add(orjson.dumps(value, option=orjson.OPT_PASSTHROUGH_DATACLASS))


def _index_code(index: int) -> str:
    return "B" if index <= 0xFF else "H" if index <= 0xFFFF else "i"


def _encode(value: Any, parts: _Parts, depth: int = 0) -> list:
    """``value``'s form and parts (see the module docstring). Raises TypeError for a
    value this format does not hold (the skeleton is then not saved)."""
    from ..read.session import SessionWarning

    if isinstance(value, array):
        return ["a", value.typecode, parts.add(value.tobytes())]
    if isinstance(value, bytearray):
        return ["ba", parts.add(bytes(value))]
    if isinstance(value, bytes):
        return ["b", parts.add(value)]
    if isinstance(value, (set, frozenset)):
        return ["set", parts.json(list(value))]
    if isinstance(value, tuple):
        if depth:
            raise TypeError("nested tuples")
        return ["t", [_encode(item, parts, depth + 1) for item in value]]
    if isinstance(value, dict) and value and all(type(key) is int for key in value):
        return ["di", parts.json([list(value), list(value.values())])]
    if isinstance(value, list) and value:
        if all(isinstance(warning, SessionWarning) for warning in value):
            return ["w", parts.json([[warning.line, warning.message, warning.kind] for warning in value])]
        if type(value[0]) is tuple:  # the layout's gutters: a few shared tuples of pairs
            slot: dict[int, int] = {}
            table: list = []
            idx = []
            for group in value:
                at = slot.get(id(group))
                if at is None:
                    if type(group) is not tuple or not all(type(pair) is tuple for pair in group):
                        raise TypeError("a list of tuples that are not gutters")
                    at = slot[id(group)] = len(table)
                    table.append(group)
                idx.append(at)
            code = _index_code(len(table))
            return ["g", parts.json(table), code, parts.add(array(code, idx).tobytes())]
        if len(value) >= 64 and all(type(item) is str or item is None for item in value):
            table = list(dict.fromkeys(value))
            if len(table) <= min(0xFFFF, len(value) // 4):  # entry types, roles
                slots = {group: slot for slot, group in enumerate(table)}
                code = _index_code(len(table))
                column = array(code, map(slots.__getitem__, value)).tobytes()
                return ["enum", parts.json(table), code, parts.add(column)]
    return ["j", parts.json(value)]


def _encode_dict(mapping: dict, parts: _Parts) -> list:
    return [[key, _encode(value, parts)] for key, value in mapping.items()]


def _pack(stamp: dict, session_state: dict, layout_state: dict | None) -> list[bytes]:
    """The file's bytes, as pieces to be written one after the other (not joined: a copy
    of the whole would double what the saving worker holds)."""
    import orjson

    parts = _Parts()
    index = {
        "stamp": stamp,
        "session": _encode_dict(session_state, parts),
        "layout": _encode_dict(layout_state, parts) if layout_state is not None else None,
    }
    parts.parts[0] = orjson.dumps(index)
    if len(parts.parts) > _MAX_PARTS:
        raise TypeError("too many parts")
    lengths = struct.pack(f"<{len(parts.parts)}Q", *map(len, parts.parts))
    crc = zlib.crc32(lengths)
    for part in parts.parts:
        crc = zlib.crc32(part, crc)
    return [_HEAD.pack(MAGIC, CACHE_VERSION, crc, len(parts.parts)), lengths, *parts.parts]


class _Damaged(Exception):
    """The file is not a whole, consistent skeleton file of this version."""


def _part(parts: list[memoryview], key: Any) -> memoryview:
    if type(key) is not int or not 0 < key < len(parts):
        raise _Damaged("no such part")
    return parts[key]


def _array(code: Any, data: memoryview) -> array:
    if code not in _ARRAY_CODES:
        raise _Damaged("not an integer column")
    values = array(code)
    values.frombytes(data)
    return values


def _decode(form: Any, parts: list[memoryview], depth: int = 0) -> Any:
    import orjson

    from ..read.session import SessionWarning

    if type(form) is not list or not form:
        raise _Damaged("no form")
    kind = form[0]
    if kind == "j":
        return orjson.loads(_part(parts, form[1]))
    if kind == "a":
        return _array(form[1], _part(parts, form[2]))
    if kind == "b":
        return bytes(_part(parts, form[1]))
    if kind == "ba":
        return bytearray(_part(parts, form[1]))
    if kind == "set":
        return set(orjson.loads(_part(parts, form[1])))
    if kind == "t" and not depth:
        return tuple(_decode(item, parts, depth + 1) for item in form[1])
    if kind == "di":
        keys, values = orjson.loads(_part(parts, form[1]))
        if len(keys) != len(values) or not all(type(key) is int for key in keys):
            raise _Damaged("not an int-keyed dict")
        return dict(zip(keys, values))
    if kind == "w":
        return [SessionWarning(line, message, kind) for line, message, kind in orjson.loads(_part(parts, form[1]))]
    if kind == "g":
        table = [tuple(map(tuple, group)) for group in orjson.loads(_part(parts, form[1]))]
        return list(map(table.__getitem__, _array(form[2], _part(parts, form[3]))))
    if kind == "enum":
        table = orjson.loads(_part(parts, form[1]))
        return list(map(table.__getitem__, _array(form[2], _part(parts, form[3]))))
    raise _Damaged(f"unknown form {kind!r}")


def _decode_dict(forms: Any, parts: list[memoryview]) -> dict:
    if type(forms) is not list:
        raise _Damaged("no values")
    out = {}
    for key, form in forms:
        if type(key) is not str:
            raise _Damaged("a value without a name")
        out[key] = _decode(form, parts)
    return out


def _unpack_head(data: bytes) -> tuple[dict, list[memoryview]] | None:
    """The index (part 0) and the parts of a skeleton file; None for another version.
    Raises _Damaged for anything else that is not a whole skeleton file."""
    import orjson

    if len(data) < _HEAD.size:
        raise _Damaged("cut short")
    magic, version, crc, count = _HEAD.unpack_from(data)
    if magic != MAGIC:
        raise _Damaged("not a skeleton file")
    if version != CACHE_VERSION:
        return None
    view = memoryview(data)
    body = view[_HEAD.size:]
    if not 0 < count <= _MAX_PARTS or len(body) < 8 * count:
        raise _Damaged("cut short")
    if zlib.crc32(body) != crc:
        raise _Damaged("checksum")
    lengths = struct.unpack_from(f"<{count}Q", body)
    if 8 * count + sum(lengths) != len(body):
        raise _Damaged("cut short")
    parts = []
    pos = 8 * count
    for length in lengths:
        parts.append(body[pos:pos + length])
        pos += length
    try:
        index = orjson.loads(parts[0])
    except orjson.JSONDecodeError as exc:
        raise _Damaged("index") from exc
    if type(index) is not dict or type(index.get("stamp")) is not dict:
        raise _Damaged("index")
    return index, parts


# ---------------------------------------------------------------------------- saving


def save(session: Session, layout: TreeLayout | None = None) -> bool:
    """Save ``session`` (and its default ``layout``) for the next open. Atomic, the file
    private (``0600``); keeps the newest :data:`KEEP` files. False when it could not
    (nothing is raised)."""
    try:
        stamp = _stamp(session)
        if stamp is None:
            return False
        base = cache_dir()
        folder = private_dir(base / "skeletons", inside=True) if base is not None else None
        if folder is None:
            return False
        data = _pack(stamp, session.to_state(), layout.to_state() if layout is not None else None)
        target = cache_file(session.path)
        write_private(target, data)
        _prune(folder)
        return True
    except Exception:
        return False


def _prune(folder: Path) -> None:
    try:
        for old in folder.glob("*.pickle"):  # (written by pitui before this format: never read)
            old.unlink()
        files = sorted(folder.glob(f"*{_SUFFIX}"), key=lambda path: path.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in files[KEEP:]:
        try:
            old.unlink()
        except OSError:
            pass


# ---------------------------------------------------------------------------- loading


def _fits(stamp: dict, path: str) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    scanned_to, size = stamp.get("scanned_to"), stamp.get("size")
    if type(scanned_to) is not int or type(size) is not int or scanned_to < 0:
        return False
    return (stamp.get("path") == os.path.abspath(path) and stamp.get("dev") == st.st_dev
            and stamp.get("ino") == st.st_ino and st.st_size >= max(scanned_to, size)
            and (st.st_size != size or st.st_mtime_ns == stamp.get("mtime_ns"))
            and _tail_hash(path, scanned_to) == stamp.get("tail"))


def _check(session: Session, layout: TreeLayout | None) -> None:
    """Sizes that agree (the checksum already vouches for every byte: the values are what
    pitui wrote); raises _Damaged."""
    count = len(session.ids)
    for name in ("parent_ids", "types", "roles", "timestamps", "offsets", "lengths", "linenos", "flags", "parent"):
        if len(getattr(session, name)) != count:
            raise _Damaged(f"{name}: {len(getattr(session, name))} for {count} entries")
    if not (-1 <= session.leaf < count) or any(not 0 <= root < count for root in session.roots):
        raise _Damaged("leaf or roots")
    if layout is not None:
        rows = layout.rows
        row_count = len(rows)
        if any(len(getattr(rows, column)) != row_count for column in ("indent", "conn", "gutters", "active", "foldable", "folded")):
            raise _Damaged("layout rows")


def _thrown_away(file: Path, why: str) -> None:
    try:
        file.unlink()
    except OSError:
        pass
    notice(f"{file}: a damaged skeleton cache file was thrown away ({why}); the session is read afresh")


def usable(path: str | os.PathLike) -> bool:
    """Whether a saved skeleton may serve ``path`` (a quick check that one exists for a
    non-empty file; :func:`load` checks that it fits the file as it is now)."""
    try:
        st = os.stat(path)
        return cache_file(path).stat().st_mtime > 0 and st.st_size > 0
    except OSError:
        return False


def load(path: str | os.PathLike) -> tuple[Session, TreeLayout | None] | None:
    """The session of ``path`` from its saved skeleton, read on to the file's end, with the
    saved default layout when nothing was appended since; None when there is none that
    fits the file as it is now (a damaged one is thrown away, with a notice)."""
    from ..read.session import Session
    from ..model.layout import TreeLayout

    path = os.fspath(path)
    base = cache_dir(create=False)
    if base is None or private_dir(base / "skeletons", create=False, inside=True) is None:
        return None
    file = cache_file(path)
    try:
        with open_cache_file(file) as handle:  # (never through a link: one is removed)
            data = handle.read()
    except OSError:
        return None
    try:
        got = _unpack_head(data)
        if got is None:
            return None  # (another version's: replaced when this open saves)
        index, parts = got
        if not _fits(index["stamp"], path):
            return None
        state = _decode_dict(index.get("session"), parts)
        layout_forms = index.get("layout")
        layout_state = _decode_dict(layout_forms, parts) if layout_forms is not None else None
        session = Session.from_state(state)
        layout = TreeLayout.from_state(layout_state) if layout_state is not None else None
        _check(session, layout)
    except Exception as exc:  # cut short, bad checksum, or parts that do not make a session
        _thrown_away(file, str(exc) if isinstance(exc, _Damaged) else type(exc).__name__)
        return None
    if session.path != path:
        session.path = path
    if session.refresh():
        layout = None  # entries were appended: the tree changed
    return session, layout
