"""The seed's own campaign, fed as files (the example session, the demo's log, GPU CSV,
/metrics pages and topology): the readings the seed's assistant made by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from cockpit.live.diagnosis.engine import diagnose
from cockpit.live.diagnosis.findings import Finding
from cockpit.live.diagnosis.load import inputs_from_files
from cockpit.store.toml_store import load_session

REPO = Path(__file__).resolve().parents[3]
DEMO = REPO / "sessions" / "demo"


@pytest.fixture(scope="module")
def findings() -> list[Finding]:
    session = load_session(REPO / "sessions" / "glm5-nvfp4.toml")
    inputs = inputs_from_files(session, log=DEMO / "sglang-server.log",
                               metrics=[DEMO / "sglang-metrics-a.txt", DEMO / "sglang-metrics-b.txt"],
                               gpus=DEMO / "nvidia-smi-query.csv", topo=DEMO / "nvidia-smi-topo.txt")
    return diagnose(inputs)


def by_kind(findings: list[Finding], kind: str) -> Finding:
    return next(f for f in findings if f.kind == kind)


def test_the_3740_run_at_330_of_600_w_on_8_pcie_gpus_is_starved_or_comm_bound(findings: list[Finding]) -> None:
    kinds = {f.kind for f in findings}
    assert kinds & {"power_starved", "comm_bound"}
    f = by_kind(findings, "comm_bound")
    text = " ".join(e.text for e in f.evidence)
    assert "TP8 over PCIe only" in text and "no NVLink" in text
    assert "b1" in f.benchmarks and "3,740 total tok/s at ~330 W of 600 W" in text
    assert "NCCL's ring" in text  # the seed's chain, said
    assert "55%" in f.claim


def test_the_allreduce_fusion_run_is_a_regression_with_its_cause(findings: list[Finding]) -> None:
    f = by_kind(findings, "regression")
    assert f.key == "regression:b2" and f.benchmarks == ("b2",)
    text = " ".join(e.text for e in f.evidence)
    assert "236 output tok/s, down from 1,867" in text and "~125 W" in text
    assert "allreduce fusion kernel" in text  # the patched file (problematic) its discovery cites


def test_the_demo_gpu_at_gen5_x8_is_a_pcie_downgrade(findings: list[Finding]) -> None:
    f = by_kind(findings, "pcie_downgrade")
    assert f.claim == "GPU 5's PCIe link runs at gen5 x8 where slot and GPU allow gen5 x16"
    assert f.evidence[0].gpus == (5,) and f.evidence[0].time_range is not None


def test_dismissed_keys_are_not_proposed_again(findings: list[Finding]) -> None:
    session = load_session(REPO / "sessions" / "glm5-nvfp4.toml")
    inputs = inputs_from_files(session, gpus=DEMO / "nvidia-smi-query.csv")
    keys = [f.key for f in diagnose(inputs)]
    assert "pcie_downgrade::5:gen5 x8<gen5 x16" in keys
    assert "pcie_downgrade::5:gen5 x8<gen5 x16" not in [f.key for f in diagnose(inputs, decided=keys[:1] + [
        "pcie_downgrade::5:gen5 x8<gen5 x16"])]


def test_the_seed_readings_come_out_in_order(findings: list[Finding]) -> None:
    """The cause with its change (the fusion patch) first; the PCIe chain (comm_bound) above
    the symptom it explains (power_starved); the link reading among them."""
    order = [f.kind for f in findings]
    assert order[0] == "regression"
    seed = [k for k in order if k in {"regression", "pcie_downgrade", "comm_bound", "power_starved"}]
    assert seed == ["regression", "pcie_downgrade", "comm_bound", "power_starved"]
