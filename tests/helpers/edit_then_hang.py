"""Run the real window on a project, make one edit with the keyboard (Y on
the first finding), print 'EDITED <finding id>' and keep running until
killed. Used by test_qt_crash.py (SIGKILL survival)."""

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from reviewer.qt.app import build

app = QApplication([])
window = build(Path(sys.argv[1]), ask_name=False)
window.resize(1200, 800)
window.show()
app.processEvents()
finding = window.session.selected_findings[0]
QTest.keyClick(window, Qt.Key_Y)
app.processEvents()
print(f"EDITED {finding}", flush=True)
app.exec()
