"""Judge prompt templates (resources/judges/<judge>-<version>/*.md, shipped
as the package ``reviewer.resources``) and filling them in.

Placeholders are ``{{NAME}}``; :func:`render` fills all of them in one pass,
so text put in (model output, untrusted) is never read for placeholders
again, unlike repeated string replacement.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from importlib import resources
from pathlib import Path

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
#: The repository's resources/ folder, used when the package is not installed
#: (a source checkout on PYTHONPATH).
_SOURCE_TREE = Path(__file__).resolve().parents[2] / "resources"


@lru_cache(maxsize=64)
@lru_cache(maxsize=64)
def load(folder: str, name: str) -> str:
    """The text of template ``judges/<folder>/<name>`` (UTF-8), read once per
    process (shipped templates do not change while it runs; a judge run asks
    for them, and for their rubric version, once per request). Raises
    FileNotFoundError when there is none."""
    try:
        path = resources.files("reviewer.resources").joinpath("judges", folder, name)
        if path.is_file():
            return path.read_text(encoding="utf-8")
    except ModuleNotFoundError:
        pass
    path = _SOURCE_TREE / "judges" / folder / name
    if not path.is_file():
        raise FileNotFoundError(f"no judge template judges/{folder}/{name}")
    return path.read_text(encoding="utf-8")


@lru_cache(maxsize=16)
def load_resource(name: str) -> str:
    """The text of ``resources/<name>`` (UTF-8), a template shipped beside
    the judge templates (the default test-case prompt). Raises
    FileNotFoundError when there is none."""
    try:
        path = resources.files("reviewer.resources").joinpath(name)
        if path.is_file():
            return path.read_text(encoding="utf-8")
    except ModuleNotFoundError:
        pass
    path = _SOURCE_TREE / name
    if not path.is_file():
        raise FileNotFoundError(f"no template {name} in reviewer.resources")
    return path.read_text(encoding="utf-8")


def render(template: str, values: Mapping[str, object]) -> str:
    """``template`` with every ``{{NAME}}`` in ``values`` replaced by
    ``str(value)``, in one pass; unknown placeholders are left as they are."""
    return _PLACEHOLDER.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], template)


def placeholders(template: str) -> set[str]:
    """The placeholder names a template uses."""
    return set(_PLACEHOLDER.findall(template))
