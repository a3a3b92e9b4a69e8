"""Adjudicate with the keyboard (the keys are bound in
reviewer.qt.judging.view):

* 1 / 2 / T pick the winner of a pair ('1', '2', 'tie'); 1-5 set a 1-5
  score; A B C D F set a grade (core.judging.verdicts.normalise maps them to points);
  P / F pass or fail; on a 0-100 scale digits open an inline value edit.
* Enter accepts the value of the framed judge (Left/Right or [ / ] frame
  another one) and records that judge in ``sided_with``.
* Tab / Shift+Tab move between the subject's dimensions; J / K through the
  queue; after a decision the next dispute not adjudicated yet is shown.
* R (or typing a letter that is no key) opens the inline rationale. Right
  after a decision it amends that decision (``Session.replace_last``: the
  same decision with the rationale, one undo step, as reviewer.qt.review
  does for rejection reasons); otherwise it is held for the next decision.
  Tab in the rationale switches between the two; the label says which it is.
* Ctrl+Z / Ctrl+Shift+Z: the view goes to the dispute (and dimension) whose
  adjudication was undone or redone.

A ground-truth dispute (docs/window.md#adjudication-mode): 1 / 2 (or the side-picker's buttons)
side with annotator A or B: the command of ``reviewer adjudicate-gt``
(the adjudication and the consensus edit, one undo step; the item's runs
are re-scored), see reviewer.qt.judging.gt_sides. A rationale typed
first goes with it (it cannot be amended afterwards).

Every other decision is one core ``Adjudicate`` command through
``Session.execute`` (saved at once, with the reviewer and the time,
audited), done together with the reviewer's human label of each decided
dimension in the 'dispute' queue (reviewer.core.label_commands.
with_dispute_labels: one undo step), kept apart from the label-first
queue's fair sample. The controller keeps only the cursor: which dimension and judge
are current, and the rationale typed for the next decision.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from reviewer.core.commands import Adjudicate, Batch, Command
from reviewer.core.judging.dispute_common import is_human
from reviewer.core.judging.verdicts import Scale, Value, normalise
from reviewer.core.label_commands import CommitFirstLabel, with_dispute_labels
from reviewer.qt.judging import gt_sides
from reviewer.qt.judging.bar import DecisionBar
from reviewer.qt.judging.common import gives, is_flag, said, scale_of, show_value
from reviewer.qt.judging.compare import scale_text
from reviewer.qt.judging.queue import DisputeQueue
from reviewer.qt.judging.screen import DisputeScreen
from reviewer.qt.panels.shortcuts import close_sheets
from reviewer.qt.session import Session


class AdjudicationController(QObject):
    """The adjudication keys over a Session (see module doc)."""

    def __init__(
        self,
        session: Session,
        queue: DisputeQueue,
        screen: DisputeScreen,
        bar: DecisionBar,
        refocus: Callable[[], None],
        parent: QObject | None = None,
    ):
        super().__init__(parent)
        self.session, self.queue, self.screen, self.bar = session, queue, screen, bar
        self.refocus = refocus
        self.dim_index = 0
        self.judge_index: int | None = None
        self.pending_rationale = ""
        self.rationale_target = "next"  # 'last' (amend) or 'next'
        self._last: Command | None = None  # the last decision made here (with its labels)
        self._fresh = False  # nothing but the auto-advance happened since the last decision
        screen.refreshed.connect(self._reset)
        session.adjudicationsChanged.connect(self._show)
        session.walked.connect(self._walked)
        bar.rationaleCommitted.connect(self.rationale_given)
        bar.valueCommitted.connect(self.value_given)
        screen.sides.picked.connect(self.side)
        self._reset()

    # -- cursor ----------------------------------------------------------------------------
    def dimension(self) -> str | None:
        """The dimension being decided."""
        dims = self.screen.dims
        return dims[self.dim_index] if dims else None

    def scale(self) -> Scale | None:
        """The scale of the current dimension."""
        dim = self.dimension()
        return scale_of(self.screen.verdicts, dim) if dim else None

    def _scale_text(self, dim: str, scale: Scale | None) -> str:
        """compare.scale_text of the current dimension, from what the judges said."""
        if scale is None and is_flag(self.screen.verdicts, dim):
            return "yes/no"
        return scale_text(scale, [said(v, dim) for v in self.screen.verdicts if gives(v, dim)])

    def _scoring(self) -> list[int]:
        dim = self.dimension()
        return [n for n, v in enumerate(self.screen.verdicts) if dim is not None and gives(v, dim)]

    def _reset(self) -> None:
        self.dim_index, self._fresh = 0, False
        scoring = self._scoring()
        self.judge_index = scoring[0] if scoring else None
        self._show()

    def _show(self) -> None:
        self.screen.columns.set_state(self.dimension(), self.judge_index)
        d, dim, scale = self.screen.dispute, self.dimension(), self.scale()
        if d is None or dim is None:
            self.bar.show_state("Nothing to decide.", None, self.pending_rationale)
            return
        adj = next((a for a in self.session.adjudications() if (a.subject, a.dimension) == (d.subject, dim)), None)
        where = (
            (f"Deciding {dim} ({self.dim_index + 1} of {len(self.screen.dims)}, scale {self._scale_text(dim, scale)})")
            if self.screen.difference is None
            else f"Deciding {dim}"
        )
        if adj is None:
            done = "not adjudicated yet"
        else:
            done = f"adjudicated: {show_value(adj.value, scale)} by {adj.reviewer}"
            if adj.sided_with:
                done += f", sided with {adj.sided_with}"
            if adj.rationale:
                done += f" — {adj.rationale}"
        accept = ""
        diff = self.screen.difference
        if diff is not None:
            self.screen.sides.set_sides([diff.annotator_a, diff.annotator_b], adj.sided_with if adj else None)
            accept = f" · 1: side with {diff.annotator_a}, 2: side with {diff.annotator_b} (the consensus follows)"
        if self.judge_index is not None:
            v = self.screen.verdicts[self.judge_index]
            accept = f" · Enter accepts {self.screen.names[self.judge_index]}: {show_value(said(v, dim), v.scale)}"
        self.bar.show_state(f"{where} · {done}{accept}", scale, self.pending_rationale)

    def move_dimension(self, delta: int) -> None:
        """Tab / Shift+Tab: the next or previous dimension of the subject
        (in the rationale edit: switch what the rationale is for)."""
        if self.bar.rationale.hasFocus():
            self._set_target("next" if self.rationale_target == "last" else "last")
            return
        if self.screen.dims:
            self._fresh = False
            self.dim_index = (self.dim_index + delta) % len(self.screen.dims)
            scoring = self._scoring()
            if self.judge_index not in scoring:
                self.judge_index = scoring[0] if scoring else None
            self._show()

    def move_judge(self, delta: int) -> None:
        """Left/Right, [ / ]: frame the previous or next judge that scored
        the current dimension."""
        scoring = self._scoring()
        if not scoring:
            return
        self._fresh = False
        pos = scoring.index(self.judge_index) if self.judge_index in scoring else -1
        self.judge_index = scoring[(pos + delta) % len(scoring)]
        self._show()

    def step(self, delta: int) -> None:
        """J / K: the next or previous dispute of the queue."""
        ids = self.queue.ordered_ids()
        if not ids:
            return
        self._fresh = False
        current = self.session.current_dispute_id
        pos = ids.index(current) if current in ids else (-1 if delta > 0 else 0)
        self.session.set_dispute(ids[(pos + delta) % len(ids)])

    def _walked(self, command) -> None:
        """After undo or redo of an adjudication (alone, or with the
        consensus edit of a ground-truth dispute), show its dispute and dimension."""
        command = gt_sides.adjudication_of(command)
        if command is None:
            return
        dim = next(iter(command.values), None)
        disputes = [d for d in self.session.disputes() if d.subject == command.subject]
        target = next((d for d in disputes if d.dimension == dim), disputes[0] if disputes else None)
        if target is None:
            return
        self.session.set_dispute(target.id)
        if dim in self.screen.dims:
            self.dim_index = self.screen.dims.index(dim)
        self._fresh = False
        self._show()

    # -- value keys --------------------------------------------------------------------------
    def digit(self, n: int) -> None:
        """A digit key: a winner, a 1-5 score or the start of a 0-100 value."""
        scale = self.scale()
        if self.screen.difference is not None:
            if n in (1, 2):
                self.side(n)
            else:
                self.session.message.emit("1 or 2: side with one annotator")
        elif scale == Scale.WINNER and n in (1, 2):
            self.decide(str(n))
        elif scale == Scale.ORDINAL5 and 1 <= n <= 5:
            self.decide(float(n))
        elif scale == Scale.PERCENT:
            self.bar.ask_value(str(n))
        else:
            self.session.message.emit(f"{n} is not a value on this scale ({scale.value if scale else 'none'})")

    def letter(self, key: str) -> None:
        """A letter key: T tie, A-F grades, P/F pass and fail, C/P/I correct,
        partial and incorrect, T/F true and
        false on a flag (safety_flag); any other
        letter starts the rationale with it."""
        scale, key = self.scale(), key.upper()
        if is_flag(self.screen.verdicts, self.dimension()) and key in "TF":
            self.decide("true" if key == "T" else "false")  # a flag: T true, F false
        elif scale == Scale.WINNER and key == "T":
            self.decide("tie")
        elif scale == Scale.GRADE and key in "ABCDF":
            self.decide(normalise(key, Scale.GRADE))
        elif scale == Scale.PASS_FAIL and key in "PF":
            self.decide("pass" if key == "P" else "fail")
        elif scale == Scale.CIP and key in "CPI":
            self.decide(normalise(key, Scale.CIP))
        else:
            self.begin_rationale(key.lower())

    def value_given(self, text: str) -> None:
        """Enter in the 0-100 edit: decide that value."""
        value = normalise(text, Scale.PERCENT)
        if value is None:
            self.session.message.emit(f"'{text}' is not a value from 0 to 100")
        else:
            self.decide(value)
        self.refocus()

    def accept(self) -> None:
        """Enter: the framed judge's value is final (sided with that judge)."""
        # the Enter shortcut comes before an open edit's own Enter: commit the edit
        if self.bar.rationale.hasFocus():
            self.bar.commit_rationale()
            return
        if self.bar.value.hasFocus():
            self.bar.commit_value()
            return
        if self.judge_index is None:
            self.session.message.emit("no judge scored this dimension")
            return
        v, dim = self.screen.verdicts[self.judge_index], self.dimension()
        value = said(v, dim) if dim is not None else None
        if value is None:
            self.session.message.emit(f"{v.judge} gave no usable value here; pick one with the value keys")
            return
        self.decide(value, sided_with=v.judge)

    # -- deciding ----------------------------------------------------------------------------
    def decide(self, value: Value, sided_with: str | None = None) -> bool:
        """Adjudicate the current dimension of the current subject, then
        show the next dispute not adjudicated yet."""
        d, dim = self.screen.dispute, self.dimension()
        if d is None or dim is None:
            return False
        dispute_id = (
            d.id
            if dim == d.dimension
            else next((o.id for o in self.session.disputes() if (o.subject, o.dimension) == (d.subject, dim)), None)
        )
        cmd = Adjudicate(
            d.subject,
            {dim: value},
            self.session.reviewer,
            rationale=self.pending_rationale,
            sided_with={dim: sided_with},
            dispute_ids={dim: dispute_id},
        )
        done = with_dispute_labels(cmd, self._rubric_versions())
        if not self.session.execute(done):
            return False
        self._last, self.pending_rationale = done, ""
        self.session.message.emit(
            f"{d.subject}: {dim} = {show_value(value, self.scale())}"
            + (f" (sided with {sided_with})" if sided_with else "")
            + " · R adds a rationale"
        )
        self._advance()
        self._fresh = True
        self._show()
        return True

    def _rubric_versions(self) -> dict[str, str | None]:
        """{dimension: the rubric version of the latest judge verdict with
        one on the current subject that scores it} (for the dispute-queue labels)."""
        out: dict[str, str | None] = {}
        for v in sorted(self.screen.verdicts, key=lambda v: v.id or 0):
            if not is_human(v) and v.prompt_version:
                out.update({d: v.prompt_version for d in v.scores})
        return out

    @staticmethod
    def _versions_of(command: Command | None) -> dict[str, str | None]:
        """{dimension: rubric version} of the dispute-queue labels of a
        decision made here (its subject may no longer be on screen)."""
        parts = command.commands if isinstance(command, Batch) else []
        return {c.dimension: c.label.rubric_version for c in parts if isinstance(c, CommitFirstLabel)}

    def side(self, n: int) -> bool:
        """1 / 2 on a ground-truth dispute: side with annotator A / B (see
        module doc), then show the next dispute not adjudicated yet."""
        d, diff = self.screen.dispute, self.screen.difference
        if d is None or diff is None or n not in (1, 2):
            return False
        who = diff.annotator_a if n == 1 else diff.annotator_b
        if gt_sides.side_with(self.session, d, who, self.pending_rationale) is None:
            return False
        self._last, self.pending_rationale = None, ""
        self.session.message.emit(
            f"{d.subject}: sided with {who} on {d.dimension}; the consensus follows (Ctrl+Z undoes)"
        )
        self._advance()
        self._show()
        return True

    def _advance(self) -> None:
        ids, todo = self.queue.ordered_ids(), set(self.queue.undecided_ids())
        current = self.session.current_dispute_id
        start = ids.index(current) if current in ids else 0
        for dispute_id in ids[start:] + ids[:start]:
            if dispute_id in todo:
                if dispute_id == current:
                    self._reset()
                else:
                    self.session.set_dispute(dispute_id)
                return
        self.session.message.emit("every dispute shown is adjudicated")

    # -- rationale ------------------------------------------------------------------------------
    def can_amend(self) -> bool:
        """The last decision made here is still the last edit."""
        return self._last is not None and self.session.last_command is self._last

    def begin_rationale(self, text: str = "") -> None:
        """R (or typing): open the inline rationale edit."""
        if not self.bar.rationale.isVisible():
            self.rationale_target = "last" if self.can_amend() and self._fresh else "next"
        self.bar.ask_rationale(text)
        self._set_target(self.rationale_target)

    def _set_target(self, target: str) -> None:
        if target == "last" and not self.can_amend():
            target = "next"
        self.rationale_target = target
        last = gt_sides.adjudication_of(self._last) if self._last is not None else None
        if target == "last" and last is not None:
            dim, value = next(iter(last.values.items()))
            prompt = (
                f"Rationale for your last decision ({dim} = {show_value(value)}, {last.subject}; "
                "Tab: for the next one):"
            )
        else:
            prompt = "Rationale for the next decision" + (" (Tab: for the last one):" if self.can_amend() else ":")
        self.bar.rationale_label.setText(prompt)

    def rationale_given(self, text: str) -> None:
        """Enter in the rationale edit: amend the last decision or hold the
        text for the next one (see module doc)."""
        self.refocus()
        if not text:
            return
        last = gt_sides.adjudication_of(self._last) if self._last is not None else None
        if self.rationale_target == "last" and self.can_amend() and last is not None:
            cmd = Adjudicate(
                last.subject,
                dict(last.values),
                self.session.reviewer,
                rationale=text,
                sided_with=dict(last.sided_with),
                dispute_ids=dict(last.dispute_ids),
            )
            done = with_dispute_labels(cmd, self._versions_of(self._last))
            if self.session.replace_last(done):
                self._last = done
                self.session.message.emit(f"rationale added to {last.subject}")
        else:
            self.pending_rationale = text
            self._show()

    def escape(self) -> None:
        """Esc: close the '?' sheet, else the inline edits."""
        if close_sheets(self.bar):
            return
        self.bar.close_editors()
        self.refocus()
