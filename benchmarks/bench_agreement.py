"""Benchmark: Krippendorff's alpha of reviewer.core.judging.agreement vs a pairwise baseline.

Data: 100,000 units x 5 raters, ordinal ratings 1-5 drawn around a per-unit
"true" value (so alpha is well above 0), about 10 % of cells missing, fixed
seed. reviewer's ``krippendorff_alpha`` (coincidence matrix from per-unit
value counts, numpy) is timed on the 2-D NaN array and on a list of lists
with None; the baseline written here loops over units and over every ordered
pair of values in a unit, accumulating delta^2 / (m_u - 1), which is the
definition in Krippendorff (2011). Both run in the same process on the same
data; the script prints both times and their ratio and checks that the two
alphas agree to 1e-9 (exit status 1 if not). Timing targets are printed,
never asserted.

Usage:
    python benchmarks/bench_agreement.py                  # 100,000 units, ordinal
    python benchmarks/bench_agreement.py --quick          # 10,000 units, smoke run
    python benchmarks/bench_agreement.py --level interval # nominal|ordinal|interval|ratio|all
"""

from __future__ import annotations

import os

# One core: keep numeric libraries from starting thread pools.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import sys
import time
from collections import Counter
from typing import Callable, Optional, Sequence

import numpy as np

from reviewer.core.judging.agreement import krippendorff_alpha

SEED = 20250314
RATERS = 5
MISSING = 0.10
TARGET_SECONDS = 1.0  # reviewer's alpha on 100,000 x 5, "well under a second"
LEVELS = ("nominal", "ordinal", "interval", "ratio")


def make_data(units: int, seed: int = SEED) -> np.ndarray:
    """units x RATERS float array of ordinal ratings 1-5, NaN for ~10 % missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, size=(units, 1))
    noise = rng.choice([-2, -1, 0, 0, 0, 0, 1, 2], size=(units, RATERS))
    data = np.clip(truth + noise, 1, 5).astype(float)
    data[rng.random((units, RATERS)) < MISSING] = np.nan
    return data


def pairwise_alpha(rows: Sequence[Sequence[Optional[float]]], level: str) -> float:
    """Straightforward Krippendorff's alpha: loop over units and ordered value pairs.

    D_o sums delta^2(v_i, v_j) / (m_u - 1) over every ordered pair i != j of
    values in each unit with m_u >= 2 values; D_e sums n_c n_k delta^2(c, k)
    over the pooled values of those units; alpha = 1 - (n - 1) D_o / D_e.
    """
    units = []
    for row in rows:
        vals = [v for v in row if v is not None]
        if len(vals) >= 2:
            units.append(vals)
    n_c = Counter(v for vals in units for v in vals)
    cats = sorted(n_c)
    n = sum(n_c.values())

    def delta2(c: float, k: float) -> float:
        if level == "nominal":
            return 0.0 if c == k else 1.0
        if level == "ordinal":
            lo, hi = (c, k) if c <= k else (k, c)
            between = sum(n_c[g] for g in cats if lo <= g <= hi)
            return (between - (n_c[c] + n_c[k]) / 2.0) ** 2
        if level == "interval":
            return (c - k) ** 2
        return ((c - k) / (c + k)) ** 2 if c + k else 0.0

    d_o = 0.0
    for vals in units:
        m = len(vals)
        s = 0.0
        for i in range(m):
            for j in range(m):
                if i != j:
                    s += delta2(vals[i], vals[j])
        d_o += s / (m - 1)
    d_e = 0.0
    for c in cats:
        for k in cats:
            d_e += n_c[c] * n_c[k] * delta2(c, k)
    return 1.0 - (n - 1) * d_o / d_e


def timed(fn: Callable[[], float], repeat: int) -> tuple[float, float]:
    """(result, best wall time in seconds over ``repeat`` calls)."""
    best = float("inf")
    result = float("nan")
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return result, best


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 units instead of 100,000")
    parser.add_argument("--units", type=int, default=None, help="override the number of units")
    parser.add_argument("--level", default="ordinal", choices=LEVELS + ("all",))
    args = parser.parse_args(argv)
    units = args.units or (10_000 if args.quick else 100_000)
    levels = LEVELS if args.level == "all" else (args.level,)

    data = make_data(units)
    rows = [[None if np.isnan(v) else float(v) for v in row] for row in data.tolist()]
    print(
        f"Krippendorff's alpha, {units:,} units x {RATERS} raters, ordinal 1-5, "
        f"{np.isnan(data).mean():.1%} missing, seed {SEED}"
    )
    ok = True
    for level in levels:
        fast, t_fast = timed(lambda: krippendorff_alpha(data, level).value, repeat=5)
        fast_list, t_list = timed(lambda: krippendorff_alpha(rows, level).value, repeat=3)
        slow, t_slow = timed(lambda: pairwise_alpha(rows, level), repeat=1)
        diff = max(abs(fast - slow), abs(fast_list - slow))
        agree = diff <= 1e-9
        ok &= agree
        print(f"\n[{level}] alpha = {fast:.12f}")
        print(f"  reviewer, numpy array     : {t_fast * 1e3:9.1f} ms")
        print(f"  reviewer, list of lists   : {t_list * 1e3:9.1f} ms")
        print(f"  pairwise baseline         : {t_slow * 1e3:9.1f} ms   (alpha {slow:.12f})")
        print(f"  speed-up (array / list)   : {t_slow / t_fast:9.1f}x / {t_slow / t_list:.1f}x")
        print(f"  |difference|              : {diff:.2e}  {'OK (<= 1e-9)' if agree else 'MISMATCH'}")
        if units >= 100_000:
            verdict = "PASS" if t_fast < TARGET_SECONDS else "FAIL"
            print(f"  target < {TARGET_SECONDS:.0f} s on 100k x 5    : {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
