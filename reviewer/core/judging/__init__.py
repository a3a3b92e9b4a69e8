"""Judge-verdict workflow: verdicts of LLM judges and people, the disputes
between them, adjudications, agreement statistics, calibration and its charts,
following the seed documents ground-truth-judge-proposal.md and
judge-calibration-plan.md. ``verdicts`` holds the data model the rest build
on; ``stats`` holds what ``agreement`` and ``pairwise_agreement`` share, so
the two do not import each other in a circle. Import from the modules
themselves (e.g. ``reviewer.core.judging.disputes``); this package re-exports
nothing.
"""
