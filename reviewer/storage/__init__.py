"""The project database: migrations, importers, scoring, reports, exports.

Each workflow registers its storage parts from its own package (decision
record "workflow-registries"), once, here: the test cases first, as their
checks score before the cards (decision record "scoring-composed").
"""

# isort: off
# The order of these imports is the order of registration, which scoring keeps.
from reviewer.storage.cases import registration as cases_registration
from reviewer.storage.cards import registration as cards_registration
from reviewer.storage.spans import registration as spans_registration
from reviewer.storage.judging import registration as judging_registration
from reviewer.storage.annotators import registration as annotators_registration

# isort: on

__all__ = [
    "annotators_registration",
    "cards_registration",
    "cases_registration",
    "judging_registration",
    "spans_registration",
]
