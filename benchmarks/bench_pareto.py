"""How well a search with two objectives finds the Pareto front, offline (pareto_sim.py's
SIMULATOR surface: 45 configurations, 5 of them crashing from two values together, 3 %
launch noise): per sampler over SEEDS seeds at a budget of 12 launches (about a quarter of the
grid; --budget), the hypervolume that the configurations named on the front dominate (their TRUE
figures) as a share of the true front's hypervolume, and how many named front points are
truly on the front. Samplers: cockpit's default (Optuna's multi-objective TPE), NSGA-II,
and random.

    python benchmarks/bench_pareto.py [--seeds 20] [--budget 12]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pareto_sim  # noqa: E402

from cockpit.model.search.pareto import pareto_front  # noqa: E402


def score(seed: int, budget: int, sampler: str) -> tuple[float, float, int]:
    """(hypervolume share, share of named front points truly on the front, crashes)."""
    search = pareto_sim.run(seed, budget, sampler=sampler)
    named = [pareto_sim.truth(p.config.first.params) for p in pareto_front(search).points]
    named_true = [v for v in named if v is not None]
    truth = pareto_sim.true_front()
    everything = [v for p in pareto_sim.grid(pareto_sim.search_for(1, 0)) if (v := pareto_sim.truth(p)) is not None]
    ref = (min(v[0] for v in everything), min(v[1] for v in everything))
    share = pareto_sim.hypervolume(named_true, ref) / pareto_sim.hypervolume(truth, ref)
    on = sum(1 for v in named_true if v in truth) / max(1, len(named_true))
    crashes = sum(1 for t in search.trial if t.status.value == "crashed")
    return share, on, crashes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--budget", type=int, default=12)
    args = parser.parse_args()
    print(f"two objectives (output tok/s, output tok/J), 45 configurations, budget {args.budget}, "
          f"{args.seeds} seeds; hypervolume of the named front's true figures / the true front's")
    for sampler in ("tpe", "nsga2", "random"):
        start = time.perf_counter()
        rows = [score(seed, args.budget, sampler) for seed in range(args.seeds)]
        took = (time.perf_counter() - start) / args.seeds
        hv = sorted(r[0] for r in rows)
        print(f"{sampler:>6}: hypervolume share median {statistics.median(hv):.1%} (min {hv[0]:.1%}, "
              f"max {hv[-1]:.1%}); named points truly on the front median "
              f"{statistics.median(r[1] for r in rows):.0%}; crashes median {statistics.median(r[2] for r in rows):g}; "
              f"{took:.2f} s a run")


if __name__ == "__main__":
    main()
