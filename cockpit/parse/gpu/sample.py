"""One GPU at one instant: the `GpuSample` every GPU source produces.

NVML (local) and `nvidia-smi --query-gpu` (remote, or a recorded stream) both end up
here, so the panes never care where a figure came from. A figure that could not be
read is `None`, and `notes[field]` says why (`"[N/A]"`, `"[Not Supported]"`,
`"NVMLError_NotSupported"`, ...), which is what the "why is this N/A" tooltip shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

Number = float | int

# Bits of nvmlClocksEventReasons (alias: clocks_throttle_reasons / clocks_event_reasons
# in nvidia-smi); the names are the `--query-gpu` suffixes, so both sources agree.
CLOCK_EVENT_REASONS: tuple[tuple[int, str], ...] = (
    (0x001, "gpu_idle"),
    (0x002, "applications_clocks_setting"),
    (0x004, "sw_power_cap"),
    (0x008, "hw_slowdown"),
    (0x010, "sync_boost"),
    (0x020, "sw_thermal_slowdown"),
    (0x040, "hw_thermal_slowdown"),
    (0x080, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
)


# What each figure can be on any GPU a driver reports, generously: a reading outside (1e308 W,
# a 4,400-digit index, inf from a broken exporter) is no reading. It becomes None with a note
# saying so, never a figure a mean, a share or a finding would carry as inf or nan.
MAX_GPU_INDEX = 65_535
FIGURE_RANGES: Mapping[str, tuple[float, float]] = MappingProxyType({
    "power_w": (0.0, 100_000.0), "power_limit_w": (0.0, 100_000.0),
    "util_gpu_pct": (0.0, 100.0), "util_mem_pct": (0.0, 100.0),
    "mem_used_mib": (0.0, 1e9), "mem_total_mib": (0.0, 1e9),
    "temp_c": (-273.0, 1_000.0),
    "sm_clock_mhz": (0.0, 100_000.0), "sm_clock_max_mhz": (0.0, 100_000.0),
    "pcie_gen": (0.0, 64.0), "pcie_gen_max": (0.0, 64.0), "pcie_width": (0.0, 64.0), "pcie_width_max": (0.0, 64.0),
    "pcie_rx_kbps": (0.0, 1e12), "pcie_tx_kbps": (0.0, 1e12),
    "numa_node": (-1.0, 65_535.0),
    "energy_mj": (0.0, 1e18), "pcie_replays": (0.0, 1e15),
    "timestamp": (0.0, 1e11),  # seconds since the epoch: to the year 5138
})


def figure_problem(attr: str, value: object) -> str | None:
    """Why `value` is no reading of `attr` (None: it is one, or `attr` is not a figure)."""
    bounds = FIGURE_RANGES.get(attr)
    if bounds is None or value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return None
    low, high = bounds
    if low <= value <= high:  # False for nan
        return None
    shown = f"{value:.4g}" if isinstance(value, float) else (str(value) if abs(value) < 10**12 else "a huge number")
    return f"out of range: {shown} is not a reading ({low:g} to {high:g})"


def index_problem(index: object) -> str | None:
    """Why `index` cannot be a GPU's index (None: it can)."""
    if isinstance(index, int) and not isinstance(index, bool) and 0 <= index <= MAX_GPU_INDEX:
        return None
    shown = str(index) if not isinstance(index, int) or abs(index) < 10**12 else "of over 12 digits"
    return f"GPU index {shown} is not an index (0 to {MAX_GPU_INDEX})"


def decode_clock_event_reasons(mask: int) -> tuple[str, ...]:
    """Names of the set bits of a clocks-event (throttle) bitmask, known bits only."""
    return tuple(name for bit, name in CLOCK_EVENT_REASONS if mask & bit)


NOTE_DETAIL = " · "
"""Between a note's reason and its detail (`not in dcgm-exporter's counters · DCGM_FI_DEV_GPU_UTIL`):
the GPU pane says one reason once for every figure it holds, the details listed."""
NOT_EXPORTED = "not in dcgm-exporter's counters"


@dataclass(frozen=True, slots=True)
class GpuSample:
    """A frozen snapshot of one GPU; units are in the field names."""

    index: int
    name: str | None = None
    uuid: str | None = None
    power_w: Number | None = None
    power_window_s: float | None = None
    """`power_w` is the mean over this many seconds before `timestamp` (1.0: NVML's reading and
    nvidia-smi's `power.draw.average` on Ampere and later but GA100); 0.0: an instantaneous
    reading; None: not known. The energy integral places the draw at the window's middle."""
    power_limit_w: Number | None = None
    """The enforced cap (minimum of all limiters): the denominator of the power bar."""
    util_gpu_pct: Number | None = None
    util_mem_pct: Number | None = None
    """Memory-controller busy time, not capacity used."""
    mem_used_mib: Number | None = None
    mem_total_mib: Number | None = None
    temp_c: Number | None = None
    sm_clock_mhz: Number | None = None
    sm_clock_max_mhz: Number | None = None
    pcie_gen: Number | None = None
    pcie_gen_max: Number | None = None
    pcie_width: Number | None = None
    pcie_width_max: Number | None = None
    pcie_rx_kbps: Number | None = None
    pcie_tx_kbps: Number | None = None
    numa_node: Number | None = None
    """Nearest CPU NUMA node (first of the GPU's NUMA affinity)."""
    cpu_affinity: str | None = None
    """Linux cpulist of the CPUs nearest the GPU, e.g. ``"0-47,96-143"``."""
    energy_mj: Number | None = None
    """Energy since driver load, millijoules (Volta+)."""
    pcie_replays: Number | None = None
    """PCIe replay counter (link retries after errors; DCGM_FI_DEV_PCIE_REPLAY_COUNTER)."""
    throttle_reasons: tuple[str, ...] = ()
    timestamp: float | None = None
    """Seconds since the epoch when the figures were taken."""
    host: str | None = None
    """The host the GPU lives on; None for the local machine."""
    notes: Mapping[str, str] = field(default_factory=dict, hash=False)
    """field name -> why that field is None (the raw text or the NVML error name); a reason
    with a detail is `reason` NOTE_DETAIL `detail`."""

    def __post_init__(self) -> None:
        notes = self.notes
        for attr in _FIGURES:
            why = figure_problem(attr, getattr(self, attr))
            if why is not None:  # every source passes here: NVML, nvidia-smi, dcgm-exporter, a recording
                object.__setattr__(self, attr, None)
                notes = {**notes, attr: why}
        if not isinstance(notes, MappingProxyType):
            object.__setattr__(self, "notes", MappingProxyType(dict(notes)))
        if not isinstance(self.throttle_reasons, tuple):
            object.__setattr__(self, "throttle_reasons", tuple(self.throttle_reasons))

    @property
    def key(self) -> tuple[str | None, int]:
        """Identity of the GPU across ticks: (host, index)."""
        return (self.host, self.index)

    @property
    def power_fraction(self) -> float | None:
        """Draw as a fraction of the enforced limit, or None when either is unknown."""
        if self.power_w is None or not self.power_limit_w:
            return None
        return float(self.power_w) / float(self.power_limit_w)

    @property
    def mem_fraction(self) -> float | None:
        if self.mem_used_mib is None or not self.mem_total_mib:
            return None
        return float(self.mem_used_mib) / float(self.mem_total_mib)

    def to_json(self) -> dict[str, object]:
        """A plain dict (JSON-ready): every field, tuples as lists, notes as a dict."""
        out: dict[str, object] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "throttle_reasons":
                value = list(value)
            elif f.name == "notes":
                value = dict(value)
            out[f.name] = value
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GpuSample:
        """Inverse of `to_json`; unknown keys are ignored (recordings outlive versions)."""
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs["throttle_reasons"] = tuple(kwargs.get("throttle_reasons") or ())
        kwargs["notes"] = dict(kwargs.get("notes") or {})
        return cls(**kwargs)


_FIGURES = tuple(f.name for f in fields(GpuSample) if f.name in FIGURE_RANGES)
