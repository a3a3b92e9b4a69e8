"""The review window (PySide6). Nothing outside this package imports it.

Each workflow registers its perspective from its own package (decision
record "workflow-registries"), once, here, in the order of the menus.
Qt's short enum names are made ordinary class attributes here too (see
reviewer.qt.enums: PySide6's own look-up costs microseconds each, in
models and paint code thousands of times per item).
"""

from reviewer.qt import enums

# isort: off
# The order of these imports is the order of registration, which the window keeps (menus, docks).
from reviewer.qt.cards import registration as cards_registration
from reviewer.qt.spans import registration as spans_registration
from reviewer.qt.cases import registration as cases_registration
from reviewer.qt.judging import registration as judging_registration

# isort: on

enums.cache_all()

__all__ = ["cards_registration", "cases_registration", "judging_registration", "spans_registration"]
