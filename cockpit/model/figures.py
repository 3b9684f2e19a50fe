"""One formatter for figures shown to a person: a number at sensible precision, with its
unit, and where it has one its statistic and window (issue 39: `4445.01 74% (b4)`, three
decimals and no unit). Plain Python: the TUI, the handoff and the CLI word figures alike.

    number(4445.01)                        -> "4,445"
    number(48.25)                          -> "48.25"      (below 100: at most two decimals)
    number(0.00298)                        -> "0.00298"    (below 1: three significant digits)
    figure(4445.01, "tok/s")               -> "4,445 tok/s"
    figure(812.4, "W", stat="mean", window="main run") -> "812 W mean over main run"
    share(0.7412)                          -> "74%"
"""

from __future__ import annotations

import math

DASH = "—"
"""What an absent figure shows."""


def number(value: float | int | None) -> str:
    """`value` at sensible precision: whole numbers and 100 or more without decimals and
    with thousands separators, from 1 to 100 at most two decimals, below 1 three significant
    digits (a tok/J of 0.00298 must not read 0); trailing zeros off."""
    if value is None:
        return DASH
    v = float(value)
    if v.is_integer() or abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) < 1:
        digits = 2 - math.floor(math.log10(abs(v)))  # three significant digits, never an exponent
        return f"{v:.{digits}f}".rstrip("0").rstrip(".")
    return f"{v:,.2f}".rstrip("0").rstrip(".")


def share(fraction: float | None) -> str:
    """A fraction (0.74) as a whole percentage ("74%")."""
    return DASH if fraction is None else f"{fraction * 100:.0f}%"


def figure(value: float | int | None, unit: str, *, stat: str | None = None, window: str | None = None) -> str:
    """`value` with its unit, then its statistic and window when it has them."""
    if value is None:
        return DASH
    text = f"{number(value)} {unit}".rstrip()
    if stat:
        text += f" {stat}"
    if window:
        text += f" over {window}"
    return text
