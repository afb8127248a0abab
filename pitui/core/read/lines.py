"""Reading JSONL lines the way Pi does, with better manners for bad bytes.

Lines are split on ``\\n`` only (U+2028, U+2029 and ``\\x85`` occur raw inside JSON
strings and are not line breaks); a trailing ``\\r`` is dropped; blank lines are
skipped. Files are read in chunks so memory stays bounded by the largest line, and a line
longer than :data:`MAX_LINE` is never held: it is read past, and given as the stand-in
:data:`LONG_LINE`, which :func:`parse_line` reports as too long.
"""

from __future__ import annotations

import io
import math
import os
import re
import stat
import zlib
from typing import BinaryIO, Iterator, NamedTuple

import orjson

__all__ = ["RawLine", "iter_lines", "parse_line", "replace_surrogates", "read_span", "BOM", "ParseResult",
           "NotRegular", "not_regular", "open_regular", "open_small", "MAX_LINE", "LONG_LINE"]

BOM = b"\xef\xbb\xbf"
CHUNK = 4 * 1024 * 1024

#: The longest line read, in bytes. Far above any real entry: the biggest reach tens of
#: megabytes (a provider refuses a request of more than about 32 MB, so no message the model
#: saw is bigger), and half of what Pi itself reads: past V8's longest string (2**29 - 24
#: characters) Pi cannot open the session at all ("RangeError: Invalid string length").
#: Reading a line costs a few times its size in memory, so this bounds what one line of a
#: hostile file (a gigabyte of NUL bytes, a pipe that never sends a newline) can take.
MAX_LINE = 256 * 1024 * 1024
#: What a line longer than MAX_LINE is read as: no JSON (a raw NUL is never valid), told
#: apart by :func:`parse_line`. It is given ending where the long line ends (the offset after
#: it is right; the offset of its start is not the long line's).
LONG_LINE = b"\x00pitui: a line longer than MAX_LINE bytes, read past\x00"
_TOO_LONG = f"longer than {MAX_LINE // (1024 * 1024)} MB"


class NotRegular(OSError):
    """A path that is not a regular file (a FIFO, a device, a socket): never read as a
    session. ``str()`` says what it is, in a few words."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a directory, not a session file"
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO), not a session file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a session file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a session file"
    return "is not a regular file"


def not_regular(path: str | os.PathLike) -> str | None:
    """What ``path`` is, in a few words, when it exists and is not a regular file (symlinks
    followed); None otherwise. Looks without opening (opening a FIFO can block)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else _kind(mode)


def open_regular(path: str | os.PathLike) -> BinaryIO:
    """``path`` opened for reading, if it is a regular file (symlinks followed); else
    :class:`NotRegular`. Opened without blocking and checked on the open file itself, so a
    FIFO never blocks the open and nothing is swapped in between (``/dev/zero`` would never
    end, a FIFO would wait forever for a writer)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(f"{os.fspath(path)} {_kind(mode)}")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return open(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_small(path: str | os.PathLike, limit: int) -> tuple[os.stat_result, bytes | BinaryIO]:
    """``path``, if it is a regular file (as :func:`open_regular`): its status (of the open
    file) and, when it holds at most ``limit`` bytes, its whole content (the file closed
    again); else the file open for reading. A small file costs one open, fstat and read,
    with no file object made (a cold list reads thousands of them)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    handed_over = False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(f"{os.fspath(path)} {_kind(st.st_mode)}")
        if st.st_size > limit:
            if hasattr(os, "set_blocking"):
                os.set_blocking(fd, True)
            handle = open(fd, "rb")
            handed_over = True
            return st, handle
        # (a regular file's read never waits, whatever O_NONBLOCK says; it returns fewer
        # bytes than asked only at the file's end: asked one more than its size, a file
        # that grew or shrank since the fstat is read on to its end)
        data = os.read(fd, st.st_size + 1)
        if len(data) != st.st_size:
            parts = [data]
            while parts[-1]:
                parts.append(os.read(fd, CHUNK))
            data = b"".join(parts)
        return st, data
    finally:
        if not handed_over:
            os.close(fd)


class RawLine(NamedTuple):
    """One physical line: where it starts, its bytes (no ``\\n``/``\\r``), its number."""

    offset: int  # byte offset of the line's first byte (after a BOM on line 1)
    length: int  # bytes of content, excluding the newline and a trailing \r
    lineno: int  # 1-based physical line number
    data: bytes
    terminated: bool  # ended by a newline (False: the file's last, maybe partial, line)
    end: int  # offset just past this line's newline (or its end when unterminated)


def iter_lines(handle: BinaryIO, start: int = 0, first_lineno: int = 1) -> Iterator[RawLine]:
    """Yield every non-blank line of ``handle`` from byte ``start`` (:func:`iter_line_spans`,
    each line copied into a :class:`RawLine`)."""
    for buf, pos, line_end, off, lineno, end, term in iter_line_spans(handle, start, first_lineno):
        yield RawLine(off, line_end - pos, lineno, bytes(buf[pos:line_end]), term, end)


class ParseResult(NamedTuple):
    value: object  # the parsed JSON value, or None when it did not parse
    replaced: bool  # bytes that were not UTF-8 were replaced with U+FFFD
    error: str | None
    surrogates: bool = False  # lone surrogate escapes ("\ud800") were replaced with U+FFFD
    huge: bool = False  # numbers beyond a double's range (JavaScript's Infinity) were read as null

    @property
    def too_long(self) -> bool:
        """The line was longer than :data:`MAX_LINE` and read past (:data:`LONG_LINE`)."""
        return self.error == _TOO_LONG

    @property
    def why(self) -> str:
        """Why the line did not parse, for a warning: "not valid JSON", its length or depth."""
        if self.error == _TOO_LONG:
            return _TOO_LONG
        if self.error and "depth limit" in self.error:
            return "nested more than 1,024 levels deep"
        return "not valid JSON"


# A \uD800-\uDFFF escape: besides a number beyond a double's range, the only valid JSON
# orjson refuses, apart from what is nested too deeply.
_SURROGATE_ESCAPE_RE = re.compile(rb"\\[uU][dD][89a-fA-F]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
# How orjson says a number is beyond a double's range (it refuses the line; JavaScript's
# JSON.parse reads the number as Infinity).
_INFINITE_NUMBER = "number is infinity"


def parse_line(data: bytes) -> ParseResult:
    """Parse one line as JavaScript's ``JSON.parse`` would, with better manners: bytes that
    are not UTF-8 are replaced (and reported), not fatal; lone surrogate escapes, which Pi's
    ``JSON.stringify`` writes for broken UTF-16, become U+FFFD (and are reported), so no
    string read from a session holds a surrogate (no encoder downstream accepts one). A
    number beyond a double's range (``1e400``, an integer of 310 digits), which JavaScript
    reads as Infinity, is read as null (what Pi's ``JSON.stringify`` writes for Infinity;
    no timestamp, count or cost can be infinite) and reported. A line nested deeper than
    orjson reads (1,024 levels) does not parse."""
    try:
        return ParseResult(orjson.loads(data), False, None)
    except orjson.JSONDecodeError as exc:
        first_error = str(exc)
    if data == LONG_LINE:
        return ParseResult(None, False, _TOO_LONG)
    replaced = False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        replaced = True
        try:
            return ParseResult(orjson.loads(text), True, None)
        except orjson.JSONDecodeError as exc:
            first_error = str(exc)
    if _INFINITE_NUMBER not in first_error and _SURROGATE_ESCAPE_RE.search(data) is None:
        return ParseResult(None, replaced, first_error)
    # Valid JSON that orjson refused for its lone surrogate escapes or a number beyond a
    # double's range (JavaScript accepts both): the standard library reads them, and they
    # are replaced here.
    import json

    numbers = _Numbers()
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=numbers.integer,
                           parse_float=numbers.decimal)
    except (ValueError, RecursionError):
        return ParseResult(None, replaced, first_error)
    surrogates = _SURROGATE_ESCAPE_RE.search(data) is not None
    return ParseResult(replace_surrogates(value) if surrogates else value, replaced, None, surrogates,
                       numbers.huge)


class _Numbers:
    """JSON numbers read as orjson reads them (an integer beyond 64 bits as a float, as
    JavaScript reads every number), whichever parser took the line; one beyond a double's
    range as None, noted in :attr:`huge`."""

    __slots__ = ("huge",)

    def __init__(self) -> None:
        self.huge = False

    def integer(self, digits: str) -> int | float | None:
        if len(digits) <= 20:  # (int() of thousands of digits is slow, and refused past 4,300)
            number = int(digits)
            if -(2**63) <= number < 2**64:
                return number
        return self.decimal(digits)

    def decimal(self, digits: str) -> float | None:
        number = float(digits)
        if math.isinf(number):
            self.huge = True
            return None
        return number


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")  # (the standard library accepts NaN; JavaScript does not)


def replace_surrogates(value):
    """``value`` (parsed JSON) with every lone surrogate in its strings, keys included,
    replaced by U+FFFD. Iterative: no depth limit of its own."""
    sub = _SURROGATE_RE.sub
    if isinstance(value, str):
        return sub("\ufffd", value)
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for index, child in enumerate(node):
                if isinstance(child, str):
                    node[index] = sub("\ufffd", child)
                elif isinstance(child, (list, dict)):
                    stack.append(child)
        elif isinstance(node, dict):
            items = list(node.items())
            node.clear()
            for index, child in items:
                if isinstance(child, str):
                    child = sub("\ufffd", child)
                elif isinstance(child, (list, dict)):
                    stack.append(child)
                node[sub("\ufffd", index)] = child  # (a key made equal to an earlier one wins, as the later key)
    return value


FINGERPRINT_BYTES = 4096


def file_fingerprint(path: str | os.PathLike, upto: int) -> str:
    """A hash of a file's first bytes and of the bytes just before ``upto``: tells whether
    a file that grew past ``upto`` still holds what was read before (Pi only appends)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(min(FINGERPRINT_BYTES, upto))
            tail = b""
            if upto > FINGERPRINT_BYTES:
                handle.seek(max(FINGERPRINT_BYTES, upto - FINGERPRINT_BYTES))
                tail = handle.read(upto - max(FINGERPRINT_BYTES, upto - FINGERPRINT_BYTES))
    except OSError:
        return ""
    return _fingerprint(head, tail)


def bytes_fingerprint(data: bytes, upto: int) -> str:
    """:func:`file_fingerprint` of a file whose first ``upto`` or more bytes are ``data``
    (read already: the file is not opened again)."""
    tail = data[max(FINGERPRINT_BYTES, upto - FINGERPRINT_BYTES):upto] if upto > FINGERPRINT_BYTES else b""
    return _fingerprint(data[:min(FINGERPRINT_BYTES, upto)], tail)


def _fingerprint(head: bytes, tail: bytes) -> str:
    # CRC-32 of each part (64 bits in all): it tells a rewritten file from one Pi appended
    # to, beside the same device, inode and a size no smaller; nothing here needs a
    # cryptographic hash, and a cold list makes one per file (blake2b cost several times more)
    return "%08x%08x" % (zlib.crc32(head), zlib.crc32(tail))


def read_span(path: str | os.PathLike, offset: int, length: int) -> bytes:
    """Read ``length`` bytes at ``offset`` without moving any shared file position."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.pread(fd, length, offset)
    finally:
        os.close(fd)


_WS_START = frozenset(b" \t\r\x0b\x0c")


MAPPED_WINDOW = 8 * 1024 * 1024


def iter_line_blocks(handle: BinaryIO, start: int = 0, stop: int | None = None, *, mapped: bool = False):
    """The file from byte ``start`` in blocks of whole lines, without copying: yields
    ``(buf, pos, limit, base, whole)``; ``buf[pos:limit]`` holds whole lines (each ends
    with ``\n``, the last at ``limit - 1``) and ``base`` is the file offset of ``buf[0]``.
    If the file ends without a newline, a last block holds that line with ``whole``
    false. ``buf`` is a reused bytearray, valid only until the next block. With ``stop``,
    nothing at or past that offset is read. A BOM at the very start is left out.

    ``mapped=True`` maps the file into memory instead of copying it into ``buf`` (a
    sixth less time for a big file's quick scan) and gives the pages read back as it
    goes, so memory stays bounded. Only for a process that may die: a file cut short
    while mapped kills the reader with SIGBUS (the scan workers, whose caller then reads
    the file itself). A file that cannot be mapped is read the usual way.

    ``handle`` may also be the file's bytes, read whole already: one block of them, not copied.

    A line longer than :data:`MAX_LINE` is never held in memory: it is read past, and
    given as :data:`LONG_LINE` in a block of its own."""
    if isinstance(handle, bytes):
        if len(handle) - start <= MAX_LINE:  # (no line can be too long: always so for a small file)
            yield from _bytes_blocks(handle, start, stop)
            return
        handle = io.BytesIO(handle)  # (read as a file, for its long lines: it shares the bytes)
    if mapped:
        mapped_file = _map(handle)
        if mapped_file is not None:
            yield from _mapped_blocks(mapped_file, handle, start, stop)
            return
    handle.seek(start)
    buf = bytearray(_first_buffer(handle, start))
    filled = 0
    pos = 0
    base = start  # file offset of buf[0]
    readinto = handle.readinto
    at_start = start == 0
    while True:
        room = len(buf) - filled
        if stop is not None:
            room = min(room, stop - (base + filled))
        if room > 0:
            with memoryview(buf) as mv:
                got = readinto(mv[filled:filled + room])
        else:
            got = 0
        if not got:
            break
        filled += got
        if at_start:
            at_start = False
            if buf.startswith(BOM):  # (a BOM on the first line is not part of it)
                pos = 3
        last = buf.rfind(b"\n", pos, filled)
        if last >= 0:
            yield buf, pos, last + 1, base, True
            pos = last + 1
        if pos:
            remaining = filled - pos
            buf[:remaining] = buf[pos:filled]
            base += pos
            filled = remaining
            pos = 0
        if filled == len(buf):
            # A line longer than the buffer: where it ends is found by reading on without
            # keeping what is read; the buffer grows to hold it, or it is read past.
            nl, found = _newline_at_or_after(handle, base + filled, stop)
            if nl - base > MAX_LINE:
                yield from _long_line(nl, found)
                if not found:
                    return
                base, filled, pos = nl + 1, 0, 0
                handle.seek(base)
                if len(buf) > CHUNK:
                    buf = bytearray(CHUNK)
                continue
            buf.extend(bytes(nl + 1 - base - len(buf)))  # (room for it and its newline)
            handle.seek(base + filled)
    if pos < filled:
        yield buf, pos, filled, base, False


def _newline_at_or_after(handle: BinaryIO, offset: int, stop: int | None) -> tuple[int, bool]:
    """``(the offset of the first newline at or after offset, True)``, or ``(the offset
    where the file or stop ends, False)``: read in chunks that are not kept."""
    handle.seek(offset)
    scratch = bytearray(CHUNK)
    readinto = handle.readinto
    while True:
        room = CHUNK if stop is None else min(CHUNK, stop - offset)
        got = 0
        if room > 0:
            with memoryview(scratch) as mv:
                got = readinto(mv[:room])
        if not got:
            return offset, False
        newline = scratch.find(b"\n", 0, got)
        if newline >= 0:
            return offset + newline, True
        offset += got


def _long_line(end: int, terminated: bool):
    """The block of a line longer than MAX_LINE that ends at ``end`` (its newline's offset,
    or the file's end): :data:`LONG_LINE` in its place, ending where it ends."""
    if terminated:
        block = LONG_LINE + b"\n"
        yield block, 0, len(block), end + 1 - len(block), True
    else:
        yield LONG_LINE, 0, len(LONG_LINE), end - len(LONG_LINE), False


def _first_buffer(handle: BinaryIO, start: int) -> int:
    """The read buffer's first size: CHUNK, or what is left of a smaller file (a small
    session is read in one block without making CHUNK bytes first; it grows for a file
    that grows, or a line longer than it)."""
    if isinstance(handle, io.BytesIO):
        left = handle.getbuffer().nbytes - start
    else:
        try:
            left = os.fstat(handle.fileno()).st_size - start
        except (OSError, ValueError, AttributeError):  # (no file behind it)
            return CHUNK
    return max(64 * 1024, min(CHUNK, left + 1))


def _map(handle: BinaryIO):
    import mmap

    try:
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # an empty file, a pipe, a file system without mmap
        return None


def _bytes_blocks(data: bytes, start: int, stop: int | None):
    """:func:`iter_line_blocks` over a file's bytes in memory (``base`` is 0)."""
    end = len(data) if stop is None else min(stop, len(data))
    pos = start
    if start == 0 and data.startswith(BOM):
        pos = 3
    if pos >= end:
        return
    last = data.rfind(b"\n", pos, end)
    if last >= 0:
        yield data, pos, last + 1, 0, True
        pos = last + 1
    if pos < end:
        yield data, pos, end, 0, False


def _mapped_blocks(mapped, handle: BinaryIO, start: int, stop: int | None):
    """:func:`iter_line_blocks` over a whole-file mapping ``mapped`` of ``handle`` (``base`` is 0)."""
    import mmap

    end = len(mapped) if stop is None else min(stop, len(mapped))
    pos = start
    if start == 0 and mapped[:3] == BOM:
        pos = 3
    page = mmap.PAGESIZE
    given_back = start - start % page  # pages before this are no longer mapped in
    dontneed = getattr(mmap, "MADV_DONTNEED", None) if hasattr(mapped, "madvise") else None
    window = MAPPED_WINDOW
    try:
        while pos < end:
            limit = min(end, pos + window)
            last = mapped.rfind(b"\n", pos, limit)
            if last < 0 and limit < end:  # a line longer than the window
                # (where it ends found by reading, not through the mapping: a line of a
                # gigabyte would be mapped in whole)
                nl, found = _newline_at_or_after(handle, limit, end)
                if nl - pos > MAX_LINE:
                    yield from _long_line(nl, found)
                    if not found:
                        return
                    pos = nl + 1
                    continue
                last = nl if found else -1
            if last < 0:
                yield mapped, pos, end, 0, False
                return
            yield mapped, pos, last + 1, 0, True
            pos = last + 1
            cut = pos - pos % page
            if dontneed is not None and cut > given_back:
                # (the file's pages stay cached by the system; only this process's
                # mapping of them goes, and with it their share of its memory)
                mapped.madvise(dontneed, given_back, cut - given_back)
                given_back = cut
    finally:
        try:
            mapped.close()
        except BufferError:  # a caller still holds a view of it: it goes with the view
            pass


def iter_line_spans(handle: BinaryIO, start: int = 0, first_lineno: int = 1, stop: int | None = None):
    """Like :func:`iter_lines` without copying: yields ``(buf, pos, end, offset, lineno,
    next_offset, terminated)`` where the line is ``buf[pos:end]`` (no ``\n``/``\r``),
    ``offset`` its file offset and ``next_offset`` the offset after its newline. ``buf`` is
    a reused bytearray, valid only until the next item; regexes can match it in place.
    With ``stop``, nothing at or past that file offset is read (a line cut there is
    yielded as unterminated)."""
    lineno = first_lineno
    ws = _WS_START
    for buf, pos, limit, base, whole in iter_line_blocks(handle, start, stop):
        if not whole:
            end = limit
            if buf[end - 1] == 13:
                end -= 1
            if end > pos and not bytes(buf[pos:end]).isspace():
                yield buf, pos, end, base + pos, lineno, base + limit, False
            return
        find = buf.find
        while pos < limit:
            nl = find(b"\n", pos, limit)
            end = nl
            if end > pos and buf[end - 1] == 13:
                end -= 1
            if end > pos and not (buf[pos] in ws and bytes(buf[pos:end]).isspace()):
                yield buf, pos, end, base + pos, lineno, base + nl + 1, True
            lineno += 1
            pos = nl + 1
