"""The dockable panels over a real Session on the sample project (offscreen)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QTextCharFormat

from reviewer.core.commands import AddCard, DecideFindings
from reviewer.core.models import BoxConvention, Status
from reviewer.qt.panels import IdRole, plain_tooltip
from reviewer.qt.panels.findings import FindingsPanel
from reviewer.qt.panels.items import ItemsPanel
from reviewer.qt.panels.legend import LegendPanel
from reviewer.qt.panels.output import OutputPanel, doc_pos, pretty_json
from reviewer.qt.panels.runs import RunsPanel
from reviewer.qt.panels.scores import ScoresPanel
from reviewer.qt.panels.shortcuts import SHORTCUTS, ShortcutsDialog
from reviewer.qt.panels.unplaced import UnplacedPanel
from reviewer.qt.session import Session
from tests.helpers.paths import SAMPLES

HTML_OUTPUT = 'Here: <b>bold</b>\n```json\n{"cards": [{"text": "To pray"}]}\n```'


@pytest.fixture
def session(qtbot, tmp_path):
    s = Session("tester")
    errors: list[str] = []
    s.error.connect(errors.append)
    assert s.open(tmp_path / "p.db", create=True)
    assert s.import_source(SAMPLES, model="m") is not None
    lines = tmp_path / "html.jsonl"
    lines.write_text(
        json.dumps(
            {
                "item": "table-01",
                "prompt": "html-test",
                "model": "m2",
                "repetition": 1,
                "output": HTML_OUTPUT,
                "prompt_text": 'List the cards as JSON: {"cards": [{"text": "..."}]}',
            }
        )
        + "\n"
    )
    assert s.import_source(lines) is not None
    yield s
    assert not errors
    s.close()


def run_of(session, item, prompt, rep=1, model="m"):
    return session.scored_run(
        next(
            x.id for x in session.run_lines() if (x.item, x.prompt, x.repetition, x.model) == (item, prompt, rep, model)
        )
    )


def test_items_list_selects_and_follows(qtbot, session):
    panel = ItemsPanel(session)
    qtbot.addWidget(panel)
    assert panel.proxy.rowCount() == 2
    text = panel.proxy.index(0, 0).data()
    assert text.startswith("table-01\nGT 10 cards · ") and "runs reviewed" in text
    second = panel.proxy.index(1, 0)
    panel.view.setCurrentIndex(second)
    assert session.item_id == second.data(IdRole)
    session.set_item(panel.proxy.index(0, 0).data(IdRole))
    assert panel.view.currentIndex().row() == 0
    session.set_search("02")  # the window's search box
    assert panel.proxy.rowCount() == 1
    session.set_search("human touch")  # a ground-truth card text: only table-01 has it
    assert [panel.proxy.index(r, 0).data(IdRole) for r in range(panel.proxy.rowCount())] == [
        panel.model.rows[0].item.id
    ]
    session.set_search("illustrative nothing")  # every word must match
    assert panel.proxy.rowCount() == 0
    session.set_search("")
    panel.filter_combo.setCurrentIndex(1)  # needs ground truth: both have it
    assert panel.proxy.rowCount() == 0
    panel.filter_combo.setCurrentIndex(2)  # needs review
    assert panel.proxy.rowCount() == 2
    # thumbnails are read off the GUI thread and arrive as icons
    panel.filter_combo.setCurrentIndex(0)
    for row in range(2):
        panel.proxy.index(row, 0).data(Qt.DecorationRole)
    qtbot.waitUntil(lambda: not panel.model.thumbs.reading(), timeout=5000)
    icon = panel.proxy.index(0, 0).data(Qt.DecorationRole)
    assert icon is not panel.model.thumbs.placeholder and not icon.isNull()


def test_items_missing_image_gets_warning_icon(qtbot, session, tmp_path):
    panel = ItemsPanel(session)
    qtbot.addWidget(panel)
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not a jpeg")
    thumbs = panel.model.thumbs
    for path in (bad, tmp_path / "missing.jpg"):
        thumbs.forget(path)
        thumbs.read_now(path)
        qtbot.waitUntil(lambda p=path: thumbs.cached(p), timeout=3000)
        assert thumbs.is_broken(path)


def test_runs_table_sorts_numerically_and_selects(qtbot, session):
    panel = RunsPanel(session)
    qtbot.addWidget(panel)
    session.set_item(run_of(session, "table-01", "bounding-boxes").run["item_id"])
    rows = panel.proxy.rowCount()
    assert rows == len(session.runs()) == 8
    panel.view.sortByColumn(3, Qt.AscendingOrder)  # text accuracy
    values = [panel.proxy.index(r, 3).data(IdRole + 1) for r in range(rows)]
    assert values == sorted(values)
    texts = [panel.proxy.index(r, 3).data() for r in range(rows) if panel.proxy.index(r, 3).data() != "-"]
    assert [int(t[:-1]) for t in texts] == sorted(int(t[:-1]) for t in texts)  # '100%' after '70%'
    assert texts[0] == "10%" and texts[-1] == "100%"
    panel.view.sortByColumn(2, Qt.DescendingOrder)
    assert panel.proxy.index(0, 2).data() == "3"
    truncated = run_of(session, "table-01", "bounding-boxes", 3)
    index = panel.row_of(truncated.run["id"])
    assert index.sibling(index.row(), 6).data() == "repaired"
    panel.view.selectionModel().setCurrentIndex(index, QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows)
    assert session.run_id == truncated.run["id"]
    # follows the session and keeps the selection over findingsChanged
    other = run_of(session, "table-01", "spatial-grouping", 2)
    session.set_run(other.run["id"])
    assert panel.view.currentIndex().data(IdRole) == other.run["id"]
    session.execute(DecideFindings([other.findings[0].id], Status.CONFIRMED, "tester"))
    current = panel.view.currentIndex()
    assert current.data(IdRole) == other.run["id"]
    assert current.sibling(current.row(), 7).data() == f"1/{len(other.findings)}"
    session.set_search("spatial")  # the window's search box (Ctrl+F)
    assert panel.proxy.rowCount() == 3
    session.set_search("ocean")  # a card text: the run that read the hallucinated card
    assert [panel.proxy.index(r, 0).data() for r in range(panel.proxy.rowCount())] == ["spatial-grouping"]
    session.set_search("")
    assert panel.proxy.rowCount() == 8


def test_output_is_plain_text_and_marks_the_json(qtbot, session):
    panel = OutputPanel(session)
    qtbot.addWidget(panel)
    html = run_of(session, "table-01", "html-test", model="m2")
    session.set_run(html.run["id"])
    assert "<b>bold</b>" in panel.raw_view.toPlainText()
    assert '"To pray"' in panel.json_view.toPlainText()
    selections = panel.raw_view.extraSelections()
    span = selections[0].cursor
    assert (span.selectionStart(), span.selectionEnd()) == tuple(html.facts.span)
    assert panel.error_label.isHidden()


def test_output_truncated_run_shows_error_and_underline(qtbot, session):
    panel = OutputPanel(session)
    qtbot.addWidget(panel)
    run = run_of(session, "table-01", "bounding-boxes", 3)
    assert run.facts.parse_error and run.facts.error_offset is not None
    session.set_run(run.run["id"])
    assert not panel.error_label.isHidden()
    assert run.facts.parse_error in panel.error_label.text()
    assert panel.error_label.textFormat() == Qt.PlainText
    waves = [s for s in panel.raw_view.extraSelections() if s.format.underlineStyle() == QTextCharFormat.WaveUnderline]
    assert len(waves) == 1
    assert waves[0].cursor.selectionStart() == run.facts.error_offset
    assert panel.raw_view.textCursor().position() == run.facts.error_offset
    # salvaged JSON that does not parse is shown as the raw span
    assert panel.json_view.toPlainText() == pretty_json(run.run["output"], run.facts.span)


def test_doc_pos_counts_like_qt():
    raw = "a\r\nb😀c"
    assert doc_pos(raw, raw.index("c")) == 5  # CR LF is one break, the emoji two units
    assert doc_pos(raw, 0) == 0 and doc_pos(raw, 99) == 6


def test_convention_combo_calls_set_convention(qtbot, session):
    panel = OutputPanel(session)
    qtbot.addWidget(panel)
    session.set_run(run_of(session, "table-01", "bounding-boxes", 2).run["id"])
    assert panel.convention_combo.isEnabled()
    assert panel.convention_combo.itemText(0) == "detected (0-1000)"
    with qtbot.waitSignal(session.conventionChanged):
        panel.convention_combo.setCurrentIndex(3)
    assert session.convention_override == BoxConvention.PIXELS
    panel.convention_combo.setCurrentIndex(0)
    assert session.convention_override is None
    session.set_convention(BoxConvention.UNIT)
    assert panel.convention_combo.currentIndex() == 1


def test_findings_selection_syncs_both_ways(qtbot, session):
    panel = FindingsPanel(session)
    qtbot.addWidget(panel)
    run = run_of(session, "table-01", "spatial-grouping", 2)
    session.set_run(run.run["id"])
    ids = [f.id for f in run.findings]
    assert len(ids) == 3
    assert panel.current_ids() == [ids[0]]  # the session selects the first
    assert "left → left" in panel.piles_label.text()
    # view -> session
    sm = panel.view.selectionModel()
    with qtbot.waitSignal(session.findingSelectionChanged):
        sm.select(panel.model.index(2, 0), QItemSelectionModel.Select | QItemSelectionModel.Rows)
    assert session.selected_findings == [ids[0], ids[2]]
    # session -> view, without echoing back
    calls = []
    session.findingSelectionChanged.connect(lambda: calls.append(1))
    session.select_findings([ids[1]])
    assert panel.current_ids() == [ids[1]] and len(calls) == 1
    # reclassify + reject: shown, selection kept over the refresh
    from reviewer.core.models import Code

    session.execute(DecideFindings([ids[0]], Status.CONFIRMED, "tester", final_code=Code.SPATIAL))
    session.execute(DecideFindings([ids[1]], Status.REJECTED, "tester", reason="<i>fine</i>"))
    assert panel.model.index(0, 0).data() == "OCR→SPATIAL"
    assert panel.model.index(1, 1).data() == "rejected"
    assert panel.model.index(1, 0).data(Qt.FontRole).strikeOut()
    assert "&lt;i&gt;fine&lt;/i&gt;" in panel.model.index(1, 4).data(Qt.ToolTipRole)
    assert panel.current_ids() == [ids[1]] == session.selected_findings
    # letters are review keys for the main window, not type-to-search
    from PySide6.QtTest import QTest

    QTest.keyClick(panel.view, Qt.Key_S)
    assert panel.current_ids() == [ids[1]] == session.selected_findings


def test_scores_panel_shows_verdict_words(qtbot, session):
    panel = ScoresPanel(session)
    qtbot.addWidget(panel)
    model = panel.model
    words = {model.index(r, c).data() for r in range(model.rowCount()) for c in (8, 9)}
    assert words <= {"pass", "ambiguous", "fail", "unscored", "-"}
    assert {"pass", "ambiguous", "fail"} & words
    items = {model.index(r, 1).data() for r in range(model.rowCount())}
    assert "all" in items and "*" not in items
    assert model.index(0, 8).data(Qt.BackgroundRole) is not None
    before = model.rowCount()
    run = run_of(session, "table-02", "bounding-boxes", 2)
    session.execute(DecideFindings([f.id for f in run.findings], Status.REJECTED, "tester"))
    qtbot.waitUntil(lambda: panel.model.rowCount() == before and not panel._timer.isActive())
    row = next(
        r
        for r in range(model.rowCount())
        if model.index(r, 0).data().split(" (")[0] == "bounding-boxes" and model.index(r, 1).data() == "table-02"
    )
    assert model.index(row, 3).data() != model.index(row, 4).data()  # reviewed text accuracy moved


def test_unplaced_cards_select_and_arm_the_card_tool(qtbot, session):
    panel = UnplacedPanel(session)
    qtbot.addWidget(panel)
    assert panel.card_ids() == []
    session.execute(AddCard(session.item_id, "To be with my dog", "left"))
    assert len(panel.card_ids()) == 1
    panel.view.setCurrentIndex(panel.model.index(0, 0))
    assert session.selected_cards == panel.card_ids() and session.tool == "card"
    assert not panel.hint.isHidden() and "draw its box on the photo" in panel.hint.text()


def test_legend_and_shortcuts(qtbot, session):
    legend = LegendPanel(session)
    qtbot.addWidget(legend)
    compact = LegendPanel(session, compact=True)
    qtbot.addWidget(compact)
    dialog = ShortcutsDialog()
    qtbot.addWidget(dialog)
    assert not dialog.isModal()
    assert dialog.table.rowCount() == len(SHORTCUTS)
    keys = {k for k, _ in SHORTCUTS}
    assert {"F", "Ctrl+Z", "Y", "N", "1-6", "Shift+J", "?"} <= keys
    assert plain_tooltip("<b>x</b>").count("&lt;b&gt;") == 1


def test_legend_follows_the_taxonomy_of_the_run(qtbot, tmp_path):
    import json as _json

    from reviewer.core.models import SpanCode
    from reviewer.qt.panels.legend import LegendPanel
    from reviewer.qt.session import Session

    src = tmp_path / "spans.jsonl"
    src.write_text(
        _json.dumps({"item": "prompt-1", "prompt": "span-labeling", "model": "m", "repetition": 1, "output": "{}"})
        + "\n"
    )
    s = Session("tester")
    assert s.open(tmp_path / "p.db", create=True)
    s.import_source(SAMPLES, model="m")
    s.import_source(src)
    legend = LegendPanel(s, compact=True)
    qtbot.addWidget(legend)
    legend.show()
    card_run = next(x for x in s.run_lines() if x.prompt == "spatial-grouping")
    s.set_run(card_run.id)
    visible = [order for order, w in legend.tables.items() if w.isVisible()]
    assert len(visible) == 1 and visible[0][0].value == "OCR"
    span_run = next(x for x in s.run_lines() if x.prompt == "span-labeling")
    s.set_run(span_run.id)
    visible = [order for order, w in legend.tables.items() if w.isVisible()]
    assert visible == [tuple(SpanCode)]
    s.close()
