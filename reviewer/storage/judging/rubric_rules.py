"""The rubric rules a project checks its judges' verdicts against
(reviewer.core.judging.rubric_rules): the built-in tarot plan's rules
(resources/tarot-rules.toml, package ``reviewer.resources``) until
``use_rules`` stores another file's rules in the project (``reviewer report
P --rules FILE``, ``reviewer agreement P --rules FILE``). Disputes are found
with the project's rules wherever they are refreshed (report, agreement,
export, the window)."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path

import yaml

from reviewer.core.bounded_yaml import load_yaml
from reviewer.core.judging.rubric_rules import RubricRules, RulesError, rubric_rules
from reviewer.storage.project.db import Project, ProjectError

__all__ = ["META_KEY", "PRESET", "preset_rules", "project_rules", "read_rules_file", "rules_source", "use_rules"]

#: The built-in rules file (in reviewer.resources).
PRESET = "tarot-rules.toml"
#: The meta key holding a project's own rules (JSON), and where they came from.
META_KEY = "rubric_rules"
_SOURCE_KEY = "rubric_rules.source"
#: The repository's resources/ folder, used when the package is not installed.
_SOURCE_TREE = Path(__file__).resolve().parents[2] / "resources"


def _parse(text: str, where: str, yaml_file: bool) -> RubricRules:
    try:
        data = load_yaml(text) if yaml_file else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as exc:
        raise ProjectError(
            f"{where}: not valid {'YAML' if yaml_file else 'TOML'}: {' '.join(str(exc).split())}"
        ) from None
    if not isinstance(data, dict):
        raise ProjectError(f"{where}: a rules file is a table of rules, gate and not_checkable")
    try:
        return rubric_rules(data, where)
    except RulesError as exc:
        raise ProjectError(str(exc)) from None


def read_rules_file(path: Path) -> RubricRules:
    """A rules file (TOML, or YAML for .yaml/.yml) as RubricRules.

    Raises:
        ProjectError: one line naming the file (and the bad entry) when it
            cannot be read, parsed or used (a bad regular expression, a
            requirement without a test, ...).
    """
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ProjectError(f"cannot read the rules file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ProjectError(f"{path}: not UTF-8 text") from None
    return _parse(text, str(path), path.suffix.lower() in (".yaml", ".yml"))


@lru_cache(maxsize=1)
def preset_rules() -> RubricRules:
    """The built-in tarot plan's rules (reviewer.resources, or the source
    tree's resources/ folder)."""
    try:
        text = resources.files("reviewer.resources").joinpath(PRESET).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        text = (_SOURCE_TREE / PRESET).read_text(encoding="utf-8")
    return _parse(text, PRESET, False)


def project_rules(project: Project) -> RubricRules:
    """The project's rules: those stored by :func:`use_rules`, else the preset."""
    stored = project.meta(META_KEY)
    if stored:
        try:
            return RubricRules.model_validate_json(stored)
        except ValueError:
            pass
    return preset_rules()


def rules_source(project: Project) -> str:
    """Where the project's rules come from: the file named to ``--rules``, or
    'resources/tarot-rules.toml (built in)'."""
    if project.meta(META_KEY):
        return project.meta(_SOURCE_KEY) or "a rules file"
    return f"resources/{PRESET} (built in)"


def use_rules(project: Project, rules: RubricRules, source: str, actor: str | None = None) -> None:
    """Make ``rules`` the project's rules (audited; derived data, so allowed in
    a read-only project's in-memory copy). ``source``: the file's name, shown
    in the report."""
    blob = rules.model_dump_json()
    with project.transaction(derived=True):
        if project.meta(META_KEY) != blob:
            project.audit("set", "meta", META_KEY, project_rules(project).name, rules.name, actor)
            project.set_meta(META_KEY, blob)
            project.set_meta(_SOURCE_KEY, source)
