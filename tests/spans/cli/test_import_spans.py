"""Importer span-snapshot: span-labeling judge snapshots as items, runs,
verdicts with the judge's errors as issues; on an invented snapshot and on
the real baseline (MIT, read from ../shared/data)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.judging.verdicts import Method, Scale
from reviewer.core.models import Item
from reviewer.core.spans import snapshots as spans
from reviewer.storage.importers import detect_format, import_source
from reviewer.storage.importers.span_snapshots import run_output
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.repo import findings as repo_findings
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from tests.helpers.paths import shared

CATS = {c: {"coverage": 3, "precision": 4} for c in spans.CATEGORIES}


def _snapshot():
    good = {
        "promptId": "vid-001",
        "input": "a heron fishing at dawn",
        "output": "Wide shot of a grey heron standing in shallow reeds at dawn, mist low on the water.\n\n"
        "**TECHNICAL SPECS**\n- **Duration:** 8s",
        "spanCount": 4,
        "spans": [
            {"text": "Wide shot", "role": "shot.type", "confidence": 0.95, "start": 0, "end": 9, "section": "main"},
            {
                "text": "grey heron",
                "role": "subject.identity",
                "confidence": 0.9,
                "start": 15,
                "end": 25,
                "section": "main",
            },
            {
                "text": "TECHNICAL SPECS",
                "role": "technical",
                "confidence": 0.5,
                "start": 87,
                "end": 102,
                "section": "technicalSpecs",
            },
            {
                "text": "8s",
                "role": "technical.duration",
                "confidence": 1,
                "start": 122,
                "end": 124,
                "section": "technicalSpecs",
            },
        ],
        "meta": {"version": "nlp-v1", "source": "neuro-symbolic", "closedVocab": 3, "openVocab": 1},
        "judgeResult": {
            "scores": {"coverage": 3, "precision": 4, "granularity": 5, "taxonomy": 5, "technicalSpecs": 5},
            "totalScore": 22,
            "missedElements": [
                {
                    "text": "mist low on the water",
                    "expectedRole": "environment.weather",
                    "category": "environment",
                    "severity": "important",
                }
            ],
            "falsePositives": [
                {"text": "TECHNICAL SPECS", "assignedRole": "technical", "reason": "section_header", "spanIndex": 2}
            ],
            "taxonomyErrors": [],
            "granularityErrors": [],
            "categoryScores": CATS,
            "notes": "Missed the mist; extracted the section header.",
        },
        "error": None,
        "latencyMs": 900,
    }
    failed_judge = dict(
        good,
        promptId="vid-002",
        input="a fox in snow",
        output="Close-up of a red fox in snow.",
        spans=[],
        spanCount=0,
        judgeResult={
            "scores": dict.fromkeys(spans.SCORE_KEYS, 0),
            "totalScore": 0,
            "missedElements": [],
            "falsePositives": [],
            "taxonomyErrors": [],
            "granularityErrors": [],
            "categoryScores": {},
            "notes": "Judge failed: timeout",
        },
    )
    errored = {
        "promptId": "vid-003",
        "input": "x",
        "output": "",
        "spanCount": 0,
        "spans": [],
        "meta": None,
        "judgeResult": None,
        "error": "labeler crashed",
        "latencyMs": 5,
    }
    results = [good, failed_judge, errored]
    return {
        "timestamp": "2026-02-01T00:00:00.000Z",
        "promptCount": 3,
        "judgeModel": "judge-mini",
        "results": results,
        "summary": spans.summary(results),
    }


@pytest.fixture
def snap(tmp_path):
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(_snapshot()), encoding="utf-8")
    return path


def test_detection(snap, tmp_path):
    assert detect_format(snap) == "span-snapshot"
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"results": [{"promptId": "a"}]}))  # no judgeModel
    assert detect_format(other) is None
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert detect_format(broken) is None


def test_import_invented_snapshot(project, snap):
    report = import_source(project, snap)
    assert report.added == {
        "items": 2,
        "runs": 2,
        "verdicts": 1,
        "prompts": 1,
        "metrics": 2,
        "findings": 2,
        "snapshots": 1,
    }
    reasons = dict(report.skipped)
    assert reasons["result 1 (vid-002) verdict"].startswith("the judge failed (totalScore 0)")
    assert reasons["result 2 (vid-003)"] == "no output text (nothing was labeled)"
    assert any("equal: avgScore, avgCategoryScores" in n for n in report.notes)

    item = repo_items.item_by_name(project, "vid-001")
    assert (item.kind, item.text) == ("text", "a heron fishing at dawn")
    run = next(r for r in repo_runs.run_rows(project) if r["item"] == "vid-001")
    assert (run["prompt"], run["model"], run["timestamp"]) == ("span-labeling", "nlp-v1", "2026-02-01T00:00:00.000Z")
    stored = json.loads(run["output"])
    assert stored["text"].startswith("Wide shot of a grey heron") and len(stored["spans"]) == 4

    [v] = judging.verdicts(project)
    assert v.subject == f"run:{run['id']}" and v.run_id == run["id"]
    assert (v.judge, v.judge_model, v.method, v.scale) == ("judge-mini", "judge-mini", Method.RUBRIC, Scale.ORDINAL5)
    assert v.scores == {
        "coverage": 3.0,
        "precision": 4.0,
        "granularity": 5.0,
        "taxonomy": 5.0,
        "technicalSpecs": 5.0,
        "totalScore": 22.0,
    }
    assert v.issues_found == [
        'missed: "mist low on the water" (environment: environment.weather, important)',
        'false positive: "TECHNICAL SPECS" as technical (section_header) [span 2]',
    ]
    assert v.rationale == "Missed the mist; extracted the section header."
    assert json.loads(v.raw) == _snapshot()["results"][0]["judgeResult"]
    assert {f.code.value for f in repo_findings.findings(project)} == {
        "MISSED",
        "FALSE_POSITIVE",
    }  # span codes, not T-P5

    metrics = judging.subject_metrics(project)[v.subject]
    assert metrics["spansBySection"] == {"main": 2, "technicalSpecs": 2}
    assert metrics["pipeline"]["source"] == "neuro-symbolic"


def test_reimport_adds_nothing(project, snap):
    import_source(project, snap)
    again = import_source(project, snap)
    assert again.added == {}
    assert again.existing == {"items": 2, "runs": 2, "verdicts": 1, "prompts": 1, "metrics": 2, "snapshots": 1}
    assert len(judging.verdicts(project)) == 1


def test_name_taken_by_another_item_is_skipped(project, snap):
    repo_items.upsert_item(project, Item(name="vid-001", kind="photo", path="vid-001.jpg"))
    report = import_source(project, snap)
    assert dict(report.skipped)["result 0 (vid-001)"] == "item name 'vid-001' is taken by a different item"


def test_summary_block_that_disagrees_is_reported(project, tmp_path):
    data = _snapshot()
    data["summary"]["falsePositiveReasons"]["section_header"] = 5
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    report = import_source(project, path)
    assert any(n.startswith("summary falsePositiveReasons differs") and "computed 1, file 5" in n for n in report.notes)


def test_run_output_is_stable():
    result = _snapshot()["results"][0]
    assert run_output(result) == run_output(json.loads(json.dumps(result)))


# -- the real baseline -------------------------------------------------------------
@pytest.fixture(scope="module")
def baseline_path():
    path = shared("span-labeling") / "snapshots" / "baseline.json"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path


def test_baseline_imports_54_results_with_their_judge_errors(project, baseline_path):
    data = json.loads(baseline_path.read_text(encoding="utf-8"))
    assert detect_format(baseline_path) == "span-snapshot"
    report = import_source(project, baseline_path)
    assert report.skipped == []
    assert report.added == {
        "items": 54,
        "runs": 54,
        "verdicts": 54,
        "prompts": 1,
        "metrics": 54,
        "findings": 327,
        "snapshots": 1,
    }
    assert report.notes[0] == (
        "summary block recomputed from the results, equal: avgScore, avgSpanCount, "
        "errorCount, falsePositiveReasons, topTaxonomyErrors, errorsBySection, "
        "missedCountsByCategory, commonMissedElements, commonIncorrectExtractions, "
        "pipelineSources, spanSources, latencyStats, scoreDistribution"
    )
    # where the file's code disagrees with the design (see reviewer.core.spans.summary)
    assert [n.split(":")[0] for n in report.notes[1:]] == [
        "summary avgCategoryScores differs from the results",
        "summary confidenceAnalysis differs from the results",
        "summary",
        "summary",
    ]
    assert "10 judge errors name a spanIndex whose span has other text" in report.notes[3]
    assert "2 category score pairs with a value outside 1-5" in report.notes[4]

    verdicts = {v.source.split("#", 1)[1]: v for v in judging.verdicts(project)}
    assert len(verdicts) == 54
    for result in data["results"]:
        judge = result["judgeResult"]
        v = verdicts[result["promptId"]]
        assert v.judge == "gpt-4o-mini" and v.scale == Scale.ORDINAL5 and v.method == Method.RUBRIC
        assert v.scores == {
            **{k: float(judge["scores"][k]) for k in spans.SCORE_KEYS},
            "totalScore": float(judge["totalScore"]),
        }
        n_errors = sum(
            len(judge[k]) for k in ("missedElements", "falsePositives", "taxonomyErrors", "granularityErrors")
        )
        assert len(v.issues_found) == n_errors
        assert json.loads(v.raw) == judge
        assert v.rationale == judge["notes"]
    assert sum(len(v.issues_found) for v in verdicts.values()) == 153 + 81 + sum(
        len(r["judgeResult"]["taxonomyErrors"]) for r in data["results"]
    )

    # the stored raw judge JSON is enough to recompute the file's summary block
    stored = [{"judgeResult": json.loads(v.raw)} for v in judging.verdicts(project)]
    assert spans.category_averages(stored)["camera"] == data["summary"]["avgCategoryScores"]["camera"]
    assert spans.false_positive_reasons(stored) == data["summary"]["falsePositiveReasons"]
    assert [c.to_json() for c in spans.taxonomy_confusions(stored)] == data["summary"]["topTaxonomyErrors"]

    again = import_source(project, baseline_path)
    assert again.added == {} and again.skipped == []
    assert len(judging.verdicts(project)) == 54 and len(repo_runs.run_rows(project)) == 54


def test_cli_imports_baseline(tmp_path, baseline_path):
    db = tmp_path / "y.db"
    result = CliRunner().invoke(main, ["import", str(db), str(baseline_path)])
    assert result.exit_code == 0, result.output
    assert "format: span-snapshot" in result.output
    assert "added: 327 findings, 54 items, 54 metrics, 1 prompts, 54 runs, 1 snapshots, 54 verdicts" in result.output


def test_judge_errors_become_findings(project):
    """The judge's error lists become findings (one SpanCode each)."""
    import json
    from collections import Counter

    from reviewer.storage.importers import import_source
    from reviewer.storage.repo import findings as repo_findings
    from tests.helpers.paths import shared

    path = shared("span-labeling") / "snapshots" / "baseline.json"
    import_source(project, path)
    data = json.loads(path.read_text())
    expected = Counter()
    for r in data["results"]:
        judge = r.get("judgeResult") or {}
        for key, code in (
            ("missedElements", "MISSED"),
            ("falsePositives", "FALSE_POSITIVE"),
            ("taxonomyErrors", "TAXONOMY"),
            ("granularityErrors", "GRANULARITY"),
        ):
            expected[code] += len(judge.get(key) or [])
    found = Counter(f.code.value for f in repo_findings.findings(project))
    assert found == +expected
    assert all(f.source.value == "judge" and f.verdict_id for f in repo_findings.findings(project))
