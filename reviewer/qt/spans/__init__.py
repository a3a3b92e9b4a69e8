"""The span workflow of the window: the span pane, what it draws, its colours, and a span run as text."""
