"""Take the README's screenshots of the review window on the bundled sample.

Run under a real X server (Xvfb), not the offscreen platform, e.g.:

    Xvfb :99 -screen 0 1600x1000x24 &
    DISPLAY=:99 QT_QPA_PLATFORM=xcb python docs/screenshots/take.py /tmp/shots

It imports samples/cards into a fresh project, scores it, opens the real
window at 1600x1000, drives it by keys as a reviewer would and saves:
review-findings.png (a spatial-grouping run with OCR, PARTIAL and SPATIAL),
boxes-exif-upright.png (a bounding-boxes run on the photo stored sideways),
review-keys.png (J, then N rejected a finding: the reason bar offers R; zoomed in);
then each text sample in its perspective: perspective-spans.png,
perspective-cases.png, perspective-failter.png, perspective-rubric.png,
perspective-pairwise.png.
Look at every PNG before committing it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[2]
#: The text samples' perspectives: sample -> the item shown.
PERSPECTIVE_SHOTS = {
    "spans": "sample-bakery",
    "cases": "orchard-theory-1",
    "failter": "failter/pond.md",
    "rubric": "sample-reading-1",
    "pairwise": "llmbar-pairwise-1",
}


def _settle(app: QApplication, window, rounds: int = 60) -> None:
    from reviewer.qt.app import waiting_for

    for _ in range(rounds):
        app.processEvents()
        QTest.qWait(25)
        if not waiting_for(window):
            break
    for _ in range(10):
        app.processEvents()
        QTest.qWait(20)


def main(out: Path) -> int:
    os.environ.setdefault("REVIEWER_CONFIG_DIR", tempfile.mkdtemp())
    os.environ.setdefault("REVIEWER_NAME", "ann")
    from reviewer.qt.app import build
    from reviewer.storage.importers import import_source
    from reviewer.storage.importers.base import ImportOptions
    from reviewer.storage.project.db import open_project
    from reviewer.storage.scoring import score_project

    out.mkdir(parents=True, exist_ok=True)
    db = Path(tempfile.mkdtemp()) / "sample.db"
    p = open_project(db, create=True)
    import_source(p, ROOT / "samples" / "cards", options=ImportOptions(model="illustrative-vlm"))
    score_project(p)
    p.close()
    app = QApplication.instance() or QApplication(sys.argv)

    def shot(name: str, item: str, prompt: str | None, keys: list = (), project: Path = db) -> None:
        window = build(project, ask_name=False, item=item, prompt=prompt, mode="review")
        window.resize(1600, 1000)
        window.show()
        window.activateWindow()
        _settle(app, window)
        for key in keys:
            if isinstance(key, tuple):
                QTest.keyClick(window.focusWidget() or window, key[0], key[1])
            else:
                QTest.keyClick(window.focusWidget() or window, key)
            _settle(app, window, 10)
        _settle(app, window)
        path = out / name
        print(f"{path}: {'saved' if window.grab().save(str(path)) else 'NOT saved'}")
        window.close()
        app.processEvents()

    shot("review-findings.png", "table-01", "spatial-grouping")
    shot("boxes-exif-upright.png", "table-02", "bounding-boxes")
    shot("review-keys.png", "table-01", "spatial-grouping", [Qt.Key_J, Qt.Key_N, Qt.Key_Plus, Qt.Key_Plus])
    from reviewer.cli.demo_samples import import_text_sample

    for workflow, item in PERSPECTIVE_SHOTS.items():  # one per perspective, on its sample
        text_db = db.parent / f"{workflow}.db"
        import_text_sample(ROOT / "samples", workflow, text_db)
        shot(f"perspective-{workflow}.png", item, None, project=text_db)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"))
