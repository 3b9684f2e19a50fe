"""Python's cyclic garbage collector, settled for a long-running UI.

A live log makes many short-lived objects (parsed events, strips); the collector then runs
full collections tens of times a minute, and each walks every object the app holds (widgets,
styles, caches: ~60k), 20-40 ms apiece, which a key press or a frame waits behind. Once the
app is built its objects are moved out of the collector's reach (`gc.freeze`: they live as
long as the app does); what is made afterwards is collected as usual. Unfrozen on exit, so
a process that runs several apps (the tests) does not keep the old ones.

Until then the collector is held (`hold`, when the app starts running): building the
screens makes hundreds of thousands of objects, few of them garbage, and each full
collection meanwhile walked them all (0.6 s of a 5,000-task session's first frame on a
loaded 2-core machine); `settle` collects once and lets it run again.
"""

from __future__ import annotations

import gc

_held = False


def hold() -> None:
    """No collections until `settle` or `release` (the app is being built)."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def _resume() -> None:
    global _held
    if _held:
        _held = False
        gc.enable()


def settle() -> None:
    """Collect once, then freeze what survives; the collector runs again."""
    gc.collect()
    gc.freeze()
    _resume()


def release() -> None:
    """Give the frozen objects back to the collector (the app is going away)."""
    gc.unfreeze()
    _resume()
