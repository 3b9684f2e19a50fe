"""The shrunk estimate of each launched configuration: what the search ranks its leader on.

With 5-10 % launch noise and two or three launches per configuration, a configuration's own
median cannot tell it from its neighbours (bench_search.py: the search had launched one truly
within 3 % of the best in 17-20 of 20 seeds but named it in 6-14). The estimate pools what
every launch says: a Bayesian linear model of the objective's logarithm (each flag's values,
each pair of flags' values, a numeric flag's trend; features.py) plus one effect per
configuration that the model does not explain (sd `tau`, chosen by the data's marginal
likelihood), over the launches' noise (measured between relaunches). A configuration's
estimate is its posterior mean: its own launches weigh by their number over the noise, the
model's prediction by how well the model fits; one lucky launch among neighbours that say
otherwise is pulled back, a configuration whose neighbours agree is trusted sooner.

Each constraint's gap (<= 0 met) gets the same model; a configuration is feasible when its
posterior gap is more likely met than not. Plain numpy over the distinct configurations.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cockpit.model.search.features import Encoder
from cockpit.model.search.search import Search
from cockpit.model.search.space import ConfigKey

__all__ = ["Shrunk", "launch_noise", "prior_noise", "prior_worth", "shrunk"]

MAIN_PRIOR = 1.0  # prior sd of a flag value's effect, in sds of the figures seen
PAIR_PRIOR = 0.5
TREND_PRIOR = 1.0
TAUS = (0.005, 0.01, 0.02, 0.04, 0.08)  # a configuration's own effect (log units), chosen by the likelihood
# the noise: the relaunches' spread with a prior of NOISES' middle worth this many relaunches (0: NOISES' likeliest)
NOISE_PRIOR_DOF = 4.0
NOISES = (0.02, 0.035, 0.05, 0.07, 0.1, 0.14)  # the launch noise (log units), chosen by the likelihood
GAP_NOISES = (0.02, 0.035, 0.05, 0.07, 0.1, 0.14, 0.2)  # a constraint gap's noise (a share of the target)


@dataclass(frozen=True, slots=True)
class Shrunk:
    """One configuration's posterior: its objective (in the objective's units), the sd of its
    logarithm, and the chance each constraint holds (all of them together, taken as independent)."""

    value: float
    sd_log: float
    p_feasible: float


def _within(groups: Sequence[Sequence[float]]) -> tuple[float, int]:
    """The sum of squares between launches of one configuration, and its degrees of freedom."""
    total, dof = 0.0, 0
    for vals in groups:
        if len(vals) > 1:
            m = sum(vals) / len(vals)
            total += sum((v - m) ** 2 for v in vals)
            dof += len(vals) - 1
    return total, dof


def _pooled_sd(groups: Sequence[Sequence[float]]) -> float | None:
    total, dof = _within(groups)
    return math.sqrt(total / dof) if dof else None


def prior_noise() -> float:
    """The launch noise the estimate assumes before any relaunch (NOISES' middle, log units)."""
    return NOISES[len(NOISES) // 2]


def prior_worth() -> float:
    """How many relaunches the prior noise is worth (read late: a benchmark variant sets it)."""
    return NOISE_PRIOR_DOF


def launch_noise(log_groups: Sequence[Sequence[float]]) -> float | None:
    """The launch noise (log units) the estimate weighs launches with: the relaunches' spread
    with a prior of `prior_noise()` worth NOISE_PRIOR_DOF relaunches (None: chosen by the
    likelihood instead, NOISE_PRIOR_DOF 0). What `told apart` rests on, so what a person reads."""
    if NOISE_PRIOR_DOF <= 0:
        return None
    return _with_prior(*_within(log_groups), prior_noise())


def _with_prior(within_ss: float, within_dof: int, prior: float) -> float:
    """The relaunches' spread pooled with `prior` worth NOISE_PRIOR_DOF relaunches."""
    return math.sqrt((within_ss + NOISE_PRIOR_DOF * prior ** 2) / (within_dof + NOISE_PRIOR_DOF))


def _posterior(kxx: np.ndarray, groups: Sequence[Sequence[float]], noises: Sequence[float],
               taus: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Posterior mean and sd of each configuration's true figure: the model's kernel `kxx`
    (standardised units) plus a per-configuration effect `tau`, over each configuration's
    launches with noise `noise`; (noise, tau) the pair of the grids the launches make likeliest
    (their means and their spread between relaunches)."""
    counts = np.array([len(g) for g in groups], dtype=float)
    means = np.array([sum(g) / len(g) for g in groups])
    within_ss, within_dof = _within(groups)
    if NOISE_PRIOR_DOF > 0:  # the relaunches' spread, with a prior worth NOISE_PRIOR_DOF relaunches
        noises = [_with_prior(within_ss, within_dof, noises[len(noises) // 2])]
    centre = float(np.average(means, weights=counts))
    y = means - centre
    scale = float(np.sqrt(np.average(y ** 2, weights=counts))) or 1.0
    ys = y / scale
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    n = len(ys)
    for noise in noises:
        spread = -within_dof * math.log(noise) - within_ss / (2 * noise ** 2)
        for tau in taus:
            k = kxx + np.eye(n) * (tau / scale) ** 2
            cov = k + np.diag((noise / scale) ** 2 / counts)
            chol = np.linalg.cholesky(cov)
            alpha = np.linalg.solve(chol.T, np.linalg.solve(chol, ys))
            loglik = spread - 0.5 * float(ys @ alpha) - float(np.sum(np.log(np.diag(chol))))
            if best is None or loglik > best[0]:
                v = np.linalg.solve(chol, k)
                var = np.clip(np.diag(k) - np.sum(v * v, axis=0), 1e-12, None)
                best = (loglik, k @ alpha, np.sqrt(var))
    assert best is not None
    return best[1] * scale + centre, best[2] * scale


def shrunk(search: Search, groups: Sequence[tuple[ConfigKey, Sequence[float], Sequence[Sequence[float]]]],
           ) -> dict[ConfigKey, Shrunk] | None:
    """Per configuration (its key, its launches' figures, and per launch its constraint gaps)
    the shrunk estimate; None where the model cannot be fitted (a figure <= 0, fewer than two
    configurations, a value outside the space)."""
    rows = [(key, vals, gaps) for key, vals, gaps in groups if vals]
    if len(rows) < 2 or any(v <= 0 for _, vals, _ in rows for v in vals):
        return None
    enc = Encoder(search, MAIN_PRIOR, PAIR_PRIOR, TREND_PRIOR)
    codes = [enc.codes(key) for key, _, _ in rows]
    if any(c is None for c in codes):
        return None
    x = enc.rows(np.array(codes, dtype=int))
    kxx = (x / enc.prior_precision) @ x.T  # X diag(prior sd²) Xᵀ
    logs = [[math.log(v) for v in vals] for _, vals, _ in rows]
    mean, sd = _posterior(kxx, logs, NOISES, TAUS)
    p_ok = np.ones(len(rows))
    width = max((len(g) for _, _, gaps in rows for g in gaps), default=0)
    for i in range(width):
        per = [[g[i] if i < len(g) else 1.0 for g in gaps] for _, _, gaps in rows]
        gmean, gsd = _posterior(kxx, [p or [1.0] for p in per], GAP_NOISES, TAUS)
        p_ok *= np.array([0.5 * math.erfc(float(m) / (float(s) * math.sqrt(2))) for m, s in zip(gmean, gsd, strict=True)])
    return {key: Shrunk(math.exp(float(m)), float(s), float(p))
            for (key, _, _), m, s, p in zip(rows, mean, sd, p_ok, strict=True)}
