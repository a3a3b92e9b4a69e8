"""Python's cyclic garbage collector while a big project is read and kept
(decision record "big-projects-stay-interactive"): paused while tens of
thousands of objects without cycles are made, and a big project's caches
kept out of its full passes while the project is open. No Qt.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while the block runs: reading
    a big project makes tens of thousands of objects without cycles, and
    each collection they trigger would walk the whole heap (most of the
    time of building the items' rows at open)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def pause_collector() -> None:
    """Stop the cyclic collector until :func:`keep_long_lived` (a big
    project loads: its summary, scores and verdicts come from workers, and
    a full collection triggered by any thread holds the GUI thread)."""
    gc.disable()


def keep_long_lived() -> None:
    """Move every object alive now out of the collector's sight
    (``gc.freeze``): a big project's caches (a RunLine per run, every
    verdict) live as long as it is open, and each full collection would
    walk them again, for up to a second on the GUI thread. Objects freed by
    reference counting are freed as before; :func:`release_long_lived`
    hands the rest back when the project is closed. The collector runs
    again (after :func:`pause_collector`)."""
    gc.freeze()
    gc.enable()


def release_long_lived() -> None:
    """Give the objects kept by :func:`keep_long_lived` back to the
    collector (``gc.unfreeze``), so a closed project's cycles are collected;
    the collector runs."""
    gc.unfreeze()
    gc.enable()
