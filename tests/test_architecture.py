"""The layering of DEVELOPERS.md, enforced with import-linter's contracts
(pyproject.toml [tool.importlinter]): core imports no Qt, SQL or HTTP."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    exe = Path(sys.executable).with_name("lint-imports")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "importlinter.cli"]
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert "core is pure" in result.stdout, result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr


def test_core_really_imports_nothing_forbidden():
    """Belt and braces: import every core module in a fresh interpreter and
    check that no forbidden package was loaded."""
    code = (
        "import pkgutil, importlib, sys, reviewer.core as c\n"
        "for m in pkgutil.walk_packages(c.__path__, 'reviewer.core.'): importlib.import_module(m.name)\n"
        "bad = [m for m in ('PySide6', 'sqlite_utils', 'httpx', 'sqlite3') if m in sys.modules]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
