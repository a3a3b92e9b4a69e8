"""Reading and writing the domain objects of a project (SQL parameters only).

The one module callers import (``from reviewer.storage import repo``): items
and prompts are in repo_items, ground truth in repo_ground_truth, runs in
repo_runs and findings in repo_findings, all re-exported here; the scoring
config is kept here.

Every writer here runs inside ``Project.transaction`` and records an audit
row; callers that make several changes wrap them in one transaction.
"""

from __future__ import annotations

from typing import Optional

from reviewer.core.models import ScoringConfig
from reviewer.storage.db import Project, now
from reviewer.storage.repo_findings import (
    delete_finding,
    finding,
    findings,
    findings_of_runs,
    insert_finding,
    update_finding,
)
from reviewer.storage.repo_ground_truth import ground_truth, has_ground_truth, set_ground_truth
from reviewer.storage.repo_items import (
    _rows as _rows,  # reviewer.storage.cards.overview reads runs with it
    card_counts,
    card_texts,
    item_by_name,
    items,
    prompts,
    run_item_names,
    sha256_text,
    transcribe_counts,
    upsert_item,
    upsert_prompt,
)
from reviewer.storage.repo_runs import (
    NumberedRun,
    add_numbered_runs,
    add_run,
    adopt_default_model,
    run_ids,
    run_rows,
)

__all__ = [
    "REPRODUCIBLE_VERSIONS",
    "NumberedRun",
    "add_numbered_runs",
    "add_run",
    "adopt_default_model",
    "card_counts",
    "card_texts",
    "current_config",
    "delete_finding",
    "finding",
    "findings",
    "findings_of_runs",
    "ground_truth",
    "has_ground_truth",
    "insert_finding",
    "item_by_name",
    "items",
    "prompts",
    "run_ids",
    "run_item_names",
    "run_rows",
    "save_config",
    "set_ground_truth",
    "sha256_text",
    "stored_config_version",
    "transcribe_counts",
    "update_finding",
    "upsert_item",
    "upsert_prompt",
]


# -- scoring config ----------------------------------------------------------------------
def save_config(project: Project, config: ScoringConfig) -> None:
    """Store ``config`` under its version (once) and make it the current one
    (derived data: allowed in a read-only project's in-memory copy)."""
    with project.transaction(derived=True):
        project.db.execute(
            "INSERT OR IGNORE INTO scoring_config (version, config, created_at) VALUES (?, ?, ?)",
            [config.version, config.model_dump_json(), now()],
        )
        if project.meta("scoring_config") != config.version:
            project.audit("set", "meta", "scoring_config", project.meta("scoring_config"), config.version)
            project.set_meta("scoring_config", config.version)


#: Config versions whose rules this code still implements; a project set to
#: an older version (other matching rules) is scored with the default, and
#: its old scores keep their own version.
REPRODUCIBLE_VERSIONS = frozenset({ScoringConfig().version})


def stored_config_version(project: Project) -> Optional[str]:
    """The version of the project's current scoring config, or None."""
    return project.meta("scoring_config")


def current_config(project: Project) -> ScoringConfig:
    """The project's current scoring config: the stored one when this code
    still implements its rules (REPRODUCIBLE_VERSIONS), else the default."""
    version = project.meta("scoring_config")
    if version in REPRODUCIBLE_VERSIONS:
        row = project.db.execute("SELECT config FROM scoring_config WHERE version = ?", [version]).fetchone()
        if row:
            return ScoringConfig.model_validate_json(row[0])
    return ScoringConfig()
