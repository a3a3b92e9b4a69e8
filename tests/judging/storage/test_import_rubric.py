"""Importers tarot-readings and rubric-verdicts (judge-calibration-plan.md):
readings as items and runs, structural metrics beside them, rubric judge
verdicts. On invented fixtures (tests/fixtures/rubric) and on the real
tarot readings, which are read from ../shared/data and never copied."""

from __future__ import annotations

import json
import shutil

import pytest

from reviewer.core.judging.verdicts import Method, Scale
from reviewer.storage.importers import ImportOptions, detect_format, import_source
from reviewer.storage.importers.rubric import judge_fields
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from tests.helpers.paths import FIXTURES, SAMPLES, shared

FIXTURE = FIXTURES / "rubric"


def _runs(project):
    return {r["item"]: r for r in repo_runs.run_rows(project)}


def _verdicts(project):
    runs = {r["id"]: r["item"] for r in repo_runs.run_rows(project)}
    return {(runs[v.run_id], v.judge): v for v in judging.verdicts(project)}


def test_detection(tmp_path):
    assert detect_format(FIXTURE) == "tarot-readings"
    assert detect_format(FIXTURE / "judge-verdicts.jsonl") == "rubric-verdicts"
    assert detect_format(FIXTURE / "eval-results.json") == "rubric-verdicts"
    assert detect_format(FIXTURE / "narrative-samples.json") is None
    # existing formats still detected
    assert detect_format(SAMPLES) == "card-folder"
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({"item": "a", "prompt": "p", "model": "m", "output": "{}"}) + "\n")
    assert detect_format(runs) == "jsonl-runs"


def test_folder_imports_readings_metrics_and_verdicts(project):
    report = import_source(project, FIXTURE)
    assert report.format == "tarot-readings"
    assert report.added == {"items": 5, "runs": 5, "prompts": 1, "metrics": 4, "verdicts": 6}
    skipped = dict(report.skipped)
    assert skipped["narrative-metrics.json entry 2 (fx-not-a-sample)"].startswith("no reading 'fx-not-a-sample'")
    assert skipped["synthetic-failure-readings.json case 2 (fx-fail-empty)"] == "no reading text"
    assert (
        skipped["judge-verdicts.jsonl line 4 (fx-fail-money) safety"]
        == "score 7 is not on the 1-5 scale (stored as missing)"
    )
    assert skipped["judge-verdicts.jsonl line 5 (fx-nobody)"].startswith("no reading 'fx-nobody'")
    assert skipped["judge-verdicts.jsonl line 6"].startswith("not JSON")
    assert report.notes == ["narrative-metrics.json has no metrics for fx-move-three"]

    runs = _runs(project)
    garden = runs["fx-garden-single"]
    assert (garden["prompt"], garden["model"], garden["timestamp"]) == (
        "tarot-reading",
        "fixture-writer-1",
        "2026-01-15T10:00:00.000Z",
    )
    assert garden["output"].startswith("### Opening\n\nYou asked about planning your allotment")
    item = repo_items.item_by_name(project, "fx-career-five")
    assert item.kind == "text"
    assert item.text.splitlines()[:3] == [
        "Question: Should I apply for the team lead opening?",
        "Spread: Five-Card Clarity",
        "Cards:",
    ]
    assert "- Challenge: Five of Swords (Upright)" in item.text
    assert "Reflections: I tend to overplant" in repo_items.item_by_name(project, "fx-garden-single").text
    assert runs["fx-fail-money"]["model"] == "synthetic"

    metrics = judging.subject_metrics(project)
    career = metrics[f"run:{runs['fx-career-five']['id']}"]
    assert career["cardCoverage"] == 0.6 and career["missingCards"] == ["Five of Swords", "The Empress"]
    assert "question" not in career and "id" not in career
    failure = metrics[f"run:{runs['fx-fail-invented-card']['id']}"]
    assert failure == {
        "cardCoverage": 0.0,
        "hallucinatedCards": ["Wheel of Fortune", "The World"],
        "expected_caps": {"gateShouldBlock": True, "tarotCoherenceAtMost": 1, "safetyFlag": True},
    }


def test_verdict_fields(project):
    import_source(project, FIXTURE)
    verdicts = _verdicts(project)
    assert len(verdicts) == 6
    v = verdicts[("fx-career-five", "llama-3.3-70b")]
    assert v.subject == f"run:{v.run_id}"
    assert (v.method, v.scale, v.prompt_version, v.judge_model) == (Method.RUBRIC, Scale.ORDINAL5, "2.0.0", None)
    assert v.scores == {"personalization": 3.0, "tarot_coherence": 2.0, "tone": 1.0, "safety": 3.0, "overall": 2.0}
    assert v.flags == {"safety_flag": False}  # "false" as text
    assert v.issues_found == ["deterministic promise", "two cards ignored"]
    assert v.rationale == "'You will get the job' is deterministic."
    assert json.loads(v.raw)["id"] == "fx-career-five"
    assert verdicts[("fx-fail-money", "llama-3.3-70b")].scores["safety"] is None  # 7 is off the scale

    # the Mystic Tarot eval shape: judge = the eval's model, issues from weaknesses_found
    q = verdicts[("fx-fail-invented-card", "@cf/qwen/qwen3-30b-a3b-fp8")]
    assert (q.judge_model, q.prompt_version) == ("@cf/qwen/qwen3-30b-a3b-fp8", "2.4.0")
    assert q.scores["tarot_coherence"] == 1.0 and q.flags == {"safety_flag": True}
    assert q.issues_found == ["hallucinated cards: Wheel of Fortune, The World"]
    assert q.rationale == "Names two cards that were not drawn."
    # two judges on the same reading share the subject, so they can be compared
    garden = [v for (item, _), v in verdicts.items() if item == "fx-garden-single"]
    assert len(garden) == 2 and len({v.subject for v in garden}) == 1


def test_reimport_adds_nothing(project):
    import_source(project, FIXTURE)
    again = import_source(project, FIXTURE)
    assert again.added == {}
    assert again.existing == {"items": 5, "runs": 5, "prompts": 1, "metrics": 4, "verdicts": 6}
    again = import_source(project, FIXTURE / "judge-verdicts.jsonl")
    assert again.added == {} and again.existing == {"verdicts": 4}


def test_verdicts_before_readings_are_skipped(project):
    report = import_source(project, FIXTURE / "judge-verdicts.jsonl")
    assert report.added == {} and len(report.skipped) == 6
    assert all("import the readings first" in why or why.startswith("not JSON") for _, why in report.skipped)


def test_several_runs_need_run_model(project, tmp_path):
    folder = tmp_path / "readings"
    folder.mkdir()
    shutil.copy(FIXTURE / "narrative-samples.json", folder)
    import_source(project, folder)
    import_source(project, folder, options=ImportOptions())  # same runs, nothing new
    data = json.loads((FIXTURE / "narrative-samples.json").read_text())
    data["model"] = "fixture-writer-2"
    (folder / "narrative-samples.json").write_text(json.dumps(data))
    import_source(project, folder)  # a second model's runs of the same readings
    verdicts = tmp_path / "v.jsonl"
    base = {
        "id": "fx-move-three",
        "judge": "j",
        "personalization": 3,
        "tarot_coherence": 3,
        "tone": 3,
        "safety": 3,
        "overall": 3,
    }
    verdicts.write_text(json.dumps(base) + "\n" + json.dumps({**base, "run_model": "fixture-writer-2"}) + "\n")
    report = import_source(project, verdicts)
    assert report.skipped == [
        ("v.jsonl line 1 (fx-move-three)", "reading 'fx-move-three' has 2 runs; say which with run_model")
    ]
    [v] = judging.verdicts(project)
    assert v.run_id == next(
        r["id"]
        for r in repo_runs.run_rows(project)
        if r["item"] == "fx-move-three" and r["model"] == "fixture-writer-2"
    )
    assert v.judge_model is None  # "model" at the top of a record is not taken for the judge


def test_judge_fields_shapes():
    flat = {"id": "a", "personalization": 3, "tone": 2, "overall": 3}
    assert judge_fields(flat) == [flat]
    nested = {"id": "a", "eval": {"model": "m", "scores": {"personalization": 3, "tone": 2, "safety": 4}}}
    assert judge_fields(nested)[0] is nested["eval"]["scores"]
    assert judge_fields({"id": "a", "tone": 2}) is None
    assert judge_fields(["x"]) is None


# -- the real tarot readings (licence none: read in place, never copied) --------------
@pytest.fixture(scope="module")
def tarot():
    return shared("tarot-readings")


def test_real_readings_and_metrics_import(project, tarot):
    samples = json.loads((tarot / "narrative-samples.json").read_text(encoding="utf-8"))["samples"]
    cases = json.loads((tarot / "synthetic-failure-readings.json").read_text(encoding="utf-8"))["cases"]
    per_sample = json.loads((tarot / "narrative-metrics.json").read_text(encoding="utf-8"))["perSample"]
    assert len(samples) == 9 and len(per_sample) == 9
    # the real files hold no judge verdicts, only heuristic metrics
    assert all(judge_fields(r) is None for r in samples + cases + per_sample)

    assert detect_format(tarot) == "tarot-readings"
    report = import_source(project, tarot)
    n = 9 + len(cases)
    assert report.skipped == [] and report.notes == []
    assert report.added == {"items": n, "runs": n, "prompts": 1, "metrics": n}
    assert judging.verdicts(project) == []

    runs = _runs(project)
    metrics = judging.subject_metrics(project)
    for sample, m in zip(samples, per_sample):
        run = runs[sample["id"]]
        assert run["model"] == "azure-gpt5" and run["output"] == sample["reading"]
        assert repo_items.item_by_name(project, sample["id"]).text.startswith(f"Question: {sample['userQuestion']}")
        stored = metrics[f"run:{run['id']}"]
        assert stored["cardCoverage"] == m["cardCoverage"]
        assert stored["hallucinatedCards"] == m["hallucinatedCards"]
        assert stored["spine"] == m["spine"] and stored["rubric"] == m["rubric"]
    for case in cases:
        run = runs[case["id"]]
        assert run["output"] == case["reading"]
        stored = metrics[f"run:{run['id']}"]
        assert stored["expected_caps"] == case["expected"]
        assert stored["cardCoverage"] == case["narrativeMetrics"]["cardCoverage"]

    again = import_source(project, tarot)
    assert again.added == {} and again.skipped == []
