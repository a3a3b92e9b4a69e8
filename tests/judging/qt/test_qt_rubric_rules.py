"""A rubric rule's dispute on a flag (safety_flag) in the adjudication mode:
each judge's flag shown as its value, decided with T / F."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.core.models import AnswerSchema, Item, Prompt
from reviewer.qt.app import build
from reviewer.qt.judging.common import DIFFER_MARK
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs

pytestmark = pytest.mark.gui


def test_safety_flag_dispute_is_decided_with_t_and_f(qtbot, project, tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    item, _ = repo_items.upsert_item(project, Item(name="twin-coherence-invented", kind="text", text="Question: x"))
    prompt, _ = repo_items.upsert_prompt(project, Prompt(name="tarot-reading", text="Read", schema=AnswerSchema.FREE))
    run, _ = repo_runs.add_run(project, item, prompt, "m", "The Lovers guide you.")
    subject = f"run:{run}"
    judging.set_subject_metrics(project, subject, {"hallucinatedCards": ["The Lovers"]}, "test")
    for judge, flag in (("lenient", False), ("strict", True)):
        judging.add_verdict(
            project,
            Verdict(
                subject=subject,
                run_id=run,
                judge=judge,
                method=Method.RUBRIC,
                scale=Scale.ORDINAL5,
                scores={"tarot_coherence": 1.0},
                flags={"safety_flag": flag},
            ),
        )
    w = build(project.path, ask_name=False, mode="adjudication")
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    view, s = w.adjudication, w.session
    qtbot.waitUntil(lambda: view.queue.view.hasFocus())
    [d] = s.disputes()
    assert (d.kind.value, d.dimension) == ("judge-vs-metrics", "safety_flag")
    assert "[hallucinated-cards]" in d.detail and d.detail.startswith("lenient broke 1 rule")
    s.set_dispute(d.id)
    cards = view.screen.columns.cards
    assert view.screen.dims[0] == "safety_flag"
    assert [c.value_labels["safety_flag"].text() for c in cards] == [f"{DIFFER_MARK} false", f"{DIFFER_MARK} true"]
    qtbot.keyClick(QApplication.focusWidget() or view.queue.view, Qt.Key_T)
    p = open_project(project.path)
    try:
        [a] = judging.adjudications(p)
    finally:
        p.close()
    assert (a.subject, a.dimension, a.value, a.dispute_id) == (subject, "safety_flag", "true", d.id)
