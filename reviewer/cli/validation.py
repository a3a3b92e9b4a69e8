"""Commands that validate judges against people: alignment and gate
(reviewer.storage.judging.validation assembles, these print)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Optional

import click

from reviewer.cli.common import _friendly, _one_line, echo, main
from reviewer.cli.numbers import SEED as SEED_TYPE, SHARE, finite, whole
from reviewer.storage.db import open_project

RESAMPLES = click.option(
    "--resamples",
    type=whole(100, 1_000_000),
    default=2000,
    show_default=True,
    help="Bootstrap resamples per interval.",
)
SEED = click.option("--seed", type=SEED_TYPE, default=0, show_default=True, help="Seed of the bootstrap resampling.")


#: The gate's guards against too little: how many labelled subjects, and the
#: family error its interval bounds share (reviewer.core.judging.validation_gate).
MIN_LABELLED = click.option(
    "--min-labelled",
    type=whole(1, 1_000_000_000),
    default=30,
    show_default=True,
    help="Refuse (exit 3) when fewer labelled subjects (with a people's value) stand behind the figures.",
)
FAMILY_ALPHA = click.option(
    "--family-alpha",
    type=finite(0.0001, 0.5),
    default=0.05,
    show_default=True,
    help="Error level shared by the k interval bounds checked (kappa, TPR, TNR): each at 1 - alpha/k (Bonferroni).",
)


def _trust_options(f):
    """Selective judging's settings (reviewer.core.judging.selective)."""
    for option in reversed(
        [
            click.option(
                "--tolerance",
                type=finite(0, 100),
                default=0.0,
                show_default=True,
                help="Numeric scales: a value within this of people's counts as right.",
            ),
            click.option(
                "--metric",
                type=click.Choice(["accuracy", "precision", "kappa"]),
                default="accuracy",
                show_default=True,
                help="Selective judging: the agreement with people to reach.",
            ),
            click.option(
                "--target",
                type=finite(-1, 1),
                default=0.8,
                show_default=True,
                help="Selective judging: the agreement the lower bound must reach.",
            ),
            click.option(
                "--alpha",
                type=finite(0.0001, 0.5),
                default=0.05,
                show_default=True,
                help="Selective judging: error level of the one-sided bound.",
            ),
            click.option(
                "--min-n",
                type=whole(1, 1_000_000_000),
                default=50,
                show_default=True,
                help="Selective judging: fewest labelled verdicts above a threshold to test it.",
            ),
        ]
    ):
        f = option(f)
    return f


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the calibration as JSON.")
@click.option(
    "--charts",
    "charts_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write each reliability diagram as PNG into this folder.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace a chart even when it is not in reviewer's record of the files it wrote (changed since, or written by an earlier version).",
)
@_trust_options
@_friendly
def calibration(
    project: Path,
    as_json: bool,
    charts_dir: Optional[Path],
    force: bool,
    tolerance: float,
    metric: str,
    target: float,
    alpha: float,
    min_n: int,
) -> None:
    """Print how honest each judge's confidence is, per judge, dimension and
    confidence source (logprob, stated, imported; span confidences too),
    against people's values: ECE (15 equal-width bins), adaptive ECE (15
    equal-mass bins), Brier, the mean confidence of right and wrong
    verdicts; and selective judging: the lowest confidence above which the
    judge reaches --target with a one-sided bound, and the share of runs it
    then covers."""
    from reviewer.storage.judging.calibration_report import (
        CalibrationSettings,
        calibration_json,
        calibration_rows,
        calibration_text,
        write_reliability_charts,
    )
    from reviewer.storage.spans.confidences import span_confidences

    settings = CalibrationSettings(tolerance=tolerance, metric=metric, target=target, alpha=alpha, min_n=min_n)
    p = open_project(project)
    try:
        rows = calibration_rows(p, settings, span_confidences(p))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        p.close()
    written = write_reliability_charts(charts_dir, rows, force=force) if charts_dir is not None else []
    if as_json:
        data = calibration_json(rows, settings)
        data["charts"] = [str(w) for w in written]
        echo(json.dumps(data, indent=2))
    else:
        echo(calibration_text(rows, settings) + "".join(f"chart: {w}\n" for w in written), nl=False)


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the alignment as JSON.")
@click.option(
    "--half-width",
    type=finite(0.001, 1),
    default=0.1,
    show_default=True,
    help="Label budget: the 95 % interval half-width wanted on kappa, TPR and TNR.",
)
@RESAMPLES
@SEED
@_friendly
def alignment(project: Path, as_json: bool, half_width: float, resamples: int, seed: int) -> None:
    """Print how well each judge of PROJECT agrees with people, per dimension
    and split: confusion matrix, per-class precision / recall / F1, kappa
    with its 95 % interval, MAE and Spearman's rho, TPR and TNR, the
    dangerous cells with their subjects, and the pass rate on unlabelled
    subjects corrected for the judge's errors (Rogan-Gladen), and the label
    budget: the further labels for a 95 % interval of half-width
    --half-width on kappa, TPR and TNR."""
    from reviewer.storage.judging.label_budget import budget_json, budget_text
    from reviewer.storage.judging.validation import alignment_json, alignment_text, project_alignments

    p = open_project(project)
    try:
        v = project_alignments(p, n_resamples=resamples, seed=seed)
    finally:
        p.close()
    if as_json:
        data = alignment_json(v)
        for entry, budget in zip(data["alignments"], budget_json(v.items, half_width)):
            entry["label_budget"] = budget
        echo(json.dumps(data, indent=2))
    else:
        budget = budget_text(v.items, half_width)
        echo(alignment_text(v) + (budget if budget else ""), nl=False)


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--judge", required=True, help="The judge (as named by reviewer alignment).")
@click.option("--dimension", required=True, help="The dimension.")
@click.option("--min-kappa-lower", type=finite(-1, 1), help="Lowest allowed lower end of kappa's 95 % interval.")
@click.option(
    "--min-tpr",
    type=SHARE,
    help="Lowest allowed Clopper-Pearson lower bound of TPR (share of people's passes the judge passes).",
)
@click.option(
    "--min-tnr",
    type=SHARE,
    help="Lowest allowed Clopper-Pearson lower bound of TNR (share of people's fails the judge fails).",
)
@click.option("--max-dangerous", type=whole(0, 1_000_000_000), help="Most dangerous cells allowed.")
@click.option(
    "--split",
    type=click.Choice(["all", "train", "dev", "test"]),
    default="all",
    show_default=True,
    help="The labelled subjects the figures rest on.",
)
@click.option(
    "--min-coverage",
    type=SHARE,
    help="Selective judging: fail unless a confidence "
    "threshold reaches the trust target and trusts at least this share of the judge's verdicts.",
)
@click.option(
    "--confidence-source",
    type=click.Choice(["logprob", "stated", "imported", "span"]),
    help="--min-coverage: the confidence used (default the first the judge has, in this order).",
)
@MIN_LABELLED
@FAMILY_ALPHA
@_trust_options
@RESAMPLES
@SEED
@_friendly
def gate(
    project: Path,
    judge: str,
    dimension: str,
    min_kappa_lower: Optional[float],
    min_tpr: Optional[float],
    min_tnr: Optional[float],
    max_dangerous: Optional[int],
    split: str,
    min_coverage: Optional[float],
    confidence_source: Optional[str],
    tolerance: float,
    metric: str,
    target: float,
    alpha: float,
    min_n: int,
    min_labelled: int,
    family_alpha: float,
    resamples: int,
    seed: int,
) -> None:
    """CI gate: exit 1 naming each bound JUDGE fails on DIMENSION of PROJECT
    against people, with its figure; exit 0 printing the bounds that held;
    exit 3 refusing, in one line, when fewer than --min-labelled labelled
    subjects stand behind the figures; exit 2 on bad input. --min-tpr and
    --min-tnr compare Clopper-Pearson lower bounds; the interval bounds
    share --family-alpha (Bonferroni). --min-coverage checks selective
    judging (reviewer calibration) with its own --alpha."""
    from reviewer.core.judging.alignment import Figures
    from reviewer.core.judging.validation_gate import BoundCheck, family_line
    from reviewer.storage.judging.calibration_report import CalibrationSettings, coverage_check
    from reviewer.storage.judging.validation import TooFewLabelled, run_gate
    from reviewer.storage.spans.confidences import span_confidences

    bounds: dict[str, Any] = dict(
        min_kappa_lower=min_kappa_lower, min_tpr=min_tpr, min_tnr=min_tnr, max_dangerous=max_dangerous
    )
    k = sum(b is not None for b in (min_kappa_lower, min_tpr, min_tnr))
    p = open_project(project)
    try:
        figures: Optional[Figures] = None
        checks: list[BoundCheck] = []
        if min_coverage is None or any(b is not None for b in bounds.values()):
            figures, checks = run_gate(
                p,
                judge,
                dimension,
                split=split,
                n_resamples=resamples,
                seed=seed,
                min_labelled=min_labelled,
                family_alpha=family_alpha,
                **bounds,
            )
        if min_coverage is not None:
            settings = CalibrationSettings(tolerance=tolerance, metric=metric, target=target, alpha=alpha, min_n=min_n)
            checks.append(
                coverage_check(
                    p,
                    judge,
                    dimension,
                    min_coverage,
                    source=confidence_source,
                    settings=settings,
                    span_confidences=span_confidences(p),
                )
            )
    except TooFewLabelled as exc:
        echo(f"Error: {_one_line(exc)}", err=True)
        sys.exit(3)
    except ValueError as exc:
        echo(f"Error: {_one_line(exc)}", err=True)
        sys.exit(2)
    finally:
        p.close()
    if k:
        echo(family_line(k, family_alpha))
    failed = [c for c in checks if not c.held]
    for c in checks:
        if c.held:
            echo(f"held: {c.text}")
    if failed:
        for c in failed:
            echo(f"Error: failed {c.text}", err=True)
        sys.exit(1)
    where = f" on {figures.n} labelled subjects ({split})" if figures is not None else ""
    echo(f"gate passed: {judge} / {dimension}, {len(checks)} bound(s) held{where}")
