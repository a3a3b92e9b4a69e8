"""score_project with a process pool gives the same findings as in-process
scoring (--jobs; decision: big-projects-stay-interactive)."""

from __future__ import annotations

from reviewer.core.models import ScoringConfig
from reviewer.storage import scoring
from reviewer.storage.cards import scored, scores
from reviewer.storage.importers import import_source
from reviewer.storage.importers.base import ImportOptions
from tests.helpers.paths import SAMPLES


def _findings(project):
    return sorted(
        (r.run["item"], r.run["prompt"], r.run["repetition"], f.code.value, f.gt_card, f.model_card)
        for r in scored.scored_runs(project)
        for f in r.findings
    )


def test_pool_and_single_process_agree(project, monkeypatch):
    import_source(project, SAMPLES, options=ImportOptions(model="vlm"))
    scoring.score_project(project, jobs=1)
    single = _findings(project)
    monkeypatch.setattr(scores, "POOL_MIN_RUNS", 1)
    monkeypatch.setattr(scores, "CHUNK", 3)  # several chunks: a pool of two (one chunk would stay here)
    used = []
    monkeypatch.setattr(scores, "_score_in_pool", lambda *a, _orig=scores._score_in_pool: used.append(1) or _orig(*a))
    assert scoring.score_project(project, ScoringConfig(version="pooled", box_fit=0.55), jobs=2) > 0
    assert used == [1]
    assert _findings(project) == single
    assert (
        project.db.execute("SELECT COUNT(*) FROM run_scores WHERE config_version = 'pooled'").fetchone()[0]
        == project.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    )


def test_spawned_workers_score_and_write_their_chunks(project, monkeypatch):
    """Where fork is not available (macOS, Windows, a process with threads)
    the workers are spawned: the context is pickled to them and each opens
    the project itself."""
    import_source(project, SAMPLES, options=ImportOptions(model="vlm"))
    scoring.score_project(project, jobs=1)
    single = _findings(project)
    monkeypatch.setattr(scores, "POOL_MIN_RUNS", 1)
    monkeypatch.setattr(scores, "CHUNK", 3)  # several chunks, both workers write
    monkeypatch.setattr(scores, "START_METHOD", "spawn")
    assert scoring.score_project(project, ScoringConfig(version="spawned", box_fit=0.55), jobs=2) > 0
    assert _findings(project) == single
    stored = project.db.execute(
        "SELECT COUNT(*), COUNT(auto_metrics) FROM run_scores WHERE config_version = 'spawned'"
    ).fetchone()
    assert stored[0] == stored[1] == project.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]


def test_chunks_of_a_dead_worker_are_scored_here(project, monkeypatch):
    """A worker that dies (killed, out of memory) loses no run: the chunks
    it did not write are scored in the calling process."""
    import_source(project, SAMPLES, options=ImportOptions(model="vlm"))
    scoring.score_project(project, jobs=1)
    single = _findings(project)
    monkeypatch.setattr(scores, "POOL_MIN_RUNS", 1)
    monkeypatch.setattr(scores, "CHUNK", 3)
    monkeypatch.setattr(scores, "_score_chunk_in_worker", _die_on_second_chunk)
    here = []
    monkeypatch.setattr(
        scores,
        "_score_here",
        lambda p, chunks, *a, _orig=scores._score_here: here.append(len(chunks)) or _orig(p, chunks, *a),
    )
    assert scoring.score_project(project, ScoringConfig(version="survived", box_fit=0.55), jobs=2) > 0
    assert here and here[0] >= 1  # some chunks were left by the dead workers
    assert _findings(project) == single
    assert (
        project.db.execute("SELECT COUNT(*) FROM run_scores WHERE config_version = 'survived'").fetchone()[0]
        == project.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    )


def _die_on_second_chunk(ids):
    """In a (forked) worker: the first chunk of the worker is scored, the
    next one kills the worker."""
    import os

    if scores._WORKER.get("project") is not None:
        os._exit(9)
    return _SCORE_CHUNK(ids)


_SCORE_CHUNK = scores._score_chunk_in_worker
