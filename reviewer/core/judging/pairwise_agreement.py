"""Agreement of pairwise judges: position-swap consistency, agreement with a
reference label (human majority or gold), and the majority rule.

Split from reviewer.core.judging.agreement; both
build on reviewer.core.judging.stats, so this module never imports agreement. The same
conventions hold: undecided verdicts are counted and reported, never dropped
silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from reviewer.core.judging.stats import (
    PAIRWISE_VERDICTS,
    AgreementResult,
    check_same_length,
    is_missing,
    join_notes,
)


def _verdict(value: Any, where: str) -> str | None:
    if is_missing(value):
        return None
    if isinstance(value, str) and value in PAIRWISE_VERDICTS:
        return value
    raise ValueError(f"{where}: pairwise verdict must be '1', '2', 'tie' or None, got {value!r}")


def position_swap_consistency(
    verdict_ab: Sequence[str | float | None], verdict_ba: Sequence[str | float | None]
) -> AgreementResult:
    """How often a pairwise judge gives the same verdict when the answers swap places.

    Item i was judged twice: ``verdict_ab[i]`` with answer 1 shown first,
    ``verdict_ba[i]`` with answer 2 shown first, *already mapped back* to the
    original answer identities. A pair is consistent when both verdicts are
    decided and equal (``'1'/'1'``, ``'2'/'2'``, ``'tie'/'tie'``). Position
    bias shows as a flip: ``'1'`` then ``'2'`` means the answer shown first
    won both times; ``'2'`` then ``'1'`` the answer shown second.

    Args:
        verdict_ab, verdict_ba: same length; values ``'1'``, ``'2'``,
            ``'tie'``, or ``None``/NaN for undecided (no parseable verdict).

    Returns:
        ``AgreementResult("position_swap_consistency", share, n)``: n = items
        with both verdicts decided, share = consistent / n (NaN when n = 0).
        Undecided items are not in n but are counted: ``counts`` has
        ``total``, ``consistent``, ``inconsistent``, ``flipped`` (1 vs 2),
        ``first_position_won_both``, ``second_position_won_both``,
        ``tie_mismatch`` (a tie in one order, a winner in the other),
        ``undecided_ab``, ``undecided_ba`` (per order), ``undecided_any``
        (items left out of n).

    Raises:
        ValueError: lengths differ, or a value other than the above.
    """
    check_same_length(verdict_ab, verdict_ba, "verdict_ab and verdict_ba")
    c = Counter[str]()
    for i, (x_raw, y_raw) in enumerate(zip(verdict_ab, verdict_ba)):
        x = _verdict(x_raw, f"verdict_ab[{i}]")
        y = _verdict(y_raw, f"verdict_ba[{i}]")
        c["undecided_ab"] += x is None
        c["undecided_ba"] += y is None
        if x is None or y is None:
            c["undecided_any"] += 1
            continue
        if x == y:
            c["consistent"] += 1
        elif (x, y) == ("1", "2"):
            c["first_position_won_both"] += 1
        elif (x, y) == ("2", "1"):
            c["second_position_won_both"] += 1
        else:
            c["tie_mismatch"] += 1
    flipped = c["first_position_won_both"] + c["second_position_won_both"]
    inconsistent = flipped + c["tie_mismatch"]
    n = c["consistent"] + inconsistent
    counts = {
        "total": len(verdict_ab),
        "consistent": c["consistent"],
        "inconsistent": inconsistent,
        "flipped": flipped,
        "first_position_won_both": c["first_position_won_both"],
        "second_position_won_both": c["second_position_won_both"],
        "tie_mismatch": c["tie_mismatch"],
        "undecided_ab": c["undecided_ab"],
        "undecided_ba": c["undecided_ba"],
        "undecided_any": c["undecided_any"],
    }
    note = (
        f"{c['undecided_any']} of {len(verdict_ab)} items undecided in at least one order, not in n"
        if c["undecided_any"]
        else ""
    )
    if n == 0:
        return AgreementResult(
            "position_swap_consistency",
            float("nan"),
            0,
            join_notes("undefined: no item decided in both orders", note),
            counts,
        )
    return AgreementResult("position_swap_consistency", c["consistent"] / n, n, note, counts)


def agreement_with_reference(judge: Sequence[Any], reference: Sequence[Any]) -> AgreementResult:
    """Accuracy of a judge's labels against reference labels.

    The reference is a human majority (:func:`majority`) or a gold label.
    Item i counts as correct when ``judge[i] == reference[i]``.

    Args:
        judge: the judge's label per item; ``None``/NaN = undecided (the judge
            gave no usable verdict).
        reference: the reference label per item, same length; ``None``/NaN =
            no reference (e.g. the annotators tied), the item is not scored.

    Returns:
        ``AgreementResult("agreement_with_reference", accuracy, n)`` with n =
        items that have a reference and a decided judge verdict, accuracy =
        correct / n (NaN when n = 0). Undecided verdicts are not dropped
        silently: ``counts["undecided"]`` has them and ``note`` gives the
        accuracy counting them as wrong. ``counts``: ``total``, ``correct``,
        ``incorrect``, ``undecided`` (reference present, judge undecided),
        ``no_reference``.

    Raises:
        ValueError: lengths differ.
    """
    check_same_length(judge, reference, "judge and reference")
    correct = incorrect = undecided = no_reference = 0
    for j, r in zip(judge, reference):
        if is_missing(r):
            no_reference += 1
        elif is_missing(j):
            undecided += 1
        elif j == r:
            correct += 1
        else:
            incorrect += 1
    n = correct + incorrect
    counts = {
        "total": len(judge),
        "correct": correct,
        "incorrect": incorrect,
        "undecided": undecided,
        "no_reference": no_reference,
    }
    notes = []
    if undecided:
        strict = correct / (n + undecided)
        notes.append(f"{undecided} undecided judge verdicts not in n (counting them as wrong: {strict:.3f})")
    if no_reference:
        notes.append(f"{no_reference} items without a reference label skipped")
    if n == 0:
        notes.insert(0, "undefined: no item with both a reference and a decided verdict")
        return AgreementResult("agreement_with_reference", float("nan"), 0, join_notes(*notes), counts)
    return AgreementResult("agreement_with_reference", correct / n, n, join_notes(*notes), counts)


def majority(labels: Iterable[Any]) -> Any | None:
    """The label given by more annotators than any other label.

    Missing labels (``None``/NaN) are ignored. Tie rule: when two or more
    labels share the highest count there is no majority and the result is
    ``None`` -- not the string ``'tie'``, which is itself a pairwise verdict
    and would be mistaken for one. ``None`` is also returned when there are
    no labels. Because ``None`` means "no reference", a tied item is skipped
    (and counted) by :func:`agreement_with_reference`.

    This is a plurality rule: ``['a', 'a', 'b', 'c']`` gives ``'a'`` although
    'a' has only half of the votes.

    Args:
        labels: the annotators' labels of one item (hashable).

    Returns:
        The majority label, or ``None`` (tie or no labels).
    """
    counter = Counter(v for v in labels if not is_missing(v))
    if not counter:
        return None
    (top, top_count), *rest = counter.most_common(2)
    if rest and rest[0][1] == top_count:
        return None
    return top
