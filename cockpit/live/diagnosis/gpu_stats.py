"""Per-GPU figures over a stretch of samples: what the GPU rules compare."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from statistics import fmean

from cockpit.parse.gpu.sample import GpuSample

BUSY_UTIL_PCT = 20.0  # a GPU under this utilisation is idle: its power says nothing about starving


@dataclass(frozen=True, slots=True)
class GpuStats:
    index: int
    host: str | None
    samples: int
    power_w: float | None
    power_limit_w: float | None
    power_share: float | None
    util_pct: float | None
    busy_samples: int
    """Samples at or over BUSY_UTIL_PCT: what the load-only rules (links, throttle) read."""
    temp_c: float | None
    sm_clock_mhz: float | None
    sm_clock_max_mhz: float | None
    throttle_share: dict[str, float]
    """reason -> share of the GPU's samples that carried it."""
    link_now: tuple[int, int] | None
    """The (gen, width) seen most, under load where there was load."""
    link_max: tuple[int, int] | None
    first: float | None
    last: float | None

    @property
    def busy(self) -> bool:
        return self.util_pct is not None and self.util_pct >= BUSY_UTIL_PCT


def _mean(values: Iterable[float | int | None]) -> float | None:
    got = [float(v) for v in values if v is not None]
    return fmean(got) if got else None


def _most(values: list[tuple[int, int]]) -> tuple[int, int] | None:
    if not values:
        return None
    return max(set(values), key=lambda v: (values.count(v), v))


_Stats = Callable[[Iterable[GpuSample]], list[GpuStats]]
_last: tuple[object, list[GpuStats]] | None = None


def _once_per_history(compute: _Stats) -> _Stats:
    """Three GPU rules read the stats of one input's samples: computed once for them (a live
    history holds thousands of samples, and the findings watch reads it every few seconds)."""
    def stats(samples: Iterable[GpuSample]) -> list[GpuStats]:
        global _last
        seen = _last
        if isinstance(samples, tuple) and seen is not None and seen[0] is samples:
            return list(seen[1])
        out = compute(samples)
        if isinstance(samples, tuple):
            _last = (samples, out)
        return list(out)
    return stats


@_once_per_history
def gpu_stats(samples: Iterable[GpuSample]) -> list[GpuStats]:
    by_gpu: dict[tuple[str | None, int], list[GpuSample]] = {}
    for s in samples:
        by_gpu.setdefault(s.key, []).append(s)
    out = []
    for (host, index), rows in sorted(by_gpu.items(), key=lambda kv: (kv[0][0] or "", kv[0][1])):
        busy_rows = [r for r in rows if r.util_gpu_pct is not None and r.util_gpu_pct >= BUSY_UTIL_PCT] or rows
        power, limit = _mean(r.power_w for r in busy_rows), _mean(r.power_limit_w for r in busy_rows)
        # counted, then divided once: 3 of 10 samples is 0.3 exactly (three additions of 1/10
        # make 0.30000000000000004, over a 30 % bound whether it is "at or over" or "over")
        flagged: dict[str, int] = {}
        for r in busy_rows:
            for reason in r.throttle_reasons:
                flagged[reason] = flagged.get(reason, 0) + 1
        reasons = {reason: n / len(busy_rows) for reason, n in flagged.items()}
        links = [(int(r.pcie_gen), int(r.pcie_width)) for r in busy_rows
                 if r.pcie_gen is not None and r.pcie_width is not None]
        maxes = [(int(r.pcie_gen_max), int(r.pcie_width_max)) for r in rows
                 if r.pcie_gen_max is not None and r.pcie_width_max is not None]
        times = [r.timestamp for r in rows if r.timestamp is not None]
        out.append(GpuStats(
            index=index, host=host, samples=len(rows), power_w=power, power_limit_w=limit,
            power_share=power / limit if power is not None and limit else None,
            util_pct=_mean(r.util_gpu_pct for r in busy_rows),
            busy_samples=sum(r.util_gpu_pct is not None and r.util_gpu_pct >= BUSY_UTIL_PCT for r in rows),
            temp_c=_mean(r.temp_c for r in busy_rows),
            sm_clock_mhz=_mean(r.sm_clock_mhz for r in busy_rows),
            sm_clock_max_mhz=_mean(r.sm_clock_max_mhz for r in rows),
            throttle_share=reasons, link_now=_most(links), link_max=_most(maxes),
            first=min(times) if times else None, last=max(times) if times else None))
    return out


def clock_text(t: float | None) -> str:
    return "?" if t is None else datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S")


def time_range(stats: Iterable[GpuStats]) -> tuple[str, str] | None:
    firsts = [s.first for s in stats if s.first is not None]
    lasts = [s.last for s in stats if s.last is not None]
    if not firsts or not lasts:
        return None
    return clock_text(min(firsts)), clock_text(max(lasts))


def gpu_list(indexes: Iterable[int]) -> str:
    """`0-7`, `0,2,5`: GPU indexes as a person writes them."""
    ids = sorted(set(indexes))
    if ids and ids == list(range(ids[0], ids[-1] + 1)) and len(ids) > 2:
        return f"{ids[0]}-{ids[-1]}"
    return ",".join(str(i) for i in ids)
