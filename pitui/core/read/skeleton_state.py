"""A session's skeleton as plain data: for the worker processes that read a big file in
parts or whole (:mod:`pitui.core.open.parallel`), and for the skeleton cache
(:mod:`pitui.core.open.skeleton_cache`).

Three shapes: a part of a file scanned by a worker (:func:`scan_part`, appended in order by
:func:`add_parts`); the whole session, compact to pickle and quick to load
(:func:`to_state`, :func:`from_state`: lists of numbers travel as arrays and the dicts that
follow from them are made again with C-level zips; a plain pickle of the tree took 3x longer
to load than to build); and a whole file streamed while a worker reads it: its entries in
chunks (:func:`columns`, appended with :func:`extend_columns`), then the rest of what it
learnt (:func:`rest_state`) and its tree (:func:`tree_state`), taken by
:func:`finish_stream`. A scan only ever appends entries, so chunks taken during it stay true.

Each function takes the session (a :class:`~.session.Session`) first, unannotated: this
module does not import the facade that calls it (no import circle, even for type checking).
"""

from __future__ import annotations

from array import array
from typing import Callable

from .lines import read_span
from .scan import replay_labels_and_name
from .skeleton import INDEX_CODE
from .tree import damaged_entries, index_ids, positions_of

__all__ = ["scan_part", "add_parts", "to_state", "from_state", "tree_state", "load_tree_state", "columns",
           "extend_columns", "rest_state", "finish_stream"]

# what the state of a whole session leaves out (locks, caches, and what is made again)
STATE_SKIP = frozenset({"_lock", "_path_lock", "_cache", "_path_tree", "_path", "_path_pos",
                        "index_of", "parent", "_children", "_calls_found"})
# the tree's part of it (:func:`tree_state`)
TREE_STATE = ("roots", "shadowed", "leaf", "tree_warnings", "parent", "walked_path")
# the skeleton's columns, one slot per entry
COLUMNS = ("ids", "parent_ids", "types", "roles", "timestamps", "offsets", "lengths", "linenos", "flags")


def scan_part(session_class, path: str, start: int, stop: int | None, version: int,
              progress: Callable[[int, int], None] | None = None, *, mapped: bool = False) -> dict:
    """Scan the lines in ``[start, stop)`` (to the end of the file when ``stop`` is
    None) of a file whose header was read elsewhere; line numbers count from 1 at
    ``start``. The result is plain data for :func:`add_parts` (see
    :mod:`pitui.core.open.parallel`): the skeleton of the part, its warnings, how many
    lines it spans, and whether it ended where it should (a file rewritten meanwhile
    does not)."""
    session = session_class(path)
    session.header = {"type": "session"}  # a stand-in: the caller holds the real header
    session.version = version
    session.scanned_to = start
    session.next_lineno = 1
    session._scan(validate=False, progress=progress, stop=stop, build=False, mapped=mapped)
    ok = True
    lines = session.next_lineno - 1
    if stop is not None:
        # The part must end with whole lines; count the newlines of trailing blank ones.
        tail = read_span(path, session.scanned_to, stop - session.scanned_to) if session.scanned_to < stop else b""
        if session._pending_partial is not None or len(tail) != stop - session.scanned_to or tail.strip():
            ok = False
        lines += tail.count(b"\n")
    return {
        "ok": ok,
        "start": start,
        "stop": stop,
        "ids": session.ids,
        "parent_ids": session.parent_ids,
        "types": session.types,
        "roles": session.roles,
        "timestamps": session.timestamps,
        "offsets": session.offsets.tobytes(),
        "lengths": session.lengths.tobytes(),
        "linenos": session.linenos.tobytes(),
        "flags": bytes(session.flags),
        "warnings": [(warning.line, warning.message) for warning in session.warnings],
        "lines": lines,
        "scanned_to": session.scanned_to,
        "next_lineno": session.next_lineno,
        "pending_partial": session._pending_partial,
        "file_size": session.file_size,
        "file_mtime": session.file_mtime,
        "file_id": (session.file_dev, session.file_ino, session.file_mtime_ns),
    }


def to_state(session) -> dict:
    """This session (skeleton, tree, the last path walked) for :func:`from_state`."""
    state = {key: value for key, value in session.__dict__.items() if key not in STATE_SKIP}
    state.update(tree_state(session))
    return state


def tree_state(session) -> dict:
    """The tree (and the last path walked in it) as compact plain data: the parent of
    each entry (its children follow from it, see :attr:`Session.children`)."""
    return {
        "roots": session.roots,
        "shadowed": session.shadowed,
        "leaf": session.leaf,
        "tree_warnings": session.tree_warnings,
        "parent": array(INDEX_CODE, session.parent).tobytes(),
        "walked_path": array(INDEX_CODE, session._path if session._path_tree is session.parent else ()).tobytes(),
    }


def load_tree_state(session, state: dict, index_of: dict[str, int] | None = None) -> None:
    """Take the tree :func:`tree_state` made (``index_of``: the ids' index, when made already)."""
    parent = array(INDEX_CODE)
    parent.frombytes(state["parent"])
    path = array(INDEX_CODE)
    path.frombytes(state["walked_path"])
    session.roots, session.shadowed = state["roots"], state["shadowed"]
    session.leaf, session.tree_warnings = state["leaf"], state["tree_warnings"]
    session.index_of = index_ids(session.ids, damaged_entries(session)) if index_of is None else index_of
    session.parent = parent.tolist()
    # made when first asked for (54,000 lists of a big session cost its open ~20 ms,
    # and its first screen does not need them)
    session._children = None
    if path:
        session._path_tree = session.parent
        session._path = path.tolist()
        session._path_pos = positions_of(session._path, len(session.parent))


def from_state(session_class, state: dict):
    """The session (a ``session_class``) :func:`to_state` made ``state`` of."""
    session = session_class(state["path"])
    session.__dict__.update({key: value for key, value in state.items() if key not in TREE_STATE})
    load_tree_state(session, state)
    return session


def columns(session, start: int, stop: int) -> tuple:
    """Entries ``start..stop-1`` as plain data for :func:`extend_columns`. A parent id
    that is the id of an entry of the same chunk is given as that very string, so that
    pickle sends it once and the other side keeps one string for both (most parents are
    the entry just before)."""
    ids = session.ids[start:stop]
    same = dict(zip(ids, ids))
    parents = [same.get(pid, pid) for pid in session.parent_ids[start:stop]]
    return (ids, parents, session.types[start:stop],
            session.roles[start:stop], session.timestamps[start:stop], session.offsets[start:stop].tobytes(),
            session.lengths[start:stop].tobytes(), session.linenos[start:stop].tobytes(),
            bytes(session.flags[start:stop]))


def extend_columns(session, chunk: tuple) -> None:
    """Append entries sent by :func:`columns` (the next ones in file order)."""
    ids, pids, types, roles, ts, offsets, lengths, linenos, flags = chunk
    n0 = len(session.ids)
    session.ids += ids
    # indexed as they come (a later duplicate wins, as in _build_tree): the tree that
    # follows the chunks finds it made
    session.index_of.update(zip(ids, range(n0, n0 + len(ids))))
    session.parent_ids += pids
    session.types += types
    session.roles += roles
    session.timestamps += ts
    session.offsets.frombytes(offsets)
    session.lengths.frombytes(lengths)
    session.linenos.frombytes(linenos)
    session.flags += flags


def rest_state(session) -> dict:
    """All a scan learnt besides its entries (header, warnings, labels, name, where it
    stopped...) and its tree, for :func:`finish_stream`."""
    skip = STATE_SKIP | set(COLUMNS) | set(TREE_STATE)
    return {key: value for key, value in session.__dict__.items() if key not in skip}


def finish_stream(session, rest: dict, tree: dict) -> None:
    """Take the rest of a streamed scan (after all its chunks) and its tree
    (:func:`tree_state`)."""
    index_of = session.index_of  # (made by extend_columns)
    session.__dict__.update(rest)
    load_tree_state(session, tree, index_of)


def add_parts(session, parts: list[dict]) -> None:
    """Append the results of :func:`scan_part` (in file order, the first starting at
    ``scanned_to``) and build the tree: the same session a sequential scan reads.
    A part that met anything out of the ordinary (a warning, whose text and ids may
    depend on absolute line numbers) is read again here, in order. Parts that are not
    ``ok`` must not be passed (the caller reads the file the usual way instead)."""
    for part in parts:
        base = session.next_lineno - 1
        if part["warnings"]:
            session.scanned_to = part["start"]
            session._scan(validate=False, stop=part["stop"], build=False)
            if part["stop"] is not None:
                session.scanned_to = part["stop"]
                session.next_lineno = base + 1 + part["lines"]
            continue
        n0 = len(session.ids)
        session.ids.extend(part["ids"])
        session.parent_ids.extend(part["parent_ids"])
        session.types.extend(part["types"])
        session.roles.extend(part["roles"])
        session.timestamps.extend(part["timestamps"])
        session.offsets.frombytes(part["offsets"])
        session.lengths.frombytes(part["lengths"])
        linenos = array("q")
        linenos.frombytes(part["linenos"])
        session.linenos.extend(array("q", [lineno + base for lineno in linenos]))
        session.flags.extend(part["flags"])
        if part["stop"] is None:
            session.scanned_to = part["scanned_to"]
            session.next_lineno = part["next_lineno"] + base
            session.file_size = part["file_size"]
            session.file_mtime = part["file_mtime"]
            session.file_dev, session.file_ino, session.file_mtime_ns = part["file_id"]
            pp = part["pending_partial"]
            session._pending_partial = None if pp is None else n0 + pp
        else:
            session.scanned_to = part["stop"]
            session.next_lineno = base + 1 + part["lines"]
    if "label" in session.types or "session_info" in session.types:
        replay_labels_and_name(session)
    session._build_tree()
