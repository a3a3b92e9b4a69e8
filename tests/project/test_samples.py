"""The bundled samples (samples/README.md): make_samples.py writes them
deterministically and equal to the committed files; each text-workflow
sample imports with its format detected and its report has the workflow's
section; ``reviewer demo`` imports every sample, one line per workflow."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.cli.demo_samples import TEXT_SAMPLES
from reviewer.storage.importers import detect_format

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
SCRIPT = SAMPLES / "make_samples.py"
TEXT_FOLDERS = ("spans", "cases", "failter", "rubric", "promptfoo", "inspect")


def _files(folder: Path) -> dict[str, bytes]:
    """{relative path: bytes} of the generated files under ``folder``."""
    out = {"README.md": (folder / "README.md").read_bytes()}
    for sub in ("cards", *TEXT_FOLDERS):
        for f in sorted((folder / sub).rglob("*")):
            if f.is_file():
                out[f.relative_to(folder).as_posix()] = f.read_bytes()
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> tuple[dict, dict]:
    """Two runs of make_samples.py into fresh folders."""
    runs = []
    for name in ("first", "second"):
        out = tmp_path_factory.mktemp(name)
        subprocess.run([sys.executable, str(SCRIPT), str(out)], check=True, capture_output=True, timeout=300)
        runs.append(_files(out))
    return runs[0], runs[1]


def test_make_samples_is_deterministic(generated):
    first, second = generated
    assert set(first) == set(second)
    assert [k for k in first if first[k] != second[k]] == []
    assert any(k.startswith("failter/results/") for k in first) and "spans/golden-set.json" in first


def test_committed_samples_equal_the_script(generated):
    first, _ = generated
    committed = _files(SAMPLES)
    assert set(committed) == set(first)
    assert [k for k in first if first[k] != committed[k]] == []


@pytest.mark.parametrize(
    "rel,fmt",
    [
        ("spans/golden-set.json", "span-golden-set"),
        ("spans/golden-set-results-latest.json", "span-golden-results"),
        ("cases/orchard-line.json", "test-cases"),
        ("cases/answers.jsonl", "jsonl-runs"),
        ("failter", "failter"),
        ("rubric", "tarot-readings"),
        ("promptfoo/results.json", "promptfoo-results"),
        ("inspect/quiz.json", "inspect-log"),
    ],
)
def test_sample_format_is_detected(rel, fmt):
    assert detect_format(SAMPLES / rel) == fmt


# workflow -> strings its report must hold (the workflow's section and a figure only the sample gives)
SECTIONS = {
    "spans": ("### Span F1 of model:sample-labeler against golden spans", "| relaxed | all | 16 | 14 | 11 |"),
    "cases": ("totalCases", "| careful-model | auto | 4 | 3 | 1 |", "| hasty-model | auto | 4 | 1 | 3 |"),
    "failter": (
        "| Model | Prompt | Judge | Eval_Method |",
        "| tidy-model | cleanup | rules-judge | rules-based | A-F | 1 | 100.00 |",
        "| sloppy-model | cleanup | gt-judge | ground-truth | 1-5 | 1 | 60.00 |",  # 3 of 5 in points
    ),
    "rubric": (
        "| sample-reader | tarot-reading | judge-a | rubric | 1-5 | 3 | 46.67 |",  # 2.33 of 5 in points
        "| judge-a vs judge-b | overall | percent_agreement | 0.000 |",
    ),
    "promptfoo": ("| contains vs llm-rubric | pass | percent_agreement | 0.500 |",),
    "inspect": ("| match vs model_graded_qa | score | percent_agreement | 0.833 |",),
}


@pytest.mark.parametrize("workflow", TEXT_FOLDERS)
def test_sample_imports_and_reports(tmp_path, workflow):
    runner = CliRunner()
    db = tmp_path / f"{workflow}.db"
    for rel in TEXT_SAMPLES[workflow]:
        result = runner.invoke(main, ["import", str(db), str(SAMPLES / rel), "--create"])
        assert result.exit_code == 0, result.output
        assert "added:" in result.output and "skipped" not in result.output, result.output
    again = runner.invoke(main, ["import", str(db), str(SAMPLES / TEXT_SAMPLES[workflow][-1])])
    assert again.exit_code == 0 and "added: nothing" in again.output, again.output
    report = runner.invoke(main, ["report", str(db)])
    assert report.exit_code == 0, report.output
    for text in SECTIONS[workflow]:
        assert text in report.output, (text, report.output[:3000])


def test_demo_prints_one_line_per_workflow(tmp_path):
    result = CliRunner().invoke(main, ["demo", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert (tmp_path / "demo" / "sample.db").is_file()
    for workflow in TEXT_FOLDERS:
        [line] = [ln for ln in lines if ln.startswith(f"{workflow}: {workflow}.db: ")]
        assert (tmp_path / "demo" / f"{workflow}.db").is_file()
        assert " 0 items" not in line and " 0 runs" not in line
    assert "relaxed span F1 0.733 (model:sample-labeler)" in result.output
    assert "rubric: rubric.db: 3 items, 3 runs, 6 verdicts" in lines
    assert "passed 3/4 cases (careful-model), passed 1/4 cases (hasty-model)" in result.output
    # a second demo in the same folder adds nothing and prints the same lines
    again = CliRunner().invoke(main, ["demo", str(tmp_path / "demo")])
    assert again.exit_code == 0
    assert [ln for ln in again.output.splitlines() if ln.split(":")[0] in TEXT_FOLDERS] == [
        ln for ln in lines if ln.split(":")[0] in TEXT_FOLDERS
    ]
