"""Human labels made label first, the fair queue and the labelled subjects'
splits (reviewer.core.judging.label_first), anchoring figures and the
staleness of judge-vs-people figures (reviewer.core.judging.anchoring,
rubrics). SQL parameters only; every label write is audited.

Tables (migration 0021): ``human_labels`` (one row per subject, dimension,
reviewer and queue: first label and final value as JSON with their times,
the judge shown, the rubric version, the pairwise order shown),
``label_subjects`` (split and pairwise order of a subject, set once) and
``label_queue`` (per judge and dimension: subject, stratum, rank, set once).

The seed of ranks, splits and orders is the project's
``alignment.split_seed`` (default 0), so the stored splits are those
alignment would compute, frozen when the subject entered a queue.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime

from reviewer.core.judging.active_order import Inclusion
from reviewer.core.judging.agreement_intervals import with_intervals
from reviewer.core.judging.agreement_table import AgreementRow
from reviewer.core.judging.anchoring import COMPARISONS, Anchoring, anchoring, anchoring_rows
from reviewer.core.judging.dispute_common import (
    format_value,
    is_human,
    primary_verdicts,
    rater_key,
    rater_labels,
    value_of,
)
from reviewer.core.judging.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from reviewer.core.judging.label_first import LABEL_FIRST, HumanLabel, QueueEntry, draw, queue_order, shown_order
from reviewer.core.judging.people import human_ratings
from reviewer.core.judging.rubrics import Staleness, staleness
from reviewer.core.judging.verdicts import Scale, Value, Verdict
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import Project, default_actor, now

__all__ = [
    "ANCHORING_HEADER",
    "LABEL_COLUMNS",
    "anchoring_json",
    "anchoring_table",
    "subject_view",
    "LabelStore",
    "active_weights",
    "anchoring_figures",
    "inclusions",
    "store_inclusions",
    "judge_values",
    "judge_verdicts",
    "label_tables",
    "labels",
    "final_labelled",
    "first_only",
    "next_entries",
    "queue",
    "refresh_queue",
    "split_seed",
    "stale_figures",
    "stored_splits",
    "subject_order",
]

_COLS = (
    "id, subject, dimension, reviewer, queue, judge, rubric_version, answer_order, first_value, first_at, "
    "final_value, final_at"
)


def split_seed(project: Project) -> int:
    """The seed of splits, ranks and pairwise orders (module doc)."""
    raw = project.meta("alignment.split_seed")
    try:
        value = json.loads(raw) if raw is not None else 0
    except ValueError:
        return 0
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _dump(value: Value) -> str | None:
    return None if value is None else json.dumps(value)


def _load(text: str | None) -> Value:
    return None if text is None else json.loads(text)


def _time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def _label(row: tuple) -> HumanLabel:
    d = dict(zip([c.strip() for c in _COLS.split(",")], row))
    for k in ("first_value", "final_value"):
        d[k] = _load(d[k])
    for k in ("first_at", "final_at"):
        d[k] = _time(d[k])
    return HumanLabel(**d)


def labels(project: Project, queue: str | None = None) -> list[HumanLabel]:
    """Every human label (of one queue, or all) in id order."""
    sql, params = f"SELECT {_COLS} FROM human_labels", []
    if queue is not None:
        sql, params = sql + " WHERE queue = ?", [queue]
    return [_label(r) for r in project.db.execute(sql + " ORDER BY id", params).fetchall()]


class LabelStore:
    """Implements reviewer.core.label_commands.LabelStore over a Project;
    each write one transaction with an audit row. ``actor``: recorded in
    the audit table."""

    def __init__(self, project: Project, actor: str | None = None):
        self.project = project
        self.actor = actor or default_actor()

    def transaction(self):
        """One transaction around a whole command (see UndoStack)."""
        return self.project.transaction()

    def get_label(self, subject: str, dimension: str, reviewer: str, queue: str) -> HumanLabel | None:
        """The label of (subject, dimension, reviewer, queue), or None."""
        row = self.project.db.execute(
            f"SELECT {_COLS} FROM human_labels WHERE subject = ? AND dimension = ? AND reviewer = ? AND queue = ?",
            [subject, dimension, reviewer, queue],
        ).fetchone()
        return None if row is None else _label(row)

    def put_label(self, label: HumanLabel) -> int:
        """Insert or replace the label of its key, audited; its id."""
        before = self.get_label(*label.key)
        data = label.model_dump(mode="json")
        values = [
            label.id if before is None else before.id,
            label.subject,
            label.dimension,
            label.reviewer,
            label.queue,
            label.judge,
            label.rubric_version,
            label.answer_order,
            _dump(label.first_value),
            (label.first_at or datetime.now()).isoformat(),
            _dump(label.final_value),
            label.final_at.isoformat() if label.final_at else None,
        ]
        with self.project.transaction():
            db = self.project.db
            if before is not None:
                db.execute("DELETE FROM human_labels WHERE id = ?", [before.id])
            cur = db.execute(f"INSERT INTO human_labels ({_COLS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values)
            self.project.audit(
                "put",
                "human_labels",
                cur.lastrowid,
                before.model_dump(mode="json") if before else None,
                data,
                self.actor,
            )
        assert cur.lastrowid is not None  # an INSERT always sets it
        return cur.lastrowid

    def delete_label(self, subject: str, dimension: str, reviewer: str, queue: str) -> None:
        """Remove that label, audited; no error when there is none."""
        before = self.get_label(subject, dimension, reviewer, queue)
        if before is None:
            return
        with self.project.transaction():
            self.project.db.execute("DELETE FROM human_labels WHERE id = ?", [before.id])
            self.project.audit("delete", "human_labels", before.id, before.model_dump(mode="json"), None, self.actor)


# -- judges ---------------------------------------------------------------------
def judge_verdicts(project: Project, verdicts: list[Verdict] | None = None) -> dict[str, list[Verdict]]:
    """{judge display name (as ``reviewer alignment`` names it): its
    verdicts} of every non-human judge."""
    vs = [v for v in (judging.verdicts(project) if verdicts is None else verdicts) if not is_human(v)]
    names = rater_labels(vs)
    out: dict[str, list[Verdict]] = {}
    for v in vs:
        out.setdefault(names[rater_key(v)], []).append(v)
    return out


def judge_values(
    project: Project, verdicts: list[Verdict] | None = None
) -> dict[tuple[str, str, str], tuple[Value, Scale]]:
    """{(judge, subject, dimension): (its primary verdict's value, scale)}
    for every non-human judge (None: undecided)."""
    out = {}
    for judge, vs in judge_verdicts(project, verdicts).items():
        for (subject, _), v in primary_verdicts(vs).items():
            for d in v.scores:
                out[(judge, subject, d)] = (value_of(v, d), v.scale)
    return out


# -- the fair queue ---------------------------------------------------------------
def stored_splits(project: Project) -> dict[str, str]:
    """{subject: split} of every subject that entered a fair queue."""
    return {r[0]: r[1] for r in project.db.execute("SELECT subject, split FROM label_subjects")}


def subject_order(project: Project, subject: str) -> str | None:
    """The stored order ('ab', 'ba') a pair subject is shown in (None: one output)."""
    row = project.db.execute("SELECT answer_order FROM label_subjects WHERE subject = ?", [subject]).fetchone()
    return row[0] if row else None


def queue(project: Project, judge: str, dimension: str) -> list[QueueEntry]:
    """The stored fair queue of a judge and dimension, by subject."""
    return [
        QueueEntry(*r)
        for r in project.db.execute(
            "SELECT q.subject, q.stratum, s.split, q.rank FROM label_queue q JOIN label_subjects s USING (subject) "
            "WHERE q.judge = ? AND q.dimension = ? ORDER BY q.subject",
            [judge, dimension],
        )
    ]


def refresh_queue(project: Project, judge: str, dimension: str) -> list[QueueEntry]:
    """Add every subject the judge has scored on the dimension since and
    return the whole queue (label_first.draw: strata and splits of earlier
    entries never change). Raises ValueError naming the judges and
    dimensions there are when the judge has no verdict on the dimension."""
    values = judge_values(project)
    mine = {s: v for (j, s, d), (v, _) in values.items() if j == judge and d == dimension}
    scales = {sc for (j, _, d), (_, sc) in values.items() if j == judge and d == dimension}
    if not mine:
        there = sorted({f"{j} / {d}" for j, _, d in values})
        raise ValueError(
            f"judge '{judge}' has no verdict on dimension '{dimension}' "
            f"(judge / dimension: {', '.join(there) or 'none'})"
        )
    seed = split_seed(project)
    existing = {e.subject for e in queue(project, judge, dimension)}
    new = draw(mine, existing, seed=seed, splits=stored_splits(project))
    pairwise = Scale.WINNER in scales
    with project.transaction():
        at = now()
        for e in new:
            project.db.execute(
                "INSERT OR IGNORE INTO label_subjects (subject, split, answer_order, seed, assigned_at) "
                "VALUES (?, ?, ?, ?, ?)",
                [e.subject, e.split, shown_order(e.subject, seed) if pairwise else None, seed, at],
            )
            project.db.execute(
                "INSERT INTO label_queue (judge, dimension, subject, stratum, rank, drawn_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [judge, dimension, e.subject, e.stratum, e.rank, at],
            )
    return queue(project, judge, dimension)


def final_labelled(project: Project, dimension: str, reviewer: str) -> set[str]:
    """Subjects whose final value by ``reviewer`` on ``dimension`` is stored
    in the label-first queue: labelled, for the queue as for alignment
    (people_values counts final values only). A subject with a first label
    and no final value (a kill between the two) is not labelled yet: it is
    asked again at the reveal step."""
    return {
        x.subject
        for x in labels(project, LABEL_FIRST)
        if x.dimension == dimension and x.reviewer == reviewer and x.final_value is not None
    }


def first_only(project: Project, dimension: str, reviewer: str) -> set[str]:
    """Subjects with the reviewer's first label on ``dimension`` in the
    label-first queue but no final value yet: to be asked at the reveal
    step (keep or change), before any new subject."""
    return {
        x.subject
        for x in labels(project, LABEL_FIRST)
        if x.dimension == dimension and x.reviewer == reviewer and x.first_value is not None and x.final_value is None
    }


def next_entries(project: Project, judge: str, dimension: str, reviewer: str) -> list[QueueEntry]:
    """The queue's entries without the reviewer's final value in the
    label-first queue (final_labelled), in the order to label them
    (label_first.queue_order). An entry whose first label is stored is
    among them, to be asked at the reveal step (keep or change)."""
    return queue_order(queue(project, judge, dimension), final_labelled(project, dimension, reviewer))


# -- the active order's draw ----------------------------------------------------------
def inclusions(project: Project, judge: str, dimension: str, drawn_only: bool = True) -> dict[str, float]:
    """{subject: inclusion probability} of the active draw of a judge and
    dimension (table label_inclusion): the drawn subjects (or all stored)."""
    sql = "SELECT subject, inclusion FROM label_inclusion WHERE judge = ? AND dimension = ?"
    if drawn_only:
        sql += " AND drawn = 1"
    return {r[0]: float(r[1]) for r in project.db.execute(sql, [judge, dimension])}


def store_inclusions(project: Project, judge: str, dimension: str, items: Iterable[Inclusion], seed: int) -> None:
    """Store the active draw of subjects not drawn before (one transaction;
    a subject's probability is set once and never changes; probability 0 is
    not stored: such a subject may be drawn later)."""
    with project.transaction():
        at = now()
        for x in items:
            if x.inclusion > 0:
                project.db.execute(
                    "INSERT OR IGNORE INTO label_inclusion (judge, dimension, subject, inclusion, drawn, seed, drawn_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [judge, dimension, x.subject, x.inclusion, int(x.drawn), seed, at],
                )


def active_weights(project: Project, verdicts: list[Verdict]) -> dict[tuple[str, str], dict[str, float]]:
    """{(judge, dimension): {subject: 1 / pi}} for the subjects of each
    active draw whose people's value rests on label-first labels alone (no
    imported human rating, no adjudication): their labels weigh 1 / pi in
    alignment (reviewer.core.judging.active_order)."""
    others = {(r.subject, r.dimension) for r in human_ratings(verdicts)}
    rows = project.db.execute("SELECT judge, dimension, subject, inclusion FROM label_inclusion WHERE drawn = 1")
    adjudicated = {(r[0], r[1]) for r in project.db.execute("SELECT subject, dimension FROM adjudications")}
    out: dict[tuple[str, str], dict[str, float]] = {}
    for judge, dimension, subject, pi in rows:
        if (subject, dimension) not in others and (subject, dimension) not in adjudicated:
            out.setdefault((judge, dimension), {})[subject] = 1.0 / float(pi)
    return out


# -- people's values, anchoring, staleness -------------------------------------------
def anchoring_figures(
    project: Project, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> tuple[list[Anchoring], list[AgreementRow]]:
    """The anchoring per reviewer, judge and dimension
    (reviewer.core.judging.anchoring) and its rows with 95 % bootstrap
    intervals and prevalence."""
    items = anchoring(labels(project, LABEL_FIRST), judge_values(project))
    return items, with_intervals(anchoring_rows(items), n_resamples=n_resamples, seed=seed)


def stale_figures(project: Project) -> list[Staleness]:
    """The staleness of every judge's comparison with people per dimension
    that has fair-sample labels made with it (reviewer.core.judging.rubrics)."""
    fair = labels(project, LABEL_FIRST)
    out = []
    for judge, vs in sorted(judge_verdicts(project).items()):
        out += staleness(judge, vs, fair)
    return out


# -- export -------------------------------------------------------------------------
LABEL_COLUMNS = {
    "subject": str,
    "dimension": str,
    "reviewer": str,
    "queue": str,
    "judge": str,
    "rubric_version": str,
    "answer_order": str,
    "split": str,
    "first_value": str,
    "first_at": str,
    "final_value": str,
    "final_at": str,
}


def label_tables(project: Project) -> list[tuple[str, dict, str | None, Iterable[tuple]]]:
    """The export's ``human_labels`` table: one row per label, values as
    text ('4', 'pass', '1'), times ISO 8601, the subject's stored split."""
    splits = stored_splits(project)
    rows = [
        (
            x.subject,
            x.dimension,
            x.reviewer,
            x.queue,
            x.judge,
            x.rubric_version,
            x.answer_order,
            splits.get(x.subject),
            None if x.first_value is None else format_value(x.first_value),
            x.first_at.isoformat() if x.first_at else None,
            None if x.final_value is None else format_value(x.final_value),
            x.final_at.isoformat() if x.final_at else None,
        )
        for x in labels(project)
    ]
    return [("human_labels", LABEL_COLUMNS, None, rows)]


def subject_view(
    project: Project, subject: str, judge: str, verdicts: list[Verdict] | None = None
) -> tuple[str, str, list[str]]:
    """What label-first mode shows of a subject: (item name, item text or
    photo path, the outputs in the order shown: one run's, or a pair's in
    its stored order). Taken from the runs of the judge's verdict on the
    subject (among ``verdicts`` when the caller has them: the window's, or
    the terminal walk's; else read); ('', '', []) when the subject has no
    stored run. No model name."""
    vs = [v for v in judge_verdicts(project, verdicts).get(judge, []) if v.subject == subject and v.run_id is not None]
    if not vs:
        return "", "", []
    v = vs[0]
    runs = []
    for run_id in (v.run_id, v.other_run_id):
        if run_id is None:
            continue
        row = project.db.execute(
            "SELECT i.name, i.kind, i.text, i.path, r.output FROM runs r "
            "JOIN items i ON i.id = r.item_id WHERE r.id = ?",
            [run_id],
        ).fetchone()
        if row:
            runs.append(row)
    if not runs:
        return "", "", []
    name, kind, text, path, _ = runs[0]
    outputs = [r[4] for r in runs]
    if len(outputs) == 2 and subject_order(project, subject) == "ba":
        outputs.reverse()
    return name, (text or "") if kind == "text" else (path or ""), outputs


# -- the report -----------------------------------------------------------------------
ANCHORING_HEADER = ["reviewer", "judge", "dimension", "comparison", "statistic", "value", "95 % CI", "n"]


def anchoring_json(items: list[Anchoring], rows: list[AgreementRow], stale: list[Staleness]) -> dict:
    """{"anchoring": [per reviewer, judge and dimension: n, scale, the three
    comparisons' rows (AgreementRow.as_dict) and the gap judge vs final
    minus judge vs first per statistic], "stale": [Staleness.as_dict]}."""
    by_raters: dict[tuple[str, str, str], dict] = {}
    for r in rows:
        by_raters[(r.raters, r.dimension, r.statistic)] = r.as_dict()
    out = []
    for a in items:
        comparisons = {}
        for c in COMPARISONS:
            raters = a.raters(c)
            comparisons[c] = {
                stat: by_raters.get((raters, a.dimension, stat)) for stat in ("percent_agreement", a.kappa_name())
            }
        out.append(
            {
                "reviewer": a.reviewer,
                "judge": a.judge,
                "dimension": a.dimension,
                "scale": a.scale.value,
                "n": a.n,
                "comparisons": comparisons,
                "gap": {stat: a.gap(stat) for stat in ("percent_agreement", a.kappa_name())},
                "stale": any(s.stale for s in stale if (s.judge, s.dimension) == (a.judge, a.dimension)),
            }
        )
    return {"anchoring": out, "stale": [s.as_dict() for s in stale]}


def anchoring_table(items: list[Anchoring], rows: list[AgreementRow]) -> list[list[str]]:
    """Cells of ANCHORING_HEADER, one row per comparison and statistic."""
    index = {(r.raters, r.dimension, r.statistic): r for r in rows}
    out = []
    for a in items:
        for c in COMPARISONS:
            for stat in ("percent_agreement", a.kappa_name()):
                r = index.get((a.raters(c), a.dimension, stat))
                if r is not None:
                    out.append([a.reviewer, a.judge, a.dimension, c, stat, r.formatted(), r.interval_text(), str(r.n)])
    return out
