"""Label first with the keyboard (the keys are bound in
reviewer.qt.judging.view, shown in the '?' sheet):

* a value key sets the label being made: 1-5 on a 1-5 scale, A B C D F on
  A-F, P / F on pass/fail, A / B / T on a pair (the output shown first,
  second, a tie; stored in the original order, core label_first.
  parse_label); on 0-100 a digit opens the value edit;
* Enter commits the first label (core ``CommitFirstLabel`` through
  ``Session.execute``: saved at once, one undo step), and only then are
  the judges' verdicts shown;
* K keeps the first label as the final value, C changes it (a value key,
  then Enter; core ``SetFinalValue``); then the next subject of the
  budget's order not labelled yet is shown;
* S skips to the next subject, Up / Down walk the list, Esc cancels a
  change, F5 recomputes the budget and the order.

The phase of a subject (first label to make, verdicts shown, done) is read
from the project each time (the reviewer's label of the subject and
dimension in the label-first queue), so undo and redo (Ctrl+Z) show what
is stored. The controller keeps only the cursor: the subject, the value
typed and whether a change is being made.
"""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QApplication

from reviewer.core.commands import Command
from reviewer.core.judging.label_first import LABEL_FIRST, HumanLabel, parse_label
from reviewer.core.judging.verdicts import Scale, Value
from reviewer.core.label_commands import CommitFirstLabel, SetFinalValue
from reviewer.qt.judging.label_first import LabelFirstPage, shown_value
from reviewer.qt.session import Session
from reviewer.qt.session.reads import ProjectError, budget_line, progress_line

#: The keys of a label per scale, as the key line names them.
KEYS = {
    Scale.ORDINAL5: "1-5",
    Scale.GRADE: "A B C D F",
    Scale.PERCENT: "type 0-100",
    Scale.PASS_FAIL: "P pass / F fail",
    Scale.WINNER: "A / B: the output shown first / second, T: tie",
    Scale.CIP: "C correct / P partial / I incorrect",
}


class LabelFirstController(QObject):
    """The label-first keys over a Session (see module doc)."""

    def __init__(self, session: Session, page: LabelFirstPage, parent: QObject | None = None):
        super().__init__(parent)
        self.session, self.page = session, page
        self.subject: str | None = None
        self.pending: Value = None
        self.changing = False
        page.judge_combo.currentIndexChanged.connect(self._judge_changed)
        page.dimension_combo.currentIndexChanged.connect(lambda _: self.replan())
        page.recompute.clicked.connect(self.replan)
        page.list.currentRowChanged.connect(self._row_changed)
        page.value.returnPressed.connect(self._value_entered)
        session.adjudicationsChanged.connect(self._stored)
        session.walked.connect(self._walked)
        session.projectChanged.connect(self._project_changed)
        session.reviewerChanged.connect(lambda _: self.replan() if page.isVisible() else None)
        session.planner.planned.connect(self._planned)
        session.planner.failed.connect(self._plan_failed)

    # -- the plan ----------------------------------------------------------------------
    def enter(self) -> None:
        """The page is shown: fill the choices and make the plan."""
        if not self.session.has_project():
            return
        self.page.set_judges(self.session.reads.judge_dimensions(), self.page.judge(), self.page.dimension())
        self.replan()

    def _judge_changed(self, _index: int) -> None:
        judge = self.page.judge()
        if self.session.has_project() and judge is not None:
            self.page.set_dimensions(self.session.reads.judge_dimensions().get(judge, []), self.page.dimension())
        self.replan()

    def replan(self) -> None:
        """(Re)compute the budget and the order of the current judge and
        dimension (label_plan) and show the first subject not labelled yet."""
        judge, dim = self.page.judge(), self.page.dimension()
        self.page.plan, self.subject, self.pending, self.changing = None, None, None, False
        if not self.session.has_project() or judge is None or dim is None:
            self.page.prompt.setText("No judge verdict to label: import or run a judge first.")
            self._show()
            return
        if self.session.planner.in_background():  # a big project: the queue is written on the writer worker
            self._show()
            self.page.prompt.setText("Planning the label-first queue…")
            self.session.planner.start(judge, dim, self.session.reviewer)
            return
        self.session.planner.cancel()
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            self.page.plan = self.session.reads.label_plan(judge, dim, self.session.reviewer)
        except (ValueError, ProjectError, sqlite3.Error) as exc:
            self.session.error.emit(f"cannot plan the label-first queue: {exc}")
            self._show()
            return
        finally:
            QApplication.restoreOverrideCursor()
        self.subject = self._next_todo(None)
        self._show()

    def _planned(self, plan) -> None:
        """The writer worker's plan: shown unless another judge or dimension was chosen since."""
        if (plan.judge, plan.dimension, plan.reviewer) != (
            self.page.judge(),
            self.page.dimension(),
            self.session.reviewer,
        ):
            return
        self.page.plan, self.subject, self.pending, self.changing = plan, None, None, False
        self.subject = self._next_todo(None)
        self._show()

    def _plan_failed(self, why: str) -> None:
        self.session.error.emit(f"cannot plan the label-first queue: {why}")
        self.page.prompt.setText("")

    def _project_changed(self) -> None:
        self.page.plan, self.subject = None, None
        if self.page.isVisible():
            self.enter()

    # -- reading what is stored ------------------------------------------------------------
    def _labelled(self) -> set[str]:
        plan = self.page.plan
        return self.session.reads.labelled_by(plan.dimension, plan.reviewer) if plan else set()

    def label(self) -> HumanLabel | None:
        """The reviewer's stored label of the current subject (label-first queue)."""
        plan, store = self.page.plan, self.session.store
        if plan is None or store is None or self.subject is None:
            return None
        return store.get_label(self.subject, plan.dimension, plan.reviewer, LABEL_FIRST)

    def phase(self) -> str:
        """'first' (no first label yet), 'reveal' (verdicts shown, no final
        value) or 'done'; 'none' without a subject."""
        if self.subject is None:
            return "none"
        label = self.label()
        if label is None or label.first_value is None:
            return "first"
        return "reveal" if label.final_value is None else "done"

    def order(self) -> str | None:
        """The stored order the current pair is shown in (None: one output)."""
        return self.session.reads.subject_order(self.subject) if self.subject else None

    def _next_todo(self, after: str | None) -> str | None:
        plan = self.page.plan
        if plan is None or not plan.order:
            return None
        done = self._labelled()
        start = plan.order.index(after) + 1 if after in plan.order else 0
        rest = plan.order[start:] + plan.order[:start]
        return next((s for s in rest if s not in done), None)

    # -- showing ----------------------------------------------------------------------------
    def _show(self) -> None:
        page, plan = self.page, self.page.plan
        done = self._labelled()
        page.show_queue(plan.order if plan else [], done, self.subject)
        page.budget.setText(budget_line(plan) if plan else "")
        page.progress.setText(progress_line(plan, len(done & set(plan.order))) if plan else "")
        page.show_subject(self.subject, plan.judge if plan else "", self.order())
        label = self.label()
        if plan is not None and self.subject is not None and label is not None and label.first_value is not None:
            page.show_verdicts(self.subject, plan.dimension, self.order(), label)
        self._prompt()

    def _prompt(self) -> None:
        plan, phase = self.page.plan, self.phase()
        if plan is None:
            return
        keys, order = KEYS[plan.scale], self.order()
        typed = shown_value(self.pending, plan.scale, order) if self.pending is not None else "-"
        if phase == "none":
            text = (
                f"Nothing left to label: every subject of the fair queue has a first label by {plan.reviewer}"
                if plan.queue_size
                else "Nothing to label in this queue"
            )
        elif phase == "first" or self.changing:
            verb = "Change the final value of" if self.changing else "Label"
            tail = "Enter saves · Esc cancels" if self.changing else "Enter commits · S skips"
            text = f"{verb} {plan.dimension} [{keys}]: {typed} · {tail}"
        elif phase == "reveal":
            text = "First label committed: the judges are shown below · K keeps it · C changes it"
        else:
            text = "Labelled · C changes the final value · S: next subject"
        self.page.prompt.setText(text)
        self.page.value.setVisible(plan.scale == Scale.PERCENT and (phase == "first" or self.changing))

    def _row_changed(self, row: int) -> None:
        plan = self.page.plan
        if plan is not None and 0 <= row < len(plan.order):
            self.go(plan.order[row])

    def go(self, subject: str | None) -> None:
        """Show ``subject`` (its phase as stored)."""
        self.subject, self.pending, self.changing = subject, None, False
        self._show()

    def _stored(self) -> None:
        """A label (or an adjudication) was written: show what is stored."""
        if self.page.isVisible() and self.page.plan is not None:
            self._show()

    def _walked(self, command: Command) -> None:
        """Undo or redo of a label: show its subject."""
        plan = self.page.plan
        if (
            isinstance(command, (CommitFirstLabel, SetFinalValue))
            and plan is not None
            and command.subject in plan.order
            and command.dimension == plan.dimension
        ):
            self.go(command.subject)

    # -- keys -----------------------------------------------------------------------------------
    def key(self, text: str) -> None:
        """A value key (a digit or a letter; K and C see module doc)."""
        plan, phase, k = self.page.plan, self.phase(), text.upper()
        if plan is None or phase == "none":
            return
        if phase in ("reveal", "done") and not self.changing:
            if k == "K" and phase == "reveal":
                self.keep()
            elif k == "C":
                self.changing, self.pending = True, None
                self._prompt()
            else:
                self.session.message.emit("K keeps the first label, C changes it")
            return
        if plan.scale == Scale.PERCENT and k.isdigit():
            self.page.value.setVisible(True)
            self.page.value.setText(k)
            self.page.value.setFocus()
            return
        value = parse_label(k, plan.scale, self.order())
        if value is None:
            self.session.message.emit(f"{k} is not a value here ({KEYS[plan.scale]})")
            return
        self.pending = value
        self._prompt()

    def _value_entered(self) -> None:
        text = self.page.value.text()
        value = parse_label(text, Scale.PERCENT)
        self.page.list.setFocus()
        if value is None:
            self.session.message.emit(f"'{text}' is not a value from 0 to 100")
            return
        self.page.value.clear()
        self.pending = value
        self.commit()

    def commit(self) -> None:
        """Enter: commit the first label, or save the changed final value."""
        if self.page.value.hasFocus():
            self._value_entered()
            return
        plan, phase = self.page.plan, self.phase()
        if plan is None or self.subject is None:
            return
        if self.pending is None:
            if phase == "reveal":
                self.session.message.emit("K keeps the first label, C changes it")
            elif phase == "first" or self.changing:
                self.session.message.emit(f"type a label first ({KEYS[plan.scale]})")
            return
        if self.changing:
            self._final(self.pending)
            return
        if phase != "first":
            return
        command = CommitFirstLabel(
            self.subject,
            plan.dimension,
            self.pending,
            plan.reviewer,
            queue=LABEL_FIRST,
            judge=plan.judge,
            rubric_version=plan.rubric_version,
            answer_order=self.order(),
        )
        if self.session.execute(command):
            self.pending = None
            self._show()

    def keep(self) -> None:
        """K: the first label is the final value."""
        self._final(None)

    def _final(self, value: Value) -> None:
        plan = self.page.plan
        if plan is None or self.subject is None:
            return
        if self.session.execute(SetFinalValue(self.subject, plan.dimension, plan.reviewer, value, queue=LABEL_FIRST)):
            self.go(self._next_todo(self.subject))

    def skip(self) -> None:
        """S: the next subject of the order (labelled or not)."""
        self.step(1)

    def step(self, delta: int) -> None:
        """Up / Down (S): the previous / next subject of the list."""
        plan = self.page.plan
        if plan is None or not plan.order:
            return
        at = plan.order.index(self.subject) if self.subject in plan.order else -1
        self.go(plan.order[(at + delta) % len(plan.order)])

    def escape(self) -> None:
        """Esc: drop the value typed and a change begun."""
        self.pending, self.changing = None, False
        self.page.value.clear()
        self.page.list.setFocus()
        self._prompt()
