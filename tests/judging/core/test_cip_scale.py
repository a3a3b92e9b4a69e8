"""C/I/P, inspect_ai's correct / partial / incorrect, as an ordered scale
(reviewer.core.judging.verdicts.Scale.CIP), and the epochs-disagree disputes
between the epochs of one sample (reviewer.core.judging.disputes): decision
record "inspect-epochs-and-letters"."""

from __future__ import annotations

import pytest

from reviewer.core.judging.alignment import alignments, is_pass
from reviewer.core.judging.calibration import scale_labels
from reviewer.core.judging.dispute_common import format_value
from reviewer.core.judging.disputes import find_disputes
from reviewer.core.judging.gates import failing_judged, judged_prompts
from reviewer.core.judging.label_first import parse_label
from reviewer.core.judging.verdicts import Adjudication, DisputeKind, Method, Scale, Verdict, normalise, points

CIP = Scale.CIP


def test_letters_are_points_in_the_order_i_p_c():
    assert [normalise(x, CIP) for x in ("C", "p", " I ", "correct", "PARTIAL", "incorrect")] == [
        100.0,
        50.0,
        0.0,
        100.0,
        50.0,
        0.0,
    ]
    assert normalise(100.0, CIP) == 100.0 and normalise(50, CIP) == 50.0  # as stored
    assert [normalise(x, CIP) for x in ("N", "A", 1.0, 75, None, float("nan"))] == [None] * 6
    assert [points(normalise(x, CIP), CIP) for x in "IPC"] == [0.0, 50.0, 100.0]
    assert [format_value(normalise(x, CIP), CIP) for x in "IPC"] == ["I", "P", "C"]
    assert format_value(50.0) == "50"  # without the scale a number
    assert scale_labels(CIP, [100.0, 0.0]) == [0.0, 50.0, 100.0]
    assert [parse_label(k, CIP) for k in "cpix"] == [100.0, 50.0, 0.0, None]


def test_c_passes_and_p_does_not():
    assert [is_pass(normalise(x, CIP), CIP) for x in "IPC"] == [False, False, True]


def v(subject, judge, letter, **kw):
    method = kw.pop("method", Method.RULES)
    return Verdict(
        subject=subject, judge=judge, method=method, scale=CIP, scores={"score": normalise(letter, CIP)}, **kw
    )


def test_scorers_one_step_apart_disagree():
    found = find_disputes(
        [v("run:1", "match", "I"), v("run:1", "grader", "P"), v("run:2", "match", "C"), v("run:2", "grader", "C")]
    )
    (d,) = found
    assert (d.kind, d.subject, d.severity) == (DisputeKind.JUDGES, "run:1", 0.5)
    assert d.detail == "judges disagree on score: grader=P, match=I"


def test_the_epochs_of_a_sample_that_disagree_are_a_dispute_on_each_epoch():
    verdicts = [
        v("run:1", "match", "C", id=1),
        v("run:2", "match", "I", id=2),
        v("run:3", "match", "C", id=3),  # epoch 1 of another sample
        v("run:4", "match", "C", id=4),  # its epoch 2 agrees
        v("run:5", "match", "I", id=5),  # not an epoch of anything: never compared
    ]
    epochs = {"run:1": ("t/q1", 1), "run:2": ("t/q1", 2), "run:3": ("t/q2", 1), "run:4": ("t/q2", 2)}
    found = find_disputes(verdicts, epochs=epochs)
    assert [(d.kind, d.subject, d.verdict_ids, d.severity) for d in found] == [
        (DisputeKind.EPOCHS, "run:1", [1, 2], 1.0),
        (DisputeKind.EPOCHS, "run:2", [1, 2], 1.0),
    ]
    assert found[0].detail == "match epochs of t/q1 disagree on score: epoch 1=C, epoch 2=I"
    # without the epochs the runs are separate subjects: nothing to compare
    assert find_disputes(verdicts) == []
    # undecided epochs are left out (no value, no dispute)
    assert find_disputes([v("run:1", "match", "C"), v("run:2", "match", "N")], epochs=epochs) == []


def test_alignment_on_cip_is_ordinal_with_weighted_kappa():
    judge = {"run:1": "C", "run:2": "P", "run:3": "P", "run:4": "I", "run:5": "C", "run:6": "C"}
    people = {"run:1": "C", "run:2": "I", "run:3": "C", "run:4": "I", "run:5": "C", "run:6": "I"}
    verdicts = [v(s, "grader", x, method=Method.RUBRIC) for s, x in judge.items()]
    adjudications = [
        Adjudication(subject=s, dimension="score", value=normalise(x, CIP), reviewer="ana") for s, x in people.items()
    ]
    (a,) = alignments(verdicts, adjudications, n_resamples=200)
    every = a.splits[0]
    assert a.scale == CIP and a.threshold == 100.0
    assert every.labels == ["I", "P", "C"]
    assert every.counts == [[1, 0, 0], [1, 0, 1], [1, 0, 2]]  # rows: judge I, P, C; columns: people
    assert every.kappa_statistic == "cohen_kappa_weighted"
    assert every.mae == pytest.approx((50 + 50 + 100) / 6)
    # people pass run:1, 3, 5; the judge passes 1 and 5. People fail 2, 4, 6; the judge fails 2 and 4
    assert (every.tpr, every.tnr) == (pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert [(d.subject, d.judge, d.people) for d in every.dangerous] == [("run:6", "C", "I")]


def test_the_judge_gate_reads_cip_in_points():
    def prompt(letters):
        return [(v(f"run:{i}", "grader", x, method=Method.RUBRIC), "p", "m") for i, x in enumerate(letters)]

    (mostly_i,) = judged_prompts(prompt("IPI"))  # 50 / 3 points
    (all_p,) = judged_prompts(prompt("PPP"))  # 50 points
    (mostly_c,) = judged_prompts(prompt("CCP"))  # 83.3 points
    assert mostly_i.average == pytest.approx(50 / 3) and mostly_i.scale == CIP
    assert failing_judged([mostly_i, all_p, mostly_c], "fail") == [mostly_i]
    assert failing_judged([mostly_i, all_p, mostly_c], "ambiguous") == [mostly_i, all_p]
