"""Review with the keyboard: walk findings, confirm, reject, reclassify, add.

J/K next and previous finding; Shift+J next run that still needs review;
Y confirm; N reject (a reason can be typed inline afterwards); 1-6
reclassify as OCR, MISS, SPATIAL, HALLUC, FORMAT, PARTIAL; A adds a finding
the classifier missed (on the selected card, or on the run), its code
picked with 1-6. Every decision is a core Command, so it is undoable and
saved at once with the reviewer and the time.
"""

from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QLineEdit, QWidget

from reviewer.core.commands import AddFinding, DecideFindings
from reviewer.core.models import Status
from reviewer.qt.panels.legend import codes_of_run
from reviewer.qt.session import Session


class ReasonBar(QWidget):
    """An inline bar (no dialog) with a prompt and a line edit: Enter
    commits, Escape closes."""

    committed = Signal(str)

    def __init__(self, parent: Optional[QWidget] = None):
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self.label = QLabel()
        self.label.setTextFormat(Qt.PlainText)
        self.edit = QLineEdit()
        layout.addWidget(self.label)
        layout.addWidget(self.edit, 1)
        self.edit.returnPressed.connect(self._commit)
        self.hide()

    def ask(self, prompt: str, placeholder: str = "") -> None:
        """Show the bar with ``prompt`` and focus the edit; focus goes back
        where it was when the bar closes."""
        self._return_to = QApplication.focusWidget()
        self.label.setText(prompt)
        self.edit.clear()
        self.edit.setPlaceholderText(placeholder)
        self.show()
        self.edit.setFocus()

    def hideEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Give the keyboard back to the widget that had it (the review keys
        must not end up typing into a filter box)."""
        super().hideEvent(event)
        back = getattr(self, "_return_to", None)
        self._return_to = None
        if back is not None and back is not self.edit and back.isVisible():
            back.setFocus()

    def _commit(self) -> None:
        text = self.edit.text().strip()
        self.hide()
        self.committed.emit(text)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt name)
        """Escape hides the bar without committing (focus goes back); other keys as in QWidget."""
        if event.key() == Qt.Key_Escape:
            self.hide()
            return
        super().keyPressEvent(event)


class ReviewController(QObject):
    """The review actions over a Session; the main window binds keys to them.

    ``pending_add``: True after A until a code key (1-6) or Escape.
    """

    def __init__(self, session: Session, reason_bar: ReasonBar, parent: Optional[QObject] = None):
        super().__init__(parent)
        self.session = session
        self.reason_bar = reason_bar
        self.pending_add = False
        self._rejected: list[int] = []
        self._rejection: Optional[DecideFindings] = None
        reason_bar.committed.connect(self._reason_given)

    # -- navigation -------------------------------------------------------------------
    def step(self, delta: int) -> None:
        """Select the next (``delta`` 1) or previous (-1) finding of the run;
        past either end, go on into the next or previous run with findings."""
        s = self.session
        run = s.run()
        ids = [f.id for f in run.findings] if run else []
        current = s.selected_findings[-1] if s.selected_findings else None
        if current in ids:
            index = ids.index(current) + delta
            if 0 <= index < len(ids):
                s.select_findings([ids[index]])
                return
        elif ids:
            s.select_findings([ids[0] if delta > 0 else ids[-1]])
            return
        runs = [r for r in self._ordered_runs() if r.findings]
        here = [r.run["id"] for r in runs]
        if not runs:
            return
        pos = here.index(s.run_id) if s.run_id in here else -1
        target = runs[(pos + delta) % len(runs)]
        s.set_run(target.run["id"])
        if delta < 0:
            s.select_findings([target.findings[-1].id])

    def next_run_needing_review(self) -> None:
        """Go to the next run (in item, prompt, model, repetition order) that
        has a proposed finding; say so when every run is reviewed."""
        s = self.session
        runs = self._ordered_runs()
        ids = [r.run["id"] for r in runs]
        start = ids.index(s.run_id) + 1 if s.run_id in ids else 0
        for r in runs[start:] + runs[:start]:
            undecided = [f for f in r.findings if f.status == Status.PROPOSED]
            if undecided:
                if r.run["id"] != s.run_id:
                    s.set_run(r.run["id"])
                else:
                    s.message.emit("only this run still needs review")
                s.select_findings([undecided[0].id])
                return
        s.message.emit("every run is reviewed")

    def _ordered_runs(self):
        return sorted(self.session.all_runs(),
                      key=lambda r: (r.run["item"], r.run["prompt"], r.run["model"], r.run["repetition"]))

    def _advance(self, decided: list[int]) -> None:
        """After deciding one finding, select the next undecided one of the run."""
        s = self.session
        run = s.run()
        if run is None or len(decided) != 1:
            return
        ids = [f.id for f in run.findings]
        start = ids.index(decided[0]) + 1 if decided[0] in ids else 0
        for f in run.findings[start:]:
            if f.status == Status.PROPOSED:
                s.select_findings([f.id])
                return

    # -- decisions ----------------------------------------------------------------------
    def _targets(self) -> list[int]:
        return list(self.session.selected_findings)

    def confirm(self) -> None:
        """Y: confirm the selected findings."""
        ids = self._targets()
        if ids and self.session.execute(DecideFindings(ids, Status.CONFIRMED, self.session.reviewer)):
            self._advance(ids)

    def reject(self) -> None:
        """N: reject the selected findings now; an optional reason can then
        be typed inline (Enter saves it, Escape leaves none)."""
        ids = self._targets()
        command = DecideFindings(ids, Status.REJECTED, self.session.reviewer)
        if not ids or not self.session.execute(command):
            return
        self._rejected, self._rejection = ids, command
        self.reason_bar.ask(f"rejected {len(ids)} finding(s); reason (optional):", "Enter to save, Esc to skip")

    def _reason_given(self, text: str) -> None:
        if self.pending_add:
            return
        ids, command = self._rejected, self._rejection
        self._rejected, self._rejection = [], None
        if not ids or not text:
            self._advance(ids)
            return
        reasoned = DecideFindings(ids, Status.REJECTED, self.session.reviewer, reason=text)
        if self.session.last_command is command:
            # the rejection is still the last edit: replace it (one undo step)
            self.session.undo()
        self.session.execute(reasoned)
        self._advance(ids)

    def close_reason(self) -> bool:
        """Escape: close the reason bar without a reason; True if it was open."""
        if not self.reason_bar.isVisible():
            return False
        self.reason_bar.hide()
        ids, self._rejected, self._rejection = self._rejected, [], None
        self._advance(ids)
        return True

    def reclassify(self, number: int) -> None:
        """1-6: reclassify the selected findings (or, after A, pick the code
        of the new finding)."""
        ids = self._targets()
        order = codes_of_run(self.session.run())
        if number > len(order):
            self.session.message.emit(f"{len(order)} codes here: keys 1-{len(order)}")
            return
        code = order[number - 1]
        if self.pending_add:
            self._add(code)
            return
        if ids and self.session.execute(DecideFindings(ids, Status.CONFIRMED, self.session.reviewer,
                                                       final_code=code)):
            self._advance(ids)

    def begin_add(self) -> None:
        """A: add a finding the classifier missed; the next 1-6 picks its code."""
        if self.session.run() is None:
            self.session.message.emit("select a run first")
            return
        self.pending_add = True
        target = self._card_target()
        where = f"card '{target[1]}'" if target else "the run"
        self.session.message.emit(f"new finding on {where}: press 1-6 for its code, Esc to cancel")

    def cancel(self) -> None:
        """Escape: leave add mode."""
        if self.pending_add:
            self.pending_add = False
            self.session.message.emit("add cancelled")

    def _card_target(self) -> Optional[tuple[int, str]]:
        s = self.session
        if not s.selected_cards:
            return None
        card = next((c for c in s.ground_truth().cards if c.id == s.selected_cards[0]), None)
        return (card.id, card.text) if card else None

    def _add(self, code) -> None:
        self.pending_add = False
        s = self.session
        run = s.run()
        if run is None:
            return
        target = self._card_target()
        cmd = AddFinding(run.run["id"], code, s.reviewer,
                         gt_card_id=target[0] if target else None,
                         gt_card=target[1] if target else None)
        if s.execute(cmd):
            s.select_findings([cmd.finding.id])
