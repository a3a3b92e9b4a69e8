"""The card scoring rules (shared/specs/card-scoring-rules.md, sections 1-4).

How a careful person applies T-P5 to messy answers: equality ignores spacing
and punctuation (§1); a model card is *related* to a ground-truth card when it
holds a recognisable reading of one of that card's content words (§2); cards
are paired one to one, as many as possible, with the tie order of §3; a
matched card with wrong text is PARTIAL when a word of the card is missing and
OCR when every word is there (§4).

The letter tests use rapidfuzz (``LCSseq`` for the longest common letter
subsequence, ``Indel`` to rank equal readings) on whole matrices at once, and
the pairing uses scipy's ``linear_sum_assignment`` on a weight that encodes
the §3 order lexicographically. Nothing here knows about storage or Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional, Sequence

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import LCSseq

from reviewer.core.cards.gt_geometry import stored_to_upright
from reviewer.core.models import ScoringConfig
from reviewer.core.text import normalize

#: A box as fractions of the upright image: (x_min, y_min, x_max, y_max).
Frac = tuple[float, float, float, float]


@lru_cache(maxsize=65536)
def card_words(text: str) -> tuple[str, ...]:
    """The words of a card text after §1 normalisation (NFKC, case folded,
    punctuation dropped), in reading order. ``"L-lome Safe!"`` ->
    ``("l", "lome", "safe")``."""
    return tuple(normalize(text).split())


def squashed(text: str) -> str:
    """§1 equality key: the normalised text without any whitespace, so that
    ``"To die athome"`` and ``"To die at home"`` are equal."""
    return "".join(card_words(text))


def raw_to_upright(box: Frac, orientation: int) -> Frac:
    """A box in fractions of the stored image (as a reader that ignored EXIF
    saw it) in fractions of the upright image, for EXIF ``orientation`` 1-8
    (others are treated as 1): its corners turned by gt_geometry.stored_to_upright."""
    x0, y0 = stored_to_upright((box[0], box[1]), orientation, 1.0, 1.0)
    x1, y1 = stored_to_upright((box[2], box[3]), orientation, 1.0, 1.0)
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def _overlap(a: Frac, b: Frac) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


@dataclass
class Evidence:
    """What one model card shows of one ground-truth card (§2).

    ``marks[j]``: 2 when card word j is read exactly, 1 when recognisably
    misread, truncated or run together, 0 when not read. ``readings``: the
    (model token, card word or words) pairs behind the marks.
    """

    marks: list[int]
    readings: list[tuple[str, str]]
    content: bool
    #: card words with a recognisable reading (§3, tie 1)
    recognised: int = field(init=False)
    #: card words read exactly (§3, tie 3)
    exact: int = field(init=False)

    def __post_init__(self) -> None:
        self.recognised = len(self.marks) - self.marks.count(0)
        self.exact = self.marks.count(2)

    @property
    def share(self) -> float:
        """Recognised words / card words (§3, tie 2)."""
        return self.recognised / len(self.marks) if self.marks else 0.0

    def chars(self, words: Sequence[str]) -> int:
        """Characters of the recognised card words (§3, tie 4)."""
        return sum(len(w) for w, r in zip(words, self.marks) if r)

    def describe(self) -> str:
        """The readings as ``token=word`` (``word`` alone when exact)."""
        return ", ".join(w if t == w else f"{t}={w}" for t, w in self.readings)


@dataclass
class Pairing:
    """The §3 matching of one answer: ``pairs`` [(model index, gt index)],
    the evidence of every related pair, the model cards whose box vetoed a
    text relation, and the frame the boxes were read in (None: no box
    evidence; 'upright'; or 'stored' when the reader ignored EXIF)."""

    pairs: list[tuple[int, int]] = field(default_factory=list)
    evidence: dict[tuple[int, int], Evidence] = field(default_factory=dict)
    box_vetoed: dict[int, list[int]] = field(default_factory=dict)
    box_frame: Optional[str] = None
    model_words: list[tuple[str, ...]] = field(default_factory=list)
    gt_words: list[tuple[str, ...]] = field(default_factory=list)
    lex: dict[tuple[int, int], tuple] = field(default_factory=dict)
    table: Optional["WordTable"] = None
    #: the §1 pairs (equal texts), paired before §3
    exact: list[tuple[int, int]] = field(default_factory=list)


@lru_cache(maxsize=4096)
def card_groups(words: tuple[str, ...], kmax: int, stop: frozenset[str]) -> tuple:
    """Every word and run-together group of 2..``kmax`` consecutive words of
    a card: ((group text, k, j, holds a content word), ...) (§2)."""
    out = []
    for j in range(len(words)):
        for k in range(1, kmax + 1):
            if j + k > len(words):
                break
            part = words[j:j + k]
            out.append(("".join(part), k, j, any(w not in stop for w in part)))
    return tuple(out)


@lru_cache(maxsize=262144)
def reading_mark(token: str, group: str, k: int, cfg: tuple) -> int:
    """2 when ``token`` reads ``group`` exactly, 1 when recognisably (a
    misreading or truncation of a word, k = 1; words run together, k > 1),
    else 0 (§2). ``cfg``: (misread_min_letters, short_word_letters,
    truncation_min_letters, truncation_share). Scalar twin of WordTable."""
    if token == group:
        return 2
    lt, lw = len(token), len(group)
    lcs = LCSseq.similarity(token, group)
    if k > 1:
        return 1 if abs(lt - lw) <= 1 and lcs >= lw - 1 and lw >= 4 else 0
    min_letters, short, trunc_min, trunc_share = cfg
    if lw <= short:
        return 0
    if lcs >= min_letters and 2 * lcs >= lw and 2 * lcs >= lt:
        return 1
    if lt >= trunc_min and lt < lw and token[0] == group[0] and lcs >= trunc_share * lt:
        return 1
    return 0


@lru_cache(maxsize=1024)
def _gt_groups(gt_words: tuple[tuple[str, ...], ...], kmax: int, stop: frozenset[str]):
    """The groups of all cards of one ground truth, cached across its runs:
    (groups [(text, k)], {group: holds a content word}, (group texts,
    {text: group indices}, the single words), a memo of each token's
    readings of them)."""
    content: dict[tuple[str, int], bool] = {}
    for words in gt_words:
        for text, k, _j, has_content in card_groups(words, kmax, stop):
            content[(text, k)] = content.get((text, k), False) or has_content
    groups = list(content)
    gstr = [g for g, _ in groups]
    exact_at: dict[str, list[int]] = {}
    for j, g in enumerate(gstr):
        exact_at.setdefault(g, []).append(j)
    arrays = (gstr, exact_at, frozenset(text for text, k in groups if k == 1))
    return groups, content, arrays, {}


@lru_cache(maxsize=65536)
def _group_positions(words: tuple[str, ...], kmax: int) -> dict[tuple[str, int], list[int]]:
    """{(group text, k): [start positions]} of a card's groups (read only)."""
    where: dict[tuple[str, int], list[int]] = {}
    for j in range(len(words)):
        for k in range(1, kmax + 1):
            if j + k > len(words):
                break
            where.setdefault(("".join(words[j:j + k]), k), []).append(j)
    return where


@lru_cache(maxsize=65536)
def content_groups(words: tuple[str, ...], kmax: int, stop: frozenset[str]) -> frozenset:
    """The (group text, k) of a card's groups that hold a content word (§2)."""
    return frozenset((text, k) for text, k, _j, content in card_groups(words, kmax, stop) if content)


def _cfg_key(config: ScoringConfig) -> tuple:
    return (config.misread_min_letters, config.short_word_letters,
            config.truncation_min_letters, config.truncation_share)


class WordTable:
    """Readings of one answer (§2): every model token against every
    ground-truth word and run-together group of 2-3 consecutive words,
    computed with one rapidfuzz ``cdist`` (LCSseq) over the whole answer.

    ``allowed[token]`` lists the (group, k, mark) a token may stand for: a
    reading that is both the token's best in the ground truth and the
    group's best in the answer ("each model word stands for one card word
    only"). ``reads`` answers the plain §2 test for one token and word.
    """

    def __init__(self, tokens: Sequence[str], gt_words: Sequence[tuple[str, ...]],
                 config: ScoringConfig) -> None:
        self.config = config
        self.stop = frozenset(config.stop_words)
        self.cfg = _cfg_key(config)
        self.groups, self.content, self._gt_arrays, self._readings_memo = _gt_groups(
            tuple(gt_words), config.max_run_together, self.stop)
        #: every single word of the ground truth
        self.all_words = self._gt_arrays[2]
        self.tokens = list(dict.fromkeys(tokens))
        self.allowed: dict[str, list[tuple[str, int, int]]] = {}
        if self.tokens and self.groups:
            self._compute()

    def _compute(self) -> None:
        """Marks and the best-reading gates, from one C scan per token
        (rapidfuzz ``process.extract`` with LCSseq and a letter cut-off)
        plus exact lookups for the short words under the cut-off."""
        cfg = self.config
        gstr, exact_at, _words = self._gt_arrays
        cutoff = min(cfg.misread_min_letters, 3)
        found: list[tuple[str, int, int, float]] = []  # token, group index, mark, quality
        best_t: dict[str, float] = {}
        best_w: dict[int, float] = {}
        memo = self._readings_memo
        for t in self.tokens:
            key = (t, cutoff, self.cfg)
            readings = memo.get(key)
            if readings is None:
                readings = []
                lt = len(t)
                hits = {j: lcs for _g, lcs, j in process.extract(
                    t, gstr, scorer=LCSseq.similarity, score_cutoff=cutoff, limit=None)}
                for j in exact_at.get(t, ()):
                    hits[j] = lt
                for j, lcs in hits.items():
                    text, k = self.groups[j]
                    mark = reading_mark(t, text, k, self.cfg)
                    if mark:
                        readings.append((j, mark, lcs + (0.5 if mark == 2 else 0.0)
                                         + 0.1 * (2.0 * lcs / (lt + len(text)))))
                if len(memo) > 50000:
                    memo.clear()
                memo[key] = readings
            for j, mark, quality in readings:
                found.append((t, j, mark, quality))
                if quality > best_t.get(t, 0.0):
                    best_t[t] = quality
                if quality > best_w.get(j, 0.0):
                    best_w[j] = quality
        for t, j, mark, quality in found:
            if quality >= best_t[t] - 1e-9 and quality >= best_w[j] - 1e-9:
                text, k = self.groups[j]
                self.allowed.setdefault(t, []).append((text, k, mark))

    def reads(self, token: str, word: str, k: int = 1) -> int:
        """2/1/0: ``token`` is an exact / recognisable / no reading of the
        card word (or run-together group of ``k`` words) ``word`` (§2,
        without the best-reading rule)."""
        return reading_mark(token, word, k, self.cfg)

    def evidence(self, tokens: Sequence[str], words: tuple[str, ...]) -> Evidence:
        """§2 evidence of a model card (``tokens``) for a card (``words``):
        each model token stands for one card word (or 2-3 run-together
        words), exact readings first, then longer groups."""
        where = _group_positions(words, self.config.max_run_together)
        cands = []
        for i, t in enumerate(tokens):
            for g, k, mark in self.allowed.get(t, ()):
                for j in where.get((g, k), ()):
                    cands.append((-mark, -k, -len(g), i, j, k))
        cands.sort()
        used_t: set[int] = set()
        marks = [0] * len(words)
        placed: list[tuple[int, str, str]] = []
        for neg_r, _, _, i, j, k in cands:
            if i in used_t or any(marks[x] for x in range(j, j + k)):
                continue
            used_t.add(i)
            for x in range(j, j + k):
                marks[x] = -neg_r
            placed.append((j, tokens[i], " ".join(words[j:j + k])))
        readings = [(t, w) for _, t, w in sorted(placed)]
        content = any(r and w not in self.stop for w, r in zip(words, marks))
        return Evidence(marks, readings, content)


def _box_frame(out: "Pairing", model_boxes, gt_boxes, orientation: int, config: ScoringConfig):
    """Choose the frame in which the answer's boxes lie on the cards they read:
    the upright image, or the stored one when the reader ignored EXIF (§6:
    with boxes, a word counts only for the card it lies on). Each model card
    with a box is checked against the cards it reads most words of. Returns
    (frame name, boxes in upright fractions) or (None, None) when the boxes
    do not fit well enough (``config.box_fit``) to be evidence."""
    best_cards: dict[int, list[int]] = {}
    top: dict[int, int] = {}
    for (m, g), ev in out.evidence.items():
        if gt_boxes[g] is None or model_boxes[m] is None:
            continue
        n = ev.recognised
        if n > top.get(m, 0):
            top[m], best_cards[m] = n, [g]
        elif n == top.get(m, 0):
            best_cards[m].append(g)
    frames = [("upright", 1)]
    if orientation not in (None, 1):
        frames.append(("stored", orientation))
    best = (None, None, 0.0)
    for name, o in frames:
        boxes = [raw_to_upright(b, o) if b is not None else None for b in model_boxes]
        hit = sum(1 for m, cards in best_cards.items() if any(_overlap(boxes[m], gt_boxes[g]) for g in cards))
        fit = hit / len(best_cards) if best_cards else 0.0
        if best_cards and fit >= config.box_fit and fit > best[2]:
            best = (name, boxes, fit)
    return best[0], best[1]


def pair_cards(
    model_texts: Sequence[str],
    gt_texts: Sequence[str],
    config: ScoringConfig,
    model_boxes: Optional[Sequence[Optional[Frac]]] = None,
    gt_boxes: Optional[Sequence[Optional[Frac]]] = None,
    orientation: int = 1,
) -> Pairing:
    """§3 matching: pair model cards (``model_texts``) with ground-truth cards
    (``gt_texts``) one to one, as many related pairs as possible; among those
    pairings prefer more recognised words, a larger share of the card's
    words, more exactly read words, more characters, then reading order.

    ``model_boxes`` / ``gt_boxes``: boxes as fractions of the image (model
    boxes in the frame the reader saw), or None; when they fit (see
    ``ScoringConfig.box_fit``) a model card is related only to cards its box
    overlaps (§6). ``orientation``: the photo's EXIF orientation, to recognise
    boxes read off the stored, un-rotated pixels. Never raises.
    """
    mw = [card_words(t) for t in model_texts]
    gw = [card_words(t) for t in gt_texts]
    out = Pairing(model_words=mw, gt_words=gw)
    if not mw or not gw:
        return out
    exact = _exact_pairs(mw, gw)
    out.exact = exact
    for m, g in exact:
        out.evidence[m, g] = Evidence([2] * len(gw[g]), [(w, w) for w in gw[g]], True)
    paired_m = {m for m, _ in exact}
    paired_g = {g for _, g in exact}
    rest_m = [m for m in range(len(mw)) if m not in paired_m]
    rest_g = [g for g in range(len(gw)) if g not in paired_g]
    if not rest_m:
        out.pairs = sorted(exact)
        return out
    table = WordTable([t for m in rest_m for t in mw[m]], gw, config)
    out.table = table
    for m, g in _related(table, mw, gw, rest_m, rest_g):
        ev = table.evidence(mw[m], gw[g])
        if ev.content:
            out.evidence[m, g] = ev
    use_boxes = config.use_boxes and model_boxes is not None and gt_boxes is not None \
        and any(b is not None for b in model_boxes) and any(b is not None for b in gt_boxes)
    if use_boxes:
        out.box_frame, boxes = _box_frame(out, model_boxes, gt_boxes, orientation, config)
        if boxes is not None:
            for (m, g) in list(out.evidence):
                if m in paired_m:
                    continue  # an equal text is that card wherever its box is
                if boxes[m] is not None and gt_boxes[g] is not None and not _overlap(boxes[m], gt_boxes[g]):
                    out.box_vetoed.setdefault(m, []).append(g)
                    del out.evidence[m, g]
            _placed_stop_words(out, table, boxes, gt_boxes, rest_m, rest_g)
    out.pairs = sorted(exact + _assign(out, rest_m, rest_g))
    return out


def _exact_pairs(mw: Sequence[tuple[str, ...]], gw: Sequence[tuple[str, ...]]) -> list[tuple[int, int]]:
    """§1 first: a model card equal to a ground-truth card (spacing and
    punctuation aside) is a correct reading of it, so it is paired with it
    before §3 pairs the rest; equal texts pair in reading order."""
    where: dict[str, list[int]] = {}
    for g, w in enumerate(gw):
        if w:
            where.setdefault("".join(w), []).append(g)
    pairs = []
    for m, w in enumerate(mw):
        free = where.get("".join(w)) if w else None
        if free:
            pairs.append((m, free.pop(0)))
    return pairs


def _placed_stop_words(out: Pairing, table: WordTable, boxes, gt_boxes,
                       rest_m: Sequence[int], rest_g: Sequence[int]) -> None:
    """§2 with position (§6): a stop word is no evidence *on its own*; read
    inside a card's box by a model card that also reads a content word of a
    card it lies on, it is evidence for that card (as the hand keys apply it
    with the photo in view). Without boxes stop words never relate."""
    readers = {m for (m, _g) in out.evidence} & set(rest_m)
    for m in readers:
        if boxes[m] is None:
            continue
        for g in rest_g:
            words = out.gt_words[g]
            if (m, g) in out.evidence or gt_boxes[g] is None or not _overlap(boxes[m], gt_boxes[g]):
                continue
            ev = table.evidence(out.model_words[m], words)
            if ev.recognised:
                out.evidence[m, g] = ev


def _related(table: WordTable, mw, gw, rest_m: Sequence[int], rest_g: Sequence[int]) -> set[tuple[int, int]]:
    """Candidate (model, gt) pairs among the cards §1 left unpaired: some
    model token has an allowed reading of a group of the card holding a
    content word (§2)."""
    by_group: dict[tuple[str, int], set[int]] = {}
    for g in rest_g:
        words = gw[g]
        for text, k, _j, content in card_groups(words, table.config.max_run_together, table.stop):
            if content:
                by_group.setdefault((text, k), set()).add(g)
    reads: dict[str, set[int]] = {}
    for t, readings in table.allowed.items():
        cards: set[int] = set()
        for text, k, _mark in readings:
            cards |= by_group.get((text, k), set())
        if cards:
            reads[t] = cards
    out: set[tuple[int, int]] = set()
    for m in rest_m:
        for t in set(mw[m]):
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
        out.lex[m, g] = (1, ev.recognised, round(ev.share * 10000), ev.exact,
                         ev.chars(out.gt_words[g]), n_model - m)
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
        if scale[0] <= 2.0 ** 52 or levels <= 2:
            break
        levels -= 1
    weight = np.zeros((len(rest_m), len(rest_g)))
    for k in keys:
        weight[row_of[k[0]], col_of[k[1]]] = sum(v * f for v, f in zip(out.lex[k][:levels], scale))
    from scipy.optimize import linear_sum_assignment  # lazy: `reviewer open` starts without scipy
    rows, cols = linear_sum_assignment(weight, maximize=True)
    return [(rest_m[r], rest_g[c]) for r, c in zip(rows, cols) if weight[r, c] > 0]


def _anchors(table: WordTable, tokens: Sequence[str], words: Sequence[str], kmax: int) -> list[Optional[int]]:
    """Order-preserving alignment of card words to model tokens that reads
    the most words (exact ones preferred): card word -> token index or None.
    A token may read up to ``kmax`` run-together words (§2)."""
    n, m = len(words), len(tokens)
    reads = table.reads
    # marks[i][j][k-1]: token i reads words[j-k+1 .. j] (k words ending at j)
    marks = []
    for t in tokens:
        lt = len(t)
        row = []
        for j in range(n):
            cell = [reads(t, words[j], 1)]
            text = words[j]
            for k in range(2, kmax + 1):
                if j - k + 1 < 0:
                    break
                text = words[j - k + 1] + text
                cell.append(reads(t, text, k) if abs(len(text) - lt) <= 1 else 0)
            row.append(cell)
        marks.append(row)
    score = [[(0, 0)] * (m + 1) for _ in range(n + 1)]
    back: list[list[Optional[tuple]]] = [[None] * (m + 1) for _ in range(n + 1)]
    for j in range(n + 1):
        srow, brow = score[j], back[j]
        for i in range(m + 1):
            if i == 0 and j == 0:
                continue
            best, how = (-1, -1), None
            if j > 0 and score[j - 1][i] > best:
                best, how = score[j - 1][i], ("w",)
            if i > 0 and srow[i - 1] > best:
                best, how = srow[i - 1], ("t",)
            if i > 0 and j > 0:
                for k, r in enumerate(marks[i - 1][j - 1], 1):
                    if r:
                        prev = score[j - k][i - 1]
                        cand = (prev[0] + k, prev[1] + (k if r == 2 else 0))
                        if cand > best:
                            best, how = cand, ("m", k)
            srow[i] = best
            brow[i] = how
    out: list[Optional[int]] = [None] * n
    j, i = n, m
    while j > 0 or i > 0:
        how = back[j][i]
        if how[0] == "w":
            j -= 1
        elif how[0] == "t":
            i -= 1
        else:
            for x in range(j - how[1], j):
                out[x] = i - 1
            j -= how[1]
            i -= 1
    return out


def missing_words(
    table: WordTable, tokens: Sequence[str], words: Sequence[str], config: ScoringConfig,
) -> list[str]:
    """§4 OCR/PARTIAL test: the card words that are not there. A word is
    there when, in its place in the card's word order, the model card holds
    a recognisable reading of it, or any token within ``length_slack``
    letters of its length that is neither a truncation of it (a shorter
    beginning) nor a reading of a word of another card of the ground truth."""
    if len(tokens) == len(words) and all(
            table.reads(t, w) or _fills(table, t, w, words, config) for t, w in zip(tokens, words)):
        return []  # word for word in place: the common misread-a-word case
    anchors = _anchors(table, tokens, words, config.max_run_together)
    if all(a is None for a in anchors):
        return list(words)
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
        else:
            start = prev + 1  # type: ignore[operator]
            slots = list(range(start, start + len(gap_words))) if start + len(gap_words) <= len(tokens) else []
        for pos, w in enumerate(gap_words):
            t = tokens[slots[pos]] if slots else None
            if t is None or not _fills(table, t, words[w], words, config):
                missing.append(words[w])
        j = k
    return missing


def _fills(table: WordTable, token: str, word: str, card: Sequence[str], config: ScoringConfig) -> bool:
    """§4: ``token`` in ``word``'s place counts as the word: within
    ``length_slack`` letters of its length, not a truncation of it, and not
    a reading of a word of another card (a word not on this ``card``)."""
    if abs(len(token) - len(word)) > config.length_slack:
        return False
    if len(token) < len(word) and word.startswith(token):
        return False  # a truncation keeps only part of the word
    return not any(table.reads(token, o) for o in table.all_words if o not in card)
