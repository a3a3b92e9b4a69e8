"""A workflow beyond the five, registered only in tests
(tests/helpers/toy_workflow), is shown in its own perspective: its centre,
its score dock, its keys on the '?' sheet; the five's docks are hidden."""

from __future__ import annotations

import json

from reviewer.storage.project.db import open_project
from reviewer.storage.importers import import_source
from reviewer.storage.scoring import score_project
from tests.helpers import toy_workflow
from tests.helpers.window import open_window
from tests.storage.test_workflow_registry import RIDDLES_FILE


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
