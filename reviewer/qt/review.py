"""Review with the keyboard: walk findings, confirm, reject, reclassify, add.

J/K next and previous finding; Shift+J next run that still needs review;
Y confirm; N reject (at once); R types an optional reason for the finding
just rejected (or the selected rejected one); 1-6 reclassify as OCR, MISS,
SPATIAL, HALLUC, FORMAT, PARTIAL; Shift+Y / Shift+N confirm or reject every
undecided finding of the selected finding's code in the run, Ctrl+Shift+Y /
Ctrl+Shift+N every undecided finding of the run (one undo step each); A adds
a finding the classifier missed (on the selected card, or on the run), its
code picked with 1-6.

After a decision the next undecided finding of the run is selected; when
the run has none left and ``auto_advance`` is on, the next run that needs
review is shown. Undo and redo of a decision show its run and findings.
Every decision is a core Command, so it is undoable and saved at once with
the reviewer and the time.

The reason bar never swallows review keys: after N it only shows (the focus
stays where it was, so Y, N, 1-6, J and K go on reviewing); R puts the
keyboard in its line edit, Enter saves the reason, Esc leaves it, Ctrl+Z
undoes the rejection.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent

from reviewer.core.cards.reclassify import refusal
from reviewer.core.commands import AddFinding, Command, DecideFindings
from reviewer.core.models import Code, Finding, Status
from reviewer.qt.panels.legend import codes_for
from reviewer.qt.reason_bar import ReasonBar
from reviewer.qt.session import Session


class ReviewController(QObject):
    """The review actions over a Session; the main window binds keys to them.

    ``pending_add``: True after A until a code key (1-6) or Escape.
    ``auto_advance``: go to the next run needing review when a run is done.
    """

    def __init__(self, session: Session, reason_bar: ReasonBar, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.reason_bar = reason_bar
        self.pending_add = False
        self.auto_advance = True
        self._rejected: list[int] = []
        self._rejection: Command | None = None
        #: () -> (span index, span text) of the span at the cursor in the span pane, or None (docs/spans.md#keys: A)
        self.span_target: Callable[[], tuple[int, str] | None] = lambda: None
        reason_bar.committed.connect(self._reason_given)
        reason_bar.edit.installEventFilter(self)
        session.walked.connect(self._walked)
        self._deciding = False  # a decision under way (it may move on to the next run)
        self._run_seen = session.run_id
        session.runChanged.connect(self._run_changed)

    def _run_changed(self) -> None:
        """Another run is shown: the reason bar of the run left closes and R
        forgets its rejection; a decision that moved on to the next run
        itself keeps its hint."""
        if self.session.run_id == self._run_seen:
            return
        self._run_seen = self.session.run_id
        if not self._deciding:
            self._rejected, self._rejection = [], None
            self.reason_bar.close_bar()

    # -- navigation -------------------------------------------------------------------
    def step(self, delta: int) -> None:
        """Select the next (``delta`` 1) or previous (-1) finding of the run;
        past either end, go on into the next or previous run with findings."""
        s = self.session
        run = s.run()
        ids = _ids(run.findings) if run else []
        current = s.selected_findings[-1] if s.selected_findings else None
        if current in ids:
            index = ids.index(current) + delta
            if 0 <= index < len(ids):
                s.select_findings([ids[index]])
                return
        elif ids:
            s.select_findings([ids[0] if delta > 0 else ids[-1]])
            return
        target = next((x for x in self._lines_from(s.run_id, delta, include_self=True) if x.findings), None)
        if target is None:
            return
        s.set_run(target.id)
        run = s.run()
        if delta < 0 and run is not None and run.findings:
            s.select_findings(_ids(run.findings[-1:]))

    def next_run_needing_review(self) -> None:
        """Go to the next run (in item, prompt, model, repetition order) that
        has a proposed finding; say so when every run is reviewed."""
        s = self.session
        current = s.run_id
        for x in self._lines_from(current, 1, include_self=True):
            if not x.open:
                continue
            if x.id != s.run_id:
                s.set_run(x.id)
            run = s.run()
            undecided = [f for f in run.findings if f.status == Status.PROPOSED] if run else []
            if not undecided:
                continue
            if x.id == current:
                s.message.emit("only this run still needs review")
            s.select_findings(_ids(undecided[:1]))
            return
        s.message.emit("every run is reviewed")

    def _lines_from(self, run_id: int | None, delta: int, include_self: bool = False):
        """The RunLines of every run in item, prompt, model, repetition order,
        from the one after ``run_id`` (before it, ``delta`` -1) round to
        ``run_id`` itself (last, with ``include_self``); from the first run
        when ``run_id`` is unknown; only runs of items in the shown item's
        workflow. Lazy: a walk stops where it finds."""
        s = self.session
        ids, pos = s.run_order()
        n = len(ids)
        start = pos.get(run_id) if run_id is not None else None
        first = (start + delta) % n if start is not None and n else (0 if delta > 0 else n - 1)
        count = n if start is None else (n if include_self else n - 1)
        workflow = s.workflow()
        same: dict[int, bool] = {}  # item id -> in the shown workflow (J never leaves the perspective)
        for k in range(count):
            line = s.line(ids[(first + k * delta) % n])
            if workflow is not None and line.item_id not in same:
                status = s.cache.status(line.item_id)
                same[line.item_id] = status is None or status.workflow == workflow
            if workflow is None or same[line.item_id]:
                yield line

    def _advance(self, decided: list[int], finished: bool = True) -> None:
        """After a decision: select the next undecided finding of the run
        (after the decided ones, else from the top); with none left, when
        the decision ``finished`` the run (it decided an undecided finding)
        and ``auto_advance`` is on, show the next run that needs review."""
        s = self.session
        run = s.run()
        if run is None:
            return
        ids = [f.id for f in run.findings]
        after = max((ids.index(i) for i in decided if i in ids), default=-1) + 1
        undecided = [f for f in run.findings[after:] + run.findings[:after] if f.status == Status.PROPOSED]
        if undecided:
            s.select_findings(_ids(undecided[:1]))
        elif self.auto_advance and finished and run.findings:
            done = f"{run.run['prompt']} #{run.run['repetition']}"
            self.next_run_needing_review()
            shown = s.run()
            if s.run_id != run.run["id"] and shown is not None:
                s.message.emit(
                    f"run {done} reviewed; on to {shown.run['item']} · {shown.run['prompt']} #{shown.run['repetition']}"
                )

    def _walked(self, command) -> None:
        """Undo or redo of a decision: show its run with its findings selected."""
        if not isinstance(command, (DecideFindings, AddFinding)):
            return
        s = self.session
        run_id: int | None
        if isinstance(command, AddFinding):
            run_id, ids = command.run_id, [command.finding.id]
        else:
            run_id, ids = (command.before[0].run_id if command.before else None), list(command.ids)
        if run_id is None or not s.has_run(run_id):
            return
        if run_id != s.run_id:
            s.set_run(run_id)
        run = s.run()
        if run is None:
            return
        live = {f.id for f in run.findings}
        s.select_findings([i for i in ids if i is not None and i in live])
        if self._rejection is command:
            self._rejected, self._rejection = [], None
            self.reason_bar.close_bar()

    # -- decisions ----------------------------------------------------------------------
    def _targets(self) -> list[int]:
        return list(self.session.selected_findings)

    def _decide(self, ids: list[int], status: Status, what: str = "", **kw) -> bool:
        if not ids:
            self.session.message.emit("select a finding first (J / K)")
            return False
        run = self.session.run()
        was_open = any(f.id in set(ids) and f.status == Status.PROPOSED for f in (run.findings if run else []))
        command = DecideFindings(ids, status, self.session.reviewer, what=what, **kw)
        self._deciding = True
        try:
            if not self.session.execute(command):
                return False
            if status == Status.REJECTED and kw.get("final_code") is None:
                self._rejected, self._rejection = ids, command
                self.reason_bar.show_hint(f"rejected {len(ids)} finding(s) · R: add a reason")
            self._advance(ids, finished=was_open)
        finally:
            self._deciding = False
        return True

    def confirm(self) -> None:
        """Y: confirm the selected findings."""
        self._decide(self._targets(), Status.CONFIRMED)

    def reject(self) -> None:
        """N: reject the selected findings at once (R adds a reason)."""
        self._decide(self._targets(), Status.REJECTED)

    def decide_group(self, status: Status, same_code: bool) -> None:
        """Shift+Y / Shift+N (``same_code``): confirm or reject every
        undecided finding of the run with the selected finding's code;
        Ctrl+Shift+Y / Ctrl+Shift+N: every undecided finding of the run.
        One command, one undo step."""
        s = self.session
        run = s.run()
        if run is None:
            s.message.emit("select a run first")
            return
        undecided = [f for f in run.findings if f.status == Status.PROPOSED]
        what = ""
        if same_code:
            chosen = next((f for f in run.findings if s.selected_findings and f.id == s.selected_findings[0]), None)
            if chosen is None:
                s.message.emit("select a finding first: its code is the group")
                return
            code = chosen.final_code or chosen.code
            undecided = [f for f in undecided if (f.final_code or f.code) == code]
            what = code.value
        if not undecided:
            s.message.emit(f"no undecided {what + ' ' if what else ''}finding in this run")
            return
        self._decide(_ids(undecided), status, what)

    def begin_reason(self) -> None:
        """R: type a reason for the rejected finding(s) selected, else for
        those rejected last; Enter saves it (replacing the rejection when it
        is still the last edit: one undo step), Esc leaves none."""
        s = self.session
        run = s.run()
        chosen = [f for f in (run.findings if run else []) if f.id in set(s.selected_findings)]
        if chosen and all(f.status == Status.REJECTED for f in chosen):
            ids = _ids(chosen)
            if ids != self._rejected:
                self._rejected, self._rejection = ids, None
        elif not self._rejected:
            s.message.emit("no rejected finding to give a reason for (N rejects)")
            return
        self.reason_bar.ask(
            f"reason for the {len(self._rejected)} rejected finding(s):", "Enter saves, Esc leaves it without one"
        )

    def _reason_given(self, text: str) -> None:
        ids, command = self._rejected, self._rejection
        if not ids or not text:
            return
        reasoned = DecideFindings(ids, Status.REJECTED, self.session.reviewer, reason=text)
        keep = list(self.session.selected_findings)
        if command is not None and self.session.last_command is command:
            done = self.session.replace_last(reasoned)  # the rejection is still the last edit: one undo step
        else:
            done = self.session.execute(reasoned)
        if done:
            self._rejection = reasoned
            run = self.session.run()
            self.session.select_findings([i for i in keep if i in {f.id for f in run.findings}] if run else [])
            self.session.message.emit(f"reason saved for {len(ids)} finding(s) · Ctrl+Z undoes the rejection")

    def close_reason(self) -> bool:
        """Escape: close the reason bar without a reason; True if it was open."""
        if not self.reason_bar.isVisible():
            return False
        self.reason_bar.close_bar()
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt name)
        """Escape in the reason edit closes the bar (before the window's Esc action)."""
        if not isinstance(event, QKeyEvent):
            return super().eventFilter(watched, event)
        if event.type() == QEvent.Type.ShortcutOverride and event.key() == Qt.Key.Key_Escape:
            event.accept()
            return True
        if event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Escape:
            self.reason_bar.close_bar()
            return True
        return super().eventFilter(watched, event)

    def reclassify(self, number: int) -> None:
        """1-6: reclassify the selected findings (or, after A, pick the code
        of the new finding)."""
        order = codes_for(self.session.workflow(), self.session.run())
        if not order:
            self.session.message.emit("no findings here to reclassify")
            return
        if number > len(order):
            self.session.message.emit(f"{len(order)} codes here: keys 1-{len(order)}")
            return
        code = order[number - 1]
        if self.pending_add:
            self._add(code)
            return
        why = self._refusal(code)
        if why:
            self.session.message.emit(why)
            return
        self._decide(self._targets(), Status.CONFIRMED, final_code=code)

    def _refusal(self, code) -> str | None:
        """Why a selected card finding cannot become ``code`` (decision
        reclassification-keeps-the-finding-shape), or None."""
        run = self.session.run()
        if run is None or not isinstance(code, Code):
            return None
        wanted = set(self._targets())
        spatial = bool(getattr(run.facts, "spatial_scored", False))
        for f in run.findings:
            if f.id in wanted:
                why = refusal(f, code, spatial)
                if why:
                    return why
        return None

    def begin_add(self) -> None:
        """A: add a finding the classifier missed; the next number key picks its code."""
        if self.session.run() is None:
            self.session.message.emit("select a run first")
            return
        codes = codes_for(self.session.workflow(), self.session.run())
        if not codes:
            self.session.message.emit("no findings here: a judged output is reviewed in the adjudication mode (F3)")
            return
        self.pending_add = True
        target = self._card_target()
        span = None if target else self.span_target()
        where = f"card '{target[1]}'" if target else f"span '{span[1]}'" if span else "the run"
        self.session.message.emit(f"new finding on {where}: press 1-{len(codes)} for its code, Esc to cancel")

    def cancel(self) -> None:
        """Escape: leave add mode."""
        if self.pending_add:
            self.pending_add = False
            self.session.message.emit("add cancelled")

    def _card_target(self) -> tuple[int, str] | None:
        s = self.session
        if not s.selected_cards:
            return None
        card = next((c for c in s.ground_truth().cards if c.id == s.selected_cards[0]), None)
        return (card.id, card.text) if card is not None and card.id is not None else None

    def _add(self, code) -> None:
        self.pending_add = False
        s = self.session
        run = s.run()
        if run is None:
            return
        target = self._card_target()
        span = None if target else self.span_target()
        cmd = AddFinding(
            run.run["id"],
            code,
            s.reviewer,
            gt_card_id=target[0] if target else None,
            gt_card=target[1] if target else None,
            model_index=span[0] if span else None,
            model_card=span[1] if span else None,
        )
        if s.execute(cmd) and cmd.finding.id is not None:  # a queued finding has no id yet
            s.select_findings([cmd.finding.id])


def _ids(findings: Iterable[Finding]) -> list[int]:
    """The ids of ``findings``, read from the project (every one has its id)."""
    out = []
    for f in findings:
        assert f.id is not None  # findings read from the project have ids
        out.append(f.id)
    return out
