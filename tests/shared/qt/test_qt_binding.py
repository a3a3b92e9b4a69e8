"""PySide6/shiboken6 6.12.0 on CPython 3.11 drops a reference to None on
every Qt call returning nothing, and the process aborts after a few thousand
calls ("none_dealloc"). pyproject.toml pins PySide6 below 6.12; this test
fails if an installed binding has the defect."""

from __future__ import annotations

import sys

import pytest


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None is immortal from Python 3.12")
def test_qt_calls_keep_none_alive():
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(500):
        probe.setObjectName("probe")
    assert sys.getrefcount(None) - before > -100
