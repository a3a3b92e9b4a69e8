"""Versioned rubrics and judges, and the staleness of their comparison with
people.

*Rubric version* (:func:`rubric_version`): '<template folder>@<12 hex>', the
hash (SHA-256) of the judge template's text (the files it is made of, by
name) and its dimension list. The judge pipeline stores it in each
verdict's ``prompt_version`` beside ``judge_model``; a human label records
the rubric version it was made under. Editing one character of the
template, or adding a dimension, gives a new version.

An imported judge that names no rubric version gets one
(:func:`imported_version`): a hash of its settings in the import source.

*Staleness* (:func:`staleness`): a judge's *current* state is the rubric
version and model of its latest verdict (highest id). The figures that
compare the judge with people on a dimension are stale when a fair-sample
label compared with it was made under another rubric version, or when its
verdicts on labelled subjects come from another rubric version or model
than the current one. The report names the labels that still apply (made
under the current version) and the dimensions that need labels again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from reviewer.core import templates
from reviewer.core.judging.dispute_common import is_human
from reviewer.core.judging.label_first import HumanLabel
from reviewer.core.judging.verdicts import Verdict

__all__ = [
    "RUBRIC_FILES",
    "Staleness",
    "imported_version",
    "rubric_folder",
    "rubric_for",
    "rubric_text",
    "rubric_version",
    "staleness",
    "with_version",
]

#: The shipped template whose criteria a pairwise verdict is read against
#: when its own rubric version names no shipped template (an imported
#: benchmark: LLMBar's 'Vanilla', PandaLM's judges).
PAIRWISE_TEMPLATE = "pairwise-v1"

#: The file of each shipped template folder that holds the rubric as a
#: reviewer reads it (shown in label-first mode).
RUBRIC_FILES = {
    "failter-v1": "letter-grade.md",
    "tarot-rubric-v2.0.0": "system.md",
    "pairwise-v1": "system.md",
    "span-v1": "system.md",
}


def rubric_version(folder: str, files: Sequence[str], dimensions: Sequence[str]) -> str:
    """'<folder>@<first 12 hex of SHA-256>' over each template file's name
    and text (templates.load(folder, name), in the order given) and the
    dimension names in order. Raises FileNotFoundError for a missing file."""
    h = hashlib.sha256()
    for name in files:
        h.update(f"file\0{name}\0".encode())
        h.update(templates.load(folder, name).encode("utf-8"))
        h.update(b"\0")
    h.update(("dimensions\0" + "\0".join(dimensions)).encode("utf-8"))
    return f"{folder}@{h.hexdigest()[:12]}"


def imported_version(v: Verdict) -> str:
    """The rubric version of an imported judge's verdict that names none:
    'import@<first 12 hex of SHA-256>' of the judge's settings in the
    source (judge, model, method, scale and the dimension names, as JSON
    with sorted keys), so every verdict of one judge in one source gets the
    same version and a judge imported with other settings another."""
    settings = {
        "judge": v.judge,
        "judge_model": v.judge_model,
        "method": v.method.value,
        "scale": v.scale.value,
        "dimensions": sorted(v.scores),
    }
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode("utf-8")).hexdigest()
    return f"import@{digest[:12]}"


def with_version(v: Verdict) -> Verdict:
    """``v`` itself when it names a rubric version or is a person's label,
    else a copy with :func:`imported_version`."""
    if v.prompt_version is not None or is_human(v):
        return v
    return v.model_copy(update={"prompt_version": imported_version(v)})


def rubric_folder(version: str | None) -> str | None:
    """The template folder of a rubric version ('tarot-rubric-v2.0.0' of
    'tarot-rubric-v2.0.0@ab12...'), None for None."""
    return None if version is None else version.split("@", 1)[0]


def rubric_text(version: str | None) -> str:
    """The rubric a reviewer reads for a rubric version: the folder's rubric
    file (RUBRIC_FILES) when shipped, else ''."""
    folder = rubric_folder(version)
    name = RUBRIC_FILES.get(folder or "")
    if name is None:
        return ""
    try:
        return templates.load(folder, name).strip()
    except FileNotFoundError:
        return ""


def rubric_for(version: str | None, dimension: str, scale: str) -> str:
    """The rubric a reviewer reads for a judge's verdicts on ``dimension``
    (``scale``: the verdicts' scale value, e.g. 'winner'): the version's
    shipped rubric (``rubric_text``); for a pairwise winner without one, the
    criteria of the shipped pairwise judge template (what a good answer is,
    the dataset's instruction being the item shown beside it); else one line
    naming the dimension and its scale."""
    text = rubric_text(version)
    if text:
        return text
    if scale == "winner":
        text = rubric_text(PAIRWISE_TEMPLATE)
        if text:
            return text
    return f"Score '{dimension}' on the {scale} scale."


@dataclass(frozen=True)
class Staleness:
    """Whether one judge's comparison with people on one dimension is stale.

    ``version``, ``model``: the judge's current rubric version and model;
    ``old_labels``: (subject, reviewer, rubric version) of fair-sample labels
    made under another version; ``labels_apply``: (subject, reviewer) of
    those made under the current one; ``old_verdicts``: labelled subjects
    whose judge verdict has another version or model than the current.
    """

    judge: str
    dimension: str
    version: str | None
    model: str | None
    old_labels: list[tuple[str, str, str | None]] = field(default_factory=list)
    labels_apply: list[tuple[str, str]] = field(default_factory=list)
    old_verdicts: list[str] = field(default_factory=list)

    @property
    def stale(self) -> bool:
        """Some compared label or verdict predates the current rubric or model."""
        return bool(self.old_labels or self.old_verdicts)

    @property
    def needs_labels(self) -> bool:
        """The dimension needs labels again (labels under an old rubric)."""
        return bool(self.old_labels)

    def as_dict(self) -> dict:
        """JSON-ready."""
        return {
            "judge": self.judge,
            "dimension": self.dimension,
            "stale": self.stale,
            "rubric_version": self.version,
            "judge_model": self.model,
            "needs_labels_again": self.needs_labels,
            "labels_that_apply": [{"subject": s, "reviewer": r} for s, r in self.labels_apply],
            "old_labels": [{"subject": s, "reviewer": r, "rubric_version": v} for s, r, v in self.old_labels],
            "old_verdicts": list(self.old_verdicts),
        }

    def text(self) -> str:
        """One line for the report."""
        if not self.stale:
            return f"{self.judge} / {self.dimension}: current (rubric {self.version})"
        parts = []
        if self.old_labels:
            parts.append(
                f"{len(self.old_labels)} label(s) made under another rubric; '{self.dimension}' needs labels again"
            )
        if self.old_verdicts:
            parts.append(f"{len(self.old_verdicts)} verdict(s) from another rubric or model")
        apply = ", ".join(f"{s} ({r})" for s, r in self.labels_apply) or "none"
        return (
            f"STALE {self.judge} / {self.dimension} (rubric {self.version}, model {self.model or '-'}): "
            + "; ".join(parts)
            + f"; labels that still apply: {apply}"
        )


def staleness(judge: str, verdicts: Iterable[Verdict], labels: Iterable[HumanLabel]) -> list[Staleness]:
    """Per dimension of ``judge`` that has fair-sample labels made with
    this judge (label.judge == judge), the staleness of its comparison with
    people (module doc), by dimension. ``verdicts``: the judge's verdicts
    (any order or repetition; the latest is the one with the highest id)."""
    vs = sorted(verdicts, key=lambda v: (v.id is None, v.id or 0))
    if not vs:
        return []
    latest = vs[-1]
    current = (latest.prompt_version, latest.judge_model)
    state: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    for v in vs:  # the latest verdict per subject and dimension speaks for it
        for d in v.scores:
            state[(v.subject, d)] = (v.prompt_version, v.judge_model)
    by_dim: dict[str, list[HumanLabel]] = {}
    for lab in labels:
        if lab.is_fair and lab.judge == judge:
            by_dim.setdefault(lab.dimension, []).append(lab)
    out = []
    for dim in sorted(by_dim):
        labs = sorted(by_dim[dim], key=lambda x: (x.subject, x.reviewer))
        old = [(x.subject, x.reviewer, x.rubric_version) for x in labs if x.rubric_version != current[0]]
        apply = [(x.subject, x.reviewer) for x in labs if x.rubric_version == current[0]]
        subjects = sorted({x.subject for x in labs})
        old_verdicts = [s for s in subjects if (s, dim) in state and state[(s, dim)] != current]
        out.append(Staleness(judge, dim, current[0], current[1], old, apply, old_verdicts))
    return out
