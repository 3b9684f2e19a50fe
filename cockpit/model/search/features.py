"""Configurations of a search's space as feature rows for its linear models (the sampler's
draw, control/search/model_sampler.py, and the shrunk estimate, shrunk.py): an
intercept, per flag its value's features, per pair of flags the products of theirs
(interactions), and a numeric flag's position (linear and squared).

Each flag's features are one-hot. With SMOOTH_WEIGHT > 0 a numeric flag's also hold a bump at
each of its values (Gaussian in the value's position, width SMOOTH_LENGTH of the range), so
neighbouring values share what they learn in its effect and its interactions; measured off
(bench_search.py `--variants smooth-0.5`: no gain over 200 seeds, benchmarks/README.md)."""

from __future__ import annotations

import itertools

import numpy as np

from cockpit.model.search.search import Search, Stepped, show_value
from cockpit.model.search.space import ConfigKey

__all__ = ["Encoder"]

SMOOTH_WEIGHT = 0.0  # a numeric flag's bumps against its one-hot (0: one-hot only, as measured best)
SMOOTH_LENGTH = 0.25  # a bump's sd, as a share of the flag's range of positions


def _basis(count: int, numeric: bool) -> np.ndarray:
    """Per value (rows) its features (columns)."""
    onehot = np.eye(count)
    if not numeric or SMOOTH_WEIGHT <= 0:
        return onehot
    pos = np.arange(count) / max(1, count - 1)
    bumps = np.exp(-((pos[:, None] - pos[None, :]) ** 2) / (2 * SMOOTH_LENGTH ** 2))
    return np.hstack([onehot, SMOOTH_WEIGHT * bumps])


class Encoder:
    """Feature rows of configurations, with each column's prior precision (1 / sd²)."""

    def __init__(self, search: Search, main_prior: float, pair_prior: float, trend_prior: float) -> None:
        self.keys = list(search.space)
        self.values = [[show_value(v) for v in search.values_of(k)] for k in self.keys]
        self.numeric = [isinstance(search.space[k], Stepped) or all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in search.values_of(k)) and
            len(self.values[i]) > 2 for i, k in enumerate(self.keys)]
        self.index: list[dict[str, int]] = [{v: j for j, v in enumerate(vals)} for vals in self.values]
        self.basis = [_basis(len(vals), numeric) for vals, numeric in zip(self.values, self.numeric, strict=True)]
        self.pairs = list(itertools.combinations(range(len(self.keys)), 2))
        offsets = [1]
        for b in self.basis:
            offsets.append(offsets[-1] + b.shape[1])
        self.main_at = offsets[:-1]
        at = offsets[-1]
        self.pair_at = []
        for i, j in self.pairs:
            self.pair_at.append(at)
            at += self.basis[i].shape[1] * self.basis[j].shape[1]
        self.trend_at = at
        self.width = at + 2 * sum(self.numeric)
        prior = np.empty(self.width)
        prior[0] = 10.0
        prior[1:offsets[-1]] = main_prior
        prior[offsets[-1]:at] = pair_prior
        prior[at:] = trend_prior
        self.prior_precision = 1.0 / prior ** 2

    def codes(self, key: ConfigKey) -> list[int] | None:
        """Each flag's value index (None: a value outside the space)."""
        shown = dict(key)
        out = []
        for k, index in zip(self.keys, self.index, strict=True):
            code = index.get(shown.get(k, ""))
            if code is None:
                return None
            out.append(code)
        return out

    def rows(self, codes: np.ndarray) -> np.ndarray:
        n = codes.shape[0]
        x = np.zeros((n, self.width))
        x[:, 0] = 1.0
        feats = [b[codes[:, d]] for d, b in enumerate(self.basis)]
        for d, at in enumerate(self.main_at):
            x[:, at:at + feats[d].shape[1]] = feats[d]
        for (i, j), at in zip(self.pairs, self.pair_at, strict=True):
            block = (feats[i][:, :, None] * feats[j][:, None, :]).reshape(n, -1)
            x[:, at:at + block.shape[1]] = block
        col = self.trend_at
        for d, numeric in enumerate(self.numeric):
            if numeric:
                pos = codes[:, d] / max(1, len(self.values[d]) - 1) * 2 - 1
                x[:, col] = pos
                x[:, col + 1] = pos ** 2 - 1 / 3
                col += 2
        return x
