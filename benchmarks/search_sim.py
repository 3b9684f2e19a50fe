"""The search's choices on a response surface, evaluated directly (no launch): what
bench_search.py compares against random sampling and the exhaustive grid.

Every strategy sees noisy figures (a launch's figure is the truth times N(1, noise), the
constraint figure likewise) and is scored by the TRUE figure of the configuration it names
best at each launch: cockpit's search names its leader (search_scoring.best_config, the
shrunk estimate pooled over every launch); random sampling and the grid name the best
single figure seen that met the constraint.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from search_surfaces import Params, Surface  # noqa: E402

from cockpit.control.search.plan import next_launch  # noqa: E402
from cockpit.control.search.study import propose  # noqa: E402
from cockpit.model.search.scoring import best_config  # noqa: E402
from cockpit.model.search.search import Search, SearchTrial, TrialStatus  # noqa: E402
from cockpit.model.search.space import config_key, grid  # noqa: E402
from cockpit.sandbox import surface  # noqa: E402  (the STAND-IN response surface)

SPACE = {"--cuda-graph-max-bs": [32, 64, 128, 256], "--chunked-prefill-size": [2048, 4096, 8192],
         "--moe-runner-backend": ["flashinfer_cutlass", "flashinfer_trtllm", "triton"]}
CONCURRENCY = 64
MEM_FRACTION = 0.88


# -- the surfaces of search_surfaces.py ------------------------------------------------------
@dataclass
class Run:
    """One strategy's run: per launch, the true figure of what it named best then (0: none
    named, or the named one truly breaks the constraint)."""

    named_true: list[float]
    launches: int


def search_for(s: Surface, budget: int, seed: int | None = None) -> Search:
    return Search.model_validate({"id": "q1", "name": s.name, "profile": "l1", "sweep": "s1",
                                  "objective": "output_tok_s", "trials": budget, "space": s.space,
                                  "constraints": ["g1"] if s.constraint else [], "seed": seed})


def true_best(s: Surface) -> float:
    return max(v for p in grid(search_for(s, 1)) if s.feasible(p) and (v := s.figure(p)) is not None)


def _observe(s: Surface, params: Params, rng: random.Random) -> tuple[float | None, list[float]]:
    value = s.figure(params)
    if value is None:
        return None, []
    seen = value * rng.gauss(1.0, s.noise)
    if s.constraint is None:
        return seen, []
    figure = s.constraint(params) * rng.gauss(1.0, s.constraint_noise)
    return seen, [(figure - s.target) / s.target]


def _true_of(s: Surface, params: Params | None) -> float:
    if params is None or not s.feasible(params):
        return 0.0
    return s.figure(params) or 0.0


def run_cockpit(s: Surface, seed: int, budget: int, sampler: str | None = None,
                race_share: float | None = None) -> Run:
    search = search_for(s, budget, seed)
    rng = random.Random(seed * 7 + 3)
    named: list[float] = []
    kw = {} if race_share is None else {"race_share": race_share}
    for number in range(budget):
        step = next_launch(search, budget, seed=seed, sampler=sampler, **kw)
        if step is None:
            break
        seen, constraints = _observe(s, step.params, rng)
        trial = SearchTrial(number=number, params=step.params, repeat_of=step.repeat_of,
                            status=TrialStatus.CRASHED if seen is None else TrialStatus.OK, value=seen,
                            constraints=constraints, error="crashed" if seen is None else None)
        search = search.model_copy(update={"trial": [*search.trial, trial]})
        lead = best_config(search)
        named.append(_true_of(s, lead.first.params if lead else None))
    return Run(named, len(named))


def run_order(s: Surface, seed: int, budget: int, shuffle: bool) -> Run:
    """Random sampling (shuffled grid, no configuration twice) or the grid in order."""
    points = list(grid(search_for(s, 1)))
    if shuffle:
        random.Random(seed).shuffle(points)
    rng = random.Random(seed * 7 + 3)
    best: tuple[Params, float] | None = None
    named = []
    for params in points[:budget]:
        seen, constraints = _observe(s, params, rng)
        if seen is not None and all(c <= 0 for c in constraints) and (best is None or seen > best[1]):
            best = (params, seen)
        named.append(_true_of(s, best[0] if best else None))
    return Run(named, len(named))


def launches_to(run: Run, goal: float) -> int | None:
    """The first launch after which the named best is truly within the goal (None: never)."""
    return next((n for n, v in enumerate(run.named_true, start=1) if v >= goal), None)


STRATEGIES: dict[str, Callable[[Surface, int, int], Run]] = {
    "search": lambda s, seed, budget: run_cockpit(s, seed, budget),
    "random": lambda s, seed, budget: run_order(s, seed, budget, shuffle=True),
    "grid": lambda s, seed, budget: run_order(s, seed, budget, shuffle=False),
}


# -- the stand-in server's own surface (tests/standin/surface.py) ----------------------------
def search_of(budget: int = 36) -> Search:
    return Search(id="q1", name="bench", profile="l1", sweep="s1", objective="output_tok_s",
                  at_concurrency=CONCURRENCY, trials=budget, space=SPACE)  # type: ignore[arg-type]


def flags_of(params: dict) -> surface.Flags:
    return surface.Flags(graph_max_bs=int(params["--cuda-graph-max-bs"]),
                         chunked_prefill=int(params["--chunked-prefill-size"]),
                         backend=str(params["--moe-runner-backend"]), mem_fraction=MEM_FRACTION)


def true_value(params: dict) -> float | None:
    return surface.output_tok_s(flags_of(params), CONCURRENCY)


def grid_best() -> float:
    return max(v for p in grid(search_of()) if (v := true_value(p)) is not None)


def _noisy(params: dict, rng: random.Random, noise: float) -> float | None:
    value = true_value(params)
    return None if value is None else value * rng.gauss(1.0, noise)


def run_search(seed: int, noise: float, budget: int = 36) -> list[tuple[dict, float | None]]:
    search = search_of(budget)
    rng = random.Random(seed * 31 + 1)
    out: list[tuple[dict, float | None]] = []
    for number in range(budget):
        params = propose(search, seed=seed)
        if params is None:
            break
        seen = _noisy(params, rng, noise)
        trial = SearchTrial(number=number, params=params,
                            status=TrialStatus.CRASHED if seen is None else TrialStatus.OK, value=seen,
                            error="cuda_oom" if seen is None else None)
        search = search.model_copy(update={"trial": [*search.trial, trial]})
        out.append((params, seen))
    return out


def distinct(order: list[tuple[dict, float | None]]) -> bool:
    keys = [config_key(search_of(), p) for p, _ in order]
    return len(keys) == len(set(keys))
