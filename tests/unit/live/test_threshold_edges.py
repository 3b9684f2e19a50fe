"""The diagnosis bounds exactly at their value, beside test_diagnosis_thresholds.py's just
under / just over: "under 65 % of the limit" is strict, so a GPU at exactly 65 % is fed, and
a comparison flipped (`<` to `<=`) fails here where the 64 % / 66 % pair cannot see it."""

from __future__ import annotations

import pytest
from test_diagnosis_thresholds import bundle, found, gpu_csv, kinds, run, session


@pytest.mark.parametrize(("power", "util", "starved"), [
    (390, 80, False),  # exactly 0.65 of 600 W: not under the bound
    (389, 80, True),
    (300, 90, False),  # exactly 90 % utilisation: busy enough
])
def test_power_starved_exactly_at_its_bounds(power: float, util: float, starved: bool) -> None:
    assert ("power_starved" in kinds(gpu_csv(gpus=2, power=power, util=util))) is starved


@pytest.mark.parametrize(("share", "starved"), [(0.65, False), (0.6499, True)])
def test_a_loaded_run_exactly_at_the_share_is_fed(share: float, starved: bool) -> None:
    assert ("power_starved" in kinds(bundle(session=session(run("b1", 64, 3000, share))))) is starved


@pytest.mark.parametrize(("share", "confidence"), [(0.55, 0.55), (0.35, 0.75), (0.64, 0.46)])
def test_the_confidence_grows_with_the_distance_under_the_bound(share: float, confidence: float) -> None:
    """0.45 plus how far under 65 % the loaded runs are: moving the bound moves every figure."""
    [finding] = found(bundle(session=session(run("b1", 64, 3000, share))), "power_starved")
    assert finding.confidence == pytest.approx(confidence)
    assert f"{share:.0%} of their power limit" in finding.claim
