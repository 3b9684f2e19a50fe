"""The regression rule compares like with like (issue 37): a run against the earlier runs of
its own profile and workload, never another profile's best and never a search's trials; the
timeline's ▼ drops (a timeline, not a diagnosis) still compare across profiles."""

from __future__ import annotations

from pathlib import Path

from cockpit.control.diagnosis import inputs_from_folder
from cockpit.live.diagnosis.engine import diagnose
from cockpit.live.diagnosis.rules_history import regression
from cockpit.model.timeline import drops

HELDOUT = Path(__file__).resolve().parents[2] / "data" / "diagnosis_heldout"


def test_a_new_profile_slower_than_the_old_ones_best_is_no_regression() -> None:
    inputs = inputs_from_folder(HELDOUT / "h32-new-profile-slower-than-old-best")
    assert inputs.session is not None
    assert regression(inputs) == [] and diagnose(inputs) == []
    # the timeline still marks l2's first run below l1's median (22 %): a timeline, not a diagnosis
    assert [(d.bench.id, d.best.profile, round(d.fraction * 100)) for d in drops(inputs.session, 0.2)] == [
        ("b3", "l1", 22)]
    assert drops(inputs.session, 0.2, same_profile=True) == []


def test_the_same_profile_25_percent_down_after_a_patch_is_a_regression_citing_the_patch() -> None:
    (top, *_rest) = diagnose(inputs_from_folder(HELDOUT / "h33-same-profile-drop-after-patch"))
    assert top.kind == "regression" and top.key == "regression:b3"
    assert "25% below the best run, after flashinfer allreduce fusion kernel" in top.claim
    texts = [e.text for e in top.evidence]
    assert texts[0] == ("b3: 2,325 total tok/s, 25% below the median of 2 earlier runs (3,100, b1) "
                        "of the same profile l1 and workload"), texts
    assert any(t.startswith("patched before it: flashinfer allreduce fusion kernel (.cuh) (problematic)")
               for t in texts), texts


def test_a_searchs_trials_are_never_regressions() -> None:
    # three trials of one search at 3,100, 1,850 and 2,900 tok/s: l2's 1,850 is 40 % below l1
    inputs = inputs_from_folder(HELDOUT / "h22-search-trials-not-regressions")
    assert inputs.session is not None and inputs.session.searches
    assert regression(inputs) == [] and drops(inputs.session, 0.2) == []
