"""Fidelity of the scorer against a hand-checked answer key.

An answer key lists, for every run, the findings a careful person would write
(card-scoring-rules.md; shared/data/ocr-runs-dev/expected.json is one). This
module compares the scorer's findings with it: per-code precision, recall and
F1 over all findings, runs whose text accuracy differs by more than a
tolerance, and key HALLUC findings the scorer missed (docs/cards.md#fidelity).

A finding is identified by (code, ground-truth card text, model card text);
SPATIAL findings of a run whose key gives a ``spatial_range`` [lo, hi] are
compared by count only (any count in the range is right).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from reviewer.core.models import Code, Finding

FindingKey = tuple[str, str | None, str | None]


@dataclass
class KeyRun:
    """One run of an answer key: its name, the expected findings as
    (code, gt card, model card), the expected text accuracy (0-1) and an
    optional accepted range of SPATIAL counts."""

    name: str
    findings: list[FindingKey]
    text_accuracy: float | None = None
    spatial_range: tuple[int, int] | None = None


@dataclass
class CodeScore:
    """Counts and rates of one code: true positives, false positives
    (produced, not in the key), false negatives (in the key, not produced)."""

    code: str
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        """tp / (tp + fp); 1.0 when nothing was produced."""
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        """tp / (tp + fn); 1.0 when the key has none."""
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall: 2 tp / (2 tp + fp + fn)."""
        total = 2 * self.tp + self.fp + self.fn
        return 2 * self.tp / total if total else 1.0


@dataclass
class FidelityReport:
    """Scorer against key: per-code scores, overall (micro) F1, runs whose
    text accuracy is off, key HALLUC findings missed, and per-run
    differences ``{run: (missing from scorer, extra from scorer)}``."""

    codes: dict[str, CodeScore] = field(default_factory=dict)
    accuracy_off: list[tuple[str, float, float]] = field(default_factory=list)
    halluc_missed: list[tuple[str, FindingKey]] = field(default_factory=list)
    differences: dict[str, tuple[list[FindingKey], list[FindingKey]]] = field(default_factory=dict)
    runs: int = 0

    @property
    def f1(self) -> float:
        """Code F1 over all findings (micro average over codes)."""
        tp = sum(c.tp for c in self.codes.values())
        fp = sum(c.fp for c in self.codes.values())
        fn = sum(c.fn for c in self.codes.values())
        return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0

    def lines(self) -> list[str]:
        """The report as plain text lines (per-code table, then summary)."""
        out = [f"{'code':8} {'tp':>4} {'fp':>4} {'fn':>4} {'P':>6} {'R':>6} {'F1':>6}"]
        for code in sorted(self.codes):
            c = self.codes[code]
            out.append(f"{code:8} {c.tp:4d} {c.fp:4d} {c.fn:4d} {c.precision:6.3f} {c.recall:6.3f} {c.f1:6.3f}")
        out.append(
            f"runs {self.runs}, text accuracy off by > tolerance: {len(self.accuracy_off)}, "
            f"HALLUC missed: {len(self.halluc_missed)}"
        )
        return out


def diff_lines(report: FidelityReport) -> list[str]:
    """Per run that differs from the key: a ``== run`` line, then one line per
    finding only the key has and per finding only the scorer produced."""
    out = []
    for name, (missing, extra) in report.differences.items():
        out.append(f"== {name}")
        out += [f"   key only:    {f[0]} {f[1]!r} <- {f[2]!r}" for f in missing]
        out += [f"   scorer only: {f[0]} {f[1]!r} <- {f[2]!r}" for f in extra]
    return out


def finding_key(f: Finding) -> FindingKey:
    """(code, gt card text, model card text) of a scorer finding (its final
    code, as proposed by the scorer)."""
    return (f.code.value, f.gt_card, f.model_card)


def compare(
    key: Sequence[KeyRun],
    produced: dict[str, Iterable[Finding]],
    accuracy: dict[str, float | None],
    tolerance: float = 0.05,
) -> FidelityReport:
    """Compare the scorer's findings (``produced``, by run name) and text
    accuracies (``accuracy``) with ``key`` (docs/cards.md#fidelity: per-code
    precision, recall, F1; runs off by more than ``tolerance``; HALLUC
    missed). Runs of the key missing from ``produced`` count as producing
    nothing."""
    report = FidelityReport(runs=len(key))
    for run in key:
        got = Counter(finding_key(f) for f in produced.get(run.name, ()))
        want = Counter(run.findings)
        if run.spatial_range is not None:
            n_got = sum(v for k, v in got.items() if k[0] == Code.SPATIAL.value)
            lo, hi = run.spatial_range
            got = Counter({k: v for k, v in got.items() if k[0] != Code.SPATIAL.value})
            want = Counter({k: v for k, v in want.items() if k[0] != Code.SPATIAL.value})
            score = report.codes.setdefault(Code.SPATIAL.value, CodeScore(Code.SPATIAL.value))
            if lo <= n_got <= hi:
                score.tp += n_got
            else:
                nearest = min(max(n_got, lo), hi)
                score.tp += min(n_got, nearest)
                score.fp += max(0, n_got - nearest)
                score.fn += max(0, nearest - n_got)
        missing, extra = [], []
        for k in sorted(set(got) | set(want), key=repr):
            score = report.codes.setdefault(k[0], CodeScore(k[0]))
            hit = min(got[k], want[k])
            score.tp += hit
            score.fp += got[k] - hit
            score.fn += want[k] - hit
            missing += [k] * (want[k] - hit)
            extra += [k] * (got[k] - hit)
            if k[0] == Code.HALLUC.value and want[k] > hit:
                report.halluc_missed += [(run.name, k)] * (want[k] - hit)
        if missing or extra:
            report.differences[run.name] = (missing, extra)
        acc = accuracy.get(run.name)
        if run.text_accuracy is not None and (acc is None or abs(acc - run.text_accuracy) > tolerance):
            report.accuracy_off.append((run.name, run.text_accuracy, acc if acc is not None else float("nan")))
    return report
