"""dcgm-exporter's `/metrics` -> one `GpuSample` per GPU (the type every GPU source yields).

dcgm-exporter labels each series with `gpu` (index), `UUID`, `device`, `modelName` and
`Hostname`. Which fields it exports is its counters CSV's choice: the power limit is not in
the defaults (dcgm-exporter #720) and PCIe fields were renamed across releases, so a field
the text lacks is None with a note naming the DCGM field to add, never a zero.
"""

from __future__ import annotations

from cockpit.parse.gpu.sample import NOT_EXPORTED, NOTE_DETAIL, GpuSample, decode_clock_event_reasons, index_problem
from cockpit.parse.metrics.prom_text import Exposition
from cockpit.parse.numbers import read_int

# GpuSample field -> DCGM fields that give it, first present wins
FIELDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("power_w", ("DCGM_FI_DEV_POWER_USAGE",)),
    # the enforced limit is what caps the draw; the management limit is the configured one
    ("power_limit_w", ("DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "DCGM_FI_DEV_POWER_MGMT_LIMIT")),
    ("util_gpu_pct", ("DCGM_FI_DEV_GPU_UTIL",)),
    ("util_mem_pct", ("DCGM_FI_DEV_MEM_COPY_UTIL",)),
    ("mem_used_mib", ("DCGM_FI_DEV_FB_USED",)),
    ("temp_c", ("DCGM_FI_DEV_GPU_TEMP",)),
    ("sm_clock_mhz", ("DCGM_FI_DEV_SM_CLOCK",)),
    ("sm_clock_max_mhz", ("DCGM_FI_DEV_MAX_SM_CLOCK",)),
    ("pcie_replays", ("DCGM_FI_DEV_PCIE_REPLAY_COUNTER",)),
    ("energy_mj", ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",)),
)
MEM_PARTS = ("DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_RESERVED")
THROTTLE = ("DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS")

GpuKey = tuple[str | None, int]


def is_dcgm(expo: Exposition) -> bool:
    return any(name.startswith("DCGM_FI_") for name in expo.samples)


def _per_gpu(expo: Exposition, name: str) -> dict[GpuKey, tuple[float, dict[str, str]]]:
    out: dict[GpuKey, tuple[float, dict[str, str]]] = {}
    # prometheus-client names a counter's samples NAME_total even when the text says NAME
    for labels, value in expo.get(name) or expo.get(name + "_total"):
        index = read_int(labels.get("gpu", ""))
        if index is None or index_problem(index) is not None:
            continue  # a series without a GPU index (MIG parents, links) is not a GPU row
        out.setdefault((labels.get("Hostname"), index), (value, dict(labels)))
    return out


def dcgm_samples(expo: Exposition, host: str | None = None, timestamp: float | None = None) -> list[GpuSample]:
    """One GpuSample per (Hostname, gpu) in the text, ordered by host then index.

    `host` names the session host the text came from; without it the `Hostname` label is used.
    """
    values: dict[GpuKey, dict[str, float]] = {}
    labels: dict[GpuKey, dict[str, str]] = {}
    for name in {n for _, names in FIELDS for n in names} | set(MEM_PARTS) | set(THROTTLE) | {
            "DCGM_FI_DEV_FB_TOTAL"}:
        for key, (value, lab) in _per_gpu(expo, name).items():
            values.setdefault(key, {})[name] = value
            labels.setdefault(key, lab)
    samples = []
    for key in sorted(values, key=lambda k: (k[0] or "", k[1])):
        got, lab = values[key], labels[key]
        kwargs: dict[str, float | None] = {}
        notes: dict[str, str] = {}
        for fld, names in FIELDS:
            found = next((got[n] for n in names if n in got), None)
            kwargs[fld] = found
            if found is None:
                notes[fld] = f"{NOT_EXPORTED}{NOTE_DETAIL}{' or '.join(names)}"
        if "DCGM_FI_DEV_FB_TOTAL" in got:
            kwargs["mem_total_mib"] = got["DCGM_FI_DEV_FB_TOTAL"]
        elif "DCGM_FI_DEV_FB_USED" in got and "DCGM_FI_DEV_FB_FREE" in got:
            kwargs["mem_total_mib"] = sum(got.get(n, 0.0) for n in MEM_PARTS)
        else:
            notes["mem_total_mib"] = f"{NOT_EXPORTED}{NOTE_DETAIL}DCGM_FI_DEV_FB_USED and DCGM_FI_DEV_FB_FREE"
        mask = next((got[n] for n in THROTTLE if n in got), None)
        samples.append(GpuSample(
            index=key[1], name=lab.get("modelName"), uuid=lab.get("UUID"),
            host=host if host is not None else key[0], timestamp=timestamp,
            throttle_reasons=decode_clock_event_reasons(int(mask)) if mask is not None and 0 <= mask < 2**64 else (),
            notes=notes, **kwargs,  # type: ignore[arg-type]  # keys are GpuSample's number fields
        ))
    return samples
