"""A test case (docs/test-cases.md) in the review window; rejecting a
fired warning by key raises the reviewed score beside the automatic one."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from reviewer.core.models import CaseCode, Status
from reviewer.qt.app import build
from reviewer.storage.importers import import_source
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import findings as repo_findings

pytestmark = pytest.mark.gui

CASE = {
    "id": "dam-1",
    "query": "What is the significance of the dam project?",
    "context": {"userId": "t"},
    "expectedBehavior": {"shouldCite": True, "citationCount": 3},
    "metadata": {"category": "citation", "difficulty": "hard", "description": "three citations"},
}
# two citations of three: one warning, citationAccuracy 1.0 - 0.2 = 0.8
ANSWER = (
    "The dam project drives the village's resistance [Episode: onikakushi, Chapter: 3, Speaker: Mion] "
    "and its significance returns [Episode: watanagashi, Chapter: 1, Speaker: Oishi]."
)


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    (tmp_path / "dam.json").write_text(json.dumps([CASE]))
    (tmp_path / "answers.jsonl").write_text(
        json.dumps({"item": "dam-1", "model": "m", "repetition": 1, "output": ANSWER}) + "\n"
    )
    db = tmp_path / "p.db"
    p = open_project(db, create=True)
    import_source(p, tmp_path / "dam.json")
    import_source(p, tmp_path / "answers.jsonl")
    p.close()
    w = build(db, ask_name=False, item="dam-1", prompt="dam")
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.canvas.loader.wait()


def score_cells(window, row):
    table = window.centers["case"].scores
    return [table.item(row, c).text() for c in range(3)]


def test_reject_a_fired_warning_by_key_and_the_reviewed_score_rises(qtbot, window):
    s, panel = window.session, window.centers["case"]
    assert s.run() is not None and s.run().run["item"] == "dam-1"
    assert panel.isEnabled() and panel.query.text() == CASE["query"]
    assert '"citationCount": 3' in panel.expected.toPlainText()
    assert panel.answer.toPlainText() == ANSWER  # plain text, as the model wrote it
    rows = {panel.scores.item(r, 0).text(): r for r in range(panel.scores.rowCount())}
    assert score_cells(window, rows["citationAccuracy"]) == ["citationAccuracy", "0.80", "0.80"]
    assert score_cells(window, rows["case score"])[1:] == ["0.80 pass", "0.80 pass"]
    count = next(f for f in s.run().findings if f.attrs.get("check") == "count")
    assert count.code == CaseCode.WARNING
    assert count.detail == "citationAccuracy/count: Expected at least 3 citations, found 2"
    s.select_findings([count.id])
    # the selected check's matches are highlighted (bold, underlined) in the answer
    bold = [sel for sel in panel.answer.extraSelections() if sel.format.fontWeight() == 700]
    assert [sel.cursor.selectedText() for sel in bold] == [
        "[Episode: onikakushi, Chapter: 3, Speaker: Mion]",
        "[Episode: watanagashi, Chapter: 1, Speaker: Oishi]",
    ]
    qtbot.keyClick(window.findings_panel.view, Qt.Key_N)  # reject
    p = open_project(s.project.path)
    try:
        assert repo_findings.finding(p, count.id).status == Status.REJECTED
    finally:
        p.close()
    rows = {panel.scores.item(r, 0).text(): r for r in range(panel.scores.rowCount())}
    assert score_cells(window, rows["citationAccuracy"]) == ["citationAccuracy", "0.80", "1.00"]
    assert score_cells(window, rows["case score"])[1:] == ["0.80 pass", "1.00 pass"]
    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier)  # undo: back to 0.80
    assert score_cells(window, rows["citationAccuracy"])[2] == "0.80"
    # reclassify the warning as an error with key 1 (ERROR): citationAccuracy 0.0, the case fails
    s.set_run(s.run().run["id"])
    s.select_findings([count.id])
    qtbot.keyClick(window.findings_panel.view, Qt.Key_1)
    assert score_cells(window, rows["case score"])[1:] == ["0.80 pass", "0.00 fail"]
