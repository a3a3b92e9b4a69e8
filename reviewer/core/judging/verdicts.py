"""Judge verdicts, disputes and adjudications (docs/judging.md).

A *verdict* is one judge's scores of one run, or of a pair of runs for
pairwise judging (ground-truth-judge-proposal.md: rules-based and
ground-truth judges; judge-calibration-plan.md: 1-5 rubric dimensions with
flags and issues_found). A *dispute* names verdicts that disagree; an
*adjudication* is a person's final value for one dimension of a subject.
"""

from __future__ import annotations

import enum
import math
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

Value = float | str | None


class Method(str, enum.Enum):
    """How a judge works (Eval_Method in reports)."""

    RULES = "rules-based"
    GROUND_TRUTH = "ground-truth"
    RUBRIC = "rubric"
    PAIRWISE = "pairwise"
    HUMAN = "human"


def path_b_score(rules: float | None, ground_truth: float | None, w_rules: float, w_gt: float) -> float | None:
    """One run's score under Path B (ground-truth-judge-proposal.md): the
    rules-based and ground-truth judges' scores weighted ``w_rules`` and
    ``w_gt`` when both judged it; one judge's score alone when only it did;
    None when neither did."""
    if rules is not None and ground_truth is not None:
        return w_rules * rules + w_gt * ground_truth
    return rules if rules is not None else ground_truth


class Scale(str, enum.Enum):
    """The declared scale of a score."""

    ORDINAL5 = "1-5"  # ordinal 1..5
    GRADE = "A-F"  # letter grade, mapped A=100, B=80, C=60, D=40, F=20
    PERCENT = "0-100"  # interval 0..100
    PASS_FAIL = "pass/fail"  # nominal
    WINNER = "winner"  # pairwise: '1', '2' or 'tie' (nominal)
    CIP = "C/I/P"  # inspect_ai's correct / partial / incorrect, ordered I < P < C, stored as points C=100, P=50, I=0


#: Grade letters to points (docs/judging.md).
GRADE_POINTS = {"A": 100.0, "B": 80.0, "C": 60.0, "D": 40.0, "F": 20.0}
#: inspect_ai's letters to points, in the order I < P < C (decision record
#: "inspect-epochs-and-letters"): correct 100, partial 50, incorrect 0.
CIP_POINTS = {"C": 100.0, "P": 50.0, "I": 0.0}

#: Default disagreement tolerance per scale: scores further apart than this
#: make a dispute between judges (absolute difference of normalised values).
TOLERANCE = {
    Scale.ORDINAL5: 1.0,
    Scale.GRADE: 20.0,
    Scale.PERCENT: 20.0,
    Scale.PASS_FAIL: 0.0,
    Scale.WINNER: 0.0,
    Scale.CIP: 0.0,
}
#: Statistic level of a scale for agreement (Krippendorff's alpha).
LEVEL: dict[Scale, Literal["nominal", "ordinal", "interval", "ratio"]] = {
    Scale.ORDINAL5: "ordinal",
    Scale.GRADE: "ordinal",
    Scale.PERCENT: "interval",
    Scale.PASS_FAIL: "nominal",
    Scale.WINNER: "nominal",
    Scale.CIP: "ordinal",
}
WINNERS = ("1", "2", "tie")


def normalise(value: Any, scale: Scale) -> Value:
    """A raw score as stored and compared: a float for 1-5, A-F (as points)
    and 0-100; 'pass'/'fail' and '1'/'2'/'tie' as text; None when missing or
    not on the scale (e.g. 'garbage'). C/I/P: the letters (or correct,
    partial, incorrect) and the points 0, 50, 100 as points. Never raises."""
    if value is None:
        return None
    if scale == Scale.CIP:
        return _cip(value)
    if scale == Scale.GRADE:
        text = str(value).strip().upper()[:1]
        if text in GRADE_POINTS:
            return GRADE_POINTS[text]
        return _number(value, 0, 100)
    if scale == Scale.ORDINAL5:
        return _number(value, 1, 5)
    if scale == Scale.PERCENT:
        return _number(value, 0, 100)
    text = str(value).strip().lower()
    if scale == Scale.PASS_FAIL:
        if text in {"pass", "passed", "true", "yes", "1"}:
            return "pass"
        if text in {"fail", "failed", "false", "no", "0"}:
            return "fail"
        return None
    mapping = {"1": "1", "2": "2", "0": "tie", "tie": "tie", "draw": "tie", "3": "tie"}
    return mapping.get(text)


#: Points 0-100 per scale: the one map by which every table that puts scores
#: of several scales together (the Failter table, the judge verdict table)
#: reads a score, consistent with the grades and the gate levels
#: (reviewer.core.judging.gates.JUDGE_LEVELS: 2 of 5 is 40 points, 3 of 5 is 60).
#: A-F: GRADE_POINTS (A=100 ... F=20); 1-5: s x 20; 0-100: as is; pass/fail: 100 and 0.
POINTS_MAP = {
    Scale.GRADE: "A=100, B=80, C=60, D=40, F=20",
    Scale.ORDINAL5: "s x 20",
    Scale.PERCENT: "as is",
    Scale.PASS_FAIL: "pass 100, fail 0",
    Scale.CIP: "C=100, P=50, I=0",
}

#: POINTS_MAP as one line, for the note under each table that uses it.
POINTS_NOTE = "; ".join(f"{scale.value}: {rule}" for scale, rule in POINTS_MAP.items())


def points(value: Value, scale: Scale) -> float | None:
    """A score as stored (``normalise``'s value) in points 0-100 by
    POINTS_MAP: a grade is stored in points already, 1-5 is multiplied by
    20, 0-100 and C/I/P (points already) are as is, 'pass' is 100 and 'fail' 0. None for a missing
    value or a scale without points (winner)."""
    if value is None or scale not in POINTS_MAP:
        return None
    if scale == Scale.PASS_FAIL:
        return {"pass": 100.0, "fail": 0.0}.get(str(value))
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number * 20 if scale == Scale.ORDINAL5 else number


def _cip(value: Any) -> float | None:
    if isinstance(value, str):
        text = value.strip().upper()
        words = {"CORRECT": "C", "PARTIAL": "P", "INCORRECT": "I"}
        letter = words.get(text, text)
        if letter in CIP_POINTS:
            return CIP_POINTS[letter]
    number = _number(value, 0, 100)
    return number if number in CIP_POINTS.values() else None


def cip_letter(value: Value) -> str | None:
    """The letter (C, P or I) of a C/I/P value as stored (points), or None."""
    return next((k for k, x in CIP_POINTS.items() if value is not None and x == value), None)


def grade_letter(value: Value) -> str | None:
    """The letter (A, B, C, D or F) of an A-F value as stored (points,
    GRADE_POINTS), or None for a number that is no grade's points (A-F also
    holds numbers 0-100) and for a missing value."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return next((k for k, x in GRADE_POINTS.items() if x == value), None)


def _number(value: Any, low: float, high: float) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if math.isnan(number) or not low <= number <= high:
        return None
    return number


def swap_winner(value: Value) -> Value:
    """A pairwise winner seen with the answers swapped, in the original
    order: '1' <-> '2', 'tie' and None unchanged."""
    return {"1": "2", "2": "1"}.get(value, value) if isinstance(value, str) else value


class Verdict(BaseModel):
    """One judge's verdict on a run (``run_id``) or on a pair of runs
    (``run_id`` and ``other_run_id``, pairwise).

    ``subject``: the key that verdicts on the same thing share (an item and
    prompt, or a pair), so judges can be compared. ``scores``: {dimension:
    normalised value}. ``answer_order``: for pairwise, 'ab' when the judge saw
    run_id's answer first, 'ba' when swapped; scores are always stored in the
    original order ('1' means run_id's answer won).
    """

    id: int | None = None
    subject: str
    run_id: int | None = None
    other_run_id: int | None = None
    judge: str
    judge_model: str | None = None
    prompt_version: str | None = None
    method: Method = Method.RUBRIC
    scale: Scale = Scale.ORDINAL5
    scores: dict[str, Value] = Field(default_factory=dict)
    flags: dict[str, bool] = Field(default_factory=dict)
    issues_found: list[str] = Field(default_factory=list)
    rationale: str = ""
    raw: str = ""
    answer_order: str | None = None
    repetition: int = 1
    source: str | None = None
    #: {source: {dimension: confidence 0..1}}, source 'logprob', 'stated' or
    #: 'imported'; written with a new verdict (reviewer.storage.judging.confidences
    #: reads them back), not part of the verdicts row.
    confidences: dict[str, dict[str, float]] = Field(default_factory=dict)


class DisputeKind(str, enum.Enum):
    """Why verdicts are disputed (docs/judging.md)."""

    JUDGES = "judges-disagree"
    POSITION = "position-flip"
    REPEAT = "repeat-spread"
    EPOCHS = "epochs-disagree"  # one scorer, the epochs (runs) of one inspect sample
    HUMAN = "judge-vs-human"
    METRICS = "judge-vs-metrics"
    LOW_CONFIDENCE = "low-confidence"  # below the judge's trust threshold (selective judging)
    # ground-truth disputes (docs/cards.md#several-annotators): two annotators' ground truth of an item differ
    GT_MISSING = "gt-missing-card"
    GT_TEXT = "gt-text-differs"
    GT_PILE = "gt-pile-differs"
    GT_BOX = "gt-box-differs"


class Dispute(BaseModel):
    """Verdicts that disagree on one dimension of one subject.

    ``severity``: 0-1, larger first in the queue (the spread of the values
    relative to the scale, 1 for a flip or a contradiction with the metrics).
    """

    id: int | None = None
    kind: DisputeKind
    subject: str
    dimension: str
    verdict_ids: list[int]
    severity: float = 0.0
    detail: str = ""


class Adjudication(BaseModel):
    """A person's final value for one dimension of a subject, with their
    rationale, who and when, and which judge it sided with (if any)."""

    id: int | None = None
    subject: str
    dimension: str
    value: Value
    rationale: str = ""
    reviewer: str
    decided_at: datetime | None = None
    sided_with: str | None = None
    dispute_id: int | None = None
