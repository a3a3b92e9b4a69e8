"""The metrics stored with each scored run (run_scores.auto_metrics /
reviewed_metrics, decision: stored-metrics-never-stale) are a cache that is never stale: whatever
happens to a run's findings, reading them gives what run_metrics over the
stored facts and findings gives."""

from __future__ import annotations

import json
import sqlite3

import pytest

from reviewer.core.models import Code, Finding, ScoringConfig, Source, Status
from reviewer.storage.cards.metric_rows import fill_missing_metrics, iter_metric_rows
from reviewer.storage.cards.scores import iter_scored_runs
from reviewer.storage.export import export_project
from reviewer.storage.importers import ImportOptions, import_source
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.scoring import score_project
from tests.helpers.paths import SAMPLES


@pytest.fixture
def sample(project):
    import_source(project, SAMPLES, options=ImportOptions(model="vlm"))
    score_project(project)
    return project


def _recomputed(project) -> dict[int, tuple[dict, dict]]:
    """Every scored run's metrics computed afresh from facts and findings."""
    return {
        r.run["id"]: (json.loads(r.auto.model_dump_json()), json.loads(r.reviewed.model_dump_json()))
        for r in iter_scored_runs(project, with_cards=False, with_output=False)
    }


def _stored(project) -> dict[int, tuple]:
    return {
        r[0]: (r[1] and json.loads(r[1]), r[2] and json.loads(r[2]))
        for r in project.db.execute("SELECT run_id, auto_metrics, reviewed_metrics FROM run_scores")
    }


def _decide_some(project) -> list[int]:
    """Reject one finding, reclassify another, add a human finding: returns
    the runs touched."""
    found = [f for r in iter_scored_runs(project) for f in r.findings]
    ocr = next(f for f in found if f.code == Code.OCR)
    other = next(f for f in found if f.code != Code.OCR and f.run_id != ocr.run_id)
    repo_findings.update_finding(project, ocr.id, status=Status.REJECTED, reviewer="ann", reason="legible")
    repo_findings.update_finding(project, other.id, status=Status.CONFIRMED, final_code=Code.HALLUC, reviewer="ann")
    third = next(
        r for r in iter_scored_runs(project) if r.run["id"] not in (ocr.run_id, other.run_id) and r.facts.outcomes
    )
    human = Finding(
        code=Code.MISS,
        source=Source.HUMAN,
        status=Status.CONFIRMED,
        gt_card_id=third.facts.outcomes[0].gt_card_id,
        gt_card="x",
        detail="seen by a person",
    )
    repo_findings.insert_finding(project, third.run["id"], human)
    return [ocr.run_id, other.run_id, third.run["id"]]


def test_scoring_stores_what_run_metrics_gives(sample):
    stored = _stored(sample)
    assert stored and all(a is not None and r is not None for a, r in stored.values())
    assert stored == _recomputed(sample)


def test_a_changed_finding_empties_its_runs_metrics_and_reading_recomputes_them(sample):
    touched = _decide_some(sample)
    stored = _stored(sample)
    assert {i for i, (a, _) in stored.items() if a is None} == set(touched)  # the triggers, nothing else
    rows = {r.run_id: (r.auto, r.reviewed) for r in iter_metric_rows(sample)}
    assert rows == _recomputed(sample)
    assert _stored(sample) == rows  # written back
    assert rows[touched[0]][0] != rows[touched[0]][1]  # the rejection shows in the reviewed metrics only
    assert fill_missing_metrics(sample) == 0


def test_rescoring_with_decisions_stores_the_metrics_of_what_it_keeps(sample):
    """Re-scoring keeps decided findings (some marked stale), human findings
    and drops undecided ones: the metrics it stores are those of the
    findings as written, before any reader recomputes them."""
    _decide_some(sample)
    # a config that recognises no misreading: findings change, decisions stay (some stale)
    score_project(sample, ScoringConfig(version="no-misreadings", misread_min_letters=99, length_slack=0))
    stored = _stored(sample)
    assert all(a is not None for a, _ in stored.values())
    assert stored == _recomputed(sample)
    stale = sample.db.execute("SELECT count(*) FROM findings WHERE detail LIKE '[not found%'").fetchone()[0]
    assert stale  # the case the final-findings bookkeeping must get right
    score_project(sample)  # and back: stale decisions found again
    assert _stored(sample) == _recomputed(sample)


def test_export_and_report_rows_follow_a_decision(sample, tmp_path):
    out = tmp_path / "a.db"
    export_project(sample, out)
    touched = _decide_some(sample)
    out2 = tmp_path / "b.db"
    export_project(sample, out2)
    before = dict(sqlite3.connect(out).execute("SELECT run_id, text_accuracy || '/' || hallucinations FROM runs"))
    after = dict(sqlite3.connect(out2).execute("SELECT run_id, text_accuracy || '/' || hallucinations FROM runs"))
    changed = {i for i in after if after[i] != before[i]}
    assert changed and changed <= set(touched)
    reviewed = dict(sqlite3.connect(out2).execute("SELECT run_id, reviewed FROM runs"))
    fresh = _recomputed(sample)
    assert {i: after[i] for i in touched} == {
        i: f"{'' if fresh[i][1]['text_accuracy'] is None else fresh[i][1]['text_accuracy']}/"
        f"{fresh[i][1]['hallucinations']}"
        for i in touched
    }
    assert set(reviewed.values()) <= {0, 1}


def test_run_lines_are_what_the_scored_runs_give(sample):
    """The window's RunLines read with three queries equal those made from
    whole ScoredRuns, with decisions made (some metrics recomputed)."""
    from reviewer.storage.cards.overview import ReviewCounts, counts_of_lines, run_line, run_lines

    _decide_some(sample)
    runs = list(iter_scored_runs(sample))
    ids = [r.run["id"] for r in runs]
    lines = run_lines(sample, ids)
    assert lines == [run_line(r) for r in runs]
    assert {line.findings for line in lines} != {0} and any(line.open < line.findings for line in lines)
    assert counts_of_lines(lines) == ReviewCounts.of(runs)
    assert "ann" not in lines[0].text and lines[0].text == lines[0].text.casefold()
