"""The sidebar's rows, worked out from the listed sessions: projects, then their sessions
(forks nested under the session they were forked from, subagent transcripts under the
session that ran them), filtered by what the user types.

A store can hold tens of thousands of sessions and the filter runs at every key, so what
does not depend on the filter is worked out once per list of sessions (:class:`SessionRows`):
each session's text to match, its place in the sort, the subagent runs; a key then only
filters that sorted list (a query that extends the last one filters the last result) and
groups what is left. :func:`build_items` is the one-shot form.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable

from ...core.model.summary import shorten_home
from ...core.store.listing import SessionInfo, subagent_parents
from ...core.text import visible

__all__ = ["Item", "LOOSE", "SORTS", "SessionRows", "Texts", "build_items", "make_texts"]

SORTS = ("recent", "name", "cost")
LOOSE = "\x00loose"  # project key of files outside project folders


@dataclass
class Item:
    kind: str  # "project" | "session"
    key: str  # project key, or the session file's path
    info: SessionInfo | None = None
    depth: int = 0  # fork and subagent nesting
    forked: bool = False  # forked from another session (nested or not)
    unlinked: bool = False  # a subagent transcript that no listed session records
    label: str = ""  # project: its cwd
    count: int = 0  # project: sessions shown
    collapsed: bool = False

    @property
    def height(self) -> int:
        return 1 if self.kind == "project" else 2


def _project_key(info: SessionInfo) -> str:
    return info.project or LOOSE


Texts = dict[str, tuple[tuple, str]]  # path -> (the file as read, its text to match)


def _stamp(info: SessionInfo) -> tuple:
    """The file as it was read: its text to match is the same while this is."""
    return (info.size, info.mtime_ns, info.error, info.kind, info.project)


def make_texts(infos: Iterable[SessionInfo], texts: Texts) -> None:
    """Each session's text to match into ``texts``, where missing or out of date (run ahead,
    off the UI thread, so that the first key typed into the filter does not make them)."""
    for i in infos:
        got = texts.get(i.path)
        stamp = _stamp(i)
        if got is None or got[0] != stamp:
            texts[i.path] = (stamp, _haystack(i))


def _haystack(info: SessionInfo) -> str:
    """What the filter's words are looked for in (all of them, anywhere, case folded)."""
    return " ".join(
        x
        for x in (
            info.name or "",
            info.first_message,
            info.cwd,
            info.project,
            info.model or "",
            info.id or "",
            os.path.basename(info.path),
            info.error or "",
            "subagent" if info.kind == "subagent" else "",
        )
        if x
    ).casefold()


_MEMO = 16  # filters' results kept (Backspace finds the shorter query's at once)


def _keep(memo: dict, key, value) -> None:
    """``memo[key] = value``, the oldest kept result dropped past :data:`_MEMO`."""
    if len(memo) >= _MEMO:
        del memo[next(iter(memo))]
    memo[key] = value


class SessionRows:
    """The rows of one list of sessions in one sort, for any filter (see the module)."""

    def __init__(self, infos: Iterable[SessionInfo], *, sort: str = "recent",
                 loose_label: str = "(no project folder)",
                 texts: Texts | None = None, costs: dict[str, float] | None = None) -> None:
        """``texts``: each session's text to match, kept by the caller from one list of
        sessions to the next (:func:`make_texts`). ``costs``: each session's cost by path,
        for the ``cost`` sort (costliest first; a session without one last)."""
        infos = list(infos)
        self.sort = sort
        self.costs = costs if costs is not None else {}
        self.loose_label = loose_label
        self._at = {id(i): k for k, i in enumerate(infos)}  # (ties broken as listed)
        self._runs = subagent_parents(infos)  # (all rows: a transcript whose parent is filtered out is not unlinked)
        if sort == "name":
            def key(i: SessionInfo):
                return (i.error is not None, (i.name or i.first_message).casefold(), i.path)
        elif sort == "cost":
            costs = self.costs

            def key(i: SessionInfo):
                return (i.error is not None, -costs.get(i.path, -1.0), -(i.modified_ms or 0), os.path.basename(i.path))
        else:
            def key(i: SessionInfo):
                return (i.error is not None, -(i.modified_ms or 0), os.path.basename(i.path))
        self._ranked = sorted(infos, key=key)
        # each project's candidates for its label, best first: the newest session's cwd (of
        # those readable and with one), the first listed on a tie; the label is the first
        # candidate the filter shows
        cands: dict[str, list[SessionInfo]] = {}
        for i in infos:
            if i.cwd and i.error is None:
                cands.setdefault(_project_key(i), []).append(i)
        for pk, ms in cands.items():
            ms.sort(key=lambda m: -(m.modified_ms or 0))  # (stable: ties as listed)
        self._label_from = cands
        self._items: dict[int, Item] = {}  # a session's row at depth 0 (rows are not changed once made)
        self._texts = texts if texts is not None else {}
        self._all_texts = False  # every listed session's text made
        self._memo: dict[tuple[str, bool], list[SessionInfo]] = {}  # (query, named_only) -> shown
        self._rows_memo: dict[tuple, list[Item]] = {}  # (query, named_only, collapsed) -> rows

    def _shown(self, query: str, named_only: bool) -> list[SessionInfo]:
        """The sessions the filter lets through, in the sort's order."""
        memo = self._memo
        got = memo.get((query, named_only))
        if got is not None:
            return got
        tokens = query.casefold().split()
        # from the result of the longest earlier query this one extends (a row holding
        # the longer query's words holds the shorter's), else from all
        pool, best = None, -1
        for (q, named), shown in memo.items():
            if named == named_only and len(q) > best and query.startswith(q):
                pool, best = shown, len(q)
        if pool is None:
            pool = self._ranked
            if named_only:
                pool = [i for i in pool if i.name and i.error is None]
        if tokens:
            texts = self._texts
            if not self._all_texts:
                make_texts(self._ranked, texts)
                self._all_texts = True
            if len(tokens) == 1:
                t = tokens[0]
                shown = [i for i in pool if t in texts[i.path][1]]
            else:
                shown = [i for i in pool if all(t in texts[i.path][1] for t in tokens)]
        else:
            shown = pool
        _keep(memo, (query, named_only), shown)
        return shown

    def items(self, query: str = "", *, named_only: bool = False,
              collapsed: set[str] | frozenset = frozenset()) -> list[Item]:
        key = (query, named_only, frozenset(collapsed))
        got = self._rows_memo.get(key)
        if got is None:
            got = self._items_of(self._shown(query, named_only), collapsed)
            _keep(self._rows_memo, key, got)
        return list(got)  # (the caller's own list)

    def _items_of(self, shown: list[SessionInfo], collapsed: set[str] | frozenset) -> list[Item]:
        runs = self._runs
        by_path = {i.path: i for i in shown}
        by_base: dict[str, SessionInfo] | None = None  # (made when a fork needs it)

        def parent_of(info: SessionInfo) -> SessionInfo | None:
            nonlocal by_base
            if info.kind == "subagent":
                ran = runs.get(info.path)
                p = by_path.get(ran.path) if ran is not None else None
            else:
                f = info.forked_from
                if not f:
                    return None
                p = by_path.get(f)
                if p is None:
                    if by_base is None:
                        by_base = {os.path.basename(i.path): i for i in shown}
                    p = by_base.get(os.path.basename(f))
            if p is None or p is info or _project_key(p) != _project_key(info):
                return None
            return p

        made = self._items

        def item(m: SessionInfo, depth: int) -> Item:
            if depth == 0:
                it = made.get(id(m))
                if it is not None:
                    return it
            it = Item("session", m.path, info=m, depth=depth, forked=bool(m.forked_from),
                      unlinked=m.kind == "subagent" and m.error is None and m.path not in runs)
            if depth == 0:
                made[id(m)] = it
            return it

        projects: dict[str, list[SessionInfo]] = {}  # (each in the sort's order already)
        for info in shown:
            pk = info.project or LOOSE
            members = projects.get(pk)
            if members is None:
                projects[pk] = [info]
            else:
                members.append(info)

        at = self._at
        label_from = self._label_from

        def project_label(pk: str) -> str:
            if pk == LOOSE:
                return self.loose_label
            for m in label_from.get(pk, ()):
                if by_path.get(m.path) is m:
                    return visible(shorten_home(m.cwd))
            return visible(pk)

        labels = {pk: project_label(pk) for pk in projects}
        # (projects that tie come in the order their first sessions were listed)
        first = {pk: min(map(at.__getitem__, map(id, members))) for pk, members in projects.items()}
        if self.sort == "name":
            order = sorted(projects, key=lambda pk: (pk == LOOSE, labels[pk].casefold(), first[pk]))
        elif self.sort == "cost":
            costs = self.costs
            order = sorted(projects, key=lambda pk: (-sum(costs.get(m.path, 0.0) for m in projects[pk]), first[pk]))
        else:
            order = sorted(
                projects,
                key=lambda pk: (
                    all(m.error is not None for m in projects[pk]),
                    -max((m.modified_ms or 0) for m in projects[pk]),
                    labels[pk],
                    first[pk],
                ),
            )

        out: list[Item] = []
        for pk in order:
            members = projects[pk]
            folded = pk in collapsed
            out.append(Item("project", pk, label=labels[pk], count=len(members), collapsed=folded))
            if folded:
                continue
            kids: dict[str, list[SessionInfo]] = {}
            top: list[SessionInfo] = []
            for m in members:
                p = parent_of(m) if m.forked_from or m.kind == "subagent" else None
                if p is None:
                    top.append(m)
                else:
                    kids.setdefault(p.path, []).append(m)
            if not kids:
                out.extend(item(m, 0) for m in top)
                continue
            emitted: set[str] = set()
            stack: list[tuple[SessionInfo, int]] = [(m, 0) for m in reversed(top)]
            while stack:
                m, depth = stack.pop()
                if m.path in emitted:
                    continue
                emitted.add(m.path)
                out.append(item(m, depth))
                for c in reversed(kids.get(m.path, [])):
                    stack.append((c, depth + 1))
            # Members only reachable through a fork cycle: list them flat.
            for m in members:
                if m.path not in emitted:
                    emitted.add(m.path)
                    out.append(item(m, 0))
        return out


def build_items(
    infos: Iterable[SessionInfo],
    *,
    query: str = "",
    sort: str = "recent",
    named_only: bool = False,
    collapsed: set[str] | frozenset = frozenset(),
    loose_label: str = "(no project folder)",
) -> list[Item]:
    """The sidebar's rows for one filter (see :class:`SessionRows`)."""
    return SessionRows(infos, sort=sort, loose_label=loose_label).items(
        query, named_only=named_only, collapsed=collapsed)
