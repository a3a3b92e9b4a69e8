"""Score one run against ground truth: match, classify (T-P5), pile mapping.

T-P5 scoring procedure, card-reading-spike-evaluation.md:
1. parse the output (or note FORMAT)        -> reviewer.core.cards.parsing
2. match model cards to ground-truth cards  -> reviewer.core.cards.pairing
3. unmatched model cards are HALLUC
4. unmatched ground-truth cards are MISS
5. matched cards: OCR / PARTIAL by text, SPATIAL by pile
6. accuracy = cards_correct / cards_visible -> reviewer.core.cards.metrics
Exactly one code per error: a matched card with wrong text is OCR or PARTIAL
whatever its pile; SPATIAL is only for correctly read cards. Steps 2-5 follow
shared/specs/card-scoring-rules.md (how a careful person applies T-P5 to
messy answers); every finding's detail names the rule (§) that decided it and
the words it recognised.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from pydantic import BaseModel, Field, TypeAdapter
from rapidfuzz import fuzz, process

from reviewer.core.cards.box_fit import Frac
from reviewer.core.cards.boxes import detect_convention
from reviewer.core.cards.pairing import Pairing, pair_cards
from reviewer.core.cards.parsing import ParseResult, parse_answer
from reviewer.core.cards.readings import squashed
from reviewer.core.cards.word_presence import word_presence
from reviewer.core.models import (
    AnswerSchema,
    BBox,
    BoxConvention,
    Card,
    Code,
    Finding,
    GroundTruth,
    ModelCard,
    Prompt,
    ScoringConfig,
)
from reviewer.core.text import normalize


class CardOutcome(BaseModel):
    """What happened to one ground-truth card in one run.

    ``gt_card_id``: the card's id, or its index when the ground truth is not
    stored. ``model_index``: index of the matched model card, None for MISS.
    ``similarity``: the share of the card's words the model card reads
    (card-scoring-rules.md §2), 0-100. ``pile_ok``: the matched model card's
    pile maps to the card's pile (None when spatial is not scored).
    """

    gt_card_id: int
    gt_text: str
    gt_pile: str | None = None
    model_index: int | None = None
    model_text: str | None = None
    model_pile: str | None = None
    similarity: float = 0.0
    text_ok: bool = False
    pile_ok: bool | None = None


class RunFacts(BaseModel):
    """Everything scoring learnt about a run, besides its findings; stored
    with the run so metrics can be recomputed from reviewed findings."""

    config_version: str
    schema_: AnswerSchema = Field(AnswerSchema.FREE, alias="schema")
    scored: bool = False
    parsed: bool = False
    json_valid: bool = False
    repaired: bool = False
    box_convention: BoxConvention | None = None
    cards_reported: int = 0
    spatial_scored: bool = False
    outcomes: list[CardOutcome] = Field(default_factory=list)
    pile_mapping: dict[str, str | None] = Field(default_factory=dict)
    parse_error: str | None = None
    error_offset: int | None = None
    span: tuple[int, int] | None = None
    #: §6: the frame the answer's boxes were read in as position evidence:
    #: 'upright', 'stored' (the reader ignored EXIF), or None (not used)
    box_frame: str | None = None

    model_config = {"populate_by_name": True}


class RunScore(BaseModel):
    """The result of scoring one run: facts, model cards and findings."""

    facts: RunFacts
    cards: list[ModelCard] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)


def map_piles(
    pairs: Sequence[tuple[int, int]],
    model_piles: Sequence[str | None],
    gt_piles: Sequence[str | None],
) -> dict[str, str | None]:
    """Map model piles one-to-one to ground-truth piles by the assignment that
    maximises shared matched cards; label similarity breaks ties
    (card-scoring-rules.md §4 SPATIAL: pass the correctly read pairs only).

    ``model_piles[m]`` / ``gt_piles[g]``: pile label of model card m / ground-
    truth card g. Returns {model pile label: ground-truth pile label or None}.
    """
    mp = list(dict.fromkeys(p for p in model_piles if p is not None))
    gp = list(dict.fromkeys(p for p in gt_piles if p is not None))
    mapping: dict[str, str | None] = {p: None for p in mp}
    if not mp or not gp:
        return mapping
    mi = {p: i for i, p in enumerate(mp)}
    gi = {p: i for i, p in enumerate(gp)}
    shared = [[0] * len(gp) for _ in mp]
    for m, g in pairs:
        model_pile, gt_pile = model_piles[m], gt_piles[g]
        if model_pile is not None and gt_pile is not None:
            shared[mi[model_pile]][gi[gt_pile]] += 1
    bonus = _label_bonus(tuple(mp), tuple(gp))
    weight = [[n + b for n, b in zip(row, brow)] for row, brow in zip(shared, bonus)]
    clear = _clear_assignment(weight)
    if clear is None:
        from scipy.optimize import linear_sum_assignment  # lazy: `reviewer open` starts without scipy

        clear = linear_sum_assignment(np.array(weight, dtype=np.float64), maximize=True)
    for r, c in zip(*clear):
        mapping[mp[r]] = gp[c]
    return mapping


@lru_cache(maxsize=4096)
def _label_bonus(mp: tuple[str, ...], gp: tuple[str, ...]) -> tuple[tuple[float, ...], ...]:
    """The tie-breaking weight of map_piles: rapidfuzz ``fuzz.ratio`` of the
    normalised pile labels (``cdist``, float32) / 100 * 1e-3, per (model
    pile, ground-truth pile); cached by the labels."""
    labels = process.cdist([normalize(p) for p in mp], [normalize(p) for p in gp], scorer=fuzz.ratio)
    return tuple(tuple(row) for row in (labels / 100.0 * 1e-3).tolist())


def _clear_assignment(weight: list[list[float]]) -> tuple[Sequence[int], Sequence[int]] | None:
    """The maximum-weight assignment of the rows to the columns of the small
    matrix ``weight`` (or of its columns to its rows when it is tall) when
    it needs no search: every row has one strictly largest entry and no
    two rows pick the same column. Their sum bounds every assignment and
    only this one reaches it, so scipy's linear_sum_assignment would give
    the same (rows, cols). None otherwise."""
    tall = len(weight) > len(weight[0])
    lines = [list(col) for col in zip(*weight)] if tall else weight
    picks = []
    for line in lines:
        best = max(line)
        if line.count(best) != 1:
            return None
        picks.append(line.index(best))
    if len(set(picks)) != len(picks):
        return None
    return (picks, range(len(lines))) if tall else (range(len(lines)), picks)


def _pile_phrase(model_pile: str | None, mapping: dict[str, str | None]) -> str:
    target = mapping.get(model_pile) if model_pile is not None else None
    if model_pile is None:
        return "in no pile"
    if target is None:
        return f"in model pile '{model_pile}', which maps to no ground-truth pile"
    return f"in model pile '{model_pile}' (mapped to '{target}')"


def score_run(
    output: str,
    prompt: Prompt,
    ground_truth: GroundTruth | None,
    config: ScoringConfig = ScoringConfig(),
    *,
    width: int | None = None,
    height: int | None = None,
    example: Any = None,
    strict: bool = False,
    orientation: int = 1,
) -> RunScore:
    """Parse, match and classify one run (T-P5 steps 1-5).

    ``width``/``height``: upright image size in pixels (for box conventions
    and box evidence). ``orientation``: the photo's EXIF orientation, so that
    boxes read off the stored, un-rotated pixels are recognised (§6).
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
    findings: list[dict[str, Any]] = []  # Finding fields, validated once (_FINDINGS)
    problems = ([parse.error] if parse.error else []) + _convention_problems(
        parse, prompt, config, width, height, facts
    )
    if problems:  # §4 FORMAT: at most one per run
        findings.append(dict(code=Code.FORMAT, detail="; ".join(problems)))
    gt_cards = transcribed_cards(ground_truth)
    facts.scored = bool(gt_cards)
    # an unreadable answer to a grouping prompt put no card in the right pile
    facts.spatial_scored = schema == AnswerSchema.PILES and any(c.pile for c in gt_cards)
    if not gt_cards or not parse.parsed:
        facts.outcomes = [
            CardOutcome(gt_card_id=_card_key(c, i), gt_text=c.text, gt_pile=c.pile) for i, c in enumerate(gt_cards)
        ]
        return RunScore(facts=facts, cards=parse.cards, findings=_FINDINGS.validate_python(findings))
    findings.extend(_classify(parse, gt_cards, config, facts, width, height, orientation))
    return RunScore(facts=facts, cards=parse.cards, findings=_FINDINGS.validate_python(findings))


def to_transcribe(card: Any) -> bool:
    """A ground-truth card with no text yet (a box drawn or imported
    without a transcription): left out of scoring until it is transcribed."""
    return not card.text.strip()


def transcribed_cards(ground_truth: GroundTruth | None) -> list[Card]:
    """The cards of ``ground_truth`` that scoring uses: those with text
    (``to_transcribe``). A card without an id gets its position in the whole
    ground truth as id, so outcomes still name it after others are left out."""
    if ground_truth is None:
        return []
    cards = ground_truth.cards
    if all(c.text.strip() for c in cards):
        return cards
    return [
        c if c.id is not None else c.model_copy(update={"id": i}) for i, c in enumerate(cards) if not to_transcribe(c)
    ]


def _card_key(card: Any, index: int) -> int:
    return card.id if card.id is not None else index


def _convention_problems(
    parse: ParseResult,
    prompt: Prompt,
    config: ScoringConfig,
    width: int | None,
    height: int | None,
    facts: RunFacts,
) -> list[str]:
    """Detect the box convention; a convention other than the prompt asked
    for is a FORMAT problem naming both (card-scoring-rules.md §4 FORMAT)."""
    boxes = [c.bbox for c in parse.cards if c.bbox is not None]
    asked = prompt.box_convention
    facts.box_convention = detect_convention(boxes, width, height, asked or config.ambiguous_box_convention)
    if facts.box_convention is None or asked is None or asked == facts.box_convention:
        return []
    return [f"boxes use the {facts.box_convention.value} convention; the prompt asked for {asked.value}"]


def _fractions(
    box: BBox | None, convention: BoxConvention | None, width: int | None, height: int | None
) -> Frac | None:
    """A box as fractions of the image it was drawn on, or None."""
    if box is None or convention is None:
        return None
    if convention == BoxConvention.UNIT:
        sx = sy = 1.0
    elif convention == BoxConvention.GRID1000:
        sx = sy = 1000.0
    elif width and height:
        sx, sy = float(width), float(height)
    else:
        return None
    return (box.x_min / sx, box.y_min / sy, box.x_max / sx, box.y_max / sy)


def _classify(
    parse: ParseResult,
    gt_cards: Sequence[Any],
    config: ScoringConfig,
    facts: RunFacts,
    width: int | None,
    height: int | None,
    orientation: int,
) -> list[dict[str, Any]]:
    """T-P5 steps 2-5 by the card scoring rules (card-scoring-rules.md §1-4:
    reviewer.core.cards.pairing and word_presence); fills facts.outcomes and
    the pile mapping.
    Returns the fields of the findings (``_FINDINGS`` builds them)."""
    cards = parse.cards
    model_boxes = gt_boxes = None
    if config.use_boxes and width and height and any(c.bbox for c in cards) and any(c.bbox for c in gt_cards):
        model_boxes = [_fractions(c.bbox, facts.box_convention, width, height) for c in cards]
        gt_boxes = [_fractions(c.bbox, BoxConvention.PIXELS, width, height) for c in gt_cards]
        if facts.box_convention == BoxConvention.PIXELS and orientation in (5, 6, 7, 8):
            orientation = 1  # stored-frame pixels would need the stored size
    pairing = pair_cards(
        [c.text for c in cards], [c.text for c in gt_cards], config, model_boxes, gt_boxes, orientation
    )
    facts.box_frame = pairing.box_frame
    mw, gw = pairing.model_words, pairing.gt_words
    equal = set(pairing.exact)  # §1 pairs: equal texts
    by_gt: dict[int, int] = {}
    texts_ok: dict[int, bool] = {}
    for m, g in pairing.pairs:
        by_gt[g] = m
        texts_ok[g] = (m, g) in equal or "".join(mw[m]) == "".join(gw[g])
    gt_piles = [c.pile for c in gt_cards]
    model_piles = [c.pile for c in cards]
    spatial = facts.spatial_scored = parse.grouped and any(p is not None for p in gt_piles)
    correct_pairs = [(m, g) for m, g in pairing.pairs if texts_ok[g]]
    mapping = map_piles(correct_pairs, model_piles, gt_piles) if spatial else {}
    facts.pile_mapping = mapping
    findings: list[dict[str, Any]] = []
    outcomes: list[dict[str, Any]] = []
    evidence = pairing.evidence
    for g, card in enumerate(gt_cards):
        key = card.id if card.id is not None else g
        paired = by_gt.get(g)
        if paired is None:
            outcomes.append(_outcome(key, card, None, None, 0.0, False, False if spatial else None))
            findings.append(
                dict(code=Code.MISS, gt_card=card.text, gt_card_id=key, detail=_miss_detail(pairing, g, cards))
            )
            continue
        m = paired
        mc = cards[m]
        ev = evidence[m, g]
        pile_ok = (mc.pile is not None and mapping.get(mc.pile) == card.pile) if spatial else None
        ok = texts_ok[g]
        outcomes.append(
            {
                "gt_card_id": key,
                "gt_text": card.text,
                "gt_pile": card.pile,
                "model_index": m,
                "model_text": mc.text,
                "model_pile": mc.pile,
                "similarity": round(100 * ev.share, 1),
                "text_ok": ok,
                "pile_ok": pile_ok,
            }
        )
        if not ok:
            code, detail = _text_code(pairing, m, g, config)
            if spatial and not pile_ok:
                detail += f"; also {_pile_phrase(mc.pile, mapping)}, not SPATIAL: one code per card"
            findings.append(
                dict(code=code, gt_card=card.text, gt_card_id=key, model_card=mc.text, model_index=m, detail=detail)
            )
        elif spatial and not pile_ok:
            findings.append(
                dict(
                    code=Code.SPATIAL,
                    gt_card=card.text,
                    gt_card_id=key,
                    model_card=mc.text,
                    model_index=m,
                    detail=f"§4 SPATIAL: read correctly, {_pile_phrase(mc.pile, mapping)}; belongs to '{card.pile}'",
                )
            )
    facts.outcomes = _OUTCOMES.validate_python(outcomes)
    findings.extend(_hallucinations(pairing, cards, gt_cards))
    return findings


#: builds a run's CardOutcomes in one validation call (as CardOutcome(**fields) each)
_OUTCOMES = TypeAdapter(list[CardOutcome])
#: builds a run's Findings in one validation call (as Finding(**fields) each)
_FINDINGS = TypeAdapter(list[Finding])


def _outcome(
    key: int,
    card: Any,
    m: int | None,
    mc: ModelCard | None,
    similarity: float,
    text_ok: bool,
    pile_ok: bool | None,
) -> dict[str, Any]:
    """The fields of the CardOutcome of ground-truth card ``card`` (matched
    to model card ``m``/``mc``, or MISS when None), for ``_OUTCOMES``."""
    return {
        "gt_card_id": key,
        "gt_text": card.text,
        "gt_pile": card.pile,
        "model_index": m,
        "model_text": mc.text if mc else None,
        "model_pile": mc.pile if mc else None,
        "similarity": similarity,
        "text_ok": text_ok,
        "pile_ok": pile_ok,
    }


def _text_code(pairing: Pairing, m: int, g: int, config: ScoringConfig) -> tuple[Code, str]:
    """§4: PARTIAL when a word of the card is missing, OCR when every word is
    there but the text still differs; the detail names the evidence."""
    words = pairing.gt_words[g]
    table = pairing.table
    assert table is not None  # texts differ, so the fast path was not taken
    ev = pairing.evidence[m, g]
    tokens = pairing.model_words[m]
    missing, used = word_presence(table, tokens, words, config, ev)
    read = ev.describe() or "none"
    box = _box_phrase(pairing, m)
    if missing:
        return Code.PARTIAL, (
            f"§4 PARTIAL: reads {ev.recognised} of {len(words)} words ({read}){box}; missing: {', '.join(missing)}"
        )
    extra = [t for i, t in enumerate(tokens) if i not in used]
    tail = f"; other words mixed in: {', '.join(extra[:8])}" if extra else ""
    return Code.OCR, f"§4 OCR: every word is there ({read}){box} but the text differs{tail}"


def _box_phrase(pairing: Pairing, m: int) -> str:
    """The §6 position evidence of model card ``m`` for a detail: which
    cards its box lies on (or none), when boxes are evidence; else ''."""
    if pairing.boxes is None or pairing.gt_boxes is None or pairing.boxes[m] is None:
        return ""
    on = [g for g in range(len(pairing.gt_words)) if pairing.lies_on(m, g)]
    if not on:
        return "; §6: its box lies on no card"
    names = ", ".join(f"'{_short(_gt_text(pairing, g))}'" for g in on[:3])
    return f"; §6: its box lies on {names}" + (f" and {len(on) - 3} more" if len(on) > 3 else "")


def _miss_detail(pairing: Pairing, g: int, cards: Sequence[ModelCard]) -> str:
    """Why a ground-truth card is MISS: nothing reads it, or what reads it
    was paired elsewhere (§3) or lies elsewhere on the photo (§6)."""
    readers = [m for (m, gg) in pairing.evidence if gg == g]
    vetoed = [m for m, gs in pairing.box_vetoed.items() if g in gs]
    if readers:
        partner = {mm: gg for mm, gg in pairing.pairs}
        shown = "; ".join(
            f"#{m + 1} '{_short(cards[m].text)}' went to '{_short(_gt_text(pairing, partner[m]))}'"
            if m in partner
            else f"#{m + 1} '{_short(cards[m].text)}'"
            for m in readers[:3]
        )
        return f"§4 MISS: model cards that read it were paired with other cards (§3): {shown}"
    if vetoed:
        return (
            f"§4 MISS: only #{vetoed[0] + 1} '{_short(cards[vetoed[0]].text)}' reads it, "
            "and its box lies elsewhere (§6)"
        )
    return "§4 MISS: no model card reads any of its words (§2)"


def _gt_text(pairing: Pairing, g: int) -> str:
    return " ".join(pairing.gt_words[g])


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_TIE_NAMES = (
    "",
    "more recognised words",
    "a larger share of the card's words",
    "more exactly read words",
    "more characters",
    "reading order",
)


def _hallucinations(pairing: Pairing, cards: Sequence[ModelCard], gt_cards: Sequence[Any]) -> list[dict[str, Any]]:
    """§4 HALLUC: every unmatched model card, with the rule that left it
    unmatched: no evidence (§2), a duplicate or a lost tie (§3), or a box
    on no card it reads (§6). The card named is the one it reads best by
    §3; of cards it reads equally well, the first in the ground truth (§3.5
    reading order), so the detail never depends on set order. Returns the
    fields of the findings."""
    matched = {m: g for m, g in pairing.pairs}
    by_gt = {g: m for m, g in pairing.pairs}
    out = []
    for m, card in enumerate(cards):
        if m in matched:
            continue
        related = [g for (mm, g) in pairing.evidence if mm == m]
        exact_reader = None if related else _exact_reader(pairing, m)
        box = _box_phrase(pairing, m)
        if related:
            # the card it reads best by the §3 order (card-scoring-rules.md
            # §3, criteria 1-4); on a tie in all of them, §3.5 reading order:
            # the first of the tied cards in the ground truth
            g = max(related, key=lambda gg: (pairing.lex[m, gg], -gg))
            winner = by_gt.get(g)
            ev = pairing.evidence[m, g]
            if winner is not None:
                detail = (
                    f"§4 HALLUC: reads {ev.describe()} of '{_short(gt_cards[g].text)}', which is "
                    f"matched to #{winner + 1} '{_short(cards[winner].text)}' "
                    f"({_tie_reason(pairing.lex[winner, g], pairing.lex[m, g])}); an extra block "
                    "or split fragment, not a card of its own"
                )
            else:
                detail = f"§4 HALLUC: reads {ev.describe()} but one-to-one matching paired more cards (§3)"
        elif exact_reader is not None:
            g, winner, read = exact_reader
            if squashed(cards[winner].text) == squashed(card.text):
                detail = f"§4 HALLUC: duplicates '{gt_cards[g].text}', already matched to model card #{winner + 1}"
            else:
                detail = (
                    f"§4 HALLUC: reads {read} of '{_short(gt_cards[g].text)}', which "
                    f"#{winner + 1} reads exactly (§1); an extra block or split fragment"
                )
        elif m in pairing.box_vetoed:
            g = pairing.box_vetoed[m][0]
            detail = (
                f"§4 HALLUC: its box lies on no card it reads (§6 position); "
                f"by text alone it reads '{_short(gt_cards[g].text)}'"
            )
        else:
            detail = "§4 HALLUC: reads no word of any card (§2: stop words and 1-2 letter misreadings do not count)"
        detail += box
        out.append(dict(code=Code.HALLUC, model_card=card.text, model_index=m, detail=detail))
    return out


def _exact_reader(pairing: Pairing, m: int) -> tuple[int, int, str] | None:
    """(gt card, model card reading it exactly, what model card ``m`` reads of
    it) for the §1 pair whose card ``m`` reads most of, or None. With boxes
    in use, a card ``m``'s box does not lie on is not read by it (§6)."""
    table = pairing.table
    if table is None:
        return None
    tokens = pairing.model_words[m]
    gw = pairing.gt_words
    joined = "".join(tokens)
    if joined in table.index.equal_at:  # the first §1 pair of the same text wins outright
        for winner, g in pairing.exact:
            if "".join(gw[g]) == joined:  # equal texts: that card wherever the box is (§6)
                return g, winner, " ".join(gw[g])
    allowed = table.allowed
    readable = {(g, k) for t in tokens for g, k, _mark in allowed.get(t, ())}
    if not readable:
        return None
    content_keys = table.index.content_keys
    best = None
    for winner, g in pairing.exact:
        if readable.isdisjoint(content_keys(g)) or pairing.lies_on(m, g) is False:
            continue
        words = gw[g]
        ev = table.evidence(tokens, words)
        if ev.content and (best is None or ev.recognised > best[0]):
            best = (ev.recognised, g, winner, ev.describe())
    return best[1:] if best else None


def _tie_reason(winner: tuple, loser: tuple) -> str:
    """The §3 criterion by which the winning pair beat the losing one."""
    for i in range(1, len(winner)):
        if winner[i] != loser[i]:
            if winner[i] > loser[i]:
                return f"§3: {_TIE_NAMES[i]}"
            break
    return "§3: one-to-one matching pairs more cards"
