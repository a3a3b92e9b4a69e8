"""Span-labeling workflow: the judge results of span-labeling evaluation
snapshots, normalised, turned into readable issues and summed into the
statistics of a snapshot's summary block, following the seed document
span-labeling-evaluation-design.md. Import from the modules themselves (e.g.
``reviewer.core.spans.snapshots``); this package re-exports nothing.
"""
