"""The project database as the ``Store`` that core commands act on.

Each method is one transaction with an audit row, so every user edit is in
the database (WAL) before the method returns and survives a crash or kill.
"""

from __future__ import annotations

import json

from reviewer.core.judging.label_first import HumanLabel
from reviewer.core.judging.verdicts import Adjudication
from reviewer.core.models import Card, Finding, Pile
from reviewer.storage.cards.proposed_boxes import ProposedBoxStore
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.labels import LabelStore
from reviewer.storage.project.db import Project, default_actor, inserted_id
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import ground_truth as repo_ground_truth
from reviewer.storage.spans.spans import GoldenSpanStore


class ProjectStore(GoldenSpanStore, ProposedBoxStore):
    """Implements reviewer.core.commands.Store (and the golden-span store of
    reviewer.core.span_commands, the proposal store of
    reviewer.core.box_commands and the label store of
    reviewer.core.label_commands) over a Project.

    ``actor``: the reviewer's name recorded in the audit table.
    """

    def __init__(self, project: Project, actor: str | None = None):
        self.project = project
        self.actor = actor or default_actor()

    def transaction(self):
        """One transaction around a whole command (see UndoStack)."""
        return self.project.transaction()

    # -- piles ------------------------------------------------------------------
    def add_pile(self, item_id: int, pile: Pile) -> int:
        """Insert a pile (keeping ``pile.id`` when given, for redo); its id."""
        p = self.project
        with p.transaction():
            pos = p.db.execute(
                "SELECT coalesce(max(position) + 1, 0) FROM piles WHERE item_id = ? AND annotator = ''", [item_id]
            ).fetchone()[0]
            cur = p.db.execute(
                "INSERT INTO piles (id, item_id, label, region, position) VALUES (?, ?, ?, ?, ?)",
                [pile.id, item_id, pile.label, json.dumps(pile.region) if pile.region else None, pos],
            )
            p.audit("insert", "piles", inserted_id(cur), None, pile.model_dump(mode="json"), self.actor)
        return inserted_id(cur)

    def get_pile(self, pile_id: int) -> tuple[int, Pile]:
        """(item id, pile) of ``pile_id``; KeyError when absent."""
        row = self.project.db.execute("SELECT item_id, label, region FROM piles WHERE id = ?", [pile_id]).fetchone()
        if not row:
            raise KeyError(f"no pile {pile_id}")
        return row[0], Pile(id=pile_id, label=row[1], region=json.loads(row[2]) if row[2] else None)

    def update_pile(self, pile_id: int, label: str, region: list | None) -> None:
        """Set a pile's label and region; KeyError (from get_pile) when absent."""
        p = self.project
        _, before = self.get_pile(pile_id)
        with p.transaction():
            p.db.execute(
                "UPDATE piles SET label = ?, region = ? WHERE id = ?",
                [label, json.dumps(region) if region else None, pile_id],
            )
            p.audit(
                "update",
                "piles",
                pile_id,
                before.model_dump(mode="json"),
                {"label": label, "region": region},
                self.actor,
            )

    def delete_pile(self, pile_id: int) -> None:
        """Delete a pile (its cards keep no pile); KeyError (from get_pile) when absent."""
        p = self.project
        _, before = self.get_pile(pile_id)
        with p.transaction():
            p.db.execute("DELETE FROM piles WHERE id = ?", [pile_id])
            p.audit("delete", "piles", pile_id, before.model_dump(mode="json"), None, self.actor)

    # -- cards ------------------------------------------------------------------
    def _pile_id(self, item_id: int, label: str | None) -> int | None:
        if label is None:
            return None
        row = self.project.db.execute(
            "SELECT id FROM piles WHERE item_id = ? AND label = ? AND annotator = '' ORDER BY position",
            [item_id, label],
        ).fetchone()
        return row[0] if row else None

    def add_card(self, item_id: int, card: Card) -> int:
        """Insert a card (keeping ``card.id`` when given, for undo/redo)."""
        p = self.project
        b = card.bbox
        with p.transaction():
            pos = p.db.execute(
                "SELECT coalesce(max(position) + 1, 0) FROM cards WHERE item_id = ? AND annotator = ''", [item_id]
            ).fetchone()[0]
            cur = p.db.execute(
                "INSERT INTO cards (id, item_id, pile_id, text, x_min, y_min, x_max, y_max, position) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    card.id,
                    item_id,
                    self._pile_id(item_id, card.pile),
                    card.text,
                    b.x_min if b else None,
                    b.y_min if b else None,
                    b.x_max if b else None,
                    b.y_max if b else None,
                    pos,
                ],
            )
            p.audit("insert", "cards", inserted_id(cur), None, card.model_dump(mode="json"), self.actor)
        return inserted_id(cur)

    def get_card(self, card_id: int) -> tuple[int, Card]:
        """(item id, card) of ``card_id``; KeyError when absent."""
        row = self.project.db.execute("SELECT item_id FROM cards WHERE id = ?", [card_id]).fetchone()
        if not row:
            raise KeyError(f"no card {card_id}")
        card = next(c for c in repo_ground_truth.ground_truth(self.project, row[0]).cards if c.id == card_id)
        return row[0], card

    def update_card(self, card_id: int, card: Card) -> None:
        """Set a card's text, pile and box; KeyError (from get_card) when absent."""
        p = self.project
        item_id, before = self.get_card(card_id)
        b = card.bbox
        with p.transaction():
            p.db.execute(
                "UPDATE cards SET text = ?, pile_id = ?, x_min = ?, y_min = ?, x_max = ?, y_max = ? WHERE id = ?",
                [
                    card.text,
                    self._pile_id(item_id, card.pile),
                    b.x_min if b else None,
                    b.y_min if b else None,
                    b.x_max if b else None,
                    b.y_max if b else None,
                    card_id,
                ],
            )
            p.audit(
                "update", "cards", card_id, before.model_dump(mode="json"), card.model_dump(mode="json"), self.actor
            )

    def delete_card(self, card_id: int) -> None:
        """Delete a card; KeyError (from get_card) when absent."""
        p = self.project
        _, before = self.get_card(card_id)
        with p.transaction():
            p.db.execute("DELETE FROM cards WHERE id = ?", [card_id])
            p.audit("delete", "cards", card_id, before.model_dump(mode="json"), None, self.actor)

    def card_findings(self, card_id: int) -> list[int]:
        """Ids of the findings that concern ground-truth card ``card_id``."""
        return [r[0] for r in self.project.db.execute("SELECT id FROM findings WHERE gt_card_id = ?", [card_id])]

    def link_findings(self, finding_ids, card_id: int) -> None:
        """Point findings at ``card_id`` again (after a deleted card is put
        back, as deleting it set their card to NULL)."""
        ids = list(finding_ids)
        if not ids:
            return
        with self.project.transaction():
            self.project.db.execute(
                f"UPDATE findings SET gt_card_id = ? WHERE id IN ({','.join('?' * len(ids))})", [card_id, *ids]
            )

    # -- findings ------------------------------------------------------------------
    def get_finding(self, finding_id: int) -> Finding:
        """A finding by id; KeyError when absent."""
        return repo_findings.finding(self.project, finding_id)

    def add_finding(self, run_id: int, finding: Finding) -> int:
        """Insert a finding (keeping ``finding.id`` on redo)."""
        new_id = repo_findings.insert_finding(self.project, run_id, finding, actor=self.actor)
        if finding.id is not None and finding.id != new_id:
            with self.project.transaction():
                self.project.db.execute("UPDATE findings SET id = ? WHERE id = ?", [finding.id, new_id])
            return finding.id
        return new_id

    def update_finding(self, finding_id: int, finding: Finding) -> None:
        """Write the review fields of ``finding``; KeyError (from repo) when absent."""
        repo_findings.update_finding(
            self.project,
            finding_id,
            actor=self.actor,
            status=finding.status,
            final_code=finding.final_code,
            reason=finding.reason,
            reviewer=finding.reviewer,
            decided_at=finding.decided_at.isoformat() if finding.decided_at else None,
        )

    def delete_finding(self, finding_id: int) -> None:
        """Delete a finding; KeyError (from repo) when absent."""
        repo_findings.delete_finding(self.project, finding_id, actor=self.actor)

    # -- adjudications ----------------------------------------------------------------
    def get_adjudication(self, subject: str, dimension: str) -> Adjudication | None:
        """The adjudication of (subject, dimension), or None."""
        return judging.adjudication(self.project, subject, dimension)

    def put_adjudication(self, adjudication: Adjudication) -> int:
        """Insert or replace an adjudication."""
        return judging.put_adjudication(self.project, adjudication, self.actor)

    def delete_adjudication(self, subject: str, dimension: str) -> None:
        """Remove an adjudication."""
        judging.delete_adjudication(self.project, subject, dimension, self.actor)

    # -- human labels (label first, and the dispute queue) ----------------------------------
    def get_label(self, subject: str, dimension: str, reviewer: str, queue: str) -> HumanLabel | None:
        """The human label of (subject, dimension, reviewer, queue), or None."""
        return LabelStore(self.project, self.actor).get_label(subject, dimension, reviewer, queue)

    def put_label(self, label: HumanLabel) -> int:
        """Insert or replace a human label, audited; its id."""
        return LabelStore(self.project, self.actor).put_label(label)

    def delete_label(self, subject: str, dimension: str, reviewer: str, queue: str) -> None:
        """Remove a human label, audited; no error when there is none."""
        LabelStore(self.project, self.actor).delete_label(subject, dimension, reviewer, queue)
