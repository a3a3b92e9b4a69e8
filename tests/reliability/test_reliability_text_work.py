"""Reliability: text work stays near-linear and every regex on an answer
has a time limit (issue "Every input bounded and confined", part 3 and the
regex bound of part 2).

Time is CPU time (user + system), measured in a child process for the
command line and card parsing, and with process_time around the step for
the window (pytest-qt, offscreen): the machine is shared, CPU time is what
the work costs. Each target is the issue's; before the change each of these
took minutes.
"""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.core.cases.metrics import evaluate, metric_set
from reviewer.core.cases.model import TestCase
from reviewer.core.spans.golden import exact_match, index_to_utf16, match_counts, relaxed_match, utf16_to_index
from reviewer.storage.cases.cases import check_outcomes, preset_metrics
from reviewer.storage.project.db import open_project

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
ROLES = ["shot.type", "subject.identity", "camera.movement", "lighting.source", "style.aesthetic"]
WORDS = ["wide", "shot", "of", "a", "red", "fox", "running", "through", "snow", "at", "dusk", "camera", "pans"]


@pytest.fixture
def quiet_heap():
    """Timings of one view, not of the heap earlier tests left: collect, then
    freeze what is alive so the collector does not walk it while the test
    measures (gc.freeze); unfrozen afterwards."""
    gc.collect()
    gc.freeze()
    yield
    gc.unfreeze()


def cli(*args, timeout: float = 300) -> tuple[subprocess.CompletedProcess, float]:
    """Run ``reviewer ARGS`` in a child; (the result, its CPU seconds)."""
    code = (
        "import resource, subprocess, sys\n"
        "r = subprocess.run([sys.executable, '-m', 'reviewer', *sys.argv[1:]], capture_output=True, text=True)\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(r.returncode, u.ru_utime + u.ru_stime)\n"
        "sys.stderr.write(r.stdout + '\\n=====\\n' + r.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], env=ENV, capture_output=True, text=True, timeout=timeout
    )
    rc, cpu = done.stdout.split()
    out, err = done.stderr.split("\n=====\n")
    return subprocess.CompletedProcess(args, int(rc), out, err), float(cpu)


def words_text(chars: int, seed: int = 1) -> str:
    """``chars`` characters of words, one line (the hardest shape for a text view)."""
    rnd = random.Random(seed)
    parts, n = [], 0
    while n < chars:
        w = rnd.choice(WORDS)
        parts.append(w)
        n += len(w) + 1
    return " ".join(parts)[:chars]


def golden_set(path: Path, text: str, n_spans: int, span_chars: int = 0) -> list[dict]:
    """Write a golden-set file of one prompt 'big-1' with ``n_spans`` spans spread over ``text``."""
    step = len(text) // n_spans
    width = span_chars or max(1, step // 2)
    spans = [
        {
            "text": text[k * step : k * step + width],
            "start": k * step,
            "end": k * step + width,
            "role": ROLES[k % len(ROLES)],
        }
        for k in range(n_spans)
    ]
    path.write_text(
        json.dumps(
            {"metadata": {"name": "scale"}, "prompts": [{"id": "big-1", "text": text, "groundTruth": {"spans": spans}}]}
        )
    )
    return spans


# -- golden sets: import, window, report, export ----------------------------------------------
@pytest.fixture(scope="module")
def ten_megabytes(tmp_path_factory):
    """A project with a 10 MB golden-set text and its 2,000 spans, imported by the CLI (CPU seconds)."""
    folder = tmp_path_factory.mktemp("ten")
    source = folder / "big.json"
    golden_set(source, words_text(10_000_000), 2000, span_chars=40)
    db = folder / "p.db"
    result, cpu = cli("import", db, source)
    return db, result, cpu


def test_a_10_mb_golden_text_with_2000_spans_imports_in_under_10_s(ten_megabytes):
    db, result, cpu = ten_megabytes
    assert result.returncode == 0, result.stderr
    assert "2000 golden spans" in result.stdout, result.stdout
    assert cpu < 10, cpu


@pytest.mark.gui
def test_a_10_mb_golden_text_opens_in_the_span_pane_in_under_2_s(
    qtbot, ten_megabytes, tmp_path, monkeypatch, quiet_heap
):
    from PySide6.QtWidgets import QApplication

    from tests.helpers.window import open_window

    db, result, _ = ten_megabytes
    assert result.returncode == 0, result.stderr
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path))
    wall, cpu = time.monotonic(), time.process_time()
    w = open_window(qtbot, db, wait_canvas=False, item="big-1", mode="review")
    QApplication.processEvents()
    pane = w.span_pane
    pane.view.viewport().repaint()  # the golden lines of the first screen
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    assert w.center_stack.currentWidget() is pane
    assert len(pane.view.golden) == 2000 and pane.view.document().characterCount() == 10_000_001
    bar = pane.view.verticalScrollBar()
    t0 = time.process_time()
    for step in range(5):  # scrolling through it stays quick
        bar.setValue(bar.maximum() * step // 4)
        pane.view.viewport().repaint()
    per_frame = (time.process_time() - t0) / 5
    print(f"open {cpu:.2f} s CPU ({wall:.2f} s wall), {per_frame * 1000:.0f} ms CPU per frame")
    assert cpu < 2.0 and wall < 20, (cpu, wall)
    assert per_frame < 0.2, per_frame


@pytest.mark.gui
def test_a_megabyte_line_without_spaces_opens_in_the_span_pane_in_under_2_s(qtbot, tmp_path, monkeypatch, quiet_heap):
    from PySide6.QtGui import QTextOption
    from PySide6.QtWidgets import QApplication

    from reviewer.storage.importers import import_source
    from tests.helpers.window import open_window

    source = tmp_path / "blob.json"
    golden_set(source, "x" * 1_000_000, 100)
    p = open_project(tmp_path / "p.db", create=True)
    try:
        import_source(p, source)
    finally:
        p.close()
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path))
    wall, cpu = time.monotonic(), time.process_time()
    w = open_window(qtbot, tmp_path / "p.db", wait_canvas=False, item="big-1", mode="review")
    QApplication.processEvents()
    w.span_pane.view.viewport().repaint()
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    view = w.span_pane.view
    assert view.document().characterCount() == 1_000_001 and len(view.golden) == 100
    assert view.wordWrapMode() == QTextOption.WrapAnywhere  # no word boundary to look for
    assert cpu < 2.0 and wall < 20, (cpu, wall)


@pytest.fixture(scope="module")
def twenty_thousand_spans(tmp_path_factory):
    """A project with a 140 KB golden-set text, its 20,000 spans and a run predicting them in reverse."""
    folder = tmp_path_factory.mktemp("twenty")
    text = words_text(140_000, seed=2)
    source = folder / "set.json"
    spans = golden_set(source, text, 20_000)
    results = folder / "results.json"
    results.write_text(
        json.dumps(
            {
                "provider": "m",
                "report": {"summary": {"relaxedF1": 1.0}},
                "perPrompt": [{"promptId": "big-1", "predicted": spans[::-1], "groundTruth": spans, "error": None}],
            }
        )
    )
    db = folder / "p.db"
    assert cli("import", db, source)[0].returncode == 0
    result, cpu = cli("import", db, results, "--format", "span-golden-results")
    assert result.returncode == 0, result.stderr
    return db, cpu


def test_140_kb_with_20000_spans_report_and_export_in_under_10_s(twenty_thousand_spans, tmp_path):
    db, import_cpu = twenty_thousand_spans
    report, report_cpu = cli("report", db)
    assert report.returncode == 0, report.stderr
    assert "| relaxed | shot.type | 4000 | 4000 | 4000 | 1.000 | 1.000 | 1.000 |" in report.stdout
    out = tmp_path / "out.db"
    export, export_cpu = cli("export", db, out)
    assert export.returncode == 0, export.stderr
    assert "20000 golden_spans" in export.stdout
    print(f"results import {import_cpu:.1f} s, report {report_cpu:.1f} s, export {export_cpu:.1f} s CPU")
    assert import_cpu < 10 and report_cpu < 10 and export_cpu < 10, (import_cpu, report_cpu, export_cpu)


# -- span matching, UTF-16 offsets: the same results as the plain loops ----------------------------
def _plain_matches(predicted, golden, mode):
    fits = exact_match if mode == "exact" else relaxed_match
    used, tp = set(), 0
    for p in predicted:
        for j, g in enumerate(golden):
            if j not in used and fits(p, g):
                used.add(j)
                tp += 1
                break
    return tp


_value = st.one_of(st.integers(-2, 14), st.sampled_from([2.5, "3", None, float("inf"), float("nan"), True, [1]]))
_span = st.one_of(
    st.builds(
        lambda a, n, r: {"start": a, "end": a + n, "role": r},
        st.integers(0, 12),
        st.integers(-1, 6),
        st.sampled_from(["a", "b"]),
    ),
    st.fixed_dictionaries({"start": _value, "end": _value, "role": st.sampled_from(["a", None, 1, ["x"]])}),
    st.fixed_dictionaries({"end": _value, "role": st.just("a")}),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_span, max_size=12), st.lists(_span, max_size=12), st.sampled_from(["exact", "relaxed"]))
def test_indexed_span_matching_equals_the_plain_greedy_loop(predicted, golden, mode):
    assert match_counts(predicted, golden, mode).tp == _plain_matches(predicted, golden, mode)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab\U0001f98a\u00e9\n", max_size=20), st.integers(-3, 45))
def test_utf16_offsets_equal_the_plain_count(text, offset):
    units = 0
    expected = len(text)
    for i, ch in enumerate(text):
        if units >= offset:
            expected = i
            break
        units += 2 if ord(ch) > 0xFFFF else 1
    assert utf16_to_index(text, offset) == expected
    index = max(0, min(offset, len(text)))
    assert index_to_utf16(text, offset) == index + sum(1 for ch in text[:index] if ord(ch) > 0xFFFF)


# -- card parsing ----------------------------------------------------------------------------
def test_900_kb_of_json_like_junk_parses_to_format_in_under_2_s():
    code = textwrap.dedent("""
        import time
        from reviewer.core.cards.parsing import parse_answer
        from reviewer.core.models import AnswerSchema
        raw = '{"a": 1} ' * 100000
        t = time.process_time()
        r = parse_answer(raw, AnswerSchema.PILES)
        print(time.process_time() - t)
        print(r.error)
    """)
    done = subprocess.run([sys.executable, "-c", code], env=ENV, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    cpu, error = done.stdout.splitlines()
    assert error == 'no JSON object matching the piles schema (no "piles" field; 100000 other JSON object(s) found)'
    assert float(cpu) < 2.0, cpu


# -- test cases: regex time limits, the case panel -------------------------------------------
CASE = {
    "id": "fest-1",
    "query": "Which episode introduces the village festival and who opens it?",
    "context": {"episodeScope": ["one"]},
    "expectedBehavior": {
        "shouldCite": True,
        "citationCount": 1,
        "episodeReferences": ["one"],
        "shouldMentionCharacters": ["Ann"],
    },
    "metadata": {"category": "citation", "difficulty": "easy"},
}
GOOD = "Ann opens the festival [Episode: one, Chapter: 1, Speaker: Ann] because the village might ask her. "
#: 29 KB without a closing bracket: the preset's incomplete_citation backtracks for minutes on it
HOSTILE = "[Episode: 1, Chapter: 2, " * 1200


def _cases_project(tmp_path: Path, answers: list[tuple[str, str, str]]) -> Path:
    """A project with CASE (and 'fest-2', the same) and ``answers`` (case, model, output) imported."""
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([CASE, {**CASE, "id": "fest-2"}]))
    lines = tmp_path / "answers.jsonl"
    lines.write_text(
        "".join(json.dumps({"item": c, "model": m, "repetition": 1, "output": o}) + "\n" for c, m, o in answers)
    )
    db = tmp_path / "p.db"
    for source in (cases, lines):
        result, _ = cli("import", db, source)
        assert result.returncode == 0, result.stderr
    return db


def test_the_presets_incomplete_citation_is_not_run_past_its_limit_and_scoring_goes_on(tmp_path):
    db = _cases_project(tmp_path, [("fest-1", "hostile", HOSTILE), ("fest-1", "good", GOOD)])
    result, cpu = cli("score", db)
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stdout.splitlines() if line.startswith("note: check")]
    assert notes == [
        "note: check citationAccuracy/complete on case fest-1 (hostile #1) not run: its regex took "
        "over 1 s of CPU on this answer (the metric set's regex_timeout)"
    ], result.stdout
    good = [line for line in result.stdout.splitlines() if line.startswith("test cases, good:")]
    assert len(good) == 1 and "passed 1/1" in good[0], result.stdout
    # the limit is per check and answer (1 s): the rest of scoring is quick
    assert cpu < 1.0 * 4 + 6, cpu
    p = open_project(db)
    try:
        run_id = p.db.execute("SELECT id FROM runs WHERE model = 'hostile'").fetchone()[0]
        outcomes = {o["check"]: o for o in check_outcomes(p, run_id) if o["metric"] == "citationAccuracy"}
        assert outcomes["complete"]["ran"] is False and not outcomes["complete"]["fired"]
        assert outcomes["complete"]["note"].startswith("not run: its regex took over 1 s")
        assert outcomes["required"]["ran"] and outcomes["required"]["fired"]  # the other checks ran
        details = [r[0] for r in p.db.execute("SELECT detail FROM findings WHERE run_id = ?", [run_id])]
        assert "citationAccuracy/required: Expected citations but none found" in details
        assert not any("complete" in d for d in details)
    finally:
        p.close()


def test_a_catastrophic_regex_in_a_metrics_file_costs_at_most_its_limit_per_answer(tmp_path):
    answers = [("fest-1", f"m{i}", "a" * 3000 + "!") for i in range(4)]
    db = _cases_project(tmp_path, answers)
    metrics = tmp_path / "mine.yaml"
    metrics.write_text(
        textwrap.dedent("""\
        name: mine
        regex_timeout: 0.5
        metrics:
          - name: shape
            checks:
              - id: runaway
                message: ends in a's
                severity: warning
                test: {kind: absent, regex: '(a+)+$'}
              - id: long
                message: too short
                severity: error
                test: {kind: length, n: 10}
        scoring:
          categories:
            citation: {shape: 1.0}
        """)
    )
    result, cpu = cli("score", db, "--metrics", metrics)
    assert result.returncode == 0, result.stderr
    notes = [line for line in result.stdout.splitlines() if line.startswith("note: check shape/runaway")]
    assert len(notes) == 4 and all("over 0.5 s of CPU" in n for n in notes), result.stdout
    assert "passed 1/1, average 1.00" in result.stdout  # not run: no warning; the length check ran
    assert cpu < 4 * 0.5 + 6, cpu  # four answers at 0.5 s each, and the command itself


def test_evaluate_keeps_each_check_within_its_limit():
    data = {
        "name": "mine",
        "regex_timeout": 0.3,
        "metrics": [
            {
                "name": "shape",
                "checks": [
                    {
                        "id": "runaway",
                        "message": "m",
                        "severity": "warning",
                        "test": {"kind": "present", "regex": "(a+)+$"},
                    },
                    {"id": "fine", "message": "m", "severity": "warning", "test": {"kind": "present", "regex": "a"}},
                ],
            }
        ],
    }
    metrics = metric_set(data)
    case = TestCase(
        id="c",
        query=CASE["query"],
        context=CASE["context"],
        expected=CASE["expectedBehavior"],
        metadata=CASE["metadata"],
    )
    for _ in range(3):
        t = time.process_time()
        outcomes = evaluate(metrics, case, "a" * 5000 + "!")
        took = time.process_time() - t
        assert took < 0.3 + 0.25, took
        assert [(o.check, o.ran, o.fired) for o in outcomes] == [("runaway", False, False), ("fine", True, False)]
    # the preset's checks on a short answer all run (same outcomes as before the limit existed)
    good = evaluate(preset_metrics(), case, GOOD)
    assert all(o.ran for o in good)


@pytest.mark.gui
def test_a_1_mb_answer_opens_its_case_panel_in_under_1_s(qtbot, tmp_path, monkeypatch, quiet_heap):
    from PySide6.QtWidgets import QApplication

    from reviewer.storage.repo import items as repo_items
    from tests.helpers.window import open_window

    big = GOOD * (1_000_000 // len(GOOD) + 1)
    db = _cases_project(tmp_path, [("fest-1", "m", GOOD), ("fest-2", "m", big), ("fest-2", "h", HOSTILE)])
    assert cli("score", db)[0].returncode == 0
    monkeypatch.setenv("REVIEWER_CONFIG_DIR", str(tmp_path))
    w = open_window(qtbot, db, wait_canvas=False, item="fest-1", mode="review")
    s, panel = w.session, w.centers["case"]
    target = repo_items.item_by_name(s.project, "fest-2")
    run_id = s.project.db.execute("SELECT id FROM runs WHERE model = 'm' AND item_id = ?", [target.id]).fetchone()[0]
    qtbot.wait(300)  # the window's start-up work (summary, first item) is done before the clock starts
    wall, cpu = time.monotonic(), time.process_time()
    s.set_item(target.id)
    s.set_run(run_id)
    QApplication.processEvents()
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    assert panel.isEnabled() and s.run().run["id"] == run_id
    assert panel.answer.document().characterCount() > 1_000_000
    assert len(panel.highlighter.layers) >= 1 and sum(len(r) for _, r, _ in panel.highlighter.layers) > 10_000
    print(f"case panel {cpu:.2f} s CPU ({wall:.2f} s wall)")
    assert cpu < 1.0 and wall < 10, (cpu, wall)
    # the hostile answer's check that ran out of time shows as not run, with its note
    s.set_run(s.project.db.execute("SELECT id FROM runs WHERE model = 'h'").fetchone()[0])
    QApplication.processEvents()
    rows = {
        panel.checks.item(r, 0).text(): (panel.checks.item(r, 2).text(), panel.checks.item(r, 3).text())
        for r in range(panel.checks.rowCount())
    }
    outcome, note = rows["citationAccuracy/complete"]
    assert outcome == "not run" and note.startswith("not run: its regex took over 1 s"), rows


# -- the views' position maps: the same positions, near-linear ---------------------------------
def _plain_doc_pos(raw, offset, breaks=()):
    from bisect import bisect_right

    offset = max(0, min(offset, len(raw)))
    prefix = raw[:offset]
    pos = len(prefix.encode("utf-16-le")) // 2 - prefix.count("\r\n")
    if prefix.endswith("\r") and raw[offset : offset + 1] == "\n":
        pos -= 1
    return pos + bisect_right(breaks, offset)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", " ", "\r", "\n", "\r\n", "\U0001f98a", "\u00e9"]), max_size=16).map("".join),
    st.lists(st.integers(-2, 20), max_size=6),
    st.lists(st.integers(0, 20), max_size=3).map(sorted),
)
def test_document_positions_equal_the_plain_count(raw, offsets, breaks):
    from reviewer.qt.text import doc_pos, doc_positions

    expected = [_plain_doc_pos(raw, o, breaks) for o in offsets]
    assert [doc_pos(raw, o, breaks) for o in offsets] == expected
    assert doc_positions(raw, offsets, breaks) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), max_size=10))
def test_merged_ranges_cover_the_same_positions(spans):
    from reviewer.qt.cases.highlight import merged

    ranges = merged(spans)
    covered = {i for a, b in spans for i in range(a, b)}
    assert {i for a, b in ranges for i in range(a, b)} == covered
    assert all(b > a for a, b in ranges)
    assert all(ranges[k][1] < ranges[k + 1][0] for k in range(len(ranges) - 1))  # sorted, apart


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \n", max_size=60), st.integers(1, 8))
def test_long_lines_are_broken_at_a_space_keeping_every_position(text, limit):
    from reviewer.qt.text import break_at_spaces

    shown, whole = break_at_spaces(text, limit)
    assert whole == any(len(line) > 2 * limit for line in shown.split("\n"))
    assert len(shown) == len(text)
    assert all(a == b or (a, b) == (" ", "\n") for a, b in zip(text, shown))
    for line in shown.split("\n"):
        assert len(line) <= limit or " " not in line[limit:], (text, shown)


def test_breaking_a_10_mb_line_is_linear():
    from reviewer.qt.text import break_at_spaces

    for text in ("a " * 5_000_000, "a" * 10_000_000, "\n" * 10_000_000, ("b" * 3000 + " ") * 3000):
        t = time.process_time()
        shown, whole = break_at_spaces(text)
        assert len(shown) == len(text) and whole == (text[0] == "a" and " " not in text)
        assert time.process_time() - t < 0.5
