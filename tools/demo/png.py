"""A small PNG made from scratch: the phone screenshot the user pastes in the checkout story."""

from __future__ import annotations

import struct
import zlib


def make_png(width: int, height: int, pixel) -> bytes:
    raw = b"".join(b"\x00" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def checkout_screenshot_png() -> bytes:
    """24x16 mock of a phone screenshot: totals rows, the discount amount wrapped."""

    def px(x: int, y: int) -> tuple[int, int, int]:
        if y in (0, 1):
            return (34, 34, 34)  # status bar
        row = (y - 3) // 3
        in_row = (y - 3) % 3
        if y < 3 or in_row == 2:
            return (230, 230, 230) if in_row == 2 else (255, 255, 255)
        if 1 <= x <= 9 and in_row == 0:
            return (60, 60, 60)  # label text
        if row == 2:  # the discount row: amount wrapped to the next text line
            if 16 <= x <= 22 and in_row == 1:
                return (200, 40, 40)
            return (255, 244, 244)
        if 16 <= x <= 22 and in_row == 0:
            return (60, 60, 60)
        return (255, 255, 255)

    return make_png(24, 16, px)
