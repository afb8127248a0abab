#!/usr/bin/env python3
"""What each navigation key costs the user interface's thread, and what it repaints.

    python benchmarks/key_work.py FILE [--rounds N] [--profile OUT] [--json OUT]
    python benchmarks/key_work.py FILE --compare SRC [--runs N] [--rounds N] [--json OUT]

The keys of ``app_open.py --keys`` (``KEYS`` there), pressed ``--rounds`` times in the real
app, headless, once FILE is shown and the open's background work is done. Wall time
(key posted -> last repaint, as ``app_open.py``) moves with the machine's load; what is
recorded beside it moves much less:

- ``cpu_ms``: the CPU time of the user interface's thread (``time.thread_time``) from the
  key posted to its last repaint (another process or thread running does not count);
- ``gc_ms``: the part of that spent in garbage collections;
- ``paints``: screen repaints (compositor refreshes), ``layouts``: layout passes of the screen;
- ``dirty``: the widgets each repaint was asked for, ``lines``: the lines each widget drew
  again (its ``render_line``), ``crop``: the lines of the screen each repaint covered.

``--profile OUT`` also writes a ``cProfile`` of the keys alone (pstats; the timings then
include the profiler's own cost, so use it to see where, not how long).
``--compare SRC`` runs this tree and the pitui source tree at SRC (``PYTHONPATH=SRC``,
this script for both) in fresh processes taken in turns, ``--runs`` each, and prints per key
both trees' medians side by side.
"""

from __future__ import annotations

import sys
import time

if __name__ == "__main__" and (len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help") or sys.argv[1].startswith("-")):
    sys.stdout.write(__doc__ or "")
    sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)

if __name__ == "__main__" and "--compare" not in sys.argv:
    # as `pitui FILE` starts (and app_open.py): collection paused, the read started at once
    from pitui.cli import start_reading  # noqa: E402

    start_reading([sys.argv[1]])

import argparse  # noqa: E402
import asyncio  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
from collections import Counter  # noqa: E402

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)


def _name(widget) -> str:
    name = type(widget).__name__
    if name == "ScrollBar" and widget.parent is not None:
        return f"ScrollBar({_name(widget.parent)}{' x' if widget.vertical is False else ''})"
    return name + (f"#{widget.id}" if widget.id else "")


class Recorder:
    """Counts, while a key is being answered, what the user interface's thread does."""

    def __init__(self) -> None:
        self.on = False
        self.paints: list[tuple[float, float]] = []  # (perf_counter, thread_time) after each
        self.dirty: list[list[str]] = []  # per repaint: the widgets asked for
        self.crop: list[int] = []  # per repaint: screen lines covered
        self.lines: Counter[str] = Counter()  # lines drawn again, per widget
        self.layouts = 0
        self.paint_s = 0.0  # CPU time in the repaints themselves
        self.paint_gate_s = 0.0  # time in PaintGate.paint_held (the override's own cost)
        self.gc_s = 0.0
        self.gc_by_gen = [0.0, 0.0, 0.0]  # ... by the generation collected
        self._gc_start: float | None = None
        self.drawing: list[str] = []  # the widget whose lines are being drawn

    def reset(self) -> None:
        self.paints.clear()
        self.dirty.clear()
        self.crop.clear()
        self.lines.clear()
        self.layouts = 0
        self.paint_s = 0.0
        self.paint_gate_s = 0.0
        self.gc_s = 0.0
        self.gc_by_gen = [0.0, 0.0, 0.0]

    def gc_callback(self, phase: str, info: dict) -> None:
        if not self.on:
            return
        if phase == "start":
            self._gc_start = time.thread_time()
        elif self._gc_start is not None:
            spent = time.thread_time() - self._gc_start
            self.gc_s += spent
            self.gc_by_gen[info.get("generation", 0)] += spent
            self._gc_start = None


def install(rec: Recorder) -> None:
    """Wrap the Textual methods that say what a repaint does (class level: every tree's
    screens and widgets go through them)."""
    from textual._compositor import Compositor
    from textual._styles_cache import StylesCache
    from textual.screen import Screen

    real_refresh = Screen._compositor_refresh
    real_layout = Screen._refresh_layout
    real_update = Compositor.update_widgets
    real_partial = Compositor.render_partial_update
    real_full = Compositor.render_full_update
    real_widget = StylesCache.render_widget
    real_line = StylesCache.render_line

    def compositor_refresh(self, *a, **k):
        cpu = time.thread_time()
        r = real_refresh(self, *a, **k)
        now = time.thread_time()
        rec.paints.append((time.perf_counter(), now))
        rec.paint_s += now - cpu
        return r

    def refresh_layout(self, *a, **k):
        if rec.on:
            rec.layouts += 1
        return real_layout(self, *a, **k)

    def update_widgets(self, widgets):
        if rec.on:
            rec.dirty.append(sorted(_name(w) for w in widgets))
        return real_update(self, widgets)

    def partial(self):
        if rec.on and self._dirty_regions:
            from textual.geometry import Region

            crop = Region.from_union(list(self._dirty_regions)).intersection(self.size.region)
            rec.crop.append(crop.height)
        return real_partial(self)

    def full(self, *a, **k):
        if rec.on:
            rec.crop.append(-self.size.height)  # (negative: a full repaint)
        return real_full(self, *a, **k)

    def render_widget(self, widget, crop):
        rec.drawing.append(_name(widget))
        try:
            return real_widget(self, widget, crop)
        finally:
            rec.drawing.pop()

    def render_line(self, *a, **k):
        if rec.on and rec.drawing:
            rec.lines[rec.drawing[-1]] += 1
        return real_line(self, *a, **k)

    Screen._compositor_refresh = compositor_refresh
    Screen._refresh_layout = refresh_layout
    Compositor.update_widgets = update_widgets
    Compositor.render_partial_update = partial
    Compositor.render_full_update = full
    StylesCache.render_widget = render_widget
    StylesCache.render_line = render_line
    try:
        from pitui.ui.browser.screen import BrowserScreen  # noqa: F401  (PaintGate's subclass)
        from pitui.ui.textual_internals import PaintGate
    except ImportError:  # (trees from before it)
        PaintGate = None
    if PaintGate is not None:
        real_held = PaintGate.paint_held

        def paint_held(self):
            t = time.perf_counter()
            try:
                return real_held(self)
            finally:
                if rec.on:
                    rec.paint_gate_s += time.perf_counter() - t

        # (the screen's own paint_held overrides the gate's: wrap the subclasses' too)
        for cls in [PaintGate, *PaintGate.__subclasses__()]:
            if "paint_held" in cls.__dict__:
                real = cls.__dict__["paint_held"]

                def wrapped(self, _real=real):
                    t = time.perf_counter()
                    try:
                        return _real(self)
                    finally:
                        if rec.on:
                            rec.paint_gate_s += time.perf_counter() - t

                cls.paint_held = wrapped
        del paint_held, real_held
    gc.callbacks.append(rec.gc_callback)


async def run_keys(path: str, rounds: int, profile: str | None, reset: bool = True) -> dict:
    sys.path.insert(0, BENCH)
    import app_open  # noqa: E402  (its KEYS, _usable and background_done)
    from textual import events

    from pitui.ui.app import PituiApp

    try:
        from pitui.core.store.discovery import resolve_root
        from pitui.core.store.listing import SessionIndex
    except ImportError:  # (d66a267 and older)
        from pitui.core.discovery import resolve_root  # type: ignore[no-redef]
        from pitui.core.listing import SessionIndex  # type: ignore[no-redef]

    rec = Recorder()
    install(rec)
    painted = asyncio.Event()
    from textual.screen import Screen

    wrapped_refresh = Screen._compositor_refresh

    def refresh_and_tell(self, *a, **k):
        r = wrapped_refresh(self, *a, **k)
        painted.set()
        return r

    Screen._compositor_refresh = refresh_and_tell
    app = PituiApp(resolve_root(path), index=SessionIndex(enabled=False))
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
    records: list[dict] = []
    async with app.run_test(size=(160, 45), headless=True) as pilot:
        deadline = time.monotonic() + 120
        while not (app.browser is not None and app.browser.session is not None
                   and app_open._usable(app, app.screen, path)):
            if time.monotonic() > deadline:
                raise SystemExit(f"{path}: not shown in 120 s")
            await asyncio.sleep(0.05)
        browser = app.browser
        tree, pane = browser.branch_tree, browser.pane
        tree.focus()
        await pilot.pause()
        await app_open.background_done(app, pilot)
        chars = {"left_square_bracket": "[", "right_square_bracket": "]", "left_curly_bracket": "{",
                 "right_curly_bracket": "}"}

        def view() -> tuple:
            return (tree.selected_entry, tree.cursor_row, tree.mode, tree.scroll_y, pane.scroll_y,
                    pane.show_thinking, pane.full_tool_output)

        async def press(key: str, timed: bool) -> dict | None:
            """Post ``key`` and wait for its last repaint; what it cost (None: nothing to do)."""
            await pilot.pause()
            await asyncio.sleep(0.05)  # (a worker's repaint after the last key is over)
            rec.reset()
            draws = getattr(pane, "render_count", 0)
            painted.clear()
            before = view()
            char = chars.get(key, key if len(key) == 1 else None)
            rec.on = timed
            if profiler is not None and timed:
                profiler.enable()
            t, cpu = time.perf_counter(), time.thread_time()
            app.post_message(events.Key(key, char))
            try:
                # the last repaint: none for 60 ms after it (none at all within 0.1 s and
                # nothing changed: a key with nothing to do, not timed)
                try:
                    await asyncio.wait_for(painted.wait(), 0.1)
                except asyncio.TimeoutError:
                    if view() == before:
                        return None
                    await asyncio.wait_for(painted.wait(), 5)
                while True:
                    painted.clear()
                    try:
                        await asyncio.wait_for(painted.wait(), 0.06)
                    except asyncio.TimeoutError:
                        break
            finally:
                rec.on = False
                if profiler is not None and timed:
                    profiler.disable()
            if view() == before or not rec.paints:
                return None  # (nothing to do: the repaint was someone else's)
            last_wall, last_cpu = rec.paints[-1]
            return {
                "key": key,
                "wall_ms": (last_wall - t) * 1000,
                "cpu_ms": (last_cpu - cpu) * 1000,
                "gc_ms": rec.gc_s * 1000,
                "gc_ms_by_generation": [round(x * 1000, 2) for x in rec.gc_by_gen],
                "paint_cpu_ms": rec.paint_s * 1000,
                "pane_draws": getattr(pane, "render_count", 0) - draws,
                "paints": len(rec.paints),
                "layouts": rec.layouts,
                "dirty": [d for d in rec.dirty if d],
                "crop": list(rec.crop),
                "lines": dict(rec.lines),
                "paint_gate_us": rec.paint_gate_s * 1e6,
            }

        first_mode = tree.mode
        for k in range(rounds):
            for key in app_open.KEYS:
                got = await press(key, True)
                if got is not None:
                    records.append({**got, "round": k + 1, "mode": tree.mode})
            # Every round from the same filter: the rounds' five f presses bring d66a267's
            # five filters back to the first, but not a tree with more filters, whose later
            # rounds would then move through other rows (and draw blocks never drawn).
            # Untimed presses of f bring it back (--no-reset: as app_open.py, not).
            for _ in range(12):
                if tree.mode == first_mode or not reset:
                    break
                await press("f", False)
        app.exit()
    if profiler is not None:
        profiler.dump_stats(profile)
    return {"entries": len(browser.session), "records": records, "load": os.getloadavg()[0]}


def summary(records: list[dict]) -> dict:
    """Per key: the medians; over all keys: median and p95 of wall and CPU, and the mean
    of the counts."""
    by_key: dict[str, list[dict]] = {}
    for r in records:
        by_key.setdefault(r["key"], []).append(r)

    def p95(vals: list[float]) -> float:
        vals = sorted(vals)
        return vals[max(0, int(len(vals) * 0.95) - 1)]

    out: dict = {"keys": {}}
    for key, rs in by_key.items():
        lines: Counter[str] = Counter()
        for r in rs:
            lines.update(r["lines"])
        out["keys"][key] = {
            "n": len(rs),
            "wall_ms": statistics.median(r["wall_ms"] for r in rs),
            "cpu_ms": statistics.median(r["cpu_ms"] for r in rs),
            "gc_ms": statistics.mean(r["gc_ms"] for r in rs),
            "paint_cpu_ms": statistics.median(r["paint_cpu_ms"] for r in rs),
            "pane_draws": statistics.mean(r["pane_draws"] for r in rs),
            "paints": statistics.mean(r["paints"] for r in rs),
            "layouts": statistics.mean(r["layouts"] for r in rs),
            "lines": {w: round(n / len(rs), 1) for w, n in lines.most_common()},
            "dirty": rs[0]["dirty"],
            "crop": rs[0]["crop"],
        }
    walls = [r["wall_ms"] for r in records]
    cpus = [r["cpu_ms"] for r in records]
    out.update(timed=len(records), wall_median_ms=statistics.median(walls), wall_p95_ms=p95(walls),
               cpu_median_ms=statistics.median(cpus), cpu_p95_ms=p95(cpus),
               cpu_total_ms=sum(cpus), gc_total_ms=sum(r["gc_ms"] for r in records),
               gc_total_ms_by_generation=[round(sum(r["gc_ms_by_generation"][g] for r in records), 1) for g in range(3)],
               paints_per_key=statistics.mean(r["paints"] for r in records),
               layouts_per_key=statistics.mean(r["layouts"] for r in records),
               lines_per_key=statistics.mean(sum(r["lines"].values()) for r in records),
               paint_gate_us_per_key=statistics.mean(r["paint_gate_us"] for r in records))
    return out


def _one(src: str, path: str, rounds: int, extra: list[str]) -> dict:
    """A fresh process of this script on the tree at ``src``."""
    import shutil
    import tempfile

    time.sleep(2)  # (the previous run's background work is over)
    cache = tempfile.mkdtemp(prefix="pitui-keywork-")
    cwd = tempfile.mkdtemp(prefix="pitui-keywork-cwd-")  # (the cwd would come before PYTHONPATH)
    try:
        env = {**os.environ, "PYTHONPATH": src, "PITUI_CACHE_DIR": cache}
        r = subprocess.run([sys.executable, os.path.abspath(__file__), path, "--rounds", str(rounds), *extra],
                           env=env, cwd=cwd, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"{src}: key_work.py failed: {r.stderr[-3000:]}")
        return json.loads(r.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(cwd, ignore_errors=True)


def compare(path: str, src: str, runs: int, rounds: int, extra: list[str]) -> dict:
    trees = {"now": REPO, "before": os.path.abspath(src)}
    for tree in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(tree, "pitui")], check=True,
                       stdout=subprocess.DEVNULL)
    got: dict[str, list[dict]] = {t: [] for t in trees}
    loads = []
    for k in range(runs):
        for who in (["now", "before"] if k % 2 == 0 else ["before", "now"]):
            res = _one(trees[who], path, rounds, extra)
            got[who].extend(res["records"])
            loads.append(res["load"])
            s = summary(res["records"])
            print(f"run {k + 1} {who}: wall median/p95 {s['wall_median_ms']:.1f}/{s['wall_p95_ms']:.1f} ms, "
                  f"cpu median/p95 {s['cpu_median_ms']:.1f}/{s['cpu_p95_ms']:.1f} ms; load {res['load']:.1f}",
                  flush=True)
    return {"file": path, "runs": runs, "rounds": rounds, "trees": trees, "load": loads,
            **{t: summary(got[t]) for t in trees}}


def report(res: dict) -> str:
    now, before = res["now"], res["before"]
    lines = [f"{res['runs']} runs of each tree in turns, {res['rounds']} rounds of keys each; load "
             f"{min(res['load']):.1f}-{max(res['load']):.1f}"]
    for t in ("now", "before"):
        s = res[t]
        lines.append(f"  {t} ({res['trees'][t]}): {s['timed']} keys; wall median / p95 {s['wall_median_ms']:.1f} / "
                     f"{s['wall_p95_ms']:.1f} ms; UI thread CPU median / p95 {s['cpu_median_ms']:.1f} / "
                     f"{s['cpu_p95_ms']:.1f} ms (total {s['cpu_total_ms']:.0f} ms, of it gc {s['gc_total_ms']:.0f} ms, by "
                     f"generation {s['gc_total_ms_by_generation']}); "
                     f"per key {s['paints_per_key']:.2f} paints, {s['layouts_per_key']:.2f} layouts, "
                     f"{s['lines_per_key']:.0f} lines drawn; PaintGate {s['paint_gate_us_per_key']:.1f} us")
    lines.append("  per key (medians, now | before): UI thread CPU ms (of it in the repaint, in gc (mean), blocks "
                 "the pane drew (mean)), wall ms, paints, layouts; lines drawn by widget")
    for key in now["keys"]:
        a, b = now["keys"][key], before["keys"].get(key)
        if b is None:
            continue
        lines.append(f"    {key:22} cpu {a['cpu_ms']:5.1f} | {b['cpu_ms']:5.1f} (repaint {a['paint_cpu_ms']:4.1f} | "
                     f"{b['paint_cpu_ms']:4.1f}, gc {a['gc_ms']:4.1f} | {b['gc_ms']:4.1f}, pane draws {a['pane_draws']:.1f} | "
                     f"{b['pane_draws']:.1f})   wall {a['wall_ms']:5.1f} | "
                     f"{b['wall_ms']:5.1f}   paints {a['paints']:.1f} | {b['paints']:.1f}   layouts "
                     f"{a['layouts']:.1f} | {b['layouts']:.1f}")
        lines.append(f"      now:    {a['lines']}")
        lines.append(f"      before: {b['lines']}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="key_work.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--compare", metavar="SRC")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--profile", metavar="OUT")
    ap.add_argument("--no-reset", action="store_true",
                    help="rounds go on from the filter the last one left (as app_open.py --keys)")
    ap.add_argument("--json", metavar="OUT")
    args = ap.parse_args(argv)
    path = os.path.abspath(args.file)
    if args.compare:
        res = compare(path, args.compare, args.runs, args.rounds, ["--no-reset"] if args.no_reset else [])
        print(report(res))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(res, f, indent=1)
        return 0
    res = asyncio.run(run_keys(path, args.rounds, args.profile, not args.no_reset))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
