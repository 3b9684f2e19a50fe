"""One formatter for figures shown to a person: a number at sensible precision, with its
unit, and where it has one its statistic and window (issue 39: `4445.01 74% (b4)`, three
decimals and no unit). Plain Python: the TUI, the handoff and the CLI word figures alike.

    number(4445.01)                        -> "4,445"
    number(48.25)                          -> "48.25"      (below 100: at most two decimals)
    number(0.00298)                        -> "0.00298"    (below 1: three significant digits)
    figure(4445.01, "tok/s")               -> "4,445 tok/s"
    figure(812.4, "W", stat="mean", window="main run") -> "812 W mean over main run"
    share(0.7412)                          -> "74%"
    compact(12_345)                        -> "12k"        (a narrow cell: the log strip)
"""

from __future__ import annotations

import math

DASH = "—"
"""What an absent figure shows."""


def number(value: float | int | None, decimals: int = 2) -> str:
    """`value` at sensible precision: whole numbers and 100 or more without decimals and
    with thousands separators, from 1 to 100 at most `decimals` (two) decimals, below 1 three
    significant digits (a tok/J of 0.00298 must not read 0); trailing zeros off."""
    if value is None:
        return DASH
    v = float(value)
    if v.is_integer() or abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) < 1:
        digits = 2 - math.floor(math.log10(abs(v)))  # three significant digits, never an exponent
        return _trimmed(f"{v:.{digits}f}")
    return _trimmed(f"{v:,.{decimals}f}")


def three_figures(value: float | int | None) -> str:
    """Three significant figures, trailing zeros kept (a tok/J column: `11.0` beside `10.8`,
    never `11` beside `11.27`)."""
    if value is None:
        return DASH
    v = float(value)
    if v == 0 or not math.isfinite(v):
        return f"{v:g}"
    return f"{v:,.{max(0, 2 - math.floor(math.log10(abs(v))))}f}"


def _trimmed(text: str) -> str:
    """Trailing zeros after the point off (`48.50` -> `48.5`, `7.00` -> `7`)."""
    return text.rstrip("0").rstrip(".") if "." in text else text


def compact(value: float | int | None, like: float | None = None) -> str:
    """`value` in at most four characters past its sign, for a narrow cell: below 1000 as
    `number` gives it, from 1000 in k (`1.2k`, `12k`), from a million in M. `like` picks the
    scale instead (a peak beside its current value: `0.8k ↑1.2k`, one scale for both)."""
    if value is None:
        return DASH
    top = abs(float(like if like is not None else value))
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if top >= scale:
            digits = 0 if top >= 9.95 * scale else 1
            text = f"{value / scale:.{digits}f}"
            if value and float(text) == 0:  # 12 beside a 4.4k peak: its own scale, never "0.0k"
                return compact(value)
            return text + suffix
    return number(value, decimals=1)


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
