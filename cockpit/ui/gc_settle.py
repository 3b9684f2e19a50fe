"""Python's cyclic garbage collector, settled for a long-running UI.

A live log makes many short-lived objects (parsed events, strips); the collector then runs
full collections tens of times a minute, and each walks every object the app holds (widgets,
styles, caches: ~60k), 20-40 ms apiece, which a key press or a frame waits behind. Once the
app is built its objects are moved out of the collector's reach (`gc.freeze`: they live as
long as the app does); what is made afterwards is collected as usual. Unfrozen on exit, so
a process that runs several apps (the tests) does not keep the old ones.
"""

from __future__ import annotations

import gc


def settle() -> None:
    """Collect once, then freeze what survives."""
    gc.collect()
    gc.freeze()


def release() -> None:
    """Give the frozen objects back to the collector (the app is going away)."""
    gc.unfreeze()
