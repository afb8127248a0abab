"""A worker process for cold listing scans: ``python -m pitui.core.store.listing_worker``.

Reads a JSON array of tasks ``[path, project, kind, previous row or null]`` on standard
input and writes one JSON row per line as each file is scanned. Plain subprocesses (rather
than multiprocessing) keep the caller's ``__main__`` out of it and stay safe beside threads.
"""

from __future__ import annotations

import sys
from dataclasses import asdict

import orjson

from .discovery import SessionFile
from .listing import SessionInfo, scan_info


def main() -> int:
    tasks = orjson.loads(sys.stdin.buffer.read() or b"[]")
    out = sys.stdout.buffer
    fields = set(SessionInfo.__dataclass_fields__)
    for path, project, kind, prev in tasks:
        try:
            prev_info = SessionInfo(**{k: v for k, v in prev.items() if k in fields}) if prev else None
        except (TypeError, AttributeError):
            prev_info = None
        info = scan_info(SessionFile(path, project, kind), prev_info)  # (never raises)
        try:
            row = orjson.dumps(asdict(info))
        except TypeError:
            continue  # a row JSON cannot carry: the caller scans that file itself
        out.write(row + b"\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
