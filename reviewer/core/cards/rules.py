"""The card scoring rules (shared/specs/card-scoring-rules.md, sections 1-4 and 6).

How a careful person applies T-P5 to messy answers: equality ignores spacing
and punctuation (§1); a model card is *related* to a ground-truth card when it
holds a recognisable reading of one of that card's content words (§2); cards
are paired one to one, as many as possible, with the tie order of §3; a
matched card with wrong text is PARTIAL when a word of the card is missing and
OCR when every word is there (§4); with boxes, a model card is evidence only
for the cards its box lies on (§6: ``boxes_fit``, ``lies_on_matrix``,
``box_evidence``).

The letter tests (§1-2) are in reviewer.core.cards.readings, which builds
the card side once per ground truth and compares new tokens with rapidfuzz
(``LCSseq``) on whole matrices at once; the pairing uses scipy's
``linear_sum_assignment`` on a weight that encodes the §3 order
lexicographically, unless the related pairs form no conflict. Nothing here
knows about storage or Qt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from reviewer.core.cards.gt_geometry import stored_to_upright
from reviewer.core.cards.readings import (
    EXACT,
    MISREAD,
    Evidence,
    GtIndex,
    WordTable,
    card_words,
    cfg_key,
    gt_index,
    reading_mark,
)
from reviewer.core.models import ScoringConfig

__all__ = [
    "Frac",
    "Pairing",
    "pair_cards",
    "raw_to_upright",
    "read_anywhere",
    "lies_on_matrix",
    "word_presence",
]

#: A box as fractions of the upright image: (x_min, y_min, x_max, y_max).
Frac = tuple[float, float, float, float]


def raw_to_upright(box: Frac, orientation: int) -> Frac:
    """A box in fractions of the stored image (as a reader that ignored EXIF
    saw it) in fractions of the upright image, for EXIF ``orientation`` 1-8
    (others are treated as 1): its corners turned by gt_geometry.stored_to_upright."""
    x0, y0 = stored_to_upright((box[0], box[1]), orientation, 1.0, 1.0)
    x1, y1 = stored_to_upright((box[2], box[3]), orientation, 1.0, 1.0)
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


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


def lies_on_matrix(boxes: Sequence[Frac | None], card_boxes: Sequence[Frac | None], share: float) -> np.ndarray:
    """§6 "lies on" for every (model box, card box) at once: a boolean
    matrix, True where the two overlap by a positive area of at least
    ``share`` x the smaller box's area (``boxes.box_lies_on``); False where
    either box is None."""
    nan = (np.nan,) * 4
    a = np.array([b if b is not None else nan for b in boxes], dtype=np.float64).reshape(-1, 4)
    c = np.array([b if b is not None else nan for b in card_boxes], dtype=np.float64).reshape(-1, 4)
    w = np.minimum(a[:, None, 2], c[None, :, 2]) - np.maximum(a[:, None, 0], c[None, :, 0])
    h = np.minimum(a[:, None, 3], c[None, :, 3]) - np.maximum(a[:, None, 1], c[None, :, 1])
    area_a = np.clip(a[:, 2] - a[:, 0], 0, None) * np.clip(a[:, 3] - a[:, 1], 0, None)
    area_c = np.clip(c[:, 2] - c[:, 0], 0, None) * np.clip(c[:, 3] - c[:, 1], 0, None)
    smaller = np.minimum(area_a[:, None], area_c[None, :])
    with np.errstate(invalid="ignore"):
        return (w > 0) & (h > 0) & (w * h >= share * smaller)


def boxes_fit(reads_by_text: set[tuple[int, int]], model_boxes, gt_boxes, orientation: int, config: ScoringConfig):
    """§6 frame and fit: choose the frame in which the answer's boxes lie on
    the cards they read by text (``reads_by_text``: (model card, card)
    pairs, §1-2): the upright image, or the stored one when the reader
    ignored EXIF. A boxed model card that reads a boxed card fits when its
    box lies on one of the cards it reads (``lies_on_matrix``). Returns
    (frame name, model boxes in upright fractions, lies-on matrix) for the
    frame where more fit (on a tie, where more of the (model card, card it
    reads) pairs lie on each other; then upright), or (None, None, None)
    when fewer than ``config.box_fit`` (half) of them fit in either frame:
    the boxes use another convention and text alone decides."""
    reads: dict[int, list[int]] = {}
    for m, g in sorted(reads_by_text):
        if gt_boxes[g] is not None and model_boxes[m] is not None:
            reads.setdefault(m, []).append(g)
    frames = [("upright", 1)]
    if orientation not in (None, 1):
        frames.append(("stored", orientation))
    best: tuple = (None, None, None, (0, 0))
    for name, o in frames:
        boxes = [raw_to_upright(b, o) if b is not None else None for b in model_boxes]
        on = lies_on_matrix(boxes, gt_boxes, config.lies_on_share)
        per_card = [int(on[m, cards].sum()) for m, cards in reads.items()]
        hit = sum(1 for n in per_card if n)
        # fits better: more model cards on a card they read, then more such (model card, card) pairs
        fit = (hit, sum(per_card))
        if reads and hit >= config.box_fit * len(reads) and fit > best[3]:
            best = (name, boxes, on, fit)
    return best[0], best[1], best[2]


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


def _anchors(table: WordTable, tokens: Sequence[str], words: Sequence[str], kmax: int) -> list[int | None]:
    """Order-preserving alignment of card words to model tokens that reads
    the most words (exact ones preferred): card word -> token index or None.
    A token may read up to ``kmax`` run-together words (§2). Only exact and
    misread readings of groups the token stands for (``GtIndex.stands_for``)
    anchor a word: a truncation leaves it missing (§4).
    Among equal
    alignments the dynamic programme prefers skipping a word, then skipping
    a token, then the fewest run-together words."""
    gains = _reading_gains(table, tokens, words, kmax)
    back = _alignment_moves(gains, len(words), len(tokens))
    return _trace_alignment(back, len(words), len(tokens))


def _reading_gains(
    table: WordTable, tokens: Sequence[str], words: Sequence[str], kmax: int
) -> list[list[Sequence[tuple[int, int]]]]:
    """gains[i][j]: [(k, score gain)] of token i reading words[j-k+1 .. j] (k up to ``kmax``).

    A score (words read, words read exactly) is one int: words * (len(words) + 1)
    + exact. Only exact and misread readings count, and with a complete index
    only of groups the token stands for (``GtIndex.stands_for``, §2)."""
    n = len(words)
    index, cfg = table.index, table.cfg
    # every run of a card's words is a group of its ground truth: look the marks up
    lookup = index.complete and tuple(words) in index.cards
    share = cfg[4]
    split = index.parts
    # a score (words read, words read exactly) is one int: words * base + exact
    base = n + 1
    gains: list[list[Sequence[tuple[int, int]]]] = []
    for t in tokens:
        lt = len(t)
        # the groups the token stands for (§2: one card word only), or None: plain reads
        marks = index.stands_for(t) if lookup else None
        if marks is not None and not marks:
            gains.append([()] * n)  # the token reads no group of the ground truth
            continue
        row: list[Sequence[tuple[int, int]]] = []
        for j in range(n):
            cell = []
            text = words[j]
            r = marks.get((text, 1), 0) if marks is not None else reading_mark(t, (text,), cfg)
            if r >= MISREAD:
                cell.append((1, base + (1 if r == EXACT else 0)))
            for k in range(2, kmax + 1):
                if j - k + 1 < 0:
                    break
                text = words[j - k + 1] + text
                if share * len(text) <= lt and share * lt <= len(text):
                    parts = tuple(words[j - k + 1 : j + 1])
                    if marks is None:
                        r = reading_mark(t, parts, cfg)
                    elif len(split.get((text, k), ())) == 1:
                        r = marks.get((text, k), 0)
                    else:
                        r = reading_mark(t, parts, cfg) if (text, k) in marks else 0
                    if r >= MISREAD:
                        cell.append((k, k * base + (k if r == EXACT else 0)))
            row.append(cell)
        gains.append(row)
    return gains


def _alignment_moves(gains: list[list[Sequence[tuple[int, int]]]], n: int, m: int) -> list[list[int]]:
    """The dynamic programme over ``n`` words and ``m`` tokens: back[j][i] is the best
    last move, 0 skip word j, -1 skip token i, k: token i reads k words ending at j.
    Among equal scores skipping a word wins, then skipping a token, then the fewest words."""
    score = [[0] * (m + 1) for _ in range(n + 1)]
    back = [[0] * (m + 1) for _ in range(n + 1)]
    for j in range(n + 1):
        srow, brow = score[j], back[j]
        above = score[j - 1] if j > 0 else None
        for i in range(m + 1):
            if i == 0 and j == 0:
                continue
            best, how = -1, 0
            if above is not None and above[i] > best:
                best, how = above[i], 0
            if i > 0 and srow[i - 1] > best:
                best, how = srow[i - 1], -1
            if i > 0 and j > 0:
                for k, gain in gains[i - 1][j - 1]:
                    cand = score[j - k][i - 1] + gain
                    if cand > best:
                        best, how = cand, k
            srow[i] = best
            brow[i] = how
    return back


def _trace_alignment(back: list[list[int]], n: int, m: int) -> list[int | None]:
    """Follow the moves ``back`` from the end: card word -> the token index that reads it, or None."""
    out: list[int | None] = [None] * n
    j, i = n, m
    while j > 0 or i > 0:
        how = back[j][i]
        if how == 0:
            j -= 1
        elif how < 0:
            i -= 1
        else:
            for x in range(j - how, j):
                out[x] = i - 1
            j -= how
            i -= 1
    return out


def word_presence(
    table: WordTable,
    tokens: Sequence[str],
    words: Sequence[str],
    config: ScoringConfig,
    evidence: Evidence | None = None,
) -> tuple[list[str], set[int]]:
    """§4 OCR/PARTIAL test: the card words (``words``, in card order) that
    are not there in the model card (``tokens``).

    A word is there when the model card holds a recognisable reading of it
    (§2, run-together tokens included) wherever that reading stands
    (``read_anywhere``; the words ``evidence`` reads always count), or, as
    the only test that looks at word order, when in its place in the
    card's word order the model card holds a token not used by a reading
    that is within ``length_slack`` letters of its length and is neither a
    truncation of it (a shorter beginning) nor a reading of a word of
    another card of the ground truth (``_fills``). Returns (the missing
    words in card order, a repeated word once per missing occurrence; the
    indices of the tokens that stand for a card word)."""
    if len(tokens) == len(words) and all(
        table.reads(t, (w,)) >= MISREAD or _fills(table, t, w, words, config) for t, w in zip(tokens, words)
    ):
        return [], set(range(len(tokens)))  # word for word in place: the common misread-a-word case
    present, used = read_anywhere(table, tokens, words, config, evidence)
    if all(present):
        return [], used
    anchors = _anchors(table, tokens, words, config.max_run_together)
    missing: list[str] = []
    n = len(words)
    j = 0
    while j < n:
        if anchors[j] is not None:
            j += 1
            continue
        k = j
        while k < n and anchors[k] is None:
            k += 1
        gap_words = list(range(j, k))
        prev = anchors[j - 1] if j > 0 else None
        nxt = anchors[k] if k < n else None
        if prev is not None and nxt is not None:
            slots = list(range(prev + 1, nxt))
            if len(slots) != len(gap_words):
                slots = []
        elif nxt is not None:
            slots = list(range(nxt - len(gap_words), nxt)) if nxt >= len(gap_words) else []
        elif prev is not None:
            start = prev + 1
            slots = list(range(start, start + len(gap_words))) if start + len(gap_words) <= len(tokens) else []
        else:
            slots = []  # nothing is read in order: no word has a place
        for pos, w in enumerate(gap_words):
            if present[w]:
                continue
            i = slots[pos] if slots else None
            if i is None or i in used or not _fills(table, tokens[i], words[w], words, config):
                missing.append(words[w])
            else:
                used.add(i)
        j = k
    return missing, used


def read_anywhere(
    table: WordTable,
    tokens: Sequence[str],
    words: Sequence[str],
    config: ScoringConfig,
    evidence: Evidence | None = None,
) -> tuple[list[bool], set[int]]:
    """§4 presence by reading: (``present[j]``: card word j has an exact or
    misread reading (§2, run-together tokens included) somewhere in the
    model card, the token
    indices those readings use). Word order plays no part (a reader of a
    rotated photo may give the card's lines in reverse order). The words
    ``evidence`` (the pair's §2 evidence, as its detail lists it) marks are
    there first, on the first tokens of their texts; then each remaining
    token stands for at most one word or run-together group of 2 to
    ``max_run_together`` words (§2: each model word stands for one card
    word only: a token counts for a group it stands for, ``GtIndex.stands_for``),
    exact readings first, then longer groups, then card order.
    A truncation (§2) makes the cards related, but the word it cuts short
    is missing (§4): its token stands for the word and is used, the word is
    not present."""
    n = len(words)
    present, used = _evidence_presence(tokens, n, evidence)
    if all(present):
        return present, used
    for _neg, _negk, j, i, k in _reading_candidates(table, tokens, words, config, used):
        if i in used or all(present[j : j + k]):
            continue
        used.add(i)
        present[j : j + k] = [True] * k
    return present, used


def _evidence_presence(tokens: Sequence[str], n: int, evidence: Evidence | None) -> tuple[list[bool], set[int]]:
    """The card words ``evidence`` marks as read (exact or misread) and the tokens its
    readings use (the first free token of each reading's text). Nothing without
    evidence or when its marks are not one per card word (``n``)."""
    present = [False] * n
    used: set[int] = set()
    if evidence is not None and len(evidence.marks) == n:
        free: dict[str, list[int]] = {}
        for i, t in enumerate(tokens):
            free.setdefault(t, []).append(i)
        for t, _w, _mark in evidence.readings:
            at = free.get(t)
            if at:
                used.add(at.pop(0))
        for j, mark in enumerate(evidence.marks):
            if mark >= MISREAD:
                present[j] = True
    return present, used


def _reading_candidates(
    table: WordTable, tokens: Sequence[str], words: Sequence[str], config: ScoringConfig, used: set[int]
) -> list[tuple[int, int, int, int, int]]:
    """Every reading of a group of 1 to ``max_run_together`` card words by a token not in
    ``used``, as (-mark, -k, j, i, k) sorted: exact first, then longer groups, then card
    order. A group passes the misreading share both ways (§2) and, with a complete
    index, is one the token stands for (``GtIndex.stands_for``)."""
    n = len(words)
    kmax = config.max_run_together
    share = config.misread_share
    index = table.index
    cands = []
    for i, t in enumerate(tokens):
        if i in used:
            continue
        lt = len(t)
        for j in range(n):
            group = ""
            for k in range(1, kmax + 1):
                if j + k > n:
                    break
                group += words[j + k - 1]
                if k > 1 and not (share * len(group) <= lt and share * lt <= len(group)):
                    continue  # the misreading share fails both ways (§2)
                parts = tuple(words[j : j + k])
                mark = table.reads(t, parts)
                if mark >= MISREAD and (not index.complete or (group, k) in index.stands_for(t)):
                    cands.append((-mark, -k, j, i, k))
    cands.sort()
    return cands


def _fills(table: WordTable, token: str, word: str, card: Sequence[str], config: ScoringConfig) -> bool:
    """§4 fallback: ``token`` in ``word``'s place counts as the word: within
    ``length_slack`` letters of its length, not a truncation of it (a
    shorter beginning), and no reading of any other word of the ground
    truth, on this card or another (§2: a token that reads a word stands
    for that word only). ``card``: the card's words (kept for callers)."""
    if abs(len(token) - len(word)) > config.length_slack:
        return False
    if len(token) < len(word) and word.startswith(token):
        return False  # a truncation keeps only part of the word
    return table.index.words_read_by(token) <= {word}
