"""Commands on a project: init, import, score, export, export-gt, fidelity,
demo, open, compare, golden-export (report, agreement and adjudicate-gt are
in reviewer.cli.reports)."""

from __future__ import annotations

import importlib
import json
import os
import sys
from pathlib import Path

import click

from reviewer.cli.common import FAIL_ON, echo, friendly_errors, gate_verdicts, main, parse_pairs, read_only_note
from reviewer.cli.numbers import whole
from reviewer.core.cards.report import verdict_grid
from reviewer.core.models import AnswerSchema, BoxConvention
from reviewer.core.tables import text_table
from reviewer.storage.formats import FORMAT_NAMES
from reviewer.storage.project.db import ProjectError, open_project


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@friendly_errors
def init(project: Path) -> None:
    """Make an empty project file PROJECT."""
    if project.exists():
        raise click.ClickException(f"{project} exists already")
    open_project(project, create=True).close()
    echo(f"made {project}")


@main.command("import")
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("source", type=click.Path(path_type=Path))
@click.option("--model", help="Model name for runs whose source does not name one.")
@click.option(
    "--format", "fmt", metavar="FORMAT", help=f"Source format, detected if left out: {', '.join(FORMAT_NAMES)}."
)
@click.option(
    "--schema",
    "schemas",
    multiple=True,
    metavar="PROMPT=piles|cards|free",
    help="Override the answer schema read from a prompt's text.",
)
@click.option(
    "--box-convention",
    "conventions",
    multiple=True,
    metavar="PROMPT=0-1|0-1000|pixels",
    help="Override the box convention read from a prompt's text.",
)
@click.option("--create/--no-create", default=True, show_default=True, help="Make PROJECT if missing.")
@click.option(
    "--annotator",
    metavar="NAME",
    help="Whose ground truth a labelme, COCO or Label Studio source holds (left out: the consensus).",
)
@click.option(
    "--human",
    is_flag=True,
    help="Every verdict of SOURCE is a person's label (hand labels), never a "
    "judge: jsonl-verdicts, rubric-verdicts, tarot-readings.",
)
@friendly_errors
def import_cmd(
    project: Path,
    source: Path,
    model: str | None,
    fmt: str | None,
    schemas: tuple[str, ...],
    conventions: tuple[str, ...],
    create: bool,
    annotator: str | None,
    human: bool = False,
) -> None:
    """Import SOURCE into PROJECT: a card-photo folder, runs or verdicts as
    JSONL, pairwise judge datasets (PandaLM, LLMBar), ground-truth-judge
    experiment folders, rubric verdicts, span-labeling snapshots."""
    from reviewer.storage.importers import FORMATS, ImportOptions, detect_format, import_source, undetected
    from reviewer.storage.importers.base import HUMAN_FORMATS

    options = ImportOptions(
        model=model,
        schemas=parse_pairs(schemas, AnswerSchema, "SCHEMA"),
        conventions=parse_pairs(conventions, BoxConvention, "CONVENTION"),
        annotator=annotator,
        human=human,
    )
    if not source.exists():
        raise click.ClickException(f"no such file or folder: {source}")
    if fmt is not None and fmt not in FORMATS:
        raise click.ClickException(f"unknown format '{fmt}' (known: {', '.join(FORMATS)})")
    fmt = fmt or detect_format(source)
    if fmt is None:  # before the project file is made, so a failed import leaves none behind
        raise click.ClickException(undetected(source))
    if human and fmt not in HUMAN_FORMATS:
        raise click.ClickException(
            f"--human marks verdicts as a person's; {fmt} is not a verdict format ({', '.join(HUMAN_FORMATS)})"
        )
    p = open_project(project, create=create)
    try:
        if fmt == "batch-output":  # stored as a live run stores answers: the runner does it
            from reviewer.pipeline.batch import import_output

            report = import_output(p, source)
        else:
            report = import_source(p, source, fmt, options)
    finally:
        p.close()
    echo(report.summary())


def _echo_runs_json(p, vs) -> None:
    """Print {"runs": [...], "verdicts": [...]} (score --json): every scored
    run with both metric sets, its pile mapping and findings, streamed a
    chunk of runs at a time (memory O(chunk) however many runs)."""
    from reviewer.storage.cards.scored import iter_scored_runs

    echo('{\n  "runs": [', nl=False)
    first = True
    for r in iter_scored_runs(p, with_cards=False, with_output=False):
        run = {
            "run_id": r.run["id"],
            "item": r.run["item"],
            "prompt": r.run["prompt"],
            "model": r.run["model"],
            "repetition": r.run["repetition"],
            "metrics": r.auto.model_dump(mode="json"),
            "reviewed_metrics": r.reviewed.model_dump(mode="json"),
            "pile_mapping": r.facts.pile_mapping,
            "findings": [f.model_dump(mode="json", exclude={"run_id"}) for f in r.findings],
        }
        text = json.dumps(run, indent=2).replace("\n", "\n    ")
        echo(("\n    " if first else ",\n    ") + text, nl=False)
        first = False
    verdicts = json.dumps([v.model_dump(mode="json") for v in vs], indent=2).replace("\n", "\n  ")
    echo(("" if first else "\n  ") + '],\n  "verdicts": ' + verdicts + "\n}")


#: Items shown as columns by `reviewer score`; with more, only all items.
GRID_ITEMS = 12


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print every run's metrics and findings as JSON.")
@click.option("--strict", is_flag=True, help="Do not salvage broken JSON (no repaired runs).")
@click.option("--reviewed", is_flag=True, help="Show verdicts from reviewed (final) codes.")
@click.option(
    "--metrics",
    "metrics_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Rule metrics of test cases (TOML or YAML) to use instead of the CICADA preset; kept in the project.",
)
@click.option(
    "--jobs",
    type=whole(1, 1024),
    default=None,
    help="Worker processes for scoring, used from 5,000 runs on [default: the CPU cores].",
)
@FAIL_ON
@friendly_errors
def score(
    project: Path,
    as_json: bool,
    strict: bool,
    reviewed: bool,
    metrics_file: Path | None = None,
    fail_on: str | None = None,
    jobs: int | None = None,
) -> None:
    """Score every run of PROJECT (T-P5) and show the T-P1 verdicts; answers
    of test cases are scored by the rule metrics. With --fail-on, exit 1
    when a prompt's verdict is at or below that level."""
    from reviewer.storage.cards.scores import default_jobs, summarize
    from reviewer.storage.cases import cases as case_store
    from reviewer.storage.cases import report as case_report
    from reviewer.storage.scoring import score_project

    metrics = case_store.read_metrics_file(metrics_file) if metrics_file else None
    p = open_project(project)
    read_only_note(p)
    try:
        if metrics is not None:
            case_store.use_metrics(p, metrics)
        score_project(p, strict=strict, jobs=jobs or default_jobs())
        case_lines = case_report.case_score_lines(p)
        datasets = case_store.dataset_names(p)
        # the stored metrics, one pass: memory does not grow with the runs
        summary = summarize(p)
        vs = summary.reviewed if reviewed else summary.auto
        if as_json:
            _echo_runs_json(p, vs)
    finally:
        p.close()
    if as_json:
        gate_verdicts(vs, fail_on)
        return
    header, rows = verdict_grid(vs, max_items=GRID_ITEMS)
    # the answers of test cases are scored by the rule metrics (case_lines), not free text
    unscored = [name for name in summary.free_prompts if name not in datasets]
    basis = "reviewed (final) codes" if reviewed else "automatic findings (--reviewed: final codes)"
    if rows or not case_lines:
        echo(
            f"{summary.runs} runs scored{' (strict)' if strict else ''}, verdicts from {basis}; "
            f"cells: verdict, text accuracy, spatial (s), runs with hallucinations (h), valid JSON (j)"
        )
        echo(text_table(header, rows) if rows else "no scored prompt")
    items = len({v.item for v in vs if v.item != "*"})
    if items > GRID_ITEMS:
        echo(f"{items} items: per-item verdicts in 'reviewer report' and 'reviewer score --json'")
    if unscored:
        echo(f"not scored (free text): {', '.join(unscored)}")
    for line in case_lines:
        echo(line)
    gate_verdicts(vs, fail_on)


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--prices",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Per-token prices (JSON or YAML {model: {input, output}}) for the runs' cost.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace OUT (and its metadata file) even when it is a project, a file "
    "of another format or inside what the project was imported from.",
)
@friendly_errors
def export(project: Path, out: Path, prices: Path | None = None, force: bool = False) -> None:
    """Write the scored runs of PROJECT to the SQLite database OUT (replaced
    whole; an earlier export, or a new file), with a Datasette metadata file
    OUT.metadata.json beside it."""
    from reviewer.storage.export import export_project
    from reviewer.storage.judging.failter_report import load_prices

    try:
        price_table = load_prices(prices) if prices else None
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    p = open_project(project)
    read_only_note(p)
    try:
        counts = export_project(p, out, prices=price_table, force=force)
    finally:
        p.close()
    echo(f"wrote {out}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


@main.command("export-gt")
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("out", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["coco", "labelme", "label-studio"]),
    required=True,
    help="coco and label-studio: one JSON file OUT; labelme: a folder OUT with one JSON per photo.",
)
@click.option("--annotator", metavar="NAME", help="Whose ground truth (left out: the consensus).")
@click.option(
    "--images",
    type=click.Choice(["copy", "reference"]),
    default="copy",
    show_default=True,
    help="copy each photo beside its JSON (labelme: imagePath its bare name, as labelme saves) "
    "or under images/ beside OUT (coco, label-studio), so the export imports back; "
    "or reference it where it is (a relative path).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace OUT even when it is a project, a file of another format "
    "or inside what the project was imported from.",
)
@friendly_errors
def export_gt(project: Path, out: Path, fmt: str, annotator: str | None, images: str, force: bool) -> None:
    """Write the ground truth of PROJECT's photos to OUT in an annotation tool's format."""
    from reviewer.storage.gt_formats import export_ground_truth

    p = open_project(project)
    try:
        counts = export_ground_truth(p, out, fmt, annotator, force=force, images=images)
    finally:
        p.close()
    skipped = counts.pop("skipped", [])
    echo(f"wrote {out} ({counts.pop('annotator')}): " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    for line in skipped:
        echo(f"skipped {line}")


@main.command()
@click.argument("folder", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--diff", is_flag=True, help="Also list, per run, the findings that differ from the key.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@friendly_errors
def fidelity(folder: Path, diff: bool, as_json: bool) -> None:
    """Score the answers of an answer-key FOLDER (as ocr-runs-dev) and compare
    them with its hand-checked key: per-code precision, recall and F1, runs
    whose text accuracy is off by more than 0.05, HALLUC missed."""
    from reviewer.storage.cards.answer_key import fidelity as run_fidelity

    try:
        rep = run_fidelity(folder)
    except (OSError, ValueError, KeyError) as exc:
        raise ProjectError(f"{folder} is not an answer-key folder ({type(exc).__name__}: {exc})") from None
    if as_json:
        echo(
            json.dumps(
                {
                    "runs": rep.runs,
                    "f1": rep.f1,
                    "codes": {
                        c: {
                            "tp": s.tp,
                            "fp": s.fp,
                            "fn": s.fn,
                            "precision": s.precision,
                            "recall": s.recall,
                            "f1": s.f1,
                        }
                        for c, s in sorted(rep.codes.items())
                    },
                    "accuracy_off": [list(a) for a in rep.accuracy_off],
                    "halluc_missed": [[run, f[2]] for run, f in rep.halluc_missed],
                },
                indent=2,
            )
        )
        return
    for line in rep.lines():
        echo(line)
    if diff:
        from reviewer.core.cards.fidelity import diff_lines

        for text in diff_lines(rep):
            echo(text)
    echo(f"code F1 {rep.f1:.3f}")


def _sample_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "samples" / "cards"


def _text_samples(folder: Path) -> None:
    """Import each text-workflow sample into FOLDER/<workflow>.db and print
    one line per workflow (reviewer.cli.demo_samples)."""
    from reviewer.cli.demo_samples import TEXT_SAMPLES, import_text_sample

    for workflow in TEXT_SAMPLES:
        echo(import_text_sample(_sample_dir().parent, workflow, folder / f"{workflow}.db"))


@main.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path), default="reviewer-demo")
@friendly_errors
def demo(folder: Path) -> None:
    """Import the bundled card sample into FOLDER/sample.db, score it, print the
    verdicts and export FOLDER/sample-export.db; then import the spans, cases,
    failter, rubric, pairwise and promptfoo samples into FOLDER/<workflow>.db,
    one line each."""
    source = _sample_dir()
    if not source.is_dir():
        raise click.ClickException(f"the bundled sample is missing ({source})")
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "sample.db"
    ctx = click.get_current_context()
    ctx.invoke(
        import_cmd,
        project=db,
        source=source,
        model="illustrative-vlm",
        fmt=None,
        schemas=(),
        conventions=(),
        create=True,
    )
    ctx.invoke(score, project=db, as_json=False, strict=False, reviewed=False)
    ctx.invoke(export, project=db, out=folder / "sample-export.db")
    _text_samples(folder)


@main.command("open")
@click.argument("project", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--screenshot",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Render the window at 1600x1000 to this PNG after loading, then exit.",
)
@click.option("--item", help="Show this item first.")
@click.option("--prompt", help="Show the item's run of this prompt first.")
@click.option(
    "--mode",
    type=click.Choice(["review", "adjudication"]),
    default=None,
    help="Start in card review or in adjudication (settle disputed judge verdicts); "
    "by default adjudication for a project of judge verdicts without photos.",
)
@click.option(
    "--force",
    is_flag=True,
    help="--screenshot: replace the PNG even when it is not in reviewer's record of the files it wrote.",
)
def open_cmd(
    project: Path | None,
    screenshot: Path | None,
    item: str | None = None,
    prompt: str | None = None,
    mode: str | None = None,
    force: bool = False,
) -> None:
    """Open PROJECT (or the bundled sample) in the review window."""
    headless = not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    if headless and not os.environ.get("QT_QPA_PLATFORM"):
        if screenshot is None:
            raise click.ClickException("no display: run it on a desktop, under xvfb-run, or with --screenshot")
        os.environ["QT_QPA_PLATFORM"] = "offscreen"  # a screenshot needs no screen
    try:
        # The GUI is loaded by name so the command line works without Qt.
        gui = importlib.import_module("reviewer.qt.app")
    except ImportError as exc:
        raise click.ClickException(f"the review window is not available: {exc}") from None
    sys.exit(
        gui.run(project, screenshot=screenshot, sample=_sample_dir(), item=item, prompt=prompt, mode=mode, force=force)
    )


@main.command("compare")
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("baseline")
@click.argument("current")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@friendly_errors
def compare_cmd(project: Path, baseline: str, current: str, as_json: bool) -> None:
    """Compare two span-labeling snapshots of PROJECT, named by file stem
    (design property P10): score delta, regressions and improvements,
    category deltas, new and resolved taxonomy confusions, section deltas."""
    from reviewer.storage.spans import spans as span_store

    p = open_project(project)
    try:
        result = span_store.compare(p, baseline, current)
    finally:
        p.close()
    if as_json:
        echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    echo(span_store.compare_text(baseline, current, result))


@main.command("golden-export")
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("name")
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--force",
    is_flag=True,
    help="Replace OUT even when it is a project, a file of another format "
    "or inside what the project was imported from.",
)
@friendly_errors
def golden_export(project: Path, name: str, out: Path, force: bool) -> None:
    """Write golden set NAME (the file stem it was imported from) of PROJECT
    to OUT in its own golden-set format, with the golden spans as edited."""
    from reviewer.storage.spans import spans as span_store

    p = open_project(project)
    try:
        n = span_store.write_golden_set(p, name, out, force=force)
    finally:
        p.close()
    echo(f"wrote {out}: {n} prompts")
