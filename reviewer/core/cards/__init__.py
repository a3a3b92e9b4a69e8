"""Card-reading workflow: reading a model's answer about the cards in an image,
scoring it against the ground truth and summing runs into verdicts, as the seed
document card-reading-spike-evaluation.md lays out (T-P5 scoring of one run,
T-P1 pass/fail per prompt). Holds answer parsing, box conventions, what a
prompt asks for, scoring, run metrics and the plain-text verdict reports.
Import from the modules themselves (e.g. ``reviewer.core.cards.scoring``);
this package re-exports nothing.
"""
