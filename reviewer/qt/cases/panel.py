"""The former right-dock panel of a test case, now the case perspective's
centre view (reviewer.qt.cases.view.CaseView). ``CasePanel`` stays an
importable name for the window until it places CaseView itself."""

from __future__ import annotations

from reviewer.qt.cases.view import CaseView

CasePanel = CaseView

__all__ = ["CasePanel", "CaseView"]
