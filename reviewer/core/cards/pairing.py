"""Pairing model cards with ground-truth cards (card-scoring-rules.md §1
and §3, with §6 boxes as position evidence).

Equality ignores spacing and punctuation, and equal cards pair first, in
reading order (§1; decision record "equal-cards-paired-first"); a model card
is *related* to a ground-truth card when it holds a recognisable reading of
one of that card's content words (§2, reviewer.core.cards.readings); the
rest are paired one to one, as many as possible, with the tie order of §3;
with boxes, a model card is evidence only for the cards its box lies on (§6:
reviewer.core.cards.box_fit, and ``box_evidence`` here).

The pairing uses scipy's ``linear_sum_assignment`` on a weight that encodes
the §3 order lexicographically, unless the related pairs form no conflict.
Whether a paired card's words are all there (§4) is
reviewer.core.cards.word_presence. Nothing here knows about storage or Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from reviewer.core.cards.box_fit import Frac, boxes_fit
from reviewer.core.cards.gt_index import GtIndex, gt_index
from reviewer.core.cards.readings import Evidence, card_words, cfg_key
from reviewer.core.cards.word_table import WordTable
from reviewer.core.models import ScoringConfig

__all__ = ["Pairing", "box_evidence", "pair_cards"]


@dataclass
class Pairing:
    """The §3 matching of one answer: ``pairs`` [(model index, gt index)],
    the evidence of every related pair (read only: a §1 pair's is shared by
    the runs of the ground truth), the model cards whose box vetoed a text
    relation, and the frame the boxes were read in (None: no box evidence;
    'upright'; or 'stored' when the reader ignored EXIF)."""

    pairs: list[tuple[int, int]] = field(default_factory=list)
    evidence: dict[tuple[int, int], Evidence] = field(default_factory=dict)
    box_vetoed: dict[int, list[int]] = field(default_factory=dict)
    box_frame: str | None = None
    model_words: list[tuple[str, ...]] = field(default_factory=list)
    gt_words: list[tuple[str, ...]] = field(default_factory=list)
    lex: dict[tuple[int, int], tuple] = field(default_factory=dict)
    table: WordTable | None = None
    #: the §1 pairs (equal texts), paired before §3
    exact: list[tuple[int, int]] = field(default_factory=list)
    #: the model boxes in upright fractions when they are evidence (§6), else None
    boxes: list[Frac | None] | None = None
    #: the cards' boxes when the model boxes are evidence (§6)
    gt_boxes: list[Frac | None] | None = None
    #: ``lies_on_matrix`` of ``boxes`` and ``gt_boxes`` when they are evidence
    on: np.ndarray | None = None

    def lies_on(self, m: int, g: int) -> bool | None:
        """§6: whether model card ``m``'s box lies on card ``g``'s; None when
        boxes are no evidence here (not used, or either card has no box)."""
        if self.on is None or self.boxes is None or self.gt_boxes is None:
            return None
        if self.boxes[m] is None or self.gt_boxes[g] is None:
            return None
        return bool(self.on[m, g])


def pair_cards(
    model_texts: Sequence[str],
    gt_texts: Sequence[str],
    config: ScoringConfig,
    model_boxes: Sequence[Frac | None] | None = None,
    gt_boxes: Sequence[Frac | None] | None = None,
    orientation: int = 1,
) -> Pairing:
    """§3 matching: pair model cards (``model_texts``) with ground-truth cards
    (``gt_texts``) one to one, as many related pairs as possible; among those
    pairings prefer more recognised words, a larger share of the card's
    words, more exactly read words, more characters, then reading order.

    ``model_boxes`` / ``gt_boxes``: boxes as fractions of the image (model
    boxes in the frame the reader saw), or None; when they fit (see
    ``boxes_fit``) a model card is related only to the cards its box lies on
    (§6; ``box_evidence``), in matching as in coding. ``orientation``: the
    photo's EXIF orientation, to recognise boxes read off the stored,
    un-rotated pixels. Never raises.
    """
    mw = [card_words(t) for t in model_texts]
    gw = [card_words(t) for t in gt_texts]
    out = Pairing(model_words=mw, gt_words=gw)
    if not mw or not gw:
        return out
    stop = frozenset(config.stop_words)
    index = gt_index(tuple(gw), config.max_run_together, stop, cfg_key(config))
    exact = _exact_pairs(mw, gw, index)
    out.exact = exact
    equal_evidence = index.equal_evidence
    evidence = out.evidence
    for m, g in exact:
        evidence[m, g] = equal_evidence(g)
    paired_m = {m for m, _ in exact}
    paired_g = {g for _, g in exact}
    rest_m = [m for m in range(len(mw)) if m not in paired_m]
    rest_g = [g for g in range(len(gw)) if g not in paired_g]
    if not rest_m:
        out.pairs = sorted(exact)
        return out
    table = WordTable([t for m in rest_m for t in mw[m]], gw, config, index)
    out.table = table
    related = _related(table, mw, gw, rest_m, rest_g)
    use_boxes = (
        config.use_boxes
        and model_boxes is not None
        and gt_boxes is not None
        and any(b is not None for b in model_boxes)
        and any(b is not None for b in gt_boxes)
    )
    if use_boxes and gt_boxes is not None:  # use_boxes implies gt_boxes
        # every card each model card reads by text, a card §1 already paired included
        all_m, all_g = range(len(mw)), range(len(gw))
        whole = table if len(rest_m) == len(mw) else WordTable([t for w in mw for t in w], gw, config, index)
        by_text = related | set(exact) | _related(whole, mw, gw, all_m, all_g)
        out.box_frame, boxes, on = boxes_fit(by_text, model_boxes, gt_boxes, orientation, config)
        if boxes is not None:
            out.boxes, out.gt_boxes, out.on = boxes, list(gt_boxes), on
            kept = set()
            for m, g in sorted(related):
                if box_evidence(out, m, g):
                    kept.add((m, g))
                else:
                    out.box_vetoed.setdefault(m, []).append(g)
            related = kept
    for m, g in related:
        ev = table.evidence(mw[m], gw[g])
        if ev.content:
            evidence[m, g] = ev
    out.pairs = sorted(exact + _assign(out, rest_m, rest_g))
    return out


def box_evidence(out: Pairing, m: int, g: int) -> bool:
    """§6 position: with boxes in use, a model card (``m``) whose box does
    not lie on card ``g`` is no evidence for it, in matching as in coding.
    A model card or a card without a box is related by text alone (True),
    and so is every pair when the boxes are no evidence."""
    return out.lies_on(m, g) is not False


def _exact_pairs(
    mw: Sequence[tuple[str, ...]], gw: Sequence[tuple[str, ...]], index: GtIndex | None = None
) -> list[tuple[int, int]]:
    """§1 first: a model card equal to a ground-truth card (spacing and
    punctuation aside) is a correct reading of it, so it is paired with it
    before §3 pairs the rest; equal texts pair in reading order. ``index``:
    the ground truth's ``GtIndex`` (its §1 keys), built from ``gw`` when
    None."""
    where = index.equal_at if index is not None else GtIndex.equal_keys(gw)
    used: dict[str, int] = {}
    pairs = []
    for m, w in enumerate(mw):
        if not w:
            continue
        key = "".join(w)
        free = where.get(key)
        if free:
            n = used.get(key, 0)
            if n < len(free):
                pairs.append((m, free[n]))
                used[key] = n + 1
    return pairs


def _related(table: WordTable, mw, gw, rest_m: Sequence[int], rest_g: Sequence[int]) -> set[tuple[int, int]]:
    """Candidate (model, gt) pairs among the cards §1 left unpaired: some
    model token has an allowed reading of a group of the card holding a
    content word (§2). The set is filled in answer order (model card, then
    token position, then ground-truth order), never in the order of a set
    of strings, so its iteration order (that of int pairs, which Python
    does not salt) is the same in every process."""
    holders = table.index.content_holders()
    rest = set(rest_g)
    # by_group[(text, k)]: the unpaired cards holding the group with a content
    # word, each set filled in card order (its iteration order is kept)
    by_group: dict[tuple[str, int], set[int]] = {}
    reads: dict[str, set[int]] = {}
    for t, readings in table.allowed.items():
        cards: set[int] = set()
        for text, k, _mark in readings:
            key = (text, k)
            found = by_group.get(key)
            if found is None:
                found = by_group[key] = {g for g in holders.get(key, ()) if g in rest}
            if found:
                cards |= found
        if cards:
            reads[t] = cards
    out: set[tuple[int, int]] = set()
    for m in rest_m:
        # the tokens in answer order, not set order: a set of strings would
        # fill ``out`` in an order that changes with PYTHONHASHSEED
        for t in dict.fromkeys(mw[m]):
            for g in reads.get(t, ()):
                out.add((m, g))
    return out


def _assign(out: Pairing, rest_m: Sequence[int], rest_g: Sequence[int]) -> list[tuple[int, int]]:
    """§3 on the cards §1 left unpaired: linear_sum_assignment on a weight
    whose digits are the criteria in order: pair count, recognised words,
    share of the card's words, exactly read words, characters, reading
    order (exactly lexicographic while the totals fit a float64; the last
    levels are dropped otherwise). Fills ``out.lex`` for every related pair."""
    n_model = len(out.model_words)
    row_of = {m: i for i, m in enumerate(rest_m)}
    col_of = {g: j for j, g in enumerate(rest_g)}
    keys = [k for k in out.evidence if k[0] in row_of and k[1] in col_of]
    if not keys:
        return []
    for m, g in keys:
        ev = out.evidence[m, g]
        out.lex[m, g] = (1, ev.recognised, round(ev.share * 10000), ev.exact, ev.chars(out.gt_words[g]), n_model - m)
    if len({m for m, _ in keys}) == len(keys) == len({g for _, g in keys}):
        return keys  # no two related pairs share a card: every pair is in the matching
    levels = 6
    bounds = [0.0] * levels
    for col in range(levels):  # each card is in at most one pair
        best: dict[int, float] = {}
        for k in keys:
            best[k[1]] = max(best.get(k[1], 0.0), out.lex[k][col])
        bounds[col] = sum(best.values())
    while True:
        scale = [1.0] * levels
        for col in range(levels - 2, -1, -1):
            scale[col] = scale[col + 1] * (bounds[col + 1] + 1)
        if scale[0] <= 2.0**52 or levels <= 2:
            break
        levels -= 1
    weights = {k: sum(v * f for v, f in zip(out.lex[k][:levels], scale)) for k in keys}
    clear = _clear_winners(weights) if sum(weights.values()) < 2.0**52 else None
    if clear is not None:
        return clear
    weight = np.zeros((len(rest_m), len(rest_g)))
    for k, w in weights.items():
        weight[row_of[k[0]], col_of[k[1]]] = w
    from scipy.optimize import linear_sum_assignment  # lazy: `reviewer open` starts without scipy

    rows, cols = linear_sum_assignment(weight, maximize=True)
    return [(rest_m[r], rest_g[c]) for r, c in zip(rows, cols) if weight[r, c] > 0]


def _clear_winners(weights: dict[tuple[int, int], float]) -> list[tuple[int, int]] | None:
    """The maximum-weight matching of the related pairs ``weights`` {(model,
    gt): weight > 0} when it needs no search: every model card's heaviest
    pair is strictly heavier than its others and no two model cards share
    that card. Their sum bounds every matching and only these pairs reach
    it, so linear_sum_assignment would return exactly them (in another
    order; pair_cards sorts the pairs), as long as its sums are exact (the
    caller checks the total is under 2**52). None when there is a conflict."""
    best: dict[int, tuple[float, int, bool]] = {}
    for (m, g), w in weights.items():
        seen = best.get(m)
        if seen is None or w > seen[0]:
            best[m] = (w, g, True)
        elif w == seen[0]:
            best[m] = (w, seen[1], False)
    taken: set[int] = set()
    pairs = []
    for m, (_w, g, unique) in best.items():
        if not unique or g in taken:
            return None
        taken.add(g)
        pairs.append((m, g))
    return pairs
