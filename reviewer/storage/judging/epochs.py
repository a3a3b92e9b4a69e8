"""The epochs of an inspect_ai sample: inspect runs each sample several
times (epochs); each epoch's output is a run of the log's model whose source
is ``inspect <eval id> epoch <n>`` (:func:`epoch_source`, written by the
inspect importer, read by ``reviewer export-inspect``). The runs of one
item with the same eval id are the epochs of one sample, and their subjects
are compared for epochs-disagree disputes
(reviewer.core.judging.disputes; decision record "inspect-epochs-and-letters").
"""

from __future__ import annotations

import re

from reviewer.storage.project.db import Project

__all__ = ["epoch_source", "epoch_subjects", "parse_epoch_source"]

_SOURCE = re.compile(r"^inspect (\S+) epoch (\d+)$")


def epoch_source(eval_id: str, epoch: int) -> str:
    """The source of the run of one epoch of one inspect eval."""
    return f"inspect {eval_id} epoch {epoch}"


def parse_epoch_source(source: str | None) -> tuple[str, int] | None:
    """(eval id, epoch) of a run's source written by :func:`epoch_source`;
    None for any other source."""
    m = _SOURCE.match(source or "")
    return (m.group(1), int(m.group(2))) if m else None


def epoch_subjects(project: Project) -> dict[str, tuple[str, int]]:
    """{``run:<id>``: (sample, epoch)} of the runs that are epochs of an
    inspect sample with at least one other epoch; the sample reads
    ``<item name> (eval <eval id>)``. Reads only."""
    rows = project.db.execute(
        "SELECT runs.id, items.name, runs.source FROM runs JOIN items ON items.id = runs.item_id "
        "WHERE runs.source LIKE 'inspect % epoch %'"
    ).fetchall()
    found: dict[str, tuple[str, int]] = {}
    count: dict[str, int] = {}
    for run_id, name, source in rows:
        parsed = parse_epoch_source(source)
        if parsed is None:
            continue
        sample = f"{name} (eval {parsed[0]})"
        found[f"run:{run_id}"] = (sample, parsed[1])
        count[sample] = count.get(sample, 0) + 1
    return {s: v for s, v in found.items() if count[v[0]] > 1}
