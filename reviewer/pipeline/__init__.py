"""Asking models and judges and storing what they say (docs/runner.md): the layer
between the endpoint client (reviewer.clients) and the project
(reviewer.storage), used by the command line and the window alike.

Every entry point is a plain function that takes ``progress(done, total,
summary)`` and a ``cancel`` threading.Event, so the window can call it from
a worker thread; answers are stored as they arrive, so an interrupted job
continues where it stopped when started again.
"""
