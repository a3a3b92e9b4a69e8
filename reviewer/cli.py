"""The reviewer command line: thin commands over core and storage.

Every command exits 0 on success and prints a one-line ``Error: ...`` with
a non-zero status for a missing file, a corrupt database or an unknown format.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import sqlite3
import sys
from collections import Counter
from pathlib import Path
from typing import Optional

import click

from reviewer import __version__
from reviewer.core.judging.verdicts import DisputeKind
from reviewer.core.models import AnswerSchema, BoxConvention
from reviewer.core.cards.report import (
    findings_per_code,
    markdown_table,
    text_table,
    verdict_grid,
    verdict_rows,
    verdicts_csv,
)
from reviewer.core.text import visible
from reviewer.storage.db import Project, ProjectError, open_project
from reviewer.storage.export import export_project
from reviewer.storage.importers import FORMATS, ImportOptions, detect_format, import_source
from reviewer.storage.judge_report import (
    build_judge_report,
    has_verdicts,
    judge_report_csv,
    judge_report_markdown,
    parse_weights,
)
from reviewer.storage.judge_stats import agreement_table, refresh_disputes
from reviewer.storage.scores import score_project, scored_runs, verdicts
from reviewer.storage import spans as span_store


def _one_line(text: object) -> str:
    return visible(text, keep_newlines=False)


def _friendly(func):
    """Turn expected failures into a one-line error and exit status 1
    (control and bidi characters in it made visible)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except click.ClickException as exc:
            exc.message = _one_line(exc.message)
            raise
        except ProjectError as exc:
            raise click.ClickException(_one_line(exc)) from None
        except sqlite3.DatabaseError as exc:
            raise click.ClickException(_one_line(f"database error: {exc}")) from None
        except (FileNotFoundError, PermissionError, IsADirectoryError) as exc:
            raise click.ClickException(_one_line(f"{exc.strerror}: {exc.filename}")) from None

    return wrapper


def echo(text: object = "", err: bool = False, nl: bool = True) -> None:
    """Print text that may hold names from files (models, judges, items):
    control and bidi characters are made visible (core.text.visible), so
    they cannot drive the terminal or reorder what is shown."""
    click.echo(visible(text), err=err, nl=nl)


def _read_only_note(p: Project) -> None:
    if p.read_only:
        echo(f"note: {p.path} is read-only ({p.read_only}): scores and disputes are computed "
             "but not saved", err=True)


def _pairs(values: tuple[str, ...], kind, what: str) -> dict:
    out = {}
    for v in values:
        name, sep, val = v.partition("=")
        if not sep:
            raise click.BadParameter(f"expected PROMPT={what}, got '{v}'")
        try:
            out[name] = kind(val)
        except ValueError:
            choices = ", ".join(k.value for k in kind)
            raise click.BadParameter(f"'{val}' is not one of {choices}") from None
    return out


@click.group(invoke_without_command=True)
@click.version_option(__version__, prog_name="reviewer")
@click.pass_context
def main(ctx: click.Context) -> None:
    """reviewer: check how well language and vision-language models did
    their job. Without a command, opens the window on the bundled sample."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(open_cmd, project=None, screenshot=None)


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@_friendly
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
@click.option("--format", "fmt", metavar="FORMAT", help=f"Source format, detected if left out: {', '.join(FORMATS)}.")
@click.option("--schema", "schemas", multiple=True, metavar="PROMPT=piles|cards|free",
              help="Override the answer schema read from a prompt's text.")
@click.option("--box-convention", "conventions", multiple=True, metavar="PROMPT=0-1|0-1000|pixels",
              help="Override the box convention read from a prompt's text.")
@click.option("--create/--no-create", default=True, show_default=True, help="Make PROJECT if missing.")
@_friendly
def import_cmd(project: Path, source: Path, model: Optional[str], fmt: Optional[str],
               schemas: tuple[str, ...], conventions: tuple[str, ...], create: bool) -> None:
    """Import SOURCE into PROJECT: a card-photo folder, runs or verdicts as
    JSONL, pairwise judge datasets (PandaLM, LLMBar), ground-truth-judge
    experiment folders, rubric verdicts, span-labeling snapshots."""
    options = ImportOptions(model=model, schemas=_pairs(schemas, AnswerSchema, "SCHEMA"),
                            conventions=_pairs(conventions, BoxConvention, "CONVENTION"))
    if not source.exists():
        raise click.ClickException(f"no such file or folder: {source}")
    if fmt is not None and fmt not in FORMATS:
        raise click.ClickException(f"unknown format '{fmt}' (known: {', '.join(FORMATS)})")
    fmt = fmt or detect_format(source)
    if fmt is None:  # before the project file is made, so a failed import leaves none behind
        raise click.ClickException(f"cannot tell the format of {source}; give --format ({', '.join(FORMATS)})")
    p = open_project(project, create=create)
    try:
        report = import_source(p, source, fmt, options)
    finally:
        p.close()
    echo(report.summary())


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print every run's metrics and findings as JSON.")
@click.option("--strict", is_flag=True, help="Do not salvage broken JSON (no repaired runs).")
@click.option("--reviewed", is_flag=True, help="Show verdicts from reviewed (final) codes.")
@_friendly
def score(project: Path, as_json: bool, strict: bool, reviewed: bool) -> None:
    """Score every run of PROJECT (T-P5) and show the T-P1 verdicts."""
    p = open_project(project)
    _read_only_note(p)
    try:
        score_project(p, strict=strict)
        runs = scored_runs(p)
        vs = verdicts(p, reviewed=reviewed, runs=runs)
    finally:
        p.close()
    if as_json:
        echo(json.dumps({
            "runs": [{
                "run_id": r.run["id"], "item": r.run["item"], "prompt": r.run["prompt"],
                "model": r.run["model"], "repetition": r.run["repetition"],
                "metrics": r.auto.model_dump(mode="json"),
                "reviewed_metrics": r.reviewed.model_dump(mode="json"),
                "pile_mapping": r.facts.pile_mapping,
                "findings": [f.model_dump(mode="json", exclude={"run_id"}) for f in r.findings],
            } for r in runs],
            "verdicts": [v.model_dump(mode="json") for v in vs],
        }, indent=2))
        return
    header, rows = verdict_grid(vs)
    unscored = sorted({r.run["prompt"] for r in runs if r.run["schema"] == AnswerSchema.FREE.value})
    basis = "reviewed (final) codes" if reviewed else "automatic findings (--reviewed: final codes)"
    echo(f"{len(runs)} runs scored{' (strict)' if strict else ''}, verdicts from {basis}; "
               f"cells: verdict, text accuracy, spatial (s), runs with hallucinations (h), valid JSON (j)")
    echo(text_table(header, rows) if rows else "no scored prompt")
    if unscored:
        echo(f"not scored (free text): {', '.join(unscored)}")


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@_friendly
def export(project: Path, out: Path) -> None:
    """Write the scored runs of PROJECT to the SQLite database OUT."""
    p = open_project(project)
    _read_only_note(p)
    try:
        counts = export_project(p, out)
    finally:
        p.close()
    echo(f"wrote {out}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


def _weights(ctx, param, value: str) -> tuple[float, float]:
    try:
        return parse_weights(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["md", "csv"]), default="md", show_default=True)
@click.option("--weights", default="0.5:0.5", show_default=True, callback=_weights, metavar="RULES:GT",
              help="Weights of the rules-based and ground-truth judges in Avg_Score (normalised to sum 1).")
@click.option("--charts", "charts_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Save the calibration and confusion charts (SVG and PNG) into this folder.")
@_friendly
def report(project: Path, fmt: str, weights: tuple[float, float], charts_dir: Optional[Path]) -> None:
    """Print the verdict report of PROJECT as Markdown or CSV: card-reading
    verdicts and findings (when there are scored card runs) and judge
    verdicts, agreement, disputes and calibration (when there are verdicts)."""
    p = open_project(project)
    _read_only_note(p)
    try:
        score_project(p, only_stale=True)
        runs = scored_runs(p)
        auto, rev = verdicts(p, runs=runs), verdicts(p, reviewed=True, runs=runs)
        judged = has_verdicts(p)
        try:
            jr = build_judge_report(p, weights, charts_dir) if judged else None
        except OSError as exc:
            raise click.ClickException(f"cannot write the charts to {charts_dir}: {exc}") from None
        span_md = span_store.report_markdown(p) if fmt == "md" and span_store.has_span_data(p) else ""
    finally:
        p.close()
    cards = any(r.run["schema"] != AnswerSchema.FREE.value for r in runs) or not judged
    if fmt == "csv":
        parts = ([verdicts_csv(auto, rev)] if cards else []) + ([judge_report_csv(jr)] if jr else [])
        echo("\n".join(parts), nl=False)
        return
    echo(f"# reviewer report: {project.name}\n")
    if cards:
        echo("## T-P1 verdicts\n")
        echo(markdown_table(*verdict_rows(auto, rev)))
        echo("\n## Findings per code (final codes)\n")
        echo(markdown_table(*findings_per_code((r.run["prompt"], r.findings) for r in runs)))
    if jr:
        echo(("\n" if cards else "") + judge_report_markdown(jr), nl=False)
    elif charts_dir is not None:
        echo("no charts: the project has no judge verdicts", err=True)
    if span_md:
        echo("\n" + span_md, nl=False)


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the statistics and dispute counts as JSON.")
@_friendly
def agreement(project: Path, as_json: bool) -> None:
    """Refresh the disputes of PROJECT, then print the agreement statistics of
    its judges, humans and adjudications (undefined values: null in JSON)."""
    p = open_project(project)
    _read_only_note(p)
    try:
        found = refresh_disputes(p)
        rows = agreement_table(p)
    finally:
        p.close()
    by_kind = Counter(d.kind.value for d in found)
    disputes = {"total": len(found), "by_kind": {k.value: by_kind.get(k.value, 0) for k in DisputeKind}}
    if as_json:
        echo(json.dumps({"agreement": [r.as_dict() for r in rows], "disputes": disputes}, indent=2))
        return
    if rows:
        echo(text_table(["raters", "dimension", "statistic", "value", "n", "note"],
                              [[r.raters, r.dimension, r.statistic, r.formatted(), str(r.n), r.note] for r in rows]))
    else:
        echo("no agreement statistics: no two raters share a subject")
    echo(f"\n{len(found)} disputes: " + ", ".join(f"{n} {k}" for k, n in disputes["by_kind"].items()))


def _sample_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "samples" / "cards"


@main.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path), default="reviewer-demo")
@_friendly
def demo(folder: Path) -> None:
    """Import the bundled sample into FOLDER/sample.db, score it, print the
    verdicts and export FOLDER/sample-export.db."""
    source = _sample_dir()
    if not source.is_dir():
        raise click.ClickException(f"the bundled sample is missing ({source})")
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "sample.db"
    ctx = click.get_current_context()
    ctx.invoke(import_cmd, project=db, source=source, model="illustrative-vlm", fmt=None,
               schemas=(), conventions=(), create=True)
    ctx.invoke(score, project=db, as_json=False, strict=False, reviewed=False)
    ctx.invoke(export, project=db, out=folder / "sample-export.db")


@main.command("open")
@click.argument("project", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--screenshot", type=click.Path(dir_okay=False, path_type=Path),
              help="Render the window at 1600x1000 to this PNG after loading, then exit.")
@click.option("--item", help="Show this item first.")
@click.option("--prompt", help="Show the item's run of this prompt first.")
@click.option("--mode", type=click.Choice(["review", "adjudication"]), default=None,
              help="Start in card review or in adjudication (settle disputed judge verdicts); "
                   "by default adjudication for a project of judge verdicts without photos.")
def open_cmd(project: Optional[Path], screenshot: Optional[Path], item: Optional[str] = None,
             prompt: Optional[str] = None, mode: Optional[str] = None) -> None:
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
    sys.exit(gui.run(project, screenshot=screenshot, sample=_sample_dir(), item=item, prompt=prompt, mode=mode))


@main.command("compare")
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("baseline")
@click.argument("current")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@_friendly
def compare_cmd(project: Path, baseline: str, current: str, as_json: bool) -> None:
    """Compare two span-labeling snapshots of PROJECT, named by file stem
    (design property P10): score delta, regressions and improvements,
    category deltas, new and resolved taxonomy confusions, section deltas."""
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
@_friendly
def golden_export(project: Path, name: str, out: Path) -> None:
    """Write golden set NAME (the file stem it was imported from) of PROJECT
    to OUT in its own golden-set format, with the golden spans as edited."""
    p = open_project(project)
    try:
        n = span_store.write_golden_set(p, name, out)
    finally:
        p.close()
    echo(f"wrote {out}: {n} prompts")


if __name__ == "__main__":  # pragma: no cover
    main()
