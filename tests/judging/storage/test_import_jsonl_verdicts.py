"""Generic JSONL verdicts: grouping of dimension lines into verdicts, pairs,
skip reasons, detection before jsonl-runs, idempotency."""

from __future__ import annotations

import json
from pathlib import Path

from reviewer.core.judging.verdicts import Method, Scale
from reviewer.storage.importers import detect_format, import_source
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.repo import runs as repo_runs


def _write(path: Path, lines: list) -> Path:
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def _runs(project, tmp_path) -> dict[tuple[str, str, int], int]:
    src = _write(
        tmp_path / "runs.jsonl",
        [
            {"item": "doc1", "prompt": "summarise", "model": "m1", "repetition": 1, "output": "short"},
            {"item": "doc1", "prompt": "summarise", "model": "m2", "repetition": 1, "output": "long"},
            {"item": "doc2", "prompt": "summarise", "model": "m1", "repetition": 1, "output": "a"},
            {"item": "doc2", "prompt": "summarise", "model": "m1", "repetition": 2, "output": "b"},
        ],
    )
    assert detect_format(src) == "jsonl-runs"
    import_source(project, src)
    return {(r["item"], r["model"], r["repetition"]): r["id"] for r in repo_runs.run_rows(project)}


def test_grouping_pairs_and_skips(project, tmp_path):
    runs = _runs(project, tmp_path)
    r1, r2 = runs[("doc1", "m1", 1)], runs[("doc1", "m2", 1)]
    ref = {"item": "doc1", "prompt": "summarise", "model": "m1"}
    src = _write(
        tmp_path / "verdicts.jsonl",
        [
            {
                "run": r1,
                "judge": "j1",
                "dimension": "accuracy",
                "value": 4,
                "scale": "1-5",
                "rationale": "mostly right",
                "judge_model": "gpt-4o",
            },
            {"run": ref, "judge": "j1", "dimension": "tone", "value": "5", "scale": "1-5", "rationale": "polite"},
            {"run": r1, "judge": "j1", "dimension": "overall", "value": 9, "scale": "1-5"},
            {"run": r1, "judge": "j2", "dimension": "grade", "value": "B", "scale": "A-F", "method": "ground-truth"},
            {
                "run": r1,
                "other_run": r2,
                "judge": "pj",
                "dimension": "winner",
                "value": "1",
                "scale": "winner",
                "answer_order": "ab",
                "rationale": "first is better",
            },
            {
                "run": r1,
                "other_run": r2,
                "judge": "pj",
                "dimension": "winner",
                "value": "garbage",
                "scale": "winner",
                "answer_order": "ba",
            },
            {"run": 9999, "judge": "j1", "dimension": "tone", "value": 3, "scale": "1-5"},
            {"run": r1, "judge": "j3", "dimension": "tone", "value": 3, "scale": "1-10"},
            "{not json",
            {"run": r1, "judge": "j1", "dimension": "tone", "value": "pass", "scale": "pass/fail"},
            {
                "run": {"item": "doc2", "prompt": "summarise", "model": "m1"},
                "judge": "j1",
                "dimension": "tone",
                "value": 3,
                "scale": "1-5",
            },
            {"run": r1, "judge": "j4", "dimension": "tone", "value": 3, "scale": "1-5", "method": "vibes"},
            {"run": r1, "judge": "j4", "dimension": "tone", "value": 3, "scale": "1-5", "answer_order": "xy"},
            {"judge": "j4", "dimension": "tone", "value": 3, "scale": "1-5"},
            "",
            {
                "run": {"item": "doc2", "prompt": "summarise", "model": "m1", "repetition": 2},
                "judge": "j1",
                "dimension": "tone",
                "value": 2,
                "scale": "1-5",
            },
        ],
    )
    assert detect_format(src) == "jsonl-verdicts"
    report = import_source(project, src)
    assert report.format == "jsonl-verdicts"
    verdicts = {(v.subject, v.judge, v.answer_order): v for v in judging.verdicts(project)}
    assert len(verdicts) == 5 and report.added == {"verdicts": 5}

    j1 = verdicts[(f"run:{r1}", "j1", None)]
    assert j1.scores == {"accuracy": 4.0, "tone": 5.0, "overall": None}
    assert (j1.method, j1.scale, j1.judge_model) == (Method.RUBRIC, Scale.ORDINAL5, "gpt-4o")
    assert j1.rationale == "accuracy: mostly right\ntone: polite"
    assert len(j1.raw.splitlines()) == 3 and '"value": 9' in j1.raw
    assert j1.source == "verdicts.jsonl:1-3"
    j2 = verdicts[(f"run:{r1}", "j2", None)]
    assert (j2.method, j2.scale, j2.scores) == (Method.GROUND_TRUTH, Scale.GRADE, {"grade": 80.0})
    ab = verdicts[(f"pair:{r1}:{r2}", "pj", "ab")]
    ba = verdicts[(f"pair:{r1}:{r2}", "pj", "ba")]
    assert (ab.method, ab.other_run_id, ab.scores, ab.rationale) == (
        Method.PAIRWISE,
        r2,
        {"winner": "1"},
        "first is better",
    )
    assert ba.scores == {"winner": None} and "garbage" in ba.raw
    assert verdicts[(f"run:{runs[('doc2', 'm1', 2)]}", "j1", None)].scores == {"tone": 2.0}

    reasons = dict(report.skipped)
    assert reasons["line 7"] == "unknown run 9999"
    assert reasons["line 8"].startswith("unknown scale '1-10'")
    assert reasons["line 9"].startswith("not JSON")
    assert "differ from line 1" in reasons["line 10"]
    assert "ambiguous" in reasons["line 11"]
    assert reasons["line 12"].startswith("unknown method 'vibes'")
    assert "answer_order" in reasons["line 13"]
    assert reasons["line 14"].startswith("run:")
    assert len(report.skipped) == 8
    assert any("line 3: value 9 is not on scale 1-5" in n for n in report.notes)
    assert any("line 6: value 'garbage'" in n for n in report.notes)

    again = import_source(project, src)
    assert again.added == {} and again.existing == {"verdicts": 5}


def test_detection_needs_judge_and_dimension_on_the_first_line(tmp_path):
    runs = _write(tmp_path / "runs.jsonl", [{"item": "a", "prompt": "p", "model": "m", "output": "x"}])
    assert detect_format(runs) == "jsonl-runs"
    verdicts = _write(
        tmp_path / "v.ndjson", ["", {"run": 1, "judge": "j", "dimension": "d", "value": 1, "scale": "1-5"}]
    )
    assert detect_format(verdicts) == "jsonl-verdicts"
    broken = _write(tmp_path / "b.jsonl", ["{oops"])
    assert detect_format(broken) == "jsonl-runs"
