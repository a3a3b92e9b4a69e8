"""Is each judge's confidence honest, and from which confidence can it be
trusted? Calibration and selective judging for a project (reviewer.core.
judging: confidence, selective, confidence_charts). Reads only, except the
charts it is asked to write; the command line and the report print what
this assembles.

Per judge, dimension, scale and confidence source ('logprob', 'stated',
'imported'; reviewer.storage.judging.confidences), over the judge's primary
verdicts (reviewer.core.judging.dispute_common.primary_verdicts):

* the *labelled* verdicts: those on a subject whose people's value is known
  (reviewer.core.judging.people.people_values: adjudicated, else gold,
  else the majority of every person's final value, label-first labels
  included, as the alignment with people takes them); a
  verdict is correct when its value equals the people's value, within
  ``tolerance`` on numeric scales (confidence.correct_flags);
* the calibration (ECE with 15 equal-width bins, adaptive ECE with 15
  equal-mass bins, Brier, the mean confidence of right and of wrong
  verdicts, the reliability diagram's bins);
* selective judging (selective.select_threshold): the lowest confidence
  from which the judge's agreement with people reaches the target with a
  one-sided bound, and its coverage over every verdict of the judge on the
  dimension with a confidence of that source, labelled or not.

Span confidences join as source 'span' when the caller passes them
(reviewer.storage.spans.confidences.span_confidences: per stored span
snapshot, every span of a judged result with a confidence within 0-1,
correct when the span judge named it no error); this package reads no span
data itself, so the workflows stay independent.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reviewer.core.judging.alignment import PASS_THRESHOLD, is_pass, read_pass_threshold
from reviewer.core.judging.confidence import Calibration, calibration, correct_flags
from reviewer.core.judging.dispute_common import NUMERIC_SCALES, is_human, primary_verdicts, rater_labels, value_of
from reviewer.core.judging.label_first import LABEL_FIRST
from reviewer.core.judging.people import people_values
from reviewer.core.judging.selective import MIN_N, Selection, select_threshold
from reviewer.core.judging.validation_gate import BoundCheck
from reviewer.core.judging.verdicts import Adjudication, Scale, Verdict, normalise
from reviewer.core.tables import markdown_table, md_text, text_table
from reviewer.storage.files import safe_write
from reviewer.storage.judging import labels as label_store
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.judging.calibration_maps import stored_map
from reviewer.storage.judging.confidences import confidences
from reviewer.storage.judging.validation import pass_thresholds
from reviewer.storage.project.db import Project

__all__ = [
    "SPAN_SOURCE",
    "CalibrationRow",
    "CalibrationSettings",
    "SpanConfidences",
    "calibration_json",
    "calibration_markdown",
    "calibration_rows",
    "calibration_text",
    "coverage_check",
    "write_reliability_charts",
]

#: The source name of span confidences.
SPAN_SOURCE = "span"
#: Source preferred when a judge has several (the gate's default).
SOURCE_ORDER = ("logprob", "stated", "imported", SPAN_SOURCE)


@dataclass(frozen=True)
class CalibrationSettings:
    """``tolerance``: on numeric scales a value within it of the people's
    counts as right (0: exact); ``metric``, ``target``, ``alpha``, ``min_n``:
    of selective judging (selective.select_threshold); ``calibrated``: use
    the calibration map stored by ``reviewer calibration --fit`` for the
    judge's current rubric version (table calibration_maps) where there is
    one, the raw confidence elsewhere (each row names which it used)."""

    tolerance: float = 0.0
    metric: str = "accuracy"
    target: float = 0.8
    alpha: float = 0.05
    min_n: int = MIN_N
    calibrated: bool = False

    def as_dict(self) -> dict:
        """Plain dict."""
        return {
            "calibrated": self.calibrated,
            "tolerance": self.tolerance,
            "metric": self.metric,
            "target": self.target,
            "alpha": self.alpha,
            "min_n": self.min_n,
        }


@dataclass(frozen=True)
class CalibrationRow:
    """One judge x dimension x confidence source: ``confidence``,
    ``judge_values``, ``people_values`` and ``correct`` of the labelled
    verdicts (same order); ``population``: the confidences of every verdict
    of the group, labelled or not (the coverage's base); ``calibration``;
    ``selection`` (None with ``note`` when it does not apply)."""

    judge: str
    dimension: str
    source: str
    scale: str
    confidence: tuple[float, ...]
    judge_values: tuple[Any, ...]
    people_values: tuple[Any, ...]
    correct: tuple[bool, ...]
    population: tuple[float, ...]
    calibration: Calibration
    selection: Selection | None
    note: str = ""
    #: the labelled verdicts' subjects, same order ('' for span confidences)
    subjects: tuple[str, ...] = ()
    #: which confidence the figures are on: 'raw', or 'calibrated (METHOD, fitted on N dev verdicts)'
    confidence_used: str = "raw"

    def as_dict(self) -> dict:
        """JSON-ready: the group, n labelled and in all, the calibration and
        the selection."""
        return {
            "judge": self.judge,
            "dimension": self.dimension,
            "source": self.source,
            "scale": self.scale,
            "labelled": len(self.confidence),
            "population": len(self.population),
            "calibration": self.calibration.as_dict(),
            "selection": None if self.selection is None else self.selection.as_dict(),
            "note": self.note,
            "confidence_used": self.confidence_used,
        }


def _groups(
    project: Project, verdicts: list[Verdict] | None = None, adjudications: list[Adjudication] | None = None
) -> dict[tuple[str, str, str, str], dict]:
    vs = judging.verdicts(project) if verdicts is None else verdicts
    people = people_values(
        vs,
        judging.adjudications(project) if adjudications is None else adjudications,
        label_store.labels(project, LABEL_FIRST),
    )
    judges = [v for v in vs if not is_human(v)]
    labels = rater_labels(judges)
    stored = confidences(project)
    out: dict[tuple[str, str, str, str], dict] = {}
    for (subject, rater), v in primary_verdicts(judges).items():
        if v.id is None:  # a stored verdict always has its id
            continue
        for source, dims in stored.get(v.id, {}).items():
            for dim, c in dims.items():
                value = value_of(v, dim)
                if value is None:
                    continue
                g = out.setdefault(
                    (labels[rater], dim, v.scale.value, source), {"labelled": [], "population": [], "subjects": []}
                )
                g["population"].append(c)
                ref = people.get((subject, dim))
                if ref is not None and ref[2] in (None, v.scale):
                    human = normalise(ref[0], v.scale)
                    if human is not None:
                        g["labelled"].append((c, value, human))
                        g["subjects"].append(subject)
    return out


#: {span snapshot name: [(confidence 0-1, correct)]}: the spans' confidences
#: (reviewer.storage.spans.confidences.span_confidences)
SpanConfidences = Mapping[str, Sequence[tuple[float, bool]]]


def _span_groups(span_confidences: SpanConfidences) -> dict[tuple[str, str, str, str], dict]:
    out: dict[tuple[str, str, str, str], dict] = {}
    for name, pairs in span_confidences.items():
        rows = [(float(c), "kept", "kept" if ok else "error") for c, ok in pairs]
        if rows:
            out[(f"span snapshot {name}", "spans", "span", SPAN_SOURCE)] = {
                "labelled": rows,
                "population": [r[0] for r in rows],
            }
    return out


def calibration_rows(
    project: Project,
    settings: CalibrationSettings = CalibrationSettings(),
    span_confidences: SpanConfidences | None = None,
    verdicts: list[Verdict] | None = None,
    adjudications: list[Adjudication] | None = None,
) -> list[CalibrationRow]:
    """Every judge x dimension x source with at least one labelled verdict
    with a confidence, and every span snapshot of ``span_confidences`` with
    span confidences (module doc), sorted by judge, dimension and source.
    ``verdicts`` and ``adjudications``: the project's, when the caller has
    read them already. Raises ValueError for a setting out of range
    (selective.select_threshold) and for a pass threshold that is not one on
    its dimension's scale (alignment.read_pass_threshold)."""
    if span_confidences is None:
        span_confidences = {}
    if not (math.isfinite(settings.tolerance) and settings.tolerance >= 0):
        raise ValueError(f"tolerance must be a number >= 0, got {settings.tolerance!r}")
    thresholds = pass_thresholds(project)
    groups = {**_groups(project, verdicts, adjudications), **_span_groups(span_confidences)}
    out = []
    for (judge, dim, scale_name, source), g in sorted(groups.items()):
        if not g["labelled"]:
            continue
        conf = [c for c, _, _ in g["labelled"]]
        population = list(g["population"])
        used = "raw"
        if settings.calibrated and source != SPAN_SOURCE:
            m = stored_map(project, judge, dim, source)
            if m is not None:
                conf = [float(x) for x in m.apply(conf)]
                population = [float(x) for x in m.apply(population)] if population else []
                used = f"calibrated ({m.method}, fitted on {m.n} dev verdicts)"
        jv = [j for _, j, _ in g["labelled"]]
        hv = [h for _, _, h in g["labelled"]]
        scale = Scale(scale_name) if scale_name in {s.value for s in Scale} else None
        tol = settings.tolerance if scale in NUMERIC_SCALES else 0.0
        correct = correct_flags(jv, hv, tol)
        setting = thresholds.get(dim) if scale in PASS_THRESHOLD else None
        threshold = None if setting is None else read_pass_threshold(setting, scale, dim)
        sel, note = _select(conf, jv, hv, population, scale, tol, threshold, settings)
        out.append(
            CalibrationRow(
                judge,
                dim,
                source,
                scale_name,
                tuple(conf),
                tuple(jv),
                tuple(hv),
                tuple(bool(x) for x in correct),
                tuple(population),
                calibration(conf, correct),
                sel,
                note,
                tuple(g.get("subjects") or [""] * len(conf)),
                used,
            )
        )
    return out


def _select(
    conf: list,
    jv: list,
    hv: list,
    population: list,
    scale: Scale | None,
    tol: float,
    threshold: float | None,
    s: CalibrationSettings,
) -> tuple[Selection | None, str]:
    positive: Any = "pass"
    if s.metric == "precision":
        if scale is None or scale == Scale.WINNER:
            return None, "precision needs a pass: selective judging by precision does not apply"
        if scale != Scale.PASS_FAIL:
            jv = [is_pass(v, scale, threshold) for v in jv]
            hv = [is_pass(v, scale, threshold) for v in hv]
            positive = True
    weights = "quadratic" if s.metric == "kappa" and scale in NUMERIC_SCALES else None
    return select_threshold(
        conf,
        jv,
        hv,
        metric=s.metric,
        target=s.target,
        alpha=s.alpha,
        min_n=s.min_n,
        tolerance=tol,
        positive=positive,
        weights=weights,
        population=population,
    ), ""


def calibration_json(rows: list[CalibrationRow], settings: CalibrationSettings) -> dict:
    """{"settings": {...}, "calibrations": [row.as_dict()]}."""
    return {"settings": settings.as_dict(), "calibrations": [r.as_dict() for r in rows]}


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


HEADER = [
    "judge",
    "dimension",
    "source",
    "n",
    "accuracy",
    "mean conf.",
    "ECE",
    "adaptive ECE",
    "Brier",
    "conf. right",
    "conf. wrong",
]


def _cells(r: CalibrationRow) -> list[str]:
    c = r.calibration
    return [
        r.judge,
        r.dimension,
        r.source,
        str(c.n),
        _f(c.accuracy),
        _f(c.mean_confidence),
        _f(c.ece),
        _f(c.adaptive_ece),
        _f(c.brier),
        _f(c.mean_confidence_right),
        _f(c.mean_confidence_wrong),
    ]


def _trust_line(r: CalibrationRow) -> str:
    what = r.selection.summary() if r.selection is not None else r.note
    return f"{r.judge} / {r.dimension} / {r.source}: {what}"


_NONE = (
    "no calibration: no judge verdict with a confidence (logprob, stated or imported) on a subject "
    "people labelled, and no span confidences"
)


def calibration_text(rows: list[CalibrationRow], settings: CalibrationSettings) -> str:
    """Plain text for the terminal: the calibration table, then one
    selective-judging line per row."""
    if not rows:
        return _NONE + "\n"
    out = [
        text_table(HEADER, [_cells(r) for r in rows]),
        "",
        f"selective judging ({settings.metric} >= {settings.target:g}, one-sided "
        f"{(1 - settings.alpha) * 100:g} % bound, at least {settings.min_n} labelled above a threshold):",
    ]
    out += [_trust_line(r) for r in rows]
    if settings.calibrated:
        out += ["confidence used:"] + [f"  {r.judge} / {r.dimension} / {r.source}: {r.confidence_used}" for r in rows]
    else:
        out.append("confidence used: raw (--calibrated uses the maps stored by --fit)")
    return "\n".join(out) + "\n"


def calibration_markdown(rows: list[CalibrationRow], settings: CalibrationSettings = CalibrationSettings()) -> str:
    """The report's '## Calibration of judge confidence' section ('' when
    there is nothing to calibrate)."""
    if not rows:
        return ""
    out = [
        "## Calibration of judge confidence",
        "",
        "Each judge's confidence (logprob: the value token's probability; stated: said in its reply; "
        "imported; span: span extractors' confidences) against people's values: ECE over 15 equal-width "
        "bins, adaptive ECE over 15 equal-mass bins, Brier score, mean confidence of right and wrong "
        "verdicts.",
        "",
        markdown_table(HEADER, [_cells(r) for r in rows]),
        "",
        f"Selective judging ({settings.metric} >= {settings.target:g}, one-sided "
        f"{(1 - settings.alpha) * 100:g} % bound):",
        "",
    ]
    out += [f"- {md_text(_trust_line(r))}" for r in rows]
    return "\n".join(out) + "\n"


def _slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", str(text)).strip(".-")[:60]
    return s or "x"


def write_reliability_charts(folder: Path, rows: list[CalibrationRow], *, force: bool = False) -> list[Path]:
    """Write each row's reliability diagram as PNG
    (confidence_charts.reliability_png) into ``folder`` (made when missing),
    named ``reliability-<judge>-<dimension>-<source>.png`` (names cleaned,
    numbered when two would clash), each replaced whole
    (reviewer.storage.files.safe_write: TargetRefused when a chart's name is taken
    by a project or a file that is not a PNG, or by one not in reviewer's
    record of the files it wrote, unless ``force``). Returns the files written.
    Raises OSError when the folder or a file cannot be written."""
    from reviewer.core.judging.confidence_charts import reliability_png  # matplotlib: only when drawing

    folder.mkdir(parents=True, exist_ok=True)
    used: set[str] = set()
    out = []
    for r in rows:
        base = "-".join(_slug(p) for p in ("reliability", r.judge, r.dimension, r.source))
        name, k = base, 2
        while name in used:
            name, k = f"{base}-{k}", k + 1
        used.add(name)
        path = folder / f"{name}.png"
        safe_write.write_bytes(
            path,
            reliability_png(r.calibration, judge=r.judge, dimension=r.dimension, source=r.source),
            safe_write.PNG_FORMAT,
            force=force,
        )
        out.append(path)
    return out


def coverage_check(
    project: Project,
    judge: str,
    dimension: str,
    min_coverage: float,
    *,
    source: str | None = None,
    settings: CalibrationSettings = CalibrationSettings(),
    span_confidences: SpanConfidences | None = None,
) -> BoundCheck:
    """The gate's ``--min-coverage X``: holds when a confidence threshold of
    ``judge`` on ``dimension`` reaches the selective-judging target and the
    share of the judge's verdicts it trusts is >= X. ``source``: the
    confidence source (default the first the judge has of logprob, stated,
    imported, span; span confidences as ``calibration_rows`` takes them). Fails (held False) when the judge has no confidence
    there or no threshold reaches the target. Raises ValueError for an
    unknown source or a setting out of range."""
    if span_confidences is None:
        span_confidences = {}
    if source is not None and source not in SOURCE_ORDER:
        raise ValueError(f"unknown confidence source '{source}' (known: {', '.join(SOURCE_ORDER)})")
    rows = [
        r
        for r in calibration_rows(project, settings, span_confidences)
        if r.judge == judge and r.dimension == dimension
    ]
    if source is not None:
        rows = [r for r in rows if r.source == source]
    rows.sort(key=lambda r: SOURCE_ORDER.index(r.source) if r.source in SOURCE_ORDER else len(SOURCE_ORDER))
    option = "--min-coverage"
    if not rows:
        which = f"'{source}' confidence" if source else "confidence"
        return BoundCheck(
            option,
            None,
            min_coverage,
            False,
            f"{option} {min_coverage:g}: coverage undefined (judge '{judge}' has no {which} on "
            f"'{dimension}' for a subject people labelled)",
        )
    r = rows[0]
    sel = r.selection
    if sel is None or sel.threshold is None:
        why = r.note if sel is None else sel.summary()
        return BoundCheck(
            option,
            None,
            min_coverage,
            False,
            f"{option} {min_coverage:g}: coverage undefined ({r.source} confidence: {why})",
        )
    held = sel.coverage >= min_coverage
    return BoundCheck(
        option,
        sel.coverage,
        min_coverage,
        held,
        f"{option} {min_coverage:g}: coverage {sel.coverage:.3f} {'>=' if held else '<'} "
        f"{min_coverage:g} ({r.source} confidence: {sel.summary()})",
    )
