"""The topology pane (the Topology tab): the `nvidia-smi topo -m` matrix coloured by
distance class ($topo-x ... $topo-sys), CPU and NUMA affinity columns, NICs, the legend,
and which GPU pairs cross the CPU socket link (SYS), which stand out.

Public surface:

* `update_topology(topology)`: a `TopologyMatrix` (NVML or parsed `topo -m`);
* `feed(item)`: an item of the `sources.topology` feed: a `TopologyMatrix`, or a
  `GpuSourceUnavailable` (shown as one message);
* `set_state(text)`: the source's state; before any source, "no source configured";
* `show_age()`: the border subtitle says when the topology was read (a one-shot: never stale).

The look lives in `topology_pane.tcss`; colours come from theme roles.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import assert_never

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from cockpit.live.data_age import DataAge
from cockpit.live.items import LiveItem, TopologyItem
from cockpit.live.routes import TOPOLOGY_ITEMS
from cockpit.parse.gpu.events import GpuSourceUnavailable
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix
from cockpit.ui.render.gpu import Palette
from cockpit.ui.render.topology import legend_tooltip, render_legend, render_matrix, render_summary
from cockpit.ui.safe_text import inert_renderable, plain
from cockpit.ui.theme.themes import role_style
from cockpit.ui.widgets.chrome.age_mark import show_age
from cockpit.ui.widgets.chrome.focus_mark import FocusMarked
from cockpit.ui.widgets.chrome.redraw_once import RedrawOnce

NO_SOURCE = "no source configured"
PLACEHOLDER = "No topology yet: it shows once `nvidia-smi topo -m` (or NVML) has been read."


class TopologyPane(FocusMarked, RedrawOnce, VerticalScroll, can_focus=True):
    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    def __init__(self, *, id: str | None = None, clock: Callable[[], float] | None = None) -> None:
        super().__init__(id=id)
        self.age = DataAge("read", clock=clock or time.time)
        self.border_title = "Topology"
        self.state_text = NO_SOURCE
        self.topology: TopologyMatrix | None = None
        self.unavailable: GpuSourceUnavailable | None = None
        self._render_pending = False

    def compose(self) -> ComposeResult:
        yield Static(self.state_text, classes="topo-state", markup=False)
        yield Static(PLACEHOLDER, classes="topo-matrix", markup=False)
        yield Static("", classes="topo-summary", markup=False)
        yield Static("", classes="topo-legend", markup=False)
        yield Static("", classes="topo-warnings", markup=False)

    # ----- hooks for the live side ----------------------------------------------------
    def update_topology(self, topology: TopologyMatrix) -> None:
        self.topology = topology
        self.unavailable = None
        self.age.seen()
        self._schedule_render()

    def show_age(self) -> None:
        show_age(self, self.age)

    TAKES: tuple[type, ...] = TOPOLOGY_ITEMS

    def feed(self, item: LiveItem) -> None:
        if not isinstance(item, TopologyItem):  # the routing table sent another kind's: a bug
            raise TypeError(f"TopologyPane takes no {type(item).__name__}")
        if isinstance(item, GpuSourceUnavailable):
            self.unavailable = item
            self._schedule_render()
        elif isinstance(item, TopologyMatrix):
            self.update_topology(item)
        else:
            assert_never(item)

    # ----- rendering ----------------------------------------------------------------------
    def _redraw(self) -> None:
        self._render_pending = False
        if not self.is_mounted:
            return
        self.show_age()
        state = self.query_one(".topo-state", Static)
        matrix_w, summary, legend, warnings = (
            self.query_one(f".topo-{n}", Static) for n in ("matrix", "summary", "legend", "warnings"))
        topo = self.topology
        if self.unavailable is not None and topo is None:
            state.update(plain(f"No topology: {self.unavailable.message}"))
            state.add_class("-error")
        else:
            state.update(plain(self.state_text))
            state.remove_class("-error")
        if topo is None or not topo.gpus:
            matrix_w.update("" if self.unavailable is not None else PLACEHOLDER)
            matrix_w.add_class("-placeholder")
            for w in (summary, legend, warnings):
                w.display = False
            self.border_title = "Topology"
            return
        pal = Palette(self.app.theme_variables, role_style)
        width = max(20, self.scrollable_content_region.width or self.size.width)
        matrix_w.remove_class("-placeholder")
        # Names, legend and warnings are host output: made inert, styles kept.
        matrix_w.update(inert_renderable(render_matrix(topo, width, pal)))
        matrix_w.tooltip = inert_renderable(legend_tooltip(topo))
        summary.update(inert_renderable(render_summary(topo, pal)))
        legend.update(inert_renderable(render_legend(topo, width, pal)))
        warnings.update(plain("\n".join(f"⚠ {w}" for w in topo.warnings[:3]), multiline=True))
        summary.display = legend.display = True
        warnings.display = bool(topo.warnings)
        nics = f", {len(topo.nics)} NIC{'s' if len(topo.nics) != 1 else ''}" if topo.nics else ""
        self.border_title = f"Topology · {len(topo.gpus)} GPU{'s' if len(topo.gpus) != 1 else ''}{nics}"
