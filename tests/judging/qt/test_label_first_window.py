"""The window's label-first page (reviewer.qt.judging.label_first, label_keys;
reviewer.storage.judging.label_plan): before the first label is committed no
judge verdict, rationale, score, judge or model name is in any visible text of
the window; Enter commits the first label and the verdicts appear; K keeps,
C changes; both values are stored with their times and exported; the page
shows the label budget and the progress in one count and lists the queue in
the fair order `reviewer label` walks; a decision in the dispute
queue is stored as a human label of the 'dispute' queue."""

from __future__ import annotations

import sqlite3

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from reviewer.core.commands import UndoStack
from reviewer.core.judging.label_first import DISPUTE, LABEL_FIRST, stored_winner
from reviewer.core.judging.verdicts import Method, Scale, Verdict
from reviewer.core.label_commands import CommitFirstLabel, SetFinalValue
from reviewer.core.models import AnswerSchema, Item, Prompt
from reviewer.qt.app import build
from reviewer.storage.export import export_project
from reviewer.storage.judging import labels
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.label_budget import alignment_budget
from reviewer.storage.judging.validation import project_alignments
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs

pytestmark = pytest.mark.gui

D = "quality"
JUDGE, OTHER = "judge-alpha", "judge-beta"
#: Texts that must not be visible before the first label: names, models,
#: rationales and the judges' values (chosen so no count can spell them).
SECRETS = [
    "judge-alpha",
    "judge-beta",
    "model-zeta",
    "model-omega",
    "the-model",  # the model whose outputs are judged
    "RATIONALE-SECRET",
    "81.25",
    "38.75",
    "61.5",
]


@pytest.fixture
def data(project):
    """24 text runs judged on 0-100 by judge-alpha (81.25 pass or 38.75
    fail, a stated confidence) and judge-beta (61.5 where it disagrees);
    eight subjects already labelled first by bob (so the budget can be
    sized), and one pair judged pairwise."""
    prompt, _ = repo_items.upsert_prompt(project, Prompt(name="p", text="Write", schema=AnswerSchema.FREE))
    subjects = []
    for i in range(1, 25):
        item, _ = repo_items.upsert_item(project, Item(name=f"item-{i}", kind="text", text=f"the text of item {i}"))
        run, _ = repo_runs.add_run(project, item, prompt, "the-model", f"the output of run {i}")
        subject = f"run:{run}"
        subjects.append(subject)
        alpha = 81.25 if i % 3 else 38.75
        judging.add_verdict(
            project,
            Verdict(
                subject=subject,
                run_id=run,
                judge=JUDGE,
                judge_model="model-zeta-9",
                prompt_version="v1",
                scale=Scale.PERCENT,
                scores={D: alpha},
                rationale=f"RATIONALE-SECRET {i}",
                confidences={"stated": {D: round(0.5 + (i % 7) / 20, 3)}},
            ),
        )
        judging.add_verdict(
            project,
            Verdict(
                subject=subject,
                run_id=run,
                judge=OTHER,
                judge_model="model-omega-2",
                scale=Scale.PERCENT,
                scores={D: 61.5 if i % 4 == 0 else alpha},
                rationale=f"RATIONALE-SECRET beta {i}",
            ),
        )
    labels.refresh_queue(project, JUDGE, D)
    store, stack = labels.LabelStore(project, "bob"), UndoStack()
    for n, subject in enumerate(subjects[:8]):  # bob's fair labels: some agree, some do not
        value = 80.0 if n % 3 else 30.0
        stack.push(CommitFirstLabel(subject, D, value, "bob", judge=JUDGE, rubric_version="v1"), store)
        stack.push(SetFinalValue(subject, D, "bob"), store)
    q, _ = repo_items.upsert_item(project, Item(name="question", kind="text", text="Which is better?"))
    a, _ = repo_runs.add_run(project, q, prompt, "m1", "answer one")
    b, _ = repo_runs.add_run(project, q, prompt, "m2", "answer two")
    judging.add_verdict(
        project,
        Verdict(
            subject=f"pair:{a}:{b}",
            run_id=a,
            other_run_id=b,
            judge="pair-judge",
            judge_model="model-zeta-9",
            method=Method.PAIRWISE,
            scale=Scale.WINNER,
            answer_order="ab",
            scores={"winner": "1"},
            rationale="RATIONALE-SECRET pair",
        ),
    )
    return {"db": project.path, "subjects": subjects, "pair": f"pair:{a}:{b}", "outputs": ("answer one", "answer two")}


@pytest.fixture
def window(qtbot, data, tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    w = build(data["db"], ask_name=False, mode="adjudication")
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    yield w


def press(qtbot, key, modifier=Qt.NoModifier):
    target = QApplication.focusWidget()
    assert target is not None
    qtbot.keyClick(target, key, modifier)


def model_texts(model, parent) -> list[str]:
    """DisplayRole and ToolTipRole data of every cell under ``parent``, depth first."""
    try:
        columns = model.columnCount(parent)
    except TypeError:  # a list model's columnCount is private in the binding
        columns = 1
    out = []
    for r in range(model.rowCount(parent)):
        for c in range(columns):
            for role in (Qt.DisplayRole, Qt.ToolTipRole):
                value = model.data(model.index(r, c, parent), role)
                if value is not None:
                    out.append(str(value))
        out += model_texts(model, model.index(r, 0, parent))
    return out


def visible_texts(window) -> list[str]:
    """Every text a person can see in the window: labels, text boxes, line
    edits, buttons, combo items, tooltips, every visible item view's
    DisplayRole and ToolTipRole data, the title and the status bar."""
    out = [window.windowTitle()]
    for w in window.findChildren(QWidget):
        if not w.isVisible():
            continue
        out.append(w.toolTip())
        if isinstance(w, QLabel):
            out.append(w.text())
        elif isinstance(w, (QPlainTextEdit, QTextEdit)):
            out.append(w.toPlainText())
        elif isinstance(w, QLineEdit):
            out += [w.text(), w.placeholderText()]
        elif isinstance(w, QAbstractButton):
            out.append(w.text())
        elif isinstance(w, QComboBox):
            out += [w.itemText(n) for n in range(w.count())]
        if isinstance(w, QAbstractItemView) and w.model() is not None:
            out += model_texts(w.model(), w.rootIndex())
    out += [w.text() for w in window.statusBar().findChildren(QLabel) if w.isVisible()]
    return [t for t in out if t]


def leaks(window) -> list[str]:
    text = "\n".join(visible_texts(window))
    return [s for s in SECRETS if s in text]


def stored_labels(path, reviewer="ann", queue=LABEL_FIRST):
    p = open_project(path)
    try:
        return {x.subject: x for x in labels.labels(p, queue) if x.reviewer == reviewer}
    finally:
        p.close()


def open_page(qtbot, window):
    view = window.adjudication
    view.controller.decide(70.0)  # a dispute decided first: the status bar names the judge sided with ...
    window.show_message("sided with judge-alpha")  # ... or says so; the page must replace it
    window.docks["runs"].show()  # a dock opened by hand (the runs name their models)
    assert {"judge-alpha", "judge-beta"} <= set(leaks(window))  # the walk sees the dispute screen's texts
    press(qtbot, Qt.Key_F4)
    assert view.labelling_shown()
    assert not window.docks["runs"].isVisible()
    page = view.label_page
    if page.judge() != JUDGE:
        page.judge_combo.setCurrentIndex(page.judge_combo.findData(JUDGE))
    qtbot.waitUntil(lambda: page.plan is not None and page.plan.dimension == D)
    page.list.setFocus()
    qtbot.waitUntil(lambda: page.list.hasFocus())
    return page


def test_nothing_of_the_judge_is_visible_before_the_first_label(qtbot, window, data):
    page = open_page(qtbot, window)
    controller = window.adjudication.labelling
    subject = controller.subject
    assert subject in data["subjects"] and controller.phase() == "first"
    assert f"the output of run {subject.split(':')[1]}" in page.output_boxes[0].text.toPlainText()
    assert page.judge_combo.currentText().startswith("Judge ")
    assert leaks(window) == []
    # a value typed but not committed shows nothing either
    press(qtbot, Qt.Key_7)
    assert page.value.isVisible() and page.value.hasFocus()
    qtbot.keyClicks(page.value, "5")
    assert leaks(window) == []
    assert stored_labels(data["db"]) == {}
    press(qtbot, Qt.Key_Return)  # Enter commits the first label
    got = stored_labels(data["db"])[subject]
    assert got.first_value == 75.0 and got.first_at is not None and got.final_value is None
    assert (got.judge, got.rubric_version, got.queue) == (JUDGE, "v1", LABEL_FIRST)
    # now the verdicts, rationales, names and models are shown
    shown = "\n".join(visible_texts(window))
    assert page.verdicts.isVisible()
    for text in ("judge-alpha", "judge-beta", "model-zeta-9", "model-omega-2", "RATIONALE-SECRET"):
        assert text in shown
    assert "Your first label: 75" in page.verdicts.toPlainText()
    # C changes the final value: a value, then Enter
    press(qtbot, Qt.Key_C)
    press(qtbot, Qt.Key_5)
    qtbot.keyClicks(page.value, "0")
    qtbot.keyClick(page.value, Qt.Key_Return)
    got = stored_labels(data["db"])[subject]
    assert (got.first_value, got.final_value) == (75.0, 50.0) and got.final_at >= got.first_at
    # the next subject: nothing of its judges is shown; K keeps its first label
    second = controller.subject
    assert second != subject and controller.phase() == "first" and not page.verdicts.isVisible()
    assert leaks(window) == []
    page.list.setFocus()
    press(qtbot, Qt.Key_9)
    qtbot.keyClick(page.value, Qt.Key_0)
    qtbot.keyClick(page.value, Qt.Key_Return)
    assert controller.phase() == "reveal"
    press(qtbot, Qt.Key_K)
    got = stored_labels(data["db"])[second]
    assert (got.first_value, got.final_value) == (90.0, 90.0)
    assert "Progress: 2 of the budget's " in page.progress.text()
    # Ctrl+Z undoes the keep: the verdicts of that subject are shown again, no final value
    window.session.undo()
    assert controller.subject == second and controller.phase() == "reveal"
    assert stored_labels(data["db"])[second].final_value is None
    # the export has both values with their times
    out = data["db"].parent / "export.db"
    export_project(window.session.project, out)
    con = sqlite3.connect(out)
    rows = con.execute(
        "SELECT subject, queue, first_value, final_value, first_at, final_at FROM human_labels WHERE reviewer = 'ann'"
    ).fetchall()
    con.close()
    by_subject = {r[0]: r for r in rows}
    assert by_subject[subject][1:4] == (LABEL_FIRST, "75", "50") and all(by_subject[subject][4:])
    # the dispute decided before is a human label of the dispute queue, kept apart
    disputes = stored_labels(data["db"], queue=DISPUTE)
    assert len(disputes) == 1 and next(iter(disputes.values())).final_value == 70.0
    assert any(r[1] == DISPUTE for r in rows)


def test_window_lists_the_command_lines_fair_order_with_the_budget_in_one_count(qtbot, window, data):
    page = open_page(qtbot, window)
    plan = page.plan
    p = open_project(data["db"])
    try:
        a = next(a for a in project_alignments(p, n_resamples=100).items if (a.judge, a.dimension) == (JUDGE, D))
        budgets = alignment_budget(a)
        further = max(b.further for b in budgets.values() if b.further is not None)
        fair = [e.subject for e in labels.next_entries(p, JUDGE, D, "ann")]  # what `reviewer label` walks
    finally:
        p.close()
    assert plan.further == further and further > 0
    assert plan.order == fair  # the same seeded stratified random order, nothing moved by disagreement
    listed = [page.list.item(n).text().split(". ", 1)[1] for n in range(page.list.count())]
    assert listed == fair
    assert "Label budget" in page.budget.text() and f"{further} more labels in all" in page.budget.text()
    assert page.progress.text().startswith(f"Progress: 0 of the budget's {further} more labels")
    assert "fair queue: 0 of 24 labelled by ann" in page.progress.text()
    assert window.adjudication.labelling.subject == fair[0]
    # S skips; F4 goes back to the disputes, whose keys work again
    press(qtbot, Qt.Key_S)
    assert window.adjudication.labelling.subject == fair[1]
    press(qtbot, Qt.Key_F4)
    assert not window.adjudication.labelling_shown()
    assert all(s.isEnabled() for s in window.adjudication.shortcuts.values())
    assert not any(s.isEnabled() for s in window.adjudication.label_shortcuts.values())


def test_pairwise_label_in_the_shown_order(qtbot, window, data):
    page = open_page(qtbot, window)
    page.judge_combo.setCurrentIndex(page.judge_combo.findData("pair-judge"))
    qtbot.waitUntil(lambda: page.plan is not None and page.plan.judge == "pair-judge")
    controller = window.adjudication.labelling
    assert controller.subject == data["pair"]
    order = controller.order()
    shown = [box.text.toPlainText() for box in page.output_boxes]
    assert shown == (list(data["outputs"]) if order == "ab" else list(reversed(data["outputs"])))
    assert [box.title.text() for box in page.output_boxes] == ["Output A", "Output B"]
    assert leaks(window) == []
    page.list.setFocus()
    press(qtbot, Qt.Key_A)  # the output shown first
    press(qtbot, Qt.Key_Return)
    got = stored_labels(data["db"])[data["pair"]]
    assert got.first_value == stored_winner("1", order) and got.answer_order == order
    # the judge saw the original order (ab) and chose its first: in the letters shown
    letter = "A" if order == "ab" else "B"
    assert f"pair-judge (model model-zeta-9): saw {letter} first: chose {letter}" in page.verdicts.toPlainText()
    assert f"rationale: [in the order this judge saw: {letter} first] RATIONALE-SECRET pair" in (
        page.verdicts.toPlainText()
    )
    assert "Your first label: A" in page.verdicts.toPlainText()


def test_grade_keys_c_is_a_grade_before_the_commit_and_change_after(qtbot, project, tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    prompt, _ = repo_items.upsert_prompt(project, Prompt(name="p", text="Write", schema=AnswerSchema.FREE))
    for i in range(1, 4):
        item, _ = repo_items.upsert_item(project, Item(name=f"essay-{i}", kind="text", text=f"essay {i}"))
        run, _ = repo_runs.add_run(project, item, prompt, "m", f"answer {i}")
        judging.add_verdict(
            project,
            Verdict(subject=f"run:{run}", run_id=run, judge="grader", scale=Scale.GRADE, scores={"grade": 100.0}),
        )
    w = build(project.path, ask_name=False, mode="adjudication")
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    view = w.adjudication
    view.show_labels(True)
    page, controller = view.label_page, view.labelling
    qtbot.waitUntil(lambda: page.plan is not None and page.list.hasFocus())
    assert "cannot be sized yet" in page.budget.text() and page.list.count() == 3  # no labels: the whole queue
    first = controller.subject
    press(qtbot, Qt.Key_C)  # a grade before the commit
    assert controller.pending == 60.0 and stored_labels(project.path) == {}
    assert "A (100)" not in "\n".join(visible_texts(w))
    press(qtbot, Qt.Key_Return)
    assert controller.phase() == "reveal" and "grader (model -): A (100)" in page.verdicts.toPlainText()
    press(qtbot, Qt.Key_C)  # now C changes ...
    press(qtbot, Qt.Key_B)  # ... to B
    press(qtbot, Qt.Key_Return)
    got = stored_labels(project.path)[first]
    assert (got.first_value, got.final_value) == (60.0, 80.0)
    assert controller.subject != first and controller.phase() == "first"


def test_a_dispute_decision_is_a_dispute_queue_label_undone_with_it(qtbot, window, data):
    s, view = window.session, window.adjudication
    subject = s.dispute().subject
    assert view.controller.decide(42.0)
    (got,) = stored_labels(data["db"], queue=DISPUTE).values()
    assert (got.subject, got.first_value, got.final_value, got.queue) == (subject, 42.0, 42.0, DISPUTE)
    assert stored_labels(data["db"]) == {}  # nothing in the label-first queue (the fair sample)
    assert got.rubric_version == "v1"  # judge-alpha's rubric version
    view.controller.begin_rationale()  # amend the decision with a rationale (after the view moved on)
    view.controller.rationale_given("the summary is fair")
    assert next(a for a in s.adjudications() if a.subject == subject).rationale == "the summary is fair"
    again = stored_labels(data["db"], queue=DISPUTE)[subject]
    assert (again.final_value, again.rubric_version) == (42.0, "v1")
    s.undo()  # one undo step: the adjudication and its label
    assert stored_labels(data["db"], queue=DISPUTE) == {}
    assert all(a.subject != subject for a in s.adjudications())
    s.redo()
    assert stored_labels(data["db"], queue=DISPUTE)[subject].final_value == 42.0


def test_a_first_label_stored_before_a_kill_opens_at_the_reveal(qtbot, data, tmp_path, monkeypatch):
    """A first label without its final value (the program was killed in
    between) is not labelled yet: the page shows that subject at the reveal
    step, with its first label and the verdicts, and K keeps it."""
    p = open_project(data["db"])
    try:
        entries = labels.refresh_queue(p, JUDGE, D)
        store = labels.LabelStore(p, "ann")
        for e in entries:
            CommitFirstLabel(e.subject, D, 60.0, "ann", queue=LABEL_FIRST, judge=JUDGE, rubric_version="v1").do(store)
        assert len(labels.next_entries(p, JUDGE, D, "ann")) == len(entries)  # none is labelled yet
    finally:
        p.close()
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("REVIEWER_NAME", "ann")
    w = build(data["db"], ask_name=False, mode="adjudication")
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    view = w.adjudication
    view.show_labels(True)
    page = view.label_page
    if page.judge() != JUDGE:
        page.judge_combo.setCurrentIndex(page.judge_combo.findData(JUDGE))
    qtbot.waitUntil(lambda: page.plan is not None and page.plan.dimension == D)
    page.list.setFocus()
    qtbot.waitUntil(lambda: page.list.hasFocus())
    controller = view.labelling
    subject = controller.subject
    assert subject is not None and controller.phase() == "reveal", (page.plan, controller.subject)
    assert page.verdicts.isVisible() and "Your first label: 60" in page.verdicts.toPlainText()
    press(qtbot, Qt.Key_K)
    got = stored_labels(data["db"])[subject]
    assert (got.first_value, got.final_value) == (60.0, 60.0)
    assert controller.subject != subject and controller.phase() == "reveal"
