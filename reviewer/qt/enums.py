"""Fast short enum names: ``Qt.DisplayRole`` as cheap as ``Qt.ItemDataRole.DisplayRole``.

PySide6 finds a short name (``Qt.AlignLeft``, ``QPainter.Antialiasing``)
by searching the class's enums on every look-up, 3-15 µs each; models'
``data()`` and paint code do it thousands of times per item switch. Once,
at import, each short name that belongs to exactly one enum of its class
is set on the class to the very member PySide6 would return, so the
look-up becomes an ordinary attribute read (~0.05 µs). A name shared by two
enums of one class is left to PySide6's own search. Values are unchanged.
"""

from __future__ import annotations

import enum

from PySide6 import QtCore, QtGui, QtWidgets


def _enums(cls: type) -> list[type[enum.Enum]]:
    """The enum types defined on ``cls`` itself (its ``__dict__``)."""
    return [v for v in vars(cls).values() if isinstance(v, type) and issubclass(v, enum.Enum)]


def cache_short_names(cls: type) -> int:
    """Set every unambiguous short enum name of ``cls`` as a class attribute
    (see module doc); the number set. Classes that refuse attributes are left
    as they are."""
    found: dict[str, enum.Enum] = {}
    shared: set[str] = set()
    for kind in _enums(cls):
        for name, member in kind.__members__.items():
            if name in found and found[name] is not member:
                shared.add(name)
            found[name] = member
    own = vars(cls)
    count = 0
    for name, member in found.items():
        if name in shared or name in own:
            continue
        try:
            setattr(cls, name, member)
        except (AttributeError, TypeError):
            return count
        count += 1
    return count


def cache_all() -> int:
    """:func:`cache_short_names` for every class of QtCore, QtGui and
    QtWidgets (and the namespace ``Qt``); the number of names set."""
    count = 0
    for module in (QtCore, QtGui, QtWidgets):
        for value in vars(module).values():
            if isinstance(value, type) and not issubclass(value, enum.Enum):
                count += cache_short_names(value)
    return count
