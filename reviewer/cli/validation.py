"""Commands that validate judges against people: alignment and gate
(reviewer.storage.judging.validation assembles, these print)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from reviewer.cli.common import echo, friendly_errors, main, one_line
from reviewer.cli.numbers import SEED as SEED_TYPE
from reviewer.cli.numbers import SHARE, finite, whole
from reviewer.storage.project.db import open_project

RESAMPLES = click.option(
    "--resamples",
    type=whole(100, 1_000_000),
    default=2000,
    show_default=True,
    help="Bootstrap resamples per interval.",
)
SEED = click.option("--seed", type=SEED_TYPE, default=0, show_default=True, help="Seed of the bootstrap resampling.")


BY = click.option(
    "--by",
    metavar="FIELD",
    help="Give every figure per slice: the items' metadata FIELD (e.g. subset, category); "
    "subjects whose item lacks it are left out and counted.",
)

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
    "--fit",
    type=click.Choice(["temperature", "platt", "isotonic"]),
    help="Fit a calibration map on the dev split's labelled verdicts and report ECE, adaptive ECE and Brier "
    "before and after on the test split; stored with the judge's rubric version (platt and isotonic need "
    "scikit-learn: pip install 'reviewer[calibration]').",
)
@click.option(
    "--calibrated",
    is_flag=True,
    help="Use the calibration map stored by --fit for the judge's current rubric version where there is one "
    "(each row says which confidence it used: raw or calibrated with its method).",
)
@BY
@click.option(
    "--force",
    is_flag=True,
    help="Replace a chart even when it is not in reviewer's record of the files it wrote (changed since, or written by an earlier version).",
)
@_trust_options
@friendly_errors
def calibration(
    project: Path,
    as_json: bool,
    charts_dir: Path | None,
    fit: str | None,
    calibrated: bool,
    by: str | None,
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

    settings = CalibrationSettings(
        tolerance=tolerance, metric=metric, target=target, alpha=alpha, min_n=min_n, calibrated=calibrated
    )
    if fit is not None:
        _fit(project, fit, settings, as_json)
        return
    if by is not None:
        _calibration_by(project, by, settings, as_json)
        return
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
@click.option(
    "--compare",
    metavar="J1,J2",
    help="Compare two judges on the subjects both judged and people labelled: McNemar's exact test "
    "and paired bootstrap intervals of the difference in kappa and in accuracy.",
)
@BY
@click.option(
    "--bias",
    is_flag=True,
    help="Print the bias checks instead: length (longer-answer wins, or score vs length), self-preference "
    "(the judge's model's own answers) and, for judges of both orders, correct_both and swap accuracy.",
)
@click.option(
    "--resplit",
    type=SEED_TYPE,
    metavar="SEED",
    help="Draw new train/dev/test hash splits with this seed, record it, and restart the count of test-split "
    "reads; then print the alignment on them.",
)
@RESAMPLES
@SEED
@friendly_errors
def alignment(
    project: Path,
    as_json: bool,
    half_width: float,
    compare: str | None,
    by: str | None,
    bias: bool,
    resplit: int | None,
    resamples: int,
    seed: int,
) -> None:
    """Print how well each judge of PROJECT agrees with people, per dimension
    and split: confusion matrix, per-class precision / recall / F1, kappa
    with its 95 % interval, MAE and Spearman's rho, TPR and TNR, the
    dangerous cells with their subjects, and the pass rate on unlabelled
    subjects corrected for the judge's errors (Rogan-Gladen), and the label
    budget: the further labels for a 95 % interval of half-width
    --half-width on kappa, TPR and TNR. With --compare J1,J2: the two
    judges compared instead (reviewer.core.judging.judge_compare). Each
    alignment says how often its test split was read (gate runs and
    calibration fits since the last --resplit); alignment itself is not
    counted."""
    if resplit is not None:
        from reviewer.storage.judging.test_reuse import resplit as draw

        p = open_project(project)
        try:
            draw(p, resplit)
        finally:
            p.close()
        echo(f"new train/dev/test split drawn with seed {resplit}; test-split reads restart at 0", err=True)
    if compare is not None:
        _compare(project, compare, as_json, resamples, seed, by)
        return
    if bias:
        _bias(project, as_json, resamples, seed, by)
        return
    from reviewer.storage.judging.label_budget import budget_json, budget_text
    from reviewer.storage.judging.validation import alignment_json, alignment_text, project_alignments

    p = open_project(project)
    try:
        slices = slices_by(p, by)
        found = [(name, s, project_alignments(p, n_resamples=resamples, seed=seed, subjects=s)) for name, s in slices]
    finally:
        p.close()
    parts: list[dict] = []
    for name, subjects, v in found:
        if as_json:
            data = alignment_json(v)
            for entry, budget in zip(data["alignments"], budget_json(v.items, half_width)):
                entry["label_budget"] = budget
            parts.append(data if by is None else {"slice": name, "subjects": len(subjects or ()), **data})
        else:
            head = f"== {by} = {name} ({len(subjects or ())} subjects) ==\n" if by is not None else ""
            echo(head + alignment_text(v) + budget_text(v.items, half_width), nl=False)
    if as_json:
        echo(json.dumps(parts[0] if by is None else {"by": by, "slices": parts}, indent=2))


def slices_by(p: Any, by: str | None) -> list[tuple[str, set[str] | None]]:
    """[(slice name, its subjects)] of --by FIELD; [('all', None)] without it.
    Names the subjects left out (no such field) on stderr."""
    if by is None:
        return [("all", None)]
    from reviewer.storage.repo.item_metadata import subject_slices

    try:
        of = subject_slices(p, by)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    names = sorted(set(of.values()))
    left = p.db.execute("SELECT count(DISTINCT subject) FROM verdicts").fetchone()[0] - len(of)
    if left:
        echo(f"{left} subject(s) have no metadata field '{by}': in no slice", err=True)
    return [(name, {s for s, n in of.items() if n == name}) for name in names]


def _record_gate_read(p: Any, judge: str, dimension: str) -> str:
    """Record this gate's read of the test split (reviewer.storage.judging.test_reuse)
    and return the count's line; on a read-only project nothing is recorded, and the line says so."""
    from reviewer.core.judging.test_reuse import reuse_line
    from reviewer.storage.judging import test_reuse
    from reviewer.storage.judging.validation import split_seed_of

    recorded = test_reuse.record_read(p, "gate", judge, dimension, split_seed_of(p))
    version = test_reuse.rubric_version(p, judge, dimension)
    line = reuse_line(test_reuse.read_count(p, judge, dimension, version), version, split_seed_of(p))
    return line if recorded else f"{line}; read-only project: this read is not recorded"


def _calibration_by(project: Path, by: str, settings: Any, as_json: bool) -> None:
    """The judges' calibration per slice of the items' metadata field ``by``
    (span confidences are left out: spans have no item metadata slice)."""
    from reviewer.storage.judging import verdicts as judging
    from reviewer.storage.judging.calibration_report import calibration_json, calibration_rows, calibration_text

    p = open_project(project)
    try:
        vs, adjudications = judging.verdicts(p), judging.adjudications(p)
        found = [
            (
                name,
                subjects,
                calibration_rows(
                    p,
                    settings,
                    None,
                    [v for v in vs if v.subject in (subjects or ())],
                    [a for a in adjudications if a.subject in (subjects or ())],
                ),
            )
            for name, subjects in slices_by(p, by)
        ]
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        p.close()
    if as_json:
        data = [
            {"slice": name, "subjects": len(subjects or ()), **calibration_json(rows, settings)}
            for name, subjects, rows in found
        ]
        echo(json.dumps({"by": by, "slices": data}, indent=2))
        return
    for name, subjects, rows in found:
        echo(f"== {by} = {name} ({len(subjects or ())} subjects) ==\n" + calibration_text(rows, settings), nl=False)


def _fit(project: Path, method: str, settings: Any, as_json: bool) -> None:
    from reviewer.core.judging.calibration_fit import NeedsScikitLearn
    from reviewer.storage.judging.calibration_fit import fit_calibrations, fit_json, fit_text

    p = open_project(project)
    try:
        fits = fit_calibrations(p, method, settings)
    except (ValueError, NeedsScikitLearn) as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        p.close()
    echo(json.dumps(fit_json(fits, method), indent=2) if as_json else fit_text(fits, method), nl=not as_json)


def _bias(project: Path, as_json: bool, resamples: int, seed: int, by: str | None) -> None:
    from reviewer.storage.judging.bias import bias_json, bias_text, project_bias

    p = open_project(project)
    try:
        found = [
            (name, project_bias(p, subjects=subjects, n_resamples=resamples, seed=seed))
            for name, subjects in slices_by(p, by)
        ]
    finally:
        p.close()
    if as_json:
        data = [{"slice": name, "bias": bias_json(b)} for name, b in found]
        echo(json.dumps({"bias": data[0]["bias"]} if by is None else {"by": by, "slices": data}, indent=2))
    else:
        for name, b in found:
            echo((f"== {by} = {name} ==\n" if by is not None else "") + bias_text(b), nl=False)


def _compare(project: Path, compare: str, as_json: bool, resamples: int, seed: int, by: str | None) -> None:
    from reviewer.storage.judging.comparison import comparison_text, project_comparisons

    names = [x.strip() for x in compare.split(",")]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise click.BadParameter("two different judges, as J1,J2", param_hint="--compare")
    p = open_project(project)
    try:
        found = []
        for name, subjects in slices_by(p, by):
            try:
                found.append(
                    (name, project_comparisons(p, *names, subjects=subjects, n_resamples=resamples, seed=seed))
                )
            except ValueError as exc:
                if by is None:
                    raise
                found.append((name, []))
                echo(f"{by} = {name}: {one_line(exc)}", err=True)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        p.close()
    if as_json:
        data = [{"slice": name, "comparisons": [c.as_dict() for c in cs]} for name, cs in found]
        echo(
            json.dumps({"comparisons": data[0]["comparisons"]} if by is None else {"by": by, "slices": data}, indent=2)
        )
    else:
        for name, cs in found:
            echo((f"== {by} = {name} ==\n" if by is not None else "") + comparison_text(cs), nl=False)


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
@friendly_errors
def gate(
    project: Path,
    judge: str,
    dimension: str,
    min_kappa_lower: float | None,
    min_tpr: float | None,
    min_tnr: float | None,
    max_dangerous: int | None,
    split: str,
    min_coverage: float | None,
    confidence_source: str | None,
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
    read_line = ""
    try:
        figures: Figures | None = None
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
        read_line = _record_gate_read(p, judge, dimension)
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
        echo(f"Error: {one_line(exc)}", err=True)
        sys.exit(3)
    except ValueError as exc:
        echo(f"Error: {one_line(exc)}", err=True)
        sys.exit(2)
    finally:
        p.close()
    if k:
        echo(family_line(k, family_alpha))
    echo(read_line)
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
