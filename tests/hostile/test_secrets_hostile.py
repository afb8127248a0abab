"""Hostile text given to the secrets scan (issue 39): texts built to make a backtracking
regex engine take quadratic time or worse are scanned through, and a file of them too."""

from __future__ import annotations

import pytest

from pitui.core.secrets.patterns import find_in_text
from pitui.core.secrets.scan import scan_bytes


@pytest.mark.parametrize("text", [
    "API_KEY=" * 100_000,
    "ghp_" + "a" * 1_000_000,
    "://" + "a:" * 300_000 + "@",
    "-----BEGIN RSA PRIVATE KEY-----\n" + "A" * 1_000_000,
    ("glpat-" + "x1" * 15 + " ") * 20_000,
    "key: " + "Ab1" * 300_000,
    ";password=" * 100_000,
    "eyJ" + "a" * 500_000 + ".eyJ" + "b" * 500_000,
])
def test_hostile_text_is_scanned_through(text):
    """RE2 on every pattern, Python only on short values: each of these ends (a backtracking
    engine takes quadratic time or worse on several)."""
    assert isinstance(find_in_text(text), list)


def test_a_file_of_hostile_lines_is_scanned_through():
    head = b'{"type":"session","version":3,"id":"s","timestamp":"2026-11-20T10:00:00.000Z","cwd":"/"}\n'
    lines = [b'{"type":"message","id":"u%d","parentId":null,"message":{"role":"user","content":"%s"}}'
             % (n, text) for n, text in enumerate([b"API_KEY=" * 50_000, b"\\u0041KIA" * 50_000,
                                                   b"://a:" * 50_000, b"PRIVATE KEY" * 50_000])]
    assert scan_bytes(head + b"\n".join(lines) + b"\n").secrets == []
