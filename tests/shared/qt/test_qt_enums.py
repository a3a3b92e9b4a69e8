"""Qt's short enum names are plain class attributes with PySide6's own values."""

import enum

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter

import reviewer.qt  # noqa: F401 - caches the short names
from reviewer.qt import enums


def test_short_names_are_class_attributes_with_the_same_members():
    assert "DisplayRole" in vars(Qt)
    assert Qt.DisplayRole is Qt.ItemDataRole.DisplayRole
    assert QPainter.Antialiasing is QPainter.RenderHint.Antialiasing
    assert Qt.AlignLeft | Qt.AlignTop == Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop


def test_a_name_in_two_enums_of_a_class_is_left_alone():
    class Holder:
        class One(enum.Enum):
            A = 1
            SAME = 2

        class Two(enum.Enum):
            B = 3
            SAME = 4

    assert enums.cache_short_names(Holder) == 2
    assert Holder.A is Holder.One.A
    assert Holder.B is Holder.Two.B
    assert "SAME" not in vars(Holder)
