"""A Batch output file (``id``, ``custom_id``, ``response``, ``error`` per
line), as a provider's Batch API and vLLM's ``run_batch`` write it: the
answers to requests written with ``--batch-out``.

Its answers are stored as a live run stores them, which takes the runner
(reviewer.pipeline.batch.import_output; ``reviewer import`` calls it). Here
are only the detector, so the format is found in the one list of formats,
and an importer that says where the file goes.
"""

from __future__ import annotations

import json
from pathlib import Path

from reviewer.storage.project.db import Project, ProjectError


def detect(path: Path) -> bool:
    """True when ``path`` is a file whose first line is a JSON object with
    ``custom_id`` and ``response`` or ``error``."""
    if not path.is_file():
        return False
    try:
        with open(path, "rb") as fh:
            first = fh.readline(1_000_000)
        value = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(value, dict) and "custom_id" in value and ("response" in value or "error" in value)


def import_batch_output(project: Project, source: Path, options: object = None) -> None:
    """Refused here: a Batch output file is imported by the runner
    (reviewer.pipeline.batch.import_output, which ``reviewer import`` uses).
    Raises ProjectError saying so."""
    raise ProjectError(f"{source} is a Batch output file: import it with 'reviewer import PROJECT {source}'")
