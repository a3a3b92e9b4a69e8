"""Commands on a project's verdicts: report (the verdict report), agreement
(the agreement statistics and dispute counts, after refreshing the
disputes) and adjudicate-gt (settle a ground-truth dispute); report and
agreement take rubric rules with --rules."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import click

from reviewer.cli.common import echo, friendly_errors, main, read_only_note, weights_option
from reviewer.cli.numbers import ROW_ID
from reviewer.cli.validation import BY, slices_by
from reviewer.core.tables import text_table
from reviewer.storage.project.db import open_project

#: --rules of report and agreement: the rubric rules the verdicts are checked against.
RULES = click.option(
    "--rules",
    "rules_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Rubric rules (TOML or YAML) to check verdicts against instead of the tarot plan's "
    "(resources/tarot-rules.toml); kept in the project.",
)


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "csv", "json"]),
    default="md",
    show_default=True,
    help="The same sections in each; csv: every table with a first column 'table'; json: the project's "
    "sections as one object, the test-case report (the seed's list, one report per model) under test_cases, "
    "or that list alone when it is the only section (docs/commands.md: report --format json).",
)
@click.option(
    "--weights",
    default="0.5:0.5",
    show_default=True,
    callback=weights_option,
    metavar="RULES:GT",
    help="Weights of the rules-based and ground-truth judges in Avg_Score (normalised to sum 1).",
)
@click.option(
    "--charts",
    "charts_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Save the calibration and confusion charts (SVG and PNG) into this folder.",
)
@click.option(
    "--prices",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Per-token prices (JSON or YAML {model: {input, output}}) for the Failter report's Avg_Cost.",
)
@click.option(
    "--compare",
    "compare_pair",
    metavar="A,B",
    default=None,
    help="Test cases: compare two models or two dates (YYYY-MM-DD) side by side, with the cases that flipped.",
)
@click.option(
    "--basis",
    type=click.Choice(["auto", "reviewed"]),
    default="auto",
    show_default=True,
    help="Test cases, --format json: the checks as fired or after the decisions.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace a chart even when it is not in reviewer's record of the files it wrote (changed since, or written by an earlier version).",
)
@RULES
@friendly_errors
def report(
    project: Path,
    fmt: str,
    weights: tuple[float, float],
    charts_dir: Path | None,
    prices: Path | None = None,
    compare_pair: str | None = None,
    basis: str = "auto",
    rules_file: Path | None = None,
    force: bool = False,
) -> None:
    """Print the verdict report of PROJECT as Markdown or CSV: card-reading
    verdicts and findings (when there are scored card runs) and judge
    verdicts, agreement, disputes and calibration (when there are verdicts)."""
    from reviewer.storage.cases.report import parse_compare
    from reviewer.storage.report import ReportOptions, build_report

    try:
        pair = parse_compare(compare_pair) if compare_pair else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--compare") from None
    rules = _read_rules(rules_file)
    options = ReportOptions(
        fmt=fmt,
        weights=weights,
        charts_dir=charts_dir,
        prices=prices,
        compare=pair,
        basis=basis,
        title=project.name,
        force=force,
    )
    p = open_project(project)
    read_only_note(p)
    try:
        _use_rules(p, rules, rules_file)
        built = build_report(p, options)
    finally:
        p.close()
    echo(built.text, nl=False)
    for note in built.notes:
        echo(note, err=True)


def _agreement_by(project: Path, by: str, as_json: bool) -> None:
    """The judges' agreement statistics per slice of the items' metadata
    field ``by`` (disputes are not refreshed; annotators' ground truth is
    left out)."""
    from reviewer.core.judging.agreement_intervals import with_intervals
    from reviewer.storage.judging.disputes import verdict_agreement
    from reviewer.storage.judging.validation import AGREEMENT_HEADER, agreement_markdown_rows

    p = open_project(project)
    try:
        found = [
            (name, subjects, with_intervals(verdict_agreement(p, subjects))) for name, subjects in slices_by(p, by)
        ]
    finally:
        p.close()
    if as_json:
        data = [
            {"slice": name, "subjects": len(subjects or ()), "agreement": [r.as_dict() for r in rows]}
            for name, subjects, rows in found
        ]
        echo(json.dumps({"by": by, "slices": data}, indent=2))
        return
    for name, subjects, rows in found:
        echo(f"== {by} = {name} ({len(subjects or ())} subjects) ==")
        echo(text_table(AGREEMENT_HEADER, agreement_markdown_rows(rows)) if rows else "no agreement statistics")


def _read_rules(path: Path | None):
    """The rubric rules of --rules FILE (ProjectError, one line, when unusable), or None."""
    from reviewer.storage.judging.rubric_rules import read_rules_file

    return read_rules_file(path) if path is not None else None


def _use_rules(p, rules, path: Path | None) -> None:
    """Keep --rules in the project, so every later refresh of the disputes uses them."""
    if rules is not None and path is not None:
        from reviewer.storage.judging.rubric_rules import use_rules

        use_rules(p, rules, path.name)


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the statistics and dispute counts as JSON.")
@BY
@RULES
@friendly_errors
def agreement(project: Path, as_json: bool, by: str | None = None, rules_file: Path | None = None) -> None:
    """Refresh the disputes of PROJECT, then print the agreement statistics of
    its judges, humans and adjudications with 95 % bootstrap intervals
    (ci_low, ci_high, ci_method) and class prevalence (undefined values:
    null in JSON); then the anchoring of label-first labels per reviewer
    (first vs final, judge vs first, judge vs final) and which judges'
    figures with people are stale (a changed template or model)."""
    from reviewer.core.judging.verdicts import DisputeKind
    from reviewer.storage.dispute_queue import agreement_with_intervals, refresh_disputes
    from reviewer.storage.judging import labels
    from reviewer.storage.judging.validation import AGREEMENT_HEADER, agreement_markdown_rows

    rules = _read_rules(rules_file)
    if by is not None:
        _agreement_by(project, by, as_json)
        return
    p = open_project(project)
    read_only_note(p)
    try:
        _use_rules(p, rules, rules_file)
        found = refresh_disputes(p)
        rows = agreement_with_intervals(p)
        anchoring, anchoring_rows = labels.anchoring_figures(p)
        stale = labels.stale_figures(p)
    finally:
        p.close()
    by_kind = Counter(d.kind.value for d in found)
    disputes: dict[str, Any] = {"total": len(found), "by_kind": {k.value: by_kind.get(k.value, 0) for k in DisputeKind}}
    if as_json:
        echo(
            json.dumps(
                {
                    "agreement": [r.as_dict() for r in rows],
                    "disputes": disputes,
                    **labels.anchoring_json(anchoring, anchoring_rows, stale),
                },
                indent=2,
            )
        )
        return
    if rows:
        echo(text_table(AGREEMENT_HEADER, agreement_markdown_rows(rows)))
    else:
        echo("no agreement statistics: no two raters share a subject")
    echo(f"\n{len(found)} disputes: " + ", ".join(f"{n} {k}" for k, n in disputes["by_kind"].items()))
    if anchoring:
        echo("\nAnchoring (label-first labels; the gap judge vs final minus judge vs first measures it):")
        echo(text_table(labels.ANCHORING_HEADER, labels.anchoring_table(anchoring, anchoring_rows)))
    for st in stale:
        echo(st.text())


@main.command("adjudicate-gt")
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("dispute", type=ROW_ID, metavar="DISPUTE")
@click.option("--side", required=True, metavar="ANNOTATOR", help="The annotator whose ground truth is right.")
@click.option("--rationale", default="", help="Why.")
@click.option("--reviewer", "who", metavar="NAME", help="Who decides (default: REVIEWER_NAME or the login name).")
@friendly_errors
def adjudicate_gt(project: Path, dispute: int, side: str, rationale: str, who: str | None) -> None:
    """Settle ground-truth dispute DISPUTE of PROJECT (ids: reviewer agreement
    --json or the export's disputes) for one annotator: the consensus, which
    scoring uses, takes that side, and the item's runs are re-scored."""
    from reviewer.storage.dispute_queue import refresh_disputes
    from reviewer.storage.gt_adjudication import adjudicate as adjudicate_ground_truth

    p = open_project(project)
    try:
        p.require_writable("adjudicate")
        refresh_disputes(p)
        adjudicate_ground_truth(p, dispute, side, who, rationale)
    finally:
        p.close()
    echo(f"dispute {dispute}: the consensus takes {side}'s side")
