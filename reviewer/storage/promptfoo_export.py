"""People's labels back into promptfoo: `reviewer export-promptfoo P OUT.yaml`
writes promptfoo test cases (the ``TestCase`` schema of promptfoo 0.123:
``description``, ``vars``, ``providerOutput``, ``assert``, ``metadata``)
from the runs imported from promptfoo results that people labelled.

One test case per labelled run: its variables as imported, the run's
output as ``providerOutput`` (so promptfoo grades it without calling the
provider), and each assertion the run was graded with, expecting people's
label: the assertion as it was when people passed the output, negated
(``not-<type>``) when they failed it. The next `promptfoo eval -c OUT.yaml`
then fails exactly where a grader disagrees with people. People's value is
that of `reviewer alignment` (adjudicated, else gold, else the majority).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reviewer.core.judging.dispute_common import is_human
from reviewer.core.judging.people import TIE
from reviewer.storage.files import safe_write as sw
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.validation import people_and_splits, split_seed_of
from reviewer.storage.project.db import Project
from reviewer.storage.repo.sources import import_sources

__all__ = ["PROMPTFOO_TESTS", "promptfoo_tests", "write_promptfoo_tests"]


def _is_tests(path: Path) -> bool:
    import yaml

    from reviewer.core.bounded_yaml import read_yaml_file

    try:
        data = read_yaml_file(path)
    except (OSError, ValueError, yaml.YAMLError):  # YAMLLimitError is a YAMLError
        return False
    return isinstance(data, list) and all(isinstance(t, dict) and "assert" in t for t in data)


#: The file export-promptfoo writes: a YAML list of promptfoo test cases.
PROMPTFOO_TESTS = sw.FileFormat("promptfoo test cases (YAML)", _is_tests)


def promptfoo_tests(project: Project) -> list[dict]:
    """The test cases (module doc), in run order."""
    vs = judging.verdicts(project)
    people, _ = people_and_splits(project, vs, judging.adjudications(project), split_seed_of(project))
    asserts: dict[int, list[dict]] = {}
    for v in vs:
        if is_human(v) or v.run_id is None:
            continue
        try:
            raw = json.loads(v.raw or "{}")
        except ValueError:
            continue
        assertion = raw.get("assertion") if isinstance(raw, dict) else None
        if isinstance(assertion, dict) and isinstance(assertion.get("type"), str):
            asserts.setdefault(v.run_id, []).append(assertion)
    out = []
    rows = project.db.execute(
        "SELECT r.id, r.output, r.model, i.name, i.metadata FROM runs r JOIN items i ON i.id = r.item_id ORDER BY r.id"
    ).fetchall()
    for run_id, output, model, name, metadata in rows:
        checks = asserts.get(run_id)
        ref = people.get((f"run:{run_id}", "pass"))
        if not checks or ref is None or ref[1] == TIE or ref[0] not in ("pass", "fail"):
            continue
        meta = json.loads(metadata or "{}")
        expected = []
        for a in checks:
            kind = a["type"]
            negated = kind.startswith("not-")
            base = kind[4:] if negated else kind
            passes = (ref[0] == "pass") != negated
            entry: dict[str, Any] = {"type": base if passes else f"not-{base}"}
            for key in ("value", "provider", "metric", "threshold"):
                if key in a:
                    entry[key] = a[key]
            expected.append(entry)
        out.append(
            {
                "description": f"{meta.get('description') or name}: people {'passed' if ref[0] == 'pass' else 'failed'} "
                f"{model}'s output",
                "vars": meta.get("vars") if isinstance(meta.get("vars"), dict) else {},
                "providerOutput": output,
                "assert": expected,
                "metadata": {
                    "reviewer_item": name,
                    "reviewer_model": model,
                    "reviewer_label": ref[0],
                    "reviewer_source": ref[1],
                },
            }
        )
    return out


def write_promptfoo_tests(project: Project, target: Path, *, force: bool = False) -> int:
    """Write the test cases as YAML (safe_write: a file reviewer did not
    write is refused unless ``force``). Returns how many were written."""
    import yaml

    tests = promptfoo_tests(project)
    text = "# promptfoo test cases written by reviewer: people's labels as expected values\n" + yaml.safe_dump(
        tests, sort_keys=False, allow_unicode=True
    )
    sw.write_text(target, text, PROMPTFOO_TESTS, sources=import_sources(project), force=force)
    return len(tests)
