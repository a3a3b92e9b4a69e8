"""Several annotators of the ground truth (docs/cards.md#several-annotators): agreement figures,
ground-truth disputes and their adjudication.

This module joins two core workflows that stay independent of each other:
card matching and differences (reviewer.core.cards.gt_agreement) and the
statistics, disputes and adjudications of judging (reviewer.core.judging).

* **Agreement rows** (the shape of ``reviewer agreement``: raters,
  dimension, statistic, value, n, note), per pair of annotators, per item
  (dimension ``ground truth: <item>``) and pooled over items (dimension
  ``ground truth``): ``iou_f1`` (n: cards of both), ``text_agreement`` and
  ``cer`` (n: matched cards; CER's n is A's characters in the note),
  ``cohen_kappa_pile`` (unweighted Cohen's kappa of the piles of matched
  cards; pooled, a pile is item and label) and ``krippendorff_alpha_pile``
  (nominal alpha over the same units). Undefined values are None with the
  reason in the note.
* **Disputes**: every difference (gt_agreement) is a dispute of kind
  gt-missing-card, gt-text-differs, gt-pile-differs or gt-box-differs,
  subject ``gt:<item>``, dimension the difference's, no verdicts.
* **Adjudication**: siding with an annotator on a difference records an
  adjudication (value: that annotator's side as text, sided with: the
  annotator) and edits the consensus to agree with that side, as one
  undoable command.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations

from reviewer.core.cards.gt_agreement import (
    CONSENSUS,
    ConsensusEdit,
    Difference,
    ItemAgreement,
    compare,
    consensus_edit,
    shown,
)
from reviewer.core.commands import AddCard, AddPile, Adjudicate, Batch, Command, DeleteCards, EditCards, Store
from reviewer.core.judging.agreement import cohen_kappa, krippendorff_alpha
from reviewer.core.judging.agreement_table import AgreementRow
from reviewer.core.judging.verdicts import Dispute, DisputeKind
from reviewer.core.models import GroundTruth

#: difference aspect -> dispute kind
KIND = {
    "missing": DisputeKind.GT_MISSING,
    "text": DisputeKind.GT_TEXT,
    "pile": DisputeKind.GT_PILE,
    "box": DisputeKind.GT_BOX,
}
GT_KINDS = frozenset(KIND.values())
DIMENSION = "ground truth"


def comparisons(annotated: Mapping[str, Mapping[str, GroundTruth]]) -> list[ItemAgreement]:
    """Every item's comparison of every pair of its named annotators (A
    before B by name; the consensus '' is no annotator), by item then pair.
    ``annotated``: {item: {annotator: ground truth}}."""
    out = []
    for item in annotated:
        names = sorted(n for n in annotated[item] if n != CONSENSUS)
        for a, b in combinations(names, 2):
            out.append(compare(annotated[item][a], annotated[item][b], a, b))
    return out


def _value(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def _pile_rows(raters: str, dimension: str, pairs: Sequence[tuple]) -> list[AgreementRow]:
    a = ["(none)" if x is None else x for x, _ in pairs]
    b = ["(none)" if y is None else y for _, y in pairs]
    kappa = cohen_kappa(a, b)
    alpha = krippendorff_alpha([[x, y] for x, y in zip(a, b)], "nominal") if pairs else None
    rows = [AgreementRow(raters, dimension, "cohen_kappa_pile", _value(kappa.value), kappa.n, kappa.note)]
    if alpha is not None:
        rows.append(
            AgreementRow(raters, dimension, "krippendorff_alpha_pile", _value(alpha.value), alpha.n, alpha.note)
        )
    else:
        rows.append(AgreementRow(raters, dimension, "krippendorff_alpha_pile", None, 0, "undefined: no matched cards"))
    return rows


def _rows(
    raters: str, dimension: str, cards: int, matched: int, equal: int, edits: int, chars: int, pairs: Sequence[tuple]
) -> list[AgreementRow]:
    f1 = 2 * matched / cards if cards else None
    return [
        AgreementRow(raters, dimension, "iou_f1", f1, cards, f"{matched} matched cards" if cards else "no cards"),
        AgreementRow(
            raters,
            dimension,
            "text_agreement",
            equal / matched if matched else None,
            matched,
            "" if matched else "undefined: no matched cards",
        ),
        AgreementRow(
            raters,
            dimension,
            "cer",
            edits / chars if chars else None,
            matched,
            f"{edits} edits in {chars} characters" if chars else "undefined: no characters",
        ),
        *_pile_rows(raters, dimension, pairs),
    ]


def agreement_rows(found: Sequence[ItemAgreement]) -> list[AgreementRow]:
    """The agreement rows (module doc) of the comparisons ``found``: per
    pair of annotators, each item, then pooled over its items."""
    out: list[AgreementRow] = []
    pairs = sorted({(c.annotator_a, c.annotator_b) for c in found})
    for a, b in pairs:
        raters = f"{shown(a)} vs {shown(b)}"
        mine = [c for c in found if (c.annotator_a, c.annotator_b) == (a, b)]
        for c in mine:
            out += _rows(
                raters,
                f"{DIMENSION}: {c.item}",
                c.cards_a + c.cards_b,
                c.matched,
                c.text_equal,
                c.edits,
                c.characters,
                c.pile_pairs,
            )
        pooled = [
            (None if x is None else f"{c.item}/{x}", None if y is None else f"{c.item}/{y}")
            for c in mine
            for x, y in c.pile_pairs
        ]
        out += _rows(
            raters,
            DIMENSION,
            sum(c.cards_a + c.cards_b for c in mine),
            sum(c.matched for c in mine),
            sum(c.text_equal for c in mine),
            sum(c.edits for c in mine),
            sum(c.characters for c in mine),
            pooled,
        )
    return out


def ground_truth_disputes(found: Sequence[ItemAgreement]) -> list[Dispute]:
    """Every difference of ``found`` as a dispute (module doc), most severe first."""
    out = [
        Dispute(
            kind=KIND[d.aspect],
            subject=d.subject,
            dimension=d.dimension,
            verdict_ids=[],
            severity=d.severity,
            detail=d.detail,
        )
        for c in found
        for d in c.differences
    ]
    out.sort(key=lambda d: -d.severity)
    return out


def find_difference(found: Sequence[ItemAgreement], subject: str, dimension: str) -> Difference | None:
    """The difference behind the dispute (``subject``, ``dimension``), or None."""
    return next((d for c in found for d in c.differences if (d.subject, d.dimension) == (subject, dimension)), None)


def _edit_commands(item_id: int, edit: ConsensusEdit) -> list[Command[Store]]:
    steps: list[Command[Store]] = []
    if edit.pile is not None:
        steps.append(AddPile(item_id, edit.pile[0], edit.pile[1]))
    if edit.op == "add" and edit.card is not None:
        steps.append(AddCard(item_id, edit.card.text, edit.card.pile, edit.card.bbox))
    elif edit.op == "delete" and edit.card_id is not None:
        steps.append(DeleteCards([edit.card_id]))
    elif edit.op == "update" and edit.card_id is not None:
        steps.append(EditCards({edit.card_id: dict(edit.changes)}, text="edit consensus card"))
    return steps


def adjudicate_difference(
    item_id: int,
    consensus: GroundTruth,
    difference: Difference,
    annotator: str,
    reviewer: str,
    rationale: str = "",
    dispute_id: int | None = None,
    pile_regions: dict[str, list | None] | None = None,
) -> Batch[Store]:
    """The command (one undo step) that sides with ``annotator`` on
    ``difference``: the adjudication of its dispute and the edit that makes
    the consensus of item ``item_id`` agree with that side (module doc).
    KeyError when ``annotator`` is neither side."""
    value = difference.value_of(annotator)
    edit = consensus_edit(consensus, difference, annotator, pile_regions)
    record = Adjudicate(
        difference.subject,
        {difference.dimension: value},
        reviewer,
        rationale,
        sided_with={difference.dimension: annotator},
        dispute_ids={difference.dimension: dispute_id},
    )
    return Batch(
        [record, *_edit_commands(item_id, edit)],
        text=f"side with {shown(annotator)} on {difference.dimension} of {difference.item}",
    )
