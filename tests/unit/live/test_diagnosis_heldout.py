"""The held-out scenario set (tests/data/diagnosis_heldout, issue 37: written from real
material before the rules were fixed) and the figure truth of every finding of both sets."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from diagnosis_truth import figures_in, quote_problems, untrue_figures

from cockpit.control.diagnosis import inputs_from_folder
from cockpit.live.diagnosis.engine import diagnose
from cockpit.live.diagnosis.findings import Evidence, Finding

DATA = Path(__file__).resolve().parents[2] / "data"
HELDOUT = sorted(p for p in (DATA / "diagnosis_heldout").iterdir() if p.is_dir())
BOTH = sorted(p for p in (DATA / "diagnosis").iterdir() if p.is_dir()) + HELDOUT


def meta(folder: Path) -> dict[str, object]:
    return tomllib.loads((folder / "scenario.toml").read_text())


def test_the_heldout_set_covers_the_classes() -> None:
    traps = {str(meta(f)["trap"]) for f in HELDOUT}
    assert len(HELDOUT) >= 20
    assert sum(meta(f)["expect"] == "healthy" for f in HELDOUT) >= 8
    for cls in ("idle downtrained link", "healthy small queues", "per-rank figure averaged", "absent counter",
                "low-concurrency points", "reason column", "first N GPUs", "search trials", "two causes",
                "symptom ranked above the cause", "another profile's best"):
        assert any(cls in t for t in traps), cls


@pytest.mark.parametrize("folder", HELDOUT, ids=lambda f: f.name)
def test_heldout_top_finding(folder: Path) -> None:
    m = meta(folder)
    kinds = [f.kind for f in diagnose(inputs_from_folder(folder))]
    also = [str(k) for k in m.get("also", [])]  # type: ignore[attr-defined]
    if m["expect"] == "healthy":
        assert kinds == []
    else:
        assert kinds and kinds[0] in {m["expect"], *also}, kinds
        assert {str(m["expect"]), *also} <= set(kinds), kinds


@pytest.mark.parametrize("folder", BOTH, ids=lambda f: f.name)
def test_every_quoted_figure_is_true_to_the_inputs(folder: Path) -> None:
    found = diagnose(inputs_from_folder(folder))
    assert [bad for f in found for bad in untrue_figures(f, folder)] == []
    assert quote_problems(found, folder) == []


def test_the_figure_check_catches_a_figure_the_inputs_do_not_hold() -> None:
    folder = next(f for f in HELDOUT if "retract-gauge" in f.name)
    real = next(f for f in diagnose(inputs_from_folder(folder)) if f.kind == "kv_pressure")
    assert untrue_figures(real, folder) == []
    planted = Finding(real.kind, "The KV cache is full (97%)", (Evidence("0.97 with 17 queued", "metrics"),),
                      real.confidence, real.next_experiment, real.key)
    assert [b.split(" in ")[0] for b in untrue_figures(planted, folder)] == ["97%", "0.97"]
    said_zero = Finding(real.kind, real.claim, (Evidence("0 requests retracted", "metrics"),), real.confidence,
                        real.next_experiment, real.key)
    assert "says '0 requests retracted'" in quote_problems([said_zero], folder)


def test_figures_are_read_as_written() -> None:
    got = figures_in("GPUs 0,2 at 3,740 tok/s (55%), gen5 x8, b2, TP8: 0.93")
    assert [(v, pct) for v, pct, _ in got] == [(3740.0, False), (55.0, True), (0.93, False)]
