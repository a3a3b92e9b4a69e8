"""Agreement between raters: people, LLM judges, or both.

Used to settle disputed judge verdicts (CONTEXT.md: *dispute*, *adjudication*):
how often two raters agree, how much better than chance (Cohen's kappa,
Krippendorff's alpha), whether a pairwise judge keeps its verdict when the two
answers swap places, and how often a judge matches a reference label.

Conventions shared by every function here:

* A rating is any hashable label (str, int, float ...). ``None`` and float
  NaN (``float('nan')``, ``numpy.nan``) mean *missing*; a pair or unit value
  that is missing is skipped, never treated as a category.
* Every statistic comes back as an :class:`AgreementResult` with the number
  of pairs/values it rests on. A statistic that is mathematically undefined
  (0/0, e.g. no pairs, or every rating the same category so that chance
  agreement is already perfect) has ``value = float('nan')`` and a ``note``
  saying why; callers show it as "undefined" (:meth:`AgreementResult.formatted`).
  This follows scikit-learn's ``cohen_kappa_score``, which also returns NaN
  for 0/0, rather than inventing 1.0 or 0.0.

Pure Python + numpy: no Qt, no SQL, no HTTP.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Sequence
from typing import Any, Literal

import numpy as np

from reviewer.core.judging.stats import AgreementResult, check_same_length, is_missing, join_notes

__all__ = [
    "Level",
    "Weights",
    "cohen_kappa",
    "krippendorff_alpha",
    "percent_agreement",
]

Level = Literal["nominal", "ordinal", "interval", "ratio"]
Weights = Literal["linear", "quadratic"] | None

_LEVELS = ("nominal", "ordinal", "interval", "ratio")


# ---------------------------------------------------------------------------
# helpers


def _complete_pairs(a: Sequence[Any], b: Sequence[Any]) -> tuple[list[Any], list[Any], int]:
    """Pairs where both values are present, and how many pairs were skipped."""
    check_same_length(a, b, "a and b")
    xs: list[Any] = []
    ys: list[Any] = []
    for x, y in zip(a, b):
        if is_missing(x) or is_missing(y):
            continue
        xs.append(x)
        ys.append(y)
    return xs, ys, len(a) - len(xs)


def _order_categories(observed: Iterable[Hashable], need_order: bool) -> list[Hashable]:
    """Distinct labels sorted; unsortable labels keep first-seen order when no
    order is needed (nominal), else ValueError."""
    seen = list(dict.fromkeys(observed))
    try:
        return sorted(seen)  # type: ignore[type-var]
    except TypeError:
        if need_order:
            raise ValueError(
                "labels of mixed types cannot be sorted; pass categories=[...] to give their order"
            ) from None
        return seen


def _skipped_note(skipped: int, what: str = "pairs") -> str:
    return f"{skipped} {what} with a missing value skipped" if skipped else ""


# ---------------------------------------------------------------------------
# two raters


def percent_agreement(a: Sequence[Any], b: Sequence[Any]) -> AgreementResult:
    """Share of paired ratings on which two raters give the same label.

    Args:
        a, b: ratings of the same items by rater A and rater B, same length
            (item i is ``a[i]`` vs ``b[i]``). ``None``/NaN = missing.

    Returns:
        ``AgreementResult("percent_agreement", value, n)`` with ``value`` =
        agreeing pairs / n in [0, 1] (a share, not a percentage) and ``n`` =
        pairs where both values are present; pairs with a missing value are
        skipped (``counts["skipped"]``). ``value`` is NaN when n = 0.
        ``counts``: ``agree``, ``skipped``.

    Raises:
        ValueError: ``a`` and ``b`` differ in length.

    Labels are compared with ``==`` (so ``1 == 1.0``).
    """
    xs, ys, skipped = _complete_pairs(a, b)
    n = len(xs)
    agree = sum(1 for x, y in zip(xs, ys) if x == y)
    counts = {"agree": agree, "skipped": skipped}
    if n == 0:
        return AgreementResult(
            "percent_agreement",
            float("nan"),
            0,
            join_notes("undefined: no complete pairs", _skipped_note(skipped)),
            counts,
        )
    return AgreementResult("percent_agreement", agree / n, n, _skipped_note(skipped), counts)


def cohen_kappa(
    a: Sequence[Any],
    b: Sequence[Any],
    weights: Weights = None,
    categories: Sequence[Hashable] | None = None,
) -> AgreementResult:
    """Cohen's kappa of two raters, unweighted or weighted.

    Rule (Cohen 1960; weighted: Cohen 1968; the same definition as
    scikit-learn's ``cohen_kappa_score``)::

        kappa = 1 - sum_ij w_ij O_ij / sum_ij w_ij E_ij

    where O is the K x K confusion matrix of the complete pairs (rows rater
    a, columns rater b), E_ij = (row total i)(column total j) / n the counts
    expected by chance, and the disagreement weights are, for categories at
    positions i, j of the category order: unweighted ``w_ij = [i != j]``
    (giving the familiar (p_o - p_e) / (1 - p_e)), ``'linear'`` ``|i - j|``,
    ``'quadratic'`` ``(i - j)**2``. Weighted kappa thus uses positions in the
    order, not the labels' numeric values.

    Args:
        a, b: ratings of the same items, same length. ``None``/NaN = missing;
            pairs with a missing value are skipped.
        weights: ``None``, ``'linear'`` or ``'quadratic'``.
        categories: the categories in scale order (needed for ordinal labels
            that do not sort correctly, e.g. ``["low", "mid", "high"]``).
            Categories listed but never used still count in the weighted
            distances. Default: the observed labels sorted (for unweighted
            kappa, unsortable labels are fine).

    Returns:
        ``AgreementResult`` with statistic ``cohen_kappa`` /
        ``cohen_kappa_linear`` / ``cohen_kappa_quadratic``; ``value`` in
        [-1, 1]; ``n`` = complete pairs. ``value`` is NaN (with a note) when
        n = 0 or when chance disagreement is 0, i.e. both raters used one and
        the same category for every item (0/0; scikit-learn also gives NaN).
        ``counts``: ``agree`` (identical labels), ``skipped``.

    Raises:
        ValueError: lengths differ; unknown ``weights``; a label not in
            ``categories``; duplicate ``categories``; weighted kappa on labels
            that cannot be sorted and no ``categories``.
    """
    if weights not in (None, "linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    statistic = "cohen_kappa" if weights is None else f"cohen_kappa_{weights}"
    xs, ys, skipped = _complete_pairs(a, b)
    n = len(xs)
    if categories is None:
        cats = _order_categories(xs + ys, need_order=weights is not None)
    else:
        cats = list(categories)
        if len(set(cats)) != len(cats):
            raise ValueError("categories contains duplicates")
    index = {c: i for i, c in enumerate(cats)}
    unknown = {v for v in xs + ys if v not in index}
    if unknown:
        raise ValueError(f"labels not in categories: {sorted(map(repr, unknown))}")
    agree = sum(1 for x, y in zip(xs, ys) if index[x] == index[y])
    counts = {"agree": agree, "skipped": skipped}
    if n == 0:
        return AgreementResult(
            statistic, float("nan"), 0, join_notes("undefined: no complete pairs", _skipped_note(skipped)), counts
        )
    k = len(cats)
    i = np.fromiter((index[x] for x in xs), dtype=np.intp, count=n)
    j = np.fromiter((index[y] for y in ys), dtype=np.intp, count=n)
    observed = np.bincount(i * k + j, minlength=k * k).reshape(k, k).astype(float)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / n
    pos = np.arange(k)
    if weights is None:
        w = (pos[:, None] != pos[None, :]).astype(float)
    elif weights == "linear":
        w = np.abs(pos[:, None] - pos[None, :]).astype(float)
    else:
        w = ((pos[:, None] - pos[None, :]) ** 2).astype(float)
    d_expected = float((w * expected).sum())
    if d_expected == 0.0:
        return AgreementResult(
            statistic,
            float("nan"),
            n,
            join_notes(
                "undefined: both raters used one and the same category (chance agreement is 1, 0/0)",
                _skipped_note(skipped),
            ),
            counts,
        )
    kappa = 1.0 - float((w * observed).sum()) / d_expected
    return AgreementResult(statistic, kappa, n, _skipped_note(skipped), counts)


# ---------------------------------------------------------------------------
# Krippendorff's alpha


def _is_real_type(t: type) -> bool:
    return issubclass(t, numbers.Real) and not issubclass(t, (bool, np.bool_))


def _is_real(v: Any) -> bool:
    return _is_real_type(type(v))


#: Widest span of whole-number ratings mapped to categories by a lookup table.
_LOOKUP_SPAN = 1 << 16


def _small_int_counts(arr: np.ndarray, missing: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(n_uc counts, sorted category values) of a units x raters array in
    O(cells) when every rating is a whole number within a span of
    _LOOKUP_SPAN (rating scales: 1-5, 0-100): values are mapped to category
    indices through a lookup table instead of sorting (``np.unique``), and
    counted per unit with one ``np.bincount`` over every cell, a missing cell
    going to an extra column that is dropped. (None, None) otherwise."""
    if missing.all():
        return None, None
    lo, hi = float(np.nanmin(arr)), float(np.nanmax(arr))
    if not hi - lo < _LOOKUP_SPAN:
        return None, None
    filled = np.where(missing, lo, arr)
    if not np.array_equal(filled, np.floor(filled)):
        return None, None
    offsets = (filled - lo).astype(np.intp)
    seen = np.bincount(offsets[~missing], minlength=int(hi - lo) + 1) > 0
    k = int(seen.sum())
    cells = (np.cumsum(seen) - 1)[offsets]
    cells[missing] = k
    cells += (np.arange(arr.shape[0], dtype=np.intp) * (k + 1))[:, None]
    n_uc = np.bincount(cells.ravel(), minlength=arr.shape[0] * (k + 1)).reshape(arr.shape[0], k + 1)
    return n_uc[:, :k].astype(float), np.flatnonzero(seen).astype(float) + lo


def _counts_from_numeric(arr: np.ndarray, categories: Sequence[Any] | None) -> tuple[np.ndarray, np.ndarray]:
    """units x raters float array (NaN missing) -> (n_uc counts, category values)."""
    units = arr.shape[0]
    missing = np.isnan(arr)
    if categories is None and arr.size:
        n_uc, cat_values = _small_int_counts(arr, missing)
        if n_uc is not None and cat_values is not None:  # both or neither
            return n_uc, cat_values
    present = ~missing
    unit_of = np.broadcast_to(np.arange(units)[:, None], arr.shape)[present]
    vals = arr[present]
    if categories is None:
        cat_values, idx = np.unique(vals, return_inverse=True)
        idx = idx.ravel()
    else:
        cat_values = np.asarray(categories, dtype=float)
        if np.isnan(cat_values).any():
            raise ValueError("categories must not contain NaN")
        if np.unique(cat_values).size != cat_values.size:
            raise ValueError("categories contains duplicates")
        if cat_values.size == 0 and vals.size:
            raise ValueError("values not in categories: categories is empty")
        order = np.argsort(cat_values, kind="stable")
        sorted_vals = cat_values[order]
        pos = np.searchsorted(sorted_vals, vals)
        pos_clipped = np.minimum(pos, sorted_vals.size - 1)
        bad = (pos >= sorted_vals.size) | (sorted_vals[pos_clipped] != vals) if vals.size else np.zeros(0, bool)
        if bad.any():
            raise ValueError(f"values not in categories: {sorted(set(vals[bad].tolist()))[:10]}")
        idx = order[pos_clipped]
    k = cat_values.size
    n_uc = np.bincount(unit_of * k + idx, minlength=units * k).reshape(units, k) if k else np.zeros((units, 0))
    return n_uc.astype(float), cat_values


def _counts_from_objects(
    rows: Sequence[Sequence[Any]], level: str, categories: Sequence[Any] | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Rows of arbitrary labels (may be ragged) -> (n_uc counts, numeric category values or None)."""
    unit_of: list[int] = []
    vals: list[Any] = []
    for u, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not isinstance(row, Iterable):
            raise ValueError("data must be units x raters: each unit a sequence of its raters' values")
        for v in row:
            if not is_missing(v):
                unit_of.append(u)
                vals.append(v)
    if categories is None:
        cats = _order_categories(vals, need_order=level != "nominal")
    else:
        cats = list(categories)
        if len(set(cats)) != len(cats):
            raise ValueError("categories contains duplicates")
    index = {c: i for i, c in enumerate(cats)}
    unknown = {v for v in vals if v not in index}
    if unknown:
        raise ValueError(f"values not in categories: {sorted(map(repr, unknown))[:10]}")
    k = len(cats)
    idx = np.fromiter((index[v] for v in vals), dtype=np.intp, count=len(vals))
    units = len(rows)
    n_uc = np.zeros((units, k))
    np.add.at(n_uc, (np.asarray(unit_of, dtype=np.intp), idx), 1.0)
    cat_values = None
    if all(_is_real(c) for c in cats):
        cat_values = np.asarray(cats, dtype=float)
    return n_uc, cat_values


def _delta_squared(level: str, n_c: np.ndarray, values: np.ndarray | None) -> np.ndarray:
    """K x K matrix of Krippendorff's squared difference function delta^2_ck.

    ``n_c`` are the marginals of the coincidence matrix (only ordinal uses
    them); ``values`` the numeric value of each category (interval, ratio).
    """
    k = n_c.size
    pos = np.arange(k)
    if level == "nominal":
        return (pos[:, None] != pos[None, :]).astype(float)
    if level == "ordinal":
        # (sum_{g=c..k} n_g - (n_c + n_k)/2)^2 = (midrank_k - midrank_c)^2
        midrank = np.cumsum(n_c) - n_c / 2.0
        return (midrank[:, None] - midrank[None, :]) ** 2
    assert values is not None
    diff = values[:, None] - values[None, :]
    if level == "interval":
        return diff**2
    total = values[:, None] + values[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(total == 0.0, 0.0, diff / total)
    return ratio**2


def krippendorff_alpha(
    data: Any,
    level: Level = "nominal",
    *,
    categories: Sequence[Any] | None = None,
    value_counts: bool = False,
) -> AgreementResult:
    """Krippendorff's alpha for any number of raters, with missing values.

    Rule: Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability"
    (Annenberg School for Communication, Departmental Papers 43), computed from
    the coincidence matrix::

        o_ck = sum_u (n_uc n_uk - [c == k] n_uc) / (m_u - 1)
        n_c = sum_k o_ck,  n = sum_c n_c
        alpha = 1 - D_o / D_e
              = 1 - (n - 1) sum_ck o_ck delta2_ck / sum_ck n_c n_k delta2_ck

    where n_uc is how many raters gave unit u value c and m_u = sum_c n_uc;
    only units with m_u >= 2 (pairable) contribute. delta2_ck per ``level``:
    nominal ``[c != k]``; ordinal ``(sum_{g=c..k} n_g - (n_c + n_k)/2)^2``
    with the categories in order; interval ``(c - k)^2``; ratio
    ``((c - k)/(c + k))^2`` (0 when c = k = 0). Vectorised with numpy: the
    values are mapped to category indices, counted per unit with
    ``np.bincount``, and the coincidences are one (K x U) @ (U x K) product,
    so 100,000 units x 5 raters take a few tens of milliseconds.

    Args:
        data: either (``value_counts=False``) the ratings as units x raters,
            a list of lists or a 2-D numpy array; ``None``/NaN = missing;
            list rows may differ in length (a unit's values). Labels may be
            numbers or any hashable (nominal/ordinal). Or
            (``value_counts=True``) a units x categories array of
            non-negative counts n_uc (how many raters gave unit u category c).
        level: ``'nominal'``, ``'ordinal'``, ``'interval'`` or ``'ratio'``.
        categories: the categories in scale order. With raw ratings: default
            the observed values sorted; every value must be listed; for
            ordinal the order given here is the scale order; interval/ratio
            use the numeric values themselves. With ``value_counts=True``:
            the value of each column (default column positions 0..K-1, fine
            for nominal and ordinal; required for interval and ratio).

    Returns:
        ``AgreementResult("krippendorff_alpha_<level>", alpha, n)`` with n =
        the number of pairable values (Krippendorff's n). alpha <= 1 (1 =
        perfect agreement, 0 = chance level). NaN with a note when no unit
        has two values or when all pairable values are the same (D_e = 0;
        alpha is 0/0). ``counts``: ``units`` (all), ``pairable_units``,
        ``unpaired_values`` (values in units with a single value, not used).

    Raises:
        ValueError: unknown ``level``; data not 2-D / not units x raters;
            values outside ``categories``; interval/ratio on non-numeric
            values; ratio on negative values; negative or non-finite counts;
            ``categories`` length not matching the count columns; interval or
            ratio from value counts without ``categories``.
    """
    if level not in _LEVELS:
        raise ValueError(f"level must be one of {_LEVELS}, got {level!r}")
    statistic = f"krippendorff_alpha_{level}"
    if value_counts:
        n_uc, values = _counts_from_value_counts(data, level, categories)
    else:
        n_uc, values = _counts_from_ratings(data, level, categories)
    if level == "ratio":
        _check_ratio_non_negative(n_uc, values)

    coincidences, counts = _coincidences(n_uc)
    n_c = coincidences.sum(axis=1)
    n = float(n_c.sum())
    n_int = int(round(n))
    if n_int == 0:
        return AgreementResult(statistic, float("nan"), 0, "undefined: no unit has two or more values", counts)
    delta2 = _delta_squared(level, n_c, values)
    d_observed = float((coincidences * delta2).sum())
    d_expected = float((np.outer(n_c, n_c) * delta2).sum())
    if d_expected == 0.0:
        return AgreementResult(
            statistic,
            float("nan"),
            n_int,
            "undefined: all pairable values are the same (expected disagreement is 0, 0/0)",
            counts,
        )
    alpha = 1.0 - (n - 1.0) * d_observed / d_expected
    return AgreementResult(statistic, alpha, n_int, "", counts)


def _counts_from_value_counts(
    data: Any, level: str, categories: Sequence[Any] | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Validate a units x categories array of counts n_uc; return it with each column's value.

    The values are ``categories`` as floats when all are numbers (None when
    some are labels), or the column positions 0..K-1 without ``categories``.
    Raises ValueError as ``krippendorff_alpha`` documents for value counts.
    """
    n_uc = np.asarray(data, dtype=float)
    if n_uc.ndim != 2:
        raise ValueError(f"value counts must be a 2-D units x categories array, got shape {n_uc.shape}")
    if not np.isfinite(n_uc).all() or (n_uc < 0).any():
        raise ValueError("value counts must be finite and non-negative")
    if categories is None:
        if level in ("interval", "ratio"):
            raise ValueError(f"{level} alpha from value counts needs categories (the value of each column)")
        return n_uc, np.arange(n_uc.shape[1], dtype=float)
    if len(categories) != n_uc.shape[1]:
        raise ValueError(f"{len(categories)} categories for {n_uc.shape[1]} count columns")
    if level in ("interval", "ratio") and not all(_is_real(c) for c in categories):
        raise ValueError(f"{level} alpha needs numeric category values")
    values = np.asarray(categories, dtype=float) if all(_is_real(c) for c in categories) else None
    return n_uc, values


def _numeric_ratings(data: Any, categories: Sequence[Any] | None) -> np.ndarray | None:
    """The ratings as a float array (None/missing -> NaN) when they are all numbers, else None.

    None also when the rows are ragged, hold labels, or ``categories`` holds
    labels (then the object path reports values outside the categories).
    """
    arr = None
    if isinstance(data, np.ndarray) and data.dtype.kind in "biuf":
        arr = data.astype(float, copy=False)
    elif not isinstance(data, np.ndarray) or data.dtype.kind == "O":
        try:
            probe = np.asarray(data)
        except ValueError:  # ragged rows
            probe = None
        if probe is not None and probe.ndim == 2:
            if probe.dtype.kind in "biuf":
                arr = probe.astype(float)
            elif probe.dtype.kind == "O" and all(
                t is type(None) or _is_real_type(t) for t in set(map(type, probe.ravel().tolist()))
            ):
                arr = probe.astype(float)  # None -> NaN
    if arr is not None and categories is not None and not all(_is_real(c) for c in categories):
        arr = None  # numeric data, label categories: let the object path report mismatches
    return arr


def _counts_from_ratings(
    data: Any, level: str, categories: Sequence[Any] | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Count raw units x raters ratings into n_uc; return it with each category's value.

    Numeric ratings take the fast path (``_counts_from_numeric``), anything
    else the per-value one (``_counts_from_objects``). Raises ValueError for
    data that is not 2-D, and for interval or ratio on non-numeric values.
    """
    values: np.ndarray | None
    arr = _numeric_ratings(data, categories)
    if arr is not None:
        if arr.ndim != 2:
            raise ValueError(f"data must be 2-D (units x raters), got shape {arr.shape}")
        n_uc, values = _counts_from_numeric(arr, categories)
    else:
        if isinstance(data, np.ndarray) and data.ndim != 2:
            raise ValueError(f"data must be 2-D (units x raters), got shape {data.shape}")
        rows = data.tolist() if isinstance(data, np.ndarray) else list(data)
        n_uc, values = _counts_from_objects(rows, level, categories)
    if level in ("interval", "ratio") and values is None:
        raise ValueError(f"{level} alpha needs numeric values")
    return n_uc, values


def _check_ratio_non_negative(n_uc: np.ndarray, values: np.ndarray | None) -> None:
    """Raise ValueError when a category in use has a negative value (a ratio scale has an absolute zero)."""
    if values is not None and (values < 0).any():
        # Only columns actually used matter for counts; raw data only holds used values.
        used = n_uc.sum(axis=0) > 0
        if (values[used] < 0).any():
            raise ValueError("ratio alpha needs non-negative values (a ratio scale has an absolute zero)")


def _coincidences(n_uc: np.ndarray) -> tuple[np.ndarray, dict[str, int]]:
    """Krippendorff's K x K coincidence matrix o_ck from the counts n_uc, and the unit counts.

    o_ck = sum_u (n_uc n_uk - [c == k] n_uc) / (m_u - 1) over the pairable
    units (m_u >= 2). The counts: ``units``, ``pairable_units``,
    ``unpaired_values`` (values in units with a single value).
    """
    units = n_uc.shape[0]
    m_u = n_uc.sum(axis=1)
    pairable = m_u >= 2
    counts = {
        "units": int(units),
        "pairable_units": int(pairable.sum()),
        "unpaired_values": int(round(float(m_u[~pairable].sum()))),
    }
    # units with fewer than two values weigh 0 (cheaper than selecting rows)
    weighted = n_uc * (pairable / np.maximum(m_u - 1.0, 1.0))[:, None]
    coincidences = weighted.T @ n_uc
    coincidences[np.diag_indices_from(coincidences)] -= weighted.sum(axis=0)
    return coincidences, counts
