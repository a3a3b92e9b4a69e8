"""The pairwise perspective's score panel: per pairwise judge, what it
decided and how far its verdicts can be trusted; per model, how often each
judge made it win.

Per judge (its latest verdict per pair and answer order,
reviewer.core.judging.disputes.latest_by_order, on the 'winner' dimension):
verdicts; the shares won by answer 1 and answer 2 (in the pair's original
order), ties and undecided; *shown first won*, the share of decided
non-tie verdicts that went to the answer the judge saw first (position
bias shows as a share far from 50 %); and, from the agreement table of
``reviewer report`` (reviewer.core.judging.agreement_table.agreement_rows,
so the figures are the report's), the position-swap consistency with the
pairs it rests on and the accuracy against gold (both orders pooled when
the judge used both), else the agreement with the human majority.

Per judge and answering model: verdicts the model's answer was in (each
answer order counts), wins, losses, ties and the win rate (wins / decided
verdicts). Runs named only by their answer's position (LLMBar's output_1 and
output_2: UNNAMED_MODELS) are no models; where no answering model is named
the panel says "models not named".

Recomputed on the session's project, verdict and adjudication signals,
only while shown, once per burst (reviewer.qt.panels.live).
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QVBoxLayout, QWidget

from reviewer.core.judging.agreement_table import AgreementRow, agreement_rows
from reviewer.core.judging.dispute_common import value_of
from reviewer.core.judging.disputes import is_human, latest_by_order, rater_labels
from reviewer.core.judging.verdicts import Scale, Verdict
from reviewer.qt.panels.live import FiguresTable, LiveRefresh
from reviewer.qt.session import Session
from reviewer.qt.session.reads import UNNAMED_MODELS
from reviewer.qt.text import plain_label

DIMENSION = "winner"
JUDGE_HEADER = [
    "judge",
    "verdicts",
    "answer 1 won",
    "answer 2 won",
    "tie",
    "undecided",
    "shown first won",
    "position consistency",
    "pairs in both orders",
    "vs people",
]
JUDGE_TIPS = [
    "",
    "the judge's latest verdict per pair and answer order",
    "share of verdicts won by the pair's first answer (original order)",
    "share of verdicts won by the pair's second answer",
    "share of ties",
    "share of verdicts without a usable answer",
    "share of decided, non-tie verdicts won by the answer the judge saw first (50 %: no position bias)",
    "share of pairs decided in both orders with the same winner (the report's position_swap_consistency)",
    "pairs decided in both answer orders",
    "accuracy against gold (both orders pooled), else agreement with the human majority (the report's)",
]
MODEL_HEADER = ["judge", "model", "verdicts", "wins", "losses", "ties", "win rate"]
UNNAMED = "models not named: the dataset names each answer only by its position (output_1, output_2)"
NOTHING = "no pairwise verdicts: import a pairwise benchmark (PandaLM, LLMBar) or pairwise judge verdicts"


def _share(n: int, total: int) -> str:
    return f"{n / total:.0%}" if total else "-"


def _agreement(rows: list[AgreementRow], statistic: str, raters: tuple[str, ...]) -> AgreementRow | None:
    """The first row of ``statistic`` whose raters are one of ``raters``, in that order of preference."""
    for name in raters:
        for r in rows:
            if r.statistic == statistic and r.raters == name:
                return r
    return None


def pairwise_figures(
    verdicts: list[Verdict], rows: list[AgreementRow], models: dict[int, str]
) -> tuple[list[list[str]], list[list[str]]]:
    """(rows of JUDGE_HEADER, rows of MODEL_HEADER) of the pairwise judge
    verdicts among ``verdicts`` (module doc); ``rows``: their agreement
    table; ``models``: {run id: model}."""
    labels = rater_labels(verdicts)
    latest = latest_by_order(
        v for v in verdicts if v.scale == Scale.WINNER and v.other_run_id is not None and not is_human(v)
    )
    per_judge: dict[str, list[Verdict]] = {}
    for (_, rater, _), v in latest.items():
        per_judge.setdefault(labels[rater], []).append(v)
    judge_rows, model_rows = [], []
    for judge in sorted(per_judge):
        vs = per_judge[judge]
        won = Counter(value_of(v, DIMENSION) for v in vs)
        decided = [v for v in vs if value_of(v, DIMENSION) in ("1", "2") and v.answer_order in ("ab", "ba")]
        first = sum(1 for v in decided if (value_of(v, DIMENSION) == "1") == (v.answer_order == "ab"))
        swap = _agreement(rows, "position_swap_consistency", (judge,))
        people = _agreement(rows, "accuracy_vs_gold", (f"{judge} [ab+ba] vs gold", f"{judge} vs gold"))
        people = people or _agreement(rows, "agreement_with_human_majority", (f"{judge} vs human majority",))
        judge_rows.append(
            [
                judge,
                str(len(vs)),
                _share(won["1"], len(vs)),
                _share(won["2"], len(vs)),
                _share(won["tie"], len(vs)),
                _share(won[None], len(vs)),
                _share(first, len(decided)),
                swap.formatted() if swap else "-",
                str(swap.n) if swap else "-",
                people.formatted() if people else "-",
            ]
        )
        tally: dict[str, Counter] = {}
        for v in vs:
            winner = value_of(v, DIMENSION)
            if winner not in ("1", "2", "tie") or v.run_id is None or v.other_run_id is None:
                continue
            a, b = models.get(v.run_id, "?"), models.get(v.other_run_id, "?")
            for model, outcome in ((a, {"1": "win", "2": "loss"}), (b, {"2": "win", "1": "loss"})):
                if model not in UNNAMED_MODELS:
                    tally.setdefault(model, Counter())[outcome.get(str(winner), "tie")] += 1
        for model in sorted(tally):
            t = tally[model]
            n = t["win"] + t["loss"] + t["tie"]
            model_rows.append([judge, model, str(n), str(t["win"]), str(t["loss"]), str(t["tie"]), _share(t["win"], n)])
    return judge_rows, model_rows


class PairwiseScoresPanel(QWidget):
    """See module doc. ``figures()`` is what it shows."""

    def __init__(self, session: Session, parent: QWidget | None = None):
        super().__init__(parent)
        self.session = session
        self.judge_table = FiguresTable()
        self.model_table = FiguresTable()
        self.note = plain_label()
        self.models_note = plain_label(UNNAMED)
        split = QSplitter(Qt.Orientation.Horizontal)  # side by side: each table keeps the dock's height for rows
        split.setChildrenCollapsible(False)
        for title, table in (
            ("Pairwise judges", self.judge_table),
            ("Win rate per model", self.model_table),
        ):
            box = QWidget()
            lay = QVBoxLayout(box)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(plain_label(title, bold=True))
            lay.addWidget(table, 1)
            if table is self.model_table:
                lay.addWidget(self.models_note)
                lay.addStretch(0)
            split.addWidget(box)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        self.split = split
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(split, 1)
        layout.addWidget(self.note)
        self.live = LiveRefresh(
            self,
            self.refresh,
            (session.projectChanged, session.disputesChanged, session.adjudicationsChanged),
        )

    def refresh(self) -> None:
        """Compute the figures from the session's verdicts and show them."""
        has_project = self.session.has_project()
        vs = self.session.judging.judge_verdicts() if has_project else []
        pairwise = [v for v in vs if v.scale == Scale.WINNER and v.other_run_id is not None]
        judges: list[list[str]] = []
        models: list[list[str]] = []
        if pairwise and has_project:
            ids = {i for v in pairwise for i in (v.run_id, v.other_run_id) if i is not None}
            names = self.session.reads.run_models(sorted(ids))
            judges, models = pairwise_figures(vs, agreement_rows(vs, self.session.adjudications()), names)
        self.judge_table.set_rows(JUDGE_HEADER, judges, JUDGE_TIPS)
        self.model_table.set_rows(MODEL_HEADER, models)
        self.model_table.setVisible(bool(models))
        self.models_note.setVisible(bool(judges) and not models)
        self.models_note.setAlignment(Qt.AlignmentFlag.AlignTop)
        whole = max(self.split.width(), 2)
        self.split.setSizes([whole * 3 // 4, whole // 4] if judges and not models else [whole * 3 // 5, whole * 2 // 5])
        self.split.setVisible(bool(judges))
        self.note.setText("" if judges else NOTHING)
        self.note.setVisible(not judges)

    def figures(self) -> dict[str, list[list[str]]]:
        """What the panel shows: 'judges' and 'models', each [header, *rows]
        of display strings ([] when there is no pairwise judge verdict)."""
        if not self.judge_table.rowCount():
            return {"judges": [], "models": []}
        return {"judges": self.judge_table.rows(), "models": self.model_table.rows()}
