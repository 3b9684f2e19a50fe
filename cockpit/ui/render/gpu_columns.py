"""The GPU table's columns: which figures, how wide, which fit the pane, each cell's text.

Split from gpu.py: the layout decision (full or compact, which columns to drop when
narrow) is plain text arithmetic; gpu.py paints the rows with it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from cockpit.parse.gpu.sample import GpuSample

DASH = "–"
BUSY_UTIL_PCT = 10
"""Below this utilisation a lower PCIe generation is power saving, not a fault."""


def short_name(name: str | None) -> str:
    if not name:
        return DASH
    for prefix in ("NVIDIA ",):
        if name.startswith(prefix):
            name = name[len(prefix):]
    return name


def num(v: float | int | None, fmt: str = "{:.0f}") -> str | None:
    return None if v is None else fmt.format(v)


def pcie_downgraded(s: GpuSample) -> bool:
    """Narrower than the slot allows, or a lower generation while the GPU is busy."""
    if s.pcie_width is not None and s.pcie_width_max is not None and s.pcie_width < s.pcie_width_max:
        return True
    if s.pcie_gen is not None and s.pcie_gen_max is not None and s.pcie_gen < s.pcie_gen_max:
        return s.util_gpu_pct is None or s.util_gpu_pct >= BUSY_UTIL_PCT
    return False


def pcie_text(s: GpuSample, *, full: bool) -> str | None:
    if s.pcie_gen is None and s.pcie_width is None:
        return None
    now = f"{num(s.pcie_gen) or '?'}x{num(s.pcie_width) or '?'}"
    if not pcie_downgraded(s):
        return f"gen{now}" if full else now
    best = f"{num(s.pcie_gen_max) or '?'}x{num(s.pcie_width_max) or '?'}"
    return f"gen{now}<{best}" if full else f"{now}!"


def gpu_label(s: GpuSample, multi_host: bool) -> str:
    return f"{s.host}:{s.index}" if multi_host and s.host else str(s.index)


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    width: int
    cell: Callable[[GpuSample, bool], str | None]
    """(sample, full) -> text, None when the figure is missing."""
    right: bool = True


def _watts(s: GpuSample, full: bool) -> str | None:
    if s.power_w is None and s.power_limit_w is None:
        return None
    unit = " W" if full else "W"
    return f"{num(s.power_w) or DASH}/{num(s.power_limit_w) or DASH}{unit}"


def _mem(s: GpuSample, full: bool) -> str | None:
    if s.mem_used_mib is None and s.mem_total_mib is None:
        return None
    used = None if s.mem_used_mib is None else s.mem_used_mib / 1024
    total = None if s.mem_total_mib is None else s.mem_total_mib / 1024
    fmt = "{:.1f}" if full else "{:.0f}"
    return f"{num(used, fmt) or DASH}/{num(total, fmt) or DASH}" + (" GiB" if full else "G")


def _pct(s: GpuSample, full: bool) -> str | None:
    frac = s.power_fraction
    return None if frac is None else f"{frac * 100:.0f}%"


COLUMNS_COMPACT: tuple[Column, ...] = (
    Column("pct", "pwr", 4, _pct),
    Column("watts", "W", 9, _watts),
    Column("util", "util", 4, lambda s, f: num(s.util_gpu_pct, "{:.0f}%")),
    Column("mem", "mem", 7, _mem),
    Column("temp", "temp", 4, lambda s, f: num(s.temp_c, "{:.0f}°C")),
    Column("sm", "SM", 4, lambda s, f: num(s.sm_clock_mhz)),
    Column("pcie", "pcie", 5, lambda s, f: pcie_text(s, full=False)),
    Column("numa", "numa", 4, lambda s, f: num(s.numa_node)),
)
COLUMNS_FULL: tuple[Column, ...] = (
    Column("pct", "pwr", 4, _pct),
    Column("watts", "draw/limit", 11, _watts),
    Column("util", "util", 4, lambda s, f: num(s.util_gpu_pct, "{:.0f}%")),
    Column("mem", "memory", 15, _mem),
    Column("temp", "temp", 4, lambda s, f: num(s.temp_c, "{:.0f}°C")),
    Column("sm", "SM clock", 8, lambda s, f: num(s.sm_clock_mhz, "{:.0f} MHz")),
    Column("pcie", "pcie", 12, lambda s, f: pcie_text(s, full=True), right=False),
    Column("numa", "numa", 4, lambda s, f: num(s.numa_node)),
)
# Which compact columns go first when the pane is narrow (pct and watts always stay).
DROP_ORDER = ("numa", "sm", "temp", "pcie", "mem", "util")
MIN_SPARK = 6
NAME_WIDTH = 22


@dataclass(frozen=True)
class Layout:
    full: bool
    label_width: int
    bar_width: int
    columns: tuple[Column, ...]
    name_width: int
    spark_width: int


def plan_layout(width: int, samples: Sequence[GpuSample], *, full: bool, multi_host: bool) -> Layout:
    """The columns that fit `width`: everything in full mode, else drop the least useful."""
    label_width = max((len(gpu_label(s, multi_host)) for s in samples), default=1)
    if full:
        fixed = label_width + 1 + NAME_WIDTH + 1 + 16 + 1 + sum(c.width + 1 for c in COLUMNS_FULL)
        if fixed <= width:
            return Layout(True, label_width, 16, COLUMNS_FULL, NAME_WIDTH, max(0, width - label_width - 1))
    bar_width = 10 if width >= 70 else 6
    columns = list(COLUMNS_COMPACT)

    def used(cols: Iterable[Column]) -> int:
        return label_width + 1 + bar_width + 1 + sum(c.width + 1 for c in cols)

    for key in DROP_ORDER:
        if used(columns) + MIN_SPARK <= width:
            break
        columns = [c for c in columns if c.key != key]
    spark = width - used(columns)
    return Layout(False, label_width, bar_width, tuple(columns), 0, spark if spark >= MIN_SPARK else 0)
