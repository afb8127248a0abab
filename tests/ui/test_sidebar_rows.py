"""The sidebar's rows at scale (ui/widgets/session_rows.py): worked out once per list of
sessions and filtered at each key, they must be exactly what the plain rule gives (below,
``spec_items``: every row recomputed from all sessions for each filter) for any sessions
and any sequence of filters a user types: letters added, Backspace, named only, folded
projects, either sort."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitui.core.model.summary import shorten_home
from pitui.core.store.listing import SessionInfo, subagent_parents
from pitui.core.text import visible
from pitui.ui.widgets.session_rows import LOOSE, Item, SessionRows, make_texts


# ------------------------------------------------------------------ the rule, written plainly
def _matches(info: SessionInfo, tokens: list[str]) -> bool:
    hay = " ".join(x for x in (info.name or "", info.first_message, info.cwd, info.project, info.model or "",
                               info.id or "", os.path.basename(info.path), info.error or "",
                               "subagent" if info.kind == "subagent" else "") if x).casefold()
    return all(t in hay for t in tokens)


def spec_items(infos, *, query="", sort="recent", named_only=False, collapsed=frozenset(),
               loose_label="(no project folder)") -> list[Item]:
    tokens = query.casefold().split()
    shown = [i for i in infos if _matches(i, tokens) and (not named_only or (i.name and i.error is None))]
    by_path = {i.path: i for i in shown}
    by_base = {os.path.basename(i.path): i for i in shown}
    runs = subagent_parents(infos)
    pkey = lambda i: i.project or LOOSE  # noqa: E731

    def parent_of(info):
        if info.kind == "subagent":
            ran = runs.get(info.path)
            p = by_path.get(ran.path) if ran is not None else None
        else:
            if not info.forked_from:
                return None
            p = by_path.get(info.forked_from) or by_base.get(os.path.basename(info.forked_from))
        if p is None or p is info or pkey(p) != pkey(info):
            return None
        return p

    if sort == "name":
        key = lambda i: (i.error is not None, (i.name or i.first_message).casefold(), i.path)  # noqa: E731
    else:
        key = lambda i: (i.error is not None, -(i.modified_ms or 0), os.path.basename(i.path))  # noqa: E731
    projects: dict[str, list] = {}
    for info in shown:
        projects.setdefault(pkey(info), []).append(info)

    def label(pk, members):
        if pk == LOOSE:
            return loose_label
        for m in sorted(members, key=lambda i: -(i.modified_ms or 0)):
            if m.cwd and m.error is None:
                return visible(shorten_home(m.cwd))
        return visible(pk)

    labels = {pk: label(pk, ms) for pk, ms in projects.items()}
    if sort == "name":
        order = sorted(projects, key=lambda pk: (pk == LOOSE, labels[pk].casefold()))
    else:
        order = sorted(projects, key=lambda pk: (all(m.error is not None for m in projects[pk]),
                                                 -max((m.modified_ms or 0) for m in projects[pk]), labels[pk]))
    out = []
    for pk in order:
        members = sorted(projects[pk], key=key)
        out.append(Item("project", pk, label=labels[pk], count=len(members), collapsed=pk in collapsed))
        if pk in collapsed:
            continue
        kids: dict[str, list] = {}
        top = []
        for m in members:
            p = parent_of(m)
            (top if p is None else kids.setdefault(p.path, [])).append(m)
        emitted: set[str] = set()
        stack = [(m, 0) for m in reversed(top)]
        while stack:
            m, depth = stack.pop()
            if m.path in emitted:
                continue
            emitted.add(m.path)
            out.append(Item("session", m.path, info=m, depth=depth, forked=bool(m.forked_from),
                            unlinked=m.kind == "subagent" and m.error is None and m.path not in runs))
            stack.extend((c, depth + 1) for c in reversed(kids.get(m.path, [])))
        for m in members:
            if m.path not in emitted:
                emitted.add(m.path)
                out.append(Item("session", m.path, info=m, depth=0, forked=bool(m.forked_from),
                                unlinked=m.kind == "subagent" and m.error is None and m.path not in runs))
    return out


# ------------------------------------------------------------------ random stores
WORDS = ["fix", "parser", "Refactor", "ÉTÉ", "ß", "a b", ""]


@st.composite
def stores(draw):
    n = draw(st.integers(0, 14))
    names = [f"s{k}" for k in range(n)]
    infos = []
    for k, name in enumerate(names):
        project = draw(st.sampled_from(["--p--", "--q--", "--r--", ""]))
        folder = f"/store/{project or 'loose'}"
        kind = draw(st.sampled_from(["session", "session", "subagent"]))
        path = f"{folder}/subagent-artifacts/{name}.jsonl" if kind == "subagent" else f"{folder}/{name}.jsonl"
        error = draw(st.sampled_from([None, None, None, "empty file"]))
        fork = draw(st.one_of(st.none(), st.sampled_from(names)))
        forked_from = None if fork is None else draw(st.sampled_from([f"{folder}/{fork}.jsonl",
                                                                        f"/elsewhere/{fork}.jsonl"]))
        infos.append(SessionInfo(
            path, project=project, kind=kind, id=name, error=error,
            cwd=draw(st.sampled_from(["", "/home/u/p", "/home/u/q", "/tmp/x"])),
            name=draw(st.one_of(st.none(), st.sampled_from(WORDS))),
            first_message=draw(st.sampled_from(WORDS)) + " " + draw(st.sampled_from(WORDS)),
            model=draw(st.one_of(st.none(), st.just("claude"))),
            modified_ms=draw(st.one_of(st.none(), st.sampled_from([1000.0, 2000.0, 3000.0]))),  # (ties on purpose)
            forked_from=forked_from,
            subagent_transcripts=[p for p in draw(st.lists(st.sampled_from(names), max_size=2))
                                  for p in (f"{folder}/subagent-artifacts/{p}.jsonl",)],
        ))
    return infos


typing = st.lists(st.one_of(st.sampled_from(list("fixparseréb ")).map(lambda c: ("type", c)),
                            st.just(("backspace", None)), st.just(("named", None)),
                            st.sampled_from(["--p--", "--q--", ""]).map(lambda p: ("fold", p or LOOSE))),
                  max_size=12)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(stores(), typing, st.sampled_from(["recent", "name"]))
def test_rows_for_any_filter_typed_equal_the_plain_rule(infos, keys, sort):
    rows = SessionRows(infos, sort=sort, loose_label="(loose)")
    query, named, collapsed = "", False, set()
    assert rows.items() == spec_items(infos, sort=sort, loose_label="(loose)")
    for key, arg in keys:
        if key == "type":
            query += arg
        elif key == "backspace":
            query = query[:-1]
        elif key == "named":
            named = not named
        else:
            collapsed ^= {arg}
        got = rows.items(query, named_only=named, collapsed=collapsed)
        assert got == spec_items(infos, query=query, sort=sort, named_only=named, collapsed=frozenset(collapsed),
                                 loose_label="(loose)")


def test_texts_made_ahead_are_used_and_a_changed_file_gets_its_own_again():
    a = SessionInfo("/s/--p--/a.jsonl", project="--p--", id="a", cwd="/p", first_message="alpha", size=10)
    texts: dict = {}
    make_texts([a], texts)
    assert SessionRows([a], texts=texts).items("alpha")[1].info is a
    # the same file grown (a new first message is impossible, but a name can come): a new text
    b = SessionInfo(a.path, project="--p--", id="a", cwd="/p", first_message="alpha", name="beta", size=20)
    assert [it.info for it in SessionRows([b], texts=texts).items("beta")][1:] == [b]
    # rows are the caller's own list: changing it does not change the next answer
    rows = SessionRows([b], texts=texts)
    first = rows.items()
    first.clear()
    assert len(rows.items()) == 2
