"""Mouse tools of the canvas: small state machines in scene coordinates.

The view turns mouse events into ``press``/``move``/``release``/
``double_click`` calls with scene points (upright image pixels); a tool
reads the overlay model, hit-tests it (hittest.py), shows what it is doing
through ``preview()`` shapes, and ends every edit in exactly one command
through ``session.execute`` (so it is undoable and written at once).

- select: click selects a card (Shift adds, Ctrl toggles), a rubber band
  selects several; dragging a selected card moves every selected card,
  dragging a handle resizes that card; double-click edits the text inline.
- pile: drag a rectangle, or Shift-click vertices of a polygon (Enter or
  double-click closes it); an inline editor then asks for the label.
- card: drag a rectangle; an inline editor asks for the text, and the card
  goes to the pile whose region holds the rectangle's centre. When an
  unplaced card (one without a box) is selected, the rectangle becomes its
  box instead, with no question; typing the text of an unplaced card (§1
  equality) also places that card instead of adding another.

The base (``Canvas``, ``Tool``) is in tool_base.py, the select tool in
tool_select.py, the pile and card tools in tool_draw.py; their names are
importable from here as before.
"""

from __future__ import annotations

from reviewer.qt.canvas.tool_base import Tool
from reviewer.qt.canvas.tool_draw import CardTool, PileTool
from reviewer.qt.canvas.tool_select import SelectTool

__all__ = ["TOOLS"]

TOOLS: dict[str, type[Tool]] = {"select": SelectTool, "pile": PileTool, "card": CardTool}
