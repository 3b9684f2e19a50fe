"""Energy you can audit, on a real GPU (issue 35, Build 5): integrated power against the GPU's
own energy counter, and a steady-state figure that holds still while the main-run one drifts.

    python3 benchmarks/bench_energy.py [--holds 10,30,90] [--interval-s 0.1] [--window-s 5]

Needs an NVIDIA GPU, NVML (nvidia-ml-py) and PyTorch: the device tool's H200 has all three and
this script imports nothing of cockpit beyond its NVML source (sources/gpu/nvml_sampler.py,
the code path the GPU pane and a sweep read) and the plain arithmetic of
model/bench/energy_audit.py, so no wheels need carrying.

A torch load runs a schedule per hold length H: idle 3 s, a ramp of 6 s (bf16 matmuls growing
from 1024 to 8192 with gaps shrinking, as a server filling its batch), a hold of H s (8192 matmuls
back to back), a drain of 6 s (the ramp backwards), idle 3 s. Work is counted in 8192-matmul
equivalents (one 8192 x 8192 x 8192 product = 1 unit; an n-sized one (n/8192)^3), each batch timed
at its completion. Alongside, a thread samples every GPU through cockpit's NvmlSampler every
`--interval-s`: power (nvmlDeviceGetPowerUsage, placed at the middle of the second it averages
on Ampere and later but GA100, as a sweep point places it) and the energy counter
(nvmlDeviceGetTotalEnergyConsumption); beside it NVML's instantaneous field, and the average
at its own stamp.

Reported:
* integral vs counter: ∫ W dt (trapezoid on the samples' timestamps) against the counter's
  difference over the same span, on every `--window-s` window of the run and on every phase;
  the share within 1 %. Also with every 10th sample only (cockpit's default 1 s interval).
* per hold length: J per unit over the steady window (ML.ENERGY's definition with the matmul
  batches as requests: from the B-th to the (N-B)-th batch of the hold, B = 1 s of batches)
  and over the main run (ramp, hold and drain); their spread across hold lengths.

Prints a table, writes benchmarks/out/bench_energy.json (and to $OUT when set).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cockpit.model.bench.energy_audit import (  # noqa: E402
    PowerSample,
    audit_window,
    steady_from_first_tokens,
)
from cockpit.sources.gpu.nvml_sampler import NvmlSampler  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
FULL = 8192
IDLE_S, RAMP_S = 3.0, 6.0
RAMP_SIZES = (1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192)


class Sampler(threading.Thread):
    """cockpit's NvmlSampler every `interval_s`: summed W and summed energy counter (J) per tick."""

    def __init__(self, interval_s: float) -> None:
        super().__init__(daemon=True)
        self.interval_s = interval_s
        self.nvml = NvmlSampler(interval_s=interval_s, pcie_throughput=False)
        self.count = self.nvml.open_blocking()
        self.first = self.nvml.sample_blocking()
        self.samples: list[PowerSample] = []
        self.instant: list[PowerSample] = []
        """Beside cockpit's path (the averaged `nvmlDeviceGetPowerUsage`, placed at the middle
        of the second it averages where NVML says the architecture averages): NVML's
        instantaneous field (NVML_FI_DEV_POWER_INSTANT) in the same ticks, with the same counter."""
        self.read_s: list[float] = []
        self.stop = threading.Event()
        import pynvml

        self.pynvml = pynvml
        self.handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(self.count)]
        self.field = getattr(pynvml, "NVML_FI_DEV_POWER_INSTANT", 186)

    def _instant_w(self) -> float | None:
        try:
            values = [self.pynvml.nvmlDeviceGetFieldValues(h, [self.field])[0] for h in self.handles]
        except Exception:
            return None
        if any(v.nvmlReturn != 0 for v in values):
            return None
        return sum(v.value.uiVal / 1000.0 for v in values)

    def run(self) -> None:
        next_at = time.time()
        while not self.stop.is_set():
            t0 = time.perf_counter()
            tick = self.nvml.sample_blocking()
            self.read_s.append(time.perf_counter() - t0)
            watts = [s.power_w for s in tick]
            energy = [s.energy_mj for s in tick]
            if all(w is not None for w in watts):
                t = float(tick[0].timestamp or time.time())
                joules = (sum(float(e) for e in energy if e is not None) / 1000.0
                          if all(e is not None for e in energy) else None)
                lag = max(float(s.power_window_s or 0.0) for s in tick) / 2  # as a sweep point's
                self.samples.append(PowerSample(t=t, watts=sum(float(w) for w in watts if w is not None),
                                                energy_j=joules, watts_at=t - lag if lag else None))
                if (instant := self._instant_w()) is not None:
                    self.instant.append(PowerSample(t=t, watts=instant, energy_j=joules))
            next_at += self.interval_s
            time.sleep(max(0.0, next_at - time.time()))


class Load:
    """The torch load; `batches`: (completion time, units of work, phase) of each batch."""

    def __init__(self) -> None:
        import torch

        self.torch = torch
        self.mats = {n: (torch.randn(n, n, device="cuda", dtype=torch.bfloat16),
                         torch.randn(n, n, device="cuda", dtype=torch.bfloat16)) for n in RAMP_SIZES}
        self.batches: list[tuple[float, float, str]] = []
        self.marks: dict[str, float] = {}

    def _batch(self, n: int, phase: str, count: int) -> None:
        a, b = self.mats[n]
        for _ in range(count):
            a @ b
        self.torch.cuda.synchronize()
        self.batches.append((time.time(), count * (n / FULL) ** 3, phase))

    def _run_for(self, seconds: float, n: int, phase: str, duty: float) -> None:
        """Batches of n-matmuls for `seconds`, busy `duty` of the time (gaps as a part-full server's)."""
        end = time.time() + seconds
        count = max(1, int(10 * (FULL / n) ** 2))  # ~10 ms of work a batch whatever its size
        while time.time() < end:
            t0 = time.time()
            self._batch(n, phase, count)
            if duty < 1.0:
                busy = time.time() - t0
                time.sleep(min(max(0.0, end - time.time()), busy * (1 - duty) / duty))

    def schedule(self, hold_s: float) -> None:
        self.marks = {"idle_pre": time.time()}
        time.sleep(IDLE_S)
        self.marks["ramp"] = time.time()
        step = RAMP_S / len(RAMP_SIZES)
        for i, n in enumerate(RAMP_SIZES):
            self._run_for(step, n, "ramp", duty=(i + 1) / (len(RAMP_SIZES) + 1))
        self.marks["hold"] = time.time()
        self._run_for(hold_s, FULL, "hold", duty=1.0)
        self.marks["drain"] = time.time()
        for i, n in enumerate(reversed(RAMP_SIZES)):
            self._run_for(step, n, "drain", duty=(len(RAMP_SIZES) - i) / (len(RAMP_SIZES) + 1))
        self.marks["idle_post"] = time.time()
        time.sleep(IDLE_S)
        self.marks["end"] = time.time()


def _units(batches: list[tuple[float, float, str]], start: float, end: float) -> float:
    return sum(u for t, u, _ in batches if start < t <= end)


def _window_row(name: str, w: Any) -> dict[str, Any]:
    return {"window": name, "start": w.start, "end": w.end, "seconds": round(w.duration_s, 3), "samples": w.samples,
            "interval_s": w.interval_s, "coverage": round(w.coverage, 4), "joules": w.joules, "mean_w": w.mean_w,
            "counter_j": w.counter_j, "integral_on_counter_span_j": w.integral_over_counter_span_j,
            "disagreement": w.disagreement, "flags": list(w.flags)}


def _agreement(samples: list[PowerSample], start: float, end: float, window_s: float, source: str
               ) -> list[dict[str, Any]]:
    rows = []
    t = start
    while t + window_s <= end + 1e-9:
        rows.append(_window_row(f"{t - start:.0f}-{t - start + window_s:.0f} s", audit_window(
            samples, t, t + window_s, source=source)))
        t += window_s
    return rows


def _share_within(rows: list[dict[str, Any]], bound: float) -> float | None:
    offs = [r["disagreement"] for r in rows if r["disagreement"] is not None]
    return sum(1 for d in offs if abs(d) <= bound) / len(offs) if offs else None


def _spread(values: list[float]) -> float | None:
    """(max − min) / median."""
    return (max(values) - min(values)) / statistics.median(values) if len(values) >= 2 else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--holds", default="10,30,90", help="hold lengths, seconds")
    ap.add_argument("--interval-s", type=float, default=0.1, help="NVML sampling interval")
    ap.add_argument("--window-s", type=float, default=5.0, help="length of the integral-vs-counter windows")
    ap.add_argument("--warm-s", type=float, default=15.0, help="a full-load warm-up before the schedules")
    args = ap.parse_args()
    holds = [float(h) for h in args.holds.split(",")]

    sampler = Sampler(args.interval_s)
    load = Load()
    gpu = sampler.first[0]
    import pynvml
    import torch

    env = {"gpu": gpu.name, "gpus": sampler.count, "power_limit_w": gpu.power_limit_w,
           "driver": pynvml.nvmlSystemGetDriverVersion(), "torch": torch.__version__,
           "nvidia_ml_py": getattr(pynvml, "__version__", "?"), "python": platform.python_version(),
           "interval_s": args.interval_s, "window_s": args.window_s,
           "power_window_s": gpu.power_window_s,
           "source": "nvml (cockpit NvmlSampler: nvmlDeviceGetPowerUsage at the middle of the window it averages)"}
    print("env:", json.dumps(env), flush=True)
    sampler.start()
    load._run_for(args.warm_s, FULL, "warm", duty=1.0)  # the card at its working temperature first
    runs = []
    for hold in holds:
        load.batches = []
        load.schedule(hold)
        m = dict(load.marks)
        runs.append({"hold_s": hold, "marks": m, "batches": list(load.batches)})
        print(f"hold {hold:.0f} s done", flush=True)
    time.sleep(2 * args.interval_s)
    sampler.stop.set()
    sampler.join()
    samples = sampler.samples
    coarse = samples[::max(1, round(1.0 / args.interval_s))]

    results: list[dict[str, Any]] = []
    windows: list[dict[str, Any]] = []
    windows_coarse: list[dict[str, Any]] = []
    windows_instant: list[dict[str, Any]] = []
    windows_at_stamp: list[dict[str, Any]] = []
    at_stamp = [replace(p, watts_at=None) for p in samples]
    phases: list[dict[str, Any]] = []
    for run in runs:
        m, batches = run["marks"], run["batches"]
        hold_batches = [t for t, _, phase in batches if phase == "hold"]
        rate = len(hold_batches) / max(1e-9, m["drain"] - m["hold"])
        skip = max(1, round(rate))  # B = one second of batches
        steady = steady_from_first_tokens(hold_batches, skip)
        assert steady is not None, "hold too short for its steady window"
        main_w = audit_window(samples, m["ramp"], m["idle_post"], source="nvml")
        steady_w = audit_window(samples, *steady, source="nvml")
        main_units = _units(batches, m["ramp"], m["idle_post"])
        steady_units = _units(batches, *steady)
        results.append({
            "hold_s": run["hold_s"], "steady_window": [steady[0] - m["ramp"], steady[1] - m["ramp"]], "skip_b": skip,
            "main": _window_row("main run", main_w) | {"units": main_units,
                                                        "j_per_unit": (main_w.window_j or 0) / main_units},
            "main_counter_j_per_unit": (main_w.counter_j or 0) / max(1e-9, _units(batches, m["ramp"], m["idle_post"])),
            "steady": _window_row("steady", steady_w) | {"units": steady_units,
                                                          "j_per_unit": (steady_w.window_j or 0) / steady_units},
        })
        windows += _agreement(samples, m["idle_pre"], m["end"], args.window_s, "nvml")
        windows_coarse += _agreement(coarse, m["idle_pre"], m["end"], args.window_s, "nvml every 1 s")
        windows_at_stamp += _agreement(at_stamp, m["idle_pre"], m["end"], args.window_s, "average at its stamp")
        if sampler.instant:
            windows_instant += _agreement(sampler.instant, m["idle_pre"], m["end"], args.window_s,
                                          "NVML_FI_DEV_POWER_INSTANT")
        names = ("idle_pre", "ramp", "hold", "drain", "idle_post", "end")
        for a, b in zip(names, names[1:]):
            phases.append(_window_row(f"hold {run['hold_s']:.0f}: {a}", audit_window(samples, m[a], m[b], source="nvml")))

    steady_j = [r["steady"]["j_per_unit"] for r in results]
    main_j = [r["main"]["j_per_unit"] for r in results]
    summary = {
        "windows": len(windows), "within_1pct": _share_within(windows, 0.01), "within_2pct": _share_within(windows, 0.02),
        "phases_within_1pct": _share_within(phases, 0.01),
        "windows_1s_interval_within_1pct": _share_within(windows_coarse, 0.01),
        "windows_instant_field_within_1pct": _share_within(windows_instant, 0.01),
        "windows_average_at_stamp_within_1pct": _share_within(windows_at_stamp, 0.01),
        "steady_j_per_unit_spread": _spread(steady_j), "main_j_per_unit_spread": _spread(main_j),
        "samples": len(samples), "nvml_read_ms_median": 1000 * statistics.median(sampler.read_s),
        "goal_integral_within_1pct_on_95pct": (_share_within(windows, 0.01) or 0) >= 0.95,
        "goal_steady_within_2pct": (_spread(steady_j) or 1) <= 0.02,
    }
    report = {"env": env, "summary": summary, "runs": results, "phases": phases, "windows": windows,
              "windows_1s_interval": windows_coarse, "windows_instant_field": windows_instant,
              "windows_average_at_stamp": windows_at_stamp,
              "raw": {"t_power_counter": [(round(p.t, 4), p.watts, p.energy_j) for p in samples],
                      "watts_at": [p.watts_at for p in samples],
                      "instant_field": [(round(p.t, 4), p.watts) for p in sampler.instant],
                      "runs": [{"hold_s": r["hold_s"], "marks": r["marks"]} for r in runs]}}

    print()
    print(f"{'hold':>6} {'main J/unit':>12} {'main W':>8} {'steady J/unit':>14} {'steady W':>9} "
          f"{'steady s':>9} {'main ∫/ctr':>11} {'steady ∫/ctr':>13} {'cover':>6}")
    for r in results:
        mn, st = r["main"], r["steady"]
        print(f"{r['hold_s']:>5.0f}s {mn['j_per_unit']:>12.3f} {mn['mean_w']:>8.1f} {st['j_per_unit']:>14.3f} "
              f"{st['mean_w']:>9.1f} {st['seconds']:>9.1f} {100 * (mn['disagreement'] or 0):>+10.2f}% "
              f"{100 * (st['disagreement'] or 0):>+12.2f}% {100 * st['coverage']:>5.0f}%")
    print()
    print(f"steady J/unit spread across holds: {100 * (summary['steady_j_per_unit_spread'] or 0):.2f} % "
          f"(goal <= 2 %); main-run J/unit spread: {100 * (summary['main_j_per_unit_spread'] or 0):.2f} %")
    print(f"integral vs energy counter, {len(windows)} windows of {args.window_s:.0f} s at {args.interval_s} s sampling: "
          f"{100 * (summary['within_1pct'] or 0):.1f} % within 1 % (goal >= 95 %), "
          f"{100 * (summary['within_2pct'] or 0):.1f} % within 2 %; phases: "
          f"{100 * (summary['phases_within_1pct'] or 0):.1f} % within 1 %; at 1 s sampling: "
          f"{100 * (summary['windows_1s_interval_within_1pct'] or 0):.1f} % within 1 %; the average at its own "
          f"stamp instead: {100 * (summary['windows_average_at_stamp_within_1pct'] or 0):.1f} %; NVML's "
          f"instantaneous field instead: {100 * (summary['windows_instant_field_within_1pct'] or 0):.1f} % within 1 %")
    offs = sorted(abs(w["disagreement"]) for w in windows if w["disagreement"] is not None)
    if offs:
        print(f"|integral - counter| / counter over windows: median {100 * offs[len(offs) // 2]:.2f} %, "
              f"max {100 * offs[-1]:.2f} %")
    OUT.mkdir(parents=True, exist_ok=True)
    text = json.dumps(report, indent=1)
    (OUT / "bench_energy.json").write_text(text)
    if os.environ.get("OUT"):
        Path(os.environ["OUT"], "bench_energy.json").write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
