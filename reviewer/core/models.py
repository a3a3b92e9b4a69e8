"""Domain models of reviewer (pydantic v2).

The words follow CONTEXT.md: an *item* is what a model looked at (a photo or a
text); *ground truth* is what is really there (piles of cards); a *run* is one
model answer to one prompt on one item; a *finding* is one classified error of
a run (T-P5 of card-reading-spike-evaluation.md: exactly one code per error).
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Code(str, enum.Enum):
    """The T-P5 failure taxonomy: every error gets exactly one of these codes."""

    OCR = "OCR"  # card detected but text wrong
    MISS = "MISS"  # card visible in the photo but not in the output
    SPATIAL = "SPATIAL"  # correct text, wrong pile
    HALLUC = "HALLUC"  # card in the output that is not in the photo
    FORMAT = "FORMAT"  # not valid JSON or does not match the schema
    PARTIAL = "PARTIAL"  # card detected, text partially correct


class SpanCode(str, enum.Enum):
    """Judge error types of span labeling (span-labeling-evaluation-design.md):
    a finding of a span-labeling run has exactly one of these."""

    MISSED = "MISSED"  # an element the spans should have covered
    FALSE_POSITIVE = "FALSE_POSITIVE"  # a span that should not be there
    TAXONOMY = "TAXONOMY"  # right span, wrong role
    GRANULARITY = "GRANULARITY"  # span too coarse or too fine


#: Span codes in the order of the review keys 1-4.
SPAN_CODE_ORDER: tuple[SpanCode, ...] = tuple(SpanCode)


class CaseCode(str, enum.Enum):
    """Severity of a fired check of a test case's rule metric
    (test-case-evaluation-framework.md: every check is an error or a
    warning); a finding of a test-case run has exactly one of these."""

    ERROR = "ERROR"  # the metric drops to its error score
    WARNING = "WARNING"  # the metric loses its per-warning deduction


#: Case codes in the order of the review keys 1-2.
CASE_CODE_ORDER: tuple[CaseCode, ...] = tuple(CaseCode)
AnyCode = Code | SpanCode | CaseCode

#: Codes in the order of the review keys 1-6 (1-6 reclassify; decision: review-keys-follow-code-order).
CODE_ORDER: tuple[Code, ...] = (
    Code.OCR,
    Code.MISS,
    Code.SPATIAL,
    Code.HALLUC,
    Code.FORMAT,
    Code.PARTIAL,
)

#: Codes that mean the card's text was not read correctly (T-P1 card text reading).
TEXT_ERROR_CODES = frozenset({Code.OCR, Code.MISS, Code.PARTIAL})


class Source(str, enum.Enum):
    """Who proposed a finding."""

    AUTO = "auto"
    JUDGE = "judge"
    HUMAN = "human"


class Status(str, enum.Enum):
    """Review state of a finding."""

    PROPOSED = "proposed"
    CONFIRMED = "confirmed"
    REJECTED = "rejected"


class AnswerSchema(str, enum.Enum):
    """What a prompt asks the model to answer with."""

    PILES = "piles"  # {"piles":[{"label":str,"cards":[str]}]}
    CARDS = "cards"  # {"cards":[{"text":str,"bbox":{...}?,"pile"|"row":str?}]}
    FREE = "free"  # free text, kept and shown, not scored


class BoxConvention(str, enum.Enum):
    """Coordinate convention of predicted boxes."""

    UNIT = "0-1"  # fractions of width and height
    GRID1000 = "0-1000"  # Qwen-VL style grid relative to the image
    PIXELS = "pixels"  # image pixels (upright)


class BBox(BaseModel):
    """An axis-aligned box ``x_min, y_min, x_max, y_max`` in some convention."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)  # NaN or Infinity: a FORMAT error

    x_min: float
    y_min: float
    x_max: float
    y_max: float


class Item(BaseModel):
    """A photo or a text that models were asked about.

    ``path`` is relative to the project file for photos; ``width`` and
    ``height`` are of the upright image (after EXIF orientation) in pixels.
    ``image_note``: what import found wrong with the photo, one line
    ('truncated: ...', 'too large to decode ...'), or None.
    """

    id: int | None = None
    name: str
    kind: Literal["photo", "text"] = "photo"
    path: str | None = None
    sha256: str | None = None
    width: int | None = None
    height: int | None = None
    orientation: int = 1
    text: str | None = None
    image_note: str | None = None
    #: The item's workflow as stored (reviewer.core.workflows.Workflow value), None before it is recorded.
    workflow: str | None = None


class Pile(BaseModel):
    """A ground-truth pile: a label and an optional region polygon (pixels)."""

    id: int | None = None
    label: str
    region: list[tuple[float, float]] | None = None


class Card(BaseModel):
    """A ground-truth card: its text, its pile label and an optional box in
    upright image pixels."""

    id: int | None = None
    text: str
    pile: str | None = None
    bbox: BBox | None = None


class GroundTruth(BaseModel):
    """What is really on an item: piles and the cards in them."""

    item: str
    piles: list[Pile] = Field(default_factory=list)
    cards: list[Card] = Field(default_factory=list)


class Prompt(BaseModel):
    """A prompt given to the model, with the answer schema it expects and,
    for box answers, the coordinate convention it asked for (None: unstated)."""

    id: int | None = None
    name: str
    text: str = ""
    schema_: AnswerSchema = Field(AnswerSchema.FREE, alias="schema")
    box_convention: BoxConvention | None = None

    model_config = ConfigDict(populate_by_name=True)


class Run(BaseModel):
    """One model answer: item x prompt x model x repetition, raw output text."""

    id: int | None = None
    item: str
    prompt: str
    model: str
    repetition: int = 1
    output: str
    timestamp: datetime | None = None


class ModelCard(BaseModel):
    """A card as the model reported it (after parsing)."""

    model_config = ConfigDict(frozen=True)

    text: str
    pile: str | None = None
    bbox: BBox | None = None


#: Detail prefix of a decided finding the scorer no longer produces (after a
#: ground-truth edit); it is kept, with its decision, but counts in no metric.
STALE_PREFIX = "[not found on re-scoring] "


class Finding(BaseModel):
    """One classified error of a run (T-P5 for card reading; SpanCode for a
    span-labeling judge's errors). ``code`` is what the classifier
    (or judge, or human) proposed; ``final_code`` is the code after review
    (equal to ``code`` until reclassified). A rejected finding is not an error.
    """

    id: int | None = None
    run_id: int | None = None
    code: AnyCode
    gt_card: str | None = None
    gt_card_id: int | None = None
    model_card: str | None = None
    model_index: int | None = None
    detail: str = ""
    source: Source = Source.AUTO
    status: Status = Status.PROPOSED
    final_code: AnyCode | None = None
    reason: str | None = None
    reviewer: str | None = None
    decided_at: datetime | None = None
    #: the judge verdict a judge's finding came from (span labeling)
    verdict_id: int | None = None
    #: structured details (e.g. expectedRole, assignedRole, category, reason)
    attrs: dict[str, Any] = Field(default_factory=dict)

    @property
    def stale(self) -> bool:
        """Decided, but no longer produced by the scorer (see STALE_PREFIX)."""
        return self.detail.startswith(STALE_PREFIX)

    @property
    def effective_code(self) -> AnyCode | None:
        """The code this finding counts as in reviewed metrics, or None when
        rejected (the reviewer says it is not an error) or stale."""
        if self.status == Status.REJECTED or self.stale:
            return None
        return self.final_code or self.code

    def key(self) -> tuple:
        """Identity used to carry review decisions over a re-scoring: same
        code, same ground-truth card, same model card."""
        return (self.code.value, self.gt_card_id, self.model_index)


class ScoringConfig(BaseModel):
    """Every threshold of scoring, versioned so that stored scores stay
    comparable (the version is stored with every score).

    Similarities are rapidfuzz scores on 0-100; accuracies are fractions 0-1.
    """

    model_config = ConfigDict(frozen=True)

    version: str = "2026.11-4"
    #: card-scoring-rules.md §2: words that are no evidence on their own.
    stop_words: tuple[str, ...] = (
        "a",
        "an",
        "the",
        "to",
        "of",
        "in",
        "on",
        "at",
        "by",
        "for",
        "from",
        "and",
        "or",
        "as",
        "is",
        "be",
        "my",
        "me",
        "who",
    )
    #: §2 misreading: the longest common letter subsequence of token and word
    #: is at least this many letters ...
    misread_min_letters: int = 3
    #: ... and at least this share of the word and of the token (half).
    misread_share: float = 0.5
    #: §2 run together: each joined word gives at least this share of its
    #: letters to the common subsequence of the token and the joined words.
    joined_word_share: float = 0.5
    #: §2: a misreading of a word of at most this many letters is no evidence.
    short_word_letters: int = 2
    #: §2 truncation: a reading of a word's beginning of at least this many
    #: letters ...
    truncation_min_letters: int = 5
    #: ... with at least this share of its letters found in order in the word.
    truncation_share: float = 0.8
    #: §2: one model token may stand for up to this many run-together words.
    max_run_together: int = 3
    #: §4 OCR: a token within this many letters of a card word's length fills
    #: the word's place.
    length_slack: int = 1
    #: §6: with boxes, a model card relates only to cards its box lies on.
    use_boxes: bool = True
    #: §6: a box lies on a card when the two overlap by at least this share
    #: of the smaller box's area.
    lies_on_share: float = 0.5
    #: §6: share of box-carrying model cards whose box must lie on a card
    #: they read before boxes count as evidence (else text alone decides).
    box_fit: float = 0.5
    #: T-P1: text accuracy at or above which a prompt can pass.
    pass_text_accuracy: float = 0.80
    #: T-P1: text accuracy below which a prompt fails.
    fail_text_accuracy: float = 0.60
    #: T-P1: runs with hallucinations at which a prompt fails ("across multiple runs").
    fail_hallucination_runs: int = 2
    #: T-P1 secondary signal: spatial grouping accuracy to meet.
    pass_spatial_accuracy: float = 0.70
    #: T-P1 secondary signal: share of runs with valid JSON (2 of 3).
    pass_json_valid_share: float = 2 / 3
    #: T-P1: runs per prompt the valid-JSON signal needs ("in >= 2 of 3 runs");
    #: with fewer the signal is not met (shown as "1/1 (3 runs needed)").
    json_runs_needed: int = 3
    #: Salvage truncated JSON with json-repair and score what it recovers.
    salvage: bool = True
    #: Convention assumed when boxes fit both the 0-1000 grid and the pixels.
    ambiguous_box_convention: BoxConvention = BoxConvention.GRID1000


class TP1Verdict(str, enum.Enum):
    """T-P1 overall verdict of a prompt."""

    PASS = "pass"
    FAIL = "fail"
    AMBIGUOUS = "ambiguous"
    UNSCORED = "unscored"


class RunMetrics(BaseModel):
    """Per-run metrics (T-P5 scoring procedure step 6; T-P1 measurements).

    ``text_accuracy`` = cards_correct / cards_visible (None without ground
    truth); ``spatial_accuracy`` = cards in the right pile / cards_visible,
    only for answers that group cards (else None).
    """

    scored: bool = True
    json_valid: bool = False
    repaired: bool = False
    box_convention: BoxConvention | None = None
    cards_visible: int = 0
    cards_reported: int = 0
    cards_correct: int = 0
    cards_in_right_pile: int | None = None
    text_accuracy: float | None = None
    spatial_accuracy: float | None = None
    hallucinations: int = 0
    findings: int = 0


class PromptVerdict(BaseModel):
    """T-P1 verdict of one prompt for one model over its runs, on one item or
    on all (``item == "*"``). Accuracies are pooled: summed correct over
    summed visible."""

    def key(self) -> tuple[str, str, str]:
        """(prompt, model, item): what an automatic and a reviewed verdict
        share."""
        return (self.prompt, self.model, self.item)

    def label(self, with_model: bool) -> str:
        """The prompt, with the model in brackets when ``with_model``."""
        return f"{self.prompt} ({self.model})" if with_model else self.prompt

    prompt: str
    item: str
    runs: int
    cards_visible: int
    #: the model whose runs these are ('*' when runs of several are pooled)
    model: str = "*"
    cards_correct: int
    text_accuracy: float | None
    spatial_accuracy: float | None
    hallucination_runs: int
    json_valid_runs: int
    verdict: TP1Verdict
    spatial_ok: bool | None = None
    #: T-P1 "valid JSON in >= 2 of 3 runs": True met, False not met (also
    #: with fewer runs than the rule needs), None without runs
    json_ok: bool | None = None
    #: runs the valid-JSON signal needs (ScoringConfig.json_runs_needed)
    json_runs_needed: int = 3
    reasons: list[str] = Field(default_factory=list)

    @property
    def json_signal(self) -> str:
        """The valid-JSON signal as shown to people: ``2/3``, or ``1/1 (3
        runs needed)`` when there are fewer runs than the rule needs."""
        text = f"{self.json_valid_runs}/{self.runs}"
        if self.runs < self.json_runs_needed:
            text += f" ({self.json_runs_needed} runs needed)"
        return text
