"""The reviewer command line: thin commands over core, storage and the pipeline.

Every command exits 0 on success and prints a one-line ``Error: ...`` with
a non-zero status for a missing file, a corrupt database or an unknown format.
The `reviewer` group is in reviewer.cli.common; the commands register on it
from reviewer.cli.projects, reviewer.cli.reports, reviewer.cli.endpoints,
reviewer.cli.validation and reviewer.cli.labels.
"""

from reviewer.cli import endpoints, labels, projects, reports, validation  # noqa: F401  (the commands register on the group)
from reviewer.cli.common import DEFAULT_KEY_ENV, JUDGE_KINDS, main

__all__ = ["DEFAULT_KEY_ENV", "JUDGE_KINDS", "main"]
