"""Sessions with sweeps recorded: the example campaign plus N launch profiles x 12 concurrencies.

Each profile's throughput saturates at its own knee, so the best profile changes along the
axis (the chart's call-outs have something to say). Values are fixed, not random: the
snapshots and the benchmark see the same numbers every run. Shared by the chart's tests and
benchmarks/bench_chart.py.
"""

from __future__ import annotations

from pathlib import Path

from tui_support import EXAMPLE

from cockpit.model.session import Benchmark, LaunchProfile, Session, Sweep
from cockpit.store.toml_store import load_session, save_session

CONCURRENCIES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048)


def throughput(profile: int, concurrency: int) -> float:
    """Total tok/s of profile `profile` (1-based) at `concurrency`: per-stream speed falls as
    the batch grows past the profile's knee."""
    single = 60.0 + 12.0 * ((profile * 7) % 10)  # tok/s of one stream
    knee = 16 * 2 ** (profile % 6)  # where the batch stops scaling
    return round(single * concurrency / (1 + concurrency / knee), 1)


def sweep_session(profiles: int, concurrencies: tuple[int, ...] = CONCURRENCIES) -> Session:
    """The example session with profiles l1..lN, each swept over `concurrencies` (sweep s1)."""
    base = load_session(EXAMPLE)
    launch = list(base.launch[:profiles])
    for i in range(len(launch) + 1, profiles + 1):
        launch.append(LaunchProfile(id=f"l{i}", name=f"tp8 variant {i}",
                                    command=f"python -m sglang.launch_server --tp 8 --chunked-prefill-size {1024 * i}"))
    benches = list(base.benchmarks)
    n = 100
    for i in range(1, profiles + 1):
        for c in concurrencies:
            total = throughput(i, c)
            n += 1
            benches.append(Benchmark(
                id=f"b{n}", label=f"l{i} at {c}", profile=f"l{i}", concurrency=c, input_len=1024, output_len=1024,
                total_tok_s=total, output_tok_s=round(total / 2, 1), sweep="s1", ttft_p99_ms=round(40.0 + c * 1.5, 1),
                power_share=round(min(0.95, 0.3 + c / 4096), 2), tok_per_joule=round(total / 2400, 2)))
    sweep = Sweep(id="s1", name="random 1k/1k", input_len=1024, output_len=1024, concurrencies=list(concurrencies))
    session = base.model_copy(update={"launch": launch, "benchmarks": benches, "sweeps": [sweep]})
    return Session.model_validate(session.model_dump())  # validated: links resolve


def write_sweep_session(path: Path, profiles: int) -> Path:
    save_session(sweep_session(profiles), path)
    return path
