"""Pure Python: the workflows' rules, models and commands (no Qt, SQL or HTTP).

Each of the five workflows registers its part of the rule that recognises
an item (reviewer.core.workflows.infer) from its own package, once, here
(decision record "workflow-registries")."""

# isort: off
# The order of these imports is the order of registration (ranks decide what infer tries first).
from reviewer.core.cases import registration as cases_registration
from reviewer.core.spans import registration as spans_registration
from reviewer.core.cards import registration as cards_registration
from reviewer.core.judging import registration as judging_registration

# isort: on

__all__ = ["cards_registration", "cases_registration", "judging_registration", "spans_registration"]
