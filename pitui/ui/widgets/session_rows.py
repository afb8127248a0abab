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
from typing import TYPE_CHECKING, Iterable

from ...core.model.summary import shorten_home
from ...core.text import visible

if TYPE_CHECKING:
    from ...core.store.listing import SessionInfo

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
    for info in infos:
        got = texts.get(info.path)
        stamp = _stamp(info)
        if got is None or got[0] != stamp:
            texts[info.path] = (stamp, _haystack(info))


def _haystack(info: SessionInfo) -> str:
    """What the filter's words are looked for in (all of them, anywhere, case folded)."""
    return " ".join(
        part
        for part in (
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
        if part
    ).casefold()


_MEMO = 16  # filters' results kept (Backspace finds the shorter query's at once)


def _keep(memo: dict, key, value) -> None:
    """``memo[key] = value``, the oldest kept result dropped past :data:`_MEMO`."""
    if len(memo) >= _MEMO:
        del memo[next(iter(memo))]
    memo[key] = value


def _subagent_parents(infos: list[SessionInfo]) -> dict[str, SessionInfo]:
    # (the sidebar's first, empty rows are made before anything is listed: the listing's
    # code is loaded with the first rows listed)
    if not infos:
        return {}
    from ...core.store.session_info import subagent_parents

    return subagent_parents(infos)


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
        self._at = {id(info): index for index, info in enumerate(infos)}  # (ties broken as listed)
        self._runs = _subagent_parents(infos)  # (all rows: a transcript whose parent is filtered out is not unlinked)
        if sort == "name":
            def key(info: SessionInfo):
                return (info.error is not None, (info.name or info.first_message).casefold(), info.path)
        elif sort == "cost":
            costs = self.costs

            def key(info: SessionInfo):
                return (info.error is not None, -costs.get(info.path, -1.0), -(info.modified_ms or 0), os.path.basename(info.path))
        else:
            def key(info: SessionInfo):
                return (info.error is not None, -(info.modified_ms or 0), os.path.basename(info.path))
        self._ranked = sorted(infos, key=key)
        # each project's candidates for its label, best first: the newest session's cwd (of
        # those readable and with one), the first listed on a tie; the label is the first
        # candidate the filter shows
        cands: dict[str, list[SessionInfo]] = {}
        for info in infos:
            if info.cwd and info.error is None:
                cands.setdefault(_project_key(info), []).append(info)
        for pk, ms in cands.items():
            ms.sort(key=lambda info: -(info.modified_ms or 0))  # (stable: ties as listed)
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
        for (memo_query, named), shown in memo.items():
            if named == named_only and len(memo_query) > best and query.startswith(memo_query):
                pool, best = shown, len(memo_query)
        if pool is None:
            pool = self._ranked
            if named_only:
                pool = [info for info in pool if info.name and info.error is None]
        if tokens:
            texts = self._texts
            if not self._all_texts:
                make_texts(self._ranked, texts)
                self._all_texts = True
            if len(tokens) == 1:
                token = tokens[0]
                shown = [info for info in pool if token in texts[info.path][1]]
            else:
                shown = [info for info in pool if all(token in texts[info.path][1] for token in tokens)]
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
        by_path = {info.path: info for info in shown}
        by_base: dict[str, SessionInfo] | None = None  # (made when a fork needs it)

        def parent_of(info: SessionInfo) -> SessionInfo | None:
            nonlocal by_base
            if info.kind == "subagent":
                ran = runs.get(info.path)
                parent = by_path.get(ran.path) if ran is not None else None
            else:
                forked_from = info.forked_from
                if not forked_from:
                    return None
                parent = by_path.get(forked_from)
                if parent is None:
                    if by_base is None:
                        by_base = {os.path.basename(info.path): info for info in shown}
                    parent = by_base.get(os.path.basename(forked_from))
            if parent is None or parent is info or _project_key(parent) != _project_key(info):
                return None
            return parent

        made = self._items

        def item(info: SessionInfo, depth: int) -> Item:
            if depth == 0:
                it = made.get(id(info))
                if it is not None:
                    return it
            it = Item("session", info.path, info=info, depth=depth, forked=bool(info.forked_from),
                      unlinked=info.kind == "subagent" and info.error is None and info.path not in runs)
            if depth == 0:
                made[id(info)] = it
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
            for member in label_from.get(pk, ()):
                if by_path.get(member.path) is member:
                    return visible(shorten_home(member.cwd))
            return visible(pk)

        labels = {pk: project_label(pk) for pk in projects}
        # (projects that tie come in the order their first sessions were listed)
        first = {pk: min(map(at.__getitem__, map(id, members))) for pk, members in projects.items()}
        if self.sort == "name":
            order = sorted(projects, key=lambda pk: (pk == LOOSE, labels[pk].casefold(), first[pk]))
        elif self.sort == "cost":
            costs = self.costs
            order = sorted(projects, key=lambda pk: (-sum(costs.get(member.path, 0.0) for member in projects[pk]), first[pk]))
        else:
            order = sorted(
                projects,
                key=lambda pk: (
                    all(member.error is not None for member in projects[pk]),
                    -max((member.modified_ms or 0) for member in projects[pk]),
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
            for member in members:
                parent = parent_of(member) if member.forked_from or member.kind == "subagent" else None
                if parent is None:
                    top.append(member)
                else:
                    kids.setdefault(parent.path, []).append(member)
            if not kids:
                out.extend(item(member, 0) for member in top)
                continue
            emitted: set[str] = set()
            stack: list[tuple[SessionInfo, int]] = [(member, 0) for member in reversed(top)]
            while stack:
                member, depth = stack.pop()
                if member.path in emitted:
                    continue
                emitted.add(member.path)
                out.append(item(member, depth))
                for child in reversed(kids.get(member.path, [])):
                    stack.append((child, depth + 1))
            # Members only reachable through a fork cycle: list them flat.
            for member in members:
                if member.path not in emitted:
                    emitted.add(member.path)
                    out.append(item(member, 0))
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
