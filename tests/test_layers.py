"""The layers hold: pitui.core never imports Textual or Rich, checked two ways.

Statically by import-linter's contracts in pyproject.toml (every import in the source,
including those inside functions), and at run time here: each core module imported alone
in a fresh interpreter, then ``sys.modules`` looked at (an import made by a dependency, or
one built from a string, that the static check cannot see).
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import pitui.core

REPO = Path(__file__).resolve().parent.parent
CORE_MODULES = sorted(m.name for m in pkgutil.walk_packages(pitui.core.__path__, "pitui.core."))


def test_every_core_module_is_found():
    # walk_packages must see the subpackages, or the run-time check below checks nothing
    assert "pitui.core.read.session" in CORE_MODULES
    assert len(CORE_MODULES) >= 25


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_module_imports_neither_textual_nor_rich(module):
    code = (f"import sys, importlib; importlib.import_module({module!r}); "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')); "
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"{module} pulls in {out.stdout.strip()}"


def test_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    out = subprocess.run([str(lint), "--config", str(REPO / "pyproject.toml")], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
