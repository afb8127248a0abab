"""How counts, costs, sizes and durations read in the message pane and the HTML export,
and the summary forms of the header and the stats screen."""

import math

import pytest

from pitui.core.numbers import (
    fmt_bytes,
    fmt_cost,
    fmt_duration,
    fmt_tokens,
    fmt_tokens_short,
)


@pytest.mark.parametrize("value, text", [
    (0, "0"), (950, "950"), (12.5, "12.5"), (1000, "1.0k"), (12_345, "12.3k"), (99_949, "99.9k"),
    (195_300, "195k"), (999_400, "999k"), (1_250_000, "1.2M"),
    (None, "?"), ("12", "?"), (True, "?"), (math.nan, "?"), (math.inf, "?"),
])
def test_token_counts(value, text):
    assert fmt_tokens(value) == text


@pytest.mark.parametrize("value, text", [
    (0.012345, "$0.0123"), (0.5, "$0.5000"), (1, "$1.00"), (1234.5, "$1,234.50"),
    ({"input": 0.1, "total": 0.25}, "$0.2500"), ({"input": 0.1}, ""),
    (0, ""), (None, ""), ("0.2", ""), (False, ""), (math.nan, ""), (-math.inf, ""),
])
def test_costs(value, text):
    """A cost that is not a finite number (a damaged file's NaN) is left out rather than
    shown as ``$nan``."""
    assert fmt_cost(value) == text


def test_sizes_and_durations():
    assert [fmt_bytes(n) for n in (0, 1023, 1536, 5 * 1024 * 1024)] == ["0 B", "1023 B", "1.5 KB", "5.0 MB"]
    assert [fmt_duration(ms) for ms in (999, 42_000, 185_000, 3_725_000)] == ["0s", "42s", "3m05s", "1h02m"]
    assert [fmt_duration(ms) for ms in (-1, None, math.nan, True)] == ["", "", "", ""]


def test_summary_token_counts():
    """The stats screen rounds a count under a thousand; the header drops its fraction."""
    assert [fmt_tokens_short(n) for n in (0, 950, 999.6, 12_345, 999_949, 1_234_567)] == [
        "0", "950", "1000", "12.3k", "999.9k", "1.23M"]
    assert [fmt_tokens_short(n, truncate=True) for n in (0, 950, 999.6, 12_345, 1_234_567)] == [
        "0", "950", "999", "12.3k", "1.23M"]


def test_one_rule_for_costs():
    """The header, the stats screen, the pane and the exports write a cost alike: four
    decimals under a dollar (a $0.00015 session reads $0.0001 in the header as in its
    message, not $0.000), ``$0`` where a total is wanted."""
    assert [fmt_cost(c, zero="$0") for c in (0, -1, 0.00015, 0.01234, 0.25, 1234.5)] == [
        "$0", "$0", "$0.0001", "$0.0123", "$0.2500", "$1,234.50"]
    assert [fmt_cost(c) for c in (0.00004, 0.00005, -0.5)] == ["<$0.0001", "$0.0001", ""]