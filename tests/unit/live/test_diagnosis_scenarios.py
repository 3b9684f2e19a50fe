"""The labelled scenario set (tests/data/diagnosis, built from real inputs by
make_scenarios.py): top-1 kind right on at least 80 %, nothing on the healthy ones."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from cockpit.control.diagnosis import inputs_from_folder
from cockpit.live.diagnosis.engine import diagnose
from cockpit.live.diagnosis.findings import KINDS

DATA = Path(__file__).resolve().parents[2] / "data" / "diagnosis"
SCENARIOS = sorted(p for p in DATA.iterdir() if p.is_dir())


def expected(folder: Path) -> str:
    return str(tomllib.loads((folder / "scenario.toml").read_text())["expect"])


def test_the_set_is_large_enough_and_covers_every_kind() -> None:
    kinds = [expected(f) for f in SCENARIOS]
    assert len([k for k in kinds if k != "healthy"]) >= 25
    assert kinds.count("healthy") >= 6
    assert set(KINDS) <= set(kinds)


def test_top1_accuracy_at_least_80_percent() -> None:
    labelled = [f for f in SCENARIOS if expected(f) != "healthy"]
    wrong = []
    for folder in labelled:
        found = diagnose(inputs_from_folder(folder))
        top = found[0].kind if found else "nothing"
        if top != expected(folder):
            wrong.append(f"{folder.name}: {top}")
    assert len(wrong) <= 0.2 * len(labelled), wrong


@pytest.mark.parametrize("folder", [f for f in SCENARIOS if expected(f) == "healthy"], ids=lambda f: f.name)
def test_healthy_scenarios_have_no_finding(folder: Path) -> None:
    assert diagnose(inputs_from_folder(folder)) == []


def test_every_finding_carries_evidence_a_next_step_and_a_stable_key() -> None:
    for folder in SCENARIOS:
        first = diagnose(inputs_from_folder(folder))
        again = diagnose(inputs_from_folder(folder))
        assert [f.key for f in first] == [f.key for f in again]
        for f in first:
            assert f.evidence and f.next_experiment and 0 < f.confidence < 1
            assert f.key.startswith(f.kind + ":") or f.key == f.kind
