"""The confidences span judges gave their spans, for the calibration of judge
confidence (reviewer.storage.judging.calibration_report takes them as source
'span'; the composition that passes them is the caller: reviewer.storage.report
and the command line).

Per stored span snapshot, every span of a judged result (one with a
``judgeResult`` object) whose ``confidence`` is a number within 0-1; a span
is correct when the span judge named it no error
(reviewer.core.spans.summary.error_span_indices), the rule the span design's
confidence buckets use.
"""

from __future__ import annotations

import math

from reviewer.core.bounds import is_number
from reviewer.core.spans.summary import error_span_indices
from reviewer.storage.project.db import Project
from reviewer.storage.spans import spans

__all__ = ["span_confidences"]


def span_confidences(project: Project) -> dict[str, list[tuple[float, bool]]]:
    """{snapshot name: [(confidence 0-1, correct)]} over the project's span
    snapshots, in span order (module doc); a snapshot without such a span is
    left out ({} without snapshots)."""
    out: dict[str, list[tuple[float, bool]]] = {}
    for name in spans.snapshot_names(project):
        _, loaded = spans.snapshot(project, name)
        pairs = []
        for result in loaded.get("results") or []:
            if not isinstance(result.get("judgeResult"), dict):
                continue
            errors = error_span_indices(result)
            for index, span in enumerate(result.get("spans") or []):
                c = span.get("confidence") if isinstance(span, dict) else None
                if is_number(c) and math.isfinite(c) and 0 <= c <= 1:
                    pairs.append((float(c), index not in errors))
        if pairs:
            out[name] = pairs
    return out
