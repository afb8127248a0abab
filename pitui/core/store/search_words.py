"""The words of a text as the search index keeps them, and which word follows which.

A chunk's **words** (:mod:`.search_chunks`) are the runs of ASCII letters, digits and ``_``
in its rows' texts, lowercased (the few non-ASCII letters that match an ASCII one
case-insensitively, such as the Kelvin sign, folded to it first: :data:`_FOLDS`); every
other character separates them. The index keeps a chunk's distinct words, each with a space
on both sides (:func:`_words_text`), in its FTS5 table (:mod:`.search_index`), and the
chunk's **word pairs**, which word follows which: a bitmap of its pair keys (a word's last
3 characters and the next word's first 3, see :data:`_PAIR_BITS`), so that a literal of
several words (``slash fix``) reads only the chunks where they may be next to each other.
A query's literals give the pair keys a chunk holding a match has (:func:`_pair_keys`,
used by :mod:`.search_query`).
"""

from __future__ import annotations

import re
import struct
import zlib
from typing import Iterable


# Characters that cannot be told from an ASCII letter case-insensitively (by RE2 or by
# Python's ``re``): folded to that letter in the words indexed and in the query alike
_FOLDS = (("\u212a", "k"), ("\u017f", "s"), ("\u0131", "i"), ("\u0130", "i"))
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
# bytes -> the words' alphabet: ASCII letters lowercased, digits and "_" kept, anything else
# (punctuation, whitespace, every byte of a non-ASCII character) a space
_WORD_TABLE = bytes(
    code + 32 if 65 <= code <= 90 else (code if (48 <= code <= 57 or 97 <= code <= 122 or code == 95) else 32) for code in range(256)
)


def _fold(text: str) -> str:
    if not text.isascii():
        for source, target in _FOLDS:
            if source in text:
                text = text.replace(source, target)
    return text


def _add_words(text: str, into: set) -> None:
    """Add the words of ``text`` to ``into`` (bytes: runs of ASCII letters, digits and "_",
    lowercased; every other character separates words)."""
    if text.isascii():
        data = text.encode("ascii")
    else:
        data = _fold(text).encode("utf-8", "surrogatepass")
    into.update(data.translate(_WORD_TABLE).split())


def _words_of(texts: list[str]):
    """The words of ``texts`` (as :func:`_add_words` finds them, split once for them all:
    a set-like view), and the bitmap of their word pairs (:func:`_pair_bits`)."""
    joined = "\n".join(texts)
    data = joined.encode("ascii") if joined.isascii() else _fold(joined).encode("utf-8", "surrogatepass")
    seq = data.translate(_WORD_TABLE).split()
    two = _Two()  # (its keys: the distinct words, found by the same pass that makes the pairs)
    return two.keys(), _pair_bits(b"".join(map(two.__getitem__, seq)), len(seq))


# Which word follows which. A pair key is the last 3 characters of a word (all of a shorter
# one) and the first 3 of the word after it (in the rows' texts, joined by newlines, as
# :func:`_add_words` splits them): a literal whose runs of word characters are "slash" and
# "fix", with only ASCII non-word characters between them, is in a text only where a word
# ending in "slash" is followed by one starting with "fix", so only where the key
# ("ash", "fix") is. A key is a 32-bit number (16 bits of the CRC-32 of its end, low,
# and 16 of its start's); a chunk keeps its distinct keys as a bitmap of a power of two
# bits, at least _PAIR_BITS a key: a key's bit is the low bits of its position
# (:func:`_pair_pos`). No key is missed; a key whose bit is clear is not in the chunk.
# A word's 4 bytes are found once (:class:`_Two`); a chunk's keys are then one join of its
# words' 4 bytes, and their positions and the bitmap are worked out on all of them at once
# by NumPy (:func:`_pair_bits`): a chunk has tens of thousands of keys, and a step per key
# in Python was most of what the cold build spent on the pairs.
_PAIR_BITS = 10
_PAIR_TOP = 21  # a bitmap has at most 2**21 bits
_TWO: dict[bytes, bytes] = {}  # word -> its 4 bytes, kept from chunk to chunk (up to _TWO_MAX)
_TWO_MAX = 100_000


def _pair_half(part: bytes, start: bool) -> int:
    crc = zlib.crc32(part)
    return crc >> 16 if start else crc & 0xFFFF


def _pair_pos(key: int) -> int:
    """A pair key's position (32 bits; a bitmap of 2**m bits keeps its low m bits): the key
    mixed by MurmurHash3's finalizer. Not a linear map: the keys' CRC halves are linear in
    their characters, so an XOR-only mix would make some keys collide with a common key in
    every chunk (a word's pair with a few bits' difference from that of a frequent one)."""
    key ^= key >> 16
    key = key * 0x85EBCA6B & 0xFFFFFFFF
    key ^= key >> 13
    key = key * 0xC2B2AE35 & 0xFFFFFFFF
    return key ^ key >> 16


class _Two(dict):
    """Word -> 4 bytes: 16 bits of its start's CRC-32, then 16 of its end's (little-endian);
    filled as words are looked up."""

    __slots__ = ()

    def __missing__(self, word: bytes) -> bytes:
        got = _TWO.get(word)
        if got is None:
            if len(_TWO) >= _TWO_MAX:
                _TWO.clear()
            got = _TWO[word] = struct.pack("<HH", _pair_half(word[:3], True), _pair_half(word[-3:], False))
        self[word] = got
        return got


def _pair_bits(joined: bytes, words: int) -> bytes:
    """The pair bitmap of a chunk whose ``words`` words' 4 bytes (:class:`_Two`) are
    ``joined``: from its third byte on, every 4 bytes are a word's end and the next word's
    start, a key (little-endian). Its bit ``p`` is byte ``p >> 3``'s bit ``p & 7``."""
    import numpy as np  # (only when chunks are made: a query never needs it)

    count = words - 1
    if count < 1:
        return b""
    pos = np.frombuffer(joined, dtype="<u4", offset=2, count=count).astype(np.uint32)
    # (_pair_pos of every key; uint32 products wrap modulo 2**32)
    pos ^= pos >> 16
    pos *= np.uint32(0x85EBCA6B)
    pos ^= pos >> 13
    pos *= np.uint32(0xC2B2AE35)
    pos ^= pos >> 16
    # First as many bits as every key having one of its own needs; then folded (a
    # position's low bits kept) to what the distinct keys need.
    top = min(_PAIR_TOP, max(6, (_PAIR_BITS * count - 1).bit_length()))
    slots = np.zeros(1 << top, dtype=bool)
    slots[pos & np.uint32((1 << top) - 1)] = True
    size = min(top, max(6, (_PAIR_BITS * int(np.count_nonzero(slots)) - 1).bit_length()))
    if size < top:
        slots = slots.reshape(-1, 1 << size).any(axis=0)
    return np.packbits(slots, bitorder="little").tobytes()


def _chunk_may(bits: bytes | None, pairs: tuple[int, ...], gaps, cid: int) -> bool:
    """Whether a chunk (id ``cid``, pair bitmap ``bits``) may hold a term's match: it may
    hold every one of its ``pairs``, and for each of its gaps (``(key, ids)``: the chunks
    whose words may hold it with a word character), its key or it is one of those."""
    return _may_pair(bits, pairs) and all(cid in ids or _may_pair(bits, (key,)) for key, ids in gaps)


def _may_pair(bits: bytes | None, keys: Iterable[int]) -> bool:
    """Whether a chunk whose pair bitmap is ``bits`` may hold every one of ``keys``
    (:func:`_pair_keys`)."""
    if not bits or not keys:
        return True
    mask = len(bits) * 8 - 1
    for key in keys:
        position = _pair_pos(key) & mask
        if not bits[position >> 3] >> (position & 7) & 1:
            return False
    return True


def _pair_keys(lits: Iterable[str]) -> tuple[int, ...]:
    """The pair keys (see :data:`_PAIR_BITS`) that a text matching all of ``lits``
    (case-insensitively) holds: for two runs of word characters next to each other in a
    literal, with only ASCII non-word characters between them, the end of the first (its
    last 3 characters; all of it if it is shorter and a whole word: an ASCII character of the
    literal before it) and the start of the second (likewise)."""
    got = set()
    for lit in lits:
        folded = _fold(lit).lower()
        runs = [(match.start(), match.end()) for match in re.finditer(r"[a-z0-9_]+", folded)]
        for (a0, a1), (b0, b1) in zip(runs, runs[1:]):
            if not folded[a1:b0].isascii():
                continue
            if a1 - a0 < 3 and (a0 == 0 or not folded[a0 - 1].isascii()):
                continue  # (maybe the end of a longer word)
            if b1 - b0 < 3 and (b1 == len(folded) or not folded[b1].isascii()):
                continue  # (maybe the start of a longer word)
            tail, head = folded[max(a0, a1 - 3) : a1].encode("ascii"), folded[b0 : min(b1, b0 + 3)].encode("ascii")
            got.add(_pair_half(tail, False) | _pair_half(head, True) << 16)
    return tuple(sorted(got))


def _has_fold(text: str) -> bool:
    """Whether ``text`` holds a letter of :data:`_FOLDS` (which its line's bytes do not show
    as the ASCII letter it matches)."""
    return not text.isascii() and any(source in text for source, _ in _FOLDS)


def _words_text(words: set) -> str:
    """What the FTS table holds for a chunk: its words, each with a space on both sides."""
    return " " + b" ".join(words).decode("ascii") + " "
