"""The topology pane: snapshots of real `nvidia-smi topo -m` pastes with 1, 2, 4 and 8 GPUs
at 80x24 and 120x40, the placeholder and the unavailable message; Pilot checks of the
SYS summary and the colours coming from the theme roles."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paths import CORPUS as SHARED_CORPUS
from tui_support import OnePaneApp

from cockpit.parse.gpu.events import GpuSourceUnavailable
from cockpit.parse.gpu.nvsmi_topo import parse_topology
from cockpit.ui.render.gpu import Palette
from cockpit.ui.render.topology import render_matrix, sys_groups, sys_pairs
from cockpit.ui.theme.themes import role_colour, role_style
from cockpit.ui.widgets.gpu.topology_pane import PLACEHOLDER, TopologyPane

REPO = Path(__file__).resolve().parents[2]
DEMO_TOPO = REPO / "sessions" / "demo" / "nvidia-smi-topo.txt"
CORPUS = SHARED_CORPUS / "nvidia-smi"

# real pastes (see the corpus index.tsv): 1x GPU, 2x with one NIC, 4x with N/A NUMA, 8x + 12 NICs
SOURCES = {
    1: CORPUS / "057.txt",
    2: CORPUS / "061.txt",
    4: CORPUS / "037.txt",
    8: DEMO_TOPO,
}


PaneApp = OnePaneApp


def topo_app(*items: Any) -> PaneApp:
    return PaneApp(lambda: TopologyPane(id="topology"), items)


def matrix(gpus: int):  # noqa: ANN201
    return parse_topology(SOURCES[gpus].read_text(encoding="utf-8"))


SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


class TestTopologySnapshots:
    @pytest.mark.parametrize("size", SIZES)
    @pytest.mark.parametrize("gpus", [1, 2, 4, 8])
    def test_matrix(self, snap_compare, gpus: int, size: tuple[int, int]) -> None:
        """The matrix coloured by class with CPU/NUMA affinity and NIC columns; SYS cells
        bold red-ish and summed up (`16 of 28 GPU pairs cross the CPU socket link`)."""
        assert snap_compare(topo_app(matrix(gpus)), terminal_size=size)

    def test_wide_matrix_with_many_nics(self, snap_compare) -> None:
        """8 GPUs and 12 NICs at 80x24: short labels (`0`, `N0`), scrolls sideways."""
        assert snap_compare(topo_app(parse_topology((CORPUS / "006.txt").read_text())), terminal_size=(80, 24))

    def test_placeholder(self, snap_compare) -> None:
        """Nothing fed yet: the state line and a sentence saying what will appear."""
        assert snap_compare(topo_app(), terminal_size=(80, 24))

    def test_unavailable(self, snap_compare) -> None:
        assert snap_compare(topo_app(GpuSourceUnavailable("gpu1: nvidia-smi topo -m failed: command not found")),
                            terminal_size=(80, 24))


def test_sys_pairs_and_socket_groups_of_the_demo_box() -> None:
    m = matrix(8)
    assert len(sys_pairs(m)) == 16
    assert sys_groups(m) == [["GPU0", "GPU1", "GPU2", "GPU3"], ["GPU4", "GPU5", "GPU6", "GPU7"]]


async def test_feeding_a_matrix_replaces_the_placeholder() -> None:
    app = topo_app()
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(TopologyPane)
        await pilot.pause()
        assert str(pane.query_one(".topo-matrix").render()) == PLACEHOLDER
        pane.feed(matrix(8))
        await pilot.pause()
        text = str(pane.query_one(".topo-matrix").render())
        assert text.splitlines()[1].split()[:4] == ["GPU0", "X", "PXB", "NODE"]
        assert "0-31,64-95" in text
        summary = str(pane.query_one(".topo-summary").render())
        assert summary.startswith("16 of 28 GPU pairs cross the CPU socket link (SYS): GPU0-3 | GPU4-7")
        assert pane.border_title == "Topology · 8 GPUs, 1 NIC"


async def test_sys_cells_take_the_theme_colour() -> None:
    app = topo_app(matrix(8))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        rendered = render_matrix(matrix(8), 118, Palette(app.theme_variables, role_style))
        sys_spans = [s for s in rendered.spans if rendered.plain[s.start:s.end].strip() == "SYS"]
        want = role_colour(app.theme_variables, "topo-sys").rich_color
        assert want.triplet is not None and want.triplet.hex == "#e5534b"  # cockpit-dark's topo-sys
        assert len(sys_spans) == 32 + 4
        assert all(s.style.color == want and s.style.bold for s in sys_spans)  # type: ignore[union-attr]
