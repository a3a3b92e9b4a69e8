"""The T-P1 rows the window shows (reviewer.qt.panels.scores): read with
every run's RunLine by ``read_summary`` (on the Summariser's worker, in
slices), or made from RunLines already cached by ``rows_of``."""

from __future__ import annotations

import time
from collections.abc import Iterable

from reviewer.core.cards.metrics import prompt_verdicts
from reviewer.core.models import AnswerSchema, PromptVerdict
from reviewer.storage.cards import overview
from reviewer.storage.repo import config as repo_config
from reviewer.storage.repo import runs as repo_runs

#: Runs read per slice by ``read_summary``, which pauses between slices so the GUI thread gets the GIL.
SLICE = 250

Row = tuple  # (automatic PromptVerdict, reviewed PromptVerdict or None)


def _pair_rows(auto: list[PromptVerdict], reviewed: list[PromptVerdict]) -> list[Row]:
    by_key = {v.key(): v for v in reviewed}
    return [(v, by_key.get(v.key())) for v in auto]


def read_summary(project, cancelled=lambda: False, pause: float = 0.0) -> tuple[list, list[Row]] | None:
    """(a RunLine of every scored run in run_rows order, T-P1 rows) of
    ``project``; read in slices of SLICE runs with ``pause`` seconds between
    them; None when ``cancelled()`` turns true."""
    ids = repo_runs.run_ids(project)
    lines: list[overview.RunLine] = []
    for start in range(0, len(ids), SLICE):
        if cancelled():
            return None
        lines += overview.run_lines(project, ids[start : start + SLICE])
        if pause:
            time.sleep(pause)
    return lines, rows_of(lines, repo_config.current_config(project))


def rows_of(lines: Iterable, config) -> list[Row]:
    """The T-P1 rows (automatic, reviewed) of RunLines; free text left out."""
    rows = [(x.prompt, x.item, x.auto, x.reviewed, x.model) for x in lines if x.schema != AnswerSchema.FREE.value]
    return _pair_rows(
        prompt_verdicts([(p, i, a, m) for p, i, a, _, m in rows], config),
        prompt_verdicts([(p, i, v, m) for p, i, _, v, m in rows], config),
    )
