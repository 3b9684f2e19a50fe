"""What GPU telemetry costs cockpit.

1. Parsing the `nvidia-smi --query-gpu` stream: microseconds per GPU per sample
   (`parse_query_line` alone, and through `QueryStreamParser` with tick grouping).
2. NVML, where a driver exists: microseconds per GPU per sample of `NvmlSampler`
   (with and without the PCIe throughput reads, which block ~20 ms each by design).
3. The sampler's own CPU time over N seconds with 8 GPUs sampled at 1 Hz from a stand-in
   stream: a `sh` loop (a separate process, so its CPU is not counted) prints recorded CSV
   lines once a second; cockpit reads them through `parse_lines` and folds them into a
   `PowerHistory`, exactly as the TUI does.

Prints a table, writes benchmarks/out/gpu.json.
Usage: python benchmarks/bench_gpu.py [--seconds 60] [--gpus 8] [--lines 200000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))

from cockpit.live.gpu.power_history import PowerHistory  # noqa: E402
from cockpit.parse.gpu.nvsmi_query import QUERY_FIELDS, QueryStreamParser, parse_query_line  # noqa: E402
from cockpit.sources.gpu.nvsmi_stream import parse_lines  # noqa: E402

LINE = (
    "2024/05/01 12:00:{s:02d}.123, {i}, NVIDIA H100 80GB HBM3, GPU-4f1c2a3b-0000-0000-0000-00000000000{i}, "
    "{w:.2f}, 700.00, 87, 41, 71234, 81559, 64, 1980, 1980, 5, 5, 16, 16, 0x0000000000000004"
)


def recorded(ticks: int, gpus: int) -> list[str]:
    return [LINE.format(s=t % 60, i=i, w=300 + 7 * i + (t % 50)) for t in range(ticks) for i in range(gpus)]


def best_of(fn, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_parse(n_lines: int, gpus: int) -> dict[str, float]:
    lines = recorded(n_lines // gpus, gpus)

    def only_lines() -> None:
        for ln in lines:
            parse_query_line(ln, QUERY_FIELDS, now=0.0)

    def stream() -> None:
        p = QueryStreamParser(QUERY_FIELDS, host="h")
        for ln in lines:
            p.feed_line(ln)

    def chunks() -> None:
        text = "\n".join(lines) + "\n"
        p = QueryStreamParser(QUERY_FIELDS, host="h")
        for k in range(0, len(text), 4096):
            p.feed(text[k : k + 4096])

    n = len(lines)
    return {
        "lines": n,
        "parse_query_line_us_per_gpu_sample": best_of(only_lines) / n * 1e6,
        "stream_parser_us_per_gpu_sample": best_of(stream) / n * 1e6,
        "stream_parser_4k_chunks_us_per_gpu_sample": best_of(chunks) / n * 1e6,
    }


def bench_nvml(ticks: int = 20) -> dict[str, object]:
    from cockpit.parse.gpu.events import GpuSourceUnavailable
    from cockpit.sources.gpu.nvml_sampler import NvmlSampler

    out: dict[str, object] = {}
    for label, pcie in (("nvml_us_per_gpu_sample", False), ("nvml_with_pcie_throughput_us_per_gpu_sample", True)):
        sampler = NvmlSampler(pcie_throughput=pcie)
        try:
            n = sampler.open_blocking()
        except GpuSourceUnavailable as exc:
            return {"nvml": "n/a (no driver)", "nvml_reason": exc.message}
        sampler.sample_blocking()  # static fields are read once: keep them out of the timing
        cpu0, t0 = time.process_time(), time.perf_counter()
        for _ in range(ticks):
            sampler.sample_blocking()
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        out[label] = wall / (ticks * n) * 1e6
        out[label.replace("_us_", "_cpu_us_")] = cpu / (ticks * n) * 1e6
        out["nvml_gpus"] = n
        topo_t0 = time.perf_counter()
        sampler.topology_blocking()
        out["nvml_topology_ms"] = (time.perf_counter() - topo_t0) * 1e3
        sampler.close_blocking()
    return out


async def bench_sampler_cpu(seconds: float, gpus: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as d:
        tick = Path(d) / "tick.csv"
        tick.write_text("\n".join(recorded(1, gpus)) + "\n")
        # the stand-in producer: its CPU is its own process's, not cockpit's
        proc = await asyncio.create_subprocess_exec(
            "sh", "-c", f"while :; do cat {tick}; sleep 1; done", stdout=asyncio.subprocess.PIPE
        )
        history = PowerHistory()
        ticks = 0

        async def lines():
            assert proc.stdout is not None
            while True:
                raw = await proc.stdout.readline()
                if not raw:
                    return
                yield raw.decode()

        async def consume() -> None:
            nonlocal ticks
            async for event in parse_lines(lines(), host="standin"):
                history.add_event(event)
                history.headline()
                ticks += 1

        cpu0, t0 = time.process_time(), time.perf_counter()
        try:
            await asyncio.wait_for(consume(), seconds)
        except TimeoutError:
            pass
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        proc.kill()
        await proc.wait()
    return {
        "seconds": wall,
        "gpus": gpus,
        "ticks": ticks,
        "cpu_s": cpu,
        "cpu_pct_of_one_core": cpu / wall * 100,
        "cpu_us_per_tick": cpu / max(ticks, 1) * 1e6,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="duration of the 1 Hz sampler run (default 60)")
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--lines", type=int, default=200_000, help="CSV lines for the parse timing")
    args = ap.parse_args()

    parse = bench_parse(args.lines, args.gpus)
    nvml = bench_nvml()
    sampler = asyncio.run(bench_sampler_cpu(args.seconds, args.gpus))

    rows = [
        ("parse_query_line, per GPU per sample", f"{parse['parse_query_line_us_per_gpu_sample']:.1f} µs"),
        ("stream parser (tick grouping), per GPU per sample", f"{parse['stream_parser_us_per_gpu_sample']:.1f} µs"),
        ("stream parser fed 4 KiB chunks, per GPU per sample", f"{parse['stream_parser_4k_chunks_us_per_gpu_sample']:.1f} µs"),
    ]
    if "nvml" in nvml:
        rows.append(("NVML, per GPU per sample", str(nvml["nvml"])))
    else:
        rows += [
            (f"NVML ({nvml['nvml_gpus']} GPUs), per GPU per sample, wall", f"{nvml['nvml_us_per_gpu_sample']:.0f} µs"),
            ("NVML, per GPU per sample, CPU", f"{nvml['nvml_cpu_us_per_gpu_sample']:.0f} µs"),
            ("NVML + PCIe throughput, per GPU per sample, wall", f"{nvml['nvml_with_pcie_throughput_us_per_gpu_sample']:.0f} µs"),
            ("NVML topology (once)", f"{nvml['nvml_topology_ms']:.1f} ms"),
        ]
    rows += [
        (f"sampler CPU, {sampler['gpus']} GPUs at 1 Hz for {sampler['seconds']:.0f} s ({sampler['ticks']} ticks)",
         f"{sampler['cpu_s'] * 1e3:.1f} ms = {sampler['cpu_pct_of_one_core']:.3f} % of a core"),
        ("sampler CPU per tick (read + parse + fold)", f"{sampler['cpu_us_per_tick']:.0f} µs"),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  value")
    for name, value in rows:
        print(f"{name:<{width}}  {value}")

    OUT.mkdir(parents=True, exist_ok=True)
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "parse": parse,
        "nvml": nvml,
        "sampler_1hz": sampler,
    }
    (OUT / "gpu.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {OUT / 'gpu.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
