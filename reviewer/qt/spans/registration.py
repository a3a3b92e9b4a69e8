"""The span perspective's registration (decision record "workflow-registries"):
the labelled text in the centre, its score panel and docks, the span codes and its editing keys,
its line in the items list and how the output panel shows a span run."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reviewer.core.models import SPAN_CODE_ORDER
from reviewer.core.workflows import Workflow
from reviewer.qt.registry import QtWorkflow, ScorePanel, lazy, register
from reviewer.qt.text import plural

_H, _V = Qt.Orientation.Horizontal, Qt.Orientation.Vertical


def status_line(status: object, runs: str) -> str | None:
    """A span item's line in the items list when it has golden spans:
    'GT 12 golden spans · 1/3 runs reviewed' (else the shared line)."""
    golden = getattr(status, "golden_spans", 0)
    return f"GT {plural(golden, 'golden span')} · {runs}" if golden else None


def output_text(output: str) -> str | None:
    """A span run's output as the output panel shows it: its text and
    numbered spans, not JSON with \\n escapes (reviewer.qt.spans.text);
    None for any other output."""
    from reviewer.qt.spans.text import span_output_text

    return span_output_text(output)


PARTS = register(
    QtWorkflow(
        Workflow.SPANS,
        center=lazy("reviewer.qt.spans.pane", "SpanPane"),
        center_name="spans",
        score_panels=(ScorePanel("span_scores", "Span scores", lazy("reviewer.qt.spans.scores", "SpanScoresPanel")),),
        status_line=status_line,
        output_text=output_text,
        docks=("items", "legend", "findings", "output", "runs"),
        codes=SPAN_CODE_ORDER,
        keys=(
            ("1-4", "reclassify as MISSED, FALSE_POSITIVE, TAXONOMY, GRANULARITY"),
            ("A", "add a finding on the span at the cursor"),
            ("W / S", "grow the selection by a word / a sentence"),
            (
                "L, Enter",
                "label the selected text: type a role (listed as you type, Up/Down choose), Enter (Shift+Enter: the last role)",
            ),
            ("Delete, Backspace", "delete the golden span at the cursor"),
        ),
        sizes=(
            (("items",), (320,), _H),
            (("findings",), (520,), _H),
            (("findings", "output"), (420, 240), _V),
            (("runs",), (230,), _V),
            (("runs", "span_scores"), (600, 1000), _H),
        ),
    )
)
