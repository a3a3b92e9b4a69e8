"""People's labels back into inspect: `reviewer export-inspect P LOG OUT`
writes a copy of an inspect log in which each person's final label edits
the score of the scorer whose verdict was labelled, through inspect_ai's
own edit API (``inspect_ai.log.edit_score`` with a ``ScoreEdit`` and its
``ProvenanceData``: who, when, why), so `inspect view` shows the edits and
``read_eval_log`` reads them back. The original log is never changed.

Which labels: an adjudication of a run's dimension edits every scorer that
scored the dimension on the run; a label-first final label edits the score
of the judge (scorer) whose queue it was made from. The value goes back in
the scorer's own form: C/I/P as its letter, 0-100 as the letters the
scorer used (C 100, P 50, I 0) or as a number in the scorer's unit (0-1
when its values were). A dict score is edited key by key. Each epoch is a
run of its own, so a label of one epoch's run edits that epoch's score only
(an epochs-disagree dispute is settled epoch by epoch; decision record
"inspect-epochs-and-letters").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from reviewer.core.judging.label_first import LABEL_FIRST
from reviewer.core.judging.verdicts import Scale, Verdict, cip_letter, normalise
from reviewer.storage.files import safe_write as sw
from reviewer.storage.importers.inspect_log import INSTALL, SCORE
from reviewer.storage.judging import labels as label_store
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.epochs import epoch_source
from reviewer.storage.project.db import Project, ProjectError
from reviewer.storage.repo.sources import import_sources

__all__ = ["INSPECT_LOG", "export_inspect"]

INSPECT_LOG = sw.magic_format("inspect log", b"PK")


def _back(value: Any, scale: Scale, original: Any) -> Any:
    """A people's value in the scorer's form (module doc)."""
    if scale == Scale.CIP:
        return cip_letter(normalise(value, scale))
    if scale == Scale.PASS_FAIL:
        return {"pass": "C", "fail": "I"}.get(str(value))
    x = float(value)
    if isinstance(original, str):
        return {100.0: "C", 50.0: "P", 0.0: "I"}.get(x, x)
    if isinstance(original, (int, float)) and 0.0 <= float(original) <= 1.0:
        return x / 100.0
    return x


def export_inspect(project: Project, log_path: Path, target: Path, *, force: bool = False) -> int:
    """Write the edited copy (module doc); returns the scores edited.
    Raises ProjectError naming what to install without inspect_ai, or when
    ``target`` is the log itself."""
    try:
        from inspect_ai.log import ProvenanceData, edit_score, read_eval_log, write_eval_log
        from inspect_ai.scorer import ScoreEdit
    except ImportError:
        raise ProjectError(INSTALL) from None
    if target.resolve() == log_path.resolve():
        raise ProjectError(f"{target} is the log itself: write the edited copy elsewhere (the log is never changed)")
    log = read_eval_log(str(log_path))
    # a run is one epoch of one sample: its item's name (task/sample id) and its source (eval id, epoch)
    key_of = {
        (f"{log.eval.task}/{s.id}", epoch_source(log.eval.eval_id, s.epoch)): (s.id, s.epoch)
        for s in log.samples or []
        if s.id is not None
    }
    runs = {
        rid: key_of[(name, src)]
        for rid, name, src in project.db.execute(
            "SELECT runs.id, items.name, runs.source FROM runs JOIN items ON items.id = runs.item_id "
            "WHERE runs.source LIKE 'inspect %'"
        )
        if (name, src) in key_of
    }
    verdicts: dict[tuple[str, str, str], Verdict] = {}
    for v in judging.verdicts(project):
        if v.run_id in runs:
            for d in v.scores:
                verdicts[(v.subject, v.judge, d)] = v
    edits: list[tuple[str, str, str, Any, str, Any, str]] = []  # subject, judge, dim, value, who, when, why
    for a in judging.adjudications(project):
        for subject, judge, dim in list(verdicts):
            if subject == a.subject and dim == a.dimension and a.value is not None:
                edits.append((subject, judge, dim, a.value, a.reviewer, a.decided_at, a.rationale or "adjudicated"))
    for x in label_store.labels(project, LABEL_FIRST):
        if x.final_value is not None and x.judge is not None and (x.subject, x.judge, x.dimension) in verdicts:
            edits.append((x.subject, x.judge, x.dimension, x.final_value, x.reviewer, x.final_at, "label first"))
    done = 0
    for subject, judge, dim, value, who, when, why in edits:
        v = verdicts[(subject, judge, dim)]
        assert v.run_id is not None  # only verdicts of this log's runs are kept
        sample_id, epoch = runs[v.run_id]
        sample = next(s for s in log.samples or [] if s.id == sample_id and s.epoch == epoch)
        score = (sample.scores or {}).get(judge)
        if score is None:
            continue
        original = json.loads(v.raw or "{}").get("value")
        provenance = ProvenanceData(
            timestamp=when, author=str(who), reason=f"{why} (reviewer)", metadata={"reviewer": "reviewer"}
        )
        if dim == SCORE and not isinstance(score.value, dict):
            new: Any = _back(value, v.scale, original)
        else:
            new = dict(score.value) if isinstance(score.value, dict) else {}
            new[dim] = _back(value, v.scale, (original or {}).get(dim) if isinstance(original, dict) else None)
        edit_score(log, sample_id, judge, ScoreEdit(value=new, provenance=provenance), epoch=epoch)
        done += 1
    with sw.replacing(target, INSPECT_LOG, sources=[log_path, *import_sources(project)], force=force) as tmp:
        write_eval_log(log, str(tmp), format="eval")
    return done
