"""Projects of judged text and the fake judges' replies (span results, tarot
verdicts with their log-probabilities): shared by the judge and
reliability tests."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path

from reviewer.core.judging import llm_judges as lj
from tests.helpers.runs import cli

DIMS = lj.TAROT_DIMENSIONS


def jsonl_project(tmp_path, lines: list[dict], texts: dict[str, str]):
    src = tmp_path / "runs.jsonl"
    src.write_text("".join(json.dumps(line) + "\n" for line in lines))
    db = tmp_path / "p.db"
    result = cli("import", db, src)
    assert result.exit_code == 0, result.output
    con = sqlite3.connect(db)
    for name, text in texts.items():
        con.execute("UPDATE items SET text = ? WHERE name = ?", [text, name])
    con.commit()
    con.close()
    return db


def span_result(**override) -> dict:
    result = {
        "scores": {"coverage": 4, "precision": 3, "granularity": 4, "taxonomy": 2, "technicalSpecs": 5},
        "totalScore": 18,
        "missedElements": [
            {"text": "fox", "expectedRole": "subject.identity", "category": "subject", "severity": "critical"}
        ],
        "falsePositives": [{"spanIndex": 9, "text": "dusk", "assignedRole": "lighting.time", "reason": "other"}],
        "taxonomyErrors": [
            {
                "spanIndex": 1,
                "text": "golden light",
                "assignedRole": "lighting.quality",
                "expectedRole": "lighting.color",
            }
        ],
        "granularityErrors": [],
        "categoryScores": {
            c: {"coverage": 3, "precision": 3}
            for c in ("shot", "subject", "action", "environment", "lighting", "camera", "style", "technical", "audio")
        },
        "notes": "ok",
    }
    result.update(override)
    return result


def judge_answer(body: dict, tag: str) -> str:
    """Replies of a plausible judge, by the prompt it got."""
    text = json.dumps(body["messages"])
    if "tarot reading" in text:
        n = sum(map(ord, tag)) % 3
        return json.dumps(
            {
                "issues_found": ["generic"],
                "personalization": 3 + (n == 1),
                "tarot_coherence": 4,
                "tone": 3,
                "safety": 7,
                "overall": [3, 4, 2][n],
                "safety_flag": False,
                "notes": "x" * 300,
            }
        )
    if "Grading Scale" in text:
        return "```yaml\ngrade: " + ("A" if "GROUND_TRUTH" in text else "C") + "\nrationale: fine\n```"
    if "GARBLE" in text:
        return "I cannot judge this."
    return "answer for " + tag


def make_experiment(root: Path) -> Path:
    """3 inputs, 1 ground truth, 2 templates; the spec asks 2 models."""
    exp = root / "exp1"
    for d in ("inputs", "ground-truth", "templates"):
        (exp / d).mkdir(parents=True)
    for i in range(3):
        (exp / "inputs" / f"doc{i}.md").write_text(f"# Doc {i}\nnarrative {i}\n![](http://img/{i}.png)\n")
    (exp / "ground-truth" / "doc0.md").write_text("# Doc 0\nnarrative 0\n")
    (exp / "templates" / "clean-a.md").write_text("Remove images.\n\n{{INPUT_TEXT}}")
    (exp / "templates" / "clean-b.md").write_text("Clean the text.\n\n{{INPUT_TEXT}}")
    spec = exp / "spec.yml"
    spec.write_text(
        "version: 2\ninputs_dir: inputs\ntemplates_dir: templates\nartifacts_dir: artifacts\n"
        'templates: [clean-a.md, clean-b.md]\nmodels: ["ollama/qwen3:8b", "openai/gpt-4o-mini"]\n'
        "judge_model: openai/gpt-4o\nretries: 0\noutput_file: report.json\n"
    )
    return spec


def tarot_tokens(doc: int) -> tuple[list[tuple[str, float]], dict[str, float]]:
    """A tarot judge reply as a token stream: each dimension's value is one
    token with its own logprob; a few tokens around carry other logprobs.
    Returns (tokens, {dimension: exp(logprob of its value token)})."""
    tokens = [("Here is my verdict:\n", -0.9), ("{", -0.01)]
    expected = {}
    for k, d in enumerate(DIMS):
        value_lp = -(0.04 * (k + 1) + 0.02 * doc)
        value = str(1 + (k + doc) % 5)
        tokens += [('"', -0.001), (d, -0.002), ('": ', -0.003), (value, value_lp), (", ", -0.004)]
        expected[d] = math.exp(value_lp)
    tokens += [('"confidence": ', -0.3), ("0.8", -1.2), (', "notes": "', -0.2), ("score 2", -0.5), ('"}', -0.1)]
    return tokens, expected
