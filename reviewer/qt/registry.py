"""The window's registry of workflows (decision record
"workflow-registries"): a workflow beyond the five registers its
perspective here from its own package, and the main window and
reviewer.qt.perspectives loop over the registrations: the centre widget is
made by its factory and put in the centre stack, its score panel becomes a
dock of its own, and its perspective shows its docks. Its codes and keys go
to the legend and the '?' sheet (reviewer.qt.panels.legend.codes_for,
reviewer.qt.panels.shortcuts.shortcuts_for).

The five built-in perspectives keep their table in reviewer.qt.perspectives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional

from PySide6.QtWidgets import QWidget

from reviewer.core.workflows import RegisteredWorkflow

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
    of the '?' sheet, (keys, what they do)."""

    workflow: RegisteredWorkflow
    center: Callable[["Session"], QWidget]
    score_panel: Optional[Callable[["Session"], QWidget]] = None
    score_title: str = ""
    docks: tuple[str, ...] = ("items", "runs")
    codes: tuple = ()
    keys: tuple[tuple[str, str], ...] = ()

    @property
    def center_key(self) -> str:
        """The key of its centre widget in the main window's ``centers``."""
        return f"workflow:{self.workflow.value}"

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
