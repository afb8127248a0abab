"""``python -m tools.demo [--out DIR]``, from the repository root: write the demo sessions.

By default into ``pitui/demo/sessions/``, the store ``pitui --demo`` opens. The output is
the same on every run (fixed seeds and start times), so running it changes the shipped
files only when a story changed; tests/core/test_demo_data.py checks that they match."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.demo.build import DEFAULT_OUT, build


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m tools.demo", description="Write pitui's demo sessions.")
    ap.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="the sessions folder to write, emptied first (default: %(default)s)"
    )
    out = ap.parse_args(argv).out.resolve()
    try:
        written = build(out)
    except FileExistsError as e:
        sys.exit(str(e))
    for p in written:
        print(f"{p.stat().st_size:>8}  {p.relative_to(out.parent)}")
    print(f"{sum(p.stat().st_size for p in written):>8}  total ({len(written)} files)")


if __name__ == "__main__":
    main()
