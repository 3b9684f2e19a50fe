"""Compact unicode-block sparklines on a shared time axis (pure functions, no widgets).

A sparkline here is one string of `▁▂▃▄▅▆▇█` (a blank where a column has no data), one
column per point while the points fit, else one column per time bucket over the span
shown. Several series resampled with the same `t_end`/`window_s`/`width` share a time
axis, which is how total power and tokens per joule line up.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

BLOCKS = "▁▂▃▄▅▆▇█"
Point = tuple[float, float]


def resample(series: Sequence[Point], width: int, *, window_s: float, t_end: float | None = None) -> list[float | None]:
    """The last `window_s` of `series` as at most `width` values, oldest first.

    Points that fit are kept as they are (one column each); more points are averaged
    into `width` equal time buckets over the span they cover, None for an empty bucket."""
    if width <= 0 or not series:
        return []
    end = series[-1][0] if t_end is None else t_end
    start = end - window_s
    pts = [(t, v) for t, v in series if start < t <= end]
    if len(pts) <= width:
        return [v for _, v in pts]
    t0 = pts[0][0]
    span = max(end - t0, 1e-9)
    sums = [0.0] * width
    counts = [0] * width
    for t, v in pts:
        i = min(width - 1, int((t - t0) / span * width))
        sums[i] += v
        counts[i] += 1
    return [s / c if c else None for s, c in zip(sums, counts)]


def sparkline(values: Sequence[float | None], width: int, *, min_span: float = 0.0) -> str:
    """`values` as blocks, right-aligned in `width` columns (blank-padded on the left).

    The scale runs from the lowest to the highest value shown, widened to at least
    `min_span` around their middle (never below 0), so small wobbles stay small."""
    if width <= 0:
        return ""
    vals = list(values)[-width:]
    known = [v for v in vals if v is not None]
    if not known:
        return " " * width
    lo, hi = min(known), max(known)
    if hi - lo < min_span:
        mid = (hi + lo) / 2
        lo = max(0.0, mid - min_span / 2)
        hi = lo + min_span
    span = hi - lo
    out = []
    for v in vals:
        if v is None:
            out.append(" ")
            continue
        frac = 0.5 if span <= 0 else min(1.0, max(0.0, (v - lo) / span))
        out.append(BLOCKS[min(len(BLOCKS) - 1, int(frac * len(BLOCKS)))])
    return "".join(out).rjust(width)


def span_of(values: Sequence[float | None]) -> tuple[float, float] | None:
    """(lowest, highest) of the known values."""
    known = [v for v in values if v is not None]
    return (min(known), max(known)) if known else None


def interpolate(series: Sequence[Point], t: float) -> float | None:
    """The value of a piecewise-linear series at `t`; None outside its span."""
    if not series or t < series[0][0] or t > series[-1][0]:
        return None
    times = [p[0] for p in series]
    i = bisect.bisect_left(times, t)
    if series[i][0] == t:
        return series[i][1]
    (t0, v0), (t1, v1) = series[i - 1], series[i]
    return v0 + (v1 - v0) * (t - t0) / (t1 - t0)


def ratio_series(numerator: Sequence[Point], denominator: Sequence[Point]) -> list[Point]:
    """numerator/denominator at each time of `denominator` that `numerator` covers
    (tokens per second over watts = tokens per joule, on the power series' time axis)."""
    num = sorted(numerator)
    out: list[Point] = []
    for t, d in denominator:
        n = interpolate(num, t)
        if n is not None and d > 0:
            out.append((t, n / d))
    return out


def bar(fraction: float | None, width: int) -> tuple[str, str]:
    """A horizontal bar in eighths: (filled part, empty part), together `width` long."""
    if width <= 0:
        return "", ""
    if fraction is None:
        return "", " " * width
    eighths = round(min(1.0, max(0.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    filled = "█" * full + ("▏▎▍▌▋▊▉"[part - 1] if part else "")
    return filled, "░" * (width - len(filled))
