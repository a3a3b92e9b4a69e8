"""``reviewer label``: label first in a terminal. Walks the fair queue of a
judge and dimension (reviewer.storage.judging.labels); per subject it shows only
the item, the output(s) and the rubric, reads the first label, then shows
the judges' verdicts and reads keep or change. Every answer is written at
once (core label commands on the project), so quitting loses nothing: a
first label without its final value is asked again at the reveal step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from reviewer.cli.common import echo, friendly_errors, main
from reviewer.cli.numbers import whole
from reviewer.storage.project.db import Project, open_project

if TYPE_CHECKING:  # imported when used: `reviewer --help` starts without them
    from reviewer.core.commands import UndoStack
    from reviewer.core.judging.verdicts import Scale, Value, Verdict
    from reviewer.storage.judging.labels import LabelStore

T = TypeVar("T")


def _ask(text: str, parse: Callable[[str], T]) -> T | None:
    """A value read until it parses; None for quit (q or end of input)."""
    while True:
        try:
            answer = click.prompt(text, default="", show_default=False)
        except click.Abort:
            return None
        if answer.strip().lower() == "q":
            return None
        value = parse(answer)
        if value is not None:
            return value
        echo(f"not a value here: {answer!r}")


@main.command()
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--judge", required=True, help="The judge whose fair queue to label (as reviewer alignment names it).")
@click.option("--dimension", help="The dimension (needed when the judge scores several).")
@click.option("--reviewer", "reviewer_name", help="Who labels (default: the user name).")
@click.option("--limit", type=whole(1, 1_000_000_000), help="Label at most this many subjects.")
@click.option(
    "--order",
    type=click.Choice(["fair", "active"]),
    default="fair",
    show_default=True,
    help="fair: the seeded stratified random order (the window's too); active: a stored seeded draw favouring "
    "disagreements and low confidence, its labels weighted 1/pi in alignment.",
)
@friendly_errors
def label(
    project: Path,
    judge: str,
    dimension: str | None,
    reviewer_name: str | None,
    limit: int | None,
    order: str,
) -> None:
    """Label the fair queue of JUDGE in PROJECT first, then see the judges.

    For each subject: the item, output(s) and rubric only (no verdict,
    rationale, score or model name); type the label (1-5, A-F, 0-100, p/f,
    c/p/i on C/I/P, or a/b/t for the output shown first / second / a tie; s skips, q
    quits). Then the verdicts are shown: k keeps the label, c changes it.
    First label and final value are stored with their times; a subject
    whose first label was stored without a final value (the command was
    killed or quit in between) is asked again at the keep-or-change step.
    --order active labels a stored seeded draw that favours disagreements
    and low confidence; alignment weighs those labels by 1 / pi and says so."""
    from reviewer.core.commands import UndoStack
    from reviewer.core.judging.rubrics import rubric_for
    from reviewer.storage.judging import labels
    from reviewer.storage.judging import verdicts as judging
    from reviewer.storage.project.db import default_actor

    who = reviewer_name or default_actor()
    p = open_project(project)
    try:
        verdicts = judging.verdicts(p)  # read once: labelling never changes them
        by_judge = labels.judge_verdicts(p, verdicts)
        mine = by_judge.get(judge)
        if not mine:
            raise click.ClickException(f"no judge '{judge}' (judges: {', '.join(sorted(by_judge)) or 'none'})")
        dimension = _pick_dimension(judge, mine, dimension)
        try:
            labels.refresh_queue(p, judge, dimension)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        latest = max(mine, key=lambda v: v.id or 0)
        version, scale = latest.prompt_version, next(v.scale for v in mine if dimension in v.scores)
        todo = _queue(p, judge, dimension, who, order, limit)
        if not todo:
            echo(f"nothing to label: every subject of the queue has a final value by {who}")
            return
        run = _Labelling(
            p,
            judge,
            dimension,
            who,
            scale,
            version,
            rubric_for(version, dimension, scale.value),
            verdicts,
            by_judge,
            labels.LabelStore(p, who),
            UndoStack(),
        )
        done = 0
        for n, entry in enumerate(todo, 1):
            outcome = _label_subject(run, entry.subject, f"[{n}/{len(todo)}]")
            if outcome is None:
                break
            if outcome:
                done += 1
        echo(f"\n{done} subject(s) labelled by {who}")
    finally:
        p.close()


@dataclass
class _Labelling:
    """What labelling one judge's queue on one dimension needs: the project, who labels,
    the scale, rubric version and text, every verdict (read once) and by judge, the
    label store and the undo stack the label commands go through."""

    p: Project
    judge: str
    dimension: str
    who: str
    scale: Scale
    version: str | None
    rubric: str
    verdicts: list[Verdict]
    by_judge: dict[str, list[Verdict]]
    store: LabelStore
    stack: UndoStack[LabelStore]


def _pick_dimension(judge: str, mine: list[Verdict], dimension: str | None) -> str:
    """The dimension to label: ``dimension`` when given, else the judge's only one
    (a ClickException when it scores several)."""
    if dimension is not None:
        return dimension
    dims = sorted({d for v in mine for d in v.scores})
    if len(dims) != 1:
        raise click.ClickException(
            f"judge '{judge}' scores several dimensions; pick one with --dimension ({', '.join(dims)})"
        )
    return dims[0]


def _queue(p: Project, judge: str, dimension: str, who: str, order: str, limit: int | None) -> list:
    """The queue entries ``who`` has still to label, in the fair order or (``order``
    'active') the stored seeded draw's, at most ``limit``."""
    from reviewer.storage.judging import labels

    todo = labels.next_entries(p, judge, dimension, who)
    if order == "active":
        from reviewer.storage.judging.label_plan import active_order

        by_subject = {e.subject: e for e in todo}
        todo = [by_subject[x] for x in active_order(p, judge, dimension, who) if x in by_subject]
    if limit is not None:
        todo = todo[:limit]
    return todo


def _label_subject(run: _Labelling, subject: str, where: str) -> bool | None:
    """Label one subject: show it blind, read (or find committed) the first label, reveal
    the verdicts, read keep or change and store the final value. True when labelled,
    False when skipped, None when the labeller quits."""
    from reviewer.core.judging.dispute_common import format_value
    from reviewer.core.judging.label_first import LABEL_FIRST, choices_text, parse_label
    from reviewer.core.label_commands import SetFinalValue
    from reviewer.storage.judging import labels

    shown = labels.subject_order(run.p, subject)
    _show_blind(run, subject, where)
    first = _first_label(run, subject, shown)
    if first is None:
        return None
    if first == "skip":
        return False
    _show_verdicts(run, subject, shown)
    keep = _ask("Keep (k) or change (c)?", lambda t: {"k": "keep", "c": "change"}.get(t.strip().lower()))
    if keep is None:
        return None
    final: Value = None
    if keep == "change":
        final = _ask(
            f"New {run.dimension} [{choices_text(run.scale)}]", partial(parse_label, scale=run.scale, order=shown)
        )
        if final is None:
            return None
    run.stack.push(SetFinalValue(subject, run.dimension, run.who, final, queue=LABEL_FIRST), run.store)
    echo(f"final value: {_shown(format_value(first if final is None else final), shown)}")
    return True


def _label_or_skip(text: str, scale: Scale, order: str | None) -> Value:
    """'skip' for s, else the label ``text`` reads as on ``scale`` (parse_label; None when it is not one)."""
    from reviewer.core.judging.label_first import parse_label

    return "skip" if text.strip().lower() == "s" else parse_label(text, scale, order)


def _show_blind(run: _Labelling, subject: str, where: str) -> None:
    """The subject as it is labelled first: the item, its output(s) and the rubric only
    (no verdict, rationale, score or model name)."""
    from reviewer.storage.judging import labels

    name, item_text, outputs = labels.subject_view(run.p, subject, run.judge, run.verdicts)
    echo(f"\n{where} {subject}")
    echo(f"Item: {name or '-'}\n{item_text}")
    if len(outputs) == 2:
        echo(f"Output A:\n{outputs[0]}\nOutput B:\n{outputs[1]}")
    elif outputs:
        echo(f"Output:\n{outputs[0]}")
    echo(f"Rubric ({run.dimension}):\n{run.rubric}")


def _first_label(run: _Labelling, subject: str, shown: str | None) -> Value:
    """The subject's first label: the one committed before a kill or quit, or one read and
    committed now. 'skip' when skipped, None when the labeller quits."""
    from reviewer.core.judging.dispute_common import format_value
    from reviewer.core.judging.label_first import LABEL_FIRST, choices_text
    from reviewer.core.label_commands import CommitFirstLabel

    stored = run.store.get_label(subject, run.dimension, run.who, LABEL_FIRST)
    if stored is not None and stored.first_value is not None:  # committed before a kill or quit
        echo(f"first label committed earlier: {_shown(format_value(stored.first_value), shown)}")
        return stored.first_value
    first = _ask(
        f"Label {run.dimension} [{choices_text(run.scale)}; s skip, q quit]",
        partial(_label_or_skip, scale=run.scale, order=shown),
    )
    if first is None or first == "skip":
        return first
    run.stack.push(
        CommitFirstLabel(
            subject,
            run.dimension,
            first,
            run.who,
            queue=LABEL_FIRST,
            judge=run.judge,
            rubric_version=run.version,
            answer_order=shown,
        ),
        run.store,
    )
    echo(f"first label committed: {_shown(format_value(first), shown)}")
    return first


def _show_verdicts(run: _Labelling, subject: str, shown: str | None) -> None:
    """Every judge's primary verdict on the subject's dimension, a pair's winner and
    rationale as the outputs were shown (A first), with the judge's model and rationale."""
    from reviewer.core.judging.dispute_common import format_value, value_of
    from reviewer.core.judging.disputes import primary_verdicts
    from reviewer.core.judging.label_first import pair_verdict_text, rationale_as_shown
    from reviewer.core.judging.verdicts import Scale

    echo("Verdicts:")
    for (_, _), v in sorted(
        primary_verdicts(
            v for vs in run.by_judge.values() for v in vs if v.subject == subject and run.dimension in v.scores
        ).items()
    ):
        pair = v.scale == Scale.WINNER and v.other_run_id is not None
        value = (
            pair_verdict_text(value_of(v, run.dimension), v.answer_order, shown)
            if pair
            else _shown(format_value(value_of(v, run.dimension)), shown)
        )
        rationale = rationale_as_shown(v.rationale, v.answer_order, shown) if pair else v.rationale
        echo(
            f"  {v.judge} (model {v.judge_model or '-'}): {value}" + (f"; rationale: {rationale}" if rationale else "")
        )


def _shown(value: str, order: str | None) -> str:
    """A stored winner as shown ('1' -> 'A' when shown 'ab'), other values as they are."""
    if value not in ("1", "2") or order is None:
        return value
    first_shown = "1" if order == "ab" else "2"
    return "A" if value == first_shown else "B"


@main.command("export-promptfoo")
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace OUT even when reviewer did not write it.")
@friendly_errors
def export_promptfoo(project: Path, out: Path, force: bool) -> None:
    """Write people's labels of runs imported from promptfoo results as
    promptfoo test cases (YAML) into OUT: each labelled run's variables and
    output, and its assertions expecting people's label (negated where
    people failed the output), for the next `promptfoo eval -c OUT`."""
    from reviewer.storage.promptfoo_export import write_promptfoo_tests

    p = open_project(project)
    try:
        n = write_promptfoo_tests(p, out, force=force)
    finally:
        p.close()
    echo(f"wrote {n} promptfoo test case(s) to {out}")


@main.command("export-inspect")
@click.argument("project", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("log", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace OUT even when reviewer did not write it.")
@friendly_errors
def export_inspect(project: Path, log: Path, out: Path, force: bool) -> None:
    """Write a copy of the inspect LOG into OUT in which each person's final
    label (adjudications, label-first labels) edits the score of the scorer
    whose verdict was labelled, with who, when and why, through inspect_ai's
    edit API; LOG is never changed. Needs inspect_ai: pip install 'reviewer[inspect]'."""
    from reviewer.storage.inspect_export import export_inspect as write_copy

    p = open_project(project)
    try:
        n = write_copy(p, log, out, force=force)
    finally:
        p.close()
    echo(f"wrote {out}: {n} score(s) edited with people's labels")
