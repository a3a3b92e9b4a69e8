"""Small helpers the adjudication widgets share: how values are shown, the
scale of a subject's dimension, the subject's runs and which values differ.

Nothing here keeps state; every function reads what it is given.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from reviewer.core.judging.dispute_common import format_value, is_human, value_of
from reviewer.core.judging.verdicts import GRADE_POINTS, Scale, Value, Verdict, cip_letter

#: Okabe-Ito colours (safe for colour vision deficiency).
JUDGE_COLOUR = "#0072B2"  # blue: the judge, the highlighted column
EXPECTED_COLOUR = "#E69F00"  # orange: the expected distribution, differing values
DIFFER_BACKGROUND = "#FBE3B5"  # light orange behind a value that differs
DONE_COLOUR = "#009E73"  # bluish green: adjudicated
#: The marker put before a value that differs from the others.
DIFFER_MARK = "≠"

#: Short names of the dispute kinds for the queue.
KIND_SHORT = {
    "judges-disagree": "judges disagree",
    "position-flip": "position flip",
    "repeat-spread": "repeat spread",
    "epochs-disagree": "epochs disagree",
    "judge-vs-human": "judge vs human",
    "judge-vs-metrics": "judge vs metrics",
    "low-confidence": "low confidence",
    "gt-missing-card": "gt missing card",
    "gt-text-differs": "gt text differs",
    "gt-pile-differs": "gt pile differs",
    "gt-box-differs": "gt box differs",
}

_LETTERS = {points: letter for letter, points in GRADE_POINTS.items()}
_PAIR = re.compile(r"^pair:(\d+):(\d+)$")
_RUN = re.compile(r"^run:(\d+)$")


def show_value(value: Value, scale: Scale | None = None) -> str:
    """A value as shown: 5 not 5.0, 'tie', '-' for none; grades as 'A (100)',
    C/I/P as 'P (50)'."""
    if scale == Scale.GRADE and isinstance(value, float) and value in _LETTERS:
        return f"{_LETTERS[value]} ({format_value(value)})"
    if scale == Scale.CIP and cip_letter(value) is not None:
        return f"{cip_letter(value)} ({format_value(value)})"
    return format_value(value)


def dimensions(verdicts: Iterable[Verdict], first: str | None = None) -> list[str]:
    """The dimensions scored in ``verdicts`` in the order first seen, with
    ``first`` (the disputed one) moved to the front."""
    out: list[str] = []
    for v in verdicts:
        out += [d for d in v.scores if d not in out]
    if first is not None:
        out = [first] + [d for d in out if d != first]
    return out


def gives(v: Verdict, dimension: str) -> bool:
    """True when the verdict scores ``dimension`` or carries it as a flag
    (a rubric rule's dispute on safety_flag)."""
    return dimension in v.scores or dimension in v.flags


def said(v: Verdict, dimension: str) -> Value:
    """What a verdict gave for ``dimension``: its normalised score, else its
    flag as 'true' / 'false', else None."""
    if dimension in v.scores:
        return value_of(v, dimension)
    if dimension in v.flags:
        return "true" if v.flags[dimension] else "false"
    return None


def is_flag(verdicts: Iterable[Verdict], dimension: str | None) -> bool:
    """True when no verdict scores ``dimension`` and one carries it as a flag
    (decided with T / F)."""
    vs = list(verdicts)
    return bool(dimension) and not any(dimension in v.scores for v in vs) and any(dimension in v.flags for v in vs)


def scale_of(verdicts: Iterable[Verdict], dimension: str) -> Scale | None:
    """The scale ``dimension`` is scored on (a judge's verdict first, then a
    human's); None when no verdict scores it."""
    having = [v for v in verdicts if dimension in v.scores]
    judges = [v for v in having if not is_human(v)]
    return (judges or having)[0].scale if having else None


def subject_runs(subject: str, verdicts: Sequence[Verdict]) -> list[int]:
    """The run ids a subject is about: [run] or [first, second] of a pair,
    from the verdicts, else from the subject key ('run:{id}', 'pair:{a}:{b}')."""
    for v in verdicts:
        if v.run_id is not None:
            return [v.run_id] + ([v.other_run_id] if v.other_run_id is not None else [])
    m = _PAIR.match(subject)
    if m:
        return [int(m.group(1)), int(m.group(2))]
    m = _RUN.match(subject)
    return [int(m.group(1))] if m else []


def differing(values: Sequence[Value]) -> list[bool]:
    """Which values differ from the others: those not equal to the most
    common decided value; when no value is most common alone (5 vs 2), every
    decided value differs. Undecided values (None) are marked when any
    decided value exists. One value alone, or all equal: none differ."""
    decided = [v for v in values if v is not None]
    if len(set(map(str, decided))) <= 1 and (len(decided) == len(values) or not decided):
        return [False] * len(values)
    counts = Counter(map(str, decided)).most_common()
    unique_top = len(counts) == 1 or (len(counts) > 1 and counts[0][1] > counts[1][1])
    top = counts[0][0] if counts and unique_top else None
    return [v is None or str(v) != top for v in values]
