"""Greedy span matching in near-linear time: the same matches as the plain
loop of golden.match_counts (each predicted span, in order, takes the first
unmatched golden span it fits: RelaxedF1Evaluator.evaluateSpans), found
through an index instead of a scan of every golden span.

* exact: golden spans grouped by (start, end, role);
* relaxed (IoU above 0.5 and the same role): per role, the golden spans
  sorted by start; a span [a0, a1) of length l can only reach IoU > 0.5
  with a golden span starting in (a0 - 1.5 l, a1 - 0.5 l) (the intersection
  must exceed half of each length), so only those are tried.

Golden spans with equal offsets are one entry (they fit the same predicted
spans; the first unmatched one is taken). Anything the index cannot order
(offsets that are not finite numbers, roles that cannot be hashed) falls back
to the plain loop, so the result is always the plain loop's.

Pure: no I/O.
"""

from __future__ import annotations

import bisect
import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def _offsets(span: Mapping) -> tuple[float, float] | None:
    """(start, end) as iou reads them (float of each), None when either
    cannot be read or is not finite."""
    try:
        a, b = float(span["start"]), float(span["end"])
    except (KeyError, TypeError, ValueError):
        return None
    return (a, b) if math.isfinite(a) and math.isfinite(b) else None


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return value == value  # NaN is not equal to itself: the index could not find it


class _Matcher:
    """The golden spans of one text, indexed; ``take(pred)`` gives the index
    of the golden span ``pred`` matches (now used), or None."""

    def __init__(self, golden: Sequence[Mapping], fits: Callable[[Mapping, Mapping], bool]):
        self.golden = golden
        self.fits = fits
        self.used: set[int] = set()
        self.slow: list[int] = []  # golden spans only the plain loop can match

    def take(self, pred: Mapping) -> int | None:
        """The golden span ``pred`` matches first, marked used (each subclass's index)."""
        raise NotImplementedError

    def _plain(self, pred: Mapping, among) -> int | None:
        for j in among:
            if j not in self.used and self.fits(pred, self.golden[j]):
                return j
        return None

    @staticmethod
    def _front(queue: deque, used: set[int]) -> int | None:
        while queue and queue[0] in used:
            queue.popleft()
        return queue[0] if queue else None

    def _use(self, j: int | None) -> int | None:
        if j is not None:
            self.used.add(j)
        return j


class ExactMatcher(_Matcher):
    """Exact matching (same start, end and role) through a dictionary."""

    def __init__(self, golden: Sequence[Mapping], fits):
        super().__init__(golden, fits)
        self.groups: dict[tuple, deque] = {}
        for j, g in enumerate(golden):
            key = (g.get("start"), g.get("end"), g.get("role"))
            if all(_hashable(k) for k in key):
                self.groups.setdefault(key, deque()).append(j)
            else:
                self.slow.append(j)

    def take(self, pred: Mapping) -> int | None:
        """The golden span ``pred`` matches first (see module doc), marked used."""
        key = (pred.get("start"), pred.get("end"), pred.get("role"))
        if not all(_hashable(k) for k in key):
            return self._use(self._plain(pred, range(len(self.golden))))
        queue = self.groups.get(key)
        best = self._front(queue, self.used) if queue is not None else None
        slow = self._plain(pred, self.slow)
        if slow is not None and (best is None or slow < best):
            best = slow
        return self._use(best)


class RelaxedMatcher(_Matcher):
    """Relaxed matching (IoU above 0.5, same role) through per-role lists
    of golden offsets sorted by start."""

    def __init__(self, golden: Sequence[Mapping], fits):
        super().__init__(golden, fits)
        # role -> sorted [(start, end)] still holding unmatched spans, and (role, start, end) -> indices
        self.keys: dict[Any, list[tuple[float, float]]] = {}
        self.groups: dict[tuple, deque] = {}
        for j, g in enumerate(golden):
            offsets, role = _offsets(g), g.get("role")
            if offsets is None:
                if self._readable(g):
                    self.slow.append(j)  # not finite: only the plain loop knows what it fits
                continue  # unreadable offsets: IoU 0, never matched
            if not _hashable(role):
                self.slow.append(j)
                continue
            if offsets[1] <= offsets[0]:
                continue  # empty or reversed: IoU 0, never matched
            queue = self.groups.get((role, *offsets))
            if queue is None:
                queue = self.groups[(role, *offsets)] = deque()
                self.keys.setdefault(role, []).append(offsets)
            queue.append(j)
        for keyed in self.keys.values():
            keyed.sort()

    @staticmethod
    def _readable(span: Mapping) -> bool:
        try:
            float(span["start"]), float(span["end"])
        except (KeyError, TypeError, ValueError):
            return False
        return True

    def take(self, pred: Mapping) -> int | None:
        """The golden span ``pred`` matches first (see module doc), marked used."""
        offsets, role = _offsets(pred), pred.get("role")
        if offsets is None or not _hashable(role):
            if offsets is None and not self._readable(pred):
                return None  # IoU 0 with every span
            return self._use(self._plain(pred, range(len(self.golden))))
        a0, a1 = offsets
        best = self._plain(pred, self.slow)
        length = a1 - a0
        keys = self.keys.get(role)
        if length > 0 and keys:
            margin = 1e-6 * (abs(a0) + abs(a1) + 1)  # float rounding; every candidate is checked with fits
            lo = bisect.bisect_left(keys, (a0 - 1.5 * length - margin, -math.inf))
            hi = bisect.bisect_right(keys, (a1 - 0.5 * length + margin, math.inf))
            spent = []
            for k in range(lo, hi):
                j = self._front(self.groups[(role, *keys[k])], self.used)
                if j is None:
                    spent.append(k)
                elif (best is None or j < best) and self.fits(pred, self.golden[j]):
                    best = j
            for k in reversed(spent):  # entries with no unmatched span left
                keys.pop(k)
        return self._use(best)


def matcher(golden: Sequence[Mapping], mode: str, fits: Callable[[Mapping, Mapping], bool]) -> _Matcher:
    """The index over ``golden`` for ``mode`` ('exact' or 'relaxed'); ``fits``
    is the match test of the mode (golden.exact_match or relaxed_match)."""
    return ExactMatcher(golden, fits) if mode == "exact" else RelaxedMatcher(golden, fits)


__all__ = ["ExactMatcher", "RelaxedMatcher", "matcher"]
