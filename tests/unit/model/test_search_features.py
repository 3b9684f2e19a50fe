"""The search's feature rows (model/search/features.py): one-hot per flag value and pair of
values, and, with SMOOTH_WEIGHT > 0, numeric flags whose neighbouring values share what
they learn (measured off by default: benchmarks/README.md)."""

from __future__ import annotations

import numpy as np
import pytest

from cockpit.model.search import features
from cockpit.model.search.features import Encoder
from cockpit.model.search.search import Search

SPACE = {"--mem-fraction-static": {"low": 0.70, "high": 0.90, "step": 0.05},
         "--attention-backend": ["fa3", "flashinfer", "triton"]}


def _kernel(weight: float, monkeypatch: pytest.MonkeyPatch) -> np.ndarray:
    monkeypatch.setattr(features, "SMOOTH_WEIGHT", weight)
    search = Search.model_validate({"id": "q1", "name": "x", "profile": "l1", "sweep": "s1",
                                    "objective": "output_tok_s", "trials": 8, "space": SPACE})
    enc = Encoder(search, 1.0, 0.5, 1.0)
    codes = np.array([[m, 0] for m in range(5)], dtype=int)  # each memory fraction, with fa3
    x = enc.rows(codes)
    assert x.shape == (5, enc.width)
    kernel: np.ndarray = (x / enc.prior_precision) @ x.T  # the prior covariance the models use
    return kernel


def test_one_hot_values_share_only_the_trend(monkeypatch):
    k = _kernel(0.0, monkeypatch)
    # 0.70 with 0.75 and with 0.90: only the intercept, the attention backend and the trends in common
    near, far = k[0, 1], k[0, 4]
    assert near - far < 0.5 * (k[0, 0] - near)


def test_a_smooth_basis_makes_neighbouring_values_covary_more_than_distant_ones(monkeypatch):
    plain, smooth = _kernel(0.0, monkeypatch), _kernel(0.5, monkeypatch)
    gain = smooth - plain
    assert gain[0, 1] > gain[0, 2] > gain[0, 4] >= 0  # 0.70 learns most from 0.75, least from 0.90
    assert gain[0, 1] > 0.15 * (plain[0, 0] - plain[0, 1])  # against what a value shares with itself alone
