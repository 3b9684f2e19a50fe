"""Configurations of a search's space as feature rows for its linear models (the sampler's
draw, control/search/model_sampler.py, and the shrunk estimate, shrunk.py): an
intercept, one-hot per flag value, one-hot per pair of flags' values (interactions), and a
numeric flag's position (linear and squared: neighbouring values share what they learn)."""

from __future__ import annotations

import itertools

import numpy as np

from cockpit.model.search.search import Search, Stepped, show_value
from cockpit.model.search.space import ConfigKey

__all__ = ["Encoder"]


class Encoder:
    """Feature rows of configurations, with each column's prior precision (1 / sd²)."""

    def __init__(self, search: Search, main_prior: float, pair_prior: float, trend_prior: float) -> None:
        self.keys = list(search.space)
        self.values = [[show_value(v) for v in search.values_of(k)] for k in self.keys]
        self.numeric = [isinstance(search.space[k], Stepped) or all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in search.values_of(k)) and
            len(self.values[i]) > 2 for i, k in enumerate(self.keys)]
        self.index: list[dict[str, int]] = [{v: j for j, v in enumerate(vals)} for vals in self.values]
        self.pairs = list(itertools.combinations(range(len(self.keys)), 2))
        offsets = [1]
        for vals in self.values:
            offsets.append(offsets[-1] + len(vals))
        self.main_at = offsets[:-1]
        at = offsets[-1]
        self.pair_at = []
        for i, j in self.pairs:
            self.pair_at.append(at)
            at += len(self.values[i]) * len(self.values[j])
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
        span = np.arange(n)
        for d, at in enumerate(self.main_at):
            x[span, at + codes[:, d]] = 1.0
        for (i, j), at in zip(self.pairs, self.pair_at, strict=True):
            x[span, at + codes[:, i] * len(self.values[j]) + codes[:, j]] = 1.0
        col = self.trend_at
        for d, numeric in enumerate(self.numeric):
            if numeric:
                pos = codes[:, d] / max(1, len(self.values[d]) - 1) * 2 - 1
                x[:, col] = pos
                x[:, col + 1] = pos ** 2 - 1 / 3
                col += 2
        return x
