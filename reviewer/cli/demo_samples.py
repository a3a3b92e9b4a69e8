"""The text-workflow samples of ``reviewer demo``: each of samples/spans,
samples/cases, samples/failter, samples/rubric, samples/pairwise, samples/promptfoo and samples/inspect (when inspect_ai is installed) imported into its own
project in the demo folder, with one summary line per workflow."""

from __future__ import annotations

from pathlib import Path

from reviewer.core.cases.report import seed_reports
from reviewer.storage.cases.cases import case_results, project_metrics
from reviewer.storage.importers import import_source
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import ProjectError, open_project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from reviewer.storage.spans import spans as span_store

#: workflow -> the sources to import in order, relative to the samples folder (format detected)
TEXT_SAMPLES: dict[str, tuple[str, ...]] = {
    "spans": ("spans/golden-set.json", "spans/golden-set-results-latest.json"),
    "cases": ("cases/orchard-line.json", "cases/answers.jsonl"),
    "failter": ("failter",),
    "rubric": ("rubric",),
    "pairwise": ("pairwise",),
    "promptfoo": ("promptfoo/results.json",),
    "inspect": ("inspect/quiz.json",),
}
#: workflow -> (the module its import needs, what to install when it is missing)
NEEDS = {"inspect": ("inspect_ai", "pip install 'reviewer[inspect]'")}


def import_text_sample(samples: Path, workflow: str, db: Path) -> str:
    """Import the ``workflow`` sample (a key of TEXT_SAMPLES) from the
    ``samples`` folder into project ``db`` (created if missing; importing
    again adds nothing) and return its summary line: items, runs, verdicts,
    for spans the relaxed span F1 of each labeler, for cases each model's
    passed and total cases (the seed report). Raises ProjectError
    when a sample file is missing."""
    if workflow in NEEDS:
        from importlib.util import find_spec

        module, install = NEEDS[workflow]
        if find_spec(module) is None:
            return f"{workflow}: skipped: the sample needs {module} ({install})"
    project = open_project(db, create=True)
    try:
        for rel in TEXT_SAMPLES[workflow]:
            source = samples / rel
            if not source.exists():
                raise ProjectError(f"the bundled sample is missing ({source})")
            import_source(project, source)
        parts = [
            f"{len(repo_items.items(project))} items",
            f"{len(repo_runs.run_rows(project, with_output=False))} runs",
            f"{len(judging.verdicts(project))} verdicts",
        ]
        if workflow == "spans":
            for group, f1 in sorted(span_store.f1_by_group(project).items()):
                parts.append(f"relaxed span F1 {f1['relaxed']['all'].f1:.3f} ({group})")
        if workflow == "cases":
            metrics = project_metrics(project)
            for r in seed_reports(case_results(project, metrics), metrics, "auto"):
                parts.append(f"passed {r.passedCases}/{r.totalCases} cases ({r.modelInfo.modelId})")
    finally:
        project.close()
    return f"{workflow}: {db.name}: " + ", ".join(parts)


__all__ = ["NEEDS", "TEXT_SAMPLES", "import_text_sample"]
