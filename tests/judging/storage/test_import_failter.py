"""Failter experiment folders (ground-truth-judge-proposal.md) from the
fixture in tests/fixtures/failter: dual-judge/ (Path B, <model>/<prompt>/<doc>
layout, nested YAML .eval) and single-judge/ (Path A, results/<model>_<prompt>/
layout with Failter front matter, plain-line and YAML .eval)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewer.core.judging.verdicts import Method, Scale
from reviewer.storage.importers import detect_format, import_source
from reviewer.storage.importers.failter_files import front_matter, infer_score_scale, parse_eval, sanitize
from reviewer.storage.judging import calls
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.failter_report import failter_rows
from reviewer.storage.repo import items as repo_items
from reviewer.storage.repo import runs as repo_runs
from tests.helpers.paths import FIXTURES, SAMPLES

FIXTURE = FIXTURES / "failter"


def _verdicts_by_run(project) -> dict[tuple[str, str, str], list]:
    runs = {r["id"]: r for r in repo_runs.run_rows(project)}
    out: dict[tuple[str, str, str], list] = {}
    for v in judging.verdicts(project):
        r = runs[v.run_id]
        out.setdefault((r["item"], r["model"], r["prompt"]), []).append(v)
    return out


def test_detection():
    assert detect_format(FIXTURE) == "failter"
    assert detect_format(FIXTURE / "dual-judge") == "failter"
    assert detect_format(FIXTURE / "single-judge") == "failter"
    assert detect_format(FIXTURE / "dual-judge" / "inputs") is None
    assert detect_format(SAMPLES) == "card-folder"


def test_dual_judge_experiment(project):
    report = import_source(project, FIXTURE / "dual-judge")
    assert report.format == "failter"
    assert report.added == {"items": 3, "prompts": 1, "references": 1, "runs": 6, "verdicts": 7}
    by_run = _verdicts_by_run(project)
    gpt = {
        doc: by_run[(f"dual-judge/{doc}", "openai/gpt-4o-mini", "cleanup-v1")]
        for doc in ("doc1.md", "doc2.md", "doc3.md")
    }
    # the doc with ground truth has both judges, the others only the rules judge
    assert sorted((v.judge, v.method, v.scores["score"]) for v in gpt["doc1.md"]) == [
        ("gt-judge", Method.GROUND_TRUTH, 100.0),
        ("rules-judge", Method.RULES, 80.0),
    ]
    assert [(v.judge, v.scores["score"]) for v in gpt["doc2.md"]] == [("rules-judge", 100.0)]
    assert [(v.judge, v.scores["score"]) for v in gpt["doc3.md"]] == [("rules-judge", 60.0)]
    for vs in gpt.values():
        for v in vs:
            assert v.scale == Scale.GRADE and v.judge_model == "openai/gpt-4o" and v.prompt_version == "cleanup-v1"
            assert v.subject == f"run:{v.run_id}" and v.rationale and v.raw
    rules = next(v for v in gpt["doc1.md"] if v.judge == "rules-judge")
    assert rules.rationale.startswith("Removed the image") and "grade: B" in rules.raw
    assert rules.source == "dual-judge/openai/gpt-4o-mini/cleanup-v1/doc1.md.eval#rules_based_eval"

    # qwen: the unreadable ground-truth block is an undecided verdict (raw kept), the rules block kept
    qwen = by_run[("dual-judge/doc1.md", "qwen3-8b", "cleanup-v1")]
    assert [(v.judge, v.scores["score"]) for v in qwen] == [("rules-judge", 40.0), ("gt-judge", None)]
    assert qwen[1].rationale == "undecided: grade 'Excellent' is not one of A, B, C, D, F"
    assert "Excellent" in qwen[1].raw
    # a reply that is no judgement at all: an undecided rules-based verdict with the reply as raw
    [refusal] = by_run[("dual-judge/doc2.md", "qwen3-8b", "cleanup-v1")]
    assert (refusal.judge, refusal.scores, refusal.raw) == (
        "rules-judge",
        {"score": None},
        "I am sorry, but I cannot evaluate this output without more context.",
    )
    reasons = dict(report.skipped)
    assert reasons["dual-judge/qwen3-8b/cleanup-v1/doc4.md.eval"] == "no trial output beside it"
    assert len(report.skipped) == 1  # the .thoughts file is ignored, not skipped
    assert any("2 judgement(s) without a readable score" in n for n in report.notes)
    assert any("1 trial output(s) without an .eval" in n for n in report.notes)

    items = {i.name: i for i in repo_items.items(project)}
    assert items["dual-judge/doc1.md"].kind == "text" and "Subscribe now" in items["dual-judge/doc1.md"].text
    assert [s for s, _ in judging.references(project, items["dual-judge/doc1.md"].id)] == ["ground-truth"]
    assert judging.references(project, items["dual-judge/doc2.md"].id) == []
    prompt = next(p for p in repo_items.prompts(project) if p.name == "cleanup-v1")
    assert "{{INPUT_TEXT}}" in prompt.text and prompt.schema_.value == "free"

    again = import_source(project, FIXTURE / "dual-judge")
    assert again.added == {} and again.existing["verdicts"] == 7


def test_single_judge_experiment(project):
    report = import_source(project, FIXTURE / "single-judge")
    assert report.added == {"items": 3, "prompts": 1, "references": 1, "runs": 5, "verdicts": 4, "failed trials": 1}
    runs = {(r["item"], r["model"]): r for r in repo_runs.run_rows(project)}
    # front matter names the model and is not part of the output
    gpt1 = runs[("single-judge/doc1.md", "openai/gpt-4o-mini")]
    assert gpt1["prompt"] == "cleanup_v2" and gpt1["output"].startswith("---\ntitle: Notes from the allotment")
    assert "filtered-by-model" not in gpt1["output"]
    # no front matter: '<model>_<prompt>' split before the known template name
    assert runs[("single-judge/doc1.md", "qwen3-8b")]["prompt"] == "cleanup_v2"
    assert ("single-judge/doc2.md", "qwen3-8b") not in runs
    reasons = dict(report.skipped)
    [failed] = [f for f in calls.failed_answers(project)]
    assert (failed["item"], failed["model"], failed["prompt"]) == (
        "single-judge/doc2.md",
        "ollama/qwen3:8b",
        "cleanup_v2",
    )
    assert failed["error"].startswith("LLM call timed out")
    assert "unknown evaluation-method 'vibes'" in reasons["single-judge/results/qwen3-8b_cleanup_v2/doc3.md.eval"]

    by_run = _verdicts_by_run(project)
    doc1 = by_run[("single-judge/doc1.md", "openai/gpt-4o-mini", "cleanup_v2")]
    assert [(v.judge, v.method, v.scale, v.scores) for v in doc1] == [
        ("gt-judge", Method.GROUND_TRUTH, Scale.ORDINAL5, {"score": 5.0})
    ]
    assert "Note: paragraph breaks are identical too." in doc1[0].rationale  # plain lines, several of them
    doc2 = by_run[("single-judge/doc2.md", "openai/gpt-4o-mini", "cleanup_v2")]
    assert [(v.judge, v.scale, v.scores["score"]) for v in doc2] == [("rules-judge", Scale.ORDINAL5, 4.0)]
    doc3 = by_run[("single-judge/doc3.md", "openai/gpt-4o-mini", "cleanup_v2")]  # '<doc>.eval', fenced YAML
    assert [(v.judge, v.scale, v.scores["score"]) for v in doc3] == [("rules-judge", Scale.GRADE, 80.0)]
    assert doc3[0].source == "single-judge/results/openai-gpt-4o-mini_cleanup_v2/doc3.eval"
    qwen = by_run[("single-judge/doc1.md", "qwen3-8b", "cleanup_v2")]
    assert [(v.judge, v.scores["score"]) for v in qwen] == [("gt-judge", 3.0)]
    assert any("read as 1-5" in n for n in report.notes)


def test_whole_fixture_folder_imports_both_experiments(project):
    report = import_source(project, FIXTURE)
    assert report.added["items"] == 6 and report.added["verdicts"] == 11
    assert import_source(project, FIXTURE).added == {}


def _experiment(root: Path, evals: dict[str, str]) -> Path:
    exp = root / "exp"
    (exp / "inputs").mkdir(parents=True)
    out = exp / "outputs" / "m" / "p"
    out.mkdir(parents=True)
    for doc, text in evals.items():
        (exp / "inputs" / doc).write_text(f"input {doc}")
        (out / doc).write_text(f"output {doc}")
        (out / f"{doc}.eval").write_text(text)
    return exp


def test_score_scale_is_decided_per_experiment(project, tmp_path):
    exp = _experiment(
        tmp_path,
        {
            "a.md": "score: 85\nrationale: fine\nevaluation-method: rules-based\n",
            "b.md": "score: 4\nrationale: small\nevaluation-method: rules-based\n",
            "c.md": "score: 4\nscale: 1-5\nrationale: declared\nevaluation-method: rules-based\n",
            "d.md": "score: 140\nrationale: too much\nevaluation-method: rules-based\n",
            "e.md": "score: 9\nscale: 1-5\nevaluation-method: rules-based\n",
            "f.md": "rationale: no score at all\nevaluation-method: ground-truth\n",
        },
    )
    report = import_source(project, exp)
    by_item = {repo_runs.run_rows(project, [v.run_id])[0]["item"]: v for v in judging.verdicts(project)}
    assert (by_item["exp/a.md"].scale, by_item["exp/a.md"].scores) == (Scale.PERCENT, {"score": 85.0})
    assert (by_item["exp/b.md"].scale, by_item["exp/b.md"].scores) == (Scale.PERCENT, {"score": 4.0})
    assert (by_item["exp/c.md"].scale, by_item["exp/c.md"].scores) == (Scale.ORDINAL5, {"score": 4.0})
    undecided = {name: v.rationale for name, v in by_item.items() if v.scores["score"] is None}
    assert undecided == {
        "exp/d.md": "undecided: score 140 is off its scale 0-100",
        "exp/e.md": "undecided: score 9 is off its scale 1-5",
        "exp/f.md": "undecided: no grade or score",
    }
    assert report.skipped == [] and report.added["runs"] == 6


def test_parse_eval_forms():
    plain = "score: 4\nrationale: Kept it: mostly.\nMore on a second line.\nevaluation-method: ground-truth\n"
    (j,), problems = parse_eval(plain)
    assert (j.method, j.score, j.grade, problems) == (Method.GROUND_TRUTH, 4.0, None, [])
    assert j.rationale == "Kept it: mostly.\nMore on a second line."
    (j,), problems = parse_eval("grade: b+\nrationale: ok\n")
    assert (j.method, j.grade, j.scale) == (Method.RULES, "B", Scale.GRADE)
    assert problems == ["no evaluation-method: read as rules-based"]
    found, problems = parse_eval("rules_based_eval:\n  score: 70\n  judge_model: m1\nground_truth_eval: oops\n")
    assert [(j.method, j.score, j.judge_model, j.problem) for j in found] == [
        (Method.RULES, 70.0, "m1", ""),
        (Method.GROUND_TRUTH, None, None, "ground_truth_eval is not a mapping"),
    ]
    with pytest.raises(ValueError, match="unknown evaluation-method"):
        parse_eval("grade: A\nevaluation-method: failed\n")
    (j,), _ = parse_eval("grade: E\n")
    assert j.grade is None and "not one of" in j.problem
    (j,), _ = parse_eval("")
    assert j.method == Method.RULES and j.problem
    (j,), _ = parse_eval("score: null\nerror: 'judge request failed: 500'\nevaluation-method: ground-truth\n")
    assert (j.method, j.score, j.problem) == (
        Method.GROUND_TRUTH,
        None,
        "the judgement failed: judge request failed: 500",
    )
    assert infer_score_scale([1, 5, 3.5]) == Scale.ORDINAL5
    assert infer_score_scale([0, 4]) == Scale.PERCENT
    assert sanitize("ollama/qwen3:8b") == "ollama-qwen3-8b" and sanitize("prompt_v1.md") == "prompt_v1"
    meta, body = front_matter("---\nfiltered-by-model: m\n---\nbody\n")
    assert meta == {"filtered-by-model": "m"} and body == "body\n"
    assert front_matter("---\ntitle: mine\n---\nbody") == (None, "---\ntitle: mine\n---\nbody")


def _failter_artifact(path: Path, meta: dict, body: str) -> None:
    """An output as Failter's runner writes it (frontmatter.clj serialize:
    '---', the YAML map in block style, '---', the body)."""
    import yaml

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\n" + yaml.safe_dump(meta, default_flow_style=False, sort_keys=False) + "---\n" + body)


def test_bare_failter_v2_artifacts_folder(project, tmp_path):
    """`failter run spec.yml` from tmp_path with inputs_dir ./exp1/inputs and
    artifacts_dir ./results/run-001/artifacts: the artifacts folder alone
    imports, its inputs found through each output's source-input-path."""
    exp = tmp_path / "exp1"
    (exp / "inputs").mkdir(parents=True)
    (exp / "ground_truth").mkdir()
    (exp / "templates").mkdir()
    (exp / "inputs" / "doc1.md").write_text("---\ntitle: Doc 1\n---\n# Doc 1\n![](x.png) text one\n")
    (exp / "inputs" / "doc2.md").write_text("# Doc 2\ntext two\n")
    (exp / "ground_truth" / "doc1.md").write_text("# Doc 1\ntext one\n")
    (exp / "templates" / "cleanup-v1.md").write_text("Remove images.\n\n{{INPUT_TEXT}}")
    art = tmp_path / "results" / "run-001" / "artifacts"
    # the spec `failter run` was given: it makes tmp_path the experiment folder, the
    # only place an output's source-input-path is looked up
    (tmp_path / "spec.yml").write_text(
        "version: 2\ninputs_dir: ./exp1/inputs\ntemplates_dir: ./exp1/templates\n"
        "artifacts_dir: ./results/run-001/artifacts\n"
    )
    usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    for model, folder in (
        ("openai/gpt-4o-mini", "openai-gpt-4o-mini_cleanup-v1"),
        ("ollama/qwen3:8b", "ollama-qwen3-8b_cleanup-v1"),
    ):
        for doc in ("doc1.md", "doc2.md"):
            # one model's paths as written relative to where failter ran, the other's absolute on another machine
            where = f"./exp1/inputs/{doc}" if model.startswith("openai") else f"/home/pat/work/exp1/inputs/{doc}"
            meta = {"title": "Doc 1"} if doc == "doc1.md" else {}
            meta.update(
                {
                    "filtered-by-model": model,
                    "filtered-by-template": "cleanup-v1.md",
                    "source-input-path": where,
                    "source-template-path": "./exp1/templates/cleanup-v1.md",
                    "total-trial-time-ms": 812,
                }
            )
            out = art / folder / doc
            if model.startswith("ollama") and doc == "doc2.md":
                meta.update({"error": "Read timed out", "retry-attempts": 1, "errors-on-retry": ["Read timed out"]})
                _failter_artifact(out, meta, "")
                continue
            meta.update({"execution-time-ms": 790, "retry-attempts": 0, "errors-on-retry": [], "token-usage": usage})
            _failter_artifact(out, meta, f"# {doc} cleaned by {model}\n")
            method = "ground-truth" if doc == "doc1.md" else "rules-based"
            score = {"openai/gpt-4o-mini": 80, "ollama/qwen3:8b": 60}[model] if doc == "doc1.md" else 100
            (out.parent / (doc + ".eval")).write_text(
                f"score: {score}\nrationale: Removed the image.\n"
                f"evaluation-method: {method}\njudge-model: openai/gpt-4o\n"
            )
    (art / "ollama-qwen3-8b_cleanup-v1" / "doc1.md.thoughts").write_text("thinking")
    _failter_artifact(
        art / "openai-gpt-4o-mini_cleanup-v1" / "doc9.md",
        {
            "filtered-by-model": "openai/gpt-4o-mini",
            "filtered-by-template": "cleanup-v1.md",
            "source-input-path": "./exp1/inputs/doc9.md",
        },
        "orphan\n",
    )

    assert detect_format(art) == "failter" and detect_format(art.parent) == "failter"
    report = import_source(project, art)
    assert report.format == "failter"
    assert report.added == {"items": 2, "prompts": 1, "references": 1, "runs": 3, "verdicts": 3, "failed trials": 1}, (
        report.summary()
    )
    skipped = dict(report.skipped)
    [failed] = calls.failed_answers(project)  # the failed trial: an error, with its message and retries
    assert (failed["item"], failed["model"], failed["error"], failed["attempts"]) == (
        "exp1/doc2.md",
        "ollama/qwen3:8b",
        "Read timed out",
        2,
    )
    rows = {r.model: r for r in failter_rows(project)}
    assert (rows["ollama/qwen3:8b"].trials, rows["ollama/qwen3:8b"].errors) == (2, 1)
    assert rows["ollama/qwen3:8b"].avg_score == pytest.approx((60 + 0) / 2)  # the failed trial scores 0
    assert (rows["openai/gpt-4o-mini"].avg_time_s, rows["openai/gpt-4o-mini"].avg_tokens) == (0.79, 120)
    assert "./exp1/inputs/doc9.md was not found" in skipped["artifacts/openai-gpt-4o-mini_cleanup-v1/doc9.md"]
    items = {i.name: i for i in repo_items.items(project)}
    assert set(items) == {"exp1/doc1.md", "exp1/doc2.md"}  # as `reviewer run spec.yml` names them
    assert items["exp1/doc1.md"].text.endswith("text one\n")
    assert judging.references(project, items["exp1/doc1.md"].id) == [("ground-truth", "# Doc 1\ntext one\n")]
    [prompt] = repo_items.prompts(project)
    assert prompt.name == "cleanup-v1" and prompt.text.startswith("Remove images.")
    runs = {(r["item"], r["model"]): r for r in repo_runs.run_rows(project)}
    assert set(runs) == {
        ("exp1/doc1.md", "openai/gpt-4o-mini"),
        ("exp1/doc2.md", "openai/gpt-4o-mini"),
        ("exp1/doc1.md", "ollama/qwen3:8b"),
    }
    assert runs[("exp1/doc1.md", "ollama/qwen3:8b")]["output"] == "# doc1.md cleaned by ollama/qwen3:8b\n"
    by_run = _verdicts_by_run(project)
    [gt] = by_run[("exp1/doc1.md", "openai/gpt-4o-mini", "cleanup-v1")]
    assert (gt.judge, gt.method, gt.scale, gt.scores) == (
        "gt-judge",
        Method.GROUND_TRUTH,
        Scale.PERCENT,
        {"score": 80.0},
    )
    [rules] = by_run[("exp1/doc2.md", "openai/gpt-4o-mini", "cleanup-v1")]
    assert rules.method == Method.RULES and rules.scores == {"score": 100.0} and rules.judge_model == "openai/gpt-4o"
    again = import_source(project, art)
    assert not any(again.added.values()), again.summary()
