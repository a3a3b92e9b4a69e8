"""How two annotators' ground truth of one item agree, and where it differs
(docs/cards.md#several-annotators; CONTEXT.md: *annotator*, *consensus*, *ground-truth dispute*).

Rules:

* **Matching.** Cards are paired one to one by box IoU (reviewer.core.cards.boxes.iou):
  the assignment with the largest total IoU among pairs with IoU >= ``threshold``
  (0.5; scipy ``linear_sum_assignment``). Cards left over are paired, in
  order, with a card of equal text (§1 equality, reviewer.core.cards.readings.squashed):
  the same card drawn in another place (a *box* difference). Cards neither
  of them pairs are *missing* on the other side.
* **Matched cards** are the IoU pairs, and text pairs where neither card has
  a box (ground truth without boxes).
* **F1** = 2 x matched / (cards of A + cards of B).
* **Text agreement**: the share of matched cards whose texts are equal under
  §1 (squashed); **CER** (character error rate) = the sum of the Levenshtein
  distances between the matched texts as written / the characters of A's
  texts (A, the first annotator by name, is the reference).
* **Pile pairs**: (A's pile, B's pile) of every matched card, for Cohen's
  kappa and Krippendorff's alpha (reviewer.core.annotators).
* **Differences** (each a ground-truth dispute): ``missing`` (a card only one
  annotator has; severity 1), ``text`` (matched, texts differ under §1;
  severity = edit distance / longer text), ``pile`` (paired, piles differ;
  severity 1), ``box`` (paired by text, IoU < 0.5 or one without a box;
  severity 1 - IoU).
* **Consensus**: annotator '' (:data:`CONSENSUS`), the ground truth scoring
  uses. An adjudication takes one side of a difference;
  :func:`consensus_edit` says what that changes in the consensus.

Pure Python (scipy, rapidfuzz): no Qt, SQL or HTTP.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from rapidfuzz.distance import Levenshtein

from reviewer.core.cards.boxes import iou
from reviewer.core.cards.readings import squashed
from reviewer.core.models import BBox, Card, GroundTruth

#: The annotator name of the consensus ground truth (stored as '').
CONSENSUS = ""
#: How the consensus is shown and exported; no annotator may be called so.
CONSENSUS_NAME = "consensus"
#: Box IoU at or above which two annotators' cards are the same card.
IOU_MATCH = 0.5
#: Subject prefix of ground-truth disputes: ``gt:<item name>``.
SUBJECT_PREFIX = "gt:"

Aspect = Literal["missing", "text", "pile", "box"]
ASPECTS: tuple[str, ...] = ("missing", "text", "pile", "box")


def shown(annotator: str) -> str:
    """An annotator's name as shown: 'consensus' for ''."""
    return annotator or CONSENSUS_NAME


def _box_key(b: BBox | None) -> tuple | None:
    return None if b is None else tuple(round(v, 3) for v in (b.x_min, b.y_min, b.x_max, b.y_max))


def same_ground_truth(a: GroundTruth, b: GroundTruth) -> bool:
    """True when ``a`` and ``b`` hold the same piles (label, region) and the
    same cards (text, pile, box to 0.001 px), in order."""

    def piles(g: GroundTruth) -> list:
        return [(p.label, [tuple(round(v, 3) for v in pt) for pt in p.region] if p.region else None) for p in g.piles]

    def cards(g: GroundTruth) -> list:
        return [(c.text, c.pile, _box_key(c.bbox)) for c in g.cards]

    return piles(a) == piles(b) and cards(a) == cards(b)


@dataclass(frozen=True)
class CardPair:
    """Card ``a`` of A's and ``b`` of B's list (indices; None: missing on
    that side), how they were paired ('box', 'text' or None) and their IoU
    (None when a card has no box)."""

    a: int | None
    b: int | None
    by: str | None = None
    iou: float | None = None


def match_cards(a: GroundTruth, b: GroundTruth, threshold: float = IOU_MATCH) -> list[CardPair]:
    """Pair the cards of ``a`` and ``b`` (module doc, Matching): IoU pairs,
    then text pairs, then the cards left on each side, in A's then B's order."""
    ca, cb = a.cards, b.cards
    pairs: list[CardPair] = []
    boxed_a = [i for i, c in enumerate(ca) if c.bbox is not None]
    boxed_b = [j for j, c in enumerate(cb) if c.bbox is not None]
    if boxed_a and boxed_b:
        m = np.array([[iou(ca[i].bbox, cb[j].bbox) for j in boxed_b] for i in boxed_a])  # type: ignore[arg-type]
        weight = np.where(m >= threshold, m, 0.0)
        from scipy.optimize import linear_sum_assignment  # lazy: `reviewer open` starts without scipy

        rows, cols = linear_sum_assignment(-weight)
        for r, c in zip(rows, cols):
            if m[r, c] >= threshold:
                pairs.append(CardPair(boxed_a[r], boxed_b[c], "box", float(m[r, c])))
    used_a = {p.a for p in pairs}
    used_b = {p.b for p in pairs}
    for i, card in enumerate(ca):
        if i in used_a:
            continue
        key = squashed(card.text)
        for j, other in enumerate(cb):
            if j not in used_b and squashed(other.text) == key:
                score = iou(card.bbox, other.bbox) if card.bbox and other.bbox else None
                pairs.append(CardPair(i, j, "text", score))
                used_a.add(i)
                used_b.add(j)
                break
    pairs.sort(key=lambda p: (p.a, p.b))
    pairs += [CardPair(i, None) for i in range(len(ca)) if i not in used_a]
    pairs += [CardPair(None, j) for j in range(len(cb)) if j not in used_b]
    return pairs


def is_matched(pair: CardPair, a: GroundTruth, b: GroundTruth) -> bool:
    """A matched card (module doc): an IoU pair, or a text pair of two cards without boxes."""
    if pair.by == "box":
        return True
    return pair.by == "text" and a.cards[pair.a].bbox is None and b.cards[pair.b].bbox is None  # type: ignore[index]


@dataclass(frozen=True)
class Difference:
    """One difference of two annotators' ground truth of an item: its
    ``aspect``, the cards (index and card, None for a missing side), a
    one-line ``detail`` and a ``severity`` in [0, 1]."""

    item: str
    annotator_a: str
    annotator_b: str
    aspect: str
    a_index: int | None
    b_index: int | None
    a_card: Card | None
    b_card: Card | None
    detail: str
    severity: float

    @property
    def subject(self) -> str:
        """The dispute subject: ``gt:<item>``."""
        return SUBJECT_PREFIX + self.item

    @property
    def dimension(self) -> str:
        """The dispute dimension, stable while neither ground truth changes:
        ``<aspect>: <A> #<n> / <B> #<m>`` (positions from 1, '-' when missing)."""
        ia = "-" if self.a_index is None else str(self.a_index + 1)
        ib = "-" if self.b_index is None else str(self.b_index + 1)
        return f"{self.aspect}: {shown(self.annotator_a)} #{ia} / {shown(self.annotator_b)} #{ib}"

    def card_of(self, annotator: str) -> Card | None:
        """The card of ``annotator``'s side (None: that side has none)."""
        if annotator == self.annotator_a:
            return self.a_card
        if annotator == self.annotator_b:
            return self.b_card
        raise KeyError(f"{shown(annotator)} is no side of this difference")

    def value_of(self, annotator: str) -> str:
        """What ``annotator``'s side says on the aspect, as text (the
        adjudicated value when one sides with it)."""
        card = self.card_of(annotator)
        if self.aspect == "missing":
            return "present" if card is not None else "absent"
        if card is None:
            return "-"
        if self.aspect == "text":
            return card.text
        if self.aspect == "pile":
            return card.pile or "-"
        b = card.bbox
        return "no box" if b is None else f"{b.x_min:g},{b.y_min:g},{b.x_max:g},{b.y_max:g}"


def _q(text: str | None) -> str:
    return "-" if text is None else f"'{text}'"


@dataclass
class ItemAgreement:
    """Agreement of annotators A and B on one item (module doc)."""

    item: str
    annotator_a: str
    annotator_b: str
    cards_a: int
    cards_b: int
    matched: int
    text_equal: int
    edits: int
    characters: int
    pile_pairs: list[tuple[str | None, str | None]] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)

    @property
    def f1(self) -> float | None:
        """2 x matched / (cards of A + cards of B); None when neither has a card."""
        total = self.cards_a + self.cards_b
        return 2 * self.matched / total if total else None

    @property
    def text_agreement(self) -> float | None:
        """Matched cards with equal text (§1) / matched cards; None without matched cards."""
        return self.text_equal / self.matched if self.matched else None

    @property
    def cer(self) -> float | None:
        """Levenshtein edits / characters of A's matched texts; None without characters."""
        return self.edits / self.characters if self.characters else None


def compare(
    a: GroundTruth, b: GroundTruth, annotator_a: str, annotator_b: str, threshold: float = IOU_MATCH
) -> ItemAgreement:
    """The agreement of ``a`` (annotator A, the reference) and ``b`` on one
    item, with every difference (module doc)."""
    out = ItemAgreement(
        item=a.item or b.item,
        annotator_a=annotator_a,
        annotator_b=annotator_b,
        cards_a=len(a.cards),
        cards_b=len(b.cards),
        matched=0,
        text_equal=0,
        edits=0,
        characters=0,
    )

    def diff(aspect: str, i: int | None, j: int | None, detail: str, severity: float) -> None:
        out.differences.append(
            Difference(
                out.item,
                annotator_a,
                annotator_b,
                aspect,
                i,
                j,
                a.cards[i] if i is not None else None,
                b.cards[j] if j is not None else None,
                detail,
                round(min(1.0, max(0.0, severity)), 6),
            )
        )

    na, nb = shown(annotator_a), shown(annotator_b)
    for p in match_cards(a, b, threshold):
        if p.a is None or p.b is None:
            card = a.cards[p.a] if p.a is not None else b.cards[p.b]  # type: ignore[index]
            has, lacks = (na, nb) if p.a is not None else (nb, na)
            diff("missing", p.a, p.b, f"{has} has card '{card.text}' ({card.pile or 'no pile'}), {lacks} not", 1.0)
            continue
        ca, cb = a.cards[p.a], b.cards[p.b]
        if is_matched(p, a, b):
            out.matched += 1
            out.pile_pairs.append((ca.pile, cb.pile))
            out.edits += Levenshtein.distance(ca.text, cb.text)
            out.characters += len(ca.text)
            if squashed(ca.text) == squashed(cb.text):
                out.text_equal += 1
            else:
                d = Levenshtein.distance(ca.text, cb.text)
                diff(
                    "text",
                    p.a,
                    p.b,
                    f"{na} reads '{ca.text}', {nb} '{cb.text}'",
                    d / max(len(ca.text), len(cb.text), 1),
                )
        else:
            shown_iou = "one has no box" if p.iou is None else f"IoU {p.iou:.2f} < {threshold:g}"
            diff(
                "box",
                p.a,
                p.b,
                f"'{ca.text}' drawn in another place by {na} and {nb} ({shown_iou})",
                1.0 - (p.iou or 0.0),
            )
        if ca.pile != cb.pile:
            diff("pile", p.a, p.b, f"'{ca.text}' is in pile {_q(ca.pile)} for {na}, {_q(cb.pile)} for {nb}", 1.0)
    return out


@dataclass(frozen=True)
class ConsensusEdit:
    """What siding with one annotator on a difference changes in the
    consensus: ``op`` 'add' (``card``, and ``pile`` with its region when the
    consensus lacks it), 'delete' (``card_id``), 'update' (``card_id`` and
    ``changes``: text, pile or bbox) or 'none' (already so)."""

    op: str
    card_id: int | None = None
    card: Card | None = None
    changes: dict[str, Any] = field(default_factory=dict)
    pile: tuple[str, list | None] | None = None


def corresponding_card(
    consensus: GroundTruth, cards: Sequence[Card | None], threshold: float = IOU_MATCH
) -> Card | None:
    """The consensus card that stands for ``cards`` (the two sides of a
    difference): one equal to a side (text, pile, box), else the one with
    the largest IoU >= ``threshold`` with a side, else one whose text equals
    a side's (§1); None when there is none."""
    sides = [c for c in cards if c is not None]
    for c in consensus.cards:
        if any((c.text, c.pile, _box_key(c.bbox)) == (s.text, s.pile, _box_key(s.bbox)) for s in sides):
            return c
    best, score = None, threshold
    for c in consensus.cards:
        for s in sides:
            if c.bbox is not None and s.bbox is not None and iou(c.bbox, s.bbox) >= score:
                best, score = c, iou(c.bbox, s.bbox)
    if best is not None:
        return best
    keys = {squashed(s.text) for s in sides}
    return next((c for c in consensus.cards if squashed(c.text) in keys), None)


def consensus_edit(
    consensus: GroundTruth,
    difference: Difference,
    annotator: str,
    pile_regions: dict[str, list | None] | None = None,
) -> ConsensusEdit:
    """The change to ``consensus`` that makes it agree with ``annotator``'s
    side of ``difference`` (module doc). ``pile_regions``: the regions of
    that annotator's piles, given to a pile the consensus lacks."""
    chosen = difference.card_of(annotator)
    target = corresponding_card(consensus, [difference.a_card, difference.b_card])
    labels = {p.label for p in consensus.piles}

    def pile_for(card: Card) -> tuple[str, list | None] | None:
        if card.pile and card.pile not in labels:
            return (card.pile, (pile_regions or {}).get(card.pile))
        return None

    if chosen is None:  # the card should not be there
        return ConsensusEdit("delete", card_id=target.id) if target is not None else ConsensusEdit("none")
    if target is None:
        return ConsensusEdit("add", card=chosen.model_copy(update={"id": None}), pile=pile_for(chosen))
    field_of = {"text": ("text",), "pile": ("pile",), "box": ("bbox",), "missing": ()}[difference.aspect]
    changes = {f: getattr(chosen, f) for f in field_of if getattr(chosen, f) != getattr(target, f)}
    if not changes:
        return ConsensusEdit("none", card_id=target.id)
    return ConsensusEdit(
        "update", card_id=target.id, changes=changes, pile=pile_for(chosen) if "pile" in changes else None
    )
