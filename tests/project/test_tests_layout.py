"""The tests' own layout (docs/contributing.md#where-a-test-goes): a test
module sits at tests/<workflow>/<layer>/, or in one of the cross-cutting
folders; and no module under tests/ imports a test module or a conftest.py,
so what several test modules share lives in tests/helpers/ or in a
conftest.py fixture."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"

#: "shared" holds the tests of workflow-independent pieces
WORKFLOWS = ("cards", "spans", "cases", "judging", "shared")
LAYERS = ("core", "storage", "pipeline", "cli", "qt")
#: the cross-cutting folders: by concern, not by workflow (docs/reliability.md cites the first)
CROSS_CUTTING = ("reliability", "project")
MODULE_NAME = re.compile(r"tests(\.\w+)+")


def imported_modules(path: Path) -> list[str]:
    """Every module that ``path`` imports, lazy imports inside functions and
    dotted module names in strings included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_NAME.fullmatch(node.value):
            found.append(node.value)  # a module imported by its name (importlib, a registry's parts)
    return found


def imports_of_test_modules(tests: Path) -> list[str]:
    """``file: module`` for each import of a test module or a conftest.py by
    a Python file under ``tests``."""
    bad = []
    for path in sorted(tests.rglob("*.py")):
        for module in imported_modules(path):
            last = module.rsplit(".", 1)[-1]
            if module.split(".")[0] in ("tests", "conftest") and (last.startswith("test_") or last == "conftest"):
                bad.append(f"{path.relative_to(tests.parent)}: {module}")
    return bad


def test_no_module_under_tests_imports_a_test_module_or_a_conftest():
    assert imports_of_test_modules(TESTS) == []


def test_the_check_finds_an_import_of_a_test_module_lazy_or_not(tmp_path):
    tests = tmp_path / "tests"
    (tests / "cards" / "core").mkdir(parents=True)
    (tests / "cards" / "core" / "test_a.py").write_text("from tests.cards.core.test_b import helper\n")
    (tests / "cards" / "core" / "test_b.py").write_text("def f():\n    from tests.conftest import ROOT\n")
    (tests / "cards" / "core" / "test_c.py").write_text(
        "import tests.helpers.paths\nfrom tests.helpers import window\n"
    )
    assert imports_of_test_modules(tests) == [
        "tests/cards/core/test_a.py: tests.cards.core.test_b",
        "tests/cards/core/test_b.py: tests.conftest",
    ]


def test_each_test_module_sits_by_workflow_then_layer():
    misplaced = []
    for path in sorted(TESTS.rglob("test_*.py")):
        parts = path.relative_to(TESTS).parts
        if parts[0] in ("helpers", "fixtures"):
            misplaced.append(str(path.relative_to(ROOT)))
        elif parts[0] in CROSS_CUTTING:
            if len(parts) != 2:
                misplaced.append(str(path.relative_to(ROOT)))
        elif len(parts) != 3 or parts[0] not in WORKFLOWS or parts[1] not in LAYERS:
            misplaced.append(str(path.relative_to(ROOT)))
    assert misplaced == [], "see docs/contributing.md#where-a-test-goes"


def test_test_module_names_are_unique():
    """The test folders are not packages, so pytest imports each test module
    by its file name alone: two of one name would clash."""
    names = Counter(p.name for p in TESTS.rglob("test_*.py"))
    assert [n for n, k in names.items() if k > 1] == []
