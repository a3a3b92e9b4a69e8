"""A failter experiment folder (spec, inputs, templates, prices), the fake
model's answers to it, and a bare spec file: shared by the failter-run,
batch-file, export and reliability tests."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

MODELS = ("ollama/qwen3:8b", "openai/gpt-4o-mini")
PRICES = {"ollama/qwen3:8b": {"input": 0.0, "output": 0.0}, "openai/gpt-4o-mini": {"input": 1.5e-7, "output": 6e-7}}


def experiment(root: Path, retries: int = 0) -> Path:
    """3 inputs (one with front matter), ground truth for one, 2 templates,
    2 models; artifacts_dir and output_file as USAGE.md shows them."""
    exp = root / "exp1"
    for d in ("inputs", "ground-truth", "templates"):
        (exp / d).mkdir(parents=True)
    (exp / "inputs" / "doc0.md").write_text("---\ntitle: Doc 0\n---\n# Doc 0\nnarrative 0\n![](http://img/0.png)\n")
    for i in (1, 2):
        (exp / "inputs" / f"doc{i}.md").write_text(f"# Doc {i}\nnarrative {i}\n![](http://img/{i}.png)\n")
    (exp / "ground-truth" / "doc0.md").write_text("# Doc 0\nnarrative 0\n")
    (exp / "templates" / "clean-a.md").write_text("Remove images.\n\n{{INPUT_TEXT}}")
    (exp / "templates" / "clean-b.md").write_text("Clean the text.\n\n{{INPUT_TEXT}}")
    (exp / "prices.yml").write_text(yaml.safe_dump(PRICES))
    spec = exp / "spec.yml"
    spec.write_text(
        "version: 2\ninputs_dir: inputs\ntemplates_dir: templates\nartifacts_dir: artifacts\n"
        f"templates: [clean-a.md, clean-b.md]\nmodels: {json.dumps(list(MODELS))}\n"
        f"judge_model: openai/gpt-4o\nretries: {retries}\noutput_file: out/final-report.json\n"
    )
    return spec


def answers(judge_reply: str):
    """A server: judges (the prompt holds Failter's scoring instructions)
    reply ``judge_reply``; qwen thinks aloud before its answer."""

    def answer(body: dict, tag: str) -> str:
        text = json.dumps(body["messages"])
        if "Grading Scale" in text:
            return judge_reply
        if body["model"] == "ollama/qwen3:8b":
            return f"<think>pondering {tag}</think>\ncleaned {tag}\n"
        return f"cleaned {tag}\n"

    return answer


def failter_spec(tmp_path: Path, extra: str = "", templates: str = "[t.md]") -> Path:
    exp = tmp_path / "exp"
    (exp / "inputs").mkdir(parents=True)
    (exp / "templates").mkdir()
    (exp / "inputs" / "a.md").write_text("an input")
    (exp / "templates" / "t.md").write_text("Clean: {{INPUT_TEXT}}")
    spec = exp / "spec.yml"
    spec.write_text(
        f"{extra}\nversion: 2\ninputs_dir: inputs\ntemplates_dir: templates\nartifacts_dir: out\n"
        f"templates: {templates}\nmodels: [m]\njudge_model: j\n"
    )
    return spec
