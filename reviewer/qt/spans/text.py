"""A span run's output as readable plain text for the output panel."""

from __future__ import annotations

from reviewer.core.spans.responses import format_spans_for_judge
from reviewer.qt.session.reads import parse_span_output


def span_output_text(output: str) -> str | None:
    """The labelled text, a blank line, then the spans numbered as the judge
    sees them (design P11: ``[i] 'text' (role, confidence)``); None when the
    output is not a span run's."""
    parsed = parse_span_output(output)
    if parsed is None:
        return None
    text, spans = parsed
    return f"{text}\n\n— {len(spans)} spans —\n{format_spans_for_judge(spans)}"
