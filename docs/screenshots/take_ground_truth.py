"""Take the screenshots of ground truth in a few keys (docs/window.md): the
texts offered for a card being drawn (text-choices.png), proposed boxes
being confirmed (proposed-boxes.png), the Piles and cards list of ground
truth without boxes (piles-and-cards.png) and a golden span's role listed
as it is typed (span-role-keys.png), all on the bundled samples.

Run under a real X server, e.g.:

    xvfb-run -a -s "-screen 0 1600x1000x24" env QT_QPA_PLATFORM=xcb \\
        python docs/screenshots/take_ground_truth.py /tmp/shots

Look at every PNG before committing it.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "screenshots"))

from take import _settle  # noqa: E402


def _project(db: Path, strip_boxes: bool) -> Path:
    from reviewer.core.models import GroundTruth
    from reviewer.storage.importers import import_source
    from reviewer.storage.importers.base import ImportOptions
    from reviewer.storage.project.db import open_project
    from reviewer.storage.repo import ground_truth as repo_ground_truth
    from reviewer.storage.repo import items as repo_items
    from reviewer.storage.scoring import score_project

    p = open_project(db, create=True)
    import_source(p, ROOT / "samples" / "cards", options=ImportOptions(model="illustrative-vlm"))
    if strip_boxes:
        item = repo_items.item_by_name(p, "table-01")
        gt = repo_ground_truth.ground_truth(p, item.id)
        cards = [c.model_copy(update={"bbox": None}) for c in gt.cards]
        repo_ground_truth.set_ground_truth(p, item.id, GroundTruth(item="table-01", piles=gt.piles, cards=cards))
    score_project(p)
    p.close()
    return db


def _window(app, db: Path, item: str, prompt: str | None):
    from reviewer.qt.app import build

    window = build(db, ask_name=False, item=item, prompt=prompt, mode="review")
    window.resize(1600, 1000)
    window.show()
    window.activateWindow()
    _settle(app, window)
    return window


def _run(window, prompt: str, findings: bool) -> None:
    s = window.session
    run = next(r for r in s.runs() if r.run["prompt"] == prompt and bool(r.findings) == findings)
    s.set_run(run.run["id"])


def _save(app, window, path: Path) -> None:
    _settle(app, window)
    print(f"{path}: {'saved' if window.grab().save(str(path)) else 'NOT saved'}")
    window.close()
    app.processEvents()


def _drag(app, view, box) -> None:
    vp = view.viewport()

    def at(x: float, y: float) -> QPoint:
        p = view.viewportTransform().map(QPointF(x, y))
        return QPoint(round(p.x()), round(p.y()))

    a, b = at(box.x_min + 6, box.y_min + 4), at(box.x_max - 6, box.y_max - 4)
    QTest.mousePress(vp, Qt.LeftButton, Qt.NoModifier, a)
    for i in range(1, 6):
        QTest.mouseMove(vp, QPoint(a.x() + (b.x() - a.x()) * i // 5, a.y() + (b.y() - a.y()) * i // 5))
        app.processEvents()
    QTest.mouseRelease(vp, Qt.LeftButton, Qt.NoModifier, b)
    app.processEvents()


def main(out: Path) -> int:
    os.environ.setdefault("REVIEWER_CONFIG_DIR", tempfile.mkdtemp())
    os.environ.setdefault("REVIEWER_NAME", "ann")
    from reviewer.cli.demo_samples import import_text_sample
    from reviewer.core.commands import DeleteCards, EditCards

    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp())
    app = QApplication.instance() or QApplication(sys.argv)

    # 1. a card drawn where the model read "To pray": the texts offered, the model's first
    window = _window(app, _project(tmp / "choices.db", False), "table-01", "bounding-boxes")
    _run(window, "bounding-boxes", findings=False)
    s, view = window.session, window.canvas
    pray = next(c for c in s.ground_truth().cards if c.text == "To pray")
    clean = next(c for c in s.ground_truth().cards if c.text == "To be kept clean")
    s.execute(DeleteCards([pray.id]))
    s.execute(EditCards({clean.id: {"bbox": None}}, text="take its box"))
    view.setFocus()
    QTest.keyClick(view, Qt.Key_C)
    _settle(app, window, 10)
    _drag(app, view, pray.bbox)
    _save(app, window, out / "text-choices.png")

    # 2. the run's boxes proposed: one accepted, the next current with its bottom edge chosen
    window = _window(app, _project(tmp / "proposed.db", True), "table-01", "bounding-boxes")
    _run(window, "bounding-boxes", findings=False)
    window.actions_by_name["use_boxes"].trigger()
    window.canvas.setFocus()
    for key, mods in ((Qt.Key_Return, Qt.NoModifier), (Qt.Key_Down, Qt.ShiftModifier)):
        QTest.keyClick(window.canvas, key, mods)
        _settle(app, window, 10)
    _save(app, window, out / "proposed-boxes.png")

    # 3. ground truth without boxes: piles, cards and findings listed beside the photo
    window = _window(app, _project(tmp / "piles.db", True), "table-01", "spatial-grouping")
    s = window.session
    run = next(r for r in s.runs() if r.run["prompt"] == "spatial-grouping" and len(r.findings) == 3)
    s.set_run(run.run["id"])
    window.docks["piles"].raise_()
    spatial = next(f for f in run.findings if f.code.value == "SPATIAL")
    window.piles_list.tree.setCurrentItem(window.piles_list.row_of("finding", spatial.id))
    _save(app, window, out / "piles-and-cards.png")

    # 4. a golden span by keys: W W selects two words, L, 's' lists the roles completing it
    spans_db = tmp / "spans.db"
    import_text_sample(ROOT / "samples", "spans", spans_db)
    window = _window(app, spans_db, "sample-kite", None)
    pane = window.span_pane
    text = pane.labelled
    cursor = pane.view.textCursor()
    cursor.setPosition(text.index("red kite"))
    pane.view.setTextCursor(cursor)
    pane.view.setFocus()
    for key in (Qt.Key_W, Qt.Key_W, Qt.Key_L):
        QTest.keyClick(pane.view, key)
        _settle(app, window, 10)
    QTest.keyClicks(pane.role_bar.edit, "s")
    _save(app, window, out / "span-role-keys.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "screenshots"))
