"""Score one run against ground truth: match, classify (T-P5), pile mapping.

T-P5 scoring procedure, card-reading-spike-evaluation.md:
1. parse the output (or note FORMAT)        -> reviewer.core.cards.parsing
2. match model cards to ground-truth cards  -> match_cards (rapidfuzz + scipy)
3. unmatched model cards are HALLUC
4. unmatched ground-truth cards are MISS
5. matched cards: OCR / PARTIAL by text, SPATIAL by pile
6. accuracy = cards_correct / cards_visible -> reviewer.core.cards.metrics
Exactly one code per error: a matched card with wrong text is OCR or PARTIAL
whatever its pile; SPATIAL is only for correctly read cards.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np
from pydantic import BaseModel, Field
from rapidfuzz import fuzz, process
from scipy.optimize import linear_sum_assignment

from reviewer.core.cards.boxes import detect_convention
from reviewer.core.models import (
    AnswerSchema,
    Code,
    Finding,
    GroundTruth,
    ModelCard,
    Prompt,
    ScoringConfig,
    BoxConvention,
)
from reviewer.core.cards.parsing import ParseResult, parse_answer
from reviewer.core.text import normalize


class CardOutcome(BaseModel):
    """What happened to one ground-truth card in one run.

    ``gt_card_id``: the card's id, or its index when the ground truth is not
    stored. ``model_index``: index of the matched model card, None for MISS.
    ``similarity``: match score 0-100. ``pile_ok``: the matched model card's
    pile maps to the card's pile (None when spatial is not scored).
    """

    gt_card_id: int
    gt_text: str
    gt_pile: Optional[str] = None
    model_index: Optional[int] = None
    model_text: Optional[str] = None
    model_pile: Optional[str] = None
    similarity: float = 0.0
    text_ok: bool = False
    pile_ok: Optional[bool] = None


class RunFacts(BaseModel):
    """Everything scoring learnt about a run, besides its findings; stored
    with the run so metrics can be recomputed from reviewed findings."""

    config_version: str
    schema_: AnswerSchema = Field(AnswerSchema.FREE, alias="schema")
    scored: bool = False
    parsed: bool = False
    json_valid: bool = False
    repaired: bool = False
    box_convention: Optional[BoxConvention] = None
    cards_reported: int = 0
    spatial_scored: bool = False
    outcomes: list[CardOutcome] = Field(default_factory=list)
    pile_mapping: dict[str, Optional[str]] = Field(default_factory=dict)
    parse_error: Optional[str] = None
    error_offset: Optional[int] = None
    span: Optional[tuple[int, int]] = None

    model_config = {"populate_by_name": True}


class RunScore(BaseModel):
    """The result of scoring one run: facts, model cards and findings."""

    facts: RunFacts
    cards: list[ModelCard] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)


def similarity_matrix(
    model_norm: Sequence[str], gt_norm: Sequence[str], config: ScoringConfig
) -> np.ndarray:
    """Match scores (0-100), shape (len(model_norm), len(gt_norm)), float32.

    score = max(ratio, partial_ratio x fragment_weight) where the shorter text
    has at least ``min_fragment_chars`` characters, so a fragment ("To have my
    financial") still matches its card. partial_ratio is only computed where
    its upper bound could change the score. Inputs are normalised texts.
    """
    if not model_norm or not gt_norm:
        return np.zeros((len(model_norm), len(gt_norm)), dtype=np.float32)
    ratio = process.cdist(model_norm, gt_norm, scorer=fuzz.ratio, dtype=np.float32)
    mlen = np.fromiter((len(t) for t in model_norm), dtype=np.float32, count=len(model_norm))
    glen = np.fromiter((len(t) for t in gt_norm), dtype=np.float32, count=len(gt_norm))
    short = np.minimum.outer(mlen, glen)
    # partial_ratio is costly; compute it only where it could lift a pair
    # over the threshold. With L = ratio (a + b) / 200 matched characters and
    # a the shorter length, partial_ratio <= 200 L / (a + L).
    matched = ratio * np.add.outer(mlen, glen) / 200.0
    bound = np.divide(200.0 * matched, short + matched, out=np.zeros_like(matched),
                      where=(short + matched) > 0)
    need = (short >= config.min_fragment_chars) & (bound * config.fragment_weight >= config.match_threshold - 0.01) \
        & (bound > ratio)
    score = ratio.copy()
    for m, g in zip(*np.nonzero(need)):
        partial = fuzz.partial_ratio(model_norm[m], gt_norm[g]) * config.fragment_weight
        if partial > score[m, g]:
            score[m, g] = partial
    return score


def match_cards(
    sim: np.ndarray, config: ScoringConfig
) -> list[tuple[int, int]]:
    """One-to-one optimal assignment of model cards (rows) to ground-truth
    cards (columns) maximising total similarity (scipy linear_sum_assignment);
    pairs under ``match_threshold`` are dropped (T-P5 step 2).
    Returns [(model_index, gt_index)].
    """
    if sim.size == 0:
        return []
    weights = np.where(sim >= config.match_threshold, sim, 0.0)
    weights = weights + (sim >= 100.0)  # an exact reading wins a tie
    rows, cols = linear_sum_assignment(weights, maximize=True)
    return [
        (int(r), int(c)) for r, c in zip(rows, cols) if sim[r, c] >= config.match_threshold
    ]


def map_piles(
    pairs: Sequence[tuple[int, int]],
    model_piles: Sequence[Optional[str]],
    gt_piles: Sequence[Optional[str]],
) -> dict[str, Optional[str]]:
    """Map model piles one-to-one to ground-truth piles by the assignment that
    maximises shared matched cards; label similarity breaks ties (issue 2 §4).

    ``model_piles[m]`` / ``gt_piles[g]``: pile label of model card m / ground-
    truth card g. Returns {model pile label: ground-truth pile label or None}.
    """
    mp = list(dict.fromkeys(p for p in model_piles if p is not None))
    gp = list(dict.fromkeys(p for p in gt_piles if p is not None))
    mapping: dict[str, Optional[str]] = {p: None for p in mp}
    if not mp or not gp:
        return mapping
    mi = {p: i for i, p in enumerate(mp)}
    gi = {p: i for i, p in enumerate(gp)}
    shared = np.zeros((len(mp), len(gp)), dtype=np.float64)
    for m, g in pairs:
        if model_piles[m] is not None and gt_piles[g] is not None:
            shared[mi[model_piles[m]], gi[gt_piles[g]]] += 1
    labels = process.cdist(
        [normalize(p) for p in mp], [normalize(p) for p in gp], scorer=fuzz.ratio
    )
    rows, cols = linear_sum_assignment(shared + labels / 100.0 * 1e-3, maximize=True)
    for r, c in zip(rows, cols):
        mapping[mp[r]] = gp[c]
    return mapping


def _classify_text(
    model_norm: str, gt_norm: str, sim: float, config: ScoringConfig
) -> tuple[Optional[Code], float]:
    """None when read correctly, else PARTIAL or OCR (T-P5 step 5), with the
    partial_ratio used."""
    if model_norm == gt_norm:
        return None, 100.0
    if config.correct_threshold < 100.0 and fuzz.ratio(model_norm, gt_norm) >= config.correct_threshold:
        return None, sim
    partial = fuzz.partial_ratio(model_norm, gt_norm)
    short, long_ = sorted((len(model_norm), len(gt_norm)))
    if partial >= config.partial_threshold and long_ and short / long_ <= config.partial_length_ratio:
        return Code.PARTIAL, partial
    return Code.OCR, partial


def _pile_phrase(model_pile: Optional[str], mapping: dict[str, Optional[str]]) -> str:
    target = mapping.get(model_pile) if model_pile is not None else None
    if model_pile is None:
        return "in no pile"
    if target is None:
        return f"in model pile '{model_pile}', which maps to no ground-truth pile"
    return f"in model pile '{model_pile}' (mapped to '{target}')"


def score_run(
    output: str,
    prompt: Prompt,
    ground_truth: Optional[GroundTruth],
    config: ScoringConfig = ScoringConfig(),
    *,
    width: Optional[int] = None,
    height: Optional[int] = None,
    example: Any = None,
    strict: bool = False,
) -> RunScore:
    """Parse, match and classify one run (T-P5 steps 1-5).

    ``width``/``height``: upright image size in pixels (for box conventions).
    ``example``: the prompt's JSON example (skipped if the model echoes it).
    ``strict``: no salvage of broken JSON. A free-text prompt gives an
    unscored RunScore with no findings; an item without ground-truth cards is
    parsed (FORMAT findings) but not scored. Never raises on any output text.
    """
    schema = prompt.schema_
    facts = RunFacts(config_version=config.version, schema=schema)
    if schema == AnswerSchema.FREE:
        return RunScore(facts=facts)
    parse = parse_answer(output, schema, salvage=config.salvage and not strict, prompt_example=example)
    facts.parsed, facts.json_valid, facts.repaired = parse.parsed, parse.json_valid, parse.repaired
    facts.parse_error, facts.error_offset, facts.span = parse.error, parse.error_offset, parse.span
    facts.cards_reported = len(parse.cards)
    findings: list[Finding] = []
    if parse.error:
        findings.append(Finding(code=Code.FORMAT, detail=parse.error))
    findings.extend(_convention_findings(parse, prompt, config, width, height, facts))
    gt_cards = ground_truth.cards if ground_truth else []
    facts.scored = bool(gt_cards)
    # an unreadable answer to a grouping prompt put no card in the right pile
    facts.spatial_scored = schema == AnswerSchema.PILES and any(c.pile for c in gt_cards)
    if not gt_cards or not parse.parsed:
        facts.outcomes = [
            CardOutcome(gt_card_id=_card_key(c, i), gt_text=c.text, gt_pile=c.pile)
            for i, c in enumerate(gt_cards)
        ]
        return RunScore(facts=facts, cards=parse.cards, findings=findings)
    findings.extend(_classify(parse, gt_cards, config, facts))
    return RunScore(facts=facts, cards=parse.cards, findings=findings)


def _card_key(card: Any, index: int) -> int:
    return card.id if card.id is not None else index


def _convention_findings(
    parse: ParseResult,
    prompt: Prompt,
    config: ScoringConfig,
    width: Optional[int],
    height: Optional[int],
    facts: RunFacts,
) -> list[Finding]:
    """Detect the box convention; a convention other than the prompt asked
    for is one FORMAT finding naming both (issue 2 §3)."""
    boxes = [c.bbox for c in parse.cards if c.bbox is not None]
    asked = prompt.box_convention
    facts.box_convention = detect_convention(boxes, width, height, asked or config.ambiguous_box_convention)
    if facts.box_convention is None or asked is None or asked == facts.box_convention:
        return []
    return [
        Finding(
            code=Code.FORMAT,
            detail=(
                f"boxes use the {facts.box_convention.value} convention; "
                f"the prompt asked for {asked.value}"
            ),
        )
    ]


def _classify(
    parse: ParseResult, gt_cards: Sequence[Any], config: ScoringConfig, facts: RunFacts
) -> list[Finding]:
    """T-P5 steps 2-5 on a parsed answer; fills facts.outcomes and mapping."""
    model_norm = [normalize(c.text) for c in parse.cards]
    gt_norm = [normalize(c.text) for c in gt_cards]
    sim = similarity_matrix(model_norm, gt_norm, config)
    pairs = match_cards(sim, config)
    by_gt = {g: m for m, g in pairs}
    gt_piles = [c.pile for c in gt_cards]
    model_piles = [c.pile for c in parse.cards]
    facts.spatial_scored = parse.grouped and any(p is not None for p in gt_piles)
    mapping = map_piles(pairs, model_piles, gt_piles) if facts.spatial_scored else {}
    facts.pile_mapping = mapping
    findings: list[Finding] = []
    outcomes: list[CardOutcome] = []
    for g, card in enumerate(gt_cards):
        key = _card_key(card, g)
        m = by_gt.get(g)
        if m is None:
            outcomes.append(CardOutcome(gt_card_id=key, gt_text=card.text, gt_pile=card.pile,
                                        pile_ok=False if facts.spatial_scored else None))
            findings.append(
                Finding(code=Code.MISS, gt_card=card.text, gt_card_id=key,
                        detail="ground-truth card not found in the output")
            )
            continue
        mc = parse.cards[m]
        similarity = float(sim[m, g])
        code, partial = _classify_text(model_norm[m], gt_norm[g], similarity, config)
        pile_ok = (mc.pile is not None and mapping.get(mc.pile) == card.pile) if facts.spatial_scored else None
        out = CardOutcome(gt_card_id=key, gt_text=card.text, gt_pile=card.pile, model_index=m,
                          model_text=mc.text, model_pile=mc.pile, similarity=similarity,
                          text_ok=code is None, pile_ok=pile_ok)
        outcomes.append(out)
        if code is not None:
            how = "a fragment of" if len(model_norm[m]) < len(gt_norm[g]) else "longer than"
            detail = (
                f"read '{mc.text}', {how} '{card.text}' (partial ratio {partial:.0f})"
                if code == Code.PARTIAL
                else f"read '{mc.text}' for '{card.text}' (similarity {similarity:.0f})"
            )
            findings.append(Finding(code=code, gt_card=card.text, gt_card_id=key,
                                    model_card=mc.text, model_index=m, detail=detail))
        elif facts.spatial_scored and not out.pile_ok:
            findings.append(
                Finding(code=Code.SPATIAL, gt_card=card.text, gt_card_id=key,
                        model_card=mc.text, model_index=m,
                        detail=f"{_pile_phrase(mc.pile, mapping)}; belongs to '{card.pile}'")
            )
    facts.outcomes = outcomes
    findings.extend(_hallucinations(parse.cards, model_norm, sim, by_gt, gt_cards, config))
    return findings


def _hallucinations(
    cards: Sequence[ModelCard],
    model_norm: Sequence[str],
    sim: np.ndarray,
    by_gt: dict[int, int],
    gt_cards: Sequence[Any],
    config: ScoringConfig,
) -> list[Finding]:
    """T-P5 step 3: every unmatched model card is HALLUC; the detail says
    when it duplicates a card already matched."""
    matched = set(by_gt.values())
    out = []
    for m, card in enumerate(cards):
        if m in matched:
            continue
        detail = "not a card in the ground truth"
        if sim.shape[1]:
            g = int(np.argmax(sim[m]))
            if sim[m, g] >= config.match_threshold and g in by_gt:
                other = by_gt[g]
                verb = "duplicates" if model_norm[m] == model_norm[other] else "resembles"
                detail = (
                    f"{verb} '{gt_cards[g].text}', already matched to model card "
                    f"#{other + 1} '{cards[other].text}'"
                )
            elif sim[m, g] > 0:
                detail += f" (closest: '{gt_cards[g].text}', similarity {sim[m, g]:.0f})"
        out.append(Finding(code=Code.HALLUC, model_card=card.text, model_index=m, detail=detail))
    return out
