"""An item of the items list with its review progress (the RunCache keeps
one per item; reviewer.qt.session.runs). No Qt."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from reviewer.core.models import Item
from reviewer.core.workflows import AnyWorkflow, Workflow


@dataclass(eq=False)
class ItemStatus:
    """An item with its review progress, for the items list. The list needs
    only the item's id, name and kind; the whole Item (``item``) is read
    when first asked for, so opening a project validates no Item but the
    one shown."""

    id: int
    name: str
    #: 'photo' or 'text'
    kind: str
    #: reads the whole item by id (the RunCache's, which keeps it)
    load: Callable[[int], Item] = field(repr=False)
    cards: int = 0
    runs: int = 0
    reviewed: int = 0
    #: ground-truth cards with no text yet (left out of scoring)
    to_transcribe: int = 0
    #: the item's workflow (reviewer.core.workflows), which picks its perspective
    workflow: AnyWorkflow = Workflow.CARDS
    #: golden spans of a span item
    golden_spans: int = 0
    #: reference texts (a Failter ground-truth file) of a judged output
    references: int = 0
    #: people's verdicts on its runs (a gold label, annotators)
    human_verdicts: int = 0
    #: of those, the gold labels (the judge 'gold''s verdicts)
    gold_labels: int = 0
    #: runs without any finding (nothing to decide: never counted as reviewed)
    no_findings: int = 0

    @property
    def item(self) -> Item:
        """The whole item (path, size, text, image note), read once when first asked for."""
        return self.load(self.id)
