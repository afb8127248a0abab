#!/usr/bin/env python3
"""Open one session in the real pitui app (headless) and time it to a usable screen.

    python benchmarks/app_open.py FILE [--keys N] [--choose STORE] [--jobs N]
    python benchmarks/app_open.py FILE --compare SRC [--rounds N] [--keys N] [--skip-pi]

"Usable" means: the session is read, the branch tree is laid out and drawn at its size, and
the message pane shows the current leaf's branch at its width (the first repaint after all
of them with nothing left to draw: see ``_usable``).
``usable_s`` counts from process start (as ``pitui FILE``: the file is handed to the
parallel open before Textual is imported); with ``--choose STORE`` the app starts on a
store, settles, and then opens FILE as a user choosing it would, and
``open_to_usable_s`` is that wait. With ``--keys N`` the script then presses navigation
keys N rounds in the big session, once the open's background work is done, and times each
one (key event posted -> last repaint); each round starts from the filter the first began in
(untimed presses of f bring it back: see ``_back_to_mode``).
It prints one JSON object and exits at once (``os._exit``), so the caller's wall time of
the process is start-up to usable plus interpreter start.

``--compare SRC`` runs the above as a series instead (``compare_open.py``): this tree and
the pitui source tree at SRC (each with its own ``benchmarks/app_open.py``), and Pi's own
open of FILE, taken in turns for ``--rounds`` rounds, and prints each one's medians and
spread and pitui's ratio to Pi's open of the same round.
"""

from __future__ import annotations

import sys
import time

T0 = time.perf_counter()
CPU0 = time.thread_time()  # (this thread: the user interface's, whatever else runs on the machine)

if __name__ == "__main__" and (len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help") or sys.argv[1].startswith("-")):
    sys.stdout.write(__doc__ or "")
    sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)

if __name__ == "__main__" and "--compare" in sys.argv:
    import os

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import compare_open  # noqa: E402

    sys.exit(compare_open.main(sys.argv[1:]))

if __name__ == "__main__":
    # What `pitui FILE` does first, before anything else is imported: collection paused
    # until the first session is shown, and the file's read started on another core.
    from pitui.cli import start_reading  # noqa: E402

    if "--jobs" in sys.argv:
        from pitui.core.open.parallel import prestart  # noqa: E402

        start_reading([])
        prestart(sys.argv[1], int(sys.argv[sys.argv.index("--jobs") + 1]), freeze=True)
    else:
        start_reading([] if "--choose" in sys.argv or "--no-prestart" in sys.argv else [sys.argv[1]])
    READ_STARTED_CPU = time.thread_time()

import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402

try:
    from pitui.core.store.discovery import resolve_root  # noqa: E402
except ImportError:  # a tree from before core/ had folders (d66a267 and older), run by --compare
    from pitui.core.discovery import resolve_root  # type: ignore[no-redef]  # noqa: E402
from pitui.ui.app import PituiApp  # noqa: E402

IMPORTED_CPU = time.thread_time()

def _no_index():
    try:
        from pitui.core.store.listing import SessionIndex
    except ImportError:  # (d66a267 and older)
        from pitui.core.listing import SessionIndex  # type: ignore[no-redef]
    return SessionIndex(enabled=False)


KEYS = ["k", "k", "j", "u", "U", "left_square_bracket", "right_square_bracket", "left_curly_bracket", "right_curly_bracket",
        "g", "G", "pageup", "pagedown", "f", "f", "f", "f", "f", "t", "t", "o", "o"]


def _worker_peaks(browser) -> list[float]:
    """Peak memory (MiB) of the open's worker processes still alive (a streaming worker
    goes on to save the skeleton after the app has what it needs, so it is not waited for)."""
    peaks = []
    opening = getattr(getattr(browser, "opener", browser), "_opening", None)  # (older trees: the screen's own)
    for p in getattr(opening, "_procs", []):
        if p.poll() is not None:
            continue  # ended (and now waited for: RUSAGE_CHILDREN counts it)
        try:
            with open(f"/proc/{p.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peaks.append(int(line.split()[1]) / 1024)
        except OSError:
            pass
    return peaks


def _usable(app, screen, path: str) -> bool:
    """Whether the repaint just made showed the session usable: it is read, the tree is
    laid out at its size and the pane has the leaf's branch at its width, with nothing
    still to draw (no layout, repaint or scroll asked for by the screen or any widget shown,
    no message waiting in their queues). This runs on the UI thread at the end of a
    repaint: what it sees is what that repaint drew."""
    b = app.browser
    if b is None or b.session is None or screen is not b or not os.path.samefile(b.session.path, path):
        return False
    tree, pane = b.branch_tree, b.pane
    return (
        tree.tree_layout is not None
        and tree.size.height > 0
        and tree.virtual_size.height == tree.row_count
        and getattr(pane, "session", None) is b.session  # (the pane's public face: its model holds it now)
        and pane.size.width > 0
        and pane._width == pane.scrollable_content_region.width
        and pane._pending_scroll is None
        and not screen._layout_required
        and not screen._dirty_widgets
        and screen._message_queue.empty()
        and not any(w._layout_required or w._repaint_required or w._scroll_required or not w._message_queue.empty()
                    for w in screen.walk_children() if w.display)  # (a hidden one keeps its flags)
    )


async def background_done(app, pilot) -> None:
    """Wait until the app's background work (workers, and the repaints they end in) is done,
    so that a timed key's repaint is not one of those."""
    await asyncio.sleep(0.5)
    try:
        await asyncio.wait_for(app.workers.wait_for_complete(), 60)
    except asyncio.TimeoutError:
        pass
    await pilot.pause()


async def _back_to_mode(app, pilot, tree, mode: str) -> None:
    """Untimed presses of f until the tree's filter is ``mode`` again, so that every round
    of KEYS starts from the same filter: its five f presses bring a tree of five filters
    (d66a267) back to the first, but one with seven (files-only, shell-only) to another, whose
    rounds then move through other rows, draw blocks never drawn, and are no longer the same
    keys as the other tree's."""
    from textual import events

    for _ in range(12):
        if tree.mode == mode:
            return
        app.post_message(events.Key("f", "f"))
        await asyncio.sleep(0.2)
        await pilot.pause()


async def main(path: str, rounds: int, choose: str | None = None) -> dict:
    try:
        from pitui.ui.browser.screen import BrowserScreen
    except ImportError:  # (d66a267 and older)
        from pitui.ui.app import BrowserScreen  # type: ignore[attr-defined,no-redef]

    opened: list[float] = []
    opened_cpu: list[float] = []
    real_open = BrowserScreen.open_session

    def timed_open(self, *args, **kwargs):
        opened.append(time.perf_counter())
        opened_cpu.append(time.thread_time())
        return real_open(self, *args, **kwargs)

    BrowserScreen.open_session = timed_open
    # --choose STORE: start on a sessions store (it opens its newest session), wait until
    # all is quiet, then open PATH as a user choosing it would.
    # (FILE alone: the app as `pitui FILE` makes it, its listing index in the run's own cache
    # folder, made after the first screen; a store to choose from is listed without one)
    root = resolve_root(choose if choose else path)
    app = PituiApp(root, index=_no_index()) if choose else PituiApp(root)
    out: dict = {}
    from textual import events
    from textual.screen import Screen

    repaints: list[float] = []
    real_refresh = Screen._compositor_refresh
    usable = asyncio.Event()
    state: dict = {}

    def timed_refresh(self, *a, **k):
        r = real_refresh(self, *a, **k)
        state.setdefault("first_paint_cpu", time.thread_time())
        t = time.perf_counter()
        repaints.append(t)
        if "usable" not in state:
            # usable: the first repaint after the session, its tree layout and the pane's
            # branch were all set (this runs on the UI thread, as they are set)
            if _usable(app, self, path):
                state["usable"] = t
                state["usable_cpu"] = time.thread_time()
                state["usable_process_cpu"] = time.process_time()
                state["paints"] = len(repaints)
                usable.set()
        return r

    Screen._compositor_refresh = timed_refresh
    async with app.run_test(size=(160, 45), headless=True) as pilot:
        if choose:
            while app.browser is None or app.browser.session is None:
                await asyncio.sleep(0.05)
            await asyncio.sleep(1.5)  # the newest session shown, background work done
            await pilot.pause()
            opened.clear()
            state["paints_before_open"] = len(repaints)
            app.browser.open_session(path)
        await usable.wait()
        browser = app.browser
        now = state["usable"]
        out["usable_s"] = now - T0
        out["open_to_usable_s"] = now - opened[0] if opened else None
        out["startup_s"] = opened[0] - T0 if opened else None
        # CPU time of the user interface's thread to the same two points (less moved by
        # other work on a shared machine than the wall times), and of the whole process
        # (the open's thread that takes in the worker's output too) to the usable screen
        out["startup_cpu_s"] = opened_cpu[0] - CPU0 if opened_cpu else None
        # (and on the way: the file's read started, the imports done, the first paint)
        out["read_started_cpu_s"] = READ_STARTED_CPU - CPU0 if "READ_STARTED_CPU" in globals() else None
        out["imported_cpu_s"] = IMPORTED_CPU - CPU0
        out["first_paint_cpu_s"] = state["first_paint_cpu"] - CPU0
        out["usable_cpu_s"] = state["usable_cpu"] - CPU0
        out["usable_process_cpu_s"] = state["usable_process_cpu"]
        # the screens' paints from the start (or, with --choose, from the open) to the usable
        # one, that one included: each a compositor refresh that drew the screen
        out["paints_to_usable"] = state["paints"] - state.get("paints_before_open", 0)
        import resource

        out["peak_mib_app"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        out["peak_mib_one_worker"] = max(_worker_peaks(browser) + [resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024])
        if not rounds:
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()
            os._exit(0)  # no shutdown: the caller times the process to here
        await pilot.pause()
        out["entries"] = len(browser.session)
        out["rows"] = len(browser.branch_tree.tree_layout.rows)
        tree = browser.branch_tree
        tree.focus()
        await pilot.pause()
        # The open's background work (whole-line validation, the header's tokens and cost)
        # runs on worker threads and ends in a repaint of the header; done first, so that
        # this repaint is not taken for the answer to a key that repaints nothing.
        await background_done(app, pilot)
        # Key latency: post the key event as the terminal driver would, then wait until the
        # screen has been repainted and stays quiet; the latency is key -> last repaint.
        # (Pilot.press itself adds ~80 ms of waiting, so it is not used for timing.)
        chars = {"left_square_bracket": "[", "right_square_bracket": "]", "left_curly_bracket": "{", "right_curly_bracket": "}"}
        times: dict[str, list[float]] = {}
        pane = browser.pane

        def view() -> tuple:
            return (tree.selected_entry, tree.cursor_row, tree.mode, tree.scroll_y, pane.scroll_y,
                    pane.show_thinking, pane.full_tool_output)

        no_ops: dict[str, int] = {}
        first_mode = tree.mode
        for k in range(rounds):
            if k and tree.mode != first_mode:
                await _back_to_mode(app, pilot, tree, first_mode)
            for key in KEYS:
                await pilot.pause()
                n = len(repaints)
                char = chars.get(key, key if len(key) == 1 else None)
                before = view()
                t = time.perf_counter()
                app.post_message(events.Key(key, char))
                deadline = t + 5.0
                while time.perf_counter() < deadline:
                    await asyncio.sleep(0.002)
                    if len(repaints) > n and time.perf_counter() - repaints[-1] > 0.06:
                        break
                    if time.perf_counter() - t > 0.1 and view() == before:
                        break  # (answered at once, and changed nothing: see below)
                if view() == before:
                    # A key with nothing to do here (no fork below, no next user message):
                    # it rings the bell and changes nothing, so a repaint that comes is
                    # someone else's (the header's tokens and cost for a branch chosen by
                    # an earlier key, from a worker): not timed.
                    no_ops[key] = no_ops.get(key, 0) + 1
                    continue
                if len(repaints) > n:
                    times.setdefault(key, []).append(repaints[-1] - t)
        all_times = [x for v in times.values() for x in v]
        if not all_times:
            app.exit()
            return out
        out["keys"] = {k: round(statistics.median(v) * 1000, 1) for k, v in times.items()}
        out["keys_with_nothing_to_do"] = no_ops
        out["key_median_ms"] = round(statistics.median(all_times) * 1000, 1)
        out["key_max_ms"] = round(max(all_times) * 1000, 1)
        out["key_p95_ms"] = round(sorted(all_times)[int(len(all_times) * 0.95) - 1] * 1000, 1)
        app.exit()
    return out


if __name__ == "__main__":
    path = sys.argv[1]
    rounds = int(sys.argv[sys.argv.index("--keys") + 1]) if "--keys" in sys.argv else 0
    choose = sys.argv[sys.argv.index("--choose") + 1] if "--choose" in sys.argv else None
    result = asyncio.run(main(path, rounds, choose))
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown: the caller times the process
