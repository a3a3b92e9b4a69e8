"""No module of reviewer reaches into another module's private names: a name
with a leading underscore (dunder names aside) is neither imported
(``from reviewer.x import _y``) nor read as an attribute of an imported
reviewer module (``module._y``, ``reviewer.x._y``). A piece two modules
share is public, with a docstring, in the module that owns it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "reviewer"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` as a string, or None when the expression is not a plain dotted name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _imports(tree: ast.AST, where: str, found: list[str]) -> dict[str, str]:
    """The reviewer modules ``tree`` binds, local name -> module; each
    ``from reviewer.x import _y`` is added to ``found`` on the way."""
    modules: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "reviewer":
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"{where}:{node.lineno}: from {node.module} import {alias.name}")
                elif _is_module(f"{node.module}.{alias.name}"):
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "reviewer":
                    modules[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else "reviewer"
    return modules


def _module_read(node: ast.Attribute, modules: dict[str, str]) -> str | None:
    """The dotted name of a private attribute read off an imported reviewer
    module (``db._x``, ``reviewer.storage.project.db._x``), None for any other read."""
    dotted = _dotted(node.value)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    if head not in modules:
        return None
    if modules[head] == "reviewer" and not rest:
        return None
    if modules[head] != "reviewer" and rest:
        return None  # an attribute of something the module holds, not of the module
    module = modules[head] + (f".{rest}" if rest and modules[head] == "reviewer" else "")
    return dotted if _is_module(module) else None


def private_uses(source: str, where: str = "<source>") -> list[str]:
    """Every place in ``source`` that imports or reads another reviewer
    module's private name, as "where:line: text"."""
    tree = ast.parse(source)
    found: list[str] = []
    modules = _imports(tree, where, found)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            dotted = _module_read(node, modules)
            if dotted is not None:
                found.append(f"{where}:{node.lineno}: {dotted}.{node.attr}")
    return found


def test_no_private_name_crosses_a_module():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += private_uses(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert not found, "private names used across modules:\n" + "\n".join(found)


def test_the_check_finds_each_form():
    source = (
        "import reviewer.storage.project.db as dbmod\n"
        "import reviewer.storage.project.db\n"
        "from reviewer.storage.project import db\n"
        "from reviewer.cli.common import _friendly, echo\n"
        "from reviewer.storage.project.db import __doc__\n"
        "db._connect\n"
        "dbmod._connect\n"
        "reviewer.storage.project.db._connect\n"
        "db.__name__\n"
        "db.Project._private_method\n"
        "self._own\n"
    )
    found = private_uses(source)
    assert [line.split(": ", 1)[1] for line in found] == [
        "from reviewer.cli.common import _friendly",
        "db._connect",
        "dbmod._connect",
        "reviewer.storage.project.db._connect",
    ]
