"""``pitui export --format json``: the session's structure and context as one object."""

from __future__ import annotations

from ..model.context import build_context
from ..read.session import Session

__all__ = ["export_json", "resolve_leaf"]


def resolve_leaf(session: Session, leaf_id: str | None) -> int:
    """The entry index for ``--leaf ID`` (the current leaf when None). Raises KeyError."""
    if leaf_id is None:
        return session.leaf
    i = session.index_of.get(leaf_id)
    if i is None:
        raise KeyError(leaf_id)
    return i


def export_json(session: Session, leaf_id: str | None = None) -> dict:
    leaf = resolve_leaf(session, leaf_id)
    ids = session.ids
    entries = [
        {"id": ids[i], "parentId": session.parent_ids[i], "type": session.types[i], "timestamp": session.timestamps[i]}
        for i in range(len(ids))
    ]
    children = {ids[p]: [ids[c] for c in kids] for p, kids in session.children.items()}
    return {
        "path": session.path,
        "header": session.header,
        "entries": entries,
        "leafId": ids[session.leaf] if session.leaf >= 0 else None,
        "selectedLeafId": ids[leaf] if leaf >= 0 else None,
        "roots": [ids[r] for r in session.roots],
        "children": children,
        "labels": {ids[i]: label for i, label in sorted(session.labels.items())},
        "name": session.name,
        "context": build_context(session, leaf),
        "warnings": [w.to_json() for w in session.all_warnings],
    }
