"""Every user edit is a Command with do and undo, kept on an UndoStack.

Commands act on a ``Store`` (a protocol: the project database implements it
in reviewer.storage.store; tests use an in-memory one). A command captures
what it needs to undo when it is first done, so redo after undo gives the
same ids back (a re-added card keeps its id, so findings still point at it).
The stack has no depth limit that matters in practice (default 100,000).
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, Protocol, TypeVar

from reviewer.core.cards.pre_annotation import boxes_from_run, draft_from_run
from reviewer.core.cards.readings import squashed
from reviewer.core.judging.verdicts import Adjudication, Value
from reviewer.core.models import BBox, BoxConvention, Card, Code, Finding, GroundTruth, ModelCard, Pile, Source, Status


class Store(Protocol):
    """What commands need from storage. Ids are integers; every method is
    one transaction (written before it returns)."""

    def add_pile(self, item_id: int, pile: Pile) -> int:
        """Insert ``pile`` on item ``item_id`` (keeping ``pile.id`` when set, for redo); return its id."""

    def get_pile(self, pile_id: int) -> tuple[int, Pile]:
        """Return (item id, pile) of ``pile_id``; KeyError when there is none."""

    def update_pile(self, pile_id: int, label: str, region: list | None) -> None:
        """Set the label and region (polygon in image pixels, or None) of ``pile_id``; KeyError when absent."""

    def delete_pile(self, pile_id: int) -> None:
        """Delete pile ``pile_id`` (its cards keep no pile); KeyError when absent."""

    def add_card(self, item_id: int, card: Card) -> int:
        """Insert ``card`` on item ``item_id`` (keeping ``card.id`` when set, for redo); return its id."""

    def get_card(self, card_id: int) -> tuple[int, Card]:
        """Return (item id, card) of ``card_id``; KeyError when there is none."""

    def update_card(self, card_id: int, card: Card) -> None:
        """Write the text, pile and box of ``card`` to card ``card_id``; KeyError when absent."""

    def delete_card(self, card_id: int) -> None:
        """Delete card ``card_id`` (findings pointing at it lose their card); KeyError when absent."""

    def card_findings(self, card_id: int) -> list[int]:
        """Return the ids of the findings that point at card ``card_id`` ([] when none)."""

    def link_findings(self, finding_ids: Sequence[int], card_id: int) -> None:
        """Point the findings ``finding_ids`` at card ``card_id`` again (after it was put back)."""

    def get_finding(self, finding_id: int) -> Finding:
        """Return finding ``finding_id``; KeyError when there is none."""

    def add_finding(self, run_id: int, finding: Finding) -> int:
        """Insert ``finding`` into run ``run_id`` (keeping ``finding.id`` when set, for redo); return its id."""

    def update_finding(self, finding_id: int, finding: Finding) -> None:
        """Write the review fields (status, final_code, reason, reviewer, decided_at) of ``finding``
        to ``finding_id``; KeyError when absent."""

    def delete_finding(self, finding_id: int) -> None:
        """Delete finding ``finding_id``; KeyError when absent."""

    def get_adjudication(self, subject: str, dimension: str) -> Adjudication | None:
        """Return the adjudication of (``subject``, ``dimension``), or None when there is none."""

    def put_adjudication(self, adjudication: Adjudication) -> int:
        """Insert or replace the adjudication of its (subject, dimension); return its id."""

    def delete_adjudication(self, subject: str, dimension: str) -> None:
        """Remove the adjudication of (``subject``, ``dimension``); no error when there is none."""


class FindingStore(Protocol):
    """The part of Store a decision on findings needs (DecideFindings): the
    project store has it, and so has a cache of findings shown before they
    are written."""

    def get_finding(self, finding_id: int) -> Finding:
        """Return finding ``finding_id``; KeyError when there is none."""

    def update_finding(self, finding_id: int, finding: Finding) -> None:
        """Write the review fields of ``finding`` to ``finding_id``; KeyError when absent."""


S = TypeVar("S", contravariant=True)
"""The store a command acts on. Contravariant: a command that needs only a
narrow store (golden spans, labels) runs on any store that has those methods,
such as the project store."""

T = TypeVar("T")
"""The store an UndoStack's commands act on."""


@dataclass
class Effect:
    """What a command touched, so views refresh and runs are re-scored:
    items whose ground truth changed, runs whose findings changed, subjects
    whose adjudications changed."""

    items: set[int] = field(default_factory=set)
    runs: set[int] = field(default_factory=set)
    subjects: set[str] = field(default_factory=set)


class Command(ABC, Generic[S]):
    """One user edit on a store of type ``S`` (Store for ground truth,
    findings and adjudications; narrower protocols for span and label
    commands). ``text`` names it in the undo history."""

    text: str = "edit"

    @abstractmethod
    def do(self, store: S) -> Effect:
        """Apply the edit (first time or redo)."""

    @abstractmethod
    def undo(self, store: S) -> Effect:
        """Revert the edit."""


class Batch(Command[S]):
    """Several commands as one edit (one undo step): done in order, undone
    in reverse; the Effect is the union of theirs."""

    def __init__(self, commands: Sequence[Command[S]], text: str):
        self.commands = list(commands)
        self.text = text

    def do(self, store: S) -> Effect:
        """Do every command in order; Effect with everything they touched."""
        return _union(c.do(store) for c in self.commands)

    def undo(self, store: S) -> Effect:
        """Undo every command in reverse order; Effect with everything they touched."""
        return _union(c.undo(store) for c in reversed(self.commands))


def _union(effects) -> Effect:
    out = Effect()
    for e in effects:
        out.items |= e.items
        out.runs |= e.runs
        out.subjects |= e.subjects
    return out


# -- ground truth -------------------------------------------------------------
class AddPile(Command[Store]):
    """Add a ground-truth pile (label, optional region polygon in pixels)."""

    def __init__(self, item_id: int, label: str, region: list | None = None):
        self.item_id, self.pile = item_id, Pile(label=label, region=region)
        self.text = f"add pile '{label}'"

    def do(self, store: Store) -> Effect:
        """Insert the pile (with its first id again on redo); Effect with the item."""
        self.pile = self.pile.model_copy(update={"id": store.add_pile(self.item_id, self.pile)})
        return Effect(items={self.item_id})

    def undo(self, store: Store) -> Effect:
        """Delete the pile added; Effect with the item."""
        assert self.pile.id is not None  # set by do()
        store.delete_pile(self.pile.id)
        return Effect(items={self.item_id})


class AddCard(Command[Store]):
    """Add a ground-truth card (text, pile label, optional box in pixels)."""

    def __init__(self, item_id: int, text: str, pile: str | None = None, bbox: BBox | None = None):
        self.item_id = item_id
        self.card = Card(text=text, pile=pile, bbox=bbox)
        self.text = f"add card '{text}'"

    def do(self, store: Store) -> Effect:
        """Insert the card (with its first id again on redo); Effect with the item."""
        self.card = self.card.model_copy(update={"id": store.add_card(self.item_id, self.card)})
        return Effect(items={self.item_id})

    def undo(self, store: Store) -> Effect:
        """Delete the card added; Effect with the item."""
        assert self.card.id is not None  # set by do()
        store.delete_card(self.card.id)
        return Effect(items={self.item_id})


class EditCards(Command[Store]):
    """Change text, pile and/or box of one or more cards.

    ``changes``: {card id: {"text"?, "pile"?, "bbox"?}} (bbox a BBox or None).
    """

    def __init__(self, changes: dict[int, dict[str, Any]], text: str = "edit card"):
        self.changes = changes
        self.before: dict[int, tuple[int, Card]] = {}
        self.text = text

    def do(self, store: Store) -> Effect:
        """Record each card as first found, then write its changes; Effect with the cards'
        items. KeyError for a missing card (cards before it are already written)."""
        items = set()
        for card_id, change in self.changes.items():
            item_id, card = store.get_card(card_id)
            self.before.setdefault(card_id, (item_id, card))
            store.update_card(card_id, card.model_copy(update=change))
            items.add(item_id)
        return Effect(items=items)

    def undo(self, store: Store) -> Effect:
        """Write every card back as recorded before the first do; Effect with their items."""
        for card_id, (_, card) in self.before.items():
            store.update_card(card_id, card)
        return Effect(items={i for i, _ in self.before.values()})


def move_to_next_pile(ground_truth, card_ids: Sequence[int], step: int = 1) -> EditCards | None:
    """The command that puts cards ``card_ids`` of ``ground_truth`` in the
    pile after (``step`` 1) or before (-1) the first card's pile, in pile
    order (a card in no pile goes to the first or last). None when no card
    is given or the item has no pile."""
    labels = [p.label for p in ground_truth.piles]
    cards = [c for c in ground_truth.cards if c.id in set(card_ids)]
    if not cards or not labels:
        return None
    current = labels.index(cards[0].pile) if cards[0].pile in labels else (-1 if step > 0 else 0)
    target = labels[(current + step) % len(labels)]
    return EditCards({c.id: {"pile": target} for c in cards}, text=f"move {len(cards)} card(s) to pile '{target}'")


def use_run_boxes(
    item_id: int,
    ground_truth: GroundTruth,
    outcomes,
    cards: Sequence[ModelCard],
    convention: BoxConvention | None,
    width: int | None,
    height: int | None,
    run_name: str = "this run",
) -> EditCards | None:
    """The command that gives the ground-truth cards without a box the
    predicted boxes of their matched model cards (converted from the run's
    box ``convention`` to upright pixels; core.cards.pre_annotation). None
    when no such card gets a box."""
    boxes = boxes_from_run(ground_truth, outcomes, cards, convention, width, height)
    if not boxes:
        return None
    return EditCards(
        {card_id: {"bbox": box} for card_id, box in boxes.items()},
        text=f"use {run_name}'s boxes for {len(boxes)} card(s)",
    )


def accept_run_cards(
    item_id: int,
    ground_truth: GroundTruth,
    cards: Sequence[ModelCard],
    convention: BoxConvention | None,
    width: int | None,
    height: int | None,
    run_name: str = "this run",
) -> Batch | None:
    """The command that makes a run's cards the draft ground truth of a
    photo that has no ground-truth cards: its piles (those not there yet)
    and cards, with boxes in pixels when the run gave them; one undo step.
    None when the photo has cards already or the run has none."""
    if ground_truth.cards:
        return None
    draft = draft_from_run(ground_truth.item, cards, convention, width, height)
    if not draft.cards:
        return None
    have = {p.label for p in ground_truth.piles}
    steps: list[Command] = [AddPile(item_id, p.label) for p in draft.piles if p.label not in have]
    steps += [AddCard(item_id, c.text, c.pile, c.bbox) for c in draft.cards]
    return Batch(steps, text=f"accept {run_name}'s {len(draft.cards)} card(s) as draft ground truth")


class DeleteCards(Command[Store]):
    """Delete ground-truth cards; undo puts them back with the same ids."""

    def __init__(self, card_ids: Sequence[int]):
        self.card_ids = list(card_ids)
        self.before: list[tuple[int, Card]] = []
        self.links: dict[int, list[int]] = {}
        self.text = f"delete {len(self.card_ids)} card(s)"

    def do(self, store: Store) -> Effect:
        """Record the cards (first time) and the findings pointing at each, then delete them;
        Effect with their items. KeyError for a missing card."""
        if not self.before:
            self.before = [store.get_card(c) for c in self.card_ids]
        for c in self.card_ids:
            self.links[c] = store.card_findings(c)
            store.delete_card(c)
        return Effect(items={i for i, _ in self.before})

    def undo(self, store: Store) -> Effect:
        """Re-insert the cards with their ids and point their findings back at them; Effect
        with their items."""
        for item_id, card in self.before:
            store.add_card(item_id, card)
            assert card.id is not None  # read from the store by do()
            store.link_findings(self.links.get(card.id, []), card.id)  # decisions find their card again
        return Effect(items={i for i, _ in self.before})


# -- review ---------------------------------------------------------------------
def _utcnow() -> datetime:
    return datetime.now(UTC)


class DecideFindings(Command[FindingStore]):
    """Confirm, reject or reclassify findings (one step for many).

    ``status``: CONFIRMED or REJECTED; ``final_code``: the new code when
    reclassifying (implies CONFIRMED); ``reason``: optional, for rejections;
    ``what``: a word naming the group in the undo text ('reject 8 SPATIAL
    finding(s)'). The reviewer and time are recorded on every finding.
    """

    def __init__(
        self,
        finding_ids: Sequence[int],
        status: Status,
        reviewer: str,
        final_code: Code | None = None,
        reason: str | None = None,
        what: str = "",
    ):
        self.ids = list(finding_ids)
        self.status, self.final_code, self.reason, self.reviewer = status, final_code, reason, reviewer
        self.before: list[Finding] = []
        self.at = _utcnow()
        verb = f"reclassify as {final_code.value}" if final_code else status.value.replace("ed", "")
        self.text = f"{verb} {len(self.ids)} {what + ' ' if what else ''}finding(s)"

    def do(self, store: FindingStore) -> Effect:
        """Record the findings (first time), then write status, final code (kept when confirming
        without one, None when rejecting), reason, reviewer and time; Effect with their runs.
        KeyError for a missing finding."""
        if not self.before:
            self.before = [store.get_finding(i) for i in self.ids]
        for old in self.before:
            new = old.model_copy(
                update={
                    "status": self.status,
                    "final_code": self.final_code or (old.final_code if self.status == Status.CONFIRMED else None),
                    "reason": self.reason,
                    "reviewer": self.reviewer,
                    "decided_at": self.at,
                }
            )
            assert old.id is not None  # read from the store above
            store.update_finding(old.id, new)
        return Effect(runs=_runs_of(self.before))

    def undo(self, store: FindingStore) -> Effect:
        """Write the recorded findings back, skipping any that are gone; Effect with their runs."""
        for old in self.before:
            assert old.id is not None  # read from the store by do()
            try:
                store.update_finding(old.id, old)
            except KeyError:  # the finding is gone (its run was re-imported): nothing to restore
                continue
        return Effect(runs=_runs_of(self.before))


def _runs_of(findings: Sequence[Finding]) -> set[int]:
    """The run ids of findings read from the store (each has one)."""
    runs = {f.run_id for f in findings}
    assert None not in runs  # stored findings belong to a run
    return {r for r in runs if r is not None}


class AddFinding(Command[Store]):
    """Add a finding the classifier missed (source human, confirmed)."""

    def __init__(
        self,
        run_id: int,
        code: Code,
        reviewer: str,
        gt_card_id: int | None = None,
        gt_card: str | None = None,
        model_index: int | None = None,
        model_card: str | None = None,
        detail: str = "added by reviewer",
    ):
        self.run_id = run_id
        self.finding = Finding(
            run_id=run_id,
            code=code,
            gt_card_id=gt_card_id,
            gt_card=gt_card,
            model_index=model_index,
            model_card=model_card,
            detail=detail,
            source=Source.HUMAN,
            status=Status.CONFIRMED,
            final_code=code,
            reviewer=reviewer,
            decided_at=_utcnow(),
        )
        self.text = f"add {code.value} finding"

    def do(self, store: Store) -> Effect:
        """Insert the finding (with its first id again on redo); Effect with its run."""
        self.finding = self.finding.model_copy(update={"id": store.add_finding(self.run_id, self.finding)})
        return Effect(runs={self.run_id})

    def undo(self, store: Store) -> Effect:
        """Delete the finding added; Effect with its run."""
        assert self.finding.id is not None  # set by do()
        store.delete_finding(self.finding.id)
        return Effect(runs={self.run_id})


class Adjudicate(Command[Store]):
    """Set the final value of dimensions of a subject (docs/judging.md), with a
    rationale and the judge it sides with; undo restores what was there.

    ``values``: {dimension: value}; ``sided_with``: {dimension: judge name}.
    """

    def __init__(
        self,
        subject: str,
        values: dict[str, Value],
        reviewer: str,
        rationale: str = "",
        sided_with: dict[str, str | None] | None = None,
        dispute_ids: dict[str, int | None] | None = None,
    ):
        self.subject, self.values, self.reviewer, self.rationale = subject, values, reviewer, rationale
        self.sided_with = sided_with or {}
        self.dispute_ids = dispute_ids or {}
        self.before: dict[str, Adjudication | None] | None = None
        self.at = _utcnow()
        self.text = f"adjudicate {', '.join(values)}"

    def do(self, store: Store) -> Effect:
        """Record each dimension's adjudication (first time), then put the new value, rationale,
        reviewer, time, sided-with judge and dispute id of each; Effect with the subject."""
        if self.before is None:
            self.before = {d: store.get_adjudication(self.subject, d) for d in self.values}
        for dimension, value in self.values.items():
            store.put_adjudication(
                Adjudication(
                    subject=self.subject,
                    dimension=dimension,
                    value=value,
                    rationale=self.rationale,
                    reviewer=self.reviewer,
                    decided_at=self.at,
                    sided_with=self.sided_with.get(dimension),
                    dispute_id=self.dispute_ids.get(dimension),
                )
            )
        return Effect(subjects={self.subject})

    def undo(self, store: Store) -> Effect:
        """Put each recorded adjudication back, deleting those that had none; Effect with the subject."""
        for dimension, old in (self.before or {}).items():
            if old is None:
                store.delete_adjudication(self.subject, dimension)
            else:
                store.put_adjudication(old)
        return Effect(subjects={self.subject})


def _atomic(store: object):
    """The store's transaction, so a command touching several rows is
    written whole or not at all; a no-op for stores without one."""
    begin = getattr(store, "transaction", None)
    return begin() if begin is not None else contextlib.nullcontext()


class UndoStack(Generic[T]):
    """A linear undo history of commands on a store of type ``T``: push does
    a command; undo/redo walk it."""

    def __init__(self, limit: int = 100_000):
        self._done: list[Command[T]] = []
        self._undone: list[Command[T]] = []
        self.limit = limit

    def push(self, command: Command[T], store: T) -> Effect:
        """Do ``command`` and record it; clears the redo history. If doing
        it raises, nothing is recorded (and, with a store that has
        ``transaction()``, nothing of it is written)."""
        with _atomic(store):
            effect = command.do(store)
        self._done.append(command)
        if len(self._done) > self.limit:
            del self._done[0]
        self._undone.clear()
        return effect

    def undo(self, store: T) -> Effect | None:
        """Undo the last command; None when there is nothing to undo."""
        if not self._done:
            return None
        command = self._done[-1]
        with _atomic(store):
            effect = command.undo(store)
        self._undone.append(self._done.pop())
        return effect

    def redo(self, store: T) -> Effect | None:
        """Redo the last undone command; None when there is none."""
        if not self._undone:
            return None
        command = self._undone[-1]
        with _atomic(store):
            effect = command.do(store)
        self._done.append(self._undone.pop())
        return effect

    def clear(self) -> None:
        """Forget the history (when another project is opened)."""
        self._done.clear()
        self._undone.clear()

    @property
    def can_undo(self) -> bool:
        """There is a command to undo."""
        return bool(self._done)

    @property
    def can_redo(self) -> bool:
        """There is a command to redo."""
        return bool(self._undone)

    def next_undo(self) -> Command[T] | None:
        """The command undo would revert (None when none)."""
        return self._done[-1] if self._done else None

    def next_redo(self) -> Command[T] | None:
        """The command redo would do again (None when none)."""
        return self._undone[-1] if self._undone else None

    def undo_text(self) -> str:
        """Name of the command undo would revert ('' when none)."""
        return self._done[-1].text if self._done else ""

    def redo_text(self) -> str:
        """Name of the command redo would do again ('' when none)."""
        return self._undone[-1].text if self._undone else ""

    def history(self) -> list[str]:
        """Names of the done commands, oldest first."""
        return [c.text for c in self._done]

    def commands(self) -> tuple[list[Command[T]], list[Command[T]]]:
        """(done commands oldest first, undone commands in the order redo
        would take them from the end): copies, to look at without changing."""
        return list(self._done), list(self._undone)


def draw_card(item_id: int, ground_truth: GroundTruth, text: str, pile: str | None, bbox: BBox) -> Command[Store]:
    """The command for a card drawn with box ``bbox`` (upright pixels) and
    typed ``text``: when an unplaced card of ``ground_truth`` (one without a
    box) has that text by §1 equality (card-scoring-rules.md: case,
    punctuation and spacing aside), that card gets the box (and ``pile`` if
    it has none), so no second card and no MISS for it appear; the first
    such card in ground-truth order. Otherwise a new card (AddCard)."""
    key = squashed(text)
    if key:
        for card in ground_truth.cards:
            if card.bbox is None and card.id is not None and squashed(card.text) == key:
                change: dict[str, Any] = {"bbox": bbox}
                if card.pile is None and pile is not None:
                    change["pile"] = pile
                return EditCards({card.id: change}, text=f"place card '{card.text}'")
    return AddCard(item_id, text, pile=pile, bbox=bbox)
