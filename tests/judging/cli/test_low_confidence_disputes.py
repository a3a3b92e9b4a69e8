"""Selective judging's escalation: verdicts below the judge's trust
threshold become low-confidence disputes in the dispute queue
(reviewer.storage.judging.low_confidence)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from reviewer.cli import main
from reviewer.core.judging.low_confidence import SEVERITY_CAP
from reviewer.core.judging.selective import select_threshold
from reviewer.core.judging.verdicts import DisputeKind, Method, Scale, Verdict
from reviewer.storage.dispute_queue import refresh_disputes
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project

N = 200
EXTRA = 40


def build(path, n: int = N, seed: int = 4):
    """A pass/fail judge right with probability sqrt(confidence) on ``n``
    gold-labelled subjects, then EXTRA unlabelled verdicts with a logprob
    (0.35 + 0.015 k) and a stated confidence (0.99: never decides, logprob
    comes first). Returns (logprob confidences, judge values, people's values,
    unlabelled logprobs)."""
    rng = np.random.default_rng(seed)
    conf = np.round(rng.uniform(0.3, 1.0, n), 3)
    human = rng.choice(["pass", "fail"], n)
    right = rng.uniform(size=n) < np.sqrt(conf)
    judge = np.where(right, human, np.where(human == "pass", "fail", "pass"))
    extra = [round(0.35 + 0.015 * k, 3) for k in range(EXTRA)]
    p = open_project(path, create=True)
    for i in range(n):
        judging.add_verdict(
            p,
            Verdict(
                subject=f"run:{i}",
                judge="judge",
                method=Method.RUBRIC,
                scale=Scale.PASS_FAIL,
                scores={"ok": str(judge[i])},
                confidences={"logprob": {"ok": float(conf[i])}},
            ),
        )
        judging.add_verdict(
            p,
            Verdict(
                subject=f"run:{i}", judge="gold", method=Method.HUMAN, scale=Scale.PASS_FAIL, scores={"ok": human[i]}
            ),
        )
    for k, c in enumerate(extra):
        judging.add_verdict(
            p,
            Verdict(
                subject=f"run:{n + k}",
                judge="judge",
                method=Method.RUBRIC,
                scale=Scale.PASS_FAIL,
                scores={"ok": "pass"},
                confidences={"logprob": {"ok": c}, "stated": {"ok": 0.99}},
            ),
        )
    return p, list(conf), [str(x) for x in judge], [str(x) for x in human], extra


def test_verdicts_below_the_trust_threshold_become_low_confidence_disputes(tmp_path):
    p, conf, judge, human, extra = build(tmp_path / "p.db")
    try:
        sel = select_threshold(conf, judge, human, population=conf + extra)  # the defaults the queue uses
        assert sel.threshold is not None and 0.3 < sel.threshold < 1.0
        t = sel.threshold
        found = [d for d in refresh_disputes(p) if d.kind == DisputeKind.LOW_CONFIDENCE]
        by_subject = {v.subject: v for v in judging.verdicts(p) if v.judge == "judge"}
        all_conf = {f"run:{i}": c for i, c in enumerate(conf)} | {f"run:{N + k}": c for k, c in enumerate(extra)}
        expected = {s for s, c in all_conf.items() if c < t}
        assert expected and len(expected) < len(all_conf)
        assert {d.subject for d in found} == expected
        for d in found:
            c = all_conf[d.subject]
            assert d.dimension == "ok" and d.verdict_ids == [by_subject[d.subject].id]
            assert d.severity == pytest.approx(SEVERITY_CAP * (t - c) / t, abs=1e-6)
            assert f"logprob confidence {c:.2f} below its trust threshold {t:.2f}" in d.detail
        assert [d.severity for d in found] == sorted((d.severity for d in found), reverse=True)
        stored = [d for d in judging.disputes(p) if d.kind == DisputeKind.LOW_CONFIDENCE]
        assert {d.subject for d in stored} == expected  # in the dispute queue the window shows
    finally:
        p.close()
    out = CliRunner().invoke(main, ["agreement", str(tmp_path / "p.db"), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["disputes"]["by_kind"]["low-confidence"] == len(expected)


def test_no_trust_threshold_no_low_confidence_disputes(tmp_path):
    p, conf, judge, human, extra = build(tmp_path / "p.db", n=30)  # fewer than 50 labels: nothing is tested
    try:
        assert select_threshold(conf, judge, human, population=conf + extra).threshold is None
        assert not [d for d in refresh_disputes(p) if d.kind == DisputeKind.LOW_CONFIDENCE]
    finally:
        p.close()
