"""A demo-like session after a day's campaign, fixed to the second: the example session plus a
sweep run on both launch profiles (the same workload, so only the profile tells their rows
apart), and a finished search with a relaunch, a crash and its changed flags. Snapshot tests
and the tmux walks open it; nothing in it depends on the clock or a random draw."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cockpit.model.search.search import Search, SearchTrial, TrialStatus
from cockpit.model.session import Benchmark, Sweep
from cockpit.store.toml_store import load_session, save_session

EXAMPLE = Path(__file__).resolve().parents[1] / "sessions" / "glm5-nvfp4.toml"
DAY = datetime(2026, 11, 29, 8, 0, tzinfo=UTC)
LABEL = "rand 1k/1k"
# (id, profile, concurrency, total tok/s, out tok/s, mean W, out tok/J, TTFT p99 ms)
POINTS = (
    ("b4", "l1", 16, 1510.4, 755.2, 3104.0, 0.243, 912.0),
    ("b5", "l1", 64, 2980.7, 1490.3, 3390.5, 0.43955, 2210.0),
    ("b6", "l2", 16, 1622.9, 811.4, 3012.2, 0.26937, 850.0),
    ("b7", "l2", 64, 3310.2, 1655.1, 3296.8, 0.50203, 2075.5),
)
TRIALS = (  # (number, graph bs, backend, status, objective, W, tok/J, repeat of, error)
    (0, 16, "flashinfer_trtllm", TrialStatus.OK, 1490.3, 3390.5, 0.43955, None, None),
    (1, 256, "triton", TrialStatus.CRASHED, None, None, None, None, "CUDA out of memory at graph capture"),
    (2, 64, "flashinfer_trtllm", TrialStatus.OK, 1655.1, 3296.8, 0.50203, None, None),
    (3, 64, "flashinfer_trtllm", TrialStatus.OK, 1641.7, 3301.0, 0.49733, 2, None),
)


def day_session(folder: Path) -> Path:
    """The session file in `folder` (a copy: the shipped example is never touched)."""
    path = folder / "day.toml"
    shutil.copyfile(EXAMPLE, path)
    session = load_session(path)
    session.sweeps = [Sweep(id="s1", name=LABEL, input_len=1024, output_len=1024, concurrencies=[16, 64])]
    session.benchmarks += [
        Benchmark(id=ident, label=f"{LABEL} c={conc}", profile=profile, sweep="s1", concurrency=conc,
                  input_len=1024, output_len=1024, total_tok_s=total, output_tok_s=out, power_mean_w=watts,
                  output_tok_per_joule=tok_j, ttft_p99_ms=ttft, when=DAY + timedelta(minutes=10 * i))
        for i, (ident, profile, conc, total, out, watts, tok_j, ttft) in enumerate(POINTS)]
    session.searches = [Search(
        id="q1", name="graph bs x backend", profile="l1", sweep="s1", objective="output_tok_s", at_concurrency=64,
        trials=3, repeats=1, seed=7,
        space={"--cuda-graph-max-bs": [16, 64, 256], "--moe-runner-backend": ["flashinfer_trtllm", "triton"]},
        trial=[SearchTrial(number=n, params={"--cuda-graph-max-bs": bs, "--moe-runner-backend": backend},
                           status=status, host="local", value=value, power_mean_w=watts, output_tok_per_joule=tok_j,
                           ttft_p99_ms=None if value is None else 2000 + n * 10, repeat_of=again, error=error,
                           started=DAY + timedelta(minutes=30 * n),
                           ended=DAY + timedelta(minutes=30 * n + 20))
               for n, bs, backend, status, value, watts, tok_j, again, error in TRIALS])]
    save_session(session, path)
    return path
