"""The garbage-collector policy: the one place that pauses, freezes and tunes the collector.

pitui builds big structures that live as long as the app (a session's skeleton, its tree,
Textual's widgets) and makes little garbage. Python's collector would walk all of it again
and again, most often in the middle of a key. So: collection is paused while a session is
built and while the app starts; what is alive after that is frozen out of the collector's
sight (and thawed when another session replaces it); full collections come rarer than
Python's default, and one that is due soon is done while the user reads.

Import-light (the standard library only): ``pitui FILE`` pauses collection before it
imports anything else.
"""

from __future__ import annotations

import contextlib
import gc
import threading

__all__ = ["gc_paused", "pause_gc_for_start", "end_start_pause", "FULL_EVERY", "tune_for_app",
           "freeze_what_is_alive", "refreeze", "collect_if_due_soon"]

#: A full collection comes after this many collections of the middle generation (Python's
#: default: 10). A full one walks every object made since the app froze what it had
#: (Textual's strips and their caches, the panes' caches), and at the default one came
#: every few keys, the slowest of them; objects that die young are collected as usual.
FULL_EVERY = 100

_gc_lock = threading.Lock()
_gc_pauses = 0
_gc_was_enabled = False  # as it was when the first of the pauses under way began
_gc_freeze = False  # a pause under way asked for what was made to be frozen at the end


@contextlib.contextmanager
def gc_paused(freeze: bool = False):
    """No garbage collection while building the big structures of a session (tens of
    thousands of lists, dicts and tuples): beside a user interface's objects each full
    collection walks hundreds of thousands of objects, and they come every few thousand
    allocations, doubling the time of a join or a tree layout. Nothing made here is
    garbage; collection resumes when the last pause ends.

    ``freeze``: when the last pause ends, everything alive is moved out of the collector's
    sight (:func:`gc.freeze`) instead of being walked by the next collection (~20-70 ms
    for a big session): for an application that keeps what it opened (pitui's app
    freezes what it shows anyway, and unfreezes when it opens another session)."""
    global _gc_pauses, _gc_was_enabled, _gc_freeze
    with _gc_lock:
        if _gc_pauses == 0:
            _gc_was_enabled = gc.isenabled()
        _gc_pauses += 1
        _gc_freeze = _gc_freeze or freeze
        gc.disable()
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses -= 1
            if _gc_pauses == 0:
                if _gc_freeze:
                    _gc_freeze = False
                    gc.freeze()
                if _gc_was_enabled:
                    gc.enable()


_start_pause = None  # the pause of an app's start (pause_gc_for_start), while it lasts


def pause_gc_for_start() -> None:
    """Pause the garbage collector from now until :func:`end_start_pause`: a starting
    app (importing Textual, building its widgets and styles) makes hundreds of thousands
    of objects that live as long as it does and next to no garbage, and every collection
    walks them (~200 collections, 0.1 s of pitui's start before its first screen here).
    When the pause ends, what is alive is frozen (as in :func:`gc_paused`)."""
    global _start_pause
    with _gc_lock:
        if _start_pause is not None:
            return
        _start_pause = gc_paused(freeze=True)
    _start_pause.__enter__()


def end_start_pause() -> None:
    """End the pause :func:`pause_gc_for_start` began (again: nothing)."""
    global _start_pause
    with _gc_lock:
        pause, _start_pause = _start_pause, None
    if pause is not None:
        pause.__exit__(None, None, None)


def tune_for_app() -> None:
    """Full collections every :data:`FULL_EVERY` middle-generation ones (the app calls
    this when it mounts)."""
    threshold0, threshold1, _ = gc.get_threshold()
    gc.set_threshold(threshold0, threshold1, FULL_EVERY)


def freeze_what_is_alive() -> None:
    """What is alive now (the session shown, its layout, the app) lives on: left out of
    every full collection from now on."""
    gc.freeze()


def refreeze() -> None:
    """Another session replaced the one frozen before: thaw, collect what the old one
    left, and freeze what is alive now."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def collect_if_due_soon() -> None:
    """A full collection that is due soon, done now (called while the user reads): one
    comes every :data:`FULL_EVERY` collections of the middle generation, on whatever makes
    the objects that trigger it, which is nearly always a key."""
    if gc.get_count()[2] >= FULL_EVERY // 2:
        gc.collect()
