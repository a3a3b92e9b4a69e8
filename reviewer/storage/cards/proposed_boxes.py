"""Proposed boxes of a photo (reviewer.core.cards.pre_annotation.ProposedBox):
kept apart from its ground truth, in the project's ``meta`` table under
``proposed_boxes.<item id>`` as a JSON list, so nothing that reads ground
truth (scoring, export, agreement) ever sees one; see
docs/decisions/proposed-boxes-kept-apart.md. Written at once with an audit
row, like every edit."""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import ValidationError

from reviewer.core.cards.pre_annotation import ProposedBox
from reviewer.storage.project.db import Project

#: The meta key of an item's proposed boxes.
KEY = "proposed_boxes.{}"


def proposed_boxes(project: Project, item_id: int) -> list[ProposedBox]:
    """The proposed boxes of item ``item_id`` in order; [] when none, or when
    the stored value is not a list of proposed boxes (unreadable: dropped, not raised)."""
    raw = project.meta(KEY.format(int(item_id)))
    if not raw:
        return []
    try:
        data = json.loads(raw)
        return [ProposedBox.model_validate(d) for d in data] if isinstance(data, list) else []
    except (ValueError, ValidationError):
        return []


class ProposedBoxStore:
    """The proposal part of the commands' store (reviewer.core.box_commands.ProposalStore),
    mixed into reviewer.storage.store.ProjectStore: each write one transaction with an audit row."""

    project: Project
    actor: str

    def proposed_boxes(self, item_id: int) -> list[ProposedBox]:
        """The proposed boxes of item ``item_id`` ([] when none)."""
        return proposed_boxes(self.project, item_id)

    def set_proposed_boxes(self, item_id: int, boxes: Sequence[ProposedBox]) -> None:
        """Replace the proposed boxes of item ``item_id`` by ``boxes``; none left removes the key."""
        p, key = self.project, KEY.format(int(item_id))
        after = [b.model_dump(mode="json") for b in boxes]
        with p.transaction():
            before = p.meta(key)
            if after:
                p.set_meta(key, json.dumps(after))
            else:
                p.db.execute("DELETE FROM meta WHERE key = ?", [key])
            p.audit("set", "meta", key, json.loads(before) if before else None, after or None, self.actor)
