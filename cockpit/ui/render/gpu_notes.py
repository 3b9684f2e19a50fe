"""The GPU pane's footnotes and tooltip: why a figure is missing, which PCIe link is slow."""

from __future__ import annotations

from collections.abc import Sequence

from cockpit.parse.gpu.sample import NOTE_DETAIL, GpuSample
from cockpit.ui.render.gpu_columns import DASH, gpu_label, num, pcie_downgraded

# field -> the word a footnote uses; fields sharing a word share a footnote
FIELD_WORDS: dict[str, str] = {
    "power_w": "power",
    "power_limit_w": "power limit",
    "util_gpu_pct": "util",
    "mem_used_mib": "memory",
    "mem_total_mib": "memory",
    "temp_c": "temp",
    "sm_clock_mhz": "SM clock",
    "pcie_gen": "pcie",
    "pcie_width": "pcie",
    "pcie_gen_max": "pcie max",
    "pcie_width_max": "pcie max",
    "numa_node": "numa",
}



def _gpu_list(labels: Sequence[str], total: int) -> str:
    if len(labels) == total and total > 1:
        return f"all {total} GPUs" if total > 2 else "both GPUs"
    if len(labels) == 1:
        return f"GPU {labels[0]}"
    return f"GPUs {','.join(labels)}"


def missing_reasons(samples: Sequence[GpuSample], *, multi_host: bool = False) -> list[str]:
    """One line per (figure, reason): `numa: [N/A] on all 8 GPUs`, `power limit: [N/A] on GPU 3`,
    plus a line per downgraded PCIe link."""
    groups: dict[tuple[str, str], list[str]] = {}
    for s in samples:
        seen: set[tuple[str, str]] = set()
        for field, word in FIELD_WORDS.items():
            if getattr(s, field) is not None:
                continue
            if field.endswith("_max") and getattr(s, field.removesuffix("_max")) is None:
                continue  # the current figure's note says it already
            key = (word, s.notes.get(field) or "not reported by this source")
            if key not in seen:
                seen.add(key)
                groups.setdefault(key, []).append(gpu_label(s, multi_host))
    # one line per reason and set of GPUs, its figures listed: `util, temp, SM clock: not in
    # dcgm-exporter's counters (DCGM_FI_DEV_GPU_UTIL; ...) on GPU 0`, not a line each
    merged: dict[tuple[str, tuple[str, ...]], dict[str, list[str]]] = {}
    for (word, why), labels in groups.items():
        reason, _, detail = why.partition(NOTE_DETAIL)
        said = merged.setdefault((reason, tuple(labels)), {}).setdefault(word, [])
        if detail and detail not in said:
            said.append(detail)
    lines = []
    for (reason, gpus), figures in merged.items():
        details = "; ".join(d for ds in figures.values() for d in ds)
        lines.append(f"{', '.join(figures)}: {reason}{f' ({details})' if details else ''} on "
                     f"{_gpu_list(gpus, len(samples))}")
    for s in samples:
        if pcie_downgraded(s):
            lines.append(f"pcie: GPU {gpu_label(s, multi_host)} link at gen{num(s.pcie_gen)}x{num(s.pcie_width)}, "
                         f"slot and GPU allow gen{num(s.pcie_gen_max)}x{num(s.pcie_width_max)}")
    return lines


def gpu_tooltip(samples: Sequence[GpuSample], *, multi_host: bool = False) -> str:
    """Per GPU: its full name and why each missing figure is missing."""
    lines = []
    for s in samples:
        notes = ", ".join(f"{FIELD_WORDS.get(k, k)} {v}" for k, v in s.notes.items())
        throttle = f"; clocks held by {', '.join(s.throttle_reasons)}" if s.throttle_reasons else ""
        lines.append(f"GPU {gpu_label(s, multi_host)}: {s.name or DASH}{' — ' + notes if notes else ''}{throttle}")
    return "\n".join(lines)
