"""Label-first edits as core Commands (every user edit has do and undo):
commit a first label (before any verdict is shown), then keep it or change
it as the final value (after the verdicts are shown); and an adjudication
with its labels in the dispute queue (:func:`with_dispute_labels`). They
act on a store with the human-label methods
(reviewer.storage.judging.labels.LabelStore, or the project store); undo
puts back exactly what was there.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Protocol

from reviewer.core.commands import Adjudicate, Batch, Command, Effect
from reviewer.core.judging.label_first import DISPUTE, LABEL_FIRST, QUEUES, HumanLabel
from reviewer.core.judging.verdicts import Value


class LabelStore(Protocol):
    """What label commands need from storage."""

    def get_label(self, subject: str, dimension: str, reviewer: str, queue: str) -> HumanLabel | None:
        """The label of (subject, dimension, reviewer, queue), or None."""

    def put_label(self, label: HumanLabel) -> int:
        """Insert or replace the label of its key (keeping ``label.id`` when set); its id."""

    def delete_label(self, subject: str, dimension: str, reviewer: str, queue: str) -> None:
        """Remove that label; no error when there is none."""


def _now() -> datetime:
    return datetime.now(UTC)


class _LabelCommand(Command[LabelStore]):
    def __init__(self, subject: str, dimension: str, reviewer: str, queue: str):
        if queue not in QUEUES:
            raise ValueError(f"unknown queue '{queue}' (known: {', '.join(QUEUES)})")
        self.subject, self.dimension, self.reviewer, self.queue = subject, dimension, reviewer, queue
        self.before: HumanLabel | None = None
        self.recorded = False

    def _record(self, store: LabelStore) -> HumanLabel | None:
        if not self.recorded:
            self.before = store.get_label(self.subject, self.dimension, self.reviewer, self.queue)
            self.recorded = True
        return self.before

    def undo(self, store: LabelStore) -> Effect:
        """Put back the label as it was (delete it when there was none); Effect with the subject."""
        if self.before is None:
            store.delete_label(self.subject, self.dimension, self.reviewer, self.queue)
        else:
            store.put_label(self.before)
        return Effect(subjects={self.subject})


class CommitFirstLabel(_LabelCommand):
    """Commit the first label of a dimension of a subject: made with only
    the item, output(s) and rubric in view. Records the time, reviewer,
    queue, the judge to be shown next, the rubric version and the order a
    pair was shown in; any final value of an earlier label is cleared
    (the verdicts are to be shown again)."""

    def __init__(
        self,
        subject: str,
        dimension: str,
        value: Value,
        reviewer: str,
        *,
        queue: str = LABEL_FIRST,
        judge: str | None = None,
        rubric_version: str | None = None,
        answer_order: str | None = None,
    ):
        super().__init__(subject, dimension, reviewer, queue)
        if value is None:
            raise ValueError("a first label needs a value")
        self.label = HumanLabel(
            subject=subject,
            dimension=dimension,
            reviewer=reviewer,
            queue=queue,
            judge=judge,
            rubric_version=rubric_version,
            answer_order=answer_order,
            first_value=value,
            first_at=_now(),
        )
        self.text = f"first label {dimension} of {subject}"

    def do(self, store: LabelStore) -> Effect:
        """Store the first label (same id on redo); Effect with the subject."""
        before = self._record(store)
        if self.label.id is None and before is not None:
            self.label = self.label.model_copy(update={"id": before.id})
        self.label = self.label.model_copy(update={"id": store.put_label(self.label)})
        return Effect(subjects={self.subject})


class SetFinalValue(_LabelCommand):
    """Keep the first label as the final value (``value`` None) or change it
    (``value``), after the verdicts were shown. Raises KeyError when there
    is no first label."""

    def __init__(self, subject: str, dimension: str, reviewer: str, value: Value = None, *, queue: str = LABEL_FIRST):
        super().__init__(subject, dimension, reviewer, queue)
        self.value = value
        self.at = _now()
        self.text = f"{'keep' if value is None else 'change'} {dimension} of {subject}"

    def do(self, store: LabelStore) -> Effect:
        """Write the final value and its time; Effect with the subject."""
        before = self._record(store)
        if before is None or before.first_value is None:
            raise KeyError(f"no first label of {self.dimension} of {self.subject} by {self.reviewer}")
        final = before.first_value if self.value is None else self.value
        store.put_label(before.model_copy(update={"final_value": final, "final_at": self.at}))
        return Effect(subjects={self.subject})


def with_dispute_labels(adjudicate: Adjudicate, rubric_versions: Mapping[str, str | None] | None = None) -> Batch:
    """An adjudication made in the dispute queue together with its human
    labels (one undo step): per dimension decided, the reviewer's label in
    the 'dispute' queue, first label and final value both the decided value
    (made with the judges in view, so kept apart from the fair sample), the
    judge sided with as the judge shown, and the dimension's rubric version
    from ``rubric_versions``. Undone in reverse order. The store must have
    the adjudication and the label methods (the project store has both)."""
    commands: list[Command] = [adjudicate]
    for dimension, value in adjudicate.values.items():
        if value is None:
            continue
        commands.append(
            CommitFirstLabel(
                adjudicate.subject,
                dimension,
                value,
                adjudicate.reviewer,
                queue=DISPUTE,
                judge=adjudicate.sided_with.get(dimension),
                rubric_version=(rubric_versions or {}).get(dimension),
            )
        )
        commands.append(SetFinalValue(adjudicate.subject, dimension, adjudicate.reviewer, queue=DISPUTE))
    return Batch(commands, adjudicate.text)
