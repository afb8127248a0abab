"""Opening a file that may be a Pi session or an event stream: its first records say which
(:mod:`.sniff`), and it is read as a :class:`~.session.Session` or a
:class:`~.stream.StreamSession` (the stream reader is loaded only for a stream).

The one place that knows both readers: :mod:`.stream` builds on :mod:`.session`, and
:mod:`.session` knows nothing of streams.
"""

from __future__ import annotations

import os
from typing import Callable

from .session import Session
from .sniff import stream_kind

__all__ = ["open_session", "read_session_header"]


def open_session(path: str | os.PathLike, *, validate: bool = True,
                 progress: Callable[[int, int], None] | None = None) -> Session:
    """``path`` read as :meth:`Session.open` reads it, or, when it is an event stream of
    ``pi --mode json`` or ``rpc``, as a :class:`~.stream.StreamSession`. Raises
    :class:`~.skeleton.NotASession` with a one-line reason for anything else."""
    if stream_kind(path) is not None:
        from .stream import StreamSession

        return StreamSession.open(path)
    return Session.read(path, validate=validate, progress=progress)


def read_session_header(path: str | os.PathLike) -> Session:
    """``path`` with only its header read (:meth:`Session.read_header`); an event stream is
    read whole."""
    if stream_kind(path) is not None:
        from .stream import StreamSession

        return StreamSession.read_header(path)
    return Session.read_header(path, sniffed=True)
