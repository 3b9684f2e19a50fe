"""What the benchmark scripts share (run as scripts, they import it from this folder)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def timed(fn: Callable[[], object], runs: int) -> float:
    """The median wall time of `fn()` over `runs` calls, in seconds."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)
