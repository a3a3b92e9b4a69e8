"""Take docs/screenshots/validation.png and validation-reliability.png: the
adjudication mode's validation view on real data, outside the repository.

    xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb \
        python docs/screenshots/take_validation.py /tmp/shots

It imports ../shared/data/pairwise-pandalm (three annotators) and the
span-labeling baseline snapshot (span confidences) into a scratch project,
opens the real window at 1600x1000 in the adjudication mode, waits for the
validation figures (computed off the GUI thread) and saves the Alignment
tab (PandaLM-7B against the annotators' majority) and the Reliability tab
(the span confidences' reliability diagram), then the Compare tab
(validation-compare.png: two judges compared, on a slice when the items
have metadata). Look at every PNG before
committing it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def main(out: Path) -> int:
    os.environ.setdefault("REVIEWER_CONFIG_DIR", tempfile.mkdtemp())
    os.environ.setdefault("REVIEWER_NAME", "ann")
    from reviewer.qt.app import build
    from reviewer.storage.importers import import_source
    from reviewer.storage.project.db import open_project

    out.mkdir(parents=True, exist_ok=True)
    db = Path(tempfile.mkdtemp()) / "validation.db"
    p = open_project(db, create=True)
    import_source(p, DATA / "pairwise-pandalm")
    import_source(p, DATA / "span-labeling" / "snapshots" / "baseline.json")
    p.close()
    app = QApplication.instance() or QApplication(sys.argv)
    window = build(db, ask_name=False, mode="adjudication")
    window.resize(1600, 1000)
    window.show()
    panel = window.adjudication.validation
    window.adjudication.tabs.setCurrentWidget(panel)
    while panel.figures is None:
        app.processEvents()
        QTest.qWait(50)
    for name, tab, pick in (
        ("validation.png", panel.alignment, "pandalm-7b · winner"),
        ("validation-reliability.png", panel.reliability, None),
    ):
        panel.tabs.setCurrentWidget(tab)
        if pick:
            tab.combo.setCurrentIndex(max(0, tab.combo.findText(pick)))
        QTest.qWait(500)
        path = out / name
        print(f"{path}: {'saved' if window.grab().save(str(path)) else 'NOT saved'}")
    # the Compare tab: the first two judges, on the first slice of the first metadata field when there is one
    judges = [panel.first_judge.itemText(i) for i in range(1, panel.first_judge.count())]
    fields = [panel.slice_field.itemText(i) for i in range(1, panel.slice_field.count())]
    slice_ = None
    if fields:
        panel.slice_field.setCurrentText(fields[0])
        slice_ = (fields[0], panel.slice_value.itemText(0))
    panel.choose(slice_, (judges[0], judges[1]) if len(judges) > 1 else None)
    panel.tabs.setCurrentWidget(panel.compare_text)
    while panel.worker.busy() or panel.figures is None:
        app.processEvents()
        QTest.qWait(50)
    QTest.qWait(500)
    path = out / "validation-compare.png"
    print(f"{path}: {'saved' if window.grab().save(str(path)) else 'NOT saved'}", panel.figures.slice)
    panel.worker.wait()
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots")))
