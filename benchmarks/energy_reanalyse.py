"""Re-read a bench_energy.py result that kept its raw samples: ∫ W dt against the GPU's energy
counter per 5 s window, for each power reading the run recorded and each place a reading can
stand (its own stamp, or the middle of the second NVML averages it over).

    python3 benchmarks/energy_reanalyse.py [benchmarks/results/bench_energy_h100_run2_instant_field.json]

No GPU needed: it runs cockpit's own audit (model/bench/energy_audit.py) on the recorded
samples. Prints a table, writes benchmarks/out/energy_reanalyse.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cockpit.model.bench.energy_audit import PowerSample, audit_window  # noqa: E402

DEFAULT = ROOT / "benchmarks/results/bench_energy_h100_run2_instant_field.json"
OUT = Path(__file__).resolve().parent / "out"
WINDOW_S = 5.0


def series(raw: dict[str, Any]) -> dict[str, list[tuple[float, float, float]]]:
    """name -> (t, W, counter J) per tick, for every reading the file kept."""
    ticks = raw["t_power_counter"]
    out: dict[str, list[tuple[float, float, float]]] = {}
    if "power_usage_w" in raw:  # run 2: the instant field as the main reading, the average beside it
        out["NVML_FI_DEV_POWER_INSTANT"] = [(t, w, j) for t, w, j in ticks]
        out["nvmlDeviceGetPowerUsage (1 s average)"] = [(t, w, j) for (t, _, j), w in zip(ticks, raw["power_usage_w"])]
    else:  # later runs: the average as the main reading, the instant field beside it
        out["nvmlDeviceGetPowerUsage (1 s average)"] = [(t, w, j) for t, w, j in ticks]
        instant = dict((round(t, 4), w) for t, w in raw.get("instant_field", []))
        out["NVML_FI_DEV_POWER_INSTANT"] = [(t, instant[round(t, 4)], j) for t, _, j in ticks if round(t, 4) in instant]
    return out


def windows(runs: list[dict[str, Any]]) -> list[tuple[float, float]]:
    out = []
    for run in runs:
        marks = run["marks"]
        t = marks["idle_pre"]
        while t + WINDOW_S <= marks["end"] + 1e-9:
            out.append((t, t + WINDOW_S))
            t += WINDOW_S
    return out


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else DEFAULT
    report = json.loads(path.read_text())
    raw = report["raw"]
    spans = windows(raw["runs"])
    rows = []
    for name, ticks in series(raw).items():
        shifts = (0.0, 0.5) if "average" in name else (0.0,)
        for shift in shifts:
            samples = [PowerSample(t, w, j, watts_at=t - shift if shift else None) for t, w, j in ticks]
            offs = [audit_window(samples, a, b, source=name).disagreement for a, b in spans]
            known = sorted(abs(o) for o in offs if o is not None)
            rows.append({"reading": name, "placed": "middle of its second" if shift else "its stamp",
                         "windows": len(known), "within_1pct": sum(o <= 0.01 for o in known) / len(known),
                         "within_2pct": sum(o <= 0.02 for o in known) / len(known),
                         "median_abs_pct": 100 * known[len(known) // 2], "max_abs_pct": 100 * known[-1]})
    print(f"{path.name}: {report['env']['gpu']}, driver {report['env']['driver']}, "
          f"{report['env']['interval_s']} s sampling, windows of {WINDOW_S:.0f} s")
    print(f"{'reading':<40} {'placed at':<22} {'windows':>7} {'<=1 %':>7} {'<=2 %':>7} {'median':>8} {'max':>7}")
    for r in rows:
        print(f"{r['reading']:<40} {r['placed']:<22} {r['windows']:>7} {100 * r['within_1pct']:>6.1f}% "
              f"{100 * r['within_2pct']:>6.1f}% {r['median_abs_pct']:>7.2f}% {r['max_abs_pct']:>6.2f}%")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "energy_reanalyse.json").write_text(json.dumps({"file": path.name, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
