"""The project's scoring config: stored once per version, the current one
read back when this code still implements its rules.

Every writer of the repo package runs inside ``Project.transaction`` and
records an audit row; callers that make several changes wrap them in one
transaction.
"""

from __future__ import annotations

from reviewer.core.models import ScoringConfig
from reviewer.storage.project.db import Project, now


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


def stored_config_version(project: Project) -> str | None:
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
