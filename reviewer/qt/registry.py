"""The window's registry of workflows (decision record
"workflow-registries"): a workflow beyond the five registers its
perspective here from its own package, and the main window and
reviewer.qt.perspectives loop over the registrations: the centre widget is
made by its factory and put in the centre stack, its score panel becomes a
dock of its own, and its perspective shows its docks. Its codes and keys go
to the legend and the '?' sheet (reviewer.qt.panels.legend.codes_for,
reviewer.qt.panels.shortcuts.shortcuts_for).

The five built-in workflows register their perspectives the same way, from
their own packages (``registration`` in reviewer.qt.cards, .spans, .cases
and .judging, imported once by reviewer.qt's ``__init__``): the centre
widget, the score panels, the docks, default dock sizes, tools, codes and
keys. Their factories name their widgets by module (``lazy``), so
registering imports no widget: reviewer.qt's ``__init__`` runs before any
of them can be imported.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from reviewer.core.workflows import AnyWorkflow

#: A perspective's default dock sizes at 1600x1000: (docks, sizes, orientation) for QMainWindow.resizeDocks.
DockSizes = tuple[tuple[tuple[str, ...], tuple[int, ...], Qt.Orientation], ...]

if TYPE_CHECKING:
    from reviewer.qt.session import ItemStatus, Session


def lazy(module: str, name: str) -> Callable[[Session], QWidget]:
    """A widget factory: ``name`` of ``module`` (a widget class, or a
    function of the Session giving a widget), imported when first called."""

    def make(session: Session) -> QWidget:
        return getattr(importlib.import_module(module), name)(session)

    make.__qualname__ = make.__name__ = f"{module}.{name}"
    return make


@dataclass(frozen=True)
class ScorePanel:
    """One score dock of a workflow: ``key``, its key in the main window's
    ``docks`` and ``score_panels``; ``title``, the dock's title and object
    name (saved dock layouts name docks by it); ``make``, its panel from the
    Session."""

    key: str
    title: str
    make: Callable[[Session], QWidget]


@dataclass(frozen=True)
class QtWorkflow:
    """A registered workflow's perspective.

    ``center``: makes the centre widget from the Session, keyed
    ``center_name`` in the main window's ``centers`` (default
    'workflow:<value>'; two registrations naming the same centre share the
    one the first makes: judged output and pairwise); ``score_panel``:
    makes its score panel (None: no score dock), titled ``score_title``;
    ``score_panels``: score docks with keys of their own (ScorePanel; the
    judged output's Failter table and rubric distribution, tabbed in one
    place); ``docks``: the shared docks it shows besides its score docks
    ('items', 'runs', 'findings', 'output', 'legend', and the cards' 'piles'
    and 'unplaced'); ``codes``: its finding codes, in key order (the
    legend's and the number keys'); ``keys``: its own rows of the '?'
    sheet, (keys, what they do). ``card_tools``: it shows the card drawing
    tools, zoom and annotator switch, the runs table's card columns and
    every key of the '?' sheet; ``sizes``: its default dock sizes (DockSizes).

    What the shared panels ask of any workflow: ``status_line`` gives the
    item's second line in the items list from its ItemStatus and the phrase
    of its runs ('3/5 runs reviewed'), or None for the shared line (its
    ground-truth cards, or 'no ground truth'); ``output_text`` gives a
    run's output as the output panel shows it (the labelled text and
    numbered spans of a span run), or None when the output is not its
    kind; ``variant_docks``: docks of its perspective shown only for some
    items, ``item_docks`` saying which of them the current item shows (each
    set keeps its own saved layout)."""

    workflow: AnyWorkflow
    center: Callable[[Session], QWidget] | None = None
    score_panel: Callable[[Session], QWidget] | None = None
    score_title: str = ""
    score_panels: tuple[ScorePanel, ...] = ()
    docks: tuple[str, ...] = ("items", "runs")
    codes: tuple = ()
    keys: tuple[tuple[str, str], ...] = ()
    center_name: str = ""
    card_tools: bool = False
    sizes: DockSizes = ()
    status_line: Callable[[ItemStatus, str], str | None] | None = None
    output_text: Callable[[str], str | None] | None = None
    variant_docks: tuple[str, ...] = ()
    item_docks: Callable[[Session], tuple[str, ...]] | None = None

    @property
    def center_key(self) -> str:
        """The key of its centre widget in the main window's ``centers``."""
        return self.center_name or f"workflow:{self.workflow.value}"

    @property
    def score_key(self) -> str:
        """The key of its ``score_panel``'s dock in the main window's ``docks``."""
        return f"{self.workflow.value}_scores"

    @property
    def score_docks(self) -> tuple[ScorePanel, ...]:
        """All its score docks: ``score_panels``, then ``score_panel`` (keyed ``score_key``)."""
        if self.score_panel is None:
            return self.score_panels
        return (*self.score_panels, ScorePanel(self.score_key, self.score_title, self.score_panel))


#: The registered perspectives, by workflow value, in registration order.
REGISTERED: dict[str, QtWorkflow] = {}


def register(parts: QtWorkflow) -> QtWorkflow:
    """Register ``parts`` (replacing an earlier registration of the same
    workflow); windows built after it show the perspective."""
    REGISTERED[parts.workflow.value] = parts
    return parts


def unregister(value: str) -> None:
    """Forget the perspective of the workflow stored as ``value``."""
    REGISTERED.pop(value, None)


def registered() -> tuple[QtWorkflow, ...]:
    """The registered perspectives, in registration order."""
    return tuple(REGISTERED.values())


def of(workflow: object) -> QtWorkflow | None:
    """The registered perspective of ``workflow`` (a value or a workflow), or None."""
    return REGISTERED.get(str(getattr(workflow, "value", workflow)))


def shown_for(workflow: object) -> QtWorkflow:
    """The registration whose perspective shows ``workflow``: its own, else
    the first registered one (the cards', reviewer.qt's ``__init__``), as
    for None or a workflow this window does not know. LookupError before
    any registration."""
    parts = of(workflow) if workflow is not None else None
    if parts is None:
        if not REGISTERED:
            raise LookupError("no perspective is registered")
        parts = next(iter(REGISTERED.values()))
    return parts
