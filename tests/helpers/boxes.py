"""The scored bounding-boxes run of an item: shared by the pre-annotation and
box-command tests."""

from __future__ import annotations

from reviewer.storage.cards.scores import scored_runs


def boxes_run(project, item: str, rep: int = 1):
    return next(
        r
        for r in scored_runs(project)
        if (r.run["item"], r.run["prompt"], r.run["repetition"]) == (item, "bounding-boxes", rep)
    )
