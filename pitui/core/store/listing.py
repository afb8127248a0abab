"""The session list: Pi's ``SessionInfo`` per file, from a fast scan and a cached index.

A list stats every file under a root and compares it with the listing index
(:mod:`.listing_index`): unchanged files give their rows as the index holds them, the others
are scanned (:mod:`.listing_scan`; by worker processes when there are many,
:mod:`.listing_parallel`) and put in the index, and the rows come in the list's order
(:mod:`.listing_rows`). ``pitui list --json`` prints unchanged rows from their stored
output without decoding them. A file whose reading fails in any way is listed as one row
with its reason (``error``), never a failure of the whole list.

Where pitui keeps the usage (its index is in the cache folder: ``pitui usage`` or the usage
screen made it), a list that reads many files (:data:`USAGE_MIN_FILES`, :data:`USAGE_MIN_BYTES`)
counts their usage from the same read of their lines and keeps it there
(:func:`.usage_read.scan_both`, :mod:`.usage_index`): the usage then reads none of those
files again. Counting the usage costs a list's read about as much again as the list's own
work, so a list does not start the usage index (``pitui usage``'s cold read, which fills the
listing index from its one read, does); and a few files read (one session grew) are left to
the usage, which reads on from its own state when asked.

The listing's names are imported from here: :class:`SessionInfo` (one row,
:mod:`.session_info`), :class:`SessionIndex`, :func:`list_sessions`, :func:`list_json`.
"""

from __future__ import annotations

import os
from typing import Callable

import orjson

from .discovery import SessionFile, SessionRoot, find_session_files
from .listing_file import Rec
from .listing_index import INDEX_VERSION, SessionIndex
from .listing_rows import FRAG_KEEP, decoded, frag_of, merge_recs, rec_of, sort_recs
from .session_info import NO_MESSAGES, SessionInfo, subagent_parents

__all__ = ["SessionInfo", "SessionIndex", "NO_MESSAGES", "list_sessions", "list_json", "subagent_parents",
           "INDEX_VERSION"]

#: Scan in worker processes when at least this many files (and bytes) need reading.
PARALLEL_MIN_FILES = 24
PARALLEL_MIN_BYTES = 64 * 1024 * 1024
#: Count the usage of the files read when at least this many files (and bytes) are read:
#: then the usage index is read and written once for many files.
USAGE_MIN_FILES = PARALLEL_MIN_FILES
USAGE_MIN_BYTES = PARALLEL_MIN_BYTES


def _unreadable(sf: SessionFile, exc: OSError) -> Rec:
    info = SessionInfo(sf.path, sf.project, sf.kind, error=f"cannot be read ({exc.strerror or exc})")
    return rec_of(info, None)


def _collect(root: SessionRoot, index: SessionIndex | None, on_info, workers: int | None, decode: bool,
             files: list[SessionFile] | None = None) -> list[Rec]:
    """Every file under ``root`` as an index row, in the list's order: rows whose file is
    unchanged as they are (decoded only when ``decode``), the others scanned (and put in
    the index). ``on_info(info, done, total)`` as each is ready. ``files``: the files under
    ``root``, when already found."""
    if files is None:
        files = find_session_files(root)
    total = len(files)
    recs = index._recs if index is not None else {}
    in_order = index is not None and not index._moved  # (the index's rows are in the list's order)
    out: list[Rec] = []
    changed: list[Rec] = []  # rows not from the index as it was
    todo = []
    fresh = index is None
    stat = os.stat
    for sf in files:
        path = sf.path
        try:
            st = stat(path)
        except OSError as exc:
            out.append(_unreadable(sf, exc))
            changed.append(out[-1])
            fresh = True
            if on_info is not None:
                on_info(out[-1].info, len(out), total)
            continue
        rec = recs.get(path)
        if rec is not None and rec.ino == st.st_ino and rec.dev == st.st_dev:
            if rec.size == st.st_size and rec.mtime_ns == st.st_mtime_ns:
                if rec.project != sf.project or rec.kind != sf.kind:
                    rec = index._relabel(rec, sf.project, sf.kind)  # type: ignore[union-attr]
                if decode and rec.info is None:
                    if index.info(rec) is None:  # type: ignore[union-attr]
                        todo.append((sf, None, st))  # (its row was damaged: read again)
                        continue
                    rec = recs.get(path) or rec  # (the row with its decoded info)
                out.append(rec)
                if on_info is not None:
                    on_info(index.info(rec), len(out), total)  # type: ignore[union-attr]
                continue
            prev = index.info(rec) if st.st_size > rec.size else None  # type: ignore[union-attr]
            todo.append((sf, prev, st))
        else:
            todo.append((sf, None, st))
    if workers is None:
        workers = min(4, os.cpu_count() or 1)
    todo_bytes = sum(task[2].st_size for task in todo)
    parallel = workers > 1 and len(todo) >= PARALLEL_MIN_FILES and todo_bytes >= PARALLEL_MIN_BYTES
    usage = None
    if index is not None and index.enabled and todo and len(todo) >= USAGE_MIN_FILES \
            and todo_bytes >= USAGE_MIN_BYTES:
        from .usage_index import UsageIndex  # (loaded by the first list with many files to read)

        usage = UsageIndex(index.dir, load=False)
        if usage.kept():  # (the usage is kept: kept up to date by the same read)
            usage = UsageIndex(index.dir)
        else:
            usage = None
    usage_rows: dict = {}
    if parallel:
        from .listing_parallel import scan_parallel  # (loaded by the first list with many files to read)

        rows = _rows_of(scan_parallel(todo, workers, usage), usage_rows)
    elif todo and usage is not None:
        from .usage_read import scan_both

        grown = usage.grown((sf.path, st) for sf, _, st in todo)
        rows = _rows_of((_rec_and_row(scan_both(sf, prev, grown.get(sf.path), usage, st)) for sf, prev, st in todo),
                        usage_rows)
    elif todo:
        from .listing_scan import scan_info  # (loaded by the first file read)

        rows = (rec_of(scan_info(*task)) for task in todo)
    else:
        rows = iter(())
    for rec in rows:
        fresh = True
        if (decode or on_info is not None) and rec.info is None:
            got = decoded(rec)
            if isinstance(got, str):  # (a row a worker sent that is not a session's: read here)
                from .listing_scan import scan_info

                rec = rec_of(scan_info(SessionFile(rec.path, rec.project, rec.kind)))
            else:
                rec = rec._replace(info=got)
        if index is not None:
            index.put_rec(rec)
        if on_info is not None:
            on_info(rec.info, len(out) + 1, total)
        out.append(rec)
        changed.append(rec)
    if usage is not None:
        usage.rows.update(usage_rows)
        usage.save([usage.rows[sf.path] for sf in files if sf.path in usage.rows])
    if index is not None and root.kind == "tree":
        prefix = root.prefix  # (SessionRoot.holds for a tree, at C speed: every row is asked)
        index.forget_missing([path for path in index._recs if not path.startswith(prefix)]
                             + [sf.path for sf in files])
    if not fresh:
        ordered = index.in_order({rec.path for rec in out})  # type: ignore[union-attr]
        if ordered is not None and len(ordered) == len(out):
            return ordered
    elif in_order and len(changed) * 16 < len(out):
        # a few files changed: the others keep the index's order, the changed are put in
        keep = {rec.path for rec in out}.difference(rec.path for rec in changed)
        with index._lock:  # type: ignore[union-attr]
            base = [rec for path, rec in index._recs.items() if path in keep]  # type: ignore[union-attr]
        if len(base) + len(changed) == len(out):
            return merge_recs(base, changed)
    out = sort_recs(out)
    if index is not None and index._moved:
        index.take_order(out)
    return out




def _rows_of(pairs, usage_rows: dict):
    """The listing rows of ``(row, usage row)`` pairs, their usage rows put in ``usage_rows``
    by path (those of files that could be read)."""
    for rec, usage_row in pairs:
        if usage_row is not None:
            usage_rows[rec.path] = usage_row
        yield rec


def _rec_and_row(pair):
    info, usage_row = pair
    return rec_of(info), usage_row


def _info_for(rec: Rec, index: SessionIndex | None) -> SessionInfo:
    """``rec``'s SessionInfo: decoded from its row, or, when the row is damaged (since),
    its file read again."""
    got = rec.info if rec.info is not None else index.info(rec) if index is not None else decoded(rec)
    if got is None or isinstance(got, str):
        from .listing_scan import scan_info

        return scan_info(SessionFile(rec.path, rec.project, rec.kind))
    return got  # type: ignore[return-value]


def list_sessions(
    root: SessionRoot,
    index: SessionIndex | None = None,
    on_info: Callable[[SessionInfo, int, int], None] | None = None,
    include_errors: bool = True,
    workers: int | None = None,
) -> list[SessionInfo]:
    """Every session under ``root``, newest first. ``on_info(info, done, total)`` is called
    as each row is ready (cached rows first), for progressive display. Files to (re)scan
    are read by up to ``workers`` processes when there are many (default: the cores, <= 4)."""
    recs = _collect(root, index, on_info, workers, decode=True)
    if index is not None:
        index.save()
    out = []
    for rec in recs:
        info = _info_for(rec, index)
        if include_errors or info.error is None:
            out.append(info)
    return out


# every byte a list's JSON may not hold raw: C0 controls but the line feed between values
_NOT_C0 = bytes(byte for byte in range(256) if not (byte < 32 and byte != 10))


def list_json(root: SessionRoot, index: SessionIndex | None = None, workers: int | None = None) -> bytes:
    """``pitui list --json``'s array (``orjson`` indented by two; the caller makes it
    :func:`text.json_safe`): the rows of unchanged files printed from their stored output,
    without decoding them."""
    files = find_session_files(root)
    frags = index.unchanged_output(root, files) if index is not None else None
    if frags is None:
        recs = _collect(root, index, None, workers, decode=False, files=files)
        frags = [rec.frag for rec in recs]
    for at in [at for at, frag in enumerate(frags) if not len(frag)]:  # (outputs not kept: made now)
        rec = recs[at]
        frags[at] = frag = frag_of(_info_for(rec, index))
        if index is not None and rec.row is not None and len(frag) <= FRAG_KEEP:
            index._set_frag(rec, frag)
    if frags:  # (the brackets put on the first and last rows: the output copied once)
        frags[0] = b"[\n" + frags[0]
        frags[-1] = bytes(frags[-1]) + b"\n]"
    data = b",\n".join(frags) if frags else b"[]"
    if index is not None and data.translate(None, _NOT_C0):
        # a control character no JSON writer leaves raw: an output stored in a hostile
        # index. Thrown away, and the list made from the files.
        index._thrown_away("a row's output holds a control character")
        recs = _collect(root, index, None, workers, decode=True)
        infos = [_info_for(rec, index) for rec in recs]
        data = orjson.dumps([info.to_pi_json() for info in infos], option=orjson.OPT_INDENT_2)
    if index is not None:
        index.save()
    return data
