"""The adjudication mode of the real main window, driven with
keys offscreen, with the database, the audit table and the export checked
after each step."""

from __future__ import annotations

import sqlite3

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reviewer.core.judging.verdicts import DisputeKind, Method, Scale, Verdict
from reviewer.core.models import AnswerSchema, Item, Prompt
from reviewer.qt.app import build
from reviewer.qt.judging.common import DIFFER_MARK, differing, show_value
from reviewer.storage.export import export_project
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs

pytestmark = pytest.mark.gui

HTML = "<b>x</b>"


@pytest.fixture
def data(project):
    """Two text items: a reading scored by two rubric judges (5 vs 2 on
    tarot_coherence, scale 1-5) and a question answered twice, judged
    pairwise by judges A ('1') and B ('2')."""
    reading, _ = repo_items.upsert_item(project, Item(name="reading", kind="text", text="The Tower, <i>Death</i>"))
    question, _ = repo_items.upsert_item(project, Item(name="question", kind="text", text="Which answer is better?"))
    tarot, _ = repo_items.upsert_prompt(project, Prompt(name="tarot", text="Read the cards", schema=AnswerSchema.FREE))
    qa, _ = repo_items.upsert_prompt(project, Prompt(name="qa", text="Answer", schema=AnswerSchema.FREE))
    run, _ = repo_runs.add_run(project, reading, tarot, "m", "The Tower means sudden change.")
    a, _ = repo_runs.add_run(project, question, qa, "m1", "first answer")
    b, _ = repo_runs.add_run(project, question, qa, "m2", "second <b>answer</b>")
    for judge, score, rationale in (("judge-a", 5.0, HTML), ("judge-b", 2.0, "incoherent")):
        judging.add_verdict(
            project,
            Verdict(
                subject=f"run:{run}",
                run_id=run,
                judge=judge,
                method=Method.RUBRIC,
                scale=Scale.ORDINAL5,
                rationale=rationale,
                scores={"tarot_coherence": score, "clarity": 4.0},
            ),
        )
    for judge, winner in (("A", "1"), ("B", "2")):
        judging.add_verdict(
            project,
            Verdict(
                subject=f"pair:{a}:{b}",
                run_id=a,
                other_run_id=b,
                judge=judge,
                method=Method.PAIRWISE,
                scale=Scale.WINNER,
                answer_order="ab",
                scores={"winner": winner},
                rationale=f"{judge} decided",
            ),
        )
    judging.set_reference(project, question, "the reference answer", "gold-ref")
    judging.set_subject_metrics(project, f"run:{run}", {"wordCount": 120}, "test")
    return {"db": project.path, "run": run, "pair": f"pair:{a}:{b}", "rubric": f"run:{run}"}


@pytest.fixture
def window(qtbot, data, tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    w = build(data["db"], ask_name=False, mode="review")
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    yield w


def stored(window):
    """{(subject, dimension): adjudication} read through a second connection."""
    p = open_project(window.session.project.path)
    try:
        return {(a.subject, a.dimension): a for a in judging.adjudications(p)}
    finally:
        p.close()


def audit_rows(window):
    p = open_project(window.session.project.path)
    try:
        return p.db.execute("SELECT action, actor FROM audit WHERE table_name = 'adjudications' ORDER BY id").fetchall()
    finally:
        p.close()


def press(qtbot, window, key, modifier=Qt.NoModifier):
    """A key as the user types it, to whatever has the focus."""
    target = QApplication.focusWidget() or window.adjudication.queue.view
    qtbot.keyClick(target, key, modifier)


def test_differing_marks_the_odd_values():
    assert differing([5.0, 2.0]) == [True, True]
    assert differing([2.0, 2.0, 1.0]) == [False, False, True]
    assert differing(["1", "1"]) == [False, False]
    assert differing([5.0, None]) == [False, True]
    assert show_value(100.0, Scale.GRADE) == "A (100)" and show_value(3.0) == "3"


def test_adjudicate_with_keys_undo_redo_and_export(qtbot, window, data, tmp_path):
    s, view = window.session, window.adjudication
    assert window.mode == "review"
    assert not window.actions_by_name["confirm"].isVisible()  # a pairwise subject has no findings to confirm
    qtbot.keyClick(window, Qt.Key_F3)
    assert window.mode == "adjudication" and window.modes.currentWidget() is view
    assert not window.actions_by_name["confirm"].isEnabled()
    assert not window.actions_by_name["code_1"].isEnabled()
    assert window.actions_by_name["undo"].isEnabled() is False  # nothing done yet, but not a review action
    qtbot.waitUntil(lambda: view.queue.view.hasFocus())

    # the queue: most severe first (the pair's flip 1.0, then 5 vs 2 = 0.75)
    disputes = s.disputes()
    assert [(d.kind, d.subject) for d in disputes] == [
        (DisputeKind.JUDGES, data["pair"]),
        (DisputeKind.JUDGES, data["rubric"]),
    ]
    assert view.queue.ordered_ids() == [d.id for d in disputes]
    assert s.current_dispute_id == disputes[0].id
    assert "adjudicated 0 / 2" in view.queue.progress.text()
    # the pair: both outputs side by side, the reference, both judges
    screen = view.screen
    assert [b.text.toPlainText() for b in screen.output_boxes] == ["first answer", "second <b>answer</b>"]
    assert screen.reference_box.isVisible() and "the reference answer" in screen.reference_box.text.toPlainText()
    assert [c.name for c in screen.columns.cards] == ["A", "B"]
    assert screen.columns.differing_cards() == [0, 1]  # '1' vs '2': both marked

    # J: the rubric dispute; its input, metrics and judges side by side
    press(qtbot, window, Qt.Key_J)
    rubric = disputes[1]
    assert s.current_dispute_id == rubric.id
    assert screen.input_box.text.toPlainText() == "The Tower, <i>Death</i>"
    assert "wordCount: 120" in screen.metrics_box.text.toPlainText()
    assert screen.dims == ["tarot_coherence", "clarity"]
    cards = screen.columns.cards
    assert cards[0].rationale.toPlainText() == HTML  # judge text literally
    assert cards[0].value_labels["tarot_coherence"].text() == f"{DIFFER_MARK} 5"
    assert cards[0].value_labels["clarity"].text() == "4"  # not the current dimension, equal anyway
    assert cards[0].highlighted and not cards[1].highlighted
    press(qtbot, window, Qt.Key_Right)  # frame judge-b
    assert cards[1].highlighted and view.controller.judge_index == 1

    # 3: the score; saved at once with reviewer and dispute; on to the next undecided (the pair)
    press(qtbot, window, Qt.Key_3)
    a = stored(window)[(data["rubric"], "tarot_coherence")]
    assert (a.value, a.reviewer, a.sided_with, a.dispute_id, a.rationale) == (3.0, "ann", None, rubric.id, "")
    assert audit_rows(window) == [("put", "ann")]
    assert s.current_dispute_id == disputes[0].id
    assert "adjudicated 1 / 2 disputes (ann 1)" in view.queue.progress.text()

    # R, a typed rationale, Enter: amends that decision (one undo step)
    press(qtbot, window, Qt.Key_R)
    bar = view.bar
    assert bar.rationale.isVisible() and bar.rationale.hasFocus()
    assert bar.rationale_label.text().startswith("Rationale for your last decision")
    qtbot.keyClick(bar.rationale, Qt.Key_Tab)  # Tab in the rationale: for the next decision instead
    assert bar.rationale_label.text().startswith("Rationale for the next decision")
    assert view.controller.dimension() == "winner"  # Tab did not move the dimension
    qtbot.keyClick(bar.rationale, Qt.Key_Tab)  # and back
    assert bar.rationale_label.text().startswith("Rationale for your last decision")
    qtbot.keyClicks(bar.rationale, HTML)
    assert bar.rationale.text() == HTML  # digits/letters typed went into the edit, not to the keys
    qtbot.keyClick(bar.rationale, Qt.Key_Return)
    a = stored(window)[(data["rubric"], "tarot_coherence")]
    assert (a.value, a.rationale) == (3.0, HTML)
    assert [r[0] for r in audit_rows(window)] == ["put", "delete", "put"]
    assert s.stack.history() == ["adjudicate tarot_coherence"]
    assert not bar.rationale.isVisible() and view.queue.view.hasFocus()
    # the typed rationale shows literally when the rubric dispute is back
    press(qtbot, window, Qt.Key_J)
    assert s.current_dispute_id == rubric.id
    assert bar.status.textFormat() == Qt.PlainText and HTML in bar.status.text()
    press(qtbot, window, Qt.Key_K)
    assert s.current_dispute_id == disputes[0].id

    # the pair: T (tie); every dispute is adjudicated now
    press(qtbot, window, Qt.Key_T)
    p = stored(window)[(data["pair"], "winner")]
    assert (p.value, p.sided_with, p.dispute_id) == ("tie", None, disputes[0].id)
    assert "adjudicated 2 / 2" in view.queue.progress.text()
    # Ctrl+Z undoes it (the window's action), Ctrl+Shift+Z redoes it
    press(qtbot, window, Qt.Key_Z, Qt.ControlModifier)
    assert (data["pair"], "winner") not in stored(window)
    assert "adjudicated 1 / 2" in view.queue.progress.text()
    assert audit_rows(window)[-1] == ("delete", "ann")
    press(qtbot, window, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert stored(window)[(data["pair"], "winner")].value == "tie"
    # Enter on the framed judge: B's '2' becomes final, sided with B (replaces the tie)
    s.set_dispute(disputes[0].id)
    press(qtbot, window, Qt.Key_BracketRight)
    press(qtbot, window, Qt.Key_Return)
    p = stored(window)[(data["pair"], "winner")]
    assert (p.value, p.sided_with, p.reviewer) == ("2", "B", "ann")
    press(qtbot, window, Qt.Key_Z, Qt.ControlModifier)
    assert stored(window)[(data["pair"], "winner")].value == "tie"  # undo gives the tie back
    press(qtbot, window, Qt.Key_2)
    assert stored(window)[(data["pair"], "winner")].value == "2"

    # the export carries the adjudications
    out = tmp_path / "export.db"
    export_project(s.project, out)
    con = sqlite3.connect(out)
    rows = con.execute(
        "SELECT subject, dimension, value, rationale, reviewer, sided_with, dispute_id "
        "FROM adjudications ORDER BY subject"
    ).fetchall()
    con.close()
    assert rows == [
        (data["pair"], "winner", "2", "", "ann", None, disputes[0].id),
        (data["rubric"], "tarot_coherence", "3", HTML, "ann", None, rubric.id),
    ]

    # back to review: the review actions are enabled again (a pairwise subject shows no finding keys)
    qtbot.keyClick(window, Qt.Key_F2)
    assert window.mode == "review" and window.actions_by_name["search"].isEnabled()


def test_rationale_before_deciding_and_tab_between_dimensions(qtbot, window, data):
    s, view = window.session, window.adjudication
    window.set_mode("adjudication")
    qtbot.waitUntil(lambda: view.queue.view.hasFocus())
    rubric = next(d for d in s.disputes() if d.subject == data["rubric"])
    s.set_dispute(rubric.id)
    # typing a letter that is no key opens the rationale with it
    press(qtbot, window, Qt.Key_W)
    bar = view.bar
    assert bar.rationale.isVisible() and bar.rationale.text() == "w"
    assert bar.rationale_label.text().startswith("Rationale for the next decision")
    qtbot.keyClicks(bar.rationale, "eak reading")
    qtbot.keyClick(bar.rationale, Qt.Key_Return)
    assert view.controller.pending_rationale == "weak reading" and bar.pending.isVisible()
    assert stored(window) == {}
    # Tab: the next dimension (clarity); 4 decides it with the held rationale
    press(qtbot, window, Qt.Key_Tab)
    assert view.controller.dimension() == "clarity"
    assert view.screen.columns.cards[0].dim_labels["clarity"].font().bold()
    press(qtbot, window, Qt.Key_4)
    a = stored(window)[(data["rubric"], "clarity")]
    assert (a.value, a.rationale, a.dispute_id) == (4.0, "weak reading", None)  # no dispute on clarity
    assert view.controller.pending_rationale == ""
    # the dispute itself is still open, so it stays current, back on its dimension
    assert s.current_dispute_id == rubric.id and view.controller.dimension() == "tarot_coherence"
    # Escape closes an open rationale without saving anything
    press(qtbot, window, Qt.Key_R)
    qtbot.keyClicks(bar.rationale, "never mind")
    qtbot.keyClick(bar.rationale, Qt.Key_Escape)
    assert not bar.rationale.isVisible() and view.controller.pending_rationale == ""
    # filters: judge-a's disputes only
    queue = view.queue
    queue.judge_combo.setCurrentText("judge-a")
    assert queue.ordered_ids() == [rubric.id]
    queue.judge_combo.setCurrentText("(all)")
    queue.kind_combo.setCurrentText("judges disagree")
    assert len(queue.ordered_ids()) == 2


def test_calibration_panel_and_save_chart(qtbot, window, data, tmp_path):
    s, view = window.session, window.adjudication
    window.set_mode("adjudication")
    view.tabs.setCurrentWidget(view.calibration)
    panel = view.calibration
    qtbot.waitUntil(lambda: not panel.stale)
    assert [panel.dist_combo.itemText(i) for i in range(panel.dist_combo.count())] == [
        "judge-a · clarity",
        "judge-a · tarot_coherence",
        "judge-b · clarity",
        "judge-b · tarot_coherence",
    ]
    series = panel.chart.series()[0]
    sets = series.barSets()
    assert [b.color().name() for b in sets] == ["#0072b2", "#e69f00"]
    assert [sets[1].at(i) for i in range(5)] == pytest.approx([5, 10, 35, 40, 10])
    assert panel.warning.textFormat() == Qt.PlainText
    assert panel.agreement.rowCount() > 0
    assert {panel.agreement.item(r, 0).text() for r in range(panel.agreement.rowCount())} >= {
        "judge-a vs judge-b",
        "A vs B",
    }
    assert panel.matrix.rowCount() == 0  # nothing adjudicated yet
    # adjudicating updates the shown panel: a confusion matrix against the adjudicated value
    rubric = next(d for d in s.disputes() if d.subject == data["rubric"])
    s.set_dispute(rubric.id)
    view.controller.decide(3.0)
    assert panel.conf_combo.count() > 0
    assert "vs adjudicated" in panel.conf_combo.currentText()
    assert panel.matrix.rowCount() == 5
    png = tmp_path / "chart.png"
    assert panel.save_chart(png) and png.read_bytes()[:4] == b"\x89PNG"


def test_grade_and_percent_scales_and_shift_tab(qtbot, project, tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    item, _ = repo_items.upsert_item(project, Item(name="essay", kind="text", text="an essay"))
    prompt, _ = repo_items.upsert_prompt(project, Prompt(name="grade", text="Grade it", schema=AnswerSchema.FREE))
    run, _ = repo_runs.add_run(project, item, prompt, "m", "answer")
    for judge, grade, percent in (("g1", "A", 90.0), ("g2", "D", 30.0)):
        judging.add_verdict(
            project,
            Verdict(
                subject=f"run:{run}",
                run_id=run,
                judge=judge,
                scale=Scale.GRADE,
                scores={"grade": 100.0 if grade == "A" else 40.0},
            ),
        )
        judging.add_verdict(
            project,
            Verdict(
                subject=f"run:{run}", run_id=run, judge=judge + "-pct", scale=Scale.PERCENT, scores={"percent": percent}
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
    assert sorted(d.dimension for d in s.disputes()) == ["grade", "percent"]
    s.set_dispute(next(d.id for d in s.disputes() if d.dimension == "grade"))
    assert view.screen.columns.cards[0].value_labels["grade"].text() == f"{DIFFER_MARK} A (100)"
    press(qtbot, w, Qt.Key_B)  # B = 80 points
    assert stored(w)[(f"run:{run}", "grade")].value == 80.0
    s.set_dispute(next(d.id for d in s.disputes() if d.dimension == "percent"))
    assert view.controller.dimension() == "percent"
    press(qtbot, w, Qt.Key_Backtab, Qt.ShiftModifier)  # Shift+Tab: previous dimension (wraps)
    assert view.controller.dimension() == "grade"
    press(qtbot, w, Qt.Key_Tab)
    assert view.controller.dimension() == "percent"
    press(qtbot, w, Qt.Key_6)  # opens the inline value edit with '6'
    assert view.bar.value.isVisible() and view.bar.value.hasFocus()
    qtbot.keyClicks(view.bar.value, "5")
    qtbot.keyClick(view.bar.value, Qt.Key_Return)
    assert stored(w)[(f"run:{run}", "percent")].value == 65.0
    assert "adjudicated 2 / 2" in view.queue.progress.text()


def test_a_project_of_judge_verdicts_opens_in_adjudication(qtbot, data):
    w = build(data["db"], ask_name=False)  # text items and disputes, no photo
    qtbot.addWidget(w)
    assert w.mode == "adjudication"


def test_undo_brings_the_view_to_the_undone_dispute(qtbot, window, data):
    s, view = window.session, window.adjudication
    qtbot.keyClick(window, Qt.Key_F3)
    qtbot.waitUntil(lambda: view.queue.view.hasFocus())
    rubric = next(d for d in s.disputes() if d.subject == data["rubric"])
    press(qtbot, window, Qt.Key_J)
    assert s.current_dispute_id == rubric.id
    press(qtbot, window, Qt.Key_Tab)  # the second dimension, clarity
    press(qtbot, window, Qt.Key_4)
    assert (data["rubric"], "clarity") in stored(window)
    press(qtbot, window, Qt.Key_J)  # away from it
    assert s.current_dispute_id != rubric.id
    press(qtbot, window, Qt.Key_Z, Qt.ControlModifier)
    assert (data["rubric"], "clarity") not in stored(window)
    assert s.current_dispute_id == rubric.id  # shown again, on the dimension undone
    assert view.controller.dimension() == "clarity"
    press(qtbot, window, Qt.Key_J)
    press(qtbot, window, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)  # redo shows it too
    assert s.current_dispute_id == rubric.id and (data["rubric"], "clarity") in stored(window)


def test_blind_mode_hides_model_names_of_a_pair(qtbot, window, data, tmp_path):
    s, screen = window.session, window.adjudication.screen
    qtbot.keyClick(window, Qt.Key_F3)
    pair = next(d for d in s.disputes() if d.subject == data["pair"])
    s.set_dispute(pair.id)
    titles = lambda: " ".join(b.title.text() for b in screen.output_boxes)  # noqa: E731
    assert "m1" in titles() and "m2" in titles()
    press(qtbot, window, Qt.Key_B, Qt.ControlModifier)  # blind mode on
    assert window.actions_by_name["blind"].isChecked()
    assert "m1" not in titles() and "m2" not in titles() and "hidden" in titles()
    assert [b.text.toPlainText() for b in screen.output_boxes] == ["first answer", "second <b>answer</b>"]
    window.close()  # remembered
    w2 = build(data["db"], ask_name=False, mode="adjudication")
    qtbot.addWidget(w2)
    w2.session.set_dispute(pair.id)
    assert w2.actions_by_name["blind"].isChecked() and "m1" not in " ".join(
        b.title.text() for b in w2.adjudication.screen.output_boxes
    )
    w2.actions_by_name["blind"].trigger()
    assert "m1" in " ".join(b.title.text() for b in w2.adjudication.screen.output_boxes)


def test_search_filters_the_dispute_queue(qtbot, window, data):
    s, queue = window.session, window.adjudication.queue
    qtbot.keyClick(window, Qt.Key_F3)
    assert len(queue.ordered_ids()) == 2
    press(qtbot, window, Qt.Key_F, Qt.ControlModifier)
    assert window.search_box.hasFocus()
    qtbot.keyClicks(window.search_box, "reading")  # the item of the rubric dispute
    assert [d.subject for d in s.disputes() if d.id in queue.ordered_ids()] == [data["rubric"]]
    assert "1 shown" in queue.progress.text()
    window.search_box.clear()
    qtbot.keyClicks(window.search_box, "pair:")  # a subject
    assert [d.subject for d in s.disputes() if d.id in queue.ordered_ids()] == [data["pair"]]
    qtbot.keyClick(window.search_box, Qt.Key_Escape)
    assert len(queue.ordered_ids()) == 2 and view_has_focus(window)


def view_has_focus(window):
    return window.adjudication.queue.view.hasFocus()
