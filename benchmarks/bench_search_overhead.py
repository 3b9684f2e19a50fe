"""Cockpit's own time per trial as the search grows: the loop's choice (the sampler over the
whole grid), its records (each trial's start and end, two points) in the session file, the
leader and the trial line, with a runner that launches nothing (STAND-IN: it records two
points at once, as the real runner's sweep would), so what is timed is cockpit alone.

    .venv/bin/python benchmarks/bench_search_overhead.py [--trials 50]

Goal (issue 36, item 9): <= 1.5 s per trial at 50 trials. Prints per-trial times (the first
ten and the last ten), writes benchmarks/out/search_overhead.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cockpit.control.search.loop import SearchEvent, SearchLoop  # noqa: E402
from cockpit.control.search.runner import TrialOutcome, TrialRequest  # noqa: E402
from cockpit.control.transaction import SessionFile  # noqa: E402
from cockpit.model.search.search import Search, TrialStatus  # noqa: E402
from cockpit.model.session import LaunchProfile, Session, Sweep  # noqa: E402
from cockpit.store.toml_store import save_session  # noqa: E402

SPACE = {"--moe-runner-backend": ["cutlass", "trtllm", "triton"], "--cuda-graph-max-bs": [16, 32, 64, 128, 256],
         "--chunked-prefill-size": [2048, 4096, 8192, 16384],
         "--mem-fraction-static": {"low": 0.78, "high": 0.90, "step": 0.04}}


class InstantRunner:
    """STAND-IN: two recorded points per trial, a figure from the flags, no server."""

    def __init__(self, path: Path) -> None:
        self.sink = SessionFile(path)

    async def run_trial(self, request: TrialRequest, *, check_point: Any, on_state: Any) -> TrialOutcome:
        profile = next(p for p in self.sink.session.launch if p.id == request.profile_id)
        value = 1000.0 + (hash(profile.command) % 500)
        ids = []
        for c in (8, 64):
            ids.append(await self.sink.apply(lambda e, c=c: e.add_benchmark(
                label=request.run_id, profile=profile.id, sweep="s1", concurrency=c, output_tok_s=value * c / 8,
                sweep_run=request.run_id)))
        return TrialOutcome(TrialStatus.OK, ids, ready_s=1.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=50)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-search-overhead-") as tmp:
        path = Path(tmp) / "s.toml"
        save_session(Session(launch=[LaunchProfile(id="l1", name="base", command="python3 -m sglang.launch_server")],
                             sweeps=[Sweep(id="s1", name="two points", concurrencies=[8, 64])],
                             searches=[Search.model_validate({"id": "q1", "name": "overhead", "profile": "l1",
                                                              "sweep": "s1", "trials": args.trials, "space": SPACE,
                                                              "at_concurrency": 64, "seed": 1})]), path)
        marks: list[float] = []

        def heard(event: SearchEvent) -> None:
            if event.kind == "ended":
                marks.append(time.perf_counter())

        loop = SearchLoop(SessionFile(path), str(path), "q1", InstantRunner(path), [None], on_event=heard)
        began = time.perf_counter()
        asyncio.run(loop.run())
    each = [b - a for a, b in zip([began, *marks], marks, strict=False)]
    first, last = each[:10], each[-10:]
    worst = max(last) if last else 0.0
    print(f"cockpit's own time per trial ({len(each)} trials, nothing launched): first ten median "
          f"{statistics.median(first):.3f} s, last ten median {statistics.median(last):.3f} s, max {worst:.3f} s "
          f"(goal <= 1.5 s at 50)")
    out = ROOT / "benchmarks" / "out" / "search_overhead.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"trials": len(each), "per_trial_s": [round(x, 4) for x in each],
                               "first10_median_s": statistics.median(first), "last10_median_s": statistics.median(last),
                               "goal_met": worst <= 1.5}, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
