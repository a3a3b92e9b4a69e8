"""One perspective per workflow (docs/window.md#perspectives).

The review pane takes the current item's perspective (its workflow,
reviewer.core.workflows): the centre widget, the docks, the card tools, the
runs table's columns and the score panel are those of the workflow, and no
panel, tool or column of another workflow is shown. Each perspective keeps
its own dock layout, saved in QSettings under ``perspectives/<workflow>``
and restored when it comes back; a perspective never seen starts from its
default layout for a 1600x1000 window (its registration's ``sizes``).

``Perspectives`` is composed into the main window: it owns no domain
state, only which perspective is shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTabBar, QToolBar

from reviewer.core.workflows import AnyWorkflow
from reviewer.qt import registry
from reviewer.qt.actions import CARD_ACTIONS, FINDING_ACTIONS
from reviewer.qt.host import PerspectiveHost
from reviewer.qt.panels.legend import codes_for


@dataclass(frozen=True)
class Perspective:
    """What one workflow shows.

    ``center``: key of the centre widget ('canvas', 'spans', 'case',
    'judged'); ``docks``: the dock keys that belong to it, all shown by
    default; ``card_tools``: the card drawing tools, zoom and annotator
    switch; ``card_columns``: the runs table's text / spatial / halluc /
    JSON columns; ``sizes``: its default dock sizes at 1600x1000."""

    workflow: AnyWorkflow
    center: str
    docks: tuple[str, ...]
    card_tools: bool = False
    card_columns: bool = False
    sizes: registry.DockSizes = ()


#: Runs table columns of the card perspective only (reviewer.qt.panels.runs.COLUMNS).
CARD_RUN_COLUMNS = (3, 4, 5, 6)


def perspective_of(workflow: AnyWorkflow | None) -> Perspective:
    """The perspective of ``workflow`` as its registration gives it
    (reviewer.qt.registry: its centre, its docks and its score dock), else
    the first registered one, the cards' (None, or a workflow this window
    does not know)."""
    parts = registry.shown_for(workflow)
    known = _MADE.get(parts)
    if known is None:
        docks = parts.docks + tuple(d.key for d in parts.score_docks)
        known = _MADE[parts] = Perspective(
            parts.workflow, parts.center_key, docks, parts.card_tools, parts.card_tools, parts.sizes
        )
    return known


#: The perspectives, made once each from their registrations (``show`` compares them by identity).
_MADE: dict[registry.QtWorkflow, Perspective] = {}

#: The perspectives of the workflows registered when the window's package was imported, by workflow.
PERSPECTIVES: dict[AnyWorkflow, Perspective] = {p.workflow: perspective_of(p.workflow) for p in registry.registered()}


def settings_key(workflow: AnyWorkflow, docks: tuple[str, ...] = ()) -> str:
    """The QSettings key of a perspective's saved dock layout; a perspective
    whose docks vary by item (its registration's ``variant_docks``: a judged
    output's Failter table or rubric distribution) keeps its layout apart
    per set of those docks shown, so the Failter layout never hides the
    rubric panel."""
    parts = registry.of(workflow)
    variant = parts.variant_docks if parts is not None else ()
    return f"perspectives/{workflow.name.lower()}" + "".join(
        f"-{k.removesuffix('_scores')}" for k in docks if k in variant
    )


class Perspectives:
    """Shows the main window in one workflow's perspective (see the module doc).

    ``window`` has ``docks`` ({key: QDockWidget}), ``centers`` ({key:
    widget} in ``center_stack``), ``actions_by_name``, ``runs_panel``,
    ``settings`` and the 'Tools' and 'Annotators' toolbars."""

    def __init__(self, window: PerspectiveHost):
        self.window = window
        self.current: Perspective | None = None
        self._key: str | None = None  # where the shown layout is saved
        self._own: tuple[str, ...] = ()  # the docks shown

    def perspective(self) -> Perspective:
        """The perspective shown (the card one before any)."""
        return self.current or perspective_of(None)

    def docks_of(self, p: Perspective) -> tuple[str, ...]:
        """The docks ``p`` shows for the current item: all its docks, but of
        those its registration shows only for some items (``variant_docks``:
        a judged output's Failter table or rubric distribution) those the
        item shows (``item_docks``)."""
        parts = registry.of(p.workflow)
        if parts is None or not parts.variant_docks or parts.item_docks is None:
            return p.docks
        shown = parts.item_docks(self.window.session)
        return tuple(k for k in p.docks if k not in parts.variant_docks or k in shown)

    def save(self) -> None:
        """Remember the shown perspective's dock layout (review mode only)."""
        w = self.window
        if self._key is not None and w.mode == "review":
            w.settings.setValue(self._key, w.saveState())

    def show(self, workflow: AnyWorkflow | None, force: bool = False) -> bool:
        """Show ``workflow``'s perspective (cards for None); True when it
        changed. In adjudication mode only the centre and tools follow; the
        docks come back with review mode (``restore_docks``)."""
        target = perspective_of(workflow)
        changed = force or target is not self.current or self.docks_of(target) != self._own
        if changed:
            self._switch(target)
        return changed

    def _switch(self, target: Perspective) -> None:
        self.save()
        self.current = target
        w = self.window
        w.center_stack.setCurrentWidget(w.centers[target.center])
        self._tools(target)
        w.runs_panel.set_hidden_columns(() if target.card_columns else CARD_RUN_COLUMNS)
        if w.mode == "review":
            self.restore_docks()

    def restore_docks(self) -> None:
        """Put the shown perspective's docks up: its saved layout, else its
        defaults; docks of other workflows are hidden and left out of the
        View menu. In adjudication mode every dock stays hidden."""
        w = self.window
        p = self.perspective()
        own = self._own = self.docks_of(p)
        if w.mode != "review":  # adjudication shows no dock: nothing of a judge before a label-first commit
            for dock in w.docks.values():
                dock.hide()
            return
        for key, dock in w.docks.items():
            dock.toggleViewAction().setVisible(key in own)
            if key not in own:
                dock.hide()
        self._key = settings_key(p.workflow, own)
        saved = w.settings.value(self._key)
        if saved is None or not w.restoreState(saved):
            for key in own:
                if key in w.docks:
                    w.docks[key].show()
            self._defaults(p)
        for key, dock in w.docks.items():
            if key not in own:
                dock.hide()
        w.compact_legend.setVisible(w.mode == "review" and "findings" in own)
        self.hide_stale_tab_bars()

    def hide_stale_tab_bars(self) -> None:
        """Hide the window's dock tab bars whose docks are not shown
        together: Qt shows a tab bar made while the window was hidden when
        the window is shown, over whatever is there ('Unplaced cards' over
        a span item's list), even though its docks are hidden. A bar drawn
        over a shown dock is stale too (the bar of Unplaced cards | Legend,
        made before Piles and cards joined them, over the piles tree): Qt
        puts a group's bar beside its docks, and shows it again when it
        lays them out."""
        w = self.window
        shown = {d.windowTitle() for d in w.docks.values() if d.toggleViewAction().isChecked()}
        docked = [d.geometry() for d in w.docks.values() if d.isVisible() and not d.isFloating()]
        for bar in w.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if not bar.isVisible():
                continue
            titles = [bar.tabText(i) for i in range(bar.count())]
            over = bar.geometry().intersects(w.rect()) and any(bar.geometry().intersects(g) for g in docked)
            if sum(t in shown for t in titles) < 2 or over:
                bar.hide()

    def _defaults(self, p: Perspective) -> None:
        """DEFAULT_SIZES, scaled from 1600x1000 to the window's size."""
        w = self.window
        own = self.docks_of(p)
        sx, sy = min(1.0, w.width() / 1600), min(1.0, w.height() / 1000)
        for keys, sizes, orientation in p.sizes:
            docks = [w.docks[k] for k in keys if k in w.docks and k in own]
            if len(docks) == len(keys):
                scale = sx if orientation == Qt.Orientation.Horizontal else sy
                w.resizeDocks(docks, [round(size * scale) for size in sizes], orientation)

    def _tools(self, p: Perspective) -> None:
        """Card tools only for cards; finding keys only where there are
        findings, the number keys as many as the perspective's codes and
        named by them (a hidden action's key does nothing)."""
        w = self.window
        for name in CARD_ACTIONS:
            action = w.actions_by_name.get(name)
            if action is not None:
                action.setVisible(p.card_tools)
        codes = codes_for(p.workflow, None)
        for name in FINDING_ACTIONS:
            action = w.actions_by_name.get(name)
            if action is not None:
                action.setVisible(bool(codes))
        for n in range(1, 7):
            action = w.actions_by_name.get(f"code_{n}")
            if action is not None:
                action.setVisible(n <= len(codes))
                if n <= len(codes):
                    action.setText(f"Reclassify as {codes[n - 1].value}")
        bar = w.findChild(QToolBar, "Annotators")
        if bar is not None:
            bar.setVisible(p.card_tools and w.mode == "review")
