"""``reviewer label``: label first in a terminal. Walks the fair queue of a
judge and dimension (reviewer.storage.judging.labels); per subject it shows only
the item, the output(s) and the rubric, reads the first label, then shows
the judges' verdicts and reads keep or change. Every answer is written at
once (core label commands on the project), so quitting loses nothing: a
first label without its final value is asked again at the reveal step."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, TypeVar

import click

from reviewer.cli.common import friendly_errors, echo, main
from reviewer.cli.numbers import whole
from reviewer.storage.project.db import open_project

if TYPE_CHECKING:
    from reviewer.core.judging.verdicts import Scale, Value

T = TypeVar("T")


def _ask(text: str, parse: Callable[[str], T]) -> Optional[T]:
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
    dimension: Optional[str],
    reviewer_name: Optional[str],
    limit: Optional[int],
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
    from reviewer.core.judging.dispute_common import primary_verdicts
    from reviewer.core.judging.dispute_common import format_value, value_of
    from reviewer.core.judging.label_first import (
        LABEL_FIRST,
        choices_text,
        pair_verdict_text,
        parse_label,
        rationale_as_shown,
    )
    from reviewer.core.judging.rubrics import rubric_for
    from reviewer.core.judging.verdicts import Scale
    from reviewer.core.label_commands import CommitFirstLabel, SetFinalValue
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
        dims = sorted({d for v in mine for d in v.scores})
        if dimension is None:
            if len(dims) != 1:
                raise click.ClickException(
                    f"judge '{judge}' scores several dimensions; pick one with --dimension ({', '.join(dims)})"
                )
            dimension = dims[0]
        try:
            labels.refresh_queue(p, judge, dimension)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        latest = max(mine, key=lambda v: v.id or 0)
        version, scale = latest.prompt_version, next(v.scale for v in mine if dimension in v.scores)
        rubric = rubric_for(version, dimension, scale.value)
        todo = labels.next_entries(p, judge, dimension, who)
        if order == "active":
            from reviewer.storage.judging.label_plan import active_order

            by_subject = {e.subject: e for e in todo}
            todo = [by_subject[x] for x in active_order(p, judge, dimension, who) if x in by_subject]
        if limit is not None:
            todo = todo[:limit]
        if not todo:
            echo(f"nothing to label: every subject of the queue has a final value by {who}")
            return
        store = labels.LabelStore(p, who)
        stack: UndoStack[labels.LabelStore] = UndoStack()
        done = 0
        for n, entry in enumerate(todo, 1):
            subject = entry.subject
            shown = labels.subject_order(p, subject)
            name, item_text, outputs = labels.subject_view(p, subject, judge, verdicts)
            echo(f"\n[{n}/{len(todo)}] {subject}")
            echo(f"Item: {name or '-'}\n{item_text}")
            if len(outputs) == 2:
                echo(f"Output A:\n{outputs[0]}\nOutput B:\n{outputs[1]}")
            elif outputs:
                echo(f"Output:\n{outputs[0]}")
            echo(f"Rubric ({dimension}):\n{rubric}")
            stored = store.get_label(subject, dimension, who, LABEL_FIRST)
            first: Value
            if stored is not None and stored.first_value is not None:  # committed before a kill or quit
                first = stored.first_value
                echo(f"first label committed earlier: {_shown(format_value(first), shown)}")
            else:
                first = _ask(
                    f"Label {dimension} [{choices_text(scale)}; s skip, q quit]",
                    partial(_label_or_skip, scale=scale, order=shown),
                )
                if first is None:
                    break
                if first == "skip":
                    continue
                stack.push(
                    CommitFirstLabel(
                        subject,
                        dimension,
                        first,
                        who,
                        queue=LABEL_FIRST,
                        judge=judge,
                        rubric_version=version,
                        answer_order=shown,
                    ),
                    store,
                )
                echo(f"first label committed: {_shown(format_value(first), shown)}")
            echo("Verdicts:")
            for (_, _), v in sorted(
                primary_verdicts(
                    v for vs in by_judge.values() for v in vs if v.subject == subject and dimension in v.scores
                ).items()
            ):
                pair = v.scale == Scale.WINNER and v.other_run_id is not None
                value = (
                    pair_verdict_text(value_of(v, dimension), v.answer_order, shown)
                    if pair
                    else _shown(format_value(value_of(v, dimension)), shown)
                )
                rationale = rationale_as_shown(v.rationale, v.answer_order, shown) if pair else v.rationale
                echo(
                    f"  {v.judge} (model {v.judge_model or '-'}): {value}"
                    + (f"; rationale: {rationale}" if rationale else "")
                )
            keep = _ask("Keep (k) or change (c)?", lambda t: {"k": "keep", "c": "change"}.get(t.strip().lower()))
            if keep is None:
                break
            final: Value = None
            if keep == "change":
                final = _ask(f"New {dimension} [{choices_text(scale)}]", partial(parse_label, scale=scale, order=shown))
                if final is None:
                    break
            stack.push(SetFinalValue(subject, dimension, who, final, queue=LABEL_FIRST), store)
            echo(f"final value: {_shown(format_value(first if final is None else final), shown)}")
            done += 1
        echo(f"\n{done} subject(s) labelled by {who}")
    finally:
        p.close()


def _label_or_skip(text: str, scale: Scale, order: Optional[str]) -> Value:
    """'skip' for s, else the label ``text`` reads as on ``scale`` (parse_label; None when it is not one)."""
    from reviewer.core.judging.label_first import parse_label

    return "skip" if text.strip().lower() == "s" else parse_label(text, scale, order)


def _shown(value: str, order: Optional[str]) -> str:
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
