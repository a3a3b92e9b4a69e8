"""The layering of docs/architecture.md, enforced with import-linter's contracts
(pyproject.toml [tool.importlinter]): core imports no Qt, SQL or HTTP; the
workflow packages of core and of storage are independent of each other. And
no two modules of reviewer/ import each other ("dependencies point one way"):
import-linter checks the layers between packages, the last tests here check
every pair of modules, lazy imports inside functions included, by reading the
source (nothing is imported)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_hold():
    exe = Path(sys.executable).with_name("lint-imports")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "importlinter.cli"]
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert "core is pure" in result.stdout, result.stdout + result.stderr
    assert "storage workflows are independent of each other" in result.stdout, result.stdout + result.stderr
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


#: The package whose modules must not import each other.
PACKAGE = ROOT / "reviewer"


def path_root(path: Path) -> Path:
    """The folder holding the top package of ``path`` (the first parent
    without an __init__.py)."""
    folder = path.parent
    while (folder / "__init__.py").exists():
        folder = folder.parent
    return folder


def module_name(path: Path) -> str:
    """reviewer/storage/project/db.py -> reviewer.storage.project.db; a package's
    __init__.py is the package."""
    parts = list(path.relative_to(path_root(path)).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = PACKAGE) -> dict[str, Path]:
    """{module name: file} of every Python file under ``root``."""
    return {module_name(p): p for p in sorted(root.rglob("*.py"))}


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that module ``name`` (file ``path``)
    imports anywhere in its source: at the top, inside functions or under
    TYPE_CHECKING. ``from P import x`` names module P.x when that is a
    module, else P; relative imports are resolved against the module's
    package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        out.update(t for t in targets if t in known and t != name)
    return out


def mutual_pairs(root: Path = PACKAGE) -> list[tuple[str, str]]:
    """Every pair (A, B), A < B, of modules under ``root`` that import each other."""
    found = modules(root)
    known = set(found)
    graph = {name: imported(name, path, known) for name, path in found.items()}
    return sorted((a, b) for a, targets in graph.items() for b in targets if a < b and a in graph.get(b, ()))


def test_no_two_modules_import_each_other():
    pairs = mutual_pairs()
    assert not pairs, "modules that import each other: " + "; ".join(f"{a} <-> {b}" for a, b in pairs)


@pytest.mark.parametrize("lazy", [False, True])
def test_the_check_finds_a_pair_even_through_a_lazy_import(tmp_path, lazy):
    """The check is not vacuous: two modules of a package that import each
    other (one of them inside a function) are found; one way is allowed."""
    pkg = tmp_path / "reviewer" / "pkg"
    pkg.mkdir(parents=True)
    (tmp_path / "reviewer" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from reviewer.pkg import b\n")
    body = "def f():\n    from . import a\n" if lazy else "from reviewer.pkg.a import x\n"
    (pkg / "b.py").write_text(body)
    (pkg / "c.py").write_text("import reviewer.pkg.a\n")
    assert mutual_pairs(tmp_path / "reviewer") == [("reviewer.pkg.a", "reviewer.pkg.b")]


def test_span_judge_findings_are_stored_by_one_module():
    """docs/architecture.md: "where are span judge findings stored?" has one
    answer. Only storage/spans/judge_findings.py turns a span judge's result
    into findings (core.spans.snapshots.judge_findings) outside core."""

    def uses(path: Path) -> bool:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module == "reviewer.core.spans.snapshots"
                and any(a.name == "judge_findings" for a in node.names)
            ):
                return True
            if isinstance(node, ast.Attribute) and node.attr == "judge_findings":
                return True
        return False

    users = sorted(name for name, path in modules().items() if not name.startswith("reviewer.core.") and uses(path))
    assert users == ["reviewer.storage.spans.judge_findings"]


def test_the_architecture_page_names_modules_that_exist():
    """Every reviewer/ file that docs/architecture.md names is in the tree."""
    import re

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"reviewer/[\w/]+\.py", text))
    assert "reviewer/storage/spans/judge_findings.py" in named
    assert [p for p in sorted(named) if not (ROOT / p).exists()] == []
