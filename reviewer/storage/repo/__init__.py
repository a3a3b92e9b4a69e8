"""The rows every workflow shares: items and prompts (``items``), runs
(``runs``), findings (``findings``), ground truth (``ground_truth``), the
scoring config (``config``), items' source metadata (``item_metadata``),
import sources (``sources``) and a run's reservations (``reservations``,
``batches``). Callers import the module that holds a name; this package
re-exports nothing.
"""
