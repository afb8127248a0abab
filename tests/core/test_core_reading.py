"""Pi's reading rules, one by one, and the places where pitui does better than Pi."""

from __future__ import annotations

import subprocess
import sys
import json

import pytest

from helpers import HEADER, assistant, entry, header, line, ts, user, write
from pitui.core.model.context import build_context
from pitui.core.read.session import NotASession, Session
from pitui.core.model.layout import layout_tree


def test_lines_split_on_newline_only(tmp_path):
    """U+2028, U+2029 and \\x85 occur raw inside JSON strings; they are not line breaks."""
    text = "a\u2028b\u2029c\x85d"
    p = write(tmp_path / "s.jsonl", [user("u1", None, 1, text)])
    s = Session.open(p)
    assert len(s) == 1
    assert s.message(0)["content"] == text


def test_crlf_blank_lines_and_bom(tmp_path):
    p = tmp_path / "s.jsonl"
    body = "\ufeff" + line(HEADER) + "\r\n\r\n   \n" + line(user("u1", None, 1)) + "\r\n"
    p.write_bytes(body.encode())
    s = Session.open(p)
    assert s.id == "sess-1"
    assert s.ids == ["u1"]
    assert s.warnings == []


def test_unparsable_line_is_skipped_with_its_line_number(tmp_path):
    p = write(tmp_path / "s.jsonl", [user("u1", None, 1), "{not json", assistant("a1", "u1", 2)])
    s = Session.open(p)
    assert s.ids == ["u1", "a1"]
    assert [(w.line, w.message) for w in s.warnings] == [(3, "line 3 is not valid JSON and is skipped")]


def test_partial_last_line_is_skipped_quietly_then_read_when_complete(tmp_path):
    full = line(assistant("a1", "u1", 2))
    p = write(tmp_path / "s.jsonl", [user("u1", None, 1), full[:40]], trailing_newline=False)
    s = Session.open(p)
    assert s.ids == ["u1"] and s.warnings == []
    with open(p, "a", encoding="utf-8") as f:  # Pi finishes writing the line
        f.write(full[40:] + "\n")
    assert s.refresh() == 1
    assert s.ids == ["u1", "a1"] and s.leaf == 1 and s.parent[1] == 0


def test_complete_last_line_without_newline_is_an_entry_and_not_duplicated(tmp_path):
    p = write(tmp_path / "s.jsonl", [user("u1", None, 1), assistant("a1", "u1", 2)], trailing_newline=False)
    s = Session.open(p)
    assert s.ids == ["u1", "a1"]
    with open(p, "a", encoding="utf-8") as f:
        f.write("\n" + line(user("u2", "a1", 3)) + "\n")
    s.refresh()
    assert s.ids == ["u1", "a1", "u2"]


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"", "empty file"),
        (b"\n\n", "no session header line (not a Pi session)"),
        (b"hello world\n", "no session header line (not a Pi session)"),
        (line(user("u1", None, 1)).encode() + b"\n", "line 1 should be a session header but is 'message' (not a Pi session)"),
        (b'{"type":"session","id":7}\n', "the session header on line 1 has no string id"),
        (b'{"id":"x"}\n', "line 1 should be a session header but is an object without a type (not a Pi session)"),
        (b'[1, 2]\n', "line 1 should be a session header but is a list (not a Pi session)"),
    ],
)
def test_not_a_session_has_a_one_line_reason(tmp_path, content, reason):
    p = tmp_path / "x.jsonl"
    p.write_bytes(content)
    with pytest.raises(NotASession) as exc:
        Session.open(p)
    assert exc.value.reason == reason
    assert "\n" not in exc.value.reason


def test_header_after_bad_lines_is_still_the_header(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_text("garbage\n" + line(HEADER) + "\n" + line(user("u1", None, 1)) + "\n")
    s = Session.open(p)
    assert s.ids == ["u1"]
    assert s.warnings[0].line == 1


def test_non_utf8_bytes_are_replaced_and_kept_with_a_warning(tmp_path):
    p = tmp_path / "s.jsonl"
    good = line(user("u1", None, 1, "caf\u00e9")).encode()
    bad = good.replace("caf\u00e9".encode(), b"caf\xe9")  # latin-1 byte
    p.write_bytes(line(HEADER).encode() + b"\n" + bad + b"\n")
    s = Session.open(p)
    assert s.ids == ["u1"]
    assert s.message(0)["content"] == "caf\ufffd"
    assert "not UTF-8" in s.warnings[0].message and s.warnings[0].line == 2


def test_later_duplicate_header_is_not_an_entry(tmp_path):
    p = write(tmp_path / "s.jsonl", [user("u1", None, 1), dict(HEADER, id="other"), assistant("a1", "u1", 2)])
    s = Session.open(p)
    assert s.ids == ["u1", "a1"] and s.id == "sess-1"


def test_unknown_types_and_roles_are_kept(tmp_path):
    p = write(
        tmp_path / "s.jsonl",
        [
            user("u1", None, 1),
            entry("future_thing", "f1", "u1", 2, payload={"x": 1}),
            {"type": "message", "id": "m1", "parentId": "f1", "timestamp": ts(3),
             "message": {"role": "oracle", "content": "?", "timestamp": 1}},
        ],
    )
    s = Session.open(p)
    assert s.types == ["message", "future_thing", "message"]
    assert s.roles[2] == "oracle"
    assert s.leaf == 2 and s.path_to(2) == [0, 1, 2]


class TestVersion1:
    def v1_file(self, tmp_path):
        legacy = header("legacy", "/x", ts(0), version=None, branchedFrom="/old/parent.jsonl")
        objs = [
            {"type": "message", "timestamp": ts(1), "message": {"role": "user", "content": "one", "timestamp": 1}},
            "broken line",
            {"type": "message", "timestamp": ts(2), "message": {"role": "hookMessage", "customType": "h", "content": "x", "display": True, "timestamp": 2}},
            {"type": "message", "timestamp": ts(3), "message": {"role": "user", "content": "two", "timestamp": 3}},
            {"type": "compaction", "timestamp": ts(4), "summary": "S", "firstKeptEntryIndex": 3, "tokensBefore": 5000},
            {"type": "message", "timestamp": ts(5), "message": {"role": "user", "content": "three", "timestamp": 5}},
        ]
        return write(tmp_path / "v1.jsonl", objs, header=legacy)

    def test_ids_are_a_chain_in_file_order_and_stable_across_loads(self, tmp_path):
        p = self.v1_file(tmp_path)
        a, b = Session.open(p), Session.open(p)
        assert a.ids == b.ids == ["line2", "line4", "line5", "line6", "line7"]
        assert a.parent == [-1, 0, 1, 2, 3]
        assert a.entry(1)["parentId"] == "line2"

    def test_hook_message_is_custom_and_first_kept_index_becomes_id(self, tmp_path):
        s = Session.open(self.v1_file(tmp_path))
        assert s.roles[1] == "custom" and s.message(1)["role"] == "custom"
        comp = s.entry(3)
        # index 3 counts the header and parsed lines only: header, one, hook, two -> "two"
        assert comp["firstKeptEntryId"] == "line5" and "firstKeptEntryIndex" not in comp
        ctx = build_context(s)
        assert [m["role"] for m in ctx["messages"]] == ["compactionSummary", "user", "user"]
        assert [m.get("content") for m in ctx["messages"][1:]] == ["two", "three"]

    def test_branched_from_is_an_old_name_of_parent_session(self, tmp_path):
        s = Session.open(self.v1_file(tmp_path))
        assert s.header["parentSession"] == "/old/parent.jsonl"


class TestTree:
    def test_roots_null_self_missing_and_orphans(self, tmp_path):
        objs = [
            user("a", None, 1),
            user("b", "b", 2),  # its own id
            {"type": "message", "id": "c", "timestamp": ts(3), "message": {"role": "user", "content": "c", "timestamp": 3}},
            user("d", "nowhere", 4),  # orphan
            user("e", "a", 5),
        ]
        s = Session.open(write(tmp_path / "s.jsonl", objs))
        assert s.roots == [0, 1, 2, 3]
        assert s.children == {0: [4]}
        assert any("parent nowhere not found" in w.message for w in s.tree_warnings)

    def test_children_sorted_by_timestamp_stable_for_ties(self, tmp_path):
        objs = [user("r", None, 1), user("late", "r", 9), user("tie1", "r", 5), user("early", "r", 2), user("tie2", "r", 5)]
        s = Session.open(write(tmp_path / "s.jsonl", objs))
        assert [s.ids[c] for c in s.children[0]] == ["early", "tie1", "tie2", "late"]
        assert s.leaf == 4  # the last entry in file order is the current leaf

    def test_labels_last_wins_and_empty_clears_names_trimmed(self, tmp_path):
        objs = [
            user("u1", None, 1),
            entry("label", "l1", "u1", 2, targetId="u1", label="first"),
            entry("label", "l2", "l1", 3, targetId="u1", label="second"),
            entry("label", "l3", "l2", 4, targetId="l1", label="gone"),
            entry("label", "l4", "l3", 5, targetId="l1", label=""),
            entry("session_info", "n1", "l4", 6, name="  My session  "),
        ]
        s = Session.open(write(tmp_path / "s.jsonl", objs))
        assert s.labels == {0: "second"}
        assert s.name == "My session"
        objs.append(entry("session_info", "n2", "n1", 7, name="   "))
        s = Session.open(write(tmp_path / "s.jsonl", objs))
        assert s.name is None

    def test_parent_cycle_is_broken_and_shown_as_a_root(self, tmp_path):
        """Pi's buildSessionPath loops forever on a parentId cycle (and getTree drops the
        entries). pitui breaks the cycle at its earliest entry, shows it as a root and warns."""
        objs = [user("r", None, 1), user("x", "y", 2), user("y", "x", 3), user("z", "y", 4)]
        s = Session.open(write(tmp_path / "s.jsonl", objs))
        assert s.roots == [0, 1]
        assert s.path_to(3) == [1, 2, 3]
        assert any("cycle" in w.message and w.line == 3 for w in s.tree_warnings)
        ctx = build_context(s)  # terminates, unlike Pi
        assert [m["content"] for m in ctx["messages"]] == ["hello"] * 3
        layout = layout_tree(s, "all")
        assert sorted(r.entry for r in layout.rows) == [0, 1, 2, 3]

    def test_a_tree_loaded_from_its_parents_has_the_same_children(self, tmp_path):
        """A session that crossed from a worker process (or the skeleton cache) carries
        only each entry's parent; its children, made from them when first asked for, are
        those of the tree built here, in the same order: with a cycle broken where the
        broken entry came first among its parent's children, duplicates, orphans, forks
        sorted by time."""
        objs = [user("r", None, 1), user("a", "r", 5), user("x", "y", 2), user("b", "r", 3), user("y", "x", 3),  # x <-> y
                user("z", "y", 4), user("dup", "r", 6), user("dup", "r", 7), user("o", "nowhere", 8),
                user("c", "r", 2), user("k", "dup", 9)]
        s = Session.open(write(tmp_path / "s.jsonl", objs))
        assert any("cycle" in w.message for w in s.tree_warnings) and s.shadowed
        loaded = Session.from_state(s.to_state())
        assert loaded._children is None  # not made while loading (private: a speed trick, no public face)
        assert loaded.children == s.children and list(loaded.children) == list(s.children)
        assert [s.ids[c] for c in s.children[0]] == ["c", "b", "a", "dup"]

    def test_self_parent_does_not_loop(self, tmp_path):
        """Pi treats parentId == id as a root in getTree but loops in buildSessionPath."""
        s = Session.open(write(tmp_path / "s.jsonl", [user("a", "a", 1)]))
        assert s.path_to(0) == [0]
        assert len(build_context(s)["messages"]) == 1

    def test_duplicate_ids_resolve_to_the_later_entry_with_a_warning(self, tmp_path):
        objs = [user("r", None, 1), user("dup", "r", 2, "old"), user("dup", "r", 3, "new"), user("kid", "dup", 4)]
        s = Session.open(write(tmp_path / "s.jsonl", objs))
        assert s.index_of["dup"] == 2 and s.shadowed == {1}
        assert s.children == {0: [2], 2: [3]}
        assert s.path_to(3) == [0, 2, 3]
        assert any("used again" in w.message for w in s.tree_warnings)

    def test_deep_chains_and_wide_forks_never_recurse(self, tmp_path):
        n_deep, n_wide = 60_000, 5_000
        p = tmp_path / "deep.jsonl"
        with open(p, "w") as f:
            f.write(line(HEADER) + "\n")
            f.write(line(user("e0", None, 0)) + "\n")
            for i in range(1, n_deep):
                f.write(line(user(f"e{i}", f"e{i-1}", i % 80000)) + "\n")
            for k in range(n_wide):
                f.write(line(user(f"w{k}", "e100", k % 80000)) + "\n")
        s = Session.open(p)
        assert len(s) == n_deep + n_wide
        assert len(s.path_to(n_deep - 1)) == n_deep
        # positions on a path: the kept ones when the path walked last ends there, made
        # otherwise (an ancestor's path, another branch's), never shared with the session
        for leaf in (n_deep - 1, n_deep - 1, 50, n_deep + 7, n_deep - 1):
            path, pos = s.path_positions(leaf)
            assert path == s.path_to(leaf) and pos == {x: k for k, x in enumerate(path)}
            assert len(pos) == len(path) and n_deep + n_wide not in pos and -1 not in pos
            with pytest.raises(TypeError):
                pos[-5] = 0  # (read-only: a caller cannot change the session's kept one)
        assert len(s.children[100]) == n_wide + 1
        layout = layout_tree(s, "default")
        assert len(layout.rows) == n_deep + n_wide
        assert len(build_context(s, n_deep - 1)["messages"]) == n_deep


def test_core_never_imports_textual():
    code = "import sys, pitui.core, pitui.core.read.session, pitui.core.model.context, pitui.core.store.listing, " \
           "pitui.core.model.layout, pitui.core.model.summary, pitui.core.model.stats, pitui.core.export.markdown, " \
           "pitui.core.export.json, pitui.core.store.discovery, pitui.cli; " \
           "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         timeout=120).stdout
    assert json.loads(out.replace("'", '"')) == []


def test_lazy_scan_equals_validating_scan_on_awkward_files(tmp_path):
    """The fast head-only scan gives exactly the validating scan's skeleton: lines longer
    than its buffer, CRLF, blank and white-space lines, a partial last line."""
    big = "x\\\"y\n" * 1_500_000  # ~9 MB of escaped output, bigger than the 4 MB buffer
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "cat big"}}
    objs = [
        user("u1", None, 1, "go"),
        assistant("a1", "u1", 2, content=[call], stopReason="toolUse"),
        {"type": "message", "id": "r1", "parentId": "a1", "timestamp": ts(3),
         "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                     "content": [{"type": "text", "text": big}], "isError": False, "timestamp": 3}},
        assistant("a2", "r1", 4, "   "),  # blank text: not shown in the tree
        assistant("a3", "a2", 5, content=[], stopReason="error", errorMessage="overloaded"),
        entry("label", "l1", "a3", 6, targetId="u1", label="start"),
        assistant("a4", "l1", 7, "done \\u2028 ok"),
    ]
    p = tmp_path / "s.jsonl"
    text = "\r\n".join([line(HEADER)] + [line(o) for o in objs[:3]]) + "\r\n \t \n\n"
    text += "\n".join(line(o) for o in objs[3:]) + "\n" + line(user("u9", "a4", 8))[:30]
    p.write_text(text, encoding="utf-8")
    lazy, full = Session.open(p, validate=False), Session.open(p, validate=True)
    for name in ("ids", "parent_ids", "types", "roles", "timestamps", "parent", "roots", "children"):
        assert getattr(lazy, name) == getattr(full, name), name
    for name in ("offsets", "lengths", "linenos"):
        assert list(getattr(lazy, name)) == list(getattr(full, name)), name
    assert [f & 3 for f in lazy.flags] == [f & 3 for f in full.flags] == [0, 0, 0, 0, 2, 0, 1]
    assert lazy.message(2)["content"][0]["text"] == big
    assert lazy.find_tool_call(2)[1]["id"] == "c1"
    assert lazy.labels == {0: "start"}
    assert lazy.validate_lazy_lines() == []
    # Pi finishes the last line; both paths pick it up once
    with open(p, "a", encoding="utf-8") as f:
        f.write(line(user("u9", "a4", 8))[30:] + "\n")
    assert lazy.refresh() == 1 and full.refresh(validate=True) == 1
    assert lazy.ids == full.ids and lazy.ids[-1] == "u9"


@pytest.mark.parametrize("version", [2, 3])
def test_quick_scan_columns_in_batches_equal_the_validating_scan(tmp_path, version):
    """The quick scan keeps the text fields of the lines it reads from their heads and
    decodes them a batch at a time (at each progress report, before a line it parses
    whole, at the end): the columns are those of the validating scan entry by entry, with
    lines parsed whole in between, ids and times with bytes that are not UTF-8, every
    role (a version 2 hookMessage is Pi's custom message), an id "null" beside a parentId
    null, and a last line still being written; each progress report sees every entry read
    so far."""
    header = dict(HEADER, version=version)
    rows = [line(header)]
    parent = None
    roles = ["user", "toolResult", "bashExecution", "custom", "hookMessage", "branchSummary", "compactionSummary"]
    for k in range(60):
        eid = f"e{k}"
        if k % 7 == 3:
            rows.append(line(entry("label", eid, parent, k, targetId="e0", label=f"L{k}")))
        elif k % 5 == 1:
            rows.append(line(assistant(eid, parent, k, f"answer {k}")))
        else:
            role = roles[k % len(roles)]
            rows.append(line({"type": "message", "id": eid, "parentId": parent, "timestamp": ts(k),
                              "message": {"role": role, "content": f"m{k}", "timestamp": 1}}))
        parent = eid
    data = ("\n".join(rows) + "\n").encode()
    # bytes that are not UTF-8 in an id (and its child's parent) and in a time, in lines read from their heads
    data = data.replace(b'"id":"e10"', b'"id":"e1\xff0"').replace(b'"parentId":"e10"', b'"parentId":"e1\xff0"')
    data = data.replace(ts(12).encode(), ts(12).encode()[:-2] + b"\xe2\x82Z")
    # an id that is the string "null" (its child's parent too), a root halfway (JSON null),
    # and an id ending in half a character (just before its closing quote)
    data = data.replace(b'"id":"e20"', b'"id":"null"').replace(b'"parentId":"e20"', b'"parentId":"null"')
    data = data.replace(b'"parentId":"e35"', b'"parentId":null')
    data = data.replace(b'"id":"e40"', b'"id":"e40\xe2\x82"').replace(b'"parentId":"e40"', b'"parentId":"e40\xe2\x82"')
    data += line(user("e60", "e59", 60)).encode()[:25]  # being written
    p = tmp_path / "s.jsonl"
    p.write_bytes(data)
    full = Session.open(p, validate=True)
    seen = []
    quick = Session(p)
    # private: progress every 300 bytes (open's is every 8 MB), read from the session as it is scanned
    quick._scan(validate=False, progress_every=300,
                progress=lambda done, size: seen.append((len(quick.ids), quick.columns(0, len(quick.ids)))))
    assert len(quick.ids) == 60 and "e1\ufffd0" in quick.ids
    assert quick.ids[20] == quick.parent_ids[21] == "null" and quick.parent_ids[36] is None
    assert quick.ids[40] == quick.parent_ids[41] == "e40\ufffd"
    assert ("hookMessage" in quick.roles) == (version == 3) and ("custom" in quick.roles) == (version == 2)
    for name in ("ids", "parent_ids", "types", "roles", "timestamps"):
        assert getattr(quick, name) == getattr(full, name), name
    for name in ("offsets", "lengths", "linenos"):
        assert list(getattr(quick, name)) == list(getattr(full, name)), name
    assert quick.scanned_to == full.scanned_to and quick.next_lineno == full.next_lineno
    assert len(seen) > 10 and [n for n, _ in seen] == sorted(n for n, _ in seen) and seen[-1][0] == 60
    for n, cols in seen:
        assert cols == quick.columns(0, n)


@pytest.mark.parametrize("shape", ["bom", "cr-lines", "blank-tail", "ws-partial-tail", "no-newline", "header-only",
                                   "header-partial", "header-cut", "tiny-chunks"])
def test_lazy_scan_reads_line_edges_as_the_validating_scan(tmp_path, monkeypatch, shape):
    """The quick scan's own line loop (blocks of whole lines) against the validating
    scan's, on the edges of lines: a BOM, lone carriage returns, blank lines at the end
    (where the next read starts: after the last line read, its line number next), a last
    line of white space or without its newline, a header alone or still being written,
    and lines cut across many small reads; read into a buffer and mapped (as the scan
    workers read)."""
    from pitui.core.read import lines as lines_module

    rows = [line(HEADER)] + [line(user(f"u{k}", f"u{k - 1}" if k else None, k + 1)) for k in range(6)]
    text = "\n".join(rows) + "\n"
    if shape == "bom":
        data = b"\xef\xbb\xbf" + text.encode()
    elif shape == "cr-lines":
        data = ("\r\n".join(rows[:3]) + "\r\n\r\n\r\n" + "\n".join(rows[3:]) + "\n").encode()
    elif shape == "blank-tail":
        data = (text + "\n  \n\t\n\n").encode()
    elif shape == "ws-partial-tail":
        data = (text + "   ").encode()
    elif shape == "no-newline":
        data = text.rstrip("\n").encode()
    elif shape == "header-only":
        data = (rows[0] + "\n").encode()
    elif shape == "header-partial":
        data = rows[0].encode()  # whole, its newline not written yet
    elif shape == "header-cut":
        data = rows[0][:-1].encode()
    else:
        monkeypatch.setattr(lines_module, "CHUNK", 7)
        monkeypatch.setattr(lines_module, "MAPPED_WINDOW", 7)
        data = text.encode()
    p = tmp_path / "s.jsonl"
    p.write_bytes(data)
    got = []
    for how in ("quick", "validating", "quick-mapped"):
        try:
            s = Session(p)
            # private: the mapped read is the workers' (no public open takes it), and whether
            # the last line is unterminated (_pending_partial) shows only in the next read
            s._scan(validate=how == "validating", mapped=how == "quick-mapped")
        except NotASession as exc:
            got.append(("not a session", exc.reason))
            continue
        got.append((s.ids, list(s.offsets), list(s.lengths), list(s.linenos), s.scanned_to, s.next_lineno,
                    s._pending_partial, [(w.line, w.message) for w in s.all_warnings]))
    assert got[0] == got[1] == got[2]
    if shape in ("blank-tail", "tiny-chunks", "bom"):
        assert got[0][0] == [f"u{k}" for k in range(6)] and got[0][4] == len(data.rstrip(b" \t\n")) + 1
    if shape == "header-partial":
        assert got[0][0] == [] and got[0][4] == 0  # the header is read again, whole, next time
    if shape == "header-cut":
        assert got[0][0] == "not a session"


def test_mapped_blocks_are_the_read_blocks(tmp_path, monkeypatch):
    """The workers' mapped reading yields the same blocks of whole lines as reading into a
    buffer (from a start, up to a stop, with lines longer than its window), from the
    mapping itself; a file that cannot be mapped (empty) is read the usual way."""
    import mmap

    from pitui.core.read import lines as lines_module
    from pitui.core.read.lines import iter_line_blocks

    monkeypatch.setattr(lines_module, "MAPPED_WINDOW", 64)
    p = tmp_path / "s.jsonl"
    p.write_bytes(b"".join(b"x" * (k * 37 % 150) + b"\n" for k in range(40)) + b"tail")

    def lines_of(start, stop, mapped):
        out, kinds = [], set()
        with open(p, "rb") as f:
            for buf, pos, limit, base, whole in iter_line_blocks(f, start, stop, mapped=mapped):
                kinds.add(type(buf))
                out.append((base + pos, bytes(buf[pos:limit]), whole))
        return b"".join(b for _, b, _ in out), out[0][0] if out else None, out[-1][2] if out else None, kinds

    size = p.stat().st_size
    for start, stop in ((0, None), (38, None), (38, 2000), (0, size - 2)):
        read, mapped = lines_of(start, stop, False), lines_of(start, stop, True)
        assert read[:3] == mapped[:3]
        assert mapped[3] == {mmap.mmap}
    e = tmp_path / "empty.jsonl"
    e.write_bytes(b"")
    with open(e, "rb") as f:
        assert list(iter_line_blocks(f, mapped=True)) == []


def test_lazy_scan_flags_a_damaged_line_when_validated(tmp_path):
    """A line in Pi's shape but not valid JSON is read lazily, then marked damaged by the
    background validation (never silently dropped)."""
    good = line(user("u2", "u1", 2, "text"))
    damaged = good.replace('"content":"text"', '"content":"te"xt"')
    p = write(tmp_path / "s.jsonl", [user("u1", None, 1), damaged])
    s = Session.open(p, validate=False)
    assert s.ids == ["u1", "u2"]
    assert s.validate_lazy_lines() == [1]
    assert any("line 3 is damaged" in w.message for w in s.warnings)
    assert "pituiError" in s.entry(1)


def test_filter_masks_follow_pis_rules_entry_by_entry(corpus_root, tmp_path):
    """The tree's filters, worked out a whole column at a time, show exactly the entries
    Pi's rules (is_shown) show, one by one, in every corpus session and in one with the
    awkward cases: a tool-call-only assistant as the leaf (shown) and elsewhere (hidden),
    an aborted one (shown), settings and usage entries, a shadowed duplicate id."""
    from pitui.core.model.layout import FILTERS, _shown_mask, is_shown

    objs = [
        user("u1", None, 1),
        assistant("a1", "u1", 2, content=[{"type": "toolCall", "id": "c1", "name": "ls", "arguments": {}}],
                  stopReason="toolUse"),
        entry("model_change", "m1", "a1", 3, provider="p", modelId="m"),
        assistant("a2", "m1", 4, content=[], stopReason="aborted"),
        entry("usage", "g1", "a2", 5),
        user("u1", "g1", 6),  # the same id again: the first one is shadowed
        assistant("a3", "u1", 7, content=[{"type": "toolCall", "id": "c2", "name": "ls", "arguments": {}}],
                  stopReason="toolUse"),
    ]
    odd = write(tmp_path / "odd.jsonl", objs)
    sessions = [Session.open(odd, validate=False)]
    sessions += [Session.open(p, validate=False) for p in sorted(corpus_root.glob("*/*.jsonl"))]
    assert len(sessions) > 20
    for s in sessions:
        for mode in FILTERS:
            want = bytearray(int(is_shown(s, i, mode) and i not in s.shadowed) for i in range(len(s)))
            assert _shown_mask(s, mode) == want, (s.path, mode)
    s = sessions[0]
    assert list(_shown_mask(s, "default")) == [0, 0, 0, 1, 0, 1, 1]
