"""The backgrounds of what a test case's checks matched in an answer, drawn
by a syntax highlighter: Qt asks for each paragraph's formats as it lays
the text out, and each paragraph finds its ranges by bisection, so a
megabyte answer with tens of thousands of matches costs one pass (never a
text cursor per match). Plain character formats over plain text: the
answer is never read as rich text."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

import numpy as np
from PySide6.QtGui import QColor, QSyntaxHighlighter, QTextCharFormat


def merged(spans: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """``spans`` ((start, end) pairs of integers) as sorted, disjoint ranges
    covering the same positions (touching ones joined); empty and reversed
    ones left out. Vectorised: a megabyte answer has 100,000 matches."""
    arr = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
    arr = arr[arr[:, 1] > arr[:, 0]]
    if not len(arr):
        return []
    arr = arr[np.lexsort((arr[:, 1], arr[:, 0]))]
    starts, reach = arr[:, 0], np.maximum.accumulate(arr[:, 1])
    first = np.flatnonzero(np.r_[True, starts[1:] > reach[:-1]])  # where a new range begins
    last = np.r_[first[1:] - 1, len(arr) - 1]
    return list(zip(starts[first].tolist(), reach[last].tolist()))


class MatchHighlighter(QSyntaxHighlighter):
    """Layers of background colours over document positions; a later layer
    is drawn over an earlier one where they overlap."""

    def __init__(self, document):
        super().__init__(document)
        self.layers: list[tuple[QTextCharFormat, list[tuple[int, int]], list[int]]] = []

    def set_layers(self, layers: Sequence[tuple[str, list[tuple[int, int]]]], rehighlight: bool = True) -> None:
        """``layers``: (colour, sorted disjoint [start, end) document
        positions), bottom first. ``rehighlight``: format the present text
        now (False when the text is about to be set, which formats it)."""
        self.layers = []
        for color, ranges in layers:
            fmt = QTextCharFormat()
            fmt.setBackground(QColor(color))
            self.layers.append((fmt, list(ranges), [a for a, _ in ranges]))
        if rehighlight:
            self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt API
        """Format the ranges of each layer that reach into this paragraph."""
        block = self.currentBlock()
        start = block.position()
        end = start + max(0, block.length() - 1)  # UTF-16 units, as the ranges
        for fmt, ranges, starts in self.layers:
            i = max(0, bisect_right(starts, start) - 1)
            while i < len(ranges) and ranges[i][0] < end:
                a, b = ranges[i]
                if b > start:
                    a, b = max(a, start), min(b, end)
                    self.setFormat(a - start, b - a, fmt)
                i += 1


__all__ = ["MatchHighlighter", "merged"]
