"""Spans in the window (docs/spans.md): the span pane on a text item (plain text, spans by
role, judge findings on their spans), hand labelling of golden spans by keys
with undo, the golden-set round trip, and scale (2,000 spans)."""

from __future__ import annotations

import json
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from reviewer.core.models import SpanCode, Status
from reviewer.core.spans.snapshots import CATEGORIES
from reviewer.storage.spans import spans as span_store
from tests.helpers.paths import shared
from tests.helpers.span_window import open_span_window

pytestmark = pytest.mark.gui


def _select(qtbot, view, start, end):
    """Put the cursor at ``start`` with Home and Right, then Shift+Right to ``end``."""
    view.setFocus()
    qtbot.keyClick(view, Qt.Key_Home, Qt.ControlModifier)
    for _ in range(start):
        qtbot.keyClick(view, Qt.Key_Right)
    for _ in range(end - start):
        qtbot.keyClick(view, Qt.Key_Right, Qt.ShiftModifier)


def _label(qtbot, pane, role):
    qtbot.keyClick(pane.view, Qt.Key_L)
    assert pane.role_bar.isVisible()
    qtbot.keyClicks(pane.role_bar.edit, role)
    qtbot.keyClick(pane.role_bar.edit, Qt.Key_Return)


def test_label_two_golden_spans_by_keys_undo_one_and_the_file_round_trips(qtbot, tmp_path, monkeypatch):
    source = shared("span-labeling") / "golden-set" / "core-prompts.json"
    w = open_span_window(qtbot, tmp_path, monkeypatch, [source], "core-001")
    pane, s = w.span_pane, w.session
    assert w.center_stack.currentWidget() is pane
    text = "A young painter in a worn apron stands before a canvas in a sunlit studio, carefully blending colors with a vibrant brush."
    assert pane.view.toPlainText() == text and len(pane.view.golden) == 6
    start = text.index("canvas")
    _select(qtbot, pane.view, start, start + len("canvas"))
    _label(qtbot, pane, "environment.cont")  # completion: environment.context
    start2 = text.index("colors")
    _select(qtbot, pane.view, start2, start2 + len("colors"))
    _label(qtbot, pane, "style.colorGrade")
    golden = span_store.golden_spans(s.project, s.item().id, text)
    assert [(g.text, g.role) for g in golden if g.text in ("canvas", "colors")] == [
        ("canvas", "environment.context"),
        ("colors", "style.colorGrade"),
    ]
    qtbot.keyClick(pane.view, Qt.Key_Z, Qt.ControlModifier)  # undo the second
    golden = span_store.golden_spans(s.project, s.item().id, text)
    assert len(golden) == 7 and not any(g.text == "colors" for g in golden)
    assert len(pane.view.golden) == 7
    out = tmp_path / "core-prompts.json"
    span_store.write_golden_set(s.project, "core-prompts", out)
    original = json.loads(source.read_text(encoding="utf-8"))
    original["prompts"][0]["groundTruth"]["spans"].append(
        {"text": "canvas", "start": start, "end": start + 6, "role": "environment.context"}
    )
    assert json.loads(out.read_text(encoding="utf-8")) == original
    # with the new span deleted (Delete at the cursor), the file is the original again, byte for byte
    _select(qtbot, pane.view, start + 1, start + 1)
    qtbot.keyClick(pane.view, Qt.Key_Delete)
    span_store.write_golden_set(s.project, "core-prompts", out)
    assert out.read_bytes() == source.read_bytes()


def test_drag_a_golden_span_end_is_one_undoable_command(qtbot, tmp_path, monkeypatch):
    source = shared("span-labeling") / "golden-set" / "core-prompts.json"
    w = open_span_window(qtbot, tmp_path, monkeypatch, [source], "core-001")
    pane, s = w.span_pane, w.session
    first = pane.view.golden[0]  # "young painter" 2-15
    pane.view.dragFinished.emit(first.id, "start", 8)
    g0 = span_store.golden_spans(s.project, s.item().id, pane.labelled)
    moved = next(g for g in g0 if g.id == first.id)
    assert (moved.start, moved.end, moved.text) == (8, 15, "painter")
    s.undo()
    back = next(g for g in span_store.golden_spans(s.project, s.item().id, pane.labelled) if g.id == first.id)
    assert (back.start, back.end, back.text) == (2, 15, "young painter")


def test_judge_findings_sit_on_their_spans_and_review_keys_work(qtbot, tmp_path, monkeypatch):
    baseline = shared("span-labeling") / "snapshots" / "baseline.json"
    w = open_span_window(qtbot, tmp_path, monkeypatch, [baseline], "KakMLx4S4PsgKXWDrL3P")
    pane, s = w.span_pane, w.session
    assert w.center_stack.currentWidget() is pane
    assert "\\n" not in pane.view.toPlainText() and pane.view.toPlainText().startswith("Medium Shot of a woman")
    assert len(pane.spans) == 32
    assert not w.output_panel.raw_view.toPlainText().lstrip().startswith("{")  # not raw JSON
    codes = {m.finding_id: m for m in pane.marks}
    run = s.run()
    taxonomy = next(f for f in run.findings if f.code == SpanCode.TAXONOMY)
    mark = codes[taxonomy.id]
    assert pane.view.toPlainText()[mark.start : mark.end] == "handheld tracking" and mark.span_index == 10
    missed = next(f for f in run.findings if f.code == SpanCode.MISSED and f.gt_card == "agility")
    assert pane.view.toPlainText()[codes[missed.id].start : codes[missed.id].end] == "agility"
    # J selects a finding; Y confirms it; the window's keys work with the text view focused
    pane.view.setFocus()
    qtbot.keyClick(pane.view, Qt.Key_J)
    assert s.selected_findings
    chosen = s.selected_findings[0]
    qtbot.keyClick(pane.view, Qt.Key_Y)
    assert next(f for f in s.run().findings if f.id == chosen).status == Status.CONFIRMED
    # A on the span at the cursor adds a finding on that span; 2 picks FALSE_POSITIVE
    start = pane.view.toPlainText().index("woman")
    _select(qtbot, pane.view, start + 1, start + 1)
    qtbot.keyClick(pane.view, Qt.Key_A)
    qtbot.keyClick(pane.view, Qt.Key_2)
    added = [f for f in s.run().findings if f.source.value == "human"]
    assert [(f.code, f.model_card, f.model_index) for f in added] == [(SpanCode.FALSE_POSITIVE, "woman", 1)]
    assert any(m.finding_id == added[0].id and m.span_index == 1 for m in pane.marks)


def test_two_thousand_spans_paint_without_lag(qtbot, tmp_path, monkeypatch):
    words = [f"word{i:04d}" for i in range(2000)]
    text = "".join(w + ("\n" if i % 20 == 19 else " ") for i, w in enumerate(words))  # 100 lines
    spans, pos = [], 0
    roles = ["shot.type", "subject.identity", "action.movement", "lighting.source", "camera.angle"]
    for i, wd in enumerate(words):
        spans.append({"text": wd, "role": roles[i % 5], "confidence": 0.9, "start": pos, "end": pos + len(wd)})
        pos += len(wd) + 1
    snap = {
        "judgeModel": "j",
        "timestamp": "t",
        "results": [
            {
                "promptId": "big",
                "input": "many",
                "output": text,
                "spans": spans,
                "spanCount": len(spans),
                "judgeResult": {
                    "scores": dict.fromkeys(("coverage", "precision", "granularity", "taxonomy", "technicalSpecs"), 4),
                    "totalScore": 20,
                    "missedElements": [],
                    "taxonomyErrors": [],
                    "granularityErrors": [],
                    "falsePositives": [
                        {"spanIndex": i, "text": words[i], "assignedRole": roles[i % 5], "reason": "other"}
                        for i in range(0, 2000, 10)
                    ],
                    "categoryScores": {},
                    "notes": "",
                },
            }
        ],
    }
    path = tmp_path / "big.json"
    path.write_text(json.dumps(snap))
    w = open_span_window(qtbot, tmp_path, monkeypatch, [path], "big")
    pane = w.span_pane
    assert len(pane.spans) == 2000 and len(pane.marks) == 200
    from reviewer.storage.repo import items as repo_items

    p = w.session.project
    with p.transaction():  # 2,000 golden spans on the same text, painted as lines
        p.db.conn.executemany(
            "INSERT INTO golden_spans (item_id, text_sha256, start, end, role, text, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, 'now')",
            [
                (w.session.item().id, repo_items.sha256_text(text), sp["start"], sp["end"], sp["role"], sp["text"])
                for sp in spans
            ],
        )
    t0 = time.perf_counter()
    pane.refresh()
    QApplication.processEvents()
    refresh_s = time.perf_counter() - t0
    bar = pane.view.verticalScrollBar()
    t0 = time.perf_counter()
    for step in range(20):
        bar.setValue(bar.maximum() * step // 19)
        pane.view.viewport().repaint()
    per_frame = (time.perf_counter() - t0) / 20
    assert len(pane.view.golden) == 2000
    print(f"refresh {refresh_s:.3f} s, {per_frame * 1000:.1f} ms per frame")
    assert w.height() <= 1000  # hundreds of findings do not stretch the window
    assert refresh_s < 1.0 and per_frame < 0.05, (refresh_s, per_frame)


def synthetic_snapshot(n: int = 500, spans_per_prompt: int = 30) -> dict:
    """A snapshot of ``n`` labelled prompts in the baseline's shape, with judge errors."""
    roles = [
        "shot.type",
        "subject.identity",
        "action.movement",
        "environment.location",
        "lighting.source",
        "camera.movement",
        "style.aesthetic",
        "technical.duration",
        "audio.ambient",
    ]
    results = []
    for k in range(n):
        words = [f"w{k}x{i}" for i in range(spans_per_prompt)]
        main = " ".join(words[:20])
        text = (
            f"{main}\n\n**TECHNICAL SPECS**\n- "
            + "\n- ".join(words[20:26])
            + "\n\n**ALTERNATIVE APPROACHES**\n- "
            + " ".join(words[26:])
        )
        spans = []
        for i, wd in enumerate(words):
            start = text.index(wd + (" " if i < 19 else ""), 0) if i < 20 else text.index(wd)
            spans.append(
                {
                    "text": wd,
                    "role": roles[i % 9],
                    "confidence": (i % 10) / 10 + 0.05,
                    "start": start,
                    "end": start + len(wd),
                }
            )
        results.append(
            {
                "promptId": f"p{k:03d}",
                "input": f"prompt {k}",
                "output": text,
                "spans": spans,
                "spanCount": len(spans),
                "error": None,
                "latencyMs": 1000 + k,
                "judgeResult": {
                    "scores": {
                        "coverage": 4,
                        "precision": 4,
                        "granularity": 5,
                        "taxonomy": 4,
                        "technicalSpecs": 3 + k % 3,
                    },
                    "totalScore": 20 + k % 3,
                    "missedElements": [
                        {
                            "text": "mist",
                            "expectedRole": "environment.weather",
                            "category": "environment",
                            "severity": "minor",
                        }
                    ],
                    "falsePositives": [{"spanIndex": 3, "text": words[3], "assignedRole": roles[3], "reason": "other"}],
                    "taxonomyErrors": [
                        {"spanIndex": 5, "text": words[5], "assignedRole": roles[5], "expectedRole": "action.movement"}
                    ],
                    "granularityErrors": [
                        {"spanIndex": 7, "text": words[7], "issue": "too_fine", "suggestion": "merge"}
                    ],
                    "categoryScores": {c: {"coverage": 3 + k % 2, "precision": 4} for c in CATEGORIES},
                    "notes": "synthetic",
                },
            }
        )
    return {"timestamp": "2026-01-01T00:00:00.000Z", "judgeModel": "synthetic-judge", "results": results}


def test_a_500_prompt_snapshot_opens_and_walks_smoothly(qtbot, tmp_path, monkeypatch):
    path = tmp_path / "synthetic.json"
    path.write_text(json.dumps(synthetic_snapshot()))
    t0 = time.perf_counter()
    w = open_span_window(qtbot, tmp_path, monkeypatch, [path], "p000")
    open_s = time.perf_counter() - t0
    s, pane = w.session, w.span_pane
    assert len(s.items()) == 500 and w.center_stack.currentWidget() is pane
    assert [n for n, _, _ in pane.view.bounds] == ["main", "technicalSpecs", "alternatives"]
    assert len(pane.marks) == 3 and pane.apart.count() == 1  # the MISSED 'mist' is not in the text: apart
    items = [st.item.id for st in s.items()]
    t0 = time.perf_counter()
    for item_id in items[::25]:
        s.set_item(item_id)
        QApplication.processEvents()
    per_item = (time.perf_counter() - t0) / len(items[::25])
    pane.view.setFocus()
    t0 = time.perf_counter()
    for _ in range(20):
        qtbot.keyClick(pane.view, Qt.Key_J)  # walk the findings, across runs
    per_key = (time.perf_counter() - t0) / 20
    print(f"open {open_s:.2f} s, {per_item * 1000:.0f} ms per item, {per_key * 1000:.0f} ms per J")
    assert open_s < 30 and per_item < 0.3 and per_key < 0.3, (open_s, per_item, per_key)
