"""Seconds on the command line (`--interval`, `--timeout`, `--grace`...): finite and sane.

`float` takes `inf`, `nan` and 1e-300, and each of those busy-looped or never returned
(`--interval 1e-300` scraped without pause). Each option says its own range.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

# The session's bounds on a polling interval (model/session.py), for the same options here.
MIN_INTERVAL_S = 0.05
MAX_INTERVAL_S = 86_400.0
MAX_WAIT_S = 7 * 86_400.0  # a timeout or a wait: a week at most


def seconds(low: float, high: float, *, zero: bool = False, not_positive: bool = False) -> Callable[[str], float]:
    """An argparse `type` for seconds in [low, high] (and exactly 0 when `zero`; any finite
    value up to 0 when `not_positive`, for a command that says so itself)."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if (zero and value == 0) or (not_positive and value <= 0):
            return value
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} s: give {low:g} to {high:g} seconds"
                                             + (" (or 0)" if zero else ""))
        return value

    parse.__name__ = "seconds"  # argparse names the type in its messages
    return parse


INTERVAL = seconds(MIN_INTERVAL_S, MAX_INTERVAL_S)
TIMEOUT = seconds(0.1, MAX_WAIT_S)
REMOTE_TIMEOUT = seconds(0.1, MAX_WAIT_S, not_positive=True)  # `gpus`/`topo` say "must be positive" themselves
WINDOW = seconds(1.0, MAX_INTERVAL_S)
GRACE = seconds(0.0, 3_600.0)
