"""A tree layout's maps (entry -> row, entry -> shown parent) and their way across processes
and into the skeleton cache: arrays over the entries, answering as the dicts they replace."""

from __future__ import annotations

from array import array

from hypothesis import given, strategies as st

from helpers import assistant, user, write
from pitui.core.model.layout import TreeLayout, layout_tree
from pitui.core.read.arrays import EntryMap
from pitui.core.read.session import Session


@given(st.lists(st.tuples(st.integers(0, 300), st.integers(-1, 300)), max_size=60, unique_by=lambda p: p[0]),
       st.integers(0, 40))
def test_an_entry_map_answers_as_a_dict(pairs, size):
    made, want = EntryMap(size), {}
    half = len(pairs) // 2
    for key, value in pairs[:half]:
        made[key] = value
        want[key] = value
    made.update_pairs([k for k, _ in pairs[half:]], [v for _, v in pairs[half:]])
    want.update(pairs[half:])
    assert made == want and list(made) == list(want) and list(made.items()) == list(want.items())
    assert len(made) == len(want) and list(made.values()) == list(want.values())
    for key in range(-2, 310):
        assert (key in made) == (key in want)
        assert made.get(key, "none") == want.get(key, "none")
    asked = [k for k in range(-3, 320, 3)] + [k for k, _ in pairs][::-1]
    assert made.keys_among(asked) == [k for k in asked if k in want]
    assert made.keys_among([k for k in asked if 0 <= k < size]) == [k for k in asked if 0 <= k < size and k in want]


def _session(tmp_path):
    # a fork: the branch with the leaf first, whatever the file's order
    return Session.open(write(tmp_path / "s.jsonl", [
        user("u1", None, 1, "start"), assistant("a1", "u1", 2, "one"),
        user("u2", "a1", 3, "left"), assistant("a2", "u2", 4, "left reply"),
        user("u3", "a1", 5, "right"), assistant("a3", "u3", 6, "right reply"),
    ]))


def test_a_layout_crosses_with_its_arrays_and_without_them(tmp_path):
    s = _session(tmp_path)
    want = layout_tree(s, "default", frozenset())
    state = want.to_state()
    for got in (TreeLayout.from_state(state), TreeLayout.from_state(state, checked=False),
                TreeLayout.from_state({k: v for k, v in state.items() if k != "at"})):  # (an older pitui's)
        assert list(got.rows) == list(want.rows) and got.row_of == want.row_of
        assert list(got.visible_parent.items()) == list(want.visible_parent.items())
        assert got.visible_children == want.visible_children


def test_a_saved_layout_whose_arrays_point_outside_it_is_made_again(tmp_path):
    """A saved file's arrays are checked: a row or a parent out of range is not taken
    (the maps are made again from the rows and the parents' pairs)."""
    s = _session(tmp_path)
    want = layout_tree(s, "default", frozenset())
    state = want.to_state()
    row_at, vp_at = array("i"), array("i")
    row_at.frombytes(state["at"][0])
    vp_at.frombytes(state["at"][1])
    bad_rows = row_at[:]
    bad_rows[0] = len(want.rows) + 5
    bad_parents = vp_at[:]
    bad_parents[1] = 10_000
    for at in ((bad_rows.tobytes(), state["at"][1]), (state["at"][0], bad_parents.tobytes()), (b"\x01", b"")):
        got = TreeLayout.from_state({**state, "at": at})
        assert got.row_of == want.row_of and list(got.visible_parent.items()) == list(want.visible_parent.items())
