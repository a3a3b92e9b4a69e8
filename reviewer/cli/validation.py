"""Commands that validate judges against people: alignment and gate
(reviewer.storage.judging.validation assembles, these print)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import click

from reviewer.cli.common import _friendly, echo, main
from reviewer.storage.db import open_project

RESAMPLES = click.option("--resamples", type=click.IntRange(min=100), default=2000, show_default=True,
                         help="Bootstrap resamples per interval.")
SEED = click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap resampling.")


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the alignment as JSON.")
@RESAMPLES
@SEED
@_friendly
def alignment(project: Path, as_json: bool, resamples: int, seed: int) -> None:
    """Print how well each judge of PROJECT agrees with people, per dimension
    and split: confusion matrix, per-class precision / recall / F1, kappa
    with its 95 % interval, MAE and Spearman's rho, TPR and TNR, the
    dangerous cells with their subjects, and the pass rate on unlabelled
    subjects corrected for the judge's errors (Rogan-Gladen)."""
    from reviewer.storage.judging.validation import alignment_json, alignment_text, project_alignments

    p = open_project(project)
    try:
        v = project_alignments(p, n_resamples=resamples, seed=seed)
    finally:
        p.close()
    echo(json.dumps(alignment_json(v), indent=2) if as_json else alignment_text(v), nl=as_json)


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--judge", required=True, help="The judge (as named by reviewer alignment).")
@click.option("--dimension", required=True, help="The dimension.")
@click.option("--min-kappa-lower", type=float, help="Lowest allowed lower end of kappa's 95 % interval.")
@click.option("--min-tpr", type=float, help="Lowest allowed TPR (share of people's passes the judge passes).")
@click.option("--min-tnr", type=float, help="Lowest allowed TNR (share of people's fails the judge fails).")
@click.option("--max-dangerous", type=click.IntRange(min=0), help="Most dangerous cells allowed.")
@click.option("--split", type=click.Choice(["all", "train", "dev", "test"]), default="all", show_default=True,
              help="The labelled subjects the figures rest on.")
@RESAMPLES
@SEED
@_friendly
def gate(project: Path, judge: str, dimension: str, min_kappa_lower: Optional[float], min_tpr: Optional[float],
         min_tnr: Optional[float], max_dangerous: Optional[int], split: str, resamples: int, seed: int) -> None:
    """CI gate: exit 1 naming each bound JUDGE fails on DIMENSION of PROJECT
    against people, with its figure; exit 0 printing the bounds that held."""
    from reviewer.storage.judging.validation import run_gate

    p = open_project(project)
    try:
        figures, checks = run_gate(p, judge, dimension, split=split, n_resamples=resamples, seed=seed,
                                   min_kappa_lower=min_kappa_lower, min_tpr=min_tpr, min_tnr=min_tnr,
                                   max_dangerous=max_dangerous)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        p.close()
    failed = [c for c in checks if not c.held]
    for c in checks:
        if c.held:
            echo(f"held: {c.text}")
    if failed:
        for c in failed:
            echo(f"Error: failed {c.text}", err=True)
        sys.exit(1)
    echo(f"gate passed: {judge} / {dimension}, {len(checks)} bound(s) held on {figures.n} labelled subjects "
         f"({split})")
