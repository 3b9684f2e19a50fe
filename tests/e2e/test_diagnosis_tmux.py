"""The diagnosis on the demo, in tmux: the findings appear (count in the header, `D` opens
them), one is accepted into Discoveries with its evidence, one is dismissed and is not
shown again after the demo is quit and reopened."""

from __future__ import annotations

from pathlib import Path

from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

from cockpit.store.toml_store import load_session


def test_demo_findings_accepted_into_discoveries_and_dismissed_for_good(tmux):
    copy = Path(tmux.env["XDG_STATE_HOME"]) / "cockpit" / "demo" / "glm5-nvfp4.toml"
    tmux.start(f"{cockpit_program()} --demo", width=120, height=40)
    tmux.wait_until(lambda s: "findings" in s.splitlines()[0] and "GPU" in s, "the header's findings count",
                    timeout=40)
    tmux.keys("D")
    screen = tmux.wait_for("Findings ·")
    screen = tmux.wait_until(lambda s: "pcie_downgrade" in s, "the pcie finding", timeout=20) \
        if "pcie_downgrade" not in screen else screen
    assert "regression" in screen and "236 output tok/s" in screen  # top: the allreduce-fusion run
    tmux.keys("a")  # accept the selected (top) one: the regression of b2
    tmux.wait_for("accepted as discovery d8")
    screen = tmux.wait_until(lambda s: "pcie_downgrade" in s.split("\n")[2], "the pcie finding on top", timeout=10)
    tmux.keys("x")  # dismiss GPU 5's link
    tmux.wait_for("dismissed: GPU 5's PCIe link")
    tmux.keys("Escape")
    tmux.wait_until(lambda s: "Findings ·" not in s, "the findings screen closed")  # keys sent before land there
    tmux.keys("3")  # Discoveries: the accepted finding with its evidence
    tmux.wait_for("d8 b2 (allreduce fusion")
    tmux.keys("G")
    screen = tmux.wait_until(lambda s: "d8 b2 (allreduce fusion" in s and "236 output tok/s" in s and "#diagnosis" in s,
                             "d8 selected, its evidence and tags beside it", timeout=10)
    assert "d8 · hypothesis" in screen and "b2 allreduce fusion enabled on SM120" in screen  # evidence, linked run
    tmux.keys("C-s")
    tmux.wait_for(" saved")
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")
    s = load_session(copy)
    d8 = next(d for d in s.discoveries if d.id == "d8")
    assert d8.status.value == "hypothesis" and d8.benchmarks == ["b2"] and "regression" in d8.tags
    assert [(d.kind, d.decision) for d in s.findings] == [("regression", "accepted"), ("pcie_downgrade", "dismissed")]

    tmux.kill()
    tmux.start(f"{cockpit_program()} --demo", width=120, height=40)
    tmux.wait_until(lambda s: "findings" in s.splitlines()[0], "the header's findings count", timeout=40)
    tmux.keys("D")
    screen = tmux.wait_for("Findings ·")
    screen = tmux.wait_until(lambda s: "comm_bound" in s, "the other findings", timeout=20)
    assert "2 accepted or dismissed" in screen
    assert "pcie_downgrade" not in screen and "236 output tok/s" not in screen
    tmux.keys("Escape")
    tmux.wait_until(lambda s: "Findings ·" not in s, "the findings screen closed")
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")
