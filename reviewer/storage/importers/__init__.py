"""Importers: bring items, ground truth, prompts and runs into a project.

``import_source`` detects the format of a source (a folder or a file) and
runs the matching importer; every importer is idempotent (importing the same
source twice adds nothing) and reports what it skipped and why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from reviewer.storage.db import Project, ProjectError, open_here
from reviewer.storage.sources import record_source
from reviewer.storage.importers.base import ImportOptions, ImportReport
from reviewer.storage.importers import answer_key, card_folder, jsonl_runs
from reviewer.storage.importers import rubric, span_snapshots
from reviewer.storage.importers import failter, jsonl_verdicts, pairwise
from reviewer.storage.importers import cases
from reviewer.storage.importers import span_golden
from reviewer.storage.gt_formats import IMPORTERS as GT_IMPORTERS, format_function


def _gt_format(module: str, detector: str, importer: str) -> tuple:
    """(detector, importer) of a ground-truth format, imported at first use."""
    return (lambda source: format_function(module, detector)(source),
            lambda project, source, options: format_function(module, importer)(project, source, options))

#: format name -> (detector, importer)
FORMATS = {
    **{name: _gt_format(*where) for name, where in GT_IMPORTERS.items()},  # labelme, coco, label-studio (docs/formats.md): before card-folder, which takes any photo folder
    "test-cases": (cases.detect, cases.import_cases),
    "pairwise-pandalm": (pairwise.detect_pandalm, pairwise.import_pandalm),
    "pairwise-llmbar": (pairwise.detect_llmbar, pairwise.import_llmbar),
    "failter": (failter.detect, failter.import_failter),
    "answer-key": (answer_key.detect, answer_key.import_answer_key),
    "card-folder": (card_folder.detect, card_folder.import_folder),
    "tarot-readings": (rubric.detect_folder, rubric.import_readings),
    "span-snapshot": (span_snapshots.detect, span_snapshots.import_snapshot),
    "span-golden-set": (span_golden.detect_golden_set, span_golden.import_golden_set),
    "span-golden-results": (span_golden.detect_golden_results, span_golden.import_golden_results),
    "rubric-verdicts": (rubric.detect_verdicts, rubric.import_verdicts),
    "jsonl-verdicts": (jsonl_verdicts.detect, jsonl_verdicts.import_jsonl_verdicts),
    "jsonl-runs": (jsonl_runs.detect, jsonl_runs.import_jsonl),
}


def detect_format(source: Path) -> Optional[str]:
    """The name of the first format whose detector accepts ``source``, or None."""
    for name, (detect, _) in FORMATS.items():
        if detect(source):
            return name
    return None


def import_source(
    project: Project, source: Path, fmt: Optional[str] = None, options: Optional[ImportOptions] = None
) -> ImportReport:
    """Import ``source`` into ``project`` in format ``fmt`` (detected when
    None). Raises ProjectError for a missing source or an unknown format,
    ReadOnlyProject (a ProjectError) for a project opened read-only. Long
    imports commit in short batches (``Project.batched``), so other writers
    get in; an interrupted import is completed by importing again. The
    source is recorded (reviewer.storage.sources)."""
    source = Path(source)
    if not source.exists():
        raise ProjectError(f"no such file or folder: {source}")
    if source.is_file() and open_here(source):  # reading it with open() would drop SQLite's locks
        raise ProjectError(f"{source} is a project open here, not a source to import")
    if fmt is None:
        fmt = detect_format(source)
        if fmt is None:
            raise ProjectError(
                f"cannot tell the format of {source}; give --format ({', '.join(FORMATS)})"
            )
    if fmt not in FORMATS:
        raise ProjectError(f"unknown format '{fmt}' (known: {', '.join(FORMATS)})")
    project.require_writable("import")
    record_source(project, source, fmt)  # first, so no export writes into it even after a killed import
    return FORMATS[fmt][1](project, source, options or ImportOptions())


__all__ = ["FORMATS", "ImportOptions", "ImportReport", "detect_format", "import_source"]
