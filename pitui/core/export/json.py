"""``pitui export --format json``: the session's structure and context as one object.

What it holds is what pitui read, not the file's bytes (``Session.raw_line`` has those):

* ``header``: the session header, normalised (:func:`pitui.core.read.normalize.normalize_header`:
  a ``cwd``, ``parentSession`` or ``version`` of the wrong type is left out, a number
  ``timestamp`` is its ISO string).
* ``entries``: every entry's skeleton, ``id``/``parentId``/``type``/``timestamp``, as pitui
  names them: ids are strings (a number id is its JSON text, ``5`` as ``"5"``; an entry
  with no id Pi could match is ``line<N>``), ``parentId`` a string or null, ``type`` a
  string (``"(no type)"`` when it was not one), ``timestamp`` an ISO string or null.
* ``leafId``, ``selectedLeafId``, ``roots``, ``children``, ``labels``, ``name``: the tree
  as pitui builds it (Pi's ``getTree``), by those ids.
* ``context``: Pi's ``buildSessionContext`` at the selected leaf, built from the normalised
  entries (:meth:`Session.entry`): a field of the wrong type is absent there (its warning
  says so), so the messages hold only fields of the types Pi's format gives them.
* ``warnings``: ``{line, message}`` for every problem found while reading (lines skipped,
  fields of the wrong type, broken text), the whole file's, sorted by line.
"""

from __future__ import annotations

from ..model.context import build_context
from ..read.session import Session

__all__ = ["export_json", "resolve_leaf"]


def resolve_leaf(session: Session, leaf_id: str | None) -> int:
    """The entry index for ``--leaf ID`` (the current leaf when None). Raises KeyError."""
    if leaf_id is None:
        return session.leaf
    index = session.index_of.get(leaf_id)
    if index is None:
        raise KeyError(leaf_id)
    return index


def export_json(session: Session, leaf_id: str | None = None) -> dict:
    """The export object (see the module docstring) of ``session`` at ``leaf_id`` (the
    current leaf when None). Every entry's fields are checked first, so ``warnings`` is the
    whole file's. Raises KeyError for an unknown ``leaf_id``."""
    session.validate_lazy_lines()
    leaf = resolve_leaf(session, leaf_id)
    ids = session.ids
    entries = [
        {"id": ids[index], "parentId": session.parent_ids[index], "type": session.types[index], "timestamp": session.timestamps[index]}
        for index in range(len(ids))
    ]
    children = {ids[parent]: [ids[child] for child in kids] for parent, kids in session.children.items()}
    return {
        "path": session.path,
        "header": session.header,
        "entries": entries,
        "leafId": ids[session.leaf] if session.leaf >= 0 else None,
        "selectedLeafId": ids[leaf] if leaf >= 0 else None,
        "roots": [ids[root] for root in session.roots],
        "children": children,
        "labels": {ids[index]: label for index, label in sorted(session.labels.items())},
        "name": session.name,
        "context": build_context(session, leaf),
        "warnings": [warning.to_json() for warning in session.all_warnings],
    }
