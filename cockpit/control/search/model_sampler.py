"""The search's model-based choice over a finite space (chosen by measurement over TPE,
benchmarks/bench_search.py): Thompson sampling from a Bayesian linear model of the
objective's logarithm on each flag's values and each pair of flags' values (interactions),
one such model per constraint, and a crash model from the crashes' suspects (values and
pairs of values never seen working, study.crash_hypotheses).

Per choice, one draw of each model's weights scores every untried configuration of the
grid; the best drawn objective among those drawn feasible (constraints met, not crashed)
is launched. A draw explores where the model is unsure and exploits where it is sure,
with no tuning of an exploration weight; every launch (relaunches too) is a row, so the
noise between launches is averaged in rather than chased. Plain numpy.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

# the matrices are small (~100 columns): BLAS threads only fight each other and the rest of the
# machine (a choice took 0.3 s with them on a loaded 2-core host, 0.03 s without); read when
# numpy is first imported, which is here unless Optuna's TPE ran first
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from cockpit.model.search.features import Encoder
from cockpit.model.search.search import Direction, Search, SearchTrial, SpaceValue, TrialStatus
from cockpit.model.search.space import ConfigKey, config_key, normalise

__all__ = ["MAX_GRID", "model_choice"]

MAX_GRID = 20_000  # configurations scored per choice; a larger space is left to TPE
MAIN_PRIOR = 1.0  # prior sd of a flag value's effect, in sds of the figures seen
PAIR_PRIOR = 0.5  # an interaction is smaller than a main effect until the data says otherwise
TREND_PRIOR = 1.0  # a numeric flag's linear and quadratic trend (shares what neighbouring values learn)
GAP_NOISE = 0.02  # a constraint's gap noise floor (a share of the target)
MIN_NOISE = 0.02  # the model's noise floor, in log units (a launch is never more exact than this)
DRAW_SCALE = 0.3  # how far a draw strays from the posterior mean (1: Thompson sampling; 0.3 measured best of 1/0.5/0.3)


def _encoder(search: Search) -> Encoder:
    return Encoder(search, MAIN_PRIOR, PAIR_PRIOR, TREND_PRIOR)


def _draw(x: np.ndarray, y: np.ndarray, prior_precision: np.ndarray, noise: float, rng: np.random.Generator,
          candidates: np.ndarray) -> np.ndarray:
    """One draw of the posterior over the weights, scored on the candidates (in y's units)."""
    centre = float(np.mean(y))
    scale = float(np.std(y)) or 1.0
    ys = (y - centre) / scale
    noise_s = max(noise / scale, 1e-3)
    precision = x.T @ x / noise_s ** 2 + np.diag(prior_precision)
    chol = np.linalg.cholesky(precision)
    mean = np.linalg.solve(precision, x.T @ ys / noise_s ** 2)
    # w = mean + L^-T z has covariance precision^-1
    weights = mean + DRAW_SCALE * np.linalg.solve(chol.T, rng.standard_normal(len(mean)))
    drawn: np.ndarray = (candidates @ weights) * scale + centre
    return drawn


def _noise_log(values_by_key: dict[ConfigKey, list[float]]) -> float:
    """The spread between launches of one configuration, in log units (MIN_NOISE if none relaunched)."""
    dev = [math.log(v) - float(np.mean(np.log(vs))) for vs in values_by_key.values() if len(vs) > 1 for v in vs]
    dof = sum(len(vs) - 1 for vs in values_by_key.values() if len(vs) > 1)
    measured = math.sqrt(sum(d * d for d in dev) / dof) if dof else 0.05
    return max(MIN_NOISE, measured)


def _crash_ok(keys: Sequence[ConfigKey], suspects: list[dict[tuple[tuple[str, str], ...], float]]) -> np.ndarray:
    """Per candidate, the chance it gets ready: each crash's culprit is taken to be one of its
    suspects (values and pairs of values never seen working) with its prior weight; a
    candidate holding suspects of weight w out of W crashes with chance w/W."""
    ok = np.ones(len(keys))
    for crash in suspects:
        total = sum(crash.values())
        for c, key in enumerate(keys):
            values = set(key)
            held = sum(w for combo, w in crash.items() if set(combo) <= values)
            if held:
                ok[c] *= 1 - held / total
    return ok


def model_choice(search: Search, candidates: list[dict[str, SpaceValue]], seed: int,
                 suspects: list[dict[tuple[tuple[str, str], ...], float]]) -> dict[str, SpaceValue] | None:
    """The untried candidate a draw of the models rates best (None: no candidate)."""
    if not candidates:
        return None
    enc = _encoder(search)
    rng = np.random.default_rng(seed)
    cand_keys = [config_key(search, p) for p in candidates]
    cand_codes = [enc.codes(k) for k in cand_keys]
    usable = [i for i, c in enumerate(cand_codes) if c is not None]
    if not usable:
        return None
    xc = enc.rows(np.array([cand_codes[i] for i in usable], dtype=int))
    ok_trials: list[tuple[list[int], SearchTrial]] = []
    for trial in search.trial:
        if trial.status not in (TrialStatus.OK, TrialStatus.PRUNED) or trial.value is None or trial.value <= 0:
            continue
        codes = enc.codes(config_key(search, normalise(search, trial.params)))
        if codes is not None:
            ok_trials.append((codes, trial))
    score = rng.standard_normal(len(usable))  # nothing learnt yet: any candidate
    if len(ok_trials) >= 2:
        x = enc.rows(np.array([c for c, _ in ok_trials], dtype=int))
        logs = np.log(np.array([t.value for _, t in ok_trials], dtype=float))
        by_key: dict[ConfigKey, list[float]] = {}
        for _, t in ok_trials:
            by_key.setdefault(config_key(search, t.params), []).append(float(t.value or 0))
        noise = _noise_log(by_key)
        drawn = _draw(x, logs, enc.prior_precision, noise, rng, xc)
        score = drawn if search.direction is Direction.MAXIMIZE else -drawn
        for i in range(len(search.constraints)):  # each target: a draw of its gap (<= 0 met)
            gaps = np.array([t.constraints[i] if i < len(t.constraints) else 1.0 for _, t in ok_trials])
            gap_noise = max(GAP_NOISE, float(np.std(gaps)) * 0.1)
            drawn_gap = _draw(x, gaps, enc.prior_precision, gap_noise, rng, xc)
            score = np.where(drawn_gap <= 0, score, score - 1e3 - drawn_gap)
    ok = _crash_ok([cand_keys[i] for i in usable], suspects)
    # drawn as crashing with its chance (its square was measured too: it kept the search away
    # from the edge of a crash region where the best sat, bench_search.py `interact`)
    crashes = rng.random(len(usable)) >= ok
    score = np.where(crashes, score - 1e6, score)
    return candidates[usable[int(np.argmax(score))]]
