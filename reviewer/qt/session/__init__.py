"""The Session, the one model every widget observes, and its parts: the run
cache (runs), the summary worker (summary), the dispute state (disputes),
the editor with its queued history (editor, history, pending). See
reviewer.qt.session.session."""

from reviewer.qt.session.item_status import ItemStatus
from reviewer.qt.session.session import Session

__all__ = ["ItemStatus", "Session"]
