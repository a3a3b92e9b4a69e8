"""Fidelity (docs/cards.md#fidelity): the scorer against the hand-checked answer key of
../shared/data/ocr-runs-dev (40 real tesseract answers; skipped when absent).

The key was made with the photo in view (tesseract's word boxes say which
note a word lies on). A ``cards`` answer carries boxes, so the scorer can use
position the same way (card-scoring-rules.md §6); a ``piles`` answer has
none, and there text alone decides. The only HALLUC the scorer may miss are
therefore slide text read as a card in piles answers, where no rule on text
alone can tell a heading from a note.
"""

from __future__ import annotations

from reviewer.core.models import ScoringConfig
from reviewer.storage.cards.answer_key import fidelity, load, score_answers
from tests.conftest import shared


def test_code_f1_on_the_answer_key():
    report = fidelity(shared("ocr-runs-dev"))
    assert report.runs == 40
    assert report.f1 >= 0.97, "\n".join(report.lines())
    # every run's text accuracy within 0.05 of the key
    assert report.accuracy_off == []
    # OCR, the rarest code here, is never confused with PARTIAL
    assert report.codes["OCR"].f1 == 1.0
    # no HALLUC missed where the answer has boxes (position evidence)
    assert all(run.endswith("_piles.txt") for run, _ in report.halluc_missed), report.halluc_missed
    assert len(report.halluc_missed) <= 3


def test_every_finding_names_its_rule():
    answers, _key = load(shared("ocr-runs-dev"))
    for name, score in score_answers(answers, ScoringConfig()).items():
        for f in score.findings:
            assert f.detail.startswith("§4 "), (name, f.detail)
            if f.code.value in ("OCR", "PARTIAL"):
                assert "reads" in f.detail or "every word" in f.detail, f.detail


def test_boxes_read_off_the_stored_pixels_are_recognised():
    answers, _key = load(shared("ocr-runs-dev"))
    scores = score_answers(answers, ScoringConfig())
    rotated = [a.name for a in answers if a.orientation == 8 and a.name.endswith("_cards.txt")]
    assert rotated
    frames = {scores[n].facts.box_frame for n in rotated if scores[n].facts.outcomes}
    assert "stored" in frames


def test_the_folder_imports_and_scores_as_the_key_says(tmp_path):
    """`reviewer import` of the folder (items per image variant, boxes scaled
    to each variant, EXIF orientation kept) then `score` gives the same
    fidelity as scoring the files directly."""
    from reviewer.core.cards.fidelity import compare
    from reviewer.core.cards.metrics import run_metrics
    from reviewer.storage.db import open_project
    from reviewer.storage.importers import import_source
    from reviewer.storage.importers.base import ImportOptions
    from reviewer.storage.scoring import score_project
    from reviewer.storage.cards.scores import scored_runs

    folder = shared("ocr-runs-dev")
    p = open_project(tmp_path / "p.db", create=True)
    try:
        report = import_source(p, folder, options=ImportOptions(model="tesseract"))
        assert report.format == "answer-key" and not report.skipped, report.skipped
        again = import_source(p, folder, options=ImportOptions(model="tesseract"))
        assert again.added == {} and again.existing["runs"] == 40  # idempotent
        score_project(p)
        runs = {f"{r.run['item']}_{r.run['prompt']}.txt": r for r in scored_runs(p)}
    finally:
        p.close()
    _answers, key = load(folder)
    assert set(runs) == {k.name for k in key}
    produced = {name: r.findings for name, r in runs.items()}
    accuracy = {name: run_metrics(r.facts, r.findings).text_accuracy for name, r in runs.items()}
    rep = compare(key, produced, accuracy)
    assert rep.f1 >= 0.97, "\n".join(rep.lines())
    assert rep.accuracy_off == []
