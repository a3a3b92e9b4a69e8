"""The Run menu: forms, their controller, the worker thread and their settings."""
