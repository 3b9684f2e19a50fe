"""Per-GPU power over time: bounded history, the "330 W of 600 W" total, a headroom
class per GPU, and tokens per joule from a throughput series on the same time axis."""

from __future__ import annotations

import bisect
import time
from collections import deque
from collections.abc import Iterable, Sequence
from enum import Enum

from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.parse.gpu.sample import GpuSample

GpuKey = tuple[str | None, int]
"""(host, index); host None is the local machine."""
Point = tuple[float, float]
"""(seconds since the epoch, value)."""

STARVED_BELOW = 0.60
NEAR_LIMIT_ABOVE = 0.90


class Headroom(str, Enum):  # noqa: UP042 - StrEnum would change str() of a member
    """How close a GPU runs to its enforced power limit."""

    STARVED = "starved"
    """Below 60 % of the limit: the GPU waits on something (batch too small, CPU, PCIe)."""
    OK = "ok"
    NEAR_LIMIT = "near-limit"
    """Above 90 %: clocks will be capped by power."""
    UNKNOWN = "unknown"


def headroom_of(power_w: float | None, limit_w: float | None) -> Headroom:
    if power_w is None or not limit_w:
        return Headroom.UNKNOWN
    frac = power_w / limit_w
    if frac < STARVED_BELOW:
        return Headroom.STARVED
    if frac > NEAR_LIMIT_ABOVE:
        return Headroom.NEAR_LIMIT
    return Headroom.OK


ALL_HOSTS: object = object()
"""Sentinel for "every host" in the totals (None already means the local machine)."""


class PowerHistory:
    """Folds GPU ticks into bounded per-GPU and total power series."""

    def __init__(self, maxlen: int = 3600) -> None:
        self.maxlen = maxlen
        self._series: dict[GpuKey, deque[Point]] = {}
        self._latest: dict[GpuKey, GpuSample] = {}
        self._total: deque[Point] = deque(maxlen=maxlen)

    # folding events
    def add_event(self, event: GpuSamplesTaken) -> None:
        self.add(event.samples, t=event.taken_at)

    def add(self, samples: Iterable[GpuSample], t: float | None = None) -> None:
        """One tick of samples (one host, or several). `t` defaults to the samples' time."""
        batch = list(samples)
        if not batch:
            return
        if t is None:
            stamps = [s.timestamp for s in batch if s.timestamp is not None]
            t = max(stamps) if stamps else time.time()
        for s in batch:
            self._latest[s.key] = s
            if s.power_w is not None:
                series = self._series.get(s.key)
                if series is None:
                    series = self._series[s.key] = deque(maxlen=self.maxlen)
                series.append((t, float(s.power_w)))
        total = self.total_draw_w()
        if total is not None:
            self._total.append((t, total))

    def forget(self, host: str | None) -> None:
        """Drop a host's GPUs (it was removed, or is down and should not count)."""
        for key in [k for k in self._latest if k[0] == host]:
            self._latest.pop(key, None)
            self._series.pop(key, None)

    # reading
    @property
    def gpus(self) -> list[GpuKey]:
        return sorted(self._latest, key=lambda k: (k[0] or "", k[1]))

    def latest(self, key: GpuKey) -> GpuSample | None:
        return self._latest.get(key)

    def series(self, key: GpuKey) -> list[Point]:
        return list(self._series.get(key, ()))

    def total_series(self) -> list[Point]:
        """Total draw of all known GPUs after each tick."""
        return list(self._total)

    def _pick(self, host: str | None | object) -> list[GpuSample]:
        return [s for k, s in self._latest.items() if host is ALL_HOSTS or k[0] == host]

    def total_draw_w(self, host: str | None | object = ALL_HOSTS) -> float | None:
        """Sum of the latest draw of every GPU (of `host` if given); None if none known."""
        values = [float(s.power_w) for s in self._pick(host) if s.power_w is not None]
        return sum(values) if values else None

    def total_limit_w(self, host: str | None | object = ALL_HOSTS) -> float | None:
        values = [float(s.power_limit_w) for s in self._pick(host) if s.power_limit_w is not None]
        return sum(values) if values else None

    def headline(self, host: str | None | object = ALL_HOSTS) -> str:
        """`"330 W of 600 W"` (kW from 10 kW up); `?` for a figure not known yet."""
        draw, limit = self.total_draw_w(host), self.total_limit_w(host)
        big = max(draw or 0.0, limit or 0.0) >= 10_000
        unit = "kW" if big else "W"

        def fmt(v: float | None) -> str:
            return "?" if v is None else f"{v / 1000:.1f}" if big else f"{v:.0f}"

        return f"{fmt(draw)} {unit} of {fmt(limit)} {unit}"

    def headroom(self, key: GpuKey) -> Headroom:
        s = self._latest.get(key)
        return Headroom.UNKNOWN if s is None else headroom_of(
            None if s.power_w is None else float(s.power_w),
            None if s.power_limit_w is None else float(s.power_limit_w),
        )

    def headrooms(self) -> dict[GpuKey, Headroom]:
        return {k: self.headroom(k) for k in self.gpus}

    def mean_power_w(self, key: GpuKey, window_s: float) -> float | None:
        series = self._series.get(key)
        if not series:
            return None
        since = series[-1][0] - window_s
        values = [w for t, w in series if t >= since]
        return sum(values) / len(values) if values else None

    def tokens_per_joule(self, throughput: Sequence[Point]) -> float | None:
        """Tokens per joule of all GPUs over the span both series cover."""
        return tokens_per_joule(throughput, self.total_series())


def _interp(series: Sequence[Point], t: float) -> float:
    times = [p[0] for p in series]
    i = bisect.bisect_left(times, t)
    if i < len(series) and series[i][0] == t:
        return series[i][1]
    if i == 0:
        return series[0][1]
    if i >= len(series):
        return series[-1][1]
    (t0, v0), (t1, v1) = series[i - 1], series[i]
    return v0 + (v1 - v0) * (t - t0) / (t1 - t0)


def _integral(series: Sequence[Point], a: float, b: float, cuts: Sequence[float]) -> float:
    pts = [(t, _interp(series, t)) for t in cuts]
    return sum((t1 - t0) * (v0 + v1) / 2 for (t0, v0), (t1, v1) in zip(pts, pts[1:]))


def tok_per_joule(tokens: float | None, joules: float | None) -> float | None:
    """The one tok/J of cockpit: tokens over the energy the host's GPUs drew meanwhile
    (their summed draw). The GPU pane passes ∫ tokens/s dt (the server log's generated
    tokens) and ∫ W dt over the span both series cover, and says so beside the figure; a
    sweep point its client's tokens/s and the time-weighted mean draw (∫ W dt over the
    seconds sampled, model/bench/energy_audit.py) over its measured run, the same ratio per
    second, and its steady window's tokens over that window's joules. None when either is
    unknown or no energy was drawn."""
    if tokens is None or joules is None or joules <= 0:
        return None
    return tokens / joules


def tokens_per_joule(throughput: Sequence[Point], power: Sequence[Point]) -> float | None:
    """Generated tokens per joule: ∫ tokens/s dt over ∫ W dt, both piecewise linear, on
    the time span both series cover. None when they do not overlap or no power drawn."""
    th = sorted(throughput)
    pw = sorted(power)
    if len(th) < 2 or len(pw) < 2:
        return None
    a, b = max(th[0][0], pw[0][0]), min(th[-1][0], pw[-1][0])
    if b <= a:
        return None
    cuts = sorted({a, b, *(t for t, _ in th if a < t < b), *(t for t, _ in pw if a < t < b)})
    joules = _integral(pw, a, b, cuts)
    if joules <= 0:
        return None
    return tok_per_joule(_integral(th, a, b, cuts), joules)
