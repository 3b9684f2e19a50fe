"""GPU rules: power_starved, throttle, pcie_downgrade."""

from __future__ import annotations

import re
from statistics import median

from cockpit.live.diagnosis.findings import Evidence, Finding, clamp
from cockpit.live.diagnosis.gpu_stats import GpuStats, gpu_list, gpu_stats, time_range
from cockpit.live.diagnosis.inputs import DiagnosisInputs
from cockpit.model.session import Benchmark
from cockpit.model.timeline import throughput, throughput_unit

STARVED_SHARE = 0.65  # mean draw under this share of the limit while busy
STARVED_UTIL = 90.0
FLAT_GAIN = 1.15  # doubling concurrency gave less than this: flat
THROTTLE_REASONS = ("sw_power_cap", "hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown",
                    "hw_power_brake_slowdown")
THROTTLE_SHARE = 0.3
CLOCK_SHARE = 0.9  # SM clock under this share of max under load, with no reason flag: look at heat and power
HOT_C = 85.0  # at or over this, clocks under max are the GPU protecting itself
AT_LIMIT = 0.97  # draw at or over this share of the enforced limit: held by the power cap
LOADED_SHARE = 0.5  # a run at half the highest concurrency of its profile or more is under load
LOADED_MIN = 16  # and never under this many concurrent requests (one stream never fills a GPU)
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
    """Throughput flat while concurrency rose: the two highest concurrencies of one profile and workload."""
    if inputs.session is None:
        return None
    # like with like: one profile and workload (lengths, dataset)
    by_profile: dict[tuple[str | None, int | None, int | None, str | None], list[Benchmark]] = {}
    for b in inputs.session.benchmarks:
        if b.concurrency and throughput(b) is not None:
            by_profile.setdefault(_workload(b), []).append(b)
    for runs in by_profile.values():
        # a point per concurrency, at the median of its runs: a sweep's repeats are one point
        # (never two "concurrencies"), and never their best run (issue 35)
        points: dict[int, list[Benchmark]] = {}
        for b in runs:
            points.setdefault(b.concurrency or 0, []).append(b)
        if len(points) >= 2:
            (c_lo, lo), (c_hi, hi) = sorted(points.items())[-2:]
            t_lo, t_hi = (median(throughput(b) or 0.0 for b in rows) for rows in (lo, hi))
            if c_hi >= 2 * c_lo and t_hi < FLAT_GAIN * t_lo:
                said = "" if len(lo) == len(hi) == 1 else f" (medians of {len(lo)} and {len(hi)} runs)"
                return Evidence(f"throughput {t_lo:,.0f} -> {t_hi:,.0f} {throughput_unit(hi[0])} while concurrency went "
                                f"{c_lo} -> {c_hi}{said}", "benchmarks", benchmarks=tuple(b.id for b in lo + hi))
    return None


def _workload(b: Benchmark) -> tuple[str | None, int | None, int | None, str | None]:
    return b.profile, b.input_len, b.output_len, b.dataset


def loaded_runs(inputs: DiagnosisInputs) -> list[Benchmark]:
    """The runs under load: at least LOADED_MIN concurrent requests and at least LOADED_SHARE
    of the highest concurrency its profile ran at with the same workload. A power or
    throughput claim is made from these only, never from a single stream beside them."""
    if inputs.session is None:
        return []
    top: dict[tuple[str | None, int | None, int | None, str | None], int] = {}
    for b in inputs.session.benchmarks:
        if b.concurrency:
            top[_workload(b)] = max(top.get(_workload(b), 0), b.concurrency)
    return [b for b in inputs.session.benchmarks if b.concurrency and b.concurrency >= LOADED_MIN
            and b.concurrency >= LOADED_SHARE * top[_workload(b)]]


def low_power_benchmarks(inputs: DiagnosisInputs) -> list[tuple[Benchmark, float, str, tuple[str, ...]]]:
    """Loaded points under STARVED_SHARE, of the profiles (and workloads) whose every loaded
    point with a power figure is under it: one loaded point at 86 % says the GPUs can be fed.
    A point is a concurrency's runs at their median share (a sweep's repeats: never the one
    lucky repeat, issue 35): (its median run, the share, how it is said, every run's id)."""
    powered = [(b, got) for b in loaded_runs(inputs) if (got := bench_power_share(b)) is not None
               and (throughput(b) or 0) > 0]
    points: dict[tuple[object, ...], list[tuple[Benchmark, tuple[float, str]]]] = {}
    for b, got in powered:
        points.setdefault((*_workload(b), b.concurrency), []).append((b, got))
    out: list[tuple[Benchmark, float, str, tuple[str, ...]]] = []
    for rows in points.values():
        if len(rows) == 1:
            b, (share, said) = rows[0]
            out.append((b, share, said, (b.id,)))
            continue
        mid = median(share for _, (share, _) in rows)
        b = min(rows, key=lambda row: (abs(row[1][0] - mid), row[1][0]))[0]
        out.append((b, mid, f"{mid:.0%} of the power limit (median of {len(rows)} runs)", tuple(r.id for r, _ in rows)))
    fed = {_workload(b) for b, share, _, _ in out if share >= STARVED_SHARE}
    return [row for row in out if _workload(row[0]) not in fed]


def _runs_of(inputs: DiagnosisInputs, ids: tuple[str, ...]) -> list[Benchmark]:
    return [b for b in inputs.session.benchmarks if b.id in ids] if inputs.session is not None else []


def starved_gpus(stats: list[GpuStats]) -> list[GpuStats]:
    busy = [s for s in stats if s.busy and s.power_share is not None]
    return [s for s in busy if s.power_share is not None and s.power_share < STARVED_SHARE
            and (s.util_pct or 0) < STARVED_UTIL]


def power_evidence(inputs: DiagnosisInputs) -> tuple[list[Evidence], float | None, list[str]]:
    """The readings that say the GPUs draw far under their limit under load: samples and/or
    loaded runs; the share is the most the loaded runs reach (else the samples), and `keys` name the
    situation (host and GPUs, profiles), never the runs, so new runs of the same situation
    keep its key."""
    stats = gpu_stats(inputs.gpus)
    low = starved_gpus(stats)
    busy = [s for s in stats if s.busy]
    evidence: list[Evidence] = []
    shares: list[float] = []
    keys: list[str] = []
    if busy and len(low) * 2 > len(busy):
        watts = [s.power_w or 0 for s in low]
        limits = sorted({round(s.power_limit_w or 0) for s in low})
        util = [s.util_pct or 0 for s in low]
        gpu_shares = [s.power_share or 0 for s in low]
        shares.append(max(gpu_shares))
        evidence.append(Evidence(f"GPUs {gpu_list(s.index for s in low)} draw {_span_of(watts, '.0f')} W of "
                                 f"{'/'.join(str(x) for x in limits)} W ({_span_of(gpu_shares, '.0%')}) at "
                                 f"{_span_of(util, '.0f')}% utilisation (per-GPU means under load)", "gpus",
                                 time_range=time_range(low), gpus=tuple(s.index for s in low)))
        hosts = sorted({s.host or "" for s in low})
        keys.append("gpus" + ":".join(hosts) + ":" + gpu_list(s.index for s in low))
    runs = low_power_benchmarks(inputs)
    for b, _, said, ids in runs:
        unit = throughput_unit(b)
        tok = (f"{throughput(b):,.0f} {unit}" if len(ids) == 1
               else f"{median(throughput(x) or 0.0 for x in _runs_of(inputs, ids)):,.0f} {unit} median")
        evidence.append(Evidence(f"{b.id} {b.label} (c={b.concurrency}): {tok} at {said}",
                                 "benchmarks", benchmarks=ids))
    if runs:
        # the claim's figure comes from the recorded runs where there are some (one source,
        # the loaded points), else from the samples
        shares = [max(share for _, share, _, _ in runs)]
        keys += sorted({f"profile {b.profile or '-'}" for b, _, _, _ in runs})
    return evidence, (max(shares) if shares else None), keys


def _span_of(values: list[float], fmt: str) -> str:
    """`330-345`, or one figure when they agree at the shown precision."""
    low, high = format(min(values), fmt), format(max(values), fmt)
    return low if low == high else f"{low}-{high}".replace("%-", "-")


def power_starved(inputs: DiagnosisInputs) -> list[Finding]:
    evidence, share, keys = power_evidence(inputs)
    if not evidence or share is None:
        return []
    flat = _flat_runs(inputs)
    if flat is not None:
        evidence.append(flat)
    confidence = clamp(0.45 + (STARVED_SHARE - share) + (0.15 if flat else 0))
    return [Finding(
        "power_starved", f"The GPUs are starved, not busy: they draw at most {share:.0%} of their power limit "
        "under load", tuple(evidence), confidence,
        "find what the GPUs wait on: sweep concurrency higher and compare tok/s and power per point; "
        "if power stays flat, look at communication (topology) and the scheduler's batch sizes",
        "power_starved:" + ",".join(keys),
        search_space={"concurrency": ["256", "512", "1024", "2048"],
                      "--max-running-requests": ["1024", "2048", "4096"]})]


def _inferred(s: GpuStats) -> tuple[str, list[str]] | None:
    """Throttling read from clocks, temperature and power where no reason flag says it (the
    reason column absent, or a driver that leaves it empty): clocks under CLOCK_SHARE of max
    under load, with the GPU hot (thermal) or its draw at the enforced limit (power)."""
    clock, top = s.sm_clock_mhz, s.sm_clock_max_mhz
    if not s.busy or clock is None or not top or clock >= CLOCK_SHARE * top:
        return None
    said = [f"SM clock {clock:.0f} of {top:.0f} MHz under load"]
    if s.temp_c is not None and s.temp_c >= HOT_C:
        return "thermal", said + [f"{s.temp_c:.0f} °C"]
    if s.power_w is not None and s.power_limit_w and s.power_w >= AT_LIMIT * s.power_limit_w:
        return "power", said + [f"{s.power_w:.0f} W of its enforced {s.power_limit_w:.0f} W limit"]
    return None


def throttle(inputs: DiagnosisInputs) -> list[Finding]:
    out = []
    for s in gpu_stats(inputs.gpus):
        reasons = {r: v for r, v in s.throttle_share.items() if r in THROTTLE_REASONS and v >= THROTTLE_SHARE}
        if not s.busy:
            continue
        clock, top = s.sm_clock_mhz, s.sm_clock_max_mhz
        if reasons and clock is not None and top and clock >= 0.95 * top:
            continue  # a reason flag with clocks at max costs nothing
        # absent is not zero: without the clock columns the flag is said alone, never "0 of 0 MHz"
        clocks = (f"SM clock {clock:.0f} of {top:.0f} MHz" if clock is not None and top
                  else "SM clock not in the samples")
        if reasons:
            thermal = any("thermal" in r for r in reasons)
            said = ", ".join(f"{r} in {v:.0%} of samples" for r, v in sorted(reasons.items()))
            evidence = [Evidence(f"GPU {s.index}: {said}; {clocks}", "gpus",
                                 time_range=time_range([s]), gpus=(s.index,))]
            if s.power_w is not None and s.power_limit_w:
                evidence.append(Evidence(f"GPU {s.index} at {s.power_w:.0f} W of {s.power_limit_w:.0f} W", "gpus",
                                         gpus=(s.index,)))
            confidence, label = clamp(0.5 + max(reasons.values()) * 0.4), "+".join(sorted(reasons))
        elif (inferred := _inferred(s)) is not None:
            thermal = inferred[0] == "thermal"
            evidence = [Evidence(f"GPU {s.index}: " + ", ".join(inferred[1]) + " (no throttle reason in the "
                                 "samples: read from clocks, temperature and power)", "gpus",
                                 time_range=time_range([s]), gpus=(s.index,))]
            assert clock is not None and top  # _inferred reads clocks only where both are known
            confidence, label = clamp(0.55 + (CLOCK_SHARE - clock / top)), "inferred-" + inferred[0]
        else:
            continue
        out.append(Finding(
            "throttle", f"GPU {s.index} is throttled ({'thermal' if thermal else 'power'}): "
            + ("clocks under max" if clock is not None and top else "the driver flags it"),
            tuple(evidence), confidence,
            "check cooling and the power limit (nvidia-smi -q -d PERFORMANCE,POWER); compare a run with "
            "the limit raised" if not thermal else "check the GPU's cooling and airflow, then re-run",
            f"throttle:{s.host or ''}:{s.index}:{label}"))
    return out


def pcie_downgrade(inputs: DiagnosisInputs) -> list[Finding]:
    out = []
    for s in gpu_stats(inputs.gpus):
        # links train down (gen and, on some boards, width) at idle to save power: a link is
        # judged only from the samples under load, never from an idle GPU's
        if s.link_now is None or s.link_max is None or not s.busy or s.busy_samples == 0:
            continue
        (gen, width), (gen_max, width_max) = s.link_now, s.link_max
        if width >= width_max and gen >= gen_max:
            continue
        now, best = f"gen{gen} x{width}", f"gen{gen_max} x{width_max}"
        loss = 1 - (width * (2 ** gen)) / (width_max * (2 ** gen_max))
        out.append(Finding(
            "pcie_downgrade", f"GPU {s.index}'s PCIe link runs at {now} where slot and GPU allow {best}",
            (Evidence(f"GPU {s.index} link {now} (max {best}) " + (
                f"in most of its {s.busy_samples} samples under load" if s.busy_samples > 1
                else "in its one sample under load"), "gpus",
                      time_range=time_range([s]), gpus=(s.index,)),),
            clamp(0.6 + loss * 0.4),
            "reseat the card or check the slot's lanes and the BIOS PCIe setting; compare "
            "`nvidia-smi -q -d PCIE` after a reboot",
            f"pcie_downgrade:{s.host or ''}:{s.index}:{now}<{best}"))
    return out
