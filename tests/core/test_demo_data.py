"""The demo sessions shipped in the package are exactly what their generator writes,
byte for byte: the data and tools/demo cannot drift apart."""

from __future__ import annotations

from pathlib import Path

from pitui.demo import DEMO_ROOT
from tools.demo.build import build


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _first_difference(a: bytes, b: bytes) -> str:
    """Where two files part: the line number and both versions of that line."""
    la, lb = a.split(b"\n"), b.split(b"\n")
    for n, (x, y) in enumerate(zip(la, lb), 1):
        if x != y:
            return f"line {n}: generated {x[:200]!r}, shipped {y[:200]!r}"
    return f"generated {len(la)} lines, shipped {len(lb)}"


def test_the_generator_writes_the_shipped_demo_sessions(tmp_path):
    out = tmp_path / "sessions"
    build(out)
    made = _files(out)
    shipped = _files(Path(DEMO_ROOT))
    assert sorted(made) == sorted(shipped)
    for name, data in shipped.items():
        # (run python -m tools.demo from the repository root to write the files again)
        assert made[name] == data, f"{name}: {_first_difference(made[name], data)}"
