"""A toy sixth workflow, riddles, registered only by the tests: a folder per
layer (core, storage, qt) and one registration in each, as
docs/architecture.md#adding-a-workflow says. It proves a workflow is
imported, scored, reported, exported and shown with no edit to reviewer's
composition modules.

A riddles file (``*.riddles.json``): {"riddles": [{"name", "text",
"answer", "model", "guess"}...]}. Each riddle is a text item; each guess a
run of the prompt 'riddle'; a run is correct when its guess is the answer,
case and spaces aside.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def registered(window: bool = False) -> Iterator[None]:
    """The toy workflow registered in the core and storage layers (and the
    window's, with ``window``) for the block, forgotten after it."""
    from reviewer.core import workflows
    from reviewer.storage import registry
    from tests.helpers.toy_workflow.core import RIDDLES, register_core
    from tests.helpers.toy_workflow.storage import register_storage

    register_core()
    register_storage()
    if window:
        from tests.helpers.toy_workflow.qt import register_qt

        register_qt()
    try:
        yield
    finally:
        if window:
            from reviewer.qt import registry as qt_registry

            qt_registry.unregister(RIDDLES.value)
        registry.unregister(RIDDLES.value)
        workflows.unregister(RIDDLES.value)
