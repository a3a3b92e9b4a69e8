"""A workflow beyond the five, registered only in tests
(tests/helpers/toy_workflow), is shown in its own perspective: its centre,
its score dock, its keys on the '?' sheet; the five's docks are hidden."""

from __future__ import annotations

import json

import pytest

from reviewer.storage.importers import import_source
from reviewer.storage.project.db import open_project
from reviewer.storage.scoring import score_project
from tests.helpers import toy_workflow
from tests.helpers.riddles import RIDDLES_FILE
from tests.helpers.window import open_window


def test_a_registered_workflow_is_shown_in_its_perspective(qtbot, tmp_path):
    source = tmp_path / "set.riddles.json"
    source.write_text(json.dumps(RIDDLES_FILE))
    db = tmp_path / "p.db"
    with toy_workflow.registered(window=True):
        p = open_project(db, create=True)
        import_source(p, source)
        score_project(p)
        p.close()
        w = open_window(qtbot, db, wait_canvas=False)
        qtbot.waitUntil(lambda: w.session.item() is not None, timeout=10_000)
        assert w.perspectives.perspective().workflow.value == "riddles"
        center = w.center_stack.currentWidget()
        assert center.objectName() == "RiddleView"
        qtbot.waitUntil(lambda: center.text() == w.session.item().text, timeout=5_000)
        score = w.docks["riddles_scores"]
        assert score.windowTitle() == "Riddle scores" and score.isVisible()
        qtbot.waitUntil(lambda: "m: 1 of 2 right" in score.widget().widget().text(), timeout=5_000)
        assert not w.docks["scores"].isVisible() and not w.docks["findings"].isVisible()
        assert ("G", "Say the guess is right") in w._shortcut_rows()
        # The shared panels ask the registration: the items list its line, the output panel its text.
        model = w.items_panel.model
        lines = [model.data(model.index(row, 0)).split("\n")[-1] for row in range(model.rowCount())]
        assert lines and all(line.startswith("riddle · ") for line in lines)
        w.session.set_run(w.session.runs()[0].run["id"])
        qtbot.waitUntil(lambda: w.output_panel.raw_view.toPlainText().startswith("guess: a "), timeout=5_000)
        w.close()


def test_the_five_centres_and_score_panels_come_from_their_registrations(card_window):
    """The window makes each registration's centre (one for the judged
    output and pairwise, which name the same) and score panels, in
    registration order; a registration's several score docks (the Failter
    table and the rubric distribution) are tabbed in one place."""
    from PySide6.QtWidgets import QMainWindow, QWidget

    from reviewer.qt import registry
    from reviewer.qt.canvas.view import CanvasView
    from reviewer.qt.docks import add_docks
    from reviewer.qt.spans.pane import SpanPane

    w = card_window
    keys = list(dict.fromkeys(p.center_key for p in registry.registered() if p.center is not None))
    assert list(w.centers) == keys and keys[:4] == ["canvas", "spans", "case", "judged"]
    assert [w.center_stack.widget(i) for i in range(w.center_stack.count())] == list(w.centers.values())
    assert type(w.centers["judged"]).__name__ == "JudgedView" and type(w.centers["case"]).__name__ == "CaseView"
    assert isinstance(w.canvas, CanvasView) and isinstance(w.span_pane, SpanPane)
    assert w.canvas.annotators is w.annotators and w.canvas.offer_texts is not None
    with pytest.raises(TypeError, match="not a SpanPane"):
        w.center("canvas", SpanPane)
    scores = [d.key for p in registry.registered() for d in p.score_docks]
    assert list(w.score_panels) == scores
    assert scores == ["scores", "span_scores", "case_scores", "failter_scores", "rubric_scores", "pairwise_scores"]
    for key, panel in w.score_panels.items():
        assert w.docks[key].widget().widget() is panel  # each in a scrolling dock
    assert w.docks["failter_scores"].objectName() == "Failter scores"  # the saved layouts' names
    bare = QMainWindow()
    docks = add_docks(bare, {key: QWidget() for key in ("runs", "scores", "failter_scores", "rubric_scores")})
    assert docks["rubric_scores"] in bare.tabifiedDockWidgets(docks["failter_scores"])
    assert not bare.tabifiedDockWidgets(docks["scores"])  # one workflow's docks only
