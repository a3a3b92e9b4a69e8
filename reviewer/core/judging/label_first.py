"""Label first: people judge a subject before they see the judge, on a fair
sample, and every label knows the rubric it was made under.

*Human label* (:class:`HumanLabel`): one reviewer's value of one dimension
of a subject, made in a *queue*: 'label-first' (the fair sample: the
reviewer saw only the item, the output(s) and the rubric, committed a
*first label*, then saw the judges' verdicts and kept or changed it: the
*final value*) or 'dispute' (made while settling a dispute, with the
judges in view: kept apart and never used where a fair sample is needed).
Both values carry their time; the label carries the judge shown after the
first label and the *rubric version* it was made under (the judge's
``prompt_version``, reviewer.core.judging.rubrics).

*Fair queue* (:func:`draw`, :func:`queue_order`): drawn from every subject a
judge scored on a dimension (not from disputes), each with its *stratum*
(the judge's verdict then), its split (train/dev/test by a seeded hash of
the subject id, reviewer.core.judging.splits.hash_split) and a seeded
rank. Entries are stored once and never changed, so neither the
stratification nor the splits move as labels or verdicts arrive; subjects
judged later are appended. The order to label in is proportional
stratified: each next subject comes from the stratum furthest below its
share of the queue, within a stratum by rank.

Pairwise order (:func:`shown_order`): each subject's two outputs are shown
in a seeded order ('ab' or 'ba'), stored with the subject; a winner chosen
as shown is stored in the original order (:func:`stored_winner`).

The reveal reads true (:func:`pair_verdict_text`, :func:`rationale_as_shown`):
a pairwise judge saw the two outputs in its own answer order, which may
differ from the order shown to the reviewer. Its verdict is shown with the
order it saw ("saw B first: chose B"), and its rationale's "(a)/(b)",
"Output 1/2" and "Response 1/2" are rewritten to the letters A/B shown;
a rationale naming neither is marked as in the order the judge saw.

Pure.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel

from reviewer.core.judging.dispute_common import format_value
from reviewer.core.judging.splits import hash_split
from reviewer.core.judging.verdicts import Scale, Value, normalise, swap_winner

__all__ = [
    "DISPUTE",
    "pair_verdict_text",
    "rationale_as_shown",
    "LABEL_FIRST",
    "QUEUES",
    "HumanLabel",
    "QueueEntry",
    "choices_text",
    "draw",
    "parse_label",
    "queue_order",
    "seeded_rank",
    "shown_order",
    "stored_winner",
]

LABEL_FIRST = "label-first"
DISPUTE = "dispute"
#: Where a human label is made; only LABEL_FIRST labels are the fair sample.
QUEUES = (LABEL_FIRST, DISPUTE)
#: The stratum of a subject whose judge verdict is undecided.
UNDECIDED = "undecided"


class HumanLabel(BaseModel):
    """One reviewer's label of one dimension of a subject (module doc).

    ``first_value``: the label committed before any verdict was shown;
    ``final_value``: kept or changed after the verdicts were shown (None
    until then); values normalised, pairwise winners in the original order
    ('1': the subject's run_id answer). ``answer_order``: how a pair was
    shown ('ab', 'ba'; None for one output). ``judge``: whose verdicts were
    shown after the first label; ``rubric_version``: the rubric the label
    was made under.
    """

    id: int | None = None
    subject: str
    dimension: str
    reviewer: str
    queue: str = LABEL_FIRST
    judge: str | None = None
    rubric_version: str | None = None
    answer_order: str | None = None
    first_value: Value = None
    first_at: datetime | None = None
    final_value: Value = None
    final_at: datetime | None = None

    @property
    def key(self) -> tuple[str, str, str, str]:
        """(subject, dimension, reviewer, queue): at most one label each."""
        return (self.subject, self.dimension, self.reviewer, self.queue)

    @property
    def is_fair(self) -> bool:
        """Made in the label-first queue (the fair sample)."""
        return self.queue == LABEL_FIRST


def _digest(seed: int, kind: str, subject: str) -> str:
    return hashlib.sha256(f"{seed}:{kind}:{subject}".encode()).hexdigest()


def seeded_rank(subject: str, seed: int = 0) -> str:
    """A subject's rank in its stratum: hex SHA-256 of '<seed>:rank:<subject>'
    (depends only on the id and the seed)."""
    return _digest(seed, "rank", subject)


def shown_order(subject: str, seed: int = 0) -> str:
    """'ab' or 'ba': the order a pair's outputs are shown in, from the
    parity of SHA-256 of '<seed>:order:<subject>'."""
    return "ab" if int(_digest(seed, "order", subject)[-1], 16) % 2 == 0 else "ba"


def stored_winner(shown: Value, order: str | None) -> Value:
    """A winner picked as shown ('1' = the output shown first) in the
    original order: swapped when the pair was shown 'ba'."""
    return swap_winner(shown) if order == "ba" else shown


def _letter(original: str, shown: str | None) -> str:
    """The letter shown ('A': shown first) of the original answer '1' or '2'."""
    return "A" if (original == "1") == (shown != "ba") else "B"


def _seen_original(judge_order: str | None, position: int) -> str:
    """The original answer ('1', '2') a judge saw at ``position`` (0: first)."""
    first = "2" if judge_order == "ba" else "1"
    return first if position == 0 else ("1" if first == "2" else "2")


def pair_verdict_text(winner: Value, judge_order: str | None, shown: str | None) -> str:
    """A pairwise judge's verdict in the letters the reviewer saw, with the
    order the judge saw: 'saw B first: chose B' ('tie', or 'undecided' for
    None). ``winner``: in the original order ('1': the subject's first
    run); ``judge_order``: the order the judge saw ('ab', 'ba'; None as
    'ab'); ``shown``: the order shown to the reviewer."""
    first = _letter(_seen_original(judge_order, 0), shown)
    if winner is None:
        chose = "undecided"
    elif format_value(winner) in ("1", "2"):
        chose = f"chose {_letter(format_value(winner), shown)}"
    else:
        chose = f"chose {format_value(winner)}"
    return f"saw {first} first: {chose}"


#: A reference to one of the two answers in a judge's rationale, in the
#: order the judge saw them: 'Output (a)', 'Response 2', 'Output 1', 'Assistant B'.
_ANSWER_REF = re.compile(r"\b(Output|Response|Answer|Assistant)(\s*)(?:\(([abAB12])\)|([12])\b|([AB])\b)")


def rationale_as_shown(text: str, judge_order: str | None, shown: str | None) -> str:
    """A pairwise judge's rationale with its references to the answers it saw
    ('Output (a)', 'Response 1', 'Assistant B'; position in the judge's
    order) rewritten to the letters shown ('Output B'); when it names
    neither answer that way (and is not empty), it is marked: '[in the order
    this judge saw: B first] ...'. Plain text in, plain text out."""
    if not text:
        return text
    found = False

    def swap(m: re.Match[str]) -> str:
        nonlocal found
        found = True
        ref = (m.group(3) or m.group(4) or m.group(5)).lower()
        position = 0 if ref in ("a", "1") else 1
        return f"{m.group(1)} {_letter(_seen_original(judge_order, position), shown)}"

    out = _ANSWER_REF.sub(swap, text)
    if found:
        return out
    return f"[in the order this judge saw: {_letter(_seen_original(judge_order, 0), shown)} first] {text}"


def choices_text(scale: Scale) -> str:
    """The keys a label takes on a scale, for prompts: '1-5', 'A-F',
    '0-100', 'pass / fail', 'A / B / tie' (A: the output shown first)."""
    return {
        Scale.ORDINAL5: "1 2 3 4 5",
        Scale.GRADE: "A B C D F",
        Scale.PERCENT: "0-100",
        Scale.PASS_FAIL: "p (pass) / f (fail)",
        Scale.WINNER: "a / b / t (tie)",
        Scale.CIP: "c (correct) / p (partial) / i (incorrect)",
    }[scale]


def parse_label(text: str, scale: Scale, order: str | None = None) -> Value:
    """A typed label as a stored value (None when it is not one): on
    pass/fail 'p'/'f' too; on winner 'a'/'b'/'t' (a: the output shown
    first), stored in the original order (:func:`stored_winner`); other
    scales as reviewer.core.judging.verdicts.normalise reads them."""
    t = text.strip().lower()
    if scale == Scale.PASS_FAIL:
        t = {"p": "pass", "f": "fail"}.get(t, t)
    if scale == Scale.WINNER:
        shown = {"a": "1", "b": "2", "t": "tie", "tie": "tie"}.get(t)
        return None if shown is None else stored_winner(shown, order)
    return normalise(t, scale)


@dataclass(frozen=True)
class QueueEntry:
    """A subject of the fair queue of one judge and dimension: its stratum
    (the judge's verdict when drawn, formatted), split and rank."""

    subject: str
    stratum: str
    split: str
    rank: str


def draw(
    verdicts: Mapping[str, Value],
    existing: Iterable[str] = (),
    *,
    seed: int = 0,
    splits: Mapping[str, str] | None = None,
) -> list[QueueEntry]:
    """The new entries of a fair queue (module doc).

    Args:
        verdicts: {subject: the judge's normalised value on the dimension}
            for every subject it judged (None: undecided).
        existing: subjects already in the queue (never drawn again, never
            changed).
        seed: of the ranks and the splits.
        splits: splits already assigned to subjects (kept; others by
            hash_split).

    Returns the entries of the subjects not yet in the queue, sorted by subject.
    """
    have = set(existing)
    splits = splits or {}
    out = []
    for subject in sorted(verdicts):
        if subject in have:
            continue
        value = verdicts[subject]
        stratum = UNDECIDED if value is None else format_value(value)
        out.append(
            QueueEntry(
                subject, stratum, splits.get(subject) or hash_split(subject, seed=seed), seeded_rank(subject, seed)
            )
        )
    return out


def queue_order(entries: Sequence[QueueEntry], labelled: Iterable[str] = ()) -> list[QueueEntry]:
    """The unlabelled entries in the order to label them: proportional
    stratified. Each stratum's share is its size over the queue's; the
    next pick is from the stratum whose count (labelled + picked) is
    furthest below share x (picks so far + 1), ties to the stratum first by
    name, within a stratum by rank. Deterministic; labelling the first
    entry of the order leaves the rest of the order unchanged."""
    done = set(labelled)
    total = len(entries)
    if not total:
        return []
    by_stratum: dict[str, list[QueueEntry]] = {}
    for e in entries:
        by_stratum.setdefault(e.stratum, []).append(e)
    size = {s: len(es) for s, es in by_stratum.items()}
    count = {s: sum(1 for e in es if e.subject in done) for s, es in by_stratum.items()}
    left = {
        s: sorted((e for e in es if e.subject not in done), key=lambda e: (e.rank, e.subject))
        for s, es in by_stratum.items()
    }
    taken = sum(count.values())
    at = dict.fromkeys(left, 0)  # next unpicked entry of each stratum
    names = sorted(left)
    out: list[QueueEntry] = []
    while True:
        open_ = [s for s in names if at[s] < len(left[s])]
        if not open_:
            return out
        t = taken + len(out) + 1
        stratum = max(open_, key=lambda s: size[s] / total * t - count[s])
        out.append(left[stratum][at[stratum]])
        at[stratum] += 1
        count[stratum] += 1
