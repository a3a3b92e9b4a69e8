"""People's labels add up: every person's label is one human rating, and
people's value of a subject's dimension follows one rule.

*Human rating* (:class:`HumanRating`): one person's value of one dimension
of a subject, with its provenance: the rater (an annotator, the 'gold'
label, a reviewer), the queue it came from ('import': a human verdict
imported with the data; 'label-first': the label-first queue, its final
value), the value (first and final for a label-first label), its time and
the rubric version it was made under.

*People's value* (:func:`people_values`; decision record
hand-labels-are-not-judges), per subject and dimension, the first of:

1. the adjudicated value (a person's decision on a dispute);
2. the 'gold' label, where a dataset has one;
3. the majority of all people's final values: every imported annotator and
   every reviewer's label-first final value, one vote each. A tie gives no
   value; the subject is **tied** and counted apart (source 'tie').

So a few label-first labels beside a dataset's annotators add their votes
to the majority; they never replace the annotators, and a label made from
one judge's queue is a person's label on that subject and dimension for
every judge. Labels made while settling a dispute are the adjudication's
and count as it does. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from reviewer.core.judging.dispute_common import GOLD, is_human, primary_verdicts, value_of
from reviewer.core.judging.label_first import LABEL_FIRST, HumanLabel
from reviewer.core.judging.pairwise_agreement import majority
from reviewer.core.judging.verdicts import Adjudication, Scale, Value, Verdict

__all__ = ["ADJUDICATED", "IMPORT", "TIE", "HumanRating", "human_ratings", "people_values"]

#: Queue of a human verdict imported with the data (annotators, gold).
IMPORT = "import"
#: Source of a people's value settled by an adjudication.
ADJUDICATED = "adjudicated"
#: Source of a subject whose people tie: no value, counted apart.
TIE = "tie"

#: {(subject, dimension): (people's value, source, scale)}; see people_values.
People = dict[tuple[str, str], tuple[Any, str, Scale | None]]


@dataclass(frozen=True)
class HumanRating:
    """One person's value of one dimension of a subject (module doc).

    ``value``: the final value (normalised; a winner in the original
    order); ``first_value``: the label-first first label (None for an
    imported verdict); ``scale``: the verdict's scale (None for a label,
    whose value is already normalised on its judge's scale); ``at``: when
    the final value was made (None when unknown)."""

    subject: str
    dimension: str
    rater: str
    queue: str
    value: Value
    scale: Scale | None = None
    first_value: Value = None
    at: datetime | None = None
    rubric_version: str | None = None


def human_ratings(verdicts: Iterable[Verdict], labels: Iterable[HumanLabel] = ()) -> list[HumanRating]:
    """Every person's rating: the primary human verdicts (queue 'import',
    one per rater, subject and dimension) and the label-first labels with a
    final value (queue 'label-first'; dispute-queue labels are left to the
    adjudication they belong to)."""
    out = []
    for (subject, _), v in sorted(primary_verdicts(x for x in verdicts if is_human(x)).items()):
        for d in v.scores:
            out.append(
                HumanRating(subject, d, v.judge, IMPORT, value_of(v, d), v.scale, rubric_version=v.prompt_version)
            )
    for x in labels:
        if x.queue == LABEL_FIRST and x.final_value is not None:
            out.append(
                HumanRating(
                    x.subject,
                    x.dimension,
                    x.reviewer,
                    LABEL_FIRST,
                    x.final_value,
                    None,
                    x.first_value,
                    x.final_at,
                    x.rubric_version,
                )
            )
    return out


def people_values(
    verdicts: Iterable[Verdict], adjudications: Iterable[Adjudication] = (), labels: Iterable[HumanLabel] = ()
) -> People:
    """{(subject, dimension): (people's value, source, scale)} by the rule
    of the module doc; source 'adjudicated', 'gold', 'majority' or 'tie'
    (value None: counted apart, never compared). Adjudicated values are raw
    with scale None (normalised later on the judge's scale); a human
    verdict's value is normalised on its scale, which is given; label
    values are stored normalised."""
    out: People = {}
    by_key: dict[tuple[str, str], list[HumanRating]] = {}
    for r in human_ratings(verdicts, labels):
        by_key.setdefault((r.subject, r.dimension), []).append(r)
    for key, rs in by_key.items():
        scale = next((r.scale for r in rs if r.scale is not None), None)
        gold = [r.value for r in rs if r.rater == GOLD and r.queue == IMPORT and r.value is not None]
        if gold:
            out[key] = (gold[0], "gold", scale)
            continue
        votes = [r.value for r in rs if not (r.rater == GOLD and r.queue == IMPORT) and r.value is not None]
        if not votes:
            continue
        m = majority(votes)
        out[key] = (m, "majority", scale) if m is not None else (None, TIE, scale)
    for a in adjudications:
        if a.value is not None:
            out[(a.subject, a.dimension)] = (a.value, ADJUDICATED, None)
    return out
