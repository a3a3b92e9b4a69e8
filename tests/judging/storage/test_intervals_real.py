"""Intervals resample what was sampled, on LLMBar (../shared/data, skipped
when absent): the pooled [ab+ba] accuracy of a judge that saw both answer
orders rests on pairs, so its interval is a pair bootstrap's
(scipy.stats.bootstrap over pairs, same seed and resamples) within 10 %,
never the narrower interval of verdicts resampled one by one; each order's
accuracy alone is a share of independent pairs, with Wilson's interval."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import bootstrap

from reviewer.core.judging.agreement_intervals import with_intervals
from reviewer.core.judging.agreement_table import agreement_rows
from reviewer.core.judging.dispute_common import GOLD, value_of
from reviewer.storage.importers import import_source
from reviewer.storage.judging import verdicts as judging
from reviewer.storage.project.db import open_project
from tests.helpers.paths import shared

pytestmark = pytest.mark.shared_data

JUDGE = "GPT-4/Vanilla_NoRules"  # MT-Bench: 200 pairs, both orders


@pytest.fixture(scope="module")
def llmbar_verdicts(tmp_path_factory):
    folder = shared("pairwise-llmbar")
    p = open_project(tmp_path_factory.mktemp("llmbar") / "llmbar.db", create=True)
    import_source(p, folder)
    vs = judging.verdicts(p)
    p.close()
    return vs


def test_the_pooled_ab_ba_interval_is_a_pair_bootstrap(llmbar_verdicts):
    vs = llmbar_verdicts
    rows = with_intervals(
        [r for r in agreement_rows(vs) if r.raters.startswith(f"{JUDGE} [")], n_resamples=2000, seed=0
    )
    pooled = next(r for r in rows if r.raters == f"{JUDGE} [ab+ba] vs gold" and r.statistic == "accuracy_vs_gold")
    assert pooled.ci_method in ("BCa", "percentile") and "pairs resampled" in pooled.note
    # the pair bootstrap, independently: per pair (right, decided) over its two orders
    gold = {v.subject: value_of(v, "winner") for v in vs if v.judge == GOLD}
    per_pair: dict[str, list[int]] = {}
    for v in vs:
        if v.judge != JUDGE or v.subject not in gold or gold[v.subject] is None:
            continue
        x = value_of(v, "winner")
        if x is None:
            continue
        c = per_pair.setdefault(v.subject, [0, 0])
        c[0] += int(x == gold[v.subject])
        c[1] += 1
    right, decided = (np.array(col, dtype=float) for col in zip(*per_pair.values()))
    assert right.sum() / decided.sum() == pytest.approx(pooled.value)

    def share(index, axis=-1):
        return right[index].sum(axis=axis) / decided[index].sum(axis=axis)

    ref = bootstrap(
        (np.arange(len(right)),),
        share,
        n_resamples=2000,
        method="BCa",
        rng=np.random.default_rng(0),
        vectorized=True,
    ).confidence_interval
    width, ref_width = pooled.ci_high - pooled.ci_low, ref.high - ref.low
    assert width == pytest.approx(ref_width, rel=0.10)
    # resampling the 400 verdicts one by one is narrower, the defect this guards against
    hits = np.concatenate([np.r_[np.ones(int(r)), np.zeros(int(d - r))] for r, d in zip(right, decided)])
    naive = bootstrap((hits,), np.mean, n_resamples=2000, method="BCa", rng=np.random.default_rng(0))
    assert naive.confidence_interval.high - naive.confidence_interval.low < 0.9 * width
    ab = next(r for r in rows if r.raters == f"{JUDGE} [ab] vs gold" and r.statistic == "accuracy_vs_gold")
    assert ab.ci_method == "Wilson"
