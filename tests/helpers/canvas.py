"""Drive the photo canvas in a pytest-qt test: view points of scene points,
mouse drags, typing a card's text, and the cards stored for the item."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt

from reviewer.storage.repo import ground_truth as repo_ground_truth


def at(view, x: float, y: float) -> QPoint:
    """The viewport point showing scene point (x, y)."""
    p = view.viewportTransform().map(QPointF(x, y))
    return QPoint(round(p.x()), round(p.y()))


def drag(qtbot, view, a: QPoint, b: QPoint, modifier=Qt.NoModifier, button=Qt.LeftButton, steps: int = 5):
    vp = view.viewport()
    qtbot.mousePress(vp, button, modifier, a)
    for i in range(1, steps + 1):
        qtbot.mouseMove(vp, QPoint(a.x() + (b.x() - a.x()) * i // steps, a.y() + (b.y() - a.y()) * i // steps))
    qtbot.mouseRelease(vp, button, modifier, b)


def type_and_enter(qtbot, view, text: str) -> None:
    editor = view.inline_editor()
    assert editor is not None and editor.isVisible()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key_Return)
    assert view.inline_editor() is None


def db_cards(session):
    return {c.id: c for c in repo_ground_truth.ground_truth(session.project, session.item_id).cards}
