"""The frame of pitui's index files: a version line, a lengths line with a checksum, then the
file's meta (JSON) and blob, so that a damaged file is found before anything in it is read.

Layout: ``<magic><version>\\n``, then ``<meta length> <blob length> <crc32>\\n``, the meta, the
blob; the CRC covers meta and blob. The listing index (:mod:`.listing_file`) and the usage
index (:mod:`.usage_file`) are written and read through here.
"""

from __future__ import annotations

import zlib

__all__ = ["frame", "unframe", "Damaged", "OtherVersion"]

_HEAD_MAX = 256  # (the first two lines are shorter: a version, two lengths and a checksum)


class Damaged(Exception):
    """The file is not a readable index (the message says why)."""


class OtherVersion(Exception):
    """The file is another version's index (rebuilt without a word)."""


def frame(magic: bytes, meta: bytes, blob: list, version: int) -> list[bytes]:
    """The file of ``meta`` (JSON) and ``blob`` (its pieces), in pieces (for
    :func:`..paths.write_private`)."""
    data = b"".join(blob)  # (one copy, one checksum and one write, not one per piece)
    crc = zlib.crc32(data, zlib.crc32(meta))
    return [magic + b"%d\n" % version, b"%d %d %d\n" % (len(meta), len(data), crc), meta, data]


def unframe(view: memoryview, magic: bytes, version: int, what: str) -> tuple[int, int]:
    """Where the meta of the file ``view`` starts and how long it is (the blob follows it to
    the end), its frame checked. ``what``: the file's name in messages. Raises
    :class:`OtherVersion` or :class:`Damaged`."""
    head = bytes(view[:_HEAD_MAX])
    nl = head.find(b"\n")
    if not head.startswith(magic) or nl < 0:
        raise Damaged(f"not a {what}")
    if not head[len(magic):nl].isdigit():
        raise Damaged("its first line is damaged")
    if head[len(magic):nl] != b"%d" % version:
        raise OtherVersion()
    nl2 = head.find(b"\n", nl + 1)
    try:
        meta_len, blob_len, crc = (int(field) for field in head[nl + 1:nl2].split(b" "))
    except ValueError:
        raise Damaged("its lengths line is damaged") from None
    start = nl2 + 1
    if nl2 < 0 or meta_len < 0 or blob_len < 0 or start + meta_len + blob_len != len(view):
        raise Damaged("its length is not the one it records")
    if zlib.crc32(view[start:]) != crc:
        raise Damaged("its checksum does not match")
    return start, meta_len
