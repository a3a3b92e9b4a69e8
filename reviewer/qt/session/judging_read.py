"""What the judging views need of a project, read in one go (no Qt).

``read_judging`` reads every verdict and the stored disputes and makes
what the dispute queue, the dispute screen and the validation view would
otherwise each work out again over every verdict: the verdicts by
subject, each verdict's rater name (reviewer.core.judging.dispute_common.rater_labels
over all verdicts) and, for each dispute, the names of its raters and the
item its subject's run belongs to.
On a big project the writer worker calls it after finding the disputes,
so the GUI thread only swaps references when the result arrives (decision
record "big-projects-stay-interactive"); a small project is read at once
through the same function.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from reviewer.core.judging.dispute_common import RaterKey, rater_key, rater_labels
from reviewer.core.judging.verdicts import Dispute, Verdict
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import Project
from reviewer.storage.repo import items as repo_items


@dataclass(frozen=True)
class JudgingRead:
    """Verdicts and disputes of a project as read at one moment.

    ``verdicts``: every verdict in id order; ``by_subject``: the same
    verdicts per subject (id order); ``labels``: a display name per rater;
    ``names``: {verdict id: its rater's display name}; ``disputes``: the
    stored disputes, most severe first, and ``stamp`` the table's
    (reviewer.storage.judging.verdicts.disputes_stamp) taken just before
    they were read; ``run_items``: {run id: item name} of every run, or
    None when it was not read (no dispute to show it beside); ``raters``:
    {dispute id: the display names of the raters of its verdicts};
    ``items``: {dispute id: the item name of its subject's run}, for the
    disputes whose subject's verdicts name a run."""

    verdicts: list[Verdict] = field(default_factory=list)
    by_subject: dict[str, list[Verdict]] = field(default_factory=dict)
    labels: dict[RaterKey, str] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    disputes: list[Dispute] = field(default_factory=list)
    stamp: tuple | None = None
    run_items: dict[int, str] | None = None
    raters: dict[int, frozenset[str]] = field(default_factory=dict)
    items: dict[int, str] = field(default_factory=dict)


#: Nothing read (no project).
EMPTY = JudgingRead()


def index_verdicts(verdicts: list[Verdict]) -> tuple[dict[str, list[Verdict]], dict[RaterKey, str], dict[int, str]]:
    """(verdicts by subject in input order, a display name per rater, {verdict
    id: its rater's display name}) of ``verdicts``, in one pass over them and
    one over the raters."""
    by_subject: dict[str, list[Verdict]] = {}
    keys: dict[int, RaterKey] = {}
    for v in verdicts:
        by_subject.setdefault(v.subject, []).append(v)
        if v.id is not None:
            keys[v.id] = rater_key(v)
    labels = rater_labels(verdicts)
    return by_subject, labels, {i: labels[k] for i, k in keys.items()}


def dispute_facts(
    disputes: list[Dispute], by_subject: dict[str, list[Verdict]], names: dict[int, str], run_items: dict[int, str]
) -> tuple[dict[int, frozenset[str]], dict[int, str]]:
    """({dispute id: its raters' display names}, {dispute id: the item name
    of the run its subject's last verdict names}) of stored ``disputes``
    (with ids), from the index_verdicts of the verdicts and every run's
    item name."""
    raters: dict[int, frozenset[str]] = {}
    items: dict[int, str] = {}
    for d in disputes:
        if d.id is None:
            continue
        raters[d.id] = frozenset(names[i] for i in d.verdict_ids if i in names)
        mine = by_subject.get(d.subject)
        run_id = mine[-1].run_id if mine else None
        item = run_items.get(run_id) if run_id is not None else None
        if item is not None:
            items[d.id] = item
    return raters, items


def read_disputes(project: Project) -> tuple[list[Dispute], tuple]:
    """(the stored disputes, most severe first, the table's stamp taken
    before them: a write in between makes a later stamp differ)."""
    stamp = judging.disputes_stamp(project)
    return judging.disputes(project), stamp


def read_judging(project: Project, verdicts: bool = True) -> JudgingRead:
    """The project's verdicts (none without ``verdicts``: only the stored
    disputes, as open shows them before they are found again) and stored
    disputes with what the views derive from them (JudgingRead)."""
    found = judging.verdicts(project) if verdicts else []
    by_subject, labels, names = index_verdicts(found)
    disputes, stamp = read_disputes(project)
    run_items = repo_items.run_item_names(project) if disputes else None
    raters, items = dispute_facts(disputes, by_subject, names, run_items or {})
    return JudgingRead(found, by_subject, labels, names, disputes, stamp, run_items, raters, items)


def with_disputes(read: JudgingRead, project: Project) -> JudgingRead:
    """``read`` with the project's stored disputes read again (another
    writer changed them) and their raters and items made again; every run's
    item name is read too when ``read`` has none and there are disputes."""
    disputes, stamp = read_disputes(project)
    run_items = read.run_items
    if run_items is None and disputes:
        run_items = repo_items.run_item_names(project)
    raters, items = dispute_facts(disputes, read.by_subject, read.names, run_items or {})
    return replace(read, disputes=disputes, stamp=stamp, run_items=run_items, raters=raters, items=items)
