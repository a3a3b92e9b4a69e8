"""The review window (PySide6). Nothing outside this package imports it."""
