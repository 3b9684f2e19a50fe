"""GPU rules: power_starved, throttle, pcie_downgrade."""

from __future__ import annotations

import re

from cockpit.live.diagnosis.findings import Evidence, Finding, clamp
from cockpit.live.diagnosis.gpu_stats import GpuStats, gpu_list, gpu_stats, time_range
from cockpit.live.diagnosis.inputs import DiagnosisInputs
from cockpit.model.session import Benchmark
from cockpit.model.timeline import throughput

STARVED_SHARE = 0.65  # mean draw under this share of the limit while busy
STARVED_UTIL = 90.0
FLAT_GAIN = 1.15  # doubling concurrency gave less than this: flat
THROTTLE_REASONS = ("sw_power_cap", "hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown",
                    "hw_power_brake_slowdown")
THROTTLE_SHARE = 0.3
# "GPUs at ~330 W of 600 W" in a benchmark's notes: the power a person wrote down
_NOTE_POWER = re.compile(r"~?(\d+(?:\.\d+)?) ?W of ~?(\d+(?:\.\d+)?) ?W")


def bench_power_share(b: Benchmark) -> tuple[float, str] | None:
    """A run's power share: recorded by a sweep, else as its notes say it."""
    if b.power_share is not None:
        return b.power_share, f"{b.power_share:.0%} of the power limit (recorded)"
    if b.notes and (m := _NOTE_POWER.search(b.notes)):
        draw, limit = float(m.group(1)), float(m.group(2))
        if limit > 0:
            return draw / limit, f"~{draw:.0f} W of {limit:.0f} W (its notes)"
    return None


def _flat_runs(inputs: DiagnosisInputs) -> Evidence | None:
    """Throughput flat while concurrency rose: the two highest concurrencies of one profile."""
    if inputs.session is None:
        return None
    by_profile: dict[str | None, list[Benchmark]] = {}
    for b in inputs.session.benchmarks:
        if b.concurrency and throughput(b) is not None:
            by_profile.setdefault(b.profile, []).append(b)
    for runs in by_profile.values():
        runs.sort(key=lambda b: b.concurrency or 0)
        if len(runs) >= 2:
            lo, hi = runs[-2], runs[-1]
            t_lo, t_hi = throughput(lo), throughput(hi)
            assert t_lo is not None and t_hi is not None
            if (hi.concurrency or 0) >= 2 * (lo.concurrency or 1) and t_hi < FLAT_GAIN * t_lo:
                return Evidence(f"throughput {t_lo:,.0f} -> {t_hi:,.0f} tok/s while concurrency went "
                                f"{lo.concurrency} -> {hi.concurrency}", "benchmarks", benchmarks=(lo.id, hi.id))
    return None


def low_power_benchmarks(inputs: DiagnosisInputs) -> list[tuple[Benchmark, float, str]]:
    if inputs.session is None:
        return []
    out = []
    for b in inputs.session.benchmarks:
        got = bench_power_share(b)
        if got is not None and got[0] < STARVED_SHARE and (throughput(b) or 0) > 0:
            out.append((b, got[0], got[1]))
    return out


def starved_gpus(stats: list[GpuStats]) -> list[GpuStats]:
    busy = [s for s in stats if s.busy and s.power_share is not None]
    return [s for s in busy if s.power_share is not None and s.power_share < STARVED_SHARE
            and (s.util_pct or 0) < STARVED_UTIL]


def power_evidence(inputs: DiagnosisInputs) -> tuple[list[Evidence], float | None, list[str]]:
    """The readings that say the GPUs draw far under their limit: samples and/or runs."""
    stats = gpu_stats(inputs.gpus)
    low = starved_gpus(stats)
    busy = [s for s in stats if s.busy]
    evidence: list[Evidence] = []
    share: float | None = None
    keys: list[str] = []
    if busy and len(low) * 2 > len(busy):
        watts = sum(s.power_w or 0 for s in low) / len(low)
        limit = sum(s.power_limit_w or 0 for s in low) / len(low)
        share = sum(s.power_share or 0 for s in low) / len(low)
        util = sum(s.util_pct or 0 for s in low) / len(low)
        evidence.append(Evidence(f"GPUs {gpu_list(s.index for s in low)} draw {watts:.0f} W of {limit:.0f} W "
                                 f"({share:.0%}) at {util:.0f}% utilisation", "gpus",
                                 time_range=time_range(low), gpus=tuple(s.index for s in low)))
        keys.append("gpus" + gpu_list(s.index for s in low))
    for b, b_share, said in low_power_benchmarks(inputs):
        evidence.append(Evidence(f"{b.id} {b.label}: {throughput(b):,.0f} tok/s at {said}", "benchmarks",
                                 benchmarks=(b.id,)))
        share = b_share if share is None else min(share, b_share)
        keys.append(b.id)
    return evidence, share, keys


def power_starved(inputs: DiagnosisInputs) -> list[Finding]:
    evidence, share, keys = power_evidence(inputs)
    if not evidence or share is None:
        return []
    flat = _flat_runs(inputs)
    if flat is not None:
        evidence.append(flat)
    confidence = clamp(0.45 + (STARVED_SHARE - share) + (0.15 if flat else 0))
    return [Finding(
        "power_starved", f"The GPUs are starved, not busy: they draw about {share:.0%} of their power limit "
        "under load", tuple(evidence), confidence,
        "find what the GPUs wait on: sweep concurrency higher and compare tok/s and power per point; "
        "if power stays flat, look at communication (topology) and the scheduler's batch sizes",
        "power_starved:" + ",".join(keys),
        search_space={"concurrency": ["256", "512", "1024", "2048"],
                      "--max-running-requests": ["1024", "2048", "4096"]})]


def throttle(inputs: DiagnosisInputs) -> list[Finding]:
    out = []
    for s in gpu_stats(inputs.gpus):
        reasons = {r: v for r, v in s.throttle_share.items() if r in THROTTLE_REASONS and v >= THROTTLE_SHARE}
        if not reasons or not s.busy:
            continue
        clock = s.sm_clock_mhz or 0
        top = s.sm_clock_max_mhz or 0
        if top and clock >= 0.95 * top:
            continue  # a reason flag with clocks at max costs nothing
        thermal = any("thermal" in r for r in reasons)
        said = ", ".join(f"{r} in {v:.0%} of samples" for r, v in sorted(reasons.items()))
        evidence = [Evidence(f"GPU {s.index}: {said}; SM clock {clock:.0f} of {top:.0f} MHz", "gpus",
                             time_range=time_range([s]), gpus=(s.index,))]
        if s.power_w is not None and s.power_limit_w:
            evidence.append(Evidence(f"GPU {s.index} at {s.power_w:.0f} W of {s.power_limit_w:.0f} W", "gpus",
                                     gpus=(s.index,)))
        out.append(Finding(
            "throttle", f"GPU {s.index} is throttled ({'thermal' if thermal else 'power'}): clocks under max",
            tuple(evidence), clamp(0.5 + max(reasons.values()) * 0.4),
            "check cooling and the power limit (nvidia-smi -q -d PERFORMANCE,POWER); compare a run with "
            "the limit raised" if not thermal else "check the GPU's cooling and airflow, then re-run",
            f"throttle:{s.host or ''}:{s.index}:{'+'.join(sorted(reasons))}"))
    return out


def pcie_downgrade(inputs: DiagnosisInputs) -> list[Finding]:
    out = []
    for s in gpu_stats(inputs.gpus):
        if s.link_now is None or s.link_max is None:
            continue
        (gen, width), (gen_max, width_max) = s.link_now, s.link_max
        narrow = width < width_max
        slow = gen < gen_max and s.busy  # links train down at idle to save power: only under load
        if not narrow and not slow:
            continue
        now, best = f"gen{gen} x{width}", f"gen{gen_max} x{width_max}"
        loss = 1 - (width * (2 ** gen)) / (width_max * (2 ** gen_max))
        out.append(Finding(
            "pcie_downgrade", f"GPU {s.index}'s PCIe link runs at {now} where slot and GPU allow {best}",
            (Evidence(f"GPU {s.index} link {now} (max {best}) " + (
                f"in most of {s.samples} samples" if s.samples > 1 else "in the latest sample"), "gpus",
                      time_range=time_range([s]), gpus=(s.index,)),),
            clamp(0.6 + loss * 0.4),
            "reseat the card or check the slot's lanes and the BIOS PCIe setting; compare "
            "`nvidia-smi -q -d PCIE` after a reboot",
            f"pcie_downgrade:{s.host or ''}:{s.index}:{now}<{best}"))
    return out
