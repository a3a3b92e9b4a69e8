"""Validating judges against people, for a project: agreement with intervals,
alignment per judge and dimension, the corrected pass rate and the CI gate
(reviewer.core.judging: agreement_intervals, alignment, corrected_rate,
validation_gate). Reads only; the command line and the report print what
this assembles.

Settings (the project's ``meta`` table, JSON values):

* ``alignment.pass_threshold``: {dimension: threshold} overriding the
  default pass threshold (>= 4 on 1-5, >= B on A-F, >= 70 on 0-100, C on
  C/I/P); a threshold is a number, or a letter of the dimension's own
  scale: a grade on A-F ("C" is 60 points), C, P or I on C/I/P ("C" is 100).
* ``alignment.split_seed``: the seed of the train/dev/test split by hash
  of the subject id (default 0).

The corrected pass rate takes the judge's TPR and TNR from the test split.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

from reviewer.core.bounds import is_number
from reviewer.core.judging.agreement_intervals import strength
from reviewer.core.judging.agreement_table import AgreementRow
from reviewer.core.judging.alignment import PASS_THRESHOLD, Alignment, Figures, alignments, read_pass_threshold
from reviewer.core.judging.budget import HALF_WIDTH
from reviewer.core.judging.corrected_rate import CorrectedRate, corrected_pass_rate
from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from reviewer.core.judging.label_first import LABEL_FIRST
from reviewer.core.judging.people import people_values
from reviewer.core.judging.splits import hash_split
from reviewer.core.judging.test_reuse import reuse_line
from reviewer.core.judging.validation_gate import MIN_LABELLED, BoundCheck, gate_checks, too_few
from reviewer.core.judging.verdicts import Adjudication, Scale, Verdict
from reviewer.core.tables import markdown_table, md_text, text_table
from reviewer.storage.judging import labels, test_reuse
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import Project, ProjectError

__all__ = [
    "AGREEMENT_HEADER",
    "RATES_FROM",
    "Validation",
    "agreement_markdown_rows",
    "alignment_json",
    "alignment_markdown",
    "alignment_text",
    "corrected_line",
    "pass_thresholds",
    "people_and_splits",
    "project_alignments",
    "TooFewLabelled",
    "run_gate",
    "split_rows",
    "split_seed_of",
]

#: The split whose TPR and TNR correct the pass rate.
RATES_FROM = "test"
AGREEMENT_HEADER = ["raters", "dimension", "statistic", "value", "95 % CI", "strength", "n", "prevalence", "note"]


def agreement_markdown_rows(rows: list[AgreementRow]) -> list[list[str]]:
    """Cells of AGREEMENT_HEADER per row: the interval with its method, the
    Landis-Koch strength of chance-corrected statistics, the prevalence."""
    return [
        [
            r.raters,
            r.dimension,
            r.statistic,
            r.formatted(),
            r.interval_text(),
            strength(r),
            str(r.n),
            r.prevalence_text(),
            r.note,
        ]
        for r in rows
    ]


def _meta(project: Project, key: str) -> object:
    row = project.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    try:
        return json.loads(row[0]) if row else None
    except (TypeError, ValueError):
        return None


def pass_thresholds(project: Project, verdicts: Iterable[Verdict] = ()) -> dict[str, float | str]:
    """{dimension: pass threshold} the project sets (``alignment.pass_threshold``),
    as set: a number, or a letter that alignment reads on the dimension's own
    scale (reviewer.core.judging.alignment.read_pass_threshold: "C" is 60
    points on A-F and 100 on C/I/P). Each setting is read on every scale
    ``verdicts`` score its dimension on.

    Raises:
        ProjectError: one line naming the dimension and why its setting is
            not a pass threshold on one of those scales.
    """
    data = _meta(project, "alignment.pass_threshold")
    out: dict[str, float | str] = {}
    if isinstance(data, dict):
        for dim, value in data.items():
            if is_number(value) or isinstance(value, str):
                out[str(dim)] = float(value) if is_number(value) else value
            else:
                raise ProjectError(f"alignment.pass_threshold of {dim}: a number or a letter, got {value!r}")
    scales = {(d, v.scale) for v in verdicts for d in v.scores if d in out and v.scale in PASS_THRESHOLD}
    for dim, scale in sorted(scales, key=lambda x: (x[0], x[1].value)):
        try:
            read_pass_threshold(out[dim], scale, dim)
        except ValueError as exc:
            raise ProjectError(f"alignment.pass_threshold: {exc}") from None
    return out


class Validation:
    """The alignments of a project's judges and their corrected pass rates."""

    def __init__(
        self,
        items: list[Alignment],
        corrected: list[CorrectedRate | None],
        split_seed: int,
        stale: dict | None = None,
        reads: dict[tuple[str, str], tuple[int, str]] | None = None,
    ):
        self.items = items
        self.corrected = corrected
        self.split_seed = split_seed
        self.stale = stale or {}  # {(judge, dimension): Staleness} where fair-sample labels were made with it
        #: {(judge, dimension): (test-split reads since the last resplit, rubric version)}
        self.reads = reads or {}

    def reads_line(self, a: Alignment) -> str:
        """'test split read k times for rubric v…' of an alignment ('' when unknown)."""
        found = self.reads.get((a.judge, a.dimension))
        return "" if found is None else reuse_line(found[0], found[1], self.split_seed)

    def stale_line(self, a: Alignment) -> str:
        """The staleness line of an alignment whose figures are stale ('' otherwise)."""
        st = self.stale.get((a.judge, a.dimension))
        return st.text() if st is not None and st.stale else ""

    def find(self, judge: str, dimension: str) -> tuple[Alignment, CorrectedRate | None]:
        """The alignment of one judge on one dimension. Raises ValueError
        naming what there is when there is none."""
        for a, c in zip(self.items, self.corrected):
            if a.judge == judge and a.dimension == dimension:
                return a, c
        there = ", ".join(f"{a.judge} / {a.dimension}" for a in self.items) or "none"
        raise ValueError(
            f"no alignment of judge '{judge}' on dimension '{dimension}' with people "
            f"(judge / dimension with people's values: {there})"
        )


def split_seed_of(project: Project) -> int:
    """The seed of the hash split (``alignment.split_seed``, default 0)."""
    seed = _meta(project, "alignment.split_seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else 0


def people_and_splits(
    project: Project, verdicts: list[Verdict], adjudications: list[Adjudication], split_seed: int
) -> tuple[dict, Callable[[str], str]]:
    """People's values (reviewer.core.judging.people.people_values: the
    adjudicated value, else gold, else the majority of every person's final
    value, the label-first labels' included; a tie is counted apart) and
    the split function: the stored split of a subject that entered a fair
    queue, else hash_split with ``split_seed``."""
    people = people_values(verdicts, adjudications, labels.labels(project, LABEL_FIRST))
    stored = labels.stored_splits(project)
    return people, lambda s: stored.get(s) or hash_split(s, seed=split_seed)


def project_alignments(
    project: Project,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    verdicts: list[Verdict] | None = None,
    adjudications: list[Adjudication] | None = None,
    only: tuple[str, str] | None = None,
    subjects: set[str] | None = None,
) -> Validation:
    """Every judge's alignment with people per dimension and split, and its
    corrected pass rate (module doc). ``verdicts`` and ``adjudications``: the
    project's, when the caller has read them already (else read here);
    ``only``: (judge, dimension) alone (core.judging.alignment.alignments);
    ``subjects``: only the verdicts and adjudications of these subjects (a
    slice, reviewer.storage.repo.item_metadata.subject_slices)."""
    split_seed = split_seed_of(project)
    vs = judging.verdicts(project) if verdicts is None else verdicts
    if subjects is not None:
        vs = [v for v in vs if v.subject in subjects]
        adjudications = [
            a
            for a in (judging.adjudications(project) if adjudications is None else adjudications)
            if a.subject in subjects
        ]
    adjudications = judging.adjudications(project) if adjudications is None else adjudications
    people, split_of = people_and_splits(project, vs, adjudications, split_seed)
    weights = labels.active_weights(project, vs)
    items = alignments(
        vs,
        adjudications,
        thresholds=pass_thresholds(project, vs),
        split_of=split_of,
        n_resamples=n_resamples,
        seed=seed,
        people=people,
        only=only,
        weights=weights,
    )
    corrected: list[CorrectedRate | None] = []
    for a in items:
        if a.scale not in PASS_THRESHOLD and a.scale != Scale.PASS_FAIL:  # pairwise winners: no pass
            corrected.append(None)
            continue
        test = [
            (s, j, p) for s, split, j, p in a.labelled if split == RATES_FROM and j is not None and p is not None
        ]  # p: a person labelled it
        unlabelled = [passes for _, passes in a.unlabelled if passes is not None]
        w = weights.get((a.judge, a.dimension), {})
        corrected.append(
            corrected_pass_rate(
                [(j, p) for _, j, p in test],
                unlabelled,
                n_resamples=n_resamples,
                seed=seed,
                weights=[w.get(s, 1.0) for s, _, _ in test] if w else None,
            )
        )
    reads = {}
    for a in items:
        version = test_reuse.rubric_version(project, a.judge, a.dimension)
        reads[(a.judge, a.dimension)] = (test_reuse.read_count(project, a.judge, a.dimension, version), version)
    return Validation(
        items, corrected, split_seed, {(st.judge, st.dimension): st for st in labels.stale_figures(project)}, reads
    )


class TooFewLabelled(ValueError):
    """A gate refused: its figures rest on fewer labelled subjects than
    --min-labelled (the message is the one line to print)."""


def run_gate(
    project: Project,
    judge: str,
    dimension: str,
    *,
    split: str = "all",
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    min_labelled: int = MIN_LABELLED,
    half_width: float = HALF_WIDTH,
    **bounds,
) -> tuple[Figures, list[BoundCheck]]:
    """The gate's checks (validation_gate.gate_checks) of one judge and
    dimension on one split. Raises TooFewLabelled (validation_gate.too_few:
    the line names the label budget for ``half_width``) when the split has
    fewer than ``min_labelled`` labelled subjects behind its figures, and
    ValueError when there is no such alignment or split, or no bound."""
    from reviewer.storage.judging.label_budget import alignment_budget

    try:  # the one alignment the gate checks, not a bootstrap of every judge
        a, _ = project_alignments(project, n_resamples=n_resamples, seed=seed, only=(judge, dimension)).find(
            judge, dimension
        )
    except ValueError:  # say what there is
        project_alignments(project, n_resamples=n_resamples, seed=seed).find(judge, dimension)
        raise
    figures = a.figures(split)
    if figures is None:
        raise ValueError(f"judge '{judge}' on '{dimension}' has no labelled subject in split '{split}'")
    checks = gate_checks(figures, **bounds)  # bad bounds are bad input before too few labels
    known = [b.further for b in alignment_budget(a, half_width).values() if b.further is not None]
    whole = a.figures("all")
    scope = f"over all {whole.n} labelled subjects" if split != "all" and whole is not None else ""
    refusal = too_few(figures.n, min_labelled, max(known) if known else None, half_width, scope)
    if refusal is not None:
        raise TooFewLabelled(refusal)
    return figures, checks


def alignment_json(v: Validation) -> dict:
    """{"split_seed", "rates_from", "alignments": [...]}: per judge and
    dimension its scale, threshold, people's sources, figures per split and
    corrected pass rate."""
    out = []
    for a, c in zip(v.items, v.corrected):
        out.append(
            {
                "judge": a.judge,
                "dimension": a.dimension,
                "scale": a.scale.value,
                "pass_threshold": a.threshold,
                "people": a.people,
                "tied": a.tied,
                "splits": [f.as_dict() for f in a.splits],
                "corrected_pass_rate": None if c is None else c.as_dict(),
                "stale": _stale_dict(v, a),
                "test_split_reads": _reads_dict(v, a),
            }
        )
    return {"split_seed": v.split_seed, "rates_from": RATES_FROM, "alignments": out}


def _reads_dict(v: Validation, a: Alignment) -> dict | None:
    found = v.reads.get((a.judge, a.dimension))
    if found is None:
        return None
    return {"count": found[0], "rubric_version": found[1], "split_seed": v.split_seed, "line": v.reads_line(a)}


def _stale_dict(v: Validation, a: Alignment) -> dict | None:
    st = v.stale.get((a.judge, a.dimension))
    return None if st is None else st.as_dict()


def _f(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _ci(iv) -> str:
    return iv.formatted() + (f" {iv.method}" if iv.defined else "")


def _with_ci(x: float | None, iv) -> str:
    return "-" if x is None else f"{_f(x)} {_ci(iv)}"


def split_rows(a: Alignment) -> list[list[str]]:
    """Cells of SPLIT_HEADER per split of ``a``, as the terminal and the
    report show them (the window's alignment view too)."""
    return [
        [
            f.split,
            str(f.n),
            _with_ci(f.kappa, f.kappa_ci),
            _f(f.mae),
            _f(f.spearman),
            _with_ci(f.tpr, f.tpr_ci),
            _with_ci(f.tnr, f.tnr_ci),
            str(len(f.dangerous)),
            str(f.undecided),
        ]
        for f in a.splits
    ]


SPLIT_HEADER = [
    "split",
    "n",
    "kappa [95 % CI]",
    "MAE",
    "rho",
    "TPR [95 % CI]",
    "TNR [95 % CI]",
    "dangerous",
    "undecided",
]


def _title(a: Alignment) -> str:
    people = ", ".join(f"{n} {s}" for s, n in sorted(a.people.items()))
    if a.tied:
        people += f"; {a.tied} tied, counted apart"
    mark = f", pass >= {a.threshold:g}" if a.threshold is not None else ""
    kappa = a.splits[0].kappa_statistic
    weighted = "; labels of an active draw weighted 1/pi" if a.splits[0].weighted else ""
    return f"{a.judge} / {a.dimension} ({a.scale.value}{mark}; {kappa}; people: {people}{weighted})"


def corrected_line(c: CorrectedRate | None) -> str:
    """The corrected pass rate's line, as the terminal and the report show
    it: observed and corrected rate with its interval, or why it is
    undefined."""
    if c is None:
        return "corrected pass rate: none (pairwise winners have no pass)"
    head = (
        f"corrected pass rate (TPR, TNR from the {RATES_FROM} split: {_f(c.tpr)}, {_f(c.tnr)} over "
        f"{c.labelled} labelled): observed {_f(c.observed)} on {c.unlabelled} unlabelled"
    )
    if c.rate is None:
        return f"{head}; {c.note}"
    return f"{head}; corrected {_f(c.rate)} {_ci(c.interval)}" + (f" ({c.note})" if c.note else "")


def _confusion(f: Figures) -> tuple[list[str], list[list[str]]]:
    return (["judge \\ people"] + f.labels, [[lab] + [str(x) for x in row] for lab, row in zip(f.labels, f.counts)])


def _class_rows(f: Figures) -> list[list[str]]:
    return [[c.label, _f(c.precision), _f(c.recall), _f(c.f1), str(c.support)] for c in f.per_class]


def alignment_text(v: Validation) -> str:
    """Plain text for the terminal: per judge and dimension the split
    table, the confusion matrix and per-class scores of all labelled
    subjects, the dangerous cells' subjects and the corrected pass rate."""
    if not v.items:
        return "no alignment: no judge verdict on a subject people labelled (human verdicts or adjudications)\n"
    out = []
    for a, c in zip(v.items, v.corrected):
        f = a.splits[0]
        out += [_title(a)] + ([v.stale_line(a)] if v.stale_line(a) else [])
        out += [v.reads_line(a)] if v.reads_line(a) else []
        out += [
            text_table(SPLIT_HEADER, split_rows(a)),
            "",
            text_table(*_confusion(f)),
            "",
            text_table(["class", "precision", "recall", "F1", "people"], _class_rows(f)),
        ]
        if f.dangerous:
            out += ["dangerous: " + ", ".join(f"{d.subject} (judge {d.judge}, people {d.people})" for d in f.dangerous)]
        out += [corrected_line(c), ""]
    return "\n".join(out)


def alignment_markdown(v: Validation) -> str:
    """The report's '## Alignment with people' section ('' when there is
    no alignment)."""
    if not v.items:
        return ""
    out = [
        "## Alignment with people",
        "",
        "Judge vs people's values (adjudicated, else gold, else the majority of every person's final value, "
        "label-first labels included; a tie is counted apart), per split "
        f"(train/dev/test by a hash of the subject id, seed {v.split_seed}); 95 % bootstrap intervals.",
    ]
    for a, c in zip(v.items, v.corrected):
        f = a.splits[0]
        out += ["", f"**{md_text(_title(a))}**"] + (["", md_text(v.stale_line(a))] if v.stale_line(a) else [])
        out += ["", md_text(v.reads_line(a))] if v.reads_line(a) else []
        out += [
            "",
            markdown_table(SPLIT_HEADER, split_rows(a)),
            "",
            markdown_table(*_confusion(f)),
            "",
            markdown_table(["class", "precision", "recall", "F1", "people"], _class_rows(f)),
        ]
        if f.dangerous:
            out += [
                "",
                "Dangerous: "
                + md_text(", ".join(f"{d.subject} (judge {d.judge}, people {d.people})" for d in f.dangerous)),
            ]
        out += ["", md_text(corrected_line(c))]
    return "\n".join(out) + "\n"
