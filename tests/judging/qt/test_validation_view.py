"""The adjudication mode's validation view (reviewer.qt.judging.validation):
the figures it shows equal the command line's, the dangerous cells open
their subject with a key, the computation runs off the GUI thread and
stale results are dropped, and the reliability diagram has a point per
non-empty bin and the diagonal."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

pytest.importorskip("pytestqt")

from click.testing import CliRunner
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from reviewer.cli import main
from reviewer.core.judging.verdicts import DisputeKind, Method, Scale, Verdict
from reviewer.core.models import AnswerSchema, Item, Prompt
from reviewer.qt.app import build
from reviewer.qt.judging.validation import AGREEMENT_COLUMNS, ValueRole
from reviewer.qt.session import validation_worker
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.calibration_report import calibration_rows
from reviewer.storage.judging.validation import project_alignments
from reviewer.storage.project.db import open_project
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs

pytestmark = pytest.mark.gui

LABELLED, UNLABELLED = 120, 20


@pytest.fixture
def db(tmp_path):
    """A pass/fail judge ('judge', logprob confidences; right with
    probability sqrt(confidence)) and a second judge ('other') on LABELLED
    runs with a gold label, and the first judge alone on UNLABELLED runs."""
    rng = np.random.default_rng(7)
    p = open_project(tmp_path / "v.db", create=True)
    prompt, _ = repo_items.upsert_prompt(p, Prompt(name="qa", text="Answer", schema=AnswerSchema.FREE))
    for i in range(LABELLED + UNLABELLED):
        item, _ = repo_items.upsert_item(p, Item(name=f"q{i}", kind="text", text=f"question {i}"))
        run, _ = repo_runs.add_run(p, item, prompt, "m", f"answer {i}")
        conf = float(np.round(rng.uniform(0.3, 1.0), 3))
        human = str(rng.choice(["pass", "fail"]))
        right = rng.uniform() < np.sqrt(conf)
        value = human if right else ("fail" if human == "pass" else "pass")
        common = dict(subject=f"run:{run}", run_id=run, method=Method.RUBRIC, scale=Scale.PASS_FAIL)
        judging.add_verdict(
            p, Verdict(judge="judge", scores={"ok": value}, confidences={"logprob": {"ok": conf}}, **common)
        )
        if i < LABELLED:
            other = human if rng.uniform() < 0.8 else ("fail" if human == "pass" else "pass")
            judging.add_verdict(p, Verdict(judge="other", scores={"ok": other}, rationale="other says", **common))
            judging.add_verdict(p, Verdict(**{**common, "method": Method.HUMAN}, judge="gold", scores={"ok": human}))
    p.close()
    return tmp_path / "v.db"


@pytest.fixture
def window(qtbot, db, tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path / "config"))
    w = build(db, ask_name=False, mode="adjudication")
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    qtbot.waitExposed(w)
    yield w
    w.adjudication.validation.worker.wait()


def shown(qtbot, window):
    """Show the validation view and wait for its figures."""
    view = window.adjudication
    view.tabs.setCurrentWidget(view.validation)
    qtbot.waitUntil(lambda: view.validation.figures is not None, timeout=60_000)
    return view.validation


def test_intervals_equal_the_command_lines(qtbot, window, db, tmp_path):
    panel = shown(qtbot, window)
    assert not panel.figures.error
    copy = tmp_path / "copy.db"
    copy.write_bytes(db.read_bytes())
    out = CliRunner().invoke(main, ["agreement", str(copy), "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)["agreement"]
    model = panel.agreement
    assert model.rowCount() == len(rows) > 0
    col = {name: i for i, name in enumerate(AGREEMENT_COLUMNS)}
    shown_rows = {}
    for r in range(model.rowCount()):
        cell = lambda name, r=r: model.item(r, col[name])  # noqa: E731
        key = (cell("raters").text(), cell("dimension").text(), cell("statistic").text())
        shown_rows[key] = {
            "value": cell("value").data(ValueRole),
            "ci_low": cell("ci low").data(ValueRole),
            "ci_high": cell("ci high").data(ValueRole),
            "ci_method": cell("method").text(),
            "prevalence": cell("prevalence").text(),
            "strength": cell("strength").text(),
            "text": (cell("ci low").text(), cell("ci high").text()),
        }
    kappas = 0
    for row in rows:
        s = shown_rows[(row["raters"], row["dimension"], row["statistic"])]
        for key in ("value", "ci_low", "ci_high"):
            assert s[key] == pytest.approx(row[key], abs=1e-12) if row[key] is not None else s[key] is None
        assert s["ci_method"] == row["ci_method"]
        if row["ci_low"] is not None:
            assert s["text"] == (f"{row['ci_low']:.3f}", f"{row['ci_high']:.3f}")
            assert row["ci_method"] in ("BCa", "percentile", "Wilson", "Clopper-Pearson")
        assert s["prevalence"] == "; ".join(f"{k} {v:.2f}" for k, v in row["prevalence"].items())
        if row["statistic"].startswith("cohen_kappa") and row["value"] is not None:
            kappas += 1
            assert s["strength"] in ("poor", "slight", "fair", "moderate", "substantial", "almost perfect")
    assert kappas
    # the alignment's figures per split are the CLI's, and the corrected pass rate line too
    out = CliRunner().invoke(main, ["alignment", str(copy), "--json"])
    data = {(a["judge"], a["dimension"]): a for a in json.loads(out.output)["alignments"]}
    view = panel.alignment
    view.combo.setCurrentIndex(view.combo.findText("judge · ok"))
    a = data[("judge", "ok")]
    assert view.splits.rowCount() == len(a["splits"])
    all_row = [view.splits.item(0, c).text() for c in range(view.splits.columnCount())]
    k = a["splits"][0]["kappa"]
    assert all_row[0] == "all" and all_row[1] == str(a["splits"][0]["n"])
    assert all_row[2] == f"{k['value']:.3f} [{k['ci_low']:.3f}, {k['ci_high']:.3f}] {k['ci_method']}"
    tpr = a["splits"][0]["tpr"]
    assert all_row[5] == f"{tpr['value']:.3f} [{tpr['ci_low']:.3f}, {tpr['ci_high']:.3f}] {tpr['ci_method']}"
    rate = a["corrected_pass_rate"]
    assert f"observed {rate['observed']:.3f} on {UNLABELLED} unlabelled" in view.corrected.text()
    assert view.matrix.rowCount() == 2 and view.classes.rowCount() == 2
    # the label budget and the progress towards it, as the CLI gives them
    budget = a["label_budget"]
    text = CliRunner().invoke(main, ["alignment", str(copy)]).output
    (line,) = [x for x in text.splitlines() if x.startswith("judge / ok: kappa")]
    assert view.budget_line.text() == f"Label budget: {line}"
    assert budget["further"] is not None and view.progress.isVisibleTo(view)
    assert (view.progress.value(), view.progress.maximum()) == (LABELLED, LABELLED + budget["further"])


def test_dangerous_cells_are_listed_and_a_key_opens_the_subject(qtbot, window, db):
    panel = shown(qtbot, window)
    view = window.adjudication
    p = open_project(db, read_only=True)
    try:
        validation = project_alignments(p)
    finally:
        p.close()
    a, _ = validation.find("judge", "ok")
    dangerous = [d.subject for d in a.splits[0].dangerous]
    assert dangerous
    view.tabs.setCurrentIndex(0)
    view.focus_queue()
    qtbot.keyClick(view.queue.view, Qt.Key_D, Qt.ShiftModifier)  # Shift+D: the dangerous list
    danger = panel.alignment.danger
    assert view.tabs.currentWidget() is panel and panel.tabs.currentWidget() is panel.alignment
    assert panel.alignment.combo.currentText() == "judge · ok"
    assert [danger.item(r, 0).text() for r in range(danger.rowCount())] == dangerous
    assert QApplication.focusWidget() is danger and danger.currentRow() == 0
    qtbot.keyClick(danger, Qt.Key_Down)
    qtbot.keyClick(danger, Qt.Key_Return)  # a judge-vs-human dispute: opened in the dispute screen
    subject = dangerous[1 if len(dangerous) > 1 else 0]
    dispute = window.session.dispute()
    assert dispute is not None and dispute.subject == subject and dispute.dimension == "ok"
    assert view.tabs.currentIndex() == 0
    assert window.session.adjudications() == []  # Enter opened, it did not decide
    # a dangerous subject without a dispute: its verdicts are shown
    window.session.project.db.execute("DELETE FROM disputes WHERE subject = ?", [dangerous[0]])
    window.session.set_dispute(None)
    qtbot.keyClick(view.queue.view, Qt.Key_D, Qt.ShiftModifier)
    danger.setCurrentCell(0, 0)
    qtbot.keyClick(danger, Qt.Key_Return)
    text = panel.verdicts.toPlainText()
    assert text.startswith(f"{dangerous[0]}: no dispute") and "judge (rubric): pass" in text
    assert "gold (human): fail" in text and window.session.dispute() is None


def test_the_work_runs_off_the_gui_thread_and_stale_results_are_dropped(qtbot, window, monkeypatch):
    real = validation_worker.agreement_with_intervals

    def slow(project, **kw):
        time.sleep(0.6)
        return real(project, **kw)

    monkeypatch.setattr(validation_worker, "agreement_with_intervals", slow)
    panel = window.adjudication.validation
    results = []
    panel.worker.done.connect(results.append)
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(20)
    window.adjudication.tabs.setCurrentWidget(panel)
    assert panel.status.text().startswith("computing…")
    panel.refresh()  # a second generation: the first one's result is dropped
    qtbot.waitUntil(lambda: bool(results), timeout=60_000)
    timer.stop()
    panel.worker.wait()
    qtbot.wait(50)
    assert len(results) == 1 and results[0] is panel.figures
    assert panel.figures.thread not in (0, threading.get_ident())
    assert len(ticks) >= 20  # the event loop kept running through >= 1.2 s of work
    assert max(np.diff(ticks)) < 0.5
    assert panel.status.text().startswith("computed in")
    # a new project (generation) drops what is being computed
    late = []
    panel.worker.done.connect(late.append)
    panel.worker.start(window.session.project)
    panel.worker.cancel()
    panel.worker.wait()
    qtbot.wait(50)
    assert late == []


def test_reliability_diagram_has_a_point_per_non_empty_bin_and_the_diagonal(qtbot, window, db):
    panel = shown(qtbot, window)
    rel = panel.reliability
    p = open_project(db, read_only=True)
    try:
        (row,) = calibration_rows(p)
    finally:
        p.close()
    assert rel.combo.currentText() == "judge · ok · logprob"
    filled = [b for b in row.calibration.bins if b.count]
    assert 3 <= len(filled) < len(row.calibration.bins)
    points = rel.points.points()
    assert [(round(q.x(), 9), round(q.y(), 9)) for q in points] == [
        (round(b.mean_confidence, 9), round(b.accuracy, 9)) for b in filled
    ]
    assert [(q.x(), q.y()) for q in rel.diagonal.points()] == [(0.0, 0.0), (1.0, 1.0)]
    assert rel.bins.rowCount() == len(filled)
    assert [int(rel.bins.item(r, 1).text()) for r in range(len(filled))] == [b.count for b in filled]
    assert f"ECE {row.calibration.ece:.3f}" in rel.figures.text()
    assert f"Brier {row.calibration.brier:.3f}" in rel.figures.text()


def test_low_confidence_verdicts_are_in_the_dispute_queue(window):
    kinds = {d.kind for d in window.session.disputes()}
    assert DisputeKind.LOW_CONFIDENCE in kinds
    queue = window.adjudication.queue
    assert queue.kind_combo.findText("low confidence") > 0


@pytest.fixture
def sliced(db):
    """The items of ``db`` get a metadata field 'subset': 'even' or 'odd' by their number."""
    from reviewer.storage.repo.item_metadata import add_item_metadata

    p = open_project(db)
    for item_id, name in p.db.execute("SELECT id, name FROM items").fetchall():
        add_item_metadata(p, item_id, {"subset": "even" if int(name[1:]) % 2 == 0 else "odd"})
    p.close()
    return db


def test_slice_and_comparison_equal_the_command_lines(qtbot, sliced, window, tmp_path):
    panel = shown(qtbot, window)
    assert not panel.figures.error
    fields = [panel.slice_field.itemText(i) for i in range(panel.slice_field.count())]
    assert "subset" in fields
    assert {panel.first_judge.itemText(i) for i in range(panel.first_judge.count())} >= {"judge", "other"}
    copy = tmp_path / "copy.db"
    copy.write_bytes(sliced.read_bytes())
    # a comparison over all subjects
    panel.choose(None, ("judge", "other"))
    qtbot.waitUntil(lambda: bool(panel.figures.comparisons) and not panel.worker.busy(), timeout=60_000)
    out = CliRunner().invoke(main, ["alignment", str(copy), "--compare", "judge,other", "--json"])
    assert out.exit_code == 0, out.output
    cli = json.loads(out.output)["comparisons"]
    assert [c.as_dict() for c in panel.figures.comparisons] == cli
    text = panel.compare_text.toPlainText()
    assert cli[0]["sentence"] in text and f"p = {cli[0]['mcnemar']['p']:.3g}" in text
    # the same comparison and the alignment on one slice
    panel.choose(("subset", "odd"), ("judge", "other"))
    qtbot.waitUntil(lambda: panel.figures.slice == ("subset", "odd") and not panel.worker.busy(), timeout=60_000)
    out = CliRunner().invoke(main, ["alignment", str(copy), "--compare", "judge,other", "--by", "subset", "--json"])
    odd = {s["slice"]: s for s in json.loads(out.output)["slices"]}["odd"]["comparisons"]
    shown_odd = [c.as_dict() for c in panel.figures.comparisons]
    assert shown_odd == odd and odd[0]["n"] == LABELLED // 2
    assert shown_odd != cli
    out = CliRunner().invoke(main, ["alignment", str(copy), "--by", "subset", "--json"])
    odd_alignment = {s["slice"]: s for s in json.loads(out.output)["slices"]}["odd"]
    a = {(x["judge"], x["dimension"]): x for x in odd_alignment["alignments"]}[("judge", "ok")]
    from reviewer.storage.judging.validation import alignment_json

    mine = {(x["judge"], x["dimension"]): x for x in alignment_json(panel.figures.validation)["alignments"]}
    assert mine[("judge", "ok")]["splits"] == a["splits"] and a["splits"][0]["n"] == LABELLED // 2
    assert "subset = odd" in panel.status.text()
