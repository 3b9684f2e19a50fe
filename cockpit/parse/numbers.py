"""Numbers read from log and tool text, where a number may be any length.

Python refuses `int()` of a string of more than 4,300 digits (a ValueError: it guards
against quadratic conversions), and `float()` of a long one is silently `inf`. A log line
or a result row holding such a number is kept as a line; only that field is unreadable.
No figure a server or a benchmark prints is near this long.
"""

from __future__ import annotations

MAX_NUMBER_CHARS = 64
# The largest figure a session records (model/strict.py MAX_FIGURE; a test keeps them equal):
# a figure read past it would be refused when recorded, so it is no figure where it is read.
MAX_FIGURE = 1e15


def read_int(text: str | bytes) -> int | None:
    """`int(text)`, or None for a number too long to be a figure (or not an integer)."""
    if len(text) > MAX_NUMBER_CHARS:
        return None
    try:
        return int(text)
    except ValueError:
        return None


def is_figure(value: float | int) -> bool:
    """Finite and within MAX_FIGURE either side of 0."""
    return -MAX_FIGURE <= value <= MAX_FIGURE  # False for nan


def read_float(text: str | bytes) -> float | None:
    """`float(text)`, or None for a number too long to be a figure (or not a number)."""
    if len(text) > MAX_NUMBER_CHARS:
        return None
    try:
        return float(text)
    except ValueError:
        return None
