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
and .judging, imported once by reviewer.qt's ``__init__``): the docks,
default dock sizes, tools, codes and keys. Their centre widgets and score
panels the main window still makes itself (``center_name``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from reviewer.core.workflows import AnyWorkflow

#: A perspective's default dock sizes at 1600x1000: (docks, sizes, orientation) for QMainWindow.resizeDocks.
DockSizes = tuple[tuple[tuple[str, ...], tuple[int, ...], Qt.Orientation], ...]

if TYPE_CHECKING:
    from reviewer.qt.session import Session


@dataclass(frozen=True)
class QtWorkflow:
    """A registered workflow's perspective.

    ``center``: makes the centre widget from the Session; ``score_panel``:
    makes its score panel (None: no score dock), titled ``score_title``;
    ``docks``: the shared docks it shows besides its score dock ('items',
    'runs', 'findings', 'output', 'legend'); ``codes``: its finding codes,
    in key order (the legend's and the number keys'); ``keys``: its own rows
    of the '?' sheet, (keys, what they do).

    A built-in workflow's registration has no ``center`` factory: its
    ``center_name`` names the centre the main window makes ('canvas',
    'spans', 'case', 'judged'), and ``docks`` are all its docks, score
    docks included. ``card_tools``: it shows the card drawing tools, zoom
    and annotator switch, the runs table's card columns and every key of
    the '?' sheet; ``sizes``: its default dock sizes (DockSizes)."""

    workflow: AnyWorkflow
    center: Optional[Callable[["Session"], QWidget]] = None
    score_panel: Optional[Callable[["Session"], QWidget]] = None
    score_title: str = ""
    docks: tuple[str, ...] = ("items", "runs")
    codes: tuple = ()
    keys: tuple[tuple[str, str], ...] = ()
    center_name: str = ""
    card_tools: bool = False
    sizes: DockSizes = ()

    @property
    def center_key(self) -> str:
        """The key of its centre widget in the main window's ``centers``."""
        return self.center_name or f"workflow:{self.workflow.value}"

    @property
    def score_key(self) -> str:
        """The key of its score dock in the main window's ``docks``."""
        return f"{self.workflow.value}_scores"


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


def of(workflow: object) -> Optional[QtWorkflow]:
    """The registered perspective of ``workflow`` (a value or a workflow), or None."""
    return REGISTERED.get(str(getattr(workflow, "value", workflow)))
