"""Two export parts of one table, for a workflow registered in a test:
the registry finds them by this module's name."""

from __future__ import annotations

ONE_ROW = ("a|b", "overall", "kappa", 0.5, 10, "", None, None, None, None)


def agreement_row(project):
    from reviewer.storage.export_schema import AGREEMENT_COLUMNS

    return [("agreement", AGREEMENT_COLUMNS, None, [ONE_ROW])]


def later_agreement_row(project):
    from reviewer.storage.export_schema import AGREEMENT_COLUMNS

    return [("agreement", AGREEMENT_COLUMNS, None, [ONE_ROW[:3] + (0.7,) + ONE_ROW[4:]])]
