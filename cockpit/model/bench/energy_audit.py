"""Energy over a window, audited: power integrated over time, the GPUs' own energy counter
over the same span, how well the samples cover the window, and the steady-state window.

Plain arithmetic (no I/O): a sweep point (live/experiment/sweep_watch.py) and the H200
benchmark (benchmarks/bench_energy.py) feed it samples and read the same figures.

* Power is integrated with the trapezoid rule on the samples' own timestamps, never
  averaged over samples: a source that skipped a tick or slowed down would otherwise weigh
  some seconds more than others. The mean is joules over the seconds the samples span.
* The energy counter (NVML `nvmlDeviceGetTotalEnergyConsumption`, DCGM
  `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION`: millijoules since the driver loaded) is read as
  a difference between two readings; the integral is compared with it over exactly the
  span between those two readings, so both count the same seconds.
* Coverage: the share of the window that lies between two consecutive samples no further
  apart than `GAP_FACTOR` times the median interval. A window whose coverage is below
  `MIN_COVERAGE`, or whose integral and counter disagree by more than `MAX_DISAGREEMENT`,
  is flagged; each flag says why.
* Steady state, two ways (the record says which): ML.ENERGY's, from the client's
  per-request timings (from the B-th to the (N-B)-th request's first token, the
  requests ordered by first token); or, without those, from the server's running count
  (from the first to the last moment it ran its full batch).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

__all__ = [
    "FROM_REQUESTS", "FROM_RUNNING", "GAP_FACTOR", "MAX_DISAGREEMENT", "MIN_COVERAGE", "PowerSample",
    "RequestTimes", "WindowEnergy", "audit_window", "counter_span", "integrate", "median_interval",
    "replay_closed_loop", "steady_from_first_tokens", "steady_from_running", "tokens_between",
]

GAP_FACTOR = 1.5
"""Two samples further apart than this many median intervals leave a hole between them."""
MIN_COVERAGE = 0.9
"""Below this share of the window covered by samples, the window's figures are flagged."""
MAX_DISAGREEMENT = 0.02
"""Integral vs energy counter: more than 2 % apart and the window is flagged."""

FROM_REQUESTS = "client per-request first tokens"
FROM_RUNNING = "server running count"


@dataclass(frozen=True, slots=True)
class PowerSample:
    """One tick: seconds (any clock, the same for every sample), the summed draw of the
    GPUs in W, and their summed energy counter in J (None: a GPU gave none)."""

    t: float
    watts: float
    energy_j: float | None = None
    watts_at: float | None = None
    """When the draw applies, where it is not `t`: a reading averaged over the second before
    `t` (NVML's `nvmlDeviceGetPowerUsage` on Ampere and later but GA100) describes its
    middle, `t - 0.5`. Integrated at `t` it trails the energy counter through every change
    (a 6 s ramp read 9.5 % low on an H100); placed at its middle it agreed within 1 % on 34
    of 35 windows (benchmarks/bench_energy.py). None: `t`."""

    @property
    def power_t(self) -> float:
        return self.t if self.watts_at is None else self.watts_at


@dataclass(frozen=True, slots=True)
class WindowEnergy:
    """The energy figures of one window [start, end] (seconds, the samples' clock)."""

    start: float
    end: float
    source: str
    samples: int = 0
    """Samples inside the window."""
    interval_s: float | None = None
    """Median time between consecutive samples."""
    span_s: float = 0.0
    """The seconds of the window that the samples span (first to last, clipped)."""
    covered_s: float = 0.0
    """The seconds of the window between samples no more than GAP_FACTOR intervals apart."""
    joules: float | None = None
    """∫ W dt (trapezoid) over the spanned seconds."""
    counter_j: float | None = None
    """The energy counter's difference between its first and last reading in the window."""
    counter_span_s: float | None = None
    integral_over_counter_span_j: float | None = None
    """∫ W dt over exactly the counter's span: what `counter_j` is compared with."""
    flags: tuple[str, ...] = field(default=())

    @property
    def duration_s(self) -> float:
        return max(0.0, self.end - self.start)

    @property
    def coverage(self) -> float:
        return self.covered_s / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def mean_w(self) -> float | None:
        """Joules over the seconds they span (a time-weighted mean)."""
        return self.joules / self.span_s if self.joules is not None and self.span_s > 0 else None

    @property
    def window_j(self) -> float | None:
        """The energy of the whole window: the mean over the spanned seconds times its length."""
        mean = self.mean_w
        return None if mean is None else mean * self.duration_s

    @property
    def disagreement(self) -> float | None:
        """(integral − counter) / counter over the counter's span; None without a counter."""
        if self.counter_j is None or self.integral_over_counter_span_j is None or self.counter_j <= 0:
            return None
        return (self.integral_over_counter_span_j - self.counter_j) / self.counter_j

    @property
    def valid(self) -> bool:
        return not self.flags

    def tok_per_joule(self, tokens: float | None) -> float | None:
        """Tokens counted over the whole window, over the window's energy."""
        energy = self.window_j
        return None if tokens is None or energy is None or energy <= 0 else tokens / energy

    def check_text(self) -> str:
        """`nvml, 1.00 s interval, 98 % covered, counter 1234.5 J, integral −0.4 %` (+ flags)."""
        parts = [self.source]
        if self.interval_s is not None:
            parts.append(f"{self.interval_s:.2f} s interval")
        parts.append(f"{_whole_percent_down(self.coverage)}% covered")
        if (off := self.disagreement) is not None:
            parts.append(f"integral {off:+.1%} vs energy counter")
        else:
            parts.append("no energy counter")
        text = ", ".join(parts)
        return f"{text}; flagged: {'; '.join(self.flags)}" if self.flags else text


def _whole_percent_down(share: float) -> int:
    """A share in whole percent, rounded down: 89.6 % covered reads 89 %, never the 90 % that
    would sit beside a "< 90 %" flag (the epsilon keeps 0.29 at 29, not 28.999...)."""
    return math.floor(share * 100 + 1e-9)


def _sorted(samples: Sequence[PowerSample]) -> list[PowerSample]:
    return sorted(samples, key=lambda s: s.t)


def _by_power_t(samples: Sequence[PowerSample]) -> list[PowerSample]:
    return sorted(samples, key=lambda s: s.power_t)


def median_interval(samples: Sequence[PowerSample]) -> float | None:
    times = [s.t for s in _sorted(samples)]
    gaps = sorted(b - a for a, b in zip(times, times[1:]) if b > a)
    return gaps[len(gaps) // 2] if gaps else None


def _value_at(a: PowerSample, b: PowerSample, t: float) -> float:
    if b.power_t == a.power_t:
        return a.watts
    return a.watts + (b.watts - a.watts) * (t - a.power_t) / (b.power_t - a.power_t)


def integrate(samples: Sequence[PowerSample], start: float, end: float, *,
              max_gap_s: float | None = None) -> tuple[float | None, float, float]:
    """(∫ W dt, spanned s, covered s) over [start, end]: the trapezoid rule on the samples'
    own times, the power linear between two samples and cut at the window's edges (a
    sample before and one after the window count for the part of their segment inside).
    Nothing is extrapolated beyond the first and last sample. `max_gap_s`: a segment
    longer than this is integrated but not counted as covered. A draw stands at the time
    it applies (`PowerSample.power_t`)."""
    pts = _by_power_t(samples)
    joules = spanned = covered = 0.0
    any_segment = False
    for a, b in zip(pts, pts[1:]):
        lo, hi = max(a.power_t, start), min(b.power_t, end)
        if hi <= lo:
            continue
        any_segment = True
        joules += (hi - lo) * (_value_at(a, b, lo) + _value_at(a, b, hi)) / 2
        spanned += hi - lo
        if max_gap_s is None or b.power_t - a.power_t <= max_gap_s:
            covered += hi - lo
    return (joules if any_segment else None), spanned, covered


def counter_span(samples: Sequence[PowerSample], start: float, end: float) -> tuple[float, float, float] | None:
    """(joules, first reading's t, last reading's t) of the energy counter inside [start, end];
    None with fewer than two readings, or when the counter went back (a driver reload)."""
    readings = [s for s in _sorted(samples) if s.energy_j is not None and start <= s.t <= end]
    if len(readings) < 2 or readings[-1].t <= readings[0].t:
        return None
    if any(b.energy_j < a.energy_j for a, b in zip(readings, readings[1:])):  # type: ignore[operator]
        return None
    first, last = readings[0], readings[-1]
    return float(last.energy_j) - float(first.energy_j), first.t, last.t  # type: ignore[arg-type]


def audit_window(samples: Sequence[PowerSample], start: float, end: float, *, source: str,
                 min_coverage: float = MIN_COVERAGE, max_disagreement: float = MAX_DISAGREEMENT) -> WindowEnergy:
    """Every figure of one window, flagged where the samples cannot carry it."""
    pts = _sorted(samples)
    interval = median_interval(pts)
    gap = None if interval is None else GAP_FACTOR * interval
    joules, spanned, covered = integrate(pts, start, end, max_gap_s=gap)
    inside = sum(1 for s in pts if start <= s.t <= end)
    counter_j = counter_t0 = counter_t1 = None
    integral_on_counter = None
    flags: list[str] = []
    if any(s.energy_j is not None for s in pts if start <= s.t <= end):
        span = counter_span(pts, start, end)
        if span is None:
            flags.append("energy counter unusable (fewer than two readings, or it went back)")
        else:
            counter_j, counter_t0, counter_t1 = span
            integral_on_counter, _, _ = integrate(pts, counter_t0, counter_t1)
    result = WindowEnergy(start=start, end=end, source=source, samples=inside, interval_s=interval,
                          span_s=spanned, covered_s=covered, joules=joules, counter_j=counter_j,
                          counter_span_s=None if counter_t0 is None or counter_t1 is None else counter_t1 - counter_t0,
                          integral_over_counter_span_j=integral_on_counter)
    if end <= start:
        flags.append("empty window")
    elif joules is None:
        flags.append("no two samples in the window")
    elif result.coverage < min_coverage:
        flags.append(f"samples cover {_whole_percent_down(result.coverage)}% of the window (< {min_coverage:.0%})")
    if counter_j is not None and counter_j <= 0 and (integral_on_counter or 0) > 0:
        flags.append("energy counter did not move while power was drawn")
    if (off := result.disagreement) is not None and abs(off) > max_disagreement:
        flags.append(f"integral and energy counter differ by {off:+.1%} (> {max_disagreement:.0%})")
    return replace(result, flags=tuple(flags))


# -- the steady-state window ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RequestTimes:
    """One request of a client run, seconds from the run's start."""

    start: float
    first_token: float
    end: float
    token_times: tuple[float, ...]
    """When each streamed chunk arrived (the first token's chunk first)."""
    tokens_per_chunk: float = 1.0


def replay_closed_loop(ttfts: Sequence[float], itls: Sequence[Sequence[float]], concurrency: int, *,
                       output_lens: Sequence[int] | None = None) -> list[RequestTimes]:
    """When each request of a closed-loop run (every request sent at once behind a
    semaphore of `concurrency`, as `bench_serving --request-rate inf --max-concurrency C`
    does) started and streamed, from its own TTFT and inter-token gaps (seconds): the
    first C start at 0, each later one when the earliest running one ends. The client
    writes these lists in request order (`--output-details`: `ttfts`, `itls`,
    `output_lens`); it writes no start times, so they are replayed."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    slots: list[float] = [0.0] * concurrency
    heapq.heapify(slots)
    out: list[RequestTimes] = []
    for i, ttft in enumerate(ttfts):
        start = heapq.heappop(slots)
        gaps = list(itls[i]) if i < len(itls) else []
        times = [start + ttft]
        for gap in gaps:
            times.append(times[-1] + gap)
        chunks = len(times)
        per_chunk = (output_lens[i] / chunks) if output_lens is not None and i < len(output_lens) and chunks else 1.0
        out.append(RequestTimes(start, start + ttft, times[-1], tuple(times), per_chunk))
        heapq.heappush(slots, times[-1])
    return out


def steady_from_first_tokens(first_tokens: Sequence[float], skip: int) -> tuple[float, float] | None:
    """ML.ENERGY's steady state: from the `skip`-th to the (N − `skip`)-th first token
    (1-based, in time order); None when that leaves no span."""
    times = sorted(first_tokens)
    n, b = len(times), max(1, skip)
    if n <= 2 * b:
        return None
    lo, hi = times[b - 1], times[n - b - 1]
    return (lo, hi) if hi > lo else None


def tokens_between(requests: Sequence[RequestTimes], start: float, end: float) -> float:
    """Output tokens that arrived within [start, end]."""
    return sum(r.tokens_per_chunk * sum(1 for t in r.token_times if start <= t <= end) for r in requests)


def steady_from_running(points: Sequence[tuple[float, int]], level: int | None = None) -> tuple[float, float] | None:
    """From the first to the last moment the server ran `level` requests or more (default:
    the most it ran): its batch full, the ramp-up and the drain left out. `points`:
    (time, running requests) as its log said them. None when that leaves no span."""
    if not points:
        return None
    top = max(r for _, r in points)
    want = top if level is None else min(level, top)
    if want <= 0:
        return None
    times = sorted(t for t, r in points if r >= want)
    if len(times) < 2 or times[-1] <= times[0]:
        return None
    return times[0], times[-1]
