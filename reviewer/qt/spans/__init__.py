"""Span labeling in the window (issue 10): the labelled text with its spans
coloured by role, the judge's findings on them, section boundaries, and hand
labelling of golden spans. Import from the modules (``view``, ``layers``,
``style``)."""
